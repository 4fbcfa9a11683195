#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# debug-kernel.sh - build (or reuse) one of the kernels of the matrix that
# twheel compiles itself (type "build" in scripts/kernels.conf: debug,
# debug-7.2, debug-rt, kcsan).
#
# tinyconfig + the kernel's fragments (scripts/kconfig/*.config, later ones
# override earlier ones), merged with merge_config.sh, from Debian's
# linux-source-<series> (downloaded into the cache by scripts/debian-fetch.sh,
# from the machine's own suite or the one scripts/kernels.conf names; never
# installed); then checks that every option
# of the fragments is in the final .config, and builds bzImage plus modules
# (which writes the Module.symvers that external modules link against;
# bzImage + modules_prepare alone leave only vmlinux.symvers), then proves
# that an out-of-tree module builds against the result.
#
# Cached under $TWHEEL_CACHE/kernel/<key>, key = name + source package
# version + hash of (fragments, gcc version); a finished build is never
# rebuilt.  Prints the build directory on stdout.
#
# Usage: scripts/debug-kernel.sh [--kernel NAME] [--force]   build if needed, print the build dir
#        scripts/debug-kernel.sh [--kernel NAME] --source    extract the source if needed, print its dir
# NAME defaults to "debug" (the 6.12 debug kernel).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

KNAME=debug

extract_source() {
	local ver series suite srcdir tarball tmp
	ver=$(kernel_src_version "$KNAME")
	series=$(kernel_series "$KNAME")
	suite=$(kernel_suite "$KNAME")
	srcdir=$TWHEEL_CACHE/src/linux-source-$series-$ver
	exec 7>"$TWHEEL_CACHE/src/.lock"
	flock 7
	if [ ! -f "$srcdir/.twheel-complete" ]; then
		tarball=$("$TWHEEL_ROOT/scripts/debian-fetch.sh" "$suite" --extract "linux-source-$series")/usr/src/linux-source-$series.tar.xz
		[ -f "$tarball" ] || die "$tarball missing in the linux-source-$series package of '$suite'"
		log "extracting $tarball (linux-source $ver)"
		rm -rf "$srcdir" "$srcdir.tmp"
		tmp=$srcdir.tmp
		mkdir -p "$tmp"
		tar -C "$tmp" -xf "$tarball"
		mv "$tmp/linux-source-$series" "$srcdir"
		rmdir "$tmp"
		touch "$srcdir/.twheel-complete"
	fi
	exec 7>&-
	printf '%s\n' "$srcdir"
}

# The fragments merged into one: the last line about an option wins, in the
# order the options first appear.  This is what merge_config.sh applies.
effective_fragment() {
	# shellcheck disable=SC2046 # one path per line, no spaces
	awk '
		/^CONFIG_[A-Za-z0-9_]+=/ { n = $0; sub(/=.*/, "", n) }
		/^# CONFIG_[A-Za-z0-9_]+ is not set$/ { n = $2 }
		n != "" { if (!(n in v)) order[++k] = n; v[n] = $0; n = "" }
		END { for (i = 1; i <= k; i++) print v[order[i]] }' $(kernel_fragments "$KNAME")
}

# Every CONFIG_X=v and "# CONFIG_X is not set" line of the fragments must be
# in .config verbatim.  merge_config.sh only prints a note and carries on.
verify_config() {
	local config=$1 fragment=$2 line name missing=0
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
	done <"$fragment"
	[ "$missing" = 0 ] || die "the $KNAME kernel .config lacks options of $(kernel_extra "$KNAME") (see above)"
}

# An out-of-tree module (the harness self-test's) must build against the tree.
check_external_module() {
	local out=$1 tmp
	tmp=$(mktemp -d)
	cp "$TWHEEL_ROOT"/scripts/harness-selftest/{Kbuild,*.c} "$tmp/"
	if ! make -C "$out" M="$tmp" modules >"$out/extmod.log" 2>&1 || ! ls "$tmp"/*.ko >/dev/null 2>&1; then
		tail -n 20 "$out/extmod.log" >&2
		rm -rf "$tmp"
		die "$KNAME kernel: an out-of-tree module does not build against $out"
	fi
	rm -rf "$tmp"
}

# Keep the current build of this kernel and the newest other one; drop the
# rest.  Builds of other kernels of the matrix are never touched.
prune_old_builds() {
	local keep=$1 d n
	find "$TWHEEL_CACHE/kernel" -mindepth 1 -maxdepth 1 -type d \
		-printf '%T@ %p\n' | sort -rn | cut -d' ' -f2- |
		while IFS= read -r d; do
			[ "$d" != "$keep" ] || continue
			n=$(cat "$d/.twheel-name" 2>/dev/null || true)
			# Builds made before the matrix existed were all "debug-<version>-...".
			if [ -z "$n" ] && [[ $(basename "$d") == debug-[0-9]* ]]; then n=debug; fi
			# An "if", not "&&": a false test as the loop's last command
			# would fail the pipeline (pipefail) once other kernels exist.
			if [ "$n" = "$KNAME" ]; then printf '%s\n' "$d"; fi
		done | tail -n +2 |
		while IFS= read -r d; do
			log "removing old $KNAME kernel build $d"
			rm -rf "$d"
		done
}

build() {
	local srcdir out start jobs
	out=$(build_kernel_dir "$KNAME")
	if [ "${1:-}" != --force ] && [ -f "$out/.twheel-complete" ] &&
		[ -f "$out/arch/x86/boot/bzImage" ] && [ -f "$out/Module.symvers" ]; then
		log "$KNAME kernel: cached at $out"
		printf '%s\n' "$out"
		return
	fi
	srcdir=$(extract_source)
	mkdir -p "$out"
	rm -f "$out/.twheel-complete"
	echo "$KNAME" >"$out/.twheel-name"
	start=$(date +%s)
	jobs=$(nproc)
	effective_fragment >"$out/twheel-fragment.config"
	log "$KNAME kernel: building in $out (linux-source-$(kernel_series "$KNAME"), tinyconfig + $(kernel_extra "$KNAME"), -j$jobs; several minutes, log in $out/build.log)"
	{
		make -C "$srcdir" O="$out" tinyconfig &&
			(cd "$srcdir" && scripts/kconfig/merge_config.sh -O "$out" "$out/.config" "$out/twheel-fragment.config")
	} >"$out/config.log" 2>&1 || { tail -n 30 "$out/config.log" >&2; die "$KNAME kernel: configuration failed"; }
	verify_config "$out/.config" "$out/twheel-fragment.config"
	if ! make -C "$srcdir" O="$out" -j"$jobs" bzImage modules >"$out/build.log" 2>&1; then
		grep -E 'error|Error' "$out/build.log" | tail -n 20 >&2 || true
		tail -n 20 "$out/build.log" >&2
		die "$KNAME kernel: build failed (full log: $out/build.log)"
	fi
	check_external_module "$out"
	echo "$(($(date +%s) - start))" >"$out/.twheel-build-seconds"
	touch "$out/.twheel-complete"
	log "$KNAME kernel: built in $(cat "$out/.twheel-build-seconds") s"
	prune_old_builds "$out"
	printf '%s\n' "$out"
}

main() {
	local action=""
	while [ $# -gt 0 ]; do
		case $1 in
		--kernel) KNAME=$2; shift ;;
		--force | --source) action=$1 ;;
		*) die "usage: $0 [--kernel NAME] [--force|--source]" ;;
		esac
		shift
	done
	KNAME=$(kernel_name "$KNAME")
	[ "$(kernel_type "$KNAME")" = build ] || die "kernel '$KNAME' is not built from source (see scripts/kernels.conf)"
	mkdir -p "$TWHEEL_CACHE/kernel" "$TWHEEL_CACHE/src"
	# One lock per kernel: two runs never build the same tree at once.
	# The 6.12 debug kernel keeps the lock file it always had.
	if [ "$KNAME" = debug ]; then
		exec 9>"$TWHEEL_CACHE/.debug-kernel.lock"
	else
		exec 9>"$TWHEEL_CACHE/.kernel-$KNAME.lock"
	fi
	flock 9
	case $action in
	--source) extract_source ;;
	*) build "$action" ;;
	esac
}

main "$@"
