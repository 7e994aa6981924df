/* SPDX-License-Identifier: BSD-3-Clause
 *
 * LCF wire format v1 for the Tofino (TNA) program: header declarations and
 * the protocol constants. The normative description is docs/PROTOCOL.md; the
 * C twin is lib/wire/lcf_wire.h (struct lcf_hdr, LCF_TYPE_LIST, LCF_F_*,
 * enum lcf_gstatus, LCF_DROP_LIST) and lib/lcf/lcf_pipeline.h
 * (LCF_ACTION_LIST, enum lcf_resubmit_op, LCF_LOCK_*).
 *
 * lib/p4/check_parity.py parses this file and the C headers and fails the
 * build when any field's name, width or offset, or any constant, differs.
 * Keep one declaration per line in the forms used below so it can.
 */
#ifndef _LCF_HEADERS_P4_
#define _LCF_HEADERS_P4_

/* ---- protocol constants (lcf_wire.h) ------------------------------------ */

const bit<8>  LCF_VERSION      = 1;
const bit<16> LCF_HDR_LEN      = 32;
const bit<16> LCF_DEFAULT_PORT = 7340;   /* the topology may choose another */
const bit<32> LCF_MAX_NODES    = 32;     /* copyset is a 32-bit bitmap */
const bit<16> LCF_NODE_NONE    = 0xffff;

/* Message types: C LCF_TYPE_LIST(X), X(name, value, string). */
const bit<8> LCF_T_READ_MISS          = 0x01;
const bit<8> LCF_T_WRITE_MISS         = 0x02;
const bit<8> LCF_T_WRITE_SHARED       = 0x03;
const bit<8> LCF_T_EVICT_SHARED       = 0x04;
const bit<8> LCF_T_EVICT_MODIFIED     = 0x05;
const bit<8> LCF_T_READ_UNLOCK        = 0x06;
const bit<8> LCF_T_WRITE_UNLOCK       = 0x07;
const bit<8> LCF_T_ADD_TO_SWITCH      = 0x08;
const bit<8> LCF_T_REMOVE_FROM_SWITCH = 0x09;
const bit<8> LCF_T_ABORT              = 0x0a;
const bit<8> LCF_T_VERSION_READ       = 0x0b;
const bit<8> LCF_T_QXFER              = 0x0c;   /* queued lock mode (lcf_queue.p4) */
const bit<8> LCF_T_QRELEASE           = 0x0d;
const bit<8> LCF_T_NACK               = 0x10;
const bit<8> LCF_T_UNLOCK_ACK         = 0x11;
const bit<8> LCF_T_MIGRATE_ACK        = 0x12;
const bit<8> LCF_T_ABORT_ACK          = 0x13;
const bit<8> LCF_T_VERSION            = 0x14;
const bit<8> LCF_T_QXFER_ACK          = 0x15;
const bit<8> LCF_T_QWAIT              = 0x16;   /* queued mode: a writer waits for readers */
const bit<8> LCF_T_QGRANT             = 0x17;

const bit<8> LCF_T_PIPELINE_FIRST = 0x01;
const bit<8> LCF_T_PIPELINE_LAST  = 0x0b;
const bit<8> LCF_T_NODE_FIRST     = 0x20;
const bit<8> LCF_T_NODE_LAST      = 0x7f;

/* Flags. */
const bit<8> LCF_F_IN_SWITCH     = 0x01;
const bit<8> LCF_F_DATA_PROVIDER = 0x02;
const bit<8> LCF_F_FAIL          = 0x04;
const bit<8> LCF_F_MASK          = 0x07;

/* Global status: C enum lcf_gstatus. */
const bit<8> LCF_GS_UNSHARED = 0;
const bit<8> LCF_GS_SHARED   = 1;
const bit<8> LCF_GS_MODIFIED = 2;

/* LOCK word (lcf_pipeline.h). */
const bit<16> LCF_LOCK_WRITER  = 0x8000;
const bit<16> LCF_LOCK_WAITING = 0x4000;   /* queued mode: a writer waits for readers */
const bit<16> LCF_LOCK_READERS = 0x3fff;

/*
 * Drop reasons: C LCF_DROP_LIST(X), X(name, string); the value is the enum
 * position. The trailing comment is the counter name (checked).
 */
const bit<8> LCF_DROP_NONE               = 0;   // none
const bit<8> LCF_DROP_SHORT              = 1;   // short_frame
const bit<8> LCF_DROP_BAD_IP             = 2;   // bad_ipv4_header
const bit<8> LCF_DROP_BAD_UDP            = 3;   // bad_udp_length
const bit<8> LCF_DROP_BAD_VERSION        = 4;   // bad_version
const bit<8> LCF_DROP_UNKNOWN_TYPE       = 5;   // unknown_type
const bit<8> LCF_DROP_BAD_LEN            = 6;   // bad_payload_length
const bit<8> LCF_DROP_BAD_FLAGS          = 7;   // reserved_flags_set
const bit<8> LCF_DROP_BAD_GSTATUS        = 8;   // bad_gstatus
const bit<8> LCF_DROP_NODE_RANGE         = 9;   // node_id_out_of_range
const bit<8> LCF_DROP_NODE_UNKNOWN       = 10;  // node_id_not_in_topology
const bit<8> LCF_DROP_NODE_PORT_MISMATCH = 11;  // node_id_does_not_match_ingress_port
const bit<8> LCF_DROP_THREAD_RANGE       = 12;  // thread_id_out_of_range
const bit<8> LCF_DROP_TAG_RANGE          = 13;  // tag_home_node_not_in_topology
const bit<8> LCF_DROP_BAD_RESUBMIT       = 14;  // bad_resubmit_metadata
const bit<8> LCF_DROP_MAX                = 15;

/*
 * Pipeline actions, one counter each: C LCF_ACTION_LIST(X), X(name, string);
 * the value is the enum position and the counter index in lcf_action_ctr.
 */
const bit<8> LCF_A_TAG_MISS_HOME    = 0; // tag_miss_to_home
const bit<8> LCF_A_FWD_HOME         = 1; // forward_home_unshared
const bit<8> LCF_A_FWD_OWNER        = 2; // forward_owner_modified
const bit<8> LCF_A_FWD_PROVIDER     = 3; // forward_data_provider_shared
const bit<8> LCF_A_MCAST_INVALIDATE = 4; // multicast_invalidate
const bit<8> LCF_A_ACK_SOLE_HOLDER  = 5; // ack_sole_holder
const bit<8> LCF_A_RETURN_EVICT     = 6; // return_eviction
const bit<8> LCF_A_NACK_LOCK_BUSY   = 7; // nack_lock_busy
const bit<8> LCF_A_NACK_CHECK_FAIL  = 8; // nack_check_failed
const bit<8> LCF_A_NACK_STALE       = 9; // nack_stale_request
const bit<8> LCF_A_RETRANSMIT_PASS  = 10; // retransmit_passed_on_score
const bit<8> LCF_A_RESUBMIT         = 11; // resubmit
const bit<8> LCF_A_UNLOCK_EXEC      = 12; // unlock_executed
const bit<8> LCF_A_UNLOCK_DUP       = 13; // unlock_duplicate_ignored
const bit<8> LCF_A_ADD_OK           = 14; // add_to_switch_ok
const bit<8> LCF_A_ADD_DUP          = 15; // add_to_switch_duplicate
const bit<8> LCF_A_ADD_COLLISION    = 16; // add_to_switch_collision
const bit<8> LCF_A_REMOVE_OK        = 17; // remove_from_switch_ok
const bit<8> LCF_A_MIRROR_SHADOW    = 18; // mirror_to_shadow
const bit<8> LCF_A_DROP             = 19; // drop
const bit<8> LCF_A_ABORT_HOME       = 20; // abort_to_home
const bit<8> LCF_A_ABORT_PASSED     = 21; // abort_copy_passed
const bit<8> LCF_A_NACK_ABORTED     = 22; // nack_aborted_request
const bit<8> LCF_A_VERSION_HIT      = 23; // version_read_hit
const bit<8> LCF_A_VERSION_MISS     = 24; // version_read_miss
const bit<8> LCF_A_FWD_HOLDER       = 25; // forward_to_holder
const bit<8> LCF_A_QXFER_OK         = 26; // qxfer_approved
const bit<8> LCF_A_QXFER_DENIED     = 27; // qxfer_denied
const bit<8> LCF_A_QRELEASE_EXEC    = 28; // qrelease_executed
const bit<8> LCF_A_QRELEASE_DUP     = 29; // qrelease_duplicate_ignored
const bit<8> LCF_A_QWAIT            = 30; // q_wait
const bit<8> LCF_A_QGRANT           = 31; // q_grant
const bit<8> LCF_A_MAX              = 32;

/* Resubmit ops: C enum lcf_resubmit_op (docs/PROTOCOL.md 4.8 byte 0). */
const bit<8> LCF_RS_RELEASE = 1;
const bit<8> LCF_RS_UNLOCK  = 2;
const bit<8> LCF_RS_ADD     = 3;
const bit<8> LCF_RS_REMOVE  = 4;
const bit<8> LCF_RS_QRELEASE = 5;
const bit<8> LCF_RS_QXFER2   = 6;   /* P4 only: an approved QXFER's 2nd pass */

/* Way seeds of the slot hash: C lcf_way_seed() = 0x9e3779b9 * (w + 1), salt 0. */
const bit<32> LCF_WAY_SEED_0 = 0x9e3779b9;
const bit<32> LCF_WAY_SEED_1 = 0x3c6ef372;
const bit<32> LCF_WAY_SEED_2 = 0xdaa66d2b;
const bit<32> LCF_WAY_SEED_3 = 0x78dde6e4;
const bit<32> LCF_WAY_SEED_4 = 0x1715609d;
const bit<32> LCF_WAY_SEED_5 = 0xb54cda56;
const bit<32> LCF_WAY_SEED_6 = 0x5384540f;
const bit<32> LCF_WAY_SEED_7 = 0xf1bbcdc8;
const bit<32> LCF_WAY_SEED_8 = 0x8ff34781;
const bit<32> LCF_WAY_SEED_9 = 0x2e2ac13a;

/* ---- Tofino-side constants (no C twin) ---------------------------------- */

/* Slot index of one way: LCF_SLOT_BITS bits (lcf.p4), at least 1 wide. */
#if LCF_SLOT_BITS == 0
typedef bit<1> slot_t;
#else
typedef bit<LCF_SLOT_BITS> slot_t;
#endif

typedef bit<48> mac_addr_t;
typedef bit<32> ipv4_addr_t;

const bit<16> ETHERTYPE_IPV4 = 0x0800;
const bit<8>  IPPROTO_UDP    = 17;

const ResubmitType_t LCF_RESUBMIT_TYPE = 1; /* ig_dprsr_md.resubmit_type */
const MirrorType_t LCF_MIRROR_TYPE = 1;   /* eg_dprsr_md.mirror_type (E2E); bit<3> on Tofino-1, bit<4> on Tofino-2 */
const bit<16> LCF_MCAST_GRP      = 1;    /* copyset multicast, rid = node id */
const bit<16> LCF_FLOOD_GRP      = 2;    /* L2 flood */
const bit<8>  LCF_NODE_NONE8     = 0xff;

/* First byte of what precedes Ethernet in egress (bridged or mirror). */
const bit<8> LCF_BR_L2     = 1;   /* ordinary L2 traffic */
const bit<8> LCF_BR_LCF    = 2;   /* a copy the LCF pipeline emits */
const bit<8> LCF_BR_MIRROR = 3;   /* E2E mirror copy of a MIGRATE_ACK */

/* ---- packet headers ----------------------------------------------------- */

header ethernet_h {
    mac_addr_t dst_addr;
    mac_addr_t src_addr;
    bit<16>    ether_type;
}

header ipv4_h {
    bit<4>      version;
    bit<4>      ihl;
    bit<8>      diffserv;
    bit<16>     total_len;
    bit<16>     identification;
    bit<3>      flags;
    bit<13>     frag_offset;
    bit<8>      ttl;
    bit<8>      protocol;
    bit<16>     hdr_checksum;
    ipv4_addr_t src_addr;
    ipv4_addr_t dst_addr;
}

/* IPv4 options are accepted on input and kept: up to 10 words. */
header ipv4_opt_h {
    bit<32> word;
}

header udp_h {
    bit<16> src_port;
    bit<16> dst_port;
    bit<16> length;
    bit<16> checksum;
}

/*
 * The 32-byte LCF header, exactly struct lcf_hdr (all fields big-endian).
 * Offsets in bytes: version 0, type 1, flags 2, gstatus 3, node 4, thread 6,
 * seq 8, copyset 12, tag 16, dst_node 24, len 26, aux 28.
 */
header lcf_h {
    bit<8>  version;
    bit<8>  type;
    bit<8>  flags;
    bit<8>  gstatus;
    bit<16> node;
    bit<16> thread;
    bit<32> seq;
    bit<32> copyset;
    bit<64> tag;
    bit<16> dst_node;
    bit<16> len;
    bit<32> aux;
}

/*
 * Resubmit metadata, 8 bytes (docs/PROTOCOL.md 4.8; C rs_pack() in
 * lib/lcf/lcf_pipeline.c). Byte positions are the C ones; score is carried
 * big-endian here, little-endian in C's uint64_t, which never leaves either.
 */
header lcf_resubmit_h {
    bit<8>  op;
    bit<8>  way;
    bit<8>  lock_kind;
    bit<8>  rsvd0;
    bit<16> score;
    bit<16> rsvd1;
}

/* Ingress -> egress bridged metadata (prepended to every packet). */
/* The narrow fields share the first 8 bytes and dest_mask has a 32-bit
 * container of its own: a container packing part of dest_mask with
 * in_port or the flag bits needs more sources than a Tofino action may
 * write from (it is written from md.blk_cs, md.others or 0). */
header lcf_bridge_h {
    bit<8>  kind;          /* LCF_BR_* */
    bit<8>  dst_node;      /* unicast copies: the node addressed */
    bit<8>  provider;      /* multicast: the replica that is data provider */
    bit<2>  aux_fix;       /* LCF_AUX_FIX_*: egress finishes hdr.lcf.aux */
    bit<4>  _pad0;
    bit<1>  mcast;         /* copy made by the copyset multicast group */
    bit<1>  mirror;        /* MIGRATE_ACK: E2E mirror to the shadow node */
    bit<7>  _pad1;
    PortId_t in_port;      /* L2 flood: do not send back */
    bit<16> ackhi;         /* LCF_AUX_FIX_DENY: aux bits 16-31 */
    bit<32> dest_mask;     /* multicast: nodes that keep their replica */
}

/* The queue's aux words (LcfQueueOut) hold a rotation of a stateful ALU's
 * answer. One Tofino instruction cannot rotate a PHV source and merge a
 * constant or action data, so ingress writes the answer as it is and
 * egress, where hdr.lcf.aux may sit in two 16-bit containers, finishes it
 * (LcfEgress). */
const bit<2> LCF_AUX_FIX_NONE = 0;
const bit<2> LCF_AUX_FIX_FWD  = 1;   /* aux = 6w0 ++ aux[9:0] ++ aux[31:16] */
const bit<2> LCF_AUX_FIX_DENY = 2;   /* aux = ackhi ++ aux[31:16] */

/* Prepended to the E2E mirror copy. */
header lcf_mirror_h {
    bit<8> kind;           /* LCF_BR_MIRROR */
}

struct lcf_headers_t {
    lcf_bridge_h  bridge;
    ethernet_h    ethernet;
    ipv4_h        ipv4;
    ipv4_opt_h[10] ipv4_opt;
    udp_h         udp;
    lcf_h         lcf;
}

/* ---- ingress metadata (the C struct lcf_phv) ----------------------------- */

struct lcf_ig_md_t {
    lcf_resubmit_h rs_in;       /* second pass: what the first pass sent */
    lcf_resubmit_h rs_out;      /* first pass: what to resubmit with */

    /* parser */
    bit<1>  to_lcf;             /* IPv4/UDP to the LCF port */
    bit<1>  pass2;              /* resubmitted */

    /* stage 0 (C lcf_stage_parse) */
    bit<16> ipx;                /* total_len |-| udp.length */
    bit<16> y;                  /* udp.length - lcf.len, must be 40 */
    bit<1>  node_known;
    bit<1>  port_ok;
    bit<1>  req_ok;
    bit<1>  home_ok;
    bit<1>  rs_ok;
    bit<32> node_bit;           /* 1 << node */
    bit<32> node_mask;          /* nodes of the topology */
    bit<16> req;                /* requester index r */
    bit<16> sb_idx;             /* 2r + (seq & 1) */
    bit<8>  home;
    PortId_t home_port;
    bit<32> key_hi;             /* (tag | 1 << 63) >> 32 */
    bit<32> key_lo;
    bit<32> pkt_cs;             /* packet copyset & node_mask */
    bit<32> aux_type;           /* original type << 24 */
    bit<32> aux_busy;           /* LOCK writer bit << 16 (VERSION reply) */
    mac_addr_t sw_mac;
    ipv4_addr_t sw_ip;
    bit<1>  has_shadow;

    /* op select (what the register stages do this pass) */
    bit<8>  tag_op;             /* TAG_OP_* */
    bit<8>  lcs_op;             /* LCS_OP_* */
    bit<8>  sb_op;              /* SB_OP_* */
    bit<16> lk_a;               /* LOCK operand: threshold or subtrahend */
    bit<16> lk_b;               /* LOCK operand: increment or write flag */

    /* verdict of stage 1 */
    bit<1>  drop;
    bit<8>  drop_reason;        /* LCF_DROP_* of a drop */
    bit<1>  l2;                 /* not for the pipeline: switch at L2 */
    bit<1>  bad_rs;             /* dispatch/queue-out: bad resubmit */

    /* LAST-UNLOCK */
    bit<1>  lu_exec;            /* unlock: pass 1 not a duplicate (new or
                                 * still open); pass 2 executes (closed it) */
    bit<1>  lu_stale;           /* pass 1 request: seq not after it */
    bit<5>  prov_sel;           /* data-provider permutation, per event */
    bit<5>  prov_k;             /* crc32c(seed, 8 zero bytes)[4:0] */

    /* TAG ways: per way the RegisterAction answer and the slot index */
    bit<32> rv_init;            /* always 0: "previous way" of way 0 */
    bit<32> rv0;
    bit<32> rv1;
    bit<32> rv2;
    bit<32> rv3;
    bit<32> rv4;
    bit<32> rv5;
    bit<32> rv6;
    bit<32> rv7;                /* ways 7-9: Tofino-2 only */
    bit<32> rv8;
    bit<32> rv9;
    slot_t  slot0;
    slot_t  slot1;
    slot_t  slot2;
    slot_t  slot3;
    slot_t  slot4;
    slot_t  slot5;
    slot_t  slot6;
    slot_t  slot7;
    slot_t  slot8;
    slot_t  slot9;
    bit<1>  ins_done;           /* ADD pass 2: an earlier way took the tag */
    bit<1>  hit;                /* tag found (pass 2: found at rs_in.way) */
    bit<1>  bad_way;            /* pass 2: first hit is not rs_in.way */
    bit<1>  placed;             /* ADD pass 2: tag now in a way */
    bit<8>  way;
    bit<32> aux_way;            /* way << 16 */

    /* LOCK + G-STATUS + COPYSET */
    bit<16> lk_old;
    bit<8>  blk_gs;
    bit<32> blk_cs;
    bit<32> ver_rv;             /* VERSION of the hit way (lcf_version.p4) */
    bit<32> ver_epoch;          /* (seq & 0xffff) << 16, stage 0 */

    /* check, SCOREBOARD, forward */
    bit<1>  took;               /* the lock stage took the lock */
    bit<32> sb_count;           /* 1 when took and check_ok: count this copy */
    bit<32> sb_d;               /* seq - SCOREBOARD SEQ as it was */
    bit<32> sb_newc;            /* what c_set writes to SCOREBOARD C */
    bit<32> sb_or;              /* c_abort: what a count is ORed with */
    bit<2>  sb_class;           /* SB_CLASS_OLDER / _EQ / _AFTER of sb_d */
    bit<32> sb_rv;              /* SCOREBOARD C as it was */
    bit<1>  sb_held;            /* request: the event holds a counted lock;
                                 * ABORT: a copy passed */
    bit<1>  sb_over;            /* the event is over (CLAIMED, ENDED, older) */
    bit<1>  may_exec;           /* unlock pass 1: its event holds locks here */
    bit<16> score;              /* unlock pass 1: the claimed count */
    bit<32> member;             /* blk_cs & node_bit */
    bit<32> others;             /* blk_cs & ~node_bit */
    bit<8>  prov_node;
    PortId_t prov_port;
    bit<8>  own_node;
    PortId_t own_port;
    bit<1>  check_ok;
    bit<8>  fwd_ctr;            /* LCF_A_* of the forward action */
    bit<8>  fwd_kind;           /* FWD_KIND_* */

    /* queued lock mode (lcf_queue.p4) */
    bit<1>  q_mode;             /* switch.lock_mode "queued" */
    bit<8>  q_kind;             /* Q_K_*: what QSTATE does this pass */
    bit<1>  q_out;              /* QXFER/QRELEASE: LcfQueueOut decides */
    bit<32> q_id;               /* the packet's event id (C lcf_q_id()) */
    bit<32> q_hb;               /* hb(q_id) (lcf_queue.p4, 1.) */
    bit<1>  q_next_ok;          /* QXFER: next names a node and thread */
    bit<32> q_nid;              /* QXFER: the next id (copyset) */
    bit<32> q_cnt;              /* QXFER/QRELEASE: the count << 16 */
    bit<32> q_nhb;              /* hb(next) of a QXFER */
    bit<32> q_a;                /* QSTATE operand (phv_hi) */
    bit<32> q_b;                /* QSTATE operand (phv_lo) */
    bit<32> q_frv;              /* q_fwd: the new lo when forwarded, else 0 */
    bit<32> q_crv;              /* q_check: the old lo when hi is the event */
    bit<1>  q_waiter;           /* a write that set WAITING (lock_qacquire) */
    bit<1>  q_rd;               /* LOCK's READERS > 0 as the lock stage found it */
    bit<16> q_readers;          /* READERS (QWAIT's aux) */
    bit<1>  q_undo;             /* pass 2: RELEASE of lock kind 2 (WAITING) */
    bit<32> qg_eo;              /* QRELEASE pass 1: QGATE's epoch << 16 | open */
    bit<32> qg_tok;             /* QRELEASE pass 2: rs_in.score << 16 | 1 */
    bit<1>  q_stale;            /* QRELEASE pass 1: 2^15+ seqs before SCOREBOARD */
}

/* Egress metadata. */
struct lcf_eg_md_t {
    lcf_mirror_h mirror;
    bit<8>  n;                  /* node this copy goes to */
    bit<32> keep;               /* dest_mask & 1 << n (eg_node) */
    bit<1>  known;
    bit<1>  upd_ck;
    bit<8>  shadow;
    MirrorId_t mirror_sid;
    bit<8>  mirror_kind;        /* LCF_BR_MIRROR: a mirror field list takes
                                 * PHV fields, not constants */
}

#endif /* _LCF_HEADERS_P4_ */
