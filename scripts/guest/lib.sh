# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Guest-side helpers for payload scripts (busybox sh), installed in the
# initramfs as /lib/twheel-guest.sh.  A payload sources it and reports on
# fd 3, the results channel (/dev/ttyS1, opened by /init).  Protocol, one
# item per line, parsed by scripts/parse-results.sh on the host:
#   @@ STEP <name> pass|fail rc=<n>          one pass/fail step
#   @@ BEGIN <kind> <name>                   start of a captured block
#   ...raw text (KTAP, TAP, kmemleak, dmesg)...
#   @@ END <kind> <name> rc=<n>              end of the block
#   @@ NOTE <text>                           free text, ignored by the parser
# Kinds: ktap (one KUnit suite), tap (one test program), text (anything).
# /init adds "@@ BOOT ..." before and "@@ DONE rc=<n>" after the payload.

say() { echo "twheel guest: $*"; }

# step NAME CMD...: run CMD, show its output on the console, report pass/fail.
step() {
	_name=$1
	shift
	say "step $_name: $*"
	"$@" 2>&1
	_rc=$?
	if [ "$_rc" = 0 ]; then
		echo "@@ STEP $_name pass rc=0" >&3
	else
		say "step $_name FAILED (rc=$_rc)"
		echo "@@ STEP $_name fail rc=$_rc" >&3
	fi
	return "$_rc"
}

# emit_file KIND NAME FILE: copy FILE to the results channel as a block.
emit_file() {
	echo "@@ BEGIN $1 $2" >&3
	if [ -r "$3" ]; then
		cat "$3" >&3
		_rc=0
	else
		_rc=1
	fi
	echo "@@ END $1 $2 rc=$_rc" >&3
}

# run_tap NAME TIMEOUT CMD...: run a TAP-printing program under a timeout,
# show its output on the console and send it as a "tap" block.
run_tap() {
	_name=$1
	_timeout=$2
	shift 2
	say "test $_name (timeout ${_timeout}s)"
	_t0=$(uptime_s)
	{
		timeout "$_timeout" "$@" 2>&1
		echo $? >/tmp/.run_tap_rc
	} | tee /tmp/.run_tap_out
	_rc=$(cat /tmp/.run_tap_rc)
	echo "@@ BEGIN tap $_name" >&3
	cat /tmp/.run_tap_out >&3
	echo "@@ END tap $_name rc=$_rc" >&3
	_took=$(($(uptime_s) - _t0))
	say "test $_name took ${_took}s"
	echo "@@ NOTE $_name took ${_took}s" >&3
	[ "$_rc" = 0 ] || say "test $_name exited with status $_rc"
	return 0
}

# Whole seconds since the guest booted.
uptime_s() { read -r _up _ </proc/uptime; echo "${_up%.*}"; }

# Module name as the kernel knows it: file name minus .ko, '-' as '_'.
modname() { basename "$1" .ko | tr - _; }

# test_programs: the executable /tests/*_test programs matching one of the
# space-separated globs of $TESTS, one path per line, in that order. (A
# plain "/tests/$TESTS" would take only the first of several globs.)
test_programs() {
	set -f
	for _p in $TESTS; do
		set +f
		for _t in /tests/$_p; do
			{ [ -f "$_t" ] && [ -x "$_t" ]; } || continue
			case $_t in *_test) echo "$_t" ;; esac
		done
		set -f
	done
	set +f
}
