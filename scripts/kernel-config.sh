#!/bin/sh
# Make $OBJ/.config from tinyconfig plus the given fragments, then check
# that every option the fragments ask for survived olddefconfig.
#
# usage: kernel-config.sh SRCTREE OBJTREE FRAGMENT...
set -eu

src=$(realpath "$1") obj=$(realpath -m "$2")
shift 2
[ $# -ge 1 ] || { echo "usage: $0 SRCTREE OBJTREE FRAGMENT..." >&2; exit 1; }

make_k() { make -s -C "$src" O="$obj" ${KCC:+CC="$KCC"} "$@"; }

mkdir -p "$obj"
tmp=$obj/.config.fragments
cat "$@" > "$tmp"

# Start from tinyconfig, merge the fragments, resolve dependencies.
make_k tinyconfig >/dev/null
"$src/scripts/kconfig/merge_config.sh" -m -Q -O "$obj" "$obj/.config" "$tmp" >/dev/null
make_k olddefconfig >/dev/null

# Every "CONFIG_X=v" and "# CONFIG_X is not set" must be in the result.
missing=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		want=$line ;;
	"# CONFIG_"*" is not set")
		want=$line ;;
	*)
		continue ;;
	esac
	if ! grep -qxF "$want" "$obj/.config"; then
		sym=${want#\# }
		sym=${sym%%[= ]*}
		got=$(grep -E "^$sym=|^# $sym is not set" "$obj/.config" || echo "absent")
		echo "kernel-config: asked for '$want', got '$got'" >&2
		missing=1
	fi
done < "$tmp"
rm -f "$tmp"

if [ "$missing" != 0 ]; then
	echo "kernel-config: some options did not survive olddefconfig (see above)" >&2
	exit 1
fi
