# SPDX-License-Identifier: BSD-3-Clause
"""
An executable reference of the LCF switch pipeline, written from
docs/PROTOCOL.md section 4 (not from lib/lcf): one pass in, one result out,
the register arrays as plain Python lists. lcf_diff.py plays the same passes
through lib/lcf and through this, and compares every result and register.
One file of about 650 lines, in PROTOCOL.md's order, so that it can be
read against the spec top to bottom and shares no code with lib/lcf.
"""

import json

# wire (PROTOCOL.md 2)
READ_MISS, WRITE_MISS, WRITE_SHARED, EVICT_SHARED, EVICT_MODIFIED = 1, 2, 3, 4, 5
READ_UNLOCK, WRITE_UNLOCK, ADD, REMOVE, ABORT = 6, 7, 8, 9, 10
VERSION_READ = 0x0b
NACK, UNLOCK_ACK, MIGRATE_ACK, ABORT_ACK, VERSION = 0x10, 0x11, 0x12, 0x13, 0x14
VER_BUSY = 0x10000                  # VERSION aux: WRITER or WAITING (4.10)
QXFER, QRELEASE, QXFER_ACK, QWAIT, QGRANT = 0x0c, 0x0d, 0x15, 0x16, 0x17
IN_SWITCH, DATA_PROVIDER, FAIL = 1, 2, 4
UNSHARED, SHARED, MODIFIED = 0, 1, 2
NODE_NONE = 0xffff
WRITER, WAITING, READERS = 0x8000, 0x4000, 0x3fff
VALID = 1 << 63
M32 = 0xffffffff

# verdicts, and the action / drop numbering of lcf_pipeline.h / lcf_wire.h
V_DROP, V_EMIT, V_RESUBMIT = 0, 1, 2
ACTIONS = ["TAG_MISS_HOME", "FWD_HOME", "FWD_OWNER", "FWD_PROVIDER",
           "MCAST_INVALIDATE", "ACK_SOLE_HOLDER", "RETURN_EVICT",
           "NACK_LOCK_BUSY", "NACK_CHECK_FAIL", "NACK_STALE", "RETRANSMIT_PASS",
           "RESUBMIT", "UNLOCK_EXEC", "UNLOCK_DUP", "ADD_OK", "ADD_DUP",
           "ADD_COLLISION", "REMOVE_OK", "MIRROR_SHADOW", "DROP", "ABORT_HOME",
           "ABORT_PASSED", "NACK_ABORTED", "VERSION_HIT", "VERSION_MISS",
           "FWD_HOLDER", "QXFER_OK", "QXFER_DENIED", "QRELEASE_EXEC",
           "QRELEASE_DUP", "QWAIT", "QGRANT"]
A = {n: i for i, n in enumerate(ACTIONS)}
DROPS = ["NONE", "SHORT", "BAD_IP", "BAD_UDP", "BAD_VERSION", "UNKNOWN_TYPE",
         "BAD_LEN", "BAD_FLAGS", "BAD_GSTATUS", "NODE_RANGE", "NODE_UNKNOWN",
         "NODE_PORT_MISMATCH", "THREAD_RANGE", "TAG_RANGE", "BAD_RESUBMIT"]
D = {n: i for i, n in enumerate(DROPS)}

# SCOREBOARD c (PROTOCOL.md 4): COUNT 0..0x7fff, CLAIMED | n, ENDED
CLAIMED, ENDED, COUNT_MAX = 0x80000000, 0x40000000, 0x7fff
RS_RELEASE, RS_UNLOCK, RS_ADD, RS_REMOVE, RS_QRELEASE = 1, 2, 3, 4, 5
Q_CLOSING, Q_SWITCH, Q_MASK = 0x80000000, 0x40000000, 0xffff  # "Queued locks"
RS_KIND_WAITING = 2


def qid(node, thread, seq):
    return ((node + 1) << 26 | (thread & 0x3ff) << 16 | (seq & 0xffff)) & M32


def tenure(i):
    return ((i >> 16) & 0x3ff) << 6 | (i & 0x3f)

# Table 2: type -> (requester in copyset?, gstatus or None)
CHECK = {READ_MISS: (False, None), WRITE_MISS: (False, None),
         WRITE_SHARED: (True, SHARED), EVICT_SHARED: (True, SHARED),
         EVICT_MODIFIED: (True, MODIFIED)}
# Table 3: (type, gstatus) -> forward
FWD = {(READ_MISS, UNSHARED): "HOME", (WRITE_MISS, UNSHARED): "HOME",
       (READ_MISS, MODIFIED): "OWNER", (WRITE_MISS, MODIFIED): "OWNER",
       (READ_MISS, SHARED): "PROVIDER", (WRITE_MISS, SHARED): "MCAST_PROV",
       (WRITE_SHARED, SHARED): "MCAST_OTHERS", (EVICT_SHARED, SHARED): "RETURN",
       (EVICT_MODIFIED, MODIFIED): "RETURN"}


def _crc_table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ (0x82f63b78 if c & 1 else 0)
        t.append(c)
    return t


CRC_T = _crc_table()


def crc32c_u64(init, v):
    """CRC32C (Castagnoli, reflected) of v's 8 bytes little-endian, from
    `init`, no final inversion (PROTOCOL.md 4: slot and provider hashes)."""
    c = init & M32
    for i in range(8):
        c = CRC_T[(c ^ (v >> (8 * i))) & 0xff] ^ (c >> 8)
    return c


def after(a, b):
    """RFC 1982: a is after b."""
    d = (a - b) & M32
    return d != 0 and d < 0x80000000


def popcount(x):
    return bin(x).count("1")


def kth_node(cs, r):
    k = r % popcount(cs)
    for n in range(32):
        if cs >> n & 1:
            if k == 0:
                return n
            k -= 1
    raise AssertionError


class Topo:
    def __init__(self, path):
        j = json.load(open(path))
        sw = j["switch"]
        self.ways = sw["ways"]
        self.slots = sw["slots_per_way"]
        self.tpn = j.get("threads_per_node", 16)
        bs = j.get("block_size", 4096)
        self.shift = bs.bit_length() - 1
        self.nodes = [n["id"] for n in j["nodes"]]
        self.mask = sum(1 << n for n in self.nodes)
        self.port_node = {n["port"]: n["id"] for n in j["nodes"]}
        self.n_ports = max(self.port_node) + 1
        self.shadow = j.get("shadow", -1)
        self.queued = sw.get("lock_mode", "retry") == "queued"
        self.seed = 1
        self.salt = 0


class Msg:
    __slots__ = ("version", "type", "flags", "gstatus", "node", "thread", "seq",
                 "copyset", "tag", "dst_node", "len", "aux")

    def __init__(self, **kw):
        for k in self.__slots__:
            setattr(self, k, kw.get(k, 0))

    def copy(self):
        m = Msg()
        for k in self.__slots__:
            setattr(m, k, getattr(self, k))
        return m

    def tuple(self):
        return tuple(getattr(self, k) for k in self.__slots__)


class Result:
    __slots__ = ("verdict", "action", "drop", "from_switch", "provider", "to",
                 "mirror", "rmeta", "out")


class Ref:
    def __init__(self, topo):
        self.t = topo
        self.reset()

    def reset(self):
        t = self.t
        self.tag = [[0] * t.slots for _ in range(t.ways)]
        # [copyset, lock, gstatus] per slot
        self.meta = [[[0, 0, 0] for _ in range(t.slots)] for _ in range(t.ways)]
        self.ver = [[0] * t.slots for _ in range(t.ways)]   # VERSION (4.10)
        n_req = 32 * t.tpn
        self.sb = [[[0, 0], [0, 0]] for _ in range(n_req)]
        self.lu = [[0, 0] for _ in range(n_req)]      # [seq, open]
        self.qg = [[0, 0] for _ in range(n_req)]      # QGATE [seq, epoch << 16 | open]
        self.q_epoch = 0                              # the epoch QGATE opened under
        # QSTATE [QHOLDER, FWD_CNT] per slot (queued mode)
        self.q = [[[0, 0] for _ in range(t.slots)] for _ in range(t.ways)]

    # ---- hashing ------------------------------------------------------
    def slot(self, w, tag):
        seed = (0x9e3779b9 * (w + 1) + self.t.salt) & M32
        return (crc32c_u64(seed, tag) * self.t.slots) >> 32

    def lookup(self, tag):
        for w in range(self.t.ways):
            if self.tag[w][self.slot(w, tag)] == tag | VALID:
                return w
        return -1

    # ---- results ------------------------------------------------------
    def _res(self, m):
        r = Result()
        r.verdict, r.action, r.drop, r.from_switch = V_EMIT, 0, 0, False
        r.provider, r.to, r.mirror, r.rmeta = NODE_NONE, 0, 0, 0
        r.out = m.copy()
        return r

    def drop(self, r, why):
        r.verdict, r.action, r.drop = V_DROP, A["DROP"], D[why]

    def emit(self, r, action, to, from_switch):
        r.verdict, r.action, r.to, r.from_switch = V_EMIT, A[action], to, from_switch

    def resubmit(self, r, op, way, kind=0, score=0):
        r.verdict, r.action = V_RESUBMIT, A["RESUBMIT"]
        r.rmeta = op | (way & 0xff) << 8 | (kind & 0xff) << 16 | (score & 0xffff) << 32

    def reply(self, r, typ, flags, action):
        orig = r.out.type
        r.out.type, r.out.flags, r.out.aux = typ, flags, orig << 24
        self.emit(r, action, 1 << r.out.node, True)

    def migrate_ack(self, r, way, fail, action):
        orig = r.out.type
        r.out.type = MIGRATE_ACK
        r.out.flags = IN_SWITCH | (FAIL if fail else 0)
        r.out.aux = orig << 24 | (way & 0xff) << 16
        self.emit(r, action, 1 << r.out.node, True)
        if self.t.shadow >= 0:
            r.mirror = 1 << self.t.shadow

    # ---- SCOREBOARD (PROTOCOL.md 4.2, 4.3, 4.9) ---------------------------
    @staticmethod
    def older(e, seq):
        """The entry's event is before seq; an entry at seq 0 is empty."""
        return e[0] == 0 or after(seq, e[0])

    def over(self, e, seq):
        if e[0] == seq:
            return e[1] > COUNT_MAX
        return e[0] != 0 and after(e[0], seq)

    def sb_abort(self, e, seq):
        """Returns True when a copy passed (nothing recorded)."""
        s, c = e
        if s == seq:
            if (c <= COUNT_MAX and c > 0) or (c & CLAIMED):
                return True
            e[1] = ENDED
        elif self.older(e, seq):
            e[0], e[1] = seq, ENDED
        return False

    # ---- one pass -------------------------------------------------------
    def process(self, m, port, resubmitted=False, rmeta=0):
        t = self.t
        r = self._res(m)
        if not (t.mask >> m.node & 1) if m.node < 32 else True:
            return self.drop(r, "NODE_UNKNOWN") or r
        if port >= t.n_ports or port >= 32 or t.port_node.get(port, -1) != m.node:
            return self.drop(r, "NODE_PORT_MISMATCH") or r
        if m.thread >= t.tpn:
            return self.drop(r, "THREAD_RANGE") or r
        home = m.tag >> (48 - t.shift)
        if home >= 32 or not (t.mask >> home & 1):
            return self.drop(r, "TAG_RANGE") or r
        if not 1 <= m.type <= QRELEASE:
            return self.drop(r, "UNKNOWN_TYPE") or r
        req = m.node * t.tpn + m.thread
        if resubmitted:
            self.second(r, req, home, rmeta)
        else:
            self.first(r, req, home)
        return r

    def first(self, r, req, home):
        m, t = r.out, self.t
        hit = self.lookup(m.tag)
        if m.type == ADD:
            if hit < 0:
                self.resubmit(r, RS_ADD, 0)
            else:
                md = self.meta[hit][self.slot(hit, m.tag)]
                m.gstatus, m.copyset = md[2], md[0]
                self.migrate_ack(r, hit, False, "ADD_DUP")
            return
        if m.type == VERSION_READ:                      # 4.10: one pass
            if hit < 0:
                r.out.type, r.out.flags = VERSION, FAIL
                r.out.aux = VERSION_READ << 24
                self.emit(r, "VERSION_MISS", 1 << m.node, True)
            else:
                s = self.slot(hit, m.tag)
                md = self.meta[hit][s]
                r.out.type, r.out.flags = VERSION, IN_SWITCH
                r.out.gstatus, r.out.copyset = md[2], self.ver[hit][s]
                r.out.aux = VERSION_READ << 24 | (VER_BUSY if md[1] & (WRITER | WAITING) else 0)
                self.emit(r, "VERSION_HIT", 1 << m.node, True)
            return
        e = self.sb[req][m.seq & 1]
        lu = self.lu[req]
        if m.type in (READ_UNLOCK, WRITE_UNLOCK):      # 4.3: open, hit or miss
            if after(m.seq, lu[0]):
                lu[0], lu[1], lu_ans = m.seq, 1, "new"
            elif lu[0] == m.seq and lu[1]:
                lu_ans = "open"
            else:
                lu_ans = "dup"
        elif m.type == QRELEASE and self.t.queued:      # "Queued locks": the gate
            g = self.qg[req]
            if not (g[0] == m.seq and g[1] & 1):    # a new opening, a new epoch
                g[0], g[1] = m.seq, ((g[1] | 1) + 0x10000) & 0xffffffff
            self.q_epoch = g[1] >> 16
        if hit < 0:                                     # 4.1
            m.flags &= ~(IN_SWITCH | DATA_PROVIDER) & 0xff
            if m.type in (READ_UNLOCK, WRITE_UNLOCK) or (
                    m.type in (QXFER, QRELEASE) and self.t.queued):
                if e[0] == m.seq or self.older(e, m.seq):
                    e[0], e[1] = m.seq, ENDED
            elif m.type == ABORT:
                self.sb_abort(e, m.seq)
            elif m.type <= EVICT_MODIFIED and self.over(e, m.seq):
                m.flags |= FAIL
            self.emit(r, "TAG_MISS_HOME", 1 << home, False)
            return
        md = self.meta[hit][self.slot(hit, m.tag)]
        if m.type in (QXFER, QRELEASE):
            d = (e[0] - m.seq) & 0xffffffff
            if self.t.queued and m.type == QRELEASE and 0x8000 <= d < 0x80000000:
                m.gstatus, m.copyset = md[2], md[0]     # stale: 2^15 seqs back
                return self.queue_ack(r, 0, 0, "QRELEASE_DUP")
            # the event ends in SCOREBOARD, unless 2^15 seqs back (as
            # lcf_stage_sb_qend: the window is checked before SEQ 0's "empty")
            if self.t.queued and not 0x8000 <= d < 0x80000000:
                if e[0] == m.seq and 0 < e[1] <= COUNT_MAX:
                    e[1] |= CLAIMED
                elif (e[0] == m.seq and e[1] == 0) or self.older(e, m.seq):
                    e[0], e[1] = m.seq, ENDED
            self.queue_first(r, hit, md)
        elif m.type <= EVICT_MODIFIED:
            self.request(r, req, hit, md, e)
        elif m.type in (READ_UNLOCK, WRITE_UNLOCK):    # 4.3 first pass: claim
            cand, score = False, 0
            if lu_ans != "dup":
                if e[0] == m.seq:
                    if 0 < e[1] <= COUNT_MAX:
                        e[1] |= CLAIMED
                    if e[1] & CLAIMED:
                        cand, score = True, e[1] & COUNT_MAX
                elif self.older(e, m.seq):
                    e[0], e[1] = m.seq, ENDED
            self.resubmit(r, RS_UNLOCK, hit, 1 if cand else 0, score)
        elif m.type == ABORT:                           # 4.9
            q = self.q[hit][self.slot(hit, m.tag)] if self.t.queued else None
            passed = self.sb_abort(e, m.seq)
            if q and q[0] == qid(m.node, m.thread, m.seq) and q[1] & Q_SWITCH:
                passed = True               # the waiting writer's tenure
            if passed:                      # a copy passed: the switch answers
                self.reply(r, ABORT_ACK, IN_SWITCH | FAIL, "ABORT_PASSED")
            else:                           # else the home answers
                m.flags |= IN_SWITCH
                self.emit(r, "ABORT_HOME", 1 << home, False)
        else:                                           # 4.5 REMOVE
            if md[1] == 0:
                md[1] = WRITER
                m.gstatus, m.copyset = md[2], md[0]
                self.resubmit(r, RS_REMOVE, hit)
            else:
                m.gstatus, m.copyset = md[2], md[0]
                self.reply(r, NACK, IN_SWITCH | FAIL, "NACK_LOCK_BUSY")

    def queue_ack(self, r, why, fc, action):
        orig = r.out.type
        self.reply(r, QXFER_ACK, IN_SWITCH | (FAIL if why else 0), action)
        r.out.aux = orig << 24 | why << 16 | (fc & Q_MASK)

    def queue_first(self, r, hit, md):
        """QXFER, and QRELEASE's first pass, on a hit."""
        m, t = r.out, self.t
        q = self.q[hit][self.slot(hit, m.tag)]
        me, count, why, fc = qid(m.node, m.thread, m.seq), m.aux & Q_MASK, 2, 0
        if t.queued:
            fc = q[1]
            waiting = q[1] & Q_SWITCH and md[1] & READERS   # never granted
            if q[0] != me:
                why = 2
            elif m.type == QRELEASE:
                if not q[1] & Q_CLOSING and waiting:
                    why = 5
                elif not q[1] & Q_CLOSING and q[1] & Q_MASK != count:
                    why = 1
                else:
                    q[1], why = Q_CLOSING, 0
                    return self.resubmit(r, RS_QRELEASE, hit, 0, self.q_epoch)
            else:
                nxt = m.copyset
                nn = (nxt >> 26) - 1
                if waiting:
                    why = 5
                elif q[1] & Q_CLOSING:
                    why = 3
                elif (nxt == 0 or not 0 <= nn < 32 or not t.mask >> nn & 1 or
                      (nxt >> 16 & 0x3ff) >= t.tpn):
                    why = 4
                elif q[1] & Q_MASK != count:
                    why = 1
                else:
                    q[0], q[1], why = nxt, 0, 0
        m.gstatus, m.copyset = md[2], md[0]
        self.queue_ack(r, why, fc, "QXFER_DENIED" if why else "QXFER_OK")

    def request(self, r, req, hit, md, e):
        m, t = r.out, self.t
        if not after(m.seq, self.lu[req][0]):           # stale
            q = self.q[hit][self.slot(hit, m.tag)] if t.queued else None
            if (q and q[0] == qid(m.node, m.thread, m.seq) and q[1] & Q_SWITCH and
                    not q[1] & Q_CLOSING):              # row 4: the waiter's poll
                rd = md[1] & READERS
                orig = m.type
                m.gstatus, m.copyset = md[2], md[0]
                self.reply(r, QWAIT if rd else QGRANT, IN_SWITCH,
                           "QWAIT" if rd else "QGRANT")
                r.out.aux = orig << 24 | rd
                return
            self.reply(r, NACK, IN_SWITCH | FAIL, "NACK_STALE")
            return
        write = m.type != READ_MISS
        if m.type in (WRITE_MISS, WRITE_SHARED):        # 4.10: every one counts
            s = self.slot(hit, m.tag)
            self.ver[hit][s] = (self.ver[hit][s] + 1) & M32
        waiter = False
        if write:
            taken = md[1] == 0
            if taken:
                md[1] = WRITER
            elif t.queued and not md[1] & (WRITER | WAITING):
                md[1] |= WAITING                        # meets readers
                waiter = True
        else:
            taken = (not md[1] & (WRITER | WAITING) and
                     (md[1] & READERS) != READERS)
            if taken:
                md[1] += 1
        m.gstatus, m.copyset = md[2], md[0]
        in_cs, gs = CHECK[m.type]
        chk = bool(m.copyset >> m.node & 1) == in_cs and (gs is None or gs == m.gstatus)
        over = self.over(e, m.seq)
        count = taken and chk
        if not over:
            if e[0] == m.seq:
                e[1] += 1 if count else 0
            elif count:
                e[0], e[1] = m.seq, 1
        held = not over and e[0] == m.seq and e[1] > 0
        if t.queued:                                    # "Queued locks"
            q = self.q[hit][self.slot(hit, m.tag)]
            me = qid(m.node, m.thread, m.seq)
            readers = md[1] & READERS
            if taken and write and chk and not over:
                q[0], q[1] = me, 0
            elif waiter and over:           # an aborted waiter's late copy
                self.resubmit(r, RS_RELEASE, hit, RS_KIND_WAITING)
                return
            elif waiter:
                q[0], q[1] = me, Q_SWITCH
                return self.wait_reply(r, readers)
            elif (not taken and q[0] == me and q[1] & Q_SWITCH and
                  not q[1] & Q_CLOSING):    # the waiter's poll
                return self.wait_reply(r, readers)
            elif (not taken and not held and not over and q[0] != 0 and
                  not q[1] & Q_CLOSING and q[1] & Q_MASK != Q_MASK):
                q[1] += 1
                m.flags, m.aux = IN_SWITCH, tenure(q[0]) << 16 | (q[1] & Q_MASK)
                self.emit(r, "FWD_HOLDER", 1 << ((q[0] >> 26) - 1), False)
                return
        if not taken and not held:
            self.reply(r, NACK, IN_SWITCH | FAIL, "NACK_LOCK_BUSY")
            return
        if over or not chk:
            if taken:
                self.resubmit(r, RS_RELEASE, hit, 1 if write else 0)
            else:
                self.reply(r, NACK, IN_SWITCH | FAIL,
                           "NACK_ABORTED" if over else "NACK_CHECK_FAIL")
            return
        self.forward(r, req)

    def wait_reply(self, r, readers):
        """QWAIT (readers hold) or QGRANT to the waiting writer."""
        orig = r.out.type
        self.reply(r, QWAIT if readers else QGRANT, IN_SWITCH,
                   "QWAIT" if readers else "QGRANT")
        r.out.aux = orig << 24 | readers

    def forward(self, r, req):
        m, t = r.out, self.t
        cs, me = m.copyset, 1 << m.node
        fwd = FWD.get((m.type, m.gstatus))
        m.flags = IN_SWITCH
        if cs == 0 and fwd not in ("HOME", "RETURN"):
            fwd = "HOME"
        home = m.tag >> (48 - t.shift)
        prov = lambda: kth_node(cs, crc32c_u64(t.seed, (req << 32 | m.seq)))
        if fwd == "HOME":
            self.emit(r, "FWD_HOME", 1 << home, False)
        elif fwd == "OWNER":
            r.provider = (cs & -cs).bit_length() - 1
            self.emit(r, "FWD_OWNER", 1 << r.provider, False)
        elif fwd == "PROVIDER":
            r.provider = prov()
            self.emit(r, "FWD_PROVIDER", 1 << r.provider, False)
        elif fwd == "MCAST_PROV":
            r.provider = prov()
            self.emit(r, "MCAST_INVALIDATE", cs, False)
        elif fwd == "MCAST_OTHERS":
            if cs & ~me == 0:
                self.emit(r, "ACK_SOLE_HOLDER", me, True)
            else:
                self.emit(r, "MCAST_INVALIDATE", cs & ~me, False)
        else:
            self.emit(r, "RETURN_EVICT", me, True)

    def second(self, r, req, home, md_word):
        m, t = r.out, self.t
        op, way = md_word & 0xff, md_word >> 8 & 0xff
        kind, score = md_word >> 16 & 0xff, md_word >> 32 & 0xffff
        if m.type <= EVICT_MODIFIED:
            want = RS_RELEASE
        elif m.type in (READ_UNLOCK, WRITE_UNLOCK):
            want = RS_UNLOCK
        elif m.type in (ABORT, VERSION_READ, QXFER):
            want = -1
        elif m.type == QRELEASE:
            want = RS_QRELEASE
        else:
            want = RS_ADD if m.type == ADD else RS_REMOVE
        reserved = md_word & 0xffff0000ff000000
        if op != want or reserved or way >= t.ways or (
                kind > 1 and not (kind == RS_KIND_WAITING and
                                  op == RS_RELEASE and t.queued)):
            return self.drop(r, "BAD_RESUBMIT")
        hit = self.lookup(m.tag)
        if op == RS_ADD:
            for w in range(t.ways):
                s = self.slot(w, m.tag)
                if self.tag[w][s] == m.tag | VALID:
                    return self.migrate_ack(r, w, False, "ADD_DUP")
                if self.tag[w][s] == 0:
                    self.tag[w][s] = m.tag | VALID
                    m.copyset &= t.mask
                    self.meta[w][s] = [m.copyset, 0, m.gstatus]
                    self.ver[w][s] = (m.seq & 0xffff) << 16
                    return self.migrate_ack(r, w, False, "ADD_OK")
            return self.migrate_ack(r, 0xff, True, "ADD_COLLISION")
        if hit != way:
            return self.drop(r, "BAD_RESUBMIT")
        s = self.slot(way, m.tag)
        md = self.meta[way][s]
        e = self.sb[req][m.seq & 1]
        if op == RS_RELEASE:
            if kind == RS_KIND_WAITING:
                md[1] &= ~WAITING
            elif kind:
                md[1] &= ~WRITER
            elif md[1] & READERS:
                md[1] -= 1
            m.gstatus, m.copyset = md[2], md[0]
            self.reply(r, NACK, IN_SWITCH | FAIL,
                       "NACK_ABORTED" if kind == RS_KIND_WAITING
                       else "NACK_CHECK_FAIL")
        elif op == RS_UNLOCK:
            lu = self.lu[req]
            ex = kind == 1 and lu[0] == m.seq and lu[1] == 1
            if ex:
                lu[1] = 0
                if m.type == READ_UNLOCK:
                    readers = md[1] & READERS
                    md[1] = ((md[1] & (WRITER | WAITING)) |
                             (readers - min(score, readers)))
                    md[0] |= m.copyset & t.mask
                else:
                    md[1] &= ~(WRITER | WAITING)
                    md[0] = m.copyset & t.mask
                md[2] = m.gstatus
                if e[0] == m.seq:
                    e[1] = 0
            m.gstatus, m.copyset = md[2], md[0]
            self.reply(r, UNLOCK_ACK, IN_SWITCH, "UNLOCK_EXEC" if ex else "UNLOCK_DUP")
        elif op == RS_QRELEASE:                         # "Queued locks"
            g = self.qg[req]
            ex = t.queued and g[0] == m.seq and g[1] == score << 16 | 1
            if ex:
                g[1] &= ~1
                md[1] &= ~(WRITER | WAITING)
                md[0] = m.copyset & t.mask
                md[2] = m.gstatus
                if e[0] == m.seq:
                    e[1] = ENDED
            q = self.q[way][s]
            mine = t.queued and q[0] == qid(m.node, m.thread, m.seq) and q[1] & Q_CLOSING
            m.gstatus, m.copyset = md[2], md[0]
            if mine and not ex:             # another QRELEASE moved the gate
                self.queue_ack(r, 3, Q_CLOSING, "QXFER_DENIED")
            else:
                if mine:
                    q[0], q[1] = 0, 0
                self.queue_ack(r, 0, 0, "QRELEASE_EXEC" if ex else "QRELEASE_DUP")
        else:                                           # RS_REMOVE
            self.tag[way][s] = 0
            m.gstatus, m.copyset = md[2], md[0]
            self.meta[way][s] = [0, 0, 0]
            self.migrate_ack(r, way, False, "REMOVE_OK")

    # ---- control (PROTOCOL.md 4, docs/FAULTS.md 2) ------------------------
    def node_failed(self, node):
        t = self.t
        if node >= 32 or not (t.mask >> node & 1):
            return -22
        for w in range(t.ways):
            for s in range(t.slots):
                md = self.meta[w][s]
                home = (self.tag[w][s] & ~VALID) >> (48 - t.shift)
                if self.tag[w][s] and (md[1] != 0 or md[0] >> node & 1 or home == node):
                    self.tag[w][s] = 0
                    self.meta[w][s] = [0, 0, 0]
                    self.q[w][s] = [0, 0]
        for q in range(32 * t.tpn):
            dead = q // t.tpn == node
            for e in self.sb[q]:
                if dead:
                    e[0], e[1] = 0, 0
                elif e[1] != ENDED:
                    e[1] = 0
            if dead:
                self.lu[q] = [0, 0]
                self.qg[q] = [0, 0]
        return 0

    # ---- read-out, as lcf_pipeline_read_block / _read_requester ------------
    def block_view(self, tag):
        if tag & VALID:
            return None
        w = self.lookup(tag)
        if w < 0:
            return None
        s = self.slot(w, tag)
        md = self.meta[w][s]
        q = self.q[w][s] if self.t.queued else [0, 0]
        return (w, s, md[1], md[2], md[0], q[0], q[1])

    def requester_view(self, node, thread):
        if node >= 32 or thread >= self.t.tpn:
            return None
        q = self.sb[node * self.t.tpn + thread]
        st, cnt = [], []
        for s, c in q:
            if c <= COUNT_MAX:
                st.append(0); cnt.append(c)
            elif c & CLAIMED:
                st.append(1); cnt.append(c & COUNT_MAX)
            else:
                st.append(2); cnt.append(0)
        return (q[0][0], q[1][0], st[0], st[1], cnt[0], cnt[1],
                self.lu[node * self.t.tpn + thread][0],
                self.lu[node * self.t.tpn + thread][1])
