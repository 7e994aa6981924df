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
#include "na_qslot.h"
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

/*
 * Passing slots (docs/QUEUED-LOCKS.md 5 "Giving a request up";
 * lib/model/qlock-threads.pml rule 2, PH): a tenure of a seq given up on
 * a thread's slot (its `gone` records) is held by a slot of its own, so
 * that the thread's next event may wait on its own slot meanwhile. It
 * buffers the forwards for that tenure that arrive before the Q_GRANT
 * (WAIT), takes the Q_GRANT and ends the tenure at once (QXFER to the
 * head, often the thread's next event, or QRELEASE); freed when idle.
 */
static bool
holds(const struct na_qholder *h, uint16_t tenure)
{
	return (h->st == NA_QH_WAIT || h->st == NA_QH_HOLD ||
		h->st == NA_QH_ENDING) &&
	       lcf_q_tenure(h->id) == tenure;
}

/* Is `tenure` the tenure of a seq given up on slot `s` (`seq`), which
 * does not hold it? */
static bool
gone_tenure(const struct na_qtable *qt, const struct na_qslot *s,
	    uint16_t tenure, uint32_t *seq)
{
	if (holds(&s->h, tenure))
		return false;
	for (int i = 0; i < NA_QT_GONE; i++)
		if ((s->gone >> i & 1) &&
		    lcf_q_tenure(lcf_q_id(qt->self, s->h.thread,
					  s->gone_seq[i])) == tenure) {
			*seq = s->gone_seq[i];
			return true;
		}
	return false;
}

/* The slot a forward to (tag, thread)'s `tenure` goes to: the passing
 * slot holding it, a new one for the given-up seq's tenure, else the
 * thread's own slot (NULL: none). */
static struct na_qslot *
forward_slot(struct na_qtable *qt, uint64_t tag, uint16_t thread,
	     uint16_t tenure, uint64_t now)
{
	struct na_qslot *s = na_qslot_find(qt, tag, thread);
	uint32_t seq;

	for (uint32_t i = 0; i < NA_QT_SLOTS; i++) {
		struct na_qslot *p = &qt->s[i];

		if (p->used && p->passing && p->tag == tag &&
		    p->h.thread == thread && holds(&p->h, tenure))
			return p;
	}
	if (s && gone_tenure(qt, s, tenure, &seq))
		return na_qslot_new_passing(qt, s, seq, now);
	return s;
}

int
na_qtable_request(struct na_qtable *qt, uint64_t tag, uint16_t thread,
		  uint32_t seq, uint64_t now, struct na_out *out,
		  struct na_qlocals *loc)
{
	struct na_qslot *s = na_qslot_for(qt, tag, thread, now);

	if (!s) {
		qt->st.no_slot++;
		return -ENOSPC;
	}
	s->last = now;
	if (s->h.seq != seq)
		na_qtable_abandon(qt, tag, thread, s->h.seq, now, out, loc);
	else if (s->h.st == NA_QH_WAIT || s->h.st == NA_QH_HOLD)
		return 0; /* retried; HOLD: its Q_GRANT came meanwhile */
	if (na_qholder_request(&s->h, thread, seq) != 0)
		return -EBUSY;
	s->kept = false;
	s->swait = false;
	s->poll = false;
	return 0;
}

int
na_qtable_switch_granted(struct na_qtable *qt, uint64_t tag, uint16_t thread,
			 uint32_t seq)
{
	struct na_qslot *s = na_qslot_find(qt, tag, thread);

	return s && na_qholder_switch_granted(&s->h, thread, seq) == 0 ? 0
								       : -ESRCH;
}

void
na_qtable_cancel(struct na_qtable *qt, uint64_t tag, uint16_t thread,
		 uint32_t seq)
{
	struct na_qslot *s = na_qslot_find(qt, tag, thread);

	if (s)
		na_qslot_cancel(s, thread, seq);
}

void
na_qtable_abandon(struct na_qtable *qt, uint64_t tag, uint16_t thread,
		  uint32_t seq, uint64_t now, struct na_out *out,
		  struct na_qlocals *loc)
{
	struct na_qslot *s = na_qslot_find(qt, tag, thread);
	struct na_qacts a = { 0 };

	if (!s || s->h.seq != seq)
		return;
	if (s->h.st == NA_QH_WAIT && s->swait) {
		/* The switch's waiting writer: its QGRANT will come (the
		 * table polls for it) and ends the tenure in place. */
		qt->st.abandoned_waits++;
		s->kept = true;
		s->poll = true;
		s->poll_at = now;
	} else if (s->h.st == NA_QH_WAIT && na_qfifo_count(&s->h.q) == 0) {
		qt->st.abandoned_waits++;
		na_qslot_cancel(s, thread, seq);
	} else if (s->h.st == NA_QH_HOLD) {
		qt->st.abandoned_holds++;
		na_qholder_done(&s->h, s->h.gstatus, s->h.copyset, now, &a);
		na_qslot_emit(qt, s, NA_QH_HOLD, &a, out, loc);
	} else if (s->h.st == NA_QH_WAIT) {
		s->kept = true; /* forwards came for its tenure */
	}
}

int
na_qtable_done(struct na_qtable *qt, uint64_t tag, uint16_t thread,
	       uint32_t seq, uint8_t gs, uint32_t cs, uint64_t now,
	       struct na_out *out, struct na_qlocals *loc)
{
	struct na_qslot *s = na_qslot_find(qt, tag, thread);
	struct na_qslot *p = na_qslot_passing(qt, tag, thread, seq);
	struct na_qacts a = { 0 };

	if (s)
		na_qslot_gone_del(
			s, seq); /* its lock ends here: no Q_GRANT comes */
	if (p && p->h.st == NA_QH_WAIT)
		s = p; /* forwards came to its passing slot */
	if (s && s->h.st == NA_QH_WAIT && s->h.seq == seq &&
	    na_qfifo_count(&s->h.q) > 0)
		/* Forwards came for it: a copy took the write lock (a NACKed
		 * request's, settled by na_req_quarantine): it holds. */
		na_qholder_switch_granted(&s->h, thread, seq);
	if (s && s->h.seq == seq)
		s->kept = false;
	if (!s || s->h.st != NA_QH_HOLD || s->h.seq != seq)
		return -ESRCH;
	s->last = now;
	na_qholder_done(&s->h, gs, cs, now, &a);
	na_qslot_emit(qt, s, NA_QH_HOLD, &a, out, loc);
	na_qslot_free_passing(s);
	return 0;
}

static void
qack(struct na_qtable *qt, struct na_qslot *s, const struct lcf_msg *m,
     uint64_t now, struct na_out *out, struct na_qacts *a)
{
	uint8_t reason = (uint8_t)(m->aux >> 16);
	bool xfer = na_aux_orig_type(m->aux) == LCF_T_QXFER;

	/* A QRELEASE approved: forwards queued since it was sent (kept a
	 * QRELEASE, na_qholder.c choose_end) retry. */
	if (s->h.next == 0 && s->h.st == NA_QH_ENDING && m->seq == s->h.seq &&
	    (reason == LCF_Q_OK || reason == LCF_Q_NOT_HOLDER))
		na_qslot_nack_queue(qt, s, out);
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

	if (s->passing || e->node != qt->self || e->thread == s->h.thread ||
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

int
na_qtable_handle(struct na_qtable *qt, const struct lcf_msg *m,
		 const void *payload, uint64_t now, struct na_out *out,
		 struct na_qlocals *loc)
{
	struct na_qslot *s;
	struct na_qacts a = { 0 };
	enum na_qh_state before;

	if (m->type == LCF_T_QWAIT || m->type == LCF_T_QGRANT) {
		na_qwait_handle(qt, m, now, out, loc);
		return 0;
	}
	if (na_qtable_is_forward(m))
		/* tenure = thread << 6 | seq & 0x3f (lcf_q_tenure) */
		s = forward_slot(qt, m->tag, (uint16_t)(m->aux >> 22),
				 (uint16_t)(m->aux >> 16), now);
	else if (m->type == NA_MSG_Q_GRANT_ACK)
		s = giver(qt, m);
	else if (m->type != LCF_T_QXFER_ACK ||
		 !(s = na_qslot_passing(qt, m->tag, m->thread, m->seq)))
		/* a QXFER_ACK goes to the passing slot ending its tenure */
		s = na_qslot_find(qt, m->tag, m->thread);
	if (na_qtable_is_forward(m)) {
		struct na_qentry e = { .node = m->node,
				       .thread = m->thread,
				       .seq = m->seq,
				       .type = m->type };

		qt->st.forwards++;
		if (!s) {
			/* No tenure here at all: Q_NACK (not our own). */
			if (m->node != qt->self) {
				na_qslot_to_requester(out, NA_MSG_Q_NACK,
						      m->tag, &e, 0);
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
		qack(qt, s, m, now, out, &a);
	} else if (m->type == NA_MSG_Q_GRANT) {
		qt->st.qgrant_recv++;
		if (s && na_qslot_gone_find(s, m->seq) >= 0 &&
		    !(s->h.st == NA_QH_WAIT && s->h.seq == m->seq)) {
			na_qslot_pass_on(qt, s, m, payload, true, now, out,
					 loc);
			return 0;
		}
		if (s && s->kept && s->h.st == NA_QH_WAIT &&
		    s->h.seq == m->seq) {
			/* Given up, kept for its tenure's forwards: passed on
			 * in place. */
			if (na_qslot_take_end(qt, s, m, payload, true, now, out,
					      loc) == 0)
				s->kept = false;
			return 0;
		}
		if (!s || s->h.st != NA_QH_WAIT || s->h.seq != m->seq) {
			/* Not waiting here: the event is over. */
			na_qslot_take_over(qt, m, payload, now, out, loc);
			return 0;
		}
		before = s->h.st;
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
	na_qslot_settle_dead(qt, s, &a);
	na_qslot_emit(qt, s, before, &a, out, loc);
	na_qslot_free_passing(s);
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

		if (s->used)
			na_qwait_poll(qt, s, now, out);
		if (!s->used || na_qholder_next_timer(&s->h) > now)
			continue;
		na_qholder_tick(&s->h, now, &a);
		na_qslot_settle_dead(qt, s, &a);
		na_qslot_emit(qt, s, before, &a, out, loc);
		na_qslot_free_passing(s);
	}
}
