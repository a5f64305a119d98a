#!/bin/sh
# Build the guest's initramfs without root: a gen_init_cpio list naming
# busybox, the static fsmsg, alloc_test, fsmsg_probe, promcheck and fsops, the guest
# scripts and the image records, with device nodes and owners written into
# the archive.
#
# usage: make-initramfs.sh GEN_INIT_CPIO OUTPUT FSMSG ALLOC_TEST PROBE \
#                          PROMCHECK IMAGES_ENV [TOOL...]
#   TOOL: more static programs, each installed as /bin/$(basename TOOL)
set -eu

gen=$1 output=$2 fsmsg=$3 alloc_test=$4 probe=$5 promcheck=$6 images_env=$7
shift 7
top=$(cd "$(dirname "$0")/.." && pwd)
busybox=${BUSYBOX:-/bin/busybox}

if ! "$busybox" --help 2>&1 | head -1 | grep -q BusyBox; then
	echo "make-initramfs: $busybox is not busybox (install busybox-static)" >&2
	exit 1
fi

list=$output.list
{
	cat <<-EOL
	dir /dev 755 0 0
	nod /dev/console 600 0 0 c 5 1
	nod /dev/null 666 0 0 c 1 3
	dir /proc 755 0 0
	dir /sys 755 0 0
	dir /tmp 1777 0 0
	dir /mnt 755 0 0
	dir /run 755 0 0
	dir /root 700 0 0
	dir /bin 755 0 0
	dir /sbin 755 0 0
	dir /etc 755 0 0
	dir /etc/fsmsg 755 0 0
	dir /usr 755 0 0
	dir /usr/bin 755 0 0
	dir /usr/sbin 755 0 0
	file /bin/busybox $busybox 755 0 0
	file /bin/fsmsg $fsmsg 755 0 0
	file /bin/alloc_test $alloc_test 755 0 0
	file /bin/fsmsg_probe $probe 755 0 0
	file /bin/promcheck $promcheck 755 0 0
	file /etc/fsmsg/images.env $images_env 644 0 0
	file /etc/passwd $top/initramfs/etc/passwd 644 0 0
	file /etc/group $top/initramfs/etc/group 644 0 0
	file /init $top/initramfs/init 755 0 0
	EOL
	for t in "$@"; do
		echo "file /bin/$(basename "$t") $t 755 0 0"
	done
	for d in lib tests; do
		echo "dir /$d 755 0 0"
		for f in "$top/initramfs/$d"/*.sh; do
			[ -e "$f" ] || continue
			echo "file /$d/$(basename "$f") $f 644 0 0"
		done
	done
	echo "file /demo.sh $top/initramfs/demo.sh 755 0 0"
	echo "file /bench.sh $top/initramfs/bench.sh 755 0 0"
} > "$list"

"$gen" "$list" > "$output.tmp"
mv "$output.tmp" "$output"
