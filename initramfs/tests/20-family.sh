# Patch 1: the FS_MSG family, its permissions and its dump.

t_family_join() {
	fsmsg_start
	fsmsg_stop
}
case_add t_family_join "family: root resolves FS_MSG, joins events, exits 0 on SIGTERM"

# expect_refused RC_FILE ERR_FILE WHAT PATTERN
# expect_refused STATUS ERRFILE WHAT TEXT [WANT]: exit WANT (default 2,
# EXIT_RUNTIME) and TEXT in the message
expect_refused() {
	expect_eq "$1" "${5:-2}" "exit status of $3"
	grep -qi "$4" "$2" || { sed 's/^/# /' "$2"; fail "$3: no clear message ($4)"; }
}

t_family_nonroot_join() {
	as_nobody fsmsg -F -t 5 > /dev/null 2> /tmp/err
	expect_refused $? /tmp/err "non-root fsmsg" "CAP_SYS_ADMIN"
}
case_add t_family_nonroot_join "family: non-root cannot join events (EPERM), fsmsg says so and exits 2"

t_family_nonroot_dump() {
	as_nobody fsmsg --list > /dev/null 2> /tmp/err
	expect_refused $? /tmp/err "non-root fsmsg --list" "CAP_SYS_ADMIN"
}
case_add t_family_nonroot_dump "family: non-root cannot dump (EPERM), fsmsg --list exits 2"

t_family_userns() {
	unshare -U -r fsmsg -F -t 5 > /dev/null 2> /tmp/err
	expect_refused $? /tmp/err "fsmsg as root of a new user namespace" "CAP_SYS_ADMIN"
}
case_add t_family_userns "family: root in a new user namespace cannot join events"

t_family_netns() {
	unshare -n fsmsg -F -t 5 > /dev/null 2> /tmp/err
	# 4: EXIT_NO_FAMILY, which the units' RestartPreventExitStatus= lists
	expect_refused $? /tmp/err "fsmsg in a new network namespace" "no FS_MSG family.*CONFIG_FS_MSG" 4
}
case_add t_family_netns "family: a new network namespace cannot resolve FS_MSG, fsmsg exits 4"

# Root of new user and network namespaces cannot resolve the family, but
# could join its group by number: it would receive nothing, yet make every
# warning on the machine look listened to (netlink_has_listeners() is per
# protocol).  Patch 11 refuses the bind.
t_family_userns_netns_join() {
	local grp out
	grp=$(fsmsg_probe group) || fail "cannot resolve the events group"
	out=$(unshare -U -r -n fsmsg_probe join "$grp" 0)
	note "new user+net namespace: $out"
	expect_eq "$out" "error 1 Operation not permitted" "join by number from another netns"
	out=$(fsmsg_probe join "$grp" 0)
	expect_eq "$out" "joined $grp" "join by number as root of the initial namespaces"
}
case_add t_family_userns_netns_join "family: root of new user and network namespaces cannot join events by group number (EPERM)"

t_family_sysctl() {
	expect_eq "$(sysctl -n fs.fs_msg.ratelimit_interval_ms)" 1000 "default interval"
	expect_eq "$(sysctl -n fs.fs_msg.ratelimit_burst)" 1 "default burst"
	sysctl -w fs.fs_msg.ratelimit_burst=0 > /dev/null 2>&1 &&
		fail "ratelimit_burst accepted 0"
	expect_eq "$(sysctl -n fs.fs_msg.ratelimit_burst)" 1 "burst after refused write"
}
case_add t_family_sysctl "family: rate limit sysctls default to 1 message per 1000 ms and reject 0 bursts"

# The dump lists every mounted image with what the host recorded.
t_dump_lists() {
	fsmsg --list --json > /tmp/list || fail "fsmsg --list exited with $?"
	sed 's/^/# /' /tmp/list
	for name in $IMAGES; do
		dev=$(sb_dev "$name")
		line=$(grep "\"dev\":\"$dev\"" /tmp/list)
		[ -n "$line" ] || fail "$name ($dev) missing from the dump"
		expect_eq "$(json_str fstype "$line")" "$(img_var "$name" FSTYPE)" "$name fstype"
		expect_eq "$(json_str uuid "$line")" "$(img_var "$name" UUID)" "$name uuid"
		expect_eq "$(json_str device "$line")" "$(basename "$(disk "$name")")" "$name device"
	done
	# Only filesystems that report warnings: no proc, sysfs or tmpfs.
	expect_eq "$(lines /tmp/list)" "$(echo $IMAGES | wc -w)" "filesystems in the dump"
}
case_add t_dump_lists "dump: lists every mounted image with its type, device and UUID, and nothing else"

# Any CAP_NET_ADMIN holder can multicast into the group: fsmsg takes only
# the kernel's messages (sender port id 0), counts the forged one as
# rejected, and still reports the real warning after it.
t_family_forged_message() {
	local out rc dev
	dev=$(sb_dev ext4)
	mkdir -p /mnt/ext4/case.fail
	fill_up ext4
	ratelimit 0
	fsmsg_start --json
	out=$(fsmsg_probe forge "${dev%:*}" "${dev#*:}")
	rc=$?
	[ "$rc" = 3 ] && skip "$out"
	[ "$rc" = 0 ] || fail "forging failed: $out"
	note "$out"
	alloc_test /mnt/ext4 --mode flood --no-fill --flood-op write --ops 1 \
		--workdir-name case.fail > /dev/null 2>&1
	fsmsg_wait_lines 1
	usleep 300000
	fsmsg_stop
	sed 's/^/# fsmsg: /' "$FSMSG_OUT" /tmp/fsmsg.err
	expect_eq "$(lines "$FSMSG_OUT")" 1 "events printed (the real one only)"
	expect_eq "$(json_str comm "$(cat "$FSMSG_OUT")")" alloc_test "command of the event printed"
	grep -q "ignored 1 message not sent by the kernel" /tmp/fsmsg.err ||
		fail "fsmsg did not say it ignored the forged message"
}
case_add t_family_forged_message "family: a warning forged into the group by root is not printed, and fsmsg says so"
