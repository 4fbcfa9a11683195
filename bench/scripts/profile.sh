#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# profile.sh - where /dev/twheel spends its time: perf in the bench guest.
#
# Boots the stock 6.12 guest of `make bench` with the modules and twbench
# that the last `make bench` built (build/bench/stage; run it first), and
# the host's perf (Debian's linux-perf) with its libraries. perf samples
# cpu-clock (TCG has no PMU) on both CPUs with call graphs while twbench
# runs one workload, and the guest prints `perf report` per symbol (self)
# and per caller (children) on the results channel.
#
# Reading it: cpu-clock samples are taken by an hrtimer interrupt, so time
# spent with interrupts off is charged to the instruction that enables them
# again: _raw_spin_unlock_irqrestore stands for the whole time under a base
# lock (the wheel's work, hrtimer programming), not for the unlock.
#
# Usage: bench/scripts/profile.sh [--out DIR] WORKLOAD...
#   WORKLOAD: b256 (twheel-b256 churn, 1k pending), b256-100k, single
#   (twheel churn, one ioctl per operation, 1k pending), hot (one hot timer,
#   twheel), hot-b1 (the same in batches of one), hot-timerfd,
#   expiry-b256 and expiry-ring (the expiry workload, read() or the ring),
#   refresh-shm and refresh-common (3M refreshes at 1k pending, twheel-shm
#   or libevent's common timeout),
#   kernel-twheel and kernel-timer_list (twheel_bench.ko's churn of that
#   peer alone at 1M pending, its setup included).
# Output: DIR (default build/profile)/report.txt and run/ (the guest's logs).
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$BENCH_DIR/../scripts/lib.sh"

OUT=$TWHEEL_BUILD/profile
while [ $# -gt 0 ]; do
	case $1 in
	--out) OUT=$2; shift ;;
	-*) die "profile: unknown option '$1'" ;;
	*) break ;;
	esac
	shift
done
[ $# -gt 0 ] || die "profile: name at least one workload (see the top of $0)"
STAGE=$TWHEEL_BUILD/bench/stage
if [ ! -f "$STAGE/modules/twheel.ko" ] || [ ! -x "$STAGE/tests/twbench" ]; then
	die "profile: no $STAGE: run 'make bench' (or QUICK=1) first"
fi
PERF=$(command -v perf) || die "profile: no perf on this machine (Debian: linux-perf)"
PERF=$(readlink -f "$PERF")

files=(--file "$PERF:/usr/bin/perf")
while read -r lib; do
	files+=(--file "$(readlink -f "$lib"):$lib")
done < <(ldd "$PERF" | awk '/=> \// {print $3} /^\t\/lib/ {print $1}' | sort -u)

mkdir -p "$OUT/run"
log "profile: booting the bench guest for: $*"
"$TWHEEL_ROOT/scripts/vm-run" --kernel 6.12 --payload "$BENCH_DIR/scripts/profile-guest.sh" \
	--out "$OUT/run" --modules "$STAGE/modules" --tests "$STAGE/tests" --mem 4096 \
	--smp 2 --timeout 900 --env "PROFILE_WORKLOADS=$*" --append "quiet loglevel=4" \
	"${files[@]}" || log "profile: the guest did not finish cleanly"
sed -e '/^@@ BOOT/d' -e '/^@@ DONE/d' -e 's/^@@ BEGIN text /==== /' -e '/^@@ END /d' \
	"$OUT/run/results.log" >"$OUT/report.txt"
cat "$OUT/report.txt"
log "profile: $OUT/report.txt"
