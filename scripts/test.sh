#!/usr/bin/env bash
# Run every test: unit (Criterion), pcap vectors through the real swswitch,
# the malformed flood, P4/C parity, and the end-to-end DSM test. Installs
# what it needs first. Exits non-zero when anything fails.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
export BUILD=${BUILD:-build}
bash scripts/setup.sh || exit 1

failed=()
bg_pids=()
bg_names=()
bg_t0=()
tmp_bg=$(mktemp -d)
trap 'rm -rf "$tmp_bg"' EXIT
# bg_step NAME CMD...: run a CPU-bound test that needs no network namespace
# in the background at nice 19, beside the cluster tests (which mostly wait:
# it takes only CPU time they leave idle); bg_wait reports it at the end.
bg_step() {
	local name=$1
	shift
	echo
	echo "=== $name: started in the background (reported at the end) ==="
	nice -n 19 "$@" >"$tmp_bg/${#bg_pids[@]}.log" 2>&1 &
	bg_pids+=($!)
	bg_names+=("$name")
	bg_t0+=("$SECONDS")
}
bg_wait() {
	local i
	for i in "${!bg_pids[@]}"; do
		echo
		echo "=== ${bg_names[$i]} (background) ==="
		if wait "${bg_pids[$i]}"; then
			cat "$tmp_bg/$i.log"
			echo "=== ${bg_names[$i]}: PASS (finished within $((SECONDS - bg_t0[i])) s) ==="
		else
			cat "$tmp_bg/$i.log"
			echo "=== ${bg_names[$i]}: FAIL ==="
			failed+=("${bg_names[$i]}")
		fi
	done
}
step() {
	local name=$1
	shift
	local t0=$SECONDS
	echo
	echo "=== $name ==="
	if "$@"; then
		echo "=== $name: PASS ($((SECONDS - t0)) s) ==="
	else
		echo "=== $name: FAIL ($((SECONDS - t0)) s) ==="
		failed+=("$name")
	fi
}

step "unit tests (Criterion)" meson test -C "$BUILD" --suite unit --verbose --print-errorlogs
# ~15 s: cycles, clang-format, cppcheck, shellcheck
step "lint (cycles, clang-format, cppcheck, shellcheck)" bash scripts/lint.sh
[ -x pcap-tests/run-all.sh ] &&
	step "pcap vectors, dissector, malformed flood" pcap-tests/run-all.sh "$BUILD/swswitch/swswitch"
step "swswitch fault injection" python3 swswitch/tests/test_faults.py "$BUILD/swswitch/swswitch"
[ -x scripts/test-multicore.sh ] &&
	step "multi-lcore: per-tag order across 2 workers" scripts/test-multicore.sh "$BUILD/swswitch/swswitch"
[ -x scripts/bench-switch.sh ] &&
	step "switch benchmark (smoke: output well formed, not speed)" scripts/bench-switch.sh --smoke
step "fuzzing + unit tests under ASan/UBSan" scripts/fuzz.sh "${FUZZ_SECONDS:-20}"
# ~5 min of one core: SPIN, exhaustively at CI bounds (docs/MODEL.md)
bg_step "protocol model check (SPIN): SWMR, data, no lock left, liveness" bash scripts/model-check.sh
# ~30 s: 10^6 passes through lib/lcf and the Python reference of PROTOCOL.md 4
step "differential check: lib/lcf vs the reference (10^6 passes)" \
	python3 lib/tests/diff/lcf_diff.py --driver "$BUILD/lib/tests/lcf_diff_driver" --quiet
step "differential check, queued lock mode (docs/QUEUED-LOCKS.md; 10^6 passes)" \
	python3 lib/tests/diff/lcf_diff.py --driver "$BUILD/lib/tests/lcf_diff_driver" --quiet \
	--topo topo/pcap3q.json
[ -x lib/p4/test_parity.sh ] && step "P4/C parity" lib/p4/test_parity.sh
[ -x lib/p4/test_bfrt.sh ] && step "Tofino control-plane generator" lib/p4/test_bfrt.sh
# seconds without the compiler ("skipped"); with P4C_BAREFOOT set, minutes
step "Tofino compile (p4c-barefoot, skipped when not installed)" lib/p4/compile.sh
[ -f node-agent/checker/test_check_history.py ] &&
	step "history checker self-test" python3 -m unittest discover -s node-agent/checker -p 'test_*.py'
# ~1-2 min: whole clusters in one process on a virtual clock, seeded loss,
# duplication and reordering, every history checked (docs/SIMULATION.md)
step "simulated cluster: seeded runs, histories checked, determinism" scripts/test-sim.sh
# a fixed sample of 50 random harsh configurations (docs/SIMULATION.md "Sweep")
step "simulated cluster: random sweep, 50 harsh runs, histories checked" scripts/sim-sweep.sh --count 50 --seed 2031 --events 1500 --keep "${TMPDIR:-/tmp}/sim-sweep-failures"
step "validate-on-hit: 0 stale reads, TTL stale (na-sim, histories checked)" scripts/bench-voh.sh --stale-only --out "${TMPDIR:-/tmp}/voh-test"
[ -x scripts/test-e2e.sh ] && step "end-to-end DSM on a namespace cluster" scripts/test-e2e.sh
# ~10 s: meson install, an application built with pkg-config, run on 2 nodes
step "libdsm installed: an application built with pkg-config runs on 2 nodes" scripts/test-install.sh
[ -x scripts/test-restart.sh ] && step "switch restart: SIGKILL mid-run, recovery, history check (~40 s)" scripts/test-restart.sh
[ -x scripts/test-drain.sh ] && step "memory-node failure: SIGKILL a node, drain (homes, then the switch command), history check (~50 s)" scripts/test-drain.sh
[ -x scripts/test-migration.sh ] &&
	step "dynamic ownership migration (~20-40 s)" scripts/test-migration.sh
# ~25 s: the same under 1% drop + 1% duplication of every frame type
[ -x scripts/test-migration.sh ] &&
	step "migration under loss and duplication (~25 s)" scripts/test-migration.sh --faults 0.01
# ~30 s: SABRes atomic object reads: a capture (registration, data, one
# validation per read) and 0 torn 8 KB objects under writers (docs/SABRES.md)
[ -x scripts/test-sabres.sh ] &&
	step "SABRes: capture and 0 torn objects under writers (~30 s)" scripts/test-sabres.sh
# ~90 s: counter workload + history checker in the three coherence modes,
# then one 2 s micro point each; checks correctness and CSV format, never speed.
[ -x scripts/bench-e2e.sh ] &&
	step "end-to-end benchmark (smoke: 3 modes, histories checked)" scripts/bench-e2e.sh --smoke --out /tmp/swswitch-bench-e2e-smoke
# ~2-3 min: the key-value store, TPC-C and PageRank in the three modes on 2
# nodes, each checked (histories, consistency conditions, reference ranks)
step "applications (smoke: kv, tpcc, pagerank x 3 modes, checked)" \
	scripts/bench-apps.sh --smoke --out /tmp/swswitch-bench-apps-smoke
# ~1 min: what the smoke does not cover: TPC-C aborts under contention and a
# deliberately broken run caught; PageRank on a SNAP file, a malformed one
step "TPC-C: aborts at distribution ratio 0.3, an injected bug caught" \
	scripts/test-app-tpcc.sh --mode home
step "PageRank: SNAP input, malformed input refused" \
	scripts/test-app-pagerank.sh --mode home
# ~2-3 min: the lock benchmark's hand-over (4 nodes x 2 threads), GCS and
# KV (per-bucket rwlocks) workloads in both lock modes, on a namespace
# cluster (histories; queued hand-overs: at most 1 NACK per 1,000
# operations; a watchdog; never speed).
step "lock benchmark (smoke: retry and queued modes, histories checked)" \
	scripts/bench-locks.sh --smoke --modes retry,queued --workloads handover,gcs,kv \
	--out /tmp/swswitch-bench-locks-smoke
# ~20 s: SABRes torn objects, validate-on-hit stale reads, PIPE diff round
# trips (correctness counters of the three benchmarks, never speed)
step "other papers' mechanisms (smoke: SABRes, validate-on-hit, PIPE)" \
	scripts/bench-seeds.sh --smoke --out /tmp/swswitch-bench-seeds-smoke

bg_wait
echo
echo "total: $SECONDS s"
if ((${#failed[@]})); then
	echo "FAILED: ${failed[*]}"
	exit 1
fi
echo "ALL TESTS PASSED"
