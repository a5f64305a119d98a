# XFS: every way to run out of space, with fsmsg listening.

for mode in buffered direct fallocate mmap; do
	matrix xfs "$mode" enospc
done
for mode in files dirs symlinks; do
	matrix xfs "$mode" meta-enospc prefill
done
matrix xfsi files inode-enospc none
