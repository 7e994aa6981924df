# SPDX-License-Identifier: BSD-3-Clause
"""Parity of the queued lock mode over time: a seeded random sequence of
passes on one block (writes, reads, reader unlocks, the waiting writer and
its polls, aborted waiters, forwards, QXFER, QRELEASE with both passes,
WRITE_UNLOCK, FWD_CNT saturation) run through the C rules (parity_queue.py
CModel, parity_qlock.py CLock: read from lcf_queue.c and lcf_pipeline.c)
and through the P4 program (P4Model, P4Lock: the RegisterActions, q_in,
qsel and LcfQueueOut interpreted); every outcome, the LOCK word and the
QSTATE view must agree, save DEVIATIONS. Standard library only.
"""
import random
import re

from parity_qlock import CLock
from parity_queue import DEVIATIONS, MASK, SWITCH, CModel, P4Model
from parity_src import c_defines, strip_c_comments


EVENTS = [(0, 0, 5), (0, 0, 69), (1, 1, 7), (2, 15, 0xfffe), (1, 0, 6)]


def _id(e):
    return (e[0] + 1) << 26 | e[1] << 16 | e[2]


def _events(rng, n):
    ops = []
    for _ in range(n):
        k = rng.choice(["w", "w", "w", "poll", "poll", "r", "r", "ru", "ru", "over",
                        "xfer", "xfer", "rel1", "rel2", "rel2", "wu", "sat"])
        e = rng.choice(EVENTS)
        nxt = rng.choice(EVENTS + [(5, 0, 1)])       # node 5: not in the topology
        cnt = rng.choice([0, 1, 2, 3, 0xfffe, 0xffff])
        ops.append((k, e, _id(e), cnt, _id(nxt), nxt[0] != 5))
    return ops


def _c_request(cm, cl, lock, st, t, e, over):
    """C pass_request() in queued mode, check passed, no score held."""
    write = t != "READ_MISS"
    taken, waiter, new = cl.acquire(lock, write, 1)
    inp = dict(id=_id(e), grant=taken and write and not over, waiter=waiter, taken=taken,
               over=over, busy=not taken and not over,
               readers=new & cm.defs["LCF_LOCK_READERS"])
    st, out = cm.request(st, inp)
    if out[0] in ("wait", "grant"):
        ty = "LCF_T_QGRANT" if out[0] == "grant" else "LCF_T_QWAIT"
        aux = cm.defs["LCF_T_" + t] << 24 | (0 if out[0] == "grant" else inp["readers"])
        out = ("reply", cm.defs[ty], aux, "LCF_A_" + ("QGRANT" if out[0] == "grant" else "QWAIT"))
    elif out[0] == "undo":
        new = cl.release(new, 2)
        out = ("undo", 2, "LCF_A_NACK_ABORTED")
    return new, st, out


def queue_defs(qlock_h, pipe_h, wire_h):
    """The C constants the queued-mode models read: lcf_qlock.h's defines,
    lcf_pipeline.h's integer ones and the message types."""
    defs = c_defines(strip_c_comments(qlock_h))
    defs.update({k: v for k, v in c_defines(strip_c_comments(pipe_h)).items()
                 if isinstance(v, int)})
    defs.update({"LCF_T_" + n: int(v, 16) for n, v in
                 re.findall(r"X\((\w+),\s*(0x[0-9a-fA-F]+),", wire_h)})
    return defs


def check_queue_events(rep, p4, qc, pipe_c, pipe_h, qlock_h, wire_h):
    defs = queue_defs(qlock_h, pipe_h, wire_h)
    cm, cl, pm = CModel(qc, defs), CLock(pipe_c, pipe_h), P4Model(p4)
    if not cm.ok or not cl.ok:
        rep.fail("queued mode: C rules in lcf_queue.c / lcf_pipeline.c", cm.why + cl.why)
        return
    missing = [n for n in ("q_grant", "q_fwd", "q_check", "q_pass2") if n not in pm.ras]
    if missing or not pm.qout or not pm.out:
        rep.fail("queued mode: P4 lcf_queue.p4", ["RegisterAction(s) %s, table qout or "
                                                   "LcfQueueOut not found" % missing])
        return
    rng = random.Random(16)
    diffs, steps, tally = [], 0, {}
    for trial in range(80):
        cst, pst, clk, plk = (0, 0), (0, 0), 0, 0
        holder_ev, waiter_ev, pend, evof = None, None, [], {}
        for k, e, ident, cnt, nid, nok in _events(rng, 40):
            readers = clk & 0x3fff
            if k == "sat":                    # FWD_CNT near saturation
                if not cst[0] or holder_ev is None or pst[1] == pm.c.get("Q_MARK"):
                    continue
                cst = (cst[0], cst[1] & SWITCH | 0xfffe)
                pst = (pst[0], 0xfffe << 16 | (pst[1] & 0xffff))
                continue
            if k == "poll":
                if waiter_ev is None:
                    continue
                k, e, ident = "w", waiter_ev[0], waiter_ev[1]
            elif k in ("w", "r", "over") and waiter_ev and e[:2] == waiter_ev[0][:2] \
                    and e != waiter_ev[0]:
                continue    # a thread has one event: its next waits for the grant
            if k in ("r", "ru", "wu") and pend:
                continue    # QRELEASE's second pass follows its first at once
            if k == "ru":
                if not readers:
                    continue
                cout, pout = ("ru",), ("ru",)
                clk2 = cl.unlock(clk, False, 1)
                env = pm.lock.operands(1, "READ_UNLOCK", 0, 1)
                plk2 = pm.lock.stage(plk, env, lu_exec=1)[0]
                cst2, pst2, op = cst, pst, ("ru",)
            elif k == "wu":
                if not clk & 0xc000 or readers or pend:
                    continue                  # the lock's write holder unlocks
                cout, pout = ("wu",), ("wu",)
                clk2 = cl.unlock(clk, True)
                env = pm.lock.operands(1, "WRITE_UNLOCK", 0, 1)
                plk2 = pm.lock.stage(plk, env, lu_exec=1)[0]
                cst2, pst2, op = cst, pst, ("wu",)
                holder_ev = waiter_ev = None
            elif k in ("w", "r", "over"):
                t = rng.choice(["WRITE_MISS", "WRITE_SHARED", "EVICT_MODIFIED"]) \
                    if k != "r" else "READ_MISS"
                if k == "over" and not readers:
                    continue                  # an aborted event's late copy meets readers
                op = (k, t, e)
                clk2, cst2, cout = _c_request(cm, cl, clk, cst, t, e, k == "over")
                plk2, pst2, pout = pm.request(pst, plk, t, e, k == "over")
                if cout[0] == "reply" and cst2[0] == ident and cst2[1] & SWITCH:
                    waiter_ev = holder_ev = (e, ident)
                if t != "READ_MISS" and clk == 0 and clk2:
                    holder_ev, waiter_ev = (e, ident), None
            else:
                if k in ("xfer", "rel1", "rel2") and holder_ev and rng.random() < 0.6:
                    e, ident = holder_ev                  # mostly the holder
                if k in ("rel1", "xfer") and rng.random() < 0.5:
                    cnt = cst[1] & MASK                   # mostly the right count
                if k == "rel2":
                    if not pend:
                        continue
                    ident = pend.pop(0)             # an approved first pass's
                    e = evof.get(ident, e)
                ex = int(rng.random() < 0.75)   # QGATE: else another QRELEASE moved it
                op = {"rel2": ("rel2", ident, ex), "xfer": ("xfer", ident, cnt, nid, nok),
                      "rel1": ("rel1", ident, cnt, nid, nok)}[k]
                cst2, cout = cm.run(cst, op, clk)
                pst2, pout = pm.run(pst, op, e, plk)
                clk2, plk2 = clk, plk
                if k == "rel2" and ex:        # QRELEASE's second pass unlocks
                    clk2 = cl.unlock(clk, True)
                    plk2 = pm.lock.stage(plk, pm.lock.operands(1, "QRELEASE", 0, 1),
                                         lu_exec=1)[0]
                    holder_ev = waiter_ev = None
            steps += 1
            key = (k, cout[0], cout[1] if cout[0] in ("deny", "reply") else "")
            tally[key] = tally.get(key, 0) + 1
            evof[ident] = e
            if k == "rel1" and cout == ("ok", None) and pout == cout:
                pend.append(ident)              # its second pass is due
            if k == "xfer" and cout[0] == "ok":
                ne = [x for x in EVENTS if _id(x) == nid]
                holder_ev = (ne[0], nid) if ne else None
                waiter_ev = None
            if cout != pout or cst2 != pm.view(pst2) or clk2 != plk2:
                diffs.append("trial %d %s (LOCK 0x%x): C %s -> %s LOCK 0x%x, P4 %s -> %s "
                             "LOCK 0x%x (lo 0x%x)" % (trial, op, clk, cout, _hx(cst2), clk2,
                                                     pout, _hx(pm.view(pst2)), plk2, pst2[1]))
            cst, pst, clk, plk = cst2, pst2, clk2, plk2
            if len(diffs) > 6:
                break
    if diffs:
        rep.fail("queued mode: LOCK + QSTATE events, C lcf_queue.c/lcf_pipeline.c vs P4 "
                 "(allowed: %s)" % "; ".join(DEVIATIONS), diffs[:6])
    else:
        rep.ok("queued mode: LOCK + QSTATE events, C vs P4 LOCK and QSTATE RegisterActions, "
               "q_in, qsel, LcfQueueOut; %d random steps (writes, reads, reader unlocks, "
               "waiter, polls, aborted waiters, forwards, QXFER, QRELEASE, WRITE_UNLOCK, "
               "saturation; allowed: %s): %s" % (steps, "; ".join(DEVIATIONS), ", ".join(
                   "%s %s%s %d" % (k, o, (" %s" % r) if r != "" else "", n)
                   for (k, o, r), n in sorted(tally.items(), key=str))))


def _hx(st):
    return "{0x%x, 0x%x}" % st
