#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh - `make bench`: twheel against its peers in one guest run.
#
# Builds the benchmark program (bench/src), twheel.ko and the in-kernel
# bench module (bench/kmod) for Debian's stock 6.12 kernel, boots that
# kernel once under QEMU (TCG, 2 vCPUs) with scripts/vm-run and
# bench/scripts/bench-guest.sh as the payload, then turns the guest's JSON
# lines into a table on the terminal, a JSON file and PNG plots
# (bench/scripts/bench_report.py, gnuplot). Progress is shown while the
# guest runs.
#
# Usage: bench/scripts/bench.sh [--quick] [--out DIR] [--ref GITREF] [--report-only]
#        [--doc] [--baseline RESULTS.json] [--only "WORKLOAD..."]
#   QUICK=1 in the environment is the same as --quick (the short run).
#   --only (or BENCH_ONLY=...) runs just those workloads of the guest
#   script (idle kernel_bench hot suite refresh expiry memory accuracy
#   stress_accuracy twocpu profile), e.g. while working on one of them; the
#   goals of the others then say "no data".
#   --ref builds twheel.ko from a commit (git archive) instead of the work
#   tree (BENCH_REF=... in the environment does the same); twheel_bench.ko
#   always comes from the work tree's bench/kmod, built against that
#   commit's kernel API header.
#   --report-only re-renders the last run's results without booting.
#   --doc (or BENCH_DOC=1) also writes the table and the plots into
#   Documentation/benchmarks.rst (between its generated-results markers)
#   and its results.json to Documentation/benchmarks/results.json.
#   --baseline (or BENCH_BASELINE=...) names the results.json that the
#   "no other figure worse" goal compares with; by default the documented
#   run's, Documentation/benchmarks/results.json.
# Outputs in DIR (default build/bench): results.json, table.txt, *.png,
# run/ (console.log, results.log, qemu.cmd).
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$BENCH_DIR/../scripts/lib.sh"

QUICK=${QUICK:-0}
OUT=""
REPORT_ONLY=0
KERNEL=6.12
REF=${BENCH_REF:-}
DOC=${BENCH_DOC:-0}
ONLY=${BENCH_ONLY:-}
# The run documented in Documentation/benchmarks.rst: what "no other figure
# worse" compares against.
BASELINE=$TWHEEL_ROOT/Documentation/benchmarks/results.json

while [ $# -gt 0 ]; do
	case $1 in
	--quick) QUICK=1 ;;
	--out) OUT=$2; shift ;;
	--report-only) REPORT_ONLY=1 ;;
	--ref) REF=$2; shift ;;
	--doc) DOC=1 ;;
	--baseline) BASELINE=$2; shift ;;
	--only) ONLY=$2; shift ;;
	*) die "bench: unknown option '$1'" ;;
	esac
	shift
done
[ "$QUICK" = 1 ] || QUICK=0
[ -n "$OUT" ] || OUT=$TWHEEL_BUILD/bench
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

# Debian packages the bench needs beyond the harness's (deps.sh).
bench_deps() {
	local need=() p
	[ -x "$TWHEEL_ROOT/scripts/deps.sh" ] && "$TWHEEL_ROOT/scripts/deps.sh"
	for p in python3 gnuplot-nox stress-ng liburing-dev busybox-static qemu-system-x86 cpio; do
		[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)" = installed ] ||
			need+=("$p")
	done
	[ "${#need[@]}" -eq 0 ] && return 0
	log "bench: installing ${need[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null
	apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
	PY=/usr/bin/python3
}

build() {
	local kdir stage=$OUT/stage src=()
	log "bench: building twbench (static)"
	make -s -C "$BENCH_DIR/src" O="$OUT/bin" >"$OUT/build.log" 2>&1 ||
		{ cat "$OUT/build.log" >&2; die "bench: building twbench failed"; }
	rm -rf "$stage"
	mkdir -p "$stage/modules" "$stage/tests"
	cp "$OUT/bin/twbench" "$stage/tests/"

	log "bench: building twheel.ko and twheel_bench.ko for $KERNEL"
	kdir=$(kernel_kdir "$KERNEL")
	if [ -n "$REF" ]; then
		rm -rf "$OUT/src"
		mkdir -p "$OUT/src"
		git -C "$TWHEEL_ROOT" archive "$REF" Kbuild kmod uapi | tar -x -C "$OUT/src"
		src=(--src "$OUT/src")
		log "bench: modules from $REF ($(git -C "$TWHEEL_ROOT" rev-parse --short "$REF"))"
	fi
	# --fresh: sync_tree keeps source mtimes, so an edit that keeps an older
	# mtime than the last build (git checkout, cp -p) would not be rebuilt.
	if "$TWHEEL_ROOT/scripts/build-kmod.sh" "$KERNEL" --fresh "${src[@]+"${src[@]}"}" --dest "$OUT/kmod-$KERNEL" \
		>>"$OUT/build.log" 2>&1 && [ -f "$OUT/kmod-$KERNEL/kmod/twheel.ko" ]; then
		cp "$OUT/kmod-$KERNEL/kmod/twheel.ko" "$stage/modules/"
		# twheel_bench.ko in its own copy, against the twheel.ko just built.
		rm -rf "$OUT/bench-kmod-$KERNEL"
		sync_tree "$BENCH_DIR/kmod" "$OUT/bench-kmod-$KERNEL"
		if make -C "$kdir" M="$OUT/bench-kmod-$KERNEL" \
			TWHEEL_KMOD="$OUT/kmod-$KERNEL/kmod" \
			KBUILD_EXTRA_SYMBOLS="$OUT/kmod-$KERNEL/Module.symvers" \
			modules >>"$OUT/build.log" 2>&1; then
			cp "$OUT/bench-kmod-$KERNEL/twheel_bench.ko" "$stage/modules/"
		else
			log "bench: twheel_bench.ko did not build (see $OUT/build.log); in-kernel peers skipped"
		fi
	else
		log "bench: twheel.ko did not build (see $OUT/build.log); twheel peers skipped"
	fi
}

# stress-ng is dynamically linked: carry it and its libraries.
stress_files() {
	local bin lib
	bin=$(command -v stress-ng) || return 0
	printf -- '--file\n%s:/usr/bin/stress-ng\n' "$bin"
	ldd "$bin" | awk '/=> \// {print $3} /^\t\/lib/ {print $1}' | sort -u |
		while read -r lib; do
			printf -- '--file\n%s:%s\n' "$(readlink -f "$lib")" "$lib"
		done
}

run_guest() {
	local timeout mem files=() rc=0 vmpid
	if [ "$QUICK" = 1 ]; then timeout=240 mem=2048; else timeout=1080 mem=4096; fi
	mapfile -t files < <(stress_files)
	log "bench: booting Linux $(kernel_release "$KERNEL") in QEMU (TCG, 2 vCPUs, ${mem} MB)"
	mkdir -p "$OUT/run"
	: >"$OUT/run/console.log"
	"$TWHEEL_ROOT/scripts/vm-run" --kernel "$KERNEL" --payload "$BENCH_DIR/scripts/bench-guest.sh" \
		--out "$OUT/run" --modules "$OUT/stage/modules" --tests "$OUT/stage/tests" \
		--mem "$mem" --smp 2 --timeout "$timeout" --env "BENCH_QUICK=$QUICK" \
		--env "BENCH_ONLY=$ONLY" \
		--append "quiet loglevel=4" "${files[@]+"${files[@]}"}" &
	vmpid=$!
	# Progress: the payload's "bench:" lines from the console, until vm-run ends.
	tail -n +1 -F --pid="$vmpid" "$OUT/run/console.log" 2>/dev/null |
		grep --line-buffered -a '^bench:' | sed -u 's/^bench: /  /' >&2 || true
	wait "$vmpid" || rc=$?
	[ "$rc" = 0 ] || log "bench: the guest did not finish cleanly (status $rc); reporting what it measured"
	grep -q '^@@ DONE' "$OUT/run/results.log" 2>/dev/null ||
		log "bench: the guest's payload did not complete"
}

main() {
	local t0=$SECONDS
	if [ "$REPORT_ONLY" = 0 ]; then
		bench_deps
		build
		run_guest
	fi
	[ -s "$OUT/run/results.log" ] || die "bench: no results in $OUT/run/results.log"
	local doc=() base=${BENCH_BASELINE:-$BASELINE} qemu
	[ "$DOC" != 1 ] || doc=(--doc "$TWHEEL_ROOT/Documentation/benchmarks.rst")
	# Copied aside first: --doc replaces the documented run's results.json.
	if [ -f "$base" ]; then
		cp "$base" "$OUT/baseline.json"
		doc+=(--baseline "$OUT/baseline.json")
	fi
	qemu=$("$("$TWHEEL_ROOT/scripts/qemu.sh" | head -n1)" --version | head -n1)
	"$PY" "$BENCH_DIR/scripts/bench_report.py" --results "$OUT/run/results.log" \
		--out "$OUT" --qemu "$qemu" --cmd "make bench$([ "$QUICK" = 1 ] && echo ' QUICK=1')" "${doc[@]+"${doc[@]}"}"
	log "bench: done in $((SECONDS - t0)) s: $OUT/table.txt, $OUT/results.json, $OUT/*.png"
}

main "$@"
exit
