#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
gen_traffic.py: coherence traffic for the switch benchmark (scripts/bench-switch.sh).

Writes one pcap per (switch port, rx queue): OUT/p<port>_q<queue>.pcap, to be
replayed in a loop by net_pcap (infinite_rx=1), plus OUT/meta.json.

What the traffic is, and why:
- Frames are Ethernet/IPv4/UDP/LCF (docs/PROTOCOL.md), 74 bytes plus
  --payload bytes (64-128 byte frames with the default 0..54), from each
  node's MAC/IP on that node's switch port (the switch drops a node id that
  does not match the ingress port).
- Blocks: --blocks tags, home node = block % nodes; --owned percent of them
  are owned by the switch: their home sends ADD_TO_SWITCH first.
- Events: a requester (node, thread) picks a tag (uniform or Zipf(--zipf))
  and acts as an honest cache would, from a model of each block's state: a
  holder evicts (EVICT_SHARED / EVICT_MODIFIED) with --evict percent, or a
  Shared holder upgrades (WRITE_SHARED); a non-holder misses (READ_MISS with
  --read percent, else WRITE_MISS). Each request is followed by its unlock
  (READ_UNLOCK / WRITE_UNLOCK carrying the new state) with the same seq, so
  locks are always released. A requester's next event goes at least 32
  frames (a burst) after its last unlock on the same queue, as a real
  requester sends an unlock only after the previous one's ACK; this takes
  16 requesters per queue (--threads 32 with 2 flow-steered queues), and
  every file starts with 32 frames of no requester (ADDs, else ARPs) so
  the rule holds across the loop too. At the end every holder evicts, so each block
  is back to Unshared when the file loops.
- Sequence numbers: requester r's k-th event has seq 1 + k*d mod 2^32 with
  d odd and about 2^32/K (K = r's events). Serial-number arithmetic (RFC 1982)
  then sees every seq, including the jump back when the file loops, as newer
  than the last one, so unlocks keep executing forever; d odd keeps the
  odd/even scoreboard alternating.
- Queues (--steer): "flow" (5-tuple RSS): requester thread t's frames go
  to queue t % --queues of its node's port, as RSS would keep one flow on
  one queue, and ADDs to queue 0; the UDP source port is lcf_port. "tag"
  (what swswitch's NIC rules do with senders that follow docs/PROTOCOL.md
  1.1): every frame carries its tag's steering key in the UDP source port
  and goes to the queue of the worker that owns the tag, shard(tag, queues).
On every loop the ADDs come again and the switch answers them as duplicates
(MIGRATE_ACK); meta.json says what fraction of frames they are.

Also importable: frame() and write_pcap() are used by scripts/test_multicore.py.
"""

import argparse
import bisect
import json
import os
import random
import struct
import sys

LCF_PORT = 7340
T = {"READ_MISS": 1, "WRITE_MISS": 2, "WRITE_SHARED": 3, "EVICT_SHARED": 4,
     "EVICT_MODIFIED": 5, "READ_UNLOCK": 6, "WRITE_UNLOCK": 7,
     "ADD_TO_SWITCH": 8, "REMOVE_FROM_SWITCH": 9,
     "NACK": 0x10, "UNLOCK_ACK": 0x11, "MIGRATE_ACK": 0x12}
U, S, M = 0, 1, 2
LCF_HDR = struct.Struct(">BBBBHHIIQHHI")
STEER_MULT, STEER_KEYS = 0x9e3779b97f4a7c15, 64
GAP = 32        # frames between a requester's unlocks on one queue (a burst)


def steer_key(tag):
    """lcf_steer_key() of lib/wire/lcf_steer.h."""
    return ((tag * STEER_MULT) & 0xffffffffffffffff) >> 58


def shard(tag, n):
    """sw_shard_of() of swswitch/shard.h: the worker owning tag of n."""
    return steer_key(tag) * n // STEER_KEYS


def steer_sport(tag, lcf_port=LCF_PORT):
    """The UDP source port that carries tag's steering key."""
    return lcf_port + 1 + steer_key(tag)


def mac_b(s):
    return bytes(int(x, 16) for x in s.split(":"))


def ip_b(s):
    return bytes(int(x) for x in s.split("."))


def cksum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff


def frame(src, dst, mtype, node, thread, seq, tag, gstatus=0, copyset=0,
          flags=0, payload=0, lcf_port=LCF_PORT, sport=None):
    """An LCF frame from address dict `src` ({"mac","ip"}) to `dst`, from
    UDP port `sport` (default lcf_port)."""
    lcf = LCF_HDR.pack(1, mtype, flags, gstatus, node, thread, seq & 0xffffffff,
                       copyset, tag, 0xffff, payload, 0) + bytes(payload)
    udp = struct.pack("!HHHH", lcf_port if sport is None else sport, lcf_port,
                      8 + len(lcf), 0) + lcf
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0,
                     ip_b(src["ip"]), ip_b(dst["ip"]))
    ip = ip[:10] + struct.pack("!H", cksum(ip)) + ip[12:]
    return mac_b(dst["mac"]) + mac_b(src["mac"]) + b"\x08\x00" + ip + udp


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 1700000000 + i // 1000000,
                                i % 1000000, len(fr), len(fr)))
            f.write(fr)


def read_pcap(path):
    out = []
    with open(path, "rb") as f:
        f.read(24)
        while True:
            h = f.read(16)
            if len(h) < 16:
                return out
            n = struct.unpack("<IIII", h)[2]
            out.append(f.read(n))


def decode(fr):
    """The LCF header of a frame as a dict, or None."""
    if len(fr) < 74 or fr[12:14] != b"\x08\x00" or fr[23] != 17:
        return None
    ihl = (fr[14] & 0xf) * 4
    off = 14 + ihl + 8
    if struct.unpack("!H", fr[14 + ihl + 2:14 + ihl + 4])[0] != LCF_PORT:
        return None
    names = ("version", "type", "flags", "gstatus", "node", "thread", "seq",
             "copyset", "tag", "dst_node", "len", "aux")
    return dict(zip(names, LCF_HDR.unpack(fr[off:off + 32])))


def load_topo(path):
    with open(path) as f:
        t = json.load(f)
    nodes = {n["id"]: n for n in t["nodes"]}
    shift = (t.get("block_size", 4096)).bit_length() - 1
    return t, nodes, shift


def tag_of(home, idx, shift):
    return home << (48 - shift) | idx


class Zipf:
    def __init__(self, n, s, rng):
        self.rng = rng
        acc, self.cdf = 0.0, []
        for i in range(n):
            acc += 1.0 / (i + 1) ** s
            self.cdf.append(acc)

    def __call__(self):
        return bisect.bisect_left(self.cdf, self.rng.random() * self.cdf[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--topo", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--queues", type=int, default=1)
    ap.add_argument("--steer", choices=("flow", "tag"), default="flow",
                    help="which queue a frame goes to (see above)")
    ap.add_argument("--blocks", type=int, default=16384)
    ap.add_argument("--owned", type=int, default=50, help="percent")
    ap.add_argument("--zipf", type=float, default=0.99, help="0 = uniform")
    ap.add_argument("--read", type=int, default=50, help="percent of misses")
    ap.add_argument("--evict", type=int, default=30, help="percent of holder events")
    ap.add_argument("--events", type=int, default=60000)
    ap.add_argument("--threads", type=int, default=16)
    ap.add_argument("--payload", type=int, default=0, help="bytes, 0..54")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()

    rng = random.Random(a.seed)
    t, nodes, shift = load_topo(a.topo)
    sw = t["switch"]
    # The shadow node is a node like the others (it also gets the mirrors).
    req_nodes = sorted(nodes)
    homes = sorted(nodes)
    tags = [tag_of(homes[b % len(homes)], b // len(homes) + 1, shift)
            for b in range(a.blocks)]
    owned = [rng.randrange(100) < a.owned for _ in range(a.blocks)]
    pick = Zipf(a.blocks, a.zipf, rng) if a.zipf > 0 else (
        lambda: rng.randrange(a.blocks))

    # state per block: [gstatus, copyset]
    st = [[U, 0] for _ in range(a.blocks)]
    files = {}         # (port, queue) -> [frames]
    counts = {}
    events = {}        # requester -> list of (block, req_type, unlock_type, gs, cs)
    glob = []          # (requester, index): the order the model applied them

    def holders(b):
        return [n for n in nodes if st[b][1] >> n & 1]

    def event(node, thread, b, forced=None):
        gs, cs = st[b]
        bit = 1 << node
        if forced is not None:
            kind = forced
        elif cs & bit:
            if gs == M or rng.randrange(100) < a.evict:
                kind = "EVICT_MODIFIED" if gs == M else "EVICT_SHARED"
            else:
                kind = "WRITE_SHARED"
        else:
            kind = "READ_MISS" if rng.randrange(100) < a.read else "WRITE_MISS"
        if kind == "READ_MISS":
            new = (S, cs | bit) if gs != U or cs else (S, bit)
            unl = "READ_UNLOCK"
            ucs = bit
        elif kind in ("WRITE_MISS", "WRITE_SHARED"):
            new = (M, bit)
            unl, ucs = "WRITE_UNLOCK", bit
        else:
            rest = cs & ~bit
            new = (S if rest else U, rest)
            unl, ucs = "WRITE_UNLOCK", rest
        st[b][0], st[b][1] = new
        evs = events.setdefault((node, thread), [])
        glob.append(((node, thread), len(evs)))
        evs.append((b, kind, unl, new[0], ucs))

    lport = t.get("lcf_port", LCF_PORT)

    def steer(thread, tag):
        """(queue, frame() port arguments) of a frame of `thread` on `tag`."""
        if a.steer == "tag":
            return shard(tag, a.queues), {"lcf_port": lport,
                                          "sport": steer_sport(tag, lport)}
        return thread % a.queues, {"lcf_port": lport}

    # A requester sends an unlock only after the previous one's ACK
    # (docs/PROTOCOL.md 5.2), so its two unlocks never meet in one burst,
    # where both first passes would run before either second pass. A replay
    # cannot wait for ACKs: a requester's next event goes at least GAP
    # frames after its last unlock on the same queue (a burst is 32 frames).
    pos = {}            # (port, queue) -> frames modelled so far
    last = {}           # (requester, port, queue) -> position of its unlock

    def eligible(node, thread, b):
        k = (nodes[node]["port"], steer(thread, tags[b])[0])
        # the new event's unlock would be at pos + 1
        return pos.get(k, 0) + 1 - last.get((node, thread) + k, -GAP) >= GAP

    def place(node, thread, b):
        k = (nodes[node]["port"], steer(thread, tags[b])[0])
        pos[k] = pos.get(k, 0) + 2
        last[(node, thread) + k] = pos[k] - 1

    def any_thread(node, b):
        ts = [th for th in range(a.threads) if eligible(node, th, b)]
        return rng.choice(ts) if ts else None

    for _ in range(a.events):
        b = pick()
        for node in rng.sample(req_nodes, len(req_nodes)):
            th = any_thread(node, b)
            if th is not None:
                break
        else:
            sys.exit("gen_traffic: no requester may start an event: raise "
                     "--threads (%d)" % a.threads)
        place(node, th, b)
        event(node, th, b)
    # Drain: every holder evicts, so each loop starts from Unshared.
    for b in range(a.blocks):
        for n in holders(b):
            th = any_thread(n, b)
            if th is None:
                sys.exit("gen_traffic: no thread of node %d may evict: raise "
                         "--threads (%d)" % (n, a.threads))
            place(n, th, b)
            event(n, th, b,
                  "EVICT_MODIFIED" if st[b][0] == M else "EVICT_SHARED")

    def put(port, q, fr, kind):
        files.setdefault((port, q), []).append(fr)
        counts[kind] = counts.get(kind, 0) + 1

    for b in range(a.blocks):
        if owned[b]:
            home = tags[b] >> (48 - shift)
            q, sp = steer(0, tags[b])
            put(nodes[home]["port"], q,
                frame(nodes[home], sw, T["ADD_TO_SWITCH"], home, 0, 1, tags[b],
                      payload=a.payload, **sp), "ADD_TO_SWITCH")
    # When a file loops, a requester's last unlock and its first one are
    # GAP frames apart at least if the file starts with GAP frames of no
    # requester: the ADDs, else broadcast ARPs (switched at L2).
    for n in nodes.values():
        arp = b"\xff" * 6 + mac_b(n["mac"]) + b"\x08\x06" + bytes(46)
        for q in range(a.queues):
            while len(files.get((n["port"], q), [])) < GAP:
                put(n["port"], q, arp, "ARP")
    # Emit in the model's order, so the switch sees the state the model saw
    # (up to the interleaving of files, which the replay decides).
    seqs = {}
    for r, evs in events.items():
        k = len(evs)
        d = (2 ** 32 // max(k, 3)) | 1
        seqs[r] = [(1 + i * d) % 2 ** 32 for i in range(k)]
    for r, i in glob:
        node, thread = r
        b, kind, unl, ngs, ucs = events[r][i]
        src = nodes[node]
        home = nodes[tags[b] >> (48 - shift)]
        q, sp = steer(thread, tags[b])
        put(src["port"], q, frame(src, home, T[kind], node, thread,
                                  seqs[r][i], tags[b], payload=a.payload, **sp),
            kind)
        put(src["port"], q, frame(src, sw, T[unl], node, thread, seqs[r][i],
                                  tags[b], gstatus=ngs, copyset=ucs,
                                  payload=a.payload, **sp), unl)

    os.makedirs(a.out, exist_ok=True)
    ports = sorted({n["port"] for n in nodes.values()})
    for p in ports:
        for q in range(a.queues):
            fr = files[(p, q)]
            write_pcap(os.path.join(a.out, "p%d_q%d.pcap" % (p, q)), fr)
    total = sum(len(v) for v in files.values())
    meta = {"frames": total, "per_file": {"p%d_q%d" % k: len(v)
                                           for k, v in sorted(files.items())},
            "types": counts, "blocks": a.blocks,
            "owned": sum(owned), "zipf": a.zipf, "read_pct": a.read,
            "evict_pct": a.evict, "queues": a.queues, "steer": a.steer,
            "requesters": len(events),
            "frame_bytes": 74 + a.payload,
            "add_fraction": round(counts.get("ADD_TO_SWITCH", 0) / total, 4)}
    with open(os.path.join(a.out, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    print(json.dumps({k: meta[k] for k in ("frames", "owned", "requesters",
                                           "add_fraction")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
