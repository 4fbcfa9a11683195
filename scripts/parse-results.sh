#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# parse-results.sh - turn one guest's results.log into ledger entries.
#
# Counts: the boot (at least 2 CPUs online) and every "@@ STEP" as results
# of suite "guest"; every KTAP test case
# of every "ktap" block (suite "kunit"); every top-level TAP line of every
# "tap" block, plus the program's exit status (suite "userspace").  Anything
# missing is a failure, never a silent pass: no "@@ BOOT", no "@@ DONE", a
# block without END, a KUnit suite or TAP program with no result lines, a
# TAP plan that does not match, and (with --expect-kunit / --expect-tap) a
# guest that produced no KTAP / no TAP at all.  "# SKIP" results are
# recorded as skip: neither passed nor failed.  A failed case's last
# diagnostic lines (what its block printed since the result before it)
# follow it as "note" entries, so that the summary shows why it failed.
#
# Usage: scripts/parse-results.sh --kernel NAME --results FILE
#            [--timed-out] [--expect-kunit] [--expect-tap]
# Appends to $TWHEEL_LEDGER (see scripts/lib.sh).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

KERNEL="" RESULTS="" TIMED_OUT=0 EXPECT_KUNIT=0 EXPECT_TAP=0
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) KERNEL=$2; shift ;;
	--results) RESULTS=$2; shift ;;
	--timed-out) TIMED_OUT=1 ;;
	--expect-kunit) EXPECT_KUNIT=1 ;;
	--expect-tap) EXPECT_TAP=1 ;;
	*) die "parse-results: unknown option $1" ;;
	esac
	shift
done
if [ -z "$KERNEL" ] || [ -z "$RESULTS" ]; then die "parse-results: need --kernel and --results"; fi
[ -f "$RESULTS" ] || : >"$RESULTS"

# The awk program prints "status<TAB>suite<TAB>name" lines.
parse() {
	awk -v expect_kunit="$EXPECT_KUNIT" -v expect_tap="$EXPECT_TAP" -v timed_out="$TIMED_OUT" '
	function out(st, suite, name) { printf "%s\t%s\t%s\n", st, suite, name }
	# The diagnostic lines since the last result, the last MAXDIAG of them.
	function diag(line) { diags[ndiag++ % MAXDIAG] = line }
	function fail_with_diags(suite, name,   i) {
		out("fail", suite, name)
		for (i = (ndiag > MAXDIAG ? ndiag - MAXDIAG : 0); i < ndiag; i++)
			out("note", suite, diags[i % MAXDIAG])
	}
	function directive(line,   d) {
		d = ""
		if (match(line, /#[ \t]*[Ss][Kk][Ii][Pp]/)) d = "skip"
		else if (match(line, /#[ \t]*[Tt][Oo][Dd][Oo]/)) d = "todo"
		return d
	}
	# "ok 3 name # comment" -> "3 name"
	function casename(line) {
		sub(/^[ \t]*(not )?ok[ \t]+/, "", line)
		sub(/[ \t]*#.*$/, "", line)
		return line
	}
	function close_block(rc,   st) {
		if (kind == "ktap") {
			if (ncase == 0) out("fail", "kunit", bname ": suite produced no test case results")
			else if (suite_status == "fail" && nfail == 0)
				out("fail", "kunit", bname ": suite reported not ok although no case failed")
			else if (suite_status == "")
				out("fail", "kunit", bname ": no suite result line (incomplete KTAP)")
			nktap++
		} else if (kind == "tap") {
			if (ncase == 0) out("fail", "userspace", bname ": no TAP results")
			else if (plan != "" && plan != ncase)
				out("fail", "userspace", bname ": plan 1.." plan " but " ncase " results")
			if (rc != "0") {
				st = (rc == "124" || rc == "143" || rc == "137") ? "timed out" : "exit status " rc
				out("fail", "userspace", bname ": " st)
			} else out("pass", "userspace", bname ": exit status 0")
			ntap++
		}
		kind = ""
	}
	BEGIN { kind = ""; boot = 0; done = 0; nktap = 0; ntap = 0; ndiag = 0; MAXDIAG = 12 }
	/^@@ BOOT / {
		boot = 1; cpus = 0
		for (i = 3; i <= NF; i++) if ($i ~ /^cpus=/) { cpus = $i; sub(/^cpus=/, "", cpus) }
		out(cpus >= 2 ? "pass" : "fail", "guest", "booted " $3 " with " cpus " CPUs (need at least 2)")
		next
	}
	/^@@ DONE / { done = 1; next }
	/^@@ STEP / {
		if (kind != "") { out("fail", kind == "ktap" ? "kunit" : "userspace", bname ": block cut short"); kind = "" }
		out($4 == "pass" ? "pass" : "fail", "guest", $3 ($4 == "pass" ? "" : " (" $5 ")"))
		next
	}
	/^@@ BEGIN / {
		if (kind != "") { out("fail", "guest", bname ": block cut short"); kind = "" }
		kind = $3; bname = $4; ncase = 0; nfail = 0; plan = ""; suite_status = ""; ndiag = 0
		if (kind != "ktap" && kind != "tap") kind = "text"
		next
	}
	/^@@ END / {
		rc = $5; sub(/^rc=/, "", rc)
		if (kind != "") close_block(rc)
		next
	}
	/^@@ / { next }
	kind == "ktap" {
		# Test cases are one level (4 spaces) below the suite; deeper lines
		# are parameters of a case, summarised by the case line itself.
		if ($0 ~ /^    (not )?ok [0-9]+/) {
			ncase++
			d = directive($0)
			name = bname "." casename($0)
			if (d == "skip") out("skip", "kunit", name)
			else if ($0 ~ /^    not ok/) { fail_with_diags("kunit", name); nfail++ }
			else out("pass", "kunit", name)
			ndiag = 0
		} else if ($0 ~ /^(not )?ok [0-9]+/) {
			suite_status = ($0 ~ /^not ok/) ? "fail" : "pass"
		} else if ($0 !~ /^[ \t]*(KTAP version|TAP version|1\.\.|$)/) diag($0)
		next
	}
	kind == "tap" {
		if ($0 ~ /^1\.\.[0-9]+/) { p = $0; sub(/^1\.\./, "", p); sub(/[^0-9].*$/, "", p); plan = p + 0; next }
		if ($0 ~ /^(not )?ok( [0-9]+|$)/) {
			ncase++
			d = directive($0)
			name = bname ": " casename($0)
			if (d == "skip") out("skip", "userspace", name)
			else if (d == "todo") out("skip", "userspace", name " (TODO)")
			else if ($0 ~ /^not ok/) fail_with_diags("userspace", name)
			else out("pass", "userspace", name)
			ndiag = 0
		} else if ($0 !~ /^[ \t]*(KTAP version|TAP version|1\.\.|$)/) diag($0)
		next
	}
	END {
		if (kind != "") out("fail", kind == "ktap" ? "kunit" : (kind == "tap" ? "userspace" : "guest"), bname ": output cut short (guest died?)")
		if (!boot) out("fail", "guest", "guest booted and reported (no @@ BOOT on the results port)")
		if (timed_out) out("fail", "guest", "guest finished within its timeout (it timed out)")
		else if (boot && !done) out("fail", "guest", "payload completed (no @@ DONE: guest crashed or panicked)")
		if (expect_kunit && nktap == 0) out("fail", "kunit", "at least one KUnit suite ran (no KTAP at all)")
		if (expect_tap && ntap == 0) out("fail", "userspace", "at least one test program ran (no TAP at all)")
	}' "$RESULTS"
}

parse | while IFS=$'\t' read -r status suite name; do
	record "$status" "$suite" "$KERNEL" "$name"
done
