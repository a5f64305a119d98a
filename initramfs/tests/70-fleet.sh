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
	[ -s "$PROM" ] || fail "no metrics file once fsmsg listens"
	prom_agrees "at start"
	for name in $IMAGES; do
		line=$(grep "^fsmsg_warnings_total{dev=\"$(sb_dev "$name")\"," "$PROM" | head -1)
		expect_eq "$(printf '%s' "$line" | sed -n 's/.*fstype="\([^"]*\)".*/\1/p')" \
			"$(img_var "$name" FSTYPE)" "$name fstype label"
		expect_eq "$(printf '%s' "$line" | sed -n 's/.*uuid="\([^"]*\)".*/\1/p')" \
			"$(img_var "$name" UUID)" "$name uuid label"
	done

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
