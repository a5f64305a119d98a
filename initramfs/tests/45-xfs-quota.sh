# XFS project quotas: a project at its limit fails with ENOSPC, which
# xfs_quota_warn() already reports through the quota netlink interface, so
# FS_MSG must not report it as a full filesystem; and with project quotas
# enforced a genuine ENOSPC must still be reported.  The image xfsq is
# these cases' own, mounted again with -o prjquota (one AG and
# mkfs.xfs -i maxpct=100, so that prjquota can use up and count free inodes
# exactly: see make-images.sh).

XQ=/mnt/xfsq

# pquota_mount: mount xfsq again with project quotas enforced
pquota_mount() {
	umount "$XQ" || fail "umount $XQ"
	mount_img xfsq prjquota || fail "mount $XQ -o prjquota"
	awk -v m="$XQ" '$2 == m { print $4 }' /proc/mounts | grep -q prjquota ||
		fail "$XQ is not mounted with prjquota: $(grep " $XQ " /proc/mounts)"
}

# pquota_dir NAME ID: make $XQ/NAME, the folder of project ID, with an empty
# work folder for alloc_test inside (charged to the project too)
pquota_dir() {
	mkdir "$XQ/$1" || fail "mkdir $XQ/$1"
	prjquota project "$XQ/$1" "$2" || fail "prjquota project $XQ/$1 $2"
	mkdir "$XQ/$1/work" || fail "mkdir $XQ/$1/work"
}

avail_kib() {
	df -k "$XQ" | awk 'NR == 2 { print $4 }'
}

size_kib() {
	df -k "$XQ" | awk 'NR == 2 { print $2 }'
}

# fill_leaving KIB: fallocate outside any project (case.bulk.*, project
# 0) until about KIB KiB are left
fill_leaving() {
	local avail bs out
	for bs in 1M 64K 4K; do
		avail=$(avail_kib)
		[ "$avail" -gt "$(($1 + 64))" ] || break
		mkdir "$XQ/case.bulk.$bs" || fail "mkdir $XQ/case.bulk.$bs"
		out=$(alloc_test "$XQ" --mode fallocate -b "$bs" \
			--max-bytes "$(( (avail - $1) * 1024 ))" --keep \
			--workdir-name "case.bulk.$bs" 2>&1)
		case $? in
		0|1)	;;
		*)	fail "filling $XQ: $out" ;;
		esac
	done
}

# expect_not_reported WHAT: fsmsg must have printed nothing for xfsq, and no
# counter of any filesystem may have moved
expect_not_reported() {
	local what="$1"
	# The kernel counts before it sends: the counters are the proof, the
	# listener shows what a user would have seen.
	usleep 500000
	fsmsg_stop
	counters_all > /tmp/after
	if [ -s "$FSMSG_OUT" ]; then
		sed 's/^/# event: /' "$FSMSG_OUT"
		fail "$what was reported: $(lines "$FSMSG_OUT") FS_MSG warnings for $XQ ($(awk '
			match($0, /"warning":"[^"]*"/) { n[substr($0, RSTART + 11, RLENGTH - 12)]++ }
			END { for (w in n) { printf "%s%d %s", sep, n[w], w; sep = ", " } }' "$FSMSG_OUT"))"
	fi
	if ! cmp -s /tmp/before /tmp/after; then
		diff /tmp/before /tmp/after | sed 's/^/# /'
		fail "$what moved the kernel's counters"
	fi
}

# (a) A project at its block limit on a filesystem that is over 98% full:
# the free-space threshold (1/64 of the filesystem) must not decide.
# Buffered writes fill project 101 to its limit exactly and then fail at
# the delalloc reservation (after the flush and blockgc retry); O_DIRECT
# writes to a file made beforehand and creates fail too.  All of them fail
# with ENOSPC because of the project, and none may be reported.
t_xfs_pquota_block_limit() {
	local dev out avail total quota i direct=0
	ratelimit 0
	pquota_mount
	dev=$(disk xfsq)
	pquota_dir case.proj 101
	mkdir "$XQ/case.proj/files" || fail "mkdir $XQ/case.proj/files"
	: > "$XQ/case.proj/direct" || fail "cannot make $XQ/case.proj/direct"
	# 256 KiB: the create of alloc_test's data file reserves blocks for an
	# inode chunk and the btrees, which a smaller limit would refuse.
	prjquota limit "$dev" 101 256 0 || fail "prjquota limit $dev 101 256 0"
	fill_leaving 896
	avail=$(avail_kib)
	total=$(size_kib)
	note "$avail of $total KiB free, project 101 limited to 256 KiB"
	[ "$((avail * 64))" -lt "$total" ] ||
		fail "set-up: $avail KiB free is not under 1/64 of $total KiB"
	[ "$avail" -gt 512 ] || fail "set-up: only $avail KiB free, not enough beyond the limit"
	counters_all > /tmp/before

	fsmsg_start --json -d "$XQ"
	out=$(alloc_test "$XQ/case.proj" --mode buffered -b 16K --after-full 2 \
		--keep --quiet --workdir-name work)
	note "$out"
	expect_eq "$(report enospc "$out")" 3 "buffered writes that failed with ENOSPC"
	quota=$(prjquota get "$dev" 101)
	note "project 101: $quota"
	expect_eq "$(report blocks_kib "$quota")" 256 "KiB charged to project 101"
	i=0
	while [ "$i" -lt 3 ]; do
		out=$(dd if=/dev/zero of="$XQ/case.proj/direct" bs=64k count=1 \
			oflag=direct,append conv=notrunc 2>&1) &&
			fail "an O_DIRECT write beyond project 101's limit succeeded"
		case $out in
		*"No space left on device"*)	direct=$((direct + 1)) ;;
		*)	fail "O_DIRECT write: $out" ;;
		esac
		i=$((i + 1))
	done
	note "$direct O_DIRECT writes failed with ENOSPC"
	out=$(alloc_test "$XQ/case.proj" --mode files --after-full 2 \
		--keep --quiet --workdir-name files)
	note "$out"
	expect_eq "$(report enospc "$out")" 3 "creates that failed with ENOSPC"
	avail=$(avail_kib)
	note "$avail KiB still free"
	# The project's limit failed them, not the filesystem.
	[ "$avail" -ge 256 ] || fail "the filesystem filled up ($avail KiB free): not a quota failure"
	expect_not_reported "a project at its block limit"
}
case_add t_xfs_pquota_block_limit "xfs pquota: writes and creates failing at a project's block limit on a 98% full filesystem are not reported"

# (b) A project at its inode limit when no allocated inode is free: not
# "no free inodes", nor anything else.
t_xfs_pquota_inode_limit() {
	local dev out quota used
	ratelimit 0
	pquota_mount
	dev=$(disk xfsq)
	pquota_dir case.proj 102
	quota=$(prjquota get "$dev" 102) || fail "prjquota get $dev 102"
	used=$(report inodes "$quota")
	prjquota limit "$dev" 102 0 "$used" || fail "prjquota limit $dev 102 0 $used"
	# Every inode of the allocated chunks in use: the kernel's m_ifree is 0,
	# blocks are plenty, which is what "no free inodes" looks like.
	mkdir "$XQ/case.inodes"
	out=$(prjquota use-free-inodes "$XQ/case.inodes") || fail "prjquota use-free-inodes: $out"
	note "project 102 limited to its $used inodes; $out files made outside it; $(prjquota counts "$XQ")"
	counters_all > /tmp/before

	fsmsg_start --json -d "$XQ"
	out=$(alloc_test "$XQ/case.proj" --mode files --after-full 2 --keep --quiet \
		--workdir-name work)
	note "$out"
	expect_eq "$(report enospc "$out")" 3 "creates that failed with ENOSPC in the project"
	expect_eq "$(report ok "$out")" 0 "creates that succeeded in the project"
	note "after: $(prjquota counts "$XQ"), project 102: $(prjquota get "$dev" 102)"
	expect_not_reported "a project at its inode limit"
}
case_add t_xfs_pquota_inode_limit "xfs pquota: creates failing at a project's inode limit are not reported, not even as inode-enospc"

# (c) With project quotas enforced, one fallocate larger than the free
# space fails with ENOSPC while half the filesystem is free: reported once.
t_xfs_pquota_real_enospc() {
	local out total avail line col
	ratelimit 0
	pquota_mount
	# Quotas in use beside it: a project with a limit it is far from.
	pquota_dir case.proj 103
	prjquota limit "$(disk xfsq)" 103 1024 100 || fail "prjquota limit 103"
	total=$(size_kib)
	fill_leaving "$((total / 2))"
	avail=$(avail_kib)
	note "$avail of $total KiB free; one fallocate of $((total * 3 / 4)) KiB"
	counters_all > /tmp/before

	fsmsg_start --json -d "$XQ"
	# One fallocate() call (alloc_test would fill a buffer that large).
	out=$(fallocate -l "$((total * 3 / 4 * 1024))" "$XQ/case.big" 2>&1) &&
		fail "fallocate of $((total * 3 / 4)) KiB with $avail KiB free succeeded"
	note "$out"
	case $out in
	*"No space left on device"*)	;;
	*)	fail "fallocate did not fail with ENOSPC: $out" ;;
	esac
	avail=$(avail_kib)
	note "$avail KiB free after the failed fallocate"
	[ "$((avail * 64))" -gt "$total" ] ||
		fail "set-up: the failed fallocate left only $avail KiB free"
	wait_for 10 has_lines "$FSMSG_OUT" 1
	usleep 500000
	fsmsg_stop
	counters_all > /tmp/after
	if [ "$(lines "$FSMSG_OUT")" != 1 ]; then
		sed 's/^/# event: /' "$FSMSG_OUT"
		fail "a genuine ENOSPC with project quotas enforced and $avail of $total KiB free: $(lines "$FSMSG_OUT") FS_MSG warnings, expected 1"
	fi
	line=$(cat "$FSMSG_OUT")
	expect_eq "$(json_str warning "$line")" enospc "warning"
	expect_eq "$(json_str comm "$line")" fallocate "comm"
	# xfsq's enospc counter grew by one; nothing else moved.
	col=2
	awk -v c="$col" '$1 == "xfsq" { $c = $c + 1 } { print }' /tmp/before > /tmp/expected
	if ! cmp -s /tmp/expected /tmp/after; then
		diff /tmp/expected /tmp/after | sed 's/^/# /'
		fail "counters: expected xfsq's enospc one higher and nothing else changed"
	fi
}
case_add t_xfs_pquota_real_enospc "xfs pquota: a genuine ENOSPC with project quotas enforced and half the filesystem free is reported once"

# (d) A file's project changes while writes to it fail at the project's
# limit.  The ENOSPC path asks the inode's project dquot whether it refused
# the write; FS_IOC_FSSETXATTR swaps that dquot and drops the old one's
# reference under the ILOCK, so the check must hold the ILOCK too (the
# debug kernel's KASAN and lockdep watch this case).  Both projects refuse a
# 16 KiB write to the empty file: every write fails with ENOSPC, and none
# is reported.
t_xfs_pquota_project_change() {
	local dev out
	ratelimit 0
	pquota_mount
	dev=$(disk xfsq)
	mkdir "$XQ/case.race" || fail "mkdir $XQ/case.race"
	: > "$XQ/case.race/file" || fail "cannot make $XQ/case.race/file"
	prjquota limit "$dev" 105 4 0 || fail "prjquota limit $dev 105 4 0"
	prjquota limit "$dev" 106 4 0 || fail "prjquota limit $dev 106 4 0"
	counters_all > /tmp/before

	fsmsg_start --json -d "$XQ"
	out=$(prjquota race "$XQ/case.race/file" 105 106 400) ||
		fail "prjquota race: $out"
	note "$out; project 105: $(prjquota get "$dev" 105); project 106: $(prjquota get "$dev" 106)"
	expect_eq "$(report flips "$out")" 400 "project changes"
	[ "$(report writes "$out")" -gt 1 ] ||
		fail "only $(report writes "$out") write ran beside the project changes"
	expect_eq "$(report enospc "$out")" "$(report writes "$out")" "writes that failed with ENOSPC"
	expect_not_reported "writes failing at a project's limit while the project changes"
}
case_add t_xfs_pquota_project_change "xfs pquota: a file's project changing while writes to it fail at the limit: every write ENOSPC, none reported"
