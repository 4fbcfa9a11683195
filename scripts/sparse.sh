#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# sparse.sh - print the sparse binary to check modules against kernel tree
# KDIR with.  Debian 12's sparse (0.6.4) is refused by newer kernels (7.x
# test sparse for __typeof_unqual__ in scripts/checker-valid.sh, and kbuild
# then silently drops C=); for those, sparse is built from the source
# package of Debian's sid suite (scripts/debian-fetch.sh --source) into
# $TWHEEL_CACHE/tools/ once.  Exits non-zero when no sparse will do.
#
# Usage: scripts/sparse.sh KDIR
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

# 1 when the kernel accepts this sparse (kernels without the test accept any).
valid_for() {
	local sparse=$1 kdir=$2 v
	for v in "$kdir/source/scripts/checker-valid.sh" "$kdir/scripts/checker-valid.sh"; do
		[ -f "$v" ] || continue
		[ "$(sh "$v" "$sparse" -m64 2>/dev/null)" = 1 ]
		return
	done
	command -v "$sparse" >/dev/null
}

build_sparse() {
	local src ver out
	src=$("$TWHEEL_ROOT/scripts/debian-fetch.sh" sid --source sparse)
	ver=$(basename "$src")
	out=$TWHEEL_CACHE/tools/$ver
	exec 6>"$TWHEEL_CACHE/tools/.sparse.lock"
	flock 6
	if [ ! -x "$out/sparse" ]; then
		log "building $ver (Debian sid's source) for the newer kernels' C= checks"
		rm -rf "$out"
		cp -a "$src" "$out"
		make -C "$out" -j"$(nproc)" CC=gcc HAVE_LLVM=no HAVE_GTK=no HAVE_SQLITE=no sparse \
			>"$out.log" 2>&1 || { tail -n 20 "$out.log" >&2; die "building $ver failed (log: $out.log)"; }
	fi
	printf '%s\n' "$out/sparse"
}

main() {
	local kdir=${1:?usage: sparse.sh KDIR} s
	if valid_for sparse "$kdir"; then
		command -v sparse
		return
	fi
	mkdir -p "$TWHEEL_CACHE/tools"
	s=$(build_sparse)
	valid_for "$s" "$kdir" || die "neither Debian 12's sparse nor $s is accepted by $kdir"
	printf '%s\n' "$s"
}

main "$@"
