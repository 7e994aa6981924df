/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Ingress stages after the ways: data-provider selection (stage
 * LCF_WAYS + 2), the check table (Table 2, stage LCF_WAYS + 3), SCOREBOARD
 * and the forward table (Table 3) (stage LCF_WAYS + 4), and the dispatch
 * table that turns the outcome into a unicast, a multicast, a reply, a
 * resubmit or a drop (stage LCF_WAYS + 5).
 */
#ifndef _LCF_DECIDE_P4_
#define _LCF_DECIDE_P4_

/* Forward kinds: C enum lcf_fwd. */
const bit<8> FWD_KIND_NONE         = 0;
const bit<8> FWD_KIND_HOME         = 1;
const bit<8> FWD_KIND_OWNER        = 2;
const bit<8> FWD_KIND_PROVIDER     = 3;
const bit<8> FWD_KIND_MCAST_PROV   = 4;
const bit<8> FWD_KIND_MCAST_OTHERS = 5;
const bit<8> FWD_KIND_RETURN       = 6;
const bit<8> FWD_KIND_SOLE_HOLDER  = 7;   /* MCAST_OTHERS, copyset == {node} */

/* ---------------------------------------------------------------------------
 * SCOREBOARD, two stages after the check table. C: lcf_stage_sb_request(),
 * _read_over(), _claim(), _unlock_miss(), _unlocked(), _abort().
 *
 * C's entry SCOREBOARD[r][seq & 1] = {seq, c} (PROTOCOL.md 4), index sb_idx
 * = 2r + (seq & 1) from stage 0, is held here as two arrays with the same
 * index in consecutive stages: SEQ (sb_seq) and C (sb_c). A Tofino-1
 * stateful ALU runs at most 4 RegisterActions per register, 2 comparisons
 * and one output word per action; C's six operations on the pair need 3-5
 * comparisons each. Split, every operation is at most 2 comparisons, and
 * still one read-modify-write of the entry per pass: every packet meets SEQ
 * and then C in the same order, so the pair is never seen half-updated.
 *
 * c is a COUNT (0 .. 0x7fff: locks held by forwarded copies of event seq),
 * CLAIMED | n (0x80000000 | n: its unlock had its first pass) or ENDED
 * (0x40000000: it ended holding no switch lock).
 *
 * SEQ (sq_look, sq_advance) answers d = hdr.lcf.seq - SEQ as it was, and
 * sq_advance moves SEQ to the packet's seq when that is after it: every C
 * operation that writes a later seq (a counted request, an unlock's first
 * pass, an ABORT) writes it exactly then. The C table classifies d: EQ
 * (d == 0), AFTER ((int32)d > 0) or OLDER, and runs at most one of:
 *   c_add    request, EQ: COUNT += sb_count (a tag miss has sb_count 0)
 *   c_claim  unlock pass 1 hit not a duplicate, EQ: COUNT n > 0 becomes
 *            CLAIMED | n
 *   c_abort  ABORT, EQ: COUNT 0 becomes ENDED (COUNT > 0 or CLAIMED: a
 *            copy passed, nothing written; ENDED stays)
 *   c_set    c = sb_newc: a counted request AFTER (1), an unlock's first
 *            pass AFTER or a tag-miss unlock EQ (ENDED), an ABORT AFTER
 *            (ENDED), an executed second pass EQ (0)
 * each answering c as it was (sb_rv); the apply block decodes it.
 * ------------------------------------------------------------------------- */
const bit<32> SB_ENDED    = 0x40000000;
const bit<32> SB_CLAIMED  = 0x80000000;

const bit<2> SB_CLASS_OLDER = 0;
const bit<2> SB_CLASS_EQ    = 1;
const bit<2> SB_CLASS_AFTER = 2;
const bit<2> SB_CLASS_NONE  = 3;   /* no SCOREBOARD access */
/* sb_rv of a stale QRELEASE (c_qstale): no c is this value */
const bit<32> SB_QSTALE   = 0x20000000;

control LcfScoreboard(inout lcf_headers_t hdr, inout lcf_ig_md_t md)
{
    Register<bit<32>, bit<16>>(LCF_MAX_REQUESTERS * 2, 0) sb_seq;
    Register<bit<32>, bit<16>>(LCF_MAX_REQUESTERS * 2, 0) sb_c;

    /* SEQ 0 is an empty entry (power-on, or reset for a failed node; no
     * requester uses seq 0): answered as d = 1, older than any seq, where
     * RFC 1982 would put 0 after every seq of the upper half (C
     * sb_older()). Compares: SEQ == 0. Output: seq - SEQ, or 1. */
    RegisterAction<bit<32>, bit<16>, bit<32>>(sb_seq) sq_look = {
        void apply(inout bit<32> v, out bit<32> rv) {
            if (v == 0) {
                rv = 1;
            } else {
                rv = hdr.lcf.seq - v;
            }
        }
    };
    /* A counted request: C replaces the entry unless it is the same event
     * or over (SEQ after seq), i.e. when (int32)(SEQ - seq) < 0: d in
     * [1, 2^31], or the entry is empty. Compares: SEQ == 0, SEQ before
     * seq. Output: seq - SEQ (before the write), 1 when empty. */
    RegisterAction<bit<32>, bit<16>, bit<32>>(sb_seq) sq_advance_req = {
        void apply(inout bit<32> v, out bit<32> rv) {
            if (v == 0) {
                rv = 1;
                v = hdr.lcf.seq;
            } else {
                rv = hdr.lcf.seq - v;
                if ((int<32>)(v - hdr.lcf.seq) < 0) {
                    v = hdr.lcf.seq;
                }
            }
        }
    };
    /* Unlocks and ABORT: C moves the entry on when seq is after it, d in
     * [1, 2^31 - 1], or the entry is empty. Compares: SEQ == 0, seq
     * after SEQ. Output: seq - SEQ (before the write), 1 when empty. */
    RegisterAction<bit<32>, bit<16>, bit<32>>(sb_seq) sq_advance = {
        void apply(inout bit<32> v, out bit<32> rv) {
            if (v == 0) {
                rv = 1;
                v = hdr.lcf.seq;
            } else {
                rv = hdr.lcf.seq - v;
                if ((int<32>)(hdr.lcf.seq - v) > 0) {
                    v = hdr.lcf.seq;
                }
            }
        }
    };
    /* Compares: c < ENDED. Output: c before the write. */
    RegisterAction<bit<32>, bit<16>, bit<32>>(sb_c) c_add = {
        void apply(inout bit<32> v, out bit<32> rv) {
            rv = v;
            if (v < SB_ENDED) {
                v = v + md.sb_count;
            }
        }
    };
    /* Compares: c > 0, c < ENDED. Output: c before the write. */
    RegisterAction<bit<32>, bit<16>, bit<32>>(sb_c) c_claim = {
        void apply(inout bit<32> v, out bit<32> rv) {
            rv = v;
            if (v > 0 && v < SB_ENDED) {
                v = v | SB_CLAIMED;
            }
        }
    };
    /* ABORT (sb_or 0) and, queued mode, QXFER/QRELEASE pass 1 (sb_or
     * CLAIMED; C lcf_stage_sb_qend()): COUNT 0 becomes ENDED, a COUNT n > 0
     * becomes n | sb_or. Compares: c == 0, c < ENDED. Output: c before the
     * write. */
    RegisterAction<bit<32>, bit<16>, bit<32>>(sb_c) c_abort = {
        void apply(inout bit<32> v, out bit<32> rv) {
            rv = v;
            if (v == 0) {
                v = SB_ENDED;
            } else if (v < SB_ENDED) {
                v = v | md.sb_or;
            }
        }
    };
    /* Compares: none. Output: c before the write. */
    RegisterAction<bit<32>, bit<16>, bit<32>>(sb_c) c_set = {
        void apply(inout bit<32> v, out bit<32> rv) {
            rv = v;
            v = md.sb_newc;
        }
    };

    /* SEQ stage; the action data sb_newc is what c_set writes in the next
     * stage for this kind of pass. */
    action s_look(bit<32> newc)    { md.sb_d = sq_look.execute(md.sb_idx);
                                     md.sb_newc = newc; md.sb_or = 0; }
    action s_advance(bit<32> newc) { md.sb_d = sq_advance.execute(md.sb_idx);
                                     md.sb_newc = newc; md.sb_or = 0; }
    action s_advance_req(bit<32> newc) {
        md.sb_d = sq_advance_req.execute(md.sb_idx);
        md.sb_newc = newc;
        md.sb_or = 0;
    }
    /* queued QXFER/QRELEASE, pass 1: c_abort claims a count */
    action s_qend() { md.sb_d = sq_advance.execute(md.sb_idx);
                      md.sb_newc = SB_ENDED; md.sb_or = SB_CLAIMED; }
    action s_none()                { md.sb_d = 0; md.sb_newc = 0; md.sb_or = 0; }

    table sb_seq_tbl {
        key = {
            md.sb_op : exact;
            md.hit : exact;
            md.lu_stale : exact;
            md.lu_exec : exact;
            md.sb_count : exact;
        }
        actions = { s_look; s_advance; s_advance_req; s_qend; s_none; }
        const default_action = s_none();
        const entries = {
            /* request, hit: a counted copy may start a later event; a
             * stale request (LAST-UNLOCK) leaves the score alone */
            (SB_OP_ACQ, 1, 0, 0, 1)   : s_advance_req(1);
            (SB_OP_ACQ, 1, 0, 0, 0)   : s_look(0);
            /* request, tag miss: read only */
            (SB_OP_ACQ, 0, 0, 0, 0)   : s_look(0);
            (SB_OP_ACQ, 0, 1, 0, 0)   : s_look(0);
            /* unlock, pass 1: a hit claims (or ends an older entry); a
             * duplicate or a miss ends */
            (SB_OP_CLAIM, 1, 0, 1, 0) : s_advance(SB_ENDED);
            (SB_OP_CLAIM, 0, 0, 1, 0) : s_advance(SB_ENDED);
            (SB_OP_CLAIM, 0, 0, 0, 0) : s_advance(SB_ENDED);
            /* unlock, pass 2: lu_exec is 1 when it executed */
            (SB_OP_CLEAR, 1, 0, 1, 0) : s_look(0);
            (SB_OP_ABORT, 1, 0, 0, 0) : s_advance(SB_ENDED);
            (SB_OP_ABORT, 0, 0, 0, 0) : s_advance(SB_ENDED);
            /* queued mode (the apply block): QXFER/QRELEASE pass 1 end the
             * event, hit or miss; QRELEASE pass 2 executed: ENDED */
            (SB_OP_QEND, 1, 0, 0, 0)  : s_qend();
            (SB_OP_QEND, 0, 0, 0, 0)  : s_qend();
            (SB_OP_QOPEN, 1, 0, 0, 0) : s_qend();
            (SB_OP_QOPEN, 0, 0, 0, 0) : s_qend();
            (SB_OP_QDONE, 1, 0, 1, 0) : s_look(SB_ENDED);
        }
        size = 24;
    }

    action c_none(bit<2> cls)         { md.sb_class = cls; md.sb_rv = 0; }
    action c_do_add(bit<2> cls)       { md.sb_class = cls;
                                        md.sb_rv = c_add.execute(md.sb_idx); }
    action c_do_claim(bit<2> cls)     { md.sb_class = cls;
                                        md.sb_rv = c_claim.execute(md.sb_idx); }
    action c_do_abort(bit<2> cls)     { md.sb_class = cls;
                                        md.sb_rv = c_abort.execute(md.sb_idx); }
    action c_do_set(bit<2> cls)       { md.sb_class = cls;
                                        md.sb_rv = c_set.execute(md.sb_idx); }
    /* QRELEASE pass 1, hit, seq 2^15 or more before SEQ (C
     * lcf_q_release_stale()): nothing written, QSTATE skipped (qsel) */
    action c_qstale()                 { md.sb_class = SB_CLASS_OLDER;
                                        md.sb_rv = SB_QSTALE; }

    /* d = seq - SEQ: EQ is d == 0. For a request (C sb_over) the event is
     * not over when d is in [1, 2^31] (AFTER), else OLDER; for unlocks
     * and ABORT (C lcf_seq_after) AFTER is [1, 2^31 - 1]. Keys: EQ
     * 0 &&& 0xffffffff, d == 2^31 0x80000000 &&& 0xffffffff, AFTER (bit 31
     * clear) 0 &&& 0x80000000, OLDER _. Entries are in priority order;
     * passes with no entry run nothing (SB_CLASS_NONE). */
    table sb {
        key = {
            md.sb_op : exact;
            md.hit : exact;
            md.lu_stale : exact;
            md.lu_exec : exact;
            md.sb_count : exact;
            md.sb_d : ternary;
        }
        actions = { c_none; c_do_add; c_do_claim; c_do_abort; c_do_set; c_qstale; }
        const default_action = c_none(SB_CLASS_NONE);
        const entries = {
            /* request, hit, counted */
            (SB_OP_ACQ, 1, 0, 0, 1, 32w0 &&& 32w0xffffffff)      : c_do_add(SB_CLASS_EQ);
            (SB_OP_ACQ, 1, 0, 0, 1, 32w0x80000000 &&& 32w0xffffffff)    : c_do_set(SB_CLASS_AFTER);
            (SB_OP_ACQ, 1, 0, 0, 1, 32w0 &&& 32w0x80000000)   : c_do_set(SB_CLASS_AFTER);
            (SB_OP_ACQ, 1, 0, 0, 1, _)     : c_none(SB_CLASS_OLDER);
            /* request, hit, not counted; request, tag miss (sb_count 0) */
            (SB_OP_ACQ, 1, 0, 0, 0, 32w0 &&& 32w0xffffffff)      : c_do_add(SB_CLASS_EQ);
            (SB_OP_ACQ, 1, 0, 0, 0, 32w0x80000000 &&& 32w0xffffffff)    : c_none(SB_CLASS_AFTER);
            (SB_OP_ACQ, 1, 0, 0, 0, 32w0 &&& 32w0x80000000)   : c_none(SB_CLASS_AFTER);
            (SB_OP_ACQ, 1, 0, 0, 0, _)     : c_none(SB_CLASS_OLDER);
            (SB_OP_ACQ, 0, 0, 0, 0, 32w0 &&& 32w0xffffffff)      : c_do_add(SB_CLASS_EQ);
            (SB_OP_ACQ, 0, 0, 0, 0, 32w0x80000000 &&& 32w0xffffffff)    : c_none(SB_CLASS_AFTER);
            (SB_OP_ACQ, 0, 0, 0, 0, 32w0 &&& 32w0x80000000)   : c_none(SB_CLASS_AFTER);
            (SB_OP_ACQ, 0, 0, 0, 0, _)     : c_none(SB_CLASS_OLDER);
            (SB_OP_ACQ, 0, 1, 0, 0, 32w0 &&& 32w0xffffffff)      : c_do_add(SB_CLASS_EQ);
            (SB_OP_ACQ, 0, 1, 0, 0, 32w0x80000000 &&& 32w0xffffffff)    : c_none(SB_CLASS_AFTER);
            (SB_OP_ACQ, 0, 1, 0, 0, 32w0 &&& 32w0x80000000)   : c_none(SB_CLASS_AFTER);
            (SB_OP_ACQ, 0, 1, 0, 0, _)     : c_none(SB_CLASS_OLDER);
            /* unlock, pass 1, hit, not a duplicate: claim, or end an
             * older entry */
            (SB_OP_CLAIM, 1, 0, 1, 0, 32w0 &&& 32w0xffffffff)    : c_do_claim(SB_CLASS_EQ);
            (SB_OP_CLAIM, 1, 0, 1, 0, 32w0x80000000 &&& 32w0xffffffff)  : c_none(SB_CLASS_OLDER);
            (SB_OP_CLAIM, 1, 0, 1, 0, 32w0 &&& 32w0x80000000) : c_do_set(SB_CLASS_AFTER);
            /* unlock, pass 1, tag miss: ends */
            (SB_OP_CLAIM, 0, 0, 1, 0, 32w0 &&& 32w0xffffffff)    : c_do_set(SB_CLASS_EQ);
            (SB_OP_CLAIM, 0, 0, 1, 0, 32w0x80000000 &&& 32w0xffffffff)  : c_none(SB_CLASS_OLDER);
            (SB_OP_CLAIM, 0, 0, 1, 0, 32w0 &&& 32w0x80000000) : c_do_set(SB_CLASS_AFTER);
            (SB_OP_CLAIM, 0, 0, 0, 0, 32w0 &&& 32w0xffffffff)    : c_do_set(SB_CLASS_EQ);
            (SB_OP_CLAIM, 0, 0, 0, 0, 32w0x80000000 &&& 32w0xffffffff)  : c_none(SB_CLASS_OLDER);
            (SB_OP_CLAIM, 0, 0, 0, 0, 32w0 &&& 32w0x80000000) : c_do_set(SB_CLASS_AFTER);
            /* unlock, pass 2, executed */
            (SB_OP_CLEAR, 1, 0, 1, 0, 32w0 &&& 32w0xffffffff)    : c_do_set(SB_CLASS_EQ);
            /* ABORT, hit or miss */
            (SB_OP_ABORT, 1, 0, 0, 0, 32w0 &&& 32w0xffffffff)    : c_do_abort(SB_CLASS_EQ);
            (SB_OP_ABORT, 1, 0, 0, 0, 32w0x80000000 &&& 32w0xffffffff)  : c_none(SB_CLASS_OLDER);
            (SB_OP_ABORT, 1, 0, 0, 0, 32w0 &&& 32w0x80000000) : c_do_set(SB_CLASS_AFTER);
            (SB_OP_ABORT, 0, 0, 0, 0, 32w0 &&& 32w0xffffffff)    : c_do_abort(SB_CLASS_EQ);
            (SB_OP_ABORT, 0, 0, 0, 0, 32w0x80000000 &&& 32w0xffffffff)  : c_none(SB_CLASS_OLDER);
            (SB_OP_ABORT, 0, 0, 0, 0, 32w0 &&& 32w0x80000000) : c_do_set(SB_CLASS_AFTER);
            /* queued QXFER/QRELEASE pass 1 (C lcf_stage_sb_qend(), a miss
             * lcf_stage_sb_unlock_miss()): hit EQ claims or ends, later
             * ENDED; a miss ends EQ or later */
            (SB_OP_QEND, 1, 0, 0, 0, 32w0 &&& 32w0xffffffff)     : c_do_abort(SB_CLASS_EQ);
            (SB_OP_QEND, 1, 0, 0, 0, 32w0x80000000 &&& 32w0xffffffff) : c_none(SB_CLASS_OLDER);
            (SB_OP_QEND, 1, 0, 0, 0, 32w0 &&& 32w0x80000000)  : c_do_set(SB_CLASS_AFTER);
            (SB_OP_QEND, 0, 0, 0, 0, 32w0 &&& 32w0xffffffff)     : c_do_set(SB_CLASS_EQ);
            (SB_OP_QEND, 0, 0, 0, 0, 32w0x80000000 &&& 32w0xffffffff) : c_none(SB_CLASS_OLDER);
            (SB_OP_QEND, 0, 0, 0, 0, 32w0 &&& 32w0x80000000)  : c_do_set(SB_CLASS_AFTER);
            (SB_OP_QOPEN, 1, 0, 0, 0, 32w0 &&& 32w0xffffffff)     : c_do_abort(SB_CLASS_EQ);
            (SB_OP_QOPEN, 1, 0, 0, 0, 32w0x80000000 &&& 32w0xffffffff) : c_none(SB_CLASS_OLDER);
            (SB_OP_QOPEN, 1, 0, 0, 0, 32w0 &&& 32w0x80000000)  : c_do_set(SB_CLASS_AFTER);
            /* stale: d = seq - SEQ in [2^31 + 1, 2^32 - 2^15] */
            (SB_OP_QOPEN, 1, 0, 0, 0, 32w0xffff8000 &&& 32w0xffffffff) : c_qstale();
            (SB_OP_QOPEN, 1, 0, 0, 0, 32w0xffff8000 &&& 32w0xffff8000) : c_none(SB_CLASS_NONE);
            (SB_OP_QOPEN, 1, 0, 0, 0, _)                        : c_qstale();
            (SB_OP_QOPEN, 0, 0, 0, 0, 32w0 &&& 32w0xffffffff)     : c_do_set(SB_CLASS_EQ);
            (SB_OP_QOPEN, 0, 0, 0, 0, 32w0x80000000 &&& 32w0xffffffff) : c_none(SB_CLASS_OLDER);
            (SB_OP_QOPEN, 0, 0, 0, 0, 32w0 &&& 32w0x80000000)  : c_do_set(SB_CLASS_AFTER);
            /* QRELEASE pass 2, executed (C lcf_stage_sb_qdone()) */
            (SB_OP_QDONE, 1, 0, 1, 0, 32w0 &&& 32w0xffffffff)    : c_do_set(SB_CLASS_EQ);
        }
        size = 64;
    }

    apply {
        md.sb_held = 0;
        md.sb_over = 0;
        md.may_exec = 0;
        md.score = 0;
        /* QXFER/QRELEASE touch SCOREBOARD in queued mode only */
        if (md.drop == 0 && md.l2 == 0 && md.bad_way == 0 &&
            (md.q_mode == 1 || (md.sb_op != SB_OP_QEND && md.sb_op != SB_OP_QOPEN &&
                                md.sb_op != SB_OP_QDONE))) {
            sb_seq_tbl.apply();
            sb.apply();
            /* decode c as it was (sb_rv) */
            if (md.sb_op == SB_OP_ACQ) {
                /* over: an older event's copy, or CLAIMED / ENDED */
                if (md.sb_class == SB_CLASS_OLDER ||
                    (md.sb_class == SB_CLASS_EQ && md.sb_rv >= SB_ENDED)) {
                    md.sb_over = 1;
                } else if (md.hit == 1 && md.sb_class == SB_CLASS_EQ &&
                           md.sb_rv != 0) {
                    md.sb_held = 1;       /* COUNT > 0 before this copy */
                } else if (md.sb_count == 1 &&
                           md.sb_class != SB_CLASS_NONE) {
                    md.sb_held = 1;       /* this copy is counted */
                }
            } else if (md.sb_op == SB_OP_CLAIM) {
                /* COUNT n > 0 (now CLAIMED) or CLAIMED | n: may execute */
                if (md.sb_class == SB_CLASS_EQ && md.lu_exec == 1 &&
                    md.hit == 1 && md.sb_rv != 0 && md.sb_rv != SB_ENDED) {
                    md.may_exec = 1;
                    md.score = md.sb_rv[15:0];
                }
            } else if (md.sb_op == SB_OP_ABORT) {
                /* a copy passed: COUNT > 0 or CLAIMED */
                if (md.sb_class == SB_CLASS_EQ && md.sb_rv != 0 &&
                    md.sb_rv != SB_ENDED) {
                    md.sb_held = 1;
                }
            }
        }
    }
}

/* ---------------------------------------------------------------------------
 * Data provider and owner, stage W+2. C: pick_provider()
 * (k-th set bit of the copyset, k = crc32c(seed, r << 32 | seq) mod
 * popcount) and __builtin_ctz(copyset) for the owner.
 *
 * The provider is a function of the event (requester, seq), not of the pass:
 * a retransmission that passes on the scoreboard must name the same provider
 * as the first pass (PROTOCOL.md 4.2, Interpretation (data provider per
 * event)). prov_sel is 5 bits of that same CRC (LcfLastUnlock, stage 1).
 *
 * Tofino has no popcount nor variable shift. pick_provider matches
 * (prov_sel, copyset): for each of 32 permutations of the topology's nodes
 * (seeded, made by topo_to_bfrt.py) it has one ternary entry per node n,
 * "n in copyset and no node before n in this permutation is", in
 * permutation order. The chosen node is thus deterministic per event, and
 * uniform over the copyset when averaged over a family of random
 * permutations; exactly uniform only for copysets of at most 2 nodes. It is
 * not the node C picks for the same event (k-th set bit vs permutation).
 * pick_owner is the same with ascending order: the lowest set bit, as
 * C's ctz.
 * ------------------------------------------------------------------------- */
control LcfPick(inout lcf_headers_t hdr, inout lcf_ig_md_t md)
{
    action set_provider(bit<8> node, PortId_t port) {
        md.prov_node = node;
        md.prov_port = port;
    }
    action no_provider() { md.prov_node = LCF_NODE_NONE8; md.prov_port = 0; }
    table pick_provider {
        key = {
            md.prov_sel : exact @name("rnd");
            md.blk_cs : ternary @name("copyset");
        }
        actions = { set_provider; no_provider; }
        default_action = no_provider();
        size = 1024;
    }

    action set_owner(bit<8> node, PortId_t port) {
        md.own_node = node;
        md.own_port = port;
    }
    action no_owner() { md.own_node = LCF_NODE_NONE8; md.own_port = 0; }
    table pick_owner {
        key = { md.blk_cs : ternary @name("copyset"); }
        actions = { set_owner; no_owner; }
        default_action = no_owner();
        size = 32;
    }

    apply {
        if (md.drop == 0 && md.l2 == 0 && md.hit == 1) {
            pick_provider.apply();
            pick_owner.apply();
            /* C lcf_table_check(): copyset & node_bit(node);
             * C lcf_table_forward(): cs & ~self */
            md.member = md.blk_cs & md.node_bit;
            md.others = md.blk_cs & ~md.node_bit;
        }
    }
}

/* ---------------------------------------------------------------------------
 * Check table, paper Table 2. C: lcf_table_check(), driven by
 * LCF_CHECK_TABLE(X) in lcf_pipeline.h; check_parity.py evaluates these
 * entries and compares them with that X-macro and PROTOCOL.md 4.2.
 * member = copyset & (1 << node): 0 means node not in copyset.
 * ------------------------------------------------------------------------- */
control LcfCheck(inout lcf_headers_t hdr, inout lcf_ig_md_t md)
{
    /* sb_count (took_tbl's, a stage before) is cleared by a failed check:
     * SCOREBOARD's SEQ table keys on it in the stage after this one. */
    action check_pass() { md.check_ok = 1; }
    action check_fail() { md.check_ok = 0; md.sb_count = 0; }

    table check {
        key = {
            hdr.lcf.type : exact;
            md.member : ternary;
            md.blk_gs : ternary;
        }
        actions = { check_pass; check_fail; }
        const default_action = check_fail();
        const entries = {
            (LCF_T_READ_MISS,      32w0 &&& 32w0xffffffff, _)               : check_pass();
            (LCF_T_WRITE_MISS,     32w0 &&& 32w0xffffffff, _)               : check_pass();
            (LCF_T_WRITE_SHARED,   32w0 &&& 32w0xffffffff, _)               : check_fail();
            (LCF_T_WRITE_SHARED,   _,                      LCF_GS_SHARED)   : check_pass();
            (LCF_T_EVICT_SHARED,   32w0 &&& 32w0xffffffff, _)               : check_fail();
            (LCF_T_EVICT_SHARED,   _,                      LCF_GS_SHARED)   : check_pass();
            (LCF_T_EVICT_MODIFIED, 32w0 &&& 32w0xffffffff, _)               : check_fail();
            (LCF_T_EVICT_MODIFIED, _,                      LCF_GS_MODIFIED) : check_pass();
        }
        size = 16;
    }

    /* Did the lock stage take the lock? Read off the old LOCK value: a
     * read lock is taken while it is below 0x3fff (LCF_LOCK_READERS: the
     * writer and waiting bits clear, readers not saturated), a write lock
     * while it is 0 (C lcf_stage_lock()). A stale request ran no lock
     * stage. */
    action took_yes() { md.took = 1; md.sb_count = 1; }
    action took_no()  { md.took = 0; md.sb_count = 0; }
    table took_tbl {
        key = {
            md.sb_op : exact;
            hdr.lcf.type : range;
            md.lk_old : range;
            md.lu_stale : exact;
        }
        actions = { took_yes; took_no; }
        const default_action = took_no();
        const entries = {
            (SB_OP_ACQ, LCF_T_READ_MISS .. LCF_T_READ_MISS, 0 .. 0x3ffe, 0) : took_yes();
            (SB_OP_ACQ, LCF_T_WRITE_MISS .. LCF_T_EVICT_MODIFIED, 0 .. 0, 0) : took_yes();
            (SB_OP_TOOK, LCF_T_REMOVE_FROM_SWITCH .. LCF_T_REMOVE_FROM_SWITCH, 0 .. 0, 0) : took_yes();
        }
        size = 8;
    }

    apply {
        md.check_ok = 0;
        md.took = 0;
        md.sb_count = 0;
        if (md.drop == 0 && md.l2 == 0 && md.hit == 1 && md.pass2 == 0) {
            /* C pass_request(): only a copy that took the lock and passes
             * Table 2 is counted in SCOREBOARD: sb_count = took, then
             * cleared by check_fail. (A gateway on took && check_ok would
             * put SCOREBOARD a stage later.) */
            took_tbl.apply();
            check.apply();
        }
#if LCF_QUEUE
        /* The queued mode's view of the lock stage (C lcf_stage_lock(),
         * phv->waiter; the READERS of lcf_q_in): q_waiter = this write set
         * WAITING (lock_qacquire found readers only: 1 <= LOCK < WAITING;
         * a stale request only read LOCK);
         * q_rd = READERS > 0; q_readers = READERS for QWAIT's aux. */
        md.q_waiter = 0;
        md.q_rd = 0;
        if (md.drop == 0 && md.l2 == 0 && md.hit == 1) {
            if (md.lk_old[13:0] != 0) {
                md.q_rd = 1;
            }
            if (md.pass2 == 0 && md.lcs_op == LCS_OP_QACQUIRE && md.lu_stale == 0 &&
                md.lk_old != 0 && md.lk_old < LCF_LOCK_WAITING) {
                md.q_waiter = 1;
            }
        }
        md.q_readers = 2w0 ++ md.lk_old[13:0];
#endif
    }
}

/* ---------------------------------------------------------------------------
 * Forward table, paper Table 3. C: lcf_table_forward(), driven by
 * LCF_FORWARD_TABLE(X) plus its two rules: an empty copyset goes home unless
 * the row is HOME or RETURN, and MCAST_OTHERS with copyset == {node} is the
 * direct ACK (ack_sole_holder). Entries are in priority order.
 * ------------------------------------------------------------------------- */
control LcfForward(inout lcf_headers_t hdr, inout lcf_ig_md_t md)
{
    action fwd_home()         { md.fwd_kind = FWD_KIND_HOME; }
    action fwd_owner()        { md.fwd_kind = FWD_KIND_OWNER; }
    action fwd_provider()     { md.fwd_kind = FWD_KIND_PROVIDER; }
    action fwd_mcast_prov()   { md.fwd_kind = FWD_KIND_MCAST_PROV; }
    action fwd_mcast_others() { md.fwd_kind = FWD_KIND_MCAST_OTHERS; }
    action fwd_sole_holder()  { md.fwd_kind = FWD_KIND_SOLE_HOLDER; }
    action fwd_return()       { md.fwd_kind = FWD_KIND_RETURN; }
    action fwd_none()         { md.fwd_kind = FWD_KIND_NONE; }

    table forward {
        key = {
            hdr.lcf.type : exact;
            md.blk_gs : exact;
            md.blk_cs : ternary;
            md.others : ternary;
        }
        actions = { fwd_home; fwd_owner; fwd_provider; fwd_mcast_prov;
                    fwd_mcast_others; fwd_sole_holder; fwd_return; fwd_none; }
        const default_action = fwd_none();
        const entries = {
            (LCF_T_READ_MISS,      LCF_GS_UNSHARED, _, _) : fwd_home();
            (LCF_T_WRITE_MISS,     LCF_GS_UNSHARED, _, _) : fwd_home();
            (LCF_T_READ_MISS,      LCF_GS_MODIFIED, 32w0 &&& 32w0xffffffff, _) : fwd_home();
            (LCF_T_READ_MISS,      LCF_GS_MODIFIED, _, _) : fwd_owner();
            (LCF_T_WRITE_MISS,     LCF_GS_MODIFIED, 32w0 &&& 32w0xffffffff, _) : fwd_home();
            (LCF_T_WRITE_MISS,     LCF_GS_MODIFIED, _, _) : fwd_owner();
            (LCF_T_READ_MISS,      LCF_GS_SHARED, 32w0 &&& 32w0xffffffff, _) : fwd_home();
            (LCF_T_READ_MISS,      LCF_GS_SHARED, _, _) : fwd_provider();
            (LCF_T_WRITE_MISS,     LCF_GS_SHARED, 32w0 &&& 32w0xffffffff, _) : fwd_home();
            (LCF_T_WRITE_MISS,     LCF_GS_SHARED, _, _) : fwd_mcast_prov();
            (LCF_T_WRITE_SHARED,   LCF_GS_SHARED, 32w0 &&& 32w0xffffffff, _) : fwd_home();
            (LCF_T_WRITE_SHARED,   LCF_GS_SHARED, _, 32w0 &&& 32w0xffffffff) : fwd_sole_holder();
            (LCF_T_WRITE_SHARED,   LCF_GS_SHARED, _, _) : fwd_mcast_others();
            (LCF_T_EVICT_SHARED,   LCF_GS_SHARED, _, _) : fwd_return();
            (LCF_T_EVICT_MODIFIED, LCF_GS_MODIFIED, _, _) : fwd_return();
        }
        size = 32;
    }

    apply {
        md.fwd_kind = FWD_KIND_NONE;
        if (md.drop == 0 && md.l2 == 0 && md.hit == 1 && md.pass2 == 0) {
            forward.apply();
        }
    }
}

#endif /* _LCF_DECIDE_P4_ */
