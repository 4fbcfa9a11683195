#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-install.sh - the "install" suite of make check (and make check-install):
# twheel installed the way a Debian user installs it, then used in guests.
#
#   1. make deb (scripts/deb.sh) and lintian: no lintian error
#   2. dpkg --purge of any twheel package already there (a fresh install every
#      time), apt-get install ./twheel-dkms ./libtwheel1 ./libtwheel-dev ./twheel-tools
#      on this machine: DKMS builds the module for every installed kernel
#      with headers; `dkms status` must say "installed" for each kernel
#   3. man twheel, man 4 twheel, man 3 libtwheel, man 8 twheel render
#   4. lib/tests/pkgconfig_test.c is built with
#      $(pkg-config --cflags --libs libtwheel): dynamically linked against
#      the installed libtwheel.so.1
#   5. per stock kernel (6.1, 6.12): a guest whose initramfs carries the
#      DKMS-built module in /lib/modules/<release>/updates/dkms with
#      modules.dep made by depmod, Debian's kmod (modprobe) and udev
#      (systemd-udevd, udevadm) with their libraries, the installed udev rule,
#      the installed twheel CLI, the pkg-config program and the tests of
#      what the packages add (TESTS, below); scripts/guest/install.sh loads
#      the module with `modprobe twheel`, proves the udev rule is applied (and that an admin override
#      in /etc/udev/rules.d changes group and mode), runs everything, and
#      unloads with `modprobe -r`.
# Results go to the ledger under suite "install".
#
# Usage: scripts/check-install.sh [--kernels "6.1 6.12"] [--tests GLOB] [--show]
# Needs root (apt-get, dkms). Environment: as scripts/check.sh.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

KERNELS="6.1 6.12"
# The module DKMS builds is the source the guest phase of make check
# already tested on these kernels with the whole userspace suite, built the
# same way.  Here only what the packages bring: the ABI (module and
# installed header agree), a timeout through the device, the installed
# library and the installed CLI.
TESTS='abi_test timeout_test lib_test cli_test python_test'
SHOW=0
OUT=$TWHEEL_BUILD/check/install
PKGS=(twheel-dkms libtwheel1 libtwheel-dev twheel-tools python3-twheel)

while [ $# -gt 0 ]; do
	case $1 in
	--kernels) KERNELS=$2; shift ;;
	--tests) TESTS=$2; shift ;;
	--show) SHOW=1 ;;
	*) die "check-install: unknown option '$1'" ;;
	esac
	shift
done

if [ -z "$TWHEEL_LEDGER" ]; then
	mkdir -p "$OUT"
	export TWHEEL_LEDGER=$OUT/ledger.tsv
	: >"$TWHEEL_LEDGER"
fi
rec() { record "$1" install "$2" "$3"; }
SUDO=()
[ "$(id -u)" = 0 ] || SUDO=(sudo)

version=$(cat "$TWHEEL_ROOT/kmod/VERSION")

build_debs() {
	log "install: make deb"
	if ! "$TWHEEL_ROOT/scripts/deb.sh"; then
		rec fail - "make deb builds the packages"
		return 1
	fi
	rec pass - "make deb builds ${PKGS[*]}"
	local lint=$TWHEEL_BUILD/deb/lintian.log
	if [ ! -f "$lint" ]; then
		rec fail - "lintian ran (no $lint)"
	elif grep -q '^E: ' "$lint"; then
		rec fail - "lintian: $(grep -c '^E: ' "$lint") errors (see $lint)"
	else
		rec pass - "lintian: no errors ($(grep -c '^W: ' "$lint" || true) warnings, see $lint)"
	fi
}

install_debs() {
	local debs=() p k rel st installed
	for p in "${PKGS[@]}"; do
		debs+=("$(ls "$TWHEEL_BUILD"/deb/"${p}"_"${version}"_*.deb)")
	done
	# A fresh install every time: purge what an earlier run (or anything
	# else) left, whatever state it is in, so DKMS builds from nothing and
	# no conffile question can come up.
	installed=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${PKGS[@]}" 2>/dev/null |
		awk '$2 != "not-installed" && $2 != "" { print $1 }' | tr '\n' ' ')
	if [ -n "$installed" ]; then
		log "install: purging the installed $installed"
		# shellcheck disable=SC2086 # package names are words
		"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive dpkg --purge $installed >"$OUT/purge.log" 2>&1 ||
			{ tail -n 20 "$OUT/purge.log" >&2; rec fail - "dpkg --purge $installed (see $OUT/purge.log)"; return 1; }
	fi
	log "install: apt-get install ${debs[*]}"
	# Never prompt about a conffile (/etc/modprobe.d/twheel.conf): keep
	# what is there.
	if ! "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y \
		-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
		--no-install-recommends "${debs[@]}" >"$OUT/apt.log" 2>&1; then
		tail -n 20 "$OUT/apt.log" >&2
		rec fail - "apt-get install ./*.deb (see $OUT/apt.log)"
		return 1
	fi
	rec pass - "apt-get install ${PKGS[*]}"
	for k in $KERNELS; do
		rel=$(stock_release "$k")
		st=$(dkms status -m twheel -v "$version" -k "$rel" 2>/dev/null | grep -v '^readelf' || true)
		if printf '%s\n' "$st" | grep -q ': installed'; then
			rec pass "$k" "DKMS built and installed twheel/$version for $rel"
		else
			rec fail "$k" "DKMS built and installed twheel/$version for $rel (dkms status: ${st:-nothing})"
		fi
	done
}

check_man() {
	local args name
	for args in "twheel" "4 twheel" "3 libtwheel" "8 twheel" "3 twheel_flush"; do
		name=${args##* }
		# shellcheck disable=SC2086 # section and name are words
		if MANWIDTH=80 man --warnings $args 2>"$OUT/man.err" | grep -qi "^NAME" &&
			! grep -q . "$OUT/man.err"; then
			rec pass - "man $args renders without warnings"
		else
			rec fail - "man $args renders without warnings: $(head -n 2 "$OUT/man.err" | tr '\n' ' ')"
		fi
	done
}

build_pkgconfig_prog() {
	local cflags libs
	if ! cflags=$(pkg-config --cflags libtwheel) || ! libs=$(pkg-config --libs libtwheel); then
		rec fail - "pkg-config --cflags --libs libtwheel"
		return 1
	fi
	# shellcheck disable=SC2086 # pkg-config output is words
	if gcc -Wall -Wextra -Werror -o "$OUT/pkgconfig_test" \
		"$TWHEEL_ROOT/lib/tests/pkgconfig_test.c" $cflags $libs 2>"$OUT/pkgconfig-build.log" &&
		ldd "$OUT/pkgconfig_test" | grep -q "libtwheel.so.1 => /.*libtwheel.so.1"; then
		rec pass - "pkgconfig_test builds with \$(pkg-config --cflags --libs libtwheel) ('$cflags $libs') and links the installed libtwheel.so.1"
	else
		rec fail - "pkgconfig_test builds against the installed libtwheel-dev (see $OUT/pkgconfig-build.log)"
		return 1
	fi
}

# Copy executables and the shared libraries they need (as ldd resolves them
# on this host) into the staging root $1, keeping their paths.
copy_with_libs() {
	local root=$1 f lib
	shift
	for f in "$@"; do
		mkdir -p "$root$(dirname "$f")"
		cp -a "$f" "$root$f"
		[ -L "$f" ] && f=$(readlink -f "$f") && mkdir -p "$root$(dirname "$f")" && cp -a "$f" "$root$f"
		for lib in $(ldd "$f" 2>/dev/null | grep -oE '/[^ ]+' || true); do
			[ -e "$root$lib" ] && continue
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
	done
}

# The overlay copied over the guest's initramfs root by install.sh.
stage_root() {
	local k=$1 rel=$2 root=$3 ko
	rm -rf "$root"
	mkdir -p "$root/lib/modules/$rel/updates/dkms" "$root/etc/udev/rules.d" "$root/lib/udev/rules.d" \
		"$root/lib/systemd" "$root/run" "$root/usr/bin"
	ko=$(find /lib/modules/"$rel"/updates/dkms -name 'twheel.ko*' 2>/dev/null | head -n1)
	[ -n "$ko" ] || { rec fail "$k" "DKMS-built twheel.ko in /lib/modules/$rel/updates/dkms"; return 1; }
	cp "$ko" "$root/lib/modules/$rel/updates/dkms/"
	# What depmod needs besides the modules: the kernel's built-in list.
	cp /lib/modules/"$rel"/modules.builtin /lib/modules/"$rel"/modules.builtin.modinfo \
		/lib/modules/"$rel"/modules.order "$root/lib/modules/$rel/" 2>/dev/null || true
	if depmod -b "$root" "$rel" 2>"$OUT/depmod-$k.log" &&
		grep -q "^updates/dkms/twheel.ko" "$root/lib/modules/$rel/modules.dep"; then
		rec pass "$k" "depmod -b <initramfs> $rel lists updates/dkms/$(basename "$ko")"
	else
		rec fail "$k" "depmod for the initramfs (see $OUT/depmod-$k.log)"
		return 1
	fi
	copy_with_libs "$root" /usr/bin/kmod /usr/bin/udevadm /usr/bin/twheel "$OUT/pkgconfig_test"
	stage_python "$root" || { rec fail "$k" "Debian's python3 for the guest (/usr/bin/python3)"; return 1; }
	mv "$root$OUT/pkgconfig_test" "$root/usr/bin/pkgconfig_test"
	rm -rf "${root:?}${OUT%%/"${OUT#/*/}"}"
	ln -sf /usr/bin/udevadm "$root/lib/systemd/systemd-udevd"
	cp /lib/udev/rules.d/60-twheel.rules "$root/lib/udev/rules.d/"
	mkdir -p "$root/etc/modprobe.d"
	cp /etc/modprobe.d/twheel.conf "$root/etc/modprobe.d/"
	printf 'root:x:0:0:root:/root:/bin/sh\n' >"$root/etc/passwd"
	printf 'root:x:0:\ntwheel:x:4242:\n' >"$root/etc/group"
}

# Debian's python3 (a dependency of python3-twheel), its standard library
# without what no test imports (tests, GUI, installers), the binding the
# package installed, and the binding's test program python/tests/python_test.
stage_python() {
	local root=$1 py
	py=$(readlink -f /usr/bin/python3) || return 1
	[ -x "$py" ] && [ -d "/usr/lib/$(basename "$py")" ] || return 1
	copy_with_libs "$root" "$py" /usr/lib/"$(basename "$py")"/lib-dynload/*.so
	ln -sf "$py" "$root/usr/bin/python3"
	tar -C / --exclude='*/test' --exclude='*/tests' --exclude='*/idlelib' \
		--exclude='*/tkinter' --exclude='*/lib2to3' --exclude='*/ensurepip' \
		--exclude='*/config-*' --exclude='*/pydoc_data' \
		-cf - "usr/lib/$(basename "$py")" | tar -xf - -C "$root"
	install -D -m 0644 /usr/lib/python3/dist-packages/twheel.py \
		"$root/usr/lib/python3/dist-packages/twheel.py"
	install -D -m 0755 "$TWHEEL_ROOT/python/tests/python_test" "$root/tests/python_test"
}

run_kernel() {
	local k=$1 rel out=$OUT/guest-$1 rc=0 show=() tmp timed=()
	rel=$(stock_release "$k")
	stage_root "$k" "$rel" "$out/root" || return 0
	[ "$SHOW" = 1 ] && show=(--show)
	log "install: booting the $k guest (logs in $out)"
	"$TWHEEL_ROOT/scripts/vm-run" --kernel "$k" --payload "$TWHEEL_ROOT/scripts/guest/install.sh" \
		--out "$out" --tests "$TWHEEL_ROOT/userspace-test/out" \
		--file "$out/root:/install-root" --file "$TWHEEL_ROOT/lib/out/lib_test:/tests/lib_test" \
		--timeout "${TWHEEL_GUEST_TIMEOUT:-300}" \
		--env "TWHEEL_TESTS=$TESTS" --env "TWHEEL_TEST_TIMEOUT=${TWHEEL_TEST_TIMEOUT:-300}" \
		--env "TWHEEL_RELEASE=$rel" "${show[@]+"${show[@]}"}" || rc=$?
	[ "$rc" != 124 ] || timed=(--timed-out)
	[ "$rc" = 0 ] || [ "$rc" = 124 ] || rec fail "$k" "qemu exited with status $rc (see $out/qemu.out)"
	# The guest's results, parsed as every guest's are, filed under "install".
	tmp=$(mktemp)
	TWHEEL_LEDGER=$tmp "$TWHEEL_ROOT/scripts/parse-results.sh" --kernel "$k" \
		--results "$out/results.log" --expect-tap "${timed[@]+"${timed[@]}"}" 2>/dev/null
	while IFS=$'\t' read -r st suite _ name; do
		rec "$st" "$k" "$suite: $name"
	done <"$tmp"
	rm -f "$tmp"
	local splats
	if splats=$("$TWHEEL_ROOT/scripts/scan-log.sh" "$out/console.log" "$out/results.log"); then
		rec pass "$k" "no kernel splats in the guest log"
	else
		rec fail "$k" "kernel splats in the guest log: $(printf '%s\n' "$splats" | head -n1)"
	fi
}

main() {
	rm -rf "$OUT"
	mkdir -p "$OUT"
	for t in dpkg-buildpackage dh_dkms rst2man; do
		command -v "$t" >/dev/null || die "check-install: $t missing: run scripts/deps.sh"
	done
	if ! make -C "$TWHEEL_ROOT/userspace-test" >"$OUT/tests-build.log" 2>&1 ||
		! make -C "$TWHEEL_ROOT/lib" tests >>"$OUT/tests-build.log" 2>&1; then
		rec fail - "userspace tests build (see $OUT/tests-build.log)"
		return 0
	fi
	build_debs || return 0
	install_debs || return 0
	check_man
	build_pkgconfig_prog || return 0
	local k
	for k in $KERNELS; do
		case $k in 6.1 | 6.12) run_kernel "$k" ;; *) log "install: no install guest for kernel '$k' (stock kernels only)" ;; esac
	done
}

main
