#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Where the time goes: the per-event and per-access latency breakdown of
a namespace-cluster run, from the sampled traces (lib/trace/lcf_trace.h)
written by the node agents (--trace FILE) and swswitch (--trace FILE).

  latency_breakdown.py [--json OUT] [--check] [--min-coverage 0.9] DIR...

DIR holds one run's trace-*.bin (scripts/bench-apps.sh --trace N writes
trace-N.bin per node and trace-sw.bin). Every process samples the same
events (a hash of node, thread and seq), so one event's records are
joined across processes by that key; all clocks are CLOCK_MONOTONIC.

A coherence event (first request sent .. last reply collected) is cut
along its critical path, walked back from the reply that completed it:
each hop's sender and receiver, the switch pass in between, the agent that
sent it (queueing: received -> agents' section; service: section -> the
send), back to the requester's request. Parts:

  req_pre        requester: event start -> first request (unlock parity
                 wait, queue registration)
  retransmit     first request -> the copy that got the answer
  net_to_sw      sender -> swswitch pipeline (kernel, veth, af_packet rx)
  switch         swswitch pipeline pass
  net_from_sw    pipeline done -> receiver's dispatch thread (tx buffer,
                 af_packet tx, veth, kernel)
  net_l2         node -> node frames (not pipeline types: L2 switched)
  home_q/home_s  home agent: queueing (dispatch -> agents' section, or a
                 local sender -> section) / service (section -> send)
  cache_q/cache_s  another node's cache agent (invalidation, forward)
  req_q          requester: dispatch thread -> requester thread woken
  req_collect    requester: woken by the last reply -> event done

coverage = attributed parts / event latency (a walk that cannot find a
hop leaves the rest unattributed). A block access (op) is cut into its
events, unlock waits (flush), back-off after NACKs, waits for another
local thread (lwait), write-backs (wb); the rest is the requester's own
work (local). Unlock round trip: unlock sent -> its ACK taken. Migration:
a home's ADD_TO_SWITCH / REMOVE_FROM_SWITCH sent -> its MIGRATE_ACK
received (to the switch, pass, back).

--compare: one Markdown row per run instead (parts grouped: network =
net_to_sw + net_from_sw + net_l2, agents = home and cache queueing and
service, req_wake = req_q + req_collect), medians over directories named
alike but for a trailing -N (repetitions).

--check (tests): every trace well formed, and every mode's coverage of
event latency at least --min-coverage; exit 1 otherwise.
"""

import argparse
import collections
import glob
import json
import os
import re
import statistics
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
REC = struct.Struct("<QIHHHHBBHQ")
HDR = struct.Struct("<8sIIHHIQ")
SWITCH = 0xffff
POINTS = ["op_begin", "op_end", "ev_begin", "ev_send", "ev_done", "wake",
          "rx", "ag_in", "ag_out", "unl_send", "flush", "backoff", "lwait",
          "wb", "sw_in", "sw_out", "mark"]
P = {n: i for i, n in enumerate(POINTS)}
EV_PARTS = ["req_pre", "retransmit", "net_to_sw", "switch", "net_from_sw",
            "net_l2", "home_q", "home_s", "cache_q", "cache_s", "req_q",
            "req_collect"]
OP_PARTS = ["events", "flush", "backoff", "lwait", "wb"]
MODES = ["read", "write", "rlock", "wlock", "rmw"]


def type_names():
    names = {}
    for path in ("lib/wire/lcf_wire.h", "node-agent/proto/na_msg.h"):
        try:
            with open(os.path.join(REPO, path)) as f:
                text = f.read()
        except OSError:
            continue
        for name, val in re.findall(
                r"X\(\s*([A-Z_0-9]+)\s*,\s*(0x[0-9a-fA-F]+)\s*,", text):
            names.setdefault(int(val, 16), name if "na_msg" not in path
                             else "NA_" + name)
    return names


TYPES = type_names()


def tname(t):
    return TYPES.get(t, "0x%02x" % t)


class Rec:
    __slots__ = ("t", "seq", "node", "thread", "at", "peer", "point",
                 "type", "aux", "i")

    def __init__(self, v):
        (self.t, self.seq, self.node, self.thread, self.at, self.peer,
         self.point, self.type, _, self.aux) = v


def load(path, problems):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < HDR.size:
        problems.append("%s: shorter than the header" % path)
        return None, []
    magic, rs, every, at, _, n, dropped = HDR.unpack_from(data)
    if magic != b"LCFTRC1\0" or rs != REC.size:
        problems.append("%s: not a trace (magic %r, record %d)" %
                        (path, magic, rs))
        return None, []
    if len(data) != HDR.size + n * REC.size:
        problems.append("%s: %d bytes for %d records" % (path, len(data), n))
        return None, []
    recs = [Rec(v) for v in REC.iter_unpack(data[HDR.size:])]
    for r in recs:
        if r.point >= len(POINTS) or r.at != at:
            problems.append("%s: bad record (point %d, at %d)" %
                            (path, r.point, r.at))
            break
    return {"every": every, "at": at, "records": n, "dropped": dropped}, recs


def last(recs, x, pred):
    """The latest record before record x satisfying pred: at x's time or
    earlier, and recorded before x where both are one process's (a
    simulator's virtual clock gives one instant to a whole chain of
    agent steps; their order is the recording order)."""
    best = None
    for r in recs:
        if r.t > x.t:
            break
        if r.t == x.t and r.at == x.at and r.i >= x.i:
            continue
        if pred(r):
            best = r
    return best


def is_send(r):
    return r.point in (P["ag_out"], P["ev_send"], P["unl_send"])


def walk(ev, recs, parts):
    """Cut event `ev` (its begin and done records) along the critical path
    into parts (dict, ns). Returns the attributed ns."""
    begin, done = ev
    req, home = begin.node, begin.peer
    sends = [r for r in recs if r.point == P["ev_send"] and r.at == req and
             begin.t <= r.t <= done.t]
    if not sends:
        return 0
    first = sends[0]
    got = 0

    def add(k, v):
        nonlocal got
        v = max(v, 0)
        parts[k] += v
        got += v
        if k in ("net_to_sw", "net_l2", "net_from_sw"):
            parts["hops"] += 1  # node->switch->node: two

    role = (lambda y: "home" if y == home else "cache")
    w = last(recs, done, lambda r: r.point == P["wake"] and r.at == req and
             r.t >= first.t)
    if w is None:
        return 0
    add("req_collect", done.t - w.t)
    # Where the woken message arrived: the dispatch thread, or locally.
    rx = last(recs, w, lambda r: r.point == P["rx"] and r.at == req and
              r.type == w.type and r.t >= first.t)
    arrival = None
    if rx is not None:
        add("req_q", w.t - rx.t)
        arrival = rx
        sender = None
    else:
        sender = last(recs, w, lambda r: r.point == P["ag_out"] and
                      r.at == req and r.peer == req and r.type == w.type)
        if sender is None:
            return got
        add("req_q", w.t - sender.t)
    for _ in range(16):
        if arrival is not None:
            x, t0 = arrival.at, arrival.t
            # Node-to-node types (0x20-0x7f) never leave the pipeline.
            sw = last(recs, arrival, lambda r: r.point == P["sw_out"] and
                      r.t >= first.t) if arrival.type < 0x20 else None
            snd = last(recs, arrival, lambda r: is_send(r) and r.peer == x and
                       r.type == arrival.type and r.at != x)
            if sw is not None and (snd is None or sw.t > snd.t):
                swin = last(recs, sw, lambda r: r.point == P["sw_in"])
                if swin is None:
                    return got
                add("net_from_sw", t0 - sw.t)
                add("switch", sw.t - swin.t)
                sender = last(recs, swin, lambda r: is_send(r) and
                              r.type == swin.type)
                if sender is None:
                    return got
                add("net_to_sw", swin.t - sender.t)
            elif snd is not None:
                add("net_l2", t0 - snd.t)
                sender = snd
            else:
                return got
            arrival = None
        if sender.point in (P["ev_send"], P["unl_send"]):
            add("retransmit", sender.t - first.t)
            add("req_pre", first.t - begin.t)
            return got
        y = sender.at
        ain = last(recs, sender, lambda r: r.point == P["ag_in"] and
                   r.at == y)
        if ain is None:
            return got
        add(role(y) + "_s", sender.t - ain.t)
        rx = last(recs, ain, lambda r: r.point == P["rx"] and r.at == y and
                  r.type == ain.type)
        loc = last(recs, ain, lambda r: is_send(r) and r.at == y and
                   r.peer == y and r.type == ain.type)
        if rx is not None and (loc is None or rx.t > loc.t):
            add(role(y) + "_q", ain.t - rx.t)
            arrival = rx
        elif loc is not None:
            add(role(y) + "_q", ain.t - loc.t)
            sender = loc
        else:
            return got
    return got


def analyse(d):
    problems, recs, meta = [], [], []
    files = sorted(glob.glob(os.path.join(d, "trace-*.bin")))
    if not files:
        problems.append("%s: no trace-*.bin" % d)
    for p in files:
        m, r = load(p, problems)
        if m:
            meta.append(m)
            recs += r
    recs.sort(key=lambda r: r.t)  # stable: a process's order kept
    for i, r in enumerate(recs):
        r.i = i
    # The measured phase: from the last node's MARK (loading left out).
    marks = [r.t for r in recs if r.point == P["mark"]]
    start = max(marks) if marks else 0
    by_key = collections.defaultdict(list)
    by_thread = collections.defaultdict(list)
    for r in recs:
        by_key[(r.node, r.thread, r.seq)].append(r)
        if r.point == P["mark"]:
            continue
        if r.at == r.node and r.point in (P["op_begin"], P["op_end"],
                                          P["ev_begin"], P["ev_done"],
                                          P["flush"], P["backoff"],
                                          P["lwait"], P["wb"]):
            by_thread[(r.node, r.thread)].append(r)
    ev = collections.defaultdict(lambda: {
        "n": 0, "ns": 0, "got": 0, "nacked": 0, "in_switch": 0,
        "parts": collections.Counter(), "lat": []})
    unl = collections.defaultdict(list)
    for key, rs in by_key.items():
        b = [r for r in rs if r.point == P["ev_begin"] and r.aux & 1]
        dn = [r for r in rs if r.point == P["ev_done"]]
        if len(b) != 1 or len(dn) != 1 or dn[0].t < b[0].t or \
                b[0].t < start:
            continue
        parts = collections.Counter()
        got = walk((b[0], dn[0]), rs, parts)
        # The home's own requests: the directory serves them in-process,
        # LCF sends them across the switch (its serialisation point).
        s = ev[tname(b[0].type) + ("@home" if b[0].peer == b[0].node
                                   else "")]
        lat = dn[0].t - b[0].t
        s["n"] += 1
        s["ns"] += lat
        s["lat"].append(lat)
        s["got"] += min(got, lat)
        s["nacked"] += dn[0].aux & 1
        s["in_switch"] += (dn[0].aux >> 1) & 1
        s["parts"].update(parts)
        us = [r for r in rs if r.point == P["unl_send"]]
        ack = [r for r in rs if r.point == P["wake"] and
               tname(r.type).endswith("UNLOCK_ACK") and us and r.t > us[0].t]
        if us and ack:
            unl[tname(b[0].type) + ("@home" if b[0].peer == b[0].node
                                    else "")].append(ack[0].t - us[0].t)
    # Migration (a home's ADD_TO_SWITCH / REMOVE_FROM_SWITCH, sent across
    # the switch to itself): send -> its MIGRATE_ACK received at the home.
    mig = collections.defaultdict(lambda: {"n": 0, "ns": 0,
                                           "parts": collections.Counter()})
    for key, rs in by_key.items():
        out = [r for r in rs if r.point == P["ag_out"] and r.at == r.node and
               tname(r.type) in ("ADD_TO_SWITCH", "REMOVE_FROM_SWITCH") and
               r.t >= start]
        ack = [r for r in rs if r.point == P["rx"] and r.at == r.node and
               tname(r.type) == "MIGRATE_ACK"]
        if not out or not ack or ack[0].t < out[0].t:
            continue
        m = mig[tname(out[0].type)]
        m["n"] += 1
        m["ns"] += ack[0].t - out[0].t
        swi = [r for r in rs if r.point == P["sw_in"] and
               out[0].t <= r.t <= ack[0].t]
        swo = [r for r in rs if r.point == P["sw_out"] and
               out[0].t <= r.t <= ack[0].t]
        if swi and swo:
            m["parts"]["net_to_sw"] += swi[0].t - out[0].t
            m["parts"]["switch"] += swo[-1].t - swi[0].t
            m["parts"]["net_from_sw"] += ack[0].t - swo[-1].t
    ops = collections.defaultdict(lambda: {
        "n": 0, "ns": 0, "parts": collections.Counter(), "lat": []})
    for key, rs in by_thread.items():
        cur, evb, parts = None, None, None
        for r in rs:
            if r.point == P["op_begin"]:
                if r.t < start:
                    continue
                cur, evb, parts = r, None, collections.Counter()
            elif cur is None:
                continue
            elif r.point == P["ev_begin"]:
                evb = r
            elif r.point == P["ev_done"] and evb is not None:
                parts["events"] += r.t - evb.t
                parts["n_events"] += 1
                evb = None
            elif r.point in (P["flush"], P["backoff"], P["lwait"], P["wb"]):
                if evb is None:  # inside an event it is the event's time
                    parts[POINTS[r.point]] += r.aux
            elif r.point == P["op_end"]:
                kind = "%s %s" % (MODES[r.type] if r.type < len(MODES)
                                  else r.type,
                                  "hit" if r.aux == 1 else "miss")
                s = ops[kind]
                s["n"] += 1
                s["ns"] += r.t - cur.t
                s["lat"].append(r.t - cur.t)
                s["parts"].update(parts)
                cur = None
    return {"dir": d, "traces": meta, "problems": problems, "events": ev,
            "measured_from": start, "migration": mig,
            "unlock": unl, "ops": ops}


def us(ns, n):
    return ns / n / 1e3 if n else 0.0


def summary(a):
    out = {"dir": a["dir"], "traces": a["traces"], "events": {}, "ops": {}}
    tn = tg = 0
    for t, s in sorted(a["events"].items()):
        tn += s["ns"]
        tg += s["got"]
        out["events"][t] = {
            "n": s["n"], "mean_us": round(us(s["ns"], s["n"]), 1),
            "p50_us": round(statistics.median(s["lat"]) / 1e3, 1),
            "nacked": s["nacked"], "in_switch": s["in_switch"],
            "coverage": round(s["got"] / s["ns"], 3) if s["ns"] else 0,
            "parts_us": {k: round(us(s["parts"][k], s["n"]), 1)
                         for k in EV_PARTS},
            "hops": round(s["parts"]["hops"] / s["n"], 2),
            "unlock_rtt_us": round(statistics.median(a["unlock"][t]) / 1e3,
                                   1) if a["unlock"].get(t) else None}
    out["event_coverage"] = round(tg / tn, 3) if tn else 0
    on = og = 0
    for k, s in sorted(a["ops"].items()):
        p = s["parts"]
        att = sum(p[x] for x in OP_PARTS)
        hit = k.endswith("hit")
        on += s["ns"]
        og += s["ns"] if hit else min(att, s["ns"])
        out["ops"][k] = {
            "n": s["n"], "mean_us": round(us(s["ns"], s["n"]), 2),
            "p50_us": round(statistics.median(s["lat"]) / 1e3, 2),
            "events_per_op": round(p["n_events"] / s["n"], 2),
            "parts_us": {x: round(us(p[x], s["n"]), 2) for x in OP_PARTS},
            "local_us": round(us(max(s["ns"] - att, 0), s["n"]), 2)}
    out["op_coverage"] = round(og / on, 3) if on else 0
    out["migration"] = {t: {"n": m["n"],
                            "mean_us": round(us(m["ns"], m["n"]), 1),
                            "parts_us": {k: round(us(v, m["n"]), 1)
                                         for k, v in m["parts"].items()}}
                        for t, m in sorted(a["migration"].items())}
    return out


def print_summary(s):
    print("== %s" % s["dir"])
    for m in s["traces"]:
        print("   trace at %s: 1 in %d, %d records, %d overwritten" % (
            "switch" if m["at"] == SWITCH else "node %d" % m["at"],
            m["every"], m["records"], m["dropped"]))
    short = {"req_pre": "pre", "retransmit": "retx", "net_to_sw": ">sw",
             "switch": "sw", "net_from_sw": "sw>", "net_l2": "l2",
             "home_q": "home_q", "home_s": "home_s", "cache_q": "cache_q",
             "cache_s": "cache_s", "req_q": "req_q",
             "req_collect": "coll"}
    hdr = "%-18s %6s %8s %7s" % ("event (us)", "n", "mean", "p50") + \
        "".join("%8s" % short[k] for k in EV_PARTS) + "%6s%7s %6s %6s" % (
            "hops", "cover", "nack", "unlock")
    print(hdr)
    for t, e in s["events"].items():
        print("%-18s %6d %8.1f %7.1f" % (t, e["n"], e["mean_us"],
                                         e["p50_us"]) +
              "".join("%8.1f" % e["parts_us"][k] for k in EV_PARTS) +
              "%6.2f%6.0f%% %6d %6s" % (e["hops"], 100 * e["coverage"],
                                        e["nacked"],
                                   "%.0f" % e["unlock_rtt_us"]
                                   if e["unlock_rtt_us"] is not None
                                   else "-"))
    print("event coverage: %.1f%% of the sampled events' latency" %
          (100 * s["event_coverage"]))
    print("%-16s %6s %8s %7s %6s" % ("access (us)", "n", "mean", "p50",
                                     "ev/op") +
          "".join("%8s" % k for k in OP_PARTS) + "%8s" % "local")
    for k, o in s["ops"].items():
        print("%-16s %6d %8.2f %7.2f %6.2f" % (k, o["n"], o["mean_us"],
                                               o["p50_us"],
                                               o["events_per_op"]) +
              "".join("%8.2f" % o["parts_us"][x] for x in OP_PARTS) +
              "%8.2f" % o["local_us"])
    print("access coverage: %.1f%% (hits: all local work; misses: events "
          "and waits)" % (100 * s["op_coverage"]))
    for t, m in s["migration"].items():
        print("migration %-18s n %d, mean %.1f us to its MIGRATE_ACK: %s" % (
            t, m["n"], m["mean_us"], ", ".join(
                "%s %.1f" % kv for kv in m["parts_us"].items())))


GROUPS = [("network", ("net_to_sw", "net_from_sw", "net_l2")),
          ("switch", ("switch",)),
          ("agents", ("home_q", "home_s", "cache_q", "cache_s")),
          ("req_wake", ("req_q", "req_collect")),
          ("retx+pre", ("retransmit", "req_pre"))]


def compact(s):
    """One row per run: all sampled events together, parts grouped."""
    n = sum(e["n"] for e in s["events"].values())
    tot = sum(e["n"] * e["mean_us"] for e in s["events"].values())
    row = {"events": n, "ev_mean_us": tot / n if n else 0,
           "at_home": sum(e["n"] for t, e in s["events"].items()
                          if t.endswith("@home")) / n if n else 0,
           "hops": sum(e["n"] * e["hops"] for e in s["events"].values()) /
           n if n else 0, "coverage": s["event_coverage"]}
    for g, keys in GROUPS:
        row[g] = sum(e["n"] * e["parts_us"][k] for e in s["events"].values()
                     for k in keys) / n if n else 0
    ops = s["ops"].values()
    no = sum(o["n"] for o in ops)
    row["acc_mean_us"] = sum(o["n"] * o["mean_us"] for o in ops) / no \
        if no else 0
    row["ev_per_acc"] = sum(o["n"] * o["events_per_op"] for o in ops) / no \
        if no else 0
    row["unlock_wait_us"] = sum(o["n"] * o["parts_us"]["flush"]
                                for o in ops) / no if no else 0
    row["wb_us"] = sum(o["n"] * o["parts_us"]["wb"] for o in ops) / no \
        if no else 0
    return row


def print_compare(res):
    """Rows grouped by the run directory's name without its trailing
    repetition number: medians over the repetitions."""
    groups = collections.OrderedDict()
    for s in res:
        name = re.sub(r"-\d+$", "", os.path.basename(s["dir"].rstrip("/")))
        groups.setdefault(name, []).append(compact(s))
    cols = ["events", "ev_mean_us", "network", "switch", "agents",
            "req_wake", "retx+pre", "hops", "at_home", "coverage",
            "acc_mean_us", "ev_per_acc", "wb_us", "unlock_wait_us"]
    print("| run (median of %s) | " % "/".join(
        str(len(v)) for v in groups.values()) + " | ".join(cols) + " |")
    print("|" + " --- |" * (len(cols) + 1))
    for name, rows in groups.items():
        med = {c: statistics.median(r[c] for r in rows) for c in cols}
        print("| %s | " % name + " | ".join(
            ("%d" % med[c]) if c == "events" else
            ("%.2f" % med[c]) if c in ("hops", "at_home", "coverage",
                                       "ev_per_acc") else
            ("%.0f" % med[c]) for c in cols) + " |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--json", metavar="OUT")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--compare", action="store_true",
                    help="one Markdown row per run (medians over "
                    "directories that differ only in a trailing -N)")
    ap.add_argument("--min-coverage", type=float, default=0.9)
    a = ap.parse_args()
    res, problems = [], []
    for d in a.dirs:
        an = analyse(d)
        problems += an["problems"]
        s = summary(an)
        res.append(s)
        if not a.compare:
            print_summary(s)
        if a.check:
            if not s["events"]:
                problems.append("%s: no sampled event" % d)
            elif s["event_coverage"] < a.min_coverage:
                problems.append("%s: event coverage %.3f < %.2f" % (
                    d, s["event_coverage"], a.min_coverage))
    if a.compare:
        print_compare(res)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    for p in problems:
        print("PROBLEM", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
