# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# profile-guest.sh - guest payload of bench/scripts/profile.sh: perf record
# around one twbench workload at a time, perf report to the results channel.
# shellcheck source=scripts/guest/lib.sh
. /lib/twheel-guest.sh
# shellcheck disable=SC1091 # written by vm-run
. /etc/twheel.env

TWB=/tests/twbench
insmod /lib/twheel/twheel.ko || echo "@@ NOTE insmod twheel.ko failed" >&3
echo 0 >/proc/sys/kernel/kptr_restrict
echo -1 >/proc/sys/kernel/perf_event_paranoid

# prof NAME CMD...: record CMD on all CPUs, report self and children.
prof() {
	name=$1
	shift
	echo "twheel guest: profiling $name: $*"
	perf record -q -e cpu-clock -F 4999 -a -g -o "/tmp/$name.data" -- "$@" \
		>"/tmp/$name.out" 2>"/tmp/$name.err"
	echo "@@ BEGIN text $name: $*" >&3
	grep '^{' "/tmp/$name.out" >&3
	echo "---- self" >&3
	perf report -i "/tmp/$name.data" --stdio --no-children --sort sym \
		--percent-limit 0.5 -g none 2>/dev/null | grep -v '^#' | grep -v '^$' >&3
	echo "---- children" >&3
	perf report -i "/tmp/$name.data" --stdio --children --sort sym \
		--percent-limit 1.5 -g none 2>/dev/null | grep -v '^#' | grep -v '^$' >&3
	echo "@@ END text $name rc=0" >&3
}

for w in $PROFILE_WORKLOADS; do
	case $w in
	b256) prof "$w" "$TWB" churn --peer twheel-b256 --pending 1000 --time 3 ;;
	b256-100k) prof "$w" "$TWB" churn --peer twheel-b256 --pending 100000 --time 3 ;;
	single) prof "$w" "$TWB" churn --peer twheel --pending 1000 --time 3 ;;
	hot) prof "$w" "$TWB" hot --peer twheel --count 200000 ;;
	hot-b1) prof "$w" "$TWB" hot --peer twheel-b1 --count 200000 ;;
	hot-timerfd) prof "$w" "$TWB" hot --peer timerfd --count 200000 ;;
	expiry-b256) prof "$w" "$TWB" expiry --peer twheel-b256 --count 20000 \
		--spread 500 --rounds 5 --pin 0 ;;
	expiry-ring) prof "$w" "$TWB" expiry --peer twheel-ring --count 20000 \
		--spread 500 --rounds 5 --pin 0 ;;
	refresh-shm) prof "$w" "$TWB" refresh --peer twheel-shm --pending 1000 \
		--ops 3000000 --time 10 ;;
	refresh-common) prof "$w" "$TWB" refresh --peer libevent-common \
		--pending 1000 --ops 3000000 --time 10 ;;
	kernel-twheel) prof "$w" insmod /lib/twheel/twheel_bench.ko peers=4 \
		pending=1000000 reps=1 && rmmod twheel_bench ;;
	kernel-timer_list) prof "$w" insmod /lib/twheel/twheel_bench.ko peers=1 \
		pending=1000000 reps=1 && rmmod twheel_bench ;;
	*) echo "@@ NOTE profile: unknown workload $w" >&3 ;;
	esac
done
