#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# shell-lint.sh - shellcheck over every shell script of the tree.
#
# A shell script is a tracked file named *.sh or *.bash, or one whose first
# line is a shell's #! (bash, sh, busybox sh).  Each is checked with
# `shellcheck -x` (sourced files followed), at shellcheck's default
# severity; a finding the code is right about is silenced where it stands,
# with a `# shellcheck disable=SCnnnn` and the reason on that line.
# Usage: scripts/shell-lint.sh [--list]   (--list: only print the files)
# Exit status: shellcheck's (0 when every script is clean).
set -euo pipefail
cd "$(dirname "$0")/.."

shell_files() {
	local f
	git ls-files | while IFS= read -r f; do
		[ -f "$f" ] || continue
		case $f in
		*.sh | *.bash) printf '%s\n' "$f" ;;
		*) if head -n1 "$f" | grep -qE '^#!.*[/ ](ba|da)?sh( |$)'; then printf '%s\n' "$f"; fi ;;
		esac
	done
}

mapfile -t files < <(shell_files)
[ ${#files[@]} -gt 0 ] || { echo "shell-lint: no shell scripts found" >&2; exit 2; }
if [ "${1:-}" = --list ]; then
	printf '%s\n' "${files[@]}"
	exit 0
fi
shellcheck -x -f gcc "${files[@]}"
