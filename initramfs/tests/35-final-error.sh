# Where the filesystems report: only where an operation returns ENOSPC to
# user space, once per failed system call or page fault, and on every path
# that does.
#
# - A short write (some bytes copied, the count returned) is not a failure
#   and sends nothing; the next write(), which returns ENOSPC, sends one.
# - An operation that succeeds on a full btrfs (a read that updates atime,
#   a lookup, a stat) sends nothing and moves no counter.
# - rename, setxattr, ACLs, reflink and dedupe and btrfs subvolume and
#   snapshot creation each send one warning per failed call (XFS write
#   faults: t_xfs_mmap in 40-xfs.sh).
# - The task is named by its filesystem uid (setfsuid()).
# - Kernel threads (the loop worker) are reported alike on every
#   filesystem.
#
# Each case counts the calls that failed and compares them with the events
# fsmsg received for the filesystem and with the kernel's counter, and
# checks that no other filesystem's counter moved.

# fe_begin: rate limiting off, the counters before, fsmsg listening to
# every filesystem (an event for another one fails the case)
fe_begin() {
	ratelimit 0
	counters_all > /tmp/before
	fsmsg_start --json
}

# fe_check NAME WARNING N [UID [COMM]]: after fe_begin and the operations,
# exactly N events arrived, all for /mnt/NAME with WARNING (and, if given,
# the uid UID and command COMM; COMM may be a glob), the kernel's WARNING
# counter for NAME moved by N, and nothing else did.
fe_check() {
	local name=$1 warning=$2 want=$3 uid=${4:-} comm=${5:-} dev line n
	dev=$(sb_dev "$name")
	# Wait for the N events, then a little longer for any extra one.
	[ "$want" -gt 0 ] && wait_for 10 has_lines "$FSMSG_OUT" "$want"
	usleep 500000
	fsmsg_stop
	counters_all > /tmp/after
	sed 's/^/# event: /' "$FSMSG_OUT"

	line=$(awk -v dev="$dev" -v warning="$warning" -v uid="$uid" '
		function field(k, re) {
			if (!match($0, "\"" k "\":" re))
				return "(missing)"
			v = substr($0, RSTART + length(k) + 3, RLENGTH - length(k) - 3)
			gsub(/"/, "", v)
			return v
		}
		{
			d = field("dev", "\"[^\"]*\"")
			w = field("warning", "\"[^\"]*\"")
			u = field("uid", "[0-9]+")
			if (d != dev || w != warning || (uid != "" && u != uid)) {
				printf "event %d: %s %s uid %s, expected %s %s uid %s\n", NR, d, w, u, dev, warning, (uid == "" ? "any" : uid)
				bad = 1
				exit
			}
		}
		END { if (!bad) print NR }' "$FSMSG_OUT")
	case $line in
	event*)	fail "$line" ;;
	esac
	n=$line
	if [ -n "$comm" ]; then
		while read -r line; do
			# shellcheck disable=SC2254
			case $(json_str comm "$line") in
			$comm)	;;
			*)	fail "event from '$(json_str comm "$line")', expected '$comm'" ;;
			esac
		done < "$FSMSG_OUT"
	fi
	expect_eq "$n" "$want" "$warning events for $want failed calls on $name"

	expect_only_counter "$name" "$warning" "$want" \
		"kernel $warning counter delta on $name"
}

# fe_fails N CMD...: run the fsops command CMD N times; each must fail with
# ENOSPC (exit 1)
fe_fails() {
	local i=0 n=$1 rc
	shift
	while [ "$i" -lt "$n" ]; do
		i=$((i + 1))
		fsops "$@" > /dev/null
		rc=$?
		case $rc in
		1)	;;
		0)	fail "fsops $* succeeded (call $i): the filesystem is not full" ;;
		*)	fail "fsops $* failed otherwise (call $i, exit $rc)" ;;
		esac
	done
}

# fill_then_fallocate NAME FILL: FILL (fill_up or nearly_fill) NAME, then
# fallocate 4 KiB at a time until that fails too
fill_then_fallocate() {
	local out
	mkdir -p "/mnt/$1/case.fill2"
	"$2" "$1"
	out=$(alloc_test "/mnt/$1" --mode fallocate -b 4k --keep \
		--workdir-name case.fill2 2>&1) || fail "filling /mnt/$1 with fallocate: $out"
	sync
}

# fill_hard NAME: fill_up, then fallocate: a buffered fill leaves XFS the
# blocks reserved for delayed allocation's metadata and not used (a few
# dozen), enough for a reflink.
fill_hard() {
	fill_then_fallocate "$1" fill_up
}

# fill_alloc NAME: fill /mnt/NAME without buffered writes, for an XFS
# without its reserved block pool, whose writeback of delayed allocations
# would fail.
fill_alloc() {
	fill_then_fallocate "$1" nearly_fill
}

# --- (a) short writes -------------------------------------------------------

# short_write_case NAME: 1 MiB write()s into the last 2 MiB or so of
# /mnt/NAME: one of them copies part of its block and returns the count
# (a short write), the next returns ENOSPC, and two more after it.  Only the
# three ENOSPC returns are reported.
short_write_case() {
	local name=$1 dir=/mnt/$1 out rc failed short
	mkdir "$dir/case.work" || fail "cannot make $dir/case.work"
	nearly_fill "$name"
	# An odd amount, so that the free space is no multiple of the block.
	dd if=/dev/zero of="$dir/case.odd" bs=1k count=333 2> /dev/null ||
		fail "cannot write $dir/case.odd"
	sync
	fe_begin
	out=$(alloc_test "$dir" --mode buffered -b 1M --after-full 2 \
		--workdir-name case.work)
	rc=$?
	note "$out"
	[ "$rc" = 0 ] || fail "alloc_test exited with $rc"
	failed=$(report enospc "$out")
	short=$(report short "$out")
	[ "$short" -ge 1 ] || fail "no short write: the case tests nothing"
	expect_eq "$failed" 3 "write()s that returned ENOSPC"
	fe_check "$name" enospc "$failed" "" alloc_test
}

for name in ext4 btrfs; do
	eval "t_${name}_short_write() { short_write_case $name; }"
	case_add "t_${name}_short_write" "$name: a short write sends nothing, each write() returning ENOSPC one enospc"
done

# XFS reserves a whole write's delayed allocation at once, so 1 MiB writes
# into free space fail whole: the short write is made by a write() that
# overwrites 512 KiB already allocated and then reaches the hole.  The
# control: XFS already reports only the ENOSPC returns.
t_xfs_short_write() {
	local dir=/mnt/xfs out
	dd if=/dev/zero of="$dir/case.short" bs=64k count=8 2> /dev/null ||
		fail "cannot write $dir/case.short"
	sync
	fill_hard xfs
	fe_begin
	out=$(fsops pwrite "$dir/case.short" 0 1048576) ||
		fail "the overwriting write() failed: $out"
	expect_eq "$out" "short 524288" "the overwriting write()"
	fe_fails 3 pwrite "$dir/case.short" 524288 1048576
	fe_check xfs enospc 3 "" fsops
}
case_add t_xfs_short_write "xfs: a short write sends nothing, each write() returning ENOSPC one enospc"

# --- a btrfs full of metadata ----------------------------------------------

# btrfs_full_fill: fill the image btrfs_full with data and then with
# entries until creating one fails, once per boot (later cases find it
# full: its folders are not named case.*, so the runner keeps them).
# Beforehand it gets what the cases use: full.keep/file (8 KiB written,
# atime in 2001), full.keep/dir with a few entries.
BF=/mnt/btrfs_full
btrfs_full_fill() {
	local out i
	[ -e "$BF/full.done" ] && return 0
	mkdir -p "$BF/full.keep/dir" "$BF/full.bulk" "$BF/full.data" "$BF/full.meta" ||
		fail "cannot make folders on $BF"
	dd if=/dev/urandom of="$BF/full.keep/file" bs=4k count=2 2> /dev/null ||
		fail "cannot write $BF/full.keep/file"
	for out in a b c d; do
		: > "$BF/full.keep/dir/$out" || fail "cannot create $BF/full.keep/dir/$out"
	done
	touch -a -d '2001-01-01 00:00:00' "$BF/full.keep/file" "$BF/full.keep/dir" ||
		fail "touch -a"
	: > "$BF/full.done" || fail "cannot create $BF/full.done"
	sync
	out=$(alloc_test "$BF" --mode fallocate -b 1M --keep --workdir-name full.bulk 2>&1)
	case $? in 0|1) ;; *) fail "filling $BF with fallocate: $out" ;; esac
	out=$(alloc_test "$BF" --mode buffered --keep --workdir-name full.data 2>&1) ||
		fail "filling $BF with data: $out"
	out=$(alloc_test "$BF" --mode files --name-len 255 --keep \
		--workdir-name full.meta 2>&1) || fail "filling $BF with entries: $out"
	note "btrfs_full: $out"
	sync
	# A create reserves metadata for 5 items: what is left after the
	# creates failed may still hold a setxattr (2 items), a subvolume, a
	# snapshot, an atime update (1 item).  Then 3000-byte xattrs until a
	# setxattr fails too.
	i=0
	while [ "$i" -lt 3000 ]; do
		i=$((i + 1))
		fsops setxattr "$BF/full.keep/dir" "user.fill.$i" 3000 > /dev/null
		case $? in
		0)	;;
		1)	break ;;
		*)	fail "setxattr $i on $BF/full.keep/dir" ;;
		esac
	done
	note "btrfs_full: $((i - 1)) xattrs set before ENOSPC"
	sync
}

# --- (b) what succeeds on a full btrfs sends nothing -----------------------

# Reads of a file whose atime is updated (strictatime: on every read)
# succeed and send nothing.  The review found that btrfs_dirty_inode()'s
# start_transaction() is counted when it fails for lack of metadata, though
# the read succeeds.  Here, on a btrfs where creating an entry and setting
# an xattr fail, the atime update still finds its one item of metadata, so
# this case and the next pass on the old kernel too: regression tests for
# the new rule (nothing sent for an operation that did not fail).
t_btrfs_read_full() {
	local i=0
	btrfs_full_fill
	mount -o remount,strictatime "$BF" || fail "remount strictatime"
	fe_begin
	while [ "$i" -lt 3 ]; do
		i=$((i + 1))
		cat "$BF/full.keep/file" > /dev/null || fail "read $i of $BF/full.keep/file failed"
		usleep 50000
	done
	fe_check btrfs_full meta-enospc 0
	mount -o remount,relatime "$BF" || fail "remount relatime"
}
case_add t_btrfs_read_full "btrfs: read()s on a full filesystem, updating atime, succeed and send nothing"

# Lookups, stat and readdir on a full btrfs succeed and send nothing.
t_btrfs_lookup_full() {
	local i=0
	btrfs_full_fill
	mount -o remount,strictatime "$BF" || fail "remount strictatime"
	fe_begin
	while [ "$i" -lt 3 ]; do
		i=$((i + 1))
		stat "$BF/full.keep/dir/a" "$BF/full.keep/file" > /dev/null ||
			fail "stat $i failed"
		ls -l "$BF/full.keep/dir" > /dev/null || fail "ls -l $i failed"
		[ ! -e "$BF/full.keep/dir/none.$i" ] || fail "none.$i exists"
		usleep 50000
	done
	fe_check btrfs_full meta-enospc 0
	mount -o remount,relatime "$BF" || fail "remount relatime"
}
case_add t_btrfs_lookup_full "btrfs: lookups, stat and readdir on a full filesystem succeed and send nothing"

# --- (c) paths that fail and must report ------------------------------------

# btrfs subvolume and snapshot creation on a full btrfs: one meta-enospc
# each.
t_btrfs_subvol_full() {
	btrfs_full_fill
	fe_begin
	fe_fails 1 subvol "$BF" full.sv.1
	fe_fails 1 subvol "$BF" full.sv.2
	fe_fails 1 subvol "$BF" full.sv.3
	fe_check btrfs_full meta-enospc 3 "" fsops
}
case_add t_btrfs_subvol_full "btrfs: BTRFS_IOC_SUBVOL_CREATE on a full filesystem sends one meta-enospc per failed call"

t_btrfs_snapshot_full() {
	btrfs_full_fill
	fe_begin
	fe_fails 1 snapshot "$BF" "$BF" full.snap.1
	fe_fails 1 snapshot "$BF" "$BF" full.snap.2
	fe_fails 1 snapshot "$BF" "$BF" full.snap.3
	fe_check btrfs_full meta-enospc 3 "" fsops
}
case_add t_btrfs_snapshot_full "btrfs: BTRFS_IOC_SNAP_CREATE_V2 on a full filesystem sends one meta-enospc per failed call"

# rename_case NAME: files with 250-byte names are renamed one by one into
# another folder of the full /mnt/NAME; the renames succeed while its
# blocks have room, the first that needs a new directory block fails with
# ENOSPC, and two more after it: three meta-enospc.
LONG=$(printf '%0250d' 0)
rename_case() {
	local name=$1 dir=/mnt/$1 i=0 failed=0 rc
	mkdir "$dir/case.src" "$dir/case.dst" || fail "cannot make folders"
	while [ "$i" -lt 64 ]; do
		i=$((i + 1))
		: > "$dir/case.src/$LONG.$i" || fail "cannot create entry $i"
	done
	fill_up "$name"
	fe_begin
	i=0
	while [ "$i" -lt 64 ] && [ "$failed" -lt 3 ]; do
		i=$((i + 1))
		fsops rename "$dir/case.src/$LONG.$i" "$dir/case.dst/$LONG.$i" > /dev/null
		rc=$?
		case $rc in
		0)	;;
		1)	failed=$((failed + 1)) ;;
		*)	fail "rename $i failed otherwise (exit $rc)" ;;
		esac
	done
	note "$((i - failed)) renames succeeded, $failed failed with ENOSPC"
	[ "$failed" = 3 ] || fail "$failed renames failed with ENOSPC, expected 3"
	fe_check "$name" meta-enospc 3 "" fsops
}

t_ext4_rename_full() { rename_case ext4; }
case_add t_ext4_rename_full "ext4: rename() needing a new directory block on a full filesystem sends one meta-enospc per failed call"
t_xfs_rename_full() { rename_case xfs; }
case_add t_xfs_rename_full "xfs: rename() needing a new directory block on a full filesystem sends one meta-enospc per failed call"

# RENAME_EXCHANGE swaps the inodes of two entries that exist and allocates
# nothing on ext4 (ext4_cross_rename() rewrites both entries in place), even
# with a full directory block on a full filesystem: it succeeds and sends
# nothing.  A regression test: the old kernel already behaves so.
t_ext4_exchange_full() {
	local dir=/mnt/ext4 i=0
	mkdir "$dir/case.src" "$dir/case.dst" || fail "cannot make folders"
	while [ "$i" -lt 16 ]; do
		i=$((i + 1))
		: > "$dir/case.dst/$LONG.$i" || fail "cannot create entry $i"
	done
	mkdir "$dir/case.src/$LONG.d" || fail "cannot make a folder to exchange"
	fill_up ext4
	fe_begin
	fsops exchange "$dir/case.src/$LONG.d" "$dir/case.dst/$LONG.1" > /dev/null ||
		fail "RENAME_EXCHANGE of a folder and a file failed on a full ext4"
	[ -d "$dir/case.dst/$LONG.1" ] || fail "the exchange did not happen"
	fsops exchange "$dir/case.src/$LONG.d" "$dir/case.dst/$LONG.1" > /dev/null ||
		fail "the exchange back failed"
	fe_check ext4 meta-enospc 0
}
case_add t_ext4_exchange_full "ext4: RENAME_EXCHANGE on a full filesystem, allocating nothing, succeeds and sends nothing"

# XFS xattrs on a full filesystem: a 32 KiB value (remote blocks) cannot
# be stored, one meta-enospc per setxattr().
t_xfs_setxattr_full() {
	local dir=/mnt/xfs
	: > "$dir/case.x" || fail "cannot create $dir/case.x"
	fill_hard xfs
	fe_begin
	fe_fails 1 setxattr "$dir/case.x" user.big.1 32768
	fe_fails 1 setxattr "$dir/case.x" user.big.2 32768
	fe_fails 1 setxattr "$dir/case.x" user.big.3 32768
	fe_check xfs meta-enospc 3 "" fsops
}
case_add t_xfs_setxattr_full "xfs: setxattr() on a full filesystem sends one meta-enospc per failed call"

# An ACL is a root-namespace xattr, which may draw on XFS's reserved block
# pool: the pool is emptied for the case (and restored), so that a 500-user
# access ACL (an attribute leaf block) fails like any other metadata.
t_xfs_acl_full() {
	local dir=/mnt/xfs res
	: > "$dir/case.acl" || fail "cannot create $dir/case.acl"
	fsops acl "$dir/case.acl" 2 > /dev/null || fail "a small ACL cannot be set"
	res=$(fsops xfsresblks "$dir") || fail "XFS_IOC_GET_RESBLKS"
	note "reserved blocks: $res"
	# shellcheck disable=SC2064
	trap "fsops xfsresblks $dir ${res%% *} > /dev/null" EXIT
	# Before filling: emptying the pool returns its blocks to free space.
	fsops xfsresblks "$dir" 0 > /dev/null || fail "XFS_IOC_SET_RESBLKS 0"
	fill_alloc xfs
	fe_begin
	fe_fails 3 acl "$dir/case.acl" 500
	fe_check xfs meta-enospc 3 "" fsops
}
case_add t_xfs_acl_full "xfs: setting a POSIX ACL on a full filesystem sends one meta-enospc per failed call"

# Reflink and dedupe on a full XFS: one meta-enospc per failed FICLONE,
# FICLONERANGE or FIDEDUPERANGE (whose per-range status carries the
# ENOSPC).  Each extent is remapped in a transaction that reserves blocks
# for a mapping btree split, and a full XFS may have just that many left:
# the source has 1536 extents (holes between), so that mapping them into
# the destination (an empty file; for dedupe a file with the same data and
# no holes, whose mapping the holes then split) needs more mapping btree
# blocks than are left, and the remap fails part way, at the same place
# again on the next call.  Dedupe frees the destination's blocks as it
# goes, so its case first uses up the last blocks with such a clone (which
# fails), and then dedupes one block: its transaction's reservation fails.
xfs_remap_case() {
	local dir=/mnt/xfs op=$1 len=$((1536 * 8192))
	fsops fragment "$dir/case.src" 1536 || fail "cannot write $dir/case.src"
	if [ "$op" = dedupe ]; then
		# the data of the source's first block
		fsops write "$dir/case.dst" 4096 || fail "cannot write $dir/case.dst"
	fi
	# The control: the image has reflink (mkfs.xfs default since 5.19).
	: > "$dir/case.ctl" || fail "cannot create $dir/case.ctl"
	fsops clonerange "$dir/case.src" "$dir/case.ctl" 8192 ||
		fail "FICLONERANGE fails on an XFS with room: no reflink?"
	rm -f "$dir/case.ctl"
	: > "$dir/case.clone" && : > "$dir/case.scratch" ||
		fail "cannot create the destinations"
	fill_hard xfs
	if [ "$op" = dedupe ]; then
		fsops clone "$dir/case.src" "$dir/case.scratch" > /dev/null
		[ $? = 1 ] || fail "FICLONE did not fail with ENOSPC on a full XFS"
	fi
	note "free: $(df -k "$dir" | awk 'NR == 2 { print $4 }') KiB"
	fe_begin
	case $op in
	clone)		fe_fails 3 clone "$dir/case.src" "$dir/case.clone" ;;
	clonerange)	fe_fails 3 clonerange "$dir/case.src" "$dir/case.clone" "$len" ;;
	dedupe)		fe_fails 3 dedupe "$dir/case.src" "$dir/case.dst" 4096 ;;
	esac
	fe_check xfs meta-enospc 3 "" fsops
}
for op in clone clonerange dedupe; do
	eval "t_xfs_${op}_full() { xfs_remap_case $op; }"
done
case_add t_xfs_clone_full "xfs: FICLONE on a full filesystem sends one meta-enospc per failed call"
case_add t_xfs_clonerange_full "xfs: FICLONERANGE on a full filesystem sends one meta-enospc per failed call"
case_add t_xfs_dedupe_full "xfs: FIDEDUPERANGE on a full filesystem sends one meta-enospc per failed call"

# --- (d) the task is named by its filesystem uid -----------------------------

# Root with fsuid 65534 fails writes on a full filesystem: the warnings
# carry uid 65534.  The files are made (and given to 65534) in a
# world-writable folder beforehand: creating one could fail first, for
# metadata (XFS allocates inode chunks).  The control: with fsuid 65534
# the task cannot create in a folder only root may write to.
fsuid_case() {
	local name=$1 dir=/mnt/$1
	mkdir "$dir/case.fsuid" "$dir/case.rootonly" && chmod 1777 "$dir/case.fsuid" ||
		fail "cannot make the folders"
	: > "$dir/case.fsuid/f.1" && : > "$dir/case.fsuid/f.2" &&
		chown 65534 "$dir/case.fsuid/f.1" "$dir/case.fsuid/f.2" ||
		fail "cannot make the files"
	fsops fsuid 65534 create "$dir/case.rootonly/f" 2> /tmp/fsuid.err
	[ $? = 2 ] && grep -q 'Permission denied' /tmp/fsuid.err ||
		fail "fsuid 65534 could create in a folder only root may write to"
	fill_up "$name"
	fe_begin
	fe_fails 1 fsuid 65534 write "$dir/case.fsuid/f.1" 4096
	fe_fails 1 fsuid 65534 write "$dir/case.fsuid/f.2" 4096
	fe_check "$name" enospc 2 65534 fsops
}
for name in ext4 xfs btrfs; do
	eval "t_${name}_fsuid() { fsuid_case $name; }"
	case_add "t_${name}_fsuid" "$name: a task with fsuid 65534 (uid 0) is reported as uid 65534"
done

# --- (e) kernel threads ------------------------------------------------------

# A loop device backed by a sparse file on the full /mnt/NAME: O_DIRECT
# writes of 64 KiB to it make the loop worker (a kernel thread) fail its
# writes to the backing file with ENOSPC, which is reported as enospc on
# /mnt/NAME, on btrfs as on ext4 and XFS.  Each write to the device is one
# loop request, which the worker ends at its first failed backing write:
# one event per failed write to the device, and the kernel's counter equal
# to the events received.
loop_case() {
	local name=$1 dir=/mnt/$1 lo i=0 rc dev n line
	[ -e /dev/loop-control ] || [ -b /dev/loop0 ] ||
		fail "no loop device: the kernel lacks CONFIG_BLK_DEV_LOOP"
	truncate -s 8M "$dir/case.loop" || fail "truncate"
	fill_up "$name"
	lo=$(losetup -f) || fail "losetup -f"
	losetup "$lo" "$dir/case.loop" || fail "losetup $lo"
	# shellcheck disable=SC2064
	trap "losetup -d $lo" EXIT
	fe_begin
	while [ "$i" -lt 3 ]; do
		i=$((i + 1))
		fsops write "$lo" 65536 direct > /tmp/loop.err 2>&1
		rc=$?
		[ "$rc" != 0 ] || fail "write $i to $lo succeeded: the backing filesystem is not full"
		note "write $i to $lo: $(cat /tmp/loop.err) (exit $rc)"
	done
	dev=$(sb_dev "$name")
	wait_for 10 has_lines "$FSMSG_OUT" 3
	usleep 500000
	fsmsg_stop
	counters_all > /tmp/after
	sed 's/^/# event: /' "$FSMSG_OUT"
	n=$(grep -c "\"dev\":\"$dev\",.*\"warning\":\"enospc\"\|\"warning\":\"enospc\".*\"dev\":\"$dev\"" "$FSMSG_OUT")
	expect_eq "$(lines "$FSMSG_OUT")" "$n" "events that are enospc on $name"
	expect_eq "$n" 3 "enospc events on $name for 3 failed writes to $lo"
	while read -r line; do
		case $(json_str comm "$line") in
		kworker*|loop*)	;;
		*)	fail "event from '$(json_str comm "$line")', not the loop worker" ;;
		esac
	done < "$FSMSG_OUT"
	expect_only_counter "$name" enospc "$n" "kernel enospc counter delta on $name"
}
for name in ext4 xfs btrfs; do
	eval "t_${name}_loop_kthread() { loop_case $name; }"
	case_add "t_${name}_loop_kthread" "$name: the loop worker's failed writes to a backing file are reported as enospc"
done
