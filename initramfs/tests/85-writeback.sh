# Data lost at writeback (FS_MSG type data-lost).  Each case copies a
# filesystem onto a dm-thin volume whose pool it then fills, so that
# writes of new data succeed into the page cache and fail at writeback:
# the pool has no block left to give them.  The copy provisions every
# block of the volume (journal and metadata included); fstrim then gives
# the filesystem's free blocks back to the pool, and a second thin volume
# takes all of them, so that only the file data a case writes needs a
# block the pool cannot give, and its metadata and journal writes still
# succeed.  fsmsg listens to every filesystem: a message about another one
# fails the case.

# thin_create I DISK [MODE [REGION]]: slice I of DISK (lostext4, lostxfs,
# lostbtrfs) copied onto a thin volume $THIN_DEV (device name $THIN_NAME)
# in a pool of the same size, in region REGION (I) of the thinpool disk; MODE
# error_if_no_space (default) or queue.  The pool is $THIN_POOL, full.
thin_create() {
	local i=$1 name=$2 mode=${3:-error_if_no_space} region=${4:-$1}
	local disk scratch mib sectors
	local base out meta data features
	disk=$(disk "$name") || fail "no disk with serial $name"
	scratch=$(disk thinpool) || fail "no disk with serial thinpool"
	eval "mib=\${SLICED_${name}_MIB}"
	sectors=$((mib * 2048))
	base=$((region * THINPOOL_REGION_MIB * 2048))
	THIN_PREFIX=fsmsg_thin$region
	trap thin_remove EXIT
	# 4 MiB of metadata, zeroed: the pool formats it.
	out=$(dmctl create "${THIN_PREFIX}m" "0 8192 linear $scratch $base") ||
		fail "dmctl create metadata: $out"
	meta=${out#* }
	dd if=/dev/zero of="$meta" bs=4096 count=1 2>/dev/null ||
		fail "zeroing the pool's metadata"
	out=$(dmctl create "${THIN_PREFIX}d" \
		"0 $sectors linear $scratch $((base + 8192))") ||
		fail "dmctl create data: $out"
	data=${out#* }
	# 64 KiB blocks; low water mark 0.
	features="1 skip_block_zeroing"
	[ "$mode" = error_if_no_space ] &&
		features="2 skip_block_zeroing error_if_no_space"
	out=$(dmctl create "${THIN_PREFIX}p" \
		"0 $sectors thin-pool $meta $data 128 0 $features") ||
		fail "dmctl create thin-pool: $out"
	THIN_POOL=${out#* }
	dmctl message "${THIN_PREFIX}p" 0 create_thin 0 > /dev/null ||
		fail "create_thin 0"
	out=$(dmctl create "${THIN_PREFIX}t" "0 $sectors thin $THIN_POOL 0") ||
		fail "dmctl create thin: $out"
	THIN_DEV=${out#* }
	THIN_NAME=${THIN_DEV##*/}
	dd if="$disk" of="$THIN_DEV" bs=1M skip=$((i * mib)) count="$mib" \
		2>/dev/null || fail "copying $name slice $i onto the thin volume"
	expect_eq "$(thin_free)" 0 "free pool blocks after the copy"
}

# thin_free: the pool's free data blocks, from its status line
# "START LENGTH thin-pool TID USED/TOTAL(meta) USED/TOTAL(data) ..."
thin_free() {
	dmctl status "${THIN_PREFIX}p" |
		awk '{ split($6, d, "/"); print d[2] - d[1] }'
}

# thin_mount TYPE OPTIONS: mount $THIN_DEV at $THIN_MNT, give its free
# blocks back to the pool with fstrim, write and fsync one file with room
# (the negative control: it must report nothing), then take every free
# pool block with a second thin volume
thin_mount() {
	local free out
	THIN_MNT=/mnt/case-thin-$THIN_PREFIX
	mkdir -p "$THIN_MNT"
	mount -t "$1" -o "$2" "$THIN_DEV" "$THIN_MNT" ||
		fail "mount $THIN_DEV -o $2"
	fstrim "$THIN_MNT" || fail "fstrim $THIN_MNT"
	# XFS's discards may still be in flight when fstrim returns.
	wait_for 5 thin_room ||
		fail "fstrim gave back $(thin_free) pool blocks"
	[ -z "${THIN_AFTER_TRIM:-}" ] || "$THIN_AFTER_TRIM" "$1" "$2"
	echo room > "$THIN_MNT/room" && fsops fsync "$THIN_MNT/room" ||
		fail "a write with room in the pool failed"
	free=$(thin_free)
	dmctl message "${THIN_PREFIX}p" 0 create_thin 1 > /dev/null ||
		fail "create_thin 1"
	out=$(dmctl create "${THIN_PREFIX}f" \
		"0 $((free * 128)) thin $THIN_POOL 1") ||
		fail "dmctl create the filler volume: $out"
	dd if=/dev/zero of="${out#* }" bs=64k count="$free" 2>/dev/null ||
		fail "filling the pool"
	expect_eq "$(thin_free)" 0 "free pool blocks after the filler"
	note "pool full: the filler took $free blocks of 64 KiB"
}

# btrfs_data_only: fstrim gave back free space in btrfs's metadata chunk
# too, where btrfs COWs its tree blocks: unmount, write everything but the
# first data chunk back in place, so that the pool holds it again and only
# file data needs a block the pool cannot give, and mount again
# (THIN_AFTER_TRIM for thin_mount; arguments TYPE OPTIONS)
btrfs_data_only() {
	local start len
	# shellcheck disable=SC2086 # "offset length" in bytes
	set -- "$@" $SLICED_lostbtrfs_DATA_CHUNK
	start=$(($3 / 65536)) len=$(($4 / 65536))
	umount "$THIN_MNT" || fail "umount $THIN_MNT"
	dd if="$THIN_DEV" of="$THIN_DEV" bs=64k count="$start" conv=notrunc \
		2>/dev/null &&
		dd if="$THIN_DEV" of="$THIN_DEV" bs=64k skip=$((start + len)) \
			seek=$((start + len)) conv=notrunc 2>/dev/null &&
		sync || fail "writing back all but the data chunk"
	mount -t "$1" -o "$2" "$THIN_DEV" "$THIN_MNT" ||
		fail "mount $THIN_DEV -o $2 again"
	thin_room || fail "only $(thin_free) pool blocks left for data"
}

# thin_room: fstrim gave the pool more than 8 blocks back, and no more
# come back within 200 ms
thin_room() {
	local a b
	a=$(thin_free)
	usleep 200000
	b=$(thin_free)
	[ "$a" = "$b" ] && [ "$b" -gt 8 ]
}

thin_remove() {
	local t
	killall -q -KILL fsmsg 2>/dev/null
	[ -n "${THIN_OLD_TIMEOUT:-}" ] &&
		echo "$THIN_OLD_TIMEOUT" > "$THIN_TIMEOUT_PARAM"
	[ -n "${THIN_MNT:-}" ] && umount "$THIN_MNT" 2>/dev/null
	for t in f t p d m; do
		dmctl remove "$THIN_PREFIX$t" > /dev/null 2>&1
	done
}

# lost_lines: the data-lost messages fsmsg printed
lost_lines() {
	grep -c '"warning":"data-lost"' "$FSMSG_OUT"
}

# lost_count: the kernel's data-lost count for the thin volume, from the
# dump
lost_count() {
	ERR_DEV=$THIN_DEV err_count data-lost
}

# lost_write N: write N new files lost0.. ($LOST_SIZE bytes each, or a
# line) and fsync each, which must fail with ENOSPC; their inode numbers
# in $LOST_INODES
lost_write() {
	local i=0 out
	LOST_INODES=
	while [ "$i" -lt "$1" ]; do
		if [ -n "${LOST_SIZE:-}" ]; then
			fsops write "$THIN_MNT/lost$i" "$LOST_SIZE"
		else
			echo "lost $i" > "$THIN_MNT/lost$i"
		fi || fail "the buffered write of lost$i failed"
		LOST_INODES="$LOST_INODES $(stat -c %i "$THIN_MNT/lost$i")"
		out=$(fsops fsync "$THIN_MNT/lost$i" 2>&1) &&
			fail "fsync of lost$i succeeded with the pool full"
		[ "$out" = ENOSPC ] ||
			fail "fsync of lost$i: '$out', expected ENOSPC"
		i=$((i + 1))
	done
}

# lost_check N ERRNO: fsmsg printed N data-lost messages, each for our
# device and $LOST_FSTYPE (ext4) with ERRNO, the inode of one of lost0..
# in order, offset 0 and length $LOST_LENGTH (one block, 4096); the dump
# counts N
lost_check() {
	local n=0 line ino
	fsmsg_wait_lines "$1"
	expect_eq "$(lost_lines)" "$1" "data-lost messages"
	for ino in $LOST_INODES; do
		n=$((n + 1))
		line=$(grep '"warning":"data-lost"' "$FSMSG_OUT" | sed -n "${n}p")
		expect_eq "$(json_str device "$line")" "$THIN_NAME" "device of message $n"
		expect_eq "$(json_str fstype "$line")" "${LOST_FSTYPE:-ext4}" \
			"fstype of message $n"
		expect_eq "$(json_num errno "$line")" "$2" "errno of message $n"
		expect_eq "$(json_num inode "$line")" "$ino" "inode of message $n"
		expect_eq "$(json_num offset "$line")" 0 "offset of message $n"
		expect_eq "$(json_num length "$line")" "${LOST_LENGTH:-4096}" \
			"length of message $n"
		expect_eq "$(json_str severity "$line")" error "severity of message $n"
		case $line in
		*'"uid":null,"pid":null,"comm":null,'*) ;;
		*) fail "data-lost with task attributes: $line" ;;
		esac
	done
	expect_eq "$(lost_count)" "$1" "data-lost count in the dump"
	ERR_DEV=$THIN_DEV err_only_ours
}

# thin_full TYPE IMAGE MOUNT-OPTIONS REGION: three files lost on a full
# pool in REGION of the thinpool disk, then the negative controls
thin_full() {
	thin_create 0 "$2" error_if_no_space "$4"
	thin_mount "$1" "$3"
	ratelimit 0
	fsmsg_start --json
	lost_write 3
	lost_check 3 28
	# Negative controls: the failed data reads back from the page cache, a
	# second fsync finds nothing left to write, an overwrite in place of
	# a block the pool has (no O_TRUNC: ext4 would allocate anew), and its
	# fsync, succeed: none reports anything.
	cat "$THIN_MNT/lost0" > /dev/null || fail "reading lost0 back"
	fsops fsync "$THIN_MNT/lost0" || fail "the second fsync of lost0 failed"
	fsops pwrite "$THIN_MNT/room" 0 5 && fsops fsync "$THIN_MNT/room" ||
		fail "an overwrite in place of provisioned blocks failed"
	usleep 500000
	expect_eq "$(lines "$FSMSG_OUT")" 3 "messages after the controls"
	expect_eq "$(lost_count)" 3 "data-lost count after the controls"
	expect_eq "$(ERR_DEV=$THIN_DEV err_count fs-error)" 0 "fs-error count"
	expect_eq "$(ERR_DEV=$THIN_DEV err_count shutdown)" 0 "shutdown count"
}

case_ext4_thin_full() {
	thin_full ext4 lostext4 errors=remount-ro 0
}
case_add case_ext4_thin_full "ext4 on a full thin pool (error_if_no_space): fsync ENOSPC, one data-lost per file"

THIN_TIMEOUT_PARAM=/sys/module/dm_thin_pool/parameters/no_space_timeout

case_ext4_thin_timeout() {
	local t0 t1
	# Writes needing a block queue until the pool's timeout, 2 s: the pool
	# reads it when it runs out of space, in lost_write.
	THIN_OLD_TIMEOUT=$(cat "$THIN_TIMEOUT_PARAM") ||
		fail "no $THIN_TIMEOUT_PARAM"
	thin_create 1 lostext4 queue
	thin_mount ext4 errors=remount-ro
	echo 2 > "$THIN_TIMEOUT_PARAM" || fail "setting no_space_timeout"
	fsmsg_start --json
	t0=$(cut -d' ' -f1 /proc/uptime)
	lost_write 1
	t1=$(cut -d' ' -f1 /proc/uptime)
	echo "$THIN_OLD_TIMEOUT" > "$THIN_TIMEOUT_PARAM"
	THIN_OLD_TIMEOUT=
	# The fsync waited for the timeout, not failed at once.
	awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a >= 1.5) }' ||
		fail "fsync failed after $t0..$t1 s, before the 2 s timeout"
	lost_check 1 28
	expect_eq "$(ERR_DEV=$THIN_DEV err_count fs-error)" 0 "fs-error count"
}
# XFS: 128 KiB files, so that each needs at least one pool block that
# fstrim gave back (a new 4 KiB file could land in a block the pool still
# has for the metadata beside it); one ioend, so one message, per file.
# XFS retries a failed metadata write forever when the error is ENOSPC (its
# default): should a metadata block land where the pool has no block, the
# case would hang on the log.  Make XFS give up at once instead, so that
# it shuts down and the shutdown count says so.
xfs_fail_fast() {
	local f=/sys/fs/xfs/$THIN_NAME/error/metadata/ENOSPC/max_retries
	echo 0 > "$f" || fail "cannot set $f"
}

case_xfs_thin_full() {
	LOST_FSTYPE=xfs LOST_SIZE=131072 LOST_LENGTH=131072
	THIN_AFTER_TRIM=xfs_fail_fast
	thin_full xfs lostxfs defaults 2
}
case_add case_xfs_thin_full "xfs on a full thin pool (error_if_no_space): fsync ENOSPC, one data-lost per file"

# btrfs: 128 KiB files as for XFS, one ordered extent, so one message,
# each; the metadata chunk keeps its pool blocks (btrfs_data_only).
case_btrfs_thin_full() {
	LOST_FSTYPE=btrfs LOST_SIZE=131072 LOST_LENGTH=131072
	THIN_AFTER_TRIM=btrfs_data_only
	thin_full btrfs lostbtrfs defaults 3
}
case_add case_btrfs_thin_full "btrfs on a full thin pool (error_if_no_space): fsync ENOSPC, one data-lost per file"

case_add case_ext4_thin_timeout "ext4 on a full thin pool (queue, no_space_timeout 2 s): data-lost ENOSPC after the timeout"

# eio_table SECTORS BASE BAD...: a linear table of slice SECTORS long at
# BASE of the disk, with an error target over 4 KiB at each BAD byte
# offset (ascending)
eio_table() {
	local len=$1 base=$2 at=0 bad
	shift 2
	for bad in "$@"; do
		bad=$((bad / 512))
		[ "$bad" -gt "$at" ] &&
			echo "$at $((bad - at)) linear $EIO_DISK $((base + at))"
		echo "$bad 8 error"
		at=$((bad + 8))
	done
	echo "$at $((len - at)) linear $EIO_DISK $((base + at))"
}

# eio_run TYPE IMAGE SLICE HOW: TYPE on slice SLICE of IMAGE over a dm
# device that fails 4 KiB under lost0 and under readerr; HOW unwritten
# (lost0 fallocated: the ioend converts an unwritten extent) or overwrite
# (lost0 written and synced first: an overwrite inside EOF, which XFS
# completes in bio context)
eio_run() {
	local mib sectors base out p_lost p_read table
	EIO_DISK=$(disk "$2") || fail "no disk with serial $2"
	eval "mib=\${SLICED_${2}_MIB}"
	sectors=$((mib * 2048))
	base=$(($3 * sectors))
	THIN_PREFIX=fsmsg_eio
	trap 'killall -q -KILL fsmsg; umount "$THIN_MNT"; dmctl remove fsmsg_eio' EXIT
	out=$(dmctl create fsmsg_eio "0 $sectors linear $EIO_DISK $base") ||
		fail "dmctl create: $out"
	THIN_DEV=${out#* }
	THIN_NAME=${THIN_DEV##*/}
	THIN_MNT=/mnt/case-eio
	mkdir -p "$THIN_MNT"
	mount -t "$1" "$THIN_DEV" "$THIN_MNT" || fail "mount $THIN_DEV"
	# lost0: an unwritten extent, whose blocks the device will fail to
	# write; readerr: data on disk, which the device will fail to read.
	if [ "$4" = unwritten ]; then
		fsops fallocate "$THIN_MNT/lost0" 4096
	else
		fsops write "$THIN_MNT/lost0" 4096
	fi || fail "preparing lost0"
	# 4 KiB: btrfs would keep a line inline in its metadata.
	fsops write "$THIN_MNT/readerr" 4096 || fail "writing readerr"
	fsops fsync "$THIN_MNT/readerr" && fsops fsync "$THIN_MNT/lost0" ||
		fail "fsync with a healthy device"
	p_lost=$(fsops fiemap "$THIN_MNT/lost0") || fail "fiemap lost0"
	p_read=$(fsops fiemap "$THIN_MNT/readerr") || fail "fiemap readerr"
	LOST_INODES=$(stat -c %i "$THIN_MNT/lost0")
	echo 3 > /proc/sys/vm/drop_caches
	if [ "$p_lost" -lt "$p_read" ]; then
		table=$(eio_table "$sectors" "$base" "$p_lost" "$p_read")
	else
		table=$(eio_table "$sectors" "$base" "$p_read" "$p_lost")
	fi
	# shellcheck disable=SC2086 # one argument per table line
	(IFS='
'; dmctl load fsmsg_eio $table) > /dev/null || fail "dmctl load: $table"
	dmctl suspend fsmsg_eio > /dev/null && dmctl resume fsmsg_eio > /dev/null ||
		fail "dmctl suspend/resume"
	ratelimit 0
	fsmsg_start --json
	# Negative control: a read error is no data lost.
	cat "$THIN_MNT/readerr" > /dev/null 2>&1 &&
		fail "reading readerr over the error target succeeded"
	fsops pwrite "$THIN_MNT/lost0" 0 4096 ||
		fail "the buffered write of lost0 failed"
	out=$(fsops fsync "$THIN_MNT/lost0" 2>&1) &&
		fail "fsync of lost0 succeeded over the error target"
	case $out in
	*"Input/output error"*) ;;
	*) fail "fsync of lost0: '$out', expected EIO" ;;
	esac
	lost_check 1 5
	expect_eq "$(ERR_DEV=$THIN_DEV err_count fs-error)" 0 "fs-error count"
	expect_eq "$(ERR_DEV=$THIN_DEV err_count shutdown)" 0 "shutdown count"
}

case_ext4_eio() {
	eio_run ext4 lostext4 2 unwritten
}
case_add case_ext4_eio "ext4 over a failing disk (error target under an unwritten extent): fsync EIO, one data-lost EIO; a read error reports nothing"

# An overwrite io_end, released in bio completion: the failed bio waits
# on the io_end for the report, the successful ones do not.
case_ext4_eio_overwrite() {
	eio_run ext4 lostext4 2 overwrite
}
case_add case_ext4_eio_overwrite "ext4 over a failing disk (error target under an overwrite in place): fsync EIO, one data-lost EIO; a read error reports nothing"

case_xfs_eio() {
	LOST_FSTYPE=xfs
	eio_run xfs lostxfs 1 overwrite
}
case_add case_xfs_eio "xfs over a failing disk (error target under an overwrite inside EOF, completed in bio context): fsync EIO, one data-lost EIO; a read error reports nothing"

# btrfs writes a fallocated (prealloc) extent in place rather than COW, so
# the error target under it fails the write; the slice's first data chunk
# is mapped one to one (scripts/make-images.sh checks), so FIEMAP's logical
# address is the device offset.
case_btrfs_eio() {
	LOST_FSTYPE=btrfs
	eio_run btrfs lostbtrfs 1 unwritten
}
case_add case_btrfs_eio "btrfs over a failing disk (error target under a prealloc extent): fsync EIO, one data-lost EIO; a read error reports nothing"
