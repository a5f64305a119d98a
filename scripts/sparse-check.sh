#!/bin/sh
# Run sparse (make C=2) on every C file the series touches, in the patched
# tree and in the pristine one, and fail if the series adds a warning.
# Line numbers are ignored in the comparison: the patches move lines.
#
# usage: sparse-check.sh PATCHED_TREE PATCHED_OBJ BASE_TREE BASE_OBJ PATCHDIR
set -eu

tree=$(realpath "$1") obj=$(realpath -m "$2")
base=$(realpath "$3") base_obj=$(realpath -m "$4") patches=$5
kcc=${KCC:-gcc}

files=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$patches/series" |
	while read -r p _; do
		sed -n 's|^+++ b/\(.*\.c\)$|\1|p' "$patches/$p"
	done | sort -u)

# sparse_of TREE OBJ: "file: message" for each warning in the touched files
sparse_of() {
	objs=
	for f in $files; do
		[ -f "$1/$f" ] && objs="$objs ${f%.c}.o"
	done
	# shellcheck disable=SC2086
	make -s -C "$1" O="$2" CC="$kcc" C=2 $objs 2>&1 >/dev/null |
		sed -n "s|^$1/||; s|^\([^:]*\.[ch]\):[0-9]*:[0-9]*: \(warning\|error\): |\1: \2: |p" |
		sort
}

echo "  SPARSE  $(echo "$files" | wc -l) files touched by the series"
sparse_of "$tree" "$obj" > "$obj/sparse.patched"
sparse_of "$base" "$base_obj" > "$base_obj/sparse.base"
new=$(comm -23 "$obj/sparse.patched" "$base_obj/sparse.base")
echo "  SPARSE  $(wc -l < "$base_obj/sparse.base") warnings before the series, $(wc -l < "$obj/sparse.patched") after"
if [ -n "$new" ]; then
	echo "$new"
	echo "sparse-check: the series adds the warnings above" >&2
	exit 1
fi
