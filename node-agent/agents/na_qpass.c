/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Given-up seqs and passing slots (na_qslot.h; docs/QUEUED-LOCKS.md 5
 * "Giving a request up"; lib/model/qlock-threads.pml rule 2, PH): a tenure
 * of a seq given up on a thread's slot (its `gone` records) is held by a
 * slot of its own, so that the thread's next event may wait on its own
 * slot meanwhile. It buffers the forwards for that tenure that arrive
 * before the grant (WAIT), takes the grant (a Q_GRANT, or the switch's
 * QGRANT) and ends the tenure at once (QXFER to the head, often the
 * thread's next event, or QRELEASE); freed when idle. Internal to
 * na_qtable; pure.
 */
#include <errno.h>

#include "na_qslot.h"

int
na_qslot_gone_find(const struct na_qslot *s, uint32_t seq)
{
	for (int i = 0; i < NA_QT_GONE; i++)
		if ((s->gone >> i & 1) && s->gone_seq[i] == seq)
			return i;
	return -1;
}

void
na_qslot_gone_del(struct na_qslot *s, uint32_t seq)
{
	int i = na_qslot_gone_find(s, seq);

	if (i >= 0)
		s->gone &= (uint8_t) ~(1u << i);
}

void
na_qslot_cancel(struct na_qslot *s, uint16_t thread, uint32_t seq)
{
	uint32_t i = 0;

	if (na_qholder_cancel(&s->h, thread, seq) != 0)
		return;
	s->kept = false;
	s->swait = false;
	s->poll = false;
	while (i < NA_QT_GONE && (s->gone >> i & 1))
		i++;
	if (i == NA_QT_GONE) {
		i = s->gone_next;
		s->gone_next = (uint8_t)((i + 1) % NA_QT_GONE);
	}
	s->gone |= (uint8_t)(1u << i);
	s->gone_seq[i] = seq;
}

struct na_qslot *
na_qslot_passing(struct na_qtable *qt, uint64_t tag, uint16_t thread,
		 uint32_t seq)
{
	for (uint32_t i = 0; i < NA_QT_SLOTS; i++) {
		struct na_qslot *p = &qt->s[i];

		if (p->used && p->passing && p->tag == tag &&
		    p->h.thread == thread && p->h.seq == seq &&
		    p->h.st != NA_QH_IDLE)
			return p;
	}
	return NULL;
}

struct na_qslot *
na_qslot_new_passing(struct na_qtable *qt, struct na_qslot *s, uint32_t seq,
		     uint64_t now)
{
	struct na_qslot *p = na_qslot_new(qt, s->tag, s->h.thread, now, s);

	if (!p) {
		qt->st.no_slot++;
		return NULL;
	}
	p->passing = true;
	na_qholder_request(&p->h, s->h.thread, seq);
	return p;
}

void
na_qslot_free_passing(struct na_qslot *p)
{
	if (p->passing && p->h.st == NA_QH_IDLE) {
		p->used = false;
		p->passing = false;
	}
}

int
na_qslot_take_end(struct na_qtable *qt, struct na_qslot *p,
		  const struct lcf_msg *m, const void *payload, bool ack,
		  uint64_t now, struct na_out *out, struct na_qlocals *loc)
{
	struct na_qacts a = { 0 }, b = { 0 };
	struct na_qslot *own;

	if (na_qholder_qgrant(&p->h, (uint16_t)(m->aux >> 16), m->thread,
			      m->seq, m->gstatus, m->copyset, payload, m->len,
			      now, &a) != 0)
		return -EINVAL;
	for (uint32_t i = 0; i < a.n; i++)
		if (a.a[i].kind != NA_QA_GRANTED &&
		    (ack || a.a[i].kind != NA_QA_QGRANT_ACK))
			b.a[b.n++] = a.a[i];
	qt->st.abandoned_holds++;
	p->last = now;
	p->swait = false;
	p->poll = false;
	own = p->passing ? na_qslot_find(qt, p->tag, p->h.thread) : p;
	if (own)
		own->passed = m->seq; /* na_qtable_holds */
	na_qslot_emit(qt, p, NA_QH_WAIT, &b, out, loc);
	a.n = 0;
	na_qholder_done(&p->h, p->h.gstatus, p->h.copyset, now, &a);
	na_qslot_emit(qt, p, NA_QH_HOLD, &a, out, loc);
	return 0;
}

void
na_qslot_pass_on(struct na_qtable *qt, struct na_qslot *s,
		 const struct lcf_msg *m, const void *payload, bool ack,
		 uint64_t now, struct na_out *out, struct na_qlocals *loc)
{
	struct na_qslot *p = na_qslot_passing(qt, m->tag, m->thread, m->seq);

	if (!p)
		p = na_qslot_new_passing(qt, s, m->seq, now);
	if (!p)
		return;
	if (na_qslot_take_end(qt, p, m, payload, ack, now, out, loc) != 0) {
		if (na_qfifo_count(&p->h.q) == 0) {
			na_qholder_cancel(&p->h, m->thread, m->seq);
			na_qslot_free_passing(p);
		}
		return; /* malformed: not acknowledged */
	}
	na_qslot_gone_del(s, m->seq);
}
