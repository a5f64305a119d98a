#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# `make check`: every host-side check as one TAP stream.
#   - unit tests under ASan+UBSan (each test point relayed)
#   - unit tests under valgrind (one point)
#   - fsmsg end to end against a fake generic netlink kernel (relayed)
#   - CLI tests of fsmsg and fsmsg.static (relayed)
#   - ../contrib/: Prometheus rules, systemd unit, journal catalog, rsyslog
#     snippet, MESSAGE_IDs (relayed)
#   - a smoke run of the benchmark, tiny N, no rate asserted (one point)
#   - a short libFuzzer run over the parser (one point)
#   - gcc -fanalyzer over every source (one point)
# Ends with "# N passed, N failed"; exits non-zero on any failure.
#
# Environment (set by the Makefile): OUT, MAKE, VALGRIND, FUZZ_TIME,
# PROMTOOL.

OUT=${OUT:?OUT not set}
MAKE=${MAKE:-make}
VALGRIND=${VALGRIND:-valgrind}
FUZZ_TIME=${FUZZ_TIME:-10}
PROMTOOL=${PROMTOOL:-promtool}
LOG=$OUT/check
mkdir -p "$LOG"

n=0
failed=0

point() { # point OK|FAIL description
	n=$((n + 1))
	if [ "$1" = OK ]; then
		echo "ok $n - $2"
	else
		failed=$((failed + 1))
		echo "not ok $n - $2"
	fi
}

# relay PREFIX LOGFILE CMD...: run a TAP producer, renumber its points.
relay() {
	prefix=$1 log=$2
	shift 2
	"$@" >"$log" 2>"$log.err"
	status=$?
	points=0
	bad=0
	while IFS= read -r line; do
		case $line in
		"ok "*)
			points=$((points + 1))
			point OK "$prefix: ${line#ok * - }" ;;
		"not ok "*)
			points=$((points + 1))
			bad=$((bad + 1))
			point FAIL "$prefix: ${line#not ok * - }" ;;
		"# "*" passed, "*" failed"|"TAP version"*|1..*) ;;
		"#"*)
			echo "$line" ;;
		esac
	done <"$log"
	if [ "$status" -ne 0 ] && [ "$bad" -eq 0 ]; then
		point FAIL "$prefix: exited with status $status after $points tests"
		sed 's/^/#   /' "$log.err" | tail -n 30
	fi
}

echo "TAP version 13"

ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	relay "unit (ASan+UBSan)" "$LOG/unit-san.tap" "$OUT/unit-san"

if command -v "$VALGRIND" >/dev/null 2>&1; then
	if "$VALGRIND" -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite,indirect,possible \
		"$OUT/unit" >"$LOG/unit-valgrind.tap" 2>"$LOG/unit-valgrind.err" &&
	   grep -q '^# [0-9]* passed, 0 failed$' "$LOG/unit-valgrind.tap"; then
		point OK "valgrind: unit tests clean ($(grep -c '^ok' "$LOG/unit-valgrind.tap") tests, no errors, no leaks)"
	else
		point FAIL "valgrind: unit tests"
		sed 's/^/#   /' "$LOG/unit-valgrind.err" | tail -n 30
	fi
else
	n=$((n + 1))
	echo "ok $n - valgrind: unit tests # SKIP valgrind not installed"
fi

if [ -x "$OUT/libfakegenl.so" ]; then
	relay "e2e" "$LOG/e2e.tap" sh tests/e2e.sh "$OUT/fsmsg" "$OUT/libfakegenl.so" \
		"$VALGRIND" "$PROMTOOL"
fi

relay "cli" "$LOG/cli.tap" sh tests/cli.sh "$OUT/fsmsg" "$OUT/fsmsg.static"

if [ -d ../contrib ]; then
	relay "contrib" "$LOG/contrib.tap" sh tests/contrib.sh ../contrib \
		"$(cd "$OUT" && pwd)/fsmsg" "$PROMTOOL"
else
	n=$((n + 1))
	echo "ok $n - contrib # SKIP no ../contrib folder"
fi

# The benchmark runs and its table reads right (rates are not judged:
# timings on a shared machine would make this flaky); under valgrind too.
bench_table() { # FILE: the rows text and json, and the target line
	awk '
	$1 == "text" || $1 == "json" {
		if (NF != 6 || $2 !~ /^[0-9]+$/ || $3 !~ /^[0-9]+$/ ||
		    $4 !~ /^[0-9]+$/ || $5 !~ /^[0-9]+\.[0-9]$/ ||
		    $6 !~ /^[0-9]+\.[0-9]$/ || $2 + 0 <= 0 ||
		    $3 + 0 > $2 + 0 || $2 + 0 > $4 + 0)
			bad = 1
		d = $5 * $2 / 1e9 - 1
		if (d > 0.01 || d < -0.01)
			bad = 1
		rows[$1] = 1
	}
	/^target: at least 1000000 msg\/s .*: (met|NOT met)$/ { target = 1 }
	END { exit !(rows["text"] && rows["json"] && target && !bad) }' "$1"
}
if [ -x "$OUT/parse_bench" ]; then
	desc="bench: parse_bench smoke run (64 messages), table parses"
	ok=OK
	if ! "$OUT/parse_bench" -n 64 -r 5 -w 1 >"$LOG/bench.out" 2>"$LOG/bench.err" ||
	   [ -s "$LOG/bench.err" ] || ! bench_table "$LOG/bench.out"; then
		ok=FAIL
	fi
	if [ $ok = OK ] && command -v "$VALGRIND" >/dev/null 2>&1; then
		desc="$desc, valgrind clean"
		"$VALGRIND" -q --error-exitcode=99 --leak-check=full \
			--errors-for-leak-kinds=definite,indirect,possible \
			"$OUT/parse_bench" -n 64 -r 1 -w 0 \
			>"$LOG/bench-valgrind.out" 2>"$LOG/bench.err" || ok=FAIL
	fi
	point $ok "$desc"
	if [ $ok = FAIL ]; then
		sed 's/^/#   /' "$LOG/bench.out" "$LOG/bench.err" | tail -n 30
	fi
else
	point FAIL "bench: $OUT/parse_bench was not built"
fi

if [ -x "$OUT/fuzz_parser" ]; then
	mkdir -p "$OUT/fuzz-corpus"
	if "$OUT/fuzz_parser" -max_total_time="$FUZZ_TIME" -max_len=8192 \
		"$OUT/fuzz-corpus" tests/corpus >"$LOG/fuzz.log" 2>&1; then
		runs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1 runs in \2 s/p' "$LOG/fuzz.log")
		point OK "fuzz: parser, no crash (${runs:-?})"
	else
		point FAIL "fuzz: parser crashed, see $LOG/fuzz.log"
		grep -A 20 'ERROR\|SUMMARY' "$LOG/fuzz.log" | sed 's/^/#   /' | head -n 40
	fi
else
	n=$((n + 1))
	echo "ok $n - fuzz # SKIP no libFuzzer build (clang)"
fi

if $MAKE --no-print-directory -s OUT="$OUT" analyze >"$LOG/analyze.log" 2>&1; then
	point OK "gcc -fanalyzer: no findings"
else
	point FAIL "gcc -fanalyzer"
	sed 's/^/#   /' "$LOG/analyze.log" | head -n 40
fi

echo "1..$n"
echo "# $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
