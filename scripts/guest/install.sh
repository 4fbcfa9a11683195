# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Guest payload of the "install" suite (scripts/check-install.sh).
#
# /install-root is an overlay prepared on the host: the DKMS-built module in
# /lib/modules/$TWHEEL_RELEASE/updates/dkms with modules.dep from depmod,
# Debian's kmod and udevadm/systemd-udevd with their libraries, the udev
# rule and modprobe.d file installed by twheel-dkms, the twheel CLI of twheel-tools and
# /usr/bin/pkgconfig_test (built against the installed libtwheel-dev).
# Steps: start systemd-udevd, `modprobe twheel` (kmod's, through
# modules.dep), check the module came from updates/dkms, check the udev rule
# sets the node's group and mode (and that an override in /etc/udev/rules.d
# wins), run the CLI, pkgconfig_test and the test programs of /tests, then
# `modprobe -r twheel`.
# shellcheck disable=SC2016 # the sh -c scripts expand in the inner shell
# shellcheck source=scripts/guest/lib.sh
. /lib/twheel-guest.sh

TESTS=${TWHEEL_TESTS:-*_test}
TEST_TIMEOUT=${TWHEEL_TEST_TIMEOUT:-120}
REL=${TWHEEL_RELEASE:?}

cp -a /install-root/. /
# Debian's modprobe is kmod under that name; it replaces busybox's.
ln -sf /usr/bin/kmod /sbin/modprobe
ln -sf /usr/bin/kmod /sbin/depmod
ln -sf /usr/bin/kmod /sbin/modinfo
export PATH=/usr/bin:/sbin:/bin:/usr/sbin

# shellcheck disable=SC2317 # called through step
# mode_is WANT: the node's "mode group" (e.g. "666 root") is WANT.
mode_is() {
	_got="$(stat -c '%a %G' /dev/twheel 2>&1)"
	echo "/dev/twheel: $_got (want $1)"
	[ "$_got" = "$1" ]
}

# retrigger: replay the node's "add" event and wait until udev has handled
# that very event. A bare `udevadm settle` after the trigger can return
# before udevd has read the new uevent from its netlink socket (seen once in
# CI: the override step saw the old rule's mode); `trigger --settle` waits
# for the events it sent, by their synthetic UUIDs.
# shellcheck disable=SC2317 # called through mode_becomes
retrigger() {
	udevadm trigger --settle --action=add --sysname-match=twheel
}

# shellcheck disable=SC2317 # called through step
# mode_becomes WANT: replay the node's event until its "mode group" is WANT,
# up to five times a second apart.  After `udevadm control --reload` udevd
# reads the changed rules when it next looks, which was once (in CI) after
# the first replayed event: that event still got the old rule's mode.
mode_becomes() {
	_try=1
	while :; do
		retrigger
		mode_is "$1" && return 0
		[ "$_try" -lt 5 ] || return 1
		_try=$((_try + 1))
		sleep 1
	done
}

step release sh -c "test \"\$(uname -r)\" = '$REL'"
mkdir -p /run/udev
step udevd /lib/systemd/systemd-udevd --daemon
# The packaged modprobe.d example, one line uncommented, as an admin would:
# modprobe must apply it. (max_pending 262144 also keeps limits_test's
# fill of one file below the default per-user limit of a 1 GiB guest.)
sed -i 's/^#options twheel max_pending=.*/options twheel max_pending=262144/' \
	/etc/modprobe.d/twheel.conf
step modprobe-twheel modprobe twheel
step modprobe-d-applied sh -c 'test "$(cat /sys/module/twheel/parameters/max_pending)" = 262144'
step module-from-dkms sh -c "modinfo -n twheel | grep -q '^/lib/modules/$REL/updates/dkms/twheel.ko'" &&
	modinfo -n twheel
step udev-settle udevadm settle --timeout=30
step dev-node test -c /dev/twheel
# The packaged rule applies: a node whose mode was changed gets the
# rule's group and mode back when udev handles its event.
chmod 0600 /dev/twheel
step udev-rule-applies mode_becomes "666 root"
# An administrator's copy in /etc/udev/rules.d, with GROUP and MODE
# changed on its one line, takes precedence.
sed -e 's/GROUP="[^"]*"/GROUP="twheel"/' -e 's/MODE="[^"]*"/MODE="0660"/' \
	/lib/udev/rules.d/60-twheel.rules >/etc/udev/rules.d/60-twheel.rules
udevadm control --reload
step udev-rule-override mode_becomes "660 twheel"
rm -f /etc/udev/rules.d/60-twheel.rules
udevadm control --reload
step udev-rule-restored mode_becomes "666 root"

grep -H . /sys/module/twheel/parameters/* 2>/dev/null
step cli-info twheel info
step cli-sleep twheel sleep 20ms
step cli-arm sh -c 'test "$(twheel arm --period 10ms --count 3 10ms | wc -l)" = 3'
# arm -v adds "# " lines: the timeout after the arm (GET), and at the end the
# live periodic timeout listed and cancelled (DRAIN) and the counters (STATS).
step cli-arm-verbose sh -c 'out=$(twheel arm -v --period 10ms --count 3 10ms) &&
	printf "%s\n" "$out" &&
	test "$(printf "%s\n" "$out" | grep -vc "^#")" = 3 &&
	printf "%s\n" "$out" | grep -q "^# get .* state armed .* period 10000000 " &&
	printf "%s\n" "$out" | grep -q "^# drained .* period 10000000\$" &&
	printf "%s\n" "$out" | grep -q "^# stats pending 0 queued 0 armed 1 fired [0-9]* cancelled 1 "'
step cli-stat twheel stat
# --watch prints a table every second until killed: 2 or more in 4 s.
step cli-stat-watch sh -c 'test "$(timeout 4 twheel stat --watch 1 | grep -c "^all ")" -ge 2'
# twheel ps sees a process holding /dev/twheel.
twheel sleep 5s &
_sleeper=$!
sleep 1
step cli-ps sh -c "twheel ps | tee /dev/stderr | grep -q '^ *$_sleeper '"
kill "$_sleeper" 2>/dev/null
wait "$_sleeper" 2>/dev/null

run_tap pkgconfig_test "$TEST_TIMEOUT" /usr/bin/pkgconfig_test
for _t in $(test_programs); do
	run_tap "$(basename "$_t")" "$TEST_TIMEOUT" "$_t"
done

step modprobe-r-twheel modprobe -r twheel &&
	step unloaded sh -c "! test -e /sys/module/twheel"
udevadm control --exit 2>/dev/null
dmesg >/tmp/dmesg.txt
emit_file text dmesg /tmp/dmesg.txt
exit 0
