#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Multi-lcore swswitch: per-block serialisation with 2 workers (every frame
# of a block processed by the owner shard's pipeline, in arrival order), the
# shard function pinned against swswitch/test_shard.c's golden values, and
# the same traffic steered by tag over 2 rx queues per port (no frame may
# cross a ring) and with 1 worker as a reference. Details in
# scripts/test_multicore.py. Uses net_pcap and --no-huge; needs 2 lcores
# (any 2-core machine). Bounded: exits non-zero after 60 s.
#
#   scripts/test-multicore.sh [SWSWITCH]     (default $BUILD/swswitch/swswitch)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
SW=${1:-${SWSWITCH:-$root/${BUILD:-build}/swswitch/swswitch}}
if [ ! -x "$SW" ]; then
	echo "test-multicore.sh: no swswitch at $SW (give it as \$1)" >&2
	exit 2
fi
if [ "$(nproc)" -lt 2 ]; then
	echo "test-multicore.sh: needs 2 CPUs, this machine has $(nproc)" >&2
	exit 2
fi
dir=$(mktemp -d /tmp/swswitch-multicore.XXXXXX)
trap 'rm -rf "$dir"' EXIT INT TERM
timeout -k 5 60 python3 "$root/scripts/test_multicore.py" --swswitch "$SW" --dir "$dir"
rc=$?
[ $rc -eq 124 ] && echo "test-multicore: FAILED (timed out after 60 s)"
exit $rc
