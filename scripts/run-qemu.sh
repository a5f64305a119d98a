#!/bin/bash
# Boot the test guest under QEMU and, in test mode, judge its KTAP report.
#
# usage: run-qemu.sh MODE KERNEL INITRAMFS IMAGEDIR LOGDIR
#   MODE        test (run the guest suite), demo or bench
#   environment KVM=1 to use /dev/kvm (TCG otherwise), ICOUNT=1 for
#               instruction-counted guest time, QEMU_TIMEOUT
#               seconds (default 1800), TESTS=pattern,... to select cases,
#               QEMU_SMP, QEMU_MEM, V=1 to stream the kernel console too
#
# The guest writes its results to its second serial port, shown here and
# saved as LOGDIR/MODE.out; the kernel console goes to LOGDIR/MODE.console.
set -euo pipefail

mode=$1 kernel=$2 initrd=$3 images=$4 logdir=$5
top=$(cd "$(dirname "$0")/.." && pwd)
timeout=${QEMU_TIMEOUT:-1800}
mkdir -p "$logdir"
out=$logdir/$mode.out
console=$logdir/$mode.console

drives=()
while read -r name file; do
	drives+=(-drive "file=$file,format=raw,if=none,id=$name,cache=unsafe"
		 -device "virtio-blk-pci,drive=$name,serial=$name")
done < "$images/drives"

if [ "${KVM:-0}" = 1 ]; then
	accel=(-accel kvm -cpu host)
elif [ "${ICOUNT:-0}" = 1 ]; then
	# Guest time counts instructions: repeatable timings (make bench).
	accel=(-accel tcg -icount shift=0,sleep=off)
else
	accel=(-accel tcg)
fi

cmdline="console=ttyS0 panic=-1 panic_on_warn=1 oops=panic tsc=reliable"
cmdline+=" fsmsg.mode=$mode${TESTS:+ fsmsg.tests=$TESTS} ${APPEND:-}"

: > "$console"
if [ "${V:-0}" = 1 ]; then
	tail -n +1 -f "$console" | sed -u 's/^/console: /' &
	tailer=$!
	trap 'kill $tailer 2>/dev/null' EXIT
fi

set +e
timeout --foreground "$timeout" \
	qemu-system-x86_64 -nodefaults -nographic -no-reboot -monitor none \
	"${accel[@]}" -smp "${QEMU_SMP:-2}" -m "${QEMU_MEM:-1024}" \
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline" \
	-serial "file:$console" -chardev stdio,id=out,signal=off \
	-serial chardev:out "${drives[@]}" </dev/null | tee "$out"
status=("${PIPESTATUS[@]}")
set -e

if [ "${status[0]}" = 124 ]; then
	echo "run-qemu: the guest did not finish within ${timeout}s (QEMU_TIMEOUT)" >&2
fi

[ "$mode" = test ] || exit "${status[0]}"
"$top/scripts/ktap-summary.sh" "$out" "$console" "${status[0]}"
