#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# A requester's new incarnation against a running switch (docs/FAULTS.md
# section 3): on one namespace cluster and ONE swswitch process, dsm_kv
# (YCSB-A, --mode switch: hot blocks switch-owned, the rest home-owned) on
# every node, twice. Between the runs the old processes have exited (they
# can send nothing more) and `swswitch-ctl node-failed X` is issued for each
# node, as a restart of node X needs (scripts/cluster.sh restart-node does
# the same for one node); the switch is not restarted. Checked per run:
#   1. every node exits 0 and completes operations;
#   2. check_history.py passes on the run's histories;
#   3. the second run's operations are at least --min-ratio (0.3: the VM is
#      noisy) of the first's, both printed;
#   4. the same swswitch pid serves both runs.
# --no-ctl skips the command (the negative control: the second run's
# requesters are refused as stale and the run fails).
#
#   sudo SWCL_ID=x scripts/test-rejoin.sh [--nodes K] [--duration S]
#        [--lock-mode retry|queued] [--min-ratio R] [--no-ctl] [--keep DIR]
#        [--build-dir DIR]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)

k=2 duration=3 keys=20000 keep="" build_dir="" lock_mode=retry ctl=1 min_ratio=0.3
die() { printf 'test-rejoin: error: %s\n' "$*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--nodes) k=$2; shift 2 ;;
	--duration) duration=$2; shift 2 ;;
	--lock-mode) lock_mode=$2; shift 2 ;;
	--min-ratio) min_ratio=$2; shift 2 ;;
	--no-ctl) ctl=0; shift ;;
	--keep) keep=$2; shift 2 ;;
	--build-dir) build_dir=$2; shift 2 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option $1 (--help)" ;;
	esac
done
[[ $k =~ ^[2-4]$ ]] || die "--nodes: 2, 3 or 4"
case $lock_mode in retry|queued) ;; *) die "--lock-mode: retry or queued" ;; esac
[[ $duration =~ ^[0-9]+$ ]] || die "--duration: whole seconds"

# shellcheck source=scripts/cluster_test_lib.sh
. "$here/cluster_test_lib.sh"
cluster_test_setup rejoin
kv=$build_dir/node-agent/apps/kv/dsm_kv
[ -x "$kv" ] || die "not built: $kv"
topo=$work/topo.json
python3 - "$repo/topo/demo$k.json" "$topo" "$lock_mode" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
t.setdefault("switch", {})["lock_mode"] = sys.argv[3]
json.dump(t, open(sys.argv[2], "w"), indent=1)
PY
passed=0
ok() { pass "$@"; passed=$((passed + 1)); }

"$cluster" up "$topo" --swswitch "$swswitch" --force >"$work/cluster.log" 2>&1 || {
	fail "cluster up ($topo)"
	tail "$work/cluster.log"
	echo "$passed passed, $failures failed"
	exit 1
}
sw_pid() { cat "$RUN_DIR/swswitch.pid" 2>/dev/null || echo none; }
pid0=$(sw_pid)

# run N: dsm_kv on every node; prints the run's operations
declare -A ops=()
run() {
	local d=$work/run$1 nps=() n
	mkdir -p "$d"
	for n in $(seq 0 $((k - 1))); do
		"$cluster" exec "$n" "$kv" --topo "$topo" --node "$n" --nodes "$k" \
			--mode switch --workload ycsb-a --keys "$keys" \
			--duration "$duration" --max-rate 4000 --seed "$1" \
			--history "$d/h" --stats "$d/s$n.json" \
			>"$d/na-$n.out" 2>"$d/na-$n.log" &
		nps+=("$n=$!")
	done
	if ! wait_nodes "run $1: " $((duration + 25)) "$d" "${nps[@]}"; then
		ops[$1]=0
		return 1
	fi
	ops[$1]=$(awk '/ ops in /{s += $5} END {print s + 0}' "$d"/na-*.out)
	ok "run $1: $k nodes exited 0; $(grep -h 'correctness' "$d"/na-*.out | sed 's/^dsm_kv //' | paste -sd';' -)"
	grep -h 'ops/s' "$d"/na-*.out | sed 's/^/      /'
	if "$checker" --expect-nodes "$k" "$d/h" >"$d/check.log" 2>&1; then
		ok "run $1: $(tail -1 "$d/check.log" | sed 's/^check_history: //')"
	else
		fail "run $1: history check: $(grep -m3 VIOLATION "$d/check.log" || tail -3 "$d/check.log")"
	fi
}

run 1 || true
if [ "$ctl" = 1 ]; then
	for n in $(seq 0 $((k - 1))); do
		if r=$("$here/swswitch-ctl" node-failed "$n" 2>&1); then
			echo "      node-failed $n: $r"
		else
			fail "swswitch-ctl node-failed $n: $r"
		fi
	done
fi
run 2 || true
if [ "$(sw_pid)" = "$pid0" ] && kill -0 "$pid0" 2>/dev/null; then
	ok "one swswitch (pid $pid0) served both runs"
else
	fail "swswitch changed or died ($pid0 -> $(sw_pid))"
fi
ratio=$(python3 -c "import sys; a, b = map(float, sys.argv[1:]); print('%.2f' % (b / a if a else 0))" \
	"${ops[1]:-0}" "${ops[2]:-0}")
if python3 -c "import sys; sys.exit(not float(sys.argv[1]) >= float(sys.argv[2]))" "$ratio" "$min_ratio"; then
	ok "operations: run 1 ${ops[1]}, run 2 ${ops[2]}: ratio $ratio (>= $min_ratio)"
else
	fail "operations: run 1 ${ops[1]:-0}, run 2 ${ops[2]:-0}: ratio $ratio (want >= $min_ratio)"
fi
echo "---- $(($(date +%s) - start_ts))s"
echo "$passed passed, $failures failed"
[ "$failures" = 0 ]
