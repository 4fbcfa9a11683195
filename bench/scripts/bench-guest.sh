# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# bench-guest.sh - guest payload of `make bench` (run by scripts/vm-run as
# /payload.sh inside the stock 6.12 guest; see bench/scripts/bench.sh).
#
# Runs every workload of Documentation/benchmarks.rst against every peer, in
# one guest boot so the ratios compare like with like. Each measurement is a
# line of JSON on the results channel (fd 3, /dev/ttyS1); progress lines
# ("bench: [k/n] ...") go to the console, which bench/scripts/bench.sh shows.
# BENCH_QUICK=1 (from /etc/twheel.env) runs the short version.
# shellcheck source=scripts/guest/lib.sh
. /lib/twheel-guest.sh
# shellcheck disable=SC1091 # written by vm-run
. /etc/twheel.env

QUICK=${BENCH_QUICK:-0}
TWB=/tests/twbench
STEP=0

if [ "$QUICK" = 1 ]; then
	PENDING="1000 100000"
	T=0.4		# seconds per measurement
	KT=200		# ms per in-kernel measurement
	KREPS=2		# in-kernel rounds (peers interleaved; best round kept)
	PASSES=1	# passes of the userspace suite (best kept)
	RPASSES=1	# passes of the refresh workload (best kept)
	IDLE=2
	NEXP=5000
	EXPR=1		# rounds of the expiry workload
	NACC=600
	SPREAD=1500
	MEMN=100000
	TWON=10000
	HOTN=100000	# arm+cancel pairs of the one hot timer
	HOTR=5		# its interleaved rounds (best kept)
	TOTAL=67
else
	PENDING="1000 100000 1000000"
	T=1.5
	KT=500
	KREPS=3
	PASSES=2
	RPASSES=3
	IDLE=5
	NEXP=20000
	EXPR=5
	NACC=2000
	SPREAD=3000
	MEMN=100000
	TWON=100000
	HOTN=100000
	HOTR=5
	TOTAL=175
fi
CHURN_PEERS="timerfd posix io_uring-b256 twheel twheel-b1 twheel-b16 twheel-b256"
KPENDING=$(echo "$PENDING" | tr ' ' ',')

progress() {
	STEP=$((STEP + 1))
	echo "bench: [$STEP/~$TOTAL] $*"
}

note() {
	echo "bench: $*"
	echo "@@ NOTE $*" >&3
}

# twb WORKLOAD ARGS...: run twbench, JSON lines to the results channel.
twb() {
	timeout 600 "$TWB" "$@" 2>/tmp/twb.err >/tmp/twb.out
	_rc=$?
	grep '^{' /tmp/twb.out >&3
	if [ -s /tmp/twb.err ]; then
		sed 's/^/bench:   /' /tmp/twb.err | head -n 5
	fi
	if [ "$_rc" != 0 ]; then
		note "twbench $* exited with status $_rc"
	fi
	return 0
}

setup() {
	# One timerfd per timeout at 1M pending needs more than the default fds.
	echo 4194304 >/proc/sys/fs/nr_open
	echo 8388608 >/proc/sys/fs/file-max
	# ...and more epoll watches than the default (a few % of low memory).
	echo 4194304 >/proc/sys/fs/epoll/max_user_watches
	# A memory cgroup of our own, for the memcg delta of workload 5.
	mkdir -p /sys/fs/cgroup
	if mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null; then
		echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
		mkdir -p /sys/fs/cgroup/bench
		echo $$ >/sys/fs/cgroup/bench/cgroup.procs 2>/dev/null ||
			note "could not enter the bench memory cgroup"
	else
		note "no cgroup2: memcg figures will be missing"
	fi
	echo "@@ NOTE kernel $(uname -r) cpus $(grep -c ^processor /proc/cpuinfo)" >&3
	{
		echo "{\"workload\":\"env\",\"peer\":\"guest\",\"kernel\":\"$(uname -r)\","
		echo "\"cpus\":$(grep -c ^processor /proc/cpuinfo),"
		echo "\"mem_kb\":$(awk '/MemTotal/ {print $2}' /proc/meminfo),"
		echo "\"quick\":$QUICK,\"seconds_per_run\":$T}"
	} | tr -d '\n' >&3
	echo >&3
}

TWHEEL=0
load_twheel() {
	if insmod /lib/twheel/twheel.ko 2>/tmp/insmod.err; then
		TWHEEL=1
		note "twheel loaded: tick_ns=$(cat /sys/module/twheel/parameters/tick_ns 2>/dev/null)"
		echo "{\"workload\":\"env\",\"peer\":\"twheel\",\"tick_ns\":$(cat /sys/module/twheel/parameters/tick_ns 2>/dev/null || echo null)}" >&3
	else
		note "insmod twheel.ko failed: $(cat /tmp/insmod.err); twheel peers skipped"
	fi
}

# Peers of $1 that can run now (twheel ones need the module).
peers() {
	for p in $1; do
		case $p in
		twheel*) [ "$TWHEEL" = 1 ] && [ -c /dev/twheel ] && echo "$p" ;;
		*) echo "$p" ;;
		esac
	done
}

debugfs_dump() {
	[ -d /sys/kernel/debug/twheel ] || return 0
	echo "@@ BEGIN text debugfs-$1" >&3
	find /sys/kernel/debug/twheel -type f 2>/dev/null | while read -r f; do
		echo "== $f" >&3
		head -c 4000 "$f" >&3 2>/dev/null
	done
	echo "@@ END text debugfs-$1 rc=0" >&3
}

idle() {
	progress "idle: machine floor (no twheel module, nothing armed), ${IDLE}s"
	twb idle --peer none --time "$IDLE"
	load_twheel
	[ "$TWHEEL" = 1 ] || return 0
	progress "idle: twheel loaded, no timeouts, ${IDLE}s"
	twb idle --peer twheel --time "$IDLE"
	progress "idle: twheel, one timeout 10 min away, ${IDLE}s"
	twb idle --peer twheel --far --time "$IDLE"
	progress "idle: timerfd, one timeout 10 min away, ${IDLE}s"
	twb idle --peer timerfd --far --time "$IDLE"
	debugfs_dump idle
}

kernel_bench() {
	[ "$TWHEEL" = 1 ] || return 0
	[ -f /lib/twheel/twheel_bench.ko ] || { note "no twheel_bench.ko"; return 0; }
	progress "in-kernel: timer_list, hrtimer, twheel at pending $KPENDING"
	dmesg -c >/dev/null
	if insmod /lib/twheel/twheel_bench.ko pending="$KPENDING" time_ms="$KT" reps="$KREPS"; then
		rmmod twheel_bench
	else
		note "twheel_bench.ko failed"
	fi
	dmesg | sed -n 's/^.*twheel_bench: \({.*}\)$/\1/p' >&3
	dmesg | grep 'twheel_bench: {' | sed 's/^.*twheel_bench: /bench:   /' | cut -c1-160
}

# Peers of the churn/cancel/rearm suite at $1 pending. POSIX timers stop at
# 100k: creating timer number n walks a hash chain of length n/512 on 6.12,
# so setting up 1M takes many minutes. io_uring at 1M submits 16 at a time:
# one TIMEOUT_REMOVE walks the whole list, and 256 of them would make one
# io_uring_enter() last longer than the whole time budget.
suite_peers() {
	for p in $CHURN_PEERS; do
		case $p in
		posix) [ "$1" -le 100000 ] && echo "$p" ;;
		io_uring-b256) if [ "$1" -ge 1000000 ]; then echo io_uring-b16; else echo "$p"; fi ;;
		*) echo "$p" ;;
		esac
	done
}

# Every peer once per pass, so a noisy moment of the host hits them all; the
# report keeps each peer's best pass. 1M runs once (setting it up is slow).
suite() {
	pass=1
	while [ "$pass" -le "$PASSES" ]; do
		for n in $PENDING; do
			[ "$pass" -gt 1 ] && [ "$n" -ge 1000000 ] && continue
			for p in $(peers "$(suite_peers "$n")"); do
				progress "rearm, churn, cancel: $p, $n pending (pass $pass/$PASSES)"
				twb suite --peer "$p" --pending "$n" --time "$T"
			done
		done
		pass=$((pass + 1))
	done
}

# The peers take turns, a round each, so that a slower stretch of the host
# falls on all of them; every peer gets the same deadlines in a round (its
# seed), and the report adds each peer's rounds up. The program runs on CPU
# 0, where it arms, so its timeouts fire where it waits for them; left to
# the scheduler, twheel-ring's figure moved by 3x between rounds.
expiry() {
	r=1
	while [ "$r" -le "$EXPR" ]; do
		for p in $(peers "timerfd posix io_uring-b256 twheel-b256 twheel-ring"); do
			progress "expiry: $p, $NEXP timeouts over 500 ms (round $r/$EXPR)"
			twb expiry --peer "$p" --count "$NEXP" --spread 500 --rounds 1 --seed "$r" --pin 0
		done
		r=$((r + 1))
	done
}

memory() {
	for p in $(peers "timerfd posix io_uring-b256 twheel-b256 twheel-shm"); do
		progress "memory: $p, $MEMN pending"
		twb memory --peer "$p" --pending "$MEMN"
	done
}

# All peers at once, one thread each, on the same deadlines (see twbench.c).
accuracy() {
	tag=$1
	list=nanosleep
	for p in $(peers "timerfd io_uring-b256 posix twheel-b256"); do
		list="$list,$p"
	done
	progress "accuracy ($tag): $list at once, $NACC timeouts each over ${SPREAD} ms"
	twb accuracy --peer "$list" --count "$NACC" --spread "$SPREAD" --tag "$tag"
}

stress_accuracy() {
	if ! command -v stress-ng >/dev/null 2>&1; then
		note "no stress-ng in the guest: accuracy under load skipped"
		return 0
	fi
	# CPU hogs on both CPUs plus hrtimer and timer churn of its own.
	stress-ng --cpu 2 --cpu-load 70 --hrtimers 1 --timer 1 --timeout 600 \
		>/tmp/stress.log 2>&1 &
	spid=$!
	sleep 1
	accuracy stress
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	sleep 1
}

# What memory cgroup charging costs the device: the same churn from the root
# cgroup, which is not charged.
profile() {
	[ "$TWHEEL" = 1 ] || return 0
	[ -w /sys/fs/cgroup/cgroup.procs ] || return 0
	progress "profile: twheel-b256 churn, 1000 pending, from the root memory cgroup"
	# shellcheck disable=SC2016 # $$ is the inner shell's, on purpose
	sh -c 'echo $$ >/sys/fs/cgroup/cgroup.procs && exec "$@"' sh \
		"$TWB" churn --peer twheel-b256 --pending 1000 --time "$T" --name churn-rootcg \
		2>/dev/null | grep '^{' >&3
	progress "profile: the same from the bench memory cgroup"
	twb churn --peer twheel-b256 --pending 1000 --time "$T" --name churn-benchcg
}

# One hot timer, nothing else pending: timerfd_settime() against
# TWHEEL_IOC_ARM + TWHEEL_IOC_CANCEL, and the same two in batches of one.
# Rounds interleave the peers; the report keeps each one's best round.
hot() {
	r=1
	while [ "$r" -le "$HOTR" ]; do
		for p in $(peers "timerfd twheel twheel-b1"); do
			progress "one hot timer: $p, $HOTN arm+cancel pairs (round $r/$HOTR)"
			twb hot --peer "$p" --count "$HOTN"
		done
		r=$((r + 1))
	done
}

# The refresh of an idle timeout, against the timers of the event-loop
# libraries (libuv, libevent's heap and its common timeouts) and timerfd;
# twheel by ioctl, in batches and through its shared table. Every peer once
# per pass, 1M in two of them: a store-sized refresh is timed over tens of
# milliseconds, where one slow stretch of the host moves it by 2x.
REFRESH_PEERS="libuv libevent libevent-common timerfd twheel twheel-b256 twheel-shm"
refresh() {
	pass=1
	while [ "$pass" -le "$RPASSES" ]; do
		for n in $PENDING; do
			[ "$pass" -gt 2 ] && [ "$n" -ge 1000000 ] && continue
			for p in $(peers "$REFRESH_PEERS"); do
				progress "refresh: $p, $n pending (pass $pass/$RPASSES)"
				twb refresh --peer "$p" --pending "$n" --ops 300000 --time "$T"
			done
		done
		pass=$((pass + 1))
	done
}

twocpu() {
	for p in $(peers "timerfd io_uring-b256 twheel-b256"); do
		progress "two CPUs: $p, 1 thread vs 2 threads, $TWON pending"
		twb twocpu --peer "$p" --pending "$TWON" --time "$T"
	done
}

# Workload $1 (with its arguments), unless BENCH_ONLY names others.
run() {
	case " ${BENCH_ONLY:-$1} " in
	*" $1 "*) "$@" ;;
	esac
}

setup
run idle
[ "$TWHEEL" = 1 ] || load_twheel
run kernel_bench
run hot
run suite
run refresh
run expiry
run memory
run accuracy light
run stress_accuracy
run twocpu
run profile
debugfs_dump end
progress "done"
