/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Ingress stages after the ways: SCOREBOARD and data-provider selection
 * (stage LCF_WAYS + 2), the check table (Table 2) and the forward table
 * (Table 3) (stage LCF_WAYS + 3), and the dispatch table that turns the
 * outcome into a unicast, a multicast, a reply, a resubmit or a drop
 * (stage LCF_WAYS + 4).
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
 * SCOREBOARD. C: lcf_stage_scoreboard(). SCOREBOARD[r][seq & 1] is one
 * array of 2R 16-bit words, index sb_idx = 2r + (seq & 1) from stage 0.
 * Whether the lock stage took the lock is read off the old LOCK value.
 * ------------------------------------------------------------------------- */
control LcfScoreboard(inout lcf_headers_t hdr, inout lcf_ig_md_t md)
{
    Register<bit<16>, bit<16>>(LCF_MAX_REQUESTERS * 2, 0) scoreboard;

    RegisterAction<bit<16>, bit<16>, bit<16>>(scoreboard) sb_inc = {
        void apply(inout bit<16> v, out bit<16> r) { v = v + 1; r = v; }
    };
    RegisterAction<bit<16>, bit<16>, bit<16>>(scoreboard) sb_read = {
        void apply(inout bit<16> v, out bit<16> r) { r = v; }
    };
    RegisterAction<bit<16>, bit<16>, bit<16>>(scoreboard) sb_dec = {
        void apply(inout bit<16> v, out bit<16> r) { v = v - 1; r = v; }
    };
    RegisterAction<bit<16>, bit<16>, bit<16>>(scoreboard) sb_clear = {
        void apply(inout bit<16> v, out bit<16> r) { r = v; v = 0; }
    };

    action took_inc()   { md.took = 1; md.score = sb_inc.execute(md.sb_idx); }
    action busy_read()  { md.took = 0; md.score = sb_read.execute(md.sb_idx); }
    action took_only()  { md.took = 1; }
    action busy_only()  { md.took = 0; }
    action score_read() { md.score = sb_read.execute(md.sb_idx); }
    action score_dec()  { md.score = sb_dec.execute(md.sb_idx); }
    action score_clear() { sb_clear.execute(md.sb_idx); }
    action sb_nop()     { }

    table sb {
        key = {
            md.sb_op : exact;
            hdr.lcf.type : range;
            md.lk_old : range;
            md.lu_exec : ternary;
            md.lu_stale : ternary;
        }
        actions = { took_inc; busy_read; took_only; busy_only; score_read;
                    score_dec; score_clear; sb_nop; }
        const default_action = sb_nop();
        const entries = {
            /* stale request (LAST-UNLOCK): no score, NACKed by dispatch */
            (SB_OP_ACQ, _, _, _, 1) : sb_nop();
            /* read lock taken <=> old LOCK < 0x7fff */
            (SB_OP_ACQ, LCF_T_READ_MISS .. LCF_T_READ_MISS, 0 .. 0x7ffe, _, 0) : took_inc();
            (SB_OP_ACQ, LCF_T_READ_MISS .. LCF_T_READ_MISS, _, _, 0)           : busy_read();
            /* write lock taken <=> old LOCK == 0 */
            (SB_OP_ACQ, LCF_T_WRITE_MISS .. LCF_T_EVICT_MODIFIED, 0 .. 0, _, 0) : took_inc();
            (SB_OP_ACQ, LCF_T_WRITE_MISS .. LCF_T_EVICT_MODIFIED, _, _, 0)      : busy_read();
            (SB_OP_TOOK, _, 0 .. 0, _, 0) : took_only();           /* REMOVE */
            (SB_OP_TOOK, _, _, _, 0)      : busy_only();
            (SB_OP_READ, _, _, _, 0)      : score_read();          /* unlock, pass 1 */
            (SB_OP_DEC, _, _, _, 0)       : score_dec();           /* RELEASE */
            (SB_OP_CLEAR, _, _, 1, 0)     : score_clear();         /* executed unlock */
            (SB_OP_PEEK, _, _, _, _)      : score_read();          /* ABORT */
        }
        size = 16;
    }

    apply {
        md.took = 0;
        if (md.drop == 0 && md.l2 == 0 && md.hit == 1 && md.bad_way == 0) {
            sb.apply();
        }
    }
}

/* ---------------------------------------------------------------------------
 * ABORTED, stage W+3 (after the scoreboard; PROTOCOL.md 4.9). C:
 * lcf_stage_aborted_record() / _covers(). ABORTED[r] is the requester's
 * latest seq known to be over. ab_over = seq not after it (after the write,
 * if any). An ABORT that hits records only when its score is 0 (no copy of
 * the event holds a lock); one that misses, and every unlock's first pass,
 * always (monotonic). Requests only read it: one that took the lock and is
 * covered is released by the RELEASE second pass (dispatch).
 * ------------------------------------------------------------------------- */
control LcfAborted(inout lcf_headers_t hdr, inout lcf_ig_md_t md)
{
    Register<bit<32>, bit<16>>(LCF_MAX_REQUESTERS, 0) aborted;

    /* One condition: (int32)(seq - v) > 0 -> v = seq; then covered. */
    RegisterAction<bit<32>, bit<16>, bit<1>>(aborted) ab_record = {
        void apply(inout bit<32> v, out bit<1> rv) {
            if ((int<32>)(hdr.lcf.seq - v) > 0) {
                v = hdr.lcf.seq;
            }
            rv = 1;
        }
    };
    RegisterAction<bit<32>, bit<16>, bit<1>>(aborted) ab_read = {
        void apply(inout bit<32> v, out bit<1> rv) {
            rv = 1;
            if ((int<32>)(hdr.lcf.seq - v) > 0) {
                rv = 0;
            }
        }
    };

    action record() { md.ab_over = ab_record.execute(md.req); }
    action read()   { md.ab_over = ab_read.execute(md.req); }
    action none()   { md.ab_over = 0; }

    table ab {
        key = {
            hdr.lcf.type : range;
            md.hit : exact;
            md.score : ternary;
        }
        actions = { record; read; none; }
        const default_action = none();
        const entries = {
            (LCF_T_ABORT .. LCF_T_ABORT, 1, 0)                 : record();
            (LCF_T_ABORT .. LCF_T_ABORT, 1, _)                 : read();
            (LCF_T_ABORT .. LCF_T_ABORT, 0, _)                 : record();
            (LCF_T_READ_UNLOCK .. LCF_T_WRITE_UNLOCK, 0, _)    : record();
            (LCF_T_READ_UNLOCK .. LCF_T_WRITE_UNLOCK, 1, _)    : record();
            (LCF_T_READ_MISS .. LCF_T_EVICT_MODIFIED, 0, _)    : read();
            (LCF_T_READ_MISS .. LCF_T_EVICT_MODIFIED, 1, _)    : read();
        }
        size = 8;
    }

    apply {
        md.ab_over = 0;
        if (md.drop == 0 && md.l2 == 0 && md.pass2 == 0) {
            ab.apply();
        }
    }
}

/* ---------------------------------------------------------------------------
 * Data provider and owner, same stage as the scoreboard. C: pick_provider()
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

    apply {
        md.check_ok = 0;
        if (md.drop == 0 && md.l2 == 0 && md.hit == 1 && md.pass2 == 0) {
            check.apply();
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
