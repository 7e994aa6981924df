#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Integration test of dsm_tpcc (node-agent/apps/tpcc/README.md) on a
# namespace cluster; builds nothing (build/ or $BUILD). One run per mode
# (switch, home, directory) at TPC-C's own remote ratios, one run at
# --dist-ratio 0.3 (in home mode) in which aborts must occur, and one run
# with --inject-bug, which breaks condition 1 on purpose and must fail.
# Every run: K nodes, 2 threads each, a small scale, a fresh switch; each
# node must exit 0 with its warehouses' consistency conditions holding
# (the --inject-bug run: exit 1 naming condition 1). About 45 s.
#
#   scripts/test-app-tpcc.sh [--nodes K] [--mode M] [--duration S]
#                            [--out DIR] [--keep DIR]
#     --nodes K     nodes running the app, topo/demoK.json (default 2)
#     --mode M      only this mode (switch, home, directory; default all)
#     --duration S  measured phase of each run (default 2)
#     --out DIR     keep the CSV rows (tpcc.csv), --stats JSON and logs
#     --keep DIR    keep the whole work directory
#   ($SWCL_ID: the cluster, default t; $SWCL_LCORES: swswitch's lcore)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
nodes=2 modes="switch home directory" duration=2 out="" keep=""
while [ $# -gt 0 ]; do
	case "$1" in
	--nodes) nodes=$2; shift ;;
	--mode) modes=$2; shift ;;
	--duration) duration=$2; shift ;;
	--out) out=$2; shift ;;
	--keep) keep=$2; shift ;;
	-h | --help)
		sed -n 3,21p "$0"
		exit 0
		;;
	*)
		echo "test-app-tpcc.sh: unknown argument $1" >&2
		exit 2
		;;
	esac
	shift
done
case "$nodes" in 2 | 3 | 4) ;; *) echo "test-app-tpcc.sh: --nodes 2, 3 or 4" >&2; exit 2 ;; esac
for m in $modes; do
	case "$m" in switch | home | directory) ;; *) echo "test-app-tpcc.sh: bad --mode $m" >&2; exit 2 ;; esac
done
export SWCL_ID=${SWCL_ID:-t}
# shellcheck source=scripts/cluster_test_lib.sh
. "$here/cluster_test_lib.sh"
cluster_test_setup app-tpcc
app=$build_dir/node-agent/apps/tpcc/dsm_tpcc
topo=$repo/topo/demo$nodes.json
[ -x "$app" ] || { fail "no $app (build first)"; exit 1; }
passed=0
ok() { pass "$@"; passed=$((passed + 1)); }
[ -n "$out" ] && mkdir -p "$out"
csv=$work/tpcc.csv
# A small scale: loading takes about a second.
scale=(--threads 2 --items 2000 --customers-per-district 60 --max-orders 1500)

if ! "$cluster" up "$topo" --force >"$work/cluster-up.log" 2>&1; then
	fail "cluster up ($topo)"
	tail -5 "$work/cluster-up.log"
	exit 1
fi

# run NAME MODE EXPECT(0|bug) ARGS...: one run on a fresh switch.
run() {
	local name=$1 mode=$2 expect=$3 dir=$work/$1 n np=() bad=0
	shift 3
	mkdir -p "$dir"
	"$cluster" restart-switch >"$dir/switch.log" 2>&1 || { fail "$name: switch restart"; return; }
	for ((n = 0; n < nodes; n++)); do
		"$cluster" exec "$n" "$app" --topo "$topo" --node "$n" \
			--nodes "$nodes" --mode "$mode" --duration "$duration" \
			"${scale[@]}" --csv "$csv" --stats "$dir/stats-n$n.json" \
			"$@" >"$dir/na-$n.log" 2>&1 &
		np+=("$n=$!")
	done
	if [ "$expect" = bug ]; then
		# Every node must fail, naming the broken condition.
		local deadline=$(($(date +%s) + duration + 40)) rc
		for e in "${np[@]}"; do
			while kill -0 "${e#*=}" 2>/dev/null && [ "$(date +%s)" -lt $deadline ]; do sleep 0.2; done
			kill -INT "${e#*=}" 2>/dev/null || true
			rc=0
			wait "${e#*=}" || rc=$?
			if [ $rc != 1 ] || ! grep -q "condition 1 (W_YTD" "$dir/na-${e%%=*}.log"; then
				fail "$name: node ${e%%=*} exited $rc without reporting condition 1"
				tail -3 "$dir/na-${e%%=*}.log"
				bad=1
			fi
		done
		[ $bad = 0 ] && ok "$name: the broken run fails on every node: $(grep -m1 -o 'condition 1 .* violated in warehouse [0-9]*' "$dir/na-0.log")"
		return
	fi
	wait_nodes "$name: " $((duration + 40)) "$dir" "${np[@]}" || return
	for ((n = 0; n < nodes; n++)); do
		if ! grep -q "consistency conditions 1-7.* hold" "$dir/na-$n.log"; then
			fail "$name: node $n did not report its check"
			bad=1
		fi
	done
	[ $bad = 0 ] || return
	# node,ops,ops_per_s,aborts of this run's rows (the last $nodes)
	local rows
	rows=$(grep ",$mode,tpcc," "$csv" | tail -n "$nodes")
	ok "$name: consistent on $nodes nodes; $(awk -F, '{o += $8; r += $9; a += $10} END {printf "%d transactions, %.0f/s, %d aborts", o, r, a}' <<<"$rows")"
	if [ "$expect" = aborts ]; then
		if awk -F, '{a += $10} END {exit !(a > 0)}' <<<"$rows"; then
			ok "$name: aborts occurred (no-wait conflicts, all retried)"
		else
			fail "$name: no abort at --dist-ratio 0.3"
		fi
	fi
}

for m in $modes; do
	run "$m" "$m" 0 || true
done
dm=home
[[ " $modes " = *" home "* ]] || dm=${modes%% *}
run "dist-0.3-$dm" "$dm" aborts --dist-ratio 0.3 || true
run "inject-bug-$dm" "$dm" bug --inject-bug || true

if [ -n "$out" ]; then
	cp "$csv" "$out/" 2>/dev/null || true
	for d in "$work"/*/; do
		mkdir -p "$out/$(basename "$d")" && cp "$d"* "$out/$(basename "$d")/"
	done
fi
echo "---- $(($(date +%s) - start_ts))s"
echo "$passed passed, $failures failed"
[ "$failures" = 0 ]
