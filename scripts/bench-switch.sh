#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Switch benchmark (docs/PERFORMANCE.md): swswitch with 1 and 2 workers on
# looped coherence traffic from its --bench-rx source (net_null,copy=1's
# per-frame rx work) with tx on net_null,copy=1, 2 workers in both steering
# modes (frames on the queue of their requester, as 5-tuple RSS; on the
# queue of their tag's owner, as swswitch's NIC rules), and with 1 worker on
# net_pcap infinite_rx vdevs; against dpdk-testpmd macswap on
# net_null,copy=1 and on the same net_pcap vdevs, in the same run; plus the
# pipeline-only bench for latency and register memory. Medians of --reps.
#
#   scripts/bench-switch.sh [--smoke] [--out DIR] [driver options...]
#
# Driver options (swswitch/bench/bench_switch.py): --duration S (5),
# --reps N (3), --blocks N (16384), --owned PCT (50), --zipf S (0.99, 0 =
# uniform), --read PCT (50), --evict PCT (30), --events N (40000),
# --payload B (0: 74-byte frames; up to 54), --perf (perf stat the 1-worker
# runs), --no-huge, --only CONFIGS (subset of sw1,sw2_rss,sw2_tag,sw1_pcap,
# tp_null,tp_pcap), --compare BIN (A/B: every swswitch config also with BIN).
# Without --no-huge it reserves 512 hugepages (1 GB) if fewer are there and
# gives the count back at exit. --smoke: about 30 s in all, --no-huge, and
# checks only that the CSV files are well formed (for CI, never speed).
# Env: BUILD (default build), SWSWITCH, BENCH_PIPELINE, TESTPMD.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
SW=${SWSWITCH:-$build/swswitch/swswitch}
BP=${BENCH_PIPELINE:-$build/lib/bench/bench_pipeline}
TP=${TESTPMD:-dpdk-testpmd}
# The system Python has matplotlib (Debian python3-matplotlib); a pyenv one may not.
PY=${PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
out=/tmp/swswitch-bench
smoke=0
huge=1
set -- "$@" --end--
while [ "$1" != --end-- ]; do
	case "$1" in
	--smoke) smoke=1; huge=0 ;;
	--out) out=$2; shift ;;
	--no-huge) huge=0 ;;
	*) set -- "$@" "$1" ;;
	esac
	shift
done
shift  # --end--
for x in "$SW" "$BP"; do
	[ -x "$x" ] || { echo "bench-switch.sh: $x not built (BUILD=...)" >&2; exit 2; }
done
command -v "$TP" >/dev/null || { echo "bench-switch.sh: no $TP (dpdk-testpmd)" >&2; exit 2; }
mkdir -p "$out"

hp=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
old_hp=
if [ $huge = 1 ]; then
	old_hp=$(cat $hp)
	if [ "$old_hp" -lt 512 ]; then
		"$root/scripts/hugepages.sh" 512 >/dev/null
		trap 'echo "$old_hp" > $hp' EXIT INT TERM
	fi
	extra=
else
	extra=--no-huge
fi

if [ $smoke = 1 ]; then
	timeout -k 5 180 "$PY" "$root/swswitch/bench/bench_switch.py" \
		--swswitch "$SW" --bench-pipeline "$BP" --testpmd "$TP" --out "$out" \
		--duration 1 --reps 1 --events 2000 --blocks 1024 \
		--pipeline-events 20000 --no-huge "$@"
	"$PY" - "$out" <<'PY'
import csv, math, os, sys
d = sys.argv[1]
want = {"summary.csv": (6, ["config", "rx_mpps", "mpps_per_lcore", "cycles_per_frame",
                            "ratio_vs_macswap_null", "ratio_vs_macswap_pcap",
                            "cpu_scaling_vs_1", "crossed_pct"]),
        "runs.csv": (6, ["config", "rx_mpps", "cycles_per_frame", "crossed_pct"]),
        "pipeline.csv": (2, ["profile", "footprint_mib", "p50_cycles", "p99_cycles"])}
for name, (n, cols) in want.items():
    rows = list(csv.DictReader(open(os.path.join(d, name))))
    assert len(rows) >= n, "%s: %d rows" % (name, len(rows))
    for r in rows:
        for c in cols[1:]:
            v = float(r[c])
            assert math.isfinite(v) and v >= 0, (name, c, r[c])
cfgs = {r["config"] for r in csv.DictReader(open(os.path.join(d, "summary.csv")))}
assert {"sw1", "sw2_rss", "sw2_tag"} <= cfgs, cfgs
assert os.path.getsize(os.path.join(d, "bench-switch.png")) > 1000
print("bench-switch smoke: output well formed")
PY
else
	"$PY" "$root/swswitch/bench/bench_switch.py" --swswitch "$SW" \
		--bench-pipeline "$BP" --testpmd "$TP" --out "$out" $extra "$@"
fi
