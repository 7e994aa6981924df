#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Application benchmark (paper sections 7.3-7.5, Figures 14-16), driven by
scripts/bench-apps.sh: the key-value store, TPC-C and PageRank
(node-agent/apps) on a namespace cluster of 2-4 nodes, in the three
coherence modes of the same build:

  switch     LCF, hot blocks migrate into the switch (--mode switch)
  home       LCF, every block at its home (Concordia-base)
  directory  the server directory (--coherence directory)

Every run: a fresh cluster, the app on nodes 0..K-1, each node's result row
(--csv) and statistics (--stats, and --stats-start as the measured phase
begins), swswitch's exit statistics. One row per run in apps.csv: the
nodes' throughput added up; over the measured phase, home-agent messages
per operation, the share of coherence events the switch serialised and
NACKs per operation; over the whole run (loading included, as swswitch
counts from its start), frames into the switch and pipeline passes per
operation; blocks in the switch at the end. The plots
apps-kv.png, apps-tpcc.png and apps-pagerank.png in the style of Figures
14, 15 and 16. A run passes only when every node exits 0 (each app checks
its own result) and, for the key-value store, its histories pass
node-agent/checker/check_history.py.

--smoke (CI): every app in every mode on 2 nodes for a few seconds; checks
correctness, the CSV's shape and the sampled trace (well formed, the
latency breakdown's parts at least 90% of the measured event latency),
never speed.

--trace N: every run also writes the sampled latency traces (1 in N
events) of its nodes and swswitch, trace-*.bin in its run directory, for
scripts/latency_breakdown.py.
"""

import argparse
import csv
import glob
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import cluster_report  # noqa: E402  (load_json, switch_summary)
import cluster_run  # noqa: E402  (Cluster)
import latency_breakdown  # noqa: E402  (analyse, summary)

MODES = ("switch", "home", "directory")
LABELS = {"switch": "switch coherence (migration)",
          "home": "home agents only (Concordia-base)",
          "directory": "server directory"}

# Per app: the binary, and the sweep as (knob label, knob value, app args).
APPS = {
    "kv": {
        "bin": "kv/dsm_kv",
        "points": [("workload", w, ["--workload", w, "--dist", "zipf",
                                    "--zipf-theta", "0.99"])
                   for w in ("get95", "get50")],
        "smoke": ["--workload", "ycsb-b", "--dist", "zipf", "--keys",
                  "20000"],
        "history": True,
        "warmup": True,
    },
    "tpcc": {
        "bin": "tpcc/dsm_tpcc",
        "points": [("dist_ratio", r, ["--dist-ratio", str(r)])
                   for r in (0.0, 0.1, 0.3, 0.5)],
        "smoke": ["--dist-ratio", "0.2"],
        "history": False,
        "warmup": True,
    },
    "pagerank": {
        "bin": "pagerank/dsm_pagerank",
        "points": [("scale", 13, ["--scale", "13"])],
        "smoke": ["--scale", "10", "--iterations", "5"],
        "history": False,
        "warmup": False,  # a fixed number of iterations
    },
}

COLUMNS = ["app", "mode", "knob", "value", "nodes", "threads", "seconds",
           "ops", "ops_per_s", "ops_per_s_node", "aborts", "abort_ratio",
           "home_msgs_per_op", "switch_frames_per_op_run",
           "pipeline_passes_per_op_run", "switch_serialised_share",
           "switch_blocks", "nacks_per_op", "cpu_us_per_op",
           "wakeups_per_op", "dispatch_wakeups_per_op", "run_seconds",
           "extra", "errors", "reps", "ops_per_s_runs"]


def topo_for(k):
    return os.path.join(REPO, "topo", "demo%d.json" % k)


def node_rows(outdir, nodes):
    rows = {}
    for n in nodes:
        path = os.path.join(outdir, "app-%d.csv" % n)
        if os.path.exists(path):
            with open(path, newline="") as f:
                r = list(csv.DictReader(f))
            if r:
                rows[n] = r[-1]
    return rows


def total(stats, key):
    """Sum over nodes of a (possibly nested) statistics counter."""
    s = 0
    for st in stats.values():
        _, v = cluster_report.pick(cluster_report.flatten(st), [key])
        s += v or 0
    return s


def load_stats(outdir, nodes, name):
    stats = {}
    for n in nodes:
        p = os.path.join(outdir, name % n)
        if os.path.exists(p):
            stats[n] = cluster_report.load_json(p)
    return stats


def summarise(app, mode, knob, value, k, threads, outdir, rcs, started):
    nodes = list(range(k))
    rows = node_rows(outdir, nodes)
    stats = load_stats(outdir, nodes, "na-%d.json")
    # The counters as the measured phase started: what loading the data
    # cost is left out of the per-operation figures.
    start = load_stats(outdir, nodes, "na-%d-start.json")

    def measured(key):
        return total(stats, key) - total(start, key)

    errors = sum(1 for rc in rcs.values() if rc) + (k - len(rows))
    ops = sum(int(r["ops"]) for r in rows.values())
    aborts = sum(int(r["aborts"]) for r in rows.values())
    per = ops or 1
    home = measured("home_agent.messages_received") + \
        measured("home_agent.messages_sent")
    at_switch = measured("events_in_switch")
    at_home = measured("events_at_home")
    sw_frames = passes = ""
    swp = os.path.join(outdir, "swswitch.json")
    if os.path.exists(swp):
        try:
            sw = cluster_report.switch_summary(cluster_report.load_json(swp))
            sw_frames = "%.3f" % (sw["rx"] / per)
            pl = sw["pipeline"]
            passes = "%.3f" % ((pl.get("passes", 0) -
                                pl.get("resubmits", 0)) / per)
        except (ValueError, KeyError):
            pass
    # The nodes' CPU and their threads' wake-ups (voluntary context
    # switches) in the measured phase (cluster_run: /proc samples).
    cpu = wakeups = dispatch = ""
    try:
        with open(os.path.join(outdir, "cpu.json")) as f:
            cpu_s = json.load(f)
        if len(cpu_s) == len(nodes):
            cpu = "%.1f" % (sum(cpu_s.values()) / per * 1e6)
        with open(os.path.join(outdir, "wakeups.json")) as f:
            w = json.load(f)
        if len(w) == len(nodes):
            wakeups = "%.2f" % (sum(x[0] for x in w.values()) / per)
            dispatch = "%.2f" % (sum(x[1] for x in w.values()) / per)
    except (OSError, ValueError):
        pass
    extra_cols = [c for c in (rows[nodes[0]].keys() if nodes[0] in rows
                              else []) if c not in COMMON_APP_COLUMNS]
    extra = " ".join("%s=%s" % (c, rows[nodes[0]][c]) for c in extra_cols)
    return {
        "app": app, "mode": mode, "knob": knob, "value": value,
        "nodes": k, "threads": threads,
        "seconds": max((float(r["seconds"]) for r in rows.values()),
                       default=0),
        "ops": ops,
        "ops_per_s": "%.1f" % sum(float(r["ops_per_s"])
                                  for r in rows.values()),
        "ops_per_s_node": " ".join("%.1f" % float(rows[n]["ops_per_s"])
                                   for n in sorted(rows)),
        "aborts": aborts,
        "abort_ratio": "%.6f" % (aborts / (ops + aborts)
                                 if ops + aborts else 0),
        "home_msgs_per_op": "%.3f" % (home / per),
        "switch_frames_per_op_run": sw_frames,
        "pipeline_passes_per_op_run": passes,
        "switch_serialised_share": "%.4f" % (
            at_switch / (at_switch + at_home) if at_switch + at_home
            else 0),
        "switch_blocks": total(stats, "migration.switch_owned"),
        "nacks_per_op": "%.4f" % (measured("requester.nacks") / per),
        "cpu_us_per_op": cpu,
        "wakeups_per_op": wakeups,
        "dispatch_wakeups_per_op": dispatch,
        "run_seconds": "%.1f" % (time.time() - started),
        "extra": extra,
        "errors": errors,
    }


COMMON_APP_COLUMNS = ("app", "mode", "workload", "node", "nodes", "threads",
                      "seconds", "ops", "ops_per_s", "aborts",
                      "abort_ratio", "retries")


def run_one(a, app, mode, k, args, duration, outdir):
    """One run; returns (exit statuses, history check result or None)."""
    spec = APPS[app]
    exe = os.path.join(a.build, "node-agent", "apps", spec["bin"])
    trace = []
    if a.trace:
        trace = ["--trace-every", str(a.trace)]
    sw_args = a.sw_args.split()
    if trace:
        sw_args += ["--trace", os.path.join(os.path.abspath(outdir),
                                            "trace-sw.bin")] + trace
    cl = cluster_run.Cluster(topo_for(k), a.build, sw_args=sw_args)
    hist = os.path.join(outdir, "history")

    def argv(n):
        v = [exe, "--topo", cl.topo, "--node", str(n), "--nodes", str(k),
             "--threads", str(a.threads), "--mode", mode, "--duration",
             str(duration), "--seed", str(a.seed), "--csv",
             os.path.join(outdir, "app-%d.csv" % n), "--stats",
             os.path.join(outdir, "na-%d.json" % n), "--stats-start",
             os.path.join(outdir, "na-%d-start.json" % n)]
        if spec["history"]:
            v += ["--history", hist]
        if trace:
            v += ["--trace", os.path.join(outdir, "trace-%d.bin" % n)] + trace
        if a.warmup and spec["warmup"]:
            v += ["--warmup", str(a.warmup)]
        return v + args

    # The app's own set-up (loading, a reference computation) comes on
    # top of the measured phase.
    rcs = cl.run(outdir, argv, nodes=list(range(k)),
                 timeout=duration + a.setup_timeout +
                 (a.warmup if spec["warmup"] else 0),
                 cpu_from=lambda n: os.path.join(outdir,
                                                 "na-%d-start.json" % n))
    check = None
    if spec["history"]:
        files = sorted(glob.glob(os.path.join(hist, "*.jsonl")))
        check = subprocess.run(cluster_run.history_checker(a.build) +
                               ["--expect-nodes", str(k)] + files,
                               capture_output=True, text=True)
    return rcs, check


def measure(a, app, mode, k, knob, value, args, duration, rep=0):
    outdir = os.path.join(a.out, "runs", "%s-%s-%s%s-n%d-%d" % (
        app, mode, knob, value, k, rep))
    started = time.time()
    rcs, check = run_one(a, app, mode, k, args, duration, outdir)
    row = summarise(app, mode, knob, value, k, a.threads, outdir, rcs,
                    started)
    ok = not int(row["errors"]) and (check is None or check.returncode == 0)
    if check is not None and check.returncode != 0:
        row["errors"] = int(row["errors"]) + 1
    last = ""
    if check is not None:
        last = "; history: " + ((check.stdout.strip().splitlines() or
                                 ["(no output)"])[-1])
    print("%s  %-8s %-9s %s=%s nodes %d: %s ops/s, aborts %s, "
          "home msgs/op %s, switch share %s, switch blocks %s%s (%ss)" %
          ("PASS" if ok else "FAIL", app, mode, knob, value, k,
           row["ops_per_s"], row["abort_ratio"], row["home_msgs_per_op"],
           row["switch_serialised_share"], row["switch_blocks"], last,
           row["run_seconds"]), flush=True)
    if not ok:
        for n, rc in sorted(rcs.items()):
            if rc:
                log = os.path.join(outdir, "node-%d.log" % n)
                print("      node %d exited %d; last lines of %s:" %
                      (n, rc, log))
                with open(log, errors="replace") as f:
                    for line in f.readlines()[-8:]:
                        print("        " + line.rstrip())
        if check is not None and check.returncode != 0:
            print(check.stdout[-2000:])
    return row


def median_row(rows):
    """The run of median throughput (the lower middle one of an even
    count), with every run's throughput beside it."""
    runs = " ".join(str(x["ops_per_s"]) for x in rows)
    rows = sorted(rows, key=lambda r: float(r["ops_per_s"]))
    r = dict(rows[(len(rows) - 1) // 2])
    r["errors"] = sum(int(x["errors"]) for x in rows)
    r["reps"] = len(rows)
    r["ops_per_s_runs"] = runs
    return r


def print_ratios(rows):
    """Per point: the modes' median throughput and switch/home,
    switch/directory (runs of one invocation, modes interleaved)."""
    pts = {}
    for r in rows:
        pts.setdefault((r["app"], r["knob"], str(r["value"]), r["nodes"]),
                       {})[r["mode"]] = float(r["ops_per_s"])
    print("%-28s %32s %12s %12s" % ("point (medians of runs)",
                                    "ops/s switch / home / directory",
                                    "switch/home", "switch/dir"))
    for (app, knob, value, k), m in pts.items():
        sw, h, d = (m.get(x, 0) for x in MODES)
        print("%-28s %32s %12s %12s" % (
            "%s %s=%s n%s" % (app, knob, value, k),
            "%.0f / %.0f / %.0f" % (sw, h, d),
            "%.2f" % (sw / h) if h else "-", "%.2f" % (sw / d) if d else "-"))


def write_csv(path, rows):
    cluster_report.write_csv(path, rows, COLUMNS)


def check_csv(path, expect, problems):
    """Well formed: the header, the expected (app, mode) rows, numbers."""
    rows = cluster_report.read_csv(path, COLUMNS, problems)
    if not rows:
        return
    got = sorted((r["app"], r["mode"]) for r in rows)
    if got != sorted(expect):
        problems.append("%s: rows %s, expected %s" % (path, got, expect))
    for r in rows:
        for c in ("ops", "ops_per_s", "abort_ratio", "home_msgs_per_op",
                  "nacks_per_op", "errors", "switch_blocks"):
            try:
                float(r[c])
            except ValueError:
                problems.append("%s %s: %s = %r is not a number" %
                                (r["app"], r["mode"], c, r[c]))
        if int(r["ops"]) <= 0:
            problems.append("%s %s: no operations" % (r["app"], r["mode"]))
        if int(r["errors"]):
            problems.append("%s %s: %s errors" % (r["app"], r["mode"],
                                                   r["errors"]))
        if r["mode"] == "switch" and not float(r["switch_serialised_share"]):
            problems.append("%s switch: no event serialised by the switch"
                            % r["app"])
        if r["mode"] != "switch" and float(r["switch_serialised_share"]):
            problems.append("%s %s: events serialised by the switch" %
                            (r["app"], r["mode"]))


def plot(rows, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def series(app, knob_value=None, x="nodes"):
        for mode in MODES:
            pts = sorted((r for r in rows if r["app"] == app and
                          r["mode"] == mode and
                          (knob_value is None or r["value"] == knob_value)),
                         key=lambda r: float(r[x]))
            if pts:
                yield mode, pts

    kv_w = sorted({r["value"] for r in rows if r["app"] == "kv"})
    if kv_w:
        fig, axes = plt.subplots(2, len(kv_w), figsize=(5 * len(kv_w), 7),
                                 squeeze=False)
        for i, w in enumerate(kv_w):
            top, bottom = axes[0][i], axes[1][i]
            for mode, pts in series("kv", w):
                xs = [int(r["nodes"]) for r in pts]
                top.plot(xs, [float(r["ops_per_s"]) / 1e3 for r in pts],
                         "o-", label=LABELS[mode])
                bottom.plot(xs, [float(r["home_msgs_per_op"])
                                 for r in pts], "o-", label=LABELS[mode])
            top.set_title("%s, Zipf 0.99" % w, fontsize=9)
            top.set_ylabel("throughput (Kops/s)")
            bottom.set_ylabel("home-agent messages / op")
            for ax in (top, bottom):
                ax.set_xlabel("nodes")
                ax.set_xticks(sorted({int(r["nodes"]) for r in rows}))
                ax.grid(alpha=0.3)
        axes[0][0].legend(fontsize=8)
        fig.suptitle("key-value store (cf. Figure 14)", fontsize=10)
        fig.tight_layout()
        fig.savefig(os.path.join(out, "apps-kv.png"), dpi=90)
        plt.close(fig)
    if any(r["app"] == "tpcc" for r in rows):
        fig, (a1, a2, a3) = plt.subplots(1, 3, figsize=(14, 4))
        for mode, pts in series("tpcc", x="value"):
            xs = [float(r["value"]) * 100 for r in pts]
            a1.plot(xs, [float(r["ops_per_s"]) / 1e3 for r in pts], "o-",
                    label=LABELS[mode])
            a2.plot(xs, [float(r["abort_ratio"]) * 100 for r in pts], "o-",
                    label=LABELS[mode])
            a3.plot(xs, [float(r["home_msgs_per_op"]) for r in pts], "o-",
                    label=LABELS[mode])
        a1.set_ylabel("throughput (K transactions/s)")
        a1.set_yscale("log")
        a2.set_ylabel("abort ratio (%)")
        a3.set_ylabel("home-agent messages / transaction")
        for ax in (a1, a2, a3):
            ax.set_xlabel("distribution ratio (%)")
            ax.grid(alpha=0.3)
        a1.legend(fontsize=8)
        fig.suptitle("TPC-C, %s nodes (cf. Figure 15)" % ", ".join(
            sorted({str(r["nodes"]) for r in rows if r["app"] == "tpcc"})),
            fontsize=10)
        fig.tight_layout()
        fig.savefig(os.path.join(out, "apps-tpcc.png"), dpi=90)
        plt.close(fig)
    if any(r["app"] == "pagerank" for r in rows):
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4))
        width = 0.25
        for i, (mode, pts) in enumerate(series("pagerank")):
            xs = [int(r["nodes"]) + (i - 1) * width for r in pts]
            a1.bar(xs, [float(r["seconds"]) for r in pts], width,
                   label=LABELS[mode])
            a2.bar(xs, [float(r["home_msgs_per_op"]) for r in pts], width,
                   label=LABELS[mode])
        a1.set_ylabel("total run time (s)")
        a2.set_ylabel("home-agent messages / vertex update")
        for ax in (a1, a2):
            ax.set_xlabel("nodes")
            ax.set_xticks(sorted({int(r["nodes"]) for r in rows
                                  if r["app"] == "pagerank"}))
            ax.grid(alpha=0.3, axis="y")
        a1.legend(fontsize=8)
        fig.suptitle("PageRank (cf. Figure 16)", fontsize=10)
        fig.tight_layout()
        fig.savefig(os.path.join(out, "apps-pagerank.png"), dpi=90)
        plt.close(fig)


def check_trace(a, app, mode, problems):
    """The run's traces well formed, the breakdown's parts >= 90% of the
    sampled events' latency (scripts/latency_breakdown.py)."""
    d = os.path.join(a.out, "runs", "%s-%s-smoke0-n2-0" % (app, mode))
    an = latency_breakdown.analyse(d)
    s = latency_breakdown.summary(an)
    problems += an["problems"]
    n = sum(e["n"] for e in s["events"].values())
    if n == 0:
        problems.append("%s %s: no sampled event in the trace" % (app, mode))
    elif s["event_coverage"] < 0.9:
        problems.append("%s %s: breakdown covers %.1f%% of event latency" %
                        (app, mode, 100 * s["event_coverage"]))
    print("      trace: %d sampled events, parts cover %.1f%% of their "
          "latency, %.1f%% of the accesses'" %
          (n, 100 * s["event_coverage"], 100 * s["op_coverage"]))


def smoke(a):
    problems, rows = [], []
    a.trace = a.trace or 16
    for app in a.apps:
        for mode in MODES:
            rows.append(median_row([measure(a, app, mode, 2, "smoke", 0,
                                            APPS[app]["smoke"],
                                            a.smoke_duration)]))
            check_trace(a, app, mode, problems)
    path = os.path.join(a.out, "apps-smoke.csv")
    write_csv(path, rows)
    check_csv(path, [(app, m) for app in a.apps for m in MODES], problems)
    for p in problems:
        print("PROBLEM", p)
    print("%s  apps smoke: %d runs, CSV well formed (%s)" %
          ("FAIL" if problems else "PASS", len(rows), path))
    bad = sum(1 for r in rows if int(r["errors"]))
    print("%d passed, %d failed" % (len(rows) - bad, bad))
    return 1 if problems or bad else 0


def sweep(a):
    rows, problems = [], []
    path = os.path.join(a.out, "apps.csv")
    for app in a.apps:
        for knob, value, args in APPS[app]["points"]:
            if a.points and str(value) not in a.points:
                continue
            # TPC-C's knob is the distribution ratio at the largest size;
            # the others sweep the node count.
            sizes = [max(a.nodes)] if app == "tpcc" else a.nodes
            for k in sizes:
                reps = {m: [] for m in MODES}
                for rep in range(a.reps):
                    # Modes interleaved: they share the load of the moment.
                    for mode in MODES:
                        reps[mode].append(measure(a, app, mode, k, knob,
                                                  value, args, a.duration,
                                                  rep))
                for mode in MODES:
                    rows.append(median_row(reps[mode]))
                write_csv(path, rows)
    check_csv(path, [(r["app"], r["mode"]) for r in rows], problems)
    for p in problems:
        print("PROBLEM", p)
    print_ratios(rows)
    plot(rows, a.out)
    print("wrote %s and apps-{kv,tpcc,pagerank}.png in %s" % (path, a.out))
    return 1 if problems else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--out", default="/tmp/swswitch-bench-apps")
    ap.add_argument("--apps", default="kv,tpcc,pagerank")
    ap.add_argument("--nodes", default="2,3,4")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--duration", type=float, default=5)
    ap.add_argument("--smoke-duration", type=float, default=3)
    ap.add_argument("--warmup", type=float, default=0,
                    help="kv and tpcc: run the workload this long first, "
                    "uncounted (caches fill, blocks migrate)")
    ap.add_argument("--setup-timeout", type=float, default=90,
                    help="seconds allowed beyond --duration per run")
    ap.add_argument("--reps", type=int, default=3,
                    help="runs per point, the median reported (>= 3 for "
                    "headline numbers)")
    ap.add_argument("--trace", type=int, default=0, metavar="N",
                    help="sampled latency trace, 1 in N events, in every "
                    "run directory (scripts/latency_breakdown.py)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sw-args", default="",
                    help="extra swswitch options for every run")
    ap.add_argument("--points", default="",
                    help="only these points' values, e.g. get95,0.0,13")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--no-pin", action="store_true",
                    help="let swswitch's lcore share the nodes' CPUs (the "
                    "default gives it one of its own; --smoke never pins)")
    ap.add_argument("--plot", metavar="CSV",
                    help="draw the PNGs of CSV into --out and exit")
    a = ap.parse_args()
    a.apps = [x for x in a.apps.split(",") if x]
    a.nodes = [int(x) for x in a.nodes.split(",") if x]
    a.points = [x for x in a.points.split(",") if x]
    for app in a.apps:
        if app not in APPS:
            ap.error("unknown app %s (one of %s)" % (app, ", ".join(APPS)))
        exe = os.path.join(a.build, "node-agent", "apps", APPS[app]["bin"])
        if not os.access(exe, os.X_OK):
            ap.error("%s is not built (BUILD=...)" % exe)
    if any(k < 2 or k > 4 for k in a.nodes):
        ap.error("--nodes: 2 to 4 (topo/demo2.json .. demo4.json)")
    os.makedirs(a.out, exist_ok=True)
    if a.plot:
        with open(a.plot, newline="") as f:
            plot(list(csv.DictReader(f)), a.out)
        return 0
    if a.smoke:
        return smoke(a)
    cluster_run.dedicate(pin=not a.no_pin)
    return sweep(a)


if __name__ == "__main__":
    sys.exit(main())
