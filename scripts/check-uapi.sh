#!/bin/sh
# Check that the uapi header is what the YNL spec generates, and that the
# copy fsmsg vendors is that header.
#
# usage: check-uapi.sh KERNEL_TREE VENDORED_HEADER
set -eu

tree=$(realpath "$1") vendored=$(realpath "$2")
spec=Documentation/netlink/specs/fs_msg.yaml
header=include/uapi/linux/fs_msg.h
PYTHON=${PYTHON:-/usr/bin/python3}

cd "$tree"
if [ ! -f "$spec" ]; then
	echo "check-uapi: $spec is not in the tree (series not applied?)" >&2
	exit 1
fi
gen=$(mktemp)
trap 'rm -f "$gen"' EXIT
"$PYTHON" tools/net/ynl/ynl-gen-c.py --mode uapi --header --spec "$spec" \
	-o "$gen" > /dev/null
if ! diff -u "$header" "$gen"; then
	echo "check-uapi: $header differs from what ynl-gen-c.py makes of $spec" >&2
	exit 1
fi
if ! diff -u "$header" "$vendored"; then
	echo "check-uapi: $vendored is stale; run 'make -C fsmsg update-uapi KERNEL=$tree'" >&2
	exit 1
fi
echo "  UAPI    $header matches $spec and the copy in fsmsg"
