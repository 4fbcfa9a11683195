#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-harness.sh - prove that the harness can go red (`make check-harness`).
#
# Runs scripts/check.sh itself, on the debug kernel, with the throwaway module
# tree scripts/harness-selftest/ (a KUnit suite with one passing case, one
# failing KUNIT_EXPECT, one WARN_ON(1), one deliberate leak; and a twheel
# client that frees an armed struct twheel_timeout, built with a copy of the
# repository's kmod/ and loaded after twheel.ko) and its three test
# programs (one with a failing and a skipped TAP case that also leaves CPU 1
# offline, one that prints no TAP at all, and one on the kernel's
# kselftest_harness.h, as the userspace suite, with a failing EXPECT, a
# failing ASSERT, a SKIP and a timeout), and asserts that the inner run
#   - counts the passing KUnit case and the passing TAP cases as passed,
#   - reports the failing expectation, the failing TAP cases, the missing TAP,
#     the CPU left offline, the WARN_ON(1) splat, the debug objects report of
#     the freed armed timeout and the kmemleak report as failures, and the
#     skips as not passed,
#   - still completes the guest after the WARN and the debug objects report
#     (the log after it is kept), with no other splat: debug objects' fixup
#     took the freed timeout off its wheel, its callback never ran,
#   - ends with "N passed, N failed" and exits non-zero.
# Each assertion is one result; run by `make check` into its ledger, or
# standalone with its own summary.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

INNER_BUILD=$TWHEEL_BUILD/harness-selftest
INNER_LEDGER=$INNER_BUILD/check/ledger.tsv

# assert NAME STATUS SUITE REGEX: the inner ledger has a STATUS result of
# SUITE (on the debug kernel) whose name matches REGEX.
assert_result() {
	local name=$1 status=$2 suite=$3 regex=$4
	if awk -F'\t' -v st="$status" -v su="$suite" -v re="$regex" \
		'$1 == st && $2 == su && $3 == "debug" && $4 ~ re { found = 1 } END { exit !found }' "$INNER_LEDGER"; then
		record pass harness debug "$name"
	else
		record fail harness debug "$name (no '$status' '$suite' result matching /$regex/ in $INNER_LEDGER)"
	fi
}

# assert_splat NAME REGEX: the inner run's splat report has a matching line.
assert_splat() {
	local name=$1 regex=$2 file=$INNER_BUILD/check/guest-debug/splats.txt
	if [ -f "$file" ] && grep -qE -- "$regex" "$file"; then
		record pass harness debug "$name"
	else
		record fail harness debug "$name (no line matching /$regex/ in $file)"
	fi
}

# assert_no_splat NAME REGEX: the inner run's splat report exists and has no
# matching line.
assert_no_splat() {
	local name=$1 regex=$2 file=$INNER_BUILD/check/guest-debug/splats.txt line
	if [ ! -f "$file" ]; then
		record fail harness debug "$name (no $file)"
	elif line=$(grep -m1 -E -- "$regex" "$file"); then
		record fail harness debug "$name (got: $line)"
	else
		record pass harness debug "$name"
	fi
}

assert_absent() {
	local name=$1 status=$2 suite=$3 regex=$4
	if awk -F'\t' -v st="$status" -v su="$suite" -v re="$regex" \
		'$1 == st && $2 == su && $4 ~ re { found = 1 } END { exit found }' "$INNER_LEDGER"; then
		record pass harness debug "$name"
	else
		record fail harness debug "$name (unexpected '$status' '$suite' result matching /$regex/)"
	fi
}

# The inner run must fail for the planted reasons and for nothing else.
EXPECTED_FAILURES='harness_expect_fails$|harness_tap_fails_on_purpose$|tap_fails_test: exit status 1|^cpus-after-tap_fails_test |no_tap_test: no TAP results|^kernel splats in the guest log: (WARNING|ODEBUG):|global[.]harness_ksft_(expect|assert)_fails_on_purpose$|harness[.]ksft_times_out_on_purpose$|kselftest_fails_test: exit status 1'

assert_only_expected_failures() {
	local other
	other=$(awk -F'\t' -v re="$EXPECTED_FAILURES" '$1 == "fail" && $4 !~ re { print $2 ": " $4 }' "$INNER_LEDGER")
	if [ -z "$other" ]; then
		record pass harness debug "no failures other than the planted ones"
	else
		printf '%s\n' "$other" | sed 's/^/    unexpected: /' >&2
		record fail harness debug "no failures other than the planted ones (got: $(printf '%s' "$other" | head -n 1))"
	fi
}

# The module tree: scripts/harness-selftest/ with the repository's kmod/ and
# uapi/ beside its files (its Kbuild then builds twheel.ko and the twheel
# client harness_odebug_kunit.ko too).
assemble_tree() {
	local dir=$1
	rm -rf "$dir"
	mkdir -p "$dir"
	cp -pr "$TWHEEL_ROOT"/scripts/harness-selftest/. "$TWHEEL_ROOT/kmod" "$TWHEEL_ROOT/uapi" "$dir/"
}

# The test programs: the shell ones as they are, the kselftest one built
# (static) against the kselftest_harness.h of the extracted kernel source,
# as userspace-test/ is.
build_tests() {
	local dir=$1 ksft
	rm -rf "$dir"
	mkdir -p "$dir"
	cp -p "$TWHEEL_ROOT"/scripts/harness-selftest/*_test "$dir/"
	ksft=$(TWHEEL_DEBUG_SERIES=6.12 "$TWHEEL_ROOT/scripts/debug-kernel.sh" --source)/tools/testing/selftests
	gcc -std=gnu11 -O2 -Wall -static -I"$ksft/kselftest" -o "$dir/kselftest_fails_test" \
		"$TWHEEL_ROOT/scripts/harness-selftest/kselftest_fails_test.c"
}

main() {
	local standalone=0 rc=0 out last tests=$INNER_BUILD/tests src=$INNER_BUILD/src
	if [ -z "$TWHEEL_LEDGER" ]; then
		standalone=1
		mkdir -p "$TWHEEL_BUILD"
		TWHEEL_LEDGER=$TWHEEL_BUILD/check-harness-ledger.tsv
		: >"$TWHEEL_LEDGER"
	fi
	export TWHEEL_LEDGER
	out=$TWHEEL_BUILD/check-harness.log
	if build_tests "$tests" >"$TWHEEL_BUILD/check-harness-build.log" 2>&1; then
		record pass harness debug "kselftest self-test program builds"
	else
		record fail harness debug "kselftest self-test program builds (see $TWHEEL_BUILD/check-harness-build.log)"
	fi
	assemble_tree "$src"
	log "check-harness: running scripts/check.sh on the debug kernel with scripts/harness-selftest (failures below are deliberate; output in $out)"
	# twheel's own KUnit suites are built in this tree too: the filter
	# leaves them out (make check runs them).
	TWHEEL_BUILD=$INNER_BUILD TWHEEL_LEDGER="" \
		"$TWHEEL_ROOT/scripts/check.sh" --kernels debug --suites "kunit userspace" \
		--module-src "$src" --tests-dir "$tests" \
		--kunit-filter 'twheel_harness*' >"$out" 2>&1 || rc=$?
	# Show the inner run's summary, indented.
	sed -n '/=== twheel check summary ===/,$p' "$out" | sed 's/^/    | /' >&2
	last=$(tail -n 1 "$out")

	if [ "$rc" != 0 ]; then
		record pass harness debug "inner run exits non-zero (status $rc)"
	else
		record fail harness debug "inner run exits non-zero (it exited 0)"
	fi
	if [[ $last =~ ^[0-9]+\ passed,\ [1-9][0-9]*\ failed$ ]]; then
		record pass harness debug "inner run ends with '$last'"
	else
		record fail harness debug "inner run ends with 'N passed, N failed', N failed > 0 (last line: '$last')"
	fi
	[ -f "$INNER_LEDGER" ] || : >"$INNER_LEDGER"
	assert_result "passing KUnit case counted as passed" pass kunit 'harness_passes$'
	assert_result "failing KUNIT_EXPECT reported as a failure" fail kunit 'harness_expect_fails$'
	assert_result "failing KUnit case's message kept in the summary" note kunit 'deliberate failure: the harness must report it'
	assert_result "WARN_ON(1) reported as a kernel splat failure" fail splat 'kernel splats in the guest log: (WARNING|ODEBUG):'
	assert_splat "WARN_ON(1) shows in the splat report" 'WARNING:.*harness_selftest_kunit'
	assert_splat "deliberate leak reported by kmemleak" 'unreferenced object'
	assert_result "guest still completed after the WARN" pass guest 'rmmod-harness_selftest_kunit'
	assert_splat "armed twheel timeout freed: debug objects report it" 'ODEBUG: free active .*object type: twheel_timeout'
	assert_result "armed twheel timeout freed: its callback never ran (the fixup cancelled it)" pass kunit 'harness_frees_armed_timeout$'
	assert_no_splat "nothing after the debug objects fixup (no KASAN, BUG, Oops, list corruption)" 'KASAN|(^|[^A-Z])BUG|Oops|general protection|Unable to handle|corruption|refcount_t:'
	assert_result "guest still completed after the debug objects report" pass guest 'rmmod-harness_odebug_kunit'
	assert_result "twheel.ko unloads after the debug objects fixup" pass guest 'unloaded-twheel'
	assert_result "passing TAP case counted as passed" pass userspace 'harness_tap_passes$'
	assert_result "failing TAP case reported as a failure" fail userspace 'harness_tap_fails_on_purpose$'
	assert_result "non-zero exit status reported as a failure" fail userspace 'tap_fails_test: exit status 1'
	assert_result "program without TAP reported as a failure" fail userspace 'no_tap_test: no TAP results'
	assert_result "TAP SKIP recorded as skipped" skip userspace 'harness_tap_skipped$'
	assert_result "program that leaves CPU 1 offline reported as a failure" fail guest 'cpus-after-tap_fails_test'
	assert_absent "TAP SKIP not counted as passed" pass userspace 'harness_tap_skipped'
	assert_result "kselftest: passing case counted as passed" pass userspace 'global[.]harness_ksft_passes$'
	assert_result "kselftest: failing EXPECT reported as a failure" fail userspace 'global[.]harness_ksft_expect_fails_on_purpose$'
	assert_result "kselftest: failing EXPECT's message kept in the summary" note userspace 'Expected 1 [(]1[)] == 2 [(]2[)]'
	assert_result "kselftest: failing ASSERT reported as a failure" fail userspace 'global[.]harness_ksft_assert_fails_on_purpose$'
	assert_result "kselftest: timeout reported as a failure" fail userspace 'harness[.]ksft_times_out_on_purpose$'
	assert_result "kselftest: SKIP recorded as skipped" skip userspace 'global[.]harness_ksft_skipped$'
	assert_absent "kselftest: SKIP not counted as passed" pass userspace 'harness_ksft_skipped'
	assert_result "kselftest: non-zero exit status reported as a failure" fail userspace 'kselftest_fails_test: exit status 1'
	assert_only_expected_failures

	if [ "$standalone" = 1 ]; then
		"$TWHEEL_ROOT/scripts/summary.sh" "$TWHEEL_LEDGER"
	fi
}

main "$@"
