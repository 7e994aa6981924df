#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# SABRes benchmark (docs/SABRES.md; paper 001 Figures 8 and 10): atomic
# remote object reads with dsm_read_object against the FaRM-style
# per-cache-line-version baseline (plain one-sided read, check, strip), at
# 128 B, 1 KB and 8 KB with 0..N writers on the objects' home, on a 2-node
# namespace cluster; and the local-read kernel (plain layout vs FaRM).
# Writes sabres.csv, sabres.png, local.csv, local.png into DIR and prints
# the comparison with the paper.
#
#   sudo scripts/bench-sabres.sh [--smoke] [--out DIR] [--writers 0,1,2]
#                                [--sizes 128,1024,8192] [--readers R]
#                                [--duration SEC]
#
#   default   3 sizes x 3 writer counts x 2 methods, 4 s each (~3 min)
#   --smoke   for CI (~30 s): 8 KB, 2 writers, both methods; checks torn
#             objects == 0 and one validation per SABRe attempt, never
#             speed; ends with "N passed, M failed"
#
# Env: BUILD (default build), SWCL_ID (cluster id, default s).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
build=${BUILD:-build}
[[ $build = /* ]] || build=$repo/$build
case ${1:-} in
-h | --help)
	sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'
	exit 0
	;;
esac
[ "$(id -u)" = 0 ] || {
	echo "bench-sabres.sh: must run as root (network namespaces)" >&2
	exit 2
}
export SWCL_ID=${SWCL_ID:-s}
for b in node-agent/apps/dsm_sabres node-agent/apps/sab_local \
	swswitch/swswitch; do
	[ -x "$build/$b" ] || {
		echo "bench-sabres.sh: $build/$b missing (ninja -C $build)" >&2
		exit 2
	}
done
exec /usr/bin/python3 "$here/bench_sabres.py" --build "$build" "$@"
