#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
#
# symbols-test.sh - the ABI of the built libtwheel.so.1: its exported
# name@version pairs (objdump -T, hidden versions included) are exactly
# those of packaging/debian/libtwheel1.symbols, so a function that leaves
# the map or loses its old version (a program built against libtwheel 1.0
# would no longer start) fails here. `make -C lib check`, part of make
# check's static checks. Prints the differences; exit 1 if any.
set -euo pipefail
LIB=$(cd "$(dirname "$0")/.." && pwd)
SYMBOLS=$LIB/../packaging/debian/libtwheel1.symbols
so=$(readlink -f "$LIB/out/libtwheel.so.1")

objdump -T "$so" | awk '$2 == "g" && $NF ~ /^twheel_|^LIBTWHEEL_/ {
	v = $(NF - 1); gsub(/[()]/, "", v); print $NF "@" v }' | sort -u >"$LIB/out/symbols.built"
sed -n 's/^ \([^ ]*@[^ ]*\) .*/\1/p' "$SYMBOLS" | sort -u >"$LIB/out/symbols.declared"
if ! diff -u "$LIB/out/symbols.declared" "$LIB/out/symbols.built"; then
	echo "symbols-test: $so and ${SYMBOLS#"$LIB"/../} differ (- declared, + built)"
	exit 1
fi
# soname: the major version of the ABI, whatever the release.
objdump -p "$so" | grep -q 'SONAME *libtwheel\.so\.1$' ||
	{ echo "symbols-test: $so has no SONAME libtwheel.so.1"; exit 1; }
