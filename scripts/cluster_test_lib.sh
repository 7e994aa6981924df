# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Set-up shared by the cluster tests (test-e2e.sh, test-restart.sh,
# test-drain.sh, test-migration.sh). Sourced after option parsing; the
# caller has set $here, $repo, $keep and optionally $build_dir. Sourcing
# sets $cluster, $checker and the cluster's run directory $RUN_DIR
# (SWCL_ID and SWCL_RUN_DIR exported for cluster.sh).
#
#   cluster_test_setup NAME  root check, $swswitch, $nagent and $checker from
#                            $build_dir (else $BUILD, else build/), a work
#                            directory $work, PASS/FAIL counting in
#                            $failures, and a trap that takes the cluster
#                            down and keeps $work in $keep if asked
#   topo_node_ids TOPO       the topology's node ids, space-separated

# Sourced: $here and $repo come from the caller, and the variables set here
# ($checker, $swswitch, $nagent, $start_ts, ...) are the caller's to use.
# shellcheck disable=SC2034,SC2154
cluster=$here/cluster.sh
# shellcheck source=scripts/history_checker.sh
. "$here/history_checker.sh"
export SWCL_ID=${SWCL_ID:-}
RUN_DIR=${SWCL_RUN_DIR:-/tmp/swswitch-cluster$SWCL_ID}
export SWCL_RUN_DIR=$RUN_DIR

pass() { printf 'PASS  %s\n' "$*"; }
fail() { printf 'FAIL  %s\n' "$*"; failures=$((failures + 1)); }

topo_node_ids() {
	python3 -c 'import json,sys; print(" ".join(str(n["id"]) for n in json.load(open(sys.argv[1]))["nodes"]))' "$1"
}

# shellcheck disable=SC2317  # invoked by trap
cluster_test_cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	"$cluster" down >/dev/null 2>&1 || "$cluster" down || true
	if [ -n "$keep" ]; then
		mkdir -p "$keep" && cp -r "$work"/. "$keep"/ && echo "artifacts kept in $keep"
	fi
	rm -rf "$work"
	exit "$rc"
}

cluster_test_setup() {
	[ "$(id -u)" = 0 ] || { echo "$1: must run as root (network namespaces)" >&2; exit 2; }
	build_dir=${build_dir:-${BUILD:-build}}
	[[ $build_dir = /* ]] || build_dir=$repo/$build_dir
	swswitch=$build_dir/swswitch/swswitch
	nagent=$build_dir/node-agent/node-agent
	checker=$(history_checker "$build_dir")
	work=$(mktemp -d "/tmp/swswitch-$1.XXXXXX")
	failures=0
	trap cluster_test_cleanup EXIT
	trap 'exit 130' INT TERM
	start_ts=$(date +%s)
}

# wait_nodes LABEL LIMIT LOGDIR NODE=PID...: wait for node agents until LIMIT
# seconds from now. One still running then fails, has its threads' stacks
# written to LOGDIR/na-NODE.stacks (so a hang seen once in CI can be
# diagnosed from its log) and gets SIGINT (it stops its workload and writes
# its history and stats), SIGKILL 10 s later; a
# non-zero exit fails too (with the tail of LOGDIR/na-NODE.log). LABEL
# prefixes the messages. A function on_hang, if the caller defines one, is
# called with LOGDIR NODE=PID... before a late node is stopped. Returns 0 when every node exited 0.
nodes_alive() {
	local np
	for np in "$@"; do kill -0 "${np#*=}" 2>/dev/null && return 0; done
	return 1
}

dump_stacks() {
	command -v gdb >/dev/null || return 0
	timeout 20 gdb -batch -p "$1" -ex 'thread apply all bt' >"$2" 2>&1 || true
	grep -E '^(Thread|#[0-9]+ )' "$2" | head -40
}

wait_nodes() {
	local label=$1 limit=$2 logdir=$3 deadline np rc bad=0
	shift 3
	deadline=$(($(date +%s) + limit))
	while nodes_alive "$@" && [ "$(date +%s)" -lt $deadline ]; do sleep 0.2; done
	if nodes_alive "$@"; then
		# the caller's diagnostics (state dumps) before the nodes stop
		if declare -F on_hang >/dev/null; then on_hang "$logdir" "$@" || true; fi
		for np in "$@"; do
			kill -0 "${np#*=}" 2>/dev/null || continue
			fail "${label}node ${np%%=*} did not finish within ${limit}s"
			dump_stacks "${np#*=}" "$logdir/na-${np%%=*}.stacks"
			kill -INT "${np#*=}" 2>/dev/null || true
		done
		for _ in $(seq 1 50); do nodes_alive "$@" || break; sleep 0.2; done
		for np in "$@"; do kill -KILL "${np#*=}" 2>/dev/null || true; done
		bad=1
	fi
	for np in "$@"; do
		rc=0
		wait "${np#*=}" 2>/dev/null || rc=$?
		[ $rc = 0 ] && continue
		fail "${label}node ${np%%=*} exited with status $rc"
		tail -10 "$logdir/na-${np%%=*}.log"
		bad=1
	done
	return $bad
}
