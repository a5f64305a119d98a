# Helpers for the guest test cases.  Each case runs in a subshell: fail()
# and skip() end it, and the runner (tests/run.sh) cleans up after it.

. /etc/fsmsg/images.env

# fsmsg_start's listener (listener_start fsmsg) prints here
FSMSG_OUT=/tmp/fsmsg.out

fail() {
	echo "# FAIL: $*"
	exit 1
}

skip() {
	echo "$*" > /tmp/skip_reason
	exit 4
}

note() {
	echo "# $*"
}

# expect_eq GOT WANT WHAT
expect_eq() {
	[ "$1" = "$2" ] || fail "$3: got '$1', expected '$2'"
}

# as_nobody CMD...: run a simple command as the unprivileged user nobody
as_nobody() {
	su -s /bin/sh nobody -c "$*"
}

# img_var NAME FIELD: a value recorded on the host (FSTYPE, UUID)
img_var() {
	eval "echo \"\${IMG_$1_$2}\""
}

# disk NAME: the block device QEMU attached with serial NAME
disk() {
	local s d
	for s in /sys/block/vd*/serial; do
		if [ "$(cat "$s")" = "$1" ]; then
			d=${s%/serial}
			echo "/dev/${d##*/}"
			return 0
		fi
	done
	return 1
}

mnt() {
	echo "/mnt/$1"
}

# mount_img NAME [OPTIONS]: mount an image at /mnt/NAME with its own type
mount_img() {
	local dev
	dev=$(disk "$1") || fail "no disk with serial $1"
	mkdir -p "/mnt/$1"
	mount -t "$(img_var "$1" FSTYPE)" ${2:+-o "$2"} "$dev" "/mnt/$1"
}

# sb_dev NAME: MAJ:MIN of the mounted filesystem, as mountinfo shows it
# (sb->s_dev: for btrfs an anonymous device, not the disk's)
sb_dev() {
	awk -v m="/mnt/$1" '$5 == m { print $3 }' /proc/self/mountinfo
}

# mounted_type NAME: the type /proc/mounts shows for /mnt/NAME
mounted_type() {
	awk -v m="/mnt/$1" '$2 == m { print $3 }' /proc/mounts
}

# json_str KEY LINE / json_num KEY LINE: a field of one JSON line
json_str() {
	printf '%s\n' "$2" | sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p"
}

json_num() {
	printf '%s\n' "$2" | sed -n "s/.*\"$1\":\([0-9-]*\).*/\1/p"
}

# report KEY LINE: a field of alloc_test's key=value report line
report() {
	printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

# wait_for TIMEOUT_S CMD...: poll CMD until it succeeds
wait_for() {
	local t=$(($1 * 10))
	shift
	while ! "$@"; do
		t=$((t - 1))
		[ "$t" -gt 0 ] || return 1
		usleep 100000
	done
}

# listener_start NAME ARGS...: start fsmsg -F ARGS in the background, its
# output in /tmp/NAME.out and /tmp/NAME.err, its pid in /tmp/NAME.pid, and
# wait until it has subscribed ("fsmsg: listening" on stderr)
listener_start() {
	local name=$1
	shift
	# Emptied here, not only by the redirection: that happens in the
	# child, and a wait_for that runs first would find the "listening"
	# of an earlier fsmsg still in the file.
	: > "/tmp/$name.out"
	: > "/tmp/$name.err"
	fsmsg -F "$@" >> "/tmp/$name.out" 2>> "/tmp/$name.err" &
	echo $! > "/tmp/$name.pid"
	if ! wait_for 20 grep -qs '^fsmsg: listening' "/tmp/$name.err"; then
		sed 's/^/# fsmsg: /' "/tmp/$name.err"
		fail "fsmsg ($name) did not start listening"
	fi
}

# listener_stop NAME: SIGTERM, which must end it with status 0
listener_stop() {
	local pid rc
	pid=$(cat "/tmp/$1.pid")
	kill -TERM "$pid"
	wait "$pid"
	rc=$?
	[ "$rc" = 0 ] || fail "fsmsg ($1) exited with $rc after SIGTERM"
}

# fsmsg_start ARGS... / fsmsg_stop: the one listener most cases need,
# output in $FSMSG_OUT, pid in $FSMSG_PID
fsmsg_start() {
	listener_start fsmsg "$@"
	FSMSG_PID=$(cat /tmp/fsmsg.pid)
}

fsmsg_stop() {
	listener_stop fsmsg
}

# probe_started: wait for the fsmsg_probe started in the background with
# its stderr in /tmp/probe.err
probe_started() {
	wait_for 20 grep -q listening /tmp/probe.err && return
	sed 's/^/# fsmsg_probe: /' /tmp/probe.err
	fail "fsmsg_probe did not start"
}

lines() {
	wc -l < "$1"
}

has_lines() {
	[ "$(lines "$1")" -ge "$2" ]
}

# fsmsg_wait_lines N: wait until fsmsg printed at least N lines
fsmsg_wait_lines() {
	wait_for 30 has_lines "$FSMSG_OUT" "$1" ||
		fail "fsmsg printed $(lines "$FSMSG_OUT") lines, expected $1"
}

# ratelimit INTERVAL_MS [BURST]: set the kernel's rate limit
ratelimit() {
	echo "$1" > /proc/sys/fs/fs_msg/ratelimit_interval_ms
	echo "${2:-1}" > /proc/sys/fs/fs_msg/ratelimit_burst
}

# counter NAME WARNING: the kernel's cumulative count of WARNING for the
# filesystem at /mnt/NAME, from the dump
counter() {
	local line
	line=$(fsmsg --list --json -d "/mnt/$1") || fail "fsmsg --list failed"
	printf '%s\n' "$line" |
		sed -n "s/.*\"$2\":{\"count\":\([0-9]*\).*/\1/p"
}

# counters_all: "NAME enospc meta inode" for every image, from the dump
counters_all() {
	fsmsg --list --json > /tmp/counters.json || fail "fsmsg --list failed"
	# One awk for all (a debug kernel makes each fork costly).
	awk -v images="$IMAGES" '
		function count(w) {
			if (!match($0, "\"" w "\":[{]\"count\":[0-9]+"))
				return ""
			return substr($0, RSTART + length(w) + 12, RLENGTH - length(w) - 12)
		}
		FILENAME == "/proc/self/mountinfo" { dev[$5] = $3; next }
		match($0, /"dev":"[^"]*"/) {
			d = substr($0, RSTART + 7, RLENGTH - 8)
			c[d] = count("enospc") " " count("meta-enospc") " " count("inode-enospc")
		}
		END {
			n = split(images, im, " ")
			for (i = 1; i <= n; i++)
				print im[i], c[dev["/mnt/" im[i]]]
		}' /proc/self/mountinfo /tmp/counters.json
}

# nearly_fill NAME: fill all but about 2 MiB of /mnt/NAME quickly, with
# fallocate (1 MiB O_DIRECT writes where files have no extents: no page
# cache to copy through and write back), so that what a case tests runs on
# the last blocks only: a debug kernel is slow at writing through the page
# cache.  Uses the folder case.bulk.
nearly_fill() {
	local avail_kb bytes how out
	mkdir -p "/mnt/$1/case.bulk"
	avail_kb=$(df -k "/mnt/$1" | awk 'NR == 2 { print $4 }')
	bytes=$(( (avail_kb - 2048) * 1024 ))
	[ "$bytes" -gt 1048576 ] || return 0
	case $(img_var "$1" FSTYPE) in
	ext2|ext3)	how=direct ;;
	*)		how=fallocate ;;
	esac
	out=$(alloc_test "/mnt/$1" --mode "$how" -b 1M --max-bytes "$bytes" \
		--keep --workdir-name case.bulk 2>&1)
	case $? in
	0|1)	;;
	*)	fail "nearly filling /mnt/$1: $out" ;;
	esac
}

# fill_up NAME: fill /mnt/NAME completely with data and leave it full.
fill_up() {
	# The folder first: a nearly full btrfs may have no room for it.
	mkdir -p "/mnt/$1/case.fill"
	nearly_fill "$1"
	alloc_test "/mnt/$1" --mode buffered --keep --workdir-name case.fill \
		> /dev/null || fail "could not fill /mnt/$1"
}

# counter_col WARNING: WARNING's column in counters_all's lines
counter_col() {
	case $1 in enospc) echo 2;; meta-enospc) echo 3;; *) echo 4;; esac
}

# counter_of FILE NAME WARNING: the count of WARNING for NAME in a
# counters_all FILE
counter_of() {
	awk -v n="$2" -v c="$(counter_col "$3")" '$1 == n { print $c }' "$1"
}

# expect_only_counter NAME WARNING DELTA WHAT: between the counters_all
# snapshots /tmp/before and /tmp/after, WARNING on NAME grew by DELTA and
# nothing else moved: other warning types on this filesystem, and every
# other filesystem (the negative controls)
expect_only_counter() {
	local name=$1 warning=$2 col
	expect_eq "$(( $(counter_of /tmp/after "$name" "$warning") -
		      $(counter_of /tmp/before "$name" "$warning") ))" "$3" "$4"
	col=$(counter_col "$warning")
	awk -v n="$name" -v c="$col" '$1 != n { print } $1 == n { $c = "-"; print }' \
		/tmp/before > /tmp/before.rest
	awk -v n="$name" -v c="$col" '$1 != n { print } $1 == n { $c = "-"; print }' \
		/tmp/after > /tmp/after.rest
	if ! cmp -s /tmp/before.rest /tmp/after.rest; then
		diff /tmp/before.rest /tmp/after.rest | sed 's/^/# /'
		fail "other counters changed"
	fi
}

# enospc_case NAME MODE WARNING [PREFILL [kept]]: the test matrix.
#
# Fills /mnt/NAME nearly, or completely with data if PREFILL is "prefill"
# (so creating entries fails for lack of blocks rather than inodes), or not
# at all if it is "none" (running out of inodes while blocks remain), then
# runs alloc_test MODE
# until ENOSPC and two more failing operations, with fsmsg listening and
# rate limiting off.  Checks that every failed operation produced exactly
# one WARNING for this filesystem, with its device, type and UUID, that the
# kernel's counter grew by the number of failures, and that no other
# filesystem or warning type moved.
enospc_case() {
	local name=$1 mode=$2 warning=$3 prefill=${4:-}
	local dir fstype uuid dev device extra out rc failed errors n prev line
	local count work=case.work keep=
	dir=/mnt/$name
	fstype=$(img_var "$name" FSTYPE)
	uuid=$(img_var "$name" UUID)
	dev=$(sb_dev "$name")
	device=$(basename "$(disk "$name")")
	extra=
	# Long names fill directories, and btrfs metadata, in fewer steps.
	case $mode in
	files|dirs)	extra="--name-len 255" ;;
	symlinks)	extra="--name-len 255 --symlink-target-len 1000" ;;
	esac

	if [ "${5:-}" = kept ]; then
		# The image is this case's alone and stays full: removing
		# thousands of entries from a full btrfs commits a transaction
		# for each, minutes under a debug kernel.
		work=kept.work
		keep=--keep
	fi

	ratelimit 0
	# The work folder is made first: a full filesystem may have no block
	# left for it (ext2 has no room at all once full).
	mkdir "$dir/$work" || fail "cannot make $dir/$work"
	case $prefill in
	prefill)	fill_up "$name" ;;
	none)		;;
	*)		nearly_fill "$name" ;;
	esac
	counters_all > /tmp/before

	fsmsg_start --json
	# shellcheck disable=SC2086
	out=$(alloc_test "$dir" --mode "$mode" --after-full 2 $keep \
		--workdir-name "$work" $extra)
	rc=$?
	note "$out"
	failed=$(report enospc "$out")
	if [ "$rc" != 0 ]; then
		errors=$(report errors "$out")
		fsmsg_stop
		case $errors in
		EOPNOTSUPP:*)
			skip "$mode on $fstype: $errors before any allocation (no extents)" ;;
		esac
		fail "alloc_test exited with $rc"
	fi
	[ "$failed" -ge 1 ] || fail "alloc_test saw no ENOSPC failure"

	fsmsg_wait_lines "$failed"
	fsmsg_stop
	counters_all > /tmp/after

	# Every event, in one pass (a debug kernel makes each fork costly):
	# prints the first mismatch, or "N LAST_COUNT".
	line=$(awk -v dev="$dev" -v warning="$warning" -v fstype="$fstype" \
		-v uuid="$uuid" -v device="$device" '
		function field(k, re) {
			if (!match($0, "\"" k "\":" re))
				return "(missing)"
			v = substr($0, RSTART + length(k) + 3, RLENGTH - length(k) - 3)
			gsub(/"/, "", v)
			return v
		}
		function want(k, got, expected) {
			if (got != expected) {
				printf "event %d %s: got '\''%s'\'', expected '\''%s'\''\n", NR, k, got, expected
				bad = 1
				exit
			}
		}
		{
			want("device number", field("dev", "\"[^\"]*\""), dev)
			want("warning", field("warning", "\"[^\"]*\""), warning)
			want("fstype", field("fstype", "\"[^\"]*\""), fstype)
			want("uuid", field("uuid", "\"[^\"]*\""), uuid)
			want("device name", field("device", "\"[^\"]*\""), device)
			want("comm", field("comm", "\"[^\"]*\""), "alloc_test")
			want("suppressed", field("suppressed", "[0-9]+"), 0)
			count = field("count", "[0-9]+")
			if (NR > 1 && count + 0 != prev + 1)
				want("count", count, prev + 1)
			prev = count
		}
		END { if (!bad) print NR, prev }' "$FSMSG_OUT")
	case $line in
	event*)	fail "$line" ;;
	esac
	n=${line% *}
	prev=${line#* }
	expect_eq "$n" "$failed" "events received for $failed failed operations"

	# The dump agrees, and nothing else moved.
	expect_only_counter "$name" "$warning" "$failed" "kernel counter delta"
	expect_eq "$prev" "$(counter_of /tmp/after "$name" "$warning")" \
		"count in the last event"
}

# matrix NAME MODE WARNING [prefill|none|"" [IMAGE]]: register one
# enospc_case on the image NAME or, when given, on IMAGE, which the case
# has to itself and leaves full
matrix() {
	if [ -n "${5:-}" ]; then
		eval "t_${1}_$2() { enospc_case $5 $2 $3 '$4' kept; }"
	else
		eval "t_${1}_$2() { enospc_case $1 $2 $3 $4; }"
	fi
	case_add "t_${1}_$2" "$1: $2 until ENOSPC sends one $3 per failed operation"
}
