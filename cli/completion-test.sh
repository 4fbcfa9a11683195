#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# completion-test.sh - cli/twheel.bash offers what twheel(8) accepts.
# Runs on the build machine (no module needed): `make -C cli check`, part of
# make check's static checks. Prints one line per failed case; exit 1 if any.
set -uo pipefail
# shellcheck source=cli/twheel.bash
. "$(dirname "$0")/twheel.bash"

failed=0
# expect "WORDS..." "EXPECTED" : complete the last word of WORDS (may be "").
expect() {
	local line=$1 want=$2 got
	read -ra COMP_WORDS <<<"$line"
	[[ $line == *" " ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	_twheel
	got="${COMPREPLY[*]}"
	if [[ $got != "$want" ]]; then
		echo "completion of '$line': got '$got', want '$want'"
		failed=1
	fi
}

expect "twheel " "info stat ps sleep arm --version --json --help"
expect "twheel s" "stat sleep"
expect "twheel --json p" "ps"
expect "twheel ps --" "--watch --json"
expect "twheel stat --watch " ""
expect "twheel arm --b" "--boottime"
expect "twheel arm --period " ""
expect "twheel arm --v" "--verbose"
expect "twheel arm --cpu 0" "0"
expect "twheel info " "--json"
exit $failed
