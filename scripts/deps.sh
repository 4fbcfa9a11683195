#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh - install the Debian packages twheel's build and harness need.
#
# Idempotent and silent when everything is present; runs `apt-get update`
# only when something has to be installed.  Needs root (or sudo).
# `deps.sh --list` prints the packages (scripts/host-state.sh allows them).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

PACKAGES=(
	# toolchain, kernel build, static test binaries
	build-essential libc6-dev flex bison bc libelf-dev libssl-dev dwarves
	kmod cpio xz-utils perl
	# guests and static checks (qemu-system-x86: the libraries of the QEMU
	# scripts/qemu.sh picks, which on Debian 12 comes from bookworm-backports)
	qemu-system-x86 busybox-static sparse shellcheck
	# userspace tests (gcc-multilib: the 32-bit half of compat_test), the
	# samples' event loops (linked statically) and benchmarks
	gcc-multilib liburing-dev libevent-dev libuv1-dev stress-ng rt-tests gnuplot-nox
	# packaging, install suite: make deb, DKMS, man pages, guests' udev
	dpkg-dev debhelper dh-dkms dkms lintian python3-docutils pkg-config udev man-db fakeroot
)
# Nothing else: kernels (stock images, headers, linux-source) are downloaded
# and unpacked into the cache by scripts/debian-fetch.sh, never installed.

missing_packages() {
	local p status
	for p in "${PACKAGES[@]}"; do
		status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
		[ "$status" = installed ] || printf '%s\n' "$p"
	done
}

main() {
	local missing sudo=()
	if [ "${1:-}" = --list ]; then
		printf '%s\n' "${PACKAGES[@]}"
		return
	fi
	mapfile -t missing < <(missing_packages)
	[ "${#missing[@]}" -gt 0 ] || return 0
	if [ "$(id -u)" != 0 ]; then
		command -v sudo >/dev/null || { echo "twheel: deps: need root to install: ${missing[*]}" >&2; exit 1; }
		sudo=(sudo)
	fi
	echo "twheel: deps: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	"${sudo[@]}" apt-get update -qq >/dev/null
	"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	mapfile -t missing < <(missing_packages)
	if [ "${#missing[@]}" -gt 0 ]; then
		echo "twheel: deps: still missing after apt-get install: ${missing[*]}" >&2
		exit 1
	fi
}

main "$@"
