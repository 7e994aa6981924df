# SPDX-License-Identifier: BSD-3-Clause
"""Static parity checks of the queued lock mode (the dynamic ones are in
parity_queue.py): LAST-UNLOCK of QXFER (C lcf_q_lu_end() vs P4 lu_end), the
passes of the queue types in op_select, the validate table accepting
0x0c/0x0d, the resubmit ops; the stateful-ALU budget of every QSTATE
RegisterAction and lu_end (at most 2 distinct compares, 4 instructions,
one output operand besides 0, 4 RegisterActions per register, 4 big
constants). check_queue() runs every queued-mode check.

Standard library only.
"""
import re

from parity_p4interp import preprocess, ra_bodies
from parity_qlock import check_lock
from parity_qreq import check_queue_abort, check_queue_request
from parity_qevents import check_queue_events
from parity_queue import _ra_bodies, run_ra
from parity_src import c_function, first_match, strip_c_comments


def check_queue_structure(rep, p4, pipe_c, qc, wire_h):
    diff = []
    lu = c_function(qc, "lcf_q_lu_end") or ""
    if not (re.search(r"if\s*\(\s*lcf_seq_after\(\s*seq\s*,\s*lu->seq\s*\)\s*\)\s*\*lu\s*="
                      r"\s*\(struct lcf_lu\)\{\s*seq\s*,\s*0\s*\}", lu) and
            re.search(r"else\s+if\s*\(\s*lu->seq\s*==\s*seq\s*\)\s*lu->open\s*=\s*0", lu)):
        diff.append("C lcf_q_lu_end(): later seq -> {seq, 0}, same seq -> open 0")
    ra = _ra_bodies(p4.src, "last_unlock").get("lu_end", "")
    ok = True
    # LAST-UNLOCK is {seq, open_seq}: open_seq = seq while open, seq + 1 once
    # closed (lcf_ways.p4). C: {seq, open}.
    for vseq, vopen, seq, want in ((5, 1, 10, (10, 0)), (10, 1, 10, (10, 0)),
                                   (12, 1, 10, (12, 1)), (0xfffffff0, 1, 3, (3, 0)),
                                   (10, 0, 10, (10, 0)), (12, 0, 10, (12, 0))):
        e = run_ra(re.sub(r"\(int<32>\)\s*\(hdr\.lcf\.seq\s*-\s*v\.seq\)\s*>\s*0",
                          "(0 < ((hseq - seq) & 0xffffffff) < 0x80000000)", ra)
                   .replace("hdr.lcf.seq", "hseq"), {},
                   dict(seq=vseq, open_seq=vseq if vopen else (vseq + 1) & 0xffffffff, hseq=seq))
        got = (e["seq"], 1 if e["open_seq"] == e["seq"] else 0)
        ok = ok and got == want and e["open_seq"] in (e["seq"], (e["seq"] + 1) & 0xffffffff)
    if not ra or not ok:
        diff.append("P4 lu_end: later seq -> {seq, closed}, same seq -> closed")
    first = c_function(pipe_c, "pass_first") or ""
    if not re.search(r"type\s*==\s*LCF_T_QRELEASE\)[^;]*\n?\s*\(void\)\s*lcf_stage_last_unlock_open", first) \
            or not re.search(r"type\s*==\s*LCF_T_QXFER\)[^;]*\n?\s*lcf_q_lu_end\(", first):
        diff.append("C pass_first(): QRELEASE opens LAST-UNLOCK, QXFER ends it, hit or miss")
    ops = p4.entries("op_select") or []
    c = p4.consts

    def opsel(pass2, t):
        a, args = first_match(ops, [pass2, c[t], 0])
        return (a, args[1:3] if args else None)
    want = {(0, "LCF_T_QXFER"): ("op", ["LCS_OP_READ", "SB_OP_QEND"]),
            (0, "LCF_T_QRELEASE"): ("op", ["LCS_OP_READ", "SB_OP_QOPEN"]),
            (1, "LCF_T_QRELEASE"): ("op", ["LCS_OP_UNLOCK_W", "SB_OP_CLEAR"])}
    for k, v in want.items():
        if opsel(*k) != v:
            diff.append("P4 op_select %s pass %d: %s, expected %s" % (k[1], k[0], opsel(*k), v))
    lul = re.search(r"control\s+LcfLastUnlock\b.*?\n\}", p4.src, re.S)
    lul = lul.group(0) if lul else ""
    if not re.search(r"md\.sb_op\s*==\s*SB_OP_QOPEN\)\s*\{\s*lu_open\.execute", lul) or \
            not re.search(r"else\s*\{\s*lu_end\.execute", lul) or \
            not re.search(r"md\.rs_in\.lock_kind\s*==\s*1\s*\|\|\s*md\.rs_in\.op\s*==\s*"
                          r"LCF_RS_QRELEASE", lul):
        diff.append("P4 LcfLastUnlock: QOPEN -> lu_open, QEND -> lu_end, QRELEASE's "
                    "second pass closes it whatever its lock kind")
    sec = (c_function(pipe_c, "pass_resubmitted") or "").split("case LCF_RS_QRELEASE:", 1)[-1]
    sec = sec.split("break;", 1)[0]
    if not re.search(r"unlock_exec\s*=\s*lcf_stage_last_unlock_close\(", sec) or \
            "lcf_stage_lock_unlock(" not in sec or "lcf_stage_sb_unlocked(" not in sec:
        diff.append("C QRELEASE second pass: close LAST-UNLOCK, unlock as WRITE_UNLOCK, "
                    "SCOREBOARD c = 0")
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
        rep.ok("queued mode: QXFER ends / QRELEASE opens LAST-UNLOCK (lu_end, lu_open), "
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
        if reg != "qstate" and name != "lu_end":
            continue
        ncmp, ninst, outs = salu_budget(body)
        rows.append("%s: %d compares, %d instructions, output %s"
                    % (name, ncmp, ninst, "/".join(sorted(outs)) or "none"))
        if ncmp > 2 or ninst > 4 or len(outs) > 1:
            diff.append("%s: %d compares, %d instructions, outputs %s (Tofino-1: 2, 4, one)"
                        % (name, ncmp, ninst, sorted(outs)))
    for reg in ("qstate", "last_unlock"):
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
