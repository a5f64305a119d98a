#!/bin/bash
# make bench: boot the baseline kernel (twice per round: A and B, whose
# difference is the noise floor) and the patched kernel in turn, with the
# same QEMU settings and fresh images, run initramfs/bench.sh in each, and
# print the report.
#
# usage: bench.sh BASELINE_BZIMAGE PATCHED_BZIMAGE GEN_INIT_CPIO OUTDIR FSMSG \
#                 ALLOC_TEST PROBE PROMCHECK
#   environment: BENCH_REPS (default 5), QEMU_TIMEOUT (per boot),
#   BENCH_PART=normal (only the normal-path workloads: writes, writes each
#   fsync()ed, creates, mkdirs), BENCH_PART=filtered (only the listeners
#   filtered in the kernel, on the patched kernel: the baseline has none),
#   BENCH_PART=btrfs (only btrfs's failing operations), BENCH_PART=fsync
#   (only writes each fsync()ed, on RAM disks: make bench-writeback),
#   BENCH_BASELINE (what the baseline kernel is, for the report's heading;
#   default: unpatched)
set -euo pipefail

base=$1 patched=$2 gen=$3 out=$4 fsmsg=$5 alloc_test=$6 probe=$7 promcheck=$8
top=$(cd "$(dirname "$0")/.." && pwd)
reps=${BENCH_REPS:-5}

mkdir -p "$out"
raw=$out/raw.txt
: > "$raw"

# Instruction-counted time: the guest clock advances with the instructions
# it executes, not with the host's load, so repeated runs agree far better
# than with plain TCG (see bench/README.md).  One vCPU: icount needs it.
export ICOUNT=1 QEMU_SMP=1 QEMU_TIMEOUT=${QEMU_TIMEOUT:-2400}
export APPEND="${APPEND:-}${BENCH_PART:+ fsmsg.bench=$BENCH_PART}"
# Three RAM disks as large as the largest image (btrfs, 128 MiB).
[ "${BENCH_PART:-}" = fsync ] && APPEND+=" brd.rd_nr=3 brd.rd_size=131072"

for r in $(seq "$reps"); do
	kernels="baseline-a baseline-b patched"
	[ "${BENCH_PART:-}" = filtered ] && kernels=patched
	for k in $kernels; do
		case $k in
		patched)	kernel=$patched ;;
		*)		kernel=$base ;;
		esac
		echo "  BENCH   round $r/$reps: $k"
		"$top/scripts/make-images.sh" "$out/images" > /dev/null
		"$top/scripts/make-initramfs.sh" "$gen" "$out/initramfs.cpio" \
			"$fsmsg" "$alloc_test" "$probe" "$promcheck" \
			"$out/images/images.env"
		if ! "$top/scripts/run-qemu.sh" bench "$kernel" "$out/initramfs.cpio" \
				"$out/images" "$out/log-$r-$k" > "$out/run-$r-$k.out"; then
			echo "bench: the $k boot of round $r failed; see $out/run-$r-$k.out" >&2
			exit 2
		fi
		if grep -q '^BENCH-ERROR' "$out/run-$r-$k.out" ||
		   ! grep -q '^BENCH-DONE' "$out/run-$r-$k.out"; then
			grep '^BENCH-ERROR' "$out/run-$r-$k.out" >&2 || true
			echo "bench: the $k run of round $r did not complete; see $out/run-$r-$k.out" >&2
			exit 2
		fi
		sed -n "s/^BENCH\(-[A-Z]*\)\? /&round=$r kernel=$k /p" \
			"$out/run-$r-$k.out" >> "$raw"
	done
done

python3 "$top/scripts/bench-report.py" "$raw" "${BENCH_BASELINE:-unpatched}" |
	tee "$out/report.txt"
