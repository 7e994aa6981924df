# SPDX-License-Identifier: BSD-3-Clause
"""Parity of the LOCK word in the queued lock mode (docs/QUEUED-LOCKS.md 3,
"a write that meets readers waits at the switch"): C lcf_stage_lock*() in
lib/lcf/lcf_pipeline.c against P4's LOCK RegisterActions (lcf_ways.p4), the
operands op_select and q_lock_op give them (lcf_validate.p4), took_tbl and
the waiter flag (lcf_decide.p4); and the request decisions (C
pass_request_queue() / lcf_q_request()'s rows vs P4 q_in, qsel and
LcfQueueOut) on every LOCK class, type, scoreboard state, check and stale
flag. Both sides are read from the sources: a changed rule changes the
model. Standard library only.
"""
import re

from parity_p4interp import control_apply, parse, preprocess, ra_bodies, run
from parity_src import c_defines, c_function, first_match, strip_c_comments

REQUESTS = ["READ_MISS", "WRITE_MISS", "WRITE_SHARED", "EVICT_SHARED",
            "EVICT_MODIFIED"]
# LOCK values of every class: free, readers, saturated readers, a waiting
# writer with and without readers, a writer
LOCKS = [0, 1, 5, 0x3ffe, 0x3fff, 0x4000, 0x4001, 0x7fff, 0x8000]


def c_cond(e, defs):
    e = strip_c_comments(e)
    e = re.sub(r"\s+", " ", e).replace("(uint16_t)", "")
    e = e.replace("md->lock", "lock")
    e = re.sub(r"\bLCF_\w+\b", lambda m: str(defs.get(m.group(0), m.group(0))), e)
    e = e.replace("&&", " and ").replace("||", " or ")
    e = re.sub(r"!(?!=)", " not ", e)
    e = e.replace("~", "0xffff ^ ")
    return re.sub(r"\bfalse\b", "False", re.sub(r"\btrue\b", "True", e))


class CLock:
    """lcf_stage_lock(), _release(), _unlock() of lcf_pipeline.c."""

    def __init__(self, pipe_c, pipe_h):
        self.ok, self.why = True, []
        defs = c_defines(strip_c_comments(pipe_h))
        defs.update({k: v for k, v in c_defines(strip_c_comments(pipe_c)).items()
                     if isinstance(v, int)})
        self.defs = defs
        body = strip_c_comments(c_function(pipe_c, "lcf_stage_lock") or "")
        t = re.search(r"if\s*\(write\)\s*phv->lock_taken\s*=\s*([^;]+);\s*else\s*"
                      r"phv->lock_taken\s*=\s*([^;]+);", body)
        s = re.search(r"if\s*\(phv->lock_taken\)\s*md->lock\s*=\s*write\s*\?\s*(\w+)\s*:"
                      r"\s*\(uint16_t\)\(md->lock\s*\+\s*1\);", body)
        w = re.search(r"else\s+if\s*\(([^{]*?)\)\s*\{\s*phv->waiter\s*=\s*true;\s*"
                      r"md->lock\s*\|=\s*(\w+);", body)
        if not (t and s and w):
            self.fail("lcf_stage_lock(): taken (write, read), WRITER, waiter |= WAITING")
            return
        self.take_w, self.take_r = c_cond(t.group(1), defs), c_cond(t.group(2), defs)
        self.writer = defs.get(s.group(1))
        self.wait_cond, self.wait_bit = c_cond(w.group(1), defs), defs.get(w.group(2))
        rel = strip_c_comments(c_function(pipe_c, "lcf_stage_lock_release") or "")
        k2 = re.search(r"if\s*\(kind\s*==\s*LCF_RS_KIND_WAITING\)\s*md->lock\s*&=\s*"
                       r"\(uint16_t\)\s*~\s*(\w+);\s*else\s+if\s*\(kind\)\s*md->lock\s*&=\s*"
                       r"\(uint16_t\)\s*~\s*(\w+);", rel)
        unl = strip_c_comments(c_function(pipe_c, "lcf_stage_lock_unlock") or "")
        ur = re.search(r"md->lock\s*=\s*\(uint16_t\)\(\(md->lock\s*&\s*\(([^)]*)\)\)\s*\|\s*"
                       r"\(readers\s*-\s*sub\)\)", unl)
        uw = re.search(r"else\s*\{\s*md->lock\s*&=\s*\(uint16_t\)\s*~\s*\(([^)]*)\);", unl)
        call = re.search(r"lcf_stage_lock\(p,\s*phv,\s*write,\s*([^;]*?)\);",
                         strip_c_comments(c_function(pipe_c, "pass_request") or ""))
        if not (k2 and ur and uw and call):
            self.fail("lcf_stage_lock_release() kinds 2 and 1, lcf_stage_lock_unlock() "
                      "kept/cleared bits, pass_request()'s wait argument")
            return
        self.rel_wait, self.rel_write = defs.get(k2.group(1)), defs.get(k2.group(2))
        self.unl_r_keep = eval(c_cond(ur.group(1), defs))
        self.unl_w_clear = eval(c_cond(uw.group(1), defs))
        self.wait_arg = c_cond(call.group(1).replace("p->cfg.queued", "queued"), defs)

    def fail(self, what):
        self.ok = False
        self.why.append("rule not found in lcf_pipeline.c (C changed? update the P4 "
                        "and this checker): " + what)

    def acquire(self, lock, write, queued):
        """(taken, waiter, new LOCK) of a request's lock stage."""
        wait = eval(self.wait_arg, {}, dict(write=write, queued=queued))
        env = dict(lock=lock, wait=wait)
        taken = eval(self.take_w if write else self.take_r, {}, env)
        if taken:
            return True, False, self.writer if write else lock + 1
        if eval(self.wait_cond, {}, env):
            return False, True, lock | self.wait_bit
        return False, False, lock

    def release(self, lock, kind):
        if kind == 2:
            return lock & ~self.rel_wait & 0xffff
        if kind:
            return lock & ~self.rel_write & 0xffff
        readers = lock & self.defs["LCF_LOCK_READERS"]
        return lock - 1 if readers else lock

    def unlock(self, lock, write, score=1):
        if write:
            return lock & ~self.unl_w_clear & 0xffff
        readers = lock & self.defs["LCF_LOCK_READERS"]
        return (lock & self.unl_r_keep) | (readers - min(score, readers))


class P4Lock:
    """The queued build's LOCK stage: op_select + q_lock_op operands, the lcs
    table's RegisterAction, took_tbl and LcfCheck's waiter flag."""

    def __init__(self, p4):
        self.p4, self.c = p4, p4.consts
        self.src = preprocess(p4.src, 1)
        self.ra = {n: parse(b) for n, b in ra_bodies(self.src, "lock").items()}
        self.ops = p4.entries("op_select") or []
        self.qops = p4.entries("q_lock_op") or []
        self.lcs = p4.entries("lcs") or []
        self.took = p4.entries("took_tbl") or []
        chk = control_apply(self.src, "LcfCheck")
        self.check = parse(chk) if chk else []

    def operands(self, pass2, t, kind, queued):
        act, args = first_match(self.ops, [pass2, self.c["LCF_T_" + t], kind])
        if act == "op":
            env = {"md.lcs_op": self.p4.value(args[1]), "md.sb_op": self.p4.value(args[2]),
                   "md.lk_a": self.p4.value(args[3]), "md.lk_b": self.p4.value(args[4])}
        else:
            env = {"md.lcs_op": self.c["LCS_OP_NONE"], "md.sb_op": self.c["SB_OP_NONE"],
                   "md.lk_a": 0, "md.lk_b": 0, "md.rs_in.score": 1}
            if act:
                run(parse(self.p4.action_body(act) or ""), self.c, env, 16)
        qa, _ = first_match(self.qops, [int(queued), pass2, self.c["LCF_T_" + t], kind]) \
            if self.qops else (None, None)
        if qa and qa != "NoAction":
            run(parse(self.p4.action_body(qa) or ""), self.c, env, 16)
        return env

    def stage(self, lock, env, lu_exec=0, stale=0):
        """(new LOCK, lk_old) of the lock stage, None when it does not run."""
        act, _ = first_match(self.lcs, [env["md.lcs_op"], lu_exec, stale])
        body = preprocess(self.p4.action_body(act or "") or "", 1)
        m = re.search(r"md\.lk_old\s*=\s*(\w+)\.execute", body)
        if not m:
            return lock, 0
        e, _ = run(self.ra.get(m.group(1), []), self.c,
                   {"v": lock, "r": 0, "md.lk_a": env["md.lk_a"], "md.lk_b": env["md.lk_b"]}, 16)
        return e["v"], e["r"]

    def request(self, lock, t, queued, stale=0):
        """(taken, waiter, new LOCK, lk_old, q_rd) of a request's first pass."""
        env = self.operands(0, t, 0, queued)
        new, old = self.stage(lock, env, 0, stale)
        act, _ = first_match(self.took, [env["md.sb_op"], self.c["LCF_T_" + t], old, stale])
        md = {"md.drop": 0, "md.l2": 0, "md.hit": 1, "md.pass2": 0, "md.lk_old": old,
              "md.lcs_op": env["md.lcs_op"], "md.lu_stale": stale}
        run(self.check, self.c, md, 32)
        return act == "took_yes", md.get("md.q_waiter") == 1, new, old, md.get("md.q_rd", 0)


def check_lock(rep, p4, pipe_c, pipe_h):
    """LOCK of every request type, lock class and mode; releases and unlocks."""
    cl, pl = CLock(pipe_c, pipe_h), P4Lock(p4)
    if not cl.ok:
        rep.fail("queued mode: LOCK, C lcf_stage_lock*()", cl.why)
        return
    if not pl.ra or not pl.qops:
        rep.fail("queued mode: LOCK, P4", ["lock RegisterActions or table q_lock_op not found"])
        return
    cres, pres = {}, {}
    for queued in (0, 1):
        for t in REQUESTS:
            for lock in LOCKS:
                k = "%s %s LOCK 0x%04x" % ("queued" if queued else "retry", t, lock)
                tk, wt, new = cl.acquire(lock, t != "READ_MISS", queued)
                cres[k] = "taken=%d waiter=%d -> 0x%04x" % (tk, wt, new)
                tk, wt, new, _, _ = pl.request(lock, t, queued)
                pres[k] = "taken=%d waiter=%d -> 0x%04x" % (tk, wt, new)
        # second passes: RELEASE kinds, unlocks (executed)
        for lock in LOCKS:
            for kind in (0, 1, 2):
                if kind == 2 and not queued:
                    continue
                t = "READ_MISS" if kind == 0 else "WRITE_MISS"
                k = "%s RELEASE kind %d LOCK 0x%04x" % ("queued" if queued else "retry", kind, lock)
                if kind == 1 and lock not in (0x8000,) or kind == 2 and not lock & 0x4000 \
                        or kind == 0 and not lock & 0x3fff:
                    continue            # a RELEASE finds the lock its first pass took
                cres[k] = "0x%04x" % cl.release(lock, kind)
                pres[k] = "0x%04x" % pl.stage(lock, pl.operands(1, t, kind, queued))[0]
            for t in ("WRITE_UNLOCK", "QRELEASE"):
                if t == "QRELEASE" and not queued:
                    continue
                if lock not in (0x8000, 0x4000) or lock == 0x4000 and not queued:
                    continue            # READERS is 0 at an executed write unlock
                k = "%s %s LOCK 0x%04x" % ("queued" if queued else "retry", t, lock)
                cres[k] = "0x%04x" % cl.unlock(lock, True)
                env = pl.operands(1, t, 0, queued)
                pres[k] = "0x%04x" % pl.stage(lock, env, lu_exec=1)[0]
            if lock & 0x3fff and (queued or not lock & 0x4000):
                k = "%s READ_UNLOCK (score 1) LOCK 0x%04x" % ("queued" if queued else "retry", lock)
                cres[k] = "0x%04x" % cl.unlock(lock, False, 1)
                env = pl.operands(1, "READ_UNLOCK", 0, queued)     # score 1
                pres[k] = "0x%04x" % pl.stage(lock, env, lu_exec=1)[0]
    rep.compare("queued mode: LOCK (C lcf_stage_lock/_release/_unlock vs P4 op_select, "
                "q_lock_op, lcs RegisterActions, took_tbl, q_waiter)", "C", cres, "P4", pres)
