# Hardening: hostile listeners, malformed requests, races with unmount.
# Under the debug kernel (make check-debug) lockdep, KASAN, UBSAN and
# kmemleak watch all of it; the host fails the run on any report.

# fill_for_flood NAME: fill /mnt/NAME with data and leave it full, with an
# empty work folder made beforehand for alloc_test's flood files
fill_for_flood() {
	mkdir "/mnt/$1/case.work" || fail "cannot make /mnt/$1/case.work"
	fill_up "$1"
}

# flood NAME THREADS OPS: failing writes on a full /mnt/NAME; prints the
# report line
flood() {
	alloc_test "/mnt/$1" --mode flood --no-fill --flood-op write \
		--threads "$2" --ops "$3" --workdir-name case.work
}

# A root listener that never reads must not stall the filesystem: the
# kernel drops its messages (an overrun it can see) instead of waiting, and
# a listener that reads still gets every message.
t_hostile_sleeper() {
	local out1 out2 n1 n2 got
	ratelimit 0
	fill_for_flood ext4
	fsmsg_start --json -d /mnt/ext4

	out1=$(flood ext4 2 200) || fail "flood without the sleeper: $out1"
	note "without: $out1"

	: > /tmp/probe.out
	: > /tmp/probe.err
	fsmsg_probe sleep >> /tmp/probe.out 2>> /tmp/probe.err &
	probe=$!
	probe_started
	out2=$(timeout 300 alloc_test /mnt/ext4 --mode flood --no-fill \
		--flood-op write --threads 2 --ops 200 --workdir-name case.work) ||
		fail "flood with the sleeper did not finish: $out2"
	note "with a listener that never reads: $out2"
	kill -TERM "$probe"
	wait "$probe"
	note "sleeper: $(cat /tmp/probe.out)"
	expect_eq "$(cat /tmp/probe.out)" "overrun: yes" "the sleeper's socket"

	n1=$(report enospc "$out1")
	n2=$(report enospc "$out2")
	expect_eq "$n1" 400 "failed writes without the sleeper"
	expect_eq "$n2" 400 "failed writes with the sleeper"
	fsmsg_wait_lines $((n1 + n2))
	fsmsg_stop
	got=$(lines "$FSMSG_OUT")
	expect_eq "$got" $((n1 + n2)) "messages the reading listener got"
	note "ENOSPC path: $(report ops_per_sec "$out1") ops/s without, $(report ops_per_sec "$out2") ops/s with the sleeper (a figure, not a check: see make bench)"
}
case_add t_hostile_sleeper "hostile: a root listener that never reads overruns, and neither stalls the filesystem nor starves other listeners"

# 64 listeners at once each receive every message.
t_hostile_64() {
	local out
	ratelimit 0
	fill_for_flood ext4
	: > /tmp/probe.out
	: > /tmp/probe.err
	fsmsg_probe listen 64 200 120 >> /tmp/probe.out 2>> /tmp/probe.err &
	probe=$!
	probe_started
	out=$(flood ext4 2 100) || fail "flood: $out"
	expect_eq "$(report enospc "$out")" 200 "failed writes"
	wait "$probe"
	rc=$?
	sed 's/^/# /' /tmp/probe.out
	expect_eq "$rc" 0 "fsmsg_probe listen 64 200"
}
case_add t_hostile_64 "hostile: 64 listeners at once each receive all 200 messages"

# request CASE: "ERRNO EXTACK" of a crafted FS_GET request, or "ok N"
request() {
	fsmsg_probe request "$1" || fail "fsmsg_probe request $1 failed"
}

# expect_error CASE ERRNO [any]: the request fails with ERRNO and, unless
# "any", explains why.  genetlink itself refuses unknown commands and
# missing handlers with a bare EOPNOTSUPP: the family never sees those.
expect_error() {
	local out
	out=$(request "$1")
	note "$1: $out"
	case $out in
	"error $2 "*": -")	[ "${3:-}" = any ] || fail "$1: no extack message" ;;
	"error $2 "*)		;;
	*)			fail "$1: expected errno $2, got '$out'" ;;
	esac
}

t_bad_requests() {
	local n name disks=0
	n=$(echo $IMAGES | wc -w)
	# btrfs reports an anonymous device (major 0), the others their disk
	for name in $IMAGES; do
		[ "$(img_var "$name" FSTYPE)" = btrfs ] || disks=$((disks + 1))
	done
	expect_eq "$(request plain)" "ok $n" "a well-formed dump"
	expect_eq "$(request filter)" "ok $disks" "a dump of major 254 (all but btrfs)"
	expect_error unknown-attr 22
	expect_error event-attr 22
	expect_error short-u32 22
	expect_error long-fstype 22
	expect_error unterminated-fstype 22
	expect_error unknown-cmd 95 any
	expect_error warning-cmd 95 any
	expect_error doit 95 any
	out=$(as_nobody fsmsg_probe request plain)
	note "non-root: $out"
	case $out in
	"error 1 "*CAP_SYS_ADMIN*) ;;
	*) fail "non-root dump: expected EPERM with an explanation, got '$out'" ;;
	esac
	# Nothing broke: the dump still works.
	expect_eq "$(request plain)" "ok $n" "a well-formed dump afterwards"
}
case_add t_bad_requests "hostile: malformed dump requests get errno and extack replies, non-root gets EPERM"

# remount NAME: unmount and mount an image again
remount() {
	umount "/mnt/$1" || fail "umount /mnt/$1"
	mount_img "$1" || fail "mount /mnt/$1"
}

# Unmount and mount other filesystems while a flood runs against ext4,
# with listeners connected and dumps running.
t_race_umount_flood() {
	local i out before after sum
	fill_for_flood ext4
	before=$(counter ext4 enospc)
	fsmsg_start --json -d /mnt/ext4
	: > /tmp/probe.out
	: > /tmp/probe.err
	fsmsg_probe sleep >> /tmp/probe.out 2>> /tmp/probe.err &
	probe=$!
	alloc_test /mnt/ext4 --mode flood --no-fill --flood-op write --threads 2 \
		--seconds 15 --workdir-name case.work > /tmp/flood.out &
	flooder=$!
	# At least 20 rounds, and for as long as the flood runs.
	i=0
	while [ "$i" -lt 20 ] || kill -0 "$flooder" 2> /dev/null; do
		remount xfs
		remount btrfs
		remount ext4i
		fsmsg --list > /dev/null || fail "fsmsg --list failed during the race"
		i=$((i + 1))
	done
	note "$i rounds of unmounting and mounting during the flood"
	wait "$flooder" || fail "flood: $(cat /tmp/flood.out)"
	out=$(cat /tmp/flood.out)
	note "$out"
	# The summary after the last window reports what it held back; one
	# more warning after that is a message of its own.
	sleep 2
	alloc_test /mnt/ext4 --mode buffered --max-ops 1 --workdir-name case.work \
		> /dev/null
	after=$(counter ext4 enospc)
	expect_eq "$((after - before))" "$(($(report enospc "$out") + 1))" \
		"kernel counter delta"
	fsmsg_wait_lines 1
	usleep 500000
	fsmsg_stop
	kill -TERM "$probe"
	wait "$probe"
	# A warning accounts for itself and those held back before it, a
	# summary (sent when a window closed on held-back warnings) for those.
	sum=$(awk -F'"suppressed":' '{ split($2, a, /[,}]/); s += a[1]
		if ($0 !~ /"event":"summary"/) s += 1 } END { print s + 0 }' "$FSMSG_OUT")
	expect_eq "$sum" "$((after - before))" "messages + suppressed"
}
case_add t_race_umount_flood "race: other filesystems unmounted and mounted throughout a 15 s flood, with listeners and dumps"

# Mount, fill, unmount: 102 rounds across ext4, XFS and btrfs, with
# events flowing; every round's warnings arrive, for the right device.
t_race_cycles() {
	local round name dev out events=0 failures=0
	ratelimit 0
	fsmsg_start --json
	round=0
	while [ "$round" -lt 34 ]; do
		for name in ext4 xfs btrfs; do
			remount "$name"
			dev=$(sb_dev "$name")
			out=$(alloc_test "/mnt/$name" --mode fallocate -b 16M) ||
				fail "round $round $name: $out"
			failures=$((failures + $(report enospc "$out")))
			fsmsg_wait_lines "$failures"
			expect_eq "$(json_str dev "$(tail -1 "$FSMSG_OUT")")" "$dev" \
				"round $round $name: device of the last event"
		done
		round=$((round + 1))
	done
	fsmsg_stop
	events=$(lines "$FSMSG_OUT")
	note "$round rounds per filesystem, $failures failed fallocates, $events events"
	expect_eq "$events" "$failures" "events for all rounds"
}
case_add t_race_cycles "race: 102 mount/fill/unmount rounds across ext4, XFS and btrfs with events flowing"
