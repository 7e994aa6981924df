#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Validate-on-hit benchmark and correctness runs (docs/VALIDATE.md).

Two parts:
  stale   na-sim, workload poll (an updater every virtual second, readers on
          every node), once per policy: validate, validate-rpc, ttl; each
          history through node-agent/checker/check_history.py; stale.csv.
  latency (not with --smoke; root) a 2-node namespace cluster (SWCL_ID,
          default v): node 1 is the home, running B busy threads; node 0
          times version checks and reads (voh-bench) one-sided and RPC;
          latency.csv, latency.png.

--smoke: only the validate runs (three seeds, one with loss, migration and
switch-owned blocks); passes when each history has 0 stale reads.
"""

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import cluster_run  # noqa: E402  (history_checker)


def sim_run(build, policy, seed, extra):
    """One na-sim run; (ops, reads, stale reads, violations, checker ok)."""
    with tempfile.TemporaryDirectory() as d:
        argv = [os.path.join(build, "node-agent", "na-sim"), "--workload",
                "poll", "--policy", policy, "--duration", "5", "--events",
                "100000000", "--max-rate", "2000", "--seed", str(seed),
                "--history", d, "--quiet"] + extra
        r = subprocess.run(argv, capture_output=True, text=True)
        if r.returncode != 0:
            print("na-sim failed (%d): %s" % (r.returncode, r.stderr[-500:]))
            return None
        files = sorted(os.path.join(d, f) for f in os.listdir(d))
        c = subprocess.run(cluster_run.history_checker(build) +
                           ["--json"] + files,
                           capture_output=True, text=True)
        s = json.loads(c.stdout.strip().splitlines()[-1])
        stale = s.get("violations.stale_read", 0)
        other = sum(v for k, v in s.items()
                    if k.startswith("violations.") and k != "violations.stale_read")
        voh = json.loads(r.stdout.strip().splitlines()[-1]).get("voh", {})
        return {"policy": policy, "seed": seed, "extra": " ".join(extra),
                "ops": s["ops"], "reads": s.get("ops.read", 0),
                "stale_reads": stale, "other_violations": other,
                "validated_hits": voh.get("validated_hits", 0),
                "fallbacks": voh.get("fallbacks", 0),
                "sw_checks": voh.get("sw_checks", 0),
                "sw_hits": voh.get("sw_hits", 0),
                "sw_fetches": voh.get("sw_fetches", 0),
                "sw_writes": voh.get("sw_writes", 0)}


SIM_RUNS = [
    ("validate", 1, ["--switch-blocks", "0"]),
    ("validate", 2, ["--switch-blocks", "0", "--loss", "0.05", "--dup", "0.05"]),
    ("validate", 3, ["--switch-blocks", "1", "--migrate", "--loss", "0.05"]),
    ("validate", 4, ["--switch-blocks", "0", "--updaters", "all",
                     "--update-s", "0.01"]),
    ("validate", 5, ["--switch-blocks", "1", "--migrate", "--loss", "0.05",
                     "--dup", "0.05", "--updaters", "all", "--update-s", "0.01"]),
    ("validate-rpc", 1, ["--switch-blocks", "0"]),
    ("ttl", 1, ["--switch-blocks", "0", "--ttl-us", "500000"]),
]


def stale_part(build, out, smoke):
    rows, passed, failed = [], 0, 0
    for policy, seed, extra in SIM_RUNS:
        if smoke and policy != "validate":
            continue
        r = sim_run(build, policy, seed, extra)
        if r is None:
            failed += 1
            continue
        rows.append(r)
        if policy == "ttl":
            ok = r["stale_reads"] > 0  # the baseline must show them
            want = "> 0"
        else:
            ok = r["stale_reads"] == 0 and r["other_violations"] == 0
            want = "0"
            # switch-owned blocks are checked at the switch, not refused
            if "--switch-blocks 1" in r["extra"]:
                ok = ok and r["sw_hits"] > 0
        print("%-4s stale reads %-12s %6d of %6d reads (expected %s) [%s]" % (
            "ok" if ok else "FAIL", policy, r["stale_reads"], r["reads"],
            want, r["extra"]))
        print("     switch path: %d checks, %d hits, %d fetches, %d writes; "
              "fallbacks %d" % (r["sw_checks"], r["sw_hits"], r["sw_fetches"],
                                r["sw_writes"], r["fallbacks"]))
        passed += ok
        failed += not ok
    with open(os.path.join(out, "stale.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()) if rows else ["policy"])
        w.writeheader()
        w.writerows(rows)
    return passed, failed


def latency_part(build, out, levels, ops):
    from cluster_run import Cluster
    topo = os.path.join(REPO, "topo", "demo2.json")
    cl = Cluster(topo, build)
    exe = os.path.join(build, "node-agent", "apps", "voh-bench")
    rows = []
    os.makedirs(out, exist_ok=True)
    cl.up(os.path.join(out, "cluster-up.log"))
    try:
        for b in levels:
            # The home and the client share CPU 1 (CPU 0 runs swswitch's
            # poll loop); both processes run SCHED_FIFO so their receive
            # paths stand in for NICs, while the busy threads and the home's
            # version thread are ordinary threads (docs/VALIDATE.md).
            home = subprocess.Popen(cl.exec_argv(1, [
                "chrt", "-f", "10", "taskset", "-c", "1", exe, "--topo", topo,
                "--node", "1", "--role", "home", "--busy", str(b)]),
                stdout=subprocess.DEVNULL,
                stderr=open(os.path.join(out, "home-%d.log" % b), "w"))
            time.sleep(1)
            try:
                c = subprocess.run(cl.exec_argv(0, [
                    "chrt", "-f", "10", "taskset", "-c", "1", exe, "--topo",
                    topo, "--node", "0", "--role", "client", "--home", "1",
                    "--busy", str(b), "--ops", str(ops)]),
                    capture_output=True, text=True, timeout=600)
            finally:
                home.send_signal(2)
                home.wait(timeout=30)
            for line in c.stdout.splitlines():
                r = json.loads(line)
                rows.append(r)
                print("busy %3d %-15s p50 %9.1f us  p99 %9.1f us  mean %9.1f us"
                      "  %8.1f ops/s" % (b, r["mode"], r["p50_us"], r["p99_us"],
                                         r["mean_us"], r["ops_per_s"]))
            if c.returncode:
                print("voh-bench client failed: %s" % c.stderr[-500:])
    finally:
        cl.down(out)
    path = os.path.join(out, "latency.csv")
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["busy", "mode", "n", "p50_us",
                                          "p99_us", "mean_us", "ops_per_s"])
        w.writeheader()
        w.writerows(rows)
    plot(rows, os.path.join(out, "latency.png"))
    summary(rows)


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 3, figsize=(15, 4.2))
    for mode, style in (("check-onesided", "o-"), ("check-rpc", "s--"),
                        ("read-onesided", "^-"), ("read-rpc", "v--"),
                        ("fetch", "x:")):
        rs = sorted((r for r in rows if r["mode"] == mode),
                    key=lambda r: r["busy"])
        if not rs:
            continue
        x = [r["busy"] for r in rs]
        ax[0].plot(x, [r["mean_us"] / 1e3 for r in rs], style, label=mode)
        ax[1].plot(x, [r["p99_us"] / 1e3 for r in rs], style, label=mode)
        ax[2].plot(x, [r["ops_per_s"] for r in rs], style, label=mode)
    for a, t in zip(ax, ("mean latency (ms)", "p99 latency (ms)",
                         "closed-loop operations/s")):
        a.set_xlabel("busy threads on the home's CPU")
        a.set_title(t)
        a.grid(True, alpha=0.3)
    ax[2].set_yscale("log")
    ax[0].legend(fontsize=8)
    fig.suptitle("validate-on-hit: one-sided version check vs RPC "
                 "(paper 003 Fig. 6 shape)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def summary(rows):
    by = {(r["busy"], r["mode"]): r for r in rows}
    for b in sorted({r["busy"] for r in rows}):
        one, rpc = by.get((b, "read-onesided")), by.get((b, "read-rpc"))
        fetch = by.get((b, "fetch"))
        if one and rpc:
            print("busy %3d: read mean RPC/one-sided %.2fx, throughput "
                  "one-sided/RPC %.2fx%s" % (
                      b, rpc["mean_us"] / one["mean_us"],
                      one["ops_per_s"] / rpc["ops_per_s"],
                      "" if not fetch else ", validated hit / fetch mean %.0f%%"
                      % (100 * one["mean_us"] / fetch["mean_us"])))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--out", default="bench-voh-out")
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--levels", default="0,8,25,50,100")
    ap.add_argument("--ops", type=int, default=600)
    ap.add_argument("--stale-only", action="store_true",
                    help="the na-sim runs of every policy, no cluster")
    ap.add_argument("--plot", metavar="CSV",
                    help="only redraw latency.png in --out from a latency.csv")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    if a.plot:
        with open(a.plot) as f:
            rows = [{k: (v if k == "mode" else float(v)) for k, v in r.items()}
                    for r in csv.DictReader(f)]
        plot(rows, os.path.join(a.out, "latency.png"))
        summary(rows)
        return 0
    passed, failed = stale_part(a.build, a.out, a.smoke)
    if not a.smoke and not a.stale_only:
        latency_part(a.build, a.out,
                     [int(x) for x in a.levels.split(",")], a.ops)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
