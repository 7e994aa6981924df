#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Summarise a cluster run: node-agent statistics (one JSON file per node,
--stats FILE) and swswitch's exit statistics (its stdout JSON).

Used by scripts/test-e2e.sh (prints the table; --check: sanity assertions
on the switch statistics) and scripts/bench_apps.py. docs/CLUSTER.md describes the
output.
"""

import argparse
import csv
import json
import os
import re
import sys


def flatten(d, prefix=""):
    out = {}
    if isinstance(d, dict):
        for k, v in d.items():
            out.update(flatten(v, prefix + str(k) + "."))
    elif isinstance(d, list):
        for i, v in enumerate(d):
            out.update(flatten(v, prefix + str(i) + "."))
    else:
        out[prefix[:-1]] = d
    return out


def pick(flat, names):
    """The value of the first key whose last component(s) equal a name."""
    for name in names:
        for k, v in flat.items():
            if (k == name or k.endswith("." + name)) and \
                    isinstance(v, (int, float)) and not isinstance(v, bool):
                return k, v
    return None, None


def load_json(path):
    """A JSON document, or the last JSON object printed in a text file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    try:
        return json.loads(text)
    except ValueError:
        pass
    # stdout may hold log lines before the JSON: take the last {...} block
    start = text.rfind("\n{")
    start = 0 if start < 0 and text.startswith("{") else start + 1
    return json.loads(text[start:])


def write_csv(path, rows, columns):
    """A benchmark's result rows, header first."""
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns)
        w.writeheader()
        for r in rows:
            w.writerow(r)


def read_csv(path, columns, problems):
    """A benchmark CSV's rows; a header other than `columns` is a problem
    (appended to `problems`) and gives no rows."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows or list(rows[0].keys()) != columns:
        problems.append("%s: header is not %s" % (path, columns))
        return []
    return rows


OPS_KEYS = ["ops", "total_ops", "ops_total", "completed_ops", "operations"]
RATE_KEYS = ["ops_per_sec", "ops_per_s", "ops_s", "throughput_ops",
             "throughput"]
TIME_KEYS = ["elapsed_s", "duration_s", "run_s", "seconds", "elapsed_sec"]


def node_summary(path, duration):
    st = load_json(path)
    flat = flatten(st)
    m = re.search(r"(\d+)", os.path.basename(path))
    node = st.get("node", int(m.group(1)) if m else -1)
    _, ops = pick(flat, OPS_KEYS)
    _, rate = pick(flat, RATE_KEYS)
    _, secs = pick(flat, TIME_KEYS)
    if ops is None:
        ops = 0
    if rate is None:
        rate = ops / (secs or duration or 1)
    extra = {}
    for label, names in (("reads", ["reads", "read_ops"]),
                         ("writes", ["writes", "write_ops"]),
                         ("incrs", ["incrs"]),
                         ("errors", ["errors"]),
                         ("hits", ["cache_hits", "hits"]),
                         ("misses", ["cache_misses", "misses"]),
                         ("nacks", ["nacks", "nacks_received"]),
                         ("retransmits", ["retransmits", "retransmissions"]),
                         ("rtx_request", ["retransmit_request"]),
                         ("rtx_unlock", ["retransmit_unlock"]),
                         ("rtx_writeback", ["retransmit_writeback"]),
                         ("events", ["events"]),
                         ("rx_bad", ["rx_bad"]),
                         ("sent/op", ["packets_sent_per_op"])):
        k, v = pick(flat, names)
        if k is not None:
            extra[label] = v
    return {"node": node, "ops": ops, "ops_per_s": rate, "extra": extra,
            "raw": st}


def switch_summary(sw):
    ports = {k: v for k, v in sw.items() if re.match(r"port\d+$", k)}
    rx = sum(p.get("rx", 0) for p in ports.values())
    tx = sum(p.get("tx", 0) for p in ports.values())
    pdrops = sum(p.get("drops", 0) for p in ports.values())
    pl = sw.get("pipeline", {})
    actions = sw.get("actions", {})
    drops = sw.get("drops", {})
    return {"rx": rx, "tx": tx, "port_drops": pdrops, "ports": ports,
            "pipeline": pl, "actions": actions, "drops": drops,
            "l2": sw.get("l2", {})}


def fmt(n):
    return "{:,.0f}".format(n)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("stats", nargs="*", help="node-agent --stats files")
    ap.add_argument("--switch", help="swswitch exit statistics (JSON)")
    ap.add_argument("--duration", type=float, default=0)
    ap.add_argument("--title", default="run")
    ap.add_argument("--json", help="write the summary here")
    ap.add_argument("--check", action="store_true",
                    help="assert switch sanity: no malformed drops")
    ap.add_argument("--expect-pipeline", action="store_true",
                    help="with --check: pipeline actions must be nonzero "
                         "(switch-owned blocks were used)")
    ap.add_argument("--allow-malformed", action="store_true",
                    help="with --check: malformed-frame drops are expected "
                         "(garbage was injected)")
    ap.add_argument("--baseline",
                    help="summary JSON (--json) of the fault-free run of the "
                         "same kind: print the slowdown against it")
    ap.add_argument("--csv", help="append one summary row to this CSV file")
    a = ap.parse_args()

    problems = []
    nodes = []
    for p in sorted(a.stats):
        try:
            nodes.append(node_summary(p, a.duration))
        except (OSError, ValueError) as e:
            problems.append("node stats %s: %s" % (p, e))
    total_ops = sum(n["ops"] for n in nodes)
    total_rate = sum(n["ops_per_s"] for n in nodes)

    print("== %s: throughput" % a.title)
    print("   %-6s %12s %12s  %s" % ("node", "ops", "ops/s", "details"))
    for n in sorted(nodes, key=lambda n: n["node"]):
        det = ", ".join("%s %s" % (k, fmt(v)) for k, v in n["extra"].items())
        print("   %-6s %12s %12s  %s" % (n["node"], fmt(n["ops"]),
                                         fmt(n["ops_per_s"]), det))
    print("   %-6s %12s %12s" % ("total", fmt(total_ops), fmt(total_rate)))

    summary = {"title": a.title, "duration_s": a.duration,
               "nodes": [{k: n[k] for k in ("node", "ops", "ops_per_s",
                                            "extra")} for n in nodes],
               "total_ops": total_ops, "total_ops_per_s": total_rate}
    rtx = {k: sum(n["extra"].get("rtx_" + k, 0) for n in nodes)
           for k in ("request", "unlock", "writeback")}
    events = sum(n["extra"].get("events", 0) for n in nodes)
    secs = max([n["raw"].get("seconds", 0) for n in nodes] + [0]) or \
        a.duration or 1
    summary.update(retransmit=rtx, events=events, events_per_s=events / secs)
    print("   retransmissions: requests %s, unlocks %s, write-backs %s; "
          "coherence events %s (%s/s)" %
          (fmt(rtx["request"]), fmt(rtx["unlock"]), fmt(rtx["writeback"]),
           fmt(events), fmt(events / secs)))
    if a.baseline:
        try:
            with open(a.baseline) as f:
                base = json.load(f)
            summary["baseline"] = base["title"]
            summary["ops_ratio"] = total_rate / base["total_ops_per_s"]
            summary["events_ratio"] = (summary["events_per_s"] /
                                       base["events_per_s"])
            print("   vs %s: ops/s x%.2f, coherence events/s x%.2f "
                  "(1.00 = no slowdown)" % (base["title"],
                                            summary["ops_ratio"],
                                            summary["events_ratio"]))
        except (OSError, ValueError, KeyError, ZeroDivisionError) as e:
            problems.append("baseline %s: %s" % (a.baseline, e))
    if a.switch:
        try:
            sw = switch_summary(load_json(a.switch))
        except (OSError, ValueError) as e:
            sw = None
            problems.append("swswitch statistics %s: %s" % (a.switch, e))
        if sw:
            pl = sw["pipeline"]
            passes = pl.get("passes", 0)
            resub = pl.get("resubmits", 0)
            print("== swswitch")
            print("   frames: rx %s, tx %s, port drops %s" %
                  (fmt(sw["rx"]), fmt(sw["tx"]), fmt(sw["port_drops"])))
            print("   pipeline: passes %s (resubmits %s), nacks %s, drops "
                  "%s, blocks in switch %s" %
                  (fmt(passes), fmt(resub), fmt(pl.get("nacks", 0)),
                   fmt(pl.get("drops", 0)), fmt(pl.get("blocks", 0))))
            act = {k: v for k, v in sw["actions"].items() if v}
            if act:
                print("   actions: " + ", ".join(
                    "%s %s" % (k, fmt(v)) for k, v in sorted(act.items())))
            drp = {k: v for k, v in sw["drops"].items() if v}
            print("   drops: " + (", ".join(
                "%s %s" % (k, fmt(v)) for k, v in sorted(drp.items()))
                or "none"))
            l2 = sw["l2"]
            if l2:
                print("   l2: forwarded %s, flooded %s" %
                      (fmt(l2.get("forwarded", 0)), fmt(l2.get("flooded", 0))))
            if total_ops:
                ppo = sw["rx"] / total_ops
                cpo = (passes - resub) / total_ops
                print("   packets per operation: %.3f frames into the switch "
                      "(%.3f coherence requests through the pipeline)" %
                      (ppo, cpo))
                summary["packets_per_op"] = ppo
                summary["pipeline_packets_per_op"] = cpo
            summary["switch"] = {"rx": sw["rx"], "tx": sw["tx"],
                                 "port_drops": sw["port_drops"],
                                 "pipeline": pl, "actions": sw["actions"],
                                 "drops": sw["drops"]}
            if a.check:
                bad = {k: v for k, v in sw["drops"].items()
                       if v and k not in ("none",)}
                if a.allow_malformed:
                    bad = {}
                # Known, untraced (docs/NODE-AGENT.md "Known limitations"): a
                # few pipeline frames per run whose node is not the ingress
                # port's. Tolerated up to 1 in 1000 frames, reported always.
                odd = bad.get("node_id_does_not_match_ingress_port", 0)
                if odd and odd * 1000 <= sw["rx"]:
                    del bad["node_id_does_not_match_ingress_port"]
                    print("   WARNING: %d frames dropped as node_id_does_not_"
                          "match_ingress_port (known problem)" % odd)
                if bad:
                    problems.append("swswitch dropped malformed/invalid "
                                    "coherence frames: %s" % bad)
                if pl.get("resubmit_loops", 0):
                    problems.append("swswitch resubmit loops: %s" %
                                    pl["resubmit_loops"])
                if a.expect_pipeline:
                    work = sum(v for k, v in sw["actions"].items()
                               if k not in ("tag_miss_to_home", "drop"))
                    if work == 0:
                        problems.append("no pipeline action other than "
                                        "tag_miss_to_home: the switch owned "
                                        "no block")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(summary, f, indent=1, sort_keys=True)
    if a.csv:
        cols = ["title", "total_ops", "total_ops_per_s", "events",
                "events_per_s", "rtx_request", "rtx_unlock", "rtx_writeback",
                "baseline", "ops_ratio", "events_ratio"]
        row = dict(summary, **{"rtx_" + k: v for k, v in rtx.items()})
        new = not os.path.exists(a.csv) or os.path.getsize(a.csv) == 0
        with open(a.csv, "a") as f:
            if new:
                f.write(",".join(cols) + "\n")
            f.write(",".join(("%.3f" % row[c]) if isinstance(row.get(c), float)
                             else str(row.get(c, "")) for c in cols) + "\n")
    for p in problems:
        print("PROBLEM: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
