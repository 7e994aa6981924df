#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Memory-node failure test (docs/FAULTS.md section 2, paper section 5.4),
# scenarios on a 4-node cluster (home and switch by default; restart by
# hand or with --scenario all); node 3 is the one that dies.
#
#  home:   nodes 0-2 run the counter workload on 3 home-owned shared blocks
#          (homed at nodes 0-2); node 3 reads the same blocks (micro
#          workload, read ratio 1, a 1-block cache: nearly every read a
#          READ_MISS), so it holds Shared copies and read locks, and its
#          own memory is used by nobody. Mid-run node 3 is
#          SIGKILLed and declared dead (--dead-file); the survivors' homes
#          drain it (abort events on its blocks, rebuild the metadata
#          without it, drop its locks).
#  switch: the same, but the 3 blocks are switch-owned (--switch-blocks 1).
#          Node 3 is SIGSTOPped until it holds a switch lock itself (its
#          SCOREBOARD count, /swswitch/requester, is not 0: its read lock;
#          --holder any: any block whose LOCK stays held, /swswitch/block,
#          e.g. a survivor's write lock waiting for node 3's ACK), then
#          SIGKILLed, declared dead, and the operator's switch command
#          (scripts/swswitch-ctl node-failed 3) evicts what it blocks; the
#          homes find the evicted blocks by their tag misses and recover
#          them without node 3.
#  restart: as switch without the SIGSTOP (docs/FAULTS.md section 3): after
#          the declaration and the switch command node 3 is taken off the
#          dead file and a new node-agent process of node 3 (seqs from 1)
#          runs the counter workload while nodes 0-2 keep running; its
#          history is checked with theirs and every survivor re-admitted it
#          (--no-rejoin keeps it on the file: negative control, it fails).
#          The four workloads end together (SIGUSR1), DURATION-KILL_AT-2 s
#          after the restart: each node's last operations (a final
#          dsm_sync's ABORT) need the others, which serve only for their
#          --linger after their own end; the declaration and the switch
#          command take 2-6 s under load, so timed ends left node 3 working
#          alone after nodes 0-2 had exited (it hung in its first request or
#          its final quarantine).
#
# Asserted in both: nodes 0-2 finish with exit 0, the history check on nodes
# 0-2 passes (counters exact), every survivor applied the declaration; in
# "switch" also that a lock was held at the kill, that the command evicted
# an entry and that a home recovered a block. --no-drain skips the
# declaration and --no-ctl the switch command (negative controls: the
# survivors then wait for node 3 forever and the test fails). Bounded:
# about 20-30 s per scenario (11 s workload).
#
#   sudo scripts/test-drain.sh [--scenario home|switch|restart|both|all]
#                              [--duration SEC]
#                              [--kill-at SEC] [--no-drain] [--no-ctl] [--no-rejoin]
#                              [--holder dead|any]
#                              [--keep DIR]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)

duration=11 kill_at=3 max_rate=5000 drain=1 ctl=1 rejoin=1 holder=dead keep="" threads=2 dead=3 scenarios="home switch"
topo=$repo/topo/demo4.json
while [ $# -gt 0 ]; do
	case $1 in
	--scenario) scenarios=${2/both/home switch}; scenarios=${scenarios/all/home switch restart}; shift 2 ;;
	--duration) duration=$2; shift 2 ;;
	--kill-at) kill_at=$2; shift 2 ;;
	--no-drain) drain=0; shift ;;
	--no-ctl) ctl=0; shift ;;
	--no-rejoin) rejoin=0; shift ;;
	--holder) holder=$2; shift 2 ;;
	--keep) keep=$2; shift 2 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "test-drain: unknown option $1" >&2; exit 2 ;;
	esac
done
# shellcheck source=scripts/cluster_test_lib.sh
. "$here/cluster_test_lib.sh"
cluster_test_setup drain
survivors="0 1 2"
ctl_cmd=("$here/swswitch-ctl" -f "swcl$SWCL_ID")
mono_ns() { python3 -c 'import time; print(time.monotonic_ns())'; }
# Tag of block 0 of node N (the switch-owned block of each home).
block_tag() { python3 -c 'import json,sys; t=json.load(open(sys.argv[1])); print(hex(int(sys.argv[2]) << (48 - (t["block_size"].bit_length() - 1))))' "$topo" "$1"; }

# LOCK of the switch-owned block of node N (0: none, or not in the switch).
block_lock() {
	"${ctl_cmd[@]}" block "$(block_tag "$1")" 2>/dev/null | python3 -c '
import json, sys
try:
    print(json.load(sys.stdin).get("lock", 0))
except ValueError:
    print(0)'
	return 0
}

# The counted locks of the dead node's events on the switch-owned blocks
# (SCOREBOARD counts of its threads, in each block's shard): not 0 while
# one of its events holds a switch lock that only its unlock releases.
# Prints the first count found (0: none, or no answer).
dead_score() {
	local tags=() n
	for n in $survivors; do tags+=("$(block_tag "$n")"); done
	python3 - "$here/swswitch-ctl" "swcl$SWCL_ID" "$dead" "$threads" "${tags[@]}" <<'PY'
import importlib.machinery, importlib.util, sys
spec = importlib.util.spec_from_loader("ctl", importlib.machinery.SourceFileLoader("ctl", sys.argv[1]))
ctl = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ctl)
for t in range(int(sys.argv[4])):
    for tag in sys.argv[5:]:
        try:
            r = ctl.query(sys.argv[2], "/swswitch/requester,%s,%d,%s" % (sys.argv[3], t, tag))
        except (OSError, ValueError):
            continue
        if isinstance(r, dict) and r.get("score_even", 0) + r.get("score_odd", 0):
            print("%d (thread %d)" % (r["score_even"] + r["score_odd"], t))
            sys.exit(0)
print(0)
PY
}

# The dead node's unlocks (READ_UNLOCK, WRITE_UNLOCK: LCF type byte 6 or 7,
# at byte 29 of an IPv4 packet without options) never leave it: an htb
# class whose tbf leaf's bucket is smaller than any frame drops them. Its
# next event then keeps its switch lock.
hold_unlocks() {
	local port x=("$cluster" exec "$dead")
	port=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("lcf_port", 7340))' "$topo")
	"${x[@]}" tc qdisc add dev eth0 root handle 1: htb default 10 &&
		"${x[@]}" tc class add dev eth0 parent 1: classid 1:10 htb rate 10gbit &&
		"${x[@]}" tc class add dev eth0 parent 1: classid 1:30 htb rate 8bit &&
		"${x[@]}" tc qdisc add dev eth0 parent 1:30 tbf rate 8bit burst 1 limit 1 &&
		"${x[@]}" tc filter add dev eth0 parent 1: protocol ip prio 1 u32 \
			match ip protocol 17 0xff match u16 "$port" 0xffff at 22 \
			match u8 0x06 0xfe at 29 flowid 1:30
}

# The dead node holds up a switch LOCK. --holder dead: its unlocks are
# dropped until one of its events holds a switch lock (its SCOREBOARD
# count), then it is stopped. any: it is stopped until a block shows a LOCK
# that stays held for 0.5 s more (a survivor's own event is over by then;
# one waiting for the stopped node, or the node's own read, is not).
stop_holding_lock() {
	local pid=$1 try n lock sc
	if [ "$holder" = dead ]; then
		hold_unlocks >"$work/tc.log" 2>&1 || { cat "$work/tc.log"; return 1; }
		# its unlocks stay dropped: once counted, the lock stays held
		for try in $(seq 1 40); do
			sc=$(dead_score)
			if [ "$sc" != 0 ]; then
				kill -STOP "$pid" 2>/dev/null || return 1
				echo "node $dead holds $sc switch lock(s) of its own (SCOREBOARD; its unlocks dropped, poll $try)"
				return 0
			fi
			sleep 0.2
		done
		return 1
	fi
	for try in $(seq 1 20); do
		kill -STOP "$pid" 2>/dev/null || return 1        # it exited
		sleep 0.3
		for n in $survivors; do
			[ "$(block_lock "$n")" != 0 ] || continue
			sleep 0.5
			lock=$(block_lock "$n")
			if [ "$lock" != 0 ]; then
				echo "block of node $n: LOCK $lock held 0.8 s after node $dead stopped (try $try)"
				return 0
			fi
		done
		kill -CONT "$pid"
		sleep 0.2
	done
	return 1
}

# restart: node 3 off the dead file once every survivor drained it, and a
# new process of it (full counter workload) for the rest of the run.
new_pid=""
restart_dead() {
	local w=$1
	# the old process is gone; the survivors drain it (15-190 ms; a rejoin
	# also waits for their rounds)
	sleep 1
	[ $rejoin = 0 ] || : >"$w/dead"
	"$cluster" exec "$dead" "$nagent" --topo "$topo" --threads "$threads" \
		--shared-blocks 3 --dead-file "$w/dead" --node "$dead" \
		--switch-blocks 0 --workload counter --max-rate "$max_rate" \
		--duration 0 --seed 9 \
		--history "$w/h$dead.jsonl" --stats "$w/na-$dead.json" \
		>"$w/na-$dead.out" 2>"$w/na-$dead.log" &
	new_pid=$!
	pass "restart: node $dead restarted (pid $new_pid), taken off the dead file"
}

# restart: every survivor re-admitted node 3; its new process did operations.
rejoin_report() {
	local rc=0
	# shellcheck disable=SC2086 # the survivors' ids, one argument each
	python3 - "$1" "$dead" $survivors <<'PY' || rc=1
import json, sys
w, dead, surv = sys.argv[1], sys.argv[2], sys.argv[3:]
def find(o, k):
    if isinstance(o, dict):
        if k in o:
            return o[k]
        for v in o.values():
            r = find(v, k)
            if r is not None:
                return r
    return None
out = open(w + "/rejoin.log", "w")
rej = [find(json.load(open("%s/na-%s.json" % (w, n))), "rejoined") or 0 for n in surv]
drop = [find(json.load(open("%s/na-%s.json" % (w, n))), "dead_dropped") or 0 for n in surv]
ops = sum(1 for _ in open("%s/h%s.jsonl" % (w, dead)))
print("survivors rejoined %s, dead_dropped %s; new node %s: %d history lines"
      % (rej, drop, dead, ops), file=out)
out.close()
sys.exit(0 if all(r == 1 for r in rej) and ops > 100 else 1)
PY
	if [ $rc = 0 ]; then pass "restart: $(tail -1 "$1/rejoin.log")"; else fail "restart: $(tail -1 "$1/rejoin.log")"; fi
}

run_scenario() {
	local sc=$1 w=$work/$1 swb=0 n t_decl t_kill wl=$duration
	local -A pids
	mkdir -p "$w"
	[ "$sc" = home ] || swb=1
	[ "$sc" = restart ] && wl=0 # until the common end (SIGUSR1)
	echo "== scenario $sc"
	if ! "$cluster" up "$topo" --swswitch "$swswitch" --force >"$w/cluster-up.log" 2>&1; then
		fail "$sc: cluster up"; tail -20 "$w/cluster-up.log"; return
	fi
	: >"$w/dead"
	local common=(--topo "$topo" --threads "$threads" --shared-blocks 3
		--dead-file "$w/dead")
	for n in $survivors; do
		"$cluster" exec "$n" "$nagent" "${common[@]}" --node "$n" \
			--switch-blocks "$swb" --workload counter --max-rate "$max_rate" \
			--duration "$wl" --seed "$((n + 1))" \
			--history "$w/h$n.jsonl" --stats "$w/na-$n.json" \
			>"$w/na-$n.out" 2>"$w/na-$n.log" &
		pids[$n]=$!
	done
	"$cluster" exec "$dead" "$nagent" "${common[@]}" --node "$dead" \
		--switch-blocks 0 --workload micro --read-ratio 1 \
		--sharing-ratio 1 --locality 0 --cache-blocks 1 \
		--duration "$((duration + 30))" \
		>"$w/na-$dead.out" 2>"$w/na-$dead.log" &
	local dead_pid=$!

	sleep "$kill_at"
	if [ "$sc" = switch ]; then
		if stop_holding_lock "$dead_pid"; then
			pass "switch: node $dead holds up a switch LOCK"
		else
			fail "switch: no switch LOCK held ($holder) with node $dead stopped (or it exited: $(tail -1 "$w/na-$dead.log"))"
		fi
	fi
	t_kill=$(mono_ns)
	if kill -KILL "$dead_pid" 2>/dev/null; then
		pass "$sc: node $dead SIGKILLed mid-run (pid $dead_pid)"
	else
		fail "$sc: node $dead was not running at ${kill_at}s"
	fi
	wait "$dead_pid" 2>/dev/null || true
	t_decl=$(mono_ns)
	if [ $drain = 1 ]; then
		echo "$dead" >"$w/dead"
		echo "node $dead declared dead"
	fi
	echo "$t_kill $t_decl" >"$w/times"
	if [ "$sc" != home ] && [ $ctl = 1 ]; then
		# The homes first (docs/FAULTS.md: a declaration settles the
		# blocks whose ADD is out before the switch evicts): they poll
		# the dead file every 100 ms.
		[ $drain = 1 ] && sleep 0.3
		if "${ctl_cmd[@]}" node-failed "$dead" >"$w/ctl.json"; then
			echo "switch: $(cat "$w/ctl.json")"
		else
			fail "switch: node-failed command: $(cat "$w/ctl.json")"
		fi
		echo "$t_kill $t_decl $(mono_ns)" >"$w/times"
	fi

	local np=() hs=("$w"/h[012].jsonl) nn=3
	if [ "$sc" = restart ] && restart_dead "$w"; then
		np+=("$dead=$new_pid") hs+=("$w/h$dead.jsonl") nn=4
		sleep "$((duration - kill_at - 2))"
		kill -USR1 "$new_pid" "${pids[@]}" 2>/dev/null || true
	fi
	for n in $survivors; do np+=("$n=${pids[$n]}"); done
	wait_nodes "$sc: " "$((duration + 20))" "$w" "${np[@]}" &&
		pass "$sc: nodes ${np[*]%%=*} finished, exit 0"
	"$cluster" down >/dev/null 2>&1 || true

	if "$checker" --expect-nodes "$nn" --min-ops 100 "${hs[@]}" >"$w/check.log" 2>&1; then
		pass "$sc: history check ($nn nodes): $(tail -1 "$w/check.log")"
	else
		fail "$sc: history check:"; head -20 "$w/check.log"; tail -1 "$w/check.log"
	fi
	if [ "$sc" = restart ]; then
		rejoin_report "$w"
		return
	fi
	# shellcheck disable=SC2086 # the survivors' ids, one argument each
	if python3 "$here/drain_report.py" "$sc" "$w" "$topo" $survivors \
		>"$w/drain.log" 2>&1; then
		pass "$sc: $(tail -1 "$w/drain.log")"
	else
		fail "$sc: $(tail -1 "$w/drain.log")"
	fi
	sed 's/^/      /' "$w/drain.log"
}

for sc in $scenarios; do run_scenario "$sc"; done
echo "---- $(($(date +%s) - start_ts))s, $failures failure(s)"
[ $failures = 0 ]
