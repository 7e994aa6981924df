#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""SABRes benchmark (docs/SABRES.md; paper 001 sections 7.2 and 7.3),
driven by scripts/bench-sabres.sh.

Remote (Figure 8): dsm_sabres on a 2-node namespace cluster: node 0 homes
the objects and runs 0..N writer threads (each rewriting its own subset),
node 1 runs reader threads that read random objects atomically, with
--method sabres (dsm_read_object) and --method farm (plain one-sided read
of the per-cache-line-version layout, check and strip), at 128 B, 1 KB and
8 KB. One cluster serves every run. Rows in sabres.csv, plot sabres.png.

Local (Figure 10): sab_local, read-only lookups in local memory, plain
seqlock layout versus FaRM layout with stripping. Rows in local.csv, plot
local.png.

--smoke (CI): 8 KB objects, 2 writers, 2 readers, both methods, a few
seconds each; checks torn == 0 (and that every SABRe attempt got exactly
one validation), never speed. Ends with "N passed, M failed".
"""

import argparse
import csv
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
TOPO = os.path.join(REPO, "topo", "demo2.json")
CLUSTER = os.path.join(HERE, "cluster.sh")

# The paper's numbers (section 7.2 Figure 8: LightSABRes over the software
# per-cache-line versions, 0 -> 16 writers; section 7.3 Figure 10: local
# reads of the unmodified store over the FaRM layout).
PAPER_REMOTE = {128: (0.15, 0.03), 1024: (0.30, 0.41), 8192: (0.87, 0.97)}
PAPER_LOCAL = {128: 1.20, 1024: 1.53, 8192: 2.10}
COLUMNS = ["method", "size", "writers", "readers", "seconds", "ops",
           "ops_per_s", "writes", "torn", "aborts", "retries", "timeouts",
           "validations", "reads_on_wire", "abort_ratio"]


def sh(argv, **kw):
    return subprocess.run(argv, check=False, **kw)


class Cluster:
    def __init__(self, build, log):
        self.build = build
        self.log = log

    def __enter__(self):
        with open(self.log, "w") as f:
            subprocess.run([CLUSTER, "up", TOPO, "--swswitch",
                            os.path.join(self.build, "swswitch",
                                         "swswitch"), "--force"],
                           stdout=f, stderr=subprocess.STDOUT, check=True)
        return self

    def __exit__(self, *exc):
        sh([CLUSTER, "down"], stdout=subprocess.DEVNULL,
           stderr=subprocess.DEVNULL)

    def run(self, outdir, tag, method, size, writers, readers, duration,
            objects):
        binary = os.path.join(self.build, "node-agent", "apps", "dsm_sabres")
        # Every run starts with an empty switch: the nodes' sequence numbers
        # start again at 1, which the last run's LAST-UNLOCK would refuse.
        # (cluster.sh retries a start that EAL refuses after the kill.)
        with open(os.path.join(outdir, "%s-switch.log" % tag), "w") as f:
            if subprocess.run([CLUSTER, "restart-switch", "--down", "0.5"],
                              stdout=f, stderr=subprocess.STDOUT).returncode:
                raise RuntimeError("cluster.sh restart-switch failed")
        procs = {}
        for n in (0, 1):
            argv = [CLUSTER, "exec", str(n), binary, "--topo", TOPO,
                    "--node", str(n), "--nodes", "2", "--mode", "home",
                    "--duration", str(duration), "--size", str(size),
                    "--objects", str(objects), "--method", method,
                    "--writers", str(writers),
                    "--threads", str(readers if n else max(writers, 1)),
                    "--csv", os.path.join(outdir, "%s-n%d.csv" % (tag, n)),
                    "--stats",
                    os.path.join(outdir, "%s-n%d.json" % (tag, n))]
            procs[n] = subprocess.Popen(
                argv, stdout=open(os.path.join(outdir, "%s-n%d.out" %
                                               (tag, n)), "w"),
                stderr=subprocess.STDOUT)
        rcs = {}
        deadline = time.time() + duration + 60
        for n, p in procs.items():
            try:
                rcs[n] = p.wait(timeout=max(1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                p.kill()
                rcs[n] = 124
        return rcs


def last_row(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    return rows[-1]


def summarise(outdir, tag, method, size, writers, readers):
    r1 = last_row(os.path.join(outdir, "%s-n1.csv" % tag))
    r0 = last_row(os.path.join(outdir, "%s-n0.csv" % tag))
    with open(os.path.join(outdir, "%s-n1.json" % tag)) as f:
        s1 = json.load(f)
    with open(os.path.join(outdir, "%s-n0.json" % tag)) as f:
        s0 = json.load(f)
    sab = s1["sabres"]
    home = s0["sabres"]["home"]
    if method == "sabres":
        aborts, retries = sab["aborts"], sab["retries"]
    else:
        aborts, retries = int(r1["aborts"]), int(r1["aborts"])
    ops = int(r1["ops"])
    return {
        "method": method, "size": size, "writers": writers,
        "readers": readers, "seconds": r1["seconds"], "ops": ops,
        "ops_per_s": r1["ops_per_s"], "writes": r0["writes"],
        "torn": int(r1["torn"]), "aborts": aborts, "retries": retries,
        "timeouts": sab["timeouts"],
        "validations": home["validations_ok"] + home["validations_fail"],
        "reads_on_wire": s1["sent_by_type"].get("SABRE_REG", 0) +
        s1["sabres"]["plain_reads"],
        "abort_ratio": "%.4f" % (aborts / (ops + aborts) if ops + aborts
                                 else 0),
        "_attempts": sab["ok"] + sab["aborts"] + sab["timeouts"],
        "_regs": s1["sent_by_type"].get("SABRE_REG", 0),
        "_valid_rx": s1["received_by_type"].get("SABRE_VALID", 0),
    }


def median_rows(rows):
    """One row per (method, size, writers): the run of median throughput
    (every run's torn count was checked already)."""
    keys = sorted({(r["method"], r["size"], r["writers"]) for r in rows})
    out = []
    for k in keys:
        rs = sorted((r for r in rows
                     if (r["method"], r["size"], r["writers"]) == k),
                    key=lambda r: float(r["ops_per_s"]))
        out.append(rs[len(rs) // 2])
    return out


def run_local(build, outdir, sizes, threads, duration):
    rows = []
    binary = os.path.join(build, "node-agent", "apps", "sab_local")
    for size in sizes:
        out = subprocess.run([binary, "--size", str(size), "--threads",
                              str(threads), "--duration", str(duration)],
                             check=True, capture_output=True, text=True)
        rows += list(csv.DictReader(out.stdout.splitlines()))
    with open(os.path.join(outdir, "local.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    return rows


def plot(outdir, rows, local):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = sorted({r["size"] for r in rows})
    fig, axes = plt.subplots(1, len(sizes), figsize=(4 * len(sizes), 3.4))
    for ax, size in zip(axes if len(sizes) > 1 else [axes], sizes):
        for method, style in (("sabres", "o-"), ("farm", "s--")):
            pts = sorted((r["writers"], float(r["ops_per_s"]))
                         for r in rows
                         if r["size"] == size and r["method"] == method)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] / 1e3 for p in pts],
                        style, label={"sabres": "SABRes (dsm_read_object)",
                                      "farm": "FaRM per-line versions"}
                        [method])
        ax.set_xticks(sorted({r["writers"] for r in rows}))
        ax.set_title("%d B objects" % size)
        ax.set_xlabel("writer threads")
        ax.set_ylabel("reads (k/s)")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8) if len(sizes) > 1 else axes.legend(
        fontsize=8)
    fig.suptitle("Atomic remote object reads vs writers (paper 001 Fig. 8)")
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "sabres.png"), dpi=120)
    if local:
        fig, ax = plt.subplots(figsize=(5, 3.4))
        lsizes = sorted({int(r["size"]) for r in local})
        gain = []
        for s in lsizes:
            p = [float(r["ops_per_s"]) for r in local
                 if int(r["size"]) == s and r["layout"] == "plain"][0]
            q = [float(r["ops_per_s"]) for r in local
                 if int(r["size"]) == s and r["layout"] == "farm"][0]
            gain.append(p / q)
        x = range(len(lsizes))
        ax.bar([i - 0.2 for i in x], gain, 0.4, label="measured")
        ax.bar([i + 0.2 for i in x], [PAPER_LOCAL[s] for s in lsizes], 0.4,
               label="paper (Fig. 10)")
        ax.set_xticks(list(x))
        ax.set_xticklabels(["%d B" % s for s in lsizes])
        ax.axhline(1, color="grey", lw=0.8)
        ax.set_ylabel("plain / FaRM local reads")
        ax.legend(fontsize=8)
        ax.set_title("Local reads: unmodified layout vs FaRM")
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, "local.png"), dpi=120)


def compare(rows, local):
    print("\nremote reads, SABRes over FaRM (paper: 0 -> 16 writers)")
    for size in sorted({r["size"] for r in rows}):
        ws = sorted({r["writers"] for r in rows if r["size"] == size})
        gains = []
        for w in (ws[0], ws[-1]):
            a = [float(r["ops_per_s"]) for r in rows if r["size"] == size
                 and r["writers"] == w and r["method"] == "sabres"]
            b = [float(r["ops_per_s"]) for r in rows if r["size"] == size
                 and r["writers"] == w and r["method"] == "farm"]
            gains.append(a[0] / b[0] - 1 if a and b and b[0] else
                         float("nan"))
        p = PAPER_REMOTE.get(size, (float("nan"),) * 2)
        print("  %5d B: %+5.0f%% at %d writers, %+5.0f%% at %d writers"
              "   (paper %+.0f%% -> %+.0f%%)" %
              (size, 100 * gains[0], ws[0], 100 * gains[1], ws[-1],
               100 * p[0], 100 * p[1]))
    if local:
        print("local reads, plain seqlock over FaRM layout")
        for s in sorted({int(r["size"]) for r in local}):
            p = [float(r["ops_per_s"]) for r in local
                 if int(r["size"]) == s and r["layout"] == "plain"][0]
            q = [float(r["ops_per_s"]) for r in local
                 if int(r["size"]) == s and r["layout"] == "farm"][0]
            print("  %5d B: %.2fx   (paper %.2fx)" % (s, p / q,
                                                     PAPER_LOCAL[s]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--out", default="bench-sabres-out")
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--sizes", default="128,1024,8192")
    ap.add_argument("--writers", default="0,1,2")
    ap.add_argument("--readers", type=int, default=2)
    ap.add_argument("--objects", type=int, default=100)
    ap.add_argument("--duration", type=float, default=4)
    ap.add_argument("--local-threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=1,
                    help="runs per point; the CSV keeps the median")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    sizes = [int(x) for x in a.sizes.split(",")]
    writers = [int(x) for x in a.writers.split(",")]
    if a.smoke:
        sizes, writers, a.duration, a.objects = [8192], [2], 3, 16
    passed = failed = 0
    rows = []
    with Cluster(a.build, os.path.join(a.out, "cluster-up.log")) as cl:
        for size, w, rep, method in [(z, w, k, m) for z in sizes
                                     for w in writers
                                     for k in range(a.reps)
                                     for m in ("sabres", "farm")]:
            tag = "%s-%d-w%d-r%d" % (method, size, w, rep)
            rcs = cl.run(a.out, tag, method, size, w, a.readers,
                         a.duration, a.objects)
            try:
                r = summarise(a.out, tag, method, size, w,
                              a.readers)
            except (OSError, KeyError, IndexError, ValueError) as e:
                print("%s: no result (%s), exit %s" % (tag, e, rcs))
                failed += 1
                continue
            rows.append(r)
            ok = r["torn"] == 0 and all(v == 0 for v in rcs.values())
            if method == "sabres":
                # one registration and one validation per attempt
                ok = ok and r["_regs"] == r["_attempts"] and \
                    r["validations"] == r["_regs"] and \
                    r["_valid_rx"] == r["_regs"]
            passed, failed = passed + ok, failed + (not ok)
            print("%-18s %8.0f reads/s  torn %d  aborts %d  "
                  "retries %d  writes %s  %s" %
                  (tag, float(r["ops_per_s"]), r["torn"],
                   r["aborts"], r["retries"], r["writes"],
                   "ok" if ok else "FAIL %s" % rcs), flush=True)
    rows = median_rows(rows)
    with open(os.path.join(a.out, "sabres.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    local = [] if a.smoke else run_local(a.build, a.out, sizes,
                                         a.local_threads, a.duration / 2)
    if rows:
        plot(a.out, rows, local)
        if not a.smoke:
            compare(rows, local)
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
