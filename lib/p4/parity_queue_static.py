# SPDX-License-Identifier: BSD-3-Clause
"""Static parity checks of the queued lock mode (the dynamic ones are in
parity_queue.py): QRELEASE's gate QGATE (C lcf_q_gate_*() vs P4 qg_*),
QXFER/QRELEASE ending their event in SCOREBOARD, the
passes of the queue types in op_select, the validate table accepting
0x0c/0x0d, the resubmit ops; the stateful-ALU budget of every QSTATE
RegisterAction and qg_* (at most 2 distinct compares, 4 instructions,
one output operand besides 0, 4 RegisterActions per register, 4 big
constants). check_queue() runs every queued-mode check.

Standard library only.
"""
import re

from parity_p4interp import control_apply, preprocess, ra_bodies
from parity_qlock import check_lock
from parity_qreq import check_queue_abort, check_queue_request
from parity_qevents import check_queue_events
from parity_queue import _ra_bodies, run_ra
from parity_src import c_function, first_match, strip_c_comments


def _lu_run(ra, vseq, vopen, seq):
    """A {seq, open_seq} RegisterAction (lcf_ways.p4) on C's {seq, open}."""
    e = run_ra(re.sub(r"\(int<32>\)\s*\(hdr\.lcf\.seq\s*-\s*v\.seq\)\s*>\s*0",
                      "(0 < ((hseq - seq) & 0xffffffff) < 0x80000000)", ra)
               .replace("hdr.lcf.seq", "hseq"), {},
               dict(seq=vseq, open_seq=vseq if vopen else (vseq + 1) & 0xffffffff, hseq=seq))
    ok = e["open_seq"] in (e["seq"], (e["seq"] + 1) & 0xffffffff)
    return (e["seq"], 1 if e["open_seq"] == e["seq"] else 0, e["rv"]) if ok else None


def _check_gate(p4, pipe_c, qc, diff):
    """QGATE[r]: C lcf_q_gate_open/_close vs P4 qg_open/qg_close."""
    go = c_function(qc, "lcf_q_gate_open") or ""
    gc = c_function(qc, "lcf_q_gate_close") or ""
    if not re.search(r"if\s*\(\s*g->seq\s*!=\s*seq\s*\|\|\s*!g->open\s*\)\s*\*g\s*=\s*"
                     r"\(struct lcf_lu\)\{\s*seq\s*,\s*1\s*\}", go) or \
            not re.search(r"if\s*\(\s*g->seq\s*!=\s*seq\s*\|\|\s*!g->open\s*\)\s*return\s+"
                          r"false;\s*g->open\s*=\s*0;\s*return\s+true;", gc):
        diff.append("C lcf_q_gate_open(): not {seq, open} -> {seq, 1}; lcf_q_gate_close(): "
                    "{seq, open} -> closed, true")
    ras = _ra_bodies(p4.src, "qgate")
    cases = [(5, 1, 10), (10, 1, 10), (12, 1, 10), (10, 0, 10), (12, 0, 10),
             (0xfffffff0, 1, 3), (3, 1, 0xfffffff0), (0, 0, 0)]
    for vseq, vopen, seq in cases:
        want_o = (vseq, 1) if (vseq == seq and vopen) else (seq, 1)
        got = _lu_run(ras.get("qg_open", ""), vseq, vopen, seq)
        if not got or got[:2] != want_o:
            diff.append("P4 qg_open {%d, %d} seq %d: %s, C %s" % (vseq, vopen, seq, got, want_o))
        ex = vseq == seq and vopen
        want_c = (vseq, 0, 1) if ex else (vseq, vopen, 0)
        got = _lu_run(ras.get("qg_close", ""), vseq, vopen, seq)
        if not got or got != want_c:
            diff.append("P4 qg_close {%d, %d} seq %d: %s, C %s" % (vseq, vopen, seq, got, want_c))
    first = c_function(pipe_c, "pass_first") or ""
    if not re.search(r"type\s*==\s*LCF_T_QRELEASE\s*&&\s*p->cfg\.queued\)\s*lcf_q_gate_open\("
                     r"\s*p\s*,\s*phv->req\s*,\s*phv->m->seq\s*\)", first) or \
            re.search(r"QRELEASE\)[^;]*\n?\s*\(void\)\s*lcf_stage_last_unlock_open", first) or \
            "lcf_q_lu_end" in first:
        diff.append("C pass_first(): QRELEASE (queued) opens QGATE, not LAST-UNLOCK; "
                    "QXFER leaves LAST-UNLOCK alone")
    lul = re.search(r"control\s+LcfLastUnlock\b.*?\n\}", p4.src, re.S)
    lul = lul.group(0) if lul else ""
    if not re.search(r"md\.sb_op\s*==\s*SB_OP_QOPEN\s*&&\s*md\.q_mode\s*==\s*1[^{]*\{"
                     r"\s*qg_open\.execute\(md\.req\)", lul) or \
            not re.search(r"md\.sb_op\s*==\s*SB_OP_QDONE\s*&&\s*md\.rs_in\.op\s*==\s*"
                          r"LCF_RS_QRELEASE\s*&&\s*md\.q_mode\s*==\s*1\)\s*\{\s*"
                          r"md\.lu_exec\s*=\s*qg_close\.execute\(md\.req\)", lul) or \
            re.search(r"last_unlock\)\s*\w+\s*=", lul) and "SB_OP_QEND" in lul or \
            re.search(r"LCF_RS_QRELEASE\)\s*\{\s*md\.lu_exec\s*=\s*lu_close", lul):
        diff.append("P4 LcfLastUnlock: QRELEASE pass 1 (queued) -> qg_open, pass 2 -> "
                    "lu_exec = qg_close; QXFER/QRELEASE leave LAST-UNLOCK alone")


def _check_sb_qend(p4, pipe_c, diff):
    """QXFER/QRELEASE end their event in SCOREBOARD (queued mode): C
    lcf_stage_sb_qend() / _unlock_miss() / _qdone() vs P4 sb_seq_tbl, sb,
    c_abort with sb_or, c_set."""
    qe = c_function(pipe_c, "lcf_stage_sb_qend") or ""
    qd = c_function(pipe_c, "lcf_stage_sb_qdone") or ""
    pq = c_function(pipe_c, "pass_queue") or ""
    pm = c_function(pipe_c, "pass_miss") or ""
    if not re.search(r"if\s*\(\s*e->seq\s*==\s*seq\s*&&\s*lcf_sb_is_count\(e->c\)\s*&&\s*"
                     r"e->c\s*>\s*0\s*\)\s*e->c\s*\|=\s*LCF_SB_CLAIMED;\s*else\s+if\s*\(\s*"
                     r"\(\s*e->seq\s*==\s*seq\s*&&\s*e->c\s*==\s*0\s*\)\s*\|\|\s*sb_older\("
                     r"\s*e\s*,\s*seq\s*\)\s*\)\s*\*e\s*=\s*\(struct lcf_sb\)\{\s*seq\s*,\s*"
                     r"LCF_SB_ENDED\s*\}", qe) or \
            not re.search(r"if\s*\(\s*e->seq\s*==\s*phv->m->seq\s*\)\s*e->c\s*=\s*LCF_SB_ENDED", qd) or \
            not re.search(r"if\s*\(\s*p->cfg\.queued\s*\)\s*lcf_stage_sb_qend\(", pq) or \
            not re.search(r"is_unlock\(type\)\s*\|\|\s*\(\s*lcf_type_is_queue\(type\)\s*&&\s*"
                          r"p->cfg\.queued\s*\)\s*\)\s*lcf_stage_sb_unlock_miss", pm):
        diff.append("C: lcf_stage_sb_qend() (count -> CLAIMED, 0 or later -> {seq, ENDED}), "
                    "a miss as an unlock's, lcf_stage_sb_qdone() (ENDED), queued mode")
        return
    c = p4.consts
    sq, sb = p4.entries("sb_seq_tbl") or [], p4.entries("sb") or []
    ab = re.search(r"RegisterAction<[^(]*>\(sb_c\)\s*c_abort\s*=\s*\{\s*void\s+apply\([^)]*\)"
                   r"\s*\{(.*?)\n        \}\s*\};", p4.src, re.S)
    ENDED, CLAIMED = c.get("SB_ENDED", 0), c.get("SB_CLAIMED", 0)
    for op in ("SB_OP_QEND", "SB_OP_QOPEN"):
        for hit in (0, 1):
            for eseq, ec in ((10, 0), (10, 3), (10, CLAIMED | 2), (10, ENDED), (5, 3),
                             (12, 0), (12, 2), (10 + 0x80000000, 1), (0, 0),
                             (0, ENDED)):
                seq = 10
                # C; SEQ 0 is empty (sb_older()): older than any seq
                d = (seq - eseq) & 0xffffffff
                after = 0 < d < 0x80000000 or eseq == 0
                if hit:
                    if eseq == seq and ec < ENDED and ec > 0:
                        want = (eseq, ec | CLAIMED)
                    elif (eseq == seq and ec == 0) or after:
                        want = (seq, ENDED)
                    else:
                        want = (eseq, ec)
                else:
                    want = (seq, ENDED) if eseq == seq or after else (eseq, ec)
                a1, args1 = first_match(sq, [c.get(op), hit, 0, 0, 0])
                body1 = p4.action_body(a1 or "") or ""
                newc = ENDED if "SB_ENDED" in body1 and "sb_newc = SB_ENDED" in body1 else \
                    (c.get(args1[0], 0) if args1 else 0)
                orv = CLAIMED if "sb_or = SB_CLAIMED" in body1 else 0
                nseq = seq if ("sq_advance.execute" in body1 and after) else eseq
                a2, _ = first_match(sb, [c.get(op), hit, 0, 0, 0, d])
                if a2 == "c_do_abort" and ab:
                    nc = run_ra(ab.group(1), c, {"v": ec, "sb_or": orv})["v"]
                elif a2 == "c_do_set":
                    nc = newc
                else:
                    nc = ec
                if (nseq, nc) != want:
                    diff.append("%s hit=%d {%d, 0x%x}: P4 %s/%s -> {%d, 0x%x}, C {%d, 0x%x}"
                                % (op, hit, eseq, ec, a1, a2, nseq, nc, want[0], want[1]))
    a1, args1 = first_match(sq, [c.get("SB_OP_QDONE"), 1, 0, 1, 0])
    a2, _ = first_match(sb, [c.get("SB_OP_QDONE"), 1, 0, 1, 0, 0])
    if (a1, args1, a2) != ("s_look", ["SB_ENDED"], "c_do_set"):
        diff.append("P4 QRELEASE pass 2 executed: %s(%s), %s; C: EQ -> ENDED" % (a1, args1, a2))
    app = control_apply(p4.src, "LcfScoreboard") or ""
    if not re.search(r"md\.q_mode\s*==\s*1\s*\|\|\s*\(\s*md\.sb_op\s*!=\s*SB_OP_QEND\s*&&"
                     r"\s*md\.sb_op\s*!=\s*SB_OP_QOPEN\s*&&\s*md\.sb_op\s*!=\s*SB_OP_QDONE", app):
        diff.append("P4 LcfScoreboard: QXFER/QRELEASE touch SCOREBOARD in retry mode")


def check_queue_structure(rep, p4, pipe_c, qc, wire_h):
    diff = []
    _check_gate(p4, pipe_c, qc, diff)
    _check_sb_qend(p4, pipe_c, diff)
    ops = p4.entries("op_select") or []
    c = p4.consts

    def opsel(pass2, t):
        a, args = first_match(ops, [pass2, c[t], 0])
        return (a, args[1:3] if args else None)
    want = {(0, "LCF_T_QXFER"): ("op", ["LCS_OP_READ", "SB_OP_QEND"]),
            (0, "LCF_T_QRELEASE"): ("op", ["LCS_OP_READ", "SB_OP_QOPEN"]),
            (1, "LCF_T_QRELEASE"): ("op", ["LCS_OP_UNLOCK_W", "SB_OP_QDONE"])}
    for k, v in want.items():
        if opsel(*k) != v:
            diff.append("P4 op_select %s pass %d: %s, expected %s" % (k[1], k[0], opsel(*k), v))
    sec = (c_function(pipe_c, "pass_resubmitted") or "").split("case LCF_RS_QRELEASE:", 1)[-1]
    sec = sec.split("break;", 1)[0]
    if not re.search(r"unlock_exec\s*=\s*p->q_gate\s*!=\s*NULL\s*&&\s*lcf_q_gate_close\(", sec) or \
            "lcf_stage_lock_unlock(" not in sec or "lcf_stage_sb_qdone(" not in sec or \
            not re.search(r"again\s*=\s*lcf_q_release2\([^;]*phv->unlock_exec\s*\)", sec) or \
            not re.search(r"if\s*\(again\)\s*res_qxfer_ack\(\s*p\s*,\s*res\s*,\s*phv\s*,\s*"
                          r"LCF_Q_IS_CLOSING\s*,\s*LCF_Q_CLOSING\s*,\s*LCF_A_QXFER_DENIED\s*\)", sec):
        diff.append("C QRELEASE second pass: QGATE closed, unlock as WRITE_UNLOCK, SCOREBOARD "
                    "ENDED, lcf_q_release2(exec), closing answer")
    # validate: 0x0c, 0x0d are pipeline types (C lcf_type_is_pipeline)
    if not re.search(r"lcf_type_is_queue\(type\)", c_function(wire_h, "lcf_type_is_pipeline") or ""):
        diff.append("C lcf_type_is_pipeline(): not the queue types")
    for m in re.finditer(r"(0x[0-9a-f]+)\s*\.\.\s*(0x[0-9a-f]+),[^\n]*v_drop\(LCF_DROP_UNKNOWN_TYPE\)",
                         p4.src):
        lo, hi = int(m.group(1), 16), int(m.group(2), 16)
        if lo <= 0x0d and hi >= 0x0c:
            diff.append("P4 validate drops 0x0c/0x0d as unknown_type (%s .. %s)"
                        % (m.group(1), m.group(2)))
    rs = re.search(r"table\s+rs_check_tbl\s*\{(.*?)\n    \}", p4.src, re.S)
    for t, op in (("LCF_T_QRELEASE", "LCF_RS_QRELEASE"), ("LCF_T_QXFER", "LCF_RS_QXFER2")):
        if not rs or not re.search(r"\(%s\s*\.\.\s*%s,\s*%s,[^:]*\)\s*:\s*rs_good"
                                   % (t, t, op), rs.group(1)):
            diff.append("P4 rs_check_tbl refuses %s with %s" % (t, op))
    if not re.search(r"md\.q_crv\[31:16\]\s*==\s*md\.q_b\[31:16\]\s*&&\s*md\.q_crv\[14:0\]\s*"
                     r"==\s*md\.q_b\[14:0\]\)\s*\{\s*if\s*\(hdr\.lcf\.type\s*==\s*"
                     r"LCF_T_QXFER\)\s*\{\s*q_resubmit\(LCF_RS_QXFER2\);\s*\}\s*else\s*\{\s*"
                     r"q_resubmit\(LCF_RS_QRELEASE\);", p4.src):
        diff.append("P4 LcfQueueOut: approved (q_crv == q_b but bit 15) -> QXFER resubmit op 6, "
                    "QRELEASE op 5")
    if diff:
        rep.fail("queued mode: LAST-UNLOCK, passes, validation (C vs P4)", diff)
    else:
        rep.ok("queued mode: QRELEASE's gate QGATE[r] (qg_open, qg_close vs C), "
               "QXFER/QRELEASE end their event in SCOREBOARD (hit, miss, pass 2), "
               "QRELEASE pass 2 as WRITE_UNLOCK, 0x0c/0x0d validated, resubmit ops 5 and 6 checked")


# ---------------------------------------------------------- SALU budget --

def salu_budget(body):
    """(distinct compares, instructions, output operands) of a
    RegisterAction body, as Tofino-1 counts them."""
    conds = re.findall(r"if\s*\(([^{]*)\)\s*\{", body)
    cmps = set()
    for cnd in conds:
        for atom in re.split(r"&&|\|\|", cnd):
            atom = re.sub(r"\s+", "", atom).strip("()")
            if atom:
                cmps.add(atom)
    nwrite = len(re.findall(r"\bv(?:\.\w+)?\s*=[^=]", body))
    outs = {re.sub(r"\s+", "", o) for o in re.findall(r"\br(?:v)?\s*=\s*([^;]+);", body)} - {"0"}
    return len(cmps), nwrite + (1 if outs else 0), outs


def check_queue_salu(rep, p4):
    diff, rows = [], []
    q = re.search(r"#ifndef _LCF_QUEUE_P4_.*", p4.src, re.S)
    qsrc = q.group(0) if q else ""
    regs = {}
    for m in re.finditer(r"RegisterAction<[^(]*>\((\w+)\)\s*(\w+)\s*=\s*\{\s*void\s+apply"
                         r"\([^)]*\)\s*\{(.*?)\n        \}\s*\};", p4.src, re.S):
        reg, name, body = m.groups()
        regs[reg] = regs.get(reg, 0) + 1
        if reg not in ("qstate", "qgate"):
            continue
        ncmp, ninst, outs = salu_budget(body)
        rows.append("%s: %d compares, %d instructions, output %s"
                    % (name, ncmp, ninst, "/".join(sorted(outs)) or "none"))
        if ncmp > 2 or ninst > 4 or len(outs) > 1:
            diff.append("%s: %d compares, %d instructions, outputs %s (Tofino-1: 2, 4, one)"
                        % (name, ncmp, ninst, sorted(outs)))
    for reg in ("qstate", "last_unlock", "qgate", "sb_c"):
        if regs.get(reg, 0) > 4:
            diff.append("%s has %d RegisterActions (Tofino-1: 4)" % (reg, regs[reg]))
    # LOCK: each build has its four (the queued build's lock_qacquire takes
    # lock_zero's place)
    for q in (0, 1):
        src = preprocess(p4.src, q)
        per = {}
        for m in re.finditer(r"RegisterAction<[^(]*>\((\w+)\)\s*(\w+)\s*=", src):
            per[m.group(1)] = per.get(m.group(1), 0) + 1
        for reg, n in sorted(per.items()):
            if n > 4:
                diff.append("LCF_QUEUE=%d: %s has %d RegisterActions (Tofino-1: 4)" % (q, reg, n))
    qa = ra_bodies(preprocess(p4.src, 1), "lock").get("lock_qacquire")
    if qa is None:
        diff.append("lock_qacquire not found (LCF_QUEUE=1)")
    else:
        ncmp, ninst, outs = salu_budget(qa)
        rows.append("lock_qacquire: %d compares, %d instructions, output %s"
                    % (ncmp, ninst, "/".join(sorted(outs)) or "none"))
        if ncmp > 2 or ninst > 4 or len(outs) > 1:
            diff.append("lock_qacquire: %d compares, %d instructions (Tofino-1: 2, 4)"
                        % (ncmp, ninst))
    big = {v for v in re.findall(r"\b(Q_[A-Z]+)\b", " ".join(
        _ra_bodies(qsrc, "qstate").values()))}
    if len(big) > 4:
        diff.append("qstate uses %d big constants (register file: 4)" % len(big))
    if not rows:
        diff.append("no QSTATE RegisterAction found")
    if diff:
        rep.fail("queued mode: stateful-ALU budget (Tofino-1)", diff)
    else:
        rep.ok("queued mode: stateful-ALU budget (Tofino-1) -- " + "; ".join(rows))


def check_queue(rep, p4, pipe_c, queue_c, wire_h, ctypes, pipe_h, qlock_h):
    qc = strip_c_comments(queue_c)
    check_lock(rep, p4, pipe_c, pipe_h)
    check_queue_request(rep, p4, pipe_c, pipe_h, qc, qlock_h, wire_h)
    check_queue_abort(rep, p4, pipe_c, qc, qlock_h, pipe_h)
    check_queue_events(rep, p4, qc, pipe_c, pipe_h, qlock_h, wire_h)
    check_queue_structure(rep, p4, pipe_c, qc, strip_c_comments(wire_h))
    check_queue_salu(rep, p4)
