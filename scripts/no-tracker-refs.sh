#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# no-tracker-refs.sh - fail when a file of the tree names a tracker issue
# (the word "issue" followed by a number).  Code, comments and docs say
# what a thing is for in their own words; its history is in the commit
# messages.
# Usage: scripts/no-tracker-refs.sh [DIR] (default: the repository).
# Prints each offending line as file:line:text; exit 1 if there is any.
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"

files() {
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files -z
	else
		find . -type f ! -path './build/*' ! -path './.git/*' -print0
	fi
}

# grep exits 1 when nothing matches: that is the passing case.
if files | xargs -0 grep -nIiE '\bissues? ?#?[0-9]+' --; then
	echo "no-tracker-refs: the lines above name a tracker issue" >&2
	exit 1
fi
