#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The demo (README's main command, after the build): 4 nodes + swswitch on
# this machine, the paper's micro benchmark (section 7.2: read ratio, data
# locality, sharing ratio, 8-byte operations) on every node for ~10 s, then
# ops/s per node and in total, swswitch's statistics and packets per
# operation. Everything is torn down at the end, whatever happens.
#
#   sudo scripts/demo.sh [options]
#     --duration SEC       benchmark length (default 10)
#     --threads T          requester threads per node (default 2)
#     --read-ratio R       fraction of reads, 0..1 (default 0.5)
#     --sharing-ratio S    fraction of accesses to shared blocks (default 0.5)
#     --locality L         data locality, 0..1 (default 0.5)
#     --shared-blocks K    size of the shared set, in blocks (node-agent default)
#     --switch-blocks N    blocks the switch owns (node-agent default)
#     --topo FILE          topology (default topo/demo4.json)
#     --build-dir DIR      where swswitch/ and node-agent/ were built
#                          (default: $BUILD, else ./build; built by scripts/setup.sh)
#     --pmd af_packet|af_xdp   swswitch's ports (default af_packet)
#     --transport udp|verbs    node-agent transport (default udp)
#     --seed S             workload seed (default 1)
#     --json FILE          also write the summary as JSON
#     --keep-logs          print where the logs are (they stay in the run dir)
#     --na-args "ARGS"     extra node-agent arguments
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
cluster=$here/cluster.sh
RUN_DIR=${SWCL_RUN_DIR:-/tmp/swswitch-cluster${SWCL_ID:-}}
export SWCL_RUN_DIR=$RUN_DIR

duration=10 threads=2 read_ratio=0.5 sharing=0.5 locality=0.5
shared_blocks="" switch_blocks="" topo=$repo/topo/demo4.json build_dir=""
pmd=af_packet transport=udp seed=1 json_out="" keep=0 na_args=""

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; }
die() { printf 'demo: error: %s\n' "$*" >&2; exit 1; }

while [ $# -gt 0 ]; do
	case $1 in
	--duration) duration=$2; shift 2 ;;
	--threads) threads=$2; shift 2 ;;
	--read-ratio) read_ratio=$2; shift 2 ;;
	--sharing-ratio) sharing=$2; shift 2 ;;
	--locality) locality=$2; shift 2 ;;
	--shared-blocks) shared_blocks=$2; shift 2 ;;
	--switch-blocks) switch_blocks=$2; shift 2 ;;
	--topo) topo=$2; shift 2 ;;
	--build-dir) build_dir=$2; shift 2 ;;
	--pmd) pmd=$2; shift 2 ;;
	--transport) transport=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	--json) json_out=$2; shift 2 ;;
	--keep-logs) keep=1; shift ;;
	--na-args) na_args=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) die "unknown option $1 (--help)" ;;
	esac
done
[ "$(id -u)" = 0 ] || die "must run as root (network namespaces): sudo $0"

if [ -z "$build_dir" ]; then
	# The README's main command: install what is missing and build first.
	bash "$repo/scripts/setup.sh" >&2 || die "setup failed"
	build_dir=${BUILD:-build}
	[[ $build_dir = /* ]] || build_dir=$repo/$build_dir
fi
swswitch=$build_dir/swswitch/swswitch
nagent=$build_dir/node-agent/node-agent
[ -x "$swswitch" ] || die "not built: $swswitch"
[ -x "$nagent" ] || die "not built: $nagent"
topo=$(readlink -f "$topo")

nodes=$(python3 -c 'import json,sys; print(" ".join(str(n["id"]) for n in json.load(open(sys.argv[1]))["nodes"]))' "$topo") ||
	die "cannot read $topo"

# shellcheck disable=SC2317  # invoked by trap
cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	"$cluster" down >/dev/null 2>&1 || "$cluster" down || true
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "== swswitch demo: $(echo "$nodes" | wc -w) nodes, micro benchmark, ${duration}s"
echo "   read ratio $read_ratio, sharing ratio $sharing, locality $locality, $threads threads/node, 8-byte ops, transport $transport"
"$cluster" up "$topo" --swswitch "$swswitch" --pmd "$pmd" --force

rm -f "$RUN_DIR"/na-*.json "$RUN_DIR"/na-*.out "$RUN_DIR"/na-*.log
declare -A pids
for n in $nodes; do
	args=(--topo "$topo" --node "$n" --transport "$transport" --threads "$threads"
		--duration "$duration" --workload micro --read-ratio "$read_ratio"
		--sharing-ratio "$sharing" --locality "$locality" --seed "$((seed + n))"
		--stats "$RUN_DIR/na-$n.json")
	[ -n "$shared_blocks" ] && args+=(--shared-blocks "$shared_blocks")
	[ -n "$switch_blocks" ] && args+=(--switch-blocks "$switch_blocks")
	# shellcheck disable=SC2206
	[ -n "$na_args" ] && args+=($na_args)
	"$cluster" exec "$n" "$nagent" "${args[@]}" >"$RUN_DIR/na-$n.out" 2>"$RUN_DIR/na-$n.log" &
	pids[$n]=$!
done
echo "   running ..."

# Bounded wait: duration + start-up/shutdown slack.
limit=$((${duration%.*} + 60))
fail=0
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
		tail -15 "$RUN_DIR/na-$n.log" >&2 || true
		fail=1
	fi
done

# Stop swswitch with SIGINT so that it prints its exit statistics.
swpid=$(cat "$RUN_DIR/swswitch.pid" 2>/dev/null || true)
if [ -n "$swpid" ] && kill -0 "$swpid" 2>/dev/null; then
	kill -INT "$swpid"
	for _ in $(seq 1 50); do kill -0 "$swpid" 2>/dev/null || break; sleep 0.1; done
fi
swjson=$RUN_DIR/swswitch.out
[ -s "$swjson" ] || swjson=$RUN_DIR/swswitch-stats.json

python3 "$here/cluster_report.py" --title "micro benchmark" \
	--duration "$duration" --switch "$swjson" ${json_out:+--json "$json_out"} \
	"$RUN_DIR"/na-*.json || fail=1

if [ $keep = 1 ]; then
	echo "logs: $RUN_DIR (swswitch.log, na-N.log, na-N.json)"
fi
exit $fail
