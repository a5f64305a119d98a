#!/bin/bash
# Boot the test guest under QEMU and, in test mode, judge its KTAP report.
#
# usage: run-qemu.sh MODE KERNEL INITRAMFS IMAGEDIR LOGDIR
#   MODE        test (run the guest suite), demo or bench
#   environment KVM=1 to use /dev/kvm (TCG otherwise), ICOUNT=1 for
#               instruction-counted guest time, QEMU_TIMEOUT
#               seconds (default 1800), TESTS=pattern,... to select cases,
#               SHARDS=N (test mode: N guests at once, each running every
#               N-th case on a copy of the images; default: the number of
#               CPUs, at most 2), QEMU_SMP, QEMU_MEM, V=1 to stream the
#               kernel console too
#
# The guest writes its results to its second serial port, shown here and
# saved as LOGDIR/MODE.out; the kernel console goes to LOGDIR/MODE.console
# (with shards: LOGDIR/MODE.K.out and MODE.K.console, K from 0).
set -euo pipefail

mode=$1 kernel=$2 initrd=$3 images=$4 logdir=$5
top=$(cd "$(dirname "$0")/.." && pwd)
timeout=${QEMU_TIMEOUT:-1800}
mkdir -p "$logdir"
out=$logdir/$mode.out
console=$logdir/$mode.console

shards=1
if [ "$mode" = test ]; then
	shards=${SHARDS:-$(( $(nproc) < 2 ? 1 : 2 ))}
fi

if [ "${KVM:-0}" = 1 ]; then
	accel=(-accel kvm -cpu host)
elif [ "${ICOUNT:-0}" = 1 ]; then
	# Guest time counts instructions: repeatable timings (make bench).
	accel=(-accel tcg -icount shift=0,sleep=off)
else
	accel=(-accel tcg)
fi

# One vCPU each when guests share the host's CPUs.
smp=${QEMU_SMP:-$(( shards > 1 ? 1 : 2 ))}

# boot IMAGEDIR OUT CONSOLE [APPEND...]: one guest, its results appended
# to OUT (which the caller empties first, so a reader can follow it)
boot() {
	local imgdir=$1 bout=$2 bconsole=$3 name file
	shift 3
	local drives=() cmdline
	while read -r name file; do
		drives+=(-drive "file=$file,format=raw,if=none,id=$name,cache=unsafe"
			 -device "virtio-blk-pci,drive=$name,serial=$name")
	done < "$imgdir/drives"
	cmdline="console=ttyS0 panic=-1 panic_on_warn=1 oops=panic tsc=reliable"
	cmdline+=" fsmsg.mode=$mode${TESTS:+ fsmsg.tests=$TESTS} ${APPEND:-} $*"
	: > "$bconsole"
	timeout --foreground "$timeout" \
		qemu-system-x86_64 -nodefaults -nographic -no-reboot -monitor none \
		"${accel[@]}" -smp "$smp" -m "${QEMU_MEM:-1024}" \
		-kernel "$kernel" -initrd "$initrd" -append "$cmdline" \
		-serial "file:$bconsole" -chardev stdio,id=out,signal=off \
		-serial chardev:out "${drives[@]}" </dev/null >> "$bout"
}

if [ "$shards" -gt 1 ]; then
	# Every guest gets its own copy of the images (same UUIDs, which the
	# initramfs recorded), and runs every N-th case.
	pids=()
	for k in $(seq 0 $((shards - 1))); do
		imgdir=$images
		if [ "$k" -gt 0 ]; then
			imgdir=$logdir/images.$k
			rm -rf "$imgdir"
			mkdir -p "$imgdir"
			while read -r name file; do
				cp --sparse=always "$file" "$imgdir/$name.img"
				echo "$name $imgdir/$name.img"
			done < "$images/drives" > "$imgdir/drives"
		fi
		: > "$logdir/$mode.$k.out"
		boot "$imgdir" "$logdir/$mode.$k.out" "$logdir/$mode.$k.console" \
			"fsmsg.shard=$k/$shards" &
		pids+=($!)
	done
	if [ "${V:-0}" = 1 ]; then
		tail -n +1 -f "$logdir/$mode".*.out | sed -u 's/^/guest: /' &
		tailer=$!
		trap 'kill $tailer 2>/dev/null' EXIT
	fi
	rc=0
	statuses=()
	for k in "${!pids[@]}"; do
		st=0
		wait "${pids[$k]}" || st=$?
		statuses+=("$st")
		[ "$st" = 124 ] &&
			echo "run-qemu: guest $k did not finish within ${timeout}s (QEMU_TIMEOUT)" >&2
	done
	pass=0 fail=0
	for k in "${!pids[@]}"; do
		cat "$logdir/$mode.$k.out"
		summary=$("$top/scripts/ktap-summary.sh" "$logdir/$mode.$k.out" \
			"$logdir/$mode.$k.console" "${statuses[$k]}" empty-ok) || rc=1
		printf '%s\n' "$summary" | sed '$d'
		last=$(printf '%s\n' "$summary" | tail -1)
		echo "# guest $k of $shards: $last"
		pass=$((pass + ${last%% passed*}))
		last=${last#*passed, }
		fail=$((fail + ${last%% failed*}))
	done
	cat "$logdir/$mode".*.out > "$out"
	cat "$logdir/$mode".*.console > "$console"
	rm -rf "$logdir"/images.*
	if [ $((pass + fail)) = 0 ] && ! grep -q '# SKIP' "$out"; then
		echo "ktap: no guest ran a test"
		rc=1 fail=1
	fi
	echo "$pass passed, $fail failed"
	exit $rc
fi

if [ "${V:-0}" = 1 ]; then
	tail -n +1 -f "$console" | sed -u 's/^/console: /' &
	tailer=$!
	trap 'kill $tailer 2>/dev/null' EXIT
fi

set +e
: > "$out"
boot "$images" "$out" "$console" &
bootpid=$!
tail -n +1 --pid="$bootpid" -f "$out" 2>/dev/null
wait "$bootpid"
status=$?
set -e

if [ "$status" = 124 ]; then
	echo "run-qemu: the guest did not finish within ${timeout}s (QEMU_TIMEOUT)" >&2
fi

[ "$mode" = test ] || exit "$status"
"$top/scripts/ktap-summary.sh" "$out" "$console" "$status"
