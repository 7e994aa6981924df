/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Dynamic ownership migration, home side (paper section 5.2):
 *  - at the end of every epoch (default 10 ms) the home agent moves its
 *    top-k hottest home-owned blocks to the switch (ADD_TO_SWITCH, holding
 *    the home-side write lock until the MIGRATE_ACK; the hotness is the
 *    na_hblock.hot count: +n per request forwarded to n cache agents) and
 *    resets the counts. A chosen block stops granting its lock (requests
 *    are NACKed as not home-owned); once its holders have unlocked (at
 *    most 50 ms, else it stays home) the home takes the write lock and
 *    sends the ADD at once (late copies of the events it served find their
 *    seqs in the switch's LAST-UNLOCK: PROTOCOL.md 4.3);
 *  - a collision (FAIL MIGRATE_ACK) keeps the block home and is reported to
 *    the shadow node (NA_COLLISION, with the block's hotness), which may
 *    make room by removing a colder block;
 *  - on the shadow's NA_REMOVE_REQ it sends REMOVE_FROM_SWITCH and takes the
 *    block back with the metadata of the switch's MIGRATE_ACK; when that
 *    ACK is lost (a retransmitted REMOVE misses), a recovery round rebuilds
 *    the metadata from the caches' copies (na_recovery.h);
 *  - it retransmits ADDs and REMOVEs until their MIGRATE_ACK arrives, never
 *    giving one up (a late copy would make two owners).
 *
 * Pure state transitions on the home agent's state (same mutex); the node
 * runtime calls na_migrate_tick() from its dispatch thread, never from
 * application threads.
 */
#ifndef NA_MIGRATE_H
#define NA_MIGRATE_H

#include <stdbool.h>
#include <stdint.h>

#include "na_home.h"
#include "na_out.h"

#define NA_MIGRATE_DEFAULT_K        1000
#define NA_MIGRATE_DEFAULT_EPOCH_MS 10

/* Where the migration module's output goes: `out`, flushed when full. */
struct na_mig_io {
	struct na_out *out;
	void (*flush)(void *ctx, struct na_out *out);
	void *ctx;
};

struct na_mig_pending {
	uint32_t idx;  /* home block index */
	uint32_t hot;  /* its hotness when the ADD was decided */
	uint8_t type;  /* ADD_TO_SWITCH or REMOVE_FROM_SWITCH */
	bool draining; /* ADD waiting for the block's lock holders */
	bool slow;     /* ADD counted in add_slow */
	bool late;     /* ADD settled, kept to time its late answer */
	uint32_t seq0; /* late: the block's add_seq0 when it was settled */
	uint32_t tries;
	uint64_t sent_ns;
	uint64_t first_ns;
};

/* X(name): counters printed under "migration" in node-agent's stats. */
#define NA_MIGRATE_COUNTERS(X)     \
	X(epochs)                  \
	X(candidates)              \
	X(adds)                    \
	X(add_ok)                  \
	X(add_collisions)          \
	X(add_retransmits)         \
	X(add_slow)                \
	X(busy_skipped)            \
	X(drains)                  \
	X(pending_full)            \
	X(remove_requests)         \
	X(remove_requests_ignored) \
	X(removes)                 \
	X(remove_ok)               \
	X(remove_retransmits)      \
	X(remove_nacks)            \
	X(remove_missed)           \
	X(remove_confirms)         \
	X(remove_stale)            \
	X(collision_reports)       \
	X(settle_removes)          \
	X(add_late_samples)

struct na_migrate_stats {
#define NA_X_FIELD(name) uint64_t name;
	NA_MIGRATE_COUNTERS(NA_X_FIELD)
#undef NA_X_FIELD
};

struct na_migrate {
	bool dynamic; /* epoch-end top-k ADDs */
	uint32_t k;
	uint64_t epoch_ns;
	uint64_t next_epoch_ns;
	int shadow;   /* node id or -1 */
	uint32_t seq; /* seq of REMOVEs and reports */
	struct na_mig_pending *pend;
	uint32_t n_pend, cap;
	uint32_t n_draining; /* pending ADDs still waiting for their holders */
	struct na_mig_pending *heap; /* top-k selection, k entries */
	struct na_migrate_stats st;
};

/**
 * @param dynamic run the epoch-end top-k selection (otherwise only REMOVE
 *        requests and retransmissions are served).
 * @param k blocks migrated per epoch at most (> 0 when dynamic).
 * @return 0, -EINVAL, -ENOMEM.
 */
int na_migrate_init(struct na_migrate *mg, bool dynamic, uint32_t k,
		    uint32_t epoch_ms, int shadow, uint64_t now_ns);
void na_migrate_fini(struct na_migrate *mg);

/**
 * Timers: retransmit unanswered ADD/REMOVE, report collisions to the
 * shadow, and at the end of an epoch migrate the top-k blocks.
 */
void na_migrate_tick(struct na_migrate *mg, struct na_home *h, uint64_t now_ns,
		     struct na_mig_io *io);

/**
 * A message for the migration module: NA_REMOVE_REQ from the shadow, a
 * REMOVE_FROM_SWITCH the switch returned on a tag miss, or the switch's
 * NACK of a REMOVE (lock busy: the timer retries).
 *
 * @return true when `m` is a tag miss of a REMOVE whose block is still
 *         REMOVING: the MIGRATE_ACK with its metadata was lost, and the
 *         caller must recover the block (na_rec_block_lost).
 */
bool na_migrate_handle(struct na_migrate *mg, struct na_home *h,
		       const struct lcf_msg *m, uint64_t now_ns,
		       struct na_mig_io *io);

/**
 * The home agent has handled a message about `tag` (an unlock, an ABORT):
 * a draining block whose last holder it released sends its ADD now
 * instead of at the next tick, so that the block's requests are NACKed
 * for the drain's length, not the timer's period. Cheap when nothing
 * drains.
 */
void na_migrate_released(struct na_migrate *mg, struct na_home *h, uint64_t tag,
			 uint64_t now_ns, struct na_mig_io *io);

/** Blocks this home has in the switch now. */
uint32_t na_migrate_switch_owned(const struct na_home *h);

#endif /* NA_MIGRATE_H */
