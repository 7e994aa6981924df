/* SPDX-License-Identifier: BSD-3-Clause
 *
 * FlowCC rules as pure functions; see na_proto.h (Figure 6 and reply
 * collection are inline there and in na_collect.h).
 */
#include "lcf_pipeline.h"
#include "na_msg.h"
#include "na_proto.h"

bool
na_check(uint8_t type, uint16_t node, uint8_t gs, uint32_t cs)
{
	bool in = na_cs_has(cs, node);

	switch (type) {
	case LCF_T_READ_MISS:
	case LCF_T_WRITE_MISS:
		return !in;
	case LCF_T_WRITE_SHARED:
	case LCF_T_EVICT_SHARED:
		return in && gs == LCF_GS_SHARED;
	case LCF_T_EVICT_MODIFIED:
		return in && gs == LCF_GS_MODIFIED;
	default:
		return false;
	}
}

void
na_forward_rule(uint8_t type, uint8_t gs, uint32_t cs, uint16_t node,
		uint32_t rnd, struct na_fwd *out)
{
	out->to = 0;
	out->provider = LCF_NODE_NONE;
	/*
	 * Metadata no correct unlock produces (Modified/Shared with nobody
	 * in the copyset): the home owns the data, so it answers (as the
	 * switch's interpretation in docs/PROTOCOL.md 4.2 does).
	 */
	if ((type == LCF_T_READ_MISS || type == LCF_T_WRITE_MISS) &&
	    (gs == LCF_GS_UNSHARED || cs == 0)) {
		out->kind = NA_FWD_REPLY_DATA;
		return;
	}
	switch (type) {
	case LCF_T_READ_MISS:
		/* Modified: the owner; Shared: one sharer at random. */
		out->kind = NA_FWD_TO_CACHES;
		out->provider = lcf_random_node(cs, rnd);
		out->to = na_bit(out->provider);
		return;
	case LCF_T_WRITE_MISS:
		/* Invalidate every holder; one of them sends the data. */
		out->kind = NA_FWD_TO_CACHES;
		out->to = cs;
		out->provider = lcf_random_node(cs, rnd);
		return;
	case LCF_T_WRITE_SHARED:
		if ((cs & ~na_bit(node)) == 0) {
			out->kind = NA_FWD_REPLY_ACK; /* sole holder */
			return;
		}
		out->kind = NA_FWD_TO_CACHES;
		out->to = cs & ~na_bit(node);
		return;
	default:
		/* Evictions: the lock is all the requester needed. */
		out->kind = NA_FWD_REPLY_ACK;
		return;
	}
}

enum na_route
na_classify(const struct lcf_msg *m, uint16_t self)
{
	switch (m->type) {
	case LCF_T_READ_MISS:
	case LCF_T_WRITE_MISS:
	case LCF_T_WRITE_SHARED:
	case LCF_T_EVICT_SHARED:
	case LCF_T_EVICT_MODIFIED:
		/* A tag miss (or no switch at all): the home runs the pipeline. */
		if (!(m->flags & LCF_F_IN_SWITCH))
			return NA_ROUTE_HOME;
		/* Forwarded to the queue holder (aux = tenure << 16 | index;
		 * Table 3 copies carry the request's aux, 0). */
		if (m->aux & 0xffff)
			return NA_ROUTE_QUEUE;
		/* Returned by the switch: evictions and the sole-holder ACK. */
		if (m->type == LCF_T_EVICT_SHARED ||
		    m->type == LCF_T_EVICT_MODIFIED ||
		    (m->type == LCF_T_WRITE_SHARED && m->node == self))
			return m->node == self ? NA_ROUTE_REQUESTER
					       : NA_ROUTE_DROP;
		/* forward_home_unshared: the data is in global memory. */
		if (m->gstatus == LCF_GS_UNSHARED || m->copyset == 0)
			return NA_ROUTE_HOME;
		return NA_ROUTE_CACHE;
	case LCF_T_READ_UNLOCK:
	case LCF_T_WRITE_UNLOCK:
		return NA_ROUTE_HOME; /* tag miss: a home-owned block */
	case LCF_T_ABORT:
		return NA_ROUTE_HOME; /* hit or miss: the home answers (4.9) */
	case LCF_T_QXFER:
	case LCF_T_QRELEASE:
		return NA_ROUTE_HOME; /* tag miss: a home-owned block */
	case LCF_T_REMOVE_FROM_SWITCH:
	case NA_MSG_REMOVE_REQ:
		return NA_ROUTE_HOME_MIGRATE;
	case LCF_T_ADD_TO_SWITCH:
		return NA_ROUTE_DROP; /* never forwarded by a switch */
	case LCF_T_NACK:
		/* The switch refused our REMOVE (lock busy): not a requester's. */
		if (na_aux_orig_type(m->aux) == LCF_T_REMOVE_FROM_SWITCH)
			return m->node == self ? NA_ROUTE_HOME_MIGRATE
					       : NA_ROUTE_DROP;
		return m->node == self ? NA_ROUTE_REQUESTER : NA_ROUTE_DROP;
	case LCF_T_UNLOCK_ACK:
	case LCF_T_ABORT_ACK:
	case LCF_T_VERSION:
		return m->node == self ? NA_ROUTE_REQUESTER : NA_ROUTE_DROP;
	case LCF_T_MIGRATE_ACK:
		return NA_ROUTE_MIGRATE;
	case LCF_T_QXFER_ACK:
	case NA_MSG_QXFER_ACK: /* from the home of a home-owned block */
		return m->node == self ? NA_ROUTE_QUEUE : NA_ROUTE_DROP;
	case NA_MSG_QFWD: /* a home's forward to this queue holder */
		return m->dst_node == self ? NA_ROUTE_QUEUE : NA_ROUTE_DROP;
	case NA_MSG_Q_GRANT:
	case LCF_T_QWAIT: /* the switch: a waiting writer (QUEUED-LOCKS.md 5) */
	case LCF_T_QGRANT: /* ... granted once the readers are gone */
		return m->node == self ? NA_ROUTE_QUEUE : NA_ROUTE_DROP;
	case NA_MSG_Q_GRANT_ACK:
		return NA_ROUTE_QUEUE; /* to the giver, about the receiver */
	case NA_MSG_Q_QUEUED:
	case NA_MSG_Q_NACK:
		return m->node == self ? NA_ROUTE_REQUESTER : NA_ROUTE_DROP;
	case NA_MSG_Q_INV:
		return NA_ROUTE_QINV;
	case NA_MSG_FWD:
	case NA_MSG_DIR_INV:
		return NA_ROUTE_CACHE;
	case NA_MSG_ACK:
	case NA_MSG_DATA:
	case NA_MSG_NACK:
	case NA_MSG_UNLOCK_ACK:
	case NA_MSG_ABORT_ACK:
	case NA_MSG_WB_ACK:
	case NA_MSG_DIFF_ACK:
	case NA_MSG_ALLOC_REPLY:
	case NA_MSG_DIR_GRANT:
	case NA_MSG_SABRE_DATA:
	case NA_MSG_SABRE_VALID:
		return m->node == self ? NA_ROUTE_REQUESTER : NA_ROUTE_DROP;
	case NA_MSG_SABRE_REG:
	case NA_MSG_SABRE_READ:
	case NA_MSG_RREAD:
	case NA_MSG_WB:
	case NA_MSG_DIFF:
	case NA_MSG_ALLOC_REQ:
	case NA_MSG_DIR_REQ:
	case NA_MSG_DIR_INV_ACK:
	case NA_MSG_DIR_DATA:
	case NA_MSG_DIR_UNLOCK:
		return NA_ROUTE_HOME;
	case NA_MSG_HOT_REPORT:
	case NA_MSG_COLLISION:
		return NA_ROUTE_SHADOW;
	case NA_MSG_VOH_VREAD:
	case NA_MSG_VOH_VRPC:
	case NA_MSG_VOH_READ:
	case NA_MSG_VOH_UPDATE:
	case NA_MSG_VOH_WDATA:
	case NA_MSG_VOH_DONE:
		return NA_ROUTE_VOH;
	case NA_MSG_VOH_VERSION:
	case NA_MSG_VOH_PROCEED:
		return m->node == self ? NA_ROUTE_REQUESTER : NA_ROUTE_DROP;
	default:
		return NA_ROUTE_DROP;
	}
}
