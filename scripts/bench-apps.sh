#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Application benchmark (docs/APPS.md, paper sections 7.3-7.5): the
# key-value store (YCSB, Zipf 0.99), TPC-C and PageRank of node-agent/apps
# on a namespace cluster, in three coherence modes each: switch (LCF with
# migration: hot blocks live in the switch), home (LCF, blocks at their
# homes: Concordia-base) and directory (the server directory). Writes
# apps.csv and apps-{kv,tpcc,pagerank}.png (Figures 14-16 in shape) to DIR.
#
#   scripts/bench-apps.sh --sim [--profile local|paper] [--smoke] [--out DIR]
#                          (na-sim with its cost model: bench_apps_sim.py)
#   sudo scripts/bench-apps.sh --validate-local [--out DIR] [--reps N] ...
#                          (`local` against the cluster, the figures measured
#                          in the same invocation: bench_validate_local.py)
#   sudo scripts/bench-apps.sh [--smoke] [--out DIR] [--apps kv,tpcc,pagerank]
#                              [--nodes 2,3,4] [--threads T] [--duration SEC]
#                              [--reps N] [--seed S] [--plot CSV]
#                              [--points V,..] [--trace N] [--sw-args=ARGS]
#                              [--warmup SEC] [--no-pin]
#
#   default   kv: get95 and get50 on 2, 3 and 4 nodes; tpcc: distribution
#             ratio 0/10/30/50 % on 4 nodes; pagerank: scale 13 on 2, 3
#             and 4 nodes; 3 modes each, 5 s, the median of 3 runs per
#             point (--reps N), modes interleaved: ~30 min
#   --points  only the points of these values (e.g. get95,0.0,13)
#   --trace N sampled latency traces (1 in N events) in every run
#             directory, for scripts/latency_breakdown.py
#   --warmup  kv and tpcc: run the workload SEC first, uncounted (the
#             caches fill and hot blocks migrate before the measured phase)
#   --sw-args extra swswitch options for every run (--sw-args=--batch-tx)
#   --no-pin  let swswitch's lcore share the nodes' CPUs; by default it has
#             the last CPU, the nodes the others, and the runs' scheduling
#             group nice -10 (scripts/cluster_run.py dedicate)
#   --smoke   for CI (~2-3 min): every app in every mode on 2 nodes for a
#             few seconds; checks each app's correctness (the kv histories
#             with the checker, TPC-C's consistency conditions, PageRank's
#             ranks against the single-process reference) and the CSV's
#             shape, never speed
#
# Env: BUILD (default build), SWCL_ID (cluster id, scripts/cluster.sh).
# Needs root; every run brings up its own cluster and takes it down.
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
# The simulated cluster (na-sim, no root): scripts/bench_apps_sim.py.
for arg in "$@"; do
	if [ "$arg" = --sim ]; then
		py=/usr/bin/python3
		[ -x $py ] || py=python3
		exec $py "$here/bench_apps_sim.py" --build "$build" "$@"
	fi
done
[ "$(id -u)" = 0 ] || {
	echo "bench-apps.sh: must run as root (network namespaces)" >&2
	exit 2
}
# The system Python has matplotlib (Debian python3-matplotlib).
py=/usr/bin/python3
[ -x $py ] || py=python3
for arg in "$@"; do
	[ "$arg" = --validate-local ] &&
		exec $py "$here/bench_validate_local.py" --build "$build" "$@"
done
exec $py "$here/bench_apps.py" --build "$build" "$@"
