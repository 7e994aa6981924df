/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Ingress stages 0-1: topology look-ups, operation select and the validate
 * table (docs/PROTOCOL.md section 3), plus the L2 switch for everything that
 * is not for the pipeline.
 *
 * C counterparts: lcf_frame_classify() and lcf_msg_validate() in
 * lib/wire/lcf_wire.c, lcf_stage_parse() and the checks at the top of
 * pass_resubmitted() in lib/lcf/lcf_pipeline.c.
 */
#ifndef _LCF_VALIDATE_P4_
#define _LCF_VALIDATE_P4_

/* What the register stages do this pass (set by op_select, stage 0). */
const bit<8> TAG_OP_LOOKUP = 1;   /* read-only lookup */
const bit<8> TAG_OP_INSERT = 2;   /* ADD, second pass */
const bit<8> TAG_OP_REMOVE = 3;   /* REMOVE, second pass: clear at rs way */

const bit<8> LCS_OP_NONE     = 0;
const bit<8> LCS_OP_ACQUIRE  = 1; /* lk_a = threshold, lk_b = increment */
const bit<8> LCS_OP_READ     = 2;
const bit<8> LCS_OP_RELEASE  = 3; /* lk_a = subtrahend, lk_b = 1 for write */
const bit<8> LCS_OP_UNLOCK_R = 4;
const bit<8> LCS_OP_UNLOCK_W = 5;
const bit<8> LCS_OP_INSTALL  = 6;
const bit<8> LCS_OP_CLEAR    = 7;
const bit<8> LCS_OP_QACQUIRE = 8; /* queued mode, write request: acquire,
                                   * or set WAITING when readers hold */

const bit<8> SB_OP_NONE  = 0;
const bit<8> SB_OP_ACQ   = 1;     /* request: count / read the event's entry */
const bit<8> SB_OP_TOOK  = 2;     /* REMOVE: only learn whether it was taken */
const bit<8> SB_OP_CLAIM = 3;     /* unlock, pass 1: claim (hit) or end (miss) */
const bit<8> SB_OP_CLEAR = 5;     /* unlock, pass 2: count 0 when executed */
const bit<8> SB_OP_ABORT = 6;     /* ABORT: mark ENDED unless a copy passed */
/* queued mode: the event of a QXFER/QRELEASE ends in SCOREBOARD (claim a
 * count, else ENDED), not in LAST-UNLOCK; QRELEASE has its gate QGATE[r] */
const bit<8> SB_OP_QEND  = 7;     /* QXFER, pass 1: the event ends */
const bit<8> SB_OP_QOPEN = 8;     /* QRELEASE, pass 1: ends; QGATE opened */
const bit<8> SB_OP_QDONE = 9;     /* QRELEASE, pass 2: QGATE closed, ENDED */

/* ---------------------------------------------------------------------------
 * Stage 0. C: lcf_stage_parse() (node, port, thread, home), the requester
 * index r = node * threads_per_node + thread (a table: Tofino cannot
 * multiply), and the operation the later stages perform.
 * ------------------------------------------------------------------------- */
control LcfPrepare(inout lcf_headers_t hdr,
                   inout lcf_ig_md_t md,
                   in ingress_intrinsic_metadata_t ig_intr_md)
{
    /* Switch-wide settings from the topology (keyless; bfrt set_default). */
    /* prov_k: the data-provider seed folded in (LcfLastUnlock, stage 1). */
    action set_switch(mac_addr_t mac, ipv4_addr_t ip, bit<32> node_mask,
                      bit<1> has_shadow, bit<5> prov_k) {
        md.sw_mac = mac;
        md.sw_ip = ip;
        md.node_mask = node_mask;
        md.has_shadow = has_shadow;
        md.prov_k = prov_k;
    }
    table switch_cfg {
        actions = { set_switch; }
        default_action = set_switch(0, 0, 0, 0, 0);
        size = 1;
    }

    /* C: node_mask & node_bit(node). */
    action node_exists(bit<32> node_bit) {
        md.node_known = 1;
        md.node_bit = node_bit;
    }
    action node_absent() { md.node_known = 0; md.node_bit = 0; }
    table node_tbl {
        key = { hdr.lcf.node : exact @name("node"); }
        actions = { node_exists; node_absent; }
        default_action = node_absent();
        size = 32;
    }

    /* C: port_node[ingress port] == node. */
    action port_matches() { md.port_ok = 1; }
    action port_differs() { md.port_ok = 0; }
    table node_port_tbl {
        key = {
            hdr.lcf.node : exact @name("node");
            ig_intr_md.ingress_port : exact @name("ingress_port");
        }
        actions = { port_matches; port_differs; }
        default_action = port_differs();
        size = 32;
    }

    /* C: thread < threads_per_node; r = node * threads_per_node + thread.
     * One entry per (node, thread, seq parity): sb_idx = 2r + (seq & 1). */
    action set_requester(bit<16> req, bit<16> sb_idx) {
        md.req_ok = 1;
        md.req = req;
        md.sb_idx = sb_idx;
    }
    action no_requester() { md.req_ok = 0; md.req = 0; md.sb_idx = 0; }
    table requester_tbl {
        key = {
            hdr.lcf.node : exact @name("node");
            hdr.lcf.thread : exact @name("thread");
            hdr.lcf.seq[0:0] : exact @name("seq_parity");
        }
        actions = { set_requester; no_requester; }
        default_action = no_requester();
        size = LCF_MAX_REQUESTERS * 2;
    }

    /* C: home = tag >> (48 - block_shift) must be a node. block_shift is a
     * topology value, so the shift is a ternary match: value node << (48 -
     * shift), mask = every bit from 48 - shift up (higher bits must be 0). */
    action set_home(bit<8> home, PortId_t port) {
        md.home_ok = 1;
        md.home = home;
        md.home_port = port;
    }
    action no_home() { md.home_ok = 0; md.home = LCF_NODE_NONE8; md.home_port = 0; }
    table home_tbl {
        key = { hdr.lcf.tag : ternary @name("tag"); }
        actions = { set_home; no_home; }
        default_action = no_home();
        size = 32;
    }

    /* C pass_resubmitted(): op must be what the type's first pass produces,
     * way < ways, lock kind <= 1, bytes 3, 6 and 7 zero. */
    action rs_good() { md.rs_ok = 1; }
    action rs_bad() { md.rs_ok = 0; }
    table rs_check_tbl {
        key = {
            hdr.lcf.type : range;
            md.rs_in.op : exact;
            md.rs_in.way : range;
            md.rs_in.lock_kind : range;
            md.rs_in.rsvd0 : exact;
            md.rs_in.rsvd1 : exact;
        }
        actions = { rs_good; rs_bad; }
        default_action = rs_bad();
        const entries = {
            (LCF_T_READ_MISS .. LCF_T_EVICT_MODIFIED, LCF_RS_RELEASE,
             0 .. (LCF_WAYS - 1), 0 .. 1, 0, 0) : rs_good();
            (LCF_T_READ_UNLOCK .. LCF_T_WRITE_UNLOCK, LCF_RS_UNLOCK,
             0 .. (LCF_WAYS - 1), 0 .. 1, 0, 0) : rs_good();
            (LCF_T_ADD_TO_SWITCH .. LCF_T_ADD_TO_SWITCH, LCF_RS_ADD,
             0 .. (LCF_WAYS - 1), 0 .. 1, 0, 0) : rs_good();
            (LCF_T_REMOVE_FROM_SWITCH .. LCF_T_REMOVE_FROM_SWITCH, LCF_RS_REMOVE,
             0 .. (LCF_WAYS - 1), 0 .. 1, 0, 0) : rs_good();
            (LCF_T_QRELEASE .. LCF_T_QRELEASE, LCF_RS_QRELEASE,
             0 .. (LCF_WAYS - 1), 0 .. 1, 0, 0) : rs_good();
            (LCF_T_QXFER .. LCF_T_QXFER, LCF_RS_QXFER2,
             0 .. (LCF_WAYS - 1), 0 .. 1, 0, 0) : rs_good();
#if LCF_QUEUE
            /* an aborted waiter's RELEASE (lock kind 2: clear WAITING).
             * Accepted whatever the lock mode: only the pipeline makes
             * resubmit metadata, and only queued mode makes kind 2 (C
             * drops it in retry mode as bad_resubmit_metadata). */
            (LCF_T_WRITE_MISS .. LCF_T_EVICT_MODIFIED, LCF_RS_RELEASE,
             0 .. (LCF_WAYS - 1), 2 .. 2, 0, 0) : rs_good();
#endif
        }
        size = 8;
    }

    /* What each register stage does (C: pass_first()/pass_resubmitted()). */
    action op(bit<8> tag_op, bit<8> lcs_op, bit<8> sb_op, bit<16> a, bit<16> b) {
        md.tag_op = tag_op;
        md.lcs_op = lcs_op;
        md.sb_op = sb_op;
        md.lk_a = a;
        md.lk_b = b;
    }
    /* READ_UNLOCK, second pass: subtract the score the first pass read. */
    action op_unlock_read() {
        md.tag_op = TAG_OP_LOOKUP;
        md.lcs_op = LCS_OP_UNLOCK_R;
        md.sb_op = SB_OP_CLEAR;
        md.lk_a = md.rs_in.score;
        md.lk_b = 0;
    }
#if LCF_QUEUE
    /* switch.lock_mode (topo_to_bfrt.py): 1 = "queued", 0 = "retry". In
     * stage 0: the lock stage of a queued-mode write differs (q_lock_op). */
    action set_lock_mode(bit<1> queued) { md.q_mode = queued; }
    table lock_mode_cfg {
        actions = { set_lock_mode; }
        default_action = set_lock_mode(0);
        size = 1;
    }

    /* The queued mode's LOCK operations (C lcf_stage_lock(write, wait),
     * lcf_stage_lock_release(kind), lcf_stage_lock_unlock()), over
     * op_select's, a stage later:
     *  - a write request: lock_qacquire (LOCK == 0 -> WRITER; readers only
     *    -> | WAITING, the pass is the block's waiter);
     *  - WRITE_UNLOCK and QRELEASE, second pass: WRITER and WAITING
     *    cleared (lock_release, lk_a = 0x8000, lk_b = 0: below WRITER the
     *    word becomes 0; READERS is 0 whenever WAITING is set at an
     *    executed unlock);
     *  - RELEASE of lock kind 2 (an aborted waiter): WAITING cleared
     *    (lk_a = 0x4000: WRITER is never set beside WAITING);
     *  - REMOVE, second pass, in both modes: LOCK = 0 by lock_release
     *    (lk_a = 0xffff, lk_b = 0; LOCK never reaches 0xffff), whose
     *    RegisterAction slot lock_qacquire took (four per register). */
    action q_op_acquire() { md.lcs_op = LCS_OP_QACQUIRE; }
    action q_op_unlock_w() { md.lk_b = 0; }
    action q_op_release_waiting() {
        md.lcs_op = LCS_OP_RELEASE;
        md.lk_a = LCF_LOCK_WAITING;
        md.lk_b = 1;
    }
    action q_op_clear() { md.lk_a = 0xffff; md.lk_b = 0; }
    table q_lock_op {
        key = {
            md.q_mode : ternary;
            md.pass2 : exact;
            hdr.lcf.type : range;
            md.rs_in.lock_kind : ternary;
        }
        actions = { q_op_acquire; q_op_unlock_w; q_op_release_waiting;
                    q_op_clear; NoAction; }
        const default_action = NoAction();
        const entries = {
            (1, 0, LCF_T_WRITE_MISS .. LCF_T_EVICT_MODIFIED, _) : q_op_acquire();
            (1, 1, LCF_T_WRITE_UNLOCK .. LCF_T_WRITE_UNLOCK, _) : q_op_unlock_w();
            (1, 1, LCF_T_QRELEASE .. LCF_T_QRELEASE, _)         : q_op_unlock_w();
            (1, 1, LCF_T_WRITE_MISS .. LCF_T_EVICT_MODIFIED, 2) : q_op_release_waiting();
            (_, 1, LCF_T_REMOVE_FROM_SWITCH .. LCF_T_REMOVE_FROM_SWITCH, _) : q_op_clear();
        }
        size = 8;
    }
#endif

    table op_select {
        key = {
            md.pass2 : exact;
            hdr.lcf.type : exact;
            md.rs_in.lock_kind : ternary;
        }
        actions = { op; op_unlock_read; }
        default_action = op(TAG_OP_LOOKUP, LCS_OP_NONE, SB_OP_NONE, 0, 0);
        const entries = {
            /* first pass: C lcf_stage_lock(): read lock for READ_MISS
             * (granted while LOCK < 0x3fff: WRITER and WAITING clear, READERS
             * below LCF_LOCK_READERS), write lock for the others
             * (granted while LOCK < 1, i.e. LOCK == 0) */
            (0, LCF_T_READ_MISS, _)      : op(TAG_OP_LOOKUP, LCS_OP_ACQUIRE, SB_OP_ACQ, 0x3fff, 1);
            (0, LCF_T_WRITE_MISS, _)     : op(TAG_OP_LOOKUP, LCS_OP_ACQUIRE, SB_OP_ACQ, 1, 0x8000);
            (0, LCF_T_WRITE_SHARED, _)   : op(TAG_OP_LOOKUP, LCS_OP_ACQUIRE, SB_OP_ACQ, 1, 0x8000);
            (0, LCF_T_EVICT_SHARED, _)   : op(TAG_OP_LOOKUP, LCS_OP_ACQUIRE, SB_OP_ACQ, 1, 0x8000);
            (0, LCF_T_EVICT_MODIFIED, _) : op(TAG_OP_LOOKUP, LCS_OP_ACQUIRE, SB_OP_ACQ, 1, 0x8000);
            (0, LCF_T_READ_UNLOCK, _)    : op(TAG_OP_LOOKUP, LCS_OP_NONE, SB_OP_CLAIM, 0, 0);
            (0, LCF_T_WRITE_UNLOCK, _)   : op(TAG_OP_LOOKUP, LCS_OP_NONE, SB_OP_CLAIM, 0, 0);
            (0, LCF_T_ADD_TO_SWITCH, _)  : op(TAG_OP_LOOKUP, LCS_OP_READ, SB_OP_NONE, 0, 0);
            (0, LCF_T_REMOVE_FROM_SWITCH, _) : op(TAG_OP_LOOKUP, LCS_OP_ACQUIRE, SB_OP_TOOK, 1, 0x8000);
            (0, LCF_T_ABORT, _)          : op(TAG_OP_LOOKUP, LCS_OP_NONE, SB_OP_ABORT, 0, 0);
            (0, LCF_T_VERSION_READ, _)   : op(TAG_OP_LOOKUP, LCS_OP_READ, SB_OP_NONE, 0, 0);
            (0, LCF_T_QXFER, _)          : op(TAG_OP_LOOKUP, LCS_OP_READ, SB_OP_QEND, 0, 0);
            (0, LCF_T_QRELEASE, _)       : op(TAG_OP_LOOKUP, LCS_OP_READ, SB_OP_QOPEN, 0, 0);
            /* second pass: C lcf_stage_lock_release() (SCOREBOARD untouched:
             * the copy was never counted), _unlock(), insert,
             * lcf_stage_lock_clear() */
            (1, LCF_T_READ_MISS, 0)      : op(TAG_OP_LOOKUP, LCS_OP_RELEASE, SB_OP_NONE, 1, 0);
            (1, LCF_T_READ_MISS, 1)      : op(TAG_OP_LOOKUP, LCS_OP_RELEASE, SB_OP_NONE, 0x8000, 1);
            (1, LCF_T_WRITE_MISS, 0)     : op(TAG_OP_LOOKUP, LCS_OP_RELEASE, SB_OP_NONE, 1, 0);
            (1, LCF_T_WRITE_MISS, 1)     : op(TAG_OP_LOOKUP, LCS_OP_RELEASE, SB_OP_NONE, 0x8000, 1);
            (1, LCF_T_WRITE_SHARED, 0)   : op(TAG_OP_LOOKUP, LCS_OP_RELEASE, SB_OP_NONE, 1, 0);
            (1, LCF_T_WRITE_SHARED, 1)   : op(TAG_OP_LOOKUP, LCS_OP_RELEASE, SB_OP_NONE, 0x8000, 1);
            (1, LCF_T_EVICT_SHARED, 0)   : op(TAG_OP_LOOKUP, LCS_OP_RELEASE, SB_OP_NONE, 1, 0);
            (1, LCF_T_EVICT_SHARED, 1)   : op(TAG_OP_LOOKUP, LCS_OP_RELEASE, SB_OP_NONE, 0x8000, 1);
            (1, LCF_T_EVICT_MODIFIED, 0) : op(TAG_OP_LOOKUP, LCS_OP_RELEASE, SB_OP_NONE, 1, 0);
            (1, LCF_T_EVICT_MODIFIED, 1) : op(TAG_OP_LOOKUP, LCS_OP_RELEASE, SB_OP_NONE, 0x8000, 1);
            (1, LCF_T_READ_UNLOCK, _)    : op_unlock_read();
            (1, LCF_T_WRITE_UNLOCK, _)   : op(TAG_OP_LOOKUP, LCS_OP_UNLOCK_W, SB_OP_CLEAR, 0x8000, 1);
            (1, LCF_T_ADD_TO_SWITCH, _)  : op(TAG_OP_INSERT, LCS_OP_INSTALL, SB_OP_NONE, 0, 0);
            (1, LCF_T_REMOVE_FROM_SWITCH, _) : op(TAG_OP_REMOVE, LCS_OP_CLEAR, SB_OP_NONE, 0, 0);
            (1, LCF_T_QRELEASE, _)       : op(TAG_OP_LOOKUP, LCS_OP_UNLOCK_W, SB_OP_QDONE, 0x8000, 1);
            (1, LCF_T_QXFER, _)          : op(TAG_OP_LOOKUP, LCS_OP_READ, SB_OP_NONE, 0, 0);
        }
        size = 32;
    }

    apply {
        switch_cfg.apply();
        LCF_TESTGEN_ASSUME(LCF_TESTGEN_CFG);
#if LCF_QUEUE
        lock_mode_cfg.apply();
#endif
        if (md.to_lcf == 1 && hdr.lcf.isValid()) {
            node_tbl.apply();
            node_port_tbl.apply();
            requester_tbl.apply();
            home_tbl.apply();
            op_select.apply();
            if (md.pass2 == 1) {
                rs_check_tbl.apply();
            }
#if LCF_QUEUE
            q_lock_op.apply();
#endif
            /* Single-instruction ALU operations, all in stage 0. */
            md.ipx = hdr.ipv4.total_len |-| hdr.udp.length;
            md.y = hdr.udp.length |-| hdr.lcf.len;
            md.key_hi = hdr.lcf.tag[63:32] | 32w0x80000000;   /* | 1 << 63 */
            md.key_lo = hdr.lcf.tag[31:0];
            md.aux_type = hdr.lcf.type ++ 24w0;               /* type << 24 */
            /* VERSION's epoch for ADD (lcf_version.p4 ver_set): a stateful
             * ALU cannot shift, so the shifted value is a PHV input */
            md.ver_epoch = hdr.lcf.seq[15:0] ++ 16w0;           /* seq << 16 */
            /* PROTOCOL.md 4.3: installed copysets are masked with the nodes */
            md.pkt_cs = hdr.lcf.copyset & md.node_mask;
#if LCF_QUEUE
            /* QRELEASE pass 2: QGATE's word open under the first pass's
             * epoch (lcf_ways.p4 qg_close; a stateful ALU cannot shift) */
            md.qg_tok = md.rs_in.score ++ 16w1;
#endif
        }
    }
}

/* ---------------------------------------------------------------------------
 * Stage 1: the validate table. Its const entries are the drop rules of
 * PROTOCOL.md section 3 in C's order; the first entry that matches is the
 * first reason that applies. Comparisons of two fields use the stage-0
 * differences (ipx, y) and range matches, one range per IHL value.
 * ------------------------------------------------------------------------- */
control LcfValidate(inout lcf_headers_t hdr,
                    inout lcf_ig_md_t md,
                    in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                    inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md)
{
    /* C: struct lcf_counters.packets (passes of LCF frames, drops included). */
    Counter<bit<64>, bit<1>>(1, CounterType_t.PACKETS) lcf_packet_ctr;

    /* The drop counter is LcfDropCount's, counted after the table: a
     * Tofino table's actions address all its counters with one expression
     * (packets: 0). */
    action v_drop(bit<8> reason) {
        md.drop = 1;
        md.drop_reason = reason;
        ig_dprsr_md.drop_ctl = 1;
        lcf_packet_ctr.count(0);
    }
    /* Node-to-node types (0x20-0x7f) that pass validation: L2 traffic. */
    action v_l2() { md.l2 = 1; }
    action v_pass() { lcf_packet_ctr.count(0); }

    table validate {
        key = {
            hdr.lcf.isValid()   : ternary @name("lcf_valid");
            hdr.ipv4.ihl        : ternary @name("ihl");
            hdr.ipv4.total_len  : range   @name("ip_len");
            hdr.ipv4.flags      : ternary @name("ip_flags");
            hdr.ipv4.frag_offset : range  @name("frag_offset");
            hdr.udp.length      : range   @name("udp_len");
            md.ipx              : range   @name("ip_len_minus_udp_len");
            hdr.lcf.version     : range   @name("version");
            hdr.lcf.type        : range   @name("type");
            md.y                : range   @name("udp_len_minus_len");
            hdr.lcf.flags       : range   @name("flags");
            hdr.lcf.gstatus     : range   @name("gstatus");
            hdr.lcf.node        : range   @name("node");
            md.node_known       : ternary @name("node_known");
            md.port_ok          : ternary @name("port_ok");
            md.req_ok           : ternary @name("thread_ok");
            md.home_ok          : ternary @name("home_ok");
            md.pass2            : ternary @name("pass2");
            md.rs_ok            : ternary @name("rs_ok");
        }
        actions = { v_drop; v_l2; v_pass; }
        const default_action = v_pass();
        /* Generated layout: (lcf_valid, ihl, ip_len, ip_flags, frag_offset,
         * udp_len, ipx, version, type, y, flags, gstatus, node, node_known,
         * port_ok, thread_ok, home_ok, pass2, rs_ok). Order = priority. */
        const entries = {
            /* C lcf_frame_classify(): IP total length < IHL*4 + 8 */
            (_, 5, 0 .. 27, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_BAD_IP);
            (_, 6, 0 .. 31, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_BAD_IP);
            (_, 7, 0 .. 35, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_BAD_IP);
            (_, 8, 0 .. 39, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_BAD_IP);
            (_, 9, 0 .. 43, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_BAD_IP);
            (_, 10, 0 .. 47, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_BAD_IP);
            (_, 11, 0 .. 51, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_BAD_IP);
            (_, 12, 0 .. 55, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_BAD_IP);
            (_, 13, 0 .. 59, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_BAD_IP);
            (_, 14, 0 .. 63, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_BAD_IP);
            (_, 15, 0 .. 67, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_BAD_IP);
            /* ... or a fragment (MF set or offset != 0) */
            (_, _, _, 1 &&& 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_BAD_IP);
            (_, _, _, _, 1 .. 8191, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_BAD_IP);
            /* ... or the IP total length runs past the frame: Tofino sees
             * only a frame too short for the LCF header (TOFINO.md) */
            (false, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_BAD_IP);
            /* UDP length < 8, or beyond the IP payload (ip_len - udp_len < IHL*4) */
            (_, _, _, _, _, 0 .. 7, _, _, _, _, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_BAD_UDP);
            (_, 5, _, _, _, _, 0 .. 19, _, _, _, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_BAD_UDP);
            (_, 6, _, _, _, _, 0 .. 23, _, _, _, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_BAD_UDP);
            (_, 7, _, _, _, _, 0 .. 27, _, _, _, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_BAD_UDP);
            (_, 8, _, _, _, _, 0 .. 31, _, _, _, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_BAD_UDP);
            (_, 9, _, _, _, _, 0 .. 35, _, _, _, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_BAD_UDP);
            (_, 10, _, _, _, _, 0 .. 39, _, _, _, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_BAD_UDP);
            (_, 11, _, _, _, _, 0 .. 43, _, _, _, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_BAD_UDP);
            (_, 12, _, _, _, _, 0 .. 47, _, _, _, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_BAD_UDP);
            (_, 13, _, _, _, _, 0 .. 51, _, _, _, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_BAD_UDP);
            (_, 14, _, _, _, _, 0 .. 55, _, _, _, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_BAD_UDP);
            (_, 15, _, _, _, _, 0 .. 59, _, _, _, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_BAD_UDP);
            /* UDP length < 8 + 32 */
            (_, _, _, _, _, 8 .. 39, _, _, _, _, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_SHORT);
            /* C lcf_msg_validate() */
            (_, _, _, _, _, _, _, 0 .. 0, _, _, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_BAD_VERSION);
            (_, _, _, _, _, _, _, 2 .. 255, _, _, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_BAD_VERSION);
            (_, _, _, _, _, _, _, _, 0x00 .. 0x00, _, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_UNKNOWN_TYPE);
            (_, _, _, _, _, _, _, _, 0x0e .. 0x1f, _, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_UNKNOWN_TYPE);
            (_, _, _, _, _, _, _, _, 0x80 .. 0xff, _, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_UNKNOWN_TYPE);
            /* len != udp.length - 40, i.e. y != 40 */
            (_, _, _, _, _, _, _, _, _, 0 .. 39, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_BAD_LEN);
            (_, _, _, _, _, _, _, _, _, 41 .. 65535, _, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_BAD_LEN);
            (_, _, _, _, _, _, _, _, _, _, 0x08 .. 0xff, _, _, _, _, _, _, _, _) : v_drop(LCF_DROP_BAD_FLAGS);
            (_, _, _, _, _, _, _, _, _, _, _, 3 .. 255, _, _, _, _, _, _, _) : v_drop(LCF_DROP_BAD_GSTATUS);
            (_, _, _, _, _, _, _, _, _, _, _, _, 32 .. 65535, _, _, _, _, _, _) : v_drop(LCF_DROP_NODE_RANGE);
            /* C: a valid node-to-node type is LCF_FRAME_OTHER (L2) */
            (_, _, _, _, _, _, _, _, 0x20 .. 0x7f, _, _, _, _, _, _, _, _, _, _) : v_l2();
            /* C lcf_stage_parse() */
            (_, _, _, _, _, _, _, _, _, _, _, _, _, 0, _, _, _, _, _) : v_drop(LCF_DROP_NODE_UNKNOWN);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, 0, _, _, _, _) : v_drop(LCF_DROP_NODE_PORT_MISMATCH);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 0, _, _, _) : v_drop(LCF_DROP_THREAD_RANGE);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 0, _, _) : v_drop(LCF_DROP_TAG_RANGE);
            /* C pass_resubmitted() */
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, 0) : v_drop(LCF_DROP_BAD_RESUBMIT);
        }
        size = 64;
    }

    apply {
        /* drop and l2 start at 0 (@pa_auto_init_metadata; a resubmitted
         * pass is parsed again): an unconditional "= 0" would be a write
         * the l2 writes below must follow, a stage each. */
        /* The program reads ig_prsr_md.parser_err, so a frame with
         * PARSER_ERROR_PARTIAL_HDR is not dropped by the parser: when it was
         * cut inside the LCF header, hdr.lcf is invalid and the validate table
         * drops it (bad_ipv4_header); when it was cut before, it is L2
         * traffic (C: LCF_FRAME_OTHER), as every frame with to_lcf 0 is
         * below. First in program order: after validate's writes of l2 it
         * would hold the LCF stages back a stage. */
        if (ig_prsr_md.parser_err[1:1] == 1 && md.to_lcf == 0) {
            md.l2 = 1;
        }
        if (md.to_lcf == 0) {
            md.l2 = 1;              /* C: LCF_FRAME_OTHER */
        } else {
            validate.apply();
        }
    }
}

/* ---------------------------------------------------------------------------
 * The drop counter of the validate table, C counters.drop[reason]: counted
 * at the end of ingress (lcf.p4), off the path from the verdict to the
 * ways (a Tofino table's actions address all its counters with one
 * expression, so it cannot be counted in v_drop beside lcf_packet_ctr).
 * ------------------------------------------------------------------------- */
control LcfDropCount(in lcf_ig_md_t md)
{
    /* C: struct lcf_counters.drop[], indexed by LCF_DROP_*. */
    Counter<bit<64>, bit<8>>((bit<32>)LCF_DROP_MAX, CounterType_t.PACKETS) lcf_drop_ctr;

    apply {
        if (md.to_lcf == 1 && md.drop == 1) {
            lcf_drop_ctr.count(md.drop_reason);
        }
    }
}

/* ---------------------------------------------------------------------------
 * L2 switch for non-LCF traffic: exact dmac table from the topology, flood
 * (minus the ingress port, pruned in egress) on a miss. swswitch learns; a
 * Tofino would need a learning digest and a controller, so the table is
 * filled from the topology's node MACs instead.
 * ------------------------------------------------------------------------- */
control LcfL2(inout lcf_headers_t hdr,
              inout lcf_ig_md_t md,
              in ingress_intrinsic_metadata_t ig_intr_md,
              inout ingress_intrinsic_metadata_for_tm_t ig_tm_md)
{
    action l2_forward(PortId_t port) {
        ig_tm_md.ucast_egress_port = port;
    }
    action l2_flood() {
        ig_tm_md.mcast_grp_a = LCF_FLOOD_GRP;
        ig_tm_md.rid = 0xffff;
    }
    table dmac {
        key = { hdr.ethernet.dst_addr : exact @name("dst_mac"); }
        actions = { l2_forward; l2_flood; }
        default_action = l2_flood();
        size = 1024;
    }

    apply {
        hdr.bridge.setValid();
        hdr.bridge.kind = LCF_BR_L2;
        hdr.bridge.in_port = ig_intr_md.ingress_port;
        hdr.bridge.mcast = 0;
        hdr.bridge.mirror = 0;
        /* every bit of a bridge container written: no container read back */
        hdr.bridge.aux_fix = LCF_AUX_FIX_NONE;
        hdr.bridge._pad0 = 0;
        hdr.bridge._pad1 = 0;
        hdr.bridge.ackhi = 0;
        dmac.apply();
        LCF_TESTGEN_ASSUME(LCF_TESTGEN_L2);
    }
}

#endif /* _LCF_VALIDATE_P4_ */
