#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Validate-on-hit benchmark (docs/VALIDATE.md, paper 003 section 4.2).
#
#   scripts/bench-voh.sh [--smoke] [--out DIR] [--levels 0,8,25,50,100]
#                        [--ops N]
#
#   default   stale reads under validate, validate-rpc and TTL (na-sim, an
#             updater every virtual second, histories checked; stale.csv),
#             then validation latency p50/p99/mean and throughput with the
#             home loaded by 0-100 busy threads on its one CPU, one-sided
#             vs RPC, on a 2-node namespace cluster (latency.csv,
#             latency.png; root; ~5 min)
#   --stale-only  only the na-sim runs of every policy (validate must read
#             0 stale, TTL must read stale; no root): the CI test
#   --plot CSV    redraw DIR/latency.png from a latency.csv
#   --smoke   for CI (seconds, no root): validate-on-hit only, three seeds
#             (one with 5% loss, migration and switch-owned blocks); passes
#             when every history has 0 stale reads. Never speed.
#
# Env: BUILD (default build), SWCL_ID (cluster id, default v).
# Ends with "N passed, M failed"; exit 1 on a failure.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
build=${BUILD:-build}
[[ $build = /* ]] || build=$repo/$build
export SWCL_ID=${SWCL_ID:-v}
# /usr/bin/python3: the interpreter with python3-matplotlib
exec /usr/bin/python3 "$here/bench_voh.py" --build "$build" "$@"
