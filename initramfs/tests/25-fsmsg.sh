# fsmsg on real events: the text format, line by line, and filters that
# admit exactly what they name (the matrix listens with --json).

# text_re NAME: what fsmsg's text line says about image NAME
text_re() {
	echo "$(sb_dev "$1") $(img_var "$1" FSTYPE) $(basename "$(disk "$1")") uuid $(img_var "$1" UUID) sb [0-9]+ label $1 mnt /mnt/$1"
}

t_fsmsg_text_filters() {
	local l out ext4_lines

	ratelimit 0
	listener_start all
	listener_start bydev --json -d /mnt/ext4
	listener_start bytype --json -T xfs
	listener_start byuuid --json -u "$(img_var ext4 UUID)" -w inode-enospc

	# ext4: one "no free inodes" (4096 inodes run out before 2 MiB of
	# blocks) and one data warning; XFS: one data warning.
	nearly_fill ext4
	out=$(alloc_test /mnt/ext4 --mode files) || fail "ext4 files: $out"
	out=$(alloc_test /mnt/ext4 --mode buffered) || fail "ext4 buffered: $out"
	nearly_fill xfs
	out=$(alloc_test /mnt/xfs --mode buffered) || fail "xfs buffered: $out"
	# The default rate limit and 2.5 s of failing writes on ext4: later
	# messages say how many warnings were suppressed before them.
	ratelimit 1000 1
	out=$(alloc_test /mnt/ext4 --mode flood --flood-op write --seconds 2.5) ||
		fail "ext4 flood: $out"
	# Then one more failure without a rate limit: its message reports the
	# warnings still held back, and later cases start from none.
	ratelimit 0
	out=$(alloc_test /mnt/ext4 --mode buffered) || fail "ext4 buffered: $out"
	wait_for 10 has_lines /tmp/all.out 6 ||
		fail "fsmsg printed $(lines /tmp/all.out) lines, expected at least 6"
	usleep 500000
	for l in all bydev bytype byuuid; do
		listener_stop "$l"
	done
	sed 's/^/# /' /tmp/all.out

	# Every line: time, MAJ:MIN, type, device, UUID, superblock id, label,
	# mount point (/mnt/NAME, the only one),
	# severity, the warning in words, then uid, pid and command, count,
	# and "(N suppressed)" when rate limited; or, for a summary, how many
	# warnings the rate limit held back and the count.
	grep -Evq "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{9}Z ($(text_re ext4)|$(text_re xfs)): warning: no (space left for (data|metadata)|free inodes), (uid 0, pid [0-9]+ \(alloc_test\), count [0-9]+( \([0-9]+ suppressed\))?|[0-9]+ warnings held back by rate limiting \(count [0-9]+\))\$" /tmp/all.out &&
		fail "a text line is not as documented"
	grep -Eq "$(text_re ext4): warning: no free inodes," /tmp/all.out ||
		fail "no ext4 line for the inodes"
	expect_eq "$(grep -Ec "$(text_re xfs): warning: no space left for data," /tmp/all.out)" 1 "xfs data lines"
	grep -Eq " \([1-9][0-9]* suppressed\)\$" /tmp/all.out ||
		fail "no line reports suppressed warnings"

	# -d PATH: the ext4 lines, all of them; -T xfs: the XFS one; -u UUID
	# -w inode-enospc: the ext4 inode one.
	ext4_lines=$(grep -Ec "$(text_re ext4):" /tmp/all.out)
	expect_eq "$(lines /tmp/bydev.out)" "$ext4_lines" "events admitted by -d /mnt/ext4"
	expect_eq "$(grep -vc "\"dev\":\"$(sb_dev ext4)\"" /tmp/bydev.out)" 0 "other filesystems admitted by -d"
	# Every JSON line names the mount point, the one there is.
	expect_eq "$(grep -vc '"mountpoints":\["/mnt/ext4"\],' /tmp/bydev.out)" 0 \
		"-d /mnt/ext4 lines without \"mountpoints\":[\"/mnt/ext4\"]"
	expect_eq "$(lines /tmp/bytype.out)" 1 "events admitted by -T xfs"
	grep -q '"fstype":"xfs"' /tmp/bytype.out || fail "-T xfs admitted $(cat /tmp/bytype.out)"
	expect_eq "$(lines /tmp/byuuid.out)" 1 "events admitted by -u UUID -w inode-enospc"
	grep -q "\"warning\":\"inode-enospc\".*\"dev\":\"$(sb_dev ext4)\"" /tmp/byuuid.out ||
		fail "-u -w admitted $(cat /tmp/byuuid.out)"
}
case_add t_fsmsg_text_filters "fsmsg: text lines as documented, and -d, -T, -u with -w admit exactly what they name"
