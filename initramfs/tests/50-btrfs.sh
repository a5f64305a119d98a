# btrfs: every way to run out of space, with fsmsg listening, and no
# warning for a write that the NOCOW fallback saves.

for mode in buffered direct fallocate mmap; do
	matrix btrfs "$mode" enospc
done
# Each on an image of its own (btrfs_files...), left full afterwards.
for mode in files dirs symlinks; do
	matrix btrfs "$mode" meta-enospc prefill "btrfs_$mode"
done

t_btrfs_inodes() {
	skip "btrfs allocates inodes dynamically: it cannot run out of inodes while space remains"
}
case_add t_btrfs_inodes "btrfs: exhausting inodes while blocks remain sends inode-enospc"

# A file made NOCOW (nodatacow at creation) can be overwritten in place on
# a full filesystem: the data reservation fails, the NOCOW fallback
# succeeds, and the write must not be reported.
t_btrfs_nocow() {
	local dir=/mnt/btrfs dev out
	dev=$(sb_dev btrfs)
	ratelimit 0
	mount -o remount,nodatacow "$dir" || fail "remount nodatacow"
	dd if=/dev/zero of="$dir/case.nocow" bs=4096 count=256 2> /dev/null ||
		fail "cannot write $dir/case.nocow"
	sync
	mount -o remount,datacow "$dir" || fail "remount datacow"
	fill_up btrfs

	fsmsg_start --json
	# The control: a copy-on-write file cannot grow, and is reported.
	if dd if=/dev/zero of="$dir/case.cow" bs=4096 count=1 2> /dev/null; then
		fail "the filesystem is not full"
	fi
	fsmsg_wait_lines 1
	# The overwrite in place succeeds through NOCOW, and is not reported.
	dd if=/dev/urandom of="$dir/case.nocow" bs=4096 count=256 conv=notrunc \
		2> /tmp/dd.err || { sed 's/^/# /' /tmp/dd.err; fail "NOCOW overwrite failed"; }
	sync
	usleep 500000
	fsmsg_stop
	sed 's/^/# /' "$FSMSG_OUT"
	expect_eq "$(lines "$FSMSG_OUT")" 1 "events (the COW write only)"
	out=$(head -1 "$FSMSG_OUT")
	expect_eq "$(json_str dev "$out")" "$dev" "device of the COW write's event"
	expect_eq "$(json_str warning "$out")" enospc "warning of the COW write's event"
}
case_add t_btrfs_nocow "btrfs: an overwrite saved by the NOCOW fallback on a full filesystem sends nothing"
