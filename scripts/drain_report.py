#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Summary and assertions of one scripts/test-drain.sh scenario.

  drain_report.py home|switch WORKDIR TOPO NODE...

Reads the survivors' stats (na-N.json, "recovery") and histories (hN.jsonl),
the CLOCK_MONOTONIC instants of the kill, the declaration and the switch
command's reply (WORKDIR/times: "T_KILL T_DECL [T_CTL]", ns) and, for
"switch", the reply of the switch command (ctl.json). Prints the survivors'
recovery counters, their operation count and, for "switch", the evicted
blocks and the time from the declaration until an increment (which needs
the block's write lock: a cache hit does not count) has completed on every
evicted block (-1: some never saw one). Exit 1 when a survivor did not apply the
declaration, or ("switch") when nothing was evicted or recovered.
"""
import json
import sys


def main():
    sc, work = sys.argv[1], sys.argv[2]
    shift = json.load(open(sys.argv[3]))["block_size"].bit_length() - 1
    times = [int(x) for x in open("%s/times" % work).read().split()]
    t_kill, t_decl = times[0], times[1]
    nodes = sys.argv[4:]
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
            if b in first and o["op"] == "incr" and o["start_ns"] > t_decl:
                first[b] = min(first[b] or o["end_ns"], o["end_ns"])
        # Resumed: every evicted block saw an operation after the declaration.
        resume = ((max(first.values()) - t_decl) / 1e6
                  if first and None not in first.values() else -1)
        print("switch command: %s" % json.dumps(ctl))
        line += (" | evicted %d (locked %d) | kill->declaration %.0f ms, "
                 "declaration->command done %.0f ms, declaration->an incr "
                 "done on every evicted block %.0f ms"
                 % (ctl.get("evicted", 0), ctl.get("evicted_locked", 0),
                    (t_decl - t_kill) / 1e6,
                    (times[2] - t_decl) / 1e6 if len(times) > 2 else -1,
                    resume))
        # A lost block recovered, whatever started its round: a fresh-clone
        # CI run recovered 2 with no tag miss counted (detections 0,
        # drained_blocks 2), and the survivors finished.
        ok &= (ctl.get("evicted", 0) >= 1
               and tot.get("blocks_recovered", 0) >= 1)
    print(line)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
