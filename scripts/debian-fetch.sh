#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# debian-fetch.sh - download (and unpack) packages of another Debian suite,
# e.g. sid's linux-source-7.2, without touching the machine's apt setup.
#
# The archive is the one the machine's apt already uses (read from
# /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list: no host name is
# written in the repository).  apt runs with a private sources list, lists
# and cache under $TWHEEL_CACHE/debian/<suite>/, so `apt-get update` of the
# system is neither needed nor disturbed; the package index is refreshed at
# most once a day.
#
# Usage: scripts/debian-fetch.sh SUITE --version PKG     print PKG's version in SUITE
#        scripts/debian-fetch.sh SUITE --deb PKG         download, print the .deb path
#        scripts/debian-fetch.sh SUITE --extract PKG     download + dpkg-deb -x, print the dir
#        scripts/debian-fetch.sh SUITE --source SRCPKG   download + dpkg-source -x the
#                                                        source package, print the dir
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

# The URI of the main Debian archive the machine is configured with.
archive_uri() {
	local f uri
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		# deb822: the stanza whose Suites are not *-security.
		uri=$(awk '
			/^[ \t]*$/ { if (u != "" && s !~ /-security/ && t ~ /deb/) { print u; exit } u = s = t = ""; next }
			tolower($1) == "uris:" { u = $2 }
			tolower($1) == "suites:" { s = $0 }
			tolower($1) == "types:" { t = $0 }
			END { if (u != "" && s !~ /-security/ && t ~ /deb/) print u }' "$f" | head -n1)
		[ -z "$uri" ] || { printf '%s\n' "${uri%/}"; return; }
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		uri=$(awk '$1 == "deb" {
				i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
				if ($(i + 1) !~ /-security/) { print $i; exit } }' "$f")
		[ -z "$uri" ] || { printf '%s\n' "${uri%/}"; return; }
	done
	die "no Debian archive found in /etc/apt/sources.list{,.d/}"
}

APT_OPTS=()
setup() {
	local suite=$1 dir uri keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	dir=$TWHEEL_CACHE/debian/$suite
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/debs" "$dir/root"
	uri=$(archive_uri)
	printf 'deb%s [signed-by=%s] %s %s main\n' "" "$keyring" "$uri" "$suite" -src "$keyring" "$uri" "$suite" \
		>"$dir/sources.list.new"
	cmp -s "$dir/sources.list.new" "$dir/sources.list" || rm -f "$dir/lists/"*_Packages* "$dir/lists/"*_Sources* "$dir/.updated"
	mv "$dir/sources.list.new" "$dir/sources.list"
	APT_OPTS=(-o "Dir::Etc::sourcelist=$dir/sources.list" -o Dir::Etc::sourceparts=-
		-o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache"
		-o Debug::NoLocking=1 -o APT::Sandbox::User=root)
	if [ -z "$(find "$dir/.updated" -mmin -1440 2>/dev/null)" ]; then
		log "apt: refreshing the package index of '$suite' (private lists in $dir)"
		apt-get -q "${APT_OPTS[@]}" update >"$dir/update.log" 2>&1 ||
			{ tail -n 5 "$dir/update.log" >&2; die "apt-get update of suite '$suite' failed"; }
		touch "$dir/.updated"
	fi
	DIR=$dir
}

pkg_version() {
	local v
	v=$(apt-cache "${APT_OPTS[@]}" show --no-all-versions "$1" 2>/dev/null |
		awk '/^Version:/ { print $2; exit }')
	if [ -z "$v" ]; then
		# Gone from the suite (sid moves on): the newest download in the
		# cache still builds the same kernel.
		v=$(find "$DIR/debs" -maxdepth 1 -name "${1}_*.deb" -printf '%f\n' 2>/dev/null |
			sed -e "s/^${1}_//" -e 's/_[^_]*\.deb$//' -e 's/%3a/:/' | sort -V | tail -n1)
		[ -n "$v" ] || die "package $1 not found in the archive's '$SUITE'"
		log "apt: $1 is no longer in '$SUITE'; using the cached $v"
	fi
	printf '%s\n' "$v"
}

fetch_deb() {
	local pkg=$1 ver deb
	ver=$(pkg_version "$pkg")
	deb=$(find "$DIR/debs" -maxdepth 1 -name "${pkg}_$(printf '%s' "$ver" | sed 's/:/%3a/')_*.deb" | head -n1)
	if [ -z "$deb" ]; then
		log "apt: downloading $pkg $ver from '$SUITE'"
		(cd "$DIR/debs" && apt-get -q "${APT_OPTS[@]}" download "$pkg=$ver") >"$DIR/download.log" 2>&1 ||
			{ tail -n 5 "$DIR/download.log" >&2; die "apt-get download $pkg failed"; }
		deb=$(find "$DIR/debs" -maxdepth 1 -name "${pkg}_*.deb" -newer "$DIR/sources.list" | head -n1)
		[ -n "$deb" ] || deb=$(find "$DIR/debs" -maxdepth 1 -name "${pkg}_*.deb" | sort -V | tail -n1)
	fi
	printf '%s\n' "$deb"
}

extract_deb() {
	local deb root
	deb=$(fetch_deb "$1")
	root=$DIR/root/$(basename "$deb" .deb)
	if [ ! -f "$root/.twheel-complete" ]; then
		rm -rf "$root"
		dpkg-deb -x "$deb" "$root"
		touch "$root/.twheel-complete"
	fi
	printf '%s\n' "$root"
}

# A source package, unpacked (needs dpkg-dev, installed by scripts/deps.sh).
extract_source() {
	local pkg=$1 ver dir
	ver=$(apt-cache "${APT_OPTS[@]}" showsrc --only-source "$pkg" 2>/dev/null |
		awk '/^Version:/ { print $2 }' | sort -V | tail -n1)
	[ -n "$ver" ] || die "source package $pkg not found in the archive's '$SUITE'"
	dir=$DIR/src/${pkg}_$ver
	if [ ! -f "$dir/.twheel-complete" ]; then
		log "apt: downloading the source of $pkg $ver from '$SUITE'"
		rm -rf "$dir" "$DIR/src/dl-$pkg"
		mkdir -p "$DIR/src/dl-$pkg"
		(cd "$DIR/src/dl-$pkg" && apt-get -q "${APT_OPTS[@]}" source --download-only "$pkg=$ver") \
			>"$DIR/download.log" 2>&1 || { tail -n 5 "$DIR/download.log" >&2; die "apt-get source $pkg failed"; }
		dpkg-source --no-check -x "$DIR/src/dl-$pkg"/*.dsc "$dir" >>"$DIR/download.log" 2>&1 ||
			{ tail -n 5 "$DIR/download.log" >&2; die "dpkg-source -x $pkg failed"; }
		rm -rf "$DIR/src/dl-$pkg"
		touch "$dir/.twheel-complete"
	fi
	printf '%s\n' "$dir"
}

main() {
	[ $# = 3 ] || die "usage: $0 SUITE --version|--deb|--extract|--source PKG"
	SUITE=$1
	setup "$SUITE"
	case $2 in
	--version) pkg_version "$3" ;;
	--deb) fetch_deb "$3" ;;
	--extract) extract_deb "$3" ;;
	--source) extract_source "$3" ;;
	*) die "usage: $0 SUITE --version|--deb|--extract|--source PKG" ;;
	esac
}

main "$@"
