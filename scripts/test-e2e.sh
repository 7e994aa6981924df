#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# End-to-end correctness test (docs/CLUSTER.md): 4 nodes + swswitch in
# network namespaces, every node runs the counter workload with 2 threads on
# a small hot shared set and records its history. Four runs (phases):
#   home    every block owned by its home agent (requests cross the switch's
#           pipeline as tag misses); garbage datagrams are injected meanwhile
#   switch  --switch-blocks 2: some blocks are switch-owned
#   loss1   as switch, swswitch drops and duplicates 1% of the LCF frames
#           (every type, both directions)
#   loss5   as switch, 5% drops + 5% duplicates
# In each, every node must finish its workload and exit 0, the checker
# (node-agent/checker/check_history.py) must find every read linearizable and
# every counter exact, and swswitch's statistics must be sane. The report
# gives the retransmissions (requests, unlocks, write-backs) and the
# slowdown of loss1/loss5 against switch; a CSV/JSON summary of all runs is
# written to /tmp/swswitch-e2e${SWCL_ID}-summary.{csv,json}. Each node runs
# at most --max-rate operations/s per thread: a node that holds a hot block
# Modified otherwise does millions of local hits, whose history takes the
# checker minutes (the check itself is not weakened, it sees every operation).
# During the home run, scripts/lcf_garbage.py sends malformed datagrams (a)
# from node 0 through the switch to node 1, which swswitch must drop and
# count, and (b) inside node 2's namespace to node 2's own LCF port (the only
# way past the switch's validation), which node 2 must count in rx_bad while
# its workload completes. Also: the verbs transport must refuse cleanly (no
# RDMA device here), the checker's unit tests must pass, and the checker must
# reject the real histories once a lost update / stale read is injected into
# them. Exit status 0 only when everything holds. About 2 minutes.
#
#   sudo scripts/test-e2e.sh [--duration SEC] [--threads T] [--max-rate R]
#                            [--shared-blocks K] [--switch-blocks N]
#                            [--build-dir DIR] [--topo FILE] [--pmd P]
#                            [--only home,switch,loss1,loss5] [--keep DIR]
#                            [--sw-args "SWSWITCH ARGS"] (added to every run,
#                            e.g. more --fault rules)
set -euo pipefail
shopt -s nullglob

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)

duration=5 threads=2 shared_blocks=4 switch_blocks=2 max_rate=4000
build_dir="" topo=$repo/topo/demo4.json pmd=af_packet only="home,switch,loss1,loss5" keep="" swargs=""
summary_base=/tmp/swswitch-e2e${SWCL_ID:-}-summary

die() { printf 'test-e2e: error: %s\n' "$*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--duration) duration=$2; shift 2 ;;
	--threads) threads=$2; shift 2 ;;
	--shared-blocks) shared_blocks=$2; shift 2 ;;
	--switch-blocks) switch_blocks=$2; shift 2 ;;
	--build-dir) build_dir=$2; shift 2 ;;
	--topo) topo=$2; shift 2 ;;
	--pmd) pmd=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	--max-rate) max_rate=$2; shift 2 ;;
	--keep) keep=$2; shift 2 ;;
	--sw-args) swargs=$2; shift 2 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option $1" ;;
	esac
done
# shellcheck source=scripts/cluster_test_lib.sh
. "$here/cluster_test_lib.sh"
cluster_test_setup e2e
topo=$(readlink -f "$topo")
nodes=$(topo_node_ids "$topo")
n_nodes=$(echo "$nodes" | wc -w)

# ---- 1. checker unit tests --------------------------------------------------
if (cd "$repo/node-agent/checker" && python3 -m unittest -q test_check_history) >"$work/unittest.log" 2>&1; then
	pass "checker unit tests"
else
	fail "checker unit tests"; tail -20 "$work/unittest.log"
fi

# ---- 2. verbs transport refuses cleanly -------------------------------------
rc=0
timeout 20 "$nagent" --topo "$topo" --node 0 --transport verbs --workload none \
	--duration 1 >"$work/verbs.out" 2>"$work/verbs.err" || rc=$?
if [ $rc != 0 ] && [ $rc != 124 ] && grep -q "no RDMA device" "$work/verbs.err" "$work/verbs.out"; then
	pass "verbs transport refuses: exit $rc, \"$(grep -h -m1 "no RDMA device" "$work/verbs.err" "$work/verbs.out")\""
else
	fail "verbs transport refusal (exit $rc):"; cat "$work/verbs.err" "$work/verbs.out" | tail -5
fi

# ---- 3. counter runs --------------------------------------------------------
fault_args() {  # fault_args PROB: drop + duplicate PROB of every LCF frame
	echo "--fault drop:all:both:$1 --fault dup:all:both:$1 --fault-seed 5"
}
node_ip() {
	python3 -c 'import json,sys; print([n["ip"] for n in json.load(open(sys.argv[1]))["nodes"] if n["id"] == int(sys.argv[2])][0])' "$topo" "$1"
}
rm -f "$summary_base.csv" "$summary_base.json"

# garbage_start DIR: malformed datagrams while the workload runs (see header).
# The interpreter is resolved once, here: a version manager's python3 shim
# can take seconds to start on a loaded machine, and the 1,200 datagrams
# (0.6 s at 2,000/s) must be sent while the nodes, which run $duration s,
# are still up to count them.
gpython=$(python3 -c 'import sys; print(sys.executable)')
gpids=() garbage_node=""
garbage_start() {
	local dir=$1 src dst self
	read -r src dst self < <(echo "$nodes" | awk '{print $1, $2, $3}')
	gpids=()
	"$cluster" exec "$src" "$gpython" "$here/lcf_garbage.py" --dst "$(node_ip "$dst")" \
		--count 1200 --rate 2000 --seed 1 --json "$dir/garbage-switch.json" \
		>/dev/null 2>"$dir/garbage-switch.err" &
	gpids+=($!)
	"$cluster" exec "$self" "$gpython" "$here/lcf_garbage.py" --dst "$(node_ip "$self")" \
		--count 1200 --rate 2000 --seed 2 --json "$dir/garbage-node.json" \
		>/dev/null 2>"$dir/garbage-node.err" &
	gpids+=($!)
	garbage_node=$self
}

# garbage_check DIR: the switch dropped what went through it, the node
# counted what it was sent, and both senders finished.
garbage_check() {
	local dir=$1 pid out rc
	for pid in "${gpids[@]}"; do
		rc=0; wait "$pid" || rc=$?
		[ $rc = 0 ] || fail "garbage sender exited $rc"
	done
	if out=$(python3 "$here/lcf_garbage.py" --verify "$dir" --node "$garbage_node"); then
		pass "garbage: $out"
	else
		fail "garbage: $out"
	fi
}

# run_phase NAME SWITCH_BLOCKS FAULT_PROB BASELINE_NAME GARBAGE(0|1)
run_phase() {
	local name=$1 sblocks=$2 prob=$3 base=$4 garbage=$5 dir=$work/$1 n rc limit
	local -a np=()
	local sw=$swargs t0 t1 t2
	local -A pids
	[ "$prob" != 0 ] && sw="$(fault_args "$prob") $sw"
	mkdir -p "$dir"
	echo "---- $name: $n_nodes nodes x $threads threads, counter workload, ${duration}s (max $max_rate ops/s per thread), shared blocks $shared_blocks, switch blocks $sblocks, faults: ${sw:-none}"
	t0=$(date +%s)
	if ! "$cluster" up "$topo" --swswitch "$swswitch" --pmd "$pmd" --sw-args "$sw" --force >"$dir/cluster-up.log" 2>&1; then
		fail "$name: cluster up"; tail -20 "$dir/cluster-up.log"
		cp "$RUN_DIR/swswitch.log" "$dir/" 2>/dev/null || true
		return
	fi
	t1=$(date +%s)
	for n in $nodes; do
		"$cluster" exec "$n" "$nagent" --topo "$topo" --node "$n" --workload counter \
			--threads "$threads" --duration "$duration" --shared-blocks "$shared_blocks" \
			--switch-blocks "$sblocks" --seed "$((n + 1))" --max-rate "$max_rate" \
			--history "$dir/h$n.jsonl" --stats "$dir/na-$n.json" \
			>"$dir/na-$n.out" 2>"$dir/na-$n.log" &
		pids[$n]=$!
	done
	[ "$garbage" = 1 ] && garbage_start "$dir"
	# One deadline for all nodes: duration + start-up, linger and exit.
	limit=$((duration + 25))
	for n in $nodes; do np+=("$n=${pids[$n]}"); done
	# wait_nodes fails the test itself for a node that hangs or fails
	if wait_nodes "$name: " "$limit" "$dir" "${np[@]}"; then
		pass "$name: all $n_nodes nodes exited 0"
	fi

	# swswitch's exit statistics (SIGINT makes it print them)
	local swpid
	swpid=$(cat "$RUN_DIR/swswitch.pid" 2>/dev/null || true)
	if [ -n "$swpid" ] && kill -0 "$swpid" 2>/dev/null; then
		kill -INT "$swpid"
		for _ in $(seq 1 50); do kill -0 "$swpid" 2>/dev/null || break; sleep 0.1; done
	fi
	cp "$RUN_DIR/swswitch.out" "$dir/swswitch.json" 2>/dev/null || true
	cp "$RUN_DIR/swswitch.log" "$dir/swswitch.log" 2>/dev/null || true
	"$cluster" down >/dev/null 2>&1 || true
	t2=$(date +%s)
	[ "$garbage" = 1 ] && garbage_check "$dir"

	if "$checker" --expect-nodes "$n_nodes" --min-ops 100 "$dir"/h*.jsonl >"$dir/check.log" 2>&1; then
		pass "$name: history check: $(tail -1 "$dir/check.log")"
	else
		fail "$name: history check:"; head -20 "$dir/check.log"; tail -1 "$dir/check.log"
	fi
	local rep=()
	[ "$sblocks" -gt 0 ] && rep+=(--expect-pipeline)
	[ "$garbage" = 1 ] && rep+=(--allow-malformed)
	[ -n "$base" ] && rep+=(--baseline "$work/$base/summary.json")
	if python3 "$here/cluster_report.py" --title "$name" --duration "$duration" \
		--switch "$dir/swswitch.json" --check "${rep[@]}" --csv "$summary_base.csv" \
		--json "$dir/summary.json" "$dir"/na-*.json >"$dir/report.log" 2>&1; then
		pass "$name: swswitch statistics sane"
	else
		fail "$name: swswitch statistics:"; grep PROBLEM "$dir/report.log" || tail -5 "$dir/report.log"
	fi
	sed 's/^/      /' "$dir/report.log"
	echo "      time: cluster up $((t1 - t0))s, workload + exit $((t2 - t1))s, check + report $(($(date +%s) - t2))s"
}

phase_on() { [[ ",$only," = *",$1,"* ]]; }
phase_on home && run_phase home-owned 0 0 "" 1
phase_on switch && run_phase switch-owned "$switch_blocks" 0 "" 0
base=""
phase_on switch && base=switch-owned
phase_on loss1 && run_phase loss1 "$switch_blocks" 0.01 "$base" 0
phase_on loss5 && run_phase loss5 "$switch_blocks" 0.05 "$base" 0
if [ -s "$summary_base.csv" ]; then
	python3 -c 'import csv,json,sys; json.dump(list(csv.DictReader(open(sys.argv[1]))), open(sys.argv[2], "w"), indent=1)' \
		"$summary_base.csv" "$summary_base.json"
	echo "---- summary ($summary_base.csv, .json)"
	column -s, -t "$summary_base.csv" | sed 's/^/      /'
fi

# ---- 4. the checker catches injected faults in the real histories -----------
mutate() {  # mutate KIND SRC_DIR DST_DIR
	python3 - "$@" <<'EOF'
import glob, json, os, sys
kind, src, dst = sys.argv[1:4]
os.makedirs(dst, exist_ok=True)
files = sorted(glob.glob(os.path.join(src, "h*.jsonl")))
recs = {f: [json.loads(l) for l in open(f) if l.strip()] for f in files}
ops = [(f, i, r) for f in files for i, r in enumerate(recs[f])
       if not r.get("final")]
incr = [x for x in ops if x[2]["op"] == "incr"]
done = False
if kind == "lost_update" and len(incr) >= 2:
    # the last incr of a counter returns the value of an earlier one
    f, i, r = max(incr, key=lambda x: x[2]["value"])
    same = [x for x in incr if x[2]["addr"] == r["addr"] and x[2] is not r]
    if same:
        r["value"] = same[0][2]["value"]
        done = True
elif kind == "stale_read":
    # a read, long after two increments completed, returns the older value
    by_addr = {}
    for x in incr:
        by_addr.setdefault(x[2]["addr"], []).append(x[2])
    for a, lst in by_addr.items():
        lst.sort(key=lambda r: r["value"])
        if len(lst) >= 2:
            last = max(r["end_ns"] for r in lst)
            f = files[0]
            node = recs[f][0].get("node", 0)
            recs[f].insert(0, {"node": node, "thread": 0, "op": "read",
                               "addr": a, "value": lst[0]["value"],
                               "start_ns": last + 1000, "end_ns": last + 2000})
            done = True
            break
if not done:
    sys.exit("cannot inject %s: not enough operations" % kind)
for f in files:
    with open(os.path.join(dst, os.path.basename(f)), "w") as out:
        for r in recs[f]:
            out.write(json.dumps(r) + "\n")
EOF
}
# (nullglob: a pattern without a match is empty, so test the array, not ls)
hist=()
for src in "$work/home-owned" "$work/switch-owned" "$work/loss1" "$work/loss5"; do
	hist=("$src"/h*.jsonl)
	[ ${#hist[@]} -gt 0 ] && break
done
if [ ${#hist[@]} -gt 0 ]; then
	for kind in lost_update stale_read; do
		if mutate "$kind" "$src" "$work/mut-$kind" 2>"$work/mut-$kind.err"; then
			if "$checker" "$work/mut-$kind"/h*.jsonl >"$work/mut-$kind.log" 2>&1; then
				fail "checker missed an injected $kind"
			else
				pass "checker rejects an injected $kind: $(grep -m1 VIOLATION "$work/mut-$kind.log" | cut -c1-110)..."
			fi
		else
			fail "inject $kind: $(cat "$work/mut-$kind.err")"
		fi
	done
fi

echo "---- $(($(date +%s) - start_ts))s, $failures failure(s)"
[ $failures = 0 ] && echo "E2E PASS" || echo "E2E FAIL"
[ $failures = 0 ]
