/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Shadow node; see na_shadow.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "na_msg.h"
#include "na_shadow.h"
#include "topo.h"

int
na_shadow_init(struct na_shadow *s, const struct topo *t, uint16_t self)
{
	memset(s, 0, sizeof(*s));
	s->self = self;
	lcf_pipeline_config_from_topo(t, &s->pc);
	s->capacity = (uint64_t)s->pc.ways * s->pc.slots_per_way;
	s->epoch = 1;
	if (s->capacity > NA_SHADOW_MAX_MIRROR)
		return 0;
	s->t = calloc(s->capacity, sizeof(*s->t));
	s->order = calloc(s->capacity, sizeof(*s->order));
	if (!s->t || !s->order) {
		na_shadow_fini(s);
		return -ENOMEM;
	}
	return 0;
}

void
na_shadow_fini(struct na_shadow *s)
{
	free(s->t);
	free(s->order);
	memset(s, 0, sizeof(*s));
}

static struct na_shadow_ent *
at(struct na_shadow *s, uint32_t way, uint64_t tag)
{
	return &s->t[(size_t)way * s->pc.slots_per_way +
		     lcf_pipeline_slot(&s->pc, way, tag)];
}

/* The entry holding `tag`, or NULL. */
static struct na_shadow_ent *
find(struct na_shadow *s, uint64_t tag)
{
	for (uint32_t w = 0; s->t && w < s->pc.ways; w++) {
		struct na_shadow_ent *e = at(s, w, tag);

		if (e->tag == (tag | NA_SHADOW_VALID))
			return e;
	}
	return NULL;
}

void
na_shadow_forget(struct na_shadow *s, uint64_t tag)
{
	struct na_shadow_ent *e = find(s, tag);

	if (!e)
		return;
	memset(e, 0, sizeof(*e));
	s->n_tags--;
	s->st.forgotten++;
}

void
na_shadow_migrate_ack(struct na_shadow *s, const struct lcf_msg *m)
{
	uint8_t orig = na_aux_orig_type(m->aux);
	uint32_t way = (m->aux >> 16) & 0xff;
	struct na_shadow_ent *e;

	if (m->flags & LCF_F_FAIL) {
		s->st.add_failures++; /* the home reports it: NA_COLLISION */
		return;
	}
	if (!s->t || way >= s->pc.ways)
		return;
	e = at(s, way, m->tag);
	if (orig == LCF_T_ADD_TO_SWITCH) {
		if (e->tag == (m->tag | NA_SHADOW_VALID))
			return; /* a duplicate ADD */
		if (e->tag)
			s->st.mirror_conflicts++;
		else
			s->n_tags++;
		*e = (struct na_shadow_ent){ .tag = m->tag | NA_SHADOW_VALID,
					     .added_epoch = s->epoch };
		if (s->n_tags > s->peak_tags)
			s->peak_tags = s->n_tags;
		s->st.adds++;
	} else if (orig == LCF_T_REMOVE_FROM_SWITCH &&
		   e->tag == (m->tag | NA_SHADOW_VALID)) {
		memset(e, 0, sizeof(*e));
		s->n_tags--;
		s->st.removes++;
	}
}

void
na_shadow_report(struct na_shadow *s, const struct lcf_msg *m, const uint8_t *p,
		 uint16_t len)
{
	(void)m;
	s->st.reports++;
	for (uint16_t off = 0; off + 12 <= len; off += 12) {
		uint64_t tag = 0;
		uint32_t cnt = 0;
		struct na_shadow_ent *e;

		for (int k = 0; k < 8; k++)
			tag = tag << 8 | p[off + k];
		for (int k = 8; k < 12; k++)
			cnt = cnt << 8 | p[off + k];
		e = find(s, tag);
		if (e)
			e->cur += cnt;
		else
			s->st.unknown_reports++;
	}
}

/* Copies per epoch: the smoothed rate, or this epoch's if higher. */
static uint32_t
hotness(const struct na_shadow_ent *e)
{
	uint32_t rate = (e->score + NA_SHADOW_SCORE_ONE - 1) /
			NA_SHADOW_SCORE_ONE;

	return rate > e->cur ? rate : e->cur;
}

/* May the policy pick this entry? */
static bool
evictable(const struct na_shadow *s, const struct na_shadow_ent *e)
{
	return e->tag && !e->remove_epoch &&
	       s->epoch - e->added_epoch >= NA_SHADOW_YOUNG_EPOCHS;
}

/* Ask the block's home agent to send REMOVE_FROM_SWITCH. */
static void
request_remove(struct na_shadow *s, struct na_shadow_ent *e, struct na_out *out)
{
	uint64_t tag = e->tag & ~NA_SHADOW_VALID;
	uint16_t home = (uint16_t)(tag >> (48 - s->pc.block_shift));
	struct lcf_msg r;

	memset(&r, 0, sizeof(r));
	r.type = NA_MSG_REMOVE_REQ;
	r.node = s->self;
	r.seq = ++s->seq;
	r.tag = tag;
	r.dst_node = home;
	r.aux = hotness(e);
	na_out_push(out, home, &r, NULL);
	e->remove_epoch = s->epoch;
	s->st.remove_requests++;
}

void
na_shadow_collision(struct na_shadow *s, const struct lcf_msg *m,
		    struct na_out *out)
{
	struct na_shadow_ent *coldest = NULL;

	s->st.collisions++;
	for (uint32_t w = 0; s->t && w < s->pc.ways; w++) {
		struct na_shadow_ent *e = at(s, w, m->tag);

		if (evictable(s, e) &&
		    (!coldest || hotness(e) < hotness(coldest)))
			coldest = e;
	}
	/*
	 * m->aux: the newcomer's hotness in its home's last epoch. Hysteresis
	 * (twice as hot): one epoch's count is noisy, and a swap costs both
	 * blocks a migration.
	 */
	if (!coldest || m->aux <= 2 * hotness(coldest) + 1) {
		s->st.collision_kept++;
		return;
	}
	request_remove(s, coldest, out);
	s->st.collision_evictions++;
}

void
na_shadow_epoch(struct na_shadow *s, struct na_out *out)
{
	uint64_t high = s->capacity * NA_SHADOW_HIGH_PCT / 100;
	uint64_t low = s->capacity * NA_SHADOW_LOW_PCT / 100;
	uint32_t n = 0, want;

	if (!s->t)
		return;
	s->epoch++;
	for (uint64_t i = 0; i < s->capacity; i++) {
		struct na_shadow_ent *e = &s->t[i];

		if (!e->tag)
			continue;
		/* EWMA, weight 1/4, fixed point: steady state = rate x ONE */
		e->score = e->score - (e->score + 3) / 4 +
			   e->cur * NA_SHADOW_SCORE_ONE / 4;
		e->cur = 0;
		if (e->remove_epoch &&
		    s->epoch - e->remove_epoch >= NA_SHADOW_RETRY_EPOCHS)
			e->remove_epoch = 0; /* lost, or the home refused */
		if (evictable(s, e) && !hotness(e))
			s->order[n++] = i;
	}
	if (s->n_tags < high || !n)
		return;
	want = s->n_tags - (uint32_t)low;
	if (want > n)
		want = n;
	if (want > NA_OUT_MAX - out->n)
		want = NA_OUT_MAX - out->n; /* the rest next epoch */
	for (uint32_t j = 0; j < want; j++) {
		request_remove(s, &s->t[s->order[j]], out);
		s->st.pressure_evictions++;
	}
}
