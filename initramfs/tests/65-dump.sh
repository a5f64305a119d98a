# The FS_MSG dump (fsmsg --list) against superblocks that are busy or go
# away: it must not wait behind a superblock's s_umount, and a dump that
# takes several datagrams must resume where it was, whatever was
# unmounted in between.  The filesystems come from the disk dumpset, which
# holds SLICED_dumpset_COUNT small ext4 filesystems back to back; the
# cases map them with dm-linear (dmctl) and mount them themselves.

SLICE_MIB=${SLICED_dumpset_MIB:-4}
SLICE_COUNT=${SLICED_dumpset_COUNT:-0}

# slice_map I DM_NAME: map slice I of dumpset as DM_NAME; its node in
# $SLICE_DEV
slice_map() {
	local disk sectors out
	disk=$(disk dumpset) || fail "no disk with serial dumpset"
	sectors=$((SLICE_MIB * 2048))
	out=$(dmctl create "$2" "0 $sectors linear $disk $(($1 * sectors))") ||
		fail "dmctl create $2: $out"
	SLICE_DEV=${out#* }
	[ -b "$SLICE_DEV" ] || fail "dmctl create $2 printed '$out': no block device $SLICE_DEV"
}

# proc_state PID: the state letter of PID (R, S, D, Z...), empty if gone
proc_state() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	stat=${stat##*) }
	echo "${stat%% *}"
}

# running PID...: true while one of them has not exited
running() {
	local p s
	for p in "$@"; do
		s=$(proc_state "$p")
		[ -n "$s" ] && [ "$s" != Z ] && return 0
	done
	return 1
}

not_running() {
	! running "$@"
}

in_d_state() {
	[ "$(proc_state "$1")" = D ]
}

STALL_DM=fsmsg_stall
STALL_MNT=/mnt/case-stall

# Whatever happened, the device must run again before the case ends: a
# suspended device would hang the runner's sync and every later case.
stall_cleanup() {
	local p
	if [ -n "${STALL_SUSPENDED:-}" ]; then
		dmctl resume "$STALL_DM" || echo "# cleanup: dmctl resume $STALL_DM failed"
		STALL_SUSPENDED=
	fi
	for p in ${STALL_PIDS:-}; do
		wait "$p" 2> /dev/null
	done
	if grep -q " $STALL_MNT " /proc/mounts; then
		umount "$STALL_MNT" || echo "# cleanup: umount $STALL_MNT failed"
	fi
	if [ -n "${STALL_MAPPED:-}" ]; then
		dmctl remove "$STALL_DM" || echo "# cleanup: dmctl remove $STALL_DM failed"
	fi
}

# A remount that waits on a stalled device, holding the superblock's
# s_umount for writing, must not block the dump of all filesystems, nor a
# dump filtered to the type of the stalled one.
t_dump_stalled_device() {
	local remount all ext4 rc_all rc_ext4 waited name dev stalled hung=
	[ "$SLICE_COUNT" -ge 1 ] || fail "images.env has no dumpset slices"
	trap stall_cleanup EXIT
	slice_map 0 "$STALL_DM"
	STALL_MAPPED=1
	mkdir -p "$STALL_MNT"
	mount -t ext4 "$SLICE_DEV" "$STALL_MNT" || fail "mount $SLICE_DEV"
	stalled=$(awk -v m="$STALL_MNT" '$5 == m { print $3 }' /proc/self/mountinfo)
	# Dirty data, so that the remount has writeback to wait for.
	dd if=/dev/zero of="$STALL_MNT/dirty" bs=64k count=16 2> /dev/null ||
		fail "writing to $STALL_MNT"

	# I/O to the device queues from here on.
	dmctl suspend --noflush --nolockfs "$STALL_DM" || fail "dmctl suspend"
	STALL_SUSPENDED=1
	# do_remount() holds s_umount for writing through sync_filesystem().
	mount -o remount,ro "$STALL_MNT" &
	remount=$!
	STALL_PIDS=$remount
	wait_for 20 in_d_state "$remount" ||
		fail "mount -o remount,ro did not block on the suspended device (state '$(proc_state "$remount")')"
	# Not a passing wait: still blocked a moment later.
	usleep 500000
	in_d_state "$remount" ||
		fail "mount -o remount,ro is not waiting on the suspended device (state '$(proc_state "$remount")')"
	note "remount of $STALL_MNT ($stalled) blocked, wchan $(cat "/proc/$remount/wchan" 2>/dev/null || echo '?')"

	fsmsg --list --json > /tmp/list.all 2> /tmp/list.all.err &
	all=$!
	fsmsg --list --json -T ext4 > /tmp/list.ext4 2> /tmp/list.ext4.err &
	ext4=$!
	STALL_PIDS="$remount $all $ext4"
	waited=0
	while running "$all" "$ext4" && [ "$waited" -lt 100 ]; do
		usleep 100000
		waited=$((waited + 1))
	done
	if running "$all" "$ext4"; then
		hung="fsmsg --list (state $(proc_state "$all")) and fsmsg --list -T ext4 (state $(proc_state "$ext4")) still running after 10 s, behind the remount of $STALL_MNT"
	else
		note "both dumps done within $((waited / 10)).$((waited % 10)) s"
	fi

	# Let everything finish: the remount, and dumps that were waiting.
	dmctl resume "$STALL_DM" || fail "dmctl resume"
	STALL_SUSPENDED=
	wait "$remount" || fail "mount -o remount,ro failed once the device ran again"
	wait "$all"
	rc_all=$?
	wait "$ext4"
	rc_ext4=$?
	STALL_PIDS=
	[ -z "$hung" ] || fail "$hung"
	expect_eq "$rc_all" 0 "exit status of fsmsg --list"
	expect_eq "$rc_ext4" 0 "exit status of fsmsg --list -T ext4"

	sed 's/^/# all: /' /tmp/list.all
	for name in $IMAGES; do
		dev=$(sb_dev "$name")
		grep -q "\"dev\":\"$dev\"" /tmp/list.all ||
			fail "$name ($dev) missing from fsmsg --list"
		if [ "$(img_var "$name" FSTYPE)" = ext4 ]; then
			grep -q "\"dev\":\"$dev\"" /tmp/list.ext4 ||
				fail "$name ($dev) missing from fsmsg --list -T ext4"
		fi
	done
	if grep -v '"fstype":"ext4"' /tmp/list.ext4 | grep -q .; then
		sed 's/^/# ext4: /' /tmp/list.ext4
		fail "fsmsg --list -T ext4 listed other types"
	fi
	if grep -q "\"dev\":\"$stalled\"" /tmp/list.all; then
		note "the stalled filesystem $stalled is listed too"
	else
		note "the stalled filesystem $stalled is not listed"
	fi
}
case_add t_dump_stalled_device "dump: a remount stuck on a suspended device does not block fsmsg --list or --list -T ext4"

# Mounted slices, as "I DM_NAME" lines in /tmp/slices
slices_cleanup() {
	local i name
	while read -r i name; do
		umount "/mnt/case-slice$i" 2> /dev/null
		dmctl remove "$name" || echo "# cleanup: dmctl remove $name failed"
	done < /tmp/slices
	: > /tmp/slices
	if [ -n "${RESUME_VICTIM:-}" ] && ! grep -q " /mnt/$RESUME_VICTIM " /proc/mounts; then
		mount_img "$RESUME_VICTIM" || echo "# cleanup: cannot mount $RESUME_VICTIM again"
	fi
}

# A dump read slowly: between its first and second datagram a filesystem
# of the first is unmounted.  Every filesystem still mounted must appear
# exactly once: the dump resumes after the last superblock it sent, not at
# a position in a list that has shrunk.
t_dump_resume_umount() {
	local i pid n name dev line want got victim="" missing=""
	[ "$SLICE_COUNT" -ge 1 ] || fail "images.env has no dumpset slices"
	: > /tmp/slices
	trap slices_cleanup EXIT
	# More superblocks than one page of replies holds.
	i=0
	while [ "$i" -lt "$SLICE_COUNT" ]; do
		slice_map "$i" "fsmsg_slice$i"
		echo "$i fsmsg_slice$i" >> /tmp/slices
		mkdir -p "/mnt/case-slice$i"
		mount -t ext4 "$SLICE_DEV" "/mnt/case-slice$i" || fail "mount slice $i"
		i=$((i + 1))
	done

	rm -f /tmp/dump.go
	dumpslow /tmp/dump.go > /tmp/dump.out 2> /tmp/dump.err &
	pid=$!
	if ! wait_for 20 grep -q '^first datagram done' /tmp/dump.out; then
		sed 's/^/# dumpslow: /' /tmp/dump.err
		fail "dumpslow printed no first datagram"
	fi
	# The first filesystem of the first datagram that is an image goes.
	while read -r _ n dev _; do
		[ "$n" = 1 ] || continue
		for name in $IMAGES; do
			if [ "$(sb_dev "$name")" = "$dev" ]; then
				victim=$name
				break 2
			fi
		done
	done < /tmp/dump.out
	[ -n "$victim" ] || fail "no image in the first datagram: $(cat /tmp/dump.out)"
	RESUME_VICTIM=$victim
	note "first datagram: $(grep -c '^fs 1 ' /tmp/dump.out) filesystems; unmounting $victim ($(sb_dev "$victim")) before reading on"
	umount "/mnt/$victim" || fail "umount /mnt/$victim"
	touch /tmp/dump.go
	wait "$pid" || { sed 's/^/# dumpslow: /' /tmp/dump.err; fail "dumpslow failed"; }
	sed 's/^/# /' /tmp/dump.out
	line=$(grep '^datagrams ' /tmp/dump.out)
	n=$(echo "$line" | awk '{ print $2 }')
	note "the dump took $n datagrams"
	[ "$n" -ge 2 ] || fail "the dump fit in $n datagram: add filesystems (dumpset slices)"

	# Every mounted filesystem that reports warnings, exactly once.
	want=$(awk '{
		for (i = 7; i < NF && $i != "-"; i++)
			;
		if ($(i + 1) ~ /^(ext[234]|xfs|btrfs)$/)
			print $3
	}' /proc/self/mountinfo | sort -u)
	for dev in $want; do
		got=$(awk -v d="$dev" '$1 == "fs" && $3 == d' /tmp/dump.out | wc -l)
		case $got in
		1)	;;
		0)	missing="$missing $dev($(awk -v d="$dev" '$3 == d { print $5; exit }' /proc/self/mountinfo))" ;;
		*)	fail "$dev listed $got times" ;;
		esac
	done
	[ -z "$missing" ] || fail "still mounted but missing from the dump:$missing ($victim was unmounted between datagrams 1 and 2)"
	mount_img "$victim" || fail "mount $victim again"
}
case_add t_dump_resume_umount "dump: unmounting a filesystem between two datagrams of a slow dump skips no other filesystem"
