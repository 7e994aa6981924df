/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The queued lock mode's outcome stage (included by lcf_queue.p4; its
 * register layout and differences from C are described there).
 */
#ifndef _LCF_QUEUE_OUT_P4_
#define _LCF_QUEUE_OUT_P4_

/* ---------------------------------------------------------------------------
 * The outcome of a queue pass, stage W+7, applied instead of LcfDispatch
 * (lcf.p4) when md.q_out == 1 (QXFER, QRELEASE) or md.q_frv != 0 (a
 * request forwarded to the holder). C: the res_*() calls of
 * pass_request_queue(), pass_queue(), pass_miss() and pass_resubmitted()'s
 * QRELEASE case; lcf_q_ack(). Counters: lcf_q_action_ctr[LCF_A_*] (C
 * action[a] = dispatch.lcf_action_ctr[a] + queue_out.lcf_q_action_ctr[a]),
 * lcf_q_drop_resubmit_ctr (drop[bad_resubmit_metadata], with dispatch's).
 * ------------------------------------------------------------------------- */
control LcfQueueOut(inout lcf_headers_t hdr,
                    inout lcf_ig_md_t md,
                    in ingress_intrinsic_metadata_t ig_intr_md,
                    inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                    inout ingress_intrinsic_metadata_for_tm_t ig_tm_md)
{
    Counter<bit<64>, bit<8>>((bit<32>)LCF_A_MAX, CounterType_t.PACKETS) lcf_q_action_ctr;
    Counter<bit<64>, bit<1>>(1, CounterType_t.PACKETS) lcf_q_drop_resubmit_ctr;

    action q_copy(bit<8> dst_node) {
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
    /* C res_qxfer_ack() / lcf_q_ack(): to the holder, from the switch,
     * type QXFER_ACK, the block's gstatus/copyset */
    action q_ack_common() {
        q_copy(hdr.lcf.node[7:0]);
        ig_tm_md.ucast_egress_port = ig_intr_md.ingress_port;
        hdr.ethernet.src_addr = md.sw_mac;
        hdr.ipv4.src_addr = md.sw_ip;
        hdr.lcf.type = LCF_T_QXFER_ACK;
        hdr.lcf.gstatus = md.blk_gs;
        hdr.lcf.copyset = md.blk_cs;
    }

    /* C pass_request_queue(): the request itself, IN_SWITCH, the block's
     * metadata, aux = tenure << 16 | index (finished in egress), to the
     * holder's node */
    action q_fwd_holder(bit<8> node, PortId_t port) {
        q_copy(node);
        ig_tm_md.ucast_egress_port = port;
        hdr.lcf.flags = LCF_F_IN_SWITCH;
        hdr.lcf.gstatus = md.blk_gs;
        hdr.lcf.copyset = md.blk_cs;
        hdr.lcf.aux = md.q_frv;              /* egress: LCF_AUX_FIX_FWD */
        hdr.bridge.aux_fix = LCF_AUX_FIX_FWD;
        lcf_q_action_ctr.count(LCF_A_FWD_HOLDER);
    }
    /* unreachable: every QHOLDER id names a node of the topology (grant:
     * the requester; QXFER: q_next_tbl) */
    action q_holder_unknown() {
        ig_dprsr_md.drop_ctl = 1;
        lcf_q_action_ctr.count(LCF_A_DROP);
    }
    /* holder node + 1 (lo bits 10-14; bit 15 is Q_SW) -> node, port
     * (topo_to_bfrt.py) */
    table holder_port {
        key = { md.q_frv[14:10] : exact @name("node1"); }
        actions = { q_fwd_holder; q_holder_unknown; }
        default_action = q_holder_unknown();
        size = 64;
    }

    /* C pass_miss(): QXFER/QRELEASE on a tag miss go home */
    action q_tag_miss() {
        q_copy(md.home);
        ig_tm_md.ucast_egress_port = md.home_port;
        hdr.lcf.flags = hdr.lcf.flags & ~(LCF_F_IN_SWITCH | LCF_F_DATA_PROVIDER);
        lcf_q_action_ctr.count(LCF_A_TAG_MISS_HOME);
    }
    /* denied: aux = ackhi << 16 | FWD_CNT as found (finished in egress),
     * ackhi = original type << 8 | reason */
    action q_deny(bit<16> ackhi) {
        q_ack_common();
        hdr.lcf.flags = LCF_F_IN_SWITCH | LCF_F_FAIL;
        hdr.lcf.aux = md.q_crv;              /* egress: LCF_AUX_FIX_DENY */
        hdr.bridge.aux_fix = LCF_AUX_FIX_DENY;
        hdr.bridge.ackhi = ackhi;
        lcf_q_action_ctr.count(LCF_A_QXFER_DENIED);
    }
    /* denied with FWD_CNT 0 (not_holder, closing, retry mode) */
    action q_deny0(bit<16> ackhi) {
        q_ack_common();
        hdr.lcf.flags = LCF_F_IN_SWITCH | LCF_F_FAIL;
        hdr.lcf.aux = ackhi ++ 16w0;
        lcf_q_action_ctr.count(LCF_A_QXFER_DENIED);
    }
    /* QRELEASE: score = the epoch QGATE is open under (qg_open; 0 for
     * QXFER2, which opens no gate) */
    action q_resubmit(bit<8> op) {
        md.rs_out.setValid();
        md.rs_out.op = op;
        md.rs_out.way = md.way;
        md.rs_out.lock_kind = 0;
        md.rs_out.rsvd0 = 0;
        md.rs_out.score = md.qg_eo[31:16];
        md.rs_out.rsvd1 = 0;
        ig_dprsr_md.resubmit_type = LCF_RESUBMIT_TYPE;
        lcf_q_action_ctr.count(LCF_A_RESUBMIT);
    }
    /* QXFER2: approved, FWD_CNT = the count (it equalled it) */
    action q_xfer_ok() {
        q_ack_common();
        hdr.lcf.flags = LCF_F_IN_SWITCH;
        hdr.lcf.aux = 16w0x0c00 ++ hdr.lcf.aux[15:0];
        lcf_q_action_ctr.count(LCF_A_QXFER_OK);
    }
    /* QRELEASE, second pass: approved either way, FWD_CNT 0 */
    action q_release_ack(bit<8> ctr) {
        q_ack_common();
        hdr.lcf.flags = LCF_F_IN_SWITCH;
        hdr.lcf.aux = 32w0x0d000000;
        lcf_q_action_ctr.count(ctr);
    }
#if LCF_QUEUE
    /* C pass_request_queue(), LCF_QV_WAIT / LCF_QV_GRANT, lcf_q_wait_reply():
     * the waiting writer's reply, to the requester, IN_SWITCH, the block's
     * metadata as the lock stage read it, aux = original type << 24 |
     * READERS (QWAIT) or type << 24 (QGRANT) */
    action q_wait_common() {
        q_copy(hdr.lcf.node[7:0]);
        ig_tm_md.ucast_egress_port = ig_intr_md.ingress_port;
        hdr.ethernet.src_addr = md.sw_mac;
        hdr.ipv4.src_addr = md.sw_ip;
        hdr.lcf.flags = LCF_F_IN_SWITCH;
        hdr.lcf.gstatus = md.blk_gs;
        hdr.lcf.copyset = md.blk_cs;
    }
    action q_wait_reply() {
        q_wait_common();
        hdr.lcf.type = LCF_T_QWAIT;
        hdr.lcf.aux = md.aux_type[31:16] ++ md.q_readers;
        lcf_q_action_ctr.count(LCF_A_QWAIT);
    }
    action q_grant_reply() {
        q_wait_common();
        hdr.lcf.type = LCF_T_QGRANT;
        hdr.lcf.aux = md.aux_type;
        lcf_q_action_ctr.count(LCF_A_QGRANT);
    }
    /* C LCF_QV_UNDO: an aborted waiter's WAITING is undone by a RELEASE
     * pass of lock kind 2 */
    action q_resubmit_waiting() {
        md.rs_out.setValid();
        md.rs_out.op = LCF_RS_RELEASE;
        md.rs_out.way = md.way;
        md.rs_out.lock_kind = 2;
        md.rs_out.rsvd0 = 0;
        md.rs_out.score = 0;
        md.rs_out.rsvd1 = 0;
        ig_dprsr_md.resubmit_type = LCF_RESUBMIT_TYPE;
        lcf_q_action_ctr.count(LCF_A_RESUBMIT);
    }
    /* C pass_resubmitted(), RELEASE of lock kind 2: NACK, the block's
     * metadata, nack_aborted_request */
    action q_nack_aborted() {
        q_wait_common();
        hdr.lcf.type = LCF_T_NACK;
        hdr.lcf.flags = LCF_F_IN_SWITCH | LCF_F_FAIL;
        hdr.lcf.aux = md.aux_type;
        lcf_q_action_ctr.count(LCF_A_NACK_ABORTED);
    }
    /* C pass_abort(), lcf_q_abort_waiting(): the ABORT of a waiting
     * writer's event, a copy passed: ABORT_ACK | FAIL from the switch, the
     * packet's own gstatus/copyset, as LcfDispatch's d_abort_ack */
    action q_abort_ack() {
        q_copy(hdr.lcf.node[7:0]);
        ig_tm_md.ucast_egress_port = ig_intr_md.ingress_port;
        hdr.ethernet.src_addr = md.sw_mac;
        hdr.ipv4.src_addr = md.sw_ip;
        hdr.lcf.type = LCF_T_ABORT_ACK;
        hdr.lcf.flags = LCF_F_IN_SWITCH | LCF_F_FAIL;
        hdr.lcf.aux = md.aux_type;
        lcf_q_action_ctr.count(LCF_A_ABORT_PASSED);
    }
    /* C lcf_q_xfer() / lcf_q_release1(): LCF_Q_WAITING, FWD_CNT as found */
    action q_deny_waiting() {
        q_deny(hdr.lcf.type ++ LCF_Q_WAITING);
    }
#endif

    /* lcf_q_drop_resubmit_ctr is counted after the table (md.bad_rs), as in
     * LcfDispatch. */
    action q_bad_resubmit() {
        ig_dprsr_md.drop_ctl = 1;
        md.bad_rs = 1;
        lcf_q_action_ctr.count(LCF_A_DROP);
    }

    table qout {
        key = {
            md.pass2 : exact @name("pass2");
            md.rs_in.op : ternary @name("rs_op");
            hdr.lcf.type : exact @name("type");
            md.hit : ternary @name("hit");
            md.bad_way : ternary @name("bad_way");
            md.q_mode : ternary @name("queued");
            md.q_crv : ternary @name("crv");
            md.q_next_ok : ternary @name("next_ok");
            md.lu_exec : ternary @name("lu_exec");
        }
        actions = { q_tag_miss; q_deny; q_deny0; q_resubmit; q_xfer_ok;
                    q_release_ack; q_bad_resubmit; }
        const default_action = q_bad_resubmit();
        /* (pass2, rs_op, type, hit, bad_way, queued, crv, next_ok, lu_exec) */
        const entries = {
            /* ---- first pass: C pass_first() ---- */
            (0, _, LCF_T_QXFER, 0, _, _, _, _, _)    : q_tag_miss();
            (0, _, LCF_T_QRELEASE, 0, _, _, _, _, _) : q_tag_miss();
            /* retry mode: no QSTATE, nobody holds */
            (0, _, LCF_T_QXFER, 1, _, 0, _, _, _)    : q_deny0(0x0c02);
            (0, _, LCF_T_QRELEASE, 1, _, 0, _, _, _) : q_deny0(0x0d02);
            /* lcf_q_release1(): a retransmission after a lost second pass */
            (0, _, LCF_T_QRELEASE, 1, _, 1, Q_MARK, _, _) : q_resubmit(LCF_RS_QRELEASE);
            /* hi is not the event (rv 0), or QXFER approved already */
            (0, _, LCF_T_QXFER, 1, _, 1, 0, _, _)      : q_deny0(0x0c02);
            (0, _, LCF_T_QRELEASE, 1, _, 1, 0, _, _)   : q_deny0(0x0d02);
            (0, _, LCF_T_QXFER, 1, _, 1, Q_MARK, _, _) : q_deny0(0x0c02);
            /* lcf_q_xfer(): bad next, then count */
            (0, _, LCF_T_QXFER, 1, _, 1, _, 0, _)    : q_deny(0x0c04);
            (0, _, LCF_T_QXFER, 1, _, 1, _, 1, _)    : q_deny(0x0c01);
            (0, _, LCF_T_QRELEASE, 1, _, 1, _, _, _) : q_deny(0x0d01);
            /* ---- second pass: C pass_resubmitted() ---- */
            (1, _, LCF_T_QXFER, _, 1, _, _, _, _)    : q_bad_resubmit();
            (1, _, LCF_T_QRELEASE, _, 1, _, _, _, _) : q_bad_resubmit();
            (1, LCF_RS_QXFER2, LCF_T_QXFER, 1, 0, _, _, _, _) : q_xfer_ok();
            (1, LCF_RS_QRELEASE, LCF_T_QRELEASE, 1, 0, _, _, _, 1) : q_release_ack(LCF_A_QRELEASE_EXEC);
            /* QGATE stopped it while QSTATE is still its {id, CLOSING}:
             * another QRELEASE of the requester moved the gate on; closing,
             * the holder sends it again (C lcf_q_release2() true) */
            (1, LCF_RS_QRELEASE, LCF_T_QRELEASE, 1, 0, 1, Q_MARK, _, 0) : q_deny0(0x0d03);
            (1, LCF_RS_QRELEASE, LCF_T_QRELEASE, 1, 0, _, _, _, 0) : q_release_ack(LCF_A_QRELEASE_DUP);
        }
        size = 24;
    }

    apply {
#if LCF_QUEUE
        if (md.q_undo == 1) {
            /* the aborted waiter's RELEASE pass (C pass_resubmitted()) */
            if (md.hit == 0 || md.bad_way == 1) {
                q_bad_resubmit();
            } else {
                q_nack_aborted();
            }
        } else if (md.q_waiter == 1) {
            /* C rows 2 and 3 */
            if (md.sb_over == 1) {
                q_resubmit_waiting();
            } else {
                q_wait_reply();
            }
        } else if (hdr.lcf.type == LCF_T_ABORT) {
            /* q_check's rv has Q_SW: the event's switch tenure */
            q_abort_ack();
        } else if (md.q_out == 0) {
            /* md.q_frv[15:0] != 0: C row 4, the waiter's poll (LOCK has
             * WAITING and q_fwd found the packet's switch tenure), or row
             * 5, a forward */
            if (md.lk_old[14:14] == 1 && md.q_frv[15:0] == md.q_a[15:0]) {
                if (md.q_rd == 1) {
                    q_wait_reply();
                } else {
                    q_grant_reply();
                }
            } else {
                holder_port.apply();
            }
        } else if (md.q_stale == 1) {
            /* C pass_queue(): a stale QRELEASE, approved, one pass */
            q_release_ack(LCF_A_QRELEASE_DUP);
        } else if (md.pass2 == 0 && md.hit == 1 && md.q_mode == 1 && md.q_rd == 1 &&
                   md.q_crv[15:15] == 1) {
            /* a switch tenure while readers hold: never granted */
            q_deny_waiting();
        } else if (md.pass2 == 0 && md.hit == 1 && md.q_mode == 1 &&
                   md.q_crv[31:16] == md.q_b[31:16] && md.q_crv[14:0] == md.q_b[14:0]) {
            /* approved by q_check (rv without Q_SW == q_cmp; a gateway
             * comparing two fields, bit 15 left out: a switch tenure's lo
             * has Q_SW): C lcf_q_release1() resubmits with op 5;
             * lcf_q_xfer() approves in one pass, P4 in two (LCF_RS_QXFER2,
             * the top of this file) */
            if (hdr.lcf.type == LCF_T_QXFER) {
                q_resubmit(LCF_RS_QXFER2);
            } else {
                q_resubmit(LCF_RS_QRELEASE);
            }
        } else
#endif
        {
            qout.apply();
            if (md.bad_rs == 1) {
                lcf_q_drop_resubmit_ctr.count(0);
            }
        }
    }
}

#endif /* _LCF_QUEUE_OUT_P4_ */
