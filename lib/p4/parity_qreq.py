# SPDX-License-Identifier: BSD-3-Clause
"""Parity of the queued mode's request decisions (docs/QUEUED-LOCKS.md 3,
rows 1-6): C pass_request() / pass_request_queue() / lcf_q_request() against
P4's LOCK stage, q_in, qsel, the QSTATE RegisterActions and LcfQueueOut, on
every request type, LOCK class, SCOREBOARD state (none, held, over, in each
P4 encoding), Table 2 check and stale flag, each against two QSTATEs: the
request's own switch tenure (where a poll is answered) and another holder's
tenure (where a busy request is forwarded); the own switch tenure only
with WAITING set (the design's invariant: WAITING is cleared only with the
tenure ended or handed on). Standard library only.
"""
import re

from parity_qlock import LOCKS, REQUESTS, CLock
from parity_qevents import EVENTS, _id, queue_defs
from parity_queue import CModel, P4Model
from parity_src import c_defines, c_function, strip_c_comments

# C's SCOREBOARD state of the event -> SCOREBOARD C's answer in P4 (class,
# c as it was), every encoding (LcfScoreboard)
SB_ENC = {"none": [("AFTER", 0), ("EQ", 0)],
          "held": [("EQ", 1), ("EQ", 0x3fff)],
          "over": [("OLDER", 0), ("EQ", 0xc0000000), ("EQ", 0x80000002)]}


def _site_ok(pipe_c):
    """The C call site and lcf_q_in's fields as this checker models them."""
    req = c_function(pipe_c, "pass_request") or ""
    prq = c_function(pipe_c, "pass_request_queue") or ""
    want = [r"\.grant\s*=\s*phv->lock_taken\s*&&\s*write_ok\s*&&\s*!phv->sb_over",
            r"\.waiter\s*=\s*phv->waiter", r"\.taken\s*=\s*phv->lock_taken",
            r"\.over\s*=\s*phv->sb_over",
            r"\.busy\s*=\s*!phv->lock_taken\s*&&\s*!phv->sb_held\s*&&\s*!phv->sb_over",
            r"\.readers\s*=\s*hit_meta\(p,\s*phv\)->lock\s*&\s*LCF_LOCK_READERS"]
    miss = [w for w in want if not re.search(w, prq)]
    sp = c_function(pipe_c, "pass_stale_poll") or ""
    if not re.search(r"lcf_stage_last_unlock_stale\(p,\s*phv\)\)\s*\{\s*if\s*\(\s*p->cfg\.queued"
                     r"\s*&&\s*pass_stale_poll\(\s*p\s*,\s*phv\s*,\s*res\s*\)\s*\)\s*return;", req) \
            or not re.search(r"readers\s*=\s*md->lock\s*&\s*LCF_LOCK_READERS", sp) \
            or not re.search(r"lcf_q_wait_reply\(\s*phv->m\s*,\s*!readers\s*,\s*readers\s*\)", sp):
        miss.append("pass_request(): a stale request, queued mode: pass_stale_poll() "
                    "(lcf_q_stale_poll(), QWAIT/QGRANT by READERS) before the NACK")
    if not re.search(r"p->cfg\.queued\s*&&\s*pass_request_queue\(\s*p\s*,\s*phv\s*,\s*res\s*,"
                     r"\s*write\s*&&\s*chk\s*\)", req):
        miss.append("pass_request_queue(p, phv, res, write && chk)")
    return miss


def check_queue_request(rep, p4, pipe_c, pipe_h, qc, qlock_h, wire_h):
    defs = queue_defs(qlock_h, pipe_h, wire_h)
    cm, cl, pm = CModel(qc, defs), CLock(pipe_c, pipe_h), P4Model(p4)
    miss = _site_ok(pipe_c)
    if not cm.ok or not cl.ok or miss:
        rep.fail("queued mode: C pass_request_queue() / lcf_q_request()",
                 cm.why + cl.why + ["not found: " + m for m in miss])
        return
    me, other = EVENTS[2], EVENTS[3]
    hb = lambda e: (e[0] + 1) << 10 | (e[1] & 0xf) << 6 | (e[2] & 0x3f)
    probes = {"own switch tenure": ((_id(me), SWITCH_C(defs)),
                                    (_id(me), hb(me) | p4.consts.get("Q_SW", 0))),
              "another's tenure": ((_id(other), 2), (_id(other), 2 << 16 | hb(other)))}
    cres, pres = {}, {}
    for t in REQUESTS:
        for lock in LOCKS:
            for sb, encs in SB_ENC.items():
                for chk in (0, 1):
                    for stale in (0, 1):
                        for pn, (cst, pst) in probes.items():
                            if pn.startswith("own") and not lock & 0x4000:
                                continue    # a switch tenure exists only with WAITING
                            k = "%s LOCK 0x%04x sb=%s chk=%d stale=%d, %s" % (
                                t, lock, sb, chk, stale, pn)
                            cres[k] = _c_outcome(cm, cl, lock, cst, t, me, sb, chk, stale)
                            got = set()
                            for enc in encs:
                                lk, st, out = pm.request(pst, lock, t, me, sb == "over",
                                                         enc, chk, stale)
                                got.add("%s LOCK 0x%04x QSTATE %s" % (
                                    out, lk, pm.view(st)))
                            pres[k] = " / ".join(sorted(got))
    rep.compare("queued mode: request decisions, rows 1-6 (C lcf_stage_lock + "
                "pass_request_queue + lcf_q_request vs P4 LOCK, q_in, qsel, QSTATE, "
                "LcfQueueOut; a poll is answered whatever SCOREBOARD says)",
                "C", cres, "P4", pres)


def check_queue_abort(rep, p4, pipe_c, qc, qlock_h, pipe_h):
    """ABORT on a hit, queued mode: C pass_abort() (SCOREBOARD's "a copy
    passed", then lcf_q_abort_waiting()) against P4 (q_in's in_abort, qsel,
    q_check, LCF_QUEUE_OUT, LcfQueueOut's q_abort_ack; else LcfDispatch by
    SCOREBOARD's held), on every QSTATE of interest and SCOREBOARD state."""
    defs = c_defines(strip_c_comments(qlock_h))
    defs.update({k: v for k, v in c_defines(strip_c_comments(pipe_h)).items()
                 if isinstance(v, int)})
    cm, pm = CModel(qc, defs), P4Model(p4)
    body = strip_c_comments(c_function(pipe_c, "pass_abort") or "")
    site = re.search(r"if\s*\(\s*lcf_stage_sb_abort\(\s*p\s*,\s*phv\s*\)\s*\)\s*\{[^}]*"
                     r"LCF_A_ABORT_PASSED\s*\)\s*;\s*return\s*;\s*\}\s*"
                     r"if\s*\(\s*lcf_q_abort_waiting\(\s*p\s*,[^{]*?lcf_q_id\(\s*phv->m->node\s*,"
                     r"\s*phv->m->thread\s*,\s*phv->m->seq\s*\)\s*\)\s*\)\s*\{\s*res_reply\("
                     r"[^;]*LCF_T_ABORT_ACK\s*,\s*LCF_F_IN_SWITCH\s*\|\s*LCF_F_FAIL\s*,"
                     r"\s*LCF_A_ABORT_PASSED\s*\)\s*;\s*return\s*;\s*\}", body)
    if not cm.ok or not site:
        rep.fail("queued mode: ABORT of a waiting tenure (C pass_abort())",
                 cm.why + ([] if site else ["pass_abort(): SCOREBOARD's passed, then "
                                            "lcf_q_abort_waiting(...lcf_q_id(node, thread, "
                                            "seq)) -> ABORT_ACK | FAIL, ABORT_PASSED"]))
        return
    me, other = EVENTS[2], EVENTS[3]
    hb = lambda e: (e[0] + 1) << 10 | (e[1] & 0xf) << 6 | (e[2] & 0x3f)
    sw, psw, mark = SWITCH_C(defs), p4.consts.get("Q_SW", 0), p4.consts.get("Q_MARK", 0)
    CL = 0x80000000
    probes = {"own switch tenure": ((_id(me), sw | 1), (_id(me), 1 << 16 | hb(me) | psw)),
              "own tenure": ((_id(me), 1), (_id(me), 1 << 16 | hb(me))),
              "own tenure closing": ((_id(me), CL), (_id(me), mark)),
              "another's switch tenure": ((_id(other), sw), (_id(other), hb(other) | psw)),
              "another's tenure": ((_id(other), 2), (_id(other), 2 << 16 | hb(other))),
              "no queue": ((0, 0), (0, 0))}
    cres, pres = {}, {}
    for lock in (0x4001, 0x4000, 0x8000, 0x0001, 0):
        for sb, encs in SB_ENC.items():
            for pn, (cst, pst) in probes.items():
                k = "LOCK 0x%04x sb=%s, %s" % (lock, sb, pn)
                passed = sb == "held" or cm.abort_waiting(cst, _id(me))
                cres[k] = "%s QSTATE %s" % ("passed" if passed else "home", cst)
                got = set()
                for enc in encs:
                    st, out = pm.abort(pst, lock, me, enc)
                    if out is None:      # LcfDispatch: held -> d_abort_ack
                        out = "passed" if sb == "held" else "home"
                    elif out == "queue":
                        out = "passed"
                    got.add("%s QSTATE %s" % (out, pm.view(st)))
                pres[k] = " / ".join(sorted(got))
    rep.compare("queued mode: ABORT on a hit (C pass_abort + lcf_q_abort_waiting vs P4 "
                "q_in in_abort, qsel, q_check, LcfQueueOut q_abort_ack, else LcfDispatch "
                "by held): a waiting tenure's ABORT is answered passed", "C", cres, "P4", pres)


def SWITCH_C(defs):
    return defs["LCF_Q_SWITCH"]


def _c_outcome(cm, cl, lock, cst, t, e, sb, chk, stale):
    if stale:                              # before the lock stage, LOCK read only
        out = ("none",)                    # NACKed (LcfDispatch), unless the poll:
        if cm.stale_poll(cst, _id(e)):
            rd = lock & cm.defs["LCF_LOCK_READERS"]
            out = ("reply", cm.defs["LCF_T_QWAIT" if rd else "LCF_T_QGRANT"],
                   cm.defs["LCF_T_" + t] << 24 | rd, "LCF_A_" + ("QWAIT" if rd else "QGRANT"))
        return "%s LOCK 0x%04x QSTATE %s" % (out, lock, cst)
    write = t != "READ_MISS"
    taken, waiter, new = cl.acquire(lock, write, 1)
    over = sb == "over"
    held = sb == "held" or (taken and chk and not over)
    inp = dict(id=_id(e), grant=taken and write and bool(chk) and not over, waiter=waiter,
               taken=taken, over=over, busy=not taken and not held and not over,
               readers=new & cm.defs["LCF_LOCK_READERS"])
    st, out = cm.request(cst, inp)
    if out[0] in ("wait", "grant"):
        g = out[0] == "grant"
        out = ("reply", cm.defs["LCF_T_QGRANT" if g else "LCF_T_QWAIT"],
               cm.defs["LCF_T_" + t] << 24 | (0 if g else inp["readers"]),
               "LCF_A_" + ("QGRANT" if g else "QWAIT"))
    elif out[0] == "undo":
        new = cl.release(new, 2)
        out = ("undo", 2, "LCF_A_NACK_ABORTED")
    return "%s LOCK 0x%04x QSTATE %s" % (out, new, st)
