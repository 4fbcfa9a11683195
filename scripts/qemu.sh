#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# qemu.sh - print the QEMU command the guests run, one word per line.
#
# Debian 12's QEMU 7.2 runs stale translated code under multi-threaded TCG:
# after the guest kernel patches its own text (text_poke_bp(): a static key,
# a trace event), another vCPU may still execute the int3 that stood there
# and the guest dies with "Oops: int3" (reproduced in seconds by toggling a
# sched trace event while both vCPUs run; QEMU 10.0 ran 2328 toggles in
# 120 s without one).  So a QEMU older than QEMU_MIN is replaced by the one
# of the machine's backports suite, unpacked into the cache by
# scripts/debian-fetch.sh: the machine's apt setup is not touched, and the
# libraries it links are those Debian 12's own QEMU package installs
# (scripts/deps.sh).
#
# TWHEEL_QEMU=/path/to/qemu-system-x86_64 uses that binary as it is.
#
# Usage: scripts/qemu.sh
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

QEMU_MIN=10.0
# What the binary needs besides itself: firmware (seabios) and the option
# ROMs that boot a -kernel (qemu-system-data).
QEMU_PACKAGES=(qemu-system-x86 qemu-system-data seabios)

# "10.0.2" from "QEMU emulator version 10.0.2 (Debian ...)".
qemu_version() { "$1" --version 2>/dev/null | awk 'NR == 1 { print $4 }'; }

version_ok() {
	[ -n "$1" ] && [ "$(printf '%s\n%s\n' "$QEMU_MIN" "$1" | sort -V | head -n1)" = "$QEMU_MIN" ]
}

backports_suite() {
	local codename
	# shellcheck source=/dev/null
	codename=$(. /etc/os-release && printf '%s' "${VERSION_CODENAME:-}")
	[ -n "$codename" ] || die "qemu: no VERSION_CODENAME in /etc/os-release"
	printf '%s-backports\n' "$codename"
}

# Unpack the backports packages; print the qemu-system-x86 root and the
# firmware search path, in the order QEMU must search it.
fetch_backports() {
	local suite pkg root roots=()
	suite=$(backports_suite)
	for pkg in "${QEMU_PACKAGES[@]}"; do
		root=$("$TWHEEL_ROOT/scripts/debian-fetch.sh" "$suite" --extract "$pkg")
		roots+=("$root")
	done
	# roots: qemu-system-x86, qemu-system-data, seabios.  seabios first:
	# qemu-system-data's BIOS names are links into the system's seabios.
	printf '%s\n%s\n%s\n' "${roots[0]}" "${roots[2]}/usr/share/seabios" \
		"${roots[1]}/usr/share/qemu"
}

main() {
	local sys lines bin
	if [ -n "${TWHEEL_QEMU:-}" ]; then
		printf '%s\n' "$TWHEEL_QEMU"
		return
	fi
	sys=$(command -v qemu-system-x86_64 || true)
	if [ -n "$sys" ] && version_ok "$(qemu_version "$sys")"; then
		printf '%s\n' "$sys"
		return
	fi
	mkdir -p "$TWHEEL_CACHE"
	exec 9>"$TWHEEL_CACHE/qemu.lock"
	flock 9
	lines=$(fetch_backports)
	mapfile -t lines <<<"$lines"
	bin=${lines[0]}/usr/bin/qemu-system-x86_64
	version_ok "$(qemu_version "$bin")" ||
		die "qemu: $bin is not QEMU $QEMU_MIN or newer (missing libraries? ldd it)"
	printf '%s\n-L\n%s\n-L\n%s\n' "$bin" "${lines[1]}" "${lines[2]}"
}

main "$@"
