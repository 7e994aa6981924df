/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The cache agent (paper section 5.1.1, "Invalidation and Data Transfer"):
 * it receives requests forwarded by the switch (a pipeline-type copy with
 * IN_SWITCH set) or by a home agent (NA_FWD), and
 *  - for WRITE_MISS / WRITE_SHARED invalidates the local copy,
 *  - when it is the data provider, sends the block to the requester
 *    (NA_DATA segments); for a READ_MISS a Modified copy becomes clean,
 *    and when this node is the block's home the data goes into home
 *    memory at once (`home_wb`), inside the reader's lock: the ACK says so
 *    (NA_ACK_HOME_WRITTEN) and the reader has nothing to write home;
 *    homed elsewhere, it sends the NA_WB home in parallel (`home_of`,
 *    NA_ACK_OWNER_WB) and the reader waits for the home's NA_WB_ACKs,
 *  - ACKs the requester with the block's global metadata (NA_ACK).
 * LAST-EXECUTED per requester (section 5.3.1): the reply of the last event
 * of each requester, data included, is kept so a duplicate gets the same
 * answer although the copy it came from may be gone.
 *
 * Requests that would take away a block a local thread has pinned
 * (dsm_rlock/dsm_wlock) are deferred until the pin is released; the
 * requester's switch lock meanwhile keeps everyone else out.
 *
 * Pure state transitions plus the cache table's bucket mutexes: no sockets.
 */
#ifndef NA_CAGENT_H
#define NA_CAGENT_H

#include <stdbool.h>
#include <stdint.h>

#include "na_cache.h"
#include "na_out.h"
#include "na_proto.h"

#define NA_DEFER_MAX 256
#define NA_HOT_SLOTS 256

struct na_creq {
	struct na_last_exec le;
	struct lcf_msg ack; /* the reply sent for le.seq */
	bool has_data;
	bool downgraded; /* a READ_MISS took our Modified copy to Shared */
	uint8_t *data;   /* block_size bytes, allocated on first use */
};

struct na_cdefer {
	bool used;
	struct lcf_msg m;
};

/* Copies of switch-owned blocks received this epoch (invalidations and
 * data-provider requests), for the shadow node. */
struct na_hot {
	uint64_t tag;
	uint32_t count;
};

#define NA_CAGENT_COUNTERS(X)    \
	X(requests)              \
	X(invalidations)         \
	X(data_provided)         \
	X(downgrades)            \
	X(owner_wb)              \
	X(provider_without_data) \
	X(duplicates)            \
	X(stale)                 \
	X(deferred)              \
	X(defer_overflow)        \
	X(hot_reports)           \
	X(home_written)

struct na_cagent_stats {
#define NA_X_FIELD(name) uint64_t name;
	NA_CAGENT_COUNTERS(NA_X_FIELD)
#undef NA_X_FIELD
};

struct na_cagent {
	uint16_t self;
	uint16_t tpn;
	uint32_t block_size;
	struct na_cache *cache;
	struct na_creq *req; /* LCF_MAX_NODES * tpn */
	struct na_cdefer def[NA_DEFER_MAX];
	uint32_t n_def;
	struct na_hot hot[NA_HOT_SLOTS];
	uint8_t report[NA_MAX_FRAME_PAYLOAD];
	struct na_cagent_stats st;
	/*
	 * Set when this node is a home (na_node_start.c): write `data`, the
	 * block of `req`'s tag, into home memory as the write-back of
	 * `req`'s event would. @return true when the home took it; false
	 * when the block is not this home's or its write-back rule refuses.
	 */
	bool (*home_wb)(void *ctx, const struct lcf_msg *req,
			const uint8_t *data);
	void *home_ctx;
	/*
	 * LCF mode (na_node_start.c): the home of a tag. A READ_MISS that
	 * downgrades our Modified copy of a block homed elsewhere sends the
	 * block home itself (NA_WB under the reader's identity, ACKed to the
	 * reader) as it answers: NA_ACK_OWNER_WB (lib/model/wbown.pml).
	 */
	uint16_t (*home_of)(void *ctx, uint64_t tag);
};

/** @return 0, -ENOMEM. */
int na_cagent_init(struct na_cagent *ca, uint16_t self, uint16_t tpn,
		   struct na_cache *cache);
void na_cagent_fini(struct na_cagent *ca);

/** Handle a forwarded request (switch copy or NA_FWD). */
void na_cagent_handle(struct na_cagent *ca, const struct lcf_msg *m,
		      struct na_out *out);

/** Retry the deferred requests (after a local pin was released). */
void na_cagent_run_deferred(struct na_cagent *ca, struct na_out *out);

/**
 * End of an epoch: emit this epoch's invalidation counts of switch-owned
 * blocks as one NA_HOT_REPORT to `shadow`, and reset them.
 */
void na_cagent_epoch(struct na_cagent *ca, uint16_t shadow, struct na_out *out);

#endif /* NA_CAGENT_H */
