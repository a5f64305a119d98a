#!/bin/sh
# Export the series from a kernel git tree where it is developed as
# commits on top of a "base" tag (the pristine 6.12 source) into patches/:
# one git format-patch file per commit and patches/series.  The cover
# letter (patches/0000-cover-letter.patch) is kept by hand.
#
# usage: export-series.sh GIT_TREE [BASE]
set -eu

tree=$1 base=${2:-base}
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/patches
mkdir -p "$out"

find "$out" -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' -delete
git -C "$tree" format-patch --quiet --no-signature --zero-commit \
	--start-number 1 -o "$out" "$base..HEAD"

{
	echo "# FS_MSG: filesystem space warnings over generic netlink."
	echo "# Against Debian's linux-source-6.12 (6.12.118); apply with quilt"
	echo "# (quilt push -a) or git am, in this order.  The cover letter,"
	echo "# 0000-cover-letter.patch, has no diff: it is listed here only as a comment."
	[ ! -f "$out/0000-cover-letter.patch" ] || echo "# 0000-cover-letter.patch"
	cd "$out"
	ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-'
} > "$out/series"
cat "$out/series"
