#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# host-state.sh - prove that make check leaves the machine as it was, apart
# from the build tools scripts/deps.sh declares.
#
# A snapshot is what a kernel package, a module package or DKMS would change:
# the packages (dpkg-query -W: name, architecture, version, state), the
# files under /boot, /etc/modules-load.d, /usr/lib/modules-load.d,
# /etc/modprobe.d and /usr/src (two levels), and /lib/modules down to
# updates/dkms/<module>.
#
#   snapshot FILE           write a snapshot of this machine to FILE
#   tools BEFORE AFTER      BEFORE -> AFTER is what scripts/deps.sh did: every
#                           package that appeared or changed version is one
#                           deps.sh declares or one they depend on (directly
#                           or not), none is a kernel or twheel package, none
#                           went away, and no file changed
#   same BEFORE AFTER       nothing changed at all
# Differences go to stdout; the exit status is 1 when there are any.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

snapshot() {
	{
		dpkg-query -W -f='pkg ${Package}:${Architecture} ${Version} ${db:Status-Abbrev}\n' |
			sed 's/ *$//'
		find /boot /etc/modules-load.d /usr/lib/modules-load.d /etc/modprobe.d \
			-printf 'file %p %s %T@\n' 2>/dev/null || true
		find /usr/src -maxdepth 2 -printf 'file %p\n' 2>/dev/null || true
		find /lib/modules -maxdepth 4 -printf 'file %p\n' 2>/dev/null || true
	} | sort >"$1"
}

# Lines of $2 that are not in $1, and the other way round.
added() { comm -13 "$1" "$2"; }
removed() { comm -23 "$1" "$2"; }

tools() {
	local before=$1 after=$2 bad=0 line name allowed
	# shellcheck disable=SC2046 # package names are words
	allowed=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
		--no-breaks --no-replaces --no-enhances $("$TWHEEL_ROOT/scripts/deps.sh" --list) 2>/dev/null |
		sed -n -e 's/^\([^ <][^ ]*\)$/\1/p' -e 's/^ *[A-Za-z]*Depends: \([^<][^ ]*\)$/\1/p' |
		sed 's/:any$//' | sort -u)
	while read -r _ name _; do
		name=${name%%:*}
		case $name in
		linux-image-* | linux-headers-* | linux-source-* | linux-kbuild-* | *twheel*)
			printf 'installed: %s (a kernel or twheel package)\n' "$name"; bad=1; continue ;;
		esac
		printf '%s\n' "$allowed" | grep -qx "$name" && continue
		printf 'installed: %s (not a declared build tool or a dependency of one)\n' "$name"
		bad=1
	done < <(added "$before" "$after" | grep '^pkg ')
	while read -r line; do
		name=$(printf '%s\n' "$line" | awk '{ print $2 }')
		# A package whose version or state changed shows in both lists.
		grep -q "^pkg $name " <(added "$before" "$after") && continue
		printf 'removed: %s\n' "${line#pkg }"
		bad=1
	done < <(removed "$before" "$after" | grep '^pkg ')
	if ! same <(grep '^file ' "$before") <(grep '^file ' "$after"); then
		bad=1
	fi
	return "$bad"
}

same() {
	local diff
	diff=$( { diff "$1" "$2" || [ $? = 1 ]; } | sed -n 's/^</  before:/p; s/^>/  after: /p')
	[ -n "$diff" ] || return 0
	printf '%s\n' "$diff"
	return 1
}

case ${1:-} in
snapshot) [ $# = 2 ] || die "usage: $0 snapshot FILE"; snapshot "$2" ;;
tools) [ $# = 3 ] || die "usage: $0 tools BEFORE AFTER"; tools "$2" "$3" ;;
same) [ $# = 3 ] || die "usage: $0 same BEFORE AFTER"; same "$2" "$3" ;;
*) die "usage: $0 snapshot FILE | tools BEFORE AFTER | same BEFORE AFTER" ;;
esac
