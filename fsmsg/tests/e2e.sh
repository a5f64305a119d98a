#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# End-to-end tests of the real fsmsg binary against a fake FS_MSG kernel
# (tests/fakegenl.c, LD_PRELOADed): subscription, seed dump, events in
# both formats, filters, gaps, an overrun and its resync, --list, the
# permission errors, --count/--timeout exit codes, signals, daemon mode
# and the pidfile; the Prometheus metrics file (contents, promtool, equal
# to the kernel's counters across an overrun and a restart, atomic and
# bounded rewrites, errors) and the journal entries; a run under valgrind.
# TAP on stdout.
#
# usage: e2e.sh FSMSG LIBFAKEGENL [VALGRIND [PROMTOOL]]

FSMSG=${1:?usage: e2e.sh FSMSG LIBFAKEGENL [VALGRIND [PROMTOOL]]}
FAKE=${2:?usage: e2e.sh FSMSG LIBFAKEGENL [VALGRIND [PROMTOOL]]}
VALGRIND=${3:-valgrind}
PROMTOOL=${4:-promtool}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fsmsg-e2e.XXXXXX") || exit 1
# Every output names mount points: none by default (an empty table),
# the mount point tests give a fake mountinfo of their own.
: > "$TMP/mountinfo.none"
export FSMSG_MOUNTINFO="$TMP/mountinfo.none"
pid= dpid=
# Never leave a test's fsmsg behind, whatever happened.
trap 'for p in $pid $dpid; do kill "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT INT TERM

n=0
failed=0
U=0c5f3a9e-1234-4bcd-8ef0-0123456789ab
T=2026-12-03T07:42:51.00000000
# JSON "time" is to the second (jq's fromdateiso8601)
JT=2026-12-03T07:42:51Z

ok() { n=$((n + 1)); echo "ok $n - $1"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
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
NOFAM="fsmsg: the kernel has no FS_MSG family: it was built without CONFIG_FS_MSG (filesystem warning messages), or this is not the initial network namespace"
check "no family: one sentence naming CONFIG_FS_MSG, exit 4" eval '[ $rc -eq 4 ] && is "$TMP/err" "$NOFAM"'
fake "$FSMSG" -l -j
check "no family, --list --json: exit 4, nothing on stdout" eval '[ $rc -eq 4 ] && is "$TMP/err" "$NOFAM" && [ ! -s "$TMP/out" ]'
fake "$FSMSG"
check "no family, daemon mode: said on the terminal, exit 4" eval '[ $rc -eq 4 ] && is "$TMP/err" "$NOFAM"'

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
# The btrfs one's SB_ID is past 32 bits: an 8-byte NLA_UINT.
script <<EOF
fs 254 16 ext4 vdb $U 0 3 0
fs 0 45 btrfs vdc - 12 0 1 4294967297
fs 254 32 xfs vdd $U 0 0 7
counter 254 16 4 2
counter 254 16 5 1
EOF
fake "$FSMSG" --list
check "--list: table" eval '[ $rc -eq 0 ] && [ ! -s "$TMP/err" ] && is "$TMP/out" "DEVICE  MAJ:MIN  FSTYPE  UUID                                  SB_ID       LABEL  ENOSPC  META-ENOSPC  INODE-ENOSPC  FS-ERROR  SHUTDOWN  DATA-LOST  MOUNTPOINT
vdc     0:45     btrfs   -                                     4294967297  -          12            0             1         0         0          0  -
vdb     254:16   ext4    $U  1           -           0            3             0         2         1          0  -
vdd     254:32   xfs     $U  3           -           0            0             7         0         0          0  -"'
fake "$FSMSG" -l -j -d 0:45
check "--list --json -d 0:45" eval '[ $rc -eq 0 ] && is "$TMP/out" "{\"event\":\"filesystem\",\"dev\":\"0:45\",\"major\":0,\"minor\":45,\"fstype\":\"btrfs\",\"device\":\"vdc\",\"uuid\":null,\"label\":null,\"mountpoints\":null,\"sb_id\":4294967297,\"counters\":{\"enospc\":{\"count\":12,\"last_ns\":\"1796283770999999001\",\"suppressed\":0},\"meta-enospc\":{\"count\":0,\"last_ns\":null,\"suppressed\":0},\"inode-enospc\":{\"count\":1,\"last_ns\":\"1796283770999999003\",\"suppressed\":0},\"fs-error\":{\"count\":0,\"last_ns\":null,\"suppressed\":0},\"shutdown\":{\"count\":0,\"last_ns\":null,\"suppressed\":0},\"data-lost\":{\"count\":0,\"last_ns\":null,\"suppressed\":0}}}"'
if command -v jq >/dev/null 2>&1; then
	jq -r '.counters | to_entries[] | "\(.key) \(.value.last_ns | type) \(.value.last_ns)"' \
		"$TMP/out" >"$TMP/jq" 2>"$TMP/err"
	check "jq, --list --json: last_ns a string of every digit, null when never" eval 'is "$TMP/jq" "enospc string 1796283770999999001
meta-enospc null null
inode-enospc string 1796283770999999003
fs-error null null
shutdown null null
data-lost null null"'
else
	skip "jq, --list --json: last_ns a string of every digit, null when never" "jq not installed"
fi
fake "$FSMSG" -l -T ext4 -T xfs -w inode-enospc
check "--list -T ext4 -T xfs -w inode-enospc" eval '[ $rc -eq 0 ] && is "$TMP/out" "DEVICE  MAJ:MIN  FSTYPE  UUID                                  SB_ID  LABEL  INODE-ENOSPC  MOUNTPOINT
vdb     254:16   ext4    $U  1      -                 0  -
vdd     254:32   xfs     $U  3      -                 7  -"'
fake "$FSMSG" -l -j -u "$U" -T xfs
check "--list -u UUID -T xfs: one JSON line" eval '[ $rc -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 1 ] && grep -q "\"dev\":\"254:32\"" "$TMP/out"'

# ---- fs-error and shutdown ---------------------------------------------------
script <<EOF
fs 254 16 ext4 vdb $U 0 3 0
severity 3
details errno=117 function=ext4_lookup line=1234 inode=12 block=0
event 4 254 16 1 0 touch
severity 4
details reason=1 fs_flags=0 errno=5
event 5 254 16 1 0 touch
EOF
fake "$FSMSG" -F -q -c 2
check "fs-error and shutdown: text lines with their details" eval '[ $rc -eq 0 ] && is "$TMP/out" "${T}1Z 254:16 ext4 vdb uuid $U sb 1 mnt -: error: filesystem error, uid 0, pid 4242 (touch), count 1 errno EUCLEAN (117) function ext4_lookup line 1234 inode 12 block 0
${T}2Z 254:16 ext4 vdb uuid $U sb 1 mnt -: critical: filesystem shut down, uid 0, pid 4242 (touch), count 1 reason error fs_flags 0x0 errno EIO (5)"'
fake "$FSMSG" -F -q -j -c 2
check "fs-error and shutdown: JSON details" eval '[ $rc -eq 0 ] && grep -q "\"warning\":\"fs-error\",\"warning_id\":4,\"severity\":\"error\",.*\"errno\":117,\"errno_name\":\"EUCLEAN\",\"function\":\"ext4_lookup\",\"line\":1234,\"inode\":12,\"block\":0,\"reason\":null,\"reason_id\":null,\"fs_flags\":null,\"offset\":null,\"length\":null}\$" "$TMP/out" && grep -q "\"warning\":\"shutdown\",\"warning_id\":5,\"severity\":\"critical\",.*\"errno\":5,\"errno_name\":\"EIO\",\"function\":null,\"line\":null,\"inode\":null,\"block\":null,\"reason\":\"error\",\"reason_id\":1,\"fs_flags\":0,\"offset\":null,\"length\":null}\$" "$TMP/out"'
fake "$FSMSG" -F -q -w fs-error -t 0.3
check "-w fs-error: the fs-error only" eval '[ $rc -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 1 ] && grep -q ": error: filesystem error," "$TMP/out"'
fake "$FSMSG" -l -w shutdown -w fs-error
check "--list -w shutdown -w fs-error: their columns only (the dump is before the events)" eval '[ $rc -eq 0 ] && is "$TMP/out" "DEVICE  MAJ:MIN  FSTYPE  UUID                                  SB_ID  LABEL  FS-ERROR  SHUTDOWN  MOUNTPOINT
vdb     254:16   ext4    $U  1      -             0         0  -"'

# ---- events ---------------------------------------------------------------
script <<EOF
fs 254 16 ext4 vdb $U 0 3 0
fs 0 45 btrfs vdc - 12 0 1 4294967298
event 2 254 16 4 0 alloc_test
event 1 0 45 13 0 dd
event 2 254 16 9 2 alloc_test
EOF
fake "$FSMSG" -F -c 3
check "text: three events, exit 0 at --count" eval '[ $rc -eq 0 ] && is "$TMP/out" "${T}1Z 254:16 ext4 vdb uuid $U sb 1 mnt -: warning: no space left for metadata, uid 0, pid 4242 (alloc_test), count 4
${T}2Z 0:45 btrfs vdc uuid - sb 4294967298 mnt -: warning: no space left for data, uid 0, pid 4242 (dd), count 13
${T}3Z 254:16 ext4 vdb uuid $U sb 1 mnt -: warning: no space left for metadata, uid 0, pid 4242 (alloc_test), count 9 (2 suppressed)"'
check "text: listening line, then the gap (9 after 4 with 2 suppressed)" eval 'is "$TMP/err" "fsmsg: listening: FS_MSG/events
fsmsg: missed 2 meta-enospc warnings on ext4 vdb (254:16) mnt -"'

fake "$FSMSG" -F -j -q -c 3
masked "$TMP/out" >"$TMP/masked"
check "JSON: events and the missed line, one object per line" eval '[ $rc -eq 0 ] && is "$TMP/masked" "{\"time\":\"${JT}\",\"event\":\"warning\",\"timestamp_ns\":\"1796283771000000001\",\"warning\":\"meta-enospc\",\"warning_id\":2,\"severity\":\"warning\",\"severity_id\":2,\"dev\":\"254:16\",\"major\":254,\"minor\":16,\"fstype\":\"ext4\",\"device\":\"vdb\",\"uuid\":\"$U\",\"label\":null,\"mountpoints\":null,\"sb_id\":1,\"uid\":0,\"pid\":4242,\"comm\":\"alloc_test\",\"count\":4,\"suppressed\":0,\"errno\":null,\"errno_name\":null,\"function\":null,\"line\":null,\"inode\":null,\"block\":null,\"reason\":null,\"reason_id\":null,\"fs_flags\":null,\"offset\":null,\"length\":null}
{\"time\":\"${JT}\",\"event\":\"warning\",\"timestamp_ns\":\"1796283771000000002\",\"warning\":\"enospc\",\"warning_id\":1,\"severity\":\"warning\",\"severity_id\":2,\"dev\":\"0:45\",\"major\":0,\"minor\":45,\"fstype\":\"btrfs\",\"device\":\"vdc\",\"uuid\":null,\"label\":null,\"mountpoints\":null,\"sb_id\":4294967298,\"uid\":0,\"pid\":4242,\"comm\":\"dd\",\"count\":13,\"suppressed\":0,\"errno\":null,\"errno_name\":null,\"function\":null,\"line\":null,\"inode\":null,\"block\":null,\"reason\":null,\"reason_id\":null,\"fs_flags\":null,\"offset\":null,\"length\":null}
{\"time\":\"T\",\"event\":\"missed\",\"dev\":\"254:16\",\"fstype\":\"ext4\",\"device\":\"vdb\",\"uuid\":\"$U\",\"mountpoints\":null,\"warning\":\"meta-enospc\",\"missed\":2}
{\"time\":\"${JT}\",\"event\":\"warning\",\"timestamp_ns\":\"1796283771000000003\",\"warning\":\"meta-enospc\",\"warning_id\":2,\"severity\":\"warning\",\"severity_id\":2,\"dev\":\"254:16\",\"major\":254,\"minor\":16,\"fstype\":\"ext4\",\"device\":\"vdb\",\"uuid\":\"$U\",\"label\":null,\"mountpoints\":null,\"sb_id\":1,\"uid\":0,\"pid\":4242,\"comm\":\"alloc_test\",\"count\":9,\"suppressed\":2,\"errno\":null,\"errno_name\":null,\"function\":null,\"line\":null,\"inode\":null,\"block\":null,\"reason\":null,\"reason_id\":null,\"fs_flags\":null,\"offset\":null,\"length\":null}"'
check "-q: no listening line" eval 'is "$TMP/err" "fsmsg: missed 2 meta-enospc warnings on ext4 vdb (254:16) mnt -"'
grep '"event":"missed"' "$TMP/out" | sed -n 's/.*"time":"\([^"]*\)".*/\1/p' >"$TMP/t"
check "JSON missed line: an ISO UTC time to the second" grep -Eq '^20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-6][0-9]Z$' "$TMP/t"
# What jq makes of the same lines: "time" through fromdateiso8601 (jq 1.6
# takes only %Y-%m-%dT%H:%M:%SZ) is the seconds of timestamp_ns, and
# timestamp_ns, a string, keeps its last digit (as a number jq would round
# 1796283771000000001 to ...000000000).
if command -v jq >/dev/null 2>&1; then
	cp "$TMP/out" "$TMP/json"
	jq -r 'select(.event == "warning") |
		"\(.time | fromdateiso8601) \(.timestamp_ns[0:-9]) \(.timestamp_ns)"' \
		"$TMP/json" >"$TMP/jq" 2>"$TMP/err"
	check "jq: .time|fromdateiso8601 equals the seconds of timestamp_ns, which keeps every digit" eval 'is "$TMP/jq" "1796283771 1796283771 1796283771000000001
1796283771 1796283771 1796283771000000002
1796283771 1796283771 1796283771000000003"'
	jq -r 'select(.event == "missed") | .time | fromdateiso8601' "$TMP/json" \
		>"$TMP/jq" 2>"$TMP/err"
	check "jq: the missed line's time through fromdateiso8601" grep -Eqx '[0-9]{10}' "$TMP/jq"
else
	skip "jq: .time|fromdateiso8601 equals the seconds of timestamp_ns, which keeps every digit" "jq not installed"
	skip "jq: the missed line's time through fromdateiso8601" "jq not installed"
fi

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

# ---- --receive-time ---------------------------------------------------------
# Same script as above: the lines are the same but for the added receive
# time, which the missed reports do not get.
fake "$FSMSG" -F -j -q -c 3 -r
masked "$TMP/out" | sed 's/,"received_ns":"[0-9]*"}$/,"received_ns":R}/' >"$TMP/masked"
check "-r, JSON: received_ns the last key of every event, not in the missed line" eval '[ $rc -eq 0 ] && is "$TMP/masked" "{\"time\":\"${JT}\",\"event\":\"warning\",\"timestamp_ns\":\"1796283771000000001\",\"warning\":\"meta-enospc\",\"warning_id\":2,\"severity\":\"warning\",\"severity_id\":2,\"dev\":\"254:16\",\"major\":254,\"minor\":16,\"fstype\":\"ext4\",\"device\":\"vdb\",\"uuid\":\"$U\",\"label\":null,\"mountpoints\":null,\"sb_id\":1,\"uid\":0,\"pid\":4242,\"comm\":\"alloc_test\",\"count\":4,\"suppressed\":0,\"errno\":null,\"errno_name\":null,\"function\":null,\"line\":null,\"inode\":null,\"block\":null,\"reason\":null,\"reason_id\":null,\"fs_flags\":null,\"offset\":null,\"length\":null,\"received_ns\":R}
{\"time\":\"${JT}\",\"event\":\"warning\",\"timestamp_ns\":\"1796283771000000002\",\"warning\":\"enospc\",\"warning_id\":1,\"severity\":\"warning\",\"severity_id\":2,\"dev\":\"0:45\",\"major\":0,\"minor\":45,\"fstype\":\"btrfs\",\"device\":\"vdc\",\"uuid\":null,\"label\":null,\"mountpoints\":null,\"sb_id\":4294967298,\"uid\":0,\"pid\":4242,\"comm\":\"dd\",\"count\":13,\"suppressed\":0,\"errno\":null,\"errno_name\":null,\"function\":null,\"line\":null,\"inode\":null,\"block\":null,\"reason\":null,\"reason_id\":null,\"fs_flags\":null,\"offset\":null,\"length\":null,\"received_ns\":R}
{\"time\":\"T\",\"event\":\"missed\",\"dev\":\"254:16\",\"fstype\":\"ext4\",\"device\":\"vdb\",\"uuid\":\"$U\",\"mountpoints\":null,\"warning\":\"meta-enospc\",\"missed\":2}
{\"time\":\"${JT}\",\"event\":\"warning\",\"timestamp_ns\":\"1796283771000000003\",\"warning\":\"meta-enospc\",\"warning_id\":2,\"severity\":\"warning\",\"severity_id\":2,\"dev\":\"254:16\",\"major\":254,\"minor\":16,\"fstype\":\"ext4\",\"device\":\"vdb\",\"uuid\":\"$U\",\"label\":null,\"mountpoints\":null,\"sb_id\":1,\"uid\":0,\"pid\":4242,\"comm\":\"alloc_test\",\"count\":9,\"suppressed\":2,\"errno\":null,\"errno_name\":null,\"function\":null,\"line\":null,\"inode\":null,\"block\":null,\"reason\":null,\"reason_id\":null,\"fs_flags\":null,\"offset\":null,\"length\":null,\"received_ns\":R}"'
fake "$FSMSG" -F --receive-time -c 3
sed -E 's/ received [+-][0-9]+\.[0-9]{3}us$/ received D/' "$TMP/out" >"$TMP/masked"
check "--receive-time, text: ' received <+|-><us>.<3 digits>us' ends every event line" eval '[ $rc -eq 0 ] && is "$TMP/masked" "${T}1Z 254:16 ext4 vdb uuid $U sb 1 mnt -: warning: no space left for metadata, uid 0, pid 4242 (alloc_test), count 4 received D
${T}2Z 0:45 btrfs vdc uuid - sb 4294967298 mnt -: warning: no space left for data, uid 0, pid 4242 (dd), count 13 received D
${T}3Z 254:16 ext4 vdb uuid $U sb 1 mnt -: warning: no space left for metadata, uid 0, pid 4242 (alloc_test), count 9 (2 suppressed) received D"'
check "--receive-time, text: stderr as without it" eval 'is "$TMP/err" "fsmsg: listening: FS_MSG/events
fsmsg: missed 2 meta-enospc warnings on ext4 vdb (254:16) mnt -"'

# With the kernel's timestamps from the real clock, the delay is >= 0 and
# small: the fake kernel sends right after fsmsg's seed dump.
script <<EOF
realtime
fs 254 16 ext4 vdb $U 0 0 0
event 1 254 16 1 0 a
event 2 254 16 1 0 b
event 3 254 16 1 0 c
EOF
# delays FILE: received_ns - timestamp_ns of each JSON event line
delays() {
	sed -n 's/.*"timestamp_ns":"\([0-9]*\)",.*,"received_ns":"\([0-9]*\)"}$/\2 \1/p' "$1" |
		while read -r rx ts; do echo $((rx - ts)); done
}
# sane_delays FILE N: N event lines, each delay in [0, 10 s)
sane_delays() {
	delays "$1" >"$TMP/delays"
	[ "$(wc -l <"$TMP/delays")" -eq "$2" ] || return 1
	while read -r d; do
		if [ "$d" -lt 0 ] || [ "$d" -ge 10000000000 ]; then
			echo "#   delay $d ns"
			return 1
		fi
	done <"$TMP/delays"
}
fake "$FSMSG" -F -j -q -c 3 -r
check "-r, JSON, kernel on the same clock: 0 <= received_ns - timestamp_ns < 10 s" eval '[ $rc -eq 0 ] && sane_delays "$TMP/out" 3'
fake "$FSMSG" -F -q -c 3 -r
check "-r, text, kernel on the same clock: a delay of + some us on every line" eval '[ $rc -eq 0 ] && [ "$(grep -cE " received \+[0-9]{1,7}\.[0-9]{3}us\$" "$TMP/out")" -eq 3 ]'
fake "$FSMSG" -F -j -q -c 3
check "without -r: no receive time" eval '[ $rc -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 3 ] && ! grep -q received "$TMP/out"'
fake "$FSMSG" -l -r
check "--list -r: refused, a usage error (no receive time in a list)" eval '[ $rc -eq 1 ] && [ ! -s "$TMP/out" ] && [ "$(head -n 1 "$TMP/err")" = "fsmsg: -r/--receive-time does not apply to --list" ]'

# Counts past 32 bits: 8-byte NLA_UINTs in the dump and in the event.
script <<EOF
fs 254 16 ext4 vdb $U 0 4294967300 0
event 2 254 16 4294967301 0 alloc_test
event 2 254 16 4294967303 1 alloc_test
EOF
fake "$FSMSG" -F -c 2
check "counts past 2^32: read whole, the gap after 2^32 counted exactly" eval '[ $rc -eq 0 ] && grep -q "(alloc_test), count 4294967301$" "$TMP/out" && grep -q "(alloc_test), count 4294967303 (1 suppressed)$" "$TMP/out" && ! grep -q missed "$TMP/err"'

# ---- invalid message in the stream ---------------------------------------
script <<EOF
fs 254 16 ext4 vdb - 0 0 0
event 1 254 16 1 0 one
invalid
event 1 254 16 2 0 two
EOF
fake "$FSMSG" -F -c 2
check "invalid message reported and skipped, the next one printed" eval '[ $rc -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 2 ] && grep -q "(two), count 2$" "$TMP/out" && grep -qx "fsmsg: skipped an invalid FS_MSG message: missing required attribute COUNT (11)" "$TMP/err"'

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
check "overrun: keeps running, prints what arrived" eval '[ $rc -eq 0 ] && is "$TMP/out" "${T}1Z 254:16 ext4 vdb uuid $U sb 1 mnt -: warning: no space left for metadata, uid 0, pid 4242 (a), count 4
${T}2Z 254:16 ext4 vdb uuid $U sb 1 mnt -: warning: no space left for data, uid 0, pid 4242 (b), count 1
${T}5Z 254:16 ext4 vdb uuid $U sb 1 mnt -: warning: no space left for metadata, uid 0, pid 4242 (c), count 7"'
check "overrun: said, then exactly what was missed per type" eval 'is "$TMP/err" "fsmsg: listening: FS_MSG/events
fsmsg: overrun: events were dropped because the socket receive buffer was full; counting the missed warnings from the kernel'"'"'s counters
fsmsg: missed 2 meta-enospc warnings on ext4 vdb (254:16) mnt -
fsmsg: missed 3 enospc warnings on ext4 vdb (254:16) mnt -"'
fake "$FSMSG" -F -j -q -t 0.5
masked "$TMP/out" | grep '"event":"missed"' >"$TMP/masked"
check "overrun, JSON: missed lines on stdout too" eval 'is "$TMP/masked" "{\"time\":\"T\",\"event\":\"missed\",\"dev\":\"254:16\",\"fstype\":\"ext4\",\"device\":\"vdb\",\"uuid\":\"$U\",\"mountpoints\":null,\"warning\":\"meta-enospc\",\"missed\":2}
{\"time\":\"T\",\"event\":\"missed\",\"dev\":\"254:16\",\"fstype\":\"ext4\",\"device\":\"vdb\",\"uuid\":\"$U\",\"mountpoints\":null,\"warning\":\"enospc\",\"missed\":3}"'
fake "$FSMSG" -F -w enospc -t 0.5
check "overrun with -w enospc: only the enospc loss reported" eval 'grep -c "^fsmsg: missed" "$TMP/err" | grep -qx 1 && grep -qx "fsmsg: missed 3 enospc warnings on ext4 vdb (254:16) mnt -" "$TMP/err"'

# ---- the Prometheus metrics file --------------------------------------------
M=$TMP/prom/fsmsg.prom
mkdir -p "$TMP/prom"
export FAKEGENL_RENAMES="$TMP/renames"

# What the file says, with the start time masked.
prom_masked() { sed 's/^fsmsg_start_time_seconds [0-9]*\.[0-9]\{9\}$/fsmsg_start_time_seconds S/' "$1"; }
# prom_value FILE DEV TYPE: fsmsg_warnings_total of that filesystem and type
# (the labels are always dev, device, fstype, uuid, warning, in that order)
prom_value() {
	sed -n "s/^fsmsg_warnings_total{dev=\"$2\",.*,warning=\"$3\"} \([0-9]*\)\$/\1/p" "$1"
}
# list_value FILE DEV TYPE: the kernel's count, from `fsmsg --list --json`
list_value() {
	grep "\"dev\":\"$2\"" "$1" | sed -n "s/.*\"$3\":{\"count\":\([0-9]*\),.*/\1/p"
}
# same_counts PROMFILE LISTFILE: every series of both filesystems agrees
same_counts() {
	for d in 254:16 0:45; do
		for w in enospc meta-enospc inode-enospc; do
			a=$(prom_value "$1" $d $w)
			b=$(list_value "$2" $d $w)
			if [ -z "$a" ] || [ "$a" != "$b" ]; then
				echo "#   $d $w: metrics file '$a', kernel '$b'"
				return 1
			fi
		done
	done
}
# promtool_check FILE NAME: `promtool check metrics`, SKIP without it
promtool_check() {
	if ! command -v "$PROMTOOL" >/dev/null 2>&1; then
		skip "$2: promtool check metrics" "promtool not installed (Debian: prometheus)"
	elif "$PROMTOOL" check metrics <"$1" >"$TMP/promtool" 2>&1; then
		ok "$2: promtool check metrics"
	else
		not_ok "$2: promtool check metrics"
		sed 's/^/#   promtool: /' "$TMP/promtool"
	fi
}
# renames_ok: every rewrite was a rename of "$M.tmp.XXXXXX" onto $M
renames_ok() {
	[ -s "$TMP/renames" ] && ! grep -v "^$M\.tmp\.[A-Za-z0-9]\{6\} $M\$" "$TMP/renames" >/dev/null
}
HELP_W='# HELP fsmsg_warnings_total Warnings (out of space, errors, shutdowns) the kernel counted on the filesystem since it was mounted, whether fsmsg received them as messages or not.
# TYPE fsmsg_warnings_total counter'
HELP_L='# HELP fsmsg_last_warning_timestamp_seconds Time of the latest such warning in seconds since the epoch; no series until there was one.
# TYPE fsmsg_last_warning_timestamp_seconds gauge'
help_tail() { # help_tail MISSED OVERRUNS [REJECTED]
	# No info series: the e2e mountinfo is empty but in the mount tests.
	echo "# HELP fsmsg_filesystem_info Where each filesystem with warnings series is mounted, 1 per mount point; device and mountpoint as node_exporter's node_filesystem_* series have them."
	echo '# TYPE fsmsg_filesystem_info gauge'
	echo '# HELP fsmsg_missed_warnings_total Warnings fsmsg knows it did not receive as messages (socket overruns, gaps in the counts).'
	echo '# TYPE fsmsg_missed_warnings_total counter'
	echo "fsmsg_missed_warnings_total $1"
	echo "# HELP fsmsg_overruns_total Times the kernel dropped messages because fsmsg's socket receive buffer was full."
	echo '# TYPE fsmsg_overruns_total counter'
	echo "fsmsg_overruns_total $2"
	echo '# HELP fsmsg_rejected_messages_total Messages on the FS_MSG sockets that the kernel did not send (netlink port id not 0), ignored.'
	echo '# TYPE fsmsg_rejected_messages_total counter'
	echo "fsmsg_rejected_messages_total ${3:-0}"
	echo '# HELP fsmsg_start_time_seconds Start time of the fsmsg process in seconds since the epoch.'
	echo '# TYPE fsmsg_start_time_seconds gauge'
	echo 'fsmsg_start_time_seconds S'
}
LB='dev="254:16",device="vdb",fstype="ext4",uuid="'$U'"'
LC='dev="0:45",device="vdc",fstype="btrfs",uuid=""'

printf 'fs 254 16 ext4 vdb - 0 0 0\n' | script
fake "$FSMSG" -F --prometheus-textfile "$TMP/nope/fsmsg.prom"
check "metrics file in a missing folder: one sentence, exit 2" eval '[ $rc -eq 2 ] && is "$TMP/err" "fsmsg: cannot write the metrics file $TMP/nope/fsmsg.prom: the folder $TMP/nope does not exist"'
fake "$FSMSG" -F --prometheus-textfile "$TMP/prom"
check "metrics file that is a folder: exit 2" eval '[ $rc -eq 2 ] && is "$TMP/err" "fsmsg: metrics file $TMP/prom is a folder"'

script <<EOF
fs 254 16 ext4 vdb $U 0 3 0
fs 0 45 btrfs vdc - 12 0 1 4294967298
event 2 254 16 4 0 alloc_test
event 1 0 45 13 0 dd
event 2 254 16 9 2 alloc_test
EOF
rm -f "$TMP/renames"
fake "$FSMSG" -F -q --prometheus-textfile "$M" -t 0.5
prom_masked "$M" >"$TMP/masked"
{
	echo "$HELP_W"
	echo "fsmsg_warnings_total{$LC,warning=\"enospc\"} 13"
	echo "fsmsg_warnings_total{$LC,warning=\"meta-enospc\"} 0"
	echo "fsmsg_warnings_total{$LC,warning=\"inode-enospc\"} 1"
	echo "fsmsg_warnings_total{$LC,warning=\"fs-error\"} 0"
	echo "fsmsg_warnings_total{$LC,warning=\"shutdown\"} 0"
	echo "fsmsg_warnings_total{$LC,warning=\"data-lost\"} 0"
	echo "fsmsg_warnings_total{$LB,warning=\"enospc\"} 0"
	echo "fsmsg_warnings_total{$LB,warning=\"meta-enospc\"} 9"
	echo "fsmsg_warnings_total{$LB,warning=\"inode-enospc\"} 0"
	echo "fsmsg_warnings_total{$LB,warning=\"fs-error\"} 0"
	echo "fsmsg_warnings_total{$LB,warning=\"shutdown\"} 0"
	echo "fsmsg_warnings_total{$LB,warning=\"data-lost\"} 0"
	echo "$HELP_L"
	echo "fsmsg_last_warning_timestamp_seconds{$LC,warning=\"enospc\"} 1796283771.000000002"
	echo "fsmsg_last_warning_timestamp_seconds{$LC,warning=\"inode-enospc\"} 1796283770.999999003"
	echo "fsmsg_last_warning_timestamp_seconds{$LB,warning=\"meta-enospc\"} 1796283771.000000003"
	help_tail 2 0
} >"$TMP/want"
check "metrics file: seeded series, event counts, times, missed; byte for byte" eval '[ $rc -eq 0 ] && cmp -s "$TMP/masked" "$TMP/want"'
cmp -s "$TMP/masked" "$TMP/want" || diff "$TMP/want" "$TMP/masked" | sed 's/^/#   /'
check "metrics file: start time in seconds with nanoseconds" grep -Eq '^fsmsg_start_time_seconds [0-9]{10}\.[0-9]{9}$' "$M"
promtool_check "$M" "metrics file after events"
check "metrics file: mode 0644, no temporary file left" eval '[ "$(stat -c %a "$M")" = 644 ] && [ "$(ls "$TMP/prom")" = fsmsg.prom ]'
check "metrics file: every rewrite is a rename from $M.tmp.* in the same folder" renames_ok

# An overrun, dropped and rate-limited warnings; then the kernel keeps its
# counters (FAKEGENL_STATE) while fsmsg restarts.
export FAKEGENL_STATE="$TMP/kernel.state"
rm -f "$FAKEGENL_STATE"
script <<EOF
fs 254 16 ext4 vdb $U 0 3 0
fs 0 45 btrfs vdc - 12 0 1
event 2 254 16 4 0 a
lost 1 254 16 2
overrun
event 2 254 16 5 0 b
held 2 254 16 7
held 3 0 45 4
EOF
fake "$FSMSG" -F -q --prometheus-textfile "$M" -t 0.5
cp "$M" "$TMP/run1.prom"
script <<EOF
fs 254 16 ext4 vdb $U 0 3 0
fs 0 45 btrfs vdc - 12 0 1
EOF
fake "$FSMSG" -l -j
cp "$TMP/out" "$TMP/list1"
check "after an overrun, lost and held-back warnings: the counters equal the kernel's" same_counts "$TMP/run1.prom" "$TMP/list1"
check "...the overrun counted" grep -qx 'fsmsg_overruns_total 1' "$TMP/run1.prom"
check "--list --json: the held-back warnings as suppressed" grep -q '"meta-enospc":{"count":7,"last_ns":"[0-9]*","suppressed":2}' "$TMP/list1"
promtool_check "$TMP/run1.prom" "metrics file after an overrun"

rm -f "$M"
fake "$FSMSG" -F -q --prometheus-textfile "$M" -t 0.3
check "restart: the new file has the kernel's counters from the start" same_counts "$M" "$TMP/list1"
grep '^fsmsg_warnings_total' "$TMP/run1.prom" >"$TMP/a"
grep '^fsmsg_warnings_total' "$M" >"$TMP/b"
check "restart: no counter went back" cmp -s "$TMP/a" "$TMP/b"
script <<EOF
fs 254 16 ext4 vdb $U 0 3 0
fs 0 45 btrfs vdc - 12 0 1
event 1 0 45 13 0 dd
event 3 0 45 5 0 touch
EOF
fake "$FSMSG" -F -q --prometheus-textfile "$M" -t 0.3
cp "$M" "$TMP/run3.prom"
printf 'fs 254 16 ext4 vdb %s 0 3 0\nfs 0 45 btrfs vdc - 12 0 1\n' "$U" | script
fake "$FSMSG" -l -j
check "after the restart, new events: the counters equal the kernel's again" eval 'same_counts "$TMP/run3.prom" "$TMP/out" && [ "$(prom_value "$TMP/run3.prom" 0:45 enospc)" = 13 ] && [ "$(prom_value "$TMP/run3.prom" 0:45 inode-enospc)" = 5 ]'
unset FAKEGENL_STATE

# A burst: a hundred events, a few rewrites.
{
	echo "fs 254 16 ext4 vdb - 0 0 0"
	i=1
	while [ $i -le 100 ]; do echo "event 1 254 16 $i 0 burst"; i=$((i + 1)); done
} | script
rm -f "$TMP/renames"
fake "$FSMSG" -F -q --prometheus-textfile "$M" -t 2.5
writes=$(wc -l <"$TMP/renames")
check "100 events in a burst: all counted, $writes rewrites (start, at most one a second, exit)" eval '[ $rc -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 100 ] && [ "$(prom_value "$M" 254:16 enospc)" = 100 ] && [ "$writes" -ge 2 ] && [ "$writes" -le 4 ]'

# Warnings held back after the last message reach the file soon, while
# fsmsg runs: it re-reads the kernel's counters after activity.
script <<EOF
fs 254 16 ext4 vdb $U 0 3 0
event 2 254 16 4 0 a
held 2 254 16 6
EOF
fake_bg "$FSMSG" -F --prometheus-textfile "$M"
i=0
while [ "$(prom_value "$M" 254:16 meta-enospc)" != 6 ] && [ $i -lt 160 ]; do sleep 0.05; i=$((i + 1)); done
check "held-back warnings in the file within seconds, while running" eval '[ "$(prom_value "$M" 254:16 meta-enospc)" = 6 ] && kill -0 $pid'
kill -TERM "$pid"
reap "$pid"
check "...and not reported as missed" eval '[ $rc -eq 0 ] && ! grep -q missed "$TMP/err" && grep -qx "fsmsg_missed_warnings_total 0" "$M"'

# Write errors are said once and do not stop fsmsg.
script <<EOF
fs 254 16 ext4 vdb - 0 0 0
event 1 254 16 1 0 a
event 1 254 16 2 0 b
EOF
long=$TMP/prom/$(printf '%0245d' 0).prom
fake "$FSMSG" -F -q --prometheus-textfile "$long" -t 1.5
check "failing rewrites: said once, events still reported, exit 0" eval '[ $rc -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 2 ] && [ "$(grep -c "cannot create a temporary file: File name too long" "$TMP/err")" -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ]'
printf 'fs 254 16 ext4 vdb - 0 0 0\n' | script
mkdir -p "$TMP/gone"
fake_bg "$FSMSG" -F --prometheus-textfile "$TMP/gone/fsmsg.prom"
rm -rf "$TMP/gone"
kill -TERM "$pid"
reap "$pid"
check "folder removed while running: the last rewrite fails, said, exit 0" eval '[ $rc -eq 0 ] && grep -qx "fsmsg: metrics file $TMP/gone/fsmsg.prom: cannot create a temporary file: No such file or directory" "$TMP/err"'

script <<EOF
fs 254 16 ext4 vdb $U 0 3 0
fs 0 45 btrfs vdc - 12 0 1
event 2 254 16 4 0 a
event 1 0 45 13 0 b
EOF
fake "$FSMSG" -F -q -d 0:45 -w enospc --prometheus-textfile "$M" -t 0.3
check "filters apply to the metrics file" eval '[ "$(grep -c "^fsmsg_warnings_total" "$M")" -eq 1 ] && [ "$(prom_value "$M" 0:45 enospc)" = 13 ]'
fake "$FSMSG" -F -q --prometheus-textfile "$TMP/prom/fsmsg.txt" -t 0.2
check "a name without .prom: a note that node_exporter will not read it" eval '[ $rc -eq 0 ] && grep -q "only reads files whose name ends in .prom" "$TMP/err"'
unset FAKEGENL_RENAMES

# ---- forged messages: only the kernel's (port id 0) count ---------------
# Any process with CAP_NET_ADMIN can send to the group; these come from
# port id 4242 with nlmsg_pid 0, as a forger would set it.
script <<EOF
fs 254 16 ext4 vdb $U 0 3 0
event 2 254 16 4 0 alloc_test
forged 4242 2 254 16 100 0 evil
forged 4242 1 254 16 7 0 evil
event 2 254 16 5 0 alloc_test
EOF
fake "$FSMSG" -F -c 2 --prometheus-textfile "$M"
check "forged: not printed, no missed warnings, the kernel's two printed" eval '[ $rc -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 2 ] && ! grep -q evil "$TMP/out" && grep -q "(alloc_test), count 4$" "$TMP/out" && grep -q "(alloc_test), count 5$" "$TMP/out"'
check "forged: said at once with the port id, the rest at exit" eval 'is "$TMP/err" "fsmsg: listening: FS_MSG/events
fsmsg: ignored 1 message not sent by the kernel (port id 4242): only the kernel'"'"'s, from port id 0, are FS_MSG warnings
fsmsg: ignored 1 more message not sent by the kernel (the last from port id 4242), 2 in all"'
check "forged: fsmsg_rejected_messages_total 2, the counts the kernel's" eval 'grep -qx "fsmsg_rejected_messages_total 2" "$M" && grep -qx "fsmsg_missed_warnings_total 0" "$M" && [ "$(prom_value "$M" 254:16 meta-enospc)" = 5 ] && [ "$(prom_value "$M" 254:16 enospc)" = 0 ]'
fake "$FSMSG" -F -j -q -c 2
check "forged, JSON: two events, no missed line" eval '[ $rc -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 2 ] && ! grep -q "evil\|missed" "$TMP/out" && [ "$(grep -c "not sent by the kernel" "$TMP/err")" -eq 2 ]'

# A forged NLMSG_ERROR (and DONE) in the group: libnl would end the event
# loop with it (exit 2); it is dropped before libnl sees it.
script <<EOF
fs 254 16 ext4 vdb $U 0 3 0
event 2 254 16 4 0 alloc_test
forged-error 4242
event 2 254 16 5 0 alloc_test
EOF
fake "$FSMSG" -F -c 2 --prometheus-textfile "$M"
check "forged NLMSG_ERROR and DONE: ignored, fsmsg goes on to the next warning" eval '[ $rc -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 2 ] && grep -q "(alloc_test), count 5$" "$TMP/out" && grep -qx "fsmsg_rejected_messages_total 2" "$M" && ! grep -q "failed" "$TMP/err"'

# ---- the journal (fsmsg built with libsystemd; sd_journal_sendv faked) ------
if "$FSMSG" --help | grep -q 'not available: built without journal support'; then
	skip "journal entries" "fsmsg built without libsystemd (WITH_SYSTEMD=0)"
else
	J=$TMP/journal
	export FAKEGENL_JOURNAL="$J"
	script <<EOF
fs 254 16 ext4 vdb $U 0 3 0
fs 0 45 btrfs vdc - 12 0 1 4294967298
event 2 254 16 4 0 alloc_test
event 1 0 45 13 0 dd
event 2 254 16 9 2 alloc_test
EOF
	rm -f "$J"
	fake "$FSMSG" -F -j --journal --prometheus-textfile "$M" -t 0.5
	# Entries as the fake journal stores them: fields one a line, then an
	# empty line.
	entry() { printf '%s\n' "$@" ''; }
	ident='PRIORITY=%s
SYSLOG_FACILITY=3
SYSLOG_IDENTIFIER=fsmsg'
	# shellcheck disable=SC2059 # ident is the format
	{
		entry "MESSAGE=listening: FS_MSG/events" "$(printf "$ident" 6)"
		entry "MESSAGE=vdb (ext4, 254:16): no space left for metadata; alloc_test[4242] uid 0" \
			"MESSAGE_ID=5155047038ae484e943a282a1358d59a" "$(printf "$ident" 4)" \
			FSMSG_EVENT=warning FSMSG_WARNING=meta-enospc FSMSG_WARNING_ID=2 \
			FSMSG_SEVERITY=warning FSMSG_DEV=254:16 \
			FSMSG_MAJOR=254 FSMSG_MINOR=16 FSMSG_DEVICE=vdb FSMSG_FSTYPE=ext4 \
			"FSMSG_UUID=$U" FSMSG_SB_ID=1 FSMSG_UID=0 FSMSG_PID=4242 OBJECT_PID=4242 FSMSG_COMM=alloc_test \
			FSMSG_COUNT=4 FSMSG_SUPPRESSED=0 FSMSG_TIMESTAMP_NS=1796283771000000001
		entry "MESSAGE=vdc (btrfs, 0:45): no space left for data; dd[4242] uid 0" \
			"MESSAGE_ID=62dec85a94f54ce49a5392a28113e3d9" "$(printf "$ident" 4)" \
			FSMSG_EVENT=warning FSMSG_WARNING=enospc FSMSG_WARNING_ID=1 \
			FSMSG_SEVERITY=warning FSMSG_DEV=0:45 \
			FSMSG_MAJOR=0 FSMSG_MINOR=45 FSMSG_DEVICE=vdc FSMSG_FSTYPE=btrfs \
			FSMSG_SB_ID=4294967298 FSMSG_UID=0 FSMSG_PID=4242 OBJECT_PID=4242 FSMSG_COMM=dd \
			FSMSG_COUNT=13 FSMSG_SUPPRESSED=0 FSMSG_TIMESTAMP_NS=1796283771000000002
		entry "MESSAGE=vdb (ext4, 254:16): missed 2 meta-enospc warnings" \
			"MESSAGE_ID=aea531d5c4ed4dcebe99b078603528b5" "$(printf "$ident" 3)" \
			FSMSG_WARNING=meta-enospc FSMSG_WARNING_ID=2 FSMSG_DEV=254:16 \
			FSMSG_MAJOR=254 FSMSG_MINOR=16 FSMSG_DEVICE=vdb FSMSG_FSTYPE=ext4 \
			"FSMSG_UUID=$U" FSMSG_MISSED=2
		entry "MESSAGE=vdb (ext4, 254:16): no space left for metadata; alloc_test[4242] uid 0" \
			"MESSAGE_ID=5155047038ae484e943a282a1358d59a" "$(printf "$ident" 4)" \
			FSMSG_EVENT=warning FSMSG_WARNING=meta-enospc FSMSG_WARNING_ID=2 \
			FSMSG_SEVERITY=warning FSMSG_DEV=254:16 \
			FSMSG_MAJOR=254 FSMSG_MINOR=16 FSMSG_DEVICE=vdb FSMSG_FSTYPE=ext4 \
			"FSMSG_UUID=$U" FSMSG_SB_ID=1 FSMSG_UID=0 FSMSG_PID=4242 OBJECT_PID=4242 FSMSG_COMM=alloc_test \
			FSMSG_COUNT=9 FSMSG_SUPPRESSED=2 FSMSG_TIMESTAMP_NS=1796283771000000003
	} >"$TMP/want"
	check "--journal -F -j: listening, events and the missed report, every field" eval '[ $rc -eq 0 ] && cmp -s "$J" "$TMP/want" && [ "$(wc -l <"$TMP/out")" -eq 4 ] && grep -q "^fsmsg: listening" "$TMP/err"'
	cmp -s "$J" "$TMP/want" || diff "$TMP/want" "$J" | sed 's/^/#   /'

	rm -f "$J"
	fake "$FSMSG" -F -r --journal -c 3
	check "--journal -r: FSMSG_RECEIVED_NS after FSMSG_TIMESTAMP_NS in each event entry, MESSAGE without the delay" eval '[ $rc -eq 0 ] && [ "$(grep -A1 "^FSMSG_TIMESTAMP_NS=" "$J" | grep -c "^FSMSG_RECEIVED_NS=[0-9]*\$")" -eq 3 ] && [ "$(grep -c "^FSMSG_RECEIVED_NS=" "$J")" -eq 3 ] && ! grep -q "^MESSAGE=.* received" "$J" && [ "$(grep -c " received [+-]" "$TMP/out")" -eq 3 ]'

	rm -f "$J"
	fake "$FSMSG" --journal -p "$TMP/j.pid"
	dpid=$(cat "$TMP/j.pid" 2>/dev/null)
	i=0
	while [ "$(grep -c '^MESSAGE_ID=' "$J" 2>/dev/null)" != 4 ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	check "--journal as a daemon: returns once listening, entries in the journal, nothing on stdout" eval '[ $rc -eq 0 ] && [ -n "$dpid" ] && [ "$(grep -c "^MESSAGE_ID=" "$J")" -eq 4 ] && [ ! -s "$TMP/out" ]'
	[ -n "$dpid" ] && kill -TERM "$dpid"
	i=0
	while [ -n "$dpid" ] && kill -0 "$dpid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	check "--journal as a daemon: SIGTERM logged to the journal" eval '! kill -0 "$dpid" 2>/dev/null && grep -qx "MESSAGE=exiting on SIGTERM" "$J"'
	dpid=
	rm -f "$J"
	fake "$FSMSG" --journal -p "$TMP/j.pid"
	dpid=$(cat "$TMP/j.pid" 2>/dev/null)
	[ -n "$dpid" ] && kill -HUP "$dpid"
	i=0
	while [ -n "$dpid" ] && kill -0 "$dpid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	check "--journal as a daemon: SIGHUP ends it like SIGTERM, logged, pidfile removed" eval '[ -n "$dpid" ] && ! kill -0 "$dpid" 2>/dev/null && grep -qx "MESSAGE=exiting on SIGHUP" "$J" && [ ! -e "$TMP/j.pid" ]'
	dpid=

	FAKEGENL_JOURNAL_ERRNO=2 fake "$FSMSG" -F --journal
	check "no journal to log to: said on the terminal, exit 2" eval '[ $rc -eq 2 ] && is "$TMP/err" "fsmsg: cannot log to the systemd journal: No such file or directory"'
	FAKEGENL_JOURNAL_ERRNO=2 fake "$FSMSG" --journal -p "$TMP/j.pid"
	check "no journal, daemon mode: said on the terminal, exit 2, no pidfile left" eval '[ $rc -eq 2 ] && is "$TMP/err" "fsmsg: cannot log to the systemd journal: No such file or directory" && [ ! -e "$TMP/j.pid" ]'
	unset FAKEGENL_JOURNAL
fi

# ---- sd_notify(READY=1) (fsmsg built with libsystemd) ----------------------
# A stand-in for systemd: a unix datagram socket at NOTIFY_SOCKET that
# records each datagram, and whether fsmsg had said its readiness line
# (printed after the subscription to the events group and the seed dump)
# when it came. It stops once $TMP/notify.stop exists.
notify_listener() {
	python3 - "$TMP/notify.sock" "$TMP/err" "$TMP/notify" "$TMP/notify.stop" <<'PYEOF'
import os, socket, sys
path, err, out, stop = sys.argv[1:5]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
s.settimeout(0.1)
with open(out, "w") as f:
    open(out + ".bound", "w").close()  # bound: the shell may start fsmsg
    while True:
        try:
            msg = s.recv(4096).decode()
        except socket.timeout:
            if os.path.exists(stop):
                break
            continue
        try:
            with open(err) as e:
                said = "fsmsg: listening: FS_MSG/events" in e.read()
        except OSError:
            said = False
        f.write("%s %s\n" % (msg.replace("\n", "|"),
                             "after-listening" if said else "before-listening"))
        f.flush()
PYEOF
}
if "$FSMSG" --help | grep -q 'not available: built without journal support'; then
	skip "sd_notify: READY=1 once subscribed" "fsmsg built without libsystemd (WITH_SYSTEMD=0)"
	skip "sd_notify: a bad NOTIFY_SOCKET is said, not fatal" "fsmsg built without libsystemd (WITH_SYSTEMD=0)"
elif ! command -v python3 >/dev/null 2>&1; then
	skip "sd_notify: READY=1 once subscribed" "python3 not installed"
	skip "sd_notify: a bad NOTIFY_SOCKET is said, not fatal" "python3 not installed"
else
	script <<EOF
fs 254 16 ext4 vdb $U 0 3 0
event 2 254 16 4 0 alloc_test
EOF
	rm -f "$TMP/notify" "$TMP/notify.bound" "$TMP/notify.stop" "$TMP/notify.sock"
	notify_listener &
	npid=$!
	i=0
	while [ ! -e "$TMP/notify.bound" ] && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	NOTIFY_SOCKET=$TMP/notify.sock fake "$FSMSG" -F -j -c 1
	touch "$TMP/notify.stop"
	wait "$npid"
	check "sd_notify: READY=1 once, after the subscription and the seed dump" eval '[ $rc -eq 0 ] && [ -s "$TMP/out" ] && is "$TMP/notify" "READY=1 after-listening"'
	NOTIFY_SOCKET=$TMP/nonexistent.sock fake "$FSMSG" -F -j -c 1
	check "sd_notify: a bad NOTIFY_SOCKET is said, not fatal" eval '[ $rc -eq 0 ] && [ -s "$TMP/out" ] && grep -qx "fsmsg: cannot notify systemd of readiness: No such file or directory" "$TMP/err"'
fi

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

printf 'fs 254 16 ext4 vdb - 0 0 0\nheld 1 254 16 7\n' | script
rm -f "$M"
fake_bg "$FSMSG" -F -p "$TMP/hup.pid" --prometheus-textfile "$M"
check "SIGHUP: pidfile written before" eval '[ "$(cat "$TMP/hup.pid" 2>/dev/null)" = "$pid" ]'
kill -HUP "$pid"
reap "$pid"
check "SIGHUP: exit 0 (not 129), like SIGTERM" eval '[ $rc -eq 0 ]'
check "SIGHUP: pidfile removed" eval '[ ! -e "$TMP/hup.pid" ]'
check "SIGHUP: final metrics written (the kernel's count at exit)" eval '[ "$(prom_value "$M" 254:16 enospc)" = 7 ]'

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

# --rcvbuf: the event socket's receive buffer, forced when permitted.
# (libnl sets 32768 on every socket it connects: not fsmsg's.)
rcvbuf_log() { grep -v ' 32768$' "$TMP/rcvbuf"; }
printf 'fs 254 16 ext4 vdb - 0 0 0\n' | script
rm -f "$TMP/rcvbuf"
FAKEGENL_RCVBUF=$TMP/rcvbuf fake "$FSMSG" -F -q -t 0.2
check "receive buffer: 4 MiB by default, SO_RCVBUFFORCE" eval '[ $rc -eq 0 ] && [ "$(rcvbuf_log)" = "SO_RCVBUFFORCE 4194304" ]'
rm -f "$TMP/rcvbuf"
FAKEGENL_RCVBUF=$TMP/rcvbuf fake "$FSMSG" -F -q -t 0.2 --rcvbuf 16M
check "--rcvbuf 16M: SO_RCVBUFFORCE 16777216" eval '[ $rc -eq 0 ] && [ "$(rcvbuf_log)" = "SO_RCVBUFFORCE 16777216" ]'
rm -f "$TMP/rcvbuf"
FAKEGENL_RCVBUF=$TMP/rcvbuf FAKEGENL_DENY_RCVBUFFORCE=1 fake "$FSMSG" -F -q -t 0.2 --rcvbuf 256K
check "--rcvbuf 256K without CAP_NET_ADMIN: SO_RCVBUF after the refused FORCE, no complaint" eval '[ $rc -eq 0 ] && [ "$(rcvbuf_log)" = "SO_RCVBUFFORCE 262144
SO_RCVBUF 262144" ] && [ ! -s "$TMP/err" ]'

# One fsmsg per pidfile: the first one's lock keeps the second out.
printf 'fs 254 16 ext4 vdb - 0 0 0\n' | script
fake_bg "$FSMSG" -F -p "$TMP/lock.pid"
first=$pid
cp "$TMP/lock.pid" "$TMP/lock.before" 2>/dev/null
fake "$FSMSG" -F -p "$TMP/lock.pid"
check "second fsmsg on a locked pidfile: exit 2, one line naming the file and the pid" eval '[ $rc -eq 2 ] && is "$TMP/err" "fsmsg: pidfile $TMP/lock.pid is locked: fsmsg already runs as pid $first" && [ ! -s "$TMP/out" ]'
check "...the pidfile untouched, the first fsmsg still running" eval 'cmp -s "$TMP/lock.pid" "$TMP/lock.before" && [ "$(cat "$TMP/lock.pid")" = "$first" ] && kill -0 "$first"'
fake "$FSMSG" -p "$TMP/lock.pid"
check "second fsmsg as a daemon: exit 2, said on the terminal, pidfile untouched" eval '[ $rc -eq 2 ] && is "$TMP/err" "fsmsg: pidfile $TMP/lock.pid is locked: fsmsg already runs as pid $first" && [ "$(cat "$TMP/lock.pid")" = "$first" ] && kill -0 "$first"'
kill -TERM "$first"
reap "$first"
check "...the first one ends normally and removes it" eval '[ $rc -eq 0 ] && [ ! -e "$TMP/lock.pid" ]'
printf '999999\n' >"$TMP/lock.pid"
fake "$FSMSG" -F -p "$TMP/lock.pid" -t 0.2
check "a stale pidfile (no lock) is taken over, then removed" eval '[ $rc -eq 0 ] && [ ! -e "$TMP/lock.pid" ]'
fake_bg "$FSMSG" -p "$TMP/lock.pid"
dpid=$(cat "$TMP/lock.pid" 2>/dev/null)
fake "$FSMSG" -F -p "$TMP/lock.pid"
check "the daemon keeps the lock after its fork" eval '[ -n "$dpid" ] && [ $rc -eq 2 ] && is "$TMP/err" "fsmsg: pidfile $TMP/lock.pid is locked: fsmsg already runs as pid $dpid"'
[ -n "$dpid" ] && kill -TERM "$dpid"
i=0
while [ -n "$dpid" ] && kill -0 "$dpid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
wait
dpid=

fake "$FSMSG" -F -p /nonexistent/dir/x.pid
check "unwritable pidfile: exit 2" eval '[ $rc -eq 2 ] && grep -q "^fsmsg: cannot write pidfile /nonexistent/dir/x.pid: No such file or directory$" "$TMP/err"'

# ---- summaries, labels, severity -----------------------------------------
# Three warnings held back, then the summary that reports them, then a
# warning again: nothing missed, the counters equal the kernel's.
script <<EOF
fs 254 16 ext4 vdb $U 0 3 0 5 scratch
fs 0 45 btrfs vdc - 12 0 1
event 2 254 16 4 0 a
held 2 254 16 5
held 2 254 16 6
held 2 254 16 7
summary 2 254 16 7 3
event 2 254 16 8 0 b
EOF
fake "$FSMSG" -F -t 0.5 --prometheus-textfile "$M"
check "summary, text: the held-back warnings in a line of its own, the label after the sb id" eval '[ $rc -eq 0 ] && is "$TMP/out" "${T}1Z 254:16 ext4 vdb uuid $U sb 5 label scratch mnt -: warning: no space left for metadata, uid 0, pid 4242 (a), count 4
2026-12-03T07:42:51.000000504Z 254:16 ext4 vdb uuid $U sb 5 label scratch mnt -: warning: no space left for metadata, 3 warnings held back by rate limiting (count 7)
${T}5Z 254:16 ext4 vdb uuid $U sb 5 label scratch mnt -: warning: no space left for metadata, uid 0, pid 4242 (b), count 8"'
check "summary: nothing reported missed" eval 'is "$TMP/err" "fsmsg: listening: FS_MSG/events"'
check "summary: the metrics counter equals the kernel's (8)" eval '[ "$(prom_value "$M" 254:16 meta-enospc)" = 8 ]'
fake "$FSMSG" -F -j -q -t 0.5
check "summary, JSON: event summary, label, no task" eval '[ $rc -eq 0 ] && [ "$(grep -c "\"event\":\"summary\"" "$TMP/out")" -eq 1 ] && grep "\"event\":\"summary\"" "$TMP/out" | grep -q "\"label\":\"scratch\",\"mountpoints\":null,\"sb_id\":5,\"uid\":null,\"pid\":null,\"comm\":null,\"count\":7,\"suppressed\":3,\"errno\":null,\"errno_name\":null,\"function\":null,\"line\":null,\"inode\":null,\"block\":null,\"reason\":null,\"reason_id\":null,\"fs_flags\":null,\"offset\":null,\"length\":null}\$" && [ "$(grep -c "\"event\":\"warning\"" "$TMP/out")" -eq 2 ]'
# The guest's sum: 1 + suppressed per warning, suppressed per summary.
sum=$(awk '/"event":"summary"/ { split($0, a, "\"suppressed\":"); s += a[2] + 0; next } /"event":"warning"/ { split($0, a, "\"suppressed\":"); s += 1 + a[2] } END { print s + 0 }' "$TMP/out")
check "summary, JSON: warnings + suppressed + summaries' suppressed = the count's growth (5)" [ "$sum" = 5 ]
fake "$FSMSG" -l
check "--list: the label column" eval '[ $rc -eq 0 ] && grep -q "^vdb     254:16   ext4    $U  5      scratch " "$TMP/out"'
fake "$FSMSG" -l -j -d 254:16
check "--list --json: label and sb_id" eval '[ $rc -eq 0 ] && grep -q "^{\"event\":\"filesystem\",.*\"uuid\":\"$U\",\"label\":\"scratch\",\"mountpoints\":null,\"sb_id\":5,\"counters\"" "$TMP/out"'
script <<EOF
fs 254 16 ext4 vdb $U 0 3 0
severity none
event 2 254 16 4 0 old
severity 3
event 2 254 16 5 0 new
EOF
fake "$FSMSG" -F -j -q -t 0.5
check "no SEVERITY (an older kernel): warning; SEVERITY 3: error" eval '[ "$(grep -c "\"severity\":\"warning\",\"severity_id\":2," "$TMP/out")" -eq 1 ] && grep "\"comm\":\"new\"" "$TMP/out" | grep -q "\"severity\":\"error\",\"severity_id\":3,"'

# ---- kernel-side filters (FS_MSG_CMD_NOTIFY_FILTER_SET) --------------------
F=$TMP/filters
export FAKEGENL_FILTERS="$F"
script <<EOF
fs 254 16 ext4 vdb $U 0 3 0
fs 0 45 btrfs vdc - 12 0 1
event 2 254 16 4 0 a
event 1 0 45 13 0 b
EOF
# kfilter OPTIONS...: the filter the fake kernel received, "" if none
kfilter() { rm -f "$F"; fake "$FSMSG" -F -q -t 0.3 "$@"; cat "$F" 2>/dev/null; }
check "no filter option: no filter sent" eval '[ -z "$(kfilter)" ] && [ "$(wc -l <"$TMP/out")" -eq 2 ]'
check "-d 0:45: dev, on the socket that joined" eval '[ "$(kfilter -d 0:45)" = "member dev=0:45" ] && [ "$(wc -l <"$TMP/out")" -eq 1 ]'
check "-d twice: two dev nests" eval '[ "$(kfilter -d 0:45 -d 254:16)" = "member dev=0:45 dev=254:16" ] && [ "$(wc -l <"$TMP/out")" -eq 2 ]'
check "-T ext4 -T xfs -w meta-enospc -w 3: every value, in order" eval '[ "$(kfilter -T ext4 -T xfs -w meta-enospc -w 3)" = "member fstype=ext4 fstype=xfs warning=2 warning=3" ] && [ "$(wc -l <"$TMP/out")" -eq 1 ]'
check "-u UUID --severity error: uuid (16 bytes) and severity 3; the kernel drops the warnings" eval '[ "$(kfilter -u $U --severity error)" = "member uuid=0c5f3a9e12344bcd8ef00123456789ab severity=3" ] && [ ! -s "$TMP/out" ]'
check "--severity 1: severity alone" eval '[ "$(kfilter --severity 1)" = "member severity=1" ] && [ "$(wc -l <"$TMP/out")" -eq 2 ]'
check "-d, -T, -u, -w and --severity together" eval '[ "$(kfilter -d 254:16 -T ext4 -u $U -w 2 --severity warning)" = "member dev=254:16 fstype=ext4 uuid=0c5f3a9e12344bcd8ef00123456789ab warning=2 severity=2" ] && [ "$(wc -l <"$TMP/out")" -eq 1 ]'
MANY=
for t in a b c d e f g h i j k l m n o p q; do MANY="$MANY -T t$t"; done
# shellcheck disable=SC2086 # MANY is a word list
check "17 -T values: more than the kernel takes, the key left to fsmsg" eval '[ "$(kfilter $MANY -w 1)" = "member warning=1" ] && [ ! -s "$TMP/out" ]'
check "-w 7 (newer than this fsmsg): the warning key left to fsmsg" eval '[ "$(kfilter -w 7 -T ext4)" = "member fstype=ext4" ] && [ $rc -eq 0 ] && [ ! -s "$TMP/out" ]'
check "-T of 32 characters (longer than the kernel takes): the key left to fsmsg" eval '[ "$(kfilter -T abcdefghijklmnopqrstuvwxyz012345 -T ext4 -w 2)" = "member warning=2" ] && [ $rc -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 1 ] && grep -q " ext4 " "$TMP/out"'
check "-T of 31 characters: sent" eval '[ "$(kfilter -T abcdefghijklmnopqrstuvwxyz01234)" = "member fstype=abcdefghijklmnopqrstuvwxyz01234" ]'
script <<EOF
filter-unsupported
fs 254 16 ext4 vdb $U 0 3 0
fs 0 45 btrfs vdc - 12 0 1
event 2 254 16 4 0 a
event 1 0 45 13 0 b
EOF
rm -f "$F"
fake "$FSMSG" -F -t 0.3 -T btrfs
check "an older kernel (EOPNOTSUPP): fsmsg filters alone, silently" eval '[ $rc -eq 0 ] && [ ! -e "$F" ] && [ "$(wc -l <"$TMP/out")" -eq 1 ] && grep -q " 0:45 btrfs vdc " "$TMP/out" && is "$TMP/err" "fsmsg: listening: FS_MSG/events"'
script <<EOF
filter-error
fs 254 16 ext4 vdb $U 0 3 0
event 2 254 16 4 0 a
EOF
fake "$FSMSG" -F -t 0.3 -T ext4
check "filter refused: the extack message, exit 2" eval '[ $rc -eq 2 ] && [ ! -s "$TMP/out" ] && is "$TMP/err" "fsmsg: the kernel refused the message filter: fake: filter refused (Invalid input data or parameter)"'
fake "$FSMSG" -F -t 0.3
check "filter-error kernel, no filter option: nothing sent, runs" eval '[ $rc -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 1 ]'
script <<EOF
filter-deny
fs 254 16 ext4 vdb $U 0 3 0
EOF
fake "$FSMSG" -F -t 0.3 -w enospc
check "filter not permitted: CAP_SYS_ADMIN, exit 2" eval '[ $rc -eq 2 ] && is "$TMP/err" "fsmsg: setting the kernel'"'"'s message filter needs CAP_SYS_ADMIN (run fsmsg as root)"'
unset FAKEGENL_FILTERS

# ---- mount points (a fake mountinfo) ---------------------------------------
# 254:16 mounted on /srv and bound on "/mnt/a b" (mount ids out of order in
# the file), btrfs's anonymous 0:45 on /data, 254:32 nowhere to be seen.
MI=$TMP/mountinfo
printf '%s\n' '61 29 254:16 /sub /mnt/a\040b rw - ext4 /dev/vdb rw' \
	'30 29 254:16 / /srv rw,relatime shared:1 - ext4 /dev/vdb rw' \
	'41 29 0:45 /@ /data rw - btrfs /dev/vdc rw' >"$MI"
script <<EOF
fs 254 16 ext4 vdb $U 0 3 0
fs 0 45 btrfs vdc - 12 0 1 4294967298
fs 254 32 xfs vdd $U 0 0 7
event 2 254 16 4 0 alloc_test
event 1 0 45 13 0 dd
event 3 254 32 8 0 touch
EOF
FSMSG_MOUNTINFO=$MI fake "$FSMSG" -F -c 3
check "mount points, text: ' mnt /srv +1', ' mnt /data', ' mnt -' for none" eval '[ $rc -eq 0 ] && is "$TMP/out" "${T}1Z 254:16 ext4 vdb uuid $U sb 1 mnt /srv +1: warning: no space left for metadata, uid 0, pid 4242 (alloc_test), count 4
${T}2Z 0:45 btrfs vdc uuid - sb 4294967298 mnt /data: warning: no space left for data, uid 0, pid 4242 (dd), count 13
${T}3Z 254:32 xfs vdd uuid $U sb 3 mnt -: warning: no free inodes, uid 0, pid 4242 (touch), count 8"'
FSMSG_MOUNTINFO=$MI fake "$FSMSG" -F -j -c 3
check "mount points, JSON: every one by mount id, null for none" eval '[ $rc -eq 0 ] && [ "$(grep -c "\"label\":null,\"mountpoints\":\[\"/srv\",\"/mnt/a b\"\],\"sb_id\":1," "$TMP/out")" -eq 1 ] && grep -q "\"dev\":\"0:45\",.*,\"mountpoints\":\[\"/data\"\]," "$TMP/out" && grep -q "\"dev\":\"254:32\",.*,\"mountpoints\":null," "$TMP/out"'
if command -v jq >/dev/null 2>&1; then
	jq -c '.mountpoints' "$TMP/out" >"$TMP/jq" 2>&1
	check "jq, mount points: arrays and null" eval 'is "$TMP/jq" "[\"/srv\",\"/mnt/a b\"]
[\"/data\"]
null"'
fi
FSMSG_MOUNTINFO=$MI fake "$FSMSG" --list -w enospc
check "mount points, --list: the MOUNTPOINT column last" eval '[ $rc -eq 0 ] && is "$TMP/out" "DEVICE  MAJ:MIN  FSTYPE  UUID                                  SB_ID       LABEL  ENOSPC  MOUNTPOINT
vdc     0:45     btrfs   -                                     4294967298  -          12  /data
vdb     254:16   ext4    $U  1           -           0  /srv +1
vdd     254:32   xfs     $U  3           -           0  -"'
FSMSG_MOUNTINFO=$MI fake "$FSMSG" --list --json -w enospc
check "mount points, --list --json: arrays and null" eval '[ $rc -eq 0 ] && grep -q "\"dev\":\"254:16\",.*\"mountpoints\":\[\"/srv\",\"/mnt/a b\"\]," "$TMP/out" && grep -q "\"dev\":\"254:32\",.*\"mountpoints\":null," "$TMP/out"'
rm -f "$M"
FSMSG_MOUNTINFO=$MI fake "$FSMSG" -F -c 3 --prometheus-textfile "$M"
grep '^fsmsg_filesystem_info' "$M" >"$TMP/info" 2>/dev/null
check "mount points, metrics: one info series per mount point, device as node_exporter has it" eval '[ $rc -eq 0 ] && is "$TMP/info" "fsmsg_filesystem_info{dev=\"0:45\",device=\"/dev/vdc\",fstype=\"btrfs\",uuid=\"\",mountpoint=\"/data\"} 1
fsmsg_filesystem_info{dev=\"254:16\",device=\"/dev/vdb\",fstype=\"ext4\",uuid=\"$U\",mountpoint=\"/srv\"} 1
fsmsg_filesystem_info{dev=\"254:16\",device=\"/dev/vdb\",fstype=\"ext4\",uuid=\"$U\",mountpoint=\"/mnt/a b\"} 1"'
promtool_check "$M" "mount points, metrics"
# No mountinfo at all (a chroot without /proc): nothing known, nothing wrong.
FSMSG_MOUNTINFO=$TMP/no-such-mountinfo fake "$FSMSG" -F -c 3
check "mount points, no mountinfo: ' mnt -' everywhere, no error" eval '[ $rc -eq 0 ] && [ "$(grep -c " mnt -: " "$TMP/out")" -eq 3 ] && ! grep -v "^fsmsg: listening" "$TMP/err" | grep -q .'
if ! "$FSMSG" --help | grep -q 'not available: built without journal support'; then
	rm -f "$TMP/mi.journal"
	FAKEGENL_JOURNAL=$TMP/mi.journal FSMSG_MOUNTINFO=$MI fake "$FSMSG" -F --journal -c 3
	check "mount points, journal: MESSAGE starts with the first, FSMSG_MOUNTPOINT for each" eval '[ $rc -eq 0 ] && grep -qx "MESSAGE=/srv (vdb, ext4, 254:16): no space left for metadata; alloc_test\[4242\] uid 0" "$TMP/mi.journal" && [ "$(grep -c "^FSMSG_MOUNTPOINT=" "$TMP/mi.journal")" -eq 3 ] && grep -qx "FSMSG_MOUNTPOINT=/mnt/a b" "$TMP/mi.journal" && grep -qx "MESSAGE=vdd (xfs, 254:32): no free inodes; touch\[4242\] uid 0" "$TMP/mi.journal"'
fi

# Missed reports name the mount points as events do: a gap on 254:16
# (/srv +1), then an overrun whose resync finds 0:45's loss (/data).
script <<EOF
fs 254 16 ext4 vdb $U 0 3 0
fs 0 45 btrfs vdc - 12 0 1
event 2 254 16 4 0 a
event 2 254 16 7 0 b
lost 1 0 45 13
lost 1 0 45 14
overrun
EOF
FSMSG_MOUNTINFO=$MI fake "$FSMSG" -F -q -t 0.5
check "mount points, missed text: ' mnt /srv +1' and ' mnt /data' last" eval '[ $rc -eq 0 ] && is "$TMP/err" "fsmsg: missed 2 meta-enospc warnings on ext4 vdb (254:16) mnt /srv +1
fsmsg: overrun: events were dropped because the socket receive buffer was full; counting the missed warnings from the kernel'"'"'s counters
fsmsg: missed 2 enospc warnings on btrfs vdc (0:45) mnt /data"'
FSMSG_MOUNTINFO=$MI fake "$FSMSG" -F -j -q -t 0.5
masked "$TMP/out" | grep '"event":"missed"' >"$TMP/masked"
check "mount points, missed JSON: every one, after the uuid" eval '[ $rc -eq 0 ] && is "$TMP/masked" "{\"time\":\"T\",\"event\":\"missed\",\"dev\":\"254:16\",\"fstype\":\"ext4\",\"device\":\"vdb\",\"uuid\":\"$U\",\"mountpoints\":[\"/srv\",\"/mnt/a b\"],\"warning\":\"meta-enospc\",\"missed\":2}
{\"time\":\"T\",\"event\":\"missed\",\"dev\":\"0:45\",\"fstype\":\"btrfs\",\"device\":\"vdc\",\"uuid\":null,\"mountpoints\":[\"/data\"],\"warning\":\"enospc\",\"missed\":2}"'
if ! "$FSMSG" --help | grep -q 'not available: built without journal support'; then
	rm -f "$TMP/mi.journal"
	FAKEGENL_JOURNAL=$TMP/mi.journal FSMSG_MOUNTINFO=$MI fake "$FSMSG" -F -q --journal -t 0.5
	check "mount points, missed journal: MESSAGE starts with the first, FSMSG_MOUNTPOINT for each" eval '[ $rc -eq 0 ] && grep -qx "MESSAGE=/srv (vdb, ext4, 254:16): missed 2 meta-enospc warnings" "$TMP/mi.journal" && grep -qx "MESSAGE=/data (vdc, btrfs, 0:45): missed 2 enospc warnings" "$TMP/mi.journal" && [ "$(sed -n "/^MESSAGE=\/srv (vdb, ext4, 254:16): missed/,/^FSMSG_MISSED=/p" "$TMP/mi.journal" | grep -c "^FSMSG_MOUNTPOINT=")" -eq 2 ]'
fi

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
	if "$FSMSG" --help | grep -q 'not available: built without journal support'; then
		JOPT=
	else
		JOPT=--journal
	fi
	# shellcheck disable=SC2086 # VG and JOPT are word lists
	FAKEGENL_JOURNAL=$TMP/vg.journal fake $VG "$FSMSG" -F -j -r $JOPT --prometheus-textfile "$M" -t 3
	check "valgrind: metrics file (rewrites, refresh after activity) ${JOPT:+and journal }with --receive-time clean" eval '[ $rc -eq 0 ] && grep -q "^fsmsg_overruns_total 1\$" "$M" && grep -q "\"received_ns\":\"[0-9]*\"}\$" "$TMP/out"'
	# shellcheck disable=SC2086
	fake $VG "$FSMSG" -l -T btrfs
	check "valgrind: --list clean" eval '[ $rc -eq 0 ] && grep -q "^vdc " "$TMP/out"'
	script <<EOF
fs 254 16 ext4 vdb $U 0 3 0 5 scratch
event 2 254 16 4 0 a
held 2 254 16 5
summary 2 254 16 5 1
event 2 254 16 6 0 b
EOF
	# shellcheck disable=SC2086
	FAKEGENL_FILTERS=$TMP/vg.filters fake $VG "$FSMSG" -F -j -d 254:16 -T ext4 -u "$U" -w 2 --severity warning -t 0.5
	check "valgrind: kernel filter, summary, label: clean" eval '[ $rc -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 3 ] && grep -q "\"event\":\"summary\"" "$TMP/out" && [ -s "$TMP/vg.filters" ]'
	script <<EOF
filter-error
fs 254 16 ext4 vdb $U 0 3 0
EOF
	# shellcheck disable=SC2086
	fake $VG "$FSMSG" -F -T ext4 -t 0.5
	check "valgrind: filter refused with an extack, exit 2: clean" eval '[ $rc -eq 2 ] && grep -q "fake: filter refused" "$TMP/err"'
else
	n=$((n + 1))
	echo "ok $n - valgrind runs # SKIP valgrind not installed"
fi

echo "1..$n"
echo "# $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
