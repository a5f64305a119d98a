# Filesystem errors and shutdowns (FS_MSG types fs-error and shutdown) on
# ext4, XFS and btrfs.  Each case mounts its own slice of the disk errset
# (ext4), xfserr (XFS) or btrfserr (btrfs), mapped with dm-linear, so that a filesystem it shuts
# down or corrupts is no other case's; fsmsg listens to every filesystem,
# so a message about any other one fails the case (the negative control).

# err_mount I OPTIONS [DISK FSTYPE]: map slice I of DISK (errset) and
# mount it as FSTYPE (ext4) with OPTIONS at $ERR_MNT; its device is
# $ERR_DEV, an ext4's sysfs folder $ERR_SYSFS
err_mount() {
	local disk sectors out name=${3:-errset} type=${4:-ext4} mib
	disk=$(disk "$name") || fail "no disk with serial $name"
	eval "mib=\${SLICED_${name}_MIB}"
	sectors=$((mib * 2048))
	out=$(dmctl create "fsmsg_$name$1" \
		"0 $sectors linear $disk $(($1 * sectors))") ||
		fail "dmctl create fsmsg_$name$1: $out"
	ERR_DEV=${out#* }
	ERR_MNT=/mnt/case-$name$1
	ERR_NAME=fsmsg_$name$1
	mkdir -p "$ERR_MNT"
	trap err_umount EXIT
	mount -t "$type" -o "$2" "$ERR_DEV" "$ERR_MNT" ||
		fail "mount $ERR_DEV -o $2"
	[ "$type" = ext4 ] || return 0
	ERR_SYSFS=/sys/fs/ext4/${ERR_DEV##*/}
	[ -w "$ERR_SYSFS/trigger_fs_error" ] ||
		fail "no $ERR_SYSFS/trigger_fs_error"
}

err_umount() {
	killall -q -KILL fsmsg 2>/dev/null
	umount "$ERR_MNT" 2>/dev/null
	dmctl remove "$ERR_NAME" > /dev/null 2>&1
}

# err_inject N: N errors through ext4's trigger_fs_error
err_inject() {
	local i=0
	while [ "$i" -lt "$1" ]; do
		echo "fsmsg test error $i" > "$ERR_SYSFS/trigger_fs_error" ||
			fail "writing trigger_fs_error"
		i=$((i + 1))
	done
}

# err_count WARNING: the kernel's count of WARNING for $ERR_DEV, from the
# dump of all filesystems: a shut down XFS fails stat(), so fsmsg -d
# cannot resolve its mount point
err_count() {
	fsmsg --list --json > /tmp/err-counters.json || fail "fsmsg --list failed"
	grep "\"device\":\"${ERR_DEV##*/}\"" \
		/tmp/err-counters.json |
		sed -n "s/.*\"$1\":{\"count\":\([0-9]*\).*/\1/p"
}

# err_count_is WARNING N
err_count_is() {
	[ "$(err_count "$1")" = "$2" ]
}

# err_only_ours: every line fsmsg printed is about our device
err_only_ours() {
	local others
	others=$(grep -v "\"device\":\"${ERR_DEV##*/}\"" \
		"$FSMSG_OUT")
	[ -z "$others" ] || fail "messages for other filesystems: $others"
}

# err_lines WARNING: how many lines of $FSMSG_OUT are WARNING messages
err_lines() {
	grep -c "\"warning\":\"$1\"" "$FSMSG_OUT"
}

# err_sent WARNING: the WARNING messages fsmsg printed plus the warnings
# each says it held back
err_sent() {
	awk -v w="\"warning\":\"$1\"" 'index($0, w) {
		match($0, /"suppressed":[0-9]+/)
		n += 1 + substr($0, RSTART + 13, RLENGTH - 13) } END { print n + 0 }' \
		"$FSMSG_OUT"
}

case_remount_ro() {
	local out
	err_mount 0 errors=remount-ro
	echo data > "$ERR_MNT/before" || fail "writing before the error"
	sync
	fsmsg_start --json
	err_inject 1
	fsmsg_wait_lines 2
	expect_eq "$(err_lines fs-error)" 1 "fs-error messages"
	expect_eq "$(err_lines shutdown)" 1 "shutdown messages"
	# The error first, then the shutdown it caused.
	sed -n 1p "$FSMSG_OUT" | grep -q '"warning":"fs-error"' ||
		fail "first message is not the fs-error: $(sed -n 1p "$FSMSG_OUT")"
	out=$(grep '"warning":"fs-error"' "$FSMSG_OUT")
	expect_eq "$(json_num errno "$out")" 117 "fs-error errno (EUCLEAN)"
	expect_eq "$(json_str fstype "$out")" ext4 "fs-error fstype"
	[ -n "$(json_str function "$out")" ] || fail "fs-error without function: $out"
	out=$(grep '"warning":"shutdown"' "$FSMSG_OUT")
	expect_eq "$(json_str reason "$out")" error "shutdown reason"
	expect_eq "$(json_num errno "$out")" 117 "shutdown errno"
	# ext4 stops writes with EXT4_FLAGS_SHUTDOWN, not SB_RDONLY: EIO.
	out=$(echo more 2>&1 > "$ERR_MNT/after") &&
		fail "a write after the shutdown succeeded"
	note "write after shutdown: $out"
	# A shut down ext4 reports no more errors and no second shutdown.
	err_inject 3
	usleep 500000
	expect_eq "$(err_count fs-error)" 1 "fs-error count"
	expect_eq "$(err_count shutdown)" 1 "shutdown count"
	expect_eq "$(lines "$FSMSG_OUT")" 2 "messages after more errors"
	err_only_ours
}
case_add case_remount_ro "ext4 errors=remount-ro: one fs-error then one shutdown, writes fail"

case_continue() {
	err_mount 1 errors=continue
	ratelimit 0
	fsmsg_start --json
	err_inject 5
	# Every error counted; messages may coalesce errors (suppressed).
	wait_for 20 err_count_is fs-error 5 ||
		fail "fs-error count is $(err_count fs-error), expected 5"
	expect_eq "$(err_count shutdown)" 0 "shutdown count"
	wait_for 20 sh -c "grep -q '\"count\":5,' $FSMSG_OUT" ||
		fail "no message reached count 5"
	expect_eq "$(err_sent fs-error)" 5 "fs-error messages plus suppressed"
	expect_eq "$(err_lines shutdown)" 0 "shutdown messages"
	echo still > "$ERR_MNT/after" || fail "errors=continue stopped writes"
	err_only_ours
}
case_add case_continue "ext4 errors=continue: N errors count N, no shutdown"

case_ioctl_shutdown() {
	local out
	err_mount 2 errors=remount-ro
	fsmsg_start --json
	# Negative control: a clean write, read and sync report nothing.
	echo data > "$ERR_MNT/file" && sync && cat "$ERR_MNT/file" > /dev/null ||
		fail "clean I/O failed"
	usleep 300000
	expect_eq "$(lines "$FSMSG_OUT")" 0 "messages for clean I/O"
	out=$(fsops shutdown "$ERR_MNT" 2) || fail "EXT4_IOC_SHUTDOWN: $out"
	fsmsg_wait_lines 1
	out=$(sed -n 1p "$FSMSG_OUT")
	expect_eq "$(json_str warning "$out")" shutdown "message type"
	expect_eq "$(json_str reason "$out")" user "shutdown reason"
	expect_eq "$(json_num fs_flags "$out")" 2 "shutdown flags (NOLOGFLUSH)"
	# A second shutdown sends nothing.
	fsops shutdown "$ERR_MNT" 2 > /dev/null || fail "second EXT4_IOC_SHUTDOWN"
	usleep 500000
	expect_eq "$(lines "$FSMSG_OUT")" 1 "messages after a second shutdown"
	expect_eq "$(err_count shutdown)" 1 "shutdown count"
	expect_eq "$(err_count fs-error)" 0 "fs-error count"
	err_only_ours
}
case_add case_ioctl_shutdown "ext4 EXT4_IOC_SHUTDOWN: one shutdown, a second sends nothing"

case_xfs_shutdown() {
	local out
	err_mount 0 defaults xfserr xfs
	fsmsg_start --json
	# Negative control: a clean write, sync and read report nothing.
	echo data > "$ERR_MNT/file" && sync && cat "$ERR_MNT/file" > /dev/null ||
		fail "clean I/O failed"
	usleep 300000
	expect_eq "$(lines "$FSMSG_OUT")" 0 "messages for clean I/O"
	# XFS_IOC_GOINGDOWN, XFS_FSOP_GOING_FLAGS_NOLOGFLUSH (xfs_io's
	# "shutdown" without -f).
	# Twice on one descriptor: a shut down XFS opens no file.
	out=$(fsops shutdown "$ERR_MNT" 2 2) || fail "XFS_IOC_GOINGDOWN: $out"
	fsmsg_wait_lines 1
	out=$(sed -n 1p "$FSMSG_OUT")
	note "$out"
	expect_eq "$(json_str warning "$out")" shutdown "message type"
	expect_eq "$(json_str fstype "$out")" xfs "shutdown fstype"
	expect_eq "$(json_str reason "$out")" user "shutdown reason"
	# SHUTDOWN_FORCE_UMOUNT | SHUTDOWN_LOG_IO_ERROR
	expect_eq "$(json_num fs_flags "$out")" 6 "shutdown flags"
	printf '%s\n' "$out" | grep -q '"errno":null' ||
		fail "a requested shutdown with an errno: $out"
	out=$(echo more 2>&1 > "$ERR_MNT/after") &&
		fail "a write after the shutdown succeeded"
	note "write after shutdown: $out"
	# The second shutdown sent nothing; neither do the failures after it.
	usleep 500000
	expect_eq "$(lines "$FSMSG_OUT")" 1 "messages after a second shutdown"
	expect_eq "$(err_count shutdown)" 1 "shutdown count"
	expect_eq "$(err_count fs-error)" 0 "fs-error count"
	err_only_ours
}
case_add case_xfs_shutdown "xfs XFS_IOC_GOINGDOWN: one shutdown, a second sends nothing"

# A file's inode with a byte changed on disk: its CRC no longer matches,
# so every lookup of the file fails xfs_dinode_verify() with EFSCORRUPTED
# (the inode is not cached), and XFS stays up.
case_xfs_corrupt_inode() {
	local ino i out
	err_mount 1 defaults xfserr xfs
	echo data > "$ERR_MNT/victim" || fail "writing the victim file"
	echo data > "$ERR_MNT/bystander" || fail "writing the bystander file"
	ino=$(stat -c %i "$ERR_MNT/victim") || fail "stat victim"
	umount "$ERR_MNT" || fail "umount before corrupting"
	# One AG, 4 KiB blocks, 512-byte inodes: inode N is at byte N * 512.
	# di_atime (offset 32) is covered by the CRC and nothing else checks it.
	printf 'ZZZZZZZZ' | dd of="$ERR_DEV" bs=1 seek=$((ino * 512 + 32)) \
		conv=notrunc 2> /dev/null || fail "corrupting inode $ino"
	sync
	mount -t xfs "$ERR_DEV" "$ERR_MNT" || fail "mount after corrupting"
	ratelimit 0
	fsmsg_start --json
	# Negative control: the intact file reads back and reports nothing.
	expect_eq "$(cat "$ERR_MNT/bystander")" data "the intact file"
	usleep 300000
	expect_eq "$(lines "$FSMSG_OUT")" 0 "messages for an intact file"
	i=0
	while [ "$i" -lt 3 ]; do
		out=$(cat "$ERR_MNT/victim" 2>&1) &&
			fail "reading a corrupted inode succeeded: $out"
		i=$((i + 1))
	done
	note "reading the corrupted inode: $out"
	wait_for 20 err_count_is fs-error 3 ||
		fail "fs-error count is $(err_count fs-error), expected 3"
	wait_for 20 sh -c "grep -q '\"count\":3,' $FSMSG_OUT" ||
		fail "no message reached count 3"
	out=$(sed -n 1p "$FSMSG_OUT")
	note "$out"
	expect_eq "$(json_str warning "$out")" fs-error "message type"
	expect_eq "$(json_str fstype "$out")" xfs "fs-error fstype"
	expect_eq "$(json_num errno "$out")" 117 "fs-error errno (EUCLEAN)"
	expect_eq "$(json_num inode "$out")" "$ino" "fs-error inode"
	[ -n "$(json_str function "$out")" ] || fail "fs-error without function: $out"
	expect_eq "$(err_sent fs-error)" 3 "fs-error messages plus suppressed"
	expect_eq "$(err_count shutdown)" 0 "shutdown count"
	echo still > "$ERR_MNT/after" || fail "XFS stopped writes after a bad inode"
	err_only_ours
}
case_add case_xfs_corrupt_inode "xfs corrupted inode: one fs-error per lookup with its inode, no shutdown"

# btrfs: writes start failing under a mounted filesystem (the slice's
# table swapped for dm-flakey, always down, error_writes), so the next
# commit fails: btrfs reports the first error, forces itself read-only,
# and the abort and cleanup that follow report nothing more.
case_btrfs_write_errors() {
	local disk sectors out
	err_mount 0 defaults btrfserr btrfs
	disk=$(disk btrfserr)
	sectors=$((SLICED_btrfserr_MIB * 2048))
	fsmsg_start --json
	# Negative control: a clean write, sync and read report nothing.
	echo data > "$ERR_MNT/file" && sync && cat "$ERR_MNT/file" > /dev/null ||
		fail "clean I/O failed"
	usleep 300000
	expect_eq "$(lines "$FSMSG_OUT")" 0 "messages for clean I/O"
	# Slice 0 starts at sector 0 of the disk.
	out=$(dmctl load "$ERR_NAME" "0 $sectors flakey $disk 0 0 3600 1 error_writes") ||
		fail "dmctl load flakey: $out"
	dmctl suspend "$ERR_NAME" && dmctl resume "$ERR_NAME" ||
		fail "swapping in the flakey table"
	echo more > "$ERR_MNT/more"
	sync
	fsmsg_wait_lines 2
	note "$(sed -n 1p "$FSMSG_OUT")"
	note "$(sed -n 2p "$FSMSG_OUT")"
	expect_eq "$(err_lines fs-error)" 1 "fs-error messages"
	expect_eq "$(err_lines shutdown)" 1 "shutdown messages"
	out=$(grep '"warning":"fs-error"' "$FSMSG_OUT")
	expect_eq "$(json_str fstype "$out")" btrfs "fs-error fstype"
	expect_eq "$(json_num errno "$out")" 5 "fs-error errno (EIO)"
	[ -n "$(json_str function "$out")" ] || fail "fs-error without function: $out"
	out=$(grep '"warning":"shutdown"' "$FSMSG_OUT")
	expect_eq "$(json_num errno "$out")" 5 "shutdown errno (EIO)"
	case $(json_str reason "$out") in
	error|abort)	;;
	*)		fail "shutdown reason: $out" ;;
	esac
	# Forced read-only (writes fail with the abort's error, EIO), and
	# more failures report nothing.
	out=$(echo again 2>&1 > "$ERR_MNT/after") &&
		fail "a write after the forced read-only succeeded"
	note "write after the forced read-only: $out"
	awk -v m="$ERR_MNT" '$2 == m { print $4 }' /proc/mounts | grep -q '^ro,' ||
		fail "not read-only: $(grep " $ERR_MNT " /proc/mounts)"
	sync
	usleep 500000
	expect_eq "$(lines "$FSMSG_OUT")" 2 "messages after more failures"
	expect_eq "$(err_count fs-error)" 1 "fs-error count"
	expect_eq "$(err_count shutdown)" 1 "shutdown count"
	err_only_ours
}
case_add case_btrfs_write_errors "btrfs write errors at commit: one fs-error, one shutdown, then read-only"

# btrfs: a relabel whose commit fails (writes failing under the mounted
# filesystem, as above) must not publish the new label: the dump and the
# messages keep naming the label on disk.
case_btrfs_label_failed_commit() {
	local disk sectors out
	err_mount 1 defaults btrfserr btrfs
	disk=$(disk btrfserr)
	sectors=$((SLICED_btrfserr_MIB * 2048))
	expect_eq "$(json_str label "$(fsmsg --list --json -d "$ERR_MNT")")" btrfserr1 \
		"label in the dump before the relabel"
	fsmsg_start --json
	out=$(dmctl load "$ERR_NAME" "0 $sectors flakey $disk $sectors 0 3600 1 error_writes") ||
		fail "dmctl load flakey: $out"
	dmctl suspend "$ERR_NAME" && dmctl resume "$ERR_NAME" ||
		fail "swapping in the flakey table"
	out=$(fsmsg_probe setlabel "$ERR_MNT" newlabel 2>&1) &&
		fail "FS_IOC_SETFSLABEL succeeded although its commit could not be written"
	note "relabel: $out"
	fsmsg_wait_lines 2
	sed 's/^/# event: /' "$FSMSG_OUT"
	expect_eq "$(err_lines fs-error)" 1 "fs-error messages"
	expect_eq "$(err_lines shutdown)" 1 "shutdown messages"
	expect_eq "$(grep -c '"label":"btrfserr1"' "$FSMSG_OUT")" 2 \
		"messages that name the label on disk"
	# The dump of all filesystems: fsmsg -d would stat the mount point.
	fsmsg --list --json > /tmp/label-dump.json || fail "fsmsg --list failed"
	out=$(grep "\"device\":\"${ERR_DEV##*/}\"" /tmp/label-dump.json)
	expect_eq "$(json_str label "$out")" btrfserr1 "label in the dump after the failed relabel"
	err_only_ours
}
case_add case_btrfs_label_failed_commit "btrfs relabel whose commit fails: the dump and the messages keep the label on disk"
