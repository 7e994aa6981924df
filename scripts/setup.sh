#!/usr/bin/env bash
# Install the Debian 12 packages swswitch needs (only the missing ones) and
# build it into ./build. Safe to run again; the test and demo commands call it.
set -euo pipefail
cd "$(dirname "$0")/.."

PKGS=(meson ninja-build pkg-config gcc clang lld-14 spin tcc time
      clang-format-14 cppcheck shellcheck
      dpdk dpdk-dev libdpdk-dev libjansson-dev libpcap-dev libcriterion-dev
      libibverbs-dev ibverbs-providers libclang-rt-14-dev
      tshark python3 python3-scapy python3-matplotlib tcpreplay iproute2 ethtool
      procps psmisc iputils-ping)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
if ((${#missing[@]})); then
	echo "setup: installing ${missing[*]}" >&2
	SUDO=""
	[ "$(id -u)" -eq 0 ] || SUDO=sudo
	$SUDO apt-get update -qq
	# tshark asks whether non-root users may capture; answer for it.
	echo "wireshark-common wireshark-common/install-setuid boolean false" |
		$SUDO debconf-set-selections
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

BUILD=${BUILD:-build}
if [ ! -f "$BUILD/build.ninja" ]; then
	meson setup "$BUILD" >/dev/null
fi
ninja -C "$BUILD"
