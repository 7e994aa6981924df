# SPDX-License-Identifier: BSD-3-Clause
"""Parity of the VERSION stage (docs/PROTOCOL.md 4.10): C lcf_version.c and
the bump in lcf_pipeline.c's pass_request() against P4 lcf_version.p4's
table and RegisterActions and the VERSION reply in lcf_dispatch.p4.

Compared: the aux busy bit and the epoch shift (constants); which pass
writes, bumps or reads VERSION (the P4 `ver` table's entries vs the C
calls); the value an ADD writes ((seq & 0xffff) << 16) and that a bump adds
1 up to the count's top (P4 ver_bump interpreted on edge values against
C's rule, LCF_VER_COUNT_MAX); the reply's fields (VERSION in copyset, the LOCK writer or waiting bit
as the busy bit, FAIL on a miss). Standard library only.
"""
import re

from parity_p4interp import parse, ra_bodies, run
from parity_src import c_defines, c_function, strip_c_comments

# VERSION values a bump is tried on: counts 0, 0xfffe, 0xffff (the top), and
# a top under the highest epoch (a carry would wrap the word)
BUMP_EDGES = (0x50000, 0x5fffe, 0x5ffff, 0x1f40ffff, 0xffffffff, 0xfffffffe)


def check_version(rep, p4, wire_h, internal_h, pipe_c, ver_c):
    diff = []
    cdef = c_defines(strip_c_comments(wire_h))
    cdef.update(c_defines(strip_c_comments(internal_h)))
    for name in ("LCF_VER_AUX_BUSY", "LCF_VER_EPOCH_SHIFT", "LCF_VER_COUNT_MAX"):
        cv, pv = cdef.get(name), p4.consts.get(name)
        if cv is None or pv is None or int(str(cv).rstrip("uU"), 0) != pv:
            diff.append("%s: C %s, P4 %s" % (name, cv, pv))
    # which types bump: C pass_request() vs the P4 table's v_bump entries
    req = c_function(pipe_c, "pass_request") or ""
    m = re.search(r"if\s*\(([^{;]*?)\)\s*lcf_version_bump", req, re.S)
    cbump = set(re.findall(r"LCF_T_(\w+)", m.group(1))) if m else set()
    tbl = re.search(r"table\s+ver\s*\{(.*?)\n    \}", p4.src, re.S)
    ents = re.findall(r"\(\s*(\w+)\s*,\s*LCF_T_(\w+)\s*,\s*(\d)\s*,\s*(\d)\s*\)\s*:\s*(\w+)\(\)",
                      tbl.group(1) if tbl else "")
    # the retry mode's lock stage (LCS_OP_ACQUIRE) and the queued build's
    # for a write (LCS_OP_QACQUIRE, q_lock_op) bump the same types
    for acq in ("LCS_OP_ACQUIRE", "LCS_OP_QACQUIRE"):
        pb = {t for op, t, st, p2, a in ents if a == "v_bump" and op == acq}
        if not cbump or cbump != pb:
            diff.append("types that bump VERSION (%s): C %s, P4 %s"
                        % (acq, sorted(cbump), sorted(pb)))
    pbump = {t for op, t, st, p2, a in ents if a == "v_bump"}
    if any(a == "v_bump" and (op not in ("LCS_OP_ACQUIRE", "LCS_OP_QACQUIRE") or
                              st != "0" or p2 != "0")
           for op, t, st, p2, a in ents):
        diff.append("P4 bumps outside a non-stale first pass that acquires the lock")
    if ("LCS_OP_INSTALL", "ADD_TO_SWITCH", "0", "1", "v_set") not in ents:
        diff.append("P4: ADD's second pass does not set VERSION")
    if ("LCS_OP_READ", "VERSION_READ", "0", "0", "v_read") not in ents:
        diff.append("P4: VERSION_READ does not read VERSION")
    # the values written
    if not re.search(r"\(seq\s*&\s*0xffff\)\s*<<\s*LCF_VER_EPOCH_SHIFT", ver_c):
        diff.append("C lcf_version_add(): not (seq & 0xffff) << LCF_VER_EPOCH_SHIFT")
    if not (re.search(r"v\s*=\s*md\.ver_epoch\s*;", p4.src) and
            re.search(r"md\.ver_epoch\s*=\s*hdr\.lcf\.seq\[15:0\]\s*\+\+\s*16w0\s*;",
                      p4.src)):
        diff.append("P4 ver_set: not seq[15:0] ++ 16w0 (md.ver_epoch)")
    # the bump is inline in lcf_internal.h (every write request's pass):
    # + 1 unless the count is at its top; P4's ver_bump run on edge values
    if not re.search(r"if\s*\(\s*\(\s*p->ver\[way\]\[slot\]\s*&\s*LCF_VER_COUNT_MAX\s*\)"
                     r"\s*!=\s*LCF_VER_COUNT_MAX\s*\)\s*p->ver\[way\]\[slot\]\+\+",
                     strip_c_comments(internal_h)):
        diff.append("C lcf_version_bump(): not ++ unless the count is LCF_VER_COUNT_MAX")
    top = int(str(cdef.get("LCF_VER_COUNT_MAX", "0")).rstrip("uU"), 0)
    body = ra_bodies(p4.src, "blk_version").get("ver_bump")
    for v0 in BUMP_EDGES:
        want = v0 if v0 & top == top else (v0 + 1) & 0xffffffff
        try:
            env, _ = run(parse(body), p4.consts, {"v": v0, "r": 0})
            got = (env["v"], env["r"])
        except (KeyError, ValueError, TypeError, SyntaxError) as e:
            got = "not interpreted (%s)" % e
        if got != (want, want):
            diff.append("bump of 0x%x: C 0x%x, P4 ver_bump (v, r) %s"
                        % (v0, want, got))
            break
    # the reply
    hit = re.search(r"action\s+d_version_hit\s*\(\)\s*\{(.*?)\}", p4.src, re.S)
    miss = re.search(r"action\s+d_version_miss\s*\(\)\s*\{(.*?)\}", p4.src, re.S)
    h = hit.group(1) if hit else ""
    if not (re.search(r"hdr\.lcf\.copyset\s*=\s*md\.ver_rv", h) and
            re.search(r"md\.aux_busy", h) and
            re.search(r"#if\s+LCF_QUEUE\s*\n\s*if\s*\(md\.lk_old\[15:14\]\s*!=\s*0\)\s*\{\s*"
                      r"#else\s*\n\s*if\s*\(md\.lk_old\[15:15\]\s*==\s*1\)\s*\{\s*"
                      r"#endif\s*\n\s*md\.aux_busy\s*=\s*LCF_VER_AUX_BUSY\s*;\s*\}\s*else\s*\{\s*"
                      r"md\.aux_busy\s*=\s*0\s*;", p4.src) and
            re.search(r"flags\s*=\s*LCF_F_IN_SWITCH\s*;", h)):
        diff.append("P4 d_version_hit: copyset = VERSION, busy = LOCK bits 15-14 (queued "
                    "build; bit 15 without LCF_QUEUE) << 16, IN_SWITCH")
    if not (miss and re.search(r"flags\s*=\s*LCF_F_FAIL\s*;", miss.group(1))):
        diff.append("P4 d_version_miss: FAIL")
    if not (re.search(r"m->copyset\s*=\s*p->ver\[way\]\[slot\]", ver_c) and
            re.search(r"lock\s*&\s*\(\s*LCF_LOCK_WRITER\s*\|\s*LCF_LOCK_WAITING\s*\)\s*\?"
                      r"\s*LCF_VER_AUX_BUSY", ver_c) and
            re.search(r"m->flags\s*=\s*LCF_F_FAIL", ver_c)):
        diff.append("C lcf_version_read(): copyset = VERSION, busy = WRITER or WAITING, FAIL on a miss")
    if diff:
        rep.fail("VERSION stage: C lcf_version.c / pass_request vs P4 lcf_version.p4", diff)
    else:
        rep.ok("VERSION stage: set by ADD, bumped by %s first passes (the count "
               "saturating: %d values), read by VERSION_READ, reply fields"
               % ("/".join(sorted(pbump)), len(BUMP_EDGES)))
