#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Lock benchmark (docs/QUEUED-LOCKS.md "Benchmark"; GCS, paper 002): the
# switch's lock modes, retry (NACK and retry, the default) and queued (wait
# queues at a queue holder), selected by the topology key switch.lock_mode,
# on a namespace cluster through swswitch (topo/demo4.json with the mode
# set; 4 nodes x 2 threads, contended blocks migrated into the switch):
#
#   (a) handover  8 writers on one block: NACKs, grants/s, packets per
#                 handover, FIFO share of the grants, longest wait
#   (b) gcs       GCS's microbenchmark, one lock: read/write, data combined
#                 with the lock (region lock) or separate (lock block, then
#                 the data), locality on/off (dsm_evict_region after each
#                 release): throughput, latency p50/p99
#   (c) kv        dsm_kv --rwlock (per-bucket rwlocks), YCSB-C, get95, get50
#
#   sudo scripts/bench-locks.sh [--smoke] [--out DIR] [--modes retry,queued]
#                               [--workloads handover,gcs,kv] [--reps N]
#                               [--duration SEC] [--threads T] [--nodes K]
#                               [--watchdog SEC] [--plot CSV]
#
#   default   every workload in every mode, the median of 3 runs of 4 s
#             each, modes interleaved; DIR/locks.csv (one row per
#             workload, variant and mode; ratio_vs_retry against the retry
#             run of this invocation), DIR/gains.csv (GCS's combined-data
#             and locality gains), DIR/locks.png (~20 min for both modes)
#   --smoke   seconds per run, histories checked; correctness counters only
#             (never speed); ends with "N passed, M failed", exit 1 on a
#             failure
#   --watchdog SEC  a run with no completed operation for SEC seconds
#             (default 15) is stopped, its cluster taken down, its row
#             marked `aborted`, and the reason printed
#
# Env: BUILD (default build), SWCL_ID (cluster id, default r). Needs root;
# every run brings up its own cluster and takes it down.
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
	echo "bench-locks.sh: must run as root (network namespaces)" >&2
	exit 2
}
export SWCL_ID=${SWCL_ID:-r}
# /usr/bin/python3: the interpreter with python3-matplotlib
exec nice -n 15 /usr/bin/python3 "$here/bench_locks.py" --build "$build" "$@"
