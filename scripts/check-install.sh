#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-install.sh - the "install" suite of make check (and make check-install):
# twheel installed the way a Debian user installs it, then used in guests.
#
#   1. make deb (scripts/deb.sh) and lintian: no lintian error
#   2. a throwaway root: an overlay of this machine's root filesystem whose
#      writes go to build/check/install/sysroot-upper (removed afterwards),
#      mounted in a private mount namespace and entered with chroot.  The
#      machine's own files are never written.  In it: dpkg --purge of any
#      twheel package the machine has (a fresh install every time), the
#      stock kernels' headers packages from the cache (scripts/debian-fetch.sh;
#      another suite's unpacked, with its gcc, see other_suite_headers),
#      then apt-get install ./twheel-dkms ./libtwheel1 ./libtwheel-dev
#      ./twheel-tools ./python3-twheel: DKMS builds the module for each
#      kernel; `dkms status` must say "installed" for each
#   3. man twheel, man 4 twheel, man 3 libtwheel, man 8 twheel render (in
#      the throwaway root, as everything below that runs on this machine)
#   4. lib/tests/pkgconfig_test.c is built with
#      $(pkg-config --cflags --libs libtwheel): dynamically linked against
#      the installed libtwheel.so.1
#   5. per stock kernel (5.10, 6.1, 6.12): a guest whose initramfs carries the
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
# Usage: scripts/check-install.sh [--kernels "5.10 6.1 6.12"] [--tests GLOB] [--show]
# Needs root (mount, chroot). Environment: as scripts/check.sh.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

# The overlay mounts live in a mount namespace of their own: they vanish
# with this process, however it ends.
if [ -z "${TWHEEL_INSTALL_NS:-}" ]; then
	[ "$(id -u)" = 0 ] || die "check-install: needs root (mount, chroot)"
	TWHEEL_INSTALL_NS=1 exec unshare --mount --propagation private "$0" "$@"
fi

KERNELS="5.10 6.1 6.12"
# The module DKMS builds is the source the guest phase of make check
# already tested on these kernels with the whole userspace suite, built the
# same way.  Here only what the packages bring: the ABI (module and
# installed header agree), a timeout through the device, the installed
# library and the installed CLI.
TESTS='abi_test timeout_test lib_test cli_test python_test'
SHOW=0
OUT=$TWHEEL_BUILD/check/install
ROOT=$OUT/sysroot
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
in_root() { chroot "$ROOT" env -u TWHEEL_INSTALL_NS "$@"; }

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

# The throwaway root: this machine's / as the lower layer of an overlay.
mount_root() {
	rm -rf "$ROOT" "$ROOT-upper" "$ROOT-work"
	mkdir -p "$ROOT" "$ROOT-upper" "$ROOT-work"
	mount -t overlay twheel-sysroot -o "lowerdir=/,upperdir=$ROOT-upper,workdir=$ROOT-work" "$ROOT" ||
		{ rec fail - "overlay mount of / for a throwaway root"; return 1; }
	mount --rbind /dev "$ROOT/dev"
	mount -t proc proc "$ROOT/proc"
	mount -t sysfs sysfs "$ROOT/sys"
	mount -t tmpfs tmpfs "$ROOT/run"
	mount -t tmpfs tmpfs "$ROOT/tmp"
	cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
	# No service starts from a maintainer script in here.
	printf '#!/bin/sh\nexit 101\n' >"$ROOT/usr/sbin/policy-rc.d"
	chmod 0755 "$ROOT/usr/sbin/policy-rc.d"
}

umount_root() {
	umount -R "$ROOT" 2>/dev/null || umount -R -l "$ROOT" 2>/dev/null || true
	rm -rf "$ROOT-upper" "$ROOT-work"
}

apt_in_root() {
	local log=$1
	shift
	in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y \
		-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
		--no-install-recommends "$@" >"$log" 2>&1 || { tail -n 20 "$log" >&2; return 1; }
}

# The headers of a kernel of another suite (Debian 11's 5.10) cannot be
# installed with this machine's apt (they depend on that suite's compiler
# package): unpack them into the throwaway root, with that suite's gcc-N as
# /usr/bin/gcc-N, as on a machine of that suite.  DKMS needs no more.
other_suite_headers() {
	local k=$1 rel=$2 suite p bin
	suite=$(kernel_suite "$k")
	# --keep-directory-symlink: the packages' ./lib/ must not replace the
	# root's /lib -> usr/lib.
	while read -r p; do
		dpkg-deb --fsys-tarfile "$p" | tar -x -C "$ROOT" --keep-directory-symlink
	done < <("$TWHEEL_ROOT/scripts/debian-fetch.sh" "$suite" --headers "$rel")
	bin=$(kernel_tool_path "$k")
	bin=${bin%:}
	[ -z "$bin" ] && return 0
	mkdir -p "$ROOT/opt/twheel-$suite"
	cp -a "${bin%/usr/bin}/." "$ROOT/opt/twheel-$suite/"
	for p in "$bin"/gcc-[0-9]*; do
		case $p in *-ar-* | *-nm-* | *-ranlib-*) continue ;; esac
		printf '#!/bin/sh\nexec /opt/twheel-%s/usr/bin/%s "$@"\n' "$suite" "$(basename "$p")" \
			>"$ROOT/usr/bin/$(basename "$p")"
		chmod 0755 "$ROOT/usr/bin/$(basename "$p")"
	done
	log "install: unpacked the $suite headers of $rel (and its gcc) into the throwaway root"
}

install_debs() {
	local debs=() hdrs=() p k rel st installed
	mkdir -p "$ROOT/tmp/debs"
	for p in "$TWHEEL_BUILD"/deb/*_"${version}"_*.deb; do
		case " ${PKGS[*]} " in *" $(basename "$p" | cut -d_ -f1) "*) ;; *) continue ;; esac
		cp "$p" "$ROOT/tmp/debs/"
		debs+=("/tmp/debs/$(basename "$p")")
	done
	# A fresh install every time: purge what the machine has (it is the
	# lower layer), whatever state it is in, so DKMS builds from nothing
	# and no conffile question can come up.
	# shellcheck disable=SC2016 # a dpkg-query format, not an expansion
	installed=$(in_root dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${PKGS[@]}" 2>/dev/null |
		awk '$2 != "not-installed" && $2 != "" { print $1 }' | tr '\n' ' ')
	if [ -n "$installed" ]; then
		log "install: purging the $installed the machine has, in the throwaway root"
		# shellcheck disable=SC2086 # package names are words
		in_root env DEBIAN_FRONTEND=noninteractive dpkg --purge $installed >"$OUT/purge.log" 2>&1 ||
			{ tail -n 20 "$OUT/purge.log" >&2; rec fail - "dpkg --purge $installed (see $OUT/purge.log)"; return 1; }
	fi
	for k in $KERNELS; do
		rel=$(kernel_release "$k")
		if [ "$(kernel_suite "$k")" != - ]; then
			other_suite_headers "$k" "$rel" || return 1
			continue
		fi
		while read -r p; do
			cp "$p" "$ROOT/tmp/debs/"
			hdrs+=("/tmp/debs/$(basename "$p")")
		done < <("$TWHEEL_ROOT/scripts/debian-fetch.sh" - --headers "$rel")
	done
	if [ "${#hdrs[@]}" -gt 0 ]; then
		log "install: apt-get install ${hdrs[*]} in the throwaway root"
		apt_in_root "$OUT/apt-headers.log" "${hdrs[@]}" ||
			{ rec fail - "apt-get install of the kernel headers in the throwaway root (see $OUT/apt-headers.log)"; return 1; }
	fi
	log "install: apt-get install ${debs[*]} in the throwaway root"
	if ! apt_in_root "$OUT/apt.log" "${debs[@]}"; then
		cp "$ROOT"/var/lib/dkms/twheel/*/build/make.log "$OUT/dkms-make.log" 2>/dev/null || true
		rec fail - "apt-get install ./*.deb (see $OUT/apt.log, $OUT/dkms-make.log)"
		return 1
	fi
	rec pass - "apt-get install ${PKGS[*]} (in a throwaway root)"
	for k in $KERNELS; do
		rel=$(kernel_release "$k")
		st=$(in_root dkms status -m twheel -v "$version" -k "$rel" 2>/dev/null | grep -v '^readelf' || true)
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
		if in_root env MANWIDTH=80 man --warnings $args 2>"$OUT/man.err" | grep -qi "^NAME" &&
			! grep -q . "$OUT/man.err"; then
			rec pass - "man $args renders without warnings"
		else
			rec fail - "man $args renders without warnings: $(head -n 2 "$OUT/man.err" | tr '\n' ' ')"
		fi
	done
}

build_pkgconfig_prog() {
	local cflags libs
	if ! cflags=$(in_root pkg-config --cflags libtwheel) || ! libs=$(in_root pkg-config --libs libtwheel); then
		rec fail - "pkg-config --cflags --libs libtwheel"
		return 1
	fi
	cp "$TWHEEL_ROOT/lib/tests/pkgconfig_test.c" "$ROOT/tmp/"
	# shellcheck disable=SC2086 # pkg-config output is words
	if in_root gcc -Wall -Wextra -Werror -o /tmp/pkgconfig_test \
		/tmp/pkgconfig_test.c $cflags $libs 2>"$OUT/pkgconfig-build.log" &&
		in_root ldd /tmp/pkgconfig_test >>"$OUT/pkgconfig-build.log" 2>&1 &&
		grep -q "libtwheel.so.1 => /.*libtwheel.so.1" "$OUT/pkgconfig-build.log"; then
		rec pass - "pkgconfig_test builds with \$(pkg-config --cflags --libs libtwheel) ('$cflags $libs') and links the installed libtwheel.so.1"
	else
		rec fail - "pkgconfig_test builds against the installed libtwheel-dev (see $OUT/pkgconfig-build.log)"
		return 1
	fi
}

# Copy a file of the throwaway root to the staging root $1, keeping its
# path; a symbolic link is followed inside the throwaway root.
copy_from_root() {
	local stage=$1 f=$2 real
	real=$(in_root readlink -f "$f")
	mkdir -p "$stage$(dirname "$f")"
	cp "$ROOT$real" "$stage$f"
}

# Copy executables of the throwaway root and the shared libraries they need
# (as ldd resolves them there) into the staging root $1, keeping their paths.
copy_with_libs() {
	local stage=$1 f lib
	shift
	for f in "$@"; do
		copy_from_root "$stage" "$f"
		for lib in $(in_root ldd "$f" 2>/dev/null | grep -oE '/[^ ]+' || true); do
			[ -e "$stage$lib" ] || copy_from_root "$stage" "$lib"
		done
	done
}

# The overlay copied over the guest's initramfs root by install.sh.
stage_root() {
	local k=$1 rel=$2 stage=$3 ko f
	rm -rf "$stage"
	mkdir -p "$stage/lib/modules/$rel/updates/dkms" "$stage/etc/udev/rules.d" "$stage/lib/udev/rules.d" \
		"$stage/lib/systemd" "$stage/run" "$stage/usr/bin"
	ko=$(find "$ROOT/lib/modules/$rel/updates/dkms" -name 'twheel.ko*' 2>/dev/null | head -n1)
	[ -n "$ko" ] || { rec fail "$k" "DKMS-built twheel.ko in /lib/modules/$rel/updates/dkms"; return 1; }
	cp "$ko" "$stage/lib/modules/$rel/updates/dkms/"
	# What depmod needs besides the modules: the kernel's built-in list,
	# from the image package in the cache.
	for f in modules.builtin modules.builtin.modinfo modules.order; do
		cp "$(stock_root "$k")/lib/modules/$rel/$f" "$stage/lib/modules/$rel/"
	done
	if depmod -b "$stage" "$rel" 2>"$OUT/depmod-$k.log" &&
		grep -q "^updates/dkms/twheel.ko" "$stage/lib/modules/$rel/modules.dep"; then
		rec pass "$k" "depmod -b <initramfs> $rel lists updates/dkms/$(basename "$ko")"
	else
		rec fail "$k" "depmod for the initramfs (see $OUT/depmod-$k.log)"
		return 1
	fi
	copy_with_libs "$stage" /usr/bin/kmod /usr/bin/udevadm /usr/bin/twheel /tmp/pkgconfig_test
	mv "$stage/tmp/pkgconfig_test" "$stage/usr/bin/pkgconfig_test"
	stage_python "$stage" || { rec fail "$k" "Debian's python3 for the guest (/usr/bin/python3)"; return 1; }
	ln -sf /usr/bin/udevadm "$stage/lib/systemd/systemd-udevd"
	copy_from_root "$stage" /lib/udev/rules.d/60-twheel.rules
	copy_from_root "$stage" /etc/modprobe.d/twheel.conf
	printf 'root:x:0:0:root:/root:/bin/sh\n' >"$stage/etc/passwd"
	printf 'root:x:0:\ntwheel:x:4242:\n' >"$stage/etc/group"
}

# Debian's python3 (a dependency of python3-twheel), its standard library
# without what no test imports (tests, GUI, installers), the binding the
# package installed, and the binding's test program python/tests/python_test.
stage_python() {
	local stage=$1 py mods
	py=$(in_root readlink -f /usr/bin/python3) || return 1
	[ -x "$ROOT$py" ] && [ -d "$ROOT/usr/lib/$(basename "$py")" ] || return 1
	mods=("$ROOT/usr/lib/$(basename "$py")"/lib-dynload/*.so)
	copy_with_libs "$stage" "$py" "${mods[@]#"$ROOT"}"
	ln -sf "$py" "$stage/usr/bin/python3"
	tar -C "$ROOT" --exclude='*/test' --exclude='*/tests' --exclude='*/idlelib' \
		--exclude='*/tkinter' --exclude='*/lib2to3' --exclude='*/ensurepip' \
		--exclude='*/config-*' --exclude='*/pydoc_data' \
		-cf - "usr/lib/$(basename "$py")" | tar -xf - -C "$stage"
	copy_from_root "$stage" /usr/lib/python3/dist-packages/twheel.py
	install -D -m 0755 "$TWHEEL_ROOT/python/tests/python_test" "$stage/tests/python_test"
}

run_kernel() {
	local k=$1 rel out=$OUT/guest-$1 rc=0 show=() tmp timed=()
	rel=$(kernel_release "$k")
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
	mount_root || return 0
	trap umount_root EXIT
	install_debs || return 0
	check_man
	build_pkgconfig_prog || return 0
	local k
	for k in $KERNELS; do
		case $k in 5.10 | 6.1 | 6.12) run_kernel "$k" ;; *) log "install: no install guest for kernel '$k' (stock kernels only)" ;; esac
	done
}

main
