/* SPDX-License-Identifier: BSD-3-Clause
 *
 * FlowCC protocol rules as pure functions (no I/O, no locks), so the unit
 * tests pin them down and every agent uses the same ones:
 *  - Table 2 (check) and Table 3 (forward) as the home agent applies them,
 *  - Figure 6 (global status transitions) and the new copyset a requester
 *    computes (section 5.1.1, "requester-driven coherence control"),
 *  - the LAST-EXECUTED rule of section 5.3.1,
 *  - where a received message goes inside a node (dispatch),
 *  - what a requester must collect before an event is complete.
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
uint8_t na_next_gstatus(uint8_t type, uint8_t gs_old, uint32_t cs_new);

/** The copyset the requester installs: {id}, cs_old + {id} or cs_old - {id}. */
uint32_t na_new_copyset(uint8_t type, uint32_t cs_old, uint16_t self);

/** The unlock's metadata after event `type` from `self` that found
 * (gs_old, cs_old): *cs by na_new_copyset, *gs by Figure 6. */
void na_unlock_meta(uint8_t type, uint8_t gs_old, uint32_t cs_old,
		    uint16_t self, uint8_t *gs, uint32_t *cs);

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

void na_collect_init(struct na_collect *c, uint8_t type, uint16_t self,
		     uint32_t block_size);

/** Account for an ACK (or the switch's returned request) from `responder`. */
void na_collect_ack(struct na_collect *c, uint16_t responder, uint8_t gs,
		    uint32_t cs, bool in_switch);

/** Account for a cache agent's NA_ACK `m` (na_collect_ack, and whether
 * its data is home already: NA_ACK_HOME_WRITTEN). */
void na_collect_na_ack(struct na_collect *c, const struct lcf_msg *m);

/** Account for a directory home's DIR_GRANT (na_directory.h). */
void na_collect_grant(struct na_collect *c, uint16_t home, uint8_t gs,
		      uint32_t cs);

/** Account for a data segment at `offset`. @return false if malformed. */
bool na_collect_data(struct na_collect *c, uint32_t offset, uint32_t len);

bool na_collect_done(const struct na_collect *c);

/**
 * One message `x` (with `payload`) for the event of `type`, `seq` on
 * `tag`, collected: an ACK, a data segment (copied into `buf`), a
 * DIR_GRANT, the switch's return of our own WRITE_SHARED / EVICT_*, a NACK
 * before any reply. `*stale` is set when `x` is none of these (another
 * seq's or tag's, or of no use). @return na_collect_done(c).
 */
bool na_collect_reply(struct na_collect *c, uint8_t type, uint32_t seq,
		      uint64_t tag, const struct lcf_msg *x,
		      const uint8_t *payload, uint8_t *buf, bool *stale);

/** Does a request of `type` need the block's data? */
static inline bool
na_type_needs_data(uint8_t type)
{
	return type == LCF_T_READ_MISS || type == LCF_T_WRITE_MISS;
}

#endif /* NA_PROTO_H */
