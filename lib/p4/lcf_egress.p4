/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Egress: the per-copy rewrite. C: lcf_frame_rewrite() in lib/wire/lcf_wire.c
 * as swswitch calls it for every node in lcf_result.to_nodes and
 * mirror_nodes: dst MAC/IP of the destination node, dst_node = that node,
 * DATA_PROVIDER on the provider's copy, UDP checksum 0, fresh IPv4 checksum
 * (in the egress deparser).
 *
 * Copyset multicast: ingress sends the packet to group LCF_MCAST_GRP, which
 * has one replica per topology node with rid = node id; egress drops the
 * replicas whose node is not in dest_mask (the copyset, or copyset minus the
 * requester).
 */
#ifndef _LCF_EGRESS_P4_
#define _LCF_EGRESS_P4_

control LcfEgress(inout lcf_headers_t hdr,
                  inout lcf_eg_md_t md,
                  in egress_intrinsic_metadata_t eg_intr_md,
                  in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
                  inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
                  inout egress_intrinsic_metadata_for_output_port_t eg_oport_md)
{
    /* C: action[LCF_A_MIRROR_SHADOW]. */
    Counter<bit<64>, bit<1>>(1, CounterType_t.PACKETS) lcf_mirror_ctr;

    /* Shadow node and its mirror session (topology "shadow"). */
    action set_shadow(bit<8> node, MirrorId_t sid) {
        md.shadow = node;
        md.mirror_sid = sid;
    }
    table shadow_cfg {
        actions = { set_shadow; }
        default_action = set_shadow(LCF_NODE_NONE8, 0);
        size = 1;
    }

    /* Node id -> addresses (topology nodes[]). keep = dest_mask & 1 << n,
     * here with the node's bit as action data: a gateway cannot AND two
     * PHV fields, and an action may AND one with action data. */
    action node_addr(mac_addr_t mac, ipv4_addr_t ip, bit<32> n_bit) {
        hdr.ethernet.dst_addr = mac;
        hdr.ipv4.dst_addr = ip;
        md.keep = hdr.bridge.dest_mask & n_bit;
        md.known = 1;
    }
    action node_unknown() { md.keep = 0; md.known = 0; }
    table eg_node {
        key = { md.n : exact @name("node"); }
        actions = { node_addr; node_unknown; }
        default_action = node_unknown();
        size = 32;
    }

    action drop() { eg_dprsr_md.drop_ctl = 1; }

    /* LCF_AUX_FIX_* (lcf_headers.p4): the queue's aux words, finished here
     * (C pass_request_queue(): aux = tenure << 16 | index, the tenure's top 6
     * bits 0 with 16 threads; lcf_q_ack(): type << 24 | reason << 16 |
     * FWD_CNT) */
    action aux_fix_fwd()  { hdr.lcf.aux = 6w0 ++ hdr.lcf.aux[9:0] ++ hdr.lcf.aux[31:16]; }
    action aux_fix_deny() { hdr.lcf.aux = hdr.bridge.ackhi ++ hdr.lcf.aux[31:16]; }

    apply {
        shadow_cfg.apply();
        if (md.mirror.isValid()) {
            /* The E2E copy of a MIGRATE_ACK: same header, to the shadow. */
            md.n = md.shadow;
        } else if (hdr.bridge.kind == LCF_BR_LCF) {
            if (hdr.bridge.mcast == 1) {
                md.n = eg_intr_md.egress_rid[7:0];
            } else {
                md.n = hdr.bridge.dst_node;
            }
        } else {
            /* L2 traffic: flood copies do not go back where they came from. */
            if (hdr.bridge.mcast == 0 && eg_intr_md.egress_rid == 0xffff &&
                eg_intr_md.egress_port == hdr.bridge.in_port) {
                drop();
            }
        }

        if (md.n != LCF_NODE_NONE8) {
            eg_node.apply();
            if (md.known == 0) {
                drop();                         /* no such node */
            } else if (hdr.bridge.isValid() && hdr.bridge.mcast == 1 &&
                       md.keep == 0) {
                drop();                         /* not in the copyset */
            } else {
                if (hdr.bridge.isValid() && hdr.bridge.mcast == 1 &&
                    md.n == hdr.bridge.provider) {
                    hdr.lcf.flags = hdr.lcf.flags | LCF_F_DATA_PROVIDER;
                }
                hdr.lcf.dst_node = (bit<16>)md.n;
                if (hdr.bridge.isValid() && hdr.bridge.aux_fix == LCF_AUX_FIX_FWD) {
                    aux_fix_fwd();
                } else if (hdr.bridge.isValid() && hdr.bridge.aux_fix == LCF_AUX_FIX_DENY) {
                    aux_fix_deny();
                }
                hdr.udp.checksum = 0;
                md.upd_ck = 1;
                /* C res_migrate_ack(): mirror_nodes = {shadow}. */
                if (hdr.bridge.isValid() && hdr.bridge.mirror == 1 &&
                    md.shadow != LCF_NODE_NONE8) {
                    eg_dprsr_md.mirror_type = LCF_MIRROR_TYPE;
                    md.mirror_kind = LCF_BR_MIRROR;
                    lcf_mirror_ctr.count(0);
                }
            }
        }
        hdr.bridge.setInvalid();
    }
}

#endif /* _LCF_EGRESS_P4_ */
