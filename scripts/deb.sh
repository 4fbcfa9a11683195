#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# deb.sh - `make deb`: build twheel's Debian packages from the tree.
#
# The packaging lives in packaging/debian, not in a top-level debian/: the
# top level is fixed by the design card, and a debian/ directory in the
# source would be picked up by every tool that meets the tree. This script
# copies the tree's files (git's tracked and untracked-but-not-ignored files,
# so work in progress is packaged too) into build/deb/twheel-<version>/,
# adds packaging/debian as debian/, runs `dpkg-buildpackage -us -uc -b`
# there, and runs lintian on the result. The packages end up in build/deb/:
#   twheel-dkms, libtwheel1, libtwheel-dev, twheel-tools (+ -dbgsym)
# Needs: dpkg-dev debhelper dh-dkms python3-docutils (lintian optional);
# scripts/deps.sh installs them.
#
# Usage: scripts/deb.sh [--no-lintian]
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

LINTIAN=1
[ "${1:-}" != --no-lintian ] || LINTIAN=0

version=$(cat "$TWHEEL_ROOT/kmod/VERSION")
debver=$(dpkg-parsechangelog -l "$TWHEEL_ROOT/packaging/debian/changelog" -S Version)
[ "${debver%%-*}" = "$version" ] ||
	die "deb: packaging/debian/changelog says $debver, kmod/VERSION is $version"

out=$TWHEEL_BUILD/deb
src=$out/twheel-$version
rm -rf "$out"
mkdir -p "$src"
cd "$TWHEEL_ROOT"
if git rev-parse --git-dir >/dev/null 2>&1; then
	# Files deleted in the work tree but still in the index are left out.
	# shellcheck disable=SC2016 # $f is the inner shell's
	git ls-files -z --cached --others --exclude-standard | xargs -0 -r \
		sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
		tar --null -T - -cf - | tar -xf - -C "$src"
else
	tar --exclude=./build --exclude='./*/out' -cf - . | tar -xf - -C "$src"
fi
rm -rf "$src/debian"
cp -r packaging/debian "$src/debian"

log "deb: dpkg-buildpackage in $src (log: $out/build.log)"
if ! (cd "$src" && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log" >&2
	die "deb: dpkg-buildpackage failed (see $out/build.log)"
fi
ls -1 "$out"/*.deb >&2
if [ "$LINTIAN" = 1 ]; then
	if command -v lintian >/dev/null; then
		log "deb: lintian (log: $out/lintian.log)"
		lintian --info --display-info --pedantic "$out"/*.changes >"$out/lintian.log" 2>&1 || true
		grep -E '^[EWIP]: ' "$out/lintian.log" | sed 's/^/  /' >&2 || true
		grep -qE '^E: ' "$out/lintian.log" && log "deb: lintian reports errors (above)"
	else
		log "deb: lintian not installed; skipped"
	fi
fi
exit 0
