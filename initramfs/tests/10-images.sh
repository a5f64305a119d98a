# The pipeline itself: every image mounts with the type it was made with,
# and writing to the big ones until they are full ends in ENOSPC (the last
# 2 MiB four KiB at a time, after a quick bulk fill).

check_mount() {
	expect_eq "$(mounted_type "$1")" "$(img_var "$1" FSTYPE)" "type of /mnt/$1"
}

check_fill() {
	nearly_fill "$1"
	out=$(alloc_test "/mnt/$1" --mode write)
	rc=$?
	note "$out"
	expect_eq "$rc" 0 "alloc_test exit status"
	expect_eq "$(report result "$out")" enospc "alloc_test result"
}

for name in $IMAGES; do
	eval "t_mount_$name() { check_mount $name; }"
	case_add "t_mount_$name" "mount: $name image mounts as $(img_var "$name" FSTYPE)"
done

for name in ext2 ext3 ext4 xfs btrfs; do
	eval "t_fill_$name() { check_fill $name; }"
	case_add "t_fill_$name" "fill: writing to $name until full fails with ENOSPC"
done
