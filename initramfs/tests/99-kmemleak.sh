# Last: unmount every test filesystem, so all per-superblock FS_MSG state
# must have been freed, and ask kmemleak for what was never freed.

t_kmemleak() {
	local name
	[ -w /sys/kernel/debug/kmemleak ] ||
		skip "kmemleak is not in this kernel (make check-debug runs this case)"
	for name in $IMAGES; do
		umount "/mnt/$name" || fail "umount /mnt/$name"
	done
	# Objects younger than 5 s are not reported; two scans settle it.
	sleep 6
	echo scan > /sys/kernel/debug/kmemleak
	echo scan > /sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak > /tmp/leaks
	if [ -s /tmp/leaks ]; then
		sed 's/^/# /' /tmp/leaks | head -60
		fail "kmemleak reports unreferenced objects"
	fi
}
case_add t_kmemleak "debug: after unmounting every filesystem, kmemleak finds no leak"
