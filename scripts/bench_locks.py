#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Lock benchmark (docs/QUEUED-LOCKS.md "Benchmark"), driven by
scripts/bench-locks.sh: the switch's two lock modes (topology key
switch.lock_mode: retry, the NACK-and-retry default, and queued, GCS's
wait queues) on a namespace cluster through swswitch (topo/demo4.json with
the mode set; 4 nodes, --threads per node, --mode switch: the contended
blocks migrate into the switch, whose lock is the one the modes differ in).

Workloads, each run on a fresh cluster, every mode in the same invocation:

  handover  every thread write-locks ONE block and increments its counter
            (dsm_locks --workload handover): grants/s, NACKs, packets per
            handover, FIFO order of the grants, the longest wait
  gcs       GCS's microbenchmark (dsm_locks --workload gcs): one lock, read
            or write, data combined with the lock (region lock) or
            separate (lock block, then the data), locality on or off
  kv        dsm_kv --rwlock (per-bucket rwlocks: GET under dsm_rlock, PUT
            under dsm_wlock), YCSB-C, get95, get50, Zipf 0.99

A watchdog aborts a run in which no operation completed for --watchdog
seconds (from the nodes' progress lines): the processes are stopped, the
cluster taken down, the row marked `aborted` and the reason printed.
Rows (the median of --reps runs by throughput) go to DIR/locks.csv, the
gains to DIR/gains.csv, the plot to DIR/locks.png.
"""

import argparse
import csv
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import cluster_report  # noqa: E402
import cluster_run  # noqa: E402
from bench_locks_report import (add_ratios, gains,  # noqa: E402
                                grants_analysis, median_row, plot)

SWITCH_NACKS = ("nack_lock_busy", "nack_check_failed", "nack_stale_request",
                "nack_aborted_request")
HOME_NACKS = ("pipeline_nack_lock", "pipeline_nack_check")
PROGRESS = re.compile(r"node \d+:\s+\d+ s\s+(\d+) ops/s")

COLUMNS = ["workload", "variant", "mode", "status", "nodes", "threads",
           "seconds", "ops", "ops_per_s", "ratio_vs_retry", "nacks",
           "switch_nacks", "home_nacks", "requester_nacks",
           "retransmissions", "packets_per_op", "events_per_op",
           "switch_share", "node_ops_min_max", "lat_p50_us", "lat_p99_us", "lat_mean_us",
           "handovers", "handovers_per_s", "packets_per_handover",
           "fifo_share", "max_wait_ms", "violations", "runs", "errors"]

GCS = [(k, d, loc) for k in ("read", "write") for d in ("combined",
                                                        "separate")
       for loc in ("on", "off")]
KV = ("ycsb-c", "get95", "get50")


def mode_topo(a, mode):
    with open(os.path.join(REPO, "topo", "demo%d.json" % a.nodes)) as f:
        t = json.load(f)
    t["switch"]["lock_mode"] = mode
    t["_comment"] = "bench-locks.sh: demo%d.json, lock_mode %s" % (a.nodes,
                                                                   mode)
    path = os.path.join(a.out, "topo-%s.json" % mode)
    with open(path, "w") as f:
        json.dump(t, f, indent=1)
    return path


def progress_ops(outdir, nodes):
    total = 0
    for n in nodes:
        try:
            with open(os.path.join(outdir, "node-%d.log" % n),
                      errors="replace") as f:
                total += sum(int(m.group(1)) for m in
                             PROGRESS.finditer(f.read()))
        except OSError:
            pass
    return total


def run_cluster(a, topo, outdir, argv_of, label):
    """Every node's exit status and the watchdog's verdict (None: ran)."""
    nodes = list(range(a.nodes))
    cl = cluster_run.Cluster(topo, a.build)
    shutil.rmtree(outdir, ignore_errors=True)  # one current set of files
    os.makedirs(outdir)
    cl.up(os.path.join(outdir, "cluster-up.log"))
    procs, aborted = {}, None
    try:
        for n in nodes:
            procs[n] = subprocess.Popen(
                ["nice", "-n", "15"] + cl.exec_argv(n, argv_of(n)),
                stdout=open(os.path.join(outdir, "node-%d.out" % n), "w"),
                stderr=open(os.path.join(outdir, "node-%d.log" % n), "w"))
        start = last = time.time()
        seen = 0
        while any(p.poll() is None for p in procs.values()):
            ops = progress_ops(outdir, nodes)
            now = time.time()
            if ops > seen:
                seen, last = ops, now
            # before the first operation: set-up (load, barrier) may
            # take longer on a loaded machine
            if now - last > (a.watchdog if seen else a.setup_watchdog):
                aborted = ("no operation completed for %.0f s (%d before%s)"
                           % (now - last, seen,
                              "" if seen else ": set-up did not finish"))
                break
            if now - start > a.duration + a.setup_timeout:
                aborted = "still running after %.0f s" % (now - start)
                break
            if any(p.poll() not in (None, 0) for p in procs.values()) and \
                    now - max(last, start) > 5:
                break  # a node failed: the others would wait for it
            time.sleep(0.25)
        if aborted:
            print("WATCHDOG  %s: %s; run aborted, cluster taken down" %
                  (label, aborted), flush=True)
        rcs = {}
        for n, p in procs.items():
            if p.poll() is None:
                p.send_signal(signal.SIGINT)  # the node writes its stats
        for n, p in procs.items():
            try:
                rcs[n] = p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
                rcs[n] = p.wait() or 124
        if aborted:
            print_stuck(outdir, nodes)
        return rcs, aborted
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
                p.wait()
        cl.down(outdir)


def app_rows(outdir, nodes):
    rows = {}
    for n in nodes:
        path = os.path.join(outdir, "app-%d.csv" % n)
        if os.path.exists(path):
            with open(path, newline="") as f:
                r = list(csv.DictReader(f))
            if r:
                rows[n] = r[-1]
    return rows


def stats(outdir, nodes, name):
    out = {}
    for n in nodes:
        p = os.path.join(outdir, name % n)
        if os.path.exists(p):
            try:
                out[n] = cluster_report.flatten(cluster_report.load_json(p))
            except ValueError:
                pass
    return out


def total(st, key):
    return sum(cluster_report.pick(s, [key])[1] or 0 for s in st.values())


def check_histories(outdir, nodes, build):
    files = sorted(glob.glob(os.path.join(outdir, "history", "*.jsonl")))
    if not files:
        return None
    r = subprocess.run(["nice", "-n", "15"] +
                       cluster_run.history_checker(build) +
                       ["--expect-nodes", str(len(nodes))] + files,
                       capture_output=True, text=True)
    return r.returncode == 0, (r.stdout.strip().splitlines() or [""])[-1]


def measure(a, mode, topo, workload, variant, rep, history):
    nodes = list(range(a.nodes))
    label = "%s %s %s" % (workload, variant, mode)
    outdir = os.path.join(a.out, "runs", "%s-%s-%s-%d" % (
        workload, variant.replace("/", "-"), mode, rep))
    hist = os.path.join(outdir, "history")

    def argv(n):
        threads = a.gcs_threads if workload == "gcs" else a.threads
        common = ["--topo", topo, "--node", str(n), "--nodes",
                  str(a.nodes), "--threads", str(threads), "--mode",
                  "switch", "--duration", str(a.duration), "--seed",
                  str(a.seed + rep), "--progress", "--csv",
                  os.path.join(outdir, "app-%d.csv" % n), "--stats",
                  os.path.join(outdir, "na-%d.json" % n), "--stats-start",
                  os.path.join(outdir, "na-%d-start.json" % n)]
        if history:  # bounded: the checker reads every operation
            common += ["--history", hist, "--max-rate", str(a.hist_rate)]
        if workload == "kv":
            return [os.path.join(a.build, "node-agent", "apps", "kv",
                                 "dsm_kv")] + common + [
                "--rwlock", "--workload", variant, "--dist", "zipf",
                "--keys", str(a.keys)]
        exe = os.path.join(a.build, "node-agent", "apps", "dsm_locks")
        if workload == "handover":
            return [exe] + common + ["--workload", "handover", "--grants",
                                     os.path.join(outdir,
                                                  "grants-%d.csv" % n)]
        kind, data, loc = variant.split("/")
        return [exe] + common + ["--workload", "gcs", "--kind", kind,
                                 "--data", data, "--locality",
                                 loc.replace("locality-", "")]

    started = time.time()
    rcs, aborted = run_cluster(a, topo, outdir, argv, label)
    rows = app_rows(outdir, nodes)
    end, beg = stats(outdir, nodes, "na-%d.json"), stats(
        outdir, nodes, "na-%d-start.json")

    def measured(key):
        return total(end, key) - total(beg, key)

    sw_nacks = 0
    swp = os.path.join(outdir, "swswitch.json")
    if os.path.exists(swp):
        try:
            acts = cluster_report.switch_summary(
                cluster_report.load_json(swp))["actions"]
            sw_nacks = sum(acts.get(k, 0) for k in SWITCH_NACKS)
        except (ValueError, KeyError):
            pass
    home_nacks = sum(total(end, "home_agent." + k) for k in HOME_NACKS)
    ops = sum(int(r["ops"]) for r in rows.values())
    per = ops or 1
    secs = max((float(r["seconds"]) for r in rows.values()), default=0)
    ev_sw, ev_home = measured("events_in_switch"), measured("events_at_home")
    row = {c: "" for c in COLUMNS}
    row.update({
        "workload": workload, "variant": variant, "mode": mode,
        "nodes": a.nodes,
        "threads": a.gcs_threads if workload == "gcs" else a.threads,
        "seconds": "%.3f" % secs,
        "ops": ops, "ops_per_s": "%.1f" % sum(float(r["ops_per_s"])
                                              for r in rows.values()),
        "nacks": sw_nacks + home_nacks, "switch_nacks": sw_nacks,
        "home_nacks": home_nacks,
        "requester_nacks": measured("requester.nacks"),
        "retransmissions": measured("requester.retransmit_request"),
        "packets_per_op": "%.4f" % (measured("packets_sent") / per),
        "events_per_op": "%.4f" % (measured("requester.events") / per),
        "switch_share": "%.3f" % (ev_sw / (ev_sw + ev_home)
                                  if ev_sw + ev_home else 0),
        "runs": 1,
    })
    if rows:  # fairness: the slowest node's operations / the fastest's
        nops = [int(r["ops"]) for r in rows.values()]
        row["node_ops_min_max"] = "%.4f" % (min(nops) / max(nops)
                                            if max(nops) else 0)
    if workload != "kv" and rows:
        w = {n: int(r["ops"]) for n, r in rows.items()}
        wsum = sum(w.values()) or 1
        row["lat_p50_us"] = "%.2f" % sorted(
            float(r["lat_p50_us"]) for r in rows.values())[len(rows) // 2]
        row["lat_p99_us"] = "%.2f" % max(float(r["lat_p99_us"])
                                         for r in rows.values())
        row["lat_mean_us"] = "%.2f" % (sum(
            float(r["lat_mean_us"]) * w[n] for n, r in rows.items()) / wsum)
    viol = sum(int(r.get("violations") or 0) for r in rows.values())
    problems = []
    if workload == "handover" and not aborted:
        g = grants_analysis(outdir, nodes)
        hand = measured("requester.events")
        row["handovers"] = hand
        row["handovers_per_s"] = "%.1f" % (hand / secs if secs else 0)
        row["packets_per_handover"] = "%.2f" % (
            measured("packets_sent") / hand if hand else 0)
        if g:
            row["fifo_share"] = "%.4f" % g["fifo_share"]
            row["max_wait_ms"] = "%.2f" % g["max_wait_ms"]
            if g["duplicate_counters"]:
                problems.append("two grants read the same counter")
        else:
            problems.append("no grant log")
    errors = sum(1 for rc in rcs.values() if rc) + (a.nodes - len(rows))
    check = check_histories(outdir, nodes, a.build) if history and not aborted \
        else None
    if check and not check[0]:
        problems.append("history: " + check[1])
    if viol:
        problems.append("%d violations" % viol)
    row["violations"] = viol
    row["errors"] = errors + len(problems)
    row["status"] = "aborted" if aborted else ("ok" if not row["errors"]
                                                else "failed")
    print("%-7s %-8s %-28s %-6s %10s ops/s  nacks %-6s lat p50 %-8s "
          "switch share %s%s%s (%.0fs)" %
          (row["status"].upper(), workload, variant, mode, row["ops_per_s"],
           row["nacks"], row["lat_p50_us"] or "-", row["switch_share"],
           "  fifo %s handovers/s %s pkts/handover %s" % (
               row["fifo_share"], row["handovers_per_s"],
               row["packets_per_handover"]) if workload == "handover"
           else "", "; history: " + check[1] if check else "",
           time.time() - started), flush=True)
    for p in problems:
        print("      problem: " + p)
    if row["status"] == "failed":
        for n, rc in sorted(rcs.items()):
            if rc:
                print("      node %d exited %d (%s)" % (
                    n, rc, os.path.join(outdir, "node-%d.log" % n)))
    return row, outdir


def check_csv(path, problems):
    rows = cluster_report.read_csv(path, COLUMNS, problems)
    for r in rows:
        if r["mode"] not in ("retry", "queued"):
            problems.append("%s: mode %r" % (r["variant"], r["mode"]))
        for c in ("ops", "ops_per_s", "nacks", "switch_nacks",
                  "home_nacks", "errors"):
            try:
                float(r[c])
            except ValueError:
                problems.append("%s %s: %s = %r is not a number" % (
                    r["workload"], r["variant"], c, r[c]))
    return rows


def plan(a):
    p = []
    if "handover" in a.workloads:
        p.append(("handover", writers(a), True))
    if "gcs" in a.workloads:
        for k, d, loc in GCS:
            p.append(("gcs", "%s/%s/locality-%s" % (k, d, loc), k == "write"))
    if "kv" in a.workloads:
        p += [("kv", w, True) for w in KV]
    return p


STUCK_GROUPS = ("requester", "queue_holders", "cache_agent")


def print_stuck(outdir, nodes):
    """What each node of a run the watchdog took down had done: the
    non-zero lock-queue, requester and cache-agent counters of the
    statistics it wrote on SIGINT."""
    for n in nodes:
        path = os.path.join(outdir, "na-%d.json" % n)
        try:
            with open(path) as f:
                st = json.load(f)
        except (OSError, ValueError):
            print("  node %d: no statistics (%s)" % (n, path))
            continue
        for g in STUCK_GROUPS:
            vals = ["%s %s" % (k, v) for k, v in (st.get(g) or {}).items()
                    if isinstance(v, int) and v]
            print("  node %d %s: %s" % (n, g, ", ".join(vals) or "-"))


def release_window(outdir):
    """(lock-busy NACKs, executed QRELEASEs) of the run's switch."""
    try:
        acts = cluster_report.switch_summary(cluster_report.load_json(
            os.path.join(outdir, "swswitch.json")))["actions"]
    except (OSError, ValueError, KeyError):
        return -1, 0
    return acts.get("nack_lock_busy", 0), acts.get("qrelease_executed", 0)


def writers(a):
    return "%d-writers" % (a.nodes * a.threads)


SMOKE = [("handover", None), ("gcs", "write/combined/locality-on"),
         ("gcs", "write/separate/locality-off"),
         ("gcs", "read/combined/locality-on"),
         ("gcs", "read/combined/locality-off"), ("kv", "get50")]


def smoke(a):
    a.duration = a.smoke_duration
    checks = []

    def check(name, ok, why=""):
        checks.append(ok)
        print("%s  %s%s" % ("PASS" if ok else "FAIL", name,
                            "" if ok or not why else ": %s" % why))

    rows = []
    for mode in a.modes:
        topo = mode_topo(a, mode)
        for wl, v in [x for x in SMOKE if x[0] in a.workloads]:
            v = v or writers(a)
            r, outdir = measure(a, mode, topo, wl, v, 0, True)
            rows.append(r)
            tag = "%s %s %s" % (wl, v, mode)
            check(tag + ": every node exited 0, histories and values check",
                  r["status"] == "ok", r["status"])
            if r["status"] != "ok":
                continue
            ops, ev = int(r["ops"]), float(r["events_per_op"]) * int(
                r["ops"])
            if wl == "handover":
                check(tag + ": grants logged in one order (no counter "
                      "twice), FIFO share measured",
                      r["fifo_share"] != "")
                check(tag + ": contention crossed nodes (handovers > 0)",
                      int(r["handovers"]) > 0, r["handovers"])
                if mode == "queued":
                    # GCS: conflicting requests wait in the queue. NACKs
                    # remain only in short windows (a request between a
                    # QRELEASE's two passes, a block moving to the switch;
                    # QUEUED-LOCKS.md 9): at most 1 per 1,000 operations
                    # (retry mode: about 6)
                    busy, rel = release_window(outdir)
                    check(tag + ": conflicts queued (NACKs <= 1 per 1,000 "
                          "operations)", int(r["nacks"]) * 1000 <= ops,
                          "%s NACKs in %d operations (%d lock-busy at the "
                          "switch, %d QRELEASEs; %s at the homes)" %
                          (r["nacks"], ops, busy, rel, r["home_nacks"]))
            if v.endswith("locality-off"):
                # every acquire a coherence event again (dsm_evict_region)
                check(tag + ": no locality: >= 1 coherence event per "
                      "operation", ev >= ops, "%d events, %d ops" % (ev, ops))
            if v == "read/combined/locality-on":
                # after each node's first acquire, re-acquires are local
                check(tag + ": warm read re-acquires are local (events "
                      "<< ops)", ev <= 0.01 * ops + 8 * a.nodes,
                      "%d events, %d ops" % (ev, ops))
            if v == "write/separate/locality-off":
                check(tag + ": separate data: >= 2 events per operation "
                      "(lock, then data)", ev >= 2 * ops,
                      "%d events, %d ops" % (ev, ops))
    add_ratios(rows)
    path = os.path.join(a.out, "locks-smoke.csv")
    cluster_report.write_csv(path, rows, COLUMNS)
    problems = []
    got = check_csv(path, problems)
    check("CSV well formed, a mode and a nacks column in every row (%s)"
          % path, not problems and len(got) == len(rows), "; ".join(problems))
    passed = sum(checks)
    print("%d passed, %d failed" % (passed, len(checks) - passed))
    return 0 if passed == len(checks) else 1


def sweep(a):
    rows = []
    path = os.path.join(a.out, "locks.csv")
    topos = {m: mode_topo(a, m) for m in a.modes}
    for wl, v, hist in plan(a):
        reps = {m: [] for m in a.modes}
        for rep in range(a.reps):
            for m in a.modes:  # interleaved: they share the moment's load
                reps[m].append(measure(a, m, topos[m], wl, v, rep,
                                       False)[0])
        for m in a.modes:
            rows.append(median_row(reps[m]))
        add_ratios(rows)
        cluster_report.write_csv(path, rows, COLUMNS)
    g = gains(rows)
    cluster_report.write_csv(os.path.join(a.out, "gains.csv"), g,
                             ["mode", "kind", "gain", "other", "ratio"])
    for x in g:
        print("gain  %-6s %-5s %-13s (%s): %sx" % (
            x["mode"], x["kind"], x["gain"], x["other"], x["ratio"]))
    problems = []
    check_csv(path, problems)
    for p in problems:
        print("PROBLEM", p)
    plot(rows, a.out)
    print("wrote %s, gains.csv and locks.png in %s" % (path, a.out))
    bad = [r for r in rows if r["status"] != "ok"]
    return 1 if problems or bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--out", default="/tmp/swswitch-bench-locks")
    ap.add_argument("--modes", default="retry,queued")
    ap.add_argument("--workloads", default="handover,gcs,kv")
    ap.add_argument("--nodes", type=int, default=4)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--duration", type=float, default=4)
    ap.add_argument("--smoke-duration", type=float, default=1.5)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--gcs-threads", type=int, default=1,
                    help="threads per node in the GCS microbenchmark "
                    "(1: one worker per node, GCS's inter-blade setup; "
                    "with more, a release cannot evict a block another "
                    "local thread holds)")
    ap.add_argument("--hist-rate", type=float, default=3000,
                    help="--max-rate per thread of the runs whose "
                    "histories are checked (smoke)")
    ap.add_argument("--keys", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--watchdog", type=float, default=15,
                    help="abort a run with no completed operation for "
                    "this many seconds")
    ap.add_argument("--setup-watchdog", type=float, default=40,
                    help="the watchdog before a run's first operation")
    ap.add_argument("--setup-timeout", type=float, default=90)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--plot", metavar="CSV")
    a = ap.parse_args()
    a.modes = [m for m in a.modes.split(",") if m]
    a.workloads = [w for w in a.workloads.split(",") if w]
    for m in a.modes:
        if m not in ("retry", "queued"):
            ap.error("--modes: retry and/or queued, got %r" % m)
    for w in a.workloads:
        if w not in ("handover", "gcs", "kv"):
            ap.error("--workloads: handover, gcs, kv; got %r" % w)
    if not 2 <= a.nodes <= 4:
        ap.error("--nodes: 2 to 4 (topo/demo2.json .. demo4.json)")
    os.makedirs(a.out, exist_ok=True)
    if a.plot:
        with open(a.plot, newline="") as f:
            plot(list(csv.DictReader(f)), a.out)
        return 0
    for exe in ("apps/dsm_locks", "apps/kv/dsm_kv"):
        if not os.access(os.path.join(a.build, "node-agent", exe), os.X_OK):
            ap.error("%s is not built (BUILD=...)" % exe)
    return smoke(a) if a.smoke else sweep(a)


if __name__ == "__main__":
    sys.exit(main())
