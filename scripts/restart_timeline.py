#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Throughput timeline of a switch-restart run (docs/FAULTS.md).

Reads the node-agent histories (one JSON line per completed operation, with
CLOCK_MONOTONIC end_ns) and the instants the test recorded on the same clock
(SIGKILL, new swswitch started, switch forwarding again), and prints:
  - the pre-kill throughput (ops per 100 ms, mean over the bins between the
    first second and the kill),
  - the time from the kill / from the restart to the first operation that
    completes afterwards, on any block and on a block that was switch-owned,
  - the time from the restart until a 100 ms bin reaches 80% of the
    pre-kill mean again.
--png draws ops per 100 ms against time, the kill and restart marked (like
the paper's Figure 13). --switch-addrs lists the addresses of the blocks
that were switch-owned (hex, comma separated block base addresses).
"""
import argparse
import glob
import json
import os
import sys

BIN_NS = 100_000_000


def load(paths):
    ops = []
    for p in paths:
        with open(p) as f:
            for line in f:
                if not line.strip():
                    continue
                r = json.loads(line)
                if r.get("final"):
                    continue
                ops.append(r)
    return ops


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("histories", nargs="+")
    ap.add_argument("--kill-ns", type=int, required=True)
    ap.add_argument("--restart-ns", type=int, required=True)
    ap.add_argument("--ready-ns", type=int, required=True)
    ap.add_argument("--block-size", type=int, default=4096)
    ap.add_argument("--switch-addrs", default="",
                    help="block base addresses (hex) that were switch-owned")
    ap.add_argument("--png")
    ap.add_argument("--json")
    a = ap.parse_args()

    paths = []
    for h in a.histories:
        paths += sorted(glob.glob(os.path.join(h, "*.jsonl"))) if os.path.isdir(h) else [h]
    ops = load(paths)
    if not ops:
        sys.exit("no operations")
    sw = {int(x, 16) for x in a.switch_addrs.split(",") if x}
    t0 = min(r["start_ns"] for r in ops)
    end = max(r["end_ns"] for r in ops)
    nbins = (end - t0) // BIN_NS + 1
    bins = [0] * nbins
    for r in ops:
        bins[(r["end_ns"] - t0) // BIN_NS] += 1
    kb = (a.kill_ns - t0) // BIN_NS
    pre = bins[10:kb] if kb > 12 else bins[:max(kb, 1)]
    pre_mean = sum(pre) / max(len(pre), 1)

    def first_after(t, pred=lambda r: True):
        c = [r["end_ns"] for r in ops if r["end_ns"] > t and pred(r)]
        return min(c) if c else None

    def on_sw(r):
        return (int(r["addr"], 16) & ~(a.block_size - 1)) in sw

    f_any = first_after(a.kill_ns)
    f_sw = first_after(a.restart_ns, on_sw) if sw else None
    back = None
    for i in range((a.restart_ns - t0) // BIN_NS, nbins):
        if bins[i] >= 0.8 * pre_mean:
            back = t0 + i * BIN_NS + BIN_NS
            break
    ms = lambda x, y: None if x is None else round((x - y) / 1e6, 1)
    res = {
        "ops": len(ops),
        "pre_kill_ops_per_100ms": round(pre_mean, 1),
        "switch_down_ms": ms(a.restart_ns, a.kill_ns),
        "switch_start_to_forwarding_ms": ms(a.ready_ns, a.restart_ns),
        "kill_to_first_op_ms": ms(f_any, a.kill_ns),
        "restart_to_first_op_on_switch_block_ms": ms(f_sw, a.restart_ns),
        "restart_to_80pct_throughput_ms": ms(back, a.restart_ns),
        "ops_on_switch_blocks_after_restart":
            sum(1 for r in ops if r["end_ns"] > a.restart_ns and on_sw(r)),
    }
    for k, v in res.items():
        print("%s: %s" % (k, v))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    if a.png:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        xs = [i * BIN_NS / 1e9 for i in range(nbins)]
        fig, ax = plt.subplots(figsize=(8, 3.2))
        ax.plot(xs, bins, lw=1)
        for t, lab, c in ((a.kill_ns, "SIGKILL", "red"),
                          (a.restart_ns, "restart", "orange"),
                          (a.ready_ns, "forwarding", "green")):
            ax.axvline((t - t0) / 1e9, color=c, ls="--", lw=1, label=lab)
        # A node running alone at the very end hits its cache only: keep
        # such bursts from flattening the rest of the plot.
        top = sorted(bins)[int(0.95 * (nbins - 1))] * 2.5
        if max(bins) > top > 0:
            ax.set_ylim(0, top)
            ax.text(0.01, 0.95, "clipped at %d (max %d)" % (top, max(bins)),
                    transform=ax.transAxes, fontsize=7, va="top")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("ops per 100 ms (all nodes)")
        ax.set_title("switch restart: throughput timeline")
        ax.legend(loc="lower right", fontsize=8)
        fig.tight_layout()
        fig.savefig(a.png, dpi=110)
    return 0 if res["ops_on_switch_blocks_after_restart"] or not sw else 1


if __name__ == "__main__":
    sys.exit(main())
