#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# version-test.sh [TWHEEL.KO...] - twheel's one version (kmod/VERSION) is
# the version of every built artefact: the Debian changelog (the packages),
# dkms.conf, libtwheel.pc (pkg-config), twheel_version() and the CLI
# (`twheel --version` of the statically linked tool) and, for each module
# given, `modinfo -F version`. Builds lib/ and cli/ as needed. Part of make
# check's static checks; the guests' cli_test checks the loaded module too.
# Prints one line per disagreement; exit 1 if any.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
want=$(cat "$ROOT/kmod/VERSION")
failed=0
check() {
	if [ "$2" != "$want" ]; then
		echo "version-test: $1 says '$2', kmod/VERSION '$want'"
		failed=1
	fi
}

[[ $want =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "version-test: kmod/VERSION '$want' is not X.Y.Z"; exit 1; }
check "packaging/debian/changelog" "$(sed -n '1s/^twheel (\([^)]*\)).*/\1/p' "$ROOT/packaging/debian/changelog")"
make -s -C "$ROOT" build/pkg/dkms.conf >/dev/null
check "dkms.conf" "$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$ROOT/build/pkg/dkms.conf")"
make -s -C "$ROOT/lib" >/dev/null
check "libtwheel.pc" "$(PKG_CONFIG_PATH=$ROOT/lib/out pkg-config --modversion libtwheel)"
make -s -C "$ROOT/cli" static >/dev/null
out=$("$ROOT/cli/out/twheel-static" --version)
check "twheel --version" "$(sed -n 's/^twheel //p' <<<"$out")"
check "twheel_version() (libtwheel.a)" "$(sed -n 's/^libtwheel //p' <<<"$out")"
for ko in "$@"; do
	check "modinfo $ko" "$(modinfo -F version "$ko")"
done
exit $failed
