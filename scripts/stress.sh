#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# stress.sh - `make stress`: the long runs, at full size.
#
# Runs at full size, one guest per kernel, through scripts/check.sh (same
# guest, splat scan and kmemleak as `make check`):
#   fuzz     userspace-test/fuzz_test: 1,000,000 operations on a stock
#            kernel, 200,000 on the debug (KASAN) kernel
#   hotplug  hotplug_test's churn_full_size: 500 CPU offline/online cycles,
#            each with a round of 100,000 timeouts armed (20,000 on a built
#            kernel: KASAN, and max_pending=65536 there) and the example
#            client module loaded
#   module   module_test's load_unload_full_size: 1000 load/unload cycles
#            of twheel.ko, with a file's timeouts armed and the example
#            client module loaded in between
# The fuzzer's seed is drawn here and printed before the guest boots, so a
# failing run can be replayed even if the guest dies:
#   make stress STRESS_KERNELS=debug STRESS_TESTS=fuzz FUZZ_SEED=N FUZZ_OPS=M
#
# Environment (make variables of the same name):
#   STRESS_KERNELS    kernels to run (default "6.12 debug")
#   STRESS_TESTS      which of "fuzz hotplug module" (default: all three)
#   FUZZ_SEED         seed (default: random, printed)
#   FUZZ_OPS          operations (default 1000000 stock, 200000 debug)
#   FUZZ_THREADS      threads (default 4)
#   HOTPLUG_CYCLES    offline/online cycles (default 500)
#   HOTPLUG_TIMEOUTS  timeouts a round (default 100000 stock, 20000 built)
#   MODULE_CYCLES     load/unload cycles (default 1000)
# Outputs: build/stress/<kernel>/ (the guest's logs, results.log with the
# programs' TAP and figures); last line "N passed, N failed".
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

KERNELS=${STRESS_KERNELS:-6.12 debug}
STRESS_TESTS=${STRESS_TESTS:-fuzz hotplug module}
OUT=$TWHEEL_BUILD/stress
passed=0
failed=0

want_test() { case " $STRESS_TESTS " in *" $1 "*) return 0 ;; esac; return 1; }

# wrapper DIR NAME BINARY COMMAND: DIR/NAME runs COMMAND, with the program
# as DIR/BINARY (the guest runs every executable *_test without arguments).
wrapper() {
	local dir=$1 name=$2 bin=$3 cmd=$4
	cp "$TWHEEL_ROOT/userspace-test/out/$name" "$dir/$bin"
	printf '#!/bin/sh\nexec %s\n' "$cmd" >"$dir/$name"
	chmod +x "$dir/$name"
}

for t in $STRESS_TESTS; do
	case $t in fuzz | hotplug | module) ;; *) die "stress: unknown test '$t' (fuzz hotplug module)" ;; esac
done
make -C "$TWHEEL_ROOT/userspace-test" out/fuzz_test out/hotplug_test out/module_test >/dev/null
rm -rf "$OUT"
mkdir -p "$OUT"
for k in $KERNELS; do
	if [ -n "${FUZZ_OPS:-}" ]; then
		ops=$FUZZ_OPS
	elif [ "$k" = debug ]; then
		ops=200000
	else
		ops=1000000
	fi
	if [ -n "${HOTPLUG_TIMEOUTS:-}" ]; then
		hp_timeouts=$HOTPLUG_TIMEOUTS
	elif kernel_is_built "$k"; then
		hp_timeouts=20000
	else
		hp_timeouts=100000
	fi
	hp_cycles=${HOTPLUG_CYCLES:-500}
	mod_cycles=${MODULE_CYCLES:-1000}
	seed=${FUZZ_SEED:-$(od -An -N5 -tu8 /dev/urandom | tr -d ' ')}
	threads=${FUZZ_THREADS:-4}
	dir=$OUT/$k
	mkdir -p "$dir/tests"
	what=""
	if want_test fuzz; then
		wrapper "$dir/tests" fuzz_test fuzz-bin \
			"/tests/fuzz-bin --seed $seed --ops $ops --threads $threads"
		what="$what fuzz_test --seed $seed --ops $ops --threads $threads;"
	fi
	if want_test hotplug; then
		wrapper "$dir/tests" hotplug_test hotplug-bin \
			"env TWHEEL_HOTPLUG_CYCLES=$hp_cycles TWHEEL_HOTPLUG_TIMEOUTS=$hp_timeouts /tests/hotplug-bin -t churn_full_size"
		what="$what hotplug $hp_cycles cycles, $hp_timeouts timeouts a round;"
	fi
	if want_test module; then
		wrapper "$dir/tests" module_test module-bin \
			"env TWHEEL_MODULE_CYCLES=$mod_cycles /tests/module-bin -t load_unload_full_size"
		what="$what module $mod_cycles load/unload cycles;"
	fi
	log "stress: kernel $k:$what"
	rc=0
	TWHEEL_TEST_TIMEOUT=${TWHEEL_TEST_TIMEOUT:-5400} \
	TWHEEL_GUEST_TIMEOUT=${TWHEEL_GUEST_TIMEOUT:-12000} \
		"$TWHEEL_ROOT/scripts/check.sh" --kernels "$k" --suites userspace \
		--tests '*_test' --tests-dir "$dir/tests" >"$dir/check.log" 2>&1 || rc=$?
	cp -r "$TWHEEL_BUILD/check/." "$dir/"
	grep -E '^# (fuzz_test|FAIL|  )|(fuzz_test\.c:[0-9]+:model|hotplug_test\.c:[0-9]+|module_test\.c:[0-9]+):|^(not )?ok ' \
		"$dir/guest-$k/results.log" 2>/dev/null | sed 's/^/    /' || true
	if [ "$rc" = 0 ]; then
		passed=$((passed + 1))
		log "stress: PASS $k:$what"
	else
		failed=$((failed + 1))
		log "stress: FAIL $k:$what see $dir/check.log"
		tail -n 15 "$dir/check.log" | sed 's/^/    /'
	fi
done
printf '%s passed, %s failed\n' "$passed" "$failed"
[ "$failed" = 0 ]
