#!/usr/bin/env bash
# Run every test: unit (Criterion), pcap vectors through the real swswitch,
# the malformed flood, P4/C parity, the protocol model check, the simulated
# and the namespace clusters. Installs what it needs first. Exits non-zero
# when anything fails.
#
# Lanes after the set-up: the steps that run swswitch (pcap vectors,
# namespace clusters) one after the other in the foreground; beside them, at
# nice 19 so that they only take CPU time the clusters leave idle, three
# lanes of CPU-bound steps (no swswitch, no namespace), each in order: a
# third of the SPIN model check's runs (by CPU cost), the fuzzing and the
# unit tests; a third, half of the na-sim runs, the sweep, the differential
# check and lint; the other checks, the last third and the other half of
# the na-sim runs (the queued differential check runs in the foreground
# after the clusters). Each lane is about a third of their CPU time (450-590 CPU-s
# each in the last fresh-clone run's figures), so that they end together
# (at most three pans at once: the heaviest three take 4.2, 3.3 and 2.1
# GB). A background lane's output is printed when it is reported, at the
# end. Each step prints its wall and CPU time (user+sys of the
# processes it waited for: a swswitch the cluster scripts start with setsid
# is not counted), and a table of all of them ends the output.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
export BUILD=${BUILD:-build}
# Every swswitch a test starts (scripts/cluster.sh, the pcap vectors, the
# fault, flood and multi-lcore tests) sleeps 100 us after 64 empty polls
# instead of polling a whole core, which the background lanes then get (a
# busy swswitch at nice 0 leaves a nice-19 lane almost nothing). Its own
# CPU: ~10% of a core idle. Benchmarks run by hand keep polling.
export SWSWITCH_TEST_ARGS=${SWSWITCH_TEST_ARGS---idle-sleep-us 100}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The smoke benchmarks' outputs (CSV, plots, logs), kept for a look after
# a failure; one directory per run, so that two runs never mix theirs.
out=$(mktemp -d "${TMPDIR:-/tmp}/swswitch-test.XXXXXX")
echo "=== benchmark outputs: $out ==="
lane="fg"
t_start=$SECONDS

# children_cpu_of FILE: user+sys seconds of the shell's waited-for
# children, from what `times` wrote to FILE (run in this shell, not in a
# command substitution, whose own children would be counted instead).
children_cpu_of() {
	awk 'NR == 2 { split($0, f, /[ms]+/); printf "%.2f", f[1] * 60 + f[2] + f[3] * 60 + f[4] }' "$1"
}
# step NAME CMD...: run CMD, print PASS/FAIL with its wall and CPU time, add
# a row to this lane's part of the summary (and to its failures).
step() {
	local name=$1 r t0=$((SECONDS - t_start))
	shift
	echo
	echo "=== $name ==="
	if [ -x "${TIME_BIN:-/usr/bin/time}" ]; then
		if "${TIME_BIN:-/usr/bin/time}" -q -f "%e %U %S" -o "$tmp/$lane.time" "$@"; then r=PASS; else r=FAIL; fi
	else
		# before setup.sh has installed `time` (the first step): the shell's
		# own clock and its children's CPU time (nothing runs beside it yet)
		local w0=$EPOCHREALTIME
		times >"$tmp/$lane.t0"
		if "$@"; then r=PASS; else r=FAIL; fi
		times >"$tmp/$lane.t1"
		awk -v a="$w0" -v b="$EPOCHREALTIME" -v c0="$(children_cpu_of "$tmp/$lane.t0")" \
			-v c1="$(children_cpu_of "$tmp/$lane.t1")" \
			'BEGIN { print b - a, c1 - c0, 0 }' >"$tmp/$lane.time"
	fi
	echo "=== $name: $r ($(awk '{ printf "%.0f s, CPU %.0f s", $1, $2 + $3 }' "$tmp/$lane.time")) ==="
	[ $r = FAIL ] && echo "$name" >>"$tmp/$lane.failed"
	awk -v r=$r -v t0="$t0" -v l="$lane" -v n="$name" \
		'{ printf "%-4s %-4s %6d %6.0f %6.0f  %s\n", r, l, t0, $1, $2 + $3, n }' \
		"$tmp/$lane.time" >>"$tmp/$lane.rows"
}
# bg_lane NAME FUNCTION: run FUNCTION's steps in the background at nice 19.
bg_lane() {
	echo
	echo "=== lane $1 started in the background (reported at the end) ==="
	(
		lane=$1
		renice -n 19 "$BASHPID" >/dev/null
		"$2"
	) >"$tmp/$1.log" 2>&1 &
	echo $! >"$tmp/$1.pid"
}
bg_report() {
	echo
	echo "=== lane $1 (background) ==="
	wait "$(cat "$tmp/$1.pid")"
	cat "$tmp/$1.log"
}
summary() {
	local l
	echo
	echo "=== time per step (s; start from the beginning; CPU = user+sys) ==="
	printf '%-4s %-4s %6s %6s %6s  %s\n' "" lane start wall CPU step
	for l in fg spin spin2 cpu; do
		[ -f "$tmp/$l.rows" ] && cat "$tmp/$l.rows"
	done
}

# The SPIN model check (docs/MODEL.md): SWMR, data values, nothing left
# held, liveness, validate-on-hit, queued locks; exhaustive at CI bounds.
# Its runs are dealt to the three lanes (model-check.sh --shard K/3).
spin_lane() {
	step "protocol model check (SPIN), first third by CPU cost (SWMR, data, no lock left, liveness, queued locks, validate-on-hit)" \
		bash scripts/model-check.sh --shard 0/3
	# its corpus is seeded from the pcap vectors' pcaps, which the first
	# foreground step writes
	while [ ! -e "$tmp/pcap.done" ]; do sleep 1; done
	# 15 s per harness at -O0 (scripts/fuzz.sh): a smoke with the regressions
	# replayed; long campaigns by hand (scripts/fuzz.sh 600)
	step "fuzzing + unit tests under ASan/UBSan" scripts/fuzz.sh "${FUZZ_SECONDS:-15}"
	# every unit test ran under the sanitizers in the step before but those
	# their build leaves out (it has no DPDK: test_shard)
	# shellcheck disable=SC2016 # expanded by the inner bash
	step "unit tests (Criterion) outside the sanitizer build" bash -c '
		units() { meson test -C "$1" --suite unit --list 2>/dev/null | sed -n "s|^.* / ||p" | sort; }
		comm -23 <(units "$BUILD") <(units "${FUZZ_BUILD:-build-fuzz}") |
			xargs -r meson test -C "$BUILD" --verbose --print-errorlogs'
}
spin2_lane() {
	step "protocol model check (SPIN), second third by CPU cost" \
		bash scripts/model-check.sh --shard 1/3
	step "applications in na-sim with the cost model (smoke: kv, tpcc, pagerank x 3 modes, determinism)" \
		scripts/bench-apps.sh --sim --smoke --out "${TMPDIR:-/tmp}/apps-sim-smoke"
	step "validate-on-hit: 0 stale reads, TTL stale (na-sim, histories checked)" \
		scripts/bench-voh.sh --stale-only --out "${TMPDIR:-/tmp}/voh-test"
	# ~90 CPU-s in all (42 + 48 on an idle machine): whole clusters in one process on a virtual clock,
	# seeded loss, duplication and reordering, every history checked
	# (docs/SIMULATION.md); half of the runs here, half in cpu_lane
	step "simulated cluster: seeded runs (first half), histories checked, determinism" \
		scripts/test-sim.sh --part 0/2
	# a fixed sample of 50 random harsh configurations (docs/SIMULATION.md
	# "Sweep"); ~25 CPU-s (93 before the migration epoch stopped scanning
	# every block of a home: two 64-byte-block runs took 70 of them)
	step "simulated cluster: random sweep, 50 harsh runs, histories checked" \
		scripts/sim-sweep.sh --count 50 --seed 2031 --events 1500 --keep "${TMPDIR:-/tmp}/sim-sweep-failures"
	# ~40 CPU-s each: 10^6 passes through lib/lcf and the Python reference
	# of PROTOCOL.md 4
	step "differential check: lib/lcf vs the reference (10^6 passes)" \
		python3 lib/tests/diff/lcf_diff.py --driver "$BUILD/lib/tests/lcf_diff_driver" --quiet
	# ~15 CPU-s, here rather than in cpu_lane: the sweep's 70 CPU-s fewer
	# left this lane the lightest
	step "lint (cycles, clang-format, cppcheck, shellcheck)" bash scripts/lint.sh
}
# Everything else that needs neither swswitch nor a namespace.
cpu_lane() {
	[ -x lib/p4/test_parity.sh ] && step "P4/C parity" lib/p4/test_parity.sh
	[ -x lib/p4/test_bfrt.sh ] && step "Tofino control-plane generator" lib/p4/test_bfrt.sh
	step "p4testgen translation (testgen_vectors.py)" \
		python3 -m unittest discover -s lib/p4 -p 'test_testgen*.py'
	# seconds without the compiler ("skipped"); with P4C_BAREFOOT set, minutes
	step "Tofino compile (p4c-barefoot, skipped when not installed)" lib/p4/compile.sh
	step "p4testgen tests of lcf.p4 (skipped when not installed)" lib/p4/testgen.sh
	# ~6 CPU-s: the Python's self-test, and the C build against it
	# (test_check_history_diff.py)
	[ -f node-agent/checker/test_check_history.py ] &&
		step "history checker self-test, C vs Python differential" \
			env CHECK_HISTORY_BIN="$BUILD/node-agent/checker/check-history" \
			python3 -m unittest discover -s node-agent/checker -p 'test_*.py'
	step "latency breakdown self-test (hand-made traces, < 1 s)" python3 -m unittest scripts/test_latency_breakdown.py
	step "protocol model check (SPIN), last third by CPU cost" \
		bash scripts/model-check.sh --shard 2/3
	# here, not after the fuzzing: this lane ended ~80 s before the others
	# (the SPIN set's huge pages and lint's batched nm took less from them)
	step "simulated cluster: seeded runs (second half), histories checked" \
		scripts/test-sim.sh --part 1/2
}

step "setup: packages and build (scripts/setup.sh)" bash scripts/setup.sh
# python3 resolved once. Where it is a version manager's shim (pyenv's is a
# bash script that runs `pyenv exec`: 0.6 CPU-s a start, the interpreter
# itself 0.06), every start the tests make (per na-sim run, per cluster,
# per check) would pay it: a third of test-sim.sh's CPU time. Only python3
# is redirected, to the interpreter the shim would have run.
py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
if [ -x "$py" ] && [ "$(command -v python3)" != "$py" ]; then
	mkdir -p "$tmp/bin" && ln -sf "$py" "$tmp/bin/python3" && export PATH="$tmp/bin:$PATH"
fi
if [ -s "$tmp/fg.failed" ]; then
	summary
	exit 1
fi
bg_lane spin spin_lane
bg_lane spin2 spin2_lane
bg_lane cpu cpu_lane
[ -x pcap-tests/run-all.sh ] &&
	step "pcap vectors, dissector, malformed flood" pcap-tests/run-all.sh "$BUILD/swswitch/swswitch"
touch "$tmp/pcap.done"
step "swswitch fault injection" python3 swswitch/tests/test_faults.py "$BUILD/swswitch/swswitch"
[ -x scripts/test-multicore.sh ] &&
	step "multi-lcore: per-tag order across 2 workers" scripts/test-multicore.sh "$BUILD/swswitch/swswitch"
[ -x scripts/bench-switch.sh ] &&
	step "switch benchmark (smoke: output well formed, not speed)" scripts/bench-switch.sh --smoke
[ -x scripts/test-e2e.sh ] && step "end-to-end DSM on a namespace cluster" scripts/test-e2e.sh
# ~10 s: meson install, an application built with pkg-config, run on 2 nodes
step "libdsm installed: an application built with pkg-config runs on 2 nodes" scripts/test-install.sh
[ -x scripts/test-restart.sh ] && step "switch restart: SIGKILL mid-run, recovery, history check (~40 s)" scripts/test-restart.sh
[ -x scripts/test-drain.sh ] && step "memory-node failure: SIGKILL a node, drain (homes, then the switch command), history check (~50 s)" scripts/test-drain.sh
[ -x scripts/test-rejoin.sh ] && step "new incarnations on a running switch: dsm_kv twice, node-failed between, histories checked (~55 s)" scripts/test-rejoin.sh
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
	step "end-to-end benchmark (smoke: 3 modes, histories checked)" scripts/bench-e2e.sh --smoke --out "$out/bench-e2e"
# ~2-3 min: the key-value store, TPC-C and PageRank in the three modes on 2
# nodes, each checked (histories, consistency conditions, reference ranks)
step "applications (smoke: kv, tpcc, pagerank x 3 modes, checked)" \
	scripts/bench-apps.sh --smoke --out "$out/bench-apps"
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
	--out "$out/bench-locks"
# ~20 s: SABRes torn objects, validate-on-hit stale reads, PIPE diff round
# trips (correctness counters of the three benchmarks, never speed)
step "other papers' mechanisms (smoke: SABRes, validate-on-hit, PIPE)" \
	scripts/bench-seeds.sh --smoke --out "$out/bench-seeds"
# CPU-bound, after the clusters: the foreground lane ends ~300 s before the
# background ones and would otherwise leave them the last of the CPU alone.
step "differential check, queued lock mode (docs/QUEUED-LOCKS.md; 10^6 passes)" \
	python3 lib/tests/diff/lcf_diff.py --driver "$BUILD/lib/tests/lcf_diff_driver" --quiet \
	--topo topo/pcap3q.json

bg_report cpu
bg_report spin
bg_report spin2
summary
echo "total: $((SECONDS - t_start)) s"
if cat "$tmp"/*.failed >"$tmp/all.failed" 2>/dev/null; [ -s "$tmp/all.failed" ]; then
	echo "FAILED: $(paste -sd ';' "$tmp/all.failed")"
	exit 1
fi
echo "ALL TESTS PASSED"
