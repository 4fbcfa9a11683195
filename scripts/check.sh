#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh - twheel's whole test run (`make check`, `make vmtest`).
#
#   1. scripts/deps.sh (Debian packages, quiet when present)
#   2. static: checkpatch --strict on kmod/*.[ch] and uapi/linux/*.h, sparse
#      (C=2), W=1 builds against the stock 6.1 and 6.12 headers; any
#      warning or error line fails
#   3. debug kernel (scripts/debug-kernel.sh, cached), module builds per kernel,
#      userspace tests (make -C userspace-test)
#   4. one guest per kernel running scripts/guest/check.sh: KUnit (debug
#      kernel), example module, userspace suite, rmmod, kmemleak (debug)
#   5. splat scan of every guest log (scripts/scan-log.sh)
#   6. scripts/check-harness.sh (the harness proves it can fail)
#   7. summary; last line "N passed, N failed"; exit 1 on any failure
#
# Options (make variables in brackets):
#   --kernels "debug 6.1 6.12"   kernels to boot [KERNELS]
#   --suites "static kunit example userspace harness"   what to run [SUITES]
#   --tests GLOB                 userspace programs to run, e.g. 'timeout*_test' [TESTS]
#   --kunit-filter GLOB          kunit.filter_glob for the debug guest [KUNIT_FILTER]
#   --show                       stream guest consoles to the terminal [SHOW=1]
# Used by scripts/check-harness.sh to push its throwaway module through the
# very same path:
#   --module-src DIR             build this module tree instead of the repo's
#   --tests-dir DIR              test programs from DIR (no userspace-test build)
#   --main-module NAME|none      module loaded first, removed last (default twheel)
# Environment: TWHEEL_GUEST_TIMEOUT (seconds per guest; default 900 for
# debug, 300 for stock), TWHEEL_TEST_TIMEOUT (seconds per test program,
# default 120), TWHEEL_CACHE, TWHEEL_BUILD.
# Outputs under build/check/: ledger.tsv, static/*.log, guest-<kernel>/.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

KERNELS=${KERNELS:-$TWHEEL_ALL_KERNELS}
SUITES=${SUITES:-static kunit example userspace harness}
TESTS=${TESTS:-}
KUNIT_FILTER=${KUNIT_FILTER:-}
SHOW=${SHOW:-0}
MODULE_SRC=""
TESTS_DIR=""
MAIN_MODULE=twheel
OUTDIR=$TWHEEL_BUILD/check
START=$(date +%s)

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--kernels) KERNELS=$2; shift ;;
		--suites) SUITES=$2; shift ;;
		--tests) TESTS=$2; shift ;;
		--kunit-filter) KUNIT_FILTER=$2; shift ;;
		--show) SHOW=1 ;;
		--module-src) MODULE_SRC=$(cd "$2" && pwd); shift ;;
		--tests-dir) TESTS_DIR=$(cd "$2" && pwd); shift ;;
		--main-module) MAIN_MODULE=$2; shift ;;
		*) die "check: unknown option '$1' (see the top of $0)" ;;
		esac
		shift
	done
	local k
	for k in $KERNELS; do kernel_kdir "$k" >/dev/null; done
}

want() { case " $SUITES " in *" $1 "*) return 0 ;; esac; return 1; }
phase() { log "[$(($(date +%s) - START))s] $*"; }
guest_suites() {
	local s out=""
	for s in kunit example userspace; do want "$s" && out="$out $s"; done
	printf '%s\n' "${out# }"
}

# Compiler/modpost diagnostics in a build log: any one is a failure.
diagnostics() { grep -E '(warning|error|WARNING|ERROR)[:[]' "$1" || true; }

static_checkpatch() {
	local src f out
	src=$("$TWHEEL_ROOT/scripts/debug-kernel.sh" --source)
	mkdir -p "$OUTDIR/static"
	for f in "$TWHEEL_ROOT"/kmod/*.[ch] "$TWHEEL_ROOT"/kmod/include/linux/*.h \
		"$TWHEEL_ROOT"/samples/*.c "$TWHEEL_ROOT"/uapi/linux/*.h; do
		[ -e "$f" ] || continue
		case $f in *.mod.c) continue ;; esac
		f=${f#"$TWHEEL_ROOT"/}
		out=$OUTDIR/static/checkpatch-$(echo "$f" | tr / _).log
		(cd "$TWHEEL_ROOT" && perl "$src/scripts/checkpatch.pl" --strict --no-tree \
			--show-types --color=never -f "$f") >"$out" 2>&1 || true
		if grep -qE '^total: 0 errors, 0 warnings, 0 checks' "$out"; then
			record pass static - "checkpatch --strict $f"
		else
			grep -E '^(ERROR|WARNING|CHECK)|^#[0-9]+: FILE' "$out" | head -n 20 >&2 || true
			record fail static - "checkpatch --strict $f ($(grep -E '^total:' "$out" || echo 'no total line'))"
		fi
	done
}

# kernel-doc -none -Wall over the module, the kernel API and the ABI: every
# kernel-doc comment well formed, every exported function with Return:.
static_kerneldoc() {
	local src out=$OUTDIR/static/kernel-doc.log
	src=$("$TWHEEL_ROOT/scripts/debug-kernel.sh" --source)
	mkdir -p "$OUTDIR/static"
	(cd "$TWHEEL_ROOT" && perl "$src/scripts/kernel-doc" -none -Wall \
		kmod/*.c kmod/*.h kmod/include/linux/*.h uapi/linux/*.h) >"$out" 2>&1 || true
	if [ -s "$out" ]; then
		head -n 20 "$out" >&2
		record fail static - "kernel-doc -none -Wall: $(wc -l <"$out") lines, see $out"
	else
		record pass static - "kernel-doc -none -Wall: no warnings"
	fi
}

# A from-scratch build with extra make args; pass only with zero diagnostics.
static_build() {
	local kernel=$1 label=$2 dest=$3 log
	shift 3
	log=$OUTDIR/static/$label-$kernel.log
	mkdir -p "$OUTDIR/static"
	if ! "$TWHEEL_ROOT/scripts/build-kmod.sh" "$kernel" --fresh --dest "$dest" "$@" >"$log" 2>&1; then
		tail -n 20 "$log" >&2
		record fail static "$kernel" "$label build ($*) failed: see $log"
		return
	fi
	if [ -n "$(diagnostics "$log")" ]; then
		diagnostics "$log" | head -n 20 >&2
		record fail static "$kernel" "$label build ($*): $(diagnostics "$log" | wc -l) warning/error lines, see $log"
	else
		record pass static "$kernel" "$label build ($*): no warnings"
	fi
}

run_static() {
	phase "static checks"
	static_checkpatch
	static_kerneldoc
	static_build 6.1 W1 "$TWHEEL_BUILD/static-w1-6.1" W=1
	static_build 6.12 W1 "$TWHEEL_BUILD/static-w1-6.12" W=1
	static_build 6.12 sparse "$TWHEEL_BUILD/static-sparse-6.12" C=2 W=1
	# The debug kernel is the only one with KUnit: its W=1 build also
	# compiles the *_kunit modules.  Done in build_for_kernel.
}

build_userspace() {
	local log=$OUTDIR/userspace-build.log
	phase "building userspace tests (make -C userspace-test)"
	if make -C "$TWHEEL_ROOT/userspace-test" >"$log" 2>&1; then
		record pass build - "userspace-test builds"
	else
		tail -n 20 "$log" >&2
		record fail build - "userspace-test build failed: see $log"
	fi
}

# Build kmod for one kernel (incremental); on the debug kernel, W=1 must be clean.
build_for_kernel() {
	local kernel=$1 log=$OUTDIR/kmod-build-$1.log
	if [ "$kernel" = debug ]; then
		phase "debug kernel (cached after the first build)"
		if ! "$TWHEEL_ROOT/scripts/debug-kernel.sh" >/dev/null; then
			record fail build debug "debug kernel builds"
			return 1
		fi
	fi
	phase "building modules for kernel $kernel"
	local src=()
	[ -z "$MODULE_SRC" ] || src=(--src "$MODULE_SRC")
	if ! "$TWHEEL_ROOT/scripts/build-kmod.sh" "$kernel" "${src[@]+"${src[@]}"}" W=1 >"$log" 2>&1; then
		tail -n 20 "$log" >&2
		record fail build "$kernel" "module build failed: see $log"
		return 1
	fi
	if [ "$kernel" = debug ] && want static; then
		# Incremental, so only what changed since the last run is checked
		# here; the full from-scratch W=1 checks run against 6.1 and 6.12.
		if [ -n "$(diagnostics "$log")" ]; then
			diagnostics "$log" | head -n 20 >&2
			record fail build debug "module W=1 build has warnings: see $log"
			return 0
		fi
	fi
	record pass build "$kernel" "modules build"
}

run_guest() {
	local kernel=$1 out=$OUTDIR/guest-$1 timeout rc=0 parse_args=() append="" splats
	local suites
	suites=$(guest_suites)
	rm -rf "$out"
	mkdir -p "$out/modules"
	find "$(kmod_build_dir "$kernel")" -name '*.ko' -exec cp {} "$out/modules/" \;
	local params=""
	if [ "$kernel" = debug ]; then timeout=${TWHEEL_GUEST_TIMEOUT:-900}; else timeout=${TWHEEL_GUEST_TIMEOUT:-300}; fi
	# Under KASAN a file cannot be filled to the default limit in time: a
	# smaller one lets the limit and slot-reuse tests run there too.
	[ "$kernel" = debug ] && params="max_pending=65536"
	[ -z "$KUNIT_FILTER" ] || append="kunit.filter_glob=$KUNIT_FILTER"
	phase "booting $kernel guest ($suites; timeout ${timeout}s; logs in $out)"
	local show=()
	[ "$SHOW" = 1 ] && show=(--show)
	"$TWHEEL_ROOT/scripts/vm-run" --kernel "$kernel" --payload "$TWHEEL_ROOT/scripts/guest/check.sh" \
		--out "$out" --modules "$out/modules" --tests "${TESTS_DIR:-$TWHEEL_ROOT/userspace-test/out}" \
		--timeout "$timeout" --append "$append" \
		--env "TWHEEL_SUITES=$suites" --env "TWHEEL_TESTS=${TESTS:-*_test}" \
		--env "TWHEEL_TEST_TIMEOUT=${TWHEEL_TEST_TIMEOUT:-120}" --env "TWHEEL_MAIN_MODULE=$MAIN_MODULE" \
		--env "TWHEEL_MAIN_PARAMS=$params" "${show[@]+"${show[@]}"}" || rc=$?
	[ "$rc" != 124 ] || parse_args+=(--timed-out)
	[ "$rc" = 0 ] || [ "$rc" = 124 ] || record fail guest "$kernel" "qemu exited with status $rc (see $out/qemu.out)"
	if [ "$kernel" = debug ] && want kunit; then parse_args+=(--expect-kunit); fi
	want userspace && parse_args+=(--expect-tap)
	"$TWHEEL_ROOT/scripts/parse-results.sh" --kernel "$kernel" --results "$out/results.log" \
		"${parse_args[@]+"${parse_args[@]}"}"
	if splats=$("$TWHEEL_ROOT/scripts/scan-log.sh" "$out/console.log" "$out/results.log" | tee "$out/splats.txt"); then
		record pass splat "$kernel" "no kernel splats in console, dmesg, kmemleak"
	else
		printf '%s\n' "$splats" | sed 's/^/    /' >&2
		record fail splat "$kernel" "kernel splats in the guest log: $(printf '%s\n' "$splats" | head -n1) (see $out/console.log)"
	fi
	phase "$kernel guest done"
}

run_harness() {
	phase "harness self-test (scripts/check-harness.sh)"
	"$TWHEEL_ROOT/scripts/check-harness.sh" || true	# it records its own results
}

main() {
	parse_args "$@"
	lock_build_dir
	rm -rf "$OUTDIR"
	mkdir -p "$OUTDIR"
	export TWHEEL_LEDGER=$OUTDIR/ledger.tsv
	: >"$TWHEEL_LEDGER"
	phase "make check: kernels '$KERNELS', suites '$SUITES'"
	"$TWHEEL_ROOT/scripts/deps.sh"
	want static && run_static
	local k guests
	guests=$(guest_suites)
	if [ -n "$guests" ]; then
		if want userspace && [ -z "$TESTS_DIR" ]; then build_userspace; fi
		for k in $KERNELS; do
			if build_for_kernel "$k"; then
				run_guest "$k"
			else
				record fail guest "$k" "guest not booted: the build failed"
			fi
		done
	fi
	if want harness; then
		"$TWHEEL_ROOT/scripts/debug-kernel.sh" >/dev/null || record fail build debug "debug kernel builds"
		run_harness
	fi
	phase "finished in $(($(date +%s) - START)) s"
	"$TWHEEL_ROOT/scripts/summary.sh" "$TWHEEL_LEDGER"
}

main "$@"
