# Only on the debug kernel (make check-debug): prove the kernel's bug
# finders were active for the whole suite, and that nothing leaked.  The
# host fails the run on any lockdep, KASAN, UBSAN, sleeping-in-atomic,
# debugobjects or WARN report in the console.

KMEMLEAK=/sys/kernel/debug/kmemleak

debug_kernel() {
	[ -r /proc/config.gz ] ||
		skip "not the debug kernel (make check-debug runs this case)"
}

t_debug_active() {
	local opt
	debug_kernel
	for opt in PROVE_LOCKING DEBUG_ATOMIC_SLEEP KASAN UBSAN DEBUG_KMEMLEAK \
		   DEBUG_OBJECTS DEBUG_LIST; do
		zcat /proc/config.gz | grep -qx "CONFIG_$opt=y" ||
			fail "CONFIG_$opt is not set in this kernel"
	done
	dmesg | grep -q "KernelAddressSanitizer initialized" ||
		fail "KASAN did not start"
	# lockdep switches itself off after its first report.
	grep -q "debug_locks: *1" /proc/lockdep_stats ||
		fail "lockdep is off: $(grep debug_locks /proc/lockdep_stats)"
	[ -w "$KMEMLEAK" ] || fail "no $KMEMLEAK"
}
case_add t_debug_active "debug: lockdep (still on after the suite), KASAN, UBSAN, kmemleak and debugobjects are active"
