#!/usr/bin/env bash
# Random na-sim configurations over the whole option space, each run's exit
# status, summary and history checked (docs/SIMULATION.md "Sweep").
#
#   scripts/sim-sweep.sh [--count N] [--seed S] [--profile harsh|ci]
#                        [--jobs J] [--events E] [--keep DIR]
#                        [--fault switch-restart|crash|restart|hold]
#                        [--run-timeout SEC]
#
#   --count N      runs (default 100)
#   --seed S       sweep seed: run i's options and na-sim seed come from
#                  (S, i), so a sweep is reproducible (default 1)
#   --profile P    harsh (default): nodes 2-16, threads 1-4, loss and dup up
#                  to 0.3, jitter up to 500 us; ci: nodes 2-6, threads 1-2,
#                  loss and dup up to 0.1, jitter up to 50 us. Both: every
#                  workload, retry/queued/directory, migration, PIPE, tiny
#                  caches, few blocks; never the TTL policy (stale by design)
#   --jobs J       runs in parallel (default 2)
#   --events E     scheduler events per run (default 20000)
#   --keep DIR     keep each failing run's directory (history, summary,
#                  stderr, command) under DIR (default: sim-sweep-failures)
#   --fault F      every run with fault F (docs/SIMULATION.md "Faults") at
#                  an event drawn in the run's middle; directory runs with
#                  crash and restart only
#   --run-timeout SEC  wall seconds a run may take before it is stopped
#                  and counted as failed (default 900)
#
# Prints each failing run's na-sim command; exit 1 if any run failed.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
case "$BUILD" in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
SIM=$BUILD/node-agent/na-sim
[ -x "$SIM" ] || { echo "sim-sweep: $SIM not built" >&2; exit 2; }
case " $* " in *" -h "*|*" --help "*) sed -n 2,27p "$0"; exit 0 ;; esac
KEEP=()
case " $* " in *" --keep "*) ;; *) KEEP=(--keep "$PWD/sim-sweep-failures") ;; esac
# shellcheck source=scripts/history_checker.sh
. "$ROOT/scripts/history_checker.sh"
exec python3 -S "$ROOT/scripts/sim_sweep.py" --sim "$SIM" \
	--checker "$(history_checker "$BUILD")" "${KEEP[@]}" "$@"
