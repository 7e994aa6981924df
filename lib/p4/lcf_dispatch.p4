/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Last ingress stage: the outcome of the pass. C: the res_*() helpers and
 * the branches of pass_request(), pass_first() and pass_resubmitted() in
 * lib/lcf/lcf_pipeline.c. One const-entry table, first match wins, whose
 * actions set the egress port or multicast group, the header fields the C
 * code sets in phv->m, the bridged metadata for the egress rewrite, the
 * resubmit metadata, and the action counter.
 */
#ifndef _LCF_DISPATCH_P4_
#define _LCF_DISPATCH_P4_

control LcfDispatch(inout lcf_headers_t hdr,
                    inout lcf_ig_md_t md,
                    in ingress_intrinsic_metadata_t ig_intr_md,
                    inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                    inout ingress_intrinsic_metadata_for_tm_t ig_tm_md)
{
    /* C: struct lcf_counters.action[], indexed by LCF_A_*. */
    Counter<bit<64>, bit<8>>((bit<32>)LCF_A_MAX, CounterType_t.PACKETS) lcf_action_ctr;
    /* C: drop[LCF_DROP_BAD_RESUBMIT] (the other reasons: lcf_drop_ctr). */
    Counter<bit<64>, bit<1>>(1, CounterType_t.PACKETS) lcf_drop_resubmit_ctr;
    /* C: action[LCF_A_RETRANSMIT_PASS], counted in addition to the forward. */
    Counter<bit<64>, bit<1>>(1, CounterType_t.PACKETS) lcf_retransmit_ctr;

    /* ---- helpers (inlined into the actions) ---- */
    action lcf_copy(bit<8> dst_node) {
        hdr.bridge.setValid();
        hdr.bridge.kind = LCF_BR_LCF;
        hdr.bridge.dst_node = dst_node;
        hdr.bridge.provider = LCF_NODE_NONE8;
        hdr.bridge.mcast = 0;
        hdr.bridge.dest_mask = 0;
        hdr.bridge.in_port = ig_intr_md.ingress_port;
        hdr.bridge.mirror = 0;
        /* every bit of a bridge container written: no container read back */
        hdr.bridge.aux_fix = LCF_AUX_FIX_NONE;
        hdr.bridge._pad0 = 0;
        hdr.bridge._pad1 = 0;
        hdr.bridge.ackhi = 0;
    }
    /* Block metadata into the header (C: phv->m.gstatus/copyset). */
    action block_md() {
        hdr.lcf.gstatus = md.blk_gs;
        hdr.lcf.copyset = md.blk_cs;
    }
    /* A reply the switch originates, to the requester (C res_reply()). */
    action from_switch_to_requester() {
        lcf_copy(hdr.lcf.node[7:0]);
        ig_tm_md.ucast_egress_port = ig_intr_md.ingress_port;
        hdr.ethernet.src_addr = md.sw_mac;
        hdr.ipv4.src_addr = md.sw_ip;
    }

    /* ---- outcomes ---- */

    /* C pass_first(), tag miss: to home, IN_SWITCH and DATA_PROVIDER clear. */
    action to_home_on_miss() {
        lcf_copy(md.home);
        ig_tm_md.ucast_egress_port = md.home_port;
        lcf_action_ctr.count(LCF_A_TAG_MISS_HOME);
    }
    action d_tag_miss() {
        to_home_on_miss();
        hdr.lcf.flags = hdr.lcf.flags & ~(LCF_F_IN_SWITCH | LCF_F_DATA_PROVIDER);
    }
    /* The same with FAIL set: C's (flags & ~(IN_SWITCH | DATA_PROVIDER)) |
     * FAIL is FAIL, as the validate table drops reserved flag bits. One
     * write: a container takes one instruction per action. */
    action d_tag_miss_aborted() {
        to_home_on_miss();
        hdr.lcf.flags = LCF_F_FAIL;
    }
    /* C pass_abort(), a copy passed: ABORT_ACK | FAIL from the switch, the
     * packet's own gstatus/copyset (no lock stage) */
    action d_abort_ack() {
        from_switch_to_requester();
        hdr.lcf.type = LCF_T_ABORT_ACK;
        hdr.lcf.flags = LCF_F_IN_SWITCH | LCF_F_FAIL;
        hdr.lcf.aux = md.aux_type;
        lcf_action_ctr.count(LCF_A_ABORT_PASSED);
    }
    /* C pass_abort(), no copy passed: ENDED, and on to the home, which
     * answers it (PROTOCOL.md 4.9) */
    action d_abort_home() {
        lcf_copy(md.home);
        ig_tm_md.ucast_egress_port = md.home_port;
        hdr.lcf.flags = hdr.lcf.flags | LCF_F_IN_SWITCH;
        lcf_action_ctr.count(LCF_A_ABORT_HOME);
    }
    /* C lcf_table_forward(), LCF_FWD_HOME */
    action d_fwd_home() {
        lcf_copy(md.home);
        ig_tm_md.ucast_egress_port = md.home_port;
        hdr.lcf.flags = LCF_F_IN_SWITCH;
        block_md();
        lcf_action_ctr.count(LCF_A_FWD_HOME);
    }
    /* LCF_FWD_OWNER: the copyset's (lowest) node, as data provider */
    action d_fwd_owner() {
        lcf_copy(md.own_node);
        ig_tm_md.ucast_egress_port = md.own_port;
        hdr.lcf.flags = LCF_F_IN_SWITCH | LCF_F_DATA_PROVIDER;
        block_md();
        lcf_action_ctr.count(LCF_A_FWD_OWNER);
    }
    /* LCF_FWD_PROVIDER: one random copyset node, as data provider */
    action d_fwd_provider() {
        lcf_copy(md.prov_node);
        ig_tm_md.ucast_egress_port = md.prov_port;
        hdr.lcf.flags = LCF_F_IN_SWITCH | LCF_F_DATA_PROVIDER;
        block_md();
        lcf_action_ctr.count(LCF_A_FWD_PROVIDER);
    }
    /* LCF_FWD_MCAST_PROV: multicast to the copyset; egress keeps the replicas
     * whose node bit is in dest_mask and flags the provider's replica. */
    action d_fwd_mcast_prov() {
        lcf_copy(LCF_NODE_NONE8);
        hdr.bridge.mcast = 1;
        hdr.bridge.dest_mask = md.blk_cs;
        hdr.bridge.provider = md.prov_node;
        ig_tm_md.mcast_grp_a = LCF_MCAST_GRP;
        hdr.lcf.flags = LCF_F_IN_SWITCH;
        block_md();
        lcf_action_ctr.count(LCF_A_MCAST_INVALIDATE);
    }
    /* LCF_FWD_MCAST_OTHERS: multicast to copyset minus the requester */
    action d_fwd_mcast_others() {
        lcf_copy(LCF_NODE_NONE8);
        hdr.bridge.mcast = 1;
        hdr.bridge.dest_mask = md.others;
        ig_tm_md.mcast_grp_a = LCF_MCAST_GRP;
        hdr.lcf.flags = LCF_F_IN_SWITCH;
        block_md();
        lcf_action_ctr.count(LCF_A_MCAST_INVALIDATE);
    }
    /* MCAST_OTHERS with copyset == {requester}: the direct ACK */
    action d_fwd_sole_holder() {
        from_switch_to_requester();
        hdr.lcf.flags = LCF_F_IN_SWITCH;
        block_md();
        lcf_action_ctr.count(LCF_A_ACK_SOLE_HOLDER);
    }
    /* LCF_FWD_RETURN: evictions come back to the requester */
    action d_fwd_return() {
        from_switch_to_requester();
        hdr.lcf.flags = LCF_F_IN_SWITCH;
        block_md();
        lcf_action_ctr.count(LCF_A_RETURN_EVICT);
    }
    /* C res_reply(NACK): aux = original type << 24 */
    action d_nack(bit<8> ctr) {
        from_switch_to_requester();
        hdr.lcf.type = LCF_T_NACK;
        hdr.lcf.flags = LCF_F_IN_SWITCH | LCF_F_FAIL;
        hdr.lcf.aux = md.aux_type;
        block_md();
        lcf_action_ctr.count(ctr);
    }
    /* C pass_request(), stale request: NACK before the LOCK stage, so the
     * header keeps the packet's gstatus/copyset (no block_md()). */
    action d_nack_stale() {
        from_switch_to_requester();
        hdr.lcf.type = LCF_T_NACK;
        hdr.lcf.flags = LCF_F_IN_SWITCH | LCF_F_FAIL;
        hdr.lcf.aux = md.aux_type;
        lcf_action_ctr.count(LCF_A_NACK_STALE);
    }
    /* C res_reply(UNLOCK_ACK): gstatus/copyset after the pass */
    action d_unlock_ack(bit<8> ctr) {
        from_switch_to_requester();
        hdr.lcf.type = LCF_T_UNLOCK_ACK;
        hdr.lcf.flags = LCF_F_IN_SWITCH;
        hdr.lcf.aux = md.aux_type;
        block_md();
        lcf_action_ctr.count(ctr);
    }
    /* C res_migrate_ack(): aux = type << 24 | way << 16; mirror copy to the
     * shadow node (E2E mirror in egress, counted there as mirror_to_shadow) */
    action d_migrate_ack(bit<8> ctr) {
        from_switch_to_requester();
        hdr.bridge.mirror = md.has_shadow;
        hdr.lcf.type = LCF_T_MIGRATE_ACK;
        hdr.lcf.flags = LCF_F_IN_SWITCH;
        hdr.lcf.aux = md.aux_type | md.aux_way;
        block_md();
        lcf_action_ctr.count(ctr);
    }
    /* Collision: way 0xff, FAIL, the packet's gstatus/copyset */
    action d_add_collision() {
        from_switch_to_requester();
        hdr.bridge.mirror = md.has_shadow;
        hdr.lcf.type = LCF_T_MIGRATE_ACK;
        hdr.lcf.flags = LCF_F_IN_SWITCH | LCF_F_FAIL;
        hdr.lcf.aux = md.aux_type | 32w0x00ff0000;
        lcf_action_ctr.count(LCF_A_ADD_COLLISION);
    }

    /* C pass_version_read() (lcf_version.c): VERSION from the switch; the
     * VERSION of the hit way (lcf_version.p4) in copyset, the writer bit
     * of LOCK as aux bit 16; a miss: FAIL, the packet's own fields. */
    action d_version_hit() {
        from_switch_to_requester();
        hdr.lcf.type = LCF_T_VERSION;
        hdr.lcf.flags = LCF_F_IN_SWITCH;
        hdr.lcf.gstatus = md.blk_gs;
        hdr.lcf.copyset = md.ver_rv;
        hdr.lcf.aux = md.aux_type | md.aux_busy;
        lcf_action_ctr.count(LCF_A_VERSION_HIT);
    }
    action d_version_miss() {
        from_switch_to_requester();
        hdr.lcf.type = LCF_T_VERSION;
        hdr.lcf.flags = LCF_F_FAIL;
        hdr.lcf.aux = md.aux_type;
        lcf_action_ctr.count(LCF_A_VERSION_MISS);
    }

    /* C res_resubmit(rs_pack(...)): PROTOCOL.md 4.8 */
    action resubmit_with(bit<8> op, bit<8> way, bit<8> kind, bit<16> score) {
        md.rs_out.setValid();
        md.rs_out.op = op;
        md.rs_out.way = way;
        md.rs_out.lock_kind = kind;
        md.rs_out.rsvd0 = 0;
        md.rs_out.score = score;
        md.rs_out.rsvd1 = 0;
        ig_dprsr_md.resubmit_type = LCF_RESUBMIT_TYPE;
        lcf_action_ctr.count(LCF_A_RESUBMIT);
    }
    action d_resubmit_add()            { resubmit_with(LCF_RS_ADD, 0, 0, 0); }
    /* the LAST-UNLOCK answer of this pass rides along (C rs_pack) */
    action d_resubmit_unlock()         { resubmit_with(LCF_RS_UNLOCK, md.way, (bit<8>)md.may_exec, md.score); }
    action d_resubmit_remove()         { resubmit_with(LCF_RS_REMOVE, md.way, 0, 0); }
    action d_resubmit_release(bit<8> kind) { resubmit_with(LCF_RS_RELEASE, md.way, kind, 0); }

    /* lcf_drop_resubmit_ctr is counted after the table (md.bad_rs): a
     * Tofino table's actions address all its counters with one expression. */
    action d_bad_resubmit() {
        ig_dprsr_md.drop_ctl = 1;
        md.bad_rs = 1;
        lcf_action_ctr.count(LCF_A_DROP);
    }

    table dispatch {
        key = {
            md.pass2     : exact   @name("pass2");
            md.rs_in.op  : ternary @name("rs_op");
            hdr.lcf.type : range   @name("type");
            md.hit       : ternary @name("hit");
            md.bad_way   : ternary @name("bad_way");
            md.took      : ternary @name("took");
            md.sb_held   : ternary @name("held");
            md.check_ok  : ternary @name("check_ok");
            md.fwd_kind  : ternary @name("fwd_kind");
            md.lu_exec   : ternary @name("lu_exec");
            md.placed    : ternary @name("placed");
            md.lu_stale  : ternary @name("lu_stale");
            md.sb_over   : ternary @name("over");
        }
        actions = {
            d_tag_miss; d_fwd_home; d_fwd_owner; d_fwd_provider;
            d_fwd_mcast_prov; d_fwd_mcast_others; d_fwd_sole_holder;
            d_fwd_return; d_nack; d_nack_stale; d_unlock_ack; d_migrate_ack;
            d_add_collision; d_resubmit_add; d_resubmit_unlock;
            d_resubmit_remove; d_resubmit_release; d_bad_resubmit;
            d_tag_miss_aborted; d_abort_ack; d_abort_home;
            d_version_hit; d_version_miss;
        }
        const default_action = d_bad_resubmit();
        /* (pass2, rs_op, type, hit, bad_way, took, held, check_ok,
         *  fwd_kind, lu_exec, placed, lu_stale, over) */
        const entries = {
            /* ---- first pass: C pass_first() ---- */
            (0, _, LCF_T_ADD_TO_SWITCH .. LCF_T_ADD_TO_SWITCH, 0, _, _, _, _, _, _, _, _, _) : d_resubmit_add();
            (0, _, LCF_T_ADD_TO_SWITCH .. LCF_T_ADD_TO_SWITCH, 1, _, _, _, _, _, _, _, _, _) : d_migrate_ack(LCF_A_ADD_DUP);
            (0, _, LCF_T_VERSION_READ .. LCF_T_VERSION_READ, 1, _, _, _, _, _, _, _, _, _) : d_version_hit();
            (0, _, LCF_T_VERSION_READ .. LCF_T_VERSION_READ, 0, _, _, _, _, _, _, _, _, _) : d_version_miss();
            /* C pass_miss(): a request of an event that is over goes home with FAIL */
            (0, _, LCF_T_READ_MISS .. LCF_T_EVICT_MODIFIED, 0, _, _, _, _, _, _, _, _, 1) : d_tag_miss_aborted();
            (0, _, LCF_T_READ_MISS .. LCF_T_ABORT, 0, _, _, _, _, _, _, _, _, _) : d_tag_miss();
            /* C pass_abort(): held = a copy passed */
            (0, _, LCF_T_ABORT .. LCF_T_ABORT, 1, _, _, 0, _, _, _, _, _, _) : d_abort_home();
            (0, _, LCF_T_ABORT .. LCF_T_ABORT, 1, _, _, 1, _, _, _, _, _, _) : d_abort_ack();
            (0, _, LCF_T_READ_UNLOCK .. LCF_T_WRITE_UNLOCK, 1, _, _, _, _, _, _, _, _, _) : d_resubmit_unlock();
            (0, _, LCF_T_REMOVE_FROM_SWITCH .. LCF_T_REMOVE_FROM_SWITCH, 1, _, 1, _, _, _, _, _, _, _) : d_resubmit_remove();
            (0, _, LCF_T_REMOVE_FROM_SWITCH .. LCF_T_REMOVE_FROM_SWITCH, 1, _, 0, _, _, _, _, _, _, _) : d_nack(LCF_A_NACK_LOCK_BUSY);
            /* C pass_request(): LAST-UNLOCK, lock or held, over, check, forward */
            (0, _, LCF_T_READ_MISS .. LCF_T_EVICT_MODIFIED, 1, _, _, _, _, _, _, _, 1, _) : d_nack_stale();
            (0, _, LCF_T_READ_MISS .. LCF_T_EVICT_MODIFIED, 1, _, 0, 0, _, _, _, _, _, _) : d_nack(LCF_A_NACK_LOCK_BUSY);
            /* an event that is over (SCOREBOARD): as a check failure */
            (0, _, LCF_T_READ_MISS .. LCF_T_READ_MISS, 1, _, 1, _, _, _, _, _, _, 1) : d_resubmit_release(0);
            (0, _, LCF_T_WRITE_MISS .. LCF_T_EVICT_MODIFIED, 1, _, 1, _, _, _, _, _, _, 1) : d_resubmit_release(1);
            (0, _, LCF_T_READ_MISS .. LCF_T_EVICT_MODIFIED, 1, _, 0, _, _, _, _, _, _, 1) : d_nack(LCF_A_NACK_ABORTED);
            (0, _, LCF_T_READ_MISS .. LCF_T_READ_MISS, 1, _, 1, _, 0, _, _, _, _, _) : d_resubmit_release(0);
            (0, _, LCF_T_WRITE_MISS .. LCF_T_EVICT_MODIFIED, 1, _, 1, _, 0, _, _, _, _, _) : d_resubmit_release(1);
            (0, _, LCF_T_READ_MISS .. LCF_T_EVICT_MODIFIED, 1, _, 0, _, 0, _, _, _, _, _) : d_nack(LCF_A_NACK_CHECK_FAIL);
            (0, _, LCF_T_READ_MISS .. LCF_T_EVICT_MODIFIED, 1, _, _, _, 1, FWD_KIND_HOME, _, _, _, _) : d_fwd_home();
            (0, _, LCF_T_READ_MISS .. LCF_T_EVICT_MODIFIED, 1, _, _, _, 1, FWD_KIND_OWNER, _, _, _, _) : d_fwd_owner();
            (0, _, LCF_T_READ_MISS .. LCF_T_EVICT_MODIFIED, 1, _, _, _, 1, FWD_KIND_PROVIDER, _, _, _, _) : d_fwd_provider();
            (0, _, LCF_T_READ_MISS .. LCF_T_EVICT_MODIFIED, 1, _, _, _, 1, FWD_KIND_MCAST_PROV, _, _, _, _) : d_fwd_mcast_prov();
            (0, _, LCF_T_READ_MISS .. LCF_T_EVICT_MODIFIED, 1, _, _, _, 1, FWD_KIND_MCAST_OTHERS, _, _, _, _) : d_fwd_mcast_others();
            (0, _, LCF_T_READ_MISS .. LCF_T_EVICT_MODIFIED, 1, _, _, _, 1, FWD_KIND_SOLE_HOLDER, _, _, _, _) : d_fwd_sole_holder();
            (0, _, LCF_T_READ_MISS .. LCF_T_EVICT_MODIFIED, 1, _, _, _, 1, _, _, _, _, _) : d_fwd_return();
            /* ---- second pass: C pass_resubmitted() ---- */
            (1, _, _, _, 1, _, _, _, _, _, _, _, _) : d_bad_resubmit();
            (1, LCF_RS_ADD, _, _, _, _, _, _, _, _, 1, _, _) : d_migrate_ack(LCF_A_ADD_OK);
            (1, LCF_RS_ADD, _, _, _, _, _, _, _, _, 0, _, _) : d_add_collision();
            (1, LCF_RS_RELEASE, _, 1, _, _, _, _, _, _, _, _, _) : d_nack(LCF_A_NACK_CHECK_FAIL);
            (1, LCF_RS_UNLOCK, _, 1, _, _, _, _, _, 1, _, _, _) : d_unlock_ack(LCF_A_UNLOCK_EXEC);
            (1, LCF_RS_UNLOCK, _, 1, _, _, _, _, _, 0, _, _, _) : d_unlock_ack(LCF_A_UNLOCK_DUP);
            (1, LCF_RS_REMOVE, _, 1, _, _, _, _, _, _, _, _, _) : d_migrate_ack(LCF_A_REMOVE_OK);
        }
        size = 40;
    }

    /* C pass_request(): a request that did not take the lock but passed on
     * its score and the check (retransmit_passed_on_score). */
    action count_retransmit() { lcf_retransmit_ctr.count(0); }
    table retransmit {
        key = {
            md.pass2 : exact;
            hdr.lcf.type : range;
            md.took : exact;
            md.sb_held : ternary;
            md.check_ok : exact;
        }
        actions = { count_retransmit; NoAction; }
        const default_action = NoAction();
        const entries = {
            (0, LCF_T_READ_MISS .. LCF_T_EVICT_MODIFIED, 0, 0, 1) : NoAction();
            (0, LCF_T_READ_MISS .. LCF_T_EVICT_MODIFIED, 0, _, 1) : count_retransmit();
        }
        size = 4;
    }

    /* Applied only to an LCF frame that is neither dropped nor L2 traffic
     * (LcfIngress). */
    apply {
        /* d_version_hit's busy bit (LOCK writer bit 15, or the queued mode's
         * waiting bit 14 -> aux bit 16), set from a constant under a
         * gateway: an action reading the 16-bit lk_old into a 32-bit field
         * would tie both to one container size. Retry mode never sets
         * WAITING: the default build tests the writer bit alone. */
#if LCF_QUEUE
        if (md.lk_old[15:14] != 0) {
#else
        if (md.lk_old[15:15] == 1) {
#endif
            md.aux_busy = LCF_VER_AUX_BUSY;
        } else {
            md.aux_busy = 0;
        }
        dispatch.apply();
        if (md.bad_rs == 1) {
            lcf_drop_resubmit_ctr.count(0);
        }
        if (md.hit == 1 && md.lu_stale == 0 && md.sb_over == 0) {
            retransmit.apply();
        }
    }
}

#endif /* _LCF_DISPATCH_P4_ */
