#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scan-log.sh - find kernel splats in guest logs.
#
# Looks at kernel lines only: console lines carrying a printk timestamp
# ("[   12.345678] ..."), the "dmesg" block and the "kmemleak" block of a
# results.log.  Program output (TAP, payload messages) is not scanned, so a
# test that prints "WARNING:" does not trip it.  Prints each offending line
# (deduplicated, at most 40) and exits 1 when there is any, 0 otherwise.
#
# Expected, not splats: "module verification failed" and "loading
# out-of-tree module taints kernel" (unsigned out-of-tree module on a stock
# kernel), and the "Tainted:" word on its own.  Extra allowed lines can be
# given as an extended regex in $TWHEEL_SPLAT_ALLOW.
#
# Usage: scripts/scan-log.sh CONSOLE_LOG [RESULTS_LOG]
set -euo pipefail

SPLATS='BUG:|WARNING:|KASAN|UBSAN|ODEBUG|Oops|Kernel panic|kernel BUG at'
SPLATS+='|general protection fault|Unable to handle|double fault|stack-protector'
SPLATS+='|unreferenced object|suspected memory leak'
SPLATS+='|sleeping function called|scheduling while atomic|soft lockup|hard LOCKUP'
SPLATS+='|hung task|blocked for more than|rcu.*stall|detected stall|workqueue lockup'
SPLATS+='|INFO: |possible recursive locking|circular locking|inconsistent lock state'
SPLATS+='|lock held when returning|bad unlock balance|held lock freed|DEBUG_LOCKS_WARN_ON'
SPLATS+='|list_add corruption|list_del corruption|refcount_t:|Call Trace'
EXPECTED='module verification failed|loading out-of-tree module taints kernel'

kernel_lines() {
	local console=$1 results=${2:-}
	if [ -f "$console" ]; then grep -aE '^\[ *[0-9]+\.[0-9]+\]' "$console" || true; fi
	if [ -n "$results" ] && [ -f "$results" ]; then
		awk '/^@@ BEGIN text (dmesg|kmemleak)$/ { on = 1; next }
		     /^@@ END / { on = 0 }
		     on' "$results"
	fi
}

main() {
	[ $# -ge 1 ] || { echo "usage: $0 CONSOLE_LOG [RESULTS_LOG]" >&2; exit 2; }
	local hits
	hits=$(kernel_lines "$@" | grep -aE -- "$SPLATS" | grep -avE -- "$EXPECTED" |
		{ if [ -n "${TWHEEL_SPLAT_ALLOW:-}" ]; then grep -avE -- "$TWHEEL_SPLAT_ALLOW"; else cat; fi; } |
		sed -E 's/^\[ *[0-9]+\.[0-9]+\] ?//' | awk '!seen[$0]++' || true)
	if [ -n "$hits" ]; then
		printf '%s\n' "$hits" | head -n 40
		return 1
	fi
	return 0
}

main "$@"
