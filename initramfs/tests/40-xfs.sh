# XFS: every way to run out of space, with fsmsg listening.

for mode in buffered direct fallocate; do
	matrix xfs "$mode" enospc
done
for mode in files dirs symlinks; do
	matrix xfs "$mode" meta-enospc prefill
done
matrix xfsi files inode-enospc none

t_xfs_mmap() {
	skip "XFS write faults are not reported: iomap_page_mkwrite() turns ENOSPC into VM_FAULT_SIGBUS and the errno is lost"
}
case_add t_xfs_mmap "xfs: mmap until ENOSPC sends one enospc per failed operation"
