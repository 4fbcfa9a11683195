# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# lib.sh - helpers shared by twheel's harness scripts (sourced, not run).
#
# Kernels: scripts/kernels.conf is the matrix, one line per kernel (name,
# type build|stock, suite, series, guest timeout, fragments or flavour).
# Every harness script asks the functions below; none names a kernel itself.
#   kernel_image/kernel_kdir  map a name to its bzImage and its build tree.

TWHEEL_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TWHEEL_CACHE=${TWHEEL_CACHE:-$HOME/.cache/twheel}
TWHEEL_BUILD=${TWHEEL_BUILD:-$TWHEEL_ROOT/build}
TWHEEL_KERNELS_CONF=${TWHEEL_KERNELS_CONF:-$TWHEEL_ROOT/scripts/kernels.conf}

log() { printf '%s\n' "twheel: $*" >&2; }
die() { printf '%s\n' "twheel: error: $*" >&2; exit 1; }

# The table without comments: "name type suite series timeout extra...".
kernel_table() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$TWHEEL_KERNELS_CONF"; }

TWHEEL_ALL_KERNELS=$(kernel_table | awk '{ printf "%s%s", sep, $1; sep = " " }')

# The line of kernel $1; "7.2" also finds "debug-7.2" (there is no stock 7.2).
kernel_line() {
	local line
	line=$(kernel_table | awk -v n="$1" '$1 == n { print; exit }')
	[ -n "$line" ] || line=$(kernel_table | awk -v n="debug-$1" '$1 == n { print; exit }')
	[ -n "$line" ] || die "unknown kernel '$1' (known: $TWHEEL_ALL_KERNELS; see scripts/kernels.conf)"
	printf '%s\n' "$line"
}
kernel_name() { kernel_line "$1" | awk '{ print $1 }'; }
kernel_type() { kernel_line "$1" | awk '{ print $2 }'; }
kernel_suite() { kernel_line "$1" | awk '{ print $3 }'; }
kernel_series() { kernel_line "$1" | awk '{ print $4 }'; }
kernel_timeout() { kernel_line "$1" | awk '{ print $5 }'; }
kernel_extra() { kernel_line "$1" | awk '{ for (i = 6; i <= NF; i++) printf "%s%s", $i, (i < NF ? " " : "\n") }'; }
# Built kernels carry KUnit, the sanitizers and the debug boot options.
kernel_is_built() { [ "$(kernel_type "$1")" = build ]; }

# Stock kernels are never installed: scripts/debian-fetch.sh downloads the
# image and headers packages of their suite (the machine's own for "-") and
# unpacks them into $TWHEEL_CACHE/debian/<suite>/stock/<release>/.
#
# The linux-image metapackage of a stock kernel: the suite's own kernel has
# the bare one ("6.1 amd64" -> linux-image-amd64 in Debian 12, 5.10 in
# Debian 11), a newer series its own ("6.12 rt-amd64" ->
# linux-image-6.12-rt-amd64).
stock_meta() {
	case $1 in
	6.1 | 5.10) printf 'linux-image-%s\n' "$2" ;;
	*) printf 'linux-image-%s-%s\n' "$1" "$2" ;;
	esac
}

# Release of a stock kernel of the matrix, by name: what `uname -r` says in
# it (6.1.0-57-amd64, 6.12.118+deb12-rt-amd64).
kernel_release() {
	[ "$(kernel_type "$1")" = stock ] || die "kernel '$1' is not a stock kernel"
	"$TWHEEL_ROOT/scripts/debian-fetch.sh" "$(kernel_suite "$1")" --release \
		"$(stock_meta "$(kernel_series "$1")" "$(kernel_extra "$1")")"
}

# The unpacked root of a stock kernel (downloaded on first use).
stock_root() {
	"$TWHEEL_ROOT/scripts/debian-fetch.sh" "$(kernel_suite "$1")" --stock "$(kernel_release "$1")"
}

# What to put in front of PATH to build modules for kernel $1: nothing, or
# for a stock kernel whose headers name a gcc-N this machine lacks (Debian
# 11's gcc-10), that gcc of the kernel's suite, unpacked into the cache.
kernel_tool_path() {
	local v
	[ "$(kernel_type "$1")" = stock ] || return 0
	v=$(sed -n 's/^CC = .*gcc-\([0-9][0-9]*\)$/\1/p' "$(kernel_kdir "$1")/.kernelvariables" 2>/dev/null)
	[ -n "$v" ] || return 0
	command -v "gcc-$v" >/dev/null && return 0
	printf '%s:\n' "$("$TWHEEL_ROOT/scripts/debian-fetch.sh" "$(kernel_suite "$1")" --gcc "$v")"
}

# Version of the linux-source package a built kernel comes from.
kernel_src_version() {
	local series suite
	series=$(kernel_series "$1")
	suite=$(kernel_suite "$1")
	"$TWHEEL_ROOT/scripts/debian-fetch.sh" "$suite" --version "linux-source-$series"
}

# The config fragments of a built kernel, as paths.
kernel_fragments() {
	local f
	for f in $(kernel_extra "$1"); do printf '%s\n' "$TWHEEL_ROOT/scripts/kconfig/$f"; done
}

# Cache key of a built kernel: name + source package version + hash of
# (its fragments, compiler).  The 6.12 debug kernel keeps the key it had
# before the matrix existed ("debug-<version>-<hash>").
build_kernel_key() {
	local name ver hash
	name=$(kernel_name "$1")
	ver=$(kernel_src_version "$name" | tr -c 'A-Za-z0-9.\n-' '_')
	# shellcheck disable=SC2046 # one path per line, no spaces
	hash=$( { cat $(kernel_fragments "$name"); gcc --version | head -n1; } |
		sha256sum | cut -c1-12)
	printf '%s-%s-%s\n' "$name" "$ver" "$hash"
}

build_kernel_dir() { printf '%s/kernel/%s\n' "$TWHEEL_CACHE" "$(build_kernel_key "$1")"; }

kernel_kdir() {
	case $(kernel_type "$1") in
	build) build_kernel_dir "$1" ;;
	stock) printf '%s/usr/src/linux-headers-%s\n' "$(stock_root "$1")" "$(kernel_release "$1")" ;;
	esac
}

kernel_image() {
	case $(kernel_type "$1") in
	build) printf '%s/arch/x86/boot/bzImage\n' "$(build_kernel_dir "$1")" ;;
	stock) printf '%s/boot/vmlinuz-%s\n' "$(stock_root "$1")" "$(kernel_release "$1")" ;;
	esac
}

# Where the module tree for kernel $1 is copied and built.
kmod_build_dir() { printf '%s/kmod-%s\n' "$TWHEEL_BUILD" "$1"; }

# Copy $1 (a directory) into $2 file by file, touching only files whose
# content changed and deleting files that vanished from $1, so that kbuild
# in $2 stays incremental.  A changed file gets the time of the copy, not
# its own: a tree whose files are older than the objects built in $2 from
# another tree (check.sh --module-src) must still be rebuilt.  Build
# products in $1 are not copied.
sync_tree() {
	local src=$1 dst=$2 f
	mkdir -p "$dst"
	(cd "$src" && find . -type f ! -name '*.o' ! -name '*.ko' ! -name '*.mod' \
		! -name '*.mod.c' ! -name '.*.cmd' ! -name '.*.d' ! -name 'modules.order' \
		! -name 'Module.symvers' ! -name '*.a' ! -name '.module-common.o' | sort) >"$dst/.twheel-manifest.new"
	while IFS= read -r f; do
		if ! cmp -s "$src/$f" "$dst/$f"; then
			mkdir -p "$(dirname "$dst/$f")"
			cp "$src/$f" "$dst/$f"
		fi
	done <"$dst/.twheel-manifest.new"
	if [ -f "$dst/.twheel-manifest" ]; then
		comm -23 "$dst/.twheel-manifest" "$dst/.twheel-manifest.new" |
			while IFS= read -r f; do rm -f "$dst/$f"; done
	fi
	mv "$dst/.twheel-manifest.new" "$dst/.twheel-manifest"
}

# Serialise harness runs that share $TWHEEL_BUILD (several people may run
# `make vmtest` in one tree): wait for the other run instead of clobbering it.
lock_build_dir() {
	mkdir -p "$TWHEEL_BUILD"
	exec 8>"$TWHEEL_BUILD/.lock"
	if ! flock -n 8; then
		log "another harness run is using $TWHEEL_BUILD; waiting for it to finish"
		flock 8
	fi
}

# Results ledger: one line per test result, "status<TAB>suite<TAB>kernel<TAB>name".
# status is pass, fail, skip, or note (a diagnostic line of the failure
# before it).  scripts/summary.sh turns it into the summary.
TWHEEL_LEDGER=${TWHEEL_LEDGER:-}
record() {
	local status=$1 suite=$2 kernel=$3 name=$4
	[ -n "$TWHEEL_LEDGER" ] || die "record: TWHEEL_LEDGER is not set"
	name=$(printf '%s' "$name" | tr '\t\n' '  ')
	printf '%s\t%s\t%s\t%s\n' "$status" "$suite" "$kernel" "$name" >>"$TWHEEL_LEDGER"
	case $status in
	pass) printf '  PASS  %-18s %-9s %s\n' "$suite" "$kernel" "$name" >&2 ;;
	fail) printf '  FAIL  %-18s %-9s %s\n' "$suite" "$kernel" "$name" >&2 ;;
	note) printf '        %s\n' "$name" >&2 ;;
	*) printf '  SKIP  %-18s %-9s %s\n' "$suite" "$kernel" "$name" >&2 ;;
	esac
}
