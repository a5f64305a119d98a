#!/bin/sh
# make bench, one boot: run every workload once on ext4, XFS and btrfs and
# print one line per figure:
#   BENCH fs=FS workload=NAME value=NUMBER unit=UNIT
# The host boots the baseline and the patched kernel in turn and compares.
# Workloads that need the FS_MSG family run only when the kernel has it.

. /lib/guest.sh

# Sizes: each workload runs for seconds under TCG, so noise averages out.
WRITE_BYTES=${WRITE_BYTES:-32M}
CREATES=${CREATES:-3000}
MKDIRS=${MKDIRS:-1000}
FAILING=${FAILING:-2000}
FAILING_BTRFS_CREATES=${FAILING_BTRFS_CREATES:-400}
SLEEPER_WRITES=${SLEEPER_WRITES:-20000}
SLEEPER_BTRFS_WRITES=${SLEEPER_BTRFS_WRITES:-400}
LATENCY_WARNINGS=${LATENCY_WARNINGS:-1000}
FLOOD_THREADS=${FLOOD_THREADS:-4}
FLOOD_SECONDS=${FLOOD_SECONDS:-10}
FILTERED_LISTENERS=${FILTERED_LISTENERS:-63}
FILTERED_WRITES=${FILTERED_WRITES:-20000}
FSYNC_BYTES=${FSYNC_BYTES:-2M}
FSYNC_RAM_BYTES=${FSYNC_RAM_BYTES:-4M}
FSYNC_RAM_RUNS=${FSYNC_RAM_RUNS:-10}
# fsmsg.bench=normal on the kernel command line (BENCH_PART=normal make
# bench): only the normal path, section 1; fsmsg.bench=filtered: only the
# listeners filtered in the kernel, section 7; fsmsg.bench=btrfs: only the
# failing operations on btrfs, sections 2, 4 and 5; fsmsg.bench=fsync:
# only the writes each fsync()ed on RAM disks, section 8.
BENCH_PART=$(sed -n 's/.*fsmsg\.bench=\([a-z]*\).*/\1/p' /proc/cmdline)

fail() {
	echo "BENCH-ERROR $*"
	exit 1
}

bench() {
	echo "BENCH fs=$1 workload=$2 value=$3 unit=$4"
}

# rate NAME FS ARGS...: run alloc_test, print its operations per second
# (ops_per_sec for floods, ops / elapsed otherwise)
rate() {
	local name=$1 fs=$2 out ops elapsed v
	shift 2
	out=$(alloc_test "/mnt/$fs" "$@") || [ $? = 1 ] || fail "$fs $name: $out"
	v=$(report ops_per_sec "$out")
	if [ -z "$v" ]; then
		ops=$(report ops "$out")
		elapsed=$(report elapsed "$out")
		v=$(awk -v o="$ops" -v e="$elapsed" 'BEGIN { printf "%.1f", o / e }')
	fi
	bench "$fs" "$name" "$v" ops/s
}

have_family() {
	[ -d /proc/sys/fs/fs_msg ]
}

echo "BENCH-KERNEL $(uname -r) fs_msg=$(have_family && echo yes || echo no)"

# busy_ms: the guest's non-idle time so far (/proc/stat's first line, in
# milliseconds: every field but idle and iowait)
busy_ms() {
	awk '/^cpu / { print ($2 + $3 + $4 + $7 + $8 + $9) * 10; exit }' /proc/stat
}

# 8. Writes each fsync()ed on RAM disks (fsmsg.bench=fsync; run alone).
# On the virtio disks every fsync() waits for the host's disk image, a
# wait that -icount does not count, so two boots of one kernel differed
# by 2x.  brd completes each bio in the submitter's context from guest
# memory: the whole write, writeback, completion and journal commit are
# guest instructions, which -icount makes repeatable.  Each filesystem's
# fresh image is copied onto its own RAM disk (brd.rd_nr=3, brd.rd_size
# on the command line) and mounted at /mnt/FS; the virtio disk is never
# mounted, so btrfs and XFS see one copy of each UUID.  The completion
# hooks of the data-lost patches run on this path for every bio.
fsync_ram() {
	local fs dev ram=0 busy busy0 busy1 out ops elapsed run
	for fs in ext4 xfs btrfs; do
		dev=$(disk "$fs") || fail "no disk with serial $fs"
		[ -b /dev/ram$ram ] || fail "no /dev/ram$ram (brd.rd_nr=3 brd.rd_size=)"
		dd if="$dev" of=/dev/ram$ram bs=1M 2> /dev/null ||
			fail "cannot copy $fs onto /dev/ram$ram"
		mkdir -p "/mnt/$fs"
		mount -t "$(img_var "$fs" FSTYPE)" /dev/ram$ram "/mnt/$fs" ||
			fail "cannot mount $fs from /dev/ram$ram"
		# FSYNC_RAM_RUNS runs, each on a file of its own that it
		# removes, with a sync between them (btrfs's fsync() commits
		# only its log tree: what a run removed is free again only
		# after a transaction commit).  Their sum is long enough that
		# alloc_test's clock (1 ms) is 0.1% of it.
		busy=0 ops=0 elapsed=0 run=0
		while [ "$run" -lt "$FSYNC_RAM_RUNS" ]; do
			sync
			busy0=$(busy_ms)
			out=$(alloc_test "/mnt/$fs" --mode buffered --fsync \
				--max-bytes "$FSYNC_RAM_BYTES") || [ $? = 1 ] ||
				fail "$fs write-fsync-ram: $out"
			busy1=$(busy_ms)
			[ "$(report result "$out")" = bound ] ||
				fail "$fs write-fsync-ram: $out"
			busy=$((busy + busy1 - busy0))
			ops=$((ops + $(report ops "$out")))
			elapsed=$(awk -v a="$elapsed" -v b="$(report elapsed "$out")" \
				'BEGIN { print a + b }')
			run=$((run + 1))
		done
		bench "$fs" write-fsync-ram "$(awk -v o="$ops" -v e="$elapsed" \
			'BEGIN { printf "%.1f", o / e }')" ops/s
		# Close to 100 (a little over: alloc_test's start and exit
		# count too): the guest waited for nothing it does not count.
		bench "$fs" write-fsync-ram-busy "$(awk -v b="$busy" \
			-v e="$elapsed" 'BEGIN { printf "%.0f", b / e / 10 }')" %
		umount "/mnt/$fs"
		ram=$((ram + 1))
	done
}

if [ "$BENCH_PART" = fsync ]; then
	fsync_ram
	echo "BENCH-DONE"
	exit 0
fi

for name in ext4 xfs btrfs; do
	mount_img "$name" || fail "cannot mount $name"
done

# flood FS FOLDER OP ARGS...: alloc_test flood in the folder FOLDER, made
# beforehand (a full XFS cannot create even a folder); its fill phase
# completes a nearly full filesystem, and only the flood phase is timed.
flood() {
	local fs=$1 folder=$2 op=$3
	shift 3
	alloc_test "/mnt/$fs" --mode flood --flood-op "$op" \
		--workdir-name "$folder" "$@"
}

# sleeper_rate NAME FS OPS: failing writes on the full FS, nothing removed;
# on XFS each run fills and cleans up (a full XFS cannot make the run's
# file, and XFS's figure does not depend on it)
sleeper_rate() {
	local keep="--no-fill --keep"
	[ "$2" = xfs ] && keep=
	rate "sleeper-$1" "$2" --mode flood --flood-op write $keep \
		--ops "$3" --workdir-name "bench.sleeper-$1"
}

# sleeper_fill FS OPS: the first run, which fills the filesystem and keeps
# it full
sleeper_fill() {
	alloc_test "/mnt/$1" --mode flood --flood-op write --keep --ops "$2" \
		--workdir-name bench.sleeper-warm > /dev/null ||
		fail "$1: could not fill for the sleeper runs"
}

# sleeper_round SETTING FS OPS: no listener, a listener that never reads,
# fsmsg reading, no listener again
sleeper_round() {
	local setting=$1 fs=$2 ops=$3 probe
	sleeper_rate "$setting-none-a" "$fs" "$ops"
	fsmsg_probe sleep > /tmp/probe.out 2> /tmp/probe.err &
	probe=$!
	probe_started
	sleeper_rate "$setting-asleep" "$fs" "$ops"
	kill -TERM "$probe"
	wait "$probe"
	# Rate limited, the sleeper gets too few messages to fill up.
	if [ "$setting" = off ] && [ "$(cat /tmp/probe.out)" != "overrun: yes" ]; then
		fail "$fs: the sleeper's socket did not overrun"
	fi
	fsmsg_start --json
	sleeper_rate "$setting-reading" "$fs" "$ops"
	fsmsg_stop
	sleeper_rate "$setting-none-b" "$fs" "$ops"
}

# 7. Interest registered in the kernel, on XFS's failing writes: a raw
# listener that takes every message, alone and with FILTERED_LISTENERS
# more whose kernel filters select another filesystem, with rate limiting
# off and at the default; then the filtered ones without it, against no
# listener at all.  The kernel filters before it copies a message for a
# socket (patch 5) and builds none that no filter accepts (patch 18): the
# figures are the writer's rates and the messages the filtered sockets got.
filtered_listeners() {
	local fs=$1 one i
	have_family && [ "$fs" = xfs ] &&
		[ "$(fsmsg_probe filter empty 2>&1)" = "ok 0" ] || return 0
	ratelimit 0
	rate filtered-none "$fs" --mode flood --flood-op write \
		--ops "$FILTERED_WRITES" --workdir-name bench.filtered-one
	fsmsg_probe watch 3600 > /tmp/one.out 2> /tmp/one.err &
	one=$!
	wait_for 20 grep -q listening /tmp/one.err || fail "watch did not start"
	rate filtered-one "$fs" --mode flood --flood-op write \
		--ops "$FILTERED_WRITES" --workdir-name bench.filtered-one
	ratelimit 1000 1
	rate filtered-one-default "$fs" --mode flood --flood-op write \
		--ops "$FILTERED_WRITES" --workdir-name bench.filtered-one
	i=0
	while [ "$i" -lt "$FILTERED_LISTENERS" ]; do
		fsmsg_probe watch 3600 fstype=ext4 > "/tmp/filtered.$i.out" \
			2> "/tmp/filtered.$i.err" &
		i=$((i + 1))
	done
	wait_for 30 sh -c "[ \$(cat /tmp/filtered.*.err | grep -c listening) = $FILTERED_LISTENERS ]" ||
		fail "the filtered listeners did not start"
	rate filtered-many-default "$fs" --mode flood --flood-op write \
		--ops "$FILTERED_WRITES" --workdir-name bench.filtered-many
	ratelimit 0
	rate filtered-many "$fs" --mode flood --flood-op write \
		--ops "$FILTERED_WRITES" --workdir-name bench.filtered-many
	kill "$one"
	wait "$one" 2> /dev/null
	rate filtered-only "$fs" --mode flood --flood-op write \
		--ops "$FILTERED_WRITES" --workdir-name bench.filtered-many
	usleep 500000
	killall -q fsmsg_probe
	wait 2> /dev/null
	bench "$fs" filtered-listeners "$FILTERED_LISTENERS" sockets
	bench "$fs" filtered-received "$(cat /tmp/filtered.*.out | wc -l)" messages
	bench "$fs" filtered-one-received "$(lines /tmp/one.out)" messages
	ratelimit 1000 1
}

for fs in ext4 xfs btrfs; do
	dir=/mnt/$fs
	for f in write write-l latency flood create create-l sleeper-warm \
		 filtered-one filtered-many; do
		mkdir "$dir/bench.$f"
	done
	for f in off default; do
		for run in none-a asleep reading none-b; do
			mkdir "$dir/bench.sleeper-$f-$run"
		done
	done

	if [ "$BENCH_PART" = filtered ]; then
		[ "$fs" = xfs ] && nearly_fill "$fs" && filtered_listeners "$fs"
		continue
	fi
	[ "$BENCH_PART" = btrfs ] && [ "$fs" != btrfs ] && continue

	# 1. The normal path: free space, nothing fails.
	if [ "$BENCH_PART" != btrfs ]; then
		rate write "$fs" --mode buffered --max-bytes "$WRITE_BYTES"
		# Each write fsync()ed: writeback and its completion, where
		# the data-lost hooks sit.
		rate write-fsync "$fs" --mode buffered --fsync \
			--max-bytes "$FSYNC_BYTES"
		rate create "$fs" --mode files --max-ops "$CREATES"
		rate mkdir "$fs" --mode dirs --max-ops "$MKDIRS"
	fi
	[ "$BENCH_PART" = normal ] && continue

	# 2. The ENOSPC path: a fixed number of failing writes on a full
	# filesystem, without and with fsmsg listening (default rate limit).
	# A write flood removes what it wrote, leaving the filesystem nearly
	# full again for the next one.
	# The baseline runs the second flood too, in the same state, without
	# a listener (it has no family): the patched kernel's "listening"
	# figure is compared with the same slot of the baseline.
	nearly_fill "$fs"
	rate enospc-write "$fs" --mode flood --flood-op write --ops "$FAILING" \
		--workdir-name bench.write
	have_family && fsmsg_start --json
	rate enospc-write-listening "$fs" --mode flood --flood-op write \
		--ops "$FAILING" --workdir-name bench.write-l
	have_family && fsmsg_stop

	if have_family && [ "$BENCH_PART" != btrfs ]; then
		# 3. Delivery latency: the kernel's timestamp against fsmsg's
		# receive time, every warning sent (rate limiting off).
		# fsmsg's resident size before and after this many events
		# shows whether it grows with their number.
		ratelimit 0
		fsmsg_start --json --receive-time
		rss0=$(awk '/^VmRSS/ { print $2 }' "/proc/$FSMSG_PID/status")
		flood "$fs" bench.latency write --ops "$LATENCY_WARNINGS" \
			> /dev/null || fail "$fs latency flood"
		fsmsg_wait_lines "$LATENCY_WARNINGS"
		hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$FSMSG_PID/status")
		fsmsg_stop
		bench "$fs" latency-fsmsg-rss-start "$rss0" KiB
		bench "$fs" latency-fsmsg-rss-peak "$hwm" KiB
		awk -F'"timestamp_ns":"|"received_ns":"' '
			{ split($2, t, "\""); split($3, r, "\""); print (r[1] - t[1]) / 1000 }' \
			"$FSMSG_OUT" | sort -n > /tmp/latency
		n=$(lines /tmp/latency)
		[ "$n" -ge "$LATENCY_WARNINGS" ] || fail "$fs: $n latencies"
		bench "$fs" latency-p50 "$(sed -n "$(( (n + 1) / 2 ))p" /tmp/latency)" us
		bench "$fs" latency-p99 "$(sed -n "$(( (n * 99 + 99) / 100 ))p" /tmp/latency)" us
		bench "$fs" latency-max "$(tail -1 /tmp/latency)" us
		ratelimit 1000 1
	fi

	# 4. A flood with the default rate limit: K threads for T seconds.  The
	# accounting must hold exactly: alloc_test's failures = the kernel's
	# counter = messages + warnings suppressed in them + still held back.
	if have_family; then
		before=$(counter "$fs" enospc)
		# Held back before the flood (an earlier listener's last
		# window): the flood's first message reports them too.
		held0=$(fsmsg --list --json -d "$dir" |
			sed -n 's/.*"enospc":{[^}]*"suppressed":\([0-9]*\).*/\1/p')
		fsmsg_start --json
		rss0=$(awk '/^VmRSS/ { print $2 }' "/proc/$FSMSG_PID/status")
	fi
	out=$(flood "$fs" bench.flood write --threads "$FLOOD_THREADS" \
		--seconds "$FLOOD_SECONDS") || fail "$fs flood: $out"
	bench "$fs" flood-ops "$(report ops_per_sec "$out")" ops/s
	if have_family; then
		sleep 1
		hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$FSMSG_PID/status")
		cpu=$(awk '{ printf "%.2f", ($14 + $15) / 100 }' "/proc/$FSMSG_PID/stat")
		fsmsg_stop
		fsmsg --list --json -d "$dir" > /tmp/list.json
		after=$(sed -n 's/.*"enospc":{"count":\([0-9]*\).*/\1/p' /tmp/list.json)
		pending=$(sed -n 's/.*"enospc":{[^}]*"suppressed":\([0-9]*\).*/\1/p' /tmp/list.json)
		failed=$(report enospc "$out")
		# Summaries carry held-back warnings, not one of their own.
		delivered=$(grep -vc '"event":"summary"' "$FSMSG_OUT")
		suppressed=$(awk -F'"suppressed":' '{ split($2, a, /[,}]/); s += a[1] } END { print s + 0 }' "$FSMSG_OUT")
		bench "$fs" flood-failed "$failed" warnings
		bench "$fs" flood-delivered "$delivered" messages
		bench "$fs" flood-suppressed "$((suppressed + pending))" warnings
		bench "$fs" flood-fsmsg-cpu "$cpu" s
		bench "$fs" flood-fsmsg-rss-start "$rss0" KiB
		bench "$fs" flood-fsmsg-rss-peak "$hwm" KiB
		if [ "$failed" = "$((after - before))" ] &&
		   [ "$((failed + ${held0:-0}))" = "$((delivered + suppressed + pending))" ]; then
			identity=holds
		else
			identity=BROKEN
		fi
		echo "BENCH-IDENTITY fs=$fs failed=$failed counter=$((after - before)) delivered=$delivered suppressed=$suppressed pending=$pending held_before=${held0:-0} identity=$identity"
	fi

	# 5. Failing creates: data and metadata full (btrfs keeps metadata
	# apart, so the first flood's fill creates entries until it is full,
	# and keeps them for the second).  A failing create on btrfs flushes
	# and commits before it gives up, about 30 a second here: fewer.
	creates=$FAILING
	[ "$fs" = btrfs ] && creates=$FAILING_BTRFS_CREATES
	fill_up "$fs"
	rate enospc-create "$fs" --mode flood --flood-op create --ops "$creates" \
		--keep --workdir-name bench.create
	have_family && fsmsg_start --json
	rate enospc-create-listening "$fs" --mode flood --flood-op create \
		--ops "$creates" --workdir-name bench.create-l
	have_family && fsmsg_stop

	# 6. A root listener that never reads: its socket fills, and the
	# kernel must drop what it cannot queue, not wait.  Failing writes
	# with no listener (before and after: their difference is the
	# noise), with only the sleeper, and with fsmsg reading; rate limiting
	# off (every failure builds a message) and at the default.  Last, as
	# the baseline has no family and does not run it.  What the creates
	# kept goes first; the first run then fills the filesystem and keeps
	# it full, and the others remove nothing (--no-fill, --keep): on ext4
	# a run that frees space changes the next one's figure more than any
	# listener does.
	if have_family && [ "$BENCH_PART" != btrfs ]; then
		rm -rf "$dir/bench.create" "$dir/case.fill"
		sync
		# Long enough that a journal commit falling in a run is lost
		# in it (btrfs fails about 300 writes a second here: fewer).
		writes=$SLEEPER_WRITES
		[ "$fs" = btrfs ] && writes=$SLEEPER_BTRFS_WRITES
		[ "$fs" = xfs ] || sleeper_fill "$fs" "$writes"
		ratelimit 0
		sleeper_round off "$fs" "$writes"
		ratelimit 1000 1
		sleeper_round default "$fs" "$writes"
	fi

	# 7. Listeners filtered in the kernel.
	filtered_listeners "$fs"
done
echo "BENCH-DONE"
