#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
Per-block serialisation with several workers (called by scripts/test-multicore.sh).

  test_multicore.py --swswitch BIN --dir TMPDIR

1. The shard function: the Python copy of swswitch/shard.h in
   swswitch/bench/gen_traffic.py must give the golden values
   swswitch/test_shard.c pins (so this test, the benchmark's traffic and the
   switch agree).
2. Traffic: node 0 (port 0) and node 1 (port 1) each run lock scripts on 150
   switch-owned blocks of which they are home, plus plain misses on 20 blocks
   the switch does not own. A block's frames come from one port, 150+ frames
   apart, so what each block's frames must produce does not depend on how the
   two ports or the rx/ring bursts interleave; it depends only on every frame
   of the block reaching ONE pipeline IN ORDER. One script cycle per block:
     a WRITE_MISS (Unshared: to home, write lock)
     b READ_MISS          -> NACK (lock busy)       [before a's unlock]
     a WRITE_UNLOCK M,{n} -> UNLOCK_ACK
     b WRITE_MISS         -> NACK (check failed: n already holds it)
     c EVICT_MODIFIED     -> returned to c (write lock)
     c WRITE_UNLOCK U,{}  -> UNLOCK_ACK
   Out of order, b's READ_MISS would be forwarded (no lock yet) or the evict
   NACKed; in a pipeline that never saw the ADD, every frame would be a tag
   miss forwarded to the home with IN_SWITCH clear.
3. Runs swswitch with --workers 2 (-l 0-1; port 0 is polled by worker 0,
   port 1 by worker 1, so both workers hand frames to the other's ring),
   with --workers 2 and each port's frames split over 2 rx queues by the
   owner of their tag (what swswitch's NIC steering rules do; nothing may
   cross a ring, which also checks that the Python shard function and the
   switch's agree), and with --workers 1, each port writing one tx pcap per
   worker (tx queue = worker), and checks:
   - every block's output sequence (type, seq, flags) on its port equals the
     model, in both runs;
   - with 2 workers every output of a block left by the tx queue of the worker
     shard(tag) names, and both workers received frames through their ring;
   - the exit counters: NACKs, UNLOCK_ACKs, passes, no ring drops.
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "swswitch", "bench"))
import gen_traffic as g  # noqa: E402

# (tag, steering key, owner of 2, 3, 4, 7 workers): swswitch/test_shard.c
GOLDEN = [(0x0, 0, 0, 0, 0, 0), (0x1, 39, 1, 1, 2, 4), (0x3, 54, 1, 2, 3, 5),
          (0x10, 56, 1, 2, 3, 6), (0x1234, 2, 0, 0, 0, 0),
          (0x1000000000, 61, 1, 2, 3, 6), (0x1000000005, 2, 0, 0, 0, 0),
          (0x100000000, 31, 0, 1, 1, 3), (0xffffffffffffffff, 24, 0, 1, 1, 2),
          (0x8000000000000123, 22, 0, 1, 1, 2)]
OWNED, MISSES, CYCLES = 150, 20, 4
SHIFT = 12
T = g.T


shard = g.shard


def topo(path):
    t = {"lcf_port": 7340, "block_size": 4096, "threads_per_node": 512,
         "switch": {"mac": "02:00:00:00:00:fe", "ip": "10.0.0.254",
                    "profile": "tofino", "ways": 4, "slots_per_way": 4096},
         "nodes": [{"id": i, "mac": "02:00:00:00:00:%02x" % (i + 1),
                    "ip": "10.0.0.%d" % (i + 1), "port": i} for i in range(3)],
         "shadow": 2}
    with open(path, "w") as f:
        json.dump(t, f)
    return t


def build(t):
    """Frames per port and the expected output per block (on its home port)."""
    nodes = {n["id"]: n for n in t["nodes"]}
    sw = t["switch"]
    frames, expect = {0: [], 1: []}, {}
    for h in (0, 1):
        src = nodes[h]
        owned = [h << (48 - SHIFT) | (0x100 + i) for i in range(OWNED)]
        misses = [h << (48 - SHIFT) | (0x800 + i) for i in range(MISSES)]
        other = nodes[1 - h]
        seq = {}

        def nxt(th):
            seq[th] = seq.get(th, 0) + 1
            return seq[th]
        # Round 0: the ADDs.
        for tag in owned:
            frames[h].append(g.frame(src, sw, T["ADD_TO_SWITCH"], h, 0, 1, tag))
            expect[tag] = [("MIGRATE_ACK", 1, 0x01)]
        for cyc in range(CYCLES):
            for step in range(6):
                for i, tag in enumerate(owned):
                    a, b, c = 3 * i + 1, 3 * i + 2, 3 * i + 3
                    if step == 0:
                        s = nxt(a)
                        fr = g.frame(src, src, T["WRITE_MISS"], h, a, s, tag)
                        out = ("WRITE_MISS", s, 0x01)
                    elif step == 1:
                        s = nxt(b)
                        fr = g.frame(src, src, T["READ_MISS"], h, b, s, tag)
                        out = ("NACK", s, 0x05)
                    elif step == 2:
                        s = seq[a]
                        fr = g.frame(src, sw, T["WRITE_UNLOCK"], h, a, s, tag,
                                     gstatus=g.M, copyset=1 << h)
                        out = ("UNLOCK_ACK", s, 0x01)
                    elif step == 3:
                        s = nxt(b)
                        fr = g.frame(src, src, T["WRITE_MISS"], h, b, s, tag)
                        out = ("NACK", s, 0x05)
                    elif step == 4:
                        s = nxt(c)
                        fr = g.frame(src, src, T["EVICT_MODIFIED"], h, c, s, tag)
                        out = ("EVICT_MODIFIED", s, 0x01)
                    else:
                        s = seq[c]
                        fr = g.frame(src, sw, T["WRITE_UNLOCK"], h, c, s, tag,
                                     gstatus=g.U, copyset=0)
                        out = ("UNLOCK_ACK", s, 0x01)
                    frames[h].append(fr)
                    expect[tag].append(out)
                # Misses on blocks the switch does not own: forwarded to
                # their home (the other node) in order.
                for i, tag in enumerate(misses):
                    th = 480 + i
                    s = nxt(th)
                    tag_o = (1 - h) << (48 - SHIFT) | (tag & 0xfffff)
                    frames[h].append(g.frame(src, other, T["READ_MISS"], h, th,
                                             s, tag_o))
                    expect.setdefault(tag_o, []).append(("READ_MISS", s, 0x00))
    return frames, expect


def run(args, t, frames, workers, tag, steered=False):
    """steered: each port's frames on rx queue shard(tag) (one rx_pcap per
    worker), as the NIC rules deliver them; else all on one queue."""
    d = os.path.join(args.dir, tag)
    os.makedirs(d, exist_ok=True)
    vdevs = []
    for p in range(3):
        parts = ["net_pcap%d" % p]
        if p in frames:
            queues = [frames[p]]
            if steered:
                queues = [[fr for fr in frames[p]
                           if shard(g.decode(fr)["tag"], workers) == q]
                          for q in range(workers)]
            for q, fr in enumerate(queues):
                path = os.path.join(d, "in%d_q%d.pcap" % (p, q))
                g.write_pcap(path, fr)
                parts.append("rx_pcap=" + path)
        for w in range(workers):
            parts.append("tx_pcap=" + os.path.join(d, "out%d_w%d.pcap" % (p, w)))
        vdevs += ["--vdev", ",".join(parts)]
    tp = os.path.join(d, "topo.json")
    with open(tp, "w") as f:
        json.dump(t, f)
    cmd = [args.swswitch, "--no-huge", "-m", "512", "--no-pci",
           "-l", "0-%d" % (workers - 1) if workers > 1 else "0",
           "--file-prefix", "swmc%d_%s" % (os.getpid(), tag),
           "--log-level", "swswitch,notice"] + vdevs + [
           "--", "--topo", tp, "--idle-exit", "1500", "--workers", str(workers)]
    cmd += os.environ.get("SWSWITCH_TEST_ARGS", "").split()  # scripts/test.sh
    with open(os.path.join(d, "stderr"), "w") as err:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=err, timeout=40)
    if p.returncode != 0:
        print("swswitch failed (%d): %s\n  see %s/stderr" %
              (p.returncode, " ".join(cmd), d))
        return None, None
    stats = json.loads(p.stdout)
    outs = {}
    for port in range(3):
        for w in range(workers):
            for fr in g.read_pcap(os.path.join(d, "out%d_w%d.pcap" % (port, w))):
                h = g.decode(fr)
                if h is not None:
                    outs.setdefault(h["tag"], []).append((port, w, h))
    return stats, outs


def check(name, stats, outs, expect, workers, fails, steered=False):
    def fail(msg):
        fails.append("%s: %s" % (name, msg))
    names = {v: k for k, v in T.items()}
    for tag, exp in expect.items():
        home = tag >> (48 - SHIFT)
        got = [(names.get(h["type"], h["type"]), h["seq"], h["flags"])
               for port, w, h in outs.get(tag, []) if port == home]
        if got != exp:
            k = next((i for i, (x, y) in enumerate(zip(got, exp)) if x != y),
                     min(len(got), len(exp)))
            fail("tag %#x: output %d is %s, expected %s (%d vs %d outputs)" %
                 (tag, k, got[k] if k < len(got) else None,
                  exp[k] if k < len(exp) else None, len(got), len(exp)))
            continue
        ws = {w for port, w, h in outs.get(tag, [])}
        if ws != {shard(tag, workers)}:
            fail("tag %#x: outputs left by tx queue(s) %s, owner is worker %d" %
                 (tag, sorted(ws), shard(tag, workers)))
    n_owned = 2 * OWNED
    want = {"nack_lock_busy": n_owned * CYCLES,
            "nack_check_failed": n_owned * CYCLES,
            "unlock_executed": 2 * n_owned * CYCLES,
            "add_to_switch_ok": n_owned,
            "tag_miss_to_home": 2 * MISSES * 6 * CYCLES,
            "unlock_duplicate_ignored": 0, "drop": 0}
    for k, v in want.items():
        if stats["actions"].get(k) != v:
            fail("actions.%s = %s, expected %d" % (k, stats["actions"].get(k), v))
    d = stats.get("dispatch", {})
    if d.get("ring_full", 0) != 0:
        fail("dispatch.ring_full = %d" % d["ring_full"])
    if workers > 1 and steered:
        # Every frame arrived at its owner: nothing may cross.
        if d.get("sent", -1) != 0:
            fail("steered: dispatch.sent = %s, expected 0" % d.get("sent"))
        for w in range(workers):
            if stats.get("worker%d" % w, {}).get("passes", 0) == 0:
                fail("steered: worker%d ran no pipeline pass" % w)
    elif workers > 1:
        for w in range(workers):
            r = stats.get("worker%d" % w, {}).get("from_ring", 0)
            if r == 0:
                fail("worker%d received nothing through its ring" % w)
    print("%s: %d blocks checked, passes %d, dispatch %s" %
          (name, len(expect), stats["pipeline"]["passes"], json.dumps(d)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--swswitch", required=True)
    ap.add_argument("--dir", required=True)
    args = ap.parse_args()
    fails = []
    for tag, key, w2, w3, w4, w7 in GOLDEN:
        if (g.steer_key(tag), shard(tag, 1), shard(tag, 2), shard(tag, 3),
                shard(tag, 4), shard(tag, 7)) != (key, 0, w2, w3, w4, w7):
            fails.append("shard(%#x) differs from swswitch/test_shard.c" % tag)
    t = topo(os.path.join(args.dir, "topo.json"))
    frames, expect = build(t)
    split = sum(shard(tag, 2) for tag in expect)
    print("%d frames on port 0, %d on port 1; %d of %d blocks owned by worker 1" %
          (len(frames[0]), len(frames[1]), split, len(expect)))
    for workers, steered in ((2, False), (2, True), (1, False)):
        name = "w%d%s" % (workers, "_steered" if steered else "")
        stats, outs = run(args, t, frames, workers, name, steered)
        if stats is None:
            fails.append("%s: swswitch failed" % name)
            continue
        check(name, stats, outs, expect, workers, fails, steered)
    for f in fails[:20]:
        print("FAIL " + f)
    print("test-multicore: %s" % ("FAILED (%d)" % len(fails) if fails else "PASS"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
