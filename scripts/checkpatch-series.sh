#!/bin/sh
# Run checkpatch.pl --strict on every patch in the series.
#
# usage: checkpatch-series.sh KERNEL_TREE PATCHDIR
set -eu

tree=$(realpath "$1") patches=$2
# checkpatch runs scripts/spdxcheck.py with "python3"; use Debian's, which
# has the modules it needs (python3-ply, python3-git).
PATH=/usr/bin:$PATH

bad=0 n=0
for p in $(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$patches/series" | awk '{ print $1 }'); do
	n=$((n + 1))
	# On stdin: checkpatch checks a file that git tracks as source code.
	if out=$("$tree/scripts/checkpatch.pl" --strict --quiet --root="$tree" \
			- < "$patches/$p" 2>&1); then
		echo "  CHECKPATCH $p: clean"
	else
		echo "$out"
		echo "  CHECKPATCH $p: NOT clean" >&2
		bad=1
	fi
done
[ "$n" -gt 0 ] || echo "  CHECKPATCH no patches in the series"
exit $bad
