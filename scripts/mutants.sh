#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# mutants.sh - `make mutants`: prove that the tests can fail.
#
# Each scripts/mutants/NAME.patch plants one bug in the module. Its header,
# before the diff, names the test program meant to catch it (or the KUnit
# suite, twheel_*, on a debug kernel) and the kernel to run it on:
#   Mutant: what the bug is
#   Test: fuzz_test
#   Kernel: 6.12
# For each one: the repository's Kbuild, kmod/, uapi/ and samples/ are
# copied to build/mutants/NAME/src, the patch applied there (never to the
# repository), and scripts/check.sh builds that tree in a fresh build
# directory and runs only that test program, as `make check` does (same
# sizes, splat scan, kmemleak on the debug kernel), in a guest of that
# kernel. The mutant is caught, and passes here, when the inner run
# reports a failure of that program (or, when the bug then brings the
# guest down before the program's TAP is sent, the program's own failed
# check on the console); it survives, a failure here, when the program
# passes. A patch that no longer applies or a tree that does not build is a
# failure too: it proves nothing. A guest that dies before twheel is loaded
# (stock kernels under TCG rarely crash while booting) is run once more.
#
# Not part of `make check`: one mutant costs a module build and a guest
# (1 to 3 minutes on a stock kernel, more on the debug kernel).
#
# Usage: scripts/mutants.sh [NAME...]     (default: every patch)
#        scripts/mutants.sh --dry-run     every patch applies exactly (make check's static suite)
# Environment: MUTANTS (make variable) = names to run; TWHEEL_GUEST_TIMEOUT
# (default 600 s) and TWHEEL_TEST_TIMEOUT (default 300 s) for the guests.
# Outputs: build/mutants/NAME/ (src/, the inner run's check.log and
# build/check/); last line "N passed, N failed".
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

DIR=$TWHEEL_ROOT/scripts/mutants
OUT=$TWHEEL_BUILD/mutants

# header FILE KEY: the value of "KEY: value" in the patch's header.
header() { sed -n "/^--- /q; s/^$2: *//p" "$1" | head -n 1; }

run_mutant() {
	local patch=$1 name test kernel what out src rc ledger failure died console console_failure attempt
	local suite=userspace sep=": "
	name=$(basename "$patch" .patch)
	test=$(header "$patch" Test)
	kernel=$(header "$patch" Kernel)
	what=$(header "$patch" Mutant)
	if [ -z "$test" ] || [ -z "$kernel" ]; then
		record fail mutants - "$name: no 'Test:' or 'Kernel:' line in $patch"
		return
	fi
	# A KUnit suite: its failed cases read "twheel_api.7 name".
	case $test in twheel_*) suite=kunit sep=. ;; esac
	out=$OUT/$name
	src=$out/src
	rm -rf "$out"
	mkdir -p "$src"
	cp -p "$TWHEEL_ROOT/Kbuild" "$src/"
	cp -pr "$TWHEEL_ROOT/kmod" "$TWHEEL_ROOT/uapi" "$TWHEEL_ROOT/samples" "$src/"
	# Build products of the repository's own tree are not wanted here.
	find "$src" \( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' \
		-o -name '.*.cmd' -o -name modules.order -o -name Module.symvers \) -delete
	if ! patch -s -p1 -d "$src" <"$patch" >"$out/patch.log" 2>&1; then
		record fail mutants "$kernel" "$name: $(basename "$patch") does not apply (see $out/patch.log)"
		return
	fi
	log "mutants: $name ($what): $test on $kernel"
	ledger=$out/build/check/ledger.tsv
	for attempt in 1 2; do
		rc=0
		TWHEEL_BUILD=$out/build TWHEEL_LEDGER="" \
		TWHEEL_GUEST_TIMEOUT=${TWHEEL_GUEST_TIMEOUT:-600} \
		TWHEEL_TEST_TIMEOUT=${TWHEEL_TEST_TIMEOUT:-300} \
			"$TWHEEL_ROOT/scripts/check.sh" --kernels "$kernel" --suites "$suite" \
			--tests "$test" --module-src "$src" >"$out/check.log" 2>&1 || rc=$?
		[ -f "$ledger" ] || : >"$ledger"
		if ! awk -F'\t' '$1 == "pass" && $2 == "build" && $4 == "modules build" { ok = 1 } END { exit !ok }' "$ledger"; then
			record fail mutants "$kernel" "$name: the mutated module does not build (see $out/check.log)"
			return
		fi
		# A guest that died before the module was even loaded (a TCG
		# boot flake) says nothing about the mutant: once more.
		if awk -F'\t' '$1 == "pass" && $2 == "guest" && $4 == "insmod-twheel" { ok = 1 } END { exit !ok }' "$ledger"; then
			break
		fi
		if [ "$attempt" = 2 ]; then
			record fail mutants "$kernel" "$name: no verdict, the guest died before twheel was loaded, twice (see $out/check.log)"
			return
		fi
		log "mutants: $name: the guest died before twheel was loaded; once more"
		cp "$out/check.log" "$out/check-attempt1.log"
	done
	failure=$(awk -F'\t' -v t="$test$sep" -v s="$suite" '$1 == "fail" && $2 == s && index($4, t) == 1 { print $4 }' "$ledger")
	# The guest sends a program's TAP when the program ends: if the bug
	# then brings the kernel down, the program's failed check is only on
	# the console ("# T.c:LINE:CASE:Expected ...").
	died=$(awk -F'\t' '$1 == "fail" && $2 == "guest" && /no @@ DONE/ { print "died" }' "$ledger")
	console=$out/build/check/guest-$(kernel_name "$kernel")/console.log
	console_failure=$(grep -a -m1 -E "^# ${test}[.]c:[0-9]+:[^:]*:Expected " \
		"$console" 2>/dev/null || true)
	# Likewise a KUnit suite's KTAP is read when its module's cases have
	# all run: a case that failed before the kernel went down is only on
	# the console, inside the suite's "# Subtest:" block.
	if [ "$suite" = kunit ]; then
		console_failure=$(awk -v s="# Subtest: $test" '
			index($0, s) { in_suite = 1; next }
			/# Subtest: / { in_suite = 0 }
			in_suite && /not ok [0-9]+ / { sub(/^.*not ok/, "not ok"); print; exit }
		' "$console" 2>/dev/null || true)
	fi
	if [ -n "$failure" ]; then
		record pass mutants "$kernel" "$name caught by $(printf '%s\n' "$failure" | wc -l) failure(s): $(printf '%s\n' "$failure" | paste -sd';' | sed 's/;/; /g')"
	elif [ -n "$died" ] && [ -n "$console_failure" ]; then
		record pass mutants "$kernel" "$name caught by $test before the guest died: ${console_failure#\# }"
	else
		record fail mutants "$kernel" "$name survived: $test passed with it (inner run status $rc, see $out/check.log)"
	fi
}

# Every patch applies to the tree as it is, exactly (no fuzz: a hunk that
# lands elsewhere plants another bug); nothing is written.
dry_run() {
	local patch bad=0
	for patch in "$DIR"/*.patch; do
		if ! patch --dry-run -F0 -s -p1 -d "$TWHEEL_ROOT" <"$patch" >/dev/null 2>&1; then
			echo "mutants: $(basename "$patch") does not apply exactly to the tree" >&2
			bad=1
		fi
	done
	return "$bad"
}

main() {
	local names=("$@") patch n
	if [ "${1:-}" = --dry-run ]; then
		dry_run
		return
	fi
	[ ${#names[@]} -gt 0 ] || read -r -a names <<<"${MUTANTS:-}"
	mkdir -p "$OUT"
	export TWHEEL_LEDGER=$OUT/ledger.tsv
	: >"$TWHEEL_LEDGER"
	# The test programs, once, for every inner run (which then only checks
	# that they are up to date).
	make -C "$TWHEEL_ROOT/userspace-test" >"$OUT/userspace-build.log" 2>&1 ||
		die "mutants: userspace-test does not build (see $OUT/userspace-build.log)"
	if [ ${#names[@]} -eq 0 ]; then
		for patch in "$DIR"/*.patch; do run_mutant "$patch"; done
	else
		for n in "${names[@]}"; do
			[ -f "$DIR/$n.patch" ] || die "mutants: no $DIR/$n.patch"
			run_mutant "$DIR/$n.patch"
		done
	fi
	"$TWHEEL_ROOT/scripts/summary.sh" "$TWHEEL_LEDGER"
}

main "$@"
