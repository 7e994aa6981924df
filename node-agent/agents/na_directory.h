/* SPDX-License-Identifier: BSD-3-Clause
 *
 * A classic server-side directory protocol (`node-agent --coherence
 * directory`), the third baseline of the end-to-end benchmark next to
 * Concordia (switch-owned blocks) and Concordia-base (home agent's LCF
 * pipeline, replies straight from the cache agents):
 *
 *   requester --DIR_REQ--> home --DIR_INV--> sharers/owner
 *   requester <--DIR_GRANT (+NA_DATA)-- home <--DIR_INV_ACK (+DIR_DATA)--
 *
 * The home keeps the directory (the same per-block lock, gstatus and
 * copyset as its LCF pipeline, struct na_hblock), collects every
 * invalidation ACK and the owner's data itself, writes that data to global
 * memory, and answers the requester with one grant: 4 hops on the critical
 * path of a conflicting access instead of 3, 2 when nobody else holds the
 * block (reads of Shared blocks are served from memory, which is current
 * whenever a block is Shared). The requester's unlock (DIR_UNLOCK, off the
 * critical path) releases the directory entry, as an unblock message does
 * in blocking directory protocols. Every message is node-to-node (0x40-0x45,
 * docs/PROTOCOL.md section 5): the switch only forwards them at L2.
 *
 * The grant reports the block's metadata as it is once the home has acted
 * (copies invalidated, a Modified owner downgraded and its data in memory),
 * so the requester's usual rules (Figure 6, new copyset) compute the right
 * unlock and no write-back follows a read.
 *
 * All nodes of a run must use the same protocol. Pure state transitions on
 * the home agent's state, called under the agents' mutex.
 */
#ifndef NA_DIRECTORY_H
#define NA_DIRECTORY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "na_home.h"
#include "na_msg.h"
#include "na_out.h"

/* A requester's transaction at this home (one event at a time each). */
struct na_dtxn {
	bool pending;      /* waiting for invalidation ACKs / data */
	bool granted;      /* grant sent; re-sent for duplicates */
	bool data;         /* the grant carries the block */
	uint8_t type;      /* the request type (READ_MISS ...) */
	uint8_t gs_lock;   /* metadata at lock time (sent in DIR_INV) */
	uint8_t gs_after;  /* metadata reported in the grant */
	uint16_t provider; /* node asked for the block, or LCF_NODE_NONE */
	uint32_t seq;
	uint32_t cs_lock;
	uint32_t cs_after;
	uint32_t inv;      /* nodes sent a DIR_INV */
	uint32_t wait;     /* of those, nodes whose ACK is missing */
	uint64_t seg_have; /* provider's segments received */
	uint64_t tag;
};

#define NA_DIR_COUNTERS(X)           \
	X(requests)                  \
	X(grants_immediate)          \
	X(grants_after_invalidation) \
	X(invalidations_sent)        \
	X(fetches)                   \
	X(inv_acks)                  \
	X(data_segments)             \
	X(resent_invalidations)      \
	X(duplicates)                \
	X(nack_lock)                 \
	X(nack_check)                \
	X(nack_not_home)             \
	X(provider_without_data)     \
	X(unlocks)                   \
	X(stray)

struct na_dir_stats {
#define NA_X_FIELD(name) uint64_t name;
	NA_DIR_COUNTERS(NA_X_FIELD)
#undef NA_X_FIELD
};

struct na_dir {
	struct na_dtxn *tx; /* LCF_MAX_NODES * threads per node */
	struct na_dir_stats st;
};

/** Give home agent `h` a directory (h->dir). @return 0, -ENOMEM. */
int na_dir_attach(struct na_home *h);

/** Free h->dir (before na_home_fini). */
void na_dir_detach(struct na_home *h);

/**
 * Home side: handle a directory message (DIR_REQ, DIR_UNLOCK, DIR_INV_ACK,
 * DIR_DATA). @return false for any other type (the home agent's own
 * handler takes it: write-backs, allocations).
 */
bool na_dir_home_handle(struct na_home *h, const struct lcf_msg *m,
			const void *payload, uint16_t len, struct na_out *out);

/**
 * Cache agent side: `ack` is the reply built for `m`; when `m` is a
 * DIR_INV it becomes a DIR_INV_ACK addressed to the home (its data goes
 * there too, as DIR_DATA).
 */
void na_dir_cagent_reply(const struct lcf_msg *m, struct lcf_msg *ack);

/**
 * Requester side: turn request/unlock `m` into its DIR_* message (other
 * types are left alone). The requester calls it in directory mode only
 * (na_dir_wrap() in na_node.h).
 */
static inline void
na_dir_wrap_msg(struct lcf_msg *m)
{
	if (m->type < LCF_T_READ_MISS || m->type > LCF_T_WRITE_UNLOCK)
		return;
	m->aux = na_aux_orig(m->type, 0);
	m->type = m->type >= LCF_T_READ_UNLOCK ? NA_MSG_DIR_UNLOCK
					       : NA_MSG_DIR_REQ;
}

/** The directory's counters as a JSON member `"directory":{...}`. */
void na_dir_stats_json(const struct na_dir *d, FILE *f);

#endif /* NA_DIRECTORY_H */
