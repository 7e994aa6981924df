# SPDX-License-Identifier: BSD-3-Clause
"""Parity of the queued lock mode: C lib/lcf/lcf_queue.c (and its callers in
lcf_pipeline.c) against P4 lib/p4/lcf_queue.p4.

  - which QSTATE RegisterAction a request runs: C pass_request_queue()'s
    grant and busy expressions, evaluated on every (type, lock taken,
    check, scoreboard, stale) against the P4 qsel const entries;
  - QSTATE events: a seeded random sequence of grants, forwards, QXFERs
    and QRELEASEs (both passes) on one slot, run through a model of the C
    rules read out of lcf_queue.c (the conditions and the order of the
    reasons are taken from the source, so a changed C rule changes the
    model) and through an interpreter of the P4 RegisterAction bodies and
    the LcfQueueOut tables; every decision, reason, FWD_CNT, forward
    destination and aux, and the register view must agree, save for the
    Tofino-1 deviations listed in DEVIATIONS (docs/TOFINO.md);
  - LAST-UNLOCK, passes, validation and the stateful-ALU budget:
    parity_queue_static.py, whose check_queue() runs them all.

Standard library only.
"""
import functools
import random
import re

from parity_src import c_function, first_match

CLOSING, MASK = 0x80000000, 0xffff
# Tofino-1 deviations the comparison allows (docs/TOFINO.md, "Queued lock
# mode"): the FWD_CNT of a not_holder denial is 0; a QXFER that meets its own
# event's CLOSING is denied not_holder (C: closing).
DEVIATIONS = ["not_holder denial reports FWD_CNT 0",
              "QXFER of an event whose QRELEASE is closing: not_holder"]
@functools.lru_cache(maxsize=None)
def _code(expr):
    return compile(expr.strip(), "<rule>", "eval")


def ev(expr, env):
    return eval(_code(expr), {}, env)


REASONS = {"LCF_Q_OK": 0, "LCF_Q_COUNT": 1, "LCF_Q_NOT_HOLDER": 2,
           "LCF_Q_IS_CLOSING": 3, "LCF_Q_BAD_NEXT": 4}


def _c_expr(e, names):
    """A C boolean expression of lcf_queue.c as Python source."""
    e = re.sub(r"\s+", " ", e).strip()
    e = e.replace("LCF_Q_CLOSING", str(CLOSING)).replace("LCF_Q_COUNT_MASK", str(MASK))
    e = re.sub(r"!valid_next\(\s*p\s*,\s*next\s*\)", " not next_ok ", e)
    e = re.sub(r"\bvalid_next\(\s*p\s*,\s*next\s*\)", " next_ok ", e)
    for c, py in names.items():
        e = e.replace(c, py)
    e = e.replace("&&", " and ").replace("||", " or ")
    e = re.sub(r"!(?!=)", " not ", e)
    return e


Q_NAMES = {"q->hi": "hi", "q->lo": "lo"}


class CModel:
    """lcf_queue.c's rules, read from the source."""

    def __init__(self, qc):
        self.ok = True
        self.why = []
        req = c_function(qc, "lcf_q_request") or ""
        m = re.search(r"if\s*\(grant\)\s*\{[^}]*\*q\s*=\s*\(struct lcf_q\)\{\s*id\s*,\s*0\s*\}", req)
        f = re.search(r"if\s*\((!busy[^;{]*?)\)\s*return\s+false;\s*q->lo\+\+;", req)
        self.fwd_block = _c_expr(f.group(1), dict(Q_NAMES, busy="busy")) if f else None
        if not m or not f:
            self.fail("lcf_q_request(): grant {id, 0} / forward condition, lo++")
        self.xfer = self._reasons(c_function(qc, "lcf_q_xfer") or "",
                                  r"\*q\s*=\s*\(struct lcf_q\)\{\s*next\s*,\s*0\s*\}")
        self.rel1 = self._reasons(c_function(qc, "lcf_q_release1") or "",
                                  r"q->lo\s*=\s*LCF_Q_CLOSING\s*;")
        r2 = c_function(qc, "lcf_q_release2") or ""
        m = re.search(r"if\s*\(([^;{]*?)\)\s*\*q\s*=\s*\(struct lcf_q\)\{\s*0\s*,\s*0\s*\}", r2)
        self.rel2 = _c_expr(m.group(1), Q_NAMES) if m else None
        if not m:
            self.fail("lcf_q_release2(): {0, 0} when ...")

    def fail(self, what):
        self.ok = False
        self.why.append("rule not found in lcf_queue.c (C changed? update the "
                        "P4 and this checker): " + what)

    def _reasons(self, body, ok_write):
        out = [(_c_expr(c, dict(Q_NAMES, count="count")), r) for c, r in
               re.findall(r"if\s*\(([^;{]*?)\)\s*return\s+(LCF_Q_\w+)\s*;", body)]
        if not out or not re.search(ok_write + r";?\s*return\s+LCF_Q_OK\s*;", body) \
                or not re.search(r"\*fwd_cnt\s*=\s*q->lo\s*;", body):
            self.fail("reasons, the approving write and *fwd_cnt = q->lo")
        return out

    def run(self, st, op):
        hi, lo = st
        kind = op[0]
        if kind == "grant":
            return (op[1], 0), ("grant",)
        if kind == "fwd":
            if ev(self.fwd_block, dict(hi=hi, lo=lo, busy=True)):
                return st, ("none",)
            lo += 1
            ten = ((hi >> 16) & 0x3ff) << 6 | (hi & 0x3f)
            return (hi, lo), ("fwd", (hi >> 26) - 1, ten << 16 | (lo & MASK))
        if kind == "rel2":
            if ev(self.rel2, dict(hi=hi, lo=lo, id=op[1])):
                return (0, 0), ("rel2",)
            return st, ("rel2",)
        _, ident, count, nxt, next_ok = op
        env = dict(hi=hi, lo=lo, id=ident, count=count & MASK, next_ok=next_ok)
        for cond, r in (self.xfer if kind == "xfer" else self.rel1):
            if ev(cond, env):
                fwd = lo & MASK
                if r == "LCF_Q_NOT_HOLDER":
                    fwd = 0                         # DEVIATIONS[0]
                if kind == "xfer" and r == "LCF_Q_IS_CLOSING":
                    r, fwd = "LCF_Q_NOT_HOLDER", 0  # DEVIATIONS[1]
                return st, ("deny", REASONS[r], fwd)
        if kind == "xfer":
            return (nxt, 0), ("ok", count & MASK)
        return (hi, CLOSING), ("ok", None)


# ------------------------------------------------------------------ P4 ----

def _ra_bodies(src, reg):
    return {m.group(1): m.group(2) for m in re.finditer(
        r"RegisterAction<[^(]*>\(%s\)\s*(\w+)\s*=\s*\{\s*void\s+apply\([^)]*\)\s*\{(.*?)\n        \}\s*\};"
        % reg, src, re.S)}


def _p4_expr(e, consts):
    e = re.sub(r"\s+", " ", e).strip()
    e = re.sub(r"\b(v|md)\.(\w+)", r"\2", e)
    e = re.sub(r"\b\d+w(0x[0-9a-fA-F]+|\d+)", r"\1", e)
    e = re.sub(r"\b([A-Z][A-Z0-9_]+)\b",
               lambda m: str(consts[m.group(1)]) if m.group(1) in consts else m.group(1), e)
    return e.replace("&&", " and ").replace("||", " or ")


@functools.lru_cache(maxsize=None)
def _ra_program(body, consts_key):
    consts = dict(consts_key)
    prog = []
    for whole, cond, block, simple in re.findall(
            r"(if\s*\(([^{]*)\)\s*\{([^}]*)\})|([^;{}]+;)", body):
        lines = block.split(";") if whole else [simple]
        sets = []
        for ln in lines:
            m = re.match(r"\s*(?:v\.)?(\w+)\s*=\s*(.+)", ln.strip().rstrip(";"))
            if m:
                sets.append((m.group(1), _p4_expr(m.group(2), consts)))
        prog.append((_p4_expr(cond, consts) if whole else None, sets))
    return prog


def run_ra(body, consts, env):
    """Interpret a RegisterAction body: if blocks and assignments to v.hi,
    v.lo and rv, in order (what the P4 RegisterAction states)."""
    env = dict(env)
    env["rv"] = 0
    key = tuple(sorted((k, v) for k, v in consts.items() if k in body))
    for cond, sets in _ra_program(body, key):
        if cond is not None and not ev(cond, env):
            continue
        for name, expr in sets:
            env[name] = ev(expr, env) & 0xffffffff
    return env


def concat(expr, fields):
    """Value of a P4 concatenation of slices, fields and NwV constants."""
    val = 0
    for part in [p.strip() for p in expr.split("++")]:
        m = re.fullmatch(r"(\d+)w(0x[0-9a-fA-F]+|\d+)", part)
        if m:
            w, v = int(m.group(1)), int(m.group(2), 0)
        else:
            m = re.fullmatch(r"([\w.]+)\[(\d+):(\d+)\]", part)
            if m:
                w = int(m.group(2)) - int(m.group(3)) + 1
                v = (fields[m.group(1)] >> int(m.group(3))) & ((1 << w) - 1)
            else:
                w, v = fields[part + "#w"], fields[part]
        val = val << w | v
    return val


class P4Model:
    def __init__(self, p4):
        self.p4, self.c = p4, p4.consts
        self.bodies = _ra_bodies(p4.src, "qstate")
        self.qout = p4.entries("qout") or []
        self.qsel = p4.entries("qsel") or []
        self.abody = {}

    def action_assign(self, action, field):
        if action not in self.abody:
            self.abody[action] = self.p4.action_body(action) or ""
        body = self.abody[action]
        m = re.search(r"%s\s*=\s*([^;]+);" % re.escape(field), body)
        return m.group(1) if m else None

    def operands(self, action, f):
        out = []
        for fld in ("md.q_a", "md.q_b"):
            e = self.action_assign(action, fld)
            if e is None:
                return None
            e = e.strip()
            val = 0
            for t in (t.strip() for t in e.split("|")):     # an OR of concatenations
                val |= (self.c[t] if t in self.c else
                        int(t, 0) if re.fullmatch(r"\d+|0x\w+", t) else concat(t, f))
            out.append(val)
        return out

    def fields(self, node, thread, seq, aux=0, cs=0):
        """The packet's fields, and md.q_id / q_hb / q_nhb as q_self_tbl and
        q_next_tbl's actions write them from their action data."""
        f = {"hdr.lcf.seq": seq, "hdr.lcf.aux": aux, "hdr.lcf.copyset": cs,
             "hdr.lcf.seq#w": 32, "hdr.lcf.aux#w": 32, "hdr.lcf.copyset#w": 32}
        if re.search(r"md\.q_nid\s*=\s*next_ident\.get\(\{\s*hdr\.lcf\.copyset\s*\}\)",
                     self.p4.src) and "HashAlgorithm_t.IDENTITY) next_ident" in self.p4.src:
            f["md.q_nid"], f["md.q_nid#w"] = cs, 32
        if re.search(r"md\.q_cnt\s*=\s*count_ident\.get\(\{\s*hdr\.lcf\.aux\[15:0\],\s*16w0\s*\}\)",
                     self.p4.src) and "HashAlgorithm_t.IDENTITY) count_ident" in self.p4.src:
            f["md.q_cnt"], f["md.q_cnt#w"] = (aux & 0xffff) << 16, 32
        own = dict(f, idhi=(node + 1) << 10 | thread, hbhi=(node + 1) << 4 | (thread & 0xf))
        own.update({"idhi#w": 16, "hbhi#w": 10})
        nxt = dict(f, hbhi=(cs >> 26) << 4 | (cs >> 16 & 0xf))
        nxt["hbhi#w"] = 10
        for fld, act, env in (("md.q_id", "q_self", own), ("md.q_hb", "q_self", own),
                              ("md.q_nhb", "q_next", nxt)):
            e = self.action_assign(act, fld)
            f[fld], f[fld + "#w"] = (concat(e.strip(), env) if e else 0), 32
        return f

    def aux_out(self, action, env, ackhi=0):
        """hdr.lcf.aux as the copy leaves: the ingress action's value, then
        the egress finish its LCF_AUX_FIX_* code selects (lcf_egress.p4)."""
        aux = concat(self.action_assign(action, "hdr.lcf.aux"), env)
        code = self.action_assign(action, "hdr.bridge.aux_fix")
        if code is None or code.strip() == "LCF_AUX_FIX_NONE":
            return aux
        m = re.search(r"hdr\.bridge\.aux_fix\s*==\s*%s\)\s*\{\s*(\w+)\(\);"
                      % re.escape(code.strip()), self.p4.src)
        if not m:
            return -1
        return concat(self.action_assign(m.group(1), "hdr.lcf.aux"),
                      {"hdr.lcf.aux": aux, "hdr.lcf.aux#w": 32,
                       "hdr.bridge.ackhi": ackhi, "hdr.bridge.ackhi#w": 16})

    def ra(self, name, st, a, b):
        env = run_ra(self.bodies.get(name, ""), self.c, dict(hi=st[0], lo=st[1], q_a=a, q_b=b))
        return (env["hi"], env["lo"]), env["rv"]

    def run(self, st, op, ev):
        kind = op[0]
        if kind == "grant":
            a, b = self.operands("in_req", self.fields(*ev))
            st, _ = self.ra("q_grant", st, a, b)
            return st, ("grant",)
        if kind == "fwd":
            a, b = self.operands("in_req_fwd", {})
            st, rv = self.ra("q_fwd", st, a, b)
            if rv == 0:
                return st, ("none",)
            aux = self.aux_out("q_fwd_holder", {"md.q_frv": rv, "md.q_frv#w": 32})
            key = re.search(r"md\.q_frv\[(\d+):(\d+)\]\s*:\s*exact", self.p4.src)
            node1 = (rv >> int(key.group(2))) & ((1 << (int(key.group(1)) - int(key.group(2)) + 1)) - 1)
            return st, ("fwd", node1 - 1, aux)
        if kind == "rel2":
            a, b = self.operands("in_release2", {})
            st, _ = self.ra("q_pass2", st, a, b)
            return st, ("rel2",)
        _, ident, count, nxt, next_ok = op
        f = self.fields(*ev, aux=count, cs=nxt)
        t = self.c["LCF_T_QXFER" if kind == "xfer" else "LCF_T_QRELEASE"]
        act = "in_check" if next_ok or kind == "rel1" else "in_check_bad_next"
        a, b = self.operands(act, f)
        st, crv = self.ra("q_check", st, a, b)
        if crv == b:                                   # approved (gateway)
            if kind == "rel1":
                return st, ("ok", None)
            a2, b2 = self.operands("in_xfer2", f)
            st, _ = self.ra("q_pass2", st, a2, b2)
            act, _ = first_match(self.qout, [1, self.c["LCF_RS_QXFER2"], t, 1, 0, 1, 0, 1, 0])
            fwd = concat(self.action_assign(act or "-", "hdr.lcf.aux"),
                         {"hdr.lcf.aux": count}) & MASK if act == "q_xfer_ok" else -1
            return st, ("ok", fwd)
        act, args = first_match(self.qout, [0, 0, t, 1, 0, 1, crv, int(next_ok), 0])
        if act == "q_resubmit" and args and self.c.get(args[0]) == self.c["LCF_RS_QRELEASE"]:
            return st, ("ok", None)
        if act in ("q_deny", "q_deny0"):
            ackhi = int(args[0], 0)
            if ackhi >> 8 != t:
                return st, ("ack of type 0x%x" % (ackhi >> 8),)
            aux = self.aux_out(act, {"md.q_crv": crv, "md.q_crv#w": 32}, ackhi) \
                if act == "q_deny" else concat(self.action_assign(act, "hdr.lcf.aux"),
                                               {"ackhi": ackhi, "ackhi#w": 16})
            if aux < 0 or aux >> 16 != ackhi:
                return st, ("deny aux 0x%x" % aux,)
            return st, ("deny", ackhi & 0xff, aux & 0xffff)
        return st, ("p4 action %s" % act,)

    def view(self, st):
        """The register in C's terms (lcf_queue.p4, 1.)."""
        hi, lo = st
        if lo == self.c.get("Q_MARK"):
            return (hi, CLOSING)
        return (hi, lo >> 16 if hi else lo)


def _events(rng, n):
    ev = [(0, 0, 5), (0, 0, 69), (1, 1, 7), (2, 15, 0xfffe), (1, 0, 6)]
    ops = []
    for _ in range(n):
        k = rng.choice(["grant", "fwd", "fwd", "fwd", "xfer", "xfer", "rel1", "rel2",
                        "rel2", "sat"])
        e = rng.choice(ev)
        nxt = rng.choice(ev + [(5, 0, 1)])           # node 5: not in the topology
        ident = (e[0] + 1) << 26 | e[1] << 16 | e[2]
        nid = (nxt[0] + 1) << 26 | nxt[1] << 16 | nxt[2]
        cnt = rng.choice([0, 1, 2, 3, 0xfffe, 0xffff])
        ops.append((k, e, ident, cnt, nid, nxt[0] != 5))
    return ops


def check_queue_events(rep, p4, qc):
    cm, pm = CModel(qc), P4Model(p4)
    if not cm.ok:
        rep.fail("queued mode: C rules in lcf_queue.c", cm.why)
        return
    missing = [n for n in ("q_grant", "q_fwd", "q_check", "q_pass2") if n not in pm.bodies]
    if missing or not pm.qout:
        rep.fail("queued mode: P4 lcf_queue.p4", ["RegisterAction(s) %s or table qout "
                                                   "not found" % missing])
        return
    rng = random.Random(16)
    diffs, steps, tally = [], 0, {}
    for trial in range(60):
        cst, pst = (0, 0), (0, 0)
        holder_ev, pend, evof = None, [], {}
        for k, e, ident, cnt, nid, nok in _events(rng, 40):
            if k == "sat":                    # FWD_CNT near saturation
                if not cst[0] or holder_ev is None or pst[1] == pm.c.get("Q_MARK"):
                    continue
                cst = (cst[0], 0xfffe)
                pst = (pst[0], 0xfffe << 16 | (pst[1] & 0xffff))
                continue
            if k in ("xfer", "rel1", "rel2") and holder_ev and rng.random() < 0.6:
                e, ident = holder_ev                  # mostly the holder
            if k == "rel1" and rng.random() < 0.5:
                cnt = cst[1] & MASK                   # mostly the right count
            if k == "xfer" and rng.random() < 0.5:
                cnt = cst[1] & MASK
            if k == "grant" and pend:
                k = "rel2"      # a grant needs the lock a due second pass frees
            if k == "rel2":
                if not pend:
                    continue
                ident = pend.pop(0)             # an approved first pass's
                e = evof.get(ident, e)
            op = {"grant": ("grant", ident), "fwd": ("fwd",), "rel2": ("rel2", ident),
                  "xfer": ("xfer", ident, cnt, nid, nok),
                  "rel1": ("rel1", ident, cnt, nid, nok)}[k]
            cst2, cout = cm.run(cst, op)
            pst2, pout = pm.run(pst, op, e)
            steps += 1
            tally[(k, cout[0], cout[1] if cout[0] == "deny" else "")] = \
                tally.get((k, cout[0], cout[1] if cout[0] == "deny" else ""), 0) + 1
            evof[ident] = e
            if k == "rel1" and cout == ("ok", None) and pout == cout:
                pend.append(ident)              # its second pass is due
            if k == "grant":
                holder_ev = (e, ident)
            if k == "xfer" and cout[0] == "ok":
                ne = [x for x in [(0, 0, 5), (0, 0, 69), (1, 1, 7), (2, 15, 0xfffe), (1, 0, 6)]
                      if ((x[0] + 1) << 26 | x[1] << 16 | x[2]) == nid]
                holder_ev = (ne[0], nid) if ne else None
            if cout != pout or cst2 != pm.view(pst2):
                diffs.append("trial %d %s: C %s -> %s, P4 %s -> %s (lo 0x%x)"
                             % (trial, op, cout, _hx(cst2), pout, _hx(pm.view(pst2)), pst2[1]))
            cst, pst = cst2, pst2
            if len(diffs) > 6:
                break
    if diffs:
        rep.fail("queued mode: QSTATE events, C lcf_queue.c vs P4 lcf_queue.p4 "
                 "(allowed: %s)" % "; ".join(DEVIATIONS), diffs[:6])
    else:
        rep.ok("queued mode: QSTATE events, C lcf_queue.c vs P4 RegisterActions + "
               "LcfQueueOut, %d random steps (grant, forward, QXFER, QRELEASE, "
               "saturation; allowed: %s): %s" % (steps, "; ".join(DEVIATIONS), ", ".join(
                   "%s %s%s %d" % (k, o, (" reason %s" % r) if r != "" else "", n)
                   for (k, o, r), n in sorted(tally.items(), key=str))))


def _hx(st):
    return "{0x%x, 0x%x}" % st


# ---------------------------------------------------- request decisions --

REQUESTS = ["READ_MISS", "WRITE_MISS", "WRITE_SHARED", "EVICT_SHARED",
            "EVICT_MODIFIED"]


def check_queue_request(rep, p4, pipe_c, ctypes):
    body = c_function(pipe_c, "pass_request_queue") or ""
    call = re.search(r"lcf_q_request\(([^;]*)\)\s*\)", body, re.S)
    site = re.search(r"p->cfg\.queued\s*&&\s*pass_request_queue\(\s*p\s*,\s*phv\s*,"
                     r"\s*res\s*,\s*([^)]+)\)\)", c_function(pipe_c, "pass_request") or "")
    args = []
    if call:
        depth, cur = 0, ""
        for ch in call.group(1):
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
            if ch == "," and depth == 0:
                args.append(cur.strip())
                cur = ""
            else:
                cur += ch
        args.append(cur.strip())
    if len(args) < 6 or not site:
        rep.fail("queued mode: C pass_request_queue()",
                 ["lcf_q_request(p, w, slot, id, GRANT, BUSY, ...) or its call "
                  "p->cfg.queued && pass_request_queue(..., write && chk) not found"])
        return
    names = {"phv->lock_taken": "took", "phv->sb_over": "over",
             "phv->sb_held": "held", "write_ok": "(%s)" % site.group(1)}

    def py(e):
        e = e.replace("write && chk", "write and chk")
        return _c_expr(e, names)
    grant, busy = py(args[4]), py(args[5])
    sel = p4.entries("qsel") or []
    kind = p4.consts.get("Q_K_REQ")
    cls = {n: p4.consts.get("SB_CLASS_" + n) for n in ("OLDER", "EQ", "AFTER", "NONE")}
    ended, claimed = p4.consts.get("SB_ENDED"), p4.consts.get("SB_CLAIMED")
    # C's SCOREBOARD state of the event -> what SCOREBOARD C answers in P4
    # (sb_class, c as it was), every encoding (LcfScoreboard)
    enc = {"none": [("AFTER", 0), ("EQ", 0)],
           "held": [("EQ", 1), ("EQ", 0x7fff)],
           "over": [("OLDER", 0), ("EQ", ended), ("EQ", claimed | 2)]}
    cres, pres = {}, {}
    for t in REQUESTS:
        for took in (0, 1):
            for chk in (0, 1):
                for sb in ("none", "held", "over"):
                    for stale in (0, 1):
                        held = sb == "held" or (took and chk and sb != "over")
                        over = sb == "over"
                        env = dict(took=bool(took), chk=bool(chk), held=held, over=over,
                                   write=t != "READ_MISS")
                        k = "%s took=%d chk=%d sb=%s stale=%d" % (t, took, chk, sb, stale)
                        if stale:
                            cres[k] = "none"
                        elif ev(grant, env):
                            cres[k] = "grant"
                        elif ev(busy, env):
                            cres[k] = "forward if a holder"
                        else:
                            cres[k] = "none"
                        codes = enc[sb] + ([("AFTER", 7), ("AFTER", ended)]
                                           if took and chk and sb == "none" else [])
                        got = set()
                        for c, rv in codes:
                            a, _ = first_match(sel, [kind, ctypes["LCF_T_" + t], stale, took,
                                                     chk, cls[c], rv])
                            got.add({"a_grant": "grant",
                                     "a_fwd": "forward if a holder"}.get(a, "none"))
                        pres[k] = " / ".join(sorted(got))
    rep.compare("queued mode: request -> QSTATE (C pass_request_queue() grant/busy "
                "vs P4 qsel)", "C", cres, "P4", pres)
