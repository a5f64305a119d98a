# Interest registered in the kernel, an identity that survives remounts,
# and held-back warnings reported without polling (LSFMM 2017's list).
#
# fsmsg_probe watch is a raw listener that filters nothing itself: what it
# prints is what the kernel sent to its socket.

# watch_start NAME SECS [KEY=VALUE...]: fsmsg_probe watch in the background,
# its lines in /tmp/NAME.out; waits until its filter is set and it listens
watch_start() {
	local name=$1
	shift
	# Emptied first: the redirection happens in the child (listener_start).
	: > "/tmp/$name.out"
	: > "/tmp/$name.err"
	fsmsg_probe watch "$@" >> "/tmp/$name.out" 2>> "/tmp/$name.err" &
	echo $! > "/tmp/$name.pid"
	if ! wait_for 20 grep -q listening "/tmp/$name.err"; then
		sed 's/^/# fsmsg_probe: /' "/tmp/$name.err"
		fail "fsmsg_probe watch ($name) did not start"
	fi
}

watch_stop() {
	kill -TERM "$(cat "/tmp/$1.pid")"
	wait "$(cat "/tmp/$1.pid")"
}

# field KEY LINE: a key=value field of a fsmsg_probe watch line
field() {
	printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

# sb_id NAME: the superblock id of /mnt/NAME, from the dump
sb_id() {
	fsmsg --list --json -d "/mnt/$1" | sed -n 's/.*"sb_id":\([0-9]*\).*/\1/p'
}

# fail_writes NAME N: N writes that fail with ENOSPC on a full /mnt/NAME
# (its folder case.fail made before it filled up)
fail_writes() {
	local out
	out=$(alloc_test "/mnt/$1" --mode flood --no-fill --flood-op write \
		--ops "$2" --workdir-name case.fail 2>&1)
	[ "$(report enospc "$out")" = "$2" ] ||
		fail "$1: expected $2 failing writes: $out"
}

# fs_total NAME: the kernel's count of all warning types on /mnt/NAME
fs_total() {
	fsmsg --list --json -d "/mnt/$1" |
		awk -F'"count":' '{ for (i = 2; i <= NF; i++) s += $i + 0 } END { print s + 0 }'
}

# Two listeners with different kernel filters while ext4 and XFS fail:
# each receives exactly its own filesystem's messages, as many as the
# kernel counted.
t_filter_two_listeners() {
	local e0 x0 e x
	ratelimit 0
	mkdir -p /mnt/ext4/case.fail /mnt/xfs/case.fail
	fill_up ext4
	fill_up xfs
	e0=$(fs_total ext4)
	x0=$(fs_total xfs)
	watch_start w_ext4 900 "dev=$(sb_dev ext4)"
	watch_start w_xfs 900 fstype=xfs
	watch_start w_all 900
	fail_writes ext4 3
	# A full XFS cannot even create the flood's file: whatever fails counts.
	alloc_test /mnt/xfs --mode buffered --after-full 2 --workdir-name case.fail \
		> /dev/null 2>&1
	e=$(($(fs_total ext4) - e0))
	x=$(($(fs_total xfs) - x0))
	[ "$x" -ge 1 ] || fail "XFS counted no warning"
	wait_for 10 has_lines /tmp/w_all.out $((e + x)) ||
		fail "the unfiltered listener got $(lines /tmp/w_all.out) messages, expected $((e + x))"
	usleep 300000
	watch_stop w_ext4
	watch_stop w_xfs
	watch_stop w_all
	sed 's/^/# ext4 filter: /' /tmp/w_ext4.out
	sed 's/^/# xfs filter: /' /tmp/w_xfs.out
	expect_eq "$e" 3 "ext4 warnings counted"
	expect_eq "$(lines /tmp/w_ext4.out)" 3 "messages through the ext4 device filter"
	expect_eq "$(grep -c "dev=$(sb_dev ext4) .*fstype=ext4" /tmp/w_ext4.out)" 3 \
		"ext4 messages through the ext4 device filter"
	expect_eq "$(lines /tmp/w_xfs.out)" "$x" "messages through the xfs type filter"
	expect_eq "$(grep -c "fstype=xfs" /tmp/w_xfs.out)" "$x" \
		"xfs messages through the xfs type filter"
	expect_eq "$(lines /tmp/w_all.out)" $((e + x)) "messages without a filter"
}
case_add t_filter_two_listeners "filter: two listeners with kernel filters each receive exactly their filesystem's messages"

# Warning type and severity filters: a filter for inode-enospc sees none of
# the data warnings; severity critical sees no space warning at all.
t_filter_type_severity() {
	ratelimit 0
	mkdir -p /mnt/ext4/case.fail
	fill_up ext4
	watch_start w_inode 900 warning=3
	watch_start w_crit 900 severity=4
	watch_start w_warn 900 warning=1 severity=2
	fail_writes ext4 2
	wait_for 10 has_lines /tmp/w_warn.out 2 ||
		fail "the enospc listener got $(lines /tmp/w_warn.out) messages, expected 2"
	usleep 300000
	watch_stop w_inode
	watch_stop w_crit
	watch_stop w_warn
	expect_eq "$(lines /tmp/w_inode.out)" 0 "messages through an inode-enospc filter"
	expect_eq "$(lines /tmp/w_crit.out)" 0 "messages through a critical-severity filter"
	expect_eq "$(grep -c 'warning=1 severity=2 ' /tmp/w_warn.out)" 2 \
		"enospc messages of severity warning"
}
case_add t_filter_type_severity "filter: warning type and least severity select in the kernel"

# held NAME WARNING: the kernel's count of WARNING held back on /mnt/NAME
held() {
	fsmsg --list --json -d "/mnt/$1" |
		sed -n "s/.*\"$2\":{\"count\":[0-9]*,\"last_ns\":[^,]*,\"suppressed\":\([0-9]*\).*/\1/p"
}

# Where every listener's filter turns a filesystem's warnings away, the
# kernel builds no message: the warnings are counted and, as with nobody
# listening, not held back, so rate limiting (one message per 4 s here)
# has nothing to report.  The answer follows each change at once: a filter
# replaced on a joined socket, a socket leaving, one joining.  A kernel
# that built those messages counts them as sent, holds back the next.
t_filter_nobody_wants() {
	local c0 h0 line
	ratelimit 4000 1
	mkdir -p /mnt/ext4/case.fail
	fill_up ext4
	rm -f /tmp/refilter
	# The window of the last message sent on ext4 must be over.
	sleep 5
	c0=$(counter ext4 enospc)
	h0=$(held ext4 enospc)
	watch_start w_re 900 fstype=xfs then=/tmp/refilter "dev=$(sb_dev ext4)"
	fail_writes ext4 3
	expect_eq "$(counter ext4 enospc)" $((c0 + 3)) "warnings counted with only an xfs listener"
	expect_eq "$(held ext4 enospc)" "$h0" "warnings held back with only an xfs listener"
	touch /tmp/refilter
	wait_for 20 grep -q refiltered /tmp/w_re.err || fail "the listener did not refilter"
	fail_writes ext4 1
	wait_for 10 has_lines /tmp/w_re.out 1 ||
		fail "the refiltered listener got no message"
	line=$(sed -n 1p /tmp/w_re.out)
	echo "# refiltered: $line"
	expect_eq "$(field count "$line")" $((c0 + 4)) "count in the first message after the refilter"
	# What an earlier case left held back, nothing of this case.
	expect_eq "$(field suppressed "$line")" "$h0" "held back in the first message after the refilter"
	watch_stop w_re
	# Nobody listens but a listener for XFS: not held back again.
	watch_start w_x 900 fstype=xfs
	fail_writes ext4 2
	expect_eq "$(held ext4 enospc)" "$h0" "warnings held back after the ext4 listener left"
	sleep 5
	watch_start w_e 900 "dev=$(sb_dev ext4)"
	fail_writes ext4 1
	wait_for 10 has_lines /tmp/w_e.out 1 || fail "the joining listener got no message"
	usleep 300000
	watch_stop w_e
	watch_stop w_x
	line=$(sed -n 1p /tmp/w_e.out)
	echo "# joined: $line"
	expect_eq "$(lines /tmp/w_e.out)" 1 "messages to the joining listener"
	expect_eq "$(field count "$line")" $((c0 + 7)) "count in the joining listener's message"
	expect_eq "$(field suppressed "$line")" 0 "held back in the joining listener's message"
	expect_eq "$(lines /tmp/w_x.out)" 0 "messages to the xfs listener"
	expect_eq "$(lines /tmp/w_re.out)" 1 "messages to the refiltered listener"
}
case_add t_filter_nobody_wants "filter: a warning no listener's filter accepts is counted, not built, and each filter or membership change takes effect at once"

# A filter by superblock id follows one mount: after an unmount and a mount
# of the same image it matches nothing, while a UUID filter still matches.
t_filter_sb_id_remount() {
	local id uuid
	ratelimit 0
	id=$(sb_id ext4)
	uuid=$(img_var ext4 UUID)
	[ -n "$id" ] || fail "no sb_id for /mnt/ext4 in the dump"
	watch_start w_id 900 "sb=$id"
	remount ext4
	[ "$(sb_id ext4)" != "$id" ] || fail "the new mount kept superblock id $id"
	mkdir -p /mnt/ext4/case.fail
	fill_up ext4
	watch_start w_uuid 900 "uuid=$uuid"
	fail_writes ext4 2
	wait_for 10 has_lines /tmp/w_uuid.out 2 ||
		fail "the UUID listener got $(lines /tmp/w_uuid.out) messages, expected 2"
	usleep 300000
	watch_stop w_id
	watch_stop w_uuid
	expect_eq "$(lines /tmp/w_id.out)" 0 "messages for the old superblock id"
	expect_eq "$(field sb "$(head -1 /tmp/w_uuid.out)")" "$(sb_id ext4)" \
		"superblock id in the new mount's messages"
}
case_add t_filter_sb_id_remount "filter: a superblock id filter does not match a later mount of the same image"

# Bad filters get a clear error, and nothing is set.
t_filter_bad_requests() {
	local c out
	expect_eq "$(fsmsg_probe filter good)" "ok 0" "a good filter"
	expect_eq "$(fsmsg_probe filter empty)" "ok 0" "an empty filter"
	for c in unknown-attr short-u32 bad-warning bad-severity short-uuid \
		 unterminated-fstype too-many dev-big-minor dev-big-major \
		 dev-no-minor; do
		out=$(fsmsg_probe filter "$c")
		note "$c: $out"
		case $out in
		"error "[0-9]*": -")
			fail "$c: no extack message: $out" ;;
		"error 22 "*|"error 34 "*|"error 7 "*)
			;;
		*)	fail "$c: expected an error, got '$out'" ;;
		esac
	done
	out=$(as_nobody fsmsg_probe filter good)
	note "non-root: $out"
	case $out in
	"error 1 "*CAP_SYS_ADMIN*) ;;
	*)	fail "non-root: expected EPERM naming CAP_SYS_ADMIN, got '$out'" ;;
	esac
}
case_add t_filter_bad_requests "filter: unknown attributes, wrong types, too many values and non-root get an extack error"

# The same image mounted, unmounted and mounted again: two superblock ids,
# the same UUID and label, on every filesystem type.
t_identity_remount() {
	local name id1 id2 line
	for name in ext4 xfs btrfs; do
		line=$(fsmsg --list --json -d "/mnt/$name")
		id1=$(printf '%s\n' "$line" | sed -n 's/.*"sb_id":\([0-9]*\).*/\1/p')
		remount "$name"
		line=$(fsmsg --list --json -d "/mnt/$name")
		note "$line"
		id2=$(printf '%s\n' "$line" | sed -n 's/.*"sb_id":\([0-9]*\).*/\1/p')
		[ -n "$id1" ] && [ -n "$id2" ] || fail "$name: no sb_id in the dump"
		[ "$id1" != "$id2" ] || fail "$name: both mounts have superblock id $id1"
		expect_eq "$(json_str uuid "$line")" "$(img_var "$name" UUID)" "$name: UUID"
		expect_eq "$(json_str label "$line")" "$name" "$name: label"
	done
}
case_add t_identity_remount "identity: a remount gets a new superblock id, the same UUID and label"

# A relabel while warnings flow: every message carries the old or the new
# label, whole, and the dump shows the new one afterwards.
t_identity_relabel() {
	local name bad writer n
	ratelimit 0
	for name in ext4 xfs btrfs; do
		mkdir -p "/mnt/$name/case.fail"
		nearly_fill "$name"
		watch_start w_label 900 "dev=$(sb_dev "$name")"
		# Fills the last blocks, then fails 500 writes of its own file.
		alloc_test "/mnt/$name" --mode buffered --after-full 500 \
			--workdir-name case.fail > /dev/null 2>&1 &
		writer=$!
		n=0
		while kill -0 "$writer" 2> /dev/null; do
			fsmsg_probe setlabel "/mnt/$name" "new$name" ||
				fail "$name: FS_IOC_SETFSLABEL failed"
			fsmsg_probe setlabel "/mnt/$name" "$name" ||
				fail "$name: FS_IOC_SETFSLABEL failed"
			n=$((n + 2))
		done
		fsmsg_probe setlabel "/mnt/$name" "new$name" ||
			fail "$name: FS_IOC_SETFSLABEL failed"
		wait "$writer"
		usleep 300000
		watch_stop w_label
		bad=$(grep -v -c -e " label=$name " -e " label=new$name " /tmp/w_label.out)
		note "$name: $n relabels, $(lines /tmp/w_label.out) messages ($(grep -c " label=new$name " /tmp/w_label.out) with the new label), $bad with another label"
		expect_eq "$bad" 0 "$name: messages with a torn or unknown label"
		has_lines /tmp/w_label.out 1 || fail "$name: no messages during the relabel"
		expect_eq "$(json_str label "$(fsmsg --list --json -d "/mnt/$name")")" \
			"new$name" "$name: label in the dump after the relabel"
		fsmsg_probe setlabel "/mnt/$name" "$name"
	done
}
case_add t_identity_relabel "identity: a relabel while warnings flow is read whole, and the dump follows it"

# A UUID change on a mounted ext4 (EXT4_IOC_SETFSUUID, which needs the
# image's metadata_csum_seed): FS_IOC_GETFSUUID, the dump, the messages and
# the kernel's UUID filters follow it at once, without a remount; a message
# sent while the UUID flips carries the old or the new one, whole.
t_identity_reuuid() {
	local old new=5a5a5a5a-0000-4000-8000-00000000f5a1 oldhex newhex
	local bad n writer
	ratelimit 0
	old=$(img_var ext4 UUID)
	oldhex=$(printf '%s' "$old" | tr -d -)
	newhex=$(printf '%s' "$new" | tr -d -)
	# The next cases expect the image's own UUID, whatever fails here (the
	# case runs in a subshell of its own: the trap ends with it).
	REUUID_OLD=$old
	trap 'fsmsg_probe setuuid /mnt/ext4 "$REUUID_OLD"' EXIT
	mkdir -p /mnt/ext4/case.fail
	fill_up ext4
	watch_start w_old 900 "uuid=$old"
	fsmsg_probe setuuid /mnt/ext4 "$new" || fail "EXT4_IOC_SETFSUUID failed"
	expect_eq "$(fsmsg_probe getuuid /mnt/ext4)" "$new" "FS_IOC_GETFSUUID after the change"
	expect_eq "$(json_str uuid "$(fsmsg --list --json -d /mnt/ext4)")" "$new" \
		"UUID in the dump after the change"
	watch_start w_new 900 "uuid=$new"
	fail_writes ext4 2
	wait_for 10 has_lines /tmp/w_new.out 2 ||
		fail "the new UUID's listener got $(lines /tmp/w_new.out) messages, expected 2"
	usleep 300000
	watch_stop w_new
	watch_stop w_old
	sed 's/^/# new UUID filter: /' /tmp/w_new.out
	expect_eq "$(lines /tmp/w_new.out)" 2 "messages through the new UUID's filter"
	expect_eq "$(grep -c " uuid=$newhex " /tmp/w_new.out)" 2 "messages with the new UUID"
	expect_eq "$(lines /tmp/w_old.out)" 0 "messages through the old UUID's filter"

	# Flip it while failing writes send messages.
	watch_start w_flip 900 "dev=$(sb_dev ext4)"
	alloc_test /mnt/ext4 --mode flood --no-fill --flood-op write --ops 2000 \
		--workdir-name case.fail > /dev/null 2>&1 &
	writer=$!
	n=0
	while kill -0 "$writer" 2> /dev/null; do
		fsmsg_probe setuuid /mnt/ext4 "$old" || fail "EXT4_IOC_SETFSUUID failed"
		fsmsg_probe setuuid /mnt/ext4 "$new" || fail "EXT4_IOC_SETFSUUID failed"
		n=$((n + 2))
	done
	wait "$writer"
	fsmsg_probe setuuid /mnt/ext4 "$old" || fail "EXT4_IOC_SETFSUUID failed"
	usleep 300000
	watch_stop w_flip
	bad=$(grep -v -c -e " uuid=$oldhex " -e " uuid=$newhex " /tmp/w_flip.out)
	note "$n UUID changes, $(lines /tmp/w_flip.out) messages ($(grep -c " uuid=$newhex " /tmp/w_flip.out) with the new UUID), $bad with another"
	has_lines /tmp/w_flip.out 1 || fail "no messages while the UUID changed"
	[ "$n" -ge 2 ] || fail "no UUID change while the writes failed"
	expect_eq "$bad" 0 "messages with a torn or unknown UUID"
	expect_eq "$(fsmsg_probe getuuid /mnt/ext4)" "$old" "FS_IOC_GETFSUUID after changing it back"
	expect_eq "$(json_str uuid "$(fsmsg --list --json -d /mnt/ext4)")" "$old" \
		"UUID in the dump after changing it back"
	trap - EXIT
}
case_add t_identity_reuuid "identity: an ext4 UUID change is followed at once by the dump, the messages and UUID filters"

# A burst of failures in one rate limit window and nothing after it: the
# messages received within two intervals account for every warning, with a
# summary for those held back.
t_summary_burst() {
	local n=25 sum
	ratelimit 1000
	mkdir -p /mnt/ext4/case.fail
	fill_up ext4
	watch_start w_sum 900 "dev=$(sb_dev ext4)"
	fail_writes ext4 "$n"
	# Two intervals, no dump, no later warning.
	sleep 2
	watch_stop w_sum
	sed 's/^/# /' /tmp/w_sum.out
	grep -q '^cmd=summary .* task=no$' /tmp/w_sum.out ||
		fail "no summary message without task attributes"
	sum=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^suppressed=/) s += substr($i, 12)
		     if ($1 == "cmd=warning") s += 1 } END { print s + 0 }' /tmp/w_sum.out)
	expect_eq "$sum" "$n" "warnings accounted for by the messages"
	expect_eq "$(field count "$(tail -1 /tmp/w_sum.out)")" "$(counter ext4 enospc)" \
		"count in the last message"
}
case_add t_summary_burst "summary: held-back warnings reach listeners within two intervals, without a dump"

# Held back, then unmounted at once: the summary comes at the unmount, and
# the timer never fires after it (debug kernel: KASAN, kmemleak, debugobjects).
t_summary_umount() {
	local n=10 round sum
	ratelimit 1000
	mkdir -p /mnt/ext4/case.fail
	fill_up ext4
	watch_start w_um 900 fstype=ext4
	round=0
	while [ "$round" -lt 5 ]; do
		fail_writes ext4 "$n"
		umount /mnt/ext4 || fail "umount /mnt/ext4"
		mount_img ext4 || fail "mount /mnt/ext4"
		round=$((round + 1))
	done
	sleep 2
	watch_stop w_um
	sum=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^suppressed=/) s += substr($i, 12)
		     if ($1 == "cmd=warning") s += 1 } END { print s + 0 }' /tmp/w_um.out)
	note "$(lines /tmp/w_um.out) messages over $round mounts"
	expect_eq "$sum" "$((n * round))" "warnings accounted for across the unmounts"
}
case_add t_summary_umount "summary: warnings held back when a filesystem is unmounted are reported at the unmount"
