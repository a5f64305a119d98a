#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# End-to-end tests of the real fsmsg binary against a fake FS_MSG kernel
# (tests/fakegenl.c, LD_PRELOADed): subscription, seed dump, events in
# both formats, filters, gaps, an overrun and its resync, --list, the
# permission errors, --count/--timeout exit codes, signals, daemon mode
# and the pidfile; a run under valgrind. TAP on stdout.
#
# usage: e2e.sh FSMSG LIBFAKEGENL [VALGRIND]

FSMSG=${1:?usage: e2e.sh FSMSG LIBFAKEGENL [VALGRIND]}
FAKE=${2:?usage: e2e.sh FSMSG LIBFAKEGENL [VALGRIND]}
VALGRIND=${3:-valgrind}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fsmsg-e2e.XXXXXX") || exit 1
pid= dpid=
# Never leave a test's fsmsg behind, whatever happened.
trap 'for p in $pid $dpid; do kill "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT INT TERM

n=0
failed=0
U=0c5f3a9e-1234-4bcd-8ef0-0123456789ab
T=2026-12-03T07:42:51.00000000

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $1"
	sed 's/^/#   stdout: /' "$TMP/out"
	sed 's/^/#   stderr: /' "$TMP/err"
	echo "#   exit: $rc"
}
check() { # check NAME CONDITION...
	name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}

script() { cat >"$TMP/script"; }

# A hung fsmsg must fail its test, not hang the suite.
WATCHDOG=
command -v timeout >/dev/null 2>&1 && WATCHDOG="timeout -s KILL 60"

# fake CMD...: run under the fake kernel with the current script.
fake() {
	# shellcheck disable=SC2086 # WATCHDOG is a word list
	LD_PRELOAD=$FAKE FAKEGENL_SCRIPT=$TMP/script $WATCHDOG "$@" \
		>"$TMP/out" 2>"$TMP/err" </dev/null
	rc=$?
}

# Same, in the background; waits for the readiness line. The old output
# goes first: the redirections happen in the child, after this shell may
# already be looking.
fake_bg() {
	rm -f "$TMP/out" "$TMP/err"
	LD_PRELOAD=$FAKE FAKEGENL_SCRIPT=$TMP/script "$@" >"$TMP/out" 2>"$TMP/err" </dev/null &
	pid=$!
	i=0
	while ! grep -q '^fsmsg: listening' "$TMP/err" 2>/dev/null && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
}

# Wait for process $1 to end, up to 5 s (then it is killed: rc 137); its
# exit status in $rc.
reap() {
	i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	kill -KILL "$1" 2>/dev/null
	wait "$1"
	rc=$?
}

is() { [ "$(cat "$1")" = "$2" ]; }
# Missed-report JSON lines carry the time fsmsg noticed: mask it.
masked() { sed 's/"time":"[^"]*","event":"missed"/"time":"T","event":"missed"/' "$1"; }

echo "TAP version 13"

# ---- errors -------------------------------------------------------------
printf 'nofamily\n' | script
fake "$FSMSG" -F
check "no family: one sentence, exit 2" eval '[ $rc -eq 2 ] && is "$TMP/err" "fsmsg: the kernel has no FS_MSG family: it was built without filesystem warning messages, or this is not the initial network namespace"'

printf 'deny-join\nfs 254 16 ext4 vdb - 0 0 0\n' | script
fake "$FSMSG" -F
check "not permitted to join: one sentence, exit 2" eval '[ $rc -eq 2 ] && is "$TMP/err" "fsmsg: joining the FS_MSG events group needs CAP_SYS_ADMIN (run fsmsg as root)"'
fake "$FSMSG"
check "not permitted, daemon mode: said on the terminal, exit 2" eval '[ $rc -eq 2 ] && is "$TMP/err" "fsmsg: joining the FS_MSG events group needs CAP_SYS_ADMIN (run fsmsg as root)"'

printf 'deny-dump\nfs 254 16 ext4 vdb - 0 0 0\n' | script
fake "$FSMSG" -l
check "--list not permitted: needs CAP_SYS_ADMIN, exit 2" eval '[ $rc -eq 2 ] && is "$TMP/err" "fsmsg: listing the filesystems needs CAP_SYS_ADMIN (run fsmsg as root)" && [ ! -s "$TMP/out" ]'
fake "$FSMSG" -F
check "seed dump not permitted: exit 2" eval '[ $rc -eq 2 ] && is "$TMP/err" "fsmsg: reading the FS_MSG counters needs CAP_SYS_ADMIN (run fsmsg as root)"'

# ---- --list ---------------------------------------------------------------
script <<EOF
fs 254 16 ext4 vdb $U 0 3 0
fs 0 45 btrfs vdc - 12 0 1
fs 254 32 xfs vdd $U 0 0 7
EOF
fake "$FSMSG" --list
check "--list: table" eval '[ $rc -eq 0 ] && [ ! -s "$TMP/err" ] && is "$TMP/out" "DEVICE  MAJ:MIN  FSTYPE  UUID                                  ENOSPC  META-ENOSPC  INODE-ENOSPC
vdc     0:45     btrfs   -                                         12            0             1
vdb     254:16   ext4    $U       0            3             0
vdd     254:32   xfs     $U       0            0             7"'
fake "$FSMSG" -l -j -d 0:45
check "--list --json -d 0:45" eval '[ $rc -eq 0 ] && is "$TMP/out" "{\"dev\":\"0:45\",\"major\":0,\"minor\":45,\"fstype\":\"btrfs\",\"device\":\"vdc\",\"uuid\":null,\"counters\":{\"enospc\":{\"count\":12,\"last_ns\":1796283770999999001},\"meta-enospc\":{\"count\":0,\"last_ns\":0},\"inode-enospc\":{\"count\":1,\"last_ns\":1796283770999999003}}}"'
fake "$FSMSG" -l -T ext4 -T xfs -w inode-enospc
check "--list -T ext4 -T xfs -w inode-enospc" eval '[ $rc -eq 0 ] && is "$TMP/out" "DEVICE  MAJ:MIN  FSTYPE  UUID                                  INODE-ENOSPC
vdb     254:16   ext4    $U             0
vdd     254:32   xfs     $U             7"'
fake "$FSMSG" -l -j -u "$U" -T xfs
check "--list -u UUID -T xfs: one JSON line" eval '[ $rc -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 1 ] && grep -q "\"dev\":\"254:32\"" "$TMP/out"'

# ---- events ---------------------------------------------------------------
script <<EOF
fs 254 16 ext4 vdb $U 0 3 0
fs 0 45 btrfs vdc - 12 0 1
event 2 254 16 4 0 alloc_test
event 1 0 45 13 0 dd
event 2 254 16 9 2 alloc_test
EOF
fake "$FSMSG" -F -c 3
check "text: three events, exit 0 at --count" eval '[ $rc -eq 0 ] && is "$TMP/out" "${T}1Z 254:16 ext4 vdb uuid $U: no space left for metadata, uid 0, pid 4242 (alloc_test), count 4
${T}2Z 0:45 btrfs vdc uuid -: no space left for data, uid 0, pid 4242 (dd), count 13
${T}3Z 254:16 ext4 vdb uuid $U: no space left for metadata, uid 0, pid 4242 (alloc_test), count 9 (2 suppressed)"'
check "text: listening line, then the gap (9 after 4 with 2 suppressed)" eval 'is "$TMP/err" "fsmsg: listening: FS_MSG/events
fsmsg: missed 2 meta-enospc warnings on ext4 vdb (254:16)"'

fake "$FSMSG" -F -j -q -c 3
masked "$TMP/out" >"$TMP/masked"
check "JSON: events and the missed line, one object per line" eval '[ $rc -eq 0 ] && is "$TMP/masked" "{\"time\":\"${T}1Z\",\"timestamp_ns\":1796283771000000001,\"warning\":\"meta-enospc\",\"warning_id\":2,\"dev\":\"254:16\",\"major\":254,\"minor\":16,\"fstype\":\"ext4\",\"device\":\"vdb\",\"uuid\":\"$U\",\"uid\":0,\"pid\":4242,\"comm\":\"alloc_test\",\"count\":4,\"suppressed\":0}
{\"time\":\"${T}2Z\",\"timestamp_ns\":1796283771000000002,\"warning\":\"enospc\",\"warning_id\":1,\"dev\":\"0:45\",\"major\":0,\"minor\":45,\"fstype\":\"btrfs\",\"device\":\"vdc\",\"uuid\":null,\"uid\":0,\"pid\":4242,\"comm\":\"dd\",\"count\":13,\"suppressed\":0}
{\"time\":\"T\",\"event\":\"missed\",\"dev\":\"254:16\",\"fstype\":\"ext4\",\"device\":\"vdb\",\"uuid\":\"$U\",\"warning\":\"meta-enospc\",\"missed\":2}
{\"time\":\"${T}3Z\",\"timestamp_ns\":1796283771000000003,\"warning\":\"meta-enospc\",\"warning_id\":2,\"dev\":\"254:16\",\"major\":254,\"minor\":16,\"fstype\":\"ext4\",\"device\":\"vdb\",\"uuid\":\"$U\",\"uid\":0,\"pid\":4242,\"comm\":\"alloc_test\",\"count\":9,\"suppressed\":2}"'
check "-q: no listening line" eval 'is "$TMP/err" "fsmsg: missed 2 meta-enospc warnings on ext4 vdb (254:16)"'
grep '"event":"missed"' "$TMP/out" | sed -n 's/.*"time":"\([^"]*\)".*/\1/p' >"$TMP/t"
check "JSON missed line: an ISO UTC time" grep -Eq '^20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-6][0-9]\.[0-9]{9}Z$' "$TMP/t"

fake "$FSMSG" -F -d 0:45 -t 0.3
check "-d 0:45: only that filesystem, its gap not reported" eval '[ $rc -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 1 ] && grep -q " 0:45 btrfs vdc " "$TMP/out" && is "$TMP/err" "fsmsg: listening: FS_MSG/events"'
fake "$FSMSG" -F -w meta-enospc -u "$U" -t 0.3
check "-w meta-enospc -u UUID: the two ext4 events" eval '[ $rc -eq 0 ] && [ "$(grep -c " 254:16 ext4 vdb " "$TMP/out")" -eq 2 ] && [ "$(wc -l <"$TMP/out")" -eq 2 ]'
fake "$FSMSG" -F -T xfs -t 0.3
check "-T xfs: nothing, --timeout without --count exits 0" eval '[ $rc -eq 0 ] && [ ! -s "$TMP/out" ]'
fake "$FSMSG" -F -T xfs -c 1 -t 0.3
check "--timeout before --count events: exit 3" eval '[ $rc -eq 3 ] && [ ! -s "$TMP/out" ]'
fake "$FSMSG" -F -c 2
check "--count 2: exactly two lines" eval '[ $rc -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 2 ]'

# ---- invalid message in the stream ---------------------------------------
script <<EOF
fs 254 16 ext4 vdb - 0 0 0
event 1 254 16 1 0 one
invalid
event 1 254 16 2 0 two
EOF
fake "$FSMSG" -F -c 2
check "invalid message reported and skipped, the next one printed" eval '[ $rc -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 2 ] && grep -q "(two), count 2$" "$TMP/out" && grep -qx "fsmsg: skipped an invalid FS_MSG message: missing required attribute COUNT (12)" "$TMP/err"'

# ---- overrun and resync --------------------------------------------------
script <<EOF
fs 254 16 ext4 vdb $U 0 3 0
event 2 254 16 4 0 a
event 1 254 16 1 0 b
lost 2 254 16 5
lost 2 254 16 6
overrun
event 2 254 16 7 0 c
lost 1 254 16 2
lost 1 254 16 3
lost 1 254 16 4
EOF
fake "$FSMSG" -F -t 0.5
check "overrun: keeps running, prints what arrived" eval '[ $rc -eq 0 ] && is "$TMP/out" "${T}1Z 254:16 ext4 vdb uuid $U: no space left for metadata, uid 0, pid 4242 (a), count 4
${T}2Z 254:16 ext4 vdb uuid $U: no space left for data, uid 0, pid 4242 (b), count 1
${T}5Z 254:16 ext4 vdb uuid $U: no space left for metadata, uid 0, pid 4242 (c), count 7"'
check "overrun: said, then exactly what was missed per type" eval 'is "$TMP/err" "fsmsg: listening: FS_MSG/events
fsmsg: overrun: events were dropped because the socket receive buffer was full; counting the missed warnings from the kernel'"'"'s counters
fsmsg: missed 2 meta-enospc warnings on ext4 vdb (254:16)
fsmsg: missed 3 enospc warnings on ext4 vdb (254:16)"'
fake "$FSMSG" -F -j -q -t 0.5
masked "$TMP/out" | grep '"event":"missed"' >"$TMP/masked"
check "overrun, JSON: missed lines on stdout too" eval 'is "$TMP/masked" "{\"time\":\"T\",\"event\":\"missed\",\"dev\":\"254:16\",\"fstype\":\"ext4\",\"device\":\"vdb\",\"uuid\":\"$U\",\"warning\":\"meta-enospc\",\"missed\":2}
{\"time\":\"T\",\"event\":\"missed\",\"dev\":\"254:16\",\"fstype\":\"ext4\",\"device\":\"vdb\",\"uuid\":\"$U\",\"warning\":\"enospc\",\"missed\":3}"'
fake "$FSMSG" -F -w enospc -t 0.5
check "overrun with -w enospc: only the enospc loss reported" eval 'grep -c "^fsmsg: missed" "$TMP/err" | grep -qx 1 && grep -qx "fsmsg: missed 3 enospc warnings on ext4 vdb (254:16)" "$TMP/err"'

# ---- signals, flushing, pidfiles, daemon ----------------------------------
script <<EOF
fs 254 16 ext4 vdb - 0 0 0
event 1 254 16 1 0 x
event 1 254 16 2 0 y
EOF
fake_bg "$FSMSG" -F -p "$TMP/fg.pid"
i=0
while [ "$(wc -l <"$TMP/out")" -lt 2 ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
check "events flushed while running" eval '[ "$(wc -l <"$TMP/out")" -eq 2 ] && kill -0 $pid'
check "foreground pidfile holds the pid" eval '[ "$(cat "$TMP/fg.pid" 2>/dev/null)" = "$pid" ]'
kill -TERM "$pid"
reap "$pid"
check "SIGTERM: exit 0" eval '[ $rc -eq 0 ]'
check "pidfile removed on exit" eval '[ ! -e "$TMP/fg.pid" ]'

fake_bg "$FSMSG" -F -j
kill -INT "$pid"
reap "$pid"
check "SIGINT to a background job: exit 0" eval '[ $rc -eq 0 ]'

fake "$FSMSG" -p "$TMP/d.pid"
dpid=$(cat "$TMP/d.pid" 2>/dev/null)
check "daemon: returns 0 once listening, pidfile written" eval '[ $rc -eq 0 ] && is "$TMP/err" "fsmsg: listening: FS_MSG/events" && [ -n "$dpid" ] && kill -0 "$dpid"'
check "daemon: nothing on stdout (events go to syslog)" eval '[ ! -s "$TMP/out" ]'
if [ -n "$dpid" ]; then
	kill -TERM "$dpid"
	i=0
	while kill -0 "$dpid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
fi
check "daemon: SIGTERM ends it and removes the pidfile" eval '[ -n "$dpid" ] && ! kill -0 "$dpid" 2>/dev/null && [ ! -e "$TMP/d.pid" ]'

fake "$FSMSG" -F -p /nonexistent/dir/x.pid
check "unwritable pidfile: exit 2" eval '[ $rc -eq 2 ] && grep -q "^fsmsg: cannot write pidfile /nonexistent/dir/x.pid: No such file or directory$" "$TMP/err"'

# ---- under valgrind --------------------------------------------------------
if command -v "$VALGRIND" >/dev/null 2>&1; then
	script <<EOF
fs 254 16 ext4 vdb $U 0 3 0
fs 0 45 btrfs vdc - 12 0 1
event 2 254 16 4 0 a
invalid
overrun
event 2 254 16 8 1 c
lost 1 0 45 15
EOF
	VG="$VALGRIND -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect"
	# shellcheck disable=SC2086 # VG is a word list
	fake $VG "$FSMSG" -F -j -t 1
	check "valgrind: events, invalid message, overrun, timeout: clean" eval '[ $rc -eq 0 ] && grep -q "\"missed\":3" "$TMP/out" && grep -q "\"missed\":2" "$TMP/out"'
	# shellcheck disable=SC2086
	fake $VG "$FSMSG" -l -T btrfs
	check "valgrind: --list clean" eval '[ $rc -eq 0 ] && grep -q "^vdc " "$TMP/out"'
else
	n=$((n + 1))
	echo "ok $n - valgrind runs # SKIP valgrind not installed"
fi

echo "1..$n"
echo "# $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
