#!/bin/sh
# Judge a guest run: its KTAP report and the kernel console.
#
# usage: ktap-summary.sh KTAP_FILE CONSOLE_LOG QEMU_STATUS [empty-ok]
#   empty-ok: an empty plan is fine (a guest that shares the suite with
#   others and got no case of the selection)
#
# Fails on any "not ok", a missing or short plan, a "Bail out!", any
# kernel splat in the console log, or a QEMU timeout.  Always ends with
# the line "N passed, N failed".
set -eu

ktap=$1 console=$2 qemu_status=$3 empty_ok=${4:-}

# Kernel messages that mean the series (or the kernel) is broken.
SPLATS='WARNING:|BUG:|Oops|Kernel panic|general protection fault|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|sleeping function called from invalid context|KASAN:|UBSAN:|kmemleak:.*unreferenced|INFO: task .* blocked|Call Trace:'

awk -v qemu_status="$qemu_status" -v console="$console" -v splats="$SPLATS" \
    -v empty_ok="$empty_ok" '
/^TAP version|^KTAP version/	{ started = 1; next }
!started			{ next }
/^1\.\.[0-9]+/			{ plan = substr($1, 4) + 0; have_plan = 1; next }
/^ok [0-9]+ .*# SKIP/		{ skip++; seen++; next }
/^ok [0-9]+/			{ pass++; seen++; next }
/^not ok [0-9]+/		{ fail++; seen++; failed = failed "\n  " $0; next }
/^Bail out!/			{ bail = $0 }
END {
	bad = 0
	if (!started) { print "ktap: no KTAP report from the guest"; bad = 1 }
	else if (!have_plan) { print "ktap: no plan line"; bad = 1 }
	else if (plan == 0 && empty_ok == "") { print "ktap: the plan is empty: no test ran"; bad = 1 }
	else if (seen != plan) {
		printf "ktap: plan says %d tests, the guest reported %d\n", plan, seen
		bad = 1
	}
	if (bail != "") { print "ktap: " bail; bad = 1 }
	if (qemu_status == 124) { print "ktap: QEMU timed out"; bad = 1 }
	n = 0
	while ((getline line < console) > 0)
		if (line ~ splats) {
			if (n++ < 20) print "ktap: kernel: " line
		}
	if (n) { printf "ktap: %d suspicious kernel console lines, see %s\n", n, console; bad = 1 }
	if (failed != "") print "ktap: failed:" failed
	if (skip) printf "# %d skipped\n", skip
	# A run that went wrong without a failed case still counts one failure.
	if (bad && !fail) fail = 1
	printf "%d passed, %d failed\n", pass, fail
	exit (fail ? 1 : 0)
}' "$ktap"
