/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Shadow node; see na_shadow.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "na_msg.h"
#include "na_shadow.h"

int
na_shadow_init(struct na_shadow *s)
{
	memset(s, 0, sizeof(*s));
	s->t = calloc(NA_SHADOW_SLOTS, sizeof(*s->t));
	return s->t ? 0 : -ENOMEM;
}

void
na_shadow_fini(struct na_shadow *s)
{
	free(s->t);
	memset(s, 0, sizeof(*s));
}

/* The slot of `tag`, or the empty slot where it would go (NULL when full). */
static struct na_shadow_ent *
slot(struct na_shadow *s, uint64_t tag)
{
	uint32_t i = (uint32_t)((tag * 0x9e3779b97f4a7c15ull) >> 48);

	for (uint32_t n = 0; n < NA_SHADOW_SLOTS; n++) {
		struct na_shadow_ent *e = &s->t[(i + n) & (NA_SHADOW_SLOTS - 1)];

		if (e->tag == tag + 1 || e->tag == 0)
			return e;
	}
	return NULL;
}

void
na_shadow_migrate_ack(struct na_shadow *s, const struct lcf_msg *m)
{
	struct na_shadow_ent *e;
	uint8_t orig = na_aux_orig_type(m->aux);

	if (m->flags & LCF_F_FAIL)
		return;         /* collision: nothing was installed */
	if (orig == LCF_T_ADD_TO_SWITCH) {
		e = slot(s, m->tag);
		if (e && e->tag == 0) {
			e->tag = m->tag + 1;
			e->hot = 0;
			s->n_tags++;
			s->adds++;
		}
	} else if (orig == LCF_T_REMOVE_FROM_SWITCH) {
		/* Removal by tombstone-free marking: keep the slot, zero it. */
		e = slot(s, m->tag);
		if (e && e->tag == m->tag + 1) {
			e->hot = 0;
			s->removes++;
		}
	}
}

void
na_shadow_report(struct na_shadow *s, const struct lcf_msg *m,
		 const uint8_t *p, uint16_t len)
{
	(void)m;
	s->reports++;
	for (uint16_t off = 0; off + 12 <= len; off += 12) {
		uint64_t tag = 0;
		uint32_t cnt = 0;
		struct na_shadow_ent *e;

		for (int k = 0; k < 8; k++)
			tag = tag << 8 | p[off + k];
		for (int k = 8; k < 12; k++)
			cnt = cnt << 8 | p[off + k];
		e = slot(s, tag);
		if (e && e->tag == tag + 1)
			e->hot += cnt;
		else
			s->unknown_reports++;
	}
}
