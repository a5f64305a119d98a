#!/bin/sh
# Make the filesystem images the guest tests fill, and record what the
# guest must see for each: its type, its UUID (as blkid reports it on the
# host) and the disk serial QEMU gives it.
#
# usage: make-images.sh OUTDIR
#
# Images are sparse and made fresh on every run, so every boot starts
# from empty filesystems.  OUTDIR/images.env is sourced by the guest and
# OUTDIR/drives lists "serial file" pairs for the QEMU runner.
set -eu

out=$1
mkdir -p "$out"
rm -f "$out"/*.img "$out"/*.slice "$out/images.env" "$out/drives"

# name fstype size mkfs-options
# The btrfs metadata cases have an image each, which they leave full:
# removing thousands of entries from a full btrfs commits a transaction for
# each.  48 MiB with single metadata in 4 KiB nodes: about 5 MiB of metadata
# instead of 32 MiB (DUP, 128 MiB), so about 2,000 entries fill it instead
# of 19,000, and the reservations stay small enough that creating entries,
# not the global reserve, is what fills it.  btrfs_full is filled once by the
# first of the 35-final-error.sh cases that use it, and shared by them.
# xfsq: the project quota cases, mounted again with prjquota.  One AG, so
# that creates use the free inodes of allocated chunks before allocating a
# new chunk (XFS prefers a new chunk near the parent to a free inode in
# another AG), and maxpct=100, so that statfs counts free inodes exactly.
# ext2 and ext3 files cannot be fallocated, so tests fill them with writes
# through the page cache, which a debug kernel does at about 2 MB/s: keep
# them small.
IMAGES="
ext2      ext2   16M  -N 4096
ext3      ext3   16M  -N 4096
ext4      ext4   64M  -N 4096 -O metadata_csum_seed
xfs       xfs    64M
btrfs     btrfs 128M
ext2i     ext2   16M  -N 32
ext3i     ext3   16M  -N 32
ext4i     ext4   16M  -N 32
xfsi      xfs    64M  -i maxpct=1
btrfs_files    btrfs  48M -m single -n 4096
btrfs_dirs     btrfs  48M -m single -n 4096
btrfs_symlinks btrfs  48M -m single -n 4096
btrfs_full     btrfs  48M -m single -n 4096
xfsq      xfs    64M  -i maxpct=100 -d agcount=1
"

# Disks that no one mounts at boot: each holds SLICES filesystems of
# SIZE MiB one after the other, for cases that map them with dm-linear
# (dmctl) and mount them themselves.  dumpset: enough superblocks that the
# FS_MSG dump takes more than one datagram (a page holds about 17 replies
# of the first series, 19 of the second: with the images, 12 slices make
# a second datagram of 6 or more), and the stalled-device case.  errset,
# xfserr, btrfserr: the error and shutdown cases of 80-errors.sh, one
# slice each.  xfserr has one AG, so that inode N is at byte N * 512.
# lostext4: the data-lost cases of 85-writeback.sh, which copy a slice
# onto a dm-thin volume whose pool lives on the thinpool disk below; its
# 64 KiB clusters are the pool's blocks, so that every new file needs a
# pool block of its own.  lostxfs: the same for XFS; lostbtrfs for btrfs
# (slice 0 on a thin pool, slice 1 over a failing disk).
# name type slices size-MiB mkfs-options
SLICED="
dumpset   ext4  12  4    -N 64
errset    ext4  3   8    -N 64
xfserr    xfs   2   64   -d agcount=1
btrfserr  btrfs 2   128  -m single
lostext4  ext4  3   16   -N 64 -b 4096 -O bigalloc -C 65536
lostxfs   xfs   2   64   -d agcount=1
lostbtrfs btrfs 2   48   -m single
"

# mkfs_img TYPE LABEL IMAGE MKFS-OPTIONS, in a subshell: sh has no local
# variables, and its callers' type and img must survive it
mkfs_img() (
	type=$1 label=$2 img=$3
	shift 3
	case $type in
	ext*)	mkfs."$type" -q -F -L "$label" "$@" "$img" ;;
	# mkfs.xfs refuses filesystems under 300 MB unless it believes it is
	# run by fstests, which tests small XFS filesystems the same way.
	xfs)	TEST_DIR=1 TEST_DEV=1 QA_CHECK_FS=1 \
		mkfs.xfs -q -f -L "$label" "$@" "$img" ;;
	btrfs)	mkfs.btrfs -q -f -L "$label" "$@" "$img" >/dev/null ;;
	esac
)

mk() {
	name=$1 type=$2 size=$3
	shift 3
	img=$out/$name.img
	truncate -s "$size" "$img"
	mkfs_img "$type" "$name" "$img" "$@"
	uuid=$(blkid -p -o value -s UUID "$img")
	found=$(blkid -p -o value -s TYPE "$img")
	if [ "$found" != "$type" ]; then
		echo "make-images: $img: blkid says '$found', not '$type'" >&2
		exit 1
	fi
	echo "IMG_${name}_FSTYPE=$type" >> "$out/images.env"
	echo "IMG_${name}_UUID=$uuid" >> "$out/images.env"
	echo "$name $img" >> "$out/drives"
}

echo "$IMAGES" | while read -r name type size opts; do
	[ -n "$name" ] || continue
	# shellcheck disable=SC2086
	mk "$name" "$type" "$size" $opts
done
echo "IMAGES=\"$(awk '{ printf "%s%s", sep, $1; sep = " " }' "$out/drives")\"" \
	>> "$out/images.env"

# mk_sliced NAME TYPE SLICES SIZE_MIB MKFS-OPTIONS: one disk of SLICES
# filesystems; the guest finds slice I at sector I * SIZE_MIB * 2048.
mk_sliced() {
	name=$1 type=$2 slices=$3 size=$4
	shift 4
	img=$out/$name.img
	slice=$out/$name.slice
	truncate -s "$((slices * size))M" "$img"
	i=0
	while [ "$i" -lt "$slices" ]; do
		rm -f "$slice"
		truncate -s "${size}M" "$slice"
		mkfs_img "$type" "$name$i" "$slice" "$@"
		found=$(blkid -p -o value -s TYPE "$slice")
		if [ "$found" != "$type" ]; then
			echo "make-images: $name slice $i: blkid says '$found', not '$type'" >&2
			exit 1
		fi
		# btrfs: the first data chunk's offset and length, which the
		# data-lost cases need; FIEMAP gives logical addresses, which
		# they take for device offsets: true of that chunk on a
		# single-profile filesystem, checked here.
		if [ "$type" = btrfs ]; then
			chunk=$(btrfs inspect-internal dump-tree -t chunk "$slice" |
				awk '/CHUNK_ITEM/ { l = $6 + 0; d = 0 }
				     /type DATA/ { d = 1; n = $2 }
				     d && $1 == "stripe" { if ($6 == l) print l, n; exit }')
			if [ -z "$chunk" ]; then
				echo "make-images: $name slice $i: its first data chunk is not mapped one to one" >&2
				exit 1
			fi
		fi
		dd if="$slice" of="$img" bs=1M seek="$((i * size))" conv=notrunc,sparse \
			status=none
		i=$((i + 1))
	done
	rm -f "$slice"
	echo "SLICED_${name}_FSTYPE=$type" >> "$out/images.env"
	echo "SLICED_${name}_COUNT=$slices" >> "$out/images.env"
	echo "SLICED_${name}_MIB=$size" >> "$out/images.env"
	[ "$type" != btrfs ] ||
		echo "SLICED_${name}_DATA_CHUNK=\"$chunk\"" >> "$out/images.env"
	echo "$name $img" >> "$out/drives"
}

echo "$SLICED" | while read -r name type slices size opts; do
	[ -n "$name" ] || continue
	# shellcheck disable=SC2086
	mk_sliced "$name" "$type" "$slices" "$size" $opts
done

# thinpool: zeros (sparse), for the dm-thin pools of 85-writeback.sh: the
# guest cuts a region of THINPOOL_REGION_MIB per case into a metadata and
# a data device.
THINPOOL_REGION_MIB=160
truncate -s "$((THINPOOL_REGION_MIB * 6))M" "$out/thinpool.img"
echo "THINPOOL_REGION_MIB=$THINPOOL_REGION_MIB" >> "$out/images.env"
echo "thinpool $out/thinpool.img" >> "$out/drives"
