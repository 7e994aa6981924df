#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The demo (README's main command, after the build): the paper's key-value
# store (section 7.3, Figure 14; node-agent/apps/kv) on 4 DSM nodes + swswitch
# on this machine, YCSB-B (95% GET) with Zipf(0.99) key popularity and
# ownership migration on (--mode switch: hot blocks move into the switch),
# ~10 s. While it runs, one line per second: ops/s of every node and in
# total, the switch's pipeline actions per second and blocks it holds. Then
# the summary: throughput per node and in total, the share of coherence
# events the switch serialised (vs. at the homes), blocks in the switch,
# NACKs, packets per operation, and a PNG of throughput over time. Every GET
# checks its value (no torn value, no lost key) and the histories go
# through node-agent/checker/check_history.py: the demo exits non-zero when
# a check fails. Everything is torn down at the end, whatever happens.
#
#   sudo scripts/demo.sh [options]
#     --duration SEC       measured phase (default 10)
#     --threads T          application threads per node (default 2)
#     --workload W         ycsb-a, ycsb-b, ycsb-c, get95, get50 (default ycsb-b)
#     --dist D             zipf, scrambled-zipf, uniform (default zipf)
#     --zipf-theta T       default 0.99
#     --keys N             key space (default 1000000; loading takes
#                          seconds, before the measured phase)
#     --mode M             switch (default), home or directory
#     --topo FILE          topology (default topo/demo4.json)
#     --build-dir DIR      where swswitch/ and node-agent/ were built
#                          (default: $BUILD, else ./build; built by scripts/setup.sh)
#     --pmd af_packet|af_xdp   swswitch's ports (default af_packet)
#     --seed S             workload seed (default 1)
#     --out DIR            the run's output directory (default
#                          /tmp/swswitch-demo$SWCL_ID-DATE-TIME): logs,
#                          statistics, kv.csv, timeline.csv, throughput.png
#     --json FILE          also write the summary as JSON
#     --no-history         skip recording and checking the histories
#     --kv-args "ARGS"     extra dsm_kv arguments
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
cluster=$here/cluster.sh
RUN_DIR=${SWCL_RUN_DIR:-/tmp/swswitch-cluster${SWCL_ID:-}}
export SWCL_RUN_DIR=$RUN_DIR

duration=10 threads=2 workload=ycsb-b dist=zipf theta=0.99 keys=1000000
mode=switch topo=$repo/topo/demo4.json build_dir="" pmd=af_packet seed=1
out="" json_out="" history=1 kv_args=""

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; }
die() { printf 'demo: error: %s\n' "$*" >&2; exit 2; }

while [ $# -gt 0 ]; do
	case $1 in
	--duration) duration=$2; shift 2 ;;
	--threads) threads=$2; shift 2 ;;
	--workload) workload=$2; shift 2 ;;
	--dist) dist=$2; shift 2 ;;
	--zipf-theta) theta=$2; shift 2 ;;
	--keys) keys=$2; shift 2 ;;
	--mode) mode=$2; shift 2 ;;
	--topo) topo=$2; shift 2 ;;
	--build-dir) build_dir=$2; shift 2 ;;
	--pmd) pmd=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--json) json_out=$2; shift 2 ;;
	--no-history) history=0; shift ;;
	--kv-args) kv_args=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) die "unknown option $1 (--help)" ;;
	esac
done
[ "$(id -u)" = 0 ] || die "must run as root (network namespaces): sudo $0"
[[ $duration =~ ^[0-9]+([.][0-9]+)?$ ]] || die "--duration: seconds"

if [ -z "$build_dir" ]; then
	# The README's main command: install what is missing and build first.
	bash "$repo/scripts/setup.sh" >&2 || die "setup failed"
	build_dir=${BUILD:-build}
	[[ $build_dir = /* ]] || build_dir=$repo/$build_dir
fi
swswitch=$build_dir/swswitch/swswitch
kv=$build_dir/node-agent/apps/kv/dsm_kv
[ -x "$swswitch" ] || die "not built: $swswitch"
[ -x "$kv" ] || die "not built: $kv"
topo=$(readlink -f "$topo")
nodes=$(python3 -c 'import json,sys; print(" ".join(str(n["id"]) for n in json.load(open(sys.argv[1]))["nodes"]))' "$topo") ||
	die "cannot read $topo"
nnodes=$(echo "$nodes" | wc -w)
# dsm_kv checks its own options: a bad one fails here, before any set-up.
# shellcheck disable=SC2086
"$kv" --topo "$topo" --node 0 --nodes "$nnodes" --workload "$workload" \
	--dist "$dist" --zipf-theta "$theta" --keys "$keys" --mode "$mode" \
	--threads "$threads" --duration "$duration" $kv_args --help >/dev/null ||
	die "bad dsm_kv options"
out=${out:-/tmp/swswitch-demo${SWCL_ID:-}-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
out=$(readlink -f "$out")

live_pid=""
# shellcheck disable=SC2317  # invoked by trap
cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	[ -n "$live_pid" ] && kill "$live_pid" 2>/dev/null
	"$cluster" down >/dev/null 2>&1 || "$cluster" down || true
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "== swswitch demo: the key-value store (paper section 7.3) on $nnodes nodes, ${duration}s"
echo "   $workload, $dist $theta, $keys keys (8-byte keys, 128-byte values), $threads threads/node, mode $mode"
echo "   output: $out"
"$cluster" up "$topo" --swswitch "$swswitch" --pmd "$pmd" --force 2>"$out/cluster.log" ||
	{ tail -20 "$out/cluster.log" >&2; die "cluster up failed"; }

declare -A pids
for n in $nodes; do
	args=(--topo "$topo" --node "$n" --nodes "$nnodes" --threads "$threads"
		--duration "$duration" --mode "$mode" --workload "$workload"
		--dist "$dist" --zipf-theta "$theta" --keys "$keys" --seed "$seed"
		--progress --csv "$out/kv.csv" --stats "$out/stats-$n.json"
		--stats-start "$out/start-$n.json")
	[ $history = 1 ] && args+=(--history "$out/history")
	# shellcheck disable=SC2206
	[ -n "$kv_args" ] && args+=($kv_args)
	"$cluster" exec "$n" "$kv" "${args[@]}" >"$out/node-$n.out" 2>"$out/node-$n.log" &
	pids[$n]=$!
done
live_args=()
for n in $nodes; do live_args+=(--node "$n=${pids[$n]}"); done
python3 "$here/demo_kv.py" live --prefix "swcl${SWCL_ID:-}" --out "$out" "${live_args[@]}" &
live_pid=$!

# Bounded wait: load, duration, and start-up/shutdown slack.
limit=$((${duration%.*} + 180))
fail=0 violated=0
for n in $nodes; do
	waited=0
	while kill -0 "${pids[$n]}" 2>/dev/null && [ $waited -lt $((limit * 10)) ]; do
		sleep 0.1
		waited=$((waited + 1))
	done
	if kill -0 "${pids[$n]}" 2>/dev/null; then
		echo "demo: node $n still running after ${limit}s: stopping it" >&2
		kill -INT "${pids[$n]}" 2>/dev/null || true
		sleep 2
		kill -KILL "${pids[$n]}" 2>/dev/null || true
	fi
	rc=0
	wait "${pids[$n]}" || rc=$?
	if [ $rc != 0 ]; then
		echo "demo: node $n exited with status $rc; its log:" >&2
		grep -v '^node [0-9]*: .* ops/s' "$out/node-$n.log" | tail -15 >&2 || true
		grep -q 'correctness VIOLATED' "$out/node-$n.out" && violated=1
		fail=1
	fi
done
wait "$live_pid" 2>/dev/null || true
live_pid=""

# Stop swswitch with SIGINT so that it prints its exit statistics.
swpid=$(cat "$RUN_DIR/swswitch.pid" 2>/dev/null || true)
if [ -n "$swpid" ] && kill -0 "$swpid" 2>/dev/null; then
	kill -INT "$swpid"
	for _ in $(seq 1 50); do kill -0 "$swpid" 2>/dev/null || break; sleep 0.1; done
fi
swjson=$RUN_DIR/swswitch.out
[ -s "$swjson" ] || swjson=$RUN_DIR/swswitch-stats.json
cp "$swjson" "$out/swswitch.json" 2>/dev/null || true
cp "$RUN_DIR/swswitch.log" "$out/" 2>/dev/null || true

# The plot needs matplotlib (python3-matplotlib, scripts/setup.sh): the
# system's python3 has it where another python3 comes first in PATH.
py=python3
if ! python3 -c 'import matplotlib' 2>/dev/null && [ -x /usr/bin/python3 ]; then
	py=/usr/bin/python3
fi
"$py" "$here/demo_kv.py" report --out "$out" --switch "$out/swswitch.json" \
	--mode "$mode" ${json_out:+--json "$json_out"} || fail=1

if [ $history = 1 ]; then
	if python3 "$repo/node-agent/checker/check_history.py" --expect-nodes "$nnodes" \
		"$out/history" >"$out/check.log" 2>&1; then
		echo "== histories: $(tail -1 "$out/check.log" | sed 's/^check_history: //')"
	else
		echo "== histories: $(tail -1 "$out/check.log" | sed 's/^check_history: //')"
		grep -m5 VIOLATION "$out/check.log" || true
		violated=1
	fi
fi
if [ $violated = 1 ]; then
	echo "demo: FAILED: the key-value store's correctness check failed (torn value, lost key or a non-linearizable GET; $out/node-N.out, $out/check.log)" >&2
	exit 1
fi
[ $fail = 0 ] || { echo "demo: FAILED (logs in $out)" >&2; exit 1; }
echo "demo: OK (logs, statistics and plot in $out)"
