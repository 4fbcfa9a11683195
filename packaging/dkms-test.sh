#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms-test.sh - what `make dkms-install` puts in /usr/src, and that it can
# run twice, without touching this machine: everything goes into a temporary
# DESTDIR and `dkms` is a stand-in on PATH that keeps the state real dkms
# keeps (a version is "added" until removed; add refuses a version it has)
# and logs its calls. Part of make check's static checks (scripts/check.sh).
# Prints one line per problem; exit 1 if any.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
VERSION=$(cat "$ROOT/kmod/VERSION")
failed=0
problem() { echo "dkms-test: $*"; failed=1; }

mkdir -p "$TMP/bin"
cat >"$TMP/bin/dkms" <<'FAKE'
#!/bin/sh
state=$DKMS_TEST_STATE
echo "$*" >>"$state.log"
case $1 in
status) [ ! -e "$state" ] || echo "twheel/$5: added" ;;
add) [ ! -e "$state" ] || { echo "Error! DKMS tree already contains: twheel-$5" >&2; exit 3; }
     : >"$state" ;;
remove) rm -f "$state" ;;
install) [ -e "$state" ] || exit 4 ;;
esac
FAKE
chmod +x "$TMP/bin/dkms"
export DKMS_TEST_STATE=$TMP/dkms-state

# A tree with the products of a build in it, as after `make` or make check.
mkdir "$TMP/src"
(cd "$ROOT" && tar --exclude=./build --exclude=./.git --exclude='./*/out' -cf - .) |
	tar -xf - -C "$TMP/src"
mkdir -p "$TMP/src/kmod/compat-generated"
: >"$TMP/src/kmod/compat-generated/twheel_compat_probes.h"
: >"$TMP/src/kmod/wheel.o"
: >"$TMP/src/kmod/twheel.ko"

dest=$TMP/root
run() {
	PATH=$TMP/bin:$PATH make -s -C "$TMP/src" dkms-install DESTDIR="$dest" \
		KDIR="$TMP/no-kernel" >>"$TMP/make.log" 2>&1
}
run || problem "make dkms-install failed (see below)"
run || problem "make dkms-install failed when run again"
[ "$failed" = 0 ] || tail -n 20 "$TMP/make.log"

srcdir=$dest/usr/src/twheel-$VERSION
(cd "$srcdir" 2>/dev/null && find . -type f | sed 's|^\./||' | sort) >"$TMP/files" ||
	problem "no $srcdir"
for want in dkms.conf Kbuild Makefile kmod/Kbuild kmod/VERSION kmod/main.c \
	kmod/wheel.c kmod/compat/Kbuild.include uapi/linux/twheel.h; do
	grep -qx "$want" "$TMP/files" || problem "$want is not copied"
done
if grep -E '^(samples|bench|lib|cli|man|scripts|userspace-test|packaging)/|compat-generated|\.(o|ko)$' \
	"$TMP/files" >"$TMP/extra"; then
	problem "copied what DKMS must not build or reuse: $(paste -sd' ' "$TMP/extra")"
fi
grep -qx "PACKAGE_VERSION=\"$VERSION\"" "$srcdir/dkms.conf" 2>/dev/null ||
	problem "dkms.conf: no PACKAGE_VERSION=\"$VERSION\""

# First run: status, add, install; the second also removes what the first added.
calls=$(cut -d' ' -f1 "$DKMS_TEST_STATE.log" 2>/dev/null | paste -sd' ')
[ "$calls" = "status add install status remove add install" ] ||
	problem "dkms calls were '$calls'"
exit $failed
