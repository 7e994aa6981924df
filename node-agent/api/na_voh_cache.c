/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Validate-on-hit and TTL, requester side: the validated cache's entries
 * (na_voh_int.h, docs/VALIDATE.md).
 */
#include <string.h>

#include "na_voh_int.h"

/* The entry of `tag`, or (alloc) a free or least recently used way. */
struct voh_entry *
na_voh_entry(struct na_voh *v, uint64_t tag, bool alloc)
{
	struct voh_entry *set = &v->e[(tag * 0x9e3779b97f4a7c15ull >> 40) %
				      VOH_SETS * VOH_WAYS];
	struct voh_entry *victim = &set[0];

	for (int w = 0; w < VOH_WAYS; w++) {
		if (set[w].valid && set[w].tag == tag)
			return &set[w];
		if (!set[w].valid ||
		    (victim->valid && set[w].used < victim->used))
			victim = &set[w];
	}
	return alloc ? victim : NULL;
}

/* Keep `data` as the copy of `tag` with `stamp`; mu held. (An older copy
 * than another thread's is caught by its check.) */
void
na_voh_install(struct na_voh *v, uint64_t tag, const uint8_t *data,
	       uint64_t stamp)
{
	struct voh_entry *e = na_voh_entry(v, tag, true);

	memcpy(e->data, data, v->bs);
	e->valid = true;
	e->tag = tag;
	e->stamp = stamp;
	e->fetched_ns = na_now_ns();
	e->used = ++v->tick;
}

void
na_voh_drop(struct na_voh *v, uint64_t tag)
{
	struct voh_entry *e = na_voh_entry(v, tag, false);

	if (e)
		e->valid = false;
}
