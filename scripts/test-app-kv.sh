#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Integration test of the key-value store (node-agent/apps/kv, dsm_kv): a
# namespace cluster of K nodes (topo/demoK.json), and per coherence mode
# (switch, home, directory), on a freshly started swswitch, dsm_kv on every
# node for a few seconds, YCSB-A (50% PUT) over a small Zipf(0.99) key
# space. Checked per mode:
#   1. every node exits 0: no torn value, no missing key, no failed call;
#   2. node-agent/checker/check_history.py passes on all nodes' histories
#      (every GET returned the value of the last PUT before it, or of one
#      concurrent with it; the loaded values are the initial value 0);
#   3. where events are serialised: --mode switch serialises some in the
#      switch (requester events_in_switch > 0), home and directory none.
# Builds nothing (build first: meson setup build && ninja -C build).
#
#   sudo SWCL_ID=x scripts/test-app-kv.sh [--nodes K] [--mode M]
#        [--duration S] [--keys N] [--out DIR] [--keep DIR] [--build-dir DIR]
#     --nodes K      2..4 (default 2)
#     --mode M       switch, home or directory (default: all three)
#     --duration S   measured phase per run (default 3)
#     --keys N       key space (default 20000)
#     --out DIR      keep the CSV rows (kv.csv), --stats JSON and logs here
#     --keep DIR     keep the whole work directory (histories too)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)

k=2 modes="switch home directory" duration=3 keys=20000 out="" keep=""
build_dir=""
die() { printf 'test-app-kv: error: %s\n' "$*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--nodes) k=$2; shift 2 ;;
	--mode) modes=$2; shift 2 ;;
	--duration) duration=$2; shift 2 ;;
	--keys) keys=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--keep) keep=$2; shift 2 ;;
	--build-dir) build_dir=$2; shift 2 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option $1 (--help)" ;;
	esac
done
[[ $k =~ ^[2-4]$ ]] || die "--nodes: 2, 3 or 4"
for m in $modes; do
	case $m in switch|home|directory) ;; *) die "--mode: switch, home or directory" ;; esac
done
[[ $duration =~ ^[0-9]+([.][0-9]+)?$ ]] || die "--duration: seconds"

# shellcheck source=scripts/cluster_test_lib.sh
. "$here/cluster_test_lib.sh"
cluster_test_setup app-kv
kv=$build_dir/node-agent/apps/kv/dsm_kv
[ -x "$kv" ] || die "not built: $kv"
topo=$repo/topo/demo$k.json
passed=0
ok() { pass "$@"; passed=$((passed + 1)); }

"$cluster" up "$topo" --swswitch "$swswitch" --force >"$work/cluster.log" 2>&1 || {
	fail "cluster up ($topo)"
	tail "$work/cluster.log"
	echo "$passed passed, $failures failed"
	exit 1
}

# share DIR -> "IN AT_HOME" summed over the nodes' --stats files
events() {
	python3 - "$1"/s*.json <<'EOF'
import json, sys
i = h = 0
for p in sys.argv[1:]:
    r = json.load(open(p))["requester"]
    i += r["events_in_switch"]
    h += r["events_at_home"]
print(i, h)
EOF
}

for mode in $modes; do
	d=$work/$mode
	mkdir -p "$d"
	# Every run starts on an empty switch: the requesters' sequence
	# numbers start again at 1 in new processes (docs/CLUSTER.md).
	if ! "$cluster" restart-switch >>"$work/cluster.log" 2>&1; then
		fail "$mode: swswitch restart"
		continue
	fi
	nps=()
	for n in $(seq 0 $((k - 1))); do
		"$cluster" exec "$n" "$kv" --topo "$topo" --node "$n" --nodes "$k" \
			--mode "$mode" --workload ycsb-a --keys "$keys" \
			--duration "$duration" --max-rate 4000 --seed 7 \
			--history "$d/h" --csv "$work/kv.csv" --stats "$d/s$n.json" \
			>"$d/na-$n.out" 2>"$d/na-$n.log" &
		nps+=("$n=$!")
	done
	limit=$((${duration%.*} + 40))
	if wait_nodes "$mode: " "$limit" "$d" "${nps[@]}"; then
		ok "$mode: $k nodes exited 0; $(grep -h 'correctness' "$d"/na-*.out | sed 's/^dsm_kv //' | paste -sd';' -)"
	else
		cat "$d"/na-*.out
		continue
	fi
	if "$checker" --expect-nodes "$k" "$d/h" >"$d/check.log" 2>&1; then
		ok "$mode: $(tail -1 "$d/check.log" | sed 's/^check_history: //')"
	else
		fail "$mode: history check: $(grep -m3 VIOLATION "$d/check.log" || tail -3 "$d/check.log")"
	fi
	read -r in_sw at_home < <(events "$d")
	if [ "$mode" = switch ] && [ "$in_sw" -gt 0 ]; then
		ok "$mode: the switch serialised $in_sw of $((in_sw + at_home)) coherence events"
	elif [ "$mode" != switch ] && [ "$in_sw" = 0 ]; then
		ok "$mode: all $at_home coherence events serialised at the homes"
	else
		fail "$mode: coherence events in the switch $in_sw, at the homes $at_home"
	fi
	grep -h 'ops/s' "$d"/na-*.out | sed 's/^/      /'
done

if [ -n "$out" ]; then
	mkdir -p "$out"
	[ -f "$work/kv.csv" ] && cp "$work/kv.csv" "$out/"
	for mode in $modes; do
		[ -d "$work/$mode" ] || continue
		mkdir -p "$out/$mode"
		cp "$work/$mode"/*.json "$work/$mode"/na-* "$work/$mode"/check.log "$out/$mode/" 2>/dev/null || true
	done
	echo "results in $out"
fi
echo "---- $(($(date +%s) - start_ts))s"
echo "$passed passed, $failures failed"
[ "$failures" = 0 ]
