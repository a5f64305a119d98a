#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Host integration tests of the fsmsg binary that need no FS_MSG family:
# usage errors exit 1 with a clear message, --help/--version exit 0, and on
# a kernel without the family every mode says so in one sentence and exits
# 2. TAP on stdout.
#
# usage: cli.sh FSMSG [FSMSG_STATIC]

FSMSG=${1:?usage: cli.sh FSMSG [FSMSG_STATIC]}
STATIC=${2:-}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fsmsg-cli.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM

n=0
failed=0
NOFAM='fsmsg: the kernel has no FS_MSG family: it was built without CONFIG_FS_MSG (filesystem warning messages), or this is not the initial network namespace'

ok() {
	n=$((n + 1))
	echo "ok $n - $1"
}

not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $1"
	# Show what the command did.
	sed 's/^/#   stdout: /' "$TMP/out"
	sed 's/^/#   stderr: /' "$TMP/err"
	echo "#   exit: $rc"
}

skip() {
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}

# run CMD...: exit code in $rc, output in $TMP/out and $TMP/err
run() {
	"$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	rc=$?
}

# expect NAME RC STDERR-SUBSTRING CMD...
expect() {
	name=$1 want=$2 text=$3
	shift 3
	run "$@"
	if [ "$rc" -eq "$want" ] && grep -qF -- "$text" "$TMP/err"; then
		ok "$name"
	else
		not_ok "$name"
	fi
}

# A kernel with the family (e.g. inside the test guest) skips those tests.
run "$FSMSG" -F -q -t 0.2
if [ "$rc" -eq 4 ] && grep -qF "no FS_MSG family" "$TMP/err"; then
	HAVE_FAMILY=no
else
	HAVE_FAMILY=yes
fi

echo "TAP version 13"

# --help / --version
run "$FSMSG" --help
if [ "$rc" -eq 0 ] && grep -q '^Usage: fsmsg \[OPTION\]' "$TMP/out" &&
   grep -q -- '-t, --timeout SECONDS' "$TMP/out" &&
   grep -q '^  3  --timeout expired before --count' "$TMP/out" &&
   grep -q '^  4  the kernel has no FS_MSG family (CONFIG_FS_MSG)$' "$TMP/out" &&
   [ ! -s "$TMP/err" ]; then
	ok "--help: usage with exit codes on stdout, exit 0"
else
	not_ok "--help: usage with exit codes on stdout, exit 0"
fi
if grep -q -- '^  -r, --receive-time  *add when fsmsg received each warning' "$TMP/out"; then
	ok "--help: -r, --receive-time"
else
	not_ok "--help: -r, --receive-time"
fi
run "$FSMSG" -h
if [ "$rc" -eq 0 ] && grep -q '^Usage: fsmsg' "$TMP/out"; then
	ok "-h: exit 0"
else
	not_ok "-h: exit 0"
fi
run "$FSMSG" -V
if [ "$rc" -eq 0 ] && grep -q '^fsmsg [0-9][0-9.]* (FS_MSG family version 1)$' "$TMP/out"; then
	ok "-V: version line, exit 0"
else
	not_ok "-V: version line, exit 0"
fi

# Usage errors: exit 1, the problem named, a pointer to --help.
expect "-c x: invalid --count, exit 1" 1 "fsmsg: invalid --count 'x'" "$FSMSG" -F -c x
grep -qF "Try 'fsmsg --help' for more information." "$TMP/err" &&
	ok "usage errors point to --help" || not_ok "usage errors point to --help"
expect "-c 0 rejected" 1 "fsmsg: invalid --count '0'" "$FSMSG" -F -c 0
expect "-c -1 rejected" 1 "fsmsg: invalid --count '-1'" "$FSMSG" -F -c -1
expect "-c 5x rejected" 1 "fsmsg: invalid --count '5x'" "$FSMSG" -F -c 5x
expect "-c 99999999999999999999 rejected" 1 "invalid --count" "$FSMSG" -F -c 99999999999999999999
expect "-t abc rejected" 1 "fsmsg: invalid --timeout 'abc'" "$FSMSG" -F -t abc
expect "-t -1 rejected" 1 "fsmsg: invalid --timeout '-1'" "$FSMSG" -F -t -1
expect "-t 0 rejected" 1 "fsmsg: invalid --timeout '0'" "$FSMSG" -F -t 0
expect "-t 1e3 rejected" 1 "fsmsg: invalid --timeout '1e3'" "$FSMSG" -F -t 1e3
expect "-t . rejected" 1 "fsmsg: invalid --timeout '.'" "$FSMSG" -F -t .
expect "-w bogus rejected" 1 "fsmsg: invalid --warning 'bogus'" "$FSMSG" -F -w bogus
expect "-w 0 rejected" 1 "fsmsg: invalid --warning '0'" "$FSMSG" -F -w 0
expect "--severity bogus rejected" 1 "fsmsg: invalid --severity 'bogus' (info, warning, error, critical or 1 to 4)" "$FSMSG" -F --severity bogus
expect "--severity 0 rejected" 1 "fsmsg: invalid --severity '0'" "$FSMSG" -F --severity 0
expect "--severity 5 rejected" 1 "fsmsg: invalid --severity '5'" "$FSMSG" -F --severity 5
expect "--severity '' rejected" 1 "fsmsg: invalid --severity ''" "$FSMSG" -F --severity ''
expect "--severity Error rejected (names are lower case)" 1 "fsmsg: invalid --severity 'Error'" "$FSMSG" -F --severity Error
expect "-u nope rejected" 1 "fsmsg: invalid --uuid 'nope'" "$FSMSG" -F -u nope
expect "-T '' rejected" 1 "fsmsg: invalid --fstype ''" "$FSMSG" -F -T ''
expect "-d /nonexistent: cannot resolve, exit 1" 1 \
	"fsmsg: cannot resolve device '/nonexistent': No such file or directory" \
	"$FSMSG" -F -d /nonexistent
expect "-d 8:x (neither MAJ:MIN nor a path) rejected" 1 \
	"fsmsg: cannot resolve device '8:x'" "$FSMSG" -F -d 8:x
expect "unknown option rejected" 1 "unrecognized option '--bogus'" "$FSMSG" --bogus
expect "missing option argument rejected" 1 "option requires an argument -- 'c'" "$FSMSG" -F -c
# --rcvbuf: a size with an optional K or M, 64K to 1024M.
for v in "" x 1G 63K 65535 1025M 4MB -4M " 4M" 18446744073709551616; do
	expect "--rcvbuf '$v' rejected" 1 "fsmsg: invalid --rcvbuf '$v' (bytes, K or M, from 64K to 1024M)" \
		"$FSMSG" -F --rcvbuf "$v"
done
for v in 64K 65536 4M 4m 1024M; do
	expect "--rcvbuf $v accepted (then: no family)" 4 "no FS_MSG family" "$FSMSG" -F --rcvbuf "$v"
done

# Options of the listener are refused with --list, before anything runs.
for o in "-F" "-c 1" "-t 1" "-p $TMP/list.pid" "-s" "-q" "-r" "--journal" \
	"--prometheus-textfile $TMP/list.prom" "--severity error" "--rcvbuf 4M"; do
	# shellcheck disable=SC2086 # $o is a word list
	"$FSMSG" --list $o >"$TMP/out" 2>"$TMP/err"; rc=$?
	name=$(printf '%s' "$o" | cut -d' ' -f1)
	[ $rc -eq 1 ] && grep -q "^fsmsg: .*${name#-}.* does not apply to --list\$" "$TMP/err" &&
		grep -qF "Try 'fsmsg --help' for more information." "$TMP/err" && [ ! -s "$TMP/out" ] &&
		[ ! -e "$TMP/list.pid" ] && [ ! -e "$TMP/list.prom" ] &&
		ok "--list $name: usage error, exit 1" || not_ok "--list $name: usage error, exit 1"
done
"$FSMSG" -p "$TMP/list.pid" -l >"$TMP/out" 2>"$TMP/err"; rc=$?
[ $rc -eq 1 ] && [ "$(head -n 1 "$TMP/err")" = "fsmsg: -p/--pidfile does not apply to --list" ] &&
	ok "-p before -l: refused too, the message names it" || not_ok "-p before -l: refused too, the message names it"

# getopt's own messages start with "fsmsg: " too, whatever the path.
for bin in "$FSMSG" $STATIC; do
	[ -x "$bin" ] || continue
	b=$(basename "$bin")
	"$bin" --bogus >"$TMP/out" 2>"$TMP/err"; rc=$?
	[ $rc -eq 1 ] && [ "$(head -n 1 "$TMP/err")" = "fsmsg: unrecognized option '--bogus'" ] &&
		ok "$b: unknown long option: 'fsmsg: ' first, exit 1" || not_ok "$b: unknown long option: 'fsmsg: ' first, exit 1"
	"$bin" -F -Z >"$TMP/out" 2>"$TMP/err"; rc=$?
	[ $rc -eq 1 ] && [ "$(head -n 1 "$TMP/err")" = "fsmsg: invalid option -- 'Z'" ] &&
		ok "$b: unknown short option: 'fsmsg: ' first, exit 1" || not_ok "$b: unknown short option: 'fsmsg: ' first, exit 1"
	"$bin" -F -c >"$TMP/out" 2>"$TMP/err"; rc=$?
	[ $rc -eq 1 ] && [ "$(head -n 1 "$TMP/err")" = "fsmsg: option requires an argument -- 'c'" ] &&
		[ "$(wc -l <"$TMP/err")" -eq 2 ] &&
		ok "$b: missing argument: 'fsmsg: ' first, exit 1" || not_ok "$b: missing argument: 'fsmsg: ' first, exit 1"
	"$bin" -F --timeout >"$TMP/out" 2>"$TMP/err"; rc=$?
	[ $rc -eq 1 ] && [ "$(head -n 1 "$TMP/err")" = "fsmsg: option '--timeout' requires an argument" ] &&
		ok "$b: missing long argument: 'fsmsg: ' first, exit 1" || not_ok "$b: missing long argument: 'fsmsg: ' first, exit 1"
	"$bin" -F --json=x >"$TMP/out" 2>"$TMP/err"; rc=$?
	[ $rc -eq 1 ] && [ "$(head -n 1 "$TMP/err")" = "fsmsg: option '--json' doesn't allow an argument" ] &&
		ok "$b: argument to a flag: 'fsmsg: ' first, exit 1" || not_ok "$b: argument to a flag: 'fsmsg: ' first, exit 1"
done
expect "positional argument rejected" 1 "fsmsg: unexpected argument 'extra'" "$FSMSG" -F extra
expect "--prometheus-textfile '' rejected" 1 "fsmsg: invalid --prometheus-textfile ''" \
	"$FSMSG" -F --prometheus-textfile ''
expect "--prometheus-textfile without a value rejected" 1 \
	"option '--prometheus-textfile' requires an argument" "$FSMSG" -F --prometheus-textfile

# --journal: in the help either way; with libsystemd, not with --syslog.
run "$FSMSG" --help
if [ "$rc" -eq 0 ] && grep -q -- '--journal  *log to the systemd journal' "$TMP/out" &&
   grep -q -- '--prometheus-textfile PATH' "$TMP/out"; then
	ok "--help: --journal and --prometheus-textfile"
else
	not_ok "--help: --journal and --prometheus-textfile"
fi
if grep -q 'not available: built without journal support' "$TMP/out"; then
	expect "no journal support: --journal is a usage error" 1 \
		"fsmsg: --journal: this fsmsg was built without systemd journal support (libsystemd)" \
		"$FSMSG" -F --journal
else
	expect "--syslog with --journal rejected" 1 \
		"fsmsg: --syslog and --journal do not go together" "$FSMSG" -F -s --journal
fi

# No FS_MSG family on this kernel: one sentence, exit 4 (EXIT_NO_FAMILY),
# in every mode.
if [ "$HAVE_FAMILY" = no ]; then
	for mode in "-F" "-F -j" "" "-l" "-l -j" "-F -q -c 1 -t 0.5"; do
		# shellcheck disable=SC2086 # the modes are word lists
		run "$FSMSG" $mode
		if [ "$rc" -eq 4 ] && [ "$(cat "$TMP/err")" = "$NOFAM" ] && [ ! -s "$TMP/out" ]; then
			ok "no family: 'fsmsg $mode' says so in one line, exit 4"
		else
			not_ok "no family: 'fsmsg $mode' says so in one line, exit 4"
		fi
	done
	expect "all filters together are accepted (then: no family)" 4 "no FS_MSG family" \
		"$FSMSG" -F -j -d / -d 254:16 -T ext4 -T xfs \
		-u 0c5f3a9e-1234-4bcd-8ef0-0123456789ab -w enospc -w meta-enospc \
		-w inode-enospc -w 7 -c 3 -t 0.5 -p "$TMP/pid" -s -q
	[ ! -e "$TMP/pid" ] && ok "no pidfile left behind on failure" ||
		not_ok "no pidfile left behind on failure"
	expect "--timeout with decimals accepted" 4 "no FS_MSG family" "$FSMSG" -F -t 0.5
	expect "--timeout .25 accepted" 4 "no FS_MSG family" "$FSMSG" -F -t .25
	expect "metrics file in a missing folder: exit 2, before anything else" 2 \
		"fsmsg: cannot write the metrics file $TMP/nope/m.prom: the folder $TMP/nope does not exist" \
		"$FSMSG" -F --prometheus-textfile "$TMP/nope/m.prom"
	mkdir -p "$TMP/prom"
	expect "metrics file, no family: exit 4" 4 "$NOFAM" \
		"$FSMSG" -F --prometheus-textfile "$TMP/prom/m.prom"
	if [ -z "$(ls "$TMP/prom")" ]; then
		ok "no metrics file written when fsmsg cannot listen"
	else
		not_ok "no metrics file written when fsmsg cannot listen"
	fi
else
	skip "no-family tests" "this kernel has the FS_MSG family"
fi

# The static binary, for a busybox initramfs.
if [ -n "$STATIC" ]; then
	# No program interpreter and no dynamic section: nothing to load.
	run readelf -l -d "$STATIC"
	if [ "$rc" -eq 0 ] && ! grep -q 'INTERP' "$TMP/out" &&
	   grep -q 'There is no dynamic section' "$TMP/out"; then
		ok "fsmsg.static is statically linked"
	else
		not_ok "fsmsg.static is statically linked"
	fi
	run "$STATIC" --help
	[ "$rc" -eq 0 ] && grep -q '^Usage: fsmsg' "$TMP/out" &&
		ok "fsmsg.static --help" || not_ok "fsmsg.static --help"
	if grep -q 'not available: built without journal support' "$TMP/out"; then
		ok "fsmsg.static --help: says it has no journal support"
	else
		not_ok "fsmsg.static --help: says it has no journal support"
	fi
	expect "fsmsg.static --journal: usage error, exit 1" 1 \
		"fsmsg: --journal: this fsmsg was built without systemd journal support (libsystemd)" \
		"$STATIC" -F --journal
	run readelf -d "$STATIC"
	if ! grep -qi systemd "$TMP/out" && ! grep -q sd_journal_sendv "$STATIC"; then
		ok "fsmsg.static: no libsystemd in it"
	else
		not_ok "fsmsg.static: no libsystemd in it"
	fi
	if [ "$HAVE_FAMILY" = no ]; then
		expect "fsmsg.static: no family, exit 4" 4 "$NOFAM" "$STATIC" -F
		# Nothing but the binary: no /etc, no /proc, no libraries.
		if [ "$(id -u)" -eq 0 ] && command -v chroot >/dev/null; then
			mkdir -p "$TMP/root"
			cp "$STATIC" "$TMP/root/fsmsg"
			expect "fsmsg.static in an empty chroot: still the one sentence, exit 4" \
				4 "$NOFAM" chroot "$TMP/root" /fsmsg -F
			expect "fsmsg.static in an empty chroot: --list too" \
				4 "$NOFAM" chroot "$TMP/root" /fsmsg --list --json
			# -d PATH where mountinfo cannot help (issue 16): none
			# here, then one without the mount / is on (a chroot's
			# root is no mount of its own), so st_dev it is.
			expect "chroot without /proc: -d / resolved from st_dev (then: no family)" \
				4 "$NOFAM" chroot "$TMP/root" /fsmsg -F -d / -d /fsmsg
			mkdir -p "$TMP/root/proc"
			if mount -t proc proc "$TMP/root/proc" 2>/dev/null; then
				expect "chroot whose mountinfo lacks the mount of /: -d / accepted (then: no family)" \
					4 "$NOFAM" chroot "$TMP/root" /fsmsg -F -d / -d /proc
				umount "$TMP/root/proc"
			else
				skip "chroot whose mountinfo lacks the mount of /" "cannot mount proc here"
			fi
		else
			skip "fsmsg.static in an empty chroot" "needs root and chroot"
		fi
	fi
fi

echo "1..$n"
echo "# $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
