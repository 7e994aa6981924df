#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# End-to-end micro benchmark (docs/PERFORMANCE.md "End-to-end micro
# benchmark"): 4 nodes + swswitch in network namespaces, node-agent's micro
# workload (paper 7.2: 8-byte ops, read ratio, sharing ratio, locality) in
# three coherence modes per point: concordia (shared blocks owned by the
# switch), base (home agents' LCF pipeline) and directory (classic
# home-based directory protocol, node-agent --coherence directory).
# Sweeps sharing ratio, read ratio and locality; writes e2e.csv and
# e2e-{sharing,read,locality}.png to --out.
#
#   sudo scripts/bench-e2e.sh [--quick] [--smoke] [--out DIR] [--duration SEC]
#                             [--reps N] [--threads T] [--shared-blocks K]
#                             [--private-blocks P] [--topo FILE]
#                             [--resume CSV]  (skip the points of a CSV)
#
#   shared set K = 256 blocks (64 per home: concordia moves them all to the
#   switch), P = 16 private blocks per thread, 2 threads per node
#
#   default   sharing 0/25/50/75/100 %, read 0/50/90 %, locality 0/50/90 %
#             (9 distinct points), 3 modes, 3 repetitions (median), 4 s
#             each, a fresh cluster per run: ~17 min
#   --quick   8 points x 3 modes, 1 repetition, 3 s each: ~4 min
#   --smoke   for CI (~90 s): the counter workload in each mode (3 s) with
#             the history checker, then one 2 s micro point per mode; checks
#             the CSV is well formed and every history correct, never speed
#
# Env: BUILD (default build), SWCL_ID (cluster id, scripts/cluster.sh),
# SWCL_LCORES (swswitch's lcore, default 0: pick a CPU that other busy-polling
# DPDK processes do not use). Needs root; tears its cluster down at exit.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
build=${BUILD:-build}
[[ $build = /* ]] || build=$repo/$build
quick=() duration=()
args=()
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=(--quick); shift ;;
	--duration) duration=(--duration "$2"); shift 2 ;;
	--smoke|--out|--threads|--shared-blocks|--private-blocks|--topo|--reps|--resume)
		if [ "$1" = --smoke ]; then args+=("$1"); shift
		else args+=("$1" "$2"); shift 2; fi ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench-e2e.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "bench-e2e.sh: must run as root (network namespaces)" >&2; exit 2; }
for x in "$build/swswitch/swswitch" "$build/node-agent/node-agent"; do
	[ -x "$x" ] || { echo "bench-e2e.sh: $x not built (BUILD=...)" >&2; exit 2; }
done
if [ ${#quick[@]} -gt 0 ] && [ ${#duration[@]} -eq 0 ]; then
	duration=(--duration 3)
fi
# The system Python has matplotlib (Debian python3-matplotlib).
py=/usr/bin/python3
[ -x $py ] || py=python3
exec $py "$here/bench_e2e.py" --build "$build" "${quick[@]}" "${duration[@]}" "${args[@]}"
