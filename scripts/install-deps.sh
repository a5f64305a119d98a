#!/bin/sh
# Install everything the build, the tests and the benchmarks need on a
# Debian 12 machine.  Idempotent: it only calls apt-get when a package is
# missing, so `make` can run it every time.
set -eu

PACKAGES="
	linux-source-6.12 quilt
	gcc make bc bison flex libelf-dev libssl-dev cpio ccache pkg-config
	libnl-3-dev libnl-genl-3-dev
	busybox-static qemu-system-x86
	e2fsprogs xfsprogs btrfs-progs util-linux
	python3 python3-yaml python3-jsonschema python3-ply python3-git
	valgrind clang libclang-rt-14-dev llvm sparse
	libsystemd-dev prometheus jq
"

missing=""
for p in $PACKAGES; do
	if ! dpkg-query -W -f '${Status}\n' "$p" 2>/dev/null |
	     grep -q '^install ok installed$'; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	exit 0
fi

if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing packages:$missing" >&2
	echo "install-deps: run 'sudo $0' (or as root) to install them" >&2
	exit 2
fi

echo "  APT    $missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
# Debian 12 ships linux-source-6.12 in bookworm-security only: a system
# (or a debootstrap chroot) without that suite cannot get it.
if ! apt-cache show linux-source-6.12 >/dev/null 2>&1; then
	echo "install-deps: no package linux-source-6.12: it comes from the" \
	     "bookworm-security suite; add 'deb http://deb.debian.org/debian-security" \
	     "bookworm-security main' to /etc/apt/sources.list and run make again" >&2
	exit 2
fi
# shellcheck disable=SC2086
apt-get install -q -y --no-install-recommends $missing
