#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh - `make demo`: boot Debian's stock kernel (6.12 unless --kernel)
# in QEMU with twheel.ko and show, in plain words, that it is loaded, where
# /dev/twheel is and what its parameters are; runs the demo program
# (samples/twheel-demo.c) in the guest when it builds.  Exits 0 when the
# module loaded and unloaded cleanly with no kernel splat and the demo
# program, if it ran, exited 0.
#
# Usage: scripts/demo.sh [--kernel NAME]   NAME: a kernel of scripts/kernels.conf
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

main() {
	local kernel=6.12 out=$TWHEEL_BUILD/demo rc=0 splats
	if [ "${1:-}" = --kernel ]; then kernel=$2; fi
	kernel=$(kernel_name "$kernel")	# "7.2" is "debug-7.2"
	lock_build_dir
	"$TWHEEL_ROOT/scripts/deps.sh"
	if kernel_is_built "$kernel"; then
		"$TWHEEL_ROOT/scripts/debug-kernel.sh" --kernel "$kernel" >/dev/null
	fi
	log "building twheel.ko for kernel $kernel"
	"$TWHEEL_ROOT/scripts/build-kmod.sh" "$kernel" >"$TWHEEL_BUILD/demo-build.log" 2>&1 ||
		{ tail -n 20 "$TWHEEL_BUILD/demo-build.log" >&2; die "module build failed"; }
	rm -rf "$out"
	mkdir -p "$out/modules" "$out/tests"
	if ! make -C "$TWHEEL_ROOT/samples" O="$out/tests" >"$TWHEEL_BUILD/demo-samples.log" 2>&1; then
		log "samples/twheel-demo.c does not build (see $TWHEEL_BUILD/demo-samples.log); demo without twheel-demo"
	fi
	find "$(kmod_build_dir "$kernel")" -name 'twheel.ko' -exec cp {} "$out/modules/" \;
	log "booting Linux $(kernel_release "$kernel" 2>/dev/null || echo "$kernel") in QEMU (TCG, 2 CPUs)..."
	"$TWHEEL_ROOT/scripts/vm-run" --kernel "$kernel" --payload "$TWHEEL_ROOT/scripts/guest/demo.sh" \
		--out "$out" --modules "$out/modules" --tests "$out/tests" \
		--timeout "$(kernel_timeout "$kernel")" || rc=$?
	echo
	awk '/^@@ BEGIN text demo$/ { on = 1; next } /^@@ END / { on = 0 } on' "$out/results.log"
	echo
	if [ "$rc" != 0 ]; then
		echo "Demo FAILED: the guest did not finish normally (status $rc); console log: $out/console.log"
		return 1
	fi
	if ! grep -q '^@@ STEP demo pass' "$out/results.log"; then
		echo "Demo FAILED: see above and $out/console.log"
		return 1
	fi
	if ! splats=$("$TWHEEL_ROOT/scripts/scan-log.sh" "$out/console.log" "$out/results.log"); then
		echo "Demo FAILED: kernel splat in the guest log:"
		printf '%s\n' "$splats" | sed 's/^/  /'
		return 1
	fi
	echo "Demo OK: twheel.ko loaded and unloaded cleanly in Linux ($kernel) under QEMU. Full console log: $out/console.log"
}

main "$@"
