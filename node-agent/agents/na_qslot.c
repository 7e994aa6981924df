/* SPDX-License-Identifier: BSD-3-Clause
 *
 * A node's queue-holder slots (na_qtable.h): finding and making them,
 * turning a holder's actions into messages and local deliveries, and the
 * passing slots of given-up seqs (at the end). Internal to na_qtable.c;
 * pure.
 */
#include <errno.h>
#include <string.h>

#include "lcf_qlock.h"
#include "na_msg.h"
#include "na_qslot.h"

struct na_qslot *
na_qslot_new(struct na_qtable *qt, uint64_t tag, uint16_t thread, uint64_t now,
	     const struct na_qslot *keep)
{
	struct na_qslot *s, *best = NULL;

	for (uint32_t i = 0; i < NA_QT_SLOTS; i++) {
		s = &qt->s[i];
		if (s == keep || (s->used && s->h.st != NA_QH_IDLE))
			continue;
		if (!best || !s->used || (best->used && s->last < best->last))
			best = s;
		if (!s->used)
			break;
	}
	if (!best)
		return NULL;
	memset(best, 0, sizeof(*best) - sizeof(best->h));
	best->used = true;
	best->tag = tag;
	best->last = now;
	na_qholder_init(&best->h, NA_QORDER_FIFO, qt->self, qt->rtt);
	best->h.thread = thread;
	return best;
}

struct na_qslot *
na_qslot_for(struct na_qtable *qt, uint64_t tag, uint16_t thread, uint64_t now)
{
	struct na_qslot *s = na_qslot_find(qt, tag, thread);

	return s ? s : na_qslot_new(qt, tag, thread, now, NULL);
}

static void
local(struct na_qlocals *loc, uint16_t thread, uint8_t type, uint64_t tag,
      uint16_t self, uint32_t seq)
{
	struct na_qlocal *l;

	if (loc->n == NA_QT_LOCAL_MAX)
		return; /* not reached: at most 2 per input */
	l = &loc->l[loc->n++];
	memset(l, 0, sizeof(*l));
	l->thread = thread;
	l->m.version = LCF_VERSION;
	l->m.type = type;
	l->m.node = self;
	l->m.thread = thread;
	l->m.seq = seq;
	l->m.tag = tag;
	l->m.dst_node = self;
}

void
na_qslot_to_requester(struct na_out *out, uint8_t type, uint64_t tag,
		      const struct na_qentry *e, uint32_t aux)
{
	struct lcf_msg m = { .version = LCF_VERSION };

	m.type = type;
	m.node = e->node;
	m.thread = e->thread;
	m.seq = e->seq;
	m.tag = tag;
	m.dst_node = e->node;
	m.aux = aux;
	na_out_push(out, e->node, &m, NULL);
}

void
na_qslot_emit(struct na_qtable *qt, struct na_qslot *s, enum na_qh_state before,
	      const struct na_qacts *a, struct na_out *out,
	      struct na_qlocals *loc)
{
	const struct na_qholder *h = &s->h;

	for (uint32_t i = 0; i < a->n; i++) {
		const struct na_qact *x = &a->a[i];
		struct lcf_msg m = { .version = LCF_VERSION };

		switch (x->kind) {
		case NA_QA_QUEUED:
			na_qslot_to_requester(out, NA_MSG_Q_QUEUED, s->tag,
					      &x->req, x->aux);
			qt->st.queued_sent++;
			break;
		case NA_QA_QNACK:
			na_qslot_to_requester(out, NA_MSG_Q_NACK, s->tag,
					      &x->req, 0);
			qt->st.qnack_sent++;
			break;
		case NA_QA_QXFER:
		case NA_QA_QRELEASE:
			m.type = x->kind == NA_QA_QXFER ? LCF_T_QXFER
							: LCF_T_QRELEASE;
			m.node = qt->self;
			m.thread = x->req.thread;
			m.seq = x->req.seq;
			m.tag = s->tag;
			m.aux = x->count & LCF_Q_COUNT_MASK;
			if (x->kind == NA_QA_QXFER) {
				m.copyset = x->next;
				qt->st.qxfer_sent++;
			} else {
				m.gstatus = x->gstatus;
				m.copyset = x->copyset;
				qt->st.qrelease_sent++;
			}
			m.dst_node = qt->home_of(qt->home_ctx, s->tag);
			na_out_push(out, m.dst_node, &m, NULL);
			break;
		case NA_QA_QGRANT:
			m.type = NA_MSG_Q_GRANT;
			m.node = x->req.node;
			m.thread = x->req.thread;
			m.seq = x->req.seq;
			m.tag = s->tag;
			m.gstatus = x->gstatus;
			m.copyset = x->copyset;
			m.aux = x->aux;
			m.len = (uint16_t)x->payload_len;
			m.dst_node = x->req.node;
			na_out_push(out, m.dst_node, &m, x->payload);
			qt->st.qgrant_sent++;
			break;
		case NA_QA_QGRANT_ACK:
			m.type = NA_MSG_Q_GRANT_ACK;
			m.node = x->req.node;
			m.thread = x->req.thread;
			m.seq = x->req.seq;
			m.tag = s->tag;
			m.dst_node = x->dst;
			na_out_push(out, x->dst, &m, NULL);
			break;
		case NA_QA_GRANTED:
			local(loc, x->req.thread, NA_MSG_Q_GRANT, s->tag,
			      qt->self, x->req.seq);
			loc->l[loc->n - 1].m.gstatus = x->gstatus;
			loc->l[loc->n - 1].m.copyset = x->copyset;
			qt->st.qgrant_taken++;
			break;
		case NA_QA_LOST:
			qt->st.lost_declared += x->n;
			break;
		case NA_QA_WAIT:
			qt->st.count_waits++;
			break;
		case NA_QA_OVER:
			break;
		}
	}
	/* QXFER/QRELEASE approved: the event is over for its requester. */
	if (before == NA_QH_ENDING && h->st != NA_QH_ENDING)
		local(loc, h->thread, LCF_T_UNLOCK_ACK, s->tag, qt->self,
		      h->seq);
}

/* ---- given-up seqs and passing slots ------------------------------------ */

/*
 * Given-up seqs and passing slots (docs/QUEUED-LOCKS.md 5 "Giving a
 * request up"; lib/model/qlock-threads.pml rule 2, PH): a tenure
 * of a seq given up on a thread's slot (its `gone` records) is held by a
 * slot of its own, so that the thread's next event may wait on its own
 * slot meanwhile. It buffers the forwards for that tenure that arrive
 * before the grant (WAIT), takes the grant (a Q_GRANT, or the switch's
 * QGRANT) and ends the tenure at once (QXFER to the head, often the
 * thread's next event, or QRELEASE); freed when idle.
 */

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

/*
 * A grant for an event that is over (lib/model/qtag.pml PHANTOM): ended
 * by QRELEASE only. A QXFER's not_holder counts as approved, so one taken
 * from a duplicate would send Q_GRANTs; a QRELEASE makes no holder,
 * whatever the answer, and the waiters retry (na_qslot_nack_queue).
 */
static bool
seq_tenure(const struct na_qtable *qt, uint64_t tag, uint16_t thread,
	   uint32_t seq)
{
	for (uint32_t i = 0; i < NA_QT_SLOTS; i++) {
		const struct na_qslot *p = &qt->s[i];

		if (p->used && p->tag == tag && p->h.thread == thread &&
		    p->h.seq == seq &&
		    (p->h.st == NA_QH_HOLD || p->h.st == NA_QH_ENDING ||
		     p->h.st == NA_QH_GIVING))
			return true;
	}
	return false;
}

void
na_qslot_take_over(struct na_qtable *qt, const struct lcf_msg *m,
		   const void *payload, uint64_t now, struct na_out *out,
		   struct na_qlocals *loc)
{
	struct na_qacts a = { 0 }, b = { 0 };
	struct na_qslot *p;

	if (seq_tenure(qt, m->tag, m->thread, m->seq)) {
		/* A duplicate, or a second hand-over racing that tenure's own
		 * end: taken once it is over. */
		qt->st.qgrant_deferred++;
		return;
	}
	p = na_qslot_new(qt, m->tag, m->thread, now,
			 na_qslot_find(qt, m->tag, m->thread));
	if (!p) {
		qt->st.no_slot++;
		return;
	}
	p->passing = true;
	na_qholder_request(&p->h, m->thread, m->seq);
	p->h.release_only = true;
	if (na_qholder_qgrant(&p->h, (uint16_t)(m->aux >> 16), m->thread,
			      m->seq, m->gstatus, m->copyset, payload, m->len,
			      now, &a) != 0) {
		na_qholder_cancel(&p->h, m->thread, m->seq);
		na_qslot_free_passing(p);
		return; /* malformed: not acknowledged */
	}
	for (uint32_t i = 0; i < a.n; i++)
		if (a.a[i].kind != NA_QA_GRANTED)
			b.a[b.n++] = a.a[i];
	qt->st.qgrant_over++;
	na_qslot_emit(qt, p, NA_QH_WAIT, &b, out, loc);
	a.n = 0;
	na_qholder_done(&p->h, p->h.gstatus, p->h.copyset, now, &a);
	na_qslot_emit(qt, p, NA_QH_HOLD, &a, out, loc);
}

void
na_qslot_nack_queue(struct na_qtable *qt, const struct na_qslot *s,
		    struct na_out *out)
{
	for (uint32_t i = 0; i < s->h.q.n; i++)
		if (s->h.q.e[i].node != qt->self) {
			na_qslot_to_requester(out, NA_MSG_Q_NACK, s->tag,
					      &s->h.q.e[i], 0);
			qt->st.qnack_sent++;
		}
}
