#!/bin/sh
# Unpack the kernel source (once) and bring it to exactly patches/series.
#
# usage: prepare-kernel.sh TARBALL TREE PATCHDIR
#
# When the series changed since the last run, every patch is popped and
# the new series pushed with quilt, so an edited patch never leaves a
# stale tree.  Files whose content comes out the same get their old mtime
# back, so kbuild rebuilds only what the edit really changed.  An empty
# or absent series gives the pristine tree (the benchmark baseline).
set -eu

tarball=$1 tree=$2 patches=$(realpath "$3")

if [ ! -f "$tree/Makefile" ]; then
	echo "  UNTAR   $tree"
	rm -rf "$tree.tmp"
	mkdir -p "$tree.tmp"
	tar -xf "$tarball" -C "$tree.tmp" --strip-components=1
	mv "$tree.tmp" "$tree"
fi
cd "$tree"

export QUILT_PATCHES="$patches" QUILT_PC=.pc

series_files() {
	[ -f "$patches/series" ] || return 0
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$patches/series" |
	awk '{ print $1 }'
}

fingerprint() {
	{
		[ -f "$patches/series" ] && cat "$patches/series"
		for p in $(series_files); do cat "$patches/$p"; done
	} | sha256sum | cut -d' ' -f1
}

want=$(fingerprint)
if [ -f .series-applied ] && [ "$(cat .series-applied)" = "$want" ]; then
	exit 0
fi
rm -f .series-applied

# Remember content and mtime of every file the applied patches touch.
saved=.series-mtimes
: > "$saved"
if [ -f .pc/applied-patches ]; then
	while read -r p; do
		(cd ".pc/$p" && find . -type f ! -name '.timestamp' ! -name '.snap*')
	done < .pc/applied-patches | sed 's|^\./||' | sort -u |
	while read -r f; do
		[ -f "$f" ] && printf '%s %s %s\n' \
			"$(sha256sum < "$f" | cut -d' ' -f1)" \
			"$(stat -c %Y "$f")" "$f"
	done > "$saved"
	# -f: the patch files may have been edited since they were applied;
	# quilt restores the backups it kept in .pc regardless.
	quilt pop -a -f -q > /dev/null
fi

if [ -n "$(series_files)" ]; then
	n=$(series_files | wc -l)
	echo "  QUILT   push $n patches"
	if ! quilt push -a -q > .quilt.log 2>&1; then
		cat .quilt.log >&2
		echo "prepare-kernel: the series does not apply to $tree" >&2
		exit 1
	fi
fi

# Unchanged content: give the old mtime back.
while read -r sum mtime f; do
	if [ -f "$f" ] && [ "$(sha256sum < "$f" | cut -d' ' -f1)" = "$sum" ]; then
		touch -m -d "@$mtime" "$f"
	fi
done < "$saved"
rm -f "$saved" .quilt.log

echo "$want" > .series-applied
