#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# debian-fetch.sh - download (and unpack) Debian packages into the cache
# without installing them: the stock kernels of the machine's own suite, or
# e.g. sid's linux-source-7.2 without touching the machine's apt setup.
#
# The archive is the one the machine's apt already uses (read from
# /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list: no host name is
# written in the repository).  apt runs with a private sources list, lists
# and cache under $TWHEEL_CACHE/debian/<suite>/, so `apt-get update` of the
# system is neither needed nor disturbed; the package index is refreshed at
# most once a day.
#
# SUITE "-" is the machine's own suite: apt's own configuration and package
# lists (what scripts/deps.sh refreshed), downloads into
# $TWHEEL_CACHE/debian/local/.  The lists are refreshed only when a package
# cannot be found or downloaded.  Either way nothing is installed: packages
# are downloaded and unpacked into the cache.
#
# Usage: scripts/debian-fetch.sh SUITE --version PKG     print PKG's version in SUITE
#        scripts/debian-fetch.sh SUITE --deb PKG         download, print the .deb path
#        scripts/debian-fetch.sh SUITE --extract PKG     download + dpkg-deb -x, print the dir
#        scripts/debian-fetch.sh SUITE --source SRCPKG   download + dpkg-source -x the
#                                                        source package, print the dir
#        scripts/debian-fetch.sh SUITE --release META    the kernel release a linux-image
#                                                        metapackage points to
#        scripts/debian-fetch.sh SUITE --stock RELEASE   a stock kernel unpacked into one
#                                                        root: /boot/vmlinuz-RELEASE, the
#                                                        image's modules.builtin* and
#                                                        modules.order, and its headers
#                                                        (with -common and linux-kbuild)
#                                                        at /usr/src/linux-headers-RELEASE;
#                                                        print the root
#        scripts/debian-fetch.sh SUITE --headers RELEASE the .deb files of those headers
#        scripts/debian-fetch.sh SUITE --gcc VERSION     gcc-VERSION unpacked; print its bin dir
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
LISTS=
setup() {
	local suite=$1 dir uri keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	if [ "$suite" = - ]; then
		DIR=$TWHEEL_CACHE/debian/local
		mkdir -p "$DIR/debs" "$DIR/root" "$DIR/stock"
		APT_OPTS=(-o APT::Sandbox::User=root)
		LISTS=$(apt-config shell L Dir::State::Lists/d | sed -n "s/^L='\(.*\)'$/\1/p")
		return
	fi
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
	LISTS=$dir/lists
}

# The machine's own lists are stale or empty (a kernel update replaced the
# package in the archive): refresh them, once.
REFRESHED=0
refresh_host_lists() {
	[ "$SUITE" = - ] && [ "$REFRESHED" = 0 ] || return 1
	REFRESHED=1
	log "apt: refreshing the machine's package lists"
	apt-get -q update >"$DIR/update.log" 2>&1 ||
		{ tail -n 5 "$DIR/update.log" >&2; die "apt-get update failed"; }
}

candidate_version() {
	apt-cache "${APT_OPTS[@]}" show --no-all-versions "$1" 2>/dev/null |
		awk '/^Version:/ { print $2; exit }'
}

pkg_version() {
	local v
	v=$(candidate_version "$1")
	[ -n "$v" ] || ! refresh_host_lists || v=$(candidate_version "$1")
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

cached_deb() {
	find "$DIR/debs" -maxdepth 1 -name "${1}_$(printf '%s' "$2" | sed 's/:/%3a/')_*.deb" | head -n1
}

download() {
	(cd "$DIR/debs" && apt-get -q "${APT_OPTS[@]}" download "$1=$2") >"$DIR/download.log" 2>&1
}

fetch_deb() {
	local pkg=$1 ver deb
	ver=$(pkg_version "$pkg")
	deb=$(cached_deb "$pkg" "$ver")
	if [ -z "$deb" ]; then
		log "apt: downloading $pkg $ver from '$SUITE'"
		if ! download "$pkg" "$ver"; then
			refresh_host_lists || { tail -n 5 "$DIR/download.log" >&2; die "apt-get download $pkg failed"; }
			ver=$(pkg_version "$pkg")
			download "$pkg" "$ver" || { tail -n 5 "$DIR/download.log" >&2; die "apt-get download $pkg failed"; }
		fi
		deb=$(cached_deb "$pkg" "$ver")
		[ -n "$deb" ] || die "apt-get download $pkg=$ver left no .deb in $DIR/debs"
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

# The packages named in field Depends of PKG that match the regex $2.
depends_matching() {
	apt-cache "${APT_OPTS[@]}" show --no-all-versions "$1" 2>/dev/null |
		awk -F': ' '/^Depends:/ { print $2; exit }' | tr ',|' '\n' |
		awk -v re="$2" '$1 ~ re { print $1 }'
}

# Kernel release of a linux-image metapackage (linux-image-amd64 ->
# 6.1.0-57-amd64), remembered until the package lists change.
meta_release() {
	local meta=$1 memo=$DIR/release-$1 rel
	if [ -s "$memo" ] && [ "$memo" -nt "$LISTS" ]; then
		cat "$memo"
		return
	fi
	rel=$(depends_matching "$meta" '^linux-image-' | head -n1)
	[ -n "$rel" ] || ! refresh_host_lists || rel=$(depends_matching "$meta" '^linux-image-' | head -n1)
	[ -n "$rel" ] || die "$meta: no linux-image dependency in '$SUITE'"
	printf '%s\n' "${rel#linux-image-}" >"$memo"
	cat "$memo"
}

# The headers of a stock kernel: linux-headers-RELEASE and the -common and
# linux-kbuild packages it depends on, downloaded; their paths.
header_debs() {
	local p
	for p in "linux-headers-$1" $(depends_matching "linux-headers-$1" '^linux-(headers|kbuild)-'); do
		fetch_deb "$p"
	done
}

# A gcc of the suite (the one its kernel headers name), runnable from the
# cache: the driver finds cc1 and its headers relative to itself.
extract_gcc() {
	local v=$1 root=$DIR/toolchain/gcc-$1 p
	exec 9>"$DIR/.lock"
	flock 9
	if [ ! -f "$root/.twheel-complete" ]; then
		rm -rf "$root"
		mkdir -p "$root"
		for p in "gcc-$v" "cpp-$v" "libgcc-$v-dev" "gcc-$v-base"; do
			dpkg-deb -x "$(fetch_deb "$p")" "$root"
		done
		"$root/usr/bin/gcc-$v" --version >/dev/null ||
			die "gcc-$v of '$SUITE' does not run on this machine"
		touch "$root/.twheel-complete"
	fi
	exec 9>&-
	printf '%s\n' "$root/usr/bin"
}

extract_stock() {
	local rel=$1 root=$DIR/stock/$1 p debs=()
	exec 9>"$DIR/.lock"
	flock 9
	if [ ! -f "$root/.twheel-complete" ]; then
		rm -rf "$root"
		mkdir -p "$root"
		debs=("$(fetch_deb "linux-image-$rel")")
		mapfile -t -O 1 debs < <(header_debs "$rel")
		log "apt: unpacking Linux $rel into $root"
		dpkg-deb --fsys-tarfile "${debs[0]}" | tar -C "$root" -x --wildcards \
			'*/boot/vmlinuz-*' '*/modules.builtin' '*/modules.builtin.modinfo' '*/modules.order'
		for p in "${debs[@]:1}"; do dpkg-deb -x "$p" "$root"; done
		# The flavour's Makefile includes the common one by its absolute
		# path; the scripts and tools links are relative already.
		sed -i "s|^include /usr/src/|include $root/usr/src/|" "$root/usr/src/linux-headers-$rel/Makefile"
		touch "$root/.twheel-complete"
	fi
	exec 9>&-
	printf '%s\n' "$root"
}

main() {
	[ $# = 3 ] || die "usage: $0 SUITE --version|--deb|--extract|--source|--release|--stock|--headers|--gcc PKG"
	SUITE=$1
	setup "$SUITE"
	case $2 in
	--version) pkg_version "$3" ;;
	--deb) fetch_deb "$3" ;;
	--extract) extract_deb "$3" ;;
	--source) extract_source "$3" ;;
	--release) meta_release "$3" ;;
	--stock) extract_stock "$3" ;;
	--headers) header_debs "$3" ;;
	--gcc) extract_gcc "$3" ;;
	*) die "usage: $0 SUITE --version|--deb|--extract|--source|--release|--stock|--headers|--gcc PKG" ;;
	esac
}

main "$@"
