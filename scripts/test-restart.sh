#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Switch restart test (docs/FAULTS.md, paper section 5.4): 4 nodes run the
# counter workload with their hot blocks switch-owned (--switch-blocks);
# mid-run swswitch is SIGKILLed and started again, empty, on the same ports
# (cluster.sh restart-switch). The node agents must detect it, rebuild the
# metadata at the homes and go on: every node exits 0, the history checker
# passes on the whole run (counters exact), the homes report recovered
# blocks, and operations on the formerly switch-owned blocks complete after
# the restart. Prints the recovery times; --png draws the throughput
# timeline. Bounded: about 70 s (duration 22 s + start-up + checks; the
# restarted swswitch forwards 3-5 s after its start on a quiet machine but
# once took 14 s under CI's load, and every home must touch its
# switch-owned block after that); each
# thread does at most --max-rate operations/s (default 20000), since a node
# that keeps a hot block in its cache otherwise writes millions of local
# hits a second and the history check takes minutes.
#
#   sudo scripts/test-restart.sh [--duration SEC] [--kill-at SEC] [--down SEC]
#                                [--threads T] [--switch-blocks N]
#                                [--max-rate R] [--png FILE] [--keep DIR]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)

duration=22 kill_at=4 down=1 threads=2 shared_blocks=4 switch_blocks=1 max_rate=20000
png="" keep=""
topo=$repo/topo/demo4.json
while [ $# -gt 0 ]; do
	case $1 in
	--duration) duration=$2; shift 2 ;;
	--kill-at) kill_at=$2; shift 2 ;;
	--down) down=$2; shift 2 ;;
	--threads) threads=$2; shift 2 ;;
	--switch-blocks) switch_blocks=$2; shift 2 ;;
	--max-rate) max_rate=$2; shift 2 ;;
	--png) png=$(readlink -f "$2"); shift 2 ;;
	--keep) keep=$2; shift 2 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "test-restart: unknown option $1" >&2; exit 2 ;;
	esac
done
# shellcheck source=scripts/cluster_test_lib.sh
. "$here/cluster_test_lib.sh"
cluster_test_setup restart
nodes=$(topo_node_ids "$topo")
n_nodes=$(echo "$nodes" | wc -w)
mono() { python3 -c 'import time; print(time.monotonic_ns())'; }

if ! "$cluster" up "$topo" --swswitch "$swswitch" --force >"$work/cluster-up.log" 2>&1; then
	fail "cluster up"; tail -20 "$work/cluster-up.log"; exit 1
fi
declare -A pids
for n in $nodes; do
	"$cluster" exec "$n" "$nagent" --topo "$topo" --node "$n" --workload counter \
		--threads "$threads" --duration "$duration" --shared-blocks "$shared_blocks" \
		--switch-blocks "$switch_blocks" --seed "$((n + 1))" --max-rate "$max_rate" \
		--history "$work/h$n.jsonl" --stats "$work/na-$n.json" \
		>"$work/na-$n.out" 2>"$work/na-$n.log" &
	pids[$n]=$!
done

sleep "$kill_at"
kill_ns=$(mono)
"$cluster" restart-switch --kill-only >"$work/restart.log" 2>&1 || fail "SIGKILL swswitch"
sleep "$down"
restart_ns=$(mono)
if "$cluster" restart-switch --start-only >>"$work/restart.log" 2>&1; then
	ready_ns=$(mono)
	pass "swswitch killed and restarted empty ($(( (ready_ns - restart_ns) / 1000000 )) ms until it forwards)"
else
	ready_ns=$(mono)
	fail "swswitch restart"; tail -5 "$work/restart.log"
fi

echo "kill_ns=$kill_ns restart_ns=$restart_ns ready_ns=$ready_ns" >"$work/instants.txt"
np=()
for n in $nodes; do np+=("$n=${pids[$n]}"); done
wait_nodes "" "$((duration + 30))" "$work" "${np[@]}" || true
cp "$RUN_DIR/swswitch.log" "$work/" 2>/dev/null || true
"$cluster" down >/dev/null 2>&1 || true

if "$checker" --expect-nodes "$n_nodes" --min-ops 100 "$work"/h*.jsonl >"$work/check.log" 2>&1; then
	pass "history check over the whole run: $(tail -1 "$work/check.log")"
else
	fail "history check:"; head -20 "$work/check.log"; tail -1 "$work/check.log"
fi

# What the agents did: every home had switch-owned blocks and got them back.
python3 - "$work" "$nodes" >"$work/recovery.log" 2>&1 <<'PY' || fail "recovery counters: $(tail -3 "$work/recovery.log")"
import json, sys
work, nodes = sys.argv[1], sys.argv[2].split()
tot = {}
bad = []
for n in nodes:
    s = json.load(open("%s/na-%s.json" % (work, n)))
    r = s["recovery"]
    for k, v in r.items():
        tot[k] = tot.get(k, 0) + v
    if s.get("switch_blocks", 0) and not r["blocks_recovered"]:
        bad.append("node %s: %d switch blocks, none recovered" % (n, s["switch_blocks"]))
    print("node %s: switch_blocks %s recovery %s" % (n, s.get("switch_blocks"), json.dumps(r)))
print("total: " + json.dumps(tot))
if not tot.get("detections"):
    bad.append("no home detected the restart")
if tot.get("inconsistent"):
    bad.append("inconsistent reports: %d" % tot["inconsistent"])
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
grep -q '^total' "$work/recovery.log" && pass "recovery: $(grep '^total' "$work/recovery.log" | cut -c1-200)"
sed 's/^/      /' "$work/recovery.log"

# The formerly switch-owned blocks: shared block i (at nodes[i % N], offset
# (i / N) * block) is switch-owned when i / N < --switch-blocks.
addrs=$(python3 -c '
import json, sys
t = json.load(open(sys.argv[1])); ids = [n["id"] for n in t["nodes"]]
bs = t["block_size"]; k = int(sys.argv[2]); s = int(sys.argv[3])
print(",".join(hex(ids[i % len(ids)] << 48 | (i // len(ids)) * bs)
      for i in range(k) if i // len(ids) < s))' "$topo" "$shared_blocks" "$switch_blocks")
png_args=() py=python3
if [ -n "$png" ]; then
	png_args=(--png "$png")
	# matplotlib may be in the distribution's python only (setup.sh)
	python3 -c 'import matplotlib' 2>/dev/null || py=/usr/bin/python3
fi
if "$py" "$here/restart_timeline.py" "$work"/h*.jsonl --kill-ns "$kill_ns" \
	--restart-ns "$restart_ns" --ready-ns "$ready_ns" --switch-addrs "$addrs" \
	--json "$work/timeline.json" "${png_args[@]}" >"$work/timeline.log" 2>&1; then
	pass "operations on the formerly switch-owned blocks after the restart"
else
	fail "timeline: $(tail -3 "$work/timeline.log")"
fi
sed 's/^/      /' "$work/timeline.log"

echo "---- $(($(date +%s) - start_ts))s, $failures failure(s)"
[ $failures = 0 ]
