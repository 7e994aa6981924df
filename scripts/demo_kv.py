#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The key-value demo's live progress line and its summary (scripts/demo.sh).

  demo_kv.py live --prefix PREFIX --out DIR --node N=PID ...
      once a second until every PID has exited: the nodes' ops/s (the last
      --progress line in DIR/node-N.log), swswitch's pipeline actions per
      second and blocks (telemetry /swswitch/stats); one line rewritten in
      place on a terminal, else one line per second. Every sample also goes
      to DIR/timeline.csv.
  demo_kv.py report --out DIR --switch FILE [--mode M] [--json FILE]
      the summary: throughput per node and in total (DIR/kv.csv), where the
      measured phase's coherence events were serialised (DIR/stats-N.json
      minus DIR/start-N.json), blocks in the switch, NACKs, packets per
      operation; and DIR/throughput.png. Exit status 1 when a node's row is
      missing or reports a torn value or a missing key.
"""
import argparse
import csv
import glob
import json
import os
import re
import socket
import sys
import time

PROGRESS = re.compile(r"^node (\d+):\s+(\d+) s\s+(\d+) ops/s")
# Pipeline actions that serialise a request in the switch (its lock was
# granted there); tag_miss_to_home sends the request to the home instead.
IN_SWITCH = ("forward_home_unshared", "forward_owner_modified",
             "forward_data_provider_shared", "multicast_invalidate",
             "ack_sole_holder", "return_eviction")


def telemetry(prefix, cmd, runtime="/var/run/dpdk"):
    """One DPDK telemetry command's reply (as scripts/swswitch-ctl)."""
    path = os.path.join(runtime, prefix, "dpdk_telemetry.v2")
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as s:
        s.settimeout(2)
        s.connect(path)
        hello = json.loads(s.recv(16384).decode())
        s.send(cmd.encode())
        reply = json.loads(s.recv(hello.get("max_output_len", 16384)))
    return reply.get(cmd.split(",", 1)[0], reply)


def switch_counters(st):
    """Cumulative counters of a /swswitch/stats reply (or exit JSON)."""
    act = st.get("actions", {})
    pl = st.get("pipeline", {})
    rx = sum(v.get("rx", 0) for k, v in st.items()
             if re.match(r"port\d+$", k) and isinstance(v, dict))
    return {"actions": sum(act.values()),
            "in_switch": sum(act.get(k, 0) for k in IN_SWITCH),
            "nacks": pl.get("nacks", 0), "rx": rx,
            "blocks": pl.get("blocks", 0)}


def progress(path):
    """[(second, ops/s)] from a node's --progress lines."""
    out = []
    try:
        with open(path, errors="replace") as f:
            for line in f:
                m = PROGRESS.match(line)
                if m:
                    out.append((int(m.group(2)), int(m.group(3))))
    except OSError:
        pass
    return out


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def fmt(n):
    return "{:,.0f}".format(n)


def live(a):
    nodes = []
    for spec in a.node:
        n, pid = spec.split("=")
        nodes.append((int(n), int(pid)))
    tty = sys.stdout.isatty()
    t0 = time.monotonic()
    prev, prev_t = None, t0
    cols = ["t_s", "phase", "measured_s", "total_ops_s"] + \
        ["node%d_ops_s" % n for n, _ in nodes] + \
        ["actions_s", "in_switch_s", "nacks_s", "blocks", "rx_total",
         "actions_total", "nacks_total"]
    with open(os.path.join(a.out, "timeline.csv"), "w", newline="") as tf:
        w = csv.writer(tf)
        w.writerow(cols)
        tick = t0
        while any(alive(pid) for _, pid in nodes):
            tick += 1
            time.sleep(max(0, tick - time.monotonic()))
            now = time.monotonic()
            try:
                cur = switch_counters(telemetry(a.prefix, "/swswitch/stats"))
            except (OSError, ValueError):
                cur = None
            rate = {}
            if cur and prev:
                dt = now - prev_t
                rate = {k: (cur[k] - prev[k]) / dt
                        for k in ("actions", "in_switch", "nacks")}
            if cur:
                prev, prev_t = cur, now
            last = {}
            for n, _ in nodes:
                p = progress(os.path.join(a.out, "node-%d.log" % n))
                last[n] = p[-1] if p else (0, 0)
            secs = max(s for s, _ in last.values())
            loaded = sum(1 for n, _ in nodes if "loaded in" in
                         read(os.path.join(a.out, "node-%d.out" % n)))
            phase = ("running" if secs else
                     "loaded %d/%d" % (loaded, len(nodes)) if loaded else
                     "loading")
            total = sum(o for _, o in last.values()) if secs else 0
            sw = ("switch %s actions/s, %s serialised/s, %s blocks" %
                  (fmt(rate.get("actions", 0)), fmt(rate.get("in_switch", 0)),
                   fmt(cur["blocks"])) if cur else "switch: no telemetry")
            line = "[%3.0f s] %-11s %9s ops/s (%s) | %s" % (
                now - t0, phase, fmt(total),
                " ".join("n%d %s" % (n, fmt(last[n][1])) for n, _ in nodes),
                sw)
            if tty:
                sys.stdout.write("\r" + line + "\x1b[K")
            else:
                sys.stdout.write(line + "\n")
            sys.stdout.flush()
            w.writerow(["%.1f" % (now - t0), phase, secs, total] +
                       [last[n][1] for n, _ in nodes] +
                       ["%.0f" % rate.get(k, 0) for k in
                        ("actions", "in_switch", "nacks")] +
                       ([cur["blocks"], cur["rx"], cur["actions"],
                         cur["nacks"]] if cur else ["", "", "", ""]))
            tf.flush()
    if tty:
        sys.stdout.write("\n")
    return 0


def load_json(path):
    """A JSON document, or the last JSON object in a text file."""
    with open(path, errors="replace") as f:
        text = f.read()
    try:
        return json.loads(text)
    except ValueError:
        i = text.rfind("\n{")
        return json.loads(text[i + 1:] if i >= 0 else text)


def node_delta(out, n):
    """Measured-phase counters of node n: stats minus start."""
    end = load_json(os.path.join(out, "stats-%d.json" % n))
    try:
        start = load_json(os.path.join(out, "start-%d.json" % n))
    except (OSError, ValueError):
        start = {}

    def get(d, *path):
        for p in path:
            d = d.get(p, {}) if isinstance(d, dict) else {}
        return d if isinstance(d, (int, float)) else 0

    keys = {"in_switch": ("requester", "events_in_switch"),
            "at_home": ("requester", "events_at_home"),
            "nacks": ("requester", "nacks"),
            "sent": ("packets_sent",), "received": ("packets_received",)}
    d = {k: get(end, *p) - get(start, *p) for k, p in keys.items()}
    d["all_in_switch"] = get(end, "requester", "events_in_switch")
    d["all_at_home"] = get(end, "requester", "events_at_home")
    d["switch_owned"] = get(end, "migration", "switch_owned")
    return d


def plot(out, nodes, timeline, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(9, 7), sharex=True)
    # Progress lines count seconds of the measured phase; the timeline the
    # seconds since the nodes started: the first sample that saw a
    # progress line ties the two (to within a second).
    run = [r for r in timeline if int(r["measured_s"] or 0) > 0]
    off = float(run[0]["t_s"]) - int(run[0]["measured_s"]) if run else 0
    total = {}
    for n in nodes:
        p = progress(os.path.join(out, "node-%d.log" % n))
        if p:
            ax1.plot([off + s for s, _ in p], [o for _, o in p], marker=".",
                     label="node %d" % n)
        for s, o in p:
            total[s] = total.get(s, 0) + o
    if total:
        xs = sorted(total)
        ax1.plot([off + x for x in xs], [total[x] for x in xs],
                 color="black", linewidth=2.5, label="total")
    ax1.set_ylabel("operations/s")
    ax1.set_title("key-value store throughput (GET + PUT, per second)")
    ax1.grid(alpha=0.3)
    ax1.set_ylim(bottom=0)
    if timeline:
        t = [float(r["t_s"]) for r in timeline]
        ax2.plot(t, [float(r["actions_s"] or 0) for r in timeline],
                 label="pipeline actions/s")
        ax2.plot(t, [float(r["in_switch_s"] or 0) for r in timeline],
                 label="requests serialised in the switch/s")
        ax2.set_ylabel("per second")
        ax2.set_ylim(bottom=0)
        ax2.grid(alpha=0.3)
        b = ax2.twinx()
        b.plot(t, [int(r["blocks"] or 0) for r in timeline], color="gray",
               linestyle="--", label="blocks in the switch")
        b.set_ylabel("blocks in the switch")
        b.set_ylim(bottom=0)
        h1, l1 = ax2.get_legend_handles_labels()
        h2, l2 = b.get_legend_handles_labels()
        ax2.legend(h1 + h2, l1 + l2, fontsize=8, loc="lower right")
        ax2.set_title("swswitch (telemetry, once a second)")
    for ax in (ax1, ax2):
        if off > 0:
            ax.axvspan(0, off, color="gray", alpha=0.15)
    if off > 0:
        ax1.text(off / 2, 0, "load", ha="center", va="bottom", fontsize=8)
    ax1.legend(fontsize=8, loc="lower right")
    ax2.set_xlabel("seconds since the nodes started")
    fig.tight_layout()
    fig.savefig(png, dpi=100)


def report(a):
    problems = []
    rows = []
    try:
        with open(os.path.join(a.out, "kv.csv"), newline="") as f:
            rows = sorted(csv.DictReader(f), key=lambda r: int(r["node"]))
    except OSError as e:
        problems.append("no result rows: %s" % e)
    nodes = sorted(int(re.search(r"(\d+)\.log$", p).group(1)) for p in
                   glob.glob(os.path.join(a.out, "node-*.log")))
    got = {int(r["node"]) for r in rows}
    for n in nodes:
        if n not in got:
            problems.append("node %d reported no result (see node-%d.log)"
                            % (n, n))
    summary = {"nodes": []}
    if rows:
        r0 = rows[0]
        print("== key-value store: %s (%.0f%% GET), %s %s, %s keys, %d "
              "nodes x %s threads, mode %s, %s s" %
              (r0["workload"], float(r0["get_ratio"]) * 100, r0["dist"],
               r0["theta"], fmt(int(r0["keys"])), len(rows), r0["threads"],
               r0["mode"], r0["seconds"]))
        summary.update({k: r0[k] for k in ("workload", "dist", "theta",
                                           "keys", "get_ratio", "mode")})
    print("   %-6s %12s %12s %10s %8s %6s %8s" %
          ("node", "ops", "ops/s", "GETs", "PUTs", "torn", "missing"))
    tot = {"ops": 0, "ops_per_s": 0.0, "gets": 0, "puts": 0, "torn": 0,
           "missing": 0}
    for r in rows:
        v = {k: (float(r[k]) if k == "ops_per_s" else int(r[k]))
             for k in tot}
        for k in tot:
            tot[k] += v[k]
        print("   %-6s %12s %12s %10s %8s %6d %8d" %
              (r["node"], fmt(v["ops"]), fmt(v["ops_per_s"]), fmt(v["gets"]),
               fmt(v["puts"]), v["torn"], v["missing"]))
        summary["nodes"].append(dict(v, node=int(r["node"]),
                                     load_s=float(r["load_s"])))
    print("   %-6s %12s %12s %10s %8s %6d %8d" %
          ("total", fmt(tot["ops"]), fmt(tot["ops_per_s"]), fmt(tot["gets"]),
           fmt(tot["puts"]), tot["torn"], tot["missing"]))
    summary.update(total=tot)
    if tot["torn"] or tot["missing"]:
        problems.append("%d torn values, %d missing keys" %
                        (tot["torn"], tot["missing"]))
    ev = {"in_switch": 0, "at_home": 0, "nacks": 0, "sent": 0, "received": 0,
          "all_in_switch": 0, "all_at_home": 0, "switch_owned": 0}
    for n in nodes:
        try:
            d = node_delta(a.out, n)
        except (OSError, ValueError) as e:
            problems.append("node %d statistics: %s" % (n, e))
            continue
        for k in ev:
            ev[k] += d[k]
    events = ev["in_switch"] + ev["at_home"]
    share = ev["in_switch"] / events if events else 0
    alls = ev["all_in_switch"] + ev["all_at_home"]
    print("== coherence (measured phase)")
    print("   events: %s, serialised by the switch %s (%.1f%%), at the homes "
          "%s   [whole run, load included: %.1f%% in the switch]" %
          (fmt(events), fmt(ev["in_switch"]), share * 100, fmt(ev["at_home"]),
           100 * ev["all_in_switch"] / alls if alls else 0))
    print("   NACKs received by the nodes: %s" % fmt(ev["nacks"]))
    ppo = ev["sent"] / tot["ops"] if tot["ops"] else 0
    print("   packets per operation: %.3f sent by the nodes (%s packets, "
          "%s operations)" % (ppo, fmt(ev["sent"]), fmt(tot["ops"])))
    summary.update(events=events, events_in_switch=ev["in_switch"],
                   events_at_home=ev["at_home"], switch_share=share,
                   node_nacks=ev["nacks"], packets_per_op=ppo)
    timeline = []
    try:
        with open(os.path.join(a.out, "timeline.csv"), newline="") as f:
            timeline = list(csv.DictReader(f))
    except OSError:
        pass
    blocks_end = None
    if a.switch:
        try:
            sw = load_json(a.switch)
            c = switch_counters(sw)
            blocks_end = c["blocks"]
            peak = max([int(r["blocks"] or 0) for r in timeline] + [0])
            cap = sw.get("pipeline", {}).get("capacity", 0)
            run = [r for r in timeline if r["phase"] == "running" and
                   r["rx_total"]]
            print("== swswitch")
            print("   blocks in the switch: %s at the end (peak %s, capacity "
                  "%s; the homes count %s switch-owned)" %
                  (fmt(blocks_end), fmt(peak), fmt(cap),
                   fmt(ev["switch_owned"])))
            print("   NACKs sent by the pipeline: %s (whole run)" %
                  fmt(c["nacks"]))
            print("   pipeline actions: %s, of them serialised in the switch "
                  "%s (whole run)" % (fmt(c["actions"]), fmt(c["in_switch"])))
            summary.update(blocks_in_switch=blocks_end, peak_blocks=peak,
                           switch_nacks=c["nacks"])
            if len(run) >= 2 and tot["ops"]:
                rx = int(run[-1]["rx_total"]) - int(run[0]["rx_total"])
                ops = sum(float(r["total_ops_s"]) for r in run[1:])
                if ops:
                    print("   frames into the switch per operation: %.3f "
                          "(telemetry over the measured phase)" % (rx / ops))
                    summary["switch_frames_per_op"] = rx / ops
        except (OSError, ValueError) as e:
            problems.append("swswitch statistics %s: %s" % (a.switch, e))
    if a.mode == "switch" and (not blocks_end or not ev["in_switch"]):
        print("   WARNING: the switch serialised no coherence event of the "
              "measured phase or holds no block: migration did not happen")
    png = os.path.join(a.out, "throughput.png")
    try:
        plot(a.out, nodes, timeline, png)
        print("== throughput over time: %s" % png)
        summary["png"] = png
    except Exception as e:  # the summary matters more than the picture
        print("   (no plot: %s)" % e)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(summary, f, indent=1, sort_keys=True)
    for p in problems:
        print("PROBLEM: " + p)
    return 1 if problems else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    lv = sub.add_parser("live")
    lv.add_argument("--prefix", required=True,
                    help="swswitch's DPDK --file-prefix")
    lv.add_argument("--out", required=True)
    lv.add_argument("--node", action="append", required=True,
                    help="N=PID of a node's dsm_kv")
    rp = sub.add_parser("report")
    rp.add_argument("--out", required=True)
    rp.add_argument("--switch", help="swswitch's exit statistics")
    rp.add_argument("--mode", default="switch")
    rp.add_argument("--json")
    a = ap.parse_args()
    return live(a) if a.cmd == "live" else report(a)


if __name__ == "__main__":
    sys.exit(main())
