# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Guest payload of `make check` / `make vmtest` (run by /init in the guest).
#
# Order: kmemleak baseline, cgroup2, insmod twheel.ko, every *_kunit.ko
# (KTAP from /sys/kernel/debug/kunit/<suite>/results), the example module
# (insmod, 2 s, rmmod), every /tests/*_test program (TAP), rmmod twheel,
# kmemleak scan, dmesg.  Environment (from vm-run --env):
#   TWHEEL_SUITES        which of "kunit example userspace" to run (default: all)
#   TWHEEL_TESTS         shell globs of test programs to run, separated by
#                        spaces (default: *_test)
#   TWHEEL_TEST_TIMEOUT  seconds per test program (default 300)
#   TWHEEL_MAIN_MODULE   module loaded first and removed last (default twheel;
#                        "none" for self-contained modules such as the harness self-test)
#   TWHEEL_MAIN_PARAMS   module parameters for it (e.g. max_pending=65536)
# shellcheck source=scripts/guest/lib.sh
. /lib/twheel-guest.sh

SUITES=${TWHEEL_SUITES:-kunit example userspace}
TESTS=${TWHEEL_TESTS:-*_test}
TEST_TIMEOUT=${TWHEEL_TEST_TIMEOUT:-300}
MAIN=${TWHEEL_MAIN_MODULE:-twheel}
MAIN_PARAMS=${TWHEEL_MAIN_PARAMS:-}
MODDIR=/lib/twheel
KMEMLEAK=/sys/kernel/debug/kmemleak

want() { case " $SUITES " in *" $1 "*) return 0 ;; esac; return 1; }

setup() {
	if grep -q cgroup2 /proc/filesystems; then
		mkdir -p /sys/fs/cgroup
		mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null &&
			echo "+memory" >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
		# The first memory cgroup flips static keys (live code patching):
		# do it now, while nothing else runs, not in the middle of a test.
		mkdir /sys/fs/cgroup/twheel-warmup 2>/dev/null &&
			rmdir /sys/fs/cgroup/twheel-warmup
	fi
	# Hung tasks: report within a minute (the debug kernel panics on them).
	[ -w /proc/sys/kernel/hung_task_timeout_secs ] &&
		echo 60 >/proc/sys/kernel/hung_task_timeout_secs
	if [ -w "$KMEMLEAK" ]; then
		# Forget whatever boot itself leaked: only leaks from here on count.
		echo scan >"$KMEMLEAK"
		echo clear >"$KMEMLEAK"
	fi
}

run_kunit() {
	_found=0
	for _ko in "$MODDIR"/*_kunit.ko; do
		[ -e "$_ko" ] || continue
		_found=1
		_mod=$(modname "$_ko")
		if [ ! -d /sys/kernel/debug/kunit ]; then
			echo "@@ STEP kunit-debugfs fail rc=1" >&3
			say "no /sys/kernel/debug/kunit: kernel without KUNIT/KUNIT_DEBUGFS?"
			return
		fi
		# "." keeps the list non-empty: busybox grep -v -f with an empty
		# pattern file prints nothing at all.
		{ echo .; ls /sys/kernel/debug/kunit; } >/tmp/kunit.before
		step "insmod-$_mod" insmod "$_ko"
		ls /sys/kernel/debug/kunit >/tmp/kunit.after
		_suites=$(grep -vxF -f /tmp/kunit.before /tmp/kunit.after)
		for _s in $_suites; do
			emit_file ktap "$_s" "/sys/kernel/debug/kunit/$_s/results"
		done
		[ -n "$_suites" ] || say "$_mod registered no KUnit suite"
		step "rmmod-$_mod" rmmod "$_mod"
	done
	[ "$_found" = 1 ] || say "no *_kunit.ko modules in $MODDIR"
}

run_example() {
	for _ko in "$MODDIR"/*example*.ko; do
		[ -e "$_ko" ] || continue
		_mod=$(modname "$_ko")
		step "insmod-$_mod" insmod "$_ko" && {
			sleep 2
			step "rmmod-$_mod" rmmod "$_mod"
		}
	done
}

# The kernel's own online mask and every CPU device's "online" file, one
# line: a test that takes CPUs down must leave both as they were at boot.
cpu_state() {
	printf "mask %s" "$(cat /sys/devices/system/cpu/online)"
	for _c in /sys/devices/system/cpu/cpu[0-9]*; do
		[ -r "$_c/online" ] || continue
		printf ' %s=%s/%s' "${_c##*/}" "$(cat "$_c/online")" \
			"$(cat "$_c/hotplug/state" 2>/dev/null)"
	done
	echo
}

# After test program $1: the CPUs as at boot, or a failed step that shows
# what changed and the kernel's CPU messages, and CPUs brought back for
# the programs that follow.
check_cpus() {
	cpu_state >/tmp/cpus.now
	cmp -s /tmp/cpus.boot /tmp/cpus.now && return 0
	say "CPUs after $1 differ from boot: was $(cat /tmp/cpus.boot), now $(cat /tmp/cpus.now)"
	dmesg | grep -iE 'smpboot|cpu ?[0-9]+ (is|did|failed)|cpuhp' | tail -20
	echo "@@ STEP cpus-after-$1 fail rc=1" >&3
	for _c in /sys/devices/system/cpu/cpu[0-9]*/online; do
		[ -w "$_c" ] || continue
		echo 0 >"$_c" 2>/dev/null
		echo 1 >"$_c" 2>/dev/null
	done
	cpu_state >/tmp/cpus.now
	say "CPUs after bringing them back: $(cat /tmp/cpus.now)"
}

run_userspace() {
	cpu_state >/tmp/cpus.boot
	for _t in $(test_programs); do
		run_tap "$(basename "$_t")" "$TEST_TIMEOUT" "$_t"
		check_cpus "$(basename "$_t")"
	done
}

finish() {
	if [ -w "$KMEMLEAK" ]; then
		# Two scans with a pause between them.  kmemleak ignores objects
		# younger than 5 s; one scan of a KASAN guest under TCG takes
		# longer than that, so the second scan sees everything that
		# the tests allocated.
		sleep 1
		echo scan >"$KMEMLEAK"
		sleep 1
		echo scan >"$KMEMLEAK"
		cat "$KMEMLEAK" >/tmp/kmemleak.txt
		emit_file text kmemleak /tmp/kmemleak.txt
		if [ -s /tmp/kmemleak.txt ]; then
			say "kmemleak reports leaks:"
			cat /tmp/kmemleak.txt
		fi
	fi
	dmesg >/tmp/dmesg.txt
	emit_file text dmesg /tmp/dmesg.txt
}

setup
loaded=0
if [ "$MAIN" != none ]; then
	# shellcheck disable=SC2086 # the parameters are words
	step "insmod-$MAIN" insmod "$MODDIR/$MAIN.ko" $MAIN_PARAMS && loaded=1
	[ "$loaded" = 1 ] && [ -d "/sys/module/$MAIN/parameters" ] &&
		grep -H . /sys/module/"$MAIN"/parameters/* 2>/dev/null
fi
want kunit && run_kunit
want example && run_example
want userspace && run_userspace
if [ "$loaded" = 1 ]; then
	step "rmmod-$MAIN" rmmod "$MAIN" &&
		step "unloaded-$MAIN" sh -c "! test -e /sys/module/$MAIN"
fi
finish
exit 0
