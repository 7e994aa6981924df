/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The home side of validate-on-hit (docs/VALIDATE.md; wire: PROTOCOL.md
 * "Validate-on-hit messages"). Beside the home agent, on the same memory:
 *  - a version per block, bumped by every committed update and read
 *    without any lock by na_voh_vread(), which the node runtime calls on
 *    its receive path before the agents' section (the one-sided check);
 *  - per block, the ReadQueue/UpdateQueue state machine (na_voh_rq.h) that
 *    orders block fetches and updates, writers preferred, plus the updaters
 *    waiting for UQ;
 *  - per requester, LAST-EXECUTED of its current operation (seq, state),
 *    so duplicates and retransmissions are answered, never re-executed.
 * na_voh_handle() is a pure transition (caller holds the agents' section).
 * Blocks the switch owns are refused (FAIL): the switch path of
 * validate-on-hit is not implemented; the requester then uses the
 * invalidation protocol for that access.
 */
#ifndef NA_VOH_HOME_H
#define NA_VOH_HOME_H

#include <stdbool.h>
#include <stdint.h>

#include "na_home.h"
#include "na_out.h"
#include "na_voh_rq.h"

#define NA_VOH_COUNTERS(X) \
	X(vreads)          \
	X(vrpcs)           \
	X(reads)           \
	X(reads_queued)    \
	X(updates)         \
	X(updates_waiting) \
	X(commits)         \
	X(refused)         \
	X(duplicates)      \
	X(data_incomplete) \
	X(table_errors)    \
	X(bad)

struct na_voh_stats {
#define NA_X_FIELD(name) uint64_t name;
	NA_VOH_COUNTERS(NA_X_FIELD)
#undef NA_X_FIELD
};

/* Per block with validate-on-hit traffic (allocated at its first). */
struct na_vblk {
	struct na_rq q;
	uint32_t *pend; /* updaters waiting for UQ, FIFO */
	uint32_t n_pend, cap_pend;
	uint64_t wsegs; /* segments of the granted update received */
};

enum na_vreq_state {
	NA_VR_NONE = 0,
	NA_VR_QUEUED,
	NA_VR_GRANTED,
	NA_VR_DONE,
	NA_VR_REFUSED, /* FAIL: not served here then (lib/model/vohref.pml) */
};

/* Per requester: its current (or last) operation. */
struct na_vreq {
	uint32_t seq;
	uint8_t op;    /* NA_MSG_VOH_READ or NA_MSG_VOH_UPDATE */
	uint8_t state; /* enum na_vreq_state */
	uint32_t ver;  /* DONE: the version the DONE's reply carried */
	uint32_t gver; /* a granted read: the version and epoch (add_seq) */
	uint32_t gadd; /* its first PROCEED carried (vohdup.pml) */
	uint64_t tag;
};

struct na_voh_home {
	struct na_home *h;
	uint32_t *ver;        /* per block; atomic loads and stores only */
	struct na_vblk **blk; /* per block, NULL until used */
	struct na_vreq *req;  /* LCF_MAX_NODES * tpn */
	struct na_voh_stats st;
};

/** @return 0, -ENOMEM. `h` must be initialised and outlive `v`. */
int na_voh_home_init(struct na_voh_home *v, struct na_home *h);
void na_voh_home_fini(struct na_voh_home *v);

/**
 * The one-sided version read: answer VOH_VREAD `m` into `reply` from the
 * version array, taking no lock (safe beside na_voh_handle on another
 * thread). @return true when `reply` is to be sent to reply->dst_node.
 */
bool na_voh_vread(struct na_voh_home *v, const struct lcf_msg *m,
		  struct lcf_msg *reply);

/** Handle one validate-on-hit message for the home (agents' section). */
void na_voh_handle(struct na_voh_home *v, const struct lcf_msg *m,
		   const void *payload, uint16_t len, struct na_out *out);

/**
 * The (epoch, version) stamp a reply `m` of the home carries (VOH_VERSION,
 * VOH_PROCEED): equal stamps mean the same data.
 */
static inline uint64_t
na_voh_stamp(const struct lcf_msg *m)
{
	return (uint64_t)(m->gstatus << 8 | (m->aux >> 16 & 0xff)) << 32 |
	       m->copyset;
}

/**
 * Node `node` failed (the home's drain, na_rec_drain): its requesters'
 * reads and updates leave every block's queues, what they held up
 * proceeds (PROCEEDs into `out`); a granted update counts as committed.
 */
void na_voh_node_failed(struct na_voh_home *v, uint16_t node,
			struct na_out *out);

/** The version of block `tag` (0 for a tag not homed here). */
uint32_t na_voh_version(const struct na_voh_home *v, uint64_t tag);

#endif /* NA_VOH_HOME_H */
