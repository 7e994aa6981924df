#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Dynamic ownership migration test (paper section 5.2; docs/NODE-AGENT.md
# "Ownership migration"). 4 nodes + swswitch with a tiny switch (topology
# topo/migrate4.json: 2 ways x 32 slots = 64 blocks), every node runs the
# micro workload on a shared region of 1024 blocks drawn Zipf(0.99), with
# --migrate and no block switch-owned at start. Then:
#   1. every node exits 0 and the history checker passes;
#   2. the hottest blocks (by access count in the histories) became
#      switch-owned: at least HOT_MIN of the HOT_N hottest are in the switch
#      at the end;
#   3. the share of coherence events serialised by the switch (requester
#      counters events_in_switch / (events_in_switch + events_at_home)) is at
#      least SHARE_MIN;
#   4. capacity: the shadow's SHADOW-TAG never held more than the switch's
#      capacity (peak_tags), the switch holds at most its capacity at the
#      end, and exactly the blocks the home agents think it holds;
#      collisions and REMOVE_FROM_SWITCH both happened.
#   5. one owner per block: after the nodes exit, every block a home agent
#      thinks the switch holds is in the switch (telemetry /swswitch/block)
#      and unlocked, and the switch holds no other (/swswitch/occupancy).
# Bounded: about 35 s (cluster up ~10 s, run DURATION + linger, down ~3 s).
#
#   sudo SWCL_ID=x scripts/test-migration.sh [--duration SEC] [--keep DIR]
#        [--build-dir DIR] [--share-min F] [--baseline] [--faults P]
#        [--delay P]
# --baseline first runs the same workload without --migrate (for the
# comparison in docs; its share must be 0).
# --faults P: swswitch drops and duplicates each LCF frame, every type
# (migration, replies and node messages included), with probability P in
# each direction (--fault drop:all:both:P --fault dup:all:both:P).
# --delay P: and holds each frame 2 ms with probability P, so that later
# frames overtake it (--fault delay:all:both:P --fault-delay-us 2000).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)

duration=10 keep="" build_dir="" baseline=0 faults=0 delay=0
# Why 0.35: without migration the share is 0 (--baseline). Zipf(0.99) over
# 1024 blocks puts 62% of the accesses on the 64 hottest blocks and 58% on
# the 48 hottest (H(k,0.99)/H(1024,0.99)); a 2-way table of 64 slots holds
# about 48 blocks at a time (hash collisions), so ~58% is the ceiling for
# accesses. Coherence events are fewer per access on hot blocks (their
# copies stay cached between invalidations) and the warm-up and the
# blocks in transit (draining, ADD, REMOVE) count at home, so the
# expected share is lower: measured 44-47% on a loaded 2-vCPU machine
# (docs/NODE-AGENT.md). 35% is well above what the 8 hottest blocks alone
# would give (33% of the accesses), i.e. the switch must be serving a good
# part of the hot set.
share_min=0.35
# The hot-set check is a snapshot at the end of a churning 2-way table
# (about 1,700 REMOVEs in 475 epochs): 11-16 of the 16 hottest blocks were
# switch-owned over 12 runs on the 2-vCPU VM; 10 still says the switch
# holds most of the hot set.
hot_n=16 hot_min=10
topo=$repo/topo/migrate4.json
die() { printf 'test-migration: error: %s\n' "$*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--duration) duration=$2; shift 2 ;;
	--keep) keep=$2; shift 2 ;;
	--build-dir) build_dir=$2; shift 2 ;;
	--share-min) share_min=$2; shift 2 ;;
	--baseline) baseline=1; shift ;;
	--faults) faults=$2; shift 2 ;;
	--delay) delay=$2; shift 2 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option $1" ;;
	esac
done
# shellcheck source=scripts/cluster_test_lib.sh
. "$here/cluster_test_lib.sh"
cluster_test_setup migration
nodes="0 1 2 3"

# descendants PID: the processes below PID (a node agent below its wrapper)
descendants() {
	local c
	for c in $(pgrep -P "$1"); do echo "$c"; descendants "$c"; done
}

# on_hang DIR NODE=PID... (wait_nodes): before the late nodes are stopped,
# the switch's blocks and requesters (telemetry), every node agent
# thread's stack and its counters (gdb) go to DIR/hang-*.
on_hang() {
	local dir=$1 np p
	shift
	python3 "$here/migration_owners.py" --scan "/var/run/dpdk/swcl${SWCL_ID:-}" \
		>"$dir/hang-switch.json" 2>&1 || true
	for np in "$@"; do
		for p in "${np#*=}" $(descendants "${np#*=}"); do
			[ "$(cat "/proc/$p/comm" 2>/dev/null)" = node-agent ] || continue
			timeout 30 gdb -batch -p "$p" -ex "thread apply all bt" \
				-ex "p the_dsm->node.st.req" -ex "p the_dsm->node.home.st" \
				-ex "p the_dsm->node.migrate.st" -ex "p *the_dsm->node.rec" \
				>"$dir/hang-gdb-${np%%=*}.txt" 2>&1 || true
		done
	done
	echo "hang: state in $dir/hang-switch.json, $dir/hang-gdb-*.txt"
}

# run NAME EXTRA_NODE_ARGS...: one cluster, 4 nodes, stats in $work/NAME
run() {
	local name=$1 dir=$work/$1 n rc ok=1 swpid
	local -a np=()
	local -A pids
	shift
	mkdir -p "$dir"
	echo "---- $name: 4 nodes x 2 threads, micro, Zipf 0.99 over 1024 shared blocks, ${duration}s $*"
	local -a up=("$topo" --swswitch "$swswitch" --force)
	local sw=""
	[ "$faults" != 0 ] && sw="--fault drop:all:both:$faults --fault dup:all:both:$faults"
	[ "$delay" != 0 ] && sw="$sw --fault delay:all:both:$delay --fault-delay-us 2000"
	[ -n "$sw" ] && up+=(--sw-args "$sw --fault-seed 11")
	if ! "$cluster" up "${up[@]}" >"$dir/cluster-up.log" 2>&1; then
		fail "$name: cluster up"; tail -20 "$dir/cluster-up.log"
		return 1
	fi
	for n in $nodes; do
		"$cluster" exec "$n" "$nagent" --topo "$topo" --node "$n" \
			--workload micro --threads 2 --duration 0 \
			--sharing-ratio 1 --shared-blocks 1024 --zipf 0.99 \
			--read-ratio 0.5 --locality 0 --seed "$((n + 1))" "$@" \
			--history "$dir/h$n.jsonl" --stats "$dir/na-$n.json" \
			>"$dir/na-$n.out" 2>"$dir/na-$n.log" &
		pids[$n]=$!
	done
	for n in $nodes; do np+=("$n=${pids[$n]}"); done
	# One common end (SIGUSR1, as test-drain.sh): a node serves its peers
	# only --linger (2 s) after its own workload, and under load the four
	# windows started 2-6.5 s apart (slow `cluster exec`): the last node's
	# final events and dsm_sync waited for ever on blocks whose home had
	# exited, every switch lock free.
	for _ in $(seq 1 300); do # each node's "up" line, 60 s at most
		[ "$(cat "$dir"/na-*.log 2>/dev/null | grep -c ' up (')" -ge 4 ] && break
		sleep 0.2
	done
	sleep "$duration"
	kill -USR1 "${pids[@]}" 2>/dev/null || true
	if wait_nodes "$name: " 25 "$dir" "${np[@]}"; then
		pass "$name: all 4 nodes exited 0"
	else
		ok=0
	fi
	python3 "$here/migration_owners.py" "/var/run/dpdk/swcl${SWCL_ID:-}" \
		"$dir"/na-*.json >"$dir/owners.json" 2>"$dir/owners.log" || true
	swpid=$(cat "$RUN_DIR/swswitch.pid" 2>/dev/null || true)
	if [ -n "$swpid" ] && kill -0 "$swpid" 2>/dev/null; then
		kill -INT "$swpid"
		for _ in $(seq 1 50); do kill -0 "$swpid" 2>/dev/null || break; sleep 0.1; done
	fi
	cp "$RUN_DIR/swswitch.out" "$dir/swswitch.json" 2>/dev/null || true
	"$cluster" down >/dev/null 2>&1 || true
	if "$checker" --expect-nodes 4 --min-ops 100 "$dir"/h*.jsonl >"$dir/check.log" 2>&1; then
		pass "$name: history check: $(tail -1 "$dir/check.log")"
	else
		fail "$name: history check:"; head -5 "$dir/check.log"; tail -1 "$dir/check.log"
	fi
	[ $ok = 1 ]
}

# analyse DIR MODE: prints PASS/FAIL lines, exit status = failures
analyse() {
	python3 - "$@" "$share_min" "$hot_n" "$hot_min" <<'EOF'
import collections, glob, json, os, sys

d, mode, share_min, hot_n, hot_min = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
fails = 0
def check(ok, msg):
    global fails
    print(("PASS  " if ok else "FAIL  ") + msg)
    fails += not ok

na = {}
for f in sorted(glob.glob(os.path.join(d, "na-*.json"))):
    j = json.load(open(f))
    na[j["node"]] = j
if len(na) != 4:
    check(False, "statistics of %d nodes of 4" % len(na))
    sys.exit(fails)
sw = {}
try:
    with open(os.path.join(d, "swswitch.json")) as f:
        t = f.read()
    sw = json.loads(t[t.find("{"):])
except (OSError, ValueError):
    pass
ins = sum(j["requester"]["events_in_switch"] for j in na.values())
home = sum(j["requester"]["events_at_home"] for j in na.values())
ops = sum(j["ops"] for j in na.values())
share = ins / (ins + home) if ins + home else 0.0
print("      ops %d, coherence events %d (switch %d, home %d): %.1f%% in the switch"
      % (ops, ins + home, ins, home, 100 * share))
if mode == "baseline":
    check(ins == 0, "baseline (no --migrate): no event in the switch (%d)" % ins)
    sys.exit(fails)

# 2. the hottest blocks (access counts from the histories) are switch-owned
acc = collections.Counter()
for f in glob.glob(os.path.join(d, "h*.jsonl")):
    for line in open(f):
        try:
            r = json.loads(line)
        except ValueError:
            continue                    # a killed node's last line
        if "addr" in r:
            acc[int(r["addr"], 16) >> 12] += 1          # block_size 4096
owned = set()
for n, j in na.items():
    for idx in j["migration"]["switch_owned_blocks"]:
        owned.add((n << 36) | idx)                      # tag = node << (48 - 12) | idx
hottest = [t for t, _ in acc.most_common(hot_n)]
got = [t for t in hottest if t in owned]
print("      hottest %d blocks (accesses): %s" % (hot_n, ", ".join(
    "%#x:%d%s" % (t, acc[t], "*" if t in owned else "") for t in hottest)))
check(len(got) >= hot_min, "%d of the %d hottest blocks are switch-owned at the end (>= %d; * above)"
      % (len(got), hot_n, hot_min))

# 3. share of coherence events handled in the switch
check(share >= share_min, "%.1f%% of the coherence events were serialised by the switch (>= %.0f%%)"
      % (100 * share, 100 * share_min))

# 4. capacity and consistency
sh = next((j["shadow"] for j in na.values() if "shadow" in j), None)
pl = sw.get("pipeline", {})
cap, blocks = pl.get("capacity"), pl.get("blocks")
home_owned = sum(j["migration"]["switch_owned"] for j in na.values())
check(sh is not None and sh["peak_tags"] <= sh["capacity"],
      "shadow: peak SHADOW-TAG %s <= capacity %s" % (sh and sh["peak_tags"], sh and sh["capacity"]))
check(cap is not None and blocks is not None and blocks <= cap and blocks == home_owned,
      "switch holds %s blocks at the end (capacity %s), the home agents think %d" % (blocks, cap, home_owned))
acts = sw.get("actions", {})
mig = {k: sum(j["migration"][k] for j in na.values()) for k in
       ("adds", "add_ok", "add_collisions", "removes", "remove_ok", "epochs")}
print("      migration: %s; shadow: %s" % (mig, {k: sh[k] for k in (
    "collisions", "collision_evictions", "collision_kept", "pressure_evictions",
    "remove_requests", "adds", "removes")} if sh else None))
print("      switch actions: add_ok %s, collision %s, remove_ok %s, tag_miss_to_home %s"
      % tuple(acts.get(k) for k in ("add_to_switch_ok", "add_to_switch_collision",
                                    "remove_from_switch_ok", "tag_miss_to_home")))
check(mig["add_collisions"] > 0 and mig["remove_ok"] > 0,
      "collisions (%d) and REMOVE_FROM_SWITCH (%d) happened" % (mig["add_collisions"], mig["remove_ok"]))

# 5. one owner per block, no lock left behind
try:
    own = json.load(open(os.path.join(d, "owners.json")))
except (OSError, ValueError):
    own = None
if own is None:
    check(False, "switch read-out after the run (owners.json; see owners.log)")
else:
    print("      switch read-out: %d blocks, homes claim %d, missing %s, locked %s"
          % (own["switch_blocks"], len(own["claimed"]), own["missing"], own["locked"]))
    check(not own["missing"] and own["switch_blocks"] == len(own["claimed"]),
          "one owner per block: the %d blocks the homes gave the switch are exactly "
          "the switch's %d" % (len(own["claimed"]), own["switch_blocks"]))
    check(not own["locked"], "no switch-owned block is left locked")
late = sum(j["home_agent"].get("migrate_late_ok", 0) for j in na.values())
rec = {k: sum(j.get("recovery", {}).get(k, 0) for j in na.values())
       for k in ("remove_ack_lost", "rounds", "detections")}
print("      late ADD installs %d, slow ADDs %d, lost REMOVE ACKs %d (recovery rounds %d)"
      % (late, sum(j["migration"]["add_slow"] for j in na.values()),
         rec["remove_ack_lost"], rec["rounds"]))
check(rec["detections"] == 0, "no home took a tag miss for a lost block (the switch never restarted)")
sys.exit(fails)
EOF
}

if [ $baseline = 1 ]; then
	run baseline || true
	analyse "$work/baseline" baseline || failures=$((failures + $?))
fi
# The epoch: the paper's 10 ms presumes millions of operations per second;
# on this machine a node does ~500, so a hot block sees a handful of copies
# per 10 ms and its smoothed hotness keeps decaying to 0 (cold) between
# them. 100 ms epochs give the counts some meaning here.
name=migrate
[ "$faults$delay" != 00 ] && name=migrate-faults
run $name --migrate --epoch-ms 100 || true
analyse "$work/$name" migrate || failures=$((failures + $?))

echo "---- $(($(date +%s) - start_ts))s, $failures failure(s)"
[ $failures = 0 ] && echo "MIGRATION PASS" || echo "MIGRATION FAIL"
[ $failures = 0 ]
