#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh - twheel's whole test run (`make check`, `make vmtest`).
#
#   1. scripts/deps.sh (Debian packages, quiet when present)
#   2. static: checkpatch --strict on kmod/*.[ch], kmod/tests/, kmod/compat/ and uapi/linux/*.h, and a
#      from-scratch W=1 + sparse (C=2) build against every kernel of KERNELS
#      (stock headers, or the tree of a built kernel); any warning or error
#      line fails
#   3. built kernels (scripts/debug-kernel.sh, cached), module builds per
#      kernel, userspace tests (make -C userspace-test)
#   4. one guest per kernel running scripts/guest/check.sh: KUnit (built
#      kernels), example module, userspace suite, rmmod, kmemleak (built);
#      one at a time (TWHEEL_GUEST_JOBS=2: built kernels' two at a time)
#   5. splat scan of every guest log (scripts/scan-log.sh)
#   6. scripts/check-harness.sh (the harness proves it can fail)
#   7. scripts/host-state.sh: the machine as it was before the run, apart
#      from the build tools of step 1 (suite "host")
#   8. summary; last line "N passed, N failed"; exit 1 on any failure
#
# Options (make variables in brackets):
#   --kernels "debug 6.1 ..."    kernels to boot [KERNELS]; empty = all of
#                                scripts/kernels.conf (the kernel matrix)
#   --suites "static kunit example userspace harness install"   what to run [SUITES]
#                                (install: scripts/check-install.sh, the Debian
#                                packages installed in a throwaway root, DKMS, guests)
#   --tests GLOBS                userspace programs to run, e.g. 'timeout*_test q*_test' [TESTS]
#   --kunit-filter GLOB          kunit.filter_glob for the debug guest [KUNIT_FILTER]
#   --show                       stream guest consoles to the terminal [SHOW=1]
# Used by scripts/check-harness.sh to push its throwaway module through the
# very same path:
#   --module-src DIR             build this module tree instead of the repo's
#   --tests-dir DIR              test programs from DIR (no userspace-test build)
#   --main-module NAME|none      module loaded first, removed last (default twheel)
# Environment: TWHEEL_GUEST_JOBS (built kernels' guests at a time, default
# 1; 2 = two at a time, see run_guests), TWHEEL_GUEST_TIMEOUT (seconds per guest; default: the
# kernel's timeout column in scripts/kernels.conf), TWHEEL_TEST_TIMEOUT
# (seconds per test program, default 300), TWHEEL_CACHE, TWHEEL_BUILD.
# Outputs under build/check/: ledger.tsv, static/*.log, guest-<kernel>/.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

KERNELS=${KERNELS:-$TWHEEL_ALL_KERNELS}
SUITES=${SUITES:-static kunit example userspace harness install}
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
	local k names=""
	[ -n "$KERNELS" ] || KERNELS=$TWHEEL_ALL_KERNELS
	# Canonical names ("7.2" is "debug-7.2"); unknown names fail here.
	for k in $KERNELS; do names="$names $(kernel_name "$k")"; done
	KERNELS=${names# }
}

want() { case " $SUITES " in *" $1 "*) return 0 ;; esac; return 1; }
phase() { log "[$(($(date +%s) - START))s] $*"; }
guest_suites() {
	local s out=""
	for s in kunit example userspace; do want "$s" && out="$out $s"; done
	printf '%s\n' "${out# }"
}

# Compiler/modpost diagnostics in a build log: any one is a failure.
# "C=2 specified, but sparse is not available or not up to date" is kbuild
# skipping sparse: a failure too.
diagnostics() { grep -E '(warning|error|WARNING|ERROR)[:[]|not available or not up to date' "$1" || true; }

static_checkpatch() {
	local src f out
	src=$("$TWHEEL_ROOT/scripts/debug-kernel.sh" --source)
	mkdir -p "$OUTDIR/static"
	for f in "$TWHEEL_ROOT"/kmod/*.[ch] "$TWHEEL_ROOT"/kmod/tests/*.[ch] \
		"$TWHEEL_ROOT"/kmod/include/linux/*.h "$TWHEEL_ROOT"/kmod/compat/*.c "$TWHEEL_ROOT"/kmod/compat/probes/*.c \
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
		kmod/*.c kmod/*.h kmod/tests/*.[ch] kmod/include/linux/*.h uapi/linux/*.h) >"$out" 2>&1 || true
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

# One check of the userspace side, by its command; pass when it exits 0.
static_cmd() {
	local label=$1 log=$OUTDIR/static/$2.log
	shift 2
	if (cd "$TWHEEL_ROOT" && "$@") >"$log" 2>&1; then
		record pass static - "$label"
	else
		head -n 20 "$log" >&2
		record fail static - "$label: see $log"
	fi
}

# The docs against the ABI header, the CLI's completion, the library's
# symbols, the DKMS tree, no tracker references, the mutants apply, the
# shell scripts lint clean.
static_userland() {
	mkdir -p "$OUTDIR/static"
	static_cmd "every constant, structure and field of uapi/linux/twheel.h in twheel(4) and Documentation/uapi.rst, and no page names one that does not exist (make -C man check)" \
		uapi-docs make -C man check
	static_cmd "bash completion of twheel (make -C cli check)" completion make -C cli check
	static_cmd "libtwheel.so.1 exports the name@version pairs of libtwheel1.symbols (make -C lib check)" \
		lib-symbols make -C lib check
	static_cmd "make dkms-install copies only the module's source and runs twice (packaging/dkms-test.sh)" \
		dkms-files packaging/dkms-test.sh
	static_cmd "no file of the tree names a tracker issue (scripts/no-tracker-refs.sh)" \
		tracker-refs scripts/no-tracker-refs.sh
	static_cmd "every planted bug of scripts/mutants/ applies exactly to the tree (scripts/mutants.sh --dry-run)" \
		mutants-apply scripts/mutants.sh --dry-run
	static_cmd "shellcheck -x of every shell script of the tree (scripts/shell-lint.sh)" \
		shellcheck scripts/shell-lint.sh
}

# kmod/VERSION against the packages, pkg-config, the library, the CLI and
# the modules the static builds made.
static_version() {
	local k kos=()
	for k in $KERNELS; do
		[ ! -f "$(kmod_build_dir "$k")/kmod/twheel.ko" ] || kos+=("$(kmod_build_dir "$k")/kmod/twheel.ko")
	done
	static_cmd "one version: changelog, dkms.conf, libtwheel.pc, twheel --version, twheel_version() and modinfo of ${#kos[@]} modules agree with kmod/VERSION (packaging/version-test.sh)" \
		version packaging/version-test.sh "${kos[@]+"${kos[@]}"}"
}

run_static() {
	phase "static checks"
	static_checkpatch
	static_kerneldoc
	static_userland
	local k
	for k in $KERNELS; do
		# A built kernel has KUnit: its build also compiles the *_kunit modules.
		if kernel_is_built "$k" && ! ensure_built_kernel "$k"; then
			record fail static "$k" "W=1 + sparse build: the kernel does not build"
			continue
		fi
		# In the guest's own build directory: the guest phase's incremental
		# build then has nothing left to compile (one build per kernel).
		static_build "$k" W1-sparse "$(kmod_build_dir "$k")" C=2 W=1
	done
	# Which files of kmod/ call each other, from the objects just built.
	k=${KERNELS%% *}
	static_cmd "no two files of kmod/ call each other but expire.c/wheel.c and dev_file.c/dev_read.c ($k objects, scripts/kmod-calls.py)" \
		kmod-calls scripts/kmod-calls.py "$(kmod_build_dir "$k")/kmod"
	static_version
}

# Build (or find in the cache) a kernel of type "build".
ensure_built_kernel() {
	local k=$1 t0 dir
	[ -z "${BUILT_OK[$k]:-}" ] || return "${BUILT_OK[$k]}"
	t0=$(date +%s)
	phase "$k kernel (cached after the first build)"
	if dir=$("$TWHEEL_ROOT/scripts/debug-kernel.sh" --kernel "$k"); then
		BUILT_OK[$k]=0
		[ "$(($(date +%s) - t0))" -lt 5 ] || log "$k kernel: ready after $(($(date +%s) - t0)) s ($dir)"
	else
		BUILT_OK[$k]=1
		record fail build "$k" "the $k kernel builds (scripts/debug-kernel.sh --kernel $k)"
	fi
	return "${BUILT_OK[$k]}"
}
declare -A BUILT_OK=()

build_userspace() {
	local log=$OUTDIR/userspace-build.log
	phase "building userspace tests (make -C userspace-test)"
	if make -C "$TWHEEL_ROOT/userspace-test" >"$log" 2>&1; then
		record pass build - "userspace-test builds"
	else
		tail -n 20 "$log" >&2
		record fail build - "userspace-test build failed: see $log"
	fi
	# libtwheel's tests run in the guests with the suite.
	if make -C "$TWHEEL_ROOT/lib" tests >>"$log" 2>&1; then
		record pass build - "lib/out/lib_test builds"
	else
		tail -n 20 "$log" >&2
		record fail build - "lib/out/lib_test build failed: see $log"
	fi
}

# Build kmod for one kernel (incremental); on the debug kernel, W=1 must be clean.
build_for_kernel() {
	local kernel=$1 log=$OUTDIR/kmod-build-$1.log
	if kernel_is_built "$kernel"; then
		ensure_built_kernel "$kernel" || return 1
	fi
	phase "building modules for kernel $kernel"
	local src=()
	[ -z "$MODULE_SRC" ] || src=(--src "$MODULE_SRC")
	if ! "$TWHEEL_ROOT/scripts/build-kmod.sh" "$kernel" "${src[@]+"${src[@]}"}" W=1 >"$log" 2>&1; then
		tail -n 20 "$log" >&2
		record fail build "$kernel" "module build failed: see $log"
		return 1
	fi
	if kernel_is_built "$kernel" && want static; then
		# Incremental, so only what changed since the last run is checked
		# here; the full from-scratch W=1 checks are the static suite's.
		if [ -n "$(diagnostics "$log")" ]; then
			diagnostics "$log" | head -n 20 >&2
			record fail build "$kernel" "module W=1 build has warnings: see $log"
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
	timeout=${TWHEEL_GUEST_TIMEOUT:-$(kernel_timeout "$kernel")}
	# Under KASAN a file cannot be filled to the default limit in time: a
	# smaller one lets the limit and slot-reuse tests run there too.
	if kernel_is_built "$kernel"; then params="max_pending=65536"; fi
	[ -z "$KUNIT_FILTER" ] || append="kunit.filter_glob=$KUNIT_FILTER"
	phase "booting $kernel guest ($suites; timeout ${timeout}s; logs in $out)"
	local show=()
	[ "$SHOW" = 1 ] && show=(--show)
	# libtwheel's test program, beside the suite's.
	local extra=()
	[ -n "$TESTS_DIR" ] || [ ! -x "$TWHEEL_ROOT/lib/out/lib_test" ] ||
		extra=(--file "$TWHEEL_ROOT/lib/out/lib_test:/tests/lib_test")
	"$TWHEEL_ROOT/scripts/vm-run" --kernel "$kernel" --payload "$TWHEEL_ROOT/scripts/guest/check.sh" \
		--out "$out" --modules "$out/modules" --tests "${TESTS_DIR:-$TWHEEL_ROOT/userspace-test/out}" \
		--timeout "$timeout" --append "$append" \
		--env "TWHEEL_SUITES=$suites" --env "TWHEEL_TESTS=${TESTS:-*_test}" \
		--env "TWHEEL_TEST_TIMEOUT=${TWHEEL_TEST_TIMEOUT:-300}" --env "TWHEEL_MAIN_MODULE=$MAIN_MODULE" \
		--env "TWHEEL_MAIN_PARAMS=$params" "${show[@]+"${show[@]}"}" \
		"${extra[@]+"${extra[@]}"}" || rc=$?
	[ "$rc" != 124 ] || parse_args+=(--timed-out)
	[ "$rc" = 0 ] || [ "$rc" = 124 ] || record fail guest "$kernel" "qemu exited with status $rc (see $out/qemu.out)"
	if kernel_is_built "$kernel" && want kunit; then parse_args+=(--expect-kunit); fi
	want userspace && parse_args+=(--expect-tap)
	"$TWHEEL_ROOT/scripts/parse-results.sh" --kernel "$kernel" --results "$out/results.log" \
		"${parse_args[@]+"${parse_args[@]}"}"
	# KCSAN kernels: the core kernel's own known races (explained in the
	# file) do not count; every other report does.
	local allow=${TWHEEL_SPLAT_ALLOW:-} known
	if grep -qx 'CONFIG_KCSAN=y' "$(kernel_kdir "$kernel")/.config" 2>/dev/null; then
		known=$(sed -e '/^#/d' -e '/^[[:space:]]*$/d' "$TWHEEL_ROOT/scripts/kconfig/kcsan-known-races" | paste -sd'|')
		[ -z "$known" ] || allow=${allow:+$allow|}$known
	fi
	if splats=$(TWHEEL_SPLAT_ALLOW=$allow "$TWHEEL_ROOT/scripts/scan-log.sh" "$out/console.log" "$out/results.log" | tee "$out/splats.txt"); then
		record pass splat "$kernel" "no kernel splats in console, dmesg, kmemleak"
	else
		printf '%s\n' "$splats" | sed 's/^/    /' >&2
		record fail splat "$kernel" "kernel splats in the guest log: $(printf '%s\n' "$splats" | head -n1) (see $out/console.log)"
	fi
	phase "$kernel guest done"
}

# Build kernel $1's modules and boot its guest.
test_kernel() {
	if build_for_kernel "$1"; then
		run_guest "$1"
	else
		record fail guest "$1" "guest not booted: the build failed"
	fi
}

# test_kernel in the background with its own ledger and log, so that two
# guests' results do not interleave; collect_kernel appends them in order.
start_kernel() {
	local k=$1
	: >"$OUTDIR/ledger-$k.tsv"
	TWHEEL_LEDGER=$OUTDIR/ledger-$k.tsv test_kernel "$k" >"$OUTDIR/check-$k.log" 2>&1 &
	log "$k: building and booting in the background (log in $OUTDIR/check-$k.log)"
}
collect_kernel() {
	cat "$OUTDIR/check-$1.log" >&2
	cat "$OUTDIR/ledger-$1.tsv" >>"$TWHEEL_LEDGER"
}

# Guests one after another by default.  TWHEEL_GUEST_JOBS=2 runs the built
# kernels' guests two at a time, longest timeout first (under TCG a guest
# keeps about one of the two cores busy), the stock ones alone after them;
# not the default: in a clean-clone run beside other work on this 2-core
# machine, debug and debug-rt side by side missed bounds that hold alone
# (api_load_100k's lateness, a storm's arming time, batch_test's racing
# case timed out).  SHOW=1: one at a time.
run_guests() {
	local k jobs=${TWHEEL_GUEST_JOBS:-1} built stock="" running=0
	[ "$SHOW" = 0 ] || jobs=1
	built=$(for k in $KERNELS; do
		if kernel_is_built "$k"; then printf '%s %s\n' "$(kernel_timeout "$k")" "$k"; fi
	done | sort -s -k1,1nr | awk '{ print $2 }')
	for k in $KERNELS; do kernel_is_built "$k" || stock="$stock $k"; done
	if [ "$jobs" -le 1 ]; then
		for k in $built $stock; do test_kernel "$k"; done
		return
	fi
	# Kernels are built (and cached) before any guest starts, one at a time.
	for k in $built; do ensure_built_kernel "$k" || true; done
	for k in $built; do
		if [ "$running" -ge "$jobs" ]; then
			wait -n || true
			running=$((running - 1))
		fi
		start_kernel "$k"
		running=$((running + 1))
	done
	wait || true
	for k in $built; do collect_kernel "$k"; done
	for k in $stock; do test_kernel "$k"; done
}

run_harness() {
	phase "harness self-test (scripts/check-harness.sh)"
	"$TWHEEL_ROOT/scripts/check-harness.sh" || true	# it records its own results
}

# The machine as it was: scripts/deps.sh installed build tools and nothing
# else, and nothing after it installed or changed anything.
host_result() {
	local what=$1 diff line
	shift
	if diff=$("$TWHEEL_ROOT/scripts/host-state.sh" "$@"); then
		record pass host - "$what"
	else
		record fail host - "$what"
		printf '%s\n' "$diff" | head -n 10 | while IFS= read -r line; do record note host - "$line"; done
	fi
}

check_host() {
	phase "the machine as it was (scripts/host-state.sh)"
	"$TWHEEL_ROOT/scripts/host-state.sh" snapshot "$OUTDIR/host-after"
	host_result "scripts/deps.sh installed only declared build tools and what they depend on" \
		tools "$OUTDIR/host-before" "$OUTDIR/host-tools"
	host_result "packages, /boot, /lib/modules, /usr/src, modules-load.d and modprobe.d as they were before the run" \
		same "$OUTDIR/host-tools" "$OUTDIR/host-after"
}

main() {
	parse_args "$@"
	lock_build_dir
	rm -rf "$OUTDIR"
	mkdir -p "$OUTDIR"
	export TWHEEL_LEDGER=$OUTDIR/ledger.tsv
	: >"$TWHEEL_LEDGER"
	phase "make check: kernels '$KERNELS', suites '$SUITES'"
	"$TWHEEL_ROOT/scripts/host-state.sh" snapshot "$OUTDIR/host-before"
	"$TWHEEL_ROOT/scripts/deps.sh"
	"$TWHEEL_ROOT/scripts/host-state.sh" snapshot "$OUTDIR/host-tools"
	want static && run_static
	local k guests
	guests=$(guest_suites)
	if [ -n "$guests" ]; then
		phase "QEMU for the guests: $("$TWHEEL_ROOT/scripts/qemu.sh" | head -n1)"
		if want userspace && [ -z "$TESTS_DIR" ]; then build_userspace; fi
		run_guests
	fi
	# The "install" suite, scripts/check-install.sh.
	if want install; then
		phase "install suite (scripts/check-install.sh: make deb, apt-get install, DKMS, guests)"
		local stock="" opts=()
		for k in $KERNELS; do case $k in 5.10 | 6.1 | 6.12) stock="$stock $k" ;; esac; done
		[ -z "$TESTS" ] || opts+=(--tests "$TESTS")
		[ "$SHOW" = 0 ] || opts+=(--show)
		"$TWHEEL_ROOT/scripts/check-install.sh" --kernels "${stock# }" "${opts[@]+"${opts[@]}"}" ||
			record fail install - "scripts/check-install.sh failed"
	fi
	if want harness; then
		"$TWHEEL_ROOT/scripts/debug-kernel.sh" >/dev/null || record fail build debug "debug kernel builds"
		run_harness
	fi
	check_host
	phase "finished in $(($(date +%s) - START)) s"
	"$TWHEEL_ROOT/scripts/summary.sh" "$TWHEEL_LEDGER"
}

main "$@"
