#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Memory-node failure test (docs/FAULTS.md, paper section 5.4): nodes 0-2
# run the counter workload on 3 home-owned shared blocks (homed at nodes
# 0-2); node 3 reads the same blocks (micro workload, read ratio 1), so it
# holds Shared copies and read locks, and its own memory is used by nobody.
# Mid-run node 3 is SIGKILLed and declared dead (--dead-file); the survivors'
# homes drain it (abort events on its blocks, rebuild the metadata without
# it, drop its locks) and must finish: exit 0, history check on nodes 0-2
# passes (counters exact), every survivor applied the declaration (drained
# blocks are printed). --no-drain skips the
# declaration (the negative control: the survivors then wait for the dead
# node's ACKs and the test fails). Bounded: about 30 s.
#
#   sudo scripts/test-drain.sh [--duration SEC] [--kill-at SEC] [--no-drain]
#                              [--keep DIR]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
cluster=$here/cluster.sh
checker=$repo/node-agent/checker/check_history.py
export SWCL_ID=${SWCL_ID:-}
RUN_DIR=${SWCL_RUN_DIR:-/tmp/swswitch-cluster$SWCL_ID}
export SWCL_RUN_DIR=$RUN_DIR

duration=8 kill_at=3 drain=1 keep="" threads=2 dead=3
topo=$repo/topo/demo4.json
while [ $# -gt 0 ]; do
	case $1 in
	--duration) duration=$2; shift 2 ;;
	--kill-at) kill_at=$2; shift 2 ;;
	--no-drain) drain=0; shift ;;
	--keep) keep=$2; shift 2 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "test-drain: unknown option $1" >&2; exit 2 ;;
	esac
done
# shellcheck source=scripts/cluster_test_lib.sh
. "$here/cluster_test_lib.sh"
cluster_test_setup drain
survivors="0 1 2"

if ! "$cluster" up "$topo" --swswitch "$swswitch" --force >"$work/cluster-up.log" 2>&1; then
	fail "cluster up"; tail -20 "$work/cluster-up.log"; exit 1
fi
: >"$work/dead"
declare -A pids
common=(--topo "$topo" --threads "$threads" --shared-blocks 3 --switch-blocks 0
	--dead-file "$work/dead")
for n in $survivors; do
	"$cluster" exec "$n" "$nagent" "${common[@]}" --node "$n" --workload counter \
		--duration "$duration" --seed "$((n + 1))" \
		--history "$work/h$n.jsonl" --stats "$work/na-$n.json" \
		>"$work/na-$n.out" 2>"$work/na-$n.log" &
	pids[$n]=$!
done
"$cluster" exec "$dead" "$nagent" "${common[@]}" --node "$dead" --workload micro \
	--read-ratio 1 --sharing-ratio 1 --locality 0 --duration "$duration" \
	>"$work/na-$dead.out" 2>"$work/na-$dead.log" &
dead_pid=$!

sleep "$kill_at"
kill -KILL "$dead_pid" 2>/dev/null && pass "node $dead SIGKILLed mid-run (pid $dead_pid)" ||
	fail "node $dead was not running at ${kill_at}s"
wait "$dead_pid" 2>/dev/null || true
if [ $drain = 1 ]; then
	echo "$dead" >"$work/dead"
	echo "node $dead declared dead"
fi

np=()
for n in $survivors; do np+=("$n=${pids[$n]}"); done
wait_nodes "" "$((duration + 20))" "$work" "${np[@]}" &&
	pass "nodes $survivors finished, exit 0"
"$cluster" down >/dev/null 2>&1 || true

if python3 "$checker" --expect-nodes 3 --min-ops 100 "$work"/h[012].jsonl >"$work/check.log" 2>&1; then
	pass "history check (nodes 0-2): $(tail -1 "$work/check.log")"
else
	fail "history check:"; head -20 "$work/check.log"; tail -1 "$work/check.log"
fi
if python3 - "$work" $survivors >"$work/drain.log" 2>&1 <<'PY'
import json, sys
work, nodes = sys.argv[1], sys.argv[2:]
tot = {}
for n in nodes:
    try:
        r = json.load(open("%s/na-%s.json" % (work, n)))["recovery"]
    except (OSError, ValueError, KeyError) as e:
        print("node %s: no stats (%s)" % (n, e)); continue
    print("node %s: %s" % (n, json.dumps(r)))
    for k, v in r.items():
        tot[k] = tot.get(k, 0) + v
print("total: dead_nodes %d drained_blocks %d blocks_recovered %d rounds %d dead_dirty_lost %d"
      % tuple(tot.get(k, 0) for k in ("dead_nodes", "drained_blocks",
              "blocks_recovered", "rounds", "dead_dirty_lost")))
# Every survivor applied the declaration. How many blocks each drained
# depends on what node 3 held at the kill (printed); that the drain is what
# lets the survivors finish is the --no-drain control.
sys.exit(0 if tot.get("dead_nodes") == len(nodes) else 1)
PY
then
	pass "drain: $(tail -1 "$work/drain.log")"
else
	fail "drain: $(tail -1 "$work/drain.log")"
fi
sed 's/^/      /' "$work/drain.log"
echo "---- $(($(date +%s) - start_ts))s, $failures failure(s)"
[ $failures = 0 ]
