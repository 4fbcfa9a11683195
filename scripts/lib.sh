# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# lib.sh - helpers shared by twheel's harness scripts (sourced, not run).
#
# Kernels are named by three short names everywhere in the harness:
#   debug  the debug test kernel built from Debian's linux-source (KUnit, KASAN...)
#   6.1    Debian's stock 6.1 kernel (linux-image-amd64 / linux-headers-amd64)
#   6.12   Debian's stock 6.12 kernel (linux-image-6.12-amd64 / linux-headers-6.12-amd64)
# kernel_image/kernel_kdir map a name to its bzImage and its build tree.

TWHEEL_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TWHEEL_CACHE=${TWHEEL_CACHE:-$HOME/.cache/twheel}
TWHEEL_BUILD=${TWHEEL_BUILD:-$TWHEEL_ROOT/build}
# The Debian source package the debug kernel is built from.
TWHEEL_DEBUG_SERIES=${TWHEEL_DEBUG_SERIES:-6.12}
TWHEEL_ALL_KERNELS="debug 6.1 6.12"

log() { printf '%s\n' "twheel: $*" >&2; }
die() { printf '%s\n' "twheel: error: $*" >&2; exit 1; }

# Newest installed stock image of a series, e.g. "6.1" -> 6.1.0-57-amd64.
# Prints the release string (what `uname -r` says in that kernel).
stock_release() {
	local series=$1 f best=""
	for f in /boot/vmlinuz-"$series".*-amd64; do
		[ -e "$f" ] || continue
		f=${f#/boot/vmlinuz-}
		# 6.1 must not match 6.12: the char after the series is a dot.
		case $f in "$series".*) ;; *) continue ;; esac
		best=$(printf '%s\n%s\n' "$best" "$f" | sed '/^$/d' | sort -V | tail -n1)
	done
	[ -n "$best" ] || die "no /boot/vmlinuz-$series.*-amd64: run scripts/deps.sh"
	printf '%s\n' "$best"
}

debug_src_version() {
	dpkg-query -W -f='${Version}' "linux-source-$TWHEEL_DEBUG_SERIES" 2>/dev/null ||
		die "linux-source-$TWHEEL_DEBUG_SERIES is not installed: run scripts/deps.sh"
}

# Cache key of the debug kernel: source package version + fragment + compiler.
debug_kernel_key() {
	local ver hash
	ver=$(debug_src_version | tr -c 'A-Za-z0-9.\n-' '_')
	hash=$( { cat "$TWHEEL_ROOT/scripts/debug-kernel.config"; gcc --version | head -n1; } |
		sha256sum | cut -c1-12)
	printf 'debug-%s-%s\n' "$ver" "$hash"
}

debug_kernel_dir() { printf '%s/kernel/%s\n' "$TWHEEL_CACHE" "$(debug_kernel_key)"; }

kernel_kdir() {
	case $1 in
	debug) debug_kernel_dir ;;
	6.1 | 6.12) printf '/usr/src/linux-headers-%s\n' "$(stock_release "$1")" ;;
	*) die "unknown kernel '$1' (known: $TWHEEL_ALL_KERNELS)" ;;
	esac
}

kernel_image() {
	case $1 in
	debug) printf '%s/arch/x86/boot/bzImage\n' "$(debug_kernel_dir)" ;;
	6.1 | 6.12) printf '/boot/vmlinuz-%s\n' "$(stock_release "$1")" ;;
	*) die "unknown kernel '$1' (known: $TWHEEL_ALL_KERNELS)" ;;
	esac
}

# Where the module tree for kernel $1 is copied and built.
kmod_build_dir() { printf '%s/kmod-%s\n' "$TWHEEL_BUILD" "$1"; }

# Copy $1 (a directory) into $2 file by file, keeping mtimes, touching only
# files whose content changed and deleting files that vanished from $1, so
# that kbuild in $2 stays incremental.  Build products in $1 are not copied.
sync_tree() {
	local src=$1 dst=$2 f
	mkdir -p "$dst"
	(cd "$src" && find . -type f ! -name '*.o' ! -name '*.ko' ! -name '*.mod' \
		! -name '*.mod.c' ! -name '.*.cmd' ! -name '.*.d' ! -name 'modules.order' \
		! -name 'Module.symvers' ! -name '*.a' ! -name '.module-common.o' | sort) >"$dst/.twheel-manifest.new"
	while IFS= read -r f; do
		if ! cmp -s "$src/$f" "$dst/$f"; then
			mkdir -p "$(dirname "$dst/$f")"
			cp -p "$src/$f" "$dst/$f"
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
# status is pass, fail or skip.  scripts/summary.sh turns it into the summary.
TWHEEL_LEDGER=${TWHEEL_LEDGER:-}
record() {
	local status=$1 suite=$2 kernel=$3 name=$4
	[ -n "$TWHEEL_LEDGER" ] || die "record: TWHEEL_LEDGER is not set"
	name=$(printf '%s' "$name" | tr '\t\n' '  ')
	printf '%s\t%s\t%s\t%s\n' "$status" "$suite" "$kernel" "$name" >>"$TWHEEL_LEDGER"
	case $status in
	pass) printf '  PASS  %-18s %-6s %s\n' "$suite" "$kernel" "$name" >&2 ;;
	fail) printf '  FAIL  %-18s %-6s %s\n' "$suite" "$kernel" "$name" >&2 ;;
	*) printf '  SKIP  %-18s %-6s %s\n' "$suite" "$kernel" "$name" >&2 ;;
	esac
}
