/* SPDX-License-Identifier: BSD-3-Clause
 *
 * What a requester must collect before an event is complete (na_proto.h's
 * last rule), as inline pure functions: they run for every reply inside
 * the requester's event loop (api/na_requester.c), so a reply is taken
 * without leaving it.
 */
#ifndef NA_COLLECT_H
#define NA_COLLECT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "na_msg.h"
#include "na_proto.h"
#include "na_seg.h"

/*
 * What a requester has collected for its current event. The rule: an event
 * is complete once it has at least one reply, replies from every node it
 * must hear from (the copyset in the replies says who), and, for misses,
 * the whole block.
 */
struct na_collect {
	uint8_t type;
	uint16_t self;
	uint32_t block_size;
	bool got_reply;
	bool nacked;
	uint8_t gs_old;
	uint32_t cs_old;
	uint32_t acked;    /* nodes whose ACK arrived */
	uint64_t seg_have; /* data segments received (bit i = segment i) */
	uint64_t seg_all;
	bool in_switch;
	bool granted;      /* DIR_GRANT: the home answered for everyone */
	bool home_written; /* the data provider was the home and wrote the
			      data home (NA_ACK_HOME_WRITTEN) */
	bool owner_wb;     /* the owner sent the NA_WB (NA_ACK_OWNER_WB) */
	uint64_t wb_have;  /* NA_WB_ACK segments already received */
};

static inline void
na_collect_init(struct na_collect *c, uint8_t type, uint16_t self,
		uint32_t block_size)
{
	*c = (struct na_collect){
		.type = type,
		.self = self,
		.block_size = block_size,
		.seg_all = na_type_needs_data(type) ? na_seg_all(block_size)
						    : 0,
	};
}

/** Account for an ACK (or the switch's returned request) from `responder`. */
static inline void
na_collect_ack(struct na_collect *c, uint16_t responder, uint8_t gs,
	       uint32_t cs, bool in_switch)
{
	if (!c->got_reply) {
		/* Every reply of one event carries the same metadata. */
		c->got_reply = true;
		c->gs_old = gs;
		c->cs_old = cs;
		c->in_switch = in_switch;
	}
	c->acked |= na_bit(responder);
}

/** Account for a cache agent's NA_ACK `m` (na_collect_ack, and whether
 * its data is home already: NA_ACK_HOME_WRITTEN). */
static inline void
na_collect_na_ack(struct na_collect *c, const struct lcf_msg *m)
{
	na_collect_ack(c, na_aux_responder(m->aux), m->gstatus, m->copyset,
		       m->flags & LCF_F_IN_SWITCH);
	if ((m->flags & LCF_F_DATA_PROVIDER) && (m->aux & NA_ACK_HOME_WRITTEN))
		c->home_written = true;
	if ((m->flags & LCF_F_DATA_PROVIDER) && (m->aux & NA_ACK_OWNER_WB))
		c->owner_wb = true;
}

/** Account for a directory home's DIR_GRANT (na_directory.h). */
static inline void
na_collect_grant(struct na_collect *c, uint16_t home, uint8_t gs, uint32_t cs)
{
	na_collect_ack(c, home, gs, cs, false);
	c->granted = true;
}

/** Account for a data segment at `offset`. @return false if malformed. */
static inline bool
na_collect_data(struct na_collect *c, uint32_t offset, uint32_t len)
{
	int i = na_seg_index(c->block_size, offset, len);

	if (i < 0 || !c->seg_all)
		return false;
	c->seg_have |= 1ull << i;
	return true;
}

static inline bool
na_collect_done(const struct na_collect *c)
{
	uint32_t expect = 0;

	if (c->nacked)
		return true;
	if (!c->got_reply || (c->seg_have & c->seg_all) != c->seg_all)
		return false;
	if (c->granted)
		return true; /* the directory's home collected the ACKs */
	/* "The copyset in the ACKs tells whom to wait for" (Figure 4). */
	if (c->type == LCF_T_WRITE_MISS)
		expect = c->cs_old;
	else if (c->type == LCF_T_WRITE_SHARED)
		expect = c->cs_old & ~na_bit(c->self);
	return (c->acked & expect) == expect;
}

/* The requester's replies (na_req_event); their order is free. */

static inline bool
collect_one(struct na_collect *c, uint8_t type, const struct lcf_msg *x,
	    const uint8_t *payload, uint8_t *buf)
{
	switch (x->type) {
	case LCF_T_NACK:
	case NA_MSG_NACK:
		/* Another copy of this request holds the lock already? */
		if (!c->got_reply)
			c->nacked = true;
		return true;
	case NA_MSG_ACK:
		na_collect_na_ack(c, x);
		return true;
	case LCF_T_WRITE_SHARED:
	case LCF_T_EVICT_SHARED:
	case LCF_T_EVICT_MODIFIED:
		/* Our own request, returned by the switch: the ACK. */
		if (x->type == type)
			na_collect_ack(c, LCF_NODE_NONE, x->gstatus, x->copyset,
				       true);
		return true;
	case NA_MSG_DATA:
		if (na_collect_data(c, x->aux, x->len))
			memcpy(buf + x->aux, payload, x->len);
		return true;
	case NA_MSG_WB_ACK:
		/* The owner's write-back, ACKed before our data may be. */
		if (x->aux < c->block_size &&
		    x->aux % NA_MAX_FRAME_PAYLOAD == 0)
			c->wb_have |= 1ull << (x->aux / NA_MAX_FRAME_PAYLOAD);
		return true;
	case NA_MSG_DIR_GRANT:
		na_collect_grant(c, na_aux_responder(x->aux), x->gstatus,
				 x->copyset);
		return true;
	default:
		return false;
	}
}

/**
 * One message `x` (with `payload`) for the event of `type`, `seq` on
 * `tag`, collected: an ACK, a data segment (copied into `buf`), a
 * DIR_GRANT, the switch's return of our own WRITE_SHARED / EVICT_*, a NACK
 * before any reply. `*stale` is set when `x` is none of these (another
 * seq's or tag's, or of no use). @return na_collect_done(c).
 */
static inline bool
na_collect_reply(struct na_collect *c, uint8_t type, uint32_t seq, uint64_t tag,
		 const struct lcf_msg *x, const uint8_t *payload, uint8_t *buf,
		 bool *stale)
{
	*stale = x->seq != seq || x->tag != tag ||
		 !collect_one(c, type, x, payload, buf);
	return na_collect_done(c);
}

#endif /* NA_COLLECT_H */
