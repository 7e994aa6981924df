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
 * SCOREBOARD, stage W+4, after the check table. C: lcf_stage_sb_request(),
 * _read_over(), _claim(), _unlock_miss(), _unlocked(), _abort().
 *
 * SCOREBOARD[r][seq & 1] is a paired register {seq, c} (PROTOCOL.md 4),
 * index sb_idx = 2r + (seq & 1) from stage 0. c is a COUNT (0 .. 0x7fff:
 * locks held by forwarded copies of event seq), CLAIMED | n (0x80000000 | n:
 * its unlock had its first pass) or ENDED (0x40000000: it ended holding no
 * switch lock). c >= 0x40000000 is "over" for a copy of event seq. Each pass
 * runs at most one RegisterAction, and each answers one 32-bit word that
 * the apply block decodes:
 *   sb_request  request, hit: COUNT += sb_count (took and check_ok, so a
 *               copy headed for a RELEASE pass is never counted); answers
 *               the new COUNT, or SB_RV_OVER for a copy of a CLAIMED, ENDED
 *               or older event (a later event of the parity exists)
 *   sb_read     request, tag miss: SB_RV_OVER or 0 (FAIL on the way home)
 *   sb_claim    unlock, pass 1, hit, not a duplicate: COUNT n > 0 becomes
 *               CLAIMED | n; answers SB_RV_MAY | n when CLAIMED (it may
 *               execute), else 0; an entry of an older event becomes
 *               {seq, ENDED}
 *   sb_end      unlock, pass 1, tag miss: {seq, ENDED}
 *   sb_unlocked unlock, pass 2, executed: COUNT 0
 *   sb_abort    ABORT: 1 when a copy passed (COUNT > 0 or CLAIMED), else
 *               {seq, ENDED} and 0
 * ------------------------------------------------------------------------- */
struct sb_pair_t {
    bit<32> seq;
    bit<32> c;
}

const bit<32> SB_ENDED    = 0x40000000;
const bit<32> SB_CLAIMED  = 0x80000000;
const bit<32> SB_RV_OVER  = 0xffffffff;
const bit<32> SB_RV_MAY   = 0x00010000;

control LcfScoreboard(inout lcf_headers_t hdr, inout lcf_ig_md_t md)
{
    Register<sb_pair_t, bit<16>>(LCF_MAX_REQUESTERS * 2, {0, 0}) scoreboard;

    RegisterAction<sb_pair_t, bit<16>, bit<32>>(scoreboard) sb_request = {
        void apply(inout sb_pair_t v, out bit<32> rv) {
            if (v.seq == hdr.lcf.seq && v.c < SB_ENDED) {
                v.c = v.c + md.sb_count;
                rv = v.c;
            } else if ((int<32>)(hdr.lcf.seq - v.seq) > 0) {
                if (md.sb_count == 1) {
                    v.seq = hdr.lcf.seq;
                    v.c = 1;
                }
                rv = md.sb_count;
            } else {
                rv = SB_RV_OVER;
            }
        }
    };
    RegisterAction<sb_pair_t, bit<16>, bit<32>>(scoreboard) sb_read = {
        void apply(inout sb_pair_t v, out bit<32> rv) {
            if (v.seq == hdr.lcf.seq && v.c < SB_ENDED) {
                rv = 0;
            } else if ((int<32>)(hdr.lcf.seq - v.seq) > 0) {
                rv = 0;
            } else {
                rv = SB_RV_OVER;
            }
        }
    };
    RegisterAction<sb_pair_t, bit<16>, bit<32>>(scoreboard) sb_claim = {
        void apply(inout sb_pair_t v, out bit<32> rv) {
            if (v.seq == hdr.lcf.seq && v.c >= SB_CLAIMED) {
                rv = SB_RV_MAY | (v.c & 0x7fff);
            } else if (v.seq == hdr.lcf.seq && v.c > 0 && v.c < SB_ENDED) {
                v.c = v.c | SB_CLAIMED;
                rv = SB_RV_MAY | (v.c & 0x7fff);
            } else if ((int<32>)(hdr.lcf.seq - v.seq) > 0) {
                v.seq = hdr.lcf.seq;
                v.c = SB_ENDED;
                rv = 0;
            } else {
                rv = 0;
            }
        }
    };
    RegisterAction<sb_pair_t, bit<16>, bit<32>>(scoreboard) sb_end = {
        void apply(inout sb_pair_t v, out bit<32> rv) {
            if (v.seq == hdr.lcf.seq || (int<32>)(hdr.lcf.seq - v.seq) > 0) {
                v.seq = hdr.lcf.seq;
                v.c = SB_ENDED;
            }
            rv = 0;
        }
    };
    RegisterAction<sb_pair_t, bit<16>, bit<32>>(scoreboard) sb_unlocked = {
        void apply(inout sb_pair_t v, out bit<32> rv) {
            if (v.seq == hdr.lcf.seq) {
                v.c = 0;
            }
            rv = 0;
        }
    };
    RegisterAction<sb_pair_t, bit<16>, bit<32>>(scoreboard) sb_abort = {
        void apply(inout sb_pair_t v, out bit<32> rv) {
            if (v.seq == hdr.lcf.seq &&
                ((v.c > 0 && v.c < SB_ENDED) || v.c >= SB_CLAIMED)) {
                rv = 1;
            } else if (v.seq == hdr.lcf.seq ||
                       (int<32>)(hdr.lcf.seq - v.seq) > 0) {
                v.seq = hdr.lcf.seq;
                v.c = SB_ENDED;
                rv = 0;
            } else {
                rv = 0;
            }
        }
    };

    action a_request()  { md.sb_rv = sb_request.execute(md.sb_idx); }
    action a_read()     { md.sb_rv = sb_read.execute(md.sb_idx); }
    action a_claim()    { md.sb_rv = sb_claim.execute(md.sb_idx); }
    action a_end()      { md.sb_rv = sb_end.execute(md.sb_idx); }
    action a_unlocked() { md.sb_rv = sb_unlocked.execute(md.sb_idx); }
    action a_abort()    { md.sb_rv = sb_abort.execute(md.sb_idx); }
    action a_none()     { md.sb_rv = 0; }

    table sb {
        key = {
            md.sb_op : exact;
            md.hit : exact;
            md.lu_stale : exact;
            md.lu_exec : exact;
        }
        actions = { a_request; a_read; a_claim; a_end; a_unlocked; a_abort;
                    a_none; }
        const default_action = a_none();
        const entries = {
            /* a stale request (LAST-UNLOCK) leaves the score alone */
            (SB_OP_ACQ, 1, 0, 0)   : a_request();
            (SB_OP_ACQ, 0, 0, 0)   : a_read();
            (SB_OP_ACQ, 0, 1, 0)   : a_read();
            /* unlock, pass 1: a duplicate claims nothing; a miss ends */
            (SB_OP_CLAIM, 1, 0, 1) : a_claim();
            (SB_OP_CLAIM, 0, 0, 1) : a_end();
            (SB_OP_CLAIM, 0, 0, 0) : a_end();
            /* unlock, pass 2: lu_exec is 1 when it executed */
            (SB_OP_CLEAR, 1, 0, 1) : a_unlocked();
            (SB_OP_ABORT, 1, 0, 0) : a_abort();
            (SB_OP_ABORT, 0, 0, 0) : a_abort();
        }
        size = 16;
    }

    apply {
        md.sb_held = 0;
        md.sb_over = 0;
        md.may_exec = 0;
        md.score = 0;
        if (md.drop == 0 && md.l2 == 0 && md.bad_way == 0) {
            sb.apply();
            if (md.sb_op == SB_OP_ACQ) {
                if (md.sb_rv == SB_RV_OVER) {
                    md.sb_over = 1;
                } else if (md.sb_rv != 0) {
                    md.sb_held = 1;
                }
            } else if (md.sb_op == SB_OP_CLAIM) {
                md.may_exec = md.sb_rv[16:16];
                md.score = md.sb_rv[15:0];
            } else if (md.sb_op == SB_OP_ABORT) {
                md.sb_held = md.sb_rv[0:0];
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
    action check_pass() { md.check_ok = 1; }
    action check_fail() { md.check_ok = 0; }

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
     * read lock is taken while it is below 0x7fff, a write lock while it
     * is 0 (C lcf_stage_lock()). A stale request ran no lock stage. */
    action took_yes() { md.took = 1; }
    action took_no()  { md.took = 0; }
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
            (SB_OP_ACQ, LCF_T_READ_MISS .. LCF_T_READ_MISS, 0 .. 0x7ffe, 0) : took_yes();
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
            took_tbl.apply();
            check.apply();
            /* C pass_request(): only a copy that took the lock and passes
             * Table 2 is counted in SCOREBOARD */
            if (md.took == 1 && md.check_ok == 1) {
                md.sb_count = 1;
            }
        }
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
