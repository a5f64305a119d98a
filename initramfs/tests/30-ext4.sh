# ext4, and ext2 and ext3 mounted by the ext4 driver: every way to run out
# of space, with fsmsg listening (see enospc_case in lib/guest.sh).

for name in ext2 ext3 ext4; do
	for mode in buffered direct fallocate mmap; do
		matrix "$name" "$mode" enospc
	done
	for mode in files dirs symlinks; do
		matrix "$name" "$mode" meta-enospc prefill
	done
	matrix "${name}i" files inode-enospc none
done
