#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# summary.sh - print the per-suite, per-kernel summary of a results ledger
# (see record() in scripts/lib.sh), the list of failures, and as the very
# last line "N passed, N failed".  A failure's "note" entries (the test's
# own diagnostics) are printed under it.  Exits 1 when anything failed or when
# nothing passed at all, 0 otherwise.
#
# Usage: scripts/summary.sh LEDGER
set -euo pipefail

ledger=${1:?usage: summary.sh LEDGER}
[ -f "$ledger" ] || : >"$ledger"

awk -F'\t' '
	{
		key = $2 "\t" $3
		if (!(key in seen)) { seen[key] = 1; order[++n] = key }
		count[key, $1]++
		total[$1]++
		if ($1 == "fail") fails[++nf] = sprintf("  FAIL  %-12s %-9s %s", $2, $3, $4)
		if ($1 == "note") fails[++nf] = sprintf("        %s", $4)
		if ($1 == "skip") skips[++ns] = sprintf("  SKIP  %-12s %-9s %s", $2, $3, $4)
	}
	END {
		print ""
		print "==================== twheel check summary ===================="
		printf "  %-12s %-9s %7s %7s %8s\n", "suite", "kernel", "passed", "failed", "skipped"
		for (i = 1; i <= n; i++) {
			split(order[i], k, "\t")
			printf "  %-12s %-9s %7d %7d %8d\n", k[1], k[2], count[order[i], "pass"], \
				count[order[i], "fail"], count[order[i], "skip"]
		}
		if (ns) { print ""; print "Skipped (not counted as passed):"; for (i = 1; i <= ns; i++) print skips[i] }
		if (nf) { print ""; print "Failures:"; for (i = 1; i <= nf; i++) print fails[i] }
		print ""
		printf "%d passed, %d failed\n", total["pass"], total["fail"]
		exit (total["fail"] > 0 || total["pass"] == 0) ? 1 : 0
	}' "$ledger"
