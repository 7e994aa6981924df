#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
bench_switch.py: the switch benchmark driver (run it through scripts/bench-switch.sh).

Per repetition, each for --duration seconds, one after the other:
  sw1       swswitch --workers 1 on lcore 1 (the CPU testpmd forwards on),
            4 net_null,copy=1 ports; rx is swswitch's --bench-rx source
            (gen_traffic.py's coherence frames copied into freshly
            allocated mbufs, net_null,copy=1's per-frame rx work), tx goes
            to net_null,copy=1 (copy 64 bytes and free, as for testpmd)
  sw2_rss   the same with --workers 2 (-l 0-1), the traffic split per
            requester thread over 2 rx queues per port, as 5-tuple RSS
            would: about half of each worker's coherence frames belong to
            the other worker's tags and cross its ring
  sw2_tag   --workers 2 (-l 0-1), each frame on the rx queue of the worker
            that owns its tag, as swswitch's NIC rules deliver the frames of
            senders that put the tag's steering key in the UDP source port
            (docs/ARCHITECTURE.md "Multi-lcore"): nothing crosses
  sw1_pcap  swswitch --workers 1 on lcore 1, 4 net_pcap ports replaying the
            same traffic (infinite_rx=1); tx to net_pcap's tx_drop queues
  tp_null   dpdk-testpmd --forward-mode=macswap, 1 forwarding lcore (lcore
            1), net_null,copy=1 x 2 (the brief's reference forwarder)
  tp_pcap   dpdk-testpmd macswap, 1 forwarding lcore, on the same 4 net_pcap
            infinite_rx vdevs as sw1_pcap (the same-PMD baseline)
The path of sw1, sw2 and sw1_pcap is swswitch's hot path unchanged: classify,
LCF pipeline with resubmit, egress rewrite, multicast copies, tx bursts;
only where the frames come from differs.
Rates: swswitch = received frames (sum of portN.rx) / uptime from its exit
JSON, and pipeline passes / uptime; testpmd = the sum over ports of the
"Rx-pps" lines of --stats-period 1, median of the readings after the first.
Cycles per frame = TSC Hz x lcores busy-polling / frames per second.
--only CONFIGS runs a subset; --compare BIN runs every swswitch config a
second time with BIN (config name + "_B"), interleaved in each repetition,
for A/B measurements of a change under the same machine load.
Pipeline latency p50/p99 and register memory come from lib/bench/bench_pipeline
(tofino and large profiles). Writes OUT/runs.csv, OUT/summary.csv,
OUT/bench-switch.png and prints the summary.
"""

import argparse
import csv
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def log(*a):
    print(*a, file=sys.stderr, flush=True)


TICK = os.sysconf("SC_CLK_TCK")
CONFIGS = ("sw1", "sw2_rss", "sw2_tag", "sw1_pcap", "tp_null", "tp_pcap")


def cpu_s(pid):
    """CPU seconds (user + system) the process has used so far."""
    with open("/proc/%d/stat" % pid) as f:
        v = f.read().rsplit(")", 1)[1].split()
    return (int(v[11]) + int(v[12])) / TICK


def stop(p):
    """SIGINT, wait; return (exit code, CPU seconds of the whole run)."""
    p.send_signal(signal.SIGINT)
    try:
        _, status, ru = os.wait4(p.pid, 0)
    except ChildProcessError:
        return -1, 0.0
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, ru.ru_utime + ru.ru_stime


def eal_mem(args):
    return ["--no-huge", "-m", str(args.mem_mb)] if args.no_huge else ["--huge-unlink"]


def pcap_vdevs(gen_dir, queues, ports):
    v = []
    for p in range(ports):
        parts = ["net_pcap%d" % p]
        for q in range(queues):
            parts.append("rx_pcap=%s/p%d_q%d.pcap" % (gen_dir, p, q))
        parts.append("infinite_rx=1")
        v += ["--vdev", ",".join(parts)]
    return v


def run_swswitch(args, workers, gen_dir, meta, tag, source, binary):
    # One worker runs on lcore 1, where testpmd's forwarding lcore runs:
    # the comparison is per CPU, and CPU 0 is where other processes on a
    # shared machine usually land. Two workers take both CPUs of the VM:
    # worker 0 runs on the main lcore (0), and EAL puts its control threads
    # (telemetry, interrupts, pdump) on the main lcore's CPU when no CPU is
    # left outside -l; they sleep in the kernel, so they share CPU 0 with
    # worker 0 without taking cycles from it while nobody queries them.
    lcores = "1" if workers == 1 else "0-%d" % (workers - 1)
    if source == "pcap":
        mbufs = meta["frames"] + 65536
        ports = pcap_vdevs(gen_dir, workers, args.ports)
        src = []
    else:
        mbufs = None    # swswitch's default: the bench source holds no mbufs
        ports = sum((["--vdev", "net_null%d,copy=1" % p]
                     for p in range(args.ports)), [])
        src = ["--bench-rx", gen_dir]
    cmd = [binary, "-l", lcores, "--no-pci", "--file-prefix",
           "swb%d_%s" % (os.getpid(), tag), "--log-level", "swswitch,info",
           "--log-level", "pmd.net.pcap,warning",
           "--log-level", "pmd.net.null,warning"] + eal_mem(args) + ports + \
        ["--", "--topo", args.topo, "--workers", str(workers)] + \
        (["--mbufs", str(min(mbufs, 1 << 24))] if mbufs else []) + src
    errf = open(os.path.join(args.out, "%s.stderr" % tag), "w")
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=errf)
    # Start-up (pools, loading the pcaps into the PMD's rings) is not timed:
    # the clock is swswitch's uptime, which starts at launch.
    t0 = time.time()
    while time.time() - t0 < 120:
        with open(errf.name) as f:
            if "forwarding on" in f.read():
                break
        if p.poll() is not None:
            break
        time.sleep(0.1)
    perf = None
    # CPU used by start-up, subtracted below: the switch shares this VM with
    # other load, so frames per CPU-second is the number that says what the
    # code costs; frames per wall-second says what this machine delivered.
    cpu0 = cpu_s(p.pid) if p.poll() is None else 0.0
    if args.perf and workers == 1 and p.poll() is None:
        perf = subprocess.run(["perf", "stat", "-x,", "-e",
                               "cycles,instructions,cache-misses,branch-misses",
                               "-p", str(p.pid), "--", "sleep", str(args.duration)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True).stderr
    else:
        time.sleep(args.duration)
    rc, cpu = stop(p) if p.poll() is None else (p.returncode, 0.0)
    out = p.stdout.read()
    errf.close()
    cpu = max(cpu - cpu0, 1e-9)
    if rc != 0:
        raise RuntimeError("%s exited %d (see %s)" % (tag, rc, errf.name))
    st = json.loads(out)
    with open(os.path.join(args.out, "%s.json" % tag), "w") as f:
        json.dump(st, f, indent=1)
    up = st["switch"]["uptime_ms"] / 1000.0
    rx = sum(st["port%d" % i]["rx"] for i in range(args.ports))
    tx = sum(st["port%d" % i]["tx"] for i in range(args.ports))
    hz = st["dispatch"]["tsc_hz"]
    passes = st["pipeline"]["passes"]
    act = st["actions"]
    row = {"config": tag.rsplit("_r", 1)[0], "lcores": workers, "seconds": round(up, 3),
           "rx_mpps": rx / up / 1e6, "tx_mpps": tx / up / 1e6,
           "passes_mpps": passes / up / 1e6,
           "cycles_per_frame": hz * workers * up / rx if rx else 0,
           "cpu_share": cpu / (workers * up),
           "mpps_per_cpu_s": rx / cpu / 1e6,
           "cpu_cycles_per_frame": hz * cpu / rx if rx else 0,
           "nack_pct": 100.0 * (act["nack_lock_busy"] + act["nack_check_failed"]) / max(passes, 1),
           "resubmit_pct": 100.0 * st["pipeline"]["resubmits"] / max(passes, 1),
           "ring_full": st["dispatch"]["ring_full"],
           "crossed_pct": 100.0 * st["dispatch"]["sent"] / max(rx, 1),
           # Share of the workers' wall time with rx stopped for a peer.
           "rx_stopped_pct": 100.0 * sum(st.get("worker%d" % w, {}).get(
               "backpressure_tsc", 0) for w in range(workers)) / (hz * up * workers),
           "tx_dropped": sum(st["port%d" % i]["tx_dropped"] for i in range(args.ports))}
    if perf:
        with open(os.path.join(args.out, "%s.perfstat" % tag), "w") as f:
            f.write(perf)
    return row


def run_testpmd(args, kind, gen_dir, meta, tag):
    if kind == "null":
        vdevs = ["--vdev", "net_null0,copy=1", "--vdev", "net_null1,copy=1"]
        extra = ["--total-num-mbufs=32768"]
    else:
        vdevs = pcap_vdevs(gen_dir, 1, args.ports)
        extra = ["--total-num-mbufs=%d" % (meta["frames"] + 65536)]
    cmd = [args.testpmd, "-l", "0-1", "--no-pci", "--file-prefix",
           "swb%d_%s" % (os.getpid(), tag), "--log-level", "pmd.net.pcap,warning"] + \
        eal_mem(args) + vdevs + ["--", "--forward-mode=macswap", "--nb-cores=1",
                                 "--stats-period", "1", "--auto-start"] + extra
    logp = os.path.join(args.out, "%s.log" % tag)
    marks = []   # (stats blocks seen, CPU seconds then)
    with open(logp, "w") as f:
        p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT)
        t_end = None
        while p.poll() is None:
            with open(logp) as g:
                nb = g.read().count("NIC statistics for port 0")
            if nb and (not marks or marks[-1][0] != nb):
                marks.append((nb, cpu_s(p.pid)))
                if t_end is None:
                    t_end = time.time() + max(args.duration, 2)
            if t_end is not None and time.time() >= t_end and len(marks) >= 3:
                break
            time.sleep(0.02)
        stop(p)
    with open(logp) as f:
        text = f.read()
    # Frames and CPU between the first and the last stats block we timed.
    rxp = [int(x) for x in re.findall(r"RX-packets:\s+(\d+)", text)]
    pps = [int(x) for x in re.findall(r"Rx-pps:\s+(\d+)", text)]
    n = len(vdevs) // 2
    per = [sum(pps[i:i + n]) for i in range(0, len(pps) - n + 1, n)]
    per = [x for x in per if x > 0][1:] or [x for x in per if x > 0]
    if not per:
        raise RuntimeError("%s: no Rx-pps readings (see %s.log)" % (tag, tag))
    mpps = statistics.median(per) / 1e6
    n_blk = len(rxp) // n
    cpu_rate = 0.0
    if len(marks) >= 2 and n_blk >= marks[-1][0]:
        b0, c0 = marks[0]
        b1, c1 = marks[-1]
        fr = sum(rxp[(b1 - 1) * n:b1 * n]) - sum(rxp[(b0 - 1) * n:b0 * n])
        # testpmd's main lcore sleeps between stats prints: its CPU is the
        # forwarding lcore's.
        cpu_rate = fr / max(c1 - c0, 1e-9) / 1e6 if c1 > c0 else 0.0
    return {"config": tag.split("_r")[0], "lcores": 1, "seconds": len(per),
            "rx_mpps": mpps, "tx_mpps": mpps, "passes_mpps": 0,
            "cycles_per_frame": args.tsc_hz / (mpps * 1e6) if mpps else 0,
            "cpu_share": 0, "mpps_per_cpu_s": cpu_rate,
            "cpu_cycles_per_frame": args.tsc_hz / (cpu_rate * 1e6) if cpu_rate else 0,
            "nack_pct": 0, "resubmit_pct": 0, "ring_full": 0, "crossed_pct": 0,
            "rx_stopped_pct": 0, "tx_dropped": 0}


def bench_pipeline(args, profile):
    cmd = [args.bench_pipeline, "--profile", profile, "--blocks", str(args.blocks),
           "--owned", str(args.owned), "--zipf", str(args.zipf),
           "--read", str(args.read), "--events", str(args.pipeline_events)]
    out = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, check=True).stdout
    fp = re.search(r"register footprint: ([\d.]+) MiB", out)
    m = re.search(r"([\d.]+) Mpps\s+([\d.]+) ns/pass\s+([\d.]+) cycles/pass\s+p50 (\d+)\s+p99 (\d+)", out)
    return {"profile": profile, "footprint_mib": float(fp.group(1)),
            "mpps": float(m.group(1)), "ns_per_pass": float(m.group(2)),
            "cycles_per_pass": float(m.group(3)), "p50_cycles": int(m.group(4)),
            "p99_cycles": int(m.group(5)), "raw": out.strip()}


BENCH_THREADS = 32


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--swswitch", required=True)
    ap.add_argument("--bench-pipeline", required=True)
    ap.add_argument("--testpmd", default="dpdk-testpmd")
    ap.add_argument("--topo", default=os.path.join(ROOT, "topo", "demo4.json"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--duration", type=float, default=5)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--blocks", type=int, default=16384)
    ap.add_argument("--owned", type=int, default=50)
    ap.add_argument("--zipf", type=float, default=0.99)
    ap.add_argument("--read", type=int, default=50)
    ap.add_argument("--evict", type=int, default=30)
    ap.add_argument("--events", type=int, default=40000)
    ap.add_argument("--payload", type=int, default=0)
    ap.add_argument("--pipeline-events", type=int, default=2000000)
    ap.add_argument("--no-huge", action="store_true")
    ap.add_argument("--mem-mb", type=int, default=1024)
    ap.add_argument("--perf", action="store_true", help="perf stat the sw1 runs")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--only", default=",".join(CONFIGS),
                    help="comma-separated subset of " + ",".join(CONFIGS))
    ap.add_argument("--compare", metavar="BIN",
                    help="also run the swswitch configs with BIN (suffix _B)")
    args = ap.parse_args()
    only = args.only.split(",")
    if not set(only) <= set(CONFIGS):
        ap.error("--only: unknown config in %s" % args.only)
    os.makedirs(args.out, exist_ok=True)
    with open(args.topo) as f:
        topo = json.load(f)
    args.ports = 1 + max(n["port"] for n in topo["nodes"])
    # gen_traffic.py keeps a requester's unlocks a burst apart on a queue
    # (the ACK rule), which takes 16 requesters per queue: 32 threads per
    # node for the 2-queue runs.
    topo["threads_per_node"] = BENCH_THREADS
    args.topo = os.path.join(args.out, "topo.json")
    with open(args.topo, "w") as f:
        json.dump(topo, f, indent=1)

    gens = {}
    for q, steer in ((1, "flow"), (2, "flow"), (2, "tag")):
        d = os.path.join(args.out, "traffic_q%d_%s" % (q, steer))
        subprocess.run([sys.executable, os.path.join(HERE, "gen_traffic.py"),
                        "--topo", args.topo, "--out", d, "--queues", str(q),
                        "--steer", steer, "--threads", str(BENCH_THREADS),
                        "--blocks", str(args.blocks), "--owned", str(args.owned),
                        "--zipf", str(args.zipf), "--read", str(args.read),
                        "--evict", str(args.evict), "--events", str(args.events),
                        "--payload", str(args.payload)],
                       check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(d, "meta.json")) as f:
            gens[q, steer] = (d, json.load(f))
    g1 = gens[1, "flow"]

    pl = [bench_pipeline(args, p) for p in ("tofino", "large")]
    args.tsc_hz = None
    # config -> (swswitch workers, traffic, source) or (None, testpmd kind)
    spec = {"sw1": (1, gens[1, "flow"], "bench"),
            "sw2_rss": (2, gens[2, "flow"], "bench"),
            "sw2_tag": (2, gens[2, "tag"], "bench"),
            "sw1_pcap": (1, gens[1, "flow"], "pcap"),
            "tp_null": (None, "null"), "tp_pcap": (None, "pcap")}
    plan = []    # (config name, function of the run's tag)
    for c in only:
        sp = spec[c]
        if sp[0] is None:
            plan.append((c, lambda t, k=sp[1]: run_testpmd(args, k, *g1, t)))
            continue
        for suffix, binary in (("", args.swswitch), ("_B", args.compare)):
            if binary:
                plan.append((c + suffix, lambda t, sp=sp, b=binary:
                             run_swswitch(args, sp[0], *sp[1], t, sp[2], b)))
    rows = []
    for rep in range(args.reps):
        for tag, fn in plan:
            t = "%s_r%d" % (tag, rep)
            log("bench-switch: %s (%.0f s)" % (t, args.duration))
            if tag.startswith("tp") and args.tsc_hz is None:
                args.tsc_hz = next((r["cycles_per_frame"] * r["rx_mpps"] * 1e6 / r["lcores"]
                                    for r in rows if r["config"].startswith("sw")), 0)
            r = fn(t)
            r["rep"] = rep
            rows.append(r)

    cols = ["config", "rep", "lcores", "seconds", "rx_mpps", "tx_mpps", "passes_mpps",
            "cycles_per_frame", "cpu_share", "mpps_per_cpu_s", "cpu_cycles_per_frame",
            "nack_pct", "resubmit_pct", "ring_full", "crossed_pct", "rx_stopped_pct",
            "tx_dropped"]
    with open(os.path.join(args.out, "runs.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        for r in rows:
            w.writerow({k: (round(r[k], 3) if isinstance(r[k], float) else r[k]) for k in cols})

    med = {}
    for c, _ in plan:
        rs = [r for r in rows if r["config"] == c]
        med[c] = {k: statistics.median(r[k] for r in rs)
                  for k in ("rx_mpps", "passes_mpps", "cycles_per_frame", "nack_pct",
                            "resubmit_pct", "mpps_per_cpu_s", "cpu_cycles_per_frame",
                            "cpu_share", "crossed_pct", "rx_stopped_pct")}
        med[c]["lcores"] = rs[0]["lcores"]
    none = {"rx_mpps": 0, "mpps_per_cpu_s": 0}
    base_null = med.get("tp_null", none)["rx_mpps"]
    base_pcap = med.get("tp_pcap", none)["rx_mpps"]
    cpu_null = med.get("tp_null", none)["mpps_per_cpu_s"]
    cpu_pcap = med.get("tp_pcap", none)["mpps_per_cpu_s"]

    def one_worker(c):
        """The 1-worker run a multi-worker config scales from (same binary)."""
        if not c.startswith("sw2"):
            return None
        return med.get("sw1" + ("_B" if c.endswith("_B") else ""))

    scols = ["config", "lcores", "rx_mpps", "mpps_per_lcore", "passes_mpps",
             "cycles_per_frame", "ratio_vs_macswap_null", "ratio_vs_macswap_pcap",
             "scaling_vs_1", "cpu_share", "mpps_per_cpu_s", "cpu_cycles_per_frame",
             "cpu_ratio_vs_null", "cpu_ratio_vs_pcap", "cpu_scaling_vs_1",
             "crossed_pct", "rx_stopped_pct", "nack_pct", "resubmit_pct"]
    srows = []
    for c, m in med.items():
        per = m["rx_mpps"] / m["lcores"]
        one = one_worker(c) or (m if c.startswith("sw1") else None)
        srows.append({"config": c, "lcores": m["lcores"], "rx_mpps": m["rx_mpps"],
                      "mpps_per_lcore": per, "passes_mpps": m["passes_mpps"],
                      "cycles_per_frame": m["cycles_per_frame"],
                      "ratio_vs_macswap_null": per / base_null if base_null else 0,
                      "ratio_vs_macswap_pcap": per / base_pcap if base_pcap else 0,
                      "scaling_vs_1": (m["rx_mpps"] / one["rx_mpps"]
                                       if one and one["rx_mpps"] else 0),
                      # What N workers would deliver with a whole CPU each,
                      # relative to one worker: N x the ratio of frames per
                      # CPU-second (1.0 per lcore = linear scaling).
                      "cpu_scaling_vs_1": (m["lcores"] * m["mpps_per_cpu_s"] /
                                           one["mpps_per_cpu_s"]
                                           if one and one["mpps_per_cpu_s"] else 0),
                      "crossed_pct": m["crossed_pct"],
                      "rx_stopped_pct": m["rx_stopped_pct"],
                      "cpu_share": m["cpu_share"], "mpps_per_cpu_s": m["mpps_per_cpu_s"],
                      "cpu_cycles_per_frame": m["cpu_cycles_per_frame"],
                      # Frames per CPU-second are per CPU already, however
                      # many lcores shared the work.
                      "cpu_ratio_vs_null": (m["mpps_per_cpu_s"] / cpu_null
                                            if cpu_null else 0),
                      "cpu_ratio_vs_pcap": (m["mpps_per_cpu_s"] / cpu_pcap
                                            if cpu_pcap else 0),
                      "nack_pct": m["nack_pct"], "resubmit_pct": m["resubmit_pct"]})
    with open(os.path.join(args.out, "summary.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=scols)
        w.writeheader()
        for r in srows:
            w.writerow({k: (round(r[k], 3) if isinstance(r[k], float) else r[k]) for k in scols})
    with open(os.path.join(args.out, "pipeline.csv"), "w", newline="") as f:
        pcols = ["profile", "footprint_mib", "mpps", "ns_per_pass", "cycles_per_pass",
                 "p50_cycles", "p99_cycles"]
        w = csv.DictWriter(f, fieldnames=pcols)
        w.writeheader()
        for r in pl:
            w.writerow({k: r[k] for k in pcols})

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, axes = plt.subplots(1, 2, figsize=(11, 4))
        names = [r["config"] for r in srows]
        colors = ["C2" if n.startswith("tp") else "C1" if n.startswith("sw2")
                  else "C0" for n in names]
        for ax, key, label in ((axes[0], "mpps_per_lcore",
                                "Mpps per lcore (wall clock)"),
                               (axes[1], "mpps_per_cpu_s",
                                "Mpps per CPU-second used")):
            ax.bar(names, [r[key] for r in srows], color=colors)
            for i, r in enumerate(srows):
                ax.text(i, r[key], "%.2f" % r[key], ha="center", va="bottom",
                        fontsize=8)
            ax.set_ylabel("%s, median of %d" % (label, args.reps))
            ax.tick_params(axis="x", labelsize=8, rotation=30)
        fig.suptitle("swswitch (1, 2 workers: rss / tag steering; bench / pcap "
                     "source) vs testpmd macswap (1 lcore)", fontsize=10)
        fig.tight_layout()
        fig.savefig(os.path.join(args.out, "bench-switch.png"), dpi=100)
    except ImportError:
        log("bench-switch: matplotlib missing, no plot")

    print("traffic: %d frames (%d B), %d blocks (%d owned), zipf %.2f, read %d%%, "
          "ADD share %.1f%%" % (g1[1]["frames"], g1[1]["frame_bytes"],
                                args.blocks, g1[1]["owned"], args.zipf, args.read,
                                100 * g1[1]["add_fraction"]))
    print("%-11s %6s %8s %10s %9s %11s %9s %9s %7s %6s" % (
        "config", "lcores", "rx_Mpps", "Mpps/lcore", "passes", "cyc/frame",
        "x_null", "x_pcap", "scale", "nack%"))
    for r in srows:
        print("%-11s %6d %8.2f %10.2f %9.2f %11.0f %9.2f %9.2f %7.2f %6.1f" % (
            r["config"], r["lcores"], r["rx_mpps"], r["mpps_per_lcore"], r["passes_mpps"],
            r["cycles_per_frame"], r["ratio_vs_macswap_null"], r["ratio_vs_macswap_pcap"],
            r["scaling_vs_1"], r["nack_pct"]))
    print("per CPU-second actually used (the VM is shared; cpu_share = CPU used / "
          "lcores x wall time):")
    print("(cpu_scale = lcores x Mpps/CPU-s relative to 1 worker: the scaling with "
          "a whole CPU per lcore; crossed% = frames that took a re-steering ring; "
          "rx_stop% = wall time the workers' rx stayed stopped for a peer's ring)")
    print("%-11s %9s %12s %14s %9s %9s %9s %8s %8s" % (
        "config", "cpu_share", "Mpps/CPU-s", "cycles/frame", "x_null", "x_pcap",
        "cpu_scale", "crossed%", "rx_stop%"))
    for r in srows:
        print("%-11s %9.2f %12.2f %14.0f %9.2f %9.2f %9.2f %8.1f %8.1f" % (
            r["config"], r["cpu_share"], r["mpps_per_cpu_s"], r["cpu_cycles_per_frame"],
            r["cpu_ratio_vs_null"], r["cpu_ratio_vs_pcap"], r["cpu_scaling_vs_1"],
            r["crossed_pct"], r["rx_stopped_pct"]))
    for r in pl:
        print("pipeline only (bench_pipeline, %s): %.2f MiB registers, %.2f Mpps, "
              "%.0f cycles/pass, p50 %d p99 %d cycles/pass per burst" % (
                  r["profile"], r["footprint_mib"], r["mpps"], r["cycles_per_pass"],
                  r["p50_cycles"], r["p99_cycles"]))
    print("outputs: %s/{runs,summary,pipeline}.csv, bench-switch.png" % args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
