/* SPDX-License-Identifier: BSD-3-Clause
 *
 * FlowCC protocol rules as pure functions (no I/O, no locks), so the unit
 * tests pin them down and every agent uses the same ones:
 *  - Table 2 (check) and Table 3 (forward) as the home agent applies them,
 *  - Figure 6 (global status transitions) and the new copyset a requester
 *    computes (section 5.1.1, "requester-driven coherence control"),
 *  - the LAST-EXECUTED rule of section 5.3.1,
 *  - where a received message goes inside a node (dispatch),
 *  - what a requester must collect before an event is complete
 *    (na_collect.h).
 */
#ifndef NA_PROTO_H
#define NA_PROTO_H

#include <stdbool.h>
#include <stdint.h>

#include "lcf_wire.h"

static inline bool
na_cs_has(uint32_t cs, uint16_t node)
{
	return node < LCF_MAX_NODES && (cs >> node) & 1u;
}

static inline uint32_t
na_bit(uint16_t node)
{
	return node < LCF_MAX_NODES ? 1u << node : 0;
}

/** Table 2: does request `type` from `node` pass against (gs, cs)? */
bool na_check(uint8_t type, uint16_t node, uint8_t gs, uint32_t cs);

/** Figure 6: the global status after a successful event. */
static inline uint8_t
na_next_gstatus(uint8_t type, uint8_t gs_old, uint32_t cs_new)
{
	switch (type) {
	case LCF_T_READ_MISS:
		return LCF_GS_SHARED; /* from any state */
	case LCF_T_WRITE_MISS:
	case LCF_T_WRITE_SHARED:
		return LCF_GS_MODIFIED;
	case LCF_T_EVICT_SHARED:
		/* Shared stays Shared while someone still holds a copy. */
		return cs_new ? LCF_GS_SHARED : LCF_GS_UNSHARED;
	case LCF_T_EVICT_MODIFIED:
		return LCF_GS_UNSHARED;
	default:
		return gs_old;
	}
}

/** The copyset the requester installs: {id}, cs_old + {id} or cs_old - {id}. */
static inline uint32_t
na_new_copyset(uint8_t type, uint32_t cs_old, uint16_t self)
{
	switch (type) {
	case LCF_T_WRITE_MISS:
	case LCF_T_WRITE_SHARED:
		return na_bit(self);
	case LCF_T_READ_MISS:
		return cs_old | na_bit(self);
	case LCF_T_EVICT_SHARED:
	case LCF_T_EVICT_MODIFIED:
		return cs_old & ~na_bit(self);
	default:
		return cs_old;
	}
}

/** The unlock's metadata after event `type` from `self` that found
 * (gs_old, cs_old): *cs by na_new_copyset, *gs by Figure 6. */
static inline void
na_unlock_meta(uint8_t type, uint8_t gs_old, uint32_t cs_old, uint16_t self,
	       uint8_t *gs, uint32_t *cs)
{
	*cs = na_new_copyset(type, cs_old, self);
	*gs = na_next_gstatus(type, gs_old, *cs);
}

/** READ_UNLOCK after READ_MISS, WRITE_UNLOCK after anything else. */
static inline uint8_t
na_unlock_type(uint8_t type)
{
	return type == LCF_T_READ_MISS ? LCF_T_READ_UNLOCK : LCF_T_WRITE_UNLOCK;
}

/* Table 3 at the home agent (server-side equivalent of the forward table). */
enum na_fwd_kind {
	NA_FWD_REPLY_DATA =
		1,        /* the home agent replies itself, with the data */
	NA_FWD_TO_CACHES, /* one NA_FWD per node of `to` */
	NA_FWD_REPLY_ACK, /* ACK without data (sole holder, evictions) */
};

struct na_fwd {
	enum na_fwd_kind kind;
	uint32_t to;       /* NA_FWD_TO_CACHES: destination nodes */
	uint16_t provider; /* node that gets DATA_PROVIDER, or NONE */
};

/**
 * Table 3 for a request that passed the check. `rnd` is a random number
 * (the data-provider choice: the k-th node of the copyset, k = rnd % n).
 */
void na_forward_rule(uint8_t type, uint8_t gs, uint32_t cs, uint16_t node,
		     uint32_t rnd, struct na_fwd *out);

/* LAST-EXECUTED (section 5.3.1). */
enum na_le_verdict {
	NA_LE_EXECUTE,   /* larger seq: execute and record */
	NA_LE_DUPLICATE, /* equal: re-send the reply, change nothing */
	NA_LE_STALE,     /* smaller: ignore */
};

struct na_last_exec {
	uint32_t seq;
	bool valid;
};

static inline enum na_le_verdict
na_le_check(const struct na_last_exec *le, uint32_t seq)
{
	if (!le->valid || lcf_seq_after(seq, le->seq))
		return NA_LE_EXECUTE;
	return seq == le->seq ? NA_LE_DUPLICATE : NA_LE_STALE;
}

static inline void
na_le_commit(struct na_last_exec *le, uint32_t seq)
{
	le->seq = seq;
	le->valid = true;
}

/* Where a message received by node `self` goes. */
enum na_route {
	NA_ROUTE_DROP = 0,
	NA_ROUTE_REQUESTER, /* the requester thread msg.thread of this node */
	NA_ROUTE_HOME,      /* home agent */
	NA_ROUTE_CACHE,     /* cache agent */
	NA_ROUTE_MIGRATE,   /* MIGRATE_ACK: home agent and/or shadow */
	NA_ROUTE_SHADOW,    /* shadow node */
	NA_ROUTE_HOME_MIGRATE, /* home agent's migration module (na_migrate.h) */
	NA_ROUTE_VOH,          /* validate-on-hit, home side (na_voh_home.h) */
	NA_ROUTE_QUEUE, /* the queue holders (na_qtable.h): forward-to-holder
			 * copies, QXFER_ACK, Q_GRANT, Q_GRANT_ACK, QWAIT,
			 * QGRANT */
	NA_ROUTE_QINV,  /* Q_INV: as a switch copy, to the cache agent or
			 * (Unshared) the home agent (na_qplan.h) */
};

/** Dispatch rule (docs/NODE-AGENT.md "Dispatch"). */
enum na_route na_classify(const struct lcf_msg *m, uint16_t self);

/** Does a request of `type` need the block's data? */
static inline bool
na_type_needs_data(uint8_t type)
{
	return type == LCF_T_READ_MISS || type == LCF_T_WRITE_MISS;
}

#endif /* NA_PROTO_H */
