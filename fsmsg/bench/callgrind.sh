#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# `make bench-callgrind`: instructions per message for text and JSON,
# counted by callgrind inside bench_loop() only (the timed part of
# parse_bench: building the buffer, setting up the monitor and the
# warm-up are not counted). Unlike wall time on a shared machine, the
# count repeats from run to run.
#
# usage: callgrind.sh PARSE_BENCH MESSAGES OUTDIR
# Environment: VALGRIND (default valgrind). The callgrind.out files stay
# in OUTDIR, for callgrind_annotate.

bench=${1:?usage: callgrind.sh PARSE_BENCH MESSAGES OUTDIR}
n=${2:?usage: callgrind.sh PARSE_BENCH MESSAGES OUTDIR}
dir=${3:?usage: callgrind.sh PARSE_BENCH MESSAGES OUTDIR}
VALGRIND=${VALGRIND:-valgrind}

if ! command -v "$VALGRIND" >/dev/null 2>&1; then
	echo "bench-callgrind: $VALGRIND not found (Debian: apt install valgrind)" >&2
	exit 1
fi
mkdir -p "$dir"

echo "fsmsg parse+format under callgrind: $n messages, one pass per format, bench_loop() only"
printf '%-6s %12s %12s\n' format "instr/msg" "total instr"
for f in text json; do
	out=$dir/callgrind.$f.out
	rm -f "$out"
	# LD_BIND_NOW: no lazy symbol binding inside the counted part.
	if ! LD_BIND_NOW=1 "$VALGRIND" --tool=callgrind --callgrind-out-file="$out" \
		--collect-atstart=no --toggle-collect='bench_loop*' \
		"$bench" -n "$n" -r 1 -w 0 -f "$f" >"$dir/callgrind.$f.log" 2>&1; then
		echo "bench-callgrind: $f run failed, see $dir/callgrind.$f.log" >&2
		exit 1
	fi
	total=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$out")
	[ -n "$total" ] || total=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$out")
	if [ -z "$total" ] || [ "$total" -eq 0 ]; then
		echo "bench-callgrind: no instruction count in $out" >&2
		exit 1
	fi
	awk -v f="$f" -v t="$total" -v n="$n" \
		'BEGIN { printf "%-6s %12.0f %12.0f\n", f, t / n, t }'
done
echo "(callgrind_annotate $dir/callgrind.json.out shows where they go)"
