#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# build-kmod.sh - build the repository's modules for one kernel, out of the
# source tree, so that several kernels never share object files.
#
# Copies Kbuild, kmod/, uapi/ and samples/ (or, with --src DIR, the module tree DIR)
# into DEST (default build/kmod-<kernel>) and runs
# `make -C <kdir> M=DEST TWHEEL_SAMPLES=1 modules` there (the example module
# is built too) with any extra make arguments
# (W=1, C=2...; with C=, CHECK= is set to a sparse the kernel accepts, see
# scripts/sparse.sh).  --fresh empties DEST first (a full, not incremental,
# build: static checks want every warning printed).  The make output goes to
# stdout; the exit status is make's.
#
# Usage: scripts/build-kmod.sh KERNEL [--fresh] [--src DIR] [--dest DIR] [MAKE ARGS...]
#   KERNEL is a kernel of scripts/kernels.conf.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

main() {
	local kernel=$1 fresh=0 src="" dest="" kdir d samples=()
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		--fresh) fresh=1 ;;
		--src) src=$2; shift ;;
		--dest) dest=$2; shift ;;
		*) break ;;
		esac
		shift
	done
	kernel=$(kernel_name "$kernel")
	kdir=$(kernel_kdir "$kernel")
	[ -d "$kdir" ] || die "no build tree for kernel $kernel at $kdir"
	[ -n "$dest" ] || dest=$(kmod_build_dir "$kernel")
	[ "$fresh" = 0 ] || rm -rf "$dest"
	mkdir -p "$dest"
	if [ -n "$src" ]; then
		sync_tree "$src" "$dest"
	else
		cp -p "$TWHEEL_ROOT/Kbuild" "$dest/Kbuild"
		for d in kmod uapi samples; do
			sync_tree "$TWHEEL_ROOT/$d" "$dest/$d"
		done
		samples=(TWHEEL_SAMPLES=1)
	fi
	# C=1/C=2: a sparse this kernel accepts (newer kernels refuse Debian 12's
	# and kbuild would then skip the check with only a note).
	local check=()
	case " $* " in *" C="[12]" "*) check=("CHECK=$("$TWHEEL_ROOT/scripts/sparse.sh" "$kdir")") ;; esac
	PATH=$(kernel_tool_path "$kernel")$PATH make -C "$kdir" M="$(cd "$dest" && pwd)" "${samples[@]+"${samples[@]}"}" \
		"${check[@]+"${check[@]}"}" "$@" modules 2>&1
}

main "$@"
