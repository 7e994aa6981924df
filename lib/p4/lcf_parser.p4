/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Parsers and deparsers of the LCF program (TNA, Tofino-1).
 *
 * C counterpart: lcf_frame_classify() in lib/wire/lcf_wire.c. The parser
 * decides what the C classifier decides from constants alone (Ethernet type,
 * IP version/IHL/protocol, UDP destination port); the checks that compare two
 * packet fields (lengths) are the validate table in lcf_validate.p4.
 */
#ifndef _LCF_PARSER_P4_
#define _LCF_PARSER_P4_

/* ---------------------------------------------------------------------------
 * Ingress parser
 * ------------------------------------------------------------------------- */
parser LcfIngressParser(packet_in pkt,
                        out lcf_headers_t hdr,
                        out lcf_ig_md_t md,
                        out ingress_intrinsic_metadata_t ig_intr_md)
{
    /* The LCF UDP port comes from the topology: a parser value set, written by
     * the bfrt script (topo_to_bfrt.py), default entry LCF_DEFAULT_PORT. */
    value_set<bit<16>>(1) lcf_port_vs;   /* BF-RT key field: f1 */

    state start {
        pkt.extract(ig_intr_md);
        md.to_lcf = 0;
        transition select(ig_intr_md.resubmit_flag) {
            1 : parse_resubmit;
            default : parse_port_metadata;
        }
    }

    /* Second pass: the 8 bytes of PROTOCOL.md 4.8 replace the port metadata. */
    state parse_resubmit {
        pkt.extract(md.rs_in);
        md.pass2 = 1;
        transition parse_ethernet;
    }

    state parse_port_metadata {
        pkt.advance(PORT_METADATA_SIZE);
        md.pass2 = 0;
#ifdef LCF_TESTGEN_PORT
        /* p4testgen: rs_in is a key of op_select on the first pass too (a
         * wildcard there); a tainted key ends its path */
        md.rs_in.setValid();
        md.rs_in.lock_kind = 0;
#endif
        transition parse_ethernet;
    }

    state parse_ethernet {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_IPV4 : parse_ipv4;
            default : accept;
        }
    }

    /* C: version != 4, IHL < 5 or not UDP -> LCF_FRAME_OTHER (L2). */
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.protocol) {
            (4, 5, IPPROTO_UDP)          : parse_udp;
            (4, 6 &&& 0xe, IPPROTO_UDP)  : opt_0;    /* 6, 7 */
            (4, 8 &&& 0x8, IPPROTO_UDP)  : opt_0;    /* 8-15 */
            default : accept;
        }
    }

    /* Options are kept (re-emitted and covered by the egress checksum).
     * Option word k is extracted by state opt_k into stack entry k, ending
     * at IHL = k + 6: each state writes one fixed entry, as Tofino's parser
     * requires (a state reached with two stack depths would write two). */
    state opt_0 {
        pkt.extract(hdr.ipv4_opt[0]);
        transition select(hdr.ipv4.ihl) {
            6 : parse_udp;
            default : opt_1;
        }
    }
    state opt_1 {
        pkt.extract(hdr.ipv4_opt[1]);
        transition select(hdr.ipv4.ihl) {
            7 : parse_udp;
            default : opt_2;
        }
    }
    state opt_2 {
        pkt.extract(hdr.ipv4_opt[2]);
        transition select(hdr.ipv4.ihl) {
            8 : parse_udp;
            default : opt_3;
        }
    }
    state opt_3 {
        pkt.extract(hdr.ipv4_opt[3]);
        transition select(hdr.ipv4.ihl) {
            9 : parse_udp;
            default : opt_4;
        }
    }
    state opt_4 {
        pkt.extract(hdr.ipv4_opt[4]);
        transition select(hdr.ipv4.ihl) {
            10 : parse_udp;
            default : opt_5;
        }
    }
    state opt_5 {
        pkt.extract(hdr.ipv4_opt[5]);
        transition select(hdr.ipv4.ihl) {
            11 : parse_udp;
            default : opt_6;
        }
    }
    state opt_6 {
        pkt.extract(hdr.ipv4_opt[6]);
        transition select(hdr.ipv4.ihl) {
            12 : parse_udp;
            default : opt_7;
        }
    }
    state opt_7 {
        pkt.extract(hdr.ipv4_opt[7]);
        transition select(hdr.ipv4.ihl) {
            13 : parse_udp;
            default : opt_8;
        }
    }
    state opt_8 {
        pkt.extract(hdr.ipv4_opt[8]);
        transition select(hdr.ipv4.ihl) {
            14 : parse_udp;
            default : opt_9;
        }
    }
    state opt_9 {
        pkt.extract(hdr.ipv4_opt[9]);
        transition parse_udp;
    }

    /* C: UDP destination port != lcf_port -> LCF_FRAME_OTHER. */
    state parse_udp {
        pkt.extract(hdr.udp);
        transition select(hdr.udp.dst_port) {
#ifdef LCF_TESTGEN_PORT
            /* lib/p4/testgen.sh only: p4testgen drops value-set select cases
             * (testgen expr_stepper.cpp, "Value Set not yet fully
             * implemented"), so its builds name the topology's port. */
            LCF_TESTGEN_PORT : parse_lcf;
#else
            lcf_port_vs : parse_lcf;
#endif
            default : accept;
        }
    }

    /* A frame too short for the 32-byte header stops here with
     * PARSER_ERROR_PARTIAL_HDR and hdr.lcf invalid; the program reads
     * parser_err, so the packet reaches the validate table (bad_ipv4_header:
     * the IP total length runs past the frame). */
    state parse_lcf {
        md.to_lcf = 1;
        pkt.extract(hdr.lcf);
        transition accept;
    }
}

/* ---------------------------------------------------------------------------
 * Ingress deparser: resubmit (PROTOCOL.md 4.8), bridged metadata, headers.
 * ------------------------------------------------------------------------- */
control LcfIngressDeparser(packet_out pkt,
                           inout lcf_headers_t hdr,
                           in lcf_ig_md_t md,
                           in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md)
{
    Resubmit() resubmit;

    apply {
        /* C: res_resubmit() -- the caller re-injects the unmodified packet
         * with these 8 bytes, once. Tofino resubmits the original packet. */
        if (ig_dprsr_md.resubmit_type == LCF_RESUBMIT_TYPE) {
            resubmit.emit(md.rs_out);
        }
        pkt.emit(hdr);
    }
}

/* ---------------------------------------------------------------------------
 * Egress parser: bridged metadata or mirror header, then the same headers.
 * ------------------------------------------------------------------------- */
parser LcfEgressParser(packet_in pkt,
                       out lcf_headers_t hdr,
                       out lcf_eg_md_t md,
                       out egress_intrinsic_metadata_t eg_intr_md)
{
    state start {
        pkt.extract(eg_intr_md);
        md.n = LCF_NODE_NONE8;
        md.upd_ck = 0;
        transition select(pkt.lookahead<bit<8>>()) {
            LCF_BR_MIRROR : parse_mirror;
            LCF_BR_LCF    : parse_bridge_lcf;
            default       : parse_bridge_l2;
        }
    }

    state parse_mirror {
        pkt.extract(md.mirror);
        transition parse_ethernet;
    }

    state parse_bridge_lcf {
        pkt.extract(hdr.bridge);
        transition parse_ethernet;
    }

    /* L2 traffic is not rewritten: Ethernet only, the rest is payload. */
    state parse_bridge_l2 {
        pkt.extract(hdr.bridge);
        pkt.extract(hdr.ethernet);
        transition accept;
    }

    /* Only frames the ingress pipeline emitted as LCF copies get here, so the
     * ingress parser already checked all of this. */
    state parse_ethernet {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.ihl) {
            5 : parse_udp;
            6 &&& 0xe : opt_0;
            8 &&& 0x8 : opt_0;
            default : accept;
        }
    }
    /* as in LcfIngressParser */
    state opt_0 {
        pkt.extract(hdr.ipv4_opt[0]);
        transition select(hdr.ipv4.ihl) {
            6 : parse_udp;
            default : opt_1;
        }
    }
    state opt_1 {
        pkt.extract(hdr.ipv4_opt[1]);
        transition select(hdr.ipv4.ihl) {
            7 : parse_udp;
            default : opt_2;
        }
    }
    state opt_2 {
        pkt.extract(hdr.ipv4_opt[2]);
        transition select(hdr.ipv4.ihl) {
            8 : parse_udp;
            default : opt_3;
        }
    }
    state opt_3 {
        pkt.extract(hdr.ipv4_opt[3]);
        transition select(hdr.ipv4.ihl) {
            9 : parse_udp;
            default : opt_4;
        }
    }
    state opt_4 {
        pkt.extract(hdr.ipv4_opt[4]);
        transition select(hdr.ipv4.ihl) {
            10 : parse_udp;
            default : opt_5;
        }
    }
    state opt_5 {
        pkt.extract(hdr.ipv4_opt[5]);
        transition select(hdr.ipv4.ihl) {
            11 : parse_udp;
            default : opt_6;
        }
    }
    state opt_6 {
        pkt.extract(hdr.ipv4_opt[6]);
        transition select(hdr.ipv4.ihl) {
            12 : parse_udp;
            default : opt_7;
        }
    }
    state opt_7 {
        pkt.extract(hdr.ipv4_opt[7]);
        transition select(hdr.ipv4.ihl) {
            13 : parse_udp;
            default : opt_8;
        }
    }
    state opt_8 {
        pkt.extract(hdr.ipv4_opt[8]);
        transition select(hdr.ipv4.ihl) {
            14 : parse_udp;
            default : opt_9;
        }
    }
    state opt_9 {
        pkt.extract(hdr.ipv4_opt[9]);
        transition parse_udp;
    }

    state parse_udp {
        pkt.extract(hdr.udp);
        pkt.extract(hdr.lcf);
        transition accept;
    }
}

/* ---------------------------------------------------------------------------
 * Egress deparser: fresh IPv4 checksum (C lcf_frame_rewrite()), E2E mirror of
 * MIGRATE_ACK to the shadow node (C res_migrate_ack(), mirror_nodes).
 * ------------------------------------------------------------------------- */
control LcfEgressDeparser(packet_out pkt,
                          inout lcf_headers_t hdr,
                          in lcf_eg_md_t md,
                          in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md)
{
    Checksum() ipv4_ck;
    Mirror() mirror;

    apply {
        if (md.upd_ck == 1) {
            /* Fields of invalid option words are not part of the sum (the
             * deparser checksum engine only takes fields of valid headers). */
            hdr.ipv4.hdr_checksum = ipv4_ck.update({
                hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv,
                hdr.ipv4.total_len, hdr.ipv4.identification,
                hdr.ipv4.flags, hdr.ipv4.frag_offset,
                hdr.ipv4.ttl, hdr.ipv4.protocol,
                hdr.ipv4.src_addr, hdr.ipv4.dst_addr,
                hdr.ipv4_opt[0].word, hdr.ipv4_opt[1].word,
                hdr.ipv4_opt[2].word, hdr.ipv4_opt[3].word,
                hdr.ipv4_opt[4].word, hdr.ipv4_opt[5].word,
                hdr.ipv4_opt[6].word, hdr.ipv4_opt[7].word,
                hdr.ipv4_opt[8].word, hdr.ipv4_opt[9].word });
        }
        if (eg_dprsr_md.mirror_type == LCF_MIRROR_TYPE) {
            mirror.emit<lcf_mirror_h>(md.mirror_sid, { md.mirror_kind });
        }
        /* The bridge header was invalidated by the egress control. */
        pkt.emit(hdr);
    }
}

#endif /* _LCF_PARSER_P4_ */
