/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Node-to-node message types (0x20-0x7f of the LCF wire format), normative
 * in docs/PROTOCOL.md section 5.
 *
 * Why a separate range at all: the switch runs its pipeline on every frame
 * of types 0x01-0x0a whoever sends it, and drops 0x10-0x13 coming from a
 * node (spoofs). So whatever an agent sends to another node (a home agent's
 * forward of a request, any ACK, block data, a write-back) must use one of
 * these types; the switch forwards them as ordinary L2 traffic.
 *
 * Common rules: node/thread/seq are the requester's (the coherence event the
 * message belongs to), tag is the block, dst_node the receiving node.
 */
#ifndef NA_MSG_H
#define NA_MSG_H

#include <stdint.h>

#include "lcf_wire.h"

/* X(name, value, string) */
/* clang-format off */
#define NA_MSG_LIST(X)                                    \
	X(FWD,          0x20, "NA_FWD")                   \
	X(ACK,          0x21, "NA_ACK")                   \
	X(DATA,         0x22, "NA_DATA")                  \
	X(NACK,         0x23, "NA_NACK")                  \
	X(UNLOCK_ACK,   0x24, "NA_UNLOCK_ACK")            \
	X(WB,           0x25, "NA_WB")                    \
	X(WB_ACK,       0x26, "NA_WB_ACK")                \
	X(ALLOC_REQ,    0x27, "NA_ALLOC_REQ")             \
	X(ALLOC_REPLY,  0x28, "NA_ALLOC_REPLY")           \
	X(HOT_REPORT,   0x29, "NA_HOT_REPORT")            \
	X(REMOVE_REQ,   0x2a, "NA_REMOVE_REQ")            \
	X(COLLISION,    0x2b, "NA_COLLISION")             \
	X(ABORT_ACK,    0x2c, "NA_ABORT_ACK")             \
	X(REC_BEGIN,    0x30, "REC_BEGIN")                \
	X(REC_REPORT,   0x31, "REC_REPORT")               \
	X(REC_DATA,     0x32, "REC_DATA")                 \
	X(REC_DONE,     0x33, "REC_DONE")                 \
	X(REC_DONE_ACK, 0x34, "REC_DONE_ACK")             \
	X(SABRE_REG,    0x50, "SABRE_REG")                \
	X(SABRE_READ,   0x51, "SABRE_READ")               \
	X(SABRE_DATA,   0x52, "SABRE_DATA")               \
	X(SABRE_VALID,  0x53, "SABRE_VALID")              \
	X(RREAD,        0x54, "RREAD")                    \
	X(DIR_REQ,      0x40, "DIR_REQ")                  \
	X(DIR_INV,      0x41, "DIR_INV")                  \
	X(DIR_INV_ACK,  0x42, "DIR_INV_ACK")              \
	X(DIR_DATA,     0x43, "DIR_DATA")                 \
	X(DIR_GRANT,    0x44, "DIR_GRANT")                \
	X(DIR_UNLOCK,   0x45, "DIR_UNLOCK")               \
	X(VOH_VREAD,    0x58, "VOH_VREAD")                \
	X(VOH_VRPC,     0x59, "VOH_VRPC")                 \
	X(VOH_VERSION,  0x5a, "VOH_VERSION")              \
	X(VOH_READ,     0x5b, "VOH_READ")                 \
	X(VOH_UPDATE,   0x5c, "VOH_UPDATE")               \
	X(VOH_PROCEED,  0x5d, "VOH_PROCEED")              \
	X(VOH_WDATA,    0x5e, "VOH_WDATA")                \
	X(VOH_DONE,     0x5f, "VOH_DONE")                 \
	X(DIFF,         0x60, "NA_DIFF")                  \
	X(DIFF_ACK,     0x61, "NA_DIFF_ACK")              \
	X(Q_GRANT,      0x68, "Q_GRANT")                  \
	X(Q_GRANT_ACK,  0x69, "Q_GRANT_ACK")              \
	X(Q_QUEUED,     0x6a, "Q_QUEUED")                 \
	X(Q_NACK,       0x6b, "Q_NACK")                   \
	X(Q_INV,        0x6c, "Q_INV")                    \
	X(Q_INV_ACK,    0x6d, "Q_INV_ACK")                \
	X(QXFER_ACK,    0x6e, "NA_QXFER_ACK")             \
	X(QFWD,         0x6f, "NA_QFWD")
/* clang-format on */

enum na_msg_type {
#define NA_X_ENUM(name, val, str) NA_MSG_##name = val,
	NA_MSG_LIST(NA_X_ENUM)
#undef NA_X_ENUM
};

/*
 * Largest payload of one message: what every transport carries in one
 * frame. Larger data (a block) is segmented by the sender (na_seg.h).
 */
#define NA_MAX_FRAME_PAYLOAD 1400

/* Reserved by the verbs transport for its RC connection exchange. */
#define NA_MSG_VERBS_CONNECT_REQ 0x7e
#define NA_MSG_VERBS_CONNECT_REP 0x7f

/*
 * aux layouts. The original request type always sits in the top byte, as in
 * the switch's NACK/UNLOCK_ACK (docs/PROTOCOL.md 4.3, 4.7).
 */
static inline uint32_t
na_aux_orig(uint8_t orig_type, uint16_t low)
{
	return (uint32_t)orig_type << 24 | low;
}

static inline uint8_t
na_aux_orig_type(uint32_t aux)
{
	return (uint8_t)(aux >> 24);
}

/*
 * NA_ACK: low 16 bits = the node that sent the ACK (the responder); with
 * LCF_F_DATA_PROVIDER, NA_ACK_HOME_WRITTEN = the responder is the block's
 * home and wrote the data it sent into home memory (the reader of a block
 * Modified there writes nothing home: na_cagent.h).
 */
#define NA_ACK_HOME_WRITTEN 0x10000u
/* With LCF_F_DATA_PROVIDER: the responder, a Modified owner that is not the
 * home, sent the block home (NA_WB under the reader's node/thread/seq);
 * the home ACKs it to the reader (lib/model/wbown.pml). */
#define NA_ACK_OWNER_WB 0x20000u

static inline uint16_t
na_aux_responder(uint32_t aux)
{
	return (uint16_t)(aux & 0xffff);
}

/*
 * SABRes (0x50-0x54) and validate-on-hit (0x58-0x5f, and the switch's
 * VERSION_READ / VERSION pair) number their requests with counters of their
 * own (t->sab_seq, struct na_voh seq), not the coherence requester's: one
 * of their replies never answers a coherence request of the same seq.
 */
static inline bool
na_msg_own_seq(uint8_t type)
{
	return (type >= NA_MSG_SABRE_REG && type <= NA_MSG_VOH_DONE) ||
	       type == LCF_T_VERSION_READ || type == LCF_T_VERSION;
}

/** Name of any type (pipeline, switch or node-to-node); "?" if unknown. */
const char *na_type_name(uint8_t type);

#endif /* NA_MSG_H */
