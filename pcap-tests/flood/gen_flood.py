#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
gen_flood.py: random and mutated frames for the robustness flood.

Writes, into OUT/:
  port<N>.pcap     the frames entering port N: first (port 0 only) a short
                   prefix of VALID coherence frames that build some state
                   (ADD_TO_SWITCH, a read lock, a write lock, an unlock), then
                   the flood
  prefix_port<N>.pcap  the same valid prefix alone (the baseline run)
  expect.json      how many flood frames are LCF-port frames, and the drop
                   reason docs/PROTOCOL.md section 3 gives each of them

Each LCF flood frame starts as a random valid frame (random pipeline type,
node matching its port, thread, seq, tag homed at a node, gstatus, flags,
payload) and gets one to three random mutations: truncation, IPv4 version /
IHL / total length / fragment bits, UDP length, LCF version, type, len,
reserved flags, gstatus, node out of range / not in the topology / on the
wrong port (spoof), thread, tag home. Its expected reason is computed by
validate() below, an independent transcription of PROTOCOL.md section 3; a
mutated frame that is still valid is mutated again, so every LCF flood frame
must be dropped. Forms whose classification PROTOCOL.md leaves open are not
generated (node-to-node types 0x20-0x7f with other faults; IPv4 total
lengths between the header and header + 8; IHL other than 5 except < 5 with
an address that puts port 7340 at both candidate UDP offsets).

A share of the frames is non-LCF junk (random ethertypes, ARP-sized noise,
IPv4 TCP/ICMP, UDP to other ports, runts): the L2 switch forwards those, and
they must not be counted as drops.

usage: gen_flood.py [--frames N] [--seed S] [--junk-ratio R] OUT
"""

import argparse
import json
import os
import random
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import lcfvec  # noqa: E402

TOPO = os.path.join(lcfvec.ROOT, "topo", "pcap3.json")
LCF_PORT = 7340
THREADS = 16



def validate(fr, port, topo):
    """docs/PROTOCOL.md section 3, frame level, in its order. Returns None for
    a frame that is not for the pipeline's validator (not IPv4/UDP to
    lcf_port, or a well-formed node-to-node type), "valid" for a valid
    pipeline frame, else the drop reason."""
    n = len(fr)
    if n < 42 or fr[12:14] != b"\x08\x00":
        return None
    vihl = fr[14]
    ihl = (vihl & 0xf) * 4
    udp_off = 14 + ihl
    # No UDP port can be read: ordinary traffic for the L2 switch.
    if (vihl >> 4) != 4 or ihl < 20 or n < udp_off + 8 or fr[23] != 17:
        return None
    if struct.unpack_from("!H", fr, udp_off + 2)[0] != LCF_PORT:
        return None
    total, frag = struct.unpack_from("!H", fr, 16)[0], struct.unpack_from("!H", fr, 20)[0]
    if total < ihl + 8 or total > n - 14 or (frag & 0x3fff):
        return "bad_ipv4_header"
    udp_len = struct.unpack_from("!H", fr, udp_off + 4)[0]
    if udp_len < 8 or udp_len > total - ihl:
        return "bad_udp_length"
    if udp_len < 40:
        return "short_frame"
    (ver, ty, flags, gs, node, thread, seq, cs, tag, dst, ln, aux) = \
        lcfvec.LCF_HDR.unpack_from(fr, udp_off + 8)
    if ver != 1:
        return "bad_version"
    if not (1 <= ty <= 0x0d or 0x20 <= ty <= 0x7f):
        return "unknown_type"
    if ln != udp_len - 40:
        return "bad_payload_length"
    if flags & 0xf8:
        return "reserved_flags_set"
    if gs > 2:
        return "bad_gstatus"
    if node >= 32:
        return "node_id_out_of_range"
    if 0x20 <= ty <= 0x7f:
        return None
    if node not in topo.nodes:
        return "node_id_not_in_topology"
    if topo.nodes[node]["port"] != port:
        return "node_id_does_not_match_ingress_port"
    if thread >= THREADS:
        return "thread_id_out_of_range"
    if topo.tag_home(tag) not in topo.nodes:
        return "tag_home_node_not_in_topology"
    return "valid"


class Gen:
    def __init__(self, topo, rnd):
        self.t = topo
        self.r = rnd
        self.mac = {i: lcfvec.mac_bytes(n["mac"]) for i, n in topo.nodes.items()}
        self.ip = {i: lcfvec.ip_bytes(n["ip"]) for i, n in topo.nodes.items()}
        self.sw_mac = lcfvec.mac_bytes(topo.switch["mac"])
        self.sw_ip = lcfvec.ip_bytes(topo.switch["ip"])
        self.shift = 48 - topo.block_shift
        self.nodes = sorted(topo.nodes)

    def lcf_fields(self, port):
        r = self.r
        node = self.t.port_node[port]
        home = r.choice(self.nodes)
        return [1, r.randint(1, 0x0b), r.randint(0, 7), r.randint(0, 2), node,
                r.randrange(THREADS), r.getrandbits(32), r.getrandbits(3),
                (home << self.shift) | r.getrandbits(20), r.choice((0xffff, home)),
                0, r.getrandbits(32)]

    def frame(self, f, payload, ipo=None, udp_len=None):
        """Ethernet/IPv4/UDP/LCF with optional IP header fields overridden."""
        node = f[4] if f[4] in self.mac else 0
        dst = self.r.choice(self.nodes)
        hdr = lcfvec.LCF_HDR.pack(*f)
        udp_l = 8 + 32 + len(payload) if udp_len is None else udp_len
        udp = struct.pack("!HHHH", LCF_PORT, LCF_PORT, udp_l & 0xffff, 0) + hdr + payload
        ipo = ipo or {}
        ver = ipo.get("version", 4)
        ihl = ipo.get("ihl", 5)
        total = ipo.get("total", 20 + len(udp))
        frag = ipo.get("frag", self.r.choice((0, 0x4000)))
        dip = ipo.get("dst", self.ip[dst])
        ip = struct.pack("!BBHHHBBH4s4s", (ver << 4) | ihl, 0, total & 0xffff,
                         self.r.getrandbits(16), frag, 64, 17, 0, self.ip[node], dip)
        ip = ip[:10] + struct.pack("!H", lcfvec.ipv4_cksum(ip)) + ip[12:]
        return self.mac[dst] + self.mac[node] + b"\x08\x00" + ip + udp

    def mutated(self, port):
        r = self.r
        f = self.lcf_fields(port)
        plen = r.choice((0, 0, 0, 8, 64, 200))
        payload = bytes(r.getrandbits(8) for _ in range(plen)) if plen else b""
        f[10] = plen
        ipo = {}
        udp_len = None
        trunc = None
        muts = r.sample(MUTATIONS, r.randint(1, 3))
        for m in muts:
            if m == "truncate":
                trunc = r.randint(42, 73)
            elif m == "ip_version":
                ipo["version"] = r.choice([v for v in range(16) if v != 4])
            elif m == "ip_ihl":
                ipo["ihl"] = r.randint(0, 4)
                # port 7340 at offset 32 too (inside the destination address)
                ipo["dst"] = bytes((10, 0, 0x1c, 0xac))
            elif m == "ip_total_big":
                ipo["total"] = r.randint(20 + 40 + plen + 1, 0xffff)
            elif m == "ip_total_small":
                ipo["total"] = r.randint(0, 19)
            elif m == "ip_frag":
                ipo["frag"] = r.choice((0x2000, 0x6000)) | (r.getrandbits(13) if r.random() < 0.5 else 0)
            elif m == "udp_len_small":
                udp_len = r.randint(0, 39)
            elif m == "udp_len_big":
                udp_len = r.randint(40 + plen + 1, 0xffff)
            elif m == "version":
                f[0] = r.choice([v for v in range(256) if v != 1])
            elif m == "type":
                f[1] = r.choice(BAD_TYPES)
            elif m == "len":
                f[10] = r.choice([x for x in (0, 1, 7, 8, 63, 64, 65, 199, 200, 201, 0xffff) if x != plen])
            elif m == "flags":
                f[2] = (r.getrandbits(5) << 3 | r.getrandbits(3)) | (1 << r.randint(3, 7))
            elif m == "gstatus":
                f[3] = r.randint(3, 255)
            elif m == "node_range":
                f[4] = r.randint(32, 0xffff)
            elif m == "node_unknown":
                f[4] = r.choice([n for n in range(32) if n not in self.t.nodes])
            elif m == "spoof":
                f[4] = r.choice([n for n in self.nodes if self.t.nodes[n]["port"] != port])
            elif m == "thread":
                f[5] = r.randint(THREADS, 0xffff)
            elif m == "tag_home":
                home = r.choice([h for h in (3, 4, 31, 32, 255, 0xffff) if h not in self.t.nodes])
                f[8] = (home << self.shift) | r.getrandbits(20)
        fr = self.frame(f, payload, ipo, udp_len)
        if trunc is not None:
            fr = fr[:trunc]
        return fr

    def junk(self, port):
        """Frames that are not IPv4/UDP to the LCF port."""
        r = self.r
        node = self.t.port_node[port]
        kind = r.randint(0, 4)
        dst = r.choice((b"\xff" * 6, self.mac[r.choice(self.nodes)],
                        bytes([0x02, 0x55]) + r.getrandbits(32).to_bytes(4, "big")))
        src = self.mac[node] if r.random() < 0.7 else \
            bytes([0x02, 0x66]) + r.getrandbits(32).to_bytes(4, "big")
        if kind == 0:      # random ethertype, random body
            et = r.choice((0x0806, 0x86dd, 0x88cc, 0x8100, r.getrandbits(16) | 0x0600))
            if et == 0x0800:
                et = 0x0801
            body = bytes(r.getrandbits(8) for _ in range(r.randint(0, 100)))
            return dst + src + struct.pack("!H", et) + body
        if kind == 1:      # runt
            return bytes(r.getrandbits(8) for _ in range(r.randint(0, 13)))
        if kind == 2:      # IPv4 not UDP
            f = self.lcf_fields(port)
            fr = bytearray(self.frame(f, b""))
            fr[23] = r.choice((1, 6, 47, 132))
            return bytes(fr)
        if kind == 3:      # UDP to another port (sometimes from 7340)
            f = self.lcf_fields(port)
            fr = bytearray(self.frame(f, b""))
            dport = r.choice((53, 9999, 7341, 7339, r.getrandbits(16)))
            if dport == LCF_PORT:
                dport = 7341
            fr[36:38] = struct.pack("!H", dport)
            return bytes(fr)
        # IPv4 shorter than its UDP header could be (not classifiable)
        f = self.lcf_fields(port)
        return self.frame(f, b"")[:r.randint(14, 41)]


MUTATIONS = ["truncate", "ip_version", "ip_ihl", "ip_total_big", "ip_total_small",
             "ip_frag", "udp_len_small", "udp_len_big", "version", "type", "len",
             "flags", "gstatus", "node_range", "node_unknown", "spoof", "thread",
             "tag_home"]
BAD_TYPES = [t for t in range(256) if not (1 <= t <= 0x0d or 0x20 <= t <= 0x7f)]


def valid_prefix(topo):
    """Valid coherence frames, all on port 0 (node 0), that leave state in
    every register array: blocks in TAG/GSTATUS/COPYSET, a read lock and a
    write lock with their SCOREBOARD entries, and LAST-UNLOCK."""
    shift = 48 - topo.block_shift
    frames = []

    def fr(ty, seq, tag, gs=0, cs=0, thread=0):
        return lcfvec.build_lcf_input({"lcf": {"type": ty, "node": 0, "thread": thread,
                                               "seq": seq, "tag": tag, "gstatus": gs,
                                               "copyset": cs}}, topo)
    tags = [(h << shift) | (0x100 + i) for i, h in enumerate((0, 0, 1, 1, 2, 2))]
    for i, t in enumerate(tags):
        frames.append(fr("ADD_TO_SWITCH", i + 1, t, 1, 0b110))
    # swswitch gives resubmitted packets (the ADDs' second pass) their turn
    # after the rx burst (32 frames), so pad the first burst with ARP (L2
    # traffic) and send the lock requests in the next one, where the blocks
    # are installed.
    arp = lcfvec.build_arp({"arp": {"op": "request", "from": 0, "target_ip": "node:1"}}, topo)
    frames += [arp] * (32 - len(frames))
    return frames, [fr("READ_MISS", 1, tags[0], thread=1),
                    fr("WRITE_MISS", 1, tags[2], thread=2),
                    fr("WRITE_UNLOCK", 9, tags[4], 2, 0b001, thread=3)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=200000)
    ap.add_argument("--seed", type=int, default=7340)
    ap.add_argument("--junk-ratio", type=float, default=0.1)
    ap.add_argument("out")
    a = ap.parse_args()
    topo = lcfvec.Topo(TOPO)
    rnd = random.Random(a.seed)
    g = Gen(topo, rnd)
    os.makedirs(a.out, exist_ok=True)
    reasons = {}
    n_lcf = n_junk = 0
    per_port = {p: [] for p in range(topo.n_ports)}
    for i in range(a.frames):
        port = rnd.randrange(topo.n_ports)
        if rnd.random() < a.junk_ratio:
            fr = g.junk(port)
            if validate(fr, port, topo) is not None:
                continue          # astronomically rare: junk that is LCF-shaped
            n_junk += 1
        else:
            for _ in range(20):
                fr = g.mutated(port)
                why = validate(fr, port, topo)
                if why not in (None, "valid"):
                    break
            else:
                continue
            reasons[why] = reasons.get(why, 0) + 1
            n_lcf += 1
        per_port[port].append(fr)
    adds, locks = valid_prefix(topo)
    for p in range(topo.n_ports):
        prefix = (adds + locks) if p == 0 else []
        lcfvec.write_pcap(os.path.join(a.out, "prefix_port%d.pcap" % p), prefix)
        lcfvec.write_pcap(os.path.join(a.out, "port%d.pcap" % p), prefix + per_port[p])
    with open(os.path.join(a.out, "expect.json"), "w") as f:
        json.dump({"topology": "pcap3.json", "seed": a.seed, "frames": n_lcf + n_junk,
                   "lcf_frames": n_lcf, "junk_frames": n_junk,
                   "valid_prefix_frames": len(adds) + len(locks),
                   "drops": dict(sorted(reasons.items()))}, f, indent=1)
    print("gen_flood: %d frames (%d LCF-port, all invalid; %d junk) + %d valid -> %s" % (
        n_lcf + n_junk, n_lcf, n_junk, len(adds) + len(locks), a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
