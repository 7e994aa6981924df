#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Summary and assertions of one scripts/test-drain.sh scenario.

  drain_report.py home|switch WORKDIR TOPO T_KILL_NS T_DECL_NS NODE...

Reads the survivors' stats (na-N.json, "recovery") and histories (hN.jsonl)
and, for "switch", the reply of the switch command (ctl.json). Prints the
survivors' recovery counters, their operation count and, for "switch", the
evicted blocks and the time from the declaration until an operation has
completed on every evicted block (-1: some never saw one). Exit 1 when a survivor did not apply the
declaration, or ("switch") when nothing was evicted or recovered.
"""
import json
import sys


def main():
    sc, work = sys.argv[1], sys.argv[2]
    shift = json.load(open(sys.argv[3]))["block_size"].bit_length() - 1
    t_kill, t_decl = int(sys.argv[4]), int(sys.argv[5])
    nodes = sys.argv[6:]
    tot, ops, ok = {}, 0, True
    for n in nodes:
        try:
            r = json.load(open("%s/na-%s.json" % (work, n)))["recovery"]
        except (OSError, ValueError, KeyError) as e:
            print("node %s: no stats (%s)" % (n, e))
            ok = False
            continue
        print("node %s: %s" % (n, json.dumps(r)))
        for k, v in r.items():
            tot[k] = tot.get(k, 0) + v
    hist = []
    for n in nodes:
        try:
            with open("%s/h%s.jsonl" % (work, n)) as f:
                hist += [o for o in map(json.loads, f) if "op" in o]
        except (OSError, ValueError):
            pass
    ops = len(hist)
    ok &= tot.get("dead_nodes") == len(nodes)
    line = ("%s: ops %d dead_nodes %d drained_blocks %d detections %d "
            "blocks_recovered %d rounds %d dead_dirty_lost %d"
            % ((sc, ops) + tuple(tot.get(k, 0) for k in (
                "dead_nodes", "drained_blocks", "detections",
                "blocks_recovered", "rounds", "dead_dirty_lost"))))
    if sc == "switch":
        try:
            ctl = json.load(open("%s/ctl.json" % work))
        except (OSError, ValueError):
            ctl = {}
        first = {int(t, 16): None for t in ctl.get("tags", [])}
        for o in hist:
            b = int(o["addr"], 16) >> shift
            if b in first and o["start_ns"] > t_decl:
                first[b] = min(first[b] or o["end_ns"], o["end_ns"])
        # Resumed: every evicted block saw an operation after the declaration.
        resume = ((max(first.values()) - t_decl) / 1e6
                  if first and None not in first.values() else -1)
        print("switch command: %s" % json.dumps(ctl))
        line += (" | evicted %d (locked %d) | kill->declaration %.0f ms, "
                 "declaration->an op done on every evicted block %.0f ms"
                 % (ctl.get("evicted", 0), ctl.get("evicted_locked", 0),
                    (t_decl - t_kill) / 1e6, resume))
        ok &= ctl.get("evicted", 0) >= 1 and tot.get("detections", 0) >= 1
    print(line)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
