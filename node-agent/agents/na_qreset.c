/* SPDX-License-Identifier: BSD-3-Clause
 *
 * A node's queue holders after a fault (na_qtable.h, docs/FAULTS.md;
 * lib/model/qfault.pml): the rows of blocks a recovery round rebuilt
 * without locks, and the rows naming a node declared dead. Internal to
 * na_qtable; pure.
 */
#include <errno.h>

#include "na_qslot.h"
#include "na_qtable.h"

/* The row's tenure ended with the state that granted it: free the slot
 * (its gone records and passing role with it); an ending row's unlock is
 * acknowledged, as an approval would. */
static void
reset_slot(struct na_qtable *qt, struct na_qslot *s, struct na_qlocals *loc)
{
	struct na_qacts a = { 0 };
	enum na_qh_state before = s->h.st;

	s->h.st = NA_QH_IDLE;
	na_qslot_emit(qt, s, before, &a, NULL, loc);
	s->used = false;
	s->passing = false;
	qt->st.fault_resets++;
}

static bool
tag_in(const uint64_t *tags, uint32_t n, uint64_t tag)
{
	for (uint32_t i = 0; i < n; i++)
		if (tags[i] == tag)
			return true;
	return false;
}

/* Room in `loc` for one more reset (an UNLOCK_ACK at most). */
static bool
room(const struct na_qlocals *loc)
{
	return loc->n < NA_QT_LOCAL_MAX;
}

int
na_qtable_recovered(struct na_qtable *qt, const uint64_t *tags, uint32_t n,
		    struct na_qlocals *loc)
{
	for (uint32_t i = 0; i < NA_QT_SLOTS; i++) {
		struct na_qslot *s = &qt->s[i];

		if (!s->used || !tag_in(tags, n, s->tag))
			continue;
		if (!room(loc))
			return 1;
		reset_slot(qt, s, loc);
	}
	return 0;
}

/* Drop the Q_GRANTs to dead nodes from `a`. */
static void
drop_grants(const struct na_qtable *qt, struct na_qacts *a)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < a->n; i++)
		if (a->a[i].kind != NA_QA_QGRANT ||
		    !(qt->dead >> a->a[i].req.node & 1))
			a->a[k++] = a->a[i];
	a->n = k;
}

void
na_qslot_settle_dead(struct na_qtable *qt, struct na_qslot *s,
		     struct na_qacts *a)
{
	struct na_qfifo *q = &s->h.q;

	if (!qt->dead || !s->used)
		return;
	if (a)
		drop_grants(qt, a);
	/* Never hand a tenure to a dead node's event: the hand-over
	 * ends here (the switch evicted the block its tenure locked, or the
	 * home drains it; docs/FAULTS.md 2). */
	if (s->h.st == NA_QH_GIVING && (qt->dead >> s->h.next_e.node & 1)) {
		s->h.st = NA_QH_IDLE;
		na_qfifo_init(q, q->order, s->h.node, s->h.thread, s->h.seq);
		qt->st.dead_dropped++;
		return;
	}
	if (s->h.st == NA_QH_IDLE || s->h.st == NA_QH_GIVING)
		return;
	/* ... nor queue one: its entries leave the queue (the count of
	 * indices received stays, as the switch counted them). */
	for (uint32_t k = q->n; k-- > 0;)
		if (qt->dead >> q->e[k].node & 1) {
			na_qfifo_remove(q, q->e[k].node, q->e[k].thread,
					q->e[k].seq);
			qt->st.dead_dropped++;
		}
}

void
na_qtable_node_rejoined(struct na_qtable *qt, uint16_t node)
{
	if (node < LCF_MAX_NODES)
		qt->dead &= ~(1u << node);
}

int
na_qtable_node_failed(struct na_qtable *qt, uint16_t node,
		      struct na_qlocals *loc)
{
	if (node >= LCF_MAX_NODES || node == qt->self)
		return -EINVAL;
	qt->dead |= 1u << node;
	for (uint32_t i = 0; i < NA_QT_SLOTS; i++) {
		struct na_qslot *s = &qt->s[i];

		if (!s->used)
			continue;
		if (qt->home_of(qt->home_ctx, s->tag) == node) {
			/* Its home is gone, and with it the block. */
			if (!room(loc))
				return 1;
			reset_slot(qt, s, loc);
			continue;
		}
		na_qslot_settle_dead(qt, s, NULL);
		na_qslot_free_passing(s);
	}
	return 0;
}
