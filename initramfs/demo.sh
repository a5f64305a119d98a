#!/bin/sh
# make demo: fill every filesystem with alloc_test while fsmsg reports each
# warning the moment it happens, with the kernel's default rate limit.

. /lib/guest.sh

say() {
	printf '\n==> %s\n' "$*"
	usleep 200000
}

for name in $IMAGES; do
	mount_img "$name" || echo "demo: cannot mount $name"
done

say "The filesystems that report to FS_MSG (fsmsg --list):"
fsmsg --list

say "Starting fsmsg -F: one line per warning as it happens"
fsmsg -F 2> /tmp/fsmsg.err &
pid=$!
wait_for 20 grep -q '^fsmsg: listening' /tmp/fsmsg.err

# Folders for the steps after the fill: a full filesystem may have no room
# left to create them.
for name in ext2 ext3 ext4 xfs btrfs; do
	mkdir "/mnt/$name/demo.more" "/mnt/$name/demo.dirs"
done

for name in ext2 ext3 ext4 xfs btrfs; do
	say "$name: alloc_test writes until the filesystem is full, and 3 more writes"
	alloc_test "/mnt/$name" --mode buffered --after-full 3 --keep \
		--workdir-name demo.fill
	say "$name: rate limiting sent the first warning only; one more write a second later reports the 3 held back"
	sleep 1
	alloc_test "/mnt/$name" --mode buffered --max-ops 1 --workdir-name demo.more
done

for name in ext4 xfs; do
	say "$name: full, so creating directories fails too: no space for metadata"
	alloc_test "/mnt/$name" --mode dirs --workdir-name demo.dirs
done

say "ext4i: a filesystem made with 32 inodes: creating files until none is left"
alloc_test /mnt/ext4i --mode files

usleep 500000
kill -TERM "$pid"
wait "$pid"

say "The kernel's counters now (fsmsg --list):"
fsmsg --list

say "The same as JSON, for scripts and log shippers (fsmsg --list --json -T ext4):"
fsmsg --list --json -T ext4
