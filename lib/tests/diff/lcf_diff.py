#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
lcf_diff.py: the differential check of lib/lcf against lcf_ref.py.

Random but protocol-shaped traffic (requests, retransmissions, late and
duplicated copies, unlocks, ABORTs, VERSION_READs, ADD/REMOVE from the homes, malformed
ingress, node failures) is cut into bursts as swswitch's worker does: every
packet of a burst gets its first pass, then the burst's resubmitted packets
get their second pass in order (a few are lost or get corrupted metadata).
Each pass runs through the real library (lcf_diff_driver, over a pipe) and
through the reference; the results (verdict, action, drop reason,
destinations, mirror, provider, resubmit metadata, every header field) and
the registers of the packet's block and requester must be equal, and all
registers of every block and requester in play are compared after each
control command and every 64 bursts.

  lcf_diff.py [--driver PATH] [--topo FILE] [--events N] [--seed S] [--quiet]

Exit 0 when everything matched, 1 on the first mismatch (printed with the
seed, the event index and both sides), 2 on a usage or setup error.
"""

import argparse
import os
import random
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)
import lcf_ref as R  # noqa: E402

CMD = struct.Struct("<BBHIQ" + "BBBBHHIIQHHI")     # 48 bytes
ANS = struct.Struct("<BBBBHHIIQ" + "BBBBHHIIQHHI" + "iIIHBBI" + "iIIBBHHBxI" + "II")
assert CMD.size == 48 and ANS.size == 108
OP_PASS, OP_NODE_FAILED, OP_RESET, OP_READ = 0, 1, 2, 3


def pack(op, m, port=0, resub=False, meta=0):
    return CMD.pack(op, 1 if resub else 0, port, 0, meta, m.version, m.type, m.flags,
                    m.gstatus, m.node, m.thread, m.seq, m.copyset, m.tag,
                    m.dst_node, m.len, m.aux)


def regs_of(a):
    """(block view or None, requester view or None) from an answer tuple."""
    b = None if a[21] != 0 else (a[22], a[23], a[24], a[25], a[27], a[37], a[38])
    q = None if a[28] != 0 else (a[29], a[30], a[31], a[32], a[33], a[34], a[36],
                                 a[35])
    return b, q


class Driver:
    def __init__(self, path, topo):
        self.p = subprocess.Popen([path, topo], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE)

    def run(self, cmds):
        """cmds: packed commands, the last one a READ or NODE_FAILED (the
        driver flushes on them). Returns the unpacked answers."""
        self.p.stdin.write(b"".join(cmds))
        self.p.stdin.flush()
        raw = self.p.stdout.read(ANS.size * len(cmds))
        if len(raw) != ANS.size * len(cmds):
            raise RuntimeError("driver died (exit %s)" % self.p.poll())
        return [ANS.unpack_from(raw, i * ANS.size) for i in range(len(cmds))]

    def close(self):
        self.p.stdin.close()
        self.p.wait()


class Traffic:
    """Protocol-shaped packets with the network's and agents' mistakes."""

    def __init__(self, rng, topo):
        self.rng, self.t = rng, topo
        self.nodes = topo.nodes
        self.threads = 3
        # a few blocks on every home, so that the tiny ways collide
        self.tags = [(h << (48 - topo.shift)) | (i << topo.shift)
                     for h in self.nodes for i in range(1, 5)]
        self.seq = {}                       # (node, thread) -> current seq
        self.sent = []                      # recent packets, for late copies
        self.mig = {n: 1 for n in self.nodes}
        self.granted = []                   # forwarded requests: unlock them
        self.waiters = []                   # QWAIT: poll them (queued mode)
        self.ref = None                     # the reference, for QXFER's ids

    GRANTS = {R.A[a] for a in ("FWD_HOME", "FWD_OWNER", "FWD_PROVIDER",
                               "MCAST_INVALIDATE", "ACK_SOLE_HOLDER",
                               "RETURN_EVICT", "TAG_MISS_HOME")}

    def result(self, m, r):
        """Remember the requests that were granted, as a requester would."""
        if m.type <= R.EVICT_MODIFIED and r.verdict == R.V_EMIT and \
                r.action in self.GRANTS:
            self.granted.append(m)
            if len(self.granted) > 64:
                del self.granted[:32]
        if m.type <= R.EVICT_MODIFIED and self.t.queued:
            # the waiting writer polls until QGRANT (or its event is gone)
            key = (m.node, m.thread, m.seq, m.tag)
            self.waiters = [w for w in self.waiters
                            if (w.node, w.thread, w.seq, w.tag) != key]
            if r.action == R.A["QWAIT"]:
                self.waiters.append(m)
                del self.waiters[:-16]

    def msg(self, typ, node, thread, seq, tag, gs=0, cs=0):
        m = R.Msg(version=1, type=typ, node=node, thread=thread, seq=seq & R.M32,
                  tag=tag, gstatus=gs, copyset=cs)
        return m

    def queue_msg(self, node, thread, cur, tag, gs, cs):
        """QXFER or QRELEASE, mostly from the block's holder with its count
        (peeking at the reference, as the holder would know them)."""
        rng = self.rng
        typ = rng.choice([R.QXFER, R.QRELEASE])
        bv = self.ref.block_view(tag) if self.ref else None
        seq, count = cur, rng.randrange(3)
        if bv and bv[5] and rng.random() < 0.85:
            qh = bv[5]
            node, thread = (qh >> 26) - 1, qh >> 16 & 0x3ff
            seq = self.seq.get((node, thread), 0)
            seq = (seq & ~0xffff & R.M32) | (qh & 0xffff)
            if rng.random() < 0.8:
                count = bv[6] & 0xffff
        if typ == R.QXFER:
            n2, t2 = rng.choice(self.nodes), rng.randrange(self.threads)
            nxt = ((n2 + 1) << 26 | t2 << 16 |
                   (self.seq.get((n2, t2), 0) + rng.randrange(2)) & 0xffff)
            if rng.random() < 0.05:
                nxt = rng.choice([0, 9 << 26, (1 << 26) | (self.t.tpn << 16)])
            m = self.msg(typ, node, thread, seq, tag, 0, nxt & R.M32)
        else:
            m = self.msg(typ, node, thread, seq, tag, gs, cs)
        m.aux = count
        return m

    def next(self):
        rng = self.rng
        x = rng.random()
        node = rng.choice(self.nodes)
        thread = rng.randrange(self.threads)
        key = (node, thread)
        cur = self.seq.setdefault(key, rng.choice([0, 0, 0, 0x7ffffff0, 0xfffffff0]))
        tag = rng.choice(self.tags)
        gs = rng.randrange(3)
        cs = rng.getrandbits(3) & self.t.mask
        if self.t.queued and self.waiters and rng.random() < 0.08:
            m = rng.choice(self.waiters)      # a waiting writer's poll
            port = [p for p, n in self.t.port_node.items() if n == m.node][0]
            return m.copy(), port
        if x < 0.25 and self.sent:            # a late copy / duplicate
            m, port = rng.choice(self.sent[-64:])
            return m.copy(), port
        if x < 0.55:                          # a new event's request
            cur = (cur + 1) & R.M32
            self.seq[key] = cur
            typ = rng.randint(R.READ_MISS, R.EVICT_MODIFIED)
            if self.t.queued and rng.random() < 0.3:
                typ = R.READ_MISS             # readers, so that writers wait
            m = self.msg(typ, node, thread, cur, tag, gs, cs)
        elif x < 0.62:                        # the same request again
            m = self.msg(rng.randint(R.READ_MISS, R.EVICT_MODIFIED), node, thread,
                         cur, tag, gs, cs)
        elif x < 0.80 and self.granted and rng.random() < 0.7:
            g = self.granted.pop(rng.randrange(len(self.granted)))
            m = self.msg(R.READ_UNLOCK if g.type == R.READ_MISS else R.WRITE_UNLOCK,
                         g.node, g.thread, g.seq, g.tag, gs, cs)
            node = g.node
        elif x < 0.80:                        # an unlock, usually of cur
            s = cur if rng.random() < 0.8 else (cur - rng.randrange(3)) & R.M32
            m = self.msg(rng.choice([R.READ_UNLOCK, R.WRITE_UNLOCK]), node, thread,
                         s, tag, gs, cs)
        elif x < 0.83 and (self.t.queued or rng.random() < 0.2):
            # QXFER / QRELEASE (in retry mode: always denied)
            m = self.queue_msg(node, thread, cur, tag, gs, cs)
            node = m.node
        elif x < 0.86 and self.waiters and rng.random() < 0.3:
            w = rng.choice(self.waiters)      # a waiting writer gives up
            m = self.msg(R.ABORT, w.node, w.thread, w.seq, w.tag)
            node = w.node
        elif x < 0.86:                        # an ABORT
            s = cur if rng.random() < 0.8 else (cur - rng.randrange(3)) & R.M32
            m = self.msg(R.ABORT, node, thread, s, tag)
        elif x < 0.89:                        # a VERSION_READ (4.10)
            m = self.msg(R.VERSION_READ, node, thread, rng.getrandbits(32), tag,
                         gs, cs)
        elif x < 0.96:                        # migration by the tag's home
            home = tag >> (48 - self.t.shift)
            self.mig[home] += 1
            m = self.msg(rng.choice([R.ADD, R.REMOVE]), home, 0, self.mig[home],
                         tag, gs, cs)
            node = home
        else:                                 # malformed for the pipeline
            m = self.msg(rng.randint(R.READ_MISS, R.ABORT), node, thread, cur, tag)
            k = rng.randrange(4)
            if k == 0:
                m.thread = self.t.tpn + rng.randrange(3)
            elif k == 1:
                m.tag = (rng.choice([3, 7, 31]) << (48 - self.t.shift)) | 4096
            elif k == 2:
                m.type = rng.choice([0x0c, 0x10, 0x14, 0x20])
            else:
                self.sent.append((m, (m.node + 1) % self.t.n_ports))
                return m.copy(), (m.node + 1) % self.t.n_ports
        port = [p for p, n in self.t.port_node.items() if n == m.node][0]
        self.sent.append((m, port))
        if len(self.sent) > 256:
            del self.sent[:128]
        return m.copy(), port


def fmt_res(r):
    o = r.out
    return ("verdict=%d action=%s drop=%s from_switch=%d provider=%#x to=%#x "
            "mirror=%#x rmeta=%#x out=(type %#x flags %#x gs %d node %d thr %d "
            "seq %#x cs %#x tag %#x aux %#x)" % (
                r.verdict, R.ACTIONS[r.action], R.DROPS[r.drop], r.from_switch,
                r.provider, r.to, r.mirror, r.rmeta, o.type, o.flags, o.gstatus,
                o.node, o.thread, o.seq, o.copyset, o.tag, o.aux))


def res_of(a):
    r = R.Result()
    r.verdict, r.action, r.drop, r.from_switch = a[0], a[1], a[2], bool(a[3])
    r.provider, r.to, r.mirror, r.rmeta = a[4], a[6], a[7], a[8]
    r.out = R.Msg(version=a[9], type=a[10], flags=a[11], gstatus=a[12], node=a[13],
                  thread=a[14], seq=a[15], copyset=a[16], tag=a[17], dst_node=a[18],
                  len=a[19], aux=a[20])
    return r


def same(x, y):
    return (x.verdict == y.verdict and x.action == y.action and x.drop == y.drop and
            (x.verdict != R.V_EMIT or (x.from_switch == y.from_switch and
                                       x.provider == y.provider and x.to == y.to and
                                       x.mirror == y.mirror and
                                       x.out.tuple() == y.out.tuple())) and
            (x.verdict != R.V_RESUBMIT or x.rmeta == y.rmeta))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--driver", default=os.path.join(ROOT, "build", "lib", "tests",
                                                     "lcf_diff_driver"))
    ap.add_argument("--topo", default=os.path.join(ROOT, "topo", "pcap3.json"))
    ap.add_argument("--events", type=int, default=1000000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args()
    if not os.access(a.driver, os.X_OK):
        print("lcf_diff: no driver at %s (build first: ninja -C build)" % a.driver,
              file=sys.stderr)
        return 2
    topo = R.Topo(a.topo)
    ref = R.Ref(topo)
    drv = Driver(a.driver, a.topo)
    rng = random.Random(a.seed)
    traffic = Traffic(rng, topo)
    traffic.ref = ref
    n = bursts = 0
    t0 = time.monotonic()
    stats = {}

    def fail(what, i, m, port, c_side, r_side):
        print("lcf_diff: MISMATCH (%s) seed %d event %d" % (what, a.seed, i))
        print("  packet: port %d type %#x node %d thread %d seq %#x tag %#x gs %d cs %#x"
              % (port, m.type, m.node, m.thread, m.seq, m.tag, m.gstatus, m.copyset))
        print("  lib/lcf:   %s" % (c_side,))
        print("  reference: %s" % (r_side,))
        drv.close()
        return 1

    def full_compare(i):
        cmds, keys = [], []
        for tag in traffic.tags:
            for nd in traffic.nodes:
                for th in range(traffic.threads):
                    keys.append((tag, nd, th))
                    cmds.append(pack(OP_READ, traffic.msg(1, nd, th, 0, tag)))
        for (tag, nd, th), ans in zip(keys, drv.run(cmds)):
            c = regs_of(ans)
            r = (ref.block_view(tag), ref.requester_view(nd, th))
            if c != r:
                return fail("registers", i, traffic.msg(0, nd, th, 0, tag), 0, c, r)
        return 0

    while n < a.events:
        burst = [traffic.next() for _ in range(rng.randint(1, 32))]
        # first passes
        cmds = [pack(OP_PASS, m, port) for m, port in burst] + \
               [pack(OP_READ, burst[-1][0])]
        answers = drv.run(cmds)[:-1]
        resub = []
        for (m, port), ans in zip(burst, answers):
            n += 1
            c = res_of(ans)
            r = ref.process(m, port)
            traffic.result(m, r)
            stats[R.ACTIONS[r.action]] = stats.get(R.ACTIONS[r.action], 0) + 1
            if r.verdict == R.V_RESUBMIT and r.rmeta & 0xff == R.RS_RELEASE \
                    and r.rmeta >> 16 & 0xff == R.RS_KIND_WAITING:
                stats["UNDO_WAITER"] = stats.get("UNDO_WAITER", 0) + 1
            if r.action == R.A["QXFER_DENIED"]:
                k = "QXFER_DENIED/%d" % (r.out.aux >> 16 & 0xff)
                stats[k] = stats.get(k, 0) + 1
            if not same(c, r):
                return fail("first pass", n, m, port, fmt_res(c), fmt_res(r))
            if regs_of(ans) != (ref.block_view(m.tag), ref.requester_view(m.node, m.thread)):
                return fail("registers after the first pass", n, m, port, regs_of(ans),
                            (ref.block_view(m.tag), ref.requester_view(m.node, m.thread)))
            if c.verdict == R.V_RESUBMIT:
                x = rng.random()
                if x < 0.02:
                    continue                        # the resubmit is lost
                meta = c.rmeta
                if x < 0.03:
                    meta ^= 1 << rng.randrange(64)  # corrupted metadata
                resub.append((m, port, meta))
        # the burst's second passes, in order
        if resub:
            cmds = [pack(OP_PASS, m, port, True, meta) for m, port, meta in resub] + \
                   [pack(OP_READ, resub[-1][0])]
            answers = drv.run(cmds)[:-1]
            for (m, port, meta), ans in zip(resub, answers):
                n += 1
                c = res_of(ans)
                r = ref.process(m, port, True, meta)
                stats[R.ACTIONS[r.action]] = stats.get(R.ACTIONS[r.action], 0) + 1
                if not same(c, r):
                    return fail("second pass (meta %#x)" % meta, n, m, port,
                                fmt_res(c), fmt_res(r))
                if regs_of(ans) != (ref.block_view(m.tag),
                                    ref.requester_view(m.node, m.thread)):
                    return fail("registers after the second pass", n, m, port,
                                regs_of(ans), (ref.block_view(m.tag),
                                               ref.requester_view(m.node, m.thread)))
        bursts += 1
        # control commands, now and then, between two bursts
        x = rng.random()
        if x < 0.01:
            node = rng.choice(traffic.nodes + [5])
            ans = drv.run([pack(OP_NODE_FAILED, traffic.msg(0, node, 0, 0, 0))])[0]
            rc = ref.node_failed(node)
            if ans[0] | ans[1] << 8 | ans[2] << 16 | ans[3] << 24 != rc & R.M32:
                return fail("node_failed rc", n, traffic.msg(0, node, 0, 0, 0), 0,
                            ans[:4], rc)
            if full_compare(n):
                return 1
        elif x < 0.0105:
            drv.run([pack(OP_RESET, traffic.msg(0, 0, 0, 0, 0)),
                     pack(OP_READ, traffic.msg(0, 0, 0, 0, 0))])
            ref.reset()
        if bursts % 64 == 0 and full_compare(n):
            return 1
        if not a.quiet and bursts % 4096 == 0:
            el = time.monotonic() - t0
            print("lcf_diff: %d events, %.0f events/s" % (n, n / el), flush=True)
    if full_compare(n):
        return 1
    drv.close()
    el = time.monotonic() - t0
    print("lcf_diff: %d events (%d bursts), seed %d: lib/lcf and the reference agree "
          "(%.1f s, %.0f events/s)" % (n, bursts, a.seed, el, n / el))
    print("lcf_diff: actions: " + ", ".join("%s=%d" % kv for kv in sorted(stats.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
