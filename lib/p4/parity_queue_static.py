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

from parity_p4interp import control_apply, parse, preprocess, ra_bodies, run
from parity_qlock import check_lock
from parity_qreq import check_queue_abort, check_queue_request
from parity_qevents import check_queue_events
from parity_queue import _ra_bodies, run_ra
from parity_src import c_function, first_match, strip_c_comments


def _qg_c(g, seq, op, tok=0):
    """C lcf_q_gate_open() / _close() on {seq, eo} (struct lcf_qgate)."""
    gseq, eo = g
    if op == "open":
        if not eo & 1:
            eo = (eo + 0x10001) & 0xffffffff
        elif gseq != seq:
            eo = (eo + 0x10000) & 0xffffffff
        return (seq, eo), eo >> 16
    if gseq != seq or eo != (tok << 16 | 1):
        return (gseq, eo), 0
    return (gseq, eo - 1), 1


def _qg_p4(body, c, g, seq, tok=0):
    """A qgate RegisterAction (lcf_ways.p4) on {seq, eo}."""
    env, _ = run(parse(body), c, {"v.seq": g[0], "v.eo": g[1], "rv": 0,
                                  "hdr.lcf.seq": seq, "md.qg_tok": tok << 16 | 1})
    return (env["v.seq"], env["v.eo"]), env["rv"]


def _check_gate(p4, pipe_c, qc, diff):
    """QGATE[r] = {seq, epoch << 16 | open}: C lcf_q_gate_open/_close vs P4
    qg_open/qg_close, run on the same states; the epoch in the resubmit."""
    go = c_function(qc, "lcf_q_gate_open") or ""
    gc = c_function(qc, "lcf_q_gate_close") or ""
    if not re.search(r"if\s*\(\s*!\(g->eo\s*&\s*1\)\s*\)\s*g->eo\s*\+=\s*LCF_QG_EPOCH_ONE\s*\+\s*1;"
                     r"\s*else\s+if\s*\(\s*g->seq\s*!=\s*seq\s*\)\s*g->eo\s*\+=\s*LCF_QG_EPOCH_ONE;"
                     r"\s*g->seq\s*=\s*seq;\s*return\s*\(uint16_t\)\(g->eo\s*>>\s*16\);", go) or \
            not re.search(r"if\s*\(\s*g->seq\s*!=\s*seq\s*\|\|\s*g->eo\s*!=\s*\(\(uint32_t\)epoch\s*<<"
                          r"\s*16\s*\|\s*1\)\s*\)\s*return\s+false;\s*g->eo\s*-=\s*1;\s*return\s+true;", gc):
        diff.append("C lcf_q_gate_open(): closed -> eo + 0x10001, open for another seq -> "
                    "eo + 0x10000, seq written, epoch returned; lcf_q_gate_close(): "
                    "{seq, epoch << 16 | 1} -> closed, true")
    ras = ra_bodies(preprocess(p4.src, 1), "qgate")
    c = p4.consts
    E = 0x10000
    states = [(5, 0), (10, 0), (10, 1), (10, 7 * E + 1), (12, 7 * E + 1), (10, 7 * E),
              (10, 0xffff0001), (10, 0xffff0000), (0xfffffff0, 3 * E + 1), (0, 0)]
    for g in states:
        for seq in (10, 12, 0xfffffff0, 3):
            want = _qg_c(g, seq, "open")
            st, rv = _qg_p4(ras.get("qg_open", ""), c, g, seq)
            if (st, rv >> 16) != want:
                diff.append("P4 qg_open {%#x, %#x} seq %#x: %s, C %s" % (g[0], g[1], seq,
                                                                          (st, rv >> 16), want))
            for tok in (0, 3, 7, 0xffff):
                want = _qg_c(g, seq, "close", tok)
                got = _qg_p4(ras.get("qg_close", ""), c, g, seq, tok)
                if got != want:
                    diff.append("P4 qg_close {%#x, %#x} seq %#x epoch %d: %s, C %s"
                                % (g[0], g[1], seq, tok, got, want))
    first = c_function(pipe_c, "pass_first") or ""
    if not re.search(r"type\s*==\s*LCF_T_QRELEASE\s*&&\s*p->cfg\.queued\)\s*phv->score\s*=\s*"
                     r"lcf_q_gate_open\(\s*p\s*,\s*phv->req\s*,\s*phv->m->seq\s*\)", first) or \
            re.search(r"QRELEASE\)[^;]*\n?\s*\(void\)\s*lcf_stage_last_unlock_open", first) or \
            "lcf_q_lu_end" in first:
        diff.append("C pass_first(): QRELEASE (queued) opens QGATE (its epoch in phv->score), "
                    "not LAST-UNLOCK; QXFER leaves LAST-UNLOCK alone")
    pq = c_function(pipe_c, "pass_queue") or ""
    sec = (c_function(pipe_c, "pass_resubmitted") or "").split("case LCF_RS_QRELEASE:", 1)[-1]
    if not re.search(r"rs_pack\(\s*LCF_RS_QRELEASE\s*,\s*w\s*,\s*0\s*,\s*phv->score\s*\)", pq) or \
            not re.search(r"lcf_q_gate_close\(\s*p\s*,\s*phv->req\s*,\s*phv->m->seq\s*,"
                          r"\s*rs_score\(md\)\s*\)", sec):
        diff.append("C: QRELEASE's resubmit carries QGATE's epoch in score; pass 2 closes "
                    "QGATE with rs_score()")
    if not re.search(r"md\.qg_tok\s*=\s*md\.rs_in\.score\s*\+\+\s*16w1;", p4.src) or \
            not re.search(r"action\s+q_resubmit\(bit<8>\s*op\)\s*\{[^}]*md\.rs_out\.score\s*=\s*"
                          r"md\.qg_eo\[31:16\];", p4.src):
        diff.append("P4: q_resubmit's score = qg_eo[31:16]; qg_tok = rs_in.score ++ 16w1")
    lul = re.search(r"control\s+LcfLastUnlock\b.*?\n\}", p4.src, re.S)
    lul = lul.group(0) if lul else ""
    if not re.search(r"md\.sb_op\s*==\s*SB_OP_QOPEN\s*&&\s*md\.q_mode\s*==\s*1[^{]*\{"
                     r"\s*md\.qg_eo\s*=\s*qg_open\.execute\(md\.req\)", lul) or \
            not re.search(r"md\.sb_op\s*==\s*SB_OP_QDONE\s*&&\s*md\.rs_in\.op\s*==\s*"
                          r"LCF_RS_QRELEASE\s*&&\s*md\.q_mode\s*==\s*1\)\s*\{\s*"
                          r"md\.lu_exec\s*=\s*qg_close\.execute\(md\.req\)", lul) or \
            re.search(r"last_unlock\)\s*\w+\s*=", lul) and "SB_OP_QEND" in lul or \
            re.search(r"LCF_RS_QRELEASE\)\s*\{\s*md\.lu_exec\s*=\s*lu_close", lul):
        diff.append("P4 LcfLastUnlock: QRELEASE pass 1 (queued) -> qg_eo = qg_open, pass 2 -> "
                    "lu_exec = qg_close; QXFER/QRELEASE leave LAST-UNLOCK alone")


def _check_stale(p4, pipe_c, pipe_h, diff):
    """A QRELEASE 2^15 seqs or more before its SCOREBOARD seq (C
    lcf_q_release_stale(), pass_queue()) vs P4 sb (c_qstale), qsel (a_stale)
    and LcfQueueOut (q_release_ack(QRELEASE_DUP)), one pass."""
    st = re.search(r"lcf_q_release_stale\(uint32_t\s+sb_seq,\s*uint32_t\s+seq\)\s*\{\s*return\s+"
                   r"\(int32_t\)\(sb_seq\s*-\s*seq\)\s*>=\s*\(int32_t\)LCF_Q_STALE_DIST;", pipe_h)
    dist = re.search(r"#define\s+LCF_Q_STALE_DIST\s+(0x[0-9a-fA-F]+)u", pipe_h)
    pq = c_function(pipe_c, "pass_queue") or ""
    qe = c_function(pipe_c, "lcf_stage_sb_qend") or ""
    if not st or not dist or \
            not re.search(r"if\s*\(\s*lcf_q_release_stale\(\s*e->seq\s*,\s*seq\s*\)\s*\)\s*"
                          r"return\s+true;", qe) or \
            not re.search(r"stale\s*=\s*lcf_stage_sb_qend\(\s*p\s*,\s*phv\s*\)\s*&&\s*"
                          r"phv->m->type\s*==\s*LCF_T_QRELEASE", pq) or \
            not re.search(r"if\s*\(stale\)\s*\{\s*why\s*=\s*LCF_Q_OK;\s*\}\s*else\s+if\s*\("
                          r"\s*lcf_q_first_pass\(", pq) or \
            not re.search(r"stale\s*\?\s*LCF_A_QRELEASE_DUP", pq):
        diff.append("C: lcf_q_release_stale() ((int32)(sb_seq - seq) >= LCF_Q_STALE_DIST), "
                    "checked in lcf_stage_sb_qend(); pass_queue(): a stale QRELEASE answered "
                    "LCF_Q_OK, qrelease_duplicate_ignored, no QSTATE, no resubmit")
        return
    dist = int(dist.group(1), 16)
    c = p4.consts
    sb = p4.entries("sb") or []
    seq = 0x12345678
    for back in (0, 1, dist - 1, dist, dist + 1, 0x10000, 0x7fffffff, 0x80000000,
                 0x80000001, 0xffffffff, 0xfffffff0):
        eseq = (seq + back) & 0xffffffff
        x = (eseq - seq) & 0xffffffff
        cst = (x - (1 << 32) if x >> 31 else x) >= dist
        d = (seq - eseq) & 0xffffffff
        a2, _ = first_match(sb, [c.get("SB_OP_QOPEN"), 1, 0, 0, 0, d])
        if (a2 == "c_qstale") != cst:
            diff.append("P4 sb QOPEN hit, seq %d before SEQ: %s; C stale %s" % (back, a2, cst))
    body = p4.action_body("c_qstale") or ""
    if not re.search(r"md\.sb_class\s*=\s*SB_CLASS_OLDER;\s*md\.sb_rv\s*=\s*SB_QSTALE;", body) or \
            "execute" in body:
        diff.append("P4 c_qstale: sb_class OLDER, sb_rv SB_QSTALE, no register access")
    qsel = p4.entries("qsel") or []
    t = c["LCF_T_QRELEASE"]
    for rv, want in ((c.get("SB_QSTALE", -1), "a_stale"), (0, "a_check"), (5, "a_check")):
        got, _ = first_match(qsel, [c["Q_K_CHECK"], t, 0, 0, 0, c["SB_CLASS_OLDER"], rv])
        if got != want:
            diff.append("P4 qsel QRELEASE pass 1, OLDER, sb_rv %#x: %s, expected %s" % (rv, got, want))
    if not re.search(r"action\s+a_stale\(\)\s*\{\s*md\.q_stale\s*=\s*1;\s*\}", p4.src):
        diff.append("P4 a_stale: q_stale = 1, QSTATE untouched")
    src = preprocess(p4.src, 1)
    qo = control_apply(src, "LcfQueueOut") or ""
    if not re.search(r"else\s+if\s*\(md\.q_stale\s*==\s*1\)\s*\{\s*"
                     r"q_release_ack\(LCF_A_QRELEASE_DUP\);\s*\}", qo):
        diff.append("P4 LcfQueueOut: q_stale -> q_release_ack(LCF_A_QRELEASE_DUP)")


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
            not re.search(r"if\s*\(\s*p->cfg\.queued\s*\)\s*stale\s*=\s*lcf_stage_sb_qend\(", pq) or \
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


def check_queue_structure(rep, p4, pipe_c, qc, wire_h, queue_h):
    diff = []
    _check_gate(p4, pipe_c, qc, diff)
    _check_stale(p4, pipe_c, queue_h, diff)
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
        rep.ok("queued mode: QRELEASE's gate QGATE[r] {seq, epoch << 16 | open} (qg_open, "
               "qg_close vs C; the epoch in the resubmit's score), a QRELEASE 2^15 seqs "
               "before SCOREBOARD stale (sb, qsel, LcfQueueOut vs C), "
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


def check_queue(rep, p4, pipe_c, queue_c, wire_h, ctypes, pipe_h, qlock_h, queue_h):
    qc = strip_c_comments(queue_c)
    check_lock(rep, p4, pipe_c, pipe_h)
    check_queue_request(rep, p4, pipe_c, pipe_h, qc, qlock_h, wire_h)
    check_queue_abort(rep, p4, pipe_c, qc, qlock_h, pipe_h)
    check_queue_events(rep, p4, qc, pipe_c, pipe_h, qlock_h, wire_h)
    check_queue_structure(rep, p4, pipe_c, qc, strip_c_comments(wire_h),
                          strip_c_comments(queue_h))
    check_queue_salu(rep, p4)
