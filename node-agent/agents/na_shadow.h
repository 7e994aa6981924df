/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The shadow node (paper section 5.2.2).
 *
 * SHADOW-TAG mirrors the switch's TAG array slot by slot: every MIGRATE_ACK
 * the switch copies to the shadow names the way (aux bits 16-23) and the
 * shadow computes the slot with the switch's own hash
 * (lcf_pipeline_slot(), from the topology), so it knows which blocks sit in
 * the slots an ADD_TO_SWITCH collided with. Each entry keeps the block's
 * hotness: the copies the switch forwarded to cache agents for it, reported
 * per epoch by every cache agent (NA_HOT_REPORT), smoothed over epochs
 * (EWMA, weight 1/4), in the same unit as the home agents' hotness (+n per
 * request sent to n cache agents).
 *
 * Policy (REMOVE_FROM_SWITCH is sent by the block's home agent, on the
 * shadow's NA_REMOVE_REQ):
 *  - collision: a home reports a failed ADD (NA_COLLISION, with the block's
 *    hotness); the shadow removes the coldest block of the colliding slots
 *    when the newcomer is more than twice as hot, so the home's next-epoch
 *    retry finds room. The paper removes the coldest unconditionally;
 *    comparing (with hysteresis) keeps a cold newcomer from evicting a hot
 *    block and two similar blocks from swapping places every epoch.
 *  - capacity: at the end of an epoch, when the switch holds at least
 *    NA_SHADOW_HIGH_PCT % of its capacity, cold blocks (no copy for
 *    several epochs: the smoothed rate decayed to 0) are removed, down to
 *    NA_SHADOW_LOW_PCT %, so that newcomers find free slots. Blocks that
 *    still see traffic leave only through collisions, for a hotter one.
 * Blocks added less than NA_SHADOW_YOUNG_EPOCHS epochs ago are never chosen:
 * their hotness has not been reported yet.
 *
 * The model is one pipeline (a Tofino, or swswitch with one worker); with
 * several swswitch workers each shard has its own slots and the mirror is
 * approximate (mirror_conflicts counts the overwrites).
 */
#ifndef NA_SHADOW_H
#define NA_SHADOW_H

#include <stdbool.h>
#include <stdint.h>

#include "lcf_pipeline.h"
#include "na_out.h"

struct topo;

#define NA_SHADOW_HIGH_PCT     90
#define NA_SHADOW_LOW_PCT      80
#define NA_SHADOW_YOUNG_EPOCHS 2
#define NA_SHADOW_RETRY_EPOCHS 20           /* a REMOVE_REQ with no effect */
#define NA_SHADOW_MAX_MIRROR   (4u << 20)   /* slots; beyond: no policy */
#define NA_SHADOW_VALID        (1ull << 63) /* as the switch marks TAG */
#define NA_SHADOW_SCORE_ONE    16 /* score fixed point: 1 copy/epoch */

struct na_shadow_ent {
	uint64_t tag;   /* tag | NA_SHADOW_VALID; 0 empty */
	uint32_t score; /* smoothed copies per epoch x ONE */
	uint32_t cur;   /* copies reported this epoch */
	uint32_t added_epoch;
	uint32_t remove_epoch; /* 0: no REMOVE_REQ outstanding */
};

#define NA_SHADOW_COUNTERS(X)  \
	X(adds)                \
	X(removes)             \
	X(reports)             \
	X(unknown_reports)     \
	X(add_failures)        \
	X(collisions)          \
	X(collision_evictions) \
	X(collision_kept)      \
	X(pressure_evictions)  \
	X(remove_requests)     \
	X(mirror_conflicts)    \
	X(forgotten)

struct na_shadow_stats {
#define NA_X_FIELD(name) uint64_t name;
	NA_SHADOW_COUNTERS(NA_X_FIELD)
#undef NA_X_FIELD
};

struct na_shadow {
	uint16_t self;
	struct lcf_pipeline_config pc; /* the switch's ways, slots, hash */
	uint64_t capacity;             /* ways x slots_per_way */
	struct na_shadow_ent *t;       /* [way * slots_per_way + slot] */
	uint32_t *order;               /* scratch: cold entries */
	uint32_t n_tags;
	uint32_t peak_tags;
	uint32_t epoch;
	uint32_t seq;
	struct na_shadow_stats st;
};

/**
 * Size SHADOW-TAG from the topology's switch (ways x slots_per_way).
 * Beyond NA_SHADOW_MAX_MIRROR slots the shadow only counts (no policy).
 * @return 0 or -ENOMEM.
 */
int na_shadow_init(struct na_shadow *s, const struct topo *t, uint16_t self);
void na_shadow_fini(struct na_shadow *s);

/**
 * The switch lost `tag` (restart, or a dead node's entries evicted by its
 * control plane): its home is recovering it. No-op when it is not mirrored.
 */
void na_shadow_forget(struct na_shadow *s, uint64_t tag);

/** A MIGRATE_ACK (mirror) from the switch. */
void na_shadow_migrate_ack(struct na_shadow *s, const struct lcf_msg *m);

/** An NA_HOT_REPORT from a cache agent. */
void na_shadow_report(struct na_shadow *s, const struct lcf_msg *m,
		      const uint8_t *payload, uint16_t len);

/** An NA_COLLISION from a home agent: maybe remove a colder block. */
void na_shadow_collision(struct na_shadow *s, const struct lcf_msg *m,
			 struct na_out *out);

/** End of an epoch: age the hotness, relieve capacity pressure. */
void na_shadow_epoch(struct na_shadow *s, struct na_out *out);

#endif /* NA_SHADOW_H */
