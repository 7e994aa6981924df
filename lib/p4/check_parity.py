#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Parity check between the C pipeline and the Tofino P4 program.

Fails (exit 1, with a readable diff) when the P4 source (lib/p4/*.p4) and the
C sources (lib/wire/lcf_wire.h, lib/wire/lcf_wire.c, lib/lcf/lcf_pipeline.h,
lib/lcf/lcf_pipeline.c, lib/lcf/lcf_internal.h) or the normative document
(docs/PROTOCOL.md) disagree on:

  1. the LCF header: every field's name, width and offset
     (P4 `header lcf_h` vs C `struct lcf_hdr` and its static asserts);
  2. constants: message types (C LCF_TYPE_LIST), flags, gstatus values,
     version, header length, default LCF port, node limits, LOCK bits,
     drop reasons (LCF_DROP_LIST, names and values), action counters
     (LCF_ACTION_LIST), resubmit ops and the way seeds of the slot hash;
  3. the resubmit metadata layout (P4 `header lcf_resubmit_h` vs C rs_pack()
     and rs_reserved_clear() vs PROTOCOL.md 4.8);
  4. the check table (Table 2) and the forward table (Table 3): the P4 const
     entries are evaluated on every (type, gstatus, copyset shape) and
     compared with C's LCF_CHECK_TABLE / LCF_FORWARD_TABLE X-macros plus the
     rules coded in lcf_table_forward(), and with PROTOCOL.md's tables;
  5. the order of the drop rules (P4 validate table vs C's checks in source
     order) and that every C drop reason and action counter has a P4 twin;
  6. one event seen twice (parity_events.py): the stale-request NACK of the
     LAST-UNLOCK stage, every unlock's LAST-UNLOCK record (hit or miss, on
     its first pass) and the data provider hashed from (requester, seq);
  7. the VERSION stage (parity_version.py, lib/lcf/lcf_version.c vs
     lib/p4/lcf_version.p4);
  8. the queued lock mode (parity_queue.py, parity_queue_static.py;
     lib/lcf/lcf_queue.c vs lib/p4/lcf_queue.p4, lcf_queue_out.p4):
     request decisions, QSTATE events of a random
     sequence through both, LAST-UNLOCK, validation, the stateful-ALU budget.

Helpers: parity_src.py. Standard library only. Usage: check_parity.py [--root DIR] [-q] [--first-failure] [--batch]
"""
import argparse
import contextlib
import io
import os
import re
import sys
import traceback

import parity_p4interp

from parity_src import (P4, FirstFailure, Report, c_defines, c_enum_values,
                        c_function, c_macro, c_struct, first_match, offsets,
                        parse_int, read, strip_c_comments)
from parity_events import (check_provider, check_scoreboard, check_stale,
                           check_unlock_record)
from parity_queue_static import check_queue
from parity_version import check_version

# ----------------------------------------------------------------- checks --


def check_header(rep, p4, wire_h, wire_c):
    p4f = p4.header("lcf_h")
    cf = c_struct(strip_c_comments(wire_h), "lcf_hdr")
    if p4f is None or cf is None:
        rep.fail("LCF header", ["header lcf_h (P4) or struct lcf_hdr (C) not found"])
        return
    po, ptot = offsets(p4f)
    co, ctot = offsets(cf)
    diff = []
    for i in range(max(len(p4f), len(cf))):
        a = p4f[i] if i < len(p4f) else None
        b = cf[i] if i < len(cf) else None
        an = "%s bit<%d> @%s" % (a[0], a[1], po[a[0]][0]) if a else "<none>"
        bn = "%s %s bits @%s" % (b[0], b[1], co[b[0]][0]) if b else "<none>"
        if not a or not b or a[0] != b[0] or a[1] != b[1] or \
                po[a[0]][0] != co[b[0]][0]:
            diff.append("field %-2d P4: %-26s C: %s" % (i, an, bn))
    if ptot != ctot:
        diff.append("total: P4 %d bytes, C %d bytes" % (ptot // 8, ctot // 8))
    if diff:
        rep.fail("LCF header layout: P4 header lcf_h vs C struct lcf_hdr", diff)
    else:
        rep.ok("LCF header layout: %d fields, names, widths and offsets, %d bytes"
               % (len(p4f), ptot // 8))
    # C's static asserts must agree with the struct (and so with P4)
    asserts = {m.group(1): int(m.group(2)) for m in re.finditer(
        r"offsetof\(struct lcf_hdr,\s*(\w+)\)\s*==\s*(\d+)", wire_c)}
    want = {n: po[n][0] for n, _ in p4f}
    if asserts:
        rep.compare("LCF header offsets: C static asserts vs P4", "C", asserts,
                    "P4", {k: v for k, v in want.items() if k in asserts or True})
    hl = p4.consts.get("LCF_HDR_LEN")
    if hl != ptot // 8:
        rep.fail("LCF_HDR_LEN", ["P4 LCF_HDR_LEN %s, header is %d bytes" %
                                 (hl, ptot // 8)])


# Names the P4 program has and C has not: the second pass of an approved
# QXFER (a Tofino-1 stateful ALU cannot compare the event and its count and
# write the next holder in one pass; lcf_queue.p4, docs/TOFINO.md).
P4_ONLY = {"LCF_RS_QXFER2"}


def p4_only_out(rep, what, pmap):
    """pmap without the P4-only names (reported as such)."""
    gone = sorted(k for k in pmap if k in P4_ONLY)
    if gone:
        rep.ok("%s: P4 only (lcf_queue.p4): %s" % (what, ", ".join(gone)))
    return {k: v for k, v in pmap.items() if k not in P4_ONLY}


def check_constants(rep, p4, wire_h, pipe_h):
    wh = strip_c_comments(wire_h)
    ph = strip_c_comments(pipe_h)
    defs = c_defines(wh)
    defs.update(c_defines(ph))

    # message types
    body = c_macro(wire_h, "LCF_TYPE_LIST")
    ctypes = {}
    for m in re.finditer(r"X\(\s*(\w+)\s*,\s*(\w+)\s*,\s*\"([^\"]*)\"\s*\)", body or ""):
        ctypes["LCF_T_" + m.group(1)] = parse_int(m.group(2))
    ptypes = {k: v for k, v in p4.consts.items() if k.startswith("LCF_T_")
              and k not in ("LCF_T_PIPELINE_FIRST", "LCF_T_PIPELINE_LAST",
                            "LCF_T_NODE_FIRST", "LCF_T_NODE_LAST")}
    rep.compare("message types: C LCF_TYPE_LIST vs P4 LCF_T_*", "C",
                ctypes, "P4", ptypes)

    def resolve(v):
        while isinstance(v, str):
            v = ctypes.get(v, defs.get(v, v))
            if isinstance(v, str) and v not in ctypes and v not in defs:
                break
        return v

    simple = ["LCF_T_PIPELINE_FIRST", "LCF_T_PIPELINE_LAST", "LCF_T_NODE_FIRST",
              "LCF_T_NODE_LAST", "LCF_VERSION", "LCF_HDR_LEN", "LCF_DEFAULT_PORT",
              "LCF_MAX_NODES", "LCF_NODE_NONE", "LCF_LOCK_WRITER",
              "LCF_LOCK_WAITING", "LCF_LOCK_READERS"]
    rep.compare("scalar constants (version, header length, default LCF port, "
                "type ranges, node limits, LOCK bits)",
                "C", {k: resolve(defs.get(k, "<missing>")) for k in simple},
                "P4", {k: p4.consts.get(k, "<missing>") for k in simple})

    cflags = {k: v for k, v in defs.items() if k.startswith("LCF_F_")}
    pflags = {k: v for k, v in p4.consts.items() if k.startswith("LCF_F_")}
    rep.compare("flag bits: C LCF_F_* vs P4", "C", cflags, "P4", pflags)

    cgs = c_enum_values(wh, "lcf_gstatus") or {}
    pgs = {k: v for k, v in p4.consts.items() if k.startswith("LCF_GS_")}
    rep.compare("gstatus values: C enum lcf_gstatus vs P4 LCF_GS_*", "C", cgs,
                "P4", pgs)

    # drop reasons: name -> (value, counter string)
    body = c_macro(wire_h, "LCF_DROP_LIST")
    cdrop = {}
    for i, m in enumerate(re.finditer(r"X\(\s*(\w+)\s*,\s*\"([^\"]*)\"\s*\)",
                                      body or "")):
        cdrop["LCF_DROP_" + m.group(1)] = (i, m.group(2))
    cdrop["LCF_DROP_MAX"] = (len(cdrop), "-")
    pdrop = {k: (v, p4.const_comment.get(k, "-")) for k, v in p4.consts.items()
             if k.startswith("LCF_DROP_")}
    rep.compare("drop reasons: C LCF_DROP_LIST (value, counter name) vs P4",
                "C", cdrop, "P4", pdrop)

    body = c_macro(pipe_h, "LCF_ACTION_LIST")
    cact = {}
    for i, m in enumerate(re.finditer(r"X\(\s*(\w+)\s*,\s*\"([^\"]*)\"\s*\)",
                                      body or "")):
        cact["LCF_A_" + m.group(1)] = (i, m.group(2))
    cact["LCF_A_MAX"] = (len(cact), "-")
    pact = {k: (v, p4.const_comment.get(k, "-")) for k, v in p4.consts.items()
            if k.startswith("LCF_A_")}
    rep.compare("action counters: C LCF_ACTION_LIST (value, counter name) vs P4",
                "C", cact, "P4", pact)

    crs = c_enum_values(ph, "lcf_resubmit_op") or {}
    prs = {k: v for k, v in p4.consts.items() if k.startswith("LCF_RS_")}
    rep.compare("resubmit ops: C enum lcf_resubmit_op vs P4 LCF_RS_*", "C",
                crs, "P4", p4_only_out(rep, "resubmit ops", prs))
    return ctypes, cdrop, cact, crs


def check_way_seeds(rep, p4, internal_h, protocol):
    m = re.search(r"(0x[0-9a-fA-F]+)u?\s*\*\s*\(\s*way\s*\+\s*1\s*\)", internal_h)
    d = re.search(r"init\s*=\s*(0x[0-9a-fA-F]+)\s*\*\s*\(w\s*\+\s*1\)", protocol)
    if not m or not d:
        rep.fail("way seeds", ["seed formula not found in lcf_internal.h "
                               "lcf_way_seed() or PROTOCOL.md section 4"])
        return
    k = int(m.group(1), 16)
    if int(d.group(1), 16) != k:
        rep.fail("way seeds: C vs PROTOCOL.md",
                 ["C 0x%x, PROTOCOL.md %s" % (k, d.group(1))])
    cseed = {"LCF_WAY_SEED_%d" % w: (k * (w + 1)) & 0xffffffff for w in range(10)}
    pseed = {n: v for n, v in p4.consts.items() if n.startswith("LCF_WAY_SEED_")}
    rep.compare("slot hash way seeds: C lcf_way_seed() (salt 0) vs P4",
                "C", cseed, "P4", pseed)


def check_resubmit(rep, p4, pipe_c, protocol, crs):
    ph = p4.header("lcf_resubmit_h")
    if not ph:
        rep.fail("resubmit layout", ["header lcf_resubmit_h not found in P4"])
        return
    po, total = offsets(ph)
    if total != 64:
        rep.fail("resubmit metadata size", ["P4 header is %d bits, Tofino-1 "
                                            "resubmits exactly 64" % total])
    # P4: byte -> role
    role = {"op": "op", "way": "way", "lock_kind": "lock kind",
            "score": "score"}
    p4b = {}
    for n, w in ph:
        r = role.get(n, "0" if n.startswith("rsvd") else "?" + n)
        for b in range(po[n][0], po[n][0] + w // 8):
            p4b[b] = r
    # C: rs_pack() shifts and rs_reserved_clear() mask
    body = c_function(pipe_c, "rs_pack") or ""
    cb = {b: "?" for b in range(8)}
    for m in re.finditer(r"\(uint64_t\)\s*\(?\s*(\w+)(\s*&\s*0xff)?\s*\)?\s*"
                         r"(?:<<\s*(\d+))?", body):
        name, narrow, sh = m.group(1), m.group(2), int(m.group(3) or 0)
        r = role.get(name, "?" + name)
        width = 1 if narrow or name == "op" else 2   # op: enum, 1 byte in use
        for b in range(sh // 8, sh // 8 + width):
            cb[b] = r
    rb = c_function(pipe_c, "rs_reserved_clear") or ""
    mm = re.search(r"md\s*&\s*(0x[0-9a-fA-F]+)", rb)
    if mm:
        mask = int(mm.group(1), 16)
        for b in range(8):
            if (mask >> (8 * b)) & 0xff:
                if cb[b] != "?":
                    cb[b] = "CONFLICT(%s, reserved)" % cb[b]
                else:
                    cb[b] = "0"
    # PROTOCOL.md 4.8 table
    sec = protocol.split("### 4.8", 1)[-1].split("\n## ", 1)[0]
    db = {}
    for m in re.finditer(r"^\|\s*(\d)(?:-(\d))?\s*\|\s*([^|]+)\|", sec, re.M):
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        text = m.group(3).strip()
        for r in ("op", "way", "lock kind", "score"):
            if text.startswith(r):
                break
        else:
            r = "0" if text == "0" else "?" + text
        for b in range(lo, hi + 1):
            db[b] = r
    rep.compare("resubmit metadata bytes: P4 lcf_resubmit_h vs C rs_pack()/"
                "rs_reserved_clear()", "P4", p4b, "C", cb)
    rep.compare("resubmit metadata bytes: P4 lcf_resubmit_h vs PROTOCOL.md 4.8",
                "P4", p4b, "doc", db)
    m = re.search(r"op:\s*([^|]+)\|", sec)
    dops = {}
    for om in re.finditer(r"(\d+)\s+([A-Z]+)", m.group(1) if m else ""):
        dops["LCF_RS_" + om.group(2)] = int(om.group(1))
    rep.compare("resubmit ops: C enum vs PROTOCOL.md 4.8", "C", crs, "doc", dops)


GS_NAMES = {"UNSHARED": 0, "SHARED": 1, "MODIFIED": 2,
            "Unshared": 0, "Shared": 1, "Modified": 2}


def check_tables(rep, p4, pipe_h, pipe_c, protocol, ctypes):
    # ---------------- check table (Table 2)
    body = c_macro(pipe_h, "LCF_CHECK_TABLE") or ""
    crows = {}
    for m in re.finditer(r"X\(\s*(\w+)\s*,\s*(\w+)\s*,\s*(\w+)\s*\)", body):
        crows[m.group(1)] = (m.group(2) == "IN",
                             None if m.group(3) == "ANY" else GS_NAMES[m.group(3)])
    if not crows:
        rep.fail("check table", ["LCF_CHECK_TABLE(X) not found in lcf_pipeline.h"])
        return
    ent = p4.entries("check")
    if not ent:
        rep.fail("check table", ["P4 table check has no const entries"])
        return
    sec = protocol.split("**Check table (Table 2)**", 1)[-1].split("4. **Forward", 1)[0]
    drows = {}
    for m in re.finditer(r"^\s*\|\s*([A-Z_, ]+?)\s*\|\s*(node [^|]+?)\s*\|", sec, re.M):
        need_in = "∈" in m.group(2)
        g = re.search(r"gstatus == (\w+)", m.group(2))
        for t in m.group(1).split(","):
            drows[t.strip()] = (need_in, GS_NAMES[g.group(1)] if g else None)
    cres, pres, dres = {}, {}, {}
    for t in sorted(set(crows) | set(drows)):
        tv = ctypes.get("LCF_T_" + t)
        for member in (0, 1 << 3):
            for gs in (0, 1, 2):
                k = "%s member=%s gs=%d" % (t, "yes" if member else "no", gs)
                for rows, res in ((crows, cres), (drows, dres)):
                    if t in rows:
                        need_in, g = rows[t]
                        res[k] = "pass" if ((member != 0) == need_in and
                                            (g is None or g == gs)) else "fail"
                    else:
                        res[k] = "<no row>"
                a, _ = first_match(ent, [tv, member, gs])
                pres[k] = {"check_pass": "pass", "check_fail": "fail",
                           None: "fail"}.get(a, a)
    rep.compare("check table (Table 2): C LCF_CHECK_TABLE vs P4 const entries",
                "C", cres, "P4", pres)
    rep.compare("check table (Table 2): PROTOCOL.md 4.2 vs P4 const entries",
                "doc", dres, "P4", pres)

    # ---------------- forward table (Table 3)
    body = c_macro(pipe_h, "LCF_FORWARD_TABLE") or ""
    cfwd = {}
    for m in re.finditer(r"X\(\s*(\w+)\s*,\s*(\w+)\s*,\s*(\w+)\s*\)", body):
        cfwd[(m.group(1), GS_NAMES[m.group(2)])] = m.group(3)
    fbody = c_function(pipe_c, "lcf_table_forward") or ""
    rules = {
        "empty copyset goes home": re.search(
            r"cs\s*==\s*0\s*&&\s*fwd\s*!=\s*LCF_FWD_HOME\s*&&\s*fwd\s*!=\s*"
            r"LCF_FWD_RETURN\)\s*\n?\s*fwd\s*=\s*LCF_FWD_HOME", fbody),
        "sole holder is returned": re.search(
            r"\(cs\s*&\s*~self\)\s*==\s*0\)\s*\n?\s*res_emit\([^;]*LCF_A_ACK_SOLE_HOLDER",
            fbody),
    }
    missing = [k for k, v in rules.items() if not v]
    if missing:
        rep.fail("forward table rules in C lcf_table_forward()",
                 ["rule not found (C changed? update P4 and this checker): " + k
                  for k in missing])
    ent = p4.entries("forward")
    if not cfwd or not ent:
        rep.fail("forward table", ["LCF_FORWARD_TABLE(X) or P4 table forward "
                                   "const entries not found"])
        return
    kind = {"fwd_home": "HOME", "fwd_owner": "OWNER", "fwd_provider": "PROVIDER",
            "fwd_mcast_prov": "MCAST_PROV", "fwd_mcast_others": "MCAST_OTHERS",
            "fwd_sole_holder": "SOLE_HOLDER", "fwd_return": "RETURN",
            "fwd_none": "NONE", None: "NONE"}
    self_bit, other_bit = 1 << 3, 1 << 5
    shapes = {"{}": 0, "{self}": self_bit, "{other}": other_bit,
              "{self,other}": self_bit | other_bit}
    types = ["READ_MISS", "WRITE_MISS", "WRITE_SHARED", "EVICT_SHARED",
             "EVICT_MODIFIED"]
    cres, pres = {}, {}
    for t in types:
        for gs in (0, 1, 2):
            for sn, cs in shapes.items():
                k = "%s gs=%d cs=%s" % (t, gs, sn)
                f = cfwd.get((t, gs), "NONE")
                if cs == 0 and f not in ("HOME", "RETURN", "NONE"):
                    f = "HOME"
                if f == "MCAST_OTHERS" and (cs & ~self_bit) == 0:
                    f = "SOLE_HOLDER"
                cres[k] = f
                a, _ = first_match(ent, [ctypes["LCF_T_" + t], gs, cs,
                                         cs & ~self_bit])
                pres[k] = kind.get(a, a)
    rep.compare("forward table (Table 3): C LCF_FORWARD_TABLE + lcf_table_forward() "
                "rules vs P4 const entries", "C", cres, "P4", pres)

    # PROTOCOL.md Table 3: (type, gstatus) rows -> counter, via P4 dispatch
    ctr_of_kind = {}
    disp = p4.entries("dispatch") or []
    for pats, action, args in disp:
        body = p4.action_body(action) or ""
        m = re.search(r"lcf_action_ctr\.count\((LCF_A_\w+)\)", body)
        fk = pats[8]
        if m and fk[0] == "eq":
            ctr_of_kind[fk[1]] = p4.const_comment.get(m.group(1), m.group(1))
        elif m and fk[0] == "any" and action == "d_fwd_return":
            ctr_of_kind["default"] = p4.const_comment.get(m.group(1), m.group(1))
    kind_val = {n[len("FWD_KIND_"):]: v for n, v in p4.consts.items()
                if n.startswith("FWD_KIND_")}
    sec = protocol.split("4. **Forward table", 1)[-1].split("### 4.3", 1)[0]
    dres, pres2 = {}, {}
    for m in re.finditer(r"^\s*\|\s*(\([^|]*\))\s*\|[^|]*\|\s*`(\w+)`\s*\|", sec, re.M):
        cell, ctr = m.group(1), m.group(2)
        sole = "copyset == {requester}" in cell
        for pm in re.finditer(r"\((\w+),\s*(\w+)\)", cell):
            t, g = pm.group(1), GS_NAMES[pm.group(2)]
            key = "(%s, %s)%s" % (t, pm.group(2), " sole holder" if sole else "")
            dres[key] = ctr
            if t in ("READ_MISS", "WRITE_MISS"):
                cs = other_bit
            elif sole:
                cs = self_bit
            else:
                cs = self_bit | other_bit
            a, _ = first_match(ent, [ctypes["LCF_T_" + t], g, cs, cs & ~self_bit])
            kv = kind_val.get(kind.get(a, "NONE"))
            pres2[key] = ctr_of_kind.get(kv, ctr_of_kind.get("default", "?"))
    rep.compare("forward table (Table 3): PROTOCOL.md rows (counter) vs P4 "
                "forward + dispatch", "doc", dres, "P4", pres2)


def c_drop_order(wire_c, pipe_c):
    order = []
    for src, fn in ((wire_c, "lcf_frame_classify"), (wire_c, "lcf_msg_validate"),
                    (pipe_c, "lcf_stage_parse"), (pipe_c, "pass_resubmitted")):
        body = c_function(src, fn) or ""
        if fn == "lcf_frame_classify":
            # lcf_msg_validate() is called inside; insert its reasons there
            pre, _, post = body.partition("lcf_msg_validate(")
            for m in re.finditer(r"LCF_DROP_(\w+)", pre):
                order.append(m.group(1))
            for m in re.finditer(r"LCF_DROP_(\w+)", c_function(
                    wire_c, "lcf_msg_validate") or ""):
                order.append(m.group(1))
            continue
        if fn == "lcf_msg_validate":
            continue
        for m in re.finditer(r"LCF_DROP_(\w+)", body):
            order.append(m.group(1))
    seen, out = set(), []
    for r in order:
        if r != "NONE" and r not in seen:
            seen.add(r)
            out.append(r)
    return out


def check_validate(rep, p4, wire_c, pipe_c, cdrop, cact):
    ent = p4.entries("validate") or []
    rev = {v: k for k, v in p4.consts.items() if k.startswith("LCF_DROP_")}
    porder, seen = [], set()
    for pats, action, args in ent:
        if action != "v_drop":
            continue
        v = p4.value(args[0])
        r = rev.get(v, str(v))[len("LCF_DROP_"):]
        if r not in seen:
            seen.add(r)
            porder.append(r)
    # BAD_RESUBMIT is also dispatched after the TAG stages (P4 dispatch)
    corder = c_drop_order(wire_c, pipe_c)
    if porder != corder:
        rep.fail("drop rule order: C checks (source order) vs P4 validate entries",
                 ["C:  " + " ".join(corder), "P4: " + " ".join(porder)])
    else:
        rep.ok("drop rule order: C checks vs P4 validate entries (%d reasons)"
               % len(porder))
    # every C drop reason and action counter is used by the P4 program
    missing = []
    uses = re.sub(r"const\s+bit<\d+>\s+\w+\s*=[^;]*;", "", p4.src)
    for name in cdrop:
        if name in ("LCF_DROP_NONE", "LCF_DROP_MAX"):
            continue
        if not re.search(r"\b%s\b" % name, uses):
            missing.append("drop reason %s is never counted" % name)
    for name in cact:
        if name == "LCF_A_MAX":
            continue
        if name == "LCF_A_RETRANSMIT_PASS":
            ok = "lcf_retransmit_ctr.count" in p4.src
        elif name == "LCF_A_MIRROR_SHADOW":
            ok = "lcf_mirror_ctr.count" in p4.src
        else:
            ok = re.search(r"\b%s\b" % name, uses) is not None
        if not ok:
            missing.append("action counter %s has no P4 counterpart" % name)
    if missing:
        rep.fail("every C drop reason and action counter has a P4 counter", missing)
    else:
        rep.ok("every C drop reason and action counter has a P4 counter")


def check_root(root, quiet, first_failure):
    """Check the sources under `root`, print the report; 0 passed, 1 failed,
    2 unreadable."""
    def path(*p):
        return os.path.join(root, *p)

    try:
        p4dir = path("lib", "p4")
        p4 = P4([read(os.path.join(p4dir, f)) for f in sorted(os.listdir(p4dir))
                 if f.endswith(".p4")])
        wire_h = read(path("lib", "wire", "lcf_wire.h"))
        wire_c = strip_c_comments(read(path("lib", "wire", "lcf_wire.c")))
        pipe_h = read(path("lib", "lcf", "lcf_pipeline.h"))
        pipe_c = strip_c_comments(read(path("lib", "lcf", "lcf_pipeline.c")))
        internal_h = read(path("lib", "lcf", "lcf_internal.h"))
        ver_c = strip_c_comments(read(path("lib", "lcf", "lcf_version.c")))
        queue_c = read(path("lib", "lcf", "lcf_queue.c"))
        qlock_h = read(path("lib", "wire", "lcf_qlock.h"))
        queue_h = read(path("lib", "lcf", "lcf_queue.h"))
        protocol = read(path("docs", "PROTOCOL.md"))
    except OSError as e:
        print("check_parity: %s" % e, file=sys.stderr)
        return 2

    rep = Report(quiet, first_failure)
    print("P4/C parity (%s):" % root)
    try:
        check_header(rep, p4, wire_h, wire_c)
        ctypes, cdrop, cact, crs = check_constants(rep, p4, wire_h, pipe_h)
        check_way_seeds(rep, p4, internal_h, protocol)
        check_resubmit(rep, p4, pipe_c, protocol, crs)
        check_tables(rep, p4, pipe_h, pipe_c, protocol, ctypes)
        check_stale(rep, p4, pipe_c, ctypes)
        check_provider(rep, p4, pipe_c)
        check_unlock_record(rep, p4, pipe_c, ctypes)
        check_scoreboard(rep, p4, pipe_c, read(path("lib", "lcf", "lcf_internal.h")))
        check_validate(rep, p4, wire_c, pipe_c, cdrop, cact)
        check_version(rep, p4, wire_h, internal_h, pipe_c, ver_c)
        check_queue(rep, p4, pipe_c, queue_c, wire_h, ctypes, pipe_h, qlock_h, queue_h)
    except (ValueError, KeyError, IndexError, AttributeError, NameError, SyntaxError,
            TypeError) as e:
        try:
            rep.fail("parsing", ["cannot parse the sources: %r" % (e,)])
        except FirstFailure:
            pass
    except FirstFailure:
        pass
    if rep.errors:
        print("check_parity: %d check(s) FAILED: P4 and C have drifted apart"
              % len(rep.errors))
        return 1
    print("check_parity: %d checks passed" % len(rep.checked))
    return 0


def batch(quiet, first_failure):
    """--batch: check each root named on a line of stdin, in this process
    (test_parity.sh's ~100 drifts: one interpreter and its caches instead of
    one each). ROOT.out gets what `--root ROOT` would print (stdout and
    stderr), ROOT.rc its exit status (1 on an uncaught exception, as
    Python's)."""
    for line in sys.stdin:
        root = line.rstrip("\n")
        if not root:
            continue
        # keyed by id(consts): a later root's dict may reuse a freed id
        parity_p4interp._CODE.clear()
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            try:
                rc = check_root(root, quiet, first_failure)
            except Exception:  # pylint: disable=broad-except
                traceback.print_exc()
                rc = 1
        with open(root + ".out", "w", encoding="utf-8") as f:
            f.write(buf.getvalue())
        with open(root + ".rc", "w", encoding="utf-8") as f:
            f.write("%d\n" % rc)
    return 0


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.normpath(os.path.join(here, "..", "..")),
                    help="repository root (default: two levels above this file)")
    ap.add_argument("-q", "--quiet", action="store_true", help="print failures only")
    ap.add_argument("--first-failure", action="store_true",
                    help="stop at the first failed check (test_parity.sh's drifts: "
                    "they only need one)")
    ap.add_argument("--batch", action="store_true",
                    help="check the roots named one per line on stdin; ROOT.out gets "
                    "the report, ROOT.rc the exit status")
    a = ap.parse_args()
    if a.batch:
        return batch(a.quiet, a.first_failure)
    return check_root(a.root, a.quiet, a.first_failure)


if __name__ == "__main__":
    sys.exit(main())
