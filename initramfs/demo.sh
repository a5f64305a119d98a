#!/bin/sh
# make demo: fill every filesystem with alloc_test while fsmsg reports each
# warning the moment it happens, with the kernel's default rate limit (one
# message per second per filesystem and warning type; the warnings held back
# are reported by a summary when the window closes).

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

# held_back NAME: the kernel holds back data warnings of /mnt/NAME that no
# message has reported yet
held_back() {
	fsmsg --list --json -d "/mnt/$1" |
		grep -q '"enospc":{"count":[0-9]*,"last_ns":[^,]*,"suppressed":[1-9]'
}
summarized() { ! held_back "$1"; }

# Folders for the steps after the fill: a full filesystem may have no room
# left to create them.
for name in ext4 xfs; do
	mkdir "/mnt/$name/demo.dirs"
done

for name in ext2 ext3 ext4 xfs btrfs; do
	say "$name: alloc_test writes until the filesystem is full, then 3 more: 4 failing writes in a row, and the rate limit (one message a second) sends one for the first only"
	alloc_test "/mnt/$name" --mode buffered --after-full 3 --keep \
		--workdir-name demo.fill
	say "$name: no other write: when the rate limit window closes, about a second after the first warning, the kernel sends a summary of the 3 it held back (stamped with the time of the last of them)"
	wait_for 5 summarized "$name" || echo "demo: no summary for $name within 5 s"
	usleep 300000
done

for name in ext4 xfs; do
	say "$name: full, so creating directories soon fails too: no space for metadata"
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
