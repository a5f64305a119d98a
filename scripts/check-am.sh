#!/bin/sh
# Check that the series applies with git am, as a maintainer applies it
# from the list, to the pristine tree, and that it gives the same files
# as the quilt-applied tree the suite builds.  Only the files the series
# touches are copied into a scratch repository: enough for git am, which
# needs a patch's preimage and nothing else.
#
# usage: check-am.sh PRISTINE_TREE PATCHED_TREE PATCHDIR WORKDIR
set -eu

base=$(realpath "$1") patched=$(realpath "$2") patches=$(realpath "$3")
work=$4

series=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$patches/series" |
	awk '{ print $1 }')
[ -n "$series" ] || { echo "check-am: $patches/series lists no patch" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work"
cd "$work"
git init -q .
files=$(for p in $series; do
	sed -n -e 's|^--- a/||p' -e 's|^+++ b/||p' "$patches/$p"
done | sort -u)
for f in $files; do
	if [ -f "$base/$f" ]; then
		mkdir -p "$(dirname "$f")"
		cp "$base/$f" "$f"
	fi
done
git add -A
git -c user.name=check-am -c user.email=check-am@localhost \
	commit -q -m "pristine: the files the series touches"

n=0
for p in $series; do
	if ! out=$(git -c user.name=check-am -c user.email=check-am@localhost \
			am --whitespace=error-all "$patches/$p" 2>&1); then
		echo "$out" >&2
		echo "check-am: $p does not apply with git am" >&2
		exit 1
	fi
	n=$((n + 1))
done

for f in $files; do
	if ! cmp -s "$f" "$patched/$f"; then
		echo "check-am: $f after git am differs from the quilt-applied tree" >&2
		exit 1
	fi
done
echo "  GIT-AM  $n patches apply to the pristine tree; $(echo "$files" | wc -l) files as quilt made them"
