#!/usr/bin/env python3
"""Random na-sim configurations over the whole option space (docs/SIMULATION.md
"Sweep"); driven by scripts/sim-sweep.sh, which documents the options.

Run i of a sweep with seed S draws its options from random.Random(S * 1000003
+ i), so one (S, i) always gives the same command. Each run must exit 0, end
not stuck with operations done and no errors, and its history must pass the
history checker (--checker: check-history, the C build, run per history;
or check_history.py, loaded once into this process). A failing run's
command is printed and its directory (history, summary, stderr) kept under
--keep.
"""
import argparse
import importlib.util
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKLOADS = ["counter", "micro", "poll", "rwlock"]
HOLD_TYPES = ["READ_MISS", "WRITE_MISS", "READ_UNLOCK", "WRITE_UNLOCK",
              "ABORT", "QXFER", "QRELEASE", "Q_GRANT", "NA_WB", "NA_DATA"]


def draw(rng, profile, fault=None, events=0):
    """One configuration: a list of na-sim arguments (no --seed/--events);
    with a fault, at an event drawn in the middle three fifths of the run
    (the directory protocol with a crash or restart only: it has no
    switch registers a switch restart would empty)."""
    harsh = profile == "harsh"
    o = []
    directory = rng.random() < 0.12 and fault in (None, "crash", "restart")
    wl = rng.choice(WORKLOADS)
    o += ["--nodes", str(rng.randint(2, 16 if harsh else 6))]
    o += ["--threads", str(rng.randint(1, 4 if harsh else 2))]
    o += ["--workload", wl]
    if wl in ("micro", "rwlock"):
        o += ["--read-ratio", str(rng.choice([0, 0.1, 0.5, 0.9, 1]))]
    if wl == "poll":
        # The TTL policy reads stale by design (its bound is the TTL, not
        # checked by the history checker): excluded.
        o += ["--policy", rng.choice(["validate", "validate-rpc"])]
        if rng.random() < 0.5:
            o += ["--updaters", "all"]
    o += ["--blocks", str(rng.randint(1, 8))]
    if not directory:
        o += ["--switch-blocks", str(rng.randint(0, 4))]
    o += ["--cache-blocks", str(rng.choice([1, 2, 3, 4, 8, 64]))]
    o += ["--block-size", str(rng.choice([64, 1024, 4096, 16384]))]
    top = 0.3 if harsh else 0.1
    o += ["--loss", "%.3f" % rng.uniform(0, top)]
    o += ["--dup", "%.3f" % rng.uniform(0, top)]
    o += ["--jitter-us", str(rng.choice([0, 4, 50, 200, 500] if harsh
                                        else [0, 4, 50]))]
    o += ["--max-rate", str(rng.choice([5000, 50000, 200000]))]
    # At 30% loss per hop, 16 nodes x 4 threads on a few blocks, finishing
    # the operations in flight at the stop can take over 30 virtual s
    # without anything stuck: harsh runs allow 300.
    o += ["--stuck-s", "300" if harsh else "30"]
    if directory:
        o += ["--directory"]
    else:
        if rng.random() < 0.3:
            o += ["--migrate"]
        if rng.random() < 0.35:
            o += ["--lock-mode", "queued"]
    if rng.random() < 0.3:
        o += ["--pipe-depth", str(rng.choice([1, 2, 8]))]
    at = "%dev" % rng.randint(events // 5, events * 4 // 5)
    if fault == "switch-restart":
        o += ["--switch-restart-at", at]
    elif fault in ("crash", "restart"):
        # A node below the shadow homing no shared block (na-sim --help).
        nodes = max(3, int(o[o.index("--nodes") + 1]))
        blocks = min(int(o[o.index("--blocks") + 1]), nodes - 2)
        o[o.index("--nodes") + 1] = str(nodes)
        o[o.index("--blocks") + 1] = str(blocks)
        o += ["--%s-node" % fault, str(rng.randint(blocks, nodes - 2)),
              "--%s-at" % fault, at,
              "--detect-ms", str(rng.choice([1, 10, 50, 200]))]
    elif fault == "hold":
        o += ["--hold", "%s:%d" % (rng.choice(HOLD_TYPES), rng.randint(1, 50)),
              "--hold-for", "%dev" % rng.randint(100, events)]
    return o


CHECKER = None  # check_history.py, when --checker is it: loaded once
CHECKER_BIN = None  # else the executable (check-history)


def check(hist, d):
    """The history checker: None, or why the run fails."""
    if not hist:
        return "no history"
    if CHECKER is None:
        with open(os.path.join(d, "check.out"), "w") as f:
            rc = subprocess.call([CHECKER_BIN] + hist, stdout=f,
                                 stderr=subprocess.STDOUT)
        if rc == 0:
            return None
        with open(os.path.join(d, "check.out")) as f:
            out = f.read().splitlines()
        first = [ln for ln in out if ln.startswith("VIOLATION ")]
        n = out[-1].rsplit(": ", 2)[-2] if out else "?"
        if rc == 1 and first:  # "... 0x..: N violations: FAIL"
            return "history: %s, first %s" % (n, first[0][10:170])
        return "history: exit %d: %s" % (rc, " ".join(out[-2:])[:200])
    try:
        ops, finals = CHECKER.load(hist)
        res = CHECKER.check(ops, finals, 0, None)
    except (OSError, CHECKER.BadInput) as e:
        return "history: %s" % e
    with open(os.path.join(d, "check.out"), "w") as f:
        for kind, msg in res.violations:
            f.write("VIOLATION %s: %s\n" % (kind, msg))
        f.write("%d ops, %d violations\n" % (len(ops), len(res.violations)))
    if res.violations:
        kind, msg = res.violations[0]
        return "history: %d violations, first %s: %s" % (
            len(res.violations), kind, msg[:160])
    return None


def one(args, i, work):
    rng = random.Random(args.seed * 1000003 + i)
    seed = rng.randint(1, 4000000000)
    opts = ["--seed", str(seed), "--events", str(args.events)] + \
        draw(rng, args.profile, args.fault, args.events)
    cmd = [args.sim] + opts
    d = os.path.join(work, "run-%d" % i)
    os.makedirs(d)
    t0 = time.time()
    with open(os.path.join(d, "summary.json"), "w") as out, \
            open(os.path.join(d, "stderr"), "w") as err:
        p = subprocess.Popen(["nice"] + cmd + ["--quiet", "--history", d],
                             stdout=out, stderr=err)
        try:
            rc = p.wait(timeout=args.run_timeout)
            late = False
        except subprocess.TimeoutExpired:
            # a run that never drains (no virtual time passes, so --stuck-s
            # cannot end it): stop it as SIGTERM does, then kill it
            late = True
            p.terminate()
            try:
                rc = p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                rc = p.wait()
    why = None
    if late:
        why = "over the wall limit (%d s), exit %d" % (args.run_timeout, rc)
    elif rc != 0:
        why = "exit %d" % rc
    else:
        try:
            s = json.load(open(os.path.join(d, "summary.json")))
            if s["stuck"] or s["errors"]:
                why = "stuck/errors in summary"
        except (ValueError, KeyError) as e:
            why = "summary: %s" % e
    hist = sorted(os.path.join(d, f) for f in os.listdir(d)
                  if f.startswith("node-") and f.endswith(".jsonl"))
    if why is None:
        why = check(hist, d)
    line = "na-sim " + " ".join(opts)
    if why is not None and args.keep:
        dst = os.path.join(args.keep, "run-%d-seed-%d" % (i, seed))
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(d, dst)
        with open(os.path.join(dst, "command"), "w") as f:
            f.write(line + "\n")
    shutil.rmtree(d, ignore_errors=True)
    return i, why, line, time.time() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--profile", choices=["harsh", "ci"], default="harsh")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--events", type=int, default=20000)
    ap.add_argument("--keep", default="")
    ap.add_argument("--run-timeout", type=int, default=900)
    ap.add_argument("--fault", choices=["switch-restart", "crash", "restart", "hold"])
    ap.add_argument("--sim", required=True)
    ap.add_argument("--checker",
                    default=os.path.join(ROOT, "node-agent", "checker",
                                         "check_history.py"),
                    help="check-history (the C build), or a .py loaded "
                         "into this process (default check_history.py)")
    args = ap.parse_args()
    global CHECKER, CHECKER_BIN
    if args.checker.endswith(".py"):
        spec = importlib.util.spec_from_file_location("check_history",
                                                      args.checker)
        CHECKER = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(CHECKER)
    else:
        CHECKER_BIN = args.checker
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    work = tempfile.mkdtemp(prefix="sim-sweep.")
    fails = []
    t0 = time.time()
    try:
        with ThreadPoolExecutor(max_workers=args.jobs) as ex:
            for i, why, line, _ in ex.map(lambda k: one(args, k, work),
                                          range(args.count)):
                if (i + 1) % 100 == 0:
                    print("sim-sweep: %d runs, %d failed, %.0f s"
                          % (i + 1, len(fails), time.time() - t0), flush=True)
                if why is not None:
                    fails.append((i, why, line))
                    print("FAIL run %d: %s\n     %s" % (i, why, line),
                          flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("sim-sweep: profile %s, seed %d, %d runs of %d events, %d failed, "
          "%.0f s" % (args.profile, args.seed, args.count, args.events,
                      len(fails), time.time() - t0))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
