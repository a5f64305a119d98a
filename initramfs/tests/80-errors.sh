# Filesystem errors and shutdowns (FS_MSG types fs-error and shutdown) on
# ext4.  Each case mounts its own slice of the disk errset, mapped with
# dm-linear, so that a filesystem it shuts down is no other case's; fsmsg
# listens to every filesystem, so a message about any other one fails the
# case (the negative control).

ERR_MIB=${SLICED_errset_MIB:-8}

# err_mount I OPTIONS: map slice I of errset and mount it with OPTIONS at
# $ERR_MNT; its device is $ERR_DEV, its sysfs folder $ERR_SYSFS
err_mount() {
	local disk sectors out
	disk=$(disk errset) || fail "no disk with serial errset"
	sectors=$((ERR_MIB * 2048))
	out=$(dmctl create "fsmsg_err$1" \
		"0 $sectors linear $disk $(($1 * sectors))") ||
		fail "dmctl create fsmsg_err$1: $out"
	ERR_DEV=${out#* }
	ERR_MAJMIN=${out%% *}
	ERR_MNT=/mnt/case-err$1
	ERR_NAME=fsmsg_err$1
	mkdir -p "$ERR_MNT"
	trap err_umount EXIT
	mount -t ext4 -o "$2" "$ERR_DEV" "$ERR_MNT" ||
		fail "mount $ERR_DEV -o $2"
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

# err_count WARNING: the kernel's count of WARNING for $ERR_MNT (dump)
err_count() {
	counter "${ERR_MNT#/mnt/}" "$1"
}

# err_count_is WARNING N
err_count_is() {
	[ "$(err_count "$1")" = "$2" ]
}

# err_only_ours: every line fsmsg printed is about our device
err_only_ours() {
	local others
	others=$(grep -v "\"major\":${ERR_MAJMIN%:*},\"minor\":${ERR_MAJMIN#*:}," \
		"$FSMSG_OUT")
	[ -z "$others" ] || fail "messages for other filesystems: $others"
}

# err_lines WARNING: how many lines of $FSMSG_OUT are WARNING messages
err_lines() {
	grep -c "\"warning\":\"$1\"" "$FSMSG_OUT"
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
	local sum
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
	sum=$(awk '/"warning":"fs-error"/ {
		match($0, /"suppressed":[0-9]+/)
		n += 1 + substr($0, RSTART + 13, RLENGTH - 13) } END { print n + 0 }' \
		"$FSMSG_OUT")
	expect_eq "$sum" 5 "fs-error messages plus suppressed"
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
