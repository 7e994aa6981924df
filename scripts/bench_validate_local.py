#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Validate na-sim's `local` profile against the namespace cluster in one
invocation (docs/APPS.md "`local` against the namespace cluster"):

  sudo scripts/bench-apps.sh --validate-local [--out DIR] [--work DIR]
       [--reps 3] [--duration 5] [--warmup 2] [--seeds 3] [--sim-duration S]
       [--trace N] [-j 2] [--no-pin]
  sudo scripts/bench-apps.sh --validate-local --resume|--report --work DIR
       --out DIR

0. gives swswitch a CPU of its own and the runs' scheduling group nice
   -10 (cluster_run.dedicate; --no-pin: CPUs shared);
1. measures the `local` figures now (scripts/sim_measure_local.py: ping
   RTT through swswitch / 4, UDP send, receive and wake-up CPU through
   swswitch, instructions per ns);
2. runs the namespace cluster's headline points (kv get95, tpcc dist 0.1,
   pagerank scale 13; 4 nodes x 2 threads; 3 modes interleaved; the median
   of --reps runs; kv and tpcc after --warmup s: scripts/bench_apps.py);
3. measures the figures again;
4. runs `na-sim --profile local` at the same points with the figures of
   steps 1 and 3 (`--cost`): hop_ns from the median of every ping RTT of
   both, tx_ns, rx_ns, wake_ns the mean of both, op_ns each app's own
   instructions per DSM call at the mean rate; the same --warmup and
   --duration as the cluster's (bench_apps_sim.py, medians of --seeds
   seeds, under nice: its time is virtual);
5. writes DIR/validate-local.csv (per app and mode: sim and cluster ops/s,
   ratio, each side's ranking, agree; the pairs of modes the cluster's runs
   resolve, every run of one above every run of the other, and whether the
   simulator orders them alike), DIR/validate-local-figures.csv (the
   figures and the load average of each step), DIR/validate-local.png and
   copies of both sides' CSVs. --resume: steps 4 and 5 again (the figures
   and cluster runs of --work); --report: step 5 again.

Run directories (traces with --trace N, for scripts/latency_breakdown.py)
stay in --work.
"""
import argparse
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cluster_run  # noqa: E402  (dedicate)
import sim_measure_local  # noqa: E402  (measure)

MODES = ("switch", "home", "directory")
# (app, the cluster's point value, the simulator's point name)
POINTS = (("kv", "get95", "get95"), ("tpcc", "0.1", "dist0.1"),
          ("pagerank", "13", "scale13"))
FIGURES = ("hop_ns", "tx_ns", "rx_ns", "wake_ns", "op_ns")
COLUMNS = ["app", "point", "mode", "sim_ops_per_s", "cluster_ops_per_s",
           "sim_over_cluster", "within_2x", "cluster_runs", "sim_rank",
           "cluster_rank", "agree", "cluster_resolved", "agree_resolved"]


def load_now():
    return os.getloadavg()


def step(name, log, figs=None):
    la = load_now()
    row = {"step": name, "time": time.strftime("%H:%M:%S"),
           "load1": "%.2f" % la[0], "load5": "%.2f" % la[1],
           "load15": "%.2f" % la[2]}
    if figs:
        row.update({k: figs[k] for k in FIGURES})
        if "rtts_us" in figs:
            row["ping_median_us"] = "%.1f" % statistics.median(
                figs["rtts_us"])
    log.append(row)
    print("== %s at %s, load average %s %s %s" % (
        name, row["time"], row["load1"], row["load5"], row["load15"]),
        flush=True)
    return row


def ranking(ops):
    return ">".join(sorted(ops, key=lambda m: -ops[m]))


def resolved(runs):
    """The pairs of modes the cluster's runs order: every run of one above
    every run of the other (3 runs each: 1 in 20 by chance)."""
    out = []
    for i, a in enumerate(MODES):
        for b in MODES[i + 1:]:
            if min(runs[a]) > max(runs[b]):
                out.append((a, b))
            elif min(runs[b]) > max(runs[a]):
                out.append((b, a))
    return out


def compare(cluster_csv, sim_csv):
    with open(cluster_csv, newline="") as f:
        cl = {(r["app"], str(r["value"]), r["mode"]): r
              for r in csv.DictReader(f) if str(r["nodes"]) == "4"}
    with open(sim_csv, newline="") as f:
        sm = {(r["app"], r["point"], r["mode"]): r
              for r in csv.DictReader(f) if str(r["nodes"]) == "4"}
    rows = []
    for app, cv, sv in POINTS:
        c = {m: float(cl[(app, cv, m)]["ops_per_s"]) for m in MODES
             if (app, cv, m) in cl}
        s = {m: float(sm[(app, sv, m)]["ops_per_s"]) for m in MODES
             if (app, sv, m) in sm and sm[(app, sv, m)]["ops_per_s"]}
        if len(c) < 3 or len(s) < 3:
            print("%s: missing rows (cluster %s, sim %s)" % (app, c, s))
            continue
        rc, rs = ranking(c), ranking(s)
        runs = {m: [float(x) for x in (cl[(app, cv, m)].get(
            "ops_per_s_runs") or str(c[m])).split()] for m in MODES}
        pairs = resolved(runs)
        agree_res = all(s[x] > s[y] for x, y in pairs)
        for m in MODES:
            ratio = s[m] / c[m] if c[m] else float("inf")
            rows.append({
                "app": app, "point": sv, "mode": m,
                "sim_ops_per_s": "%.1f" % s[m],
                "cluster_ops_per_s": "%.1f" % c[m],
                "sim_over_cluster": "%.3f" % ratio,
                "within_2x": "yes" if 0.5 <= ratio <= 2 else "no",
                "cluster_runs": cl[(app, cv, m)].get("ops_per_s_runs") or
                "%.1f" % c[m],
                "sim_rank": rs, "cluster_rank": rc,
                "agree": "yes" if rs == rc else "no",
                "cluster_resolved": " ".join("%s>%s" % p for p in pairs)
                or "none",
                "agree_resolved": "yes" if agree_res else "no"})
    return rows


def plot(rows, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no plot")
        return
    apps = [a for a, _, _ in POINTS if any(r["app"] == a for r in rows)]
    fig, axes = plt.subplots(1, len(apps), figsize=(4.2 * len(apps), 3.6),
                             squeeze=False)
    for ax, app in zip(axes[0], apps):
        rs = [r for r in rows if r["app"] == app]
        xs = range(len(rs))
        runs = [[float(x) for x in r["cluster_runs"].split()] for r in rs]
        c = [float(r["cluster_ops_per_s"]) for r in rs]
        ax.bar([x - 0.2 for x in xs], c, 0.4, label="cluster (median; line: its runs)",
               yerr=[[v - min(u) for v, u in zip(c, runs)],
                     [max(u) - v for v, u in zip(c, runs)]])
        ax.bar([x + 0.2 for x in xs], [float(r["sim_ops_per_s"])
                                       for r in rs], 0.4,
               label="na-sim local")
        ax.set_xticks(list(xs))
        ax.set_xticklabels([r["mode"] for r in rs])
        ax.set_title("%s %s: agree %s" % (app, rs[0]["point"],
                                          rs[0]["agree"]), fontsize=9)
        ax.set_ylabel("ops/s")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--validate-local", action="store_true",
                    help="(bench-apps.sh)")
    ap.add_argument("--out", default="/tmp/swswitch-validate-local",
                    help="result files (docs/perf/validate-local)")
    ap.add_argument("--work", default="",
                    help="run directories (default: a new temporary one)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--duration", type=float, default=5)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--sim-duration", type=float, default=0,
                    help="virtual seconds of na-sim's measured phase "
                    "(default: --duration, the cluster's)")
    ap.add_argument("--warmup", type=float, default=2,
                    help="kv and tpcc, both sides: seconds of the "
                    "workload before the measured phase, uncounted (the "
                    "phases compared are the same)")
    ap.add_argument("--trace", type=int, default=0, metavar="N")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--sim-stuck-s", type=float, default=120,
                    help="virtual seconds past --sim-duration before a "
                    "run counts as stuck (loading at ms hops is long)")
    ap.add_argument("--no-pin", action="store_true",
                    help="swswitch's lcore shares the nodes' CPUs "
                    "(bench_apps.py --no-pin)")
    ap.add_argument("--resume", action="store_true",
                    help="steps 4-5 only, with the figures and cluster "
                    "runs of a previous invocation in --work")
    ap.add_argument("--report", action="store_true",
                    help="no runs: step 5 again from --work's runs")
    a = ap.parse_args()
    if a.report:
        os.makedirs(a.out, exist_ok=True)
        return 0 if len(report(a.out, a.work)) == 9 else 1
    if a.reps < 3:
        ap.error("--reps: at least 3 (medians of headline points)")
    work = a.work or tempfile.mkdtemp(prefix="validate-local-")
    os.makedirs(a.out, exist_ok=True)
    py = sys.executable
    swswitch = os.path.join(a.build, "swswitch", "swswitch")
    log = []
    trace = ["--trace", str(a.trace)] if a.trace else []

    fig_csv = os.path.join(a.out, "validate-local-figures.csv")
    cl_out = os.path.join(work, "cluster")
    if a.resume:
        # Steps 1-3 as a previous invocation measured them.
        with open(os.path.join(work, "figures.json")) as f:
            j = json.load(f)
        before, after = j["before"], j["after"]
        with open(fig_csv, newline="") as f:
            log = [r for r in csv.DictReader(f)
                   if not r["step"].startswith("sim")]
        rc = 0
    else:
        cluster_run.dedicate(pin=not a.no_pin)
        step("start", log)
        before = sim_measure_local.measure(a.build, swswitch=swswitch,
                                           per_app=True)
        step("measured before", log, before)
        rc = subprocess.run([py, os.path.join(HERE, "bench_apps.py"),
                             "--build", a.build, "--out", cl_out, "--nodes",
                             "4", "--threads", "2", "--reps", str(a.reps),
                             "--duration", str(a.duration), "--points",
                             ",".join(v for _, v, _ in POINTS),
                             "--warmup", str(a.warmup)] +
                            trace + (["--no-pin"] if a.no_pin else [])
                            ).returncode
        step("cluster done (exit %d)" % rc, log)
        after = sim_measure_local.measure(a.build, swswitch=swswitch)
        step("measured after", log, after)
        with open(os.path.join(work, "figures.json"), "w") as f:
            json.dump({"before": before, "after": after}, f)

    used = {"hop_ns": round(statistics.median(before["rtts_us"] +
                                              after["rtts_us"]) * 250)}
    for k in FIGURES[1:]:
        used[k] = round((before[k] + after[k]) / 2)
    # op_ns per app: its own instructions per DSM call at the mean rate.
    ipn = (before["instr_per_ns"] + after["instr_per_ns"]) / 2
    by_app = {app: round(n / ipn)
              for app, n in before.get("app_instr_by_app", {}).items()}
    for app, ns in sorted(by_app.items()):
        used["op_ns_" + app] = ns
    dur = a.sim_duration or a.duration
    sim_out = os.path.join(work, "sim")
    cmd = ["nice", "-n", "10", py, os.path.join(HERE, "bench_apps_sim.py"),
           "--build", a.build, "--profile", "local", "--out", sim_out,
           "--points", ",".join(s for _, _, s in POINTS), "--nodes", "4",
           "--threads", "2", "--seeds", str(a.seeds), "--duration",
           str(dur), "--warmup", str(a.warmup), "--stuck-s",
           str(a.sim_stuck_s), "-j",
           str(a.jobs)] + trace + [
               x for k in FIGURES for x in ("--cost", "%s=%d" % (k,
                                                                 used[k]))
           ] + [x for app, ns in sorted(by_app.items())
                for x in ("--cost", "%s:op_ns=%d" % (app, ns))]
    print(" ".join(cmd), flush=True)
    src = subprocess.run(cmd).returncode
    u = step("sim done (exit %d, duration %g s)" % (src, dur), log, used)
    u["ping_median_us"] = "%.1f" % (used["hop_ns"] * 4 / 1000)
    u.update({k: v for k, v in used.items() if k.startswith("op_ns_")})

    with open(fig_csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["step", "time", "load1", "load5",
                                          "load15", "ping_median_us"] +
                           list(FIGURES) + ["op_ns_" + app
                                            for app in sorted(by_app)])
        w.writeheader()
        w.writerows(log)
    with open(os.path.join(work, "figures.json"), "w") as f:
        json.dump({"before": before, "after": after, "used": used}, f)
    rows = report(a.out, work)
    return 1 if rc or src or len(rows) != 9 else 0


def report(out, work):
    """Step 5 from the run directories in `work`: the comparison files."""
    cl_out, sim_out = os.path.join(work, "cluster"), os.path.join(work, "sim")
    rows = compare(os.path.join(cl_out, "apps.csv"),
                   os.path.join(sim_out, "apps-sim-median.csv"))
    with open(os.path.join(out, "validate-local.csv"), "w",
              newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(rows)
    shutil.copy(os.path.join(cl_out, "apps.csv"),
                os.path.join(out, "cluster-apps.csv"))
    shutil.copy(os.path.join(sim_out, "apps-sim.csv"),
                os.path.join(out, "sim-apps-sim.csv"))
    plot(rows, os.path.join(out, "validate-local.png"))
    print("%-9s %-9s %12s %12s %7s  %s" % ("app", "mode", "sim ops/s",
                                            "cluster", "ratio", "agree"))
    for r in rows:
        print("%-9s %-9s %12s %12s %7s  %s (sim %s, cluster %s; resolved "
              "%s: %s)" % (r["app"], r["mode"], r["sim_ops_per_s"],
                           r["cluster_ops_per_s"], r["sim_over_cluster"],
                           r["agree"], r["sim_rank"], r["cluster_rank"],
                           r["cluster_resolved"], r["agree_resolved"]))
    print("wrote %s/validate-local{.csv,-figures.csv,.png}; runs in %s" %
          (out, work))
    return rows


if __name__ == "__main__":
    sys.exit(main())
