#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The application benchmark in the simulated cluster: node-agent/apps run
by `na-sim --app` with the cost model (docs/SIMULATION.md "Cost model",
docs/APPS.md "In the simulator"). `scripts/bench-apps.sh --sim` runs this.

  scripts/bench-apps.sh --sim [--profile local|paper] [--smoke] [--out DIR]
                              [--apps kv,tpcc,pagerank] [--nodes 2,4,8]
                              [--threads T] [--seeds N|S,S,..|A-B] [--duration S] [-j N]
                              [--warmup S] [--warmup-iterations W] [--trace N] [--cost NAME=NS]..
  scripts/bench-apps.sh --sim --replot CSV... --out DIR   (merge, replot)

Writes DIR/apps-sim.csv (one row per run), DIR/apps-sim-median.csv (the
median over the seeds of each point) and DIR/apps-sim-{kv,tpcc,pagerank}.png
(Figures 14-16 in shape: throughput against nodes, one line per mode).
--smoke (CI): every app in every mode on 2 nodes, one short run each, the
first run twice (identical rows: determinism), the CSV's sanity checked.
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cluster_report  # noqa: E402

MODES = ("switch", "home", "directory")
# Each app's point (the namespace cluster's headline points, docs/APPS.md)
# and a smaller one for --smoke.
APPS = {
    "kv": {"points": [("get95", ["--workload", "get95"]),
                      ("get50", ["--workload", "get50"])],
           "smoke": ["--workload", "get95", "--keys", "20000"]},
    "tpcc": {"points": [("dist0.1", ["--dist-ratio", "0.1"])],
             "smoke": ["--dist-ratio", "0.1", "--items", "1000",
                       "--customers-per-district", "30"]},
    "pagerank": {"points": [("scale13", ["--scale", "13",
                                         "--iterations", "10"])],
                 "smoke": ["--scale", "9", "--iterations", "3",
                           "--warmup-iterations", "2"]},
}
# Apps that run for a time (PageRank runs a fixed number of iterations).
WARMUP_APPS = ("kv", "tpcc")
COLUMNS = ["app", "point", "mode", "nodes", "threads", "profile", "seed",
           "ops_per_s", "home_msgs_per_op", "switch_share", "p50_us",
           "p99_us", "virtual_s", "agent_wait_us_per_frame",
           "frames_per_op", "stuck", "errors", "wakes_per_op"]
# The numeric columns, medians over the seeds.
MEDIAN_COLUMNS = COLUMNS[7:-3] + ["wakes_per_op"]


def total(stats, key):
    s = 0
    for st in stats:
        _, v = cluster_report.pick(cluster_report.flatten(st), [key])
        s += v or 0
    return s


def costs_for(costs, app):
    """The --cost figures of one app's runs: NAME=NS for every app,
    APP:NAME=NS for APP's only."""
    out = []
    for c in costs:
        scope, sep, figure = c.partition(":")
        if not sep:
            out.append(c)
        elif scope == app:
            out.append(figure)
    return out


def run_one(a, app, point, args, mode, nodes, seed):
    out = os.path.join(a.out, "runs", "%s-%s-%s-n%d-s%d" % (
        app, point, mode, nodes, seed))
    os.makedirs(out, exist_ok=True)
    for f in os.listdir(out):
        os.unlink(os.path.join(out, f))
    cmd = [os.path.join(a.build, "node-agent", "na-sim"), "--app",
           app, "--nodes", str(nodes), "--threads", str(a.threads),
           "--mode", mode, "--seed", str(seed), "--duration",
           str(a.duration), "--profile", a.profile, "--out", out,
           "--stuck-s", str(a.stuck_s)] + [
               x for c in costs_for(a.cost, app) for x in ("--cost", c)] + (
               ["--trace", str(a.trace)] if a.trace else []) + ["--"] + \
        args + (["--warmup", str(a.warmup)]
                if a.warmup and app in WARMUP_APPS else []) + (
            ["--warmup-iterations", str(a.warmup_iterations)]
            if a.warmup_iterations and app == "pagerank" else [])
    with open(os.path.join(out, "log.txt"), "w") as log:
        rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT,
                            timeout=a.timeout).returncode
    row = {"app": app, "point": point, "mode": mode, "nodes": nodes,
           "threads": a.threads, "profile": a.profile, "seed": seed,
           "errors": 1 if rc else 0, "stuck": 1 if rc == 3 else 0}
    return summarise(out, row)


def summarise(out, row):
    """The row of the run in `out` (its files); `row` has its identity."""
    nodes = int(row["nodes"])
    try:
        with open(os.path.join(out, "sim.json")) as f:
            sim = json.load(f)
    except (OSError, ValueError):
        return dict(row, errors=1)
    rows = []
    for n in range(nodes):
        p = os.path.join(out, "app-%d.csv" % n)
        if os.path.exists(p):
            with open(p, newline="") as f:
                rows += list(csv.DictReader(f))[-1:]
    load = []
    for name in ("na-%d.json", "na-%d-start.json"):
        load.append([cluster_report.load_json(os.path.join(out, name % n))
                     for n in range(nodes)
                     if os.path.exists(os.path.join(out, name % n))])
    end, start = load

    def measured(key):
        return total(end, key) - total(start, key)

    ops = sum(int(r["ops"]) for r in rows) or 1
    home = measured("home_agent.messages_received") + \
        measured("home_agent.messages_sent")
    at_sw, at_home = measured("events_in_switch"), measured("events_at_home")
    cost = sim["cost"]
    frames = cost.get("frames", 0) or 1
    row.update({
        "ops_per_s": "%.1f" % sum(float(r["ops_per_s"]) for r in rows),
        "home_msgs_per_op": "%.3f" % (home / ops),
        "switch_share": "%.4f" % (at_sw / (at_sw + at_home)
                                  if at_sw + at_home else 0),
        "p50_us": "%.3f" % (sim["latency"]["p50_ns"] / 1e3),
        "p99_us": "%.3f" % (sim["latency"]["p99_ns"] / 1e3),
        "virtual_s": "%.4f" % sim["virtual_s"],
        "agent_wait_us_per_frame": "%.3f" % (
            cost["wait_ns"]["agent"] / frames / 1e3),
        "frames_per_op": "%.3f" % (measured("packets_received") / ops),
        # Frames that woke their node's agent threads in the measured
        # phase (the cluster's dispatch_wakeups_per_op); none in a
        # sim.json without the measured counters.
        "wakes_per_op": "%.3f" % (cost["measured"]["wakes"] / ops)
        if "measured" in cost else "",
    })
    if len(rows) != nodes:
        row["errors"] = 1
    return row


def median_rows(rows):
    groups = {}
    for r in rows:
        groups.setdefault((r["app"], r["point"], r["mode"], r["nodes"]),
                          []).append(r)
    out = []
    for key in sorted(groups, key=lambda k: (k[0], k[1], MODES.index(k[2]),
                                             k[3])):
        g = [r for r in groups[key] if not int(r["errors"])]
        m = dict(groups[key][0])
        m["seed"] = "median of %d" % len(g)
        m["errors"] = sum(int(r["errors"]) for r in groups[key])
        for c in MEDIAN_COLUMNS:
            vals = [float(r[c]) for r in g if r.get(c) not in (None, "")]
            m[c] = "%.4g" % statistics.median(vals) if vals else ""
        out.append(m)
    return out


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)


def plot(med, out, profile):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no plots")
        return
    for app in APPS:
        pts = [r for r in med if r["app"] == app and r["ops_per_s"]]
        points = sorted({r["point"] for r in pts})
        if not points:
            continue
        fig, axes = plt.subplots(1, len(points), squeeze=False,
                                 figsize=(5 * len(points), 3.6))
        for ax, pt in zip(axes[0], points):
            for mode in MODES:
                s = sorted((int(r["nodes"]), float(r["ops_per_s"]))
                           for r in pts if r["point"] == pt and
                           r["mode"] == mode)
                if s:
                    ax.plot([x for x, _ in s], [y for _, y in s], "o-",
                            label=mode)
            ax.set_title("%s %s (na-sim, %s profile)" % (app, pt, profile))
            ax.set_xlabel("nodes")
            ax.set_ylabel("ops/s (median of seeds)")
            ax.set_ylim(bottom=0)
            ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(out, "apps-sim-%s.png" % app), dpi=90)
        plt.close(fig)


def smoke_checks(a, rows, again):
    problems = []
    first = rows[0]
    if {k: first[k] for k in COLUMNS if k in first} != \
            {k: again[k] for k in COLUMNS if k in again}:
        problems.append("the same seed gave different rows:\n  %s\n  %s" %
                        (first, again))
    for r in rows:
        name = "%s %s %s" % (r["app"], r["mode"], r["nodes"])
        if int(r["errors"]):
            problems.append("%s: the run failed (%s)" % (
                name, "stuck" if int(r["stuck"]) else "exit status"))
            continue
        if not float(r["ops_per_s"]) > 0:
            problems.append("%s: no operations" % name)
        if not float(r["home_msgs_per_op"]) >= 0:
            problems.append("%s: home_msgs_per_op" % name)
        share = float(r["switch_share"])
        if (r["mode"] == "switch") != (share > 0) and r["app"] != "tpcc":
            problems.append("%s: switch_share %s" % (name, share))
        if not float(r["p99_us"]) >= float(r["p50_us"]):
            problems.append("%s: p99 below p50" % name)
    return problems


def cost_checks(a, job):
    """--cost: a measured figure replaces the profile's, a bad one is
    refused."""
    problems = []
    a.cost = a.cost + ["hop_ns=123457"]
    run_one(a, *job)
    a.cost.pop()
    app, pt, _, mode, nodes, seed = job
    out = os.path.join(a.out, "runs", "%s-%s-%s-n%d-s%d" % (
        app, pt, mode, nodes, seed))
    with open(os.path.join(out, "sim.json")) as f:
        hop = json.load(f)["cost"]["hop_ns"]
    if hop != 123457:
        problems.append("--cost hop_ns=123457: sim.json hop_ns %s" % hop)
    rc = subprocess.run([os.path.join(a.build, "node-agent", "na-sim"),
                         "--app", app, "--out", out, "--cost", "hop=1"],
                        capture_output=True).returncode
    if rc == 0:
        problems.append("--cost hop=1 accepted")
    return problems


def seed_list(v):
    """--seeds: a count N (1..N), a list S,S,.. or a range A-B."""
    try:
        if "," in v:
            seeds = [int(x) for x in v.split(",") if x]
        elif "-" in v:
            lo, hi = (int(x) for x in v.split("-", 1))
            seeds = list(range(lo, hi + 1))
        else:
            seeds = list(range(1, int(v) + 1))
    except ValueError:
        seeds = []
    if not seeds or min(seeds) < 1:
        raise argparse.ArgumentTypeError(
            "%r: a count N, a list S,S,.. or a range A-B of seeds >= 1" % v)
    return seeds


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(os.path.dirname(HERE),
                                                    "build"))
    ap.add_argument("--sim", action="store_true", help="(bench-apps.sh)")
    ap.add_argument("--profile", default="paper", choices=("local",
                                                           "paper"))
    ap.add_argument("--cost", action="append", default=[],
                    metavar="[APP:]NAME=NS", help="a measured figure in "
                    "place of the profile's (na-sim --cost), for APP's runs "
                    "only when given (bench_validate_local.py)")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--out", default="bench-apps-sim")
    ap.add_argument("--apps", default="kv,tpcc,pagerank")
    ap.add_argument("--points", default="",
                    help="comma-separated point names (default: all)")
    ap.add_argument("--nodes", default="2,4,8")
    ap.add_argument("--threads", type=int, default=4,
                    help="per node (the paper's 4)")
    ap.add_argument("--seeds", type=seed_list, default=seed_list("3"),
                    help="N (seeds 1..N), a list S,S,.. or a range A-B")
    ap.add_argument("--duration", type=float, default=0.02,
                    help="virtual seconds of the measured phase")
    ap.add_argument("--warmup", type=float, default=0,
                    help="virtual seconds run before the measured phase, "
                    "uncounted (kv, tpcc)")
    ap.add_argument("--warmup-iterations", type=int, default=0,
                    metavar="W", help="PageRank's iterations run before "
                    "the measured ones, uncounted (its --warmup)")
    ap.add_argument("--trace", type=int, default=0, metavar="N",
                    help="sampled trace of 1 in N events per run "
                    "(scripts/latency_breakdown.py RUN_DIR)")
    ap.add_argument("--stuck-s", type=float, default=5)
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--replot", nargs="+", metavar="CSV",
                    help="no runs: the medians and plots of these "
                    "apps-sim.csv files (merged) into --out")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    if a.replot:
        rows = []
        for p in a.replot:
            with open(p, newline="") as f:
                for r in csv.DictReader(f):
                    r["nodes"] = int(r["nodes"])
                    # Recomputed from the run's files when they are there.
                    d = os.path.join(os.path.dirname(p), "runs",
                                     "%s-%s-%s-n%d-s%s" % (
                                         r["app"], r["point"], r["mode"],
                                         r["nodes"], r["seed"]))
                    if os.path.isdir(d):
                        r = summarise(d, {k: r[k] for k in (
                            "app", "point", "mode", "nodes", "threads",
                            "profile", "seed", "errors", "stuck")})
                    rows.append(r)
        write_csv(os.path.join(a.out, "apps-sim.csv"), rows)
        med = median_rows(rows)
        write_csv(os.path.join(a.out, "apps-sim-median.csv"), med)
        plot(med, a.out, rows[0]["profile"] if rows else "")
        return 0
    apps = [x for x in a.apps.split(",") if x]
    for x in apps:
        if x not in APPS:
            ap.error("--apps: %s is not one of %s" % (x, ", ".join(APPS)))
    jobs = []
    if a.smoke:
        a.threads, a.duration, a.seeds, a.warmup = 2, 0.005, [1], 0
        a.warmup_iterations = 0
        for app in apps:
            for mode in MODES:
                jobs.append((app, "smoke", APPS[app]["smoke"], mode, 2, 1))
    else:
        want = set(x for x in a.points.split(",") if x)
        for app in apps:
            for pt, args in APPS[app]["points"]:
                if want and pt not in want:
                    continue
                for k in (int(x) for x in a.nodes.split(",")):
                    for mode in MODES:
                        for seed in a.seeds:
                            jobs.append((app, pt, args, mode, k, seed))
    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        rows = list(ex.map(lambda j: run_one(a, *j), jobs))
    for r in rows:
        print("%-8s %-8s %-9s nodes %d seed %s: %s ops/s, home msgs/op %s, "
              "switch share %s, p50 %s us, p99 %s us%s" % (
                  r["app"], r["point"], r["mode"], r["nodes"], r["seed"],
                  r.get("ops_per_s"), r.get("home_msgs_per_op"),
                  r.get("switch_share"), r.get("p50_us"), r.get("p99_us"),
                  " FAILED" if int(r["errors"]) else ""), flush=True)
    write_csv(os.path.join(a.out, "apps-sim.csv"), rows)
    med = median_rows(rows)
    write_csv(os.path.join(a.out, "apps-sim-median.csv"), med)
    if a.smoke:
        again = run_one(a, *jobs[0])
        problems = smoke_checks(a, rows, again) + cost_checks(a, jobs[0])
        for p in problems:
            print("FAIL " + p)
        print("apps-sim smoke: %s" % ("FAIL" if problems else "PASS"))
        return 1 if problems else 0
    plot(med, a.out, a.profile)
    print("wrote %s/apps-sim.csv, apps-sim-median.csv, apps-sim-*.png" %
          a.out)
    return 1 if any(int(r["errors"]) for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
