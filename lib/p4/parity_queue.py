# SPDX-License-Identifier: BSD-3-Clause
"""Parity of the queued lock mode, the models: C lib/lcf/lcf_queue.c's
rules read out of the source (CModel: lcf_q_request()'s rows 1-6, the
reasons of lcf_q_xfer()/lcf_q_release1() in their order, including the
`waiting` denial, lcf_q_release2()) and the P4 program (P4Model: the QSTATE
RegisterActions, q_in's operands, qsel, LcfQueueOut's apply and qout
interpreted, parity_p4interp.py; the LOCK stage from parity_qlock.py), with
the Tofino-1 deviations the comparison allows (DEVIATIONS, docs/TOFINO.md
"Queued lock mode"). The checks: parity_qlock.py (LOCK), parity_qreq.py
(request decisions), parity_qevents.py (random sequences),
parity_queue_static.py (LAST-UNLOCK, passes, validation, the stateful-ALU
budget; its check_queue() runs them all).

Standard library only.
"""
import functools
import re

from parity_p4interp import const_widths, control_apply, parse, preprocess, ra_bodies, run
from parity_qlock import P4Lock
from parity_src import c_function, first_match

CLOSING, SWITCH, MASK = 0x80000000, 0x40000000, 0xffff
# Tofino-1 deviations the comparison allows (docs/TOFINO.md, "Queued lock
# mode"): the FWD_CNT of a not_holder denial is 0; a QXFER that meets its own
# event's CLOSING is denied not_holder (C: closing).
DEVIATIONS = ["not_holder denial reports FWD_CNT 0",
              "QXFER of an event whose QRELEASE is closing: not_holder",
              "QXFER/QRELEASE of a holder that is no switch tenure while READERS > 0 "
              "(it ended with WRITE_UNLOCK): denied count, never approved",
              "a request meeting WAITING with no holder counts FWD_CNT on the empty "
              "QSTATE (hi 0: no holder to every reader)"]
@functools.lru_cache(maxsize=None)
def _code(expr):
    return compile(expr.strip(), "<rule>", "eval")


def ev(expr, env):
    return eval(_code(expr), {}, env)


REASONS = {"LCF_Q_OK": 0, "LCF_Q_COUNT": 1, "LCF_Q_NOT_HOLDER": 2,
           "LCF_Q_IS_CLOSING": 3, "LCF_Q_BAD_NEXT": 4, "LCF_Q_WAITING": 5}


def _c_expr(e, names, defs=None):
    """A C boolean expression of lcf_queue.c as Python source."""
    e = re.sub(r"\s+", " ", e).strip()
    e = e.replace("LCF_Q_CLOSING", str(CLOSING)).replace("LCF_Q_COUNT_MASK", str(MASK))
    e = re.sub(r"!valid_next\(\s*p\s*,\s*next\s*\)", " not next_ok ", e)
    e = re.sub(r"\bvalid_next\(\s*p\s*,\s*next\s*\)", " next_ok ", e)
    for c, py in names.items():
        e = e.replace(c, py)
    e = re.sub(r"\bLCF_\w+\b", lambda m: str((defs or {}).get(m.group(0), m.group(0))), e)
    e = re.sub(r"\bfalse\b", "False", re.sub(r"\btrue\b", "True", e))
    e = e.replace("&&", " and ").replace("||", " or ")
    e = re.sub(r"!(?!=)", " not ", e)
    return e


Q_NAMES = {"q->hi": "hi", "q->lo": "lo"}


class CModel:
    """lcf_queue.c's rules, read from the source."""

    def __init__(self, qc, defs):
        self.ok = True
        self.why = []
        self.defs = defs
        names = dict(Q_NAMES, **{"in->" + f: f for f in
                                 ("id", "grant", "waiter", "taken", "over", "busy", "readers")})
        req = c_function(qc, "lcf_q_request") or ""
        g = re.search(r"if\s*\(in->grant\)\s*\{[^}]*\*q\s*=\s*\(struct lcf_q\)\{\s*in->id\s*,"
                      r"\s*0\s*\}", req)
        w = re.search(r"if\s*\(in->waiter\)\s*\{\s*if\s*\(in->over\)\s*return\s+LCF_QV_UNDO;"
                      r"\s*\*q\s*=\s*\(struct lcf_q\)\{\s*in->id\s*,\s*(\w+)\s*\};\s*"
                      r"return\s+LCF_QV_WAIT;", req)
        p = re.search(r"if\s*\(([^;{]*?)\)\s*return\s+in->readers\s*\?\s*LCF_QV_WAIT\s*:"
                      r"\s*LCF_QV_GRANT;", req)
        f = re.search(r"if\s*\(([^;{]*?)\)\s*return\s+LCF_QV_NONE;\s*q->lo\+\+;", req)
        if not (g and w and p and f):
            self.fail("lcf_q_request(): rows grant {id, 0}; waiter (UNDO when over, "
                      "else {id, SWITCH}, WAIT); the poll (WAIT/GRANT by readers); "
                      "the forward's condition, lo++")
            return
        self.wait_lo = defs.get(w.group(1))
        self.poll = _c_expr(p.group(1), names, defs)
        self.fwd_block = _c_expr(f.group(1), names, defs)
        wt = re.search(r"q_waiting\([^)]*\)\s*\{\s*return\s+([^;]+);",
                       qc.replace("static inline bool\n", ""))
        self.waiting = _c_expr(wt.group(1), Q_NAMES, defs) if wt else None
        if not wt:
            self.fail("q_waiting(): SWITCH and READERS")
        ab = re.search(r"if\s*\(\s*!p->cfg\.queued\s*\|\|\s*p->q\[way\]\s*==\s*NULL\s*\)"
                       r"\s*return\s+false\s*;.*?return\s+([^;]+);",
                       c_function(qc, "lcf_q_abort_waiting") or "", re.S)
        self.abort = _c_expr(ab.group(1), dict(Q_NAMES, id="id"), defs) if ab else None
        if not ab:
            self.fail("lcf_q_abort_waiting(): false in retry mode, else the tenure test")
        self.xfer = self._reasons(c_function(qc, "lcf_q_xfer") or "",
                                  r"\*q\s*=\s*\(struct lcf_q\)\{\s*next\s*,\s*0\s*\}")
        self.rel1 = self._reasons(c_function(qc, "lcf_q_release1") or "",
                                  r"q->lo\s*=\s*LCF_Q_CLOSING\s*;")
        r2 = c_function(qc, "lcf_q_release2") or ""
        m = re.search(r"if\s*\(([^;{]*?)\)\s*return\s+false\s*;\s*if\s*\(\s*!exec\s*\)\s*"
                      r"return\s+true\s*;\s*\*q\s*=\s*\(struct lcf_q\)\{\s*0\s*,\s*0\s*\}\s*;"
                      r"\s*return\s+false\s*;", r2)
        self.rel2 = _c_expr(m.group(1), dict(Q_NAMES, id="id"), defs) if m else None
        if not m:
            self.fail("lcf_q_release2(): unless {id, CLOSING} nothing; not exec -> "
                      "closing (true); else {0, 0}")
        sp = re.search(r"return\s+([^;]+);", c_function(qc, "lcf_q_stale_poll") or "")
        self.stale = _c_expr(sp.group(1), dict(Q_NAMES, id="id"), defs) if sp else None
        if not sp:
            self.fail("lcf_q_stale_poll(): the waiting writer's tenure")
        wr = c_function(qc, "lcf_q_wait_reply") or ""
        if not re.search(r"m->type\s*=\s*grant\s*\?\s*LCF_T_QGRANT\s*:\s*LCF_T_QWAIT;\s*"
                         r"m->flags\s*=\s*LCF_F_IN_SWITCH;\s*m->aux\s*=\s*\(uint32_t\)orig\s*<<"
                         r"\s*24\s*\|\s*\(grant\s*\?\s*0\s*:\s*readers\);", wr):
            self.fail("lcf_q_wait_reply(): QGRANT/QWAIT, IN_SWITCH, aux = type << 24 | readers")

    def fail(self, what):
        self.ok = False
        self.why.append("rule not found in lcf_queue.c (C changed? update the "
                        "P4 and this checker): " + what)

    def _reasons(self, body, ok_write):
        out = [(_c_expr(c.replace("q_waiting(q, lock)", "(%s)" % self.waiting),
                        dict(Q_NAMES, count="count"), self.defs), r) for c, r in
               re.findall(r"if\s*\(([^;{]*?)\)\s*return\s+(LCF_Q_\w+)\s*;", body)]
        if not out or not re.search(ok_write + r";?\s*return\s+LCF_Q_OK\s*;", body) \
                or not re.search(r"\*fwd_cnt\s*=\s*q->lo\s*;", body):
            self.fail("reasons, the approving write and *fwd_cnt = q->lo")
        return out

    def request(self, st, inp):
        """(QSTATE, verdict) of lcf_q_request(); inp: the struct lcf_q_in."""
        hi, lo = st
        if inp["grant"]:
            return (inp["id"], 0), ("none",)
        if inp["waiter"]:
            if inp["over"]:
                return st, ("undo",)
            return (inp["id"], self.wait_lo), ("wait",)
        env = dict(inp, hi=hi, lo=lo)
        if ev(self.poll, env):
            return st, ("wait",) if inp["readers"] else ("grant",)
        if ev(self.fwd_block, env):
            return st, ("none",)
        lo += 1
        ten = ((hi >> 16) & 0x3ff) << 6 | (hi & 0x3f)
        return (hi, lo), ("fwd", (hi >> 26) - 1, ten << 16 | (lo & MASK))

    def stale_poll(self, st, ident):
        """lcf_q_stale_poll(): a stale request that is the waiter's poll."""
        return bool(ev(self.stale, dict(hi=st[0], lo=st[1], id=ident)))

    def abort_waiting(self, st, ident):
        """lcf_q_abort_waiting() in queued mode: the ABORT's event holds
        QSTATE as a switch tenure (a copy passed)."""
        return bool(ev(self.abort, dict(hi=st[0], lo=st[1], id=ident)))

    def run(self, st, op, lock):
        hi, lo = st
        kind = op[0]
        if kind == "rel2":                  # op[2]: QGATE let it execute
            if ev(self.rel2, dict(hi=hi, lo=lo, id=op[1])):
                return st, ("rel2", "exec" if op[2] else "dup")
            if not op[2]:
                return st, ("closing",)
            return (0, 0), ("rel2", "exec")
        _, ident, count, nxt, next_ok = op
        env = dict(hi=hi, lo=lo, id=ident, count=count & MASK, next_ok=next_ok, lock=lock)
        for cond, r in (self.xfer if kind == "xfer" else self.rel1):
            if ev(cond, env):
                fwd = lo & MASK
                if r == "LCF_Q_NOT_HOLDER":
                    fwd = 0                         # DEVIATIONS[0]
                if kind == "xfer" and r == "LCF_Q_IS_CLOSING":
                    r, fwd = "LCF_Q_NOT_HOLDER", 0  # DEVIATIONS[1]
                return st, ("deny", REASONS[r], fwd)
        if lock & self.defs["LCF_LOCK_READERS"] and not lo & CLOSING:   # DEVIATIONS[2]
            return st, ("deny", REASONS["LCF_Q_COUNT"], lo & MASK)
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
        self.src = preprocess(p4.src, 1)
        self.bodies = _ra_bodies(p4.src, "qstate")
        self.ras = {n: parse(x) for n, x in ra_bodies(self.src, "qstate").items()}
        self.qout = p4.entries("qout") or []
        self.qsel = p4.entries("qsel") or []
        self.qin = p4.entries("q_in") or []
        qo = control_apply(self.src, "LcfQueueOut")
        self.out = parse(qo) if qo else []
        m = re.search(r"#define\s+LCF_QUEUE_OUT\s+\((.*)\)\s*\n", self.src)
        self.gate = m.group(1) if m else "0"
        q = control_apply(self.src, "LcfQueue") or ""
        self.q_out_waiter = bool(re.search(r"if\s*\(md\.q_waiter\s*==\s*1\)\s*\{\s*"
                                           r"md\.q_out\s*=\s*1;", q))
        self.q_undo = re.search(r"if\s*\(([^{]*)\)\s*\{\s*md\.q_out\s*=\s*1;\s*"
                                r"md\.q_undo\s*=\s*1;", q)
        self.widths = const_widths(p4.src)
        self.widths.update({"md.q_readers": 16, "hdr.lcf.type": 8})
        self.abody = {}
        # fields(): whether the source hashes q_nid / q_cnt out of the header
        # (searched once here, not per request: a fifth of the check's time)
        self.nid_ident = bool(re.search(
            r"md\.q_nid\s*=\s*next_ident\.get\(\{\s*hdr\.lcf\.copyset\s*\}\)",
            p4.src)) and "HashAlgorithm_t.IDENTITY) next_ident" in p4.src
        self.cnt_ident = bool(re.search(
            r"md\.q_cnt\s*=\s*count_ident\.get\(\{\s*hdr\.lcf\.aux\[15:0\],\s*16w0\s*\}\)",
            p4.src)) and "HashAlgorithm_t.IDENTITY) count_ident" in p4.src
        self.lock = P4Lock(p4)

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
        if self.nid_ident:
            f["md.q_nid"], f["md.q_nid#w"] = cs, 32
        if self.cnt_ident:
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
        env, _ = run(self.ras.get(name, []), self.c,
                     {"v.hi": st[0], "v.lo": st[1], "md.q_a": a, "md.q_b": b, "rv": 0})
        return (env["v.hi"], env["v.lo"]), env["rv"]

    def queue_out(self, env):
        """The calls LcfQueueOut makes (None when LCF_QUEUE_OUT is false)."""
        base = {"hdr.lcf.type": 0, "md.q_undo": 0, "md.q_waiter": 0, "md.sb_over": 0, "md.q_out": 0,
                "md.lk_old": 0, "md.q_frv": 0, "md.q_a": 0, "md.q_b": 0, "md.q_rd": 0,
                "md.pass2": 0, "md.hit": 1, "md.bad_way": 0, "md.q_mode": 1, "md.q_crv": 0,
                "md.bad_rs": 0, "md.q_stale": 0}
        base.update(env)
        if not run(parse("g = %s;" % self.gate), self.c, base)[0]["g"]:
            return None
        return run(self.out, self.c, base)[1]

    def reply(self, act, t, readers):
        """(type, aux, counter) of a QWAIT/QGRANT/NACK action."""
        env = {"hdr.lcf.type": t, "md.aux_type": t << 24, "md.q_readers": readers,
               "hdr.lcf.aux": 0}
        _, calls = run(parse(self.p4.action_body(act) or ""), self.c, env, 32, None, self.widths)
        ctr = [a for f, a in calls if f == "lcf_q_action_ctr.count"]
        return env["hdr.lcf.type"], env["hdr.lcf.aux"], ctr[0] if ctr else None

    def request(self, st, lock, t, e, over, sb=None, chk=1, stale=0):
        """A request's first pass (and the undo's second): (LOCK, QSTATE,
        outcome). sb: SCOREBOARD C's answer (class name, c as it was)."""
        T = self.c["LCF_T_" + t]
        taken, waiter, new, old, rd = self.lock.request(lock, t, 1, stale)
        f = self.fields(*e)
        act, _ = first_match(self.qin, [1, 0, T, 1, 0, int(taken), int(waiter),
                                        (old >> 14) & 1, rd, 0])
        env = {k: v for k, v in f.items() if "#" not in k}
        env.update({"md.q_kind": self.c["Q_K_NONE"], "md.q_a": 0, "md.q_b": 0})
        run(parse(self.p4.action_body(act or "") or ""), self.c, env)
        sb = sb or (("OLDER", 0) if over else ("AFTER", 0))
        sel, _ = first_match(self.qsel, [env["md.q_kind"], T, stale, int(taken), chk,
                                         self.c["SB_CLASS_" + sb[0]], sb[1]])
        frv = 0
        if sel:
            m = re.search(r"([\w.]+)\s*=\s*(\w+)\.execute", self.p4.action_body(sel) or "")
            if m:
                st, rv = self.ra(m.group(2), st, env["md.q_a"], env["md.q_b"])
                frv = rv if m.group(1) == "md.q_frv" else 0
        qenv = {"md.q_waiter": int(waiter), "md.sb_over": int(over), "md.lk_old": old,
                "md.q_frv": frv, "md.q_a": env["md.q_a"], "md.q_b": env["md.q_b"],
                "md.q_rd": rd, "md.q_out": int(waiter and self.q_out_waiter)}
        calls = self.queue_out(qenv)
        names = [c for c, _ in calls or []]
        if calls is None:
            return new, st, ("none",)
        for c in names:
            if c in ("q_wait_reply", "q_grant_reply"):
                ty, aux, ctr = self.reply(c, T, old & 0x3fff)
                return new, st, ("reply", ty, aux, ctr)
            if c == "holder_port.apply":
                aux = self.aux_out("q_fwd_holder", {"md.q_frv": frv, "md.q_frv#w": 32})
                key = re.search(r"md\.q_frv\[(\d+):(\d+)\]\s*:\s*exact", self.p4.src)
                lo_b, w = int(key.group(2)), int(key.group(1)) - int(key.group(2)) + 1
                return new, st, ("fwd", ((frv >> lo_b) & ((1 << w) - 1)) - 1, aux)
            if c == "q_resubmit_waiting":
                rs = {"md.way": 0}
                run(parse(self.p4.action_body(c) or ""), self.c, rs, 32, [])
                kind = rs.get("md.rs_out.lock_kind")
                ops = self.lock.operands(1, t, kind, 1)
                new2, _ = self.lock.stage(new, ops)
                undo = self.q_undo and run(parse("g = %s;" % self.q_undo.group(1)), self.c, {
                    "md.pass2": 1, "md.rs_in.op": rs.get("md.rs_out.op"),
                    "md.rs_in.lock_kind": kind})[0]["g"]
                c2 = self.queue_out({"md.pass2": 1, "md.q_undo": int(bool(undo)),
                                     "md.q_out": int(bool(undo))}) or []
                acts = [x for x, _ in c2 if x.startswith("q_")]
                ctr = self.reply(acts[0], T, 0)[2] if acts else None
                return new2, st, ("undo", kind, ctr)
        return new, st, ("p4 calls %s" % names,)

    def abort(self, st, lock, e, sb):
        """An ABORT's first pass on a hit, queued mode: (QSTATE, "queue"
        when LcfQueueOut answers it with q_abort_ack, None when LcfDispatch
        decides it by SCOREBOARD, else what LcfQueueOut calls)."""
        T = self.c["LCF_T_ABORT"]
        f = self.fields(*e)
        old = lock
        act, _ = first_match(self.qin, [1, 0, T, 0, 0, 0, 0, (old >> 14) & 1,
                                        int(old & 0x3fff != 0), 0])
        env = {k: v for k, v in f.items() if "#" not in k}
        env.update({"md.q_kind": self.c["Q_K_NONE"], "md.q_a": 0, "md.q_b": 0})
        run(parse(self.p4.action_body(act or "") or ""), self.c, env)
        sel, _ = first_match(self.qsel, [env["md.q_kind"], T, 0, 0, 0,
                                         self.c["SB_CLASS_" + sb[0]], sb[1]])
        crv = frv = 0
        if sel:
            m = re.search(r"([\w.]+)\s*=\s*(\w+)\.execute", self.p4.action_body(sel) or "")
            if m:
                st, rv = self.ra(m.group(2), st, env["md.q_a"], env["md.q_b"])
                crv = rv if m.group(1) == "md.q_crv" else 0
                frv = rv if m.group(1) == "md.q_frv" else 0
        calls = self.queue_out({"hdr.lcf.type": T, "md.q_crv": crv, "md.q_frv": frv,
                                "md.q_a": env["md.q_a"], "md.q_b": env["md.q_b"],
                                "md.lk_old": old})
        if calls is None:
            return st, None
        names = [c for c, _ in calls]
        body = self.p4.action_body("q_abort_ack") or ""
        if names == ["q_abort_ack"] and \
                re.search(r"hdr\.lcf\.type\s*=\s*LCF_T_ABORT_ACK\s*;", body) and \
                re.search(r"hdr\.lcf\.flags\s*=\s*LCF_F_IN_SWITCH\s*\|\s*LCF_F_FAIL\s*;", body) and \
                re.search(r"hdr\.lcf\.aux\s*=\s*md\.aux_type\s*;", body) and \
                re.search(r"lcf_q_action_ctr\.count\(LCF_A_ABORT_PASSED\)", body) and \
                re.search(r"ucast_egress_port\s*=\s*ig_intr_md\.ingress_port", body):
            return st, "queue"
        return st, "p4 calls %s" % names

    def run(self, st, op, ev, lock):
        kind = op[0]
        if kind == "rel2":                  # op[2]: QGATE closed by this pass
            t = self.c["LCF_T_QRELEASE"]
            rs = self.c["LCF_RS_QRELEASE"]
            act, _ = first_match(self.qin, [1, 1, t, 1, rs, 0, 0, 0, 0, op[2]])
            a, b = self.operands(act or "-", self.fields(*ev))
            st, crv = self.ra("q_pass2", st, a, b)
            act, args = first_match(self.qout, [1, rs, t, 1, 0, 1, crv, 1, op[2]])
            if act == "q_deny0" and args and int(args[0], 0) == (t << 8 | 3):
                return st, ("closing",)
            if act == "q_release_ack" and args:
                return st, ("rel2", {"LCF_A_QRELEASE_EXEC": "exec",
                                     "LCF_A_QRELEASE_DUP": "dup"}.get(args[0], args[0]))
            return st, ("p4 action %s" % act,)
        _, ident, count, nxt, next_ok = op
        f = self.fields(*ev, aux=count, cs=nxt)
        t = self.c["LCF_T_QXFER" if kind == "xfer" else "LCF_T_QRELEASE"]
        _, old = self.lock.stage(lock, {"md.lcs_op": self.c["LCS_OP_READ"], "md.lk_a": 0,
                                        "md.lk_b": 0})
        rd = int(old & 0x3fff != 0)
        act, _ = first_match(self.qin, [1, 0, t, int(next_ok), 0, 0, 0, (old >> 14) & 1, rd, 0])
        a, b = self.operands(act or "-", f)
        st, crv = self.ra("q_check", st, a, b)
        calls = self.queue_out({"md.q_out": 1, "md.q_crv": crv, "md.q_b": b, "md.q_a": a,
                                "md.q_rd": rd, "md.q_next_ok": int(next_ok),
                                "hdr.lcf.type": t, "md.lk_old": old}) or []
        names = [c for c, _ in calls]
        if "q_resubmit" in names:
            arg = dict(calls)["q_resubmit"]
            if kind == "rel1" and self.c.get(arg) == self.c["LCF_RS_QRELEASE"]:
                return st, ("ok", None)
            if kind == "xfer" and self.c.get(arg) == self.c["LCF_RS_QXFER2"]:
                a2, b2 = self.operands("in_xfer2", f)
                st, _ = self.ra("q_pass2", st, a2, b2)
                act, _ = first_match(self.qout, [1, self.c["LCF_RS_QXFER2"], t, 1, 0, 1, 0, 1, 0])
                fwd = concat(self.action_assign(act or "-", "hdr.lcf.aux"),
                             {"hdr.lcf.aux": count}) & MASK if act == "q_xfer_ok" else -1
                return st, ("ok", fwd)
            return st, ("p4 resubmit %s" % arg,)
        if "q_deny_waiting" in names:
            m = re.search(r"q_deny\(([^;]*)\);", self.p4.action_body("q_deny_waiting") or "")
            ackhi = run(parse("x = %s;" % m.group(1)), self.c, {"hdr.lcf.type": t}, 32, None,
                        self.widths)[0]["x"] if m else 0
            return st, self._deny("q_deny", ackhi, crv, t)
        if "qout.apply" not in names:
            return st, ("p4 calls %s" % names,)
        act, args = first_match(self.qout, [0, 0, t, 1, 0, 1, crv, int(next_ok), 0])
        if act == "q_resubmit" and args and self.c.get(args[0]) == self.c["LCF_RS_QRELEASE"]:
            return st, ("ok", None)
        if act in ("q_deny", "q_deny0"):
            return st, self._deny(act, int(args[0], 0), crv, t)
        return st, ("p4 action %s" % act,)

    def _deny(self, act, ackhi, crv, t):
        if ackhi >> 8 != t:
            return ("ack of type 0x%x" % (ackhi >> 8),)
        aux = self.aux_out(act, {"md.q_crv": crv, "md.q_crv#w": 32}, ackhi) \
            if act == "q_deny" else concat(self.action_assign(act, "hdr.lcf.aux"),
                                           {"ackhi": ackhi, "ackhi#w": 16})
        if aux < 0 or aux >> 16 != ackhi:
            return ("deny aux 0x%x" % aux,)
        return ("deny", ackhi & 0xff, aux & 0xffff)

    def view(self, st):
        """The register in C's terms (lcf_queue.p4, 1. and 4.)."""
        hi, lo = st
        if hi == 0:
            return (0, 0)                    # DEVIATIONS[3]
        if lo == self.c.get("Q_MARK"):
            return (hi, CLOSING)
        sw = SWITCH if lo & self.c.get("Q_SW", 0) else 0
        return (hi, lo >> 16 | sw)
