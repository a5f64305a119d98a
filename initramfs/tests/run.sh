# Run the guest test cases and print KTAP.
#
# Every tests/NN-*.sh file registers its cases with case_add FUNCTION
# DESCRIPTION; the runner counts them for the plan, then runs each in a
# subshell and cleans up after it.  Exit status of a case: 0 pass, 4 skip
# (reason in /tmp/skip_reason), anything else fail.
#
# usage: [SHARD=I/N] run.sh [PATTERN,...]
#   (only cases whose function matches a PATTERN; with SHARD, every N-th)

. /lib/ktap.sh
. /lib/guest.sh

pattern=${1:-*}
CASES=/tmp/cases
: > "$CASES"

case_add() {
	local p old_ifs=$IFS
	# Split the patterns on commas, without expanding them as file names.
	set -f
	IFS=,
	for p in $pattern; do
		case $1 in
		$p)	echo "$1|$2" >> "$CASES"
			break ;;
		esac
	done
	IFS=$old_ifs
	set +f
}

for f in /tests/[0-9]*.sh; do
	. "$f"
done

# SHARD=I/N (0 <= I < N): this guest runs every N-th case from the I-th,
# the others run in N-1 more guests at the same time.  The checks of the
# kernel itself (debug options active, kmemleak last) run in every guest.
if [ -n "${SHARD:-}" ]; then
	awk -F'|' -v i="${SHARD%/*}" -v n="${SHARD#*/}" '
		$1 == "t_debug_active" || $1 == "t_kmemleak" { print; next }
		{ if (k++ % n == i) print }' "$CASES" > "$CASES.shard"
	mv "$CASES.shard" "$CASES"
fi

ktap_print_header
ktap_set_plan "$(wc -l < "$CASES")"

# Every image is mounted for the whole run, so each case has untouched
# filesystems beside the one it fills.
for name in $IMAGES; do
	mount_img "$name" || ktap_exit_fail_msg "cannot mount image $name"
done
ktap_print_msg "kernel $(uname -r), images: $IMAGES"

# Debug kernel: leaks found while booting are not the suite's.
if [ -d /sys/kernel/debug ] && mount -t debugfs debugfs /sys/kernel/debug 2> /dev/null &&
   [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan > /sys/kernel/debug/kmemleak
	echo clear > /sys/kernel/debug/kmemleak
fi

DEFAULT_INTERVAL=$(cat /proc/sys/fs/fs_msg/ratelimit_interval_ms 2>/dev/null)
DEFAULT_BURST=$(cat /proc/sys/fs/fs_msg/ratelimit_burst 2>/dev/null)

cleanup_case() {
	killall -q -KILL fsmsg alloc_test fsmsg_probe dumpslow 2>/dev/null
	for name in $IMAGES; do
		rm -rf "/mnt/$name"/alloc_test.* "/mnt/$name"/case.*
	done
	sync
	if [ -n "$DEFAULT_INTERVAL" ]; then
		ratelimit "$DEFAULT_INTERVAL" "$DEFAULT_BURST"
	fi
}

# A case still running after CASE_TIMEOUT seconds (fsmsg.case_timeout= on
# the kernel command line; default 900: the slowest case took 337 s on
# the debug kernel) is stuck: say what every task is doing, have the
# kernel list its blocked tasks on the console, kill the case and go on,
# so that a hang names itself instead of running into QEMU_TIMEOUT.
CASE_TIMEOUT=$(sed -n 's/.*fsmsg\.case_timeout=\([0-9]*\).*/\1/p' /proc/cmdline)
CASE_TIMEOUT=${CASE_TIMEOUT:-900}

# children PID: the tasks whose parent is PID
children() {
	local parent=$1 f st
	for f in /proc/[0-9]*/stat; do
		read -r st 2> /dev/null < "$f" || continue
		# "pid (comm) state ppid ...", and comm may hold spaces
		set -- ${st##*) }
		[ "$2" = "$parent" ] && echo "${st%% *}"
	done
}

# kill_tree PID: PID and everything under it
kill_tree() {
	local c
	for c in $(children "$1"); do
		kill_tree "$c"
	done
	kill -KILL "$1" 2> /dev/null
}

# show_tasks: pid, state, parent, where it sleeps and the command line of
# every process
show_tasks() {
	local d st
	for d in /proc/[0-9]*; do
		read -r st 2> /dev/null < "$d/stat" || continue
		set -- ${st##*) }
		ktap_print_msg "  ${d#/proc/} $1 ppid $2 wchan $(cat "$d/wchan" 2> /dev/null)" \
			"$(tr '\0' ' ' < "$d/cmdline" 2> /dev/null | cut -c1-100)"
	done
}

# watchdog FUNC RUNNER: started beside each case (a child of RUNNER, as
# the case is)
watchdog() {
	local self rest c
	read -r self rest < /proc/self/stat
	sleep "$CASE_TIMEOUT" &
	trap "kill $! 2> /dev/null; exit 0" TERM
	wait $!
	ktap_print_msg "$1: still running after ${CASE_TIMEOUT}s: stuck; every task:"
	show_tasks
	[ -w /proc/sysrq-trigger ] && echo w > /proc/sysrq-trigger
	for c in $(children "$2"); do
		[ "$c" = "$self" ] || kill_tree "$c"
	done
}

while IFS='|' read -r func desc <&3; do
	rm -f /tmp/skip_reason
	start=$(date +%s)
	watchdog "$func" $$ &
	dog=$!
	( "$func" ) < /dev/null
	rc=$?
	kill "$dog" 2> /dev/null
	wait "$dog" 2> /dev/null
	ktap_print_msg "$func: $(( $(date +%s) - start ))s"
	case $rc in
	0)	ktap_test_pass "$desc" ;;
	4)	ktap_test_skip "$desc" "$(cat /tmp/skip_reason 2>/dev/null)" ;;
	*)	ktap_test_fail "$desc" ;;
	esac
	cleanup_case
done 3< "$CASES"

ktap_finished
