/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The shadow node (paper section 5.2.2): SHADOW-TAG, the set of blocks the
 * switch owns, learnt from the switch's mirrored MIGRATE_ACKs, with the
 * invalidation counts the cache agents report each epoch (NA_HOT_REPORT).
 * Choosing the coldest blocks to send home (REMOVE_FROM_SWITCH) is the
 * dynamic-migration follow-up; the hotness it needs is collected here.
 */
#ifndef NA_SHADOW_H
#define NA_SHADOW_H

#include <stdint.h>

#include "lcf_wire.h"

#define NA_SHADOW_SLOTS 65536           /* open addressing, power of two */

struct na_shadow_ent {
	uint64_t tag;                   /* tag + 1; 0 = empty */
	uint64_t hot;
};

struct na_shadow {
	struct na_shadow_ent *t;
	uint32_t n_tags;
	uint64_t adds;
	uint64_t removes;
	uint64_t reports;
	uint64_t unknown_reports;       /* counts for tags not in SHADOW-TAG */
};

/** @return 0 or -ENOMEM. */
int na_shadow_init(struct na_shadow *s);
void na_shadow_fini(struct na_shadow *s);

/** A MIGRATE_ACK (mirror) from the switch. */
void na_shadow_migrate_ack(struct na_shadow *s, const struct lcf_msg *m);

/** An NA_HOT_REPORT from a cache agent. */
void na_shadow_report(struct na_shadow *s, const struct lcf_msg *m,
		      const uint8_t *payload, uint16_t len);

#endif /* NA_SHADOW_H */
