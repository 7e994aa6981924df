/* SPDX-License-Identifier: BSD-3-Clause
 *
 * A node's queue holders and their wire side (na_qtable.h,
 * docs/QUEUED-LOCKS.md 5-6).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lcf_qlock.h"
#include "na_msg.h"
#include "na_qtable.h"

int
na_qtable_init(struct na_qtable *qt, uint16_t self, uint64_t rtt,
	       uint16_t (*home_of)(const void *ctx, uint64_t tag),
	       const void *ctx)
{
	memset(qt, 0, sizeof(*qt));
	qt->self = self;
	qt->rtt = rtt;
	qt->home_of = home_of;
	qt->home_ctx = ctx;
	qt->s = calloc(NA_QT_SLOTS, sizeof(*qt->s));
	return qt->s ? 0 : -ENOMEM;
}

void
na_qtable_fini(struct na_qtable *qt)
{
	free(qt->s);
	qt->s = NULL;
}

/* The slot of (tag, thread): one holder per block and requester thread. */
static struct na_qslot *
find(struct na_qtable *qt, uint64_t tag, uint16_t thread)
{
	for (uint32_t i = 0; i < NA_QT_SLOTS; i++)
		if (qt->s[i].used && qt->s[i].tag == tag &&
		    qt->s[i].h.thread == thread)
			return &qt->s[i];
	return NULL;
}

/* (tag, thread)'s slot, or the least recently used idle one made it. */
static struct na_qslot *
slot_for(struct na_qtable *qt, uint64_t tag, uint16_t thread, uint64_t now)
{
	struct na_qslot *s = find(qt, tag, thread), *best = NULL;

	if (s)
		return s;
	for (uint32_t i = 0; i < NA_QT_SLOTS; i++) {
		s = &qt->s[i];
		if (s->used && s->h.st != NA_QH_IDLE)
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

/* A message about request `e` to its node. */
static void
to_requester(struct na_out *out, uint8_t type, uint64_t tag,
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

/* Turn a holder's actions into messages and local deliveries. */
static void
emit(struct na_qtable *qt, struct na_qslot *s, enum na_qh_state before,
     const struct na_qacts *a, struct na_out *out, struct na_qlocals *loc)
{
	const struct na_qholder *h = &s->h;

	for (uint32_t i = 0; i < a->n; i++) {
		const struct na_qact *x = &a->a[i];
		struct lcf_msg m = { .version = LCF_VERSION };

		switch (x->kind) {
		case NA_QA_QUEUED:
			to_requester(out, NA_MSG_Q_QUEUED, s->tag, &x->req,
				     x->aux);
			qt->st.queued_sent++;
			break;
		case NA_QA_QNACK:
			to_requester(out, NA_MSG_Q_NACK, s->tag, &x->req, 0);
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

static void
cancel(struct na_qslot *s, uint16_t thread, uint32_t seq)
{
	if (na_qholder_cancel(&s->h, thread, seq) == 0) {
		s->gone = true;
		s->gone_thread = thread;
		s->gone_seq = seq;
	}
}

int
na_qtable_request(struct na_qtable *qt, uint64_t tag, uint16_t thread,
		  uint32_t seq, uint64_t now, struct na_out *out,
		  struct na_qlocals *loc)
{
	struct na_qslot *s = slot_for(qt, tag, thread, now);

	if (!s) {
		qt->st.no_slot++;
		return -ENOSPC;
	}
	s->last = now;
	if (s->h.seq != seq)
		na_qtable_abandon(qt, tag, thread, s->h.seq, now, out, loc);
	else if (s->h.st == NA_QH_WAIT || s->h.st == NA_QH_HOLD)
		return 0; /* retried; HOLD: its Q_GRANT came meanwhile */
	return na_qholder_request(&s->h, thread, seq);
}

int
na_qtable_switch_granted(struct na_qtable *qt, uint64_t tag, uint16_t thread,
			 uint32_t seq)
{
	struct na_qslot *s = find(qt, tag, thread);

	return s && na_qholder_switch_granted(&s->h, thread, seq) == 0 ? 0
								       : -ESRCH;
}

void
na_qtable_cancel(struct na_qtable *qt, uint64_t tag, uint16_t thread,
		 uint32_t seq)
{
	struct na_qslot *s = find(qt, tag, thread);

	if (s)
		cancel(s, thread, seq);
}

void
na_qtable_abandon(struct na_qtable *qt, uint64_t tag, uint16_t thread,
		  uint32_t seq, uint64_t now, struct na_out *out,
		  struct na_qlocals *loc)
{
	struct na_qslot *s = find(qt, tag, thread);
	struct na_qacts a = { 0 };

	if (!s || s->h.seq != seq)
		return;
	if (s->h.st == NA_QH_WAIT && na_qfifo_count(&s->h.q) == 0) {
		qt->st.abandoned_waits++;
		cancel(s, thread, seq);
	} else if (s->h.st == NA_QH_HOLD) {
		qt->st.abandoned_holds++;
		na_qholder_done(&s->h, s->h.gstatus, s->h.copyset, now, &a);
		emit(qt, s, NA_QH_HOLD, &a, out, loc);
	}
}

int
na_qtable_done(struct na_qtable *qt, uint64_t tag, uint16_t thread,
	       uint32_t seq, uint8_t gs, uint32_t cs, uint64_t now,
	       struct na_out *out, struct na_qlocals *loc)
{
	struct na_qslot *s = find(qt, tag, thread);
	struct na_qacts a = { 0 };

	if (s && s->h.st == NA_QH_WAIT && s->h.seq == seq &&
	    na_qfifo_count(&s->h.q) > 0)
		/* Forwards came for it: a copy took the write lock (a NACKed
		 * request's, settled by na_req_quarantine): it holds. */
		na_qholder_switch_granted(&s->h, thread, seq);
	if (!s || s->h.st != NA_QH_HOLD || s->h.seq != seq)
		return -ESRCH;
	s->last = now;
	na_qholder_done(&s->h, gs, cs, now, &a);
	emit(qt, s, NA_QH_HOLD, &a, out, loc);
	return 0;
}

static void
qack(struct na_qtable *qt, struct na_qslot *s, const struct lcf_msg *m,
     uint64_t now, struct na_qacts *a)
{
	uint8_t reason = (uint8_t)(m->aux >> 16);
	bool xfer = na_aux_orig_type(m->aux) == LCF_T_QXFER;

	if (na_qholder_qack(&s->h, m->seq, reason, m->aux & LCF_Q_COUNT_MASK,
			    now, a) != 0) {
		qt->st.qack_ignored++;
		return;
	}
	if (reason == LCF_Q_OK || reason == LCF_Q_NOT_HOLDER) {
		if (xfer)
			qt->st.qxfer_approved++;
		else
			qt->st.qrelease_approved++;
	} else if (xfer) {
		qt->st.qxfer_denied++;
	} else {
		qt->st.qrelease_denied++;
	}
}

/*
 * A request of another thread of this node forwarded to this node's
 * tenure while it is still waiting: the tenure's event is a NACKed request
 * whose later copy the switch granted, and its thread cannot retry while
 * this one keeps the block busy locally (one event per block and node).
 * Queueing it would deadlock the two; the index is counted, the request
 * is not queued and gets a NACK (it backs off, the other thread retries).
 */
static bool
local_wait_forward(struct na_qtable *qt, struct na_qslot *s,
		   const struct na_qentry *e, const struct lcf_msg *m,
		   struct na_qacts *a, struct na_out *out)
{
	struct lcf_msg r;

	if (e->node != qt->self || e->thread == s->h.thread ||
	    s->h.st != NA_QH_WAIT || a->n == 0 || a->a[0].kind != NA_QA_QUEUED)
		return false;
	na_qfifo_remove(&s->h.q, e->node, e->thread, e->seq);
	na_reply_hdr(m, &r, NA_MSG_NACK);
	r.aux = na_aux_orig(m->type, qt->self);
	na_out_push(out, r.dst_node, &r, NULL);
	qt->st.local_nacks++;
	return true;
}

/* The slot handing its queue to the event Q_GRANT_ACK `m` is about. */
static struct na_qslot *
giver(struct na_qtable *qt, const struct lcf_msg *m)
{
	uint32_t id = lcf_q_id(m->node, m->thread, m->seq);

	for (uint32_t i = 0; i < NA_QT_SLOTS; i++)
		if (qt->s[i].used && qt->s[i].tag == m->tag &&
		    qt->s[i].h.st == NA_QH_GIVING && qt->s[i].h.next == id)
			return &qt->s[i];
	return NULL;
}

/* A Q_GRANT for the event cancelled last: take it, end it at once. */
static void
pass_on(struct na_qtable *qt, struct na_qslot *s, const struct lcf_msg *m,
	const void *payload, uint64_t now, struct na_out *out,
	struct na_qlocals *loc)
{
	struct na_qacts a = { 0 }, b = { 0 };

	s->gone = false;
	if (na_qholder_request(&s->h, m->thread, m->seq) != 0 ||
	    na_qholder_qgrant(&s->h, (uint16_t)(m->aux >> 16), m->thread,
			      m->seq, m->gstatus, m->copyset, payload, m->len,
			      now, &a) != 0) {
		na_qholder_cancel(&s->h, m->thread, m->seq);
		return;
	}
	for (uint32_t i = 0; i < a.n; i++)
		if (a.a[i].kind != NA_QA_GRANTED)
			b.a[b.n++] = a.a[i];
	qt->st.abandoned_holds++;
	s->last = now;
	emit(qt, s, NA_QH_WAIT, &b, out, loc);
	a.n = 0;
	na_qholder_done(&s->h, s->h.gstatus, s->h.copyset, now, &a);
	emit(qt, s, NA_QH_HOLD, &a, out, loc);
}

int
na_qtable_handle(struct na_qtable *qt, const struct lcf_msg *m,
		 const void *payload, uint64_t now, struct na_out *out,
		 struct na_qlocals *loc)
{
	struct na_qslot *s;
	struct na_qacts a = { 0 };
	enum na_qh_state before;

	if (na_qtable_is_forward(m))
		/* tenure = thread << 6 | seq & 0x3f (lcf_q_tenure) */
		s = find(qt, m->tag, (uint16_t)(m->aux >> 22));
	else if (m->type == NA_MSG_Q_GRANT_ACK)
		s = giver(qt, m);
	else
		s = find(qt, m->tag, m->thread);
	if (na_qtable_is_forward(m)) {
		struct na_qentry e = { .node = m->node,
				       .thread = m->thread,
				       .seq = m->seq,
				       .type = m->type };

		qt->st.forwards++;
		if (!s) {
			/* No tenure here at all: Q_NACK (not our own). */
			if (m->node != qt->self) {
				to_requester(out, NA_MSG_Q_NACK, m->tag, &e, 0);
				qt->st.qnack_sent++;
			}
			return 0;
		}
		before = s->h.st;
		na_qholder_forward(&s->h, &e, m->aux, now, &a);
		if (local_wait_forward(qt, s, &e, m, &a, out))
			return 0;
	} else if (m->type == LCF_T_QXFER_ACK) {
		if (!s || m->node != qt->self) {
			qt->st.qack_ignored++;
			return 0;
		}
		before = s->h.st;
		qack(qt, s, m, now, &a);
	} else if (m->type == NA_MSG_Q_GRANT) {
		qt->st.qgrant_recv++;
		if (!s) {
			/* Not waiting here: acknowledge, change nothing. */
			struct na_qentry e = { .node = qt->self,
					       .thread = m->thread,
					       .seq = m->seq };
			uint16_t giver = (uint16_t)(m->aux >> 16);

			m = &(struct lcf_msg){ .version = LCF_VERSION,
					       .type = NA_MSG_Q_GRANT_ACK,
					       .node = e.node,
					       .thread = e.thread,
					       .seq = e.seq,
					       .tag = m->tag,
					       .dst_node = giver };
			na_out_push(out, giver, m, NULL);
			return 0;
		}
		before = s->h.st;
		if (s->h.st == NA_QH_IDLE && s->gone &&
		    s->gone_thread == m->thread && s->gone_seq == m->seq) {
			pass_on(qt, s, m, payload, now, out, loc);
			return 0;
		}
		if (na_qholder_qgrant(&s->h, (uint16_t)(m->aux >> 16),
				      m->thread, m->seq, m->gstatus, m->copyset,
				      payload, m->len, now, &a) != 0)
			return 0; /* malformed: not acknowledged */
	} else if (m->type == NA_MSG_Q_GRANT_ACK) {
		if (!s)
			return 0;
		before = s->h.st;
		if (na_qholder_qgrant_ack(&s->h, m->node, m->thread, m->seq,
					  now, &a) == 0)
			qt->st.qgrant_ack_recv++;
	} else {
		return -EINVAL;
	}
	s->last = now;
	emit(qt, s, before, &a, out, loc);
	return 0;
}

void
na_qtable_tick(struct na_qtable *qt, uint64_t now, struct na_out *out,
	       struct na_qlocals *loc)
{
	for (uint32_t i = 0; i < NA_QT_SLOTS; i++) {
		struct na_qslot *s = &qt->s[i];
		struct na_qacts a = { 0 };
		enum na_qh_state before = s->h.st;

		if (!s->used || na_qholder_next_timer(&s->h) > now)
			continue;
		na_qholder_tick(&s->h, now, &a);
		emit(qt, s, before, &a, out, loc);
	}
}
