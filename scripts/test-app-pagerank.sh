#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# dsm_pagerank on a namespace cluster (node-agent/apps/pagerank/README.md):
# K nodes (default 2) run PageRank on an R-MAT graph (scale 13, 10
# iterations) once in each coherence mode, and once more on a small SNAP
# edge list this script writes (non-dense ids, comments, dangling vertices).
# A run passes when every node exits 0, i.e. all final ranks, read back
# from global memory, match the single-process reference within 1e-6, and
# wrote its CSV row. A malformed SNAP file must be refused with exit 2.
# swswitch is restarted empty before each run: blocks a finished run left
# in the switch belong to processes that are gone. Builds nothing (uses
# $BUILD, default build/). About 30 s.
#
#   sudo SWCL_ID=p scripts/test-app-pagerank.sh [--nodes K] [--mode M]
#        [--duration S] [--out DIR] [--keep DIR]
#
#   --nodes K     nodes running the app, 2..4 (topology topo/demoK.json)
#   --mode M      switch, home or directory (default: all three)
#   --duration S  PageRank runs a fixed number of iterations, not a time:
#                 S only bounds each run (limit S + 40 s; default 5)
#   --out DIR     keep the CSV rows (pagerank.csv), --stats JSON and logs
#   --keep DIR    keep the whole work directory
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)

nodes=2 modes="switch home directory" duration=5 out="" keep=""
scale=13 iterations=10
die() { printf 'test-app-pagerank: error: %s\n' "$*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--nodes) nodes=${2:-}; shift 2 ;;
	--mode) modes=${2:-}; shift 2 ;;
	--duration) duration=${2:-}; shift 2 ;;
	--out) out=${2:-}; shift 2 ;;
	--keep) keep=${2:-}; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option $1 (--help)" ;;
	esac
done
[[ $nodes =~ ^[2-4]$ ]] || die "--nodes: 2..4, got '$nodes'"
[[ $duration =~ ^[0-9]+$ ]] || die "--duration: whole seconds, got '$duration'"
for m in $modes; do
	case $m in switch | home | directory) ;; *) die "--mode: switch, home or directory, got '$m'" ;; esac
done

# shellcheck source=scripts/cluster_test_lib.sh
. "$here/cluster_test_lib.sh"
cluster_test_setup app-pagerank
passes=0
pass() { printf 'PASS  %s\n' "$*"; passes=$((passes + 1)); }
app=$build_dir/node-agent/apps/pagerank/dsm_pagerank
topo=$repo/topo/demo$nodes.json
[ -x "$app" ] || die "$app not built (meson setup build && ninja -C build)"
if [ -n "$out" ]; then mkdir -p "$out" && out=$(cd "$out" && pwd); else out=$work; fi
rm -f "$out/pagerank.csv"
csv=$out/pagerank.csv
limit=$((duration + 40))

# A SNAP file: 1500 vertices with sparse ids (7 v + 100), comments, tabs,
# a blank line; vertex v links to 1..6 others drawn by an LCG, every 10th
# vertex links nowhere (dangling).
snap=$work/snap-small.txt
awk 'BEGIN {
	print "# Directed graph (each unordered pair of nodes is saved once): snap-small.txt"
	print "# Nodes: 1500"; print "# FromNodeId\tToNodeId"; print ""
	x = 12345
	for (v = 0; v < 1500; v++) {
		if (v % 10 == 9) continue
		x = (x * 1103515245 + 12345) % 2147483648
		k = 1 + x % 6
		for (j = 0; j < k; j++) {
			x = (x * 1103515245 + 12345) % 2147483648
			printf "%d\t%d\n", 7 * v + 100, 7 * (x % 1500) + 100
		}
	}
}' >"$snap"

# The app refuses bad input before it joins the DSM: no cluster needed.
printf '1 2\n3 x\n' >"$work/snap-bad.txt"
rc=0
"$app" --topo "$topo" --node 0 --edges "$work/snap-bad.txt" >"$work/bad.out" 2>&1 || rc=$?
if [ $rc = 2 ] && grep -q "snap-bad.txt:2: expected" "$work/bad.out"; then
	pass "malformed SNAP file refused (exit 2): $(head -1 "$work/bad.out")"
else
	fail "malformed SNAP file: exit $rc, $(head -2 "$work/bad.out")"
fi

if ! "$cluster" up "$topo" --force >"$work/cluster-up.log" 2>&1; then
	fail "cluster up"
	tail -5 "$work/cluster-up.log"
	echo "$passes passed, $failures failed"
	exit 1
fi

# run LABEL MODE APP-ARGS...: one run on nodes 0..K-1, checked.
run() {
	local label=$1 mode=$2 dir=$out/$1 n pids=() line
	shift 2
	mkdir -p "$dir"
	"$cluster" restart-switch >"$dir/restart-switch.log" 2>&1 ||
		{ fail "$label: swswitch restart"; return; }
	for n in $(seq 0 $((nodes - 1))); do
		"$cluster" exec "$n" "$app" --topo "$topo" --node "$n" \
			--nodes "$nodes" --mode "$mode" --seed 7 \
			--iterations "$iterations" --csv "$csv" \
			--stats "$dir/stats-$n.json" "$@" \
			>"$dir/out-$n.txt" 2>"$dir/na-$n.log" &
		pids+=("$n=$!")
	done
	if ! wait_nodes "$label: " "$limit" "$dir" "${pids[@]}"; then
		grep -h "MISMATCH" "$dir"/out-*.txt || true
		return
	fi
	for n in $(seq 0 $((nodes - 1))); do
		if ! grep -q "ranks match the reference" "$dir/out-$n.txt"; then
			fail "$label: node $n printed no reference match"
			return
		fi
	done
	line=$(grep -h "iterations in" "$dir/out-0.txt")
	pass "$label ($mode, $nodes nodes): ${line#*: }; $(grep -ho 'max |err| [^ ]*' "$dir/out-0.txt"); $(grep -ho '[0-9]* ops/s' "$dir/out-0.txt") on node 0"
}

for m in $modes; do
	run "rmat-$m" "$m" --scale "$scale"
done
first=${modes%% *}
run "snap-$first" "$first" --edges "$snap"

rows=$(($(wc -l <"$csv" 2>/dev/null || echo 1) - 1))
expect=$(($(wc -w <<<"$modes") + 1))
if [ "$rows" = $((expect * nodes)) ]; then
	pass "CSV $csv: $rows rows"
else
	fail "CSV $csv: $rows rows, expected $((expect * nodes))"
fi
echo "---- $(($(date +%s) - start_ts)) s"
echo "$passes passed, $failures failed"
[ "$failures" = 0 ]
