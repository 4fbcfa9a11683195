#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# stress.sh - `make stress`: the long runs of issue 10, item 9.
#
# Runs userspace-test/fuzz_test at full size, one guest per kernel, through
# scripts/check.sh (same guest, splat scan and kmemleak as `make check`):
# 1,000,000 operations on a stock kernel, 200,000 on the debug (KASAN)
# kernel. The seed is drawn here and printed before the guest boots, so a
# failing run can be replayed even if the guest dies:
#   make stress STRESS_KERNELS=debug FUZZ_SEED=N FUZZ_OPS=M
#
# Environment (make variables of the same name):
#   STRESS_KERNELS   kernels to run (default "6.12 debug")
#   FUZZ_SEED        seed (default: random, printed)
#   FUZZ_OPS         operations (default 1000000 stock, 200000 debug)
#   FUZZ_THREADS     threads (default 4)
# Outputs: build/stress/<kernel>/ (the guest's logs, results.log with the
# fuzzer's TAP and figures); last line "N passed, N failed".
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

KERNELS=${STRESS_KERNELS:-6.12 debug}
OUT=$TWHEEL_BUILD/stress
passed=0
failed=0

make -C "$TWHEEL_ROOT/userspace-test" out/fuzz_test >/dev/null
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
	seed=${FUZZ_SEED:-$(od -An -N5 -tu8 /dev/urandom | tr -d ' ')}
	threads=${FUZZ_THREADS:-4}
	dir=$OUT/$k
	mkdir -p "$dir/tests"
	cp "$TWHEEL_ROOT/userspace-test/out/fuzz_test" "$dir/tests/fuzz-bin"
	# The guest runs every executable *_test without arguments.
	cat >"$dir/tests/fuzz_test" <<-EOF
	#!/bin/sh
	exec /tests/fuzz-bin --seed $seed --ops $ops --threads $threads
	EOF
	chmod +x "$dir/tests/fuzz_test"
	log "stress: kernel $k: fuzz_test --seed $seed --ops $ops --threads $threads"
	rc=0
	TWHEEL_TEST_TIMEOUT=${TWHEEL_TEST_TIMEOUT:-5400} \
	TWHEEL_GUEST_TIMEOUT=${TWHEEL_GUEST_TIMEOUT:-6000} \
		"$TWHEEL_ROOT/scripts/check.sh" --kernels "$k" --suites userspace \
		--tests fuzz_test --tests-dir "$dir/tests" >"$dir/check.log" 2>&1 || rc=$?
	cp -r "$TWHEEL_BUILD/check/." "$dir/"
	grep -E '^# (fuzz_test|FAIL|  )|fuzz_test\.c:[0-9]+:model:' \
		"$dir/guest-$k/results.log" 2>/dev/null | sed 's/^/    /' || true
	if [ "$rc" = 0 ]; then
		passed=$((passed + 1))
		log "stress: PASS $k (seed $seed, $ops operations)"
	else
		failed=$((failed + 1))
		log "stress: FAIL $k (seed $seed, $ops operations): see $dir/check.log"
		tail -n 15 "$dir/check.log" | sed 's/^/    /'
	fi
done
printf '%s passed, %s failed\n' "$passed" "$failed"
[ "$failed" = 0 ]
