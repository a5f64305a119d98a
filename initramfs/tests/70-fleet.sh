# Fleet use: fsmsg's metrics file for node_exporter's textfile collector
# holds the kernel's counters, also across a restart of fsmsg.

PROM=/tmp/prom/fsmsg.prom

# prom_count NAME TYPE: fsmsg_warnings_total of image NAME in the file
# (labels in the order dev, device, fstype, uuid, warning)
prom_count() {
	sed -n "s/^fsmsg_warnings_total{dev=\"$(sb_dev "$1")\",.*,warning=\"$2\"} \([0-9]*\)\$/\1/p" "$PROM"
}

# prom_counts_all: "NAME enospc meta inode" for every image from the
# metrics file, as counters_all prints the kernel's, in one pass
prom_counts_all() {
	awk -v images="$IMAGES" '
		FILENAME == "/proc/self/mountinfo" { dev[$5] = $3; next }
		/^fsmsg_warnings_total[{]/ {
			match($0, /[{]dev="[^"]*"/)
			d = substr($0, RSTART + 6, RLENGTH - 7)
			match($0, /,warning="[^"]*"/)
			t = substr($0, RSTART + 10, RLENGTH - 11)
			c[d, t] = $NF
		}
		END {
			n = split(images, im, " ")
			for (i = 1; i <= n; i++) {
				d = dev["/mnt/" im[i]]
				print im[i], c[d, "enospc"], c[d, "meta-enospc"], c[d, "inode-enospc"]
			}
		}' /proc/self/mountinfo "$PROM"
}

# prom_matches_kernel: every series of every image equals the kernel's
# count from the dump; the differences are left in /tmp/prom_diff
prom_matches_kernel() {
	counters_all > /tmp/kernel_counts
	prom_counts_all > /tmp/prom_counts
	if ! awk 'NF != 4 { exit 1 }' /tmp/kernel_counts; then
		echo "the dump lacks a count: $(cat /tmp/kernel_counts)" > /tmp/prom_diff
		return 1
	fi
	if ! cmp -s /tmp/kernel_counts /tmp/prom_counts; then
		diff /tmp/kernel_counts /tmp/prom_counts |
			sed -n -e '/^--- /d' -e '/^+++ /d' -e 's/^-/kernel: /p' \
				-e 's/^+/metrics file: /p' > /tmp/prom_diff
		return 1
	fi
}

# prom_agrees WHEN: the file becomes valid and equal to the kernel's
# counters within 10 s (fsmsg re-reads them once the rate limit interval
# after the last message has passed)
prom_agrees() {
	wait_for 10 prom_matches_kernel ||
		fail "$1: $(cat /tmp/prom_diff)"
	promcheck "$PROM" > /tmp/promcheck 2>&1 ||
		fail "$1: $(cat /tmp/promcheck)"
	note "$1: $(cat /tmp/promcheck)"
}

t_fleet_prometheus() {
	local out failed before line name now last started

	mkdir -p "${PROM%/*}"
	rm -f "$PROM"
	# The file is written before fsmsg says it is listening.
	fsmsg_start --prometheus-textfile "$PROM"
	if [ ! -s "$PROM" ]; then
		sed 's/^/# fsmsg: /' /tmp/fsmsg.err
		fail "no metrics file once fsmsg listens"
	fi
	prom_agrees "at start"
	for name in $IMAGES; do
		line=$(grep "^fsmsg_warnings_total{dev=\"$(sb_dev "$name")\"," "$PROM" | head -1)
		expect_eq "$(printf '%s' "$line" | sed -n 's/.*fstype="\([^"]*\)".*/\1/p')" \
			"$(img_var "$name" FSTYPE)" "$name fstype label"
		expect_eq "$(printf '%s' "$line" | sed -n 's/.*uuid="\([^"]*\)".*/\1/p')" \
			"$(img_var "$name" UUID)" "$name uuid label"
	done
	# The info series joins node_exporter's: device as mountinfo's
	# source, the mount point.
	line="fsmsg_filesystem_info{dev=\"$(sb_dev ext4)\",device=\"$(disk ext4)\",fstype=\"ext4\",uuid=\"$(img_var ext4 UUID)\",mountpoint=\"/mnt/ext4\"} 1"
	grep -qxF "$line" "$PROM" || {
		grep '^fsmsg_filesystem_info' "$PROM" | sed 's/^/# /'
		fail "no $line"
	}

	# Warnings while fsmsg runs: a fill and 30 failing writes, most of
	# them suppressed by the default rate limit (one message a second).
	before=$(counter ext4 enospc)
	started=$(date +%s)
	out=$(alloc_test /mnt/ext4 --mode flood --flood-op write --ops 30) ||
		fail "alloc_test: $out"
	failed=$(report enospc "$out")
	prom_agrees "after $failed failed writes on ext4"
	expect_eq "$(prom_count ext4 enospc)" "$((before + failed))" "ext4 enospc in the file"
	now=$(date +%s)
	last=$(sed -n "s/^fsmsg_last_warning_timestamp_seconds{dev=\"$(sb_dev ext4)\",.*,warning=\"enospc\"} \([0-9]*\)\..*/\1/p" "$PROM")
	# Within the flood: a debug kernel takes minutes to get here.
	[ -n "$last" ] && [ "$last" -le "$now" ] && [ "$last" -ge "$started" ] ||
		fail "ext4 last warning time '$last', flood from $started, now $now"
	grep -qx 'fsmsg_overruns_total 0' "$PROM" || fail "overruns counted"

	# Warnings while fsmsg is stopped are in the file as soon as it is back:
	# it starts from the kernel's counters, not from zero or its old file.
	fsmsg_stop
	before=$(counter xfs enospc)
	out=$(alloc_test /mnt/xfs --mode flood --flood-op write --ops 20) ||
		fail "alloc_test: $out"
	failed=$(report enospc "$out")
	[ "$(prom_count xfs enospc)" = "$before" ] || fail "the old file changed"
	fsmsg_start --prometheus-textfile "$PROM"
	prom_agrees "after a restart and $failed failed writes on xfs while stopped"
	expect_eq "$(prom_count xfs enospc)" "$((before + failed))" "xfs enospc in the file"
	fsmsg_stop
}
case_add t_fleet_prometheus "fleet: the Prometheus metrics file is valid and equals the kernel's counters after a fill and across an fsmsg restart"

# prom_has_dev DEV: the file has a series of the filesystem on DEV
prom_has_dev() {
	grep -q "^fsmsg_warnings_total{dev=\"$1\"," "$PROM"
}

# prom_lacks_dev DEV: it has none, and still has those of the images
prom_lacks_dev() {
	! prom_has_dev "$1" && prom_has_dev "$(sb_dev ext4)"
}

# prom_count_dev DEV WARNING: fsmsg_warnings_total of the filesystem on DEV
prom_count_dev() {
	sed -n "s/^fsmsg_warnings_total{dev=\"$1\",.*,warning=\"$2\"} \([0-9]*\)\$/\1/p" "$PROM"
}

# prom_count_is DEV WARNING N
prom_count_is() {
	[ "$(prom_count_dev "$1" "$2")" = "$3" ]
}

# A filesystem on a device-mapper device (a dynamic major) that is
# unmounted and detached: its series go from the file once a dump no
# longer lists it (a warning elsewhere makes fsmsg dump a couple of
# seconds later), and the other filesystems keep theirs. Slices 0 and 1 of
# the dumpset disk (65-dump.sh's slice_map and slices_cleanup).
t_fleet_prometheus_unmount() {
	local out gone keep n
	[ "$SLICE_COUNT" -ge 2 ] || fail "images.env has fewer than 2 dumpset slices"
	: > /tmp/slices
	trap slices_cleanup EXIT
	for n in 0 1; do
		slice_map "$n" "fsmsg_slice$n"
		echo "$n fsmsg_slice$n" >> /tmp/slices
		mkdir -p "/mnt/case-slice$n"
		mount -t ext4 "$SLICE_DEV" "/mnt/case-slice$n" || fail "mount slice $n"
	done
	gone=$(awk '$5 == "/mnt/case-slice0" { print $3 }' /proc/self/mountinfo)
	keep=$(awk '$5 == "/mnt/case-slice1" { print $3 }' /proc/self/mountinfo)
	mkdir -p "${PROM%/*}"
	rm -f "$PROM"
	fsmsg_start --prometheus-textfile "$PROM"
	prom_has_dev "$gone" && prom_has_dev "$keep" ||
		fail "no series of the slices ($gone, $keep) at start"

	# Both slices full (and slice 1 left full); the counts in the file.
	for n in 0 1; do
		out=$(alloc_test "/mnt/case-slice$n" --mode flood --flood-op write --ops 2 \
			--keep --workdir-name case.fill 2>&1) ||
			fail "alloc_test on slice $n: $out"
	done
	n=$(fsmsg --list --json -d /mnt/case-slice0 |
		sed -n 's/.*"enospc":{"count":\([0-9]*\).*/\1/p')
	[ -n "$n" ] && [ "$n" -gt 0 ] || fail "no enospc count on slice 0: '$n'"
	wait_for 10 prom_count_is "$gone" enospc "$n" ||
		fail "slice 0 enospc in the file '$(prom_count_dev "$gone" enospc)', kernel $n"

	# Slice 0 goes; a warning on slice 1 makes fsmsg dump again.
	umount /mnt/case-slice0 || fail "umount slice 0"
	dmctl remove fsmsg_slice0 || fail "dmctl remove fsmsg_slice0"
	sed -i '/^0 /d' /tmp/slices
	out=$(alloc_test /mnt/case-slice1 --mode flood --no-fill --flood-op write --ops 1 \
		--workdir-name case.more 2>&1)
	[ "$(report enospc "$out")" = 1 ] || fail "slice 1: expected a failing write: $out"
	wait_for 15 prom_lacks_dev "$gone" ||
		fail "the series of slice 0 ($gone) are still in the file: $(grep -c "dev=\"$gone\"" "$PROM")"
	prom_has_dev "$keep" || fail "the series of slice 1 ($keep) went too"
	promcheck "$PROM" > /tmp/promcheck 2>&1 || fail "$(cat /tmp/promcheck)"
	grep -c '^fsmsg_warnings_total{' "$PROM" > /tmp/nseries
	note "slice 0 ($gone) left the file, slice 1 ($keep) stays; $(cat /tmp/nseries) series"
	fsmsg_stop
}
case_add t_fleet_prometheus_unmount "fleet: the series of a filesystem unmounted and detached leave the metrics file, the others stay"
