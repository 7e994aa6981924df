#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The lock benchmark's analysis (scripts/bench_locks.py,
docs/QUEUED-LOCKS.md "Benchmark"): FIFO order and handovers from the grant
logs, the median of repetitions, ratios against the retry mode, GCS's two
gains, and the plot locks.png."""

import csv
import os


def grants_analysis(outdir, nodes):
    """FIFO share, handovers and the longest wait from the grant logs.

    A grant is in FIFO order when no request still waiting at its grant
    time had been made before it. Each thread logs a bounded number of
    grants: the analysis covers the counters every thread logged up to."""
    per = {}
    for n in nodes:
        p = os.path.join(outdir, "grants-%d.csv" % n)
        if not os.path.exists(p):
            continue
        with open(p, newline="") as f:
            for r in csv.DictReader(f):
                w = (int(r["node"]), int(r["thread"]))
                per.setdefault(w, []).append(
                    (int(r["counter"]), int(r["start_ns"]),
                     int(r["grant_ns"])))
    if not per:
        return None
    # the first 200,000 grants at most (the analysis is Python)
    limit = min([max(g[0] for g in v) for v in per.values()] + [200000])
    grants = sorted((g[0], g[1], g[2], w) for w, v in per.items()
                    for g in v if g[0] <= limit)
    nxt = {w: 0 for w in per}
    seq = {w: sorted(g for g in v if g[0] <= limit) for w, v in per.items()}
    fifo = handovers = 0
    max_wait = 0
    prev = None
    for c, s, gt, w in grants:
        nxt[w] += 1
        ok = True
        for o, lst in seq.items():
            if o == w or nxt[o] >= len(lst):
                continue
            oc, os_, og = lst[nxt[o]]  # o's next grant: waiting now?
            if os_ < gt and os_ < s:
                ok = False
                break
        fifo += ok
        if prev is not None and prev != w[0]:
            handovers += 1
        prev = w[0]
        max_wait = max(max_wait, gt - s)
    dup = len(grants) != len({g[0] for g in grants})
    return {"grants": len(grants), "fifo_share": fifo / len(grants),
            "handovers": handovers, "max_wait_ms": max_wait / 1e6,
            "duplicate_counters": dup}


def median_row(rows):
    ok = [r for r in rows if r["status"] == "ok"] or rows
    ok = sorted(ok, key=lambda r: float(r["ops_per_s"] or 0))
    r = dict(ok[len(ok) // 2])
    r["runs"] = len(rows)
    r["errors"] = sum(int(x["errors"]) for x in rows)
    if any(x["status"] == "aborted" for x in rows):
        r["status"] = "aborted"
    return r


def add_ratios(rows):
    base = {(r["workload"], r["variant"]): float(r["ops_per_s"] or 0)
            for r in rows if r["mode"] == "retry" and r["status"] == "ok"}
    for r in rows:
        b = base.get((r["workload"], r["variant"]))
        r["ratio_vs_retry"] = "%.3f" % (float(r["ops_per_s"] or 0) / b) \
            if b else ""


def gains(rows):
    """GCS's two optimisations, per mode and kind: combined/separate and
    locality on/off throughput ratios."""
    t = {(r["mode"], r["variant"]): float(r["ops_per_s"] or 0)
         for r in rows if r["workload"] == "gcs" and r["status"] == "ok"}
    out = []
    for mode in sorted({m for m, _ in t}):
        for kind in ("read", "write"):
            for loc in ("on", "off"):
                c = t.get((mode, "%s/combined/locality-%s" % (kind, loc)))
                s = t.get((mode, "%s/separate/locality-%s" % (kind, loc)))
                if c and s:
                    out.append({"mode": mode, "kind": kind,
                                "gain": "combined_data",
                                "other": "locality-" + loc,
                                "ratio": "%.2f" % (c / s)})
            for data in ("combined", "separate"):
                on = t.get((mode, "%s/%s/locality-on" % (kind, data)))
                off = t.get((mode, "%s/%s/locality-off" % (kind, data)))
                if on and off:
                    out.append({"mode": mode, "kind": kind,
                                "gain": "locality", "other": data,
                                "ratio": "%.2f" % (on / off)})
    return out


def plot(rows, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    modes = sorted({r["mode"] for r in rows}, key=lambda m: m != "retry")
    fig, axes = plt.subplots(1, 3, figsize=(16, 5))
    ax = axes[0]  # (a): grants vs handovers and NACKs per second
    metrics = (("ops_per_s", "grants/s"), ("handovers_per_s",
                                           "handovers/s"),
               ("nacks", "NACKs/s"))
    width = 0.8 / max(1, len(modes))
    for i, m in enumerate(modes):
        r = [x for x in rows if x["workload"] == "handover" and
             x["mode"] == m and x["status"] == "ok"]
        ys = []
        for key, _ in metrics:
            v = float(r[0][key] or 0) if r else 0
            if key == "nacks" and r:
                v /= float(r[0]["seconds"] or 1)
            ys.append(v)
        ax.bar([j + i * width for j in range(len(metrics))], ys, width,
               label=m)
    ax.set_xticks([j + width * (len(modes) - 1) / 2
                   for j in range(len(metrics))])
    ax.set_xticklabels([lbl for _, lbl in metrics], fontsize=8)
    ax.set_yscale("log")
    ax.set_title("(a) %s on one block" % next(
        (r["variant"] for r in rows if r["workload"] == "handover"), ""),
        fontsize=9)
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=8, title="lock_mode")
    for ax, wl in zip(axes[1:], ("gcs", "kv")):
        pts = [r for r in rows if r["workload"] == wl]
        variants = sorted({r["variant"] for r in pts},
                          key=lambda v: [r["variant"] for r in pts].index(v))
        width = 0.8 / max(1, len(modes))
        for i, m in enumerate(modes):
            ys = []
            for v in variants:
                r = [x for x in pts if x["mode"] == m and x["variant"] == v]
                ys.append(float(r[0]["ops_per_s"] or 0)
                          if r and r[0]["status"] == "ok" else 0)
            ax.bar([j + i * width for j in range(len(variants))], ys,
                   width, label=m)
        ax.set_xticks([j + width * (len(modes) - 1) / 2
                       for j in range(len(variants))])
        ax.set_xticklabels(variants, rotation=35, ha="right", fontsize=7)
        ax.set_yscale("log")
        ax.set_ylabel("operations / s (all nodes)")
        ax.set_title({"gcs": "(b) GCS microbenchmark, one lock",
                      "kv": "(c) KV, per-bucket rwlocks"}[wl], fontsize=9)
        ax.grid(alpha=0.3, axis="y")
        ax.legend(fontsize=8, title="lock_mode")
    for ax in axes:
        # log scale: bars start at 0, so show every positive one in full
        pos = [b.get_height() for b in ax.patches if b.get_height() > 0]
        if pos:
            ax.set_ylim(bottom=min(pos) / 2)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "locks.png"), dpi=90)
    plt.close(fig)
