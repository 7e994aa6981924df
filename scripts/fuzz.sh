#!/usr/bin/env bash
# Build the libraries with clang + ASan + UBSan, run the unit tests under the
# sanitizers, then each libFuzzer harness for a bounded time.
#   scripts/fuzz.sh [SECONDS_PER_HARNESS]   (default 30)
# Seeds for the pipeline harness come from the pcap vectors' pcaps when they
# have been generated (pcap-tests/run-all.sh does that), plus the topology
# files for the loader harness. Crashes are written to build-fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-30}
B=${FUZZ_BUILD:-build-fuzz}

# -O0: the build's CPU time is 109 s at -O0, 192 s at -O2; the unit tests
# under the sanitizers take the same (107-109 s, forks), the harnesses run
# 75% of -O2's inputs per second.
# Line tables only (-gline-tables-only, not -g): the sanitizers' reports
# keep their file:line frames, the compiles and links skip the full debug
# information. lld links when installed (setup.sh installs it): 0.5 CPU-s
# a sanitizer-runtime link where ld.bfd takes 0.7, times 48 executables.
# The build of the targets below: 106 CPU-s with -g and ld.bfd, 90 so.
if [ ! -f "$B/build.ninja" ]; then
	lld=()
	command -v ld.lld >/dev/null && lld=(-Dc_link_args=-fuse-ld=lld)
	CC=clang meson setup "$B" -Dfuzz=enabled -Dswswitch=disabled -Doptimization=0 \
		-Ddebug=false -Dc_args=-gline-tables-only "${lld[@]}" \
		-Db_sanitize=address,undefined -Db_lundef=false >/dev/null
fi
# Only what runs below: the unit tests and the harnesses (not na-sim, the
# applications, the benchmarks and the node agent, a third of the build).
mapfile -t targets < <(meson introspect --tests --targets "$B" | python3 -c '
import json, os, sys
i = json.load(sys.stdin)
ids = {d for t in i["tests"] if any(s.endswith(":unit") for s in t["suite"])
       for d in t["depends"]}
for t in i["targets"]:
    if t["id"] in ids or t["name"].startswith("fuzz_"):
        for f in t["filename"]:
            print(os.path.relpath(f, sys.argv[1]))' "$(cd "$B" && pwd)")
ninja -C "$B" "${targets[@]}" >/dev/null

export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=detect_leaks=1
echo "--- unit tests under ASan + UBSan (${#targets[@]} targets built)"
# Sanitized code runs 2-5x slower (test_topo: 17 s of meson's 30 s on a
# quiet machine, past it at load 14): the timeout stays a hang detector.
meson test -C "$B" --no-rebuild --suite unit --print-errorlogs \
	--timeout-multiplier 4

mkdir -p "$B/corpus/pipeline" "$B/corpus/topo" "$B/artifacts"
mapfile -t pcaps < <(find pcap-tests -name '*.pcap' 2>/dev/null | head -400)
if ((${#pcaps[@]})); then
	python3 lib/fuzz/seed_corpus.py "$B/corpus/pipeline" "${pcaps[@]}"
fi
cp lib/fuzz/seeds/* lib/fuzz/regressions/* "$B/corpus/pipeline/"
cp topo/*.json "$B/corpus/topo/"

echo "--- crashes found before (lib/fuzz/regressions) stay fixed"
"$B/lib/fuzz/fuzz_pipeline" lib/fuzz/regressions/* >/dev/null 2>&1 || {
	echo "a regression input fails again"
	exit 1
}

for h in pipeline topo; do
	echo "--- fuzz_$h for ${secs}s"
	log="$B/fuzz_$h.log"
	rc=0
	"$B/lib/fuzz/fuzz_$h" -max_total_time="$secs" -print_final_stats=1 \
		-artifact_prefix="$B/artifacts/" "$B/corpus/$h" >"$log" 2>&1 || rc=$?
	grep -E 'stat::number_of_executed_units|ERROR|invariant|SUMMARY' "$log" || true
	if [ "$rc" -ne 0 ]; then
		tail -40 "$log"
		echo "fuzz_$h failed (exit $rc); reproducer in $B/artifacts/"
		exit 1
	fi
done
echo "--- fuzz_pipeline, queued lock mode, for ${secs}s"
log="$B/fuzz_pipeline_queued.log"
rc=0
FUZZ_LOCK_MODE=queued "$B/lib/fuzz/fuzz_pipeline" -max_total_time="$secs" \
	-print_final_stats=1 -artifact_prefix="$B/artifacts/" "$B/corpus/pipeline" >"$log" 2>&1 || rc=$?
grep -E 'stat::number_of_executed_units|ERROR|invariant|SUMMARY' "$log" || true
if [ "$rc" -ne 0 ]; then
	tail -40 "$log"
	echo "fuzz_pipeline (queued) failed (exit $rc); reproducer in $B/artifacts/"
	exit 1
fi
echo "fuzz: no crash"
