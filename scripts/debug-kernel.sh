#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# debug-kernel.sh - build (or reuse) twheel's debug test kernel.
#
# tinyconfig + scripts/debug-kernel.config, merged with merge_config.sh, from
# Debian's linux-source-$TWHEEL_DEBUG_SERIES package; then checks that every
# option of the fragment is in the final .config, and builds bzImage plus
# modules (which writes the Module.symvers that external modules link
# against; bzImage + modules_prepare alone leave only vmlinux.symvers), then
# proves that an out-of-tree module builds against the result.
#
# Cached under $TWHEEL_CACHE/kernel/<key>, key = source package version +
# hash of (fragment, gcc version); a finished build is never rebuilt.
# Prints the build directory on stdout.
#
# Usage: scripts/debug-kernel.sh [--force]     build if needed, print the build dir
#        scripts/debug-kernel.sh --source      extract the source if needed, print its dir
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

FRAGMENT=$TWHEEL_ROOT/scripts/debug-kernel.config

extract_source() {
	local ver srcdir tarball tmp
	ver=$(debug_src_version)
	srcdir=$TWHEEL_CACHE/src/linux-source-$TWHEEL_DEBUG_SERIES-$ver
	tarball=/usr/src/linux-source-$TWHEEL_DEBUG_SERIES.tar.xz
	if [ ! -f "$srcdir/.twheel-complete" ]; then
		[ -f "$tarball" ] || die "$tarball missing: run scripts/deps.sh"
		log "extracting $tarball (linux-source $ver)"
		rm -rf "$srcdir" "$srcdir.tmp"
		tmp=$srcdir.tmp
		mkdir -p "$tmp"
		tar -C "$tmp" -xf "$tarball"
		mv "$tmp/linux-source-$TWHEEL_DEBUG_SERIES" "$srcdir"
		rmdir "$tmp"
		touch "$srcdir/.twheel-complete"
	fi
	printf '%s\n' "$srcdir"
}

# Every CONFIG_X=v and "# CONFIG_X is not set" line of the fragment must be
# in .config verbatim.  merge_config.sh only prints a note and carries on.
verify_config() {
	local config=$1 line name missing=0
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) name=${line%%=*} ;;
		"# CONFIG_"*" is not set") name=${line#\# }; name=${name%% *} ;;
		*) continue ;;
		esac
		if ! grep -qxF -- "$line" "$config"; then
			if [[ $line == "# "* ]] && ! grep -q "^$name=" "$config"; then
				continue	# not set because not visible: same thing
			fi
			log "config: asked for '$line', final .config has: $(grep -E "^(# )?${name}[= ]" "$config" || echo 'nothing')"
			missing=1
		fi
	done <"$FRAGMENT"
	[ "$missing" = 0 ] || die "the debug kernel .config lacks options of $FRAGMENT (see above)"
}

# An out-of-tree module (the harness self-test's) must build against the tree.
check_external_module() {
	local out=$1 tmp
	tmp=$(mktemp -d)
	cp "$TWHEEL_ROOT"/scripts/harness-selftest/{Kbuild,*.c} "$tmp/"
	if ! make -C "$out" M="$tmp" modules >"$out/extmod.log" 2>&1 || ! ls "$tmp"/*.ko >/dev/null 2>&1; then
		tail -n 20 "$out/extmod.log" >&2
		rm -rf "$tmp"
		die "debug kernel: an out-of-tree module does not build against $out"
	fi
	rm -rf "$tmp"
}

prune_old_builds() {
	local keep=$1 d
	# Keep the current build and the newest other one; drop the rest.
	find "$TWHEEL_CACHE/kernel" -mindepth 1 -maxdepth 1 -type d -name 'debug-*' \
		-printf '%T@ %p\n' | sort -rn | cut -d' ' -f2- |
		{ grep -vxF "$keep" || true; } | tail -n +2 |
		while IFS= read -r d; do
			log "removing old debug kernel build $d"
			rm -rf "$d"
		done
}

build() {
	local srcdir out start jobs
	out=$(debug_kernel_dir)
	if [ "${1:-}" != --force ] && [ -f "$out/.twheel-complete" ] &&
		[ -f "$out/arch/x86/boot/bzImage" ] && [ -f "$out/Module.symvers" ]; then
		log "debug kernel: cached at $out"
		printf '%s\n' "$out"
		return
	fi
	srcdir=$(extract_source)
	mkdir -p "$out"
	rm -f "$out/.twheel-complete"
	start=$(date +%s)
	jobs=$(nproc)
	log "debug kernel: building in $out (tinyconfig + $(basename "$FRAGMENT"), -j$jobs; several minutes, log in $out/build.log)"
	{
		make -C "$srcdir" O="$out" tinyconfig &&
			(cd "$srcdir" && scripts/kconfig/merge_config.sh -O "$out" "$out/.config" "$FRAGMENT")
	} >"$out/config.log" 2>&1 || { tail -n 30 "$out/config.log" >&2; die "debug kernel: configuration failed"; }
	verify_config "$out/.config"
	if ! make -C "$srcdir" O="$out" -j"$jobs" bzImage modules >"$out/build.log" 2>&1; then
		grep -E 'error|Error' "$out/build.log" | tail -n 20 >&2 || true
		tail -n 20 "$out/build.log" >&2
		die "debug kernel: build failed (full log: $out/build.log)"
	fi
	check_external_module "$out"
	echo "$(($(date +%s) - start))" >"$out/.twheel-build-seconds"
	touch "$out/.twheel-complete"
	log "debug kernel: built in $(cat "$out/.twheel-build-seconds") s"
	prune_old_builds "$out"
	printf '%s\n' "$out"
}

main() {
	mkdir -p "$TWHEEL_CACHE/kernel" "$TWHEEL_CACHE/src"
	exec 9>"$TWHEEL_CACHE/.debug-kernel.lock"
	flock 9
	case ${1:-} in
	--source) extract_source ;;
	"" | --force) build "$@" ;;
	*) die "usage: $0 [--force|--source]" ;;
	esac
}

main "$@"
