# SPDX-License-Identifier: BSD-3-Clause
"""Checks of check_parity.py about one event (requester, seq) seen twice:

  - the stale-request NACK: C pass_request() NACKs a request whose seq is
    not after LAST-UNLOCK[r] before the LOCK stage; the P4 LAST-UNLOCK
    RegisterAction, the LOCK and SCOREBOARD tables and the dispatch row must
    do the same (PROTOCOL.md 4.2, Interpretation (stale request));
  - every unlock opens LAST-UNLOCK {seq, open} on its first pass, tag hit
    or miss; a hit claims its SCOREBOARD count and carries "may execute" to
    its second pass, which executes only by closing LAST-UNLOCK (PROTOCOL.md
    4.3, Interpretation (opened on the first pass, closed on the second));
  - the SCOREBOARD is bound to its event: a paired {seq, c} entry, counted
    only by a copy that took the lock and passed Table 2 (the check comes
    before it), never touched by a RELEASE pass (PROTOCOL.md 4.2,
    Interpretation (a score bound to its event));
  - the data provider is a function of the event: C hashes r << 32 | seq
    with CRC32C, and the P4 Hash must take the same bytes in the same order
    (PROTOCOL.md 4.2, Interpretation (data provider per event)).

Standard library only.
"""
import re

from parity_src import c_function, first_match

REQUESTS = ["READ_MISS", "WRITE_MISS", "WRITE_SHARED", "EVICT_SHARED",
            "EVICT_MODIFIED"]


def _flags(expr):
    return " | ".join(sorted(re.findall(r"LCF_F_\w+", expr or ""))) or "-"


def _c_stale(pipe_c):
    """What C does with a stale request, or None if the rule is not found."""
    body = c_function(pipe_c, "pass_request") or ""
    # queued mode first answers the waiting writer's poll (row 4, checked by
    # parity_qreq.py); any other stale request is NACKed
    m = re.search(r"if\s*\(\s*lcf_stage_last_unlock_stale\([^)]*\)\s*\)\s*\{"
                  r"(?:\s*if\s*\(\s*p->cfg\.queued\s*&&\s*pass_stale_poll\([^)]*\)\s*\)"
                  r"\s*return\s*;)?"
                  r"\s*res_reply\([^;]*?(LCF_T_\w+)\s*,\s*([^,;]+),\s*"
                  r"(LCF_A_\w+)\s*\)\s*;\s*return\s*;\s*\}", body)
    lock = body.find("lcf_stage_lock(")
    score = body.find("lcf_stage_sb_request(")
    if not m or lock < 0 or m.start() > lock or m.start() > score:
        return None
    cond = c_function(pipe_c, "lcf_stage_last_unlock_stale") or ""
    if not re.search(r"return\s*!\s*lcf_seq_after\(\s*phv->m(?:\.|->)seq\s*,\s*"
                     r"p->last_unlock\[phv->req\]\.seq\s*\)", cond):
        return None
    # before lcf_stage_lock(): the header keeps the packet's gstatus/copyset
    return "%s %s %s, packet gstatus/copyset, LOCK and score untouched" % (
        m.group(1), _flags(m.group(2)), m.group(3))


def _c_tag_miss_first(pipe_c):
    body = c_function(pipe_c, "pass_first") or ""
    miss = re.search(r"hit_way\s*<\s*0\)\s*\{[^}]*(LCF_A_TAG_MISS_HOME|pass_miss\()",
                     body)
    req = body.find("pass_request(")
    return miss is not None and 0 <= miss.start() < req


def _p4_stale_action(p4, action, args):
    """The dispatch outcome of a stale request, in C's words."""
    body = p4.action_body(action) or ""
    params = re.search(r"\baction\s+%s\s*\(([^)]*)\)" % action, p4.src)
    names = [p.split()[-1] for p in (params.group(1).split(",")
                                     if params and params.group(1).strip()
                                     else [])]
    ctr = re.search(r"lcf_action_ctr\.count\((\w+)\)", body)
    ctr = ctr.group(1) if ctr else "-"
    if ctr in names:
        ctr = args[names.index(ctr)]
    t = re.search(r"hdr\.lcf\.type\s*=\s*(LCF_T_\w+)", body)
    f = re.search(r"hdr\.lcf\.flags\s*=\s*([^;]+);", body)
    md = "block" if "block_md()" in body else "packet"
    return "%s %s %s, %s gstatus/copyset" % (t.group(1) if t else "-",
                                              _flags(f.group(1) if f else ""),
                                              ctr, md)


def _p4_outcome(p4, action, args):
    if action == "d_tag_miss":
        return "tag miss"
    body = p4.action_body(action or "") or ""
    if "LCF_A_NACK_STALE" in body or "LCF_A_NACK_STALE" in (args or []):
        return _p4_stale_action(p4, action, args)
    return "not stale"


def _p4_untouched(p4, ctypes):
    """Do the LOCK and SCOREBOARD tables leave a stale request's state alone?"""
    sb = p4.entries("sb") or []
    sq = p4.entries("sb_seq_tbl") or []
    took = p4.entries("took_tbl") or []
    lcs = p4.entries("lcs") or []
    acq_sb, acq_lcs = p4.consts.get("SB_OP_ACQ"), p4.consts.get("LCS_OP_ACQUIRE")
    for cnt in (0, 1):
        a, _ = first_match(sq, [acq_sb, 1, 1, 0, cnt])
        if a not in (None, "s_none"):
            return "SCOREBOARD SEQ: %s for a stale request" % a
        for d in (0, 1, 0x80000000, 0xffffffff):
            a, _ = first_match(sb, [acq_sb, 1, 1, 0, cnt, d])
            if a not in (None, "c_none"):
                return "SCOREBOARD: %s for a stale request" % a
    for t in REQUESTS:
        for lk in (0, 1, 0x3ffe, 0x3fff, 0x4000, 0x4001, 0x8000):
            a, _ = first_match(took, [acq_sb, ctypes["LCF_T_" + t], lk, 1])
            if a not in (None, "took_no"):
                return "took: %s for %s, LOCK 0x%x" % (a, t, lk)
    a, _ = first_match(lcs, [acq_lcs, 0, 1])
    body = p4.action_body(a or "") or ""
    # read only (lock_read: row 4's poll needs READERS and WAITING)
    if a is None or re.sub(r"lock_read\.execute", "", body).find("lock_") >= 0:
        return "LOCK: stale request runs %s" % a
    return "LOCK and score untouched"


def _lu_control(p4):
    ctl = re.search(r"control\s+LcfLastUnlock\b.*?\n\}", p4.src, re.S)
    return ctl.group(0) if ctl else ""


def _p4_register(p4):
    """The request's RegisterAction on last_unlock: read only, 'not after'."""
    ctl = _lu_control(p4)
    m = re.search(r"md\.pass2\s*==\s*0\s*&&\s*md\.sb_op\s*==\s*SB_OP_ACQ"
                  r"[^{]*\{\s*md\.lu_stale\s*=\s*(\w+)\.execute\(md\.req\)",
                  ctl)
    u = re.search(r"md\.pass2\s*==\s*0\s*&&\s*md\.sb_op\s*==\s*SB_OP_CLAIM"
                  r"[^{]*\{\s*md\.lu_exec\s*=\s*(\w+)\.execute\(md\.req\)",
                  ctl)
    if not m or not u:
        return ("lu_stale/lu_exec not executed on disjoint conditions "
                "(sb_op SB_OP_ACQ / SB_OP_CLAIM, pass 1)")
    ra = re.search(r"RegisterAction<[^(]*>\(last_unlock\)\s*%s\s*=\s*\{(.*?)\};"
                   % m.group(1), ctl, re.S)
    body = ra.group(1) if ra else ""
    if re.search(r"\bv(?:\.\w+)?\s*=[^=]", body):
        return "%s writes LAST_UNLOCK (a request must only read it)" % m.group(1)
    if not re.search(r"if\s*\(\s*\(int<32>\)\s*\(\s*hdr\.lcf\.seq\s*-\s*v\.seq\s*\)"
                     r"\s*>\s*0\s*\)\s*\{\s*rv\s*=\s*0\s*;\s*\}\s*else\s*\{\s*"
                     r"rv\s*=\s*1\s*;\s*\}", body):
        return "%s is not rv = !((int32)(seq - v.seq) > 0)" % m.group(1)
    return "stale <=> !seq_after(seq, LAST_UNLOCK[r]), read only, pass 1"


def check_stale(rep, p4, pipe_c, ctypes):
    c_out = _c_stale(pipe_c)
    if c_out is None:
        rep.fail("stale-request NACK in C pass_request()",
                 ["rule not found (C changed? update P4 and this checker): "
                  "if (lcf_stage_last_unlock_stale()) res_reply(NACK, ..., "
                  "LCF_A_NACK_STALE) before lcf_stage_lock()"])
    disp = p4.entries("dispatch") or []
    fwd_kinds = sorted({v for n, v in p4.consts.items()
                        if n.startswith("FWD_KIND_")})
    cres, pres = {}, {}
    for t in REQUESTS:
        tv = ctypes["LCF_T_" + t]
        for hit in (0, 1):
            for stale in (0, 1):
                k = "%s hit=%d stale=%d" % (t, hit, stale)
                if not hit:
                    cres[k] = "tag miss" if _c_tag_miss_first(pipe_c) else "?"
                elif stale:
                    cres[k] = c_out or "<no stale rule>"
                else:
                    cres[k] = "not stale"
                seen = set()
                for took in (0, 1):
                    for score in (0, 1):
                        for chk in (0, 1):
                            for fk in fwd_kinds:
                                a, args = first_match(disp, [
                                    0, 0, tv, hit, 0, took, score, chk, fk, 0,
                                    0, stale, 0])
                                seen.add(_p4_outcome(p4, a, args))
                out = " / ".join(sorted(seen))
                if hit and stale and "NACK_STALE" in out and len(seen) == 1:
                    out += ", " + _p4_untouched(p4, ctypes)
                pres[k] = out
    rep.compare("stale-request NACK: C pass_request() vs P4 dispatch (every "
                "took/score/check/forward outcome), LOCK and SCOREBOARD tables",
                "C", cres, "P4", pres)
    reg = _p4_register(p4)
    want = "stale <=> !seq_after(seq, LAST_UNLOCK[r]), read only, pass 1"
    if reg != want:
        rep.fail("stale-request LAST-UNLOCK read in P4 LcfLastUnlock", [reg])
    else:
        rep.ok("stale-request LAST-UNLOCK read: one RegisterAction per pass, "
               "read only, RFC 1982")


def _c_event_bytes(pipe_c):
    """Bytes C hashes for the provider, little-endian, as lcf_crc32c_u64()."""
    body = c_function(pipe_c, "pick_provider") or ""
    ev = re.search(r"\(uint64_t\)\s*phv->(?:m(?:\.|->))?(\w+)\s*<<\s*32\s*\|\s*"
                   r"phv->(?:m(?:\.|->))?(\w+)", body)
    h = re.search(r"lcf_random_node\(\s*\w+\s*,\s*lcf_crc32c_u64\(\s*"
                  r"p->cfg\.seed\s*,\s*(\w+)\s*\)\s*\)", body)
    if not ev or not h:
        return None
    hi, lo = ev.group(1), ev.group(2)
    out = ["%s[%d:%d]" % (lo, 8 * i + 7, 8 * i) for i in range(4)]
    # r < LCF_MAX_REQUESTERS <= 2^16: its top two bytes are 0 (P4 md.req
    # is 16 bits)
    out += ["%s[%d:%d]" % (hi, 8 * i + 7, 8 * i) for i in range(2)]
    return out + ["0", "0"]


def _p4_event_bytes(p4):
    m = re.search(r"prov_hash\.get\(\{(.*?)\}\)", p4.src, re.S)
    if not m:
        return None
    out = []
    for f in m.group(1).split(","):
        f = f.strip()
        fm = re.fullmatch(r"(?:hdr\.lcf|md)\.(\w+)\[(\d+):(\d+)\]", f)
        zm = re.fullmatch(r"(\d+)w0", f)
        if fm:
            hi, lo = int(fm.group(2)), int(fm.group(3))
            for b in range(lo, hi + 1, 8):
                out.append("%s[%d:%d]" % (fm.group(1), b + 7, b))
        elif zm:
            out += ["0"] * (int(zm.group(1)) // 8)
        else:
            out.append("?" + f)
    return out


def check_provider(rep, p4, pipe_c):
    cb, pb = _c_event_bytes(pipe_c), _p4_event_bytes(p4)
    if cb is None:
        rep.fail("data provider per event in C pick_provider()",
                 ["not found: lcf_random_node(set, lcf_crc32c_u64(p->cfg.seed,"
                  " (uint64_t)phv->req << 32 | phv->m->seq))"])
        return
    if pb is None:
        rep.fail("data provider hash in P4", ["prov_hash.get({...}) not found"])
        return
    rep.compare("data provider hash input: C pick_provider() event bytes vs "
                "P4 prov_hash", "C", dict(enumerate(cb)), "P4",
                dict(enumerate(pb)))
    diff = []
    crc = re.search(r"CRCPolynomial<bit<32>>\((\w+),\s*(\w+),\s*(\w+),\s*(\w+),"
                    r"\s*(\w+),\s*(\w+)\)\s*(\w+);\s*Hash<bit<(?:5|32)>>\(HashAlgorithm_t"
                    r"\.CUSTOM,\s*(\w+)\)\s*prov_hash", p4.src)
    if not crc or crc.group(7) != crc.group(8) or \
            [crc.group(i) for i in range(1, 7)] != \
            ["32w0x1EDC6F41", "true", "false", "false", "32w0", "32w0"]:
        diff.append("prov_hash is not CRC-32C reflected, init 0 (the seed is "
                    "folded in by prov_k), no final xor")
    if not re.search(r"md\.prov_sel\s*=\s*prov_hash\.get\(\{[^}]*\}\)\s*\^\s*md\.prov_k",
                     p4.src):
        diff.append("prov_sel is not prov_hash ^ prov_k")
    if not re.search(r"md\.prov_sel\s*:\s*exact", p4.src):
        diff.append("pick_provider is not keyed on prov_sel")
    if re.search(r"\bRandom<", p4.src):
        diff.append("a Random extern is left: the provider must not be a "
                    "draw per pass")
    if diff:
        rep.fail("data provider per event in P4", diff)
    else:
        rep.ok("data provider per event: CRC-32C, seed folded in, keys "
               "pick_provider, no Random")


UNLOCK_RECORD = {
    "pass 1 opens LAST-UNLOCK for every unlock, hit or miss": True,
    "open: a later seq opens, the same seq still open answers again": True,
    "pass 2 executes only by closing {seq, open}": True,
    "resubmit byte carrying may-execute (the claim)": "lock_kind",
}


def _c_unlock_record(pipe_c):
    first = c_function(pipe_c, "pass_first") or ""
    second = c_function(pipe_c, "pass_resubmitted") or ""
    opn = c_function(pipe_c, "lcf_stage_last_unlock_open") or ""
    cls = c_function(pipe_c, "lcf_stage_last_unlock_close") or ""
    call = re.search(r"if\s*\(\s*is_unlock\(\s*type\s*\)\s*\)\s*\n?\s*lu\s*=\s*"
                     r"lcf_stage_last_unlock_open\(\s*p\s*,\s*phv\s*\)\s*;", first)
    miss = re.search(r"if\s*\(\s*phv->hit_way\s*<\s*0\s*\)\s*\{[^}]*"
                     r"(LCF_A_TAG_MISS_HOME|pass_miss\()", first)
    rs = re.search(r"rs_pack\(\s*LCF_RS_UNLOCK\s*,[^,]*,\s*([^,]+?)\s*,", first)
    claim = re.search(r"phv->unlock_exec\s*=\s*lu\s*!=\s*LU_DUP\s*&&\s*"
                      r"lcf_stage_sb_claim\(", first)
    return {
        "pass 1 opens LAST-UNLOCK for every unlock, hit or miss":
        bool(call and miss) and call.start() < miss.start(),
        "open: a later seq opens, the same seq still open answers again":
        re.search(r"if\s*\(\s*lcf_seq_after\(\s*phv->m->seq\s*,\s*lu->seq\s*\)\s*\)"
                  r"\s*\{\s*\*lu\s*=\s*\(struct lcf_lu\)\{\s*phv->m->seq\s*,\s*1\s*\}",
                  opn) is not None and
        re.search(r"lu->seq\s*==\s*phv->m->seq\s*&&\s*lu->open\s*\?\s*LU_OPEN",
                  opn) is not None,
        "pass 2 executes only by closing {seq, open}":
        re.search(r"phv->unlock_exec\s*=\s*rs_lock_kind\(md\)\s*&&\s*"
                  r"lcf_stage_last_unlock_close\(", second) is not None and
        re.search(r"lu->seq\s*!=\s*phv->m->seq\s*\|\|\s*!lu->open\)\s*\n?\s*"
                  r"return\s+false\s*;\s*lu->open\s*=\s*0\s*;", cls) is not None,
        "resubmit byte carrying may-execute (the claim)":
        "lock_kind" if rs and rs.group(1) == "phv->unlock_exec" and claim
        else (rs.group(1) if rs else "-"),
    }


def _ra_body(ctl, reg, name):
    ra = re.search(r"RegisterAction<[^(]*>\(%s\)\s*%s\s*=\s*\{(.*?)\};"
                   % (reg, name), ctl, re.S)
    return ra.group(1) if ra else ""


def lu_power_on(ctl):
    """LAST-UNLOCK's power-on value is closed at seq 0: {seq 0, open_seq 1}."""
    return re.search(r"Register<lu_pair_t,\s*bit<16>>\(\s*LCF_MAX_REQUESTERS\s*,"
                     r"\s*\{\s*0\s*,\s*1\s*\}\s*\)\s*last_unlock", ctl) is not None


def _p4_unlock_record(p4, ctypes):
    ctl = _lu_control(p4)
    first = re.search(r"md\.pass2\s*==\s*0\s*&&\s*md\.sb_op\s*==\s*SB_OP_CLAIM"
                      r"([^{]*)\{\s*md\.lu_exec\s*=\s*(\w+)\.execute", ctl)
    # (QRELEASE's second pass closes it too: parity_queue.py)
    second = re.search(r"md\.pass2\s*==\s*1[^{]*md\.rs_in\.lock_kind\s*==\s*1"
                       r"(?:\s*\|\|\s*md\.rs_in\.op\s*==\s*LCF_RS_QRELEASE\s*\))?\s*\)"
                       r"\s*\{\s*md\.lu_exec\s*=\s*(\w+)\.execute", ctl)
    ob = _ra_body(ctl, "last_unlock", first.group(2) if first else "-")
    cb = _ra_body(ctl, "last_unlock", second.group(1) if second else "-")
    # SB_OP_CLAIM must mean "an unlock's first pass", both unlock types
    ops = p4.entries("op_select") or []
    claim_op = p4.consts.get("SB_OP_CLAIM")
    sel = []
    for pass2 in (0, 1):
        for tv in sorted(set(ctypes.values())):
            for kind in (0, 1):
                a, args = first_match(ops, [pass2, tv, kind])
                if a == "op" and len(args) > 2 and \
                        p4.value(args[2]) == claim_op and (pass2, tv) not in sel:
                    sel.append((pass2, tv))
    sel.sort()
    want = sorted((0, ctypes["LCF_T_" + t]) for t in ("READ_UNLOCK",
                                                         "WRITE_UNLOCK"))
    resub = p4.action_body("d_resubmit_unlock") or ""
    arg = re.search(r"resubmit_with\(\s*LCF_RS_UNLOCK\s*,[^,]*,\s*([^,]+?)\s*,",
                    resub)
    return {
        "pass 1 opens LAST-UNLOCK for every unlock, hit or miss":
        bool(first) and sel == want and "hit" not in first.group(1),
        # P4 stores {seq, open_seq}: open_seq = seq while open, seq + 1
        # once closed (power-on {0, 1}); open_seq == seq is C's
        # "v.seq == seq && open" on the "not after" branch (lcf_ways.p4).
        "open: a later seq opens, the same seq still open answers again":
        re.search(r"if\s*\(\s*\(int<32>\)\s*\(\s*hdr\.lcf\.seq\s*-\s*v\.seq\s*\)\s*>"
                  r"\s*0\s*\)\s*\{\s*v\.seq\s*=\s*hdr\.lcf\.seq\s*;"
                  r"\s*v\.open_seq\s*=\s*hdr\.lcf\.seq\s*;"
                  r"\s*rv\s*=\s*1\s*;\s*\}\s*else\s+if\s*\(\s*v\.open_seq\s*==\s*hdr\.lcf\.seq"
                  r"\s*\)\s*\{\s*rv\s*=\s*1\s*;", ob) is not None and
        lu_power_on(ctl),
        "pass 2 executes only by closing {seq, open}":
        re.search(r"if\s*\(\s*v\.seq\s*==\s*hdr\.lcf\.seq\s*&&\s*v\.open_seq\s*==\s*hdr\.lcf\.seq\s*\)"
                  r"\s*\{\s*v\.open_seq\s*=\s*hdr\.lcf\.seq\s*\+\s*1\s*;\s*rv\s*=\s*1\s*;", cb) is not None,
        "resubmit byte carrying may-execute (the claim)":
        "lock_kind" if arg and re.fullmatch(r"\(bit<8>\)\s*md\.may_exec",
                                            arg.group(1)) else
        (arg.group(1) if arg else "-"),
    }


def check_unlock_record(rep, p4, pipe_c, ctypes):
    rep.compare("unlock LAST-UNLOCK {seq, open} (opened by pass 1 hit or miss, "
                "closed by the executing pass 2, may-execute in the resubmit "
                "metadata): C vs P4 LcfLastUnlock/op_select/d_resubmit_unlock",
                "C", _c_unlock_record(pipe_c), "P4", _p4_unlock_record(p4, ctypes))
    c = _c_unlock_record(pipe_c)
    if c != UNLOCK_RECORD:
        rep.fail("unlock LAST-UNLOCK record in C (PROTOCOL.md 4.3)",
                 ["%s: %s, expected %s" % (k, c.get(k), v)
                  for k, v in UNLOCK_RECORD.items() if c.get(k) != v])


SCOREBOARD = {
    "entry is a paired {seq, c} register": True,
    "Table 2 before SCOREBOARD; counted iff lock taken and check passed": True,
    "RELEASE second pass leaves SCOREBOARD alone": True,
    "no ABORTED register (ABORT marks the entry)": True,
    "ABORT hit: a passed copy -> ABORT_ACK|FAIL from the switch, else home": True,
}


def _c_scoreboard(pipe_c, internal_h):
    req = c_function(pipe_c, "pass_request") or ""
    second = c_function(pipe_c, "pass_resubmitted") or ""
    rel = second.split("case LCF_RS_RELEASE:", 1)[-1].split("break;", 1)[0]
    chk = req.find("lcf_table_check(")
    sbr = re.search(r"lcf_stage_sb_request\(\s*p\s*,\s*phv\s*,\s*"
                    r"phv->lock_taken\s*&&\s*chk\s*\)", req)
    return {
        "entry is a paired {seq, c} register": re.search(
            r"struct\s+lcf_sb\s*\{\s*uint32_t\s+seq\s*;\s*uint32_t\s+c\s*;\s*\}",
            internal_h) is not None,
        "Table 2 before SCOREBOARD; counted iff lock taken and check passed":
        bool(sbr) and 0 <= chk < sbr.start(),
        "RELEASE second pass leaves SCOREBOARD alone":
        "lcf_stage_lock_release(" in rel and "lcf_stage_sb" not in rel,
        "no ABORTED register (ABORT marks the entry)":
        re.search(r"\*\s*aborted\s*;", internal_h) is None and
        "lcf_stage_sb_abort(" in pipe_c,
        "ABORT hit: a passed copy -> ABORT_ACK|FAIL from the switch, else home":
        _c_abort_hit(c_function(pipe_c, "pass_abort") or ""),
    }


def _c_abort_hit(body):
    """pass_abort(): if (lcf_stage_sb_abort()) { ABORT_ACK | FAIL; return; }
    then the emit to the home."""
    passed = re.search(r"if\s*\(\s*lcf_stage_sb_abort\(\s*p\s*,\s*phv\s*\)\s*\)"
                       r"\s*\{\s*res_reply\([^;]*LCF_T_ABORT_ACK\s*,\s*LCF_F_IN_SWITCH\s*\|"
                       r"\s*LCF_F_FAIL\s*,\s*LCF_A_ABORT_PASSED\s*\)\s*;\s*return\s*;\s*\}",
                       body)
    home = re.search(r"res_emit\(\s*p\s*,\s*res\s*,\s*LCF_A_ABORT_HOME\s*,"
                     r"\s*node_bit\(\s*phv->home\s*\)", body)
    return bool(passed and home and passed.start() < home.start())


def _p4_abort_hit(p4):
    """dispatch on a first-pass ABORT hit, by `held` (= a copy passed)."""
    ents = p4.entries("dispatch") or []
    t = p4.consts.get("LCF_T_ABORT")
    try:
        a_held, _ = first_match(ents, (0, 0, t, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0))
        a_free, _ = first_match(ents, (0, 0, t, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    except (ValueError, TypeError):
        return False
    ack = p4.action_body(a_held or "") or ""
    home = p4.action_body(a_free or "") or ""
    return (re.search(r"hdr\.lcf\.type\s*=\s*LCF_T_ABORT_ACK", ack) is not None and
            re.search(r"flags\s*=\s*LCF_F_IN_SWITCH\s*\|\s*LCF_F_FAIL", ack) is not None and
            "LCF_A_ABORT_PASSED" in ack and
            re.search(r"ucast_egress_port\s*=\s*md\.home_port", home) is not None and
            "LCF_A_ABORT_HOME" in home)


def _p4_scoreboard(p4):
    ctl = re.search(r"control\s+LcfScoreboard\b.*?\n\}", p4.src, re.S)
    ctl = ctl.group(0) if ctl else ""
    order = re.search(r"check\.apply\(hdr,\s*md\);.*?scoreboard\.apply\(hdr,\s*md\);",
                      p4.src, re.S)
    # sb_count = took && check_ok: took_tbl's actions set it to took, a
    # failed check (the check table's later stage) clears it
    def sets(act, v):
        return re.search(r"md\.sb_count\s*=\s*%d\s*;" % v,
                         p4.action_body(act) or "") is not None
    count = (sets("took_yes", 1) and sets("took_no", 0) and sets("check_fail", 0) and
             "sb_count" not in (p4.action_body("check_pass") or "sb_count") and
             re.search(r"took_tbl\.apply\(\);\s*check\.apply\(\);", p4.src) is not None)
    req = _ra_body(ctl, "sb_c", "c_add")
    ops = p4.entries("op_select") or []
    none_op = p4.consts.get("SB_OP_NONE")
    rel_ok = bool(ops)
    for pats, a, args in ops:
        if pats and pats[0] == ("eq", 1) and a == "op" and len(args) > 2 and \
                args[1] == "LCS_OP_RELEASE" and p4.value(args[2]) != none_op:
            rel_ok = False
    return {
        # C's pair is two arrays on Tofino, SEQ then C in the next stage,
        # one index (a stateful ALU's limits, lcf_decide.p4): every packet
        # meets both in the same order, so the pair is updated as one.
        "entry is a paired {seq, c} register": all(re.search(
            r"Register<bit<32>,\s*bit<16>>\(\s*LCF_MAX_REQUESTERS\s*\*\s*2\s*,"
            r"\s*0\s*\)\s*%s\s*;" % r, ctl) for r in ("sb_seq", "sb_c")) and
        re.search(r"sb_seq_tbl\.apply\(\);\s*sb\.apply\(\);", ctl) is not None,
        "Table 2 before SCOREBOARD; counted iff lock taken and check passed":
        bool(order and count) and re.search(r"v\s*=\s*v\s*\+\s*md\.sb_count\s*;",
                                            req) is not None,
        "RELEASE second pass leaves SCOREBOARD alone": rel_ok,
        "no ABORTED register (ABORT marks the entry)":
        re.search(r"\bRegister<.*?\)\s*aborted\s*;", p4.src) is None and
        "c_abort" in ctl,
        "ABORT hit: a passed copy -> ABORT_ACK|FAIL from the switch, else home":
        _p4_abort_hit(p4),
    }


def check_scoreboard(rep, p4, pipe_c, internal_h):
    c = _c_scoreboard(pipe_c, internal_h)
    rep.compare("SCOREBOARD bound to its event: C lcf_pipeline.c vs P4 "
                "LcfScoreboard/LcfCheck/op_select", "C", c, "P4", _p4_scoreboard(p4))
    if c != SCOREBOARD:
        rep.fail("SCOREBOARD rules in C (PROTOCOL.md 4.2)",
                 ["%s: %s, expected %s" % (k, c.get(k), v)
                  for k, v in SCOREBOARD.items() if c.get(k) != v])
