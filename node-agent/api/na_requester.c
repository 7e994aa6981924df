/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The requester: one coherence event (na_req_event). See na_requester.h
 * and docs/NODE-AGENT.md "Requester".
 *
 * One event: send the request to the block's home node (the switch, if it
 * owns the block, intercepts it), collect the replies until na_collect_done
 * (all ACKs the copyset asks for, the data for a miss); the caller
 * (na_access.c) installs, computes the new metadata (Figure 6), writes back
 * if the data must reach home, and sends the unlock (na_req_mail.c). A
 * NACKed request whose copies may still take the lock is remembered
 * (struct na_stale) and ended by na_req_quarantine (na_req_stale.c) before
 * the thread uses a new seq.
 *
 * The requester is one module in four files around na_requester.h; each
 * file owns:
 *   na_requester.c  the event: seqs, the request, waiting for its
 *                   replies (na_req_wait_mail: unlock ACKs, the unlock's
 *                   retransmission and the abandoned request's replies
 *                   consumed on the way) and collecting them
 *                   (na_req_event), init/fini; and queued lock mode
 *                   (na_reqq_*, at the end): registration with the
 *                   holders, Q_QUEUED / Q_NACK / Q_GRANT / QWAIT, the
 *                   grant's plan. With the inlines of na_requester.h
 *                   (na_req_q_*, na_reqq_done/holds) these are the
 *                   requester's only calls into the node's queue holders
 *                   (na_node_q_*, node/na_node.c), each made only in
 *                   queued mode. Over 500 lines: both modes run the one
 *                   event loop, and each reply's wait with it, so a
 *                   request's path stays in this file;
 *   na_req_mail.c   unlocks (one in flight), backoff, NA_WB write-backs,
 *                   request/reply calls;
 *   na_req_stale.c  the abandoned request: the ABORT quarantine and the
 *                   settling unlock of a lock a late copy took
 *                   (na_req_quarantine, na_req_give_up);
 *   na_req_diff.c   PIPE's diff write-back (na_req_writeback_diff).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "na_msg.h"
#include "na_recovery.h"
#include "na_requester.h"
#include "na_seg.h"

int
na_req_init(struct dsm_thread *t, struct dsm *d, uint16_t id)
{
	memset(t, 0, sizeof(*t));
	t->d = d;
	t->n = &d->node;
	t->id = id;
	t->rtt_ns = NA_RTT_INIT_NS;
	t->rng = (uint32_t)(d->node.self * 7919u + id * 104729u + 1u) ^
		 d->node.cfg.seed;
	if (!t->rng)
		t->rng = 1;
	t->buf = malloc(d->topo.block_size);
	t->stale.buf = malloc(d->topo.block_size);
	t->tbuf = malloc(d->topo.block_size);
	t->dbuf = malloc(d->topo.block_size);
	return t->buf && t->stale.buf && t->tbuf && t->dbuf ? 0 : -ENOMEM;
}

void
na_req_fini(struct dsm_thread *t)
{
	free(t->buf);
	free(t->stale.buf);
	free(t->tbuf);
	free(t->dbuf);
	t->tbuf = NULL;
	t->dbuf = NULL;
	t->buf = NULL;
	t->stale.buf = NULL;
}

uint32_t
na_req_next_seq(struct dsm_thread *t)
{
	if (++t->seq == 0)
		t->seq = 1;
	return t->seq;
}

/* ---- the mailbox: waiting for replies ------------------------------------ */

/*
 * An UNLOCK_ACK (switch) or NA_UNLOCK_ACK (home)? Consume it. Nobody waits
 * for it: the thread may take it long after it came (hits in between),
 * so the round trip ends at its arrival, not here (a late sample inflated
 * the RTT, and with it the NACK back-off, up to 1000x).
 */
static bool
on_unlock_ack(struct dsm_thread *t, const struct na_mail *x)
{
	const struct lcf_msg *m = &x->m;

	if (m->type != LCF_T_UNLOCK_ACK && m->type != NA_MSG_UNLOCK_ACK)
		return false;
	if (t->unl.valid && m->seq == t->unl.m.seq && m->tag == t->unl.m.tag) {
		if (!t->unl.retx && !t->unl.queued && t->unl.wired &&
		    x->at_ns >= t->unl.sent_ns)
			na_req_rtt_sample(t, x->at_ns - t->unl.sent_ns);
		t->unl.valid = false;
	} else {
		NA_STAT_INC(t->n->st.req.stale_replies);
	}
	return true;
}

static void
unlock_timer(struct dsm_thread *t, uint64_t now)
{
	if (!t->unl.valid || now < t->unl.deadline_ns)
		return;
	if (t->unl.queued) {
		/* The queue holder retransmits QXFER/QRELEASE itself. */
		t->unl.deadline_ns = now + na_req_timeout(t, 64, 0);
		return;
	}
	na_req_send_home(t, &t->unl.m, t->unl.local, true);
	NA_STAT_INC(t->n->st.req.retransmit_unlock);
	t->unl.retx = true;
	t->unl.tries++;
	t->unl.deadline_ns = now + na_req_timeout(t, NA_UNLOCK_TIMEOUT_RTTS,
						  t->unl.tries);
}

/* A reply for the abandoned request of struct na_stale? Collect it. */
static bool
on_stale_mail(struct dsm_thread *t, const struct na_mail *x)
{
	struct na_stale *s = &t->stale;
	const struct lcf_msg *m = &x->m;

	if (!s->valid || m->seq != s->seq || m->tag != s->tag ||
	    m->node != t->n->self || na_msg_own_seq(m->type))
		return false;
	switch (m->type) {
	case NA_MSG_ACK:
		na_collect_na_ack(&s->c, m);
		break;
	case NA_MSG_DATA:
		if (na_collect_data(&s->c, m->aux, m->len))
			memcpy(s->buf + m->aux, x->payload, m->len);
		break;
	case NA_MSG_DIR_GRANT:
		na_collect_grant(&s->c, na_aux_responder(m->aux), m->gstatus,
				 m->copyset);
		break;
	case LCF_T_ABORT_ACK:
	case NA_MSG_ABORT_ACK:
		if (s->answer == NA_AB_NONE)
			s->answer = m->flags & LCF_F_FAIL ? NA_AB_PASSED
							  : NA_AB_ABORTED;
		break;
	default:
		if (m->type == s->type) /* returned by the switch */
			na_collect_ack(&s->c, LCF_NODE_NONE, m->gstatus,
				       m->copyset, true);
		if (m->type == LCF_T_NACK || m->type == NA_MSG_NACK) {
			s->nacks++; /* one more copy is dead */
			if (s->type == LCF_T_READ_MISS &&
			    (s->answer == NA_AB_PASSED || s->c.got_reply) &&
			    (m->copyset & na_bit(t->n->self)))
				s->in_cs = true;
		}
		break;
	}
	return true;
}

/*
 * Wait for a message until `deadline`, consuming unlock ACKs and running the
 * unlock timer on the way (an ACK is handled before the timer looks, so a
 * waiting ACK never causes a spurious retransmission).
 * @return 0 with t->mail set, -ETIMEDOUT, -EAGAIN when the ACK of the
 *         pending unlock was consumed (na_req_flush returns at once, not
 *         at the unlock timer's deadline), or -EINPROGRESS when an answer
 *         of the abandoned request was collected while the quarantine
 *         waits (t->stale.wake: it re-checks at once).
 */
int
na_req_wait_mail(struct dsm_thread *t, uint64_t deadline)
{
	for (;;) {
		uint64_t dl = deadline;
		int rc;

		if (t->unl.valid && t->unl.deadline_ns < dl)
			dl = t->unl.deadline_ns;
		rc = na_node_mbox_wait(t->n, t->id, &t->mail, dl);
		if (rc == 0 && na_req_tr(t, t->mail.m.seq))
			na_req_trace(t, LCF_TP_WAKE, t->mail.m.type,
				     t->mail.m.seq, LCF_TRACE_NO_PEER, 0);
		if (rc == 0 && t->mail.m.type == NA_MSG_Q_GRANT) {
			/* Kept: it may answer a request being retried. */
			t->qgrant = t->mail.m;
			t->qgrant_valid = true;
		}
		if (rc == 0) {
			bool had = t->unl.valid;

			if (on_unlock_ack(t, &t->mail)) {
				if (had && !t->unl.valid)
					return -EAGAIN; /* na_req_flush's */
				continue;
			}
			if (on_stale_mail(t, &t->mail)) {
				if (t->stale.wake)
					return -EINPROGRESS;
				continue;
			}
		}
		unlock_timer(t, na_now_ns());
		if (rc == 0)
			return 0;
		if (dl >= deadline || na_now_ns() >= deadline)
			return -ETIMEDOUT;
	}
}

/* ---- one coherence event --------------------------------------------------- */

/*
 * Recovery (na_recovery.h) before an event on `tag`: wait while a recovery
 * round holds the tag. @return 1 when the retry seq must not be reused (a
 * recovery recorded it as unsettled), 0, -EHOSTDOWN when the tag's home
 * node was declared dead (dsm_node_failed), -ECANCELED when stopped while a
 * round holds the tag.
 */
static int
rec_before_event(struct dsm_thread *t, uint64_t tag)
{
	struct na_rec *r = t->n->rec;
	uint64_t start = na_now_ns();
	bool settled;
	int fresh;

	fresh = na_rec_before(r, tag, t->id, t->stale.valid, t->stale.tag,
			      &settled);
	if (fresh == -EHOSTDOWN)
		return -EHOSTDOWN;
	if (fresh == -EAGAIN) { /* a recovery round holds the tag */
		while (na_rec_blocked(r, tag)) {
			/* Stopped (a crashed node's DONE never comes): the
			 * event is given up, no request sent; breaking out
			 * only came back here (na_rec_sent refuses). */
			if (na_req_stopping(t) &&
			    na_now_ns() - start > NA_GIVE_UP_NS)
				return -ECANCELED;
			na_req_backoff(t, 4);
		}
		fresh = na_rec_resume(r, t->id, t->stale.valid, t->stale.tag,
				      &settled);
	}
	/*
	 * The round recorded the abandoned seq at home, but a late copy may
	 * still take the lock at the switch after the block's re-ADD: keep
	 * the ABORT, asked afresh (lib/model/miglate.pml).
	 */
	if (settled)
		t->stale.round = true;
	return fresh ? 1 : 0;
}

/* Remember the request as abandoned (struct na_stale): only an ABORT can
 * tell whether a copy of it takes the lock later (na_req_quarantine). */
static void
abandon(struct dsm_thread *t, uint8_t type, uint32_t seq, uint64_t tag,
	const struct na_retry *rt, bool round)
{
	if (t->stale.valid && t->stale.seq != seq)
		NA_STAT_INC(t->n->st.req.stale_replaced); /* never ended */
	t->stale.valid = true;
	t->stale.round = round;
	t->stale.type = type;
	t->stale.seq = seq;
	t->stale.tag = tag;
	t->stale.copies = rt->copies;
	t->stale.nacks = rt->nacks;
	na_collect_init(&t->stale.c, type, t->n->self, t->d->topo.block_size);
}

int
na_req_event(struct dsm_thread *t, uint8_t type, uint64_t tag,
	     struct na_collect *c, struct na_retry *rt)
{
	uint16_t home = na_req_home_of(t, tag);
	uint64_t sent, deadline, now;
	uint32_t tries = 0, seq;
	struct lcf_msg m;
	struct na_reqq q;
	bool tr, done, stale, wired;

again:
	switch (rec_before_event(t, tag)) {
	case 0:
		break;
	case 1:
		rt->seq = 0; /* a recovery recorded that seq */
		break;
	default:
		NA_STAT_INC(t->n->st.req.aborted);
		return NA_EV_ABORT; /* its home node is dead, or stopped */
	}
	/* Reuse only while it is our latest seq: seqs never go backwards. */
	if (rt->seq && rt->seq == t->seq && rt->type == type &&
	    rt->tag == tag) {
		seq = rt->seq;
		if (t->stale.valid && t->stale.seq == seq) {
			rt->nacks = t->stale.nacks; /* not abandoned */
			t->stale.valid = false;
		}
	} else {
		/* The common path stays out of na_req_stale.c. */
		if (t->stale.valid)
			na_req_end_stale(t);
		if (t->row[0].seq || t->row[1].seq)
			na_req_row_guard(t);
		seq = na_req_next_seq(t);
		t->local_seq = seq; /* no copy of it on the wire yet */
		rt->copies = 0;
		rt->nacks = 0;
	}
	rt->seq = seq;
	rt->type = type;
	rt->tag = tag;
	t->row[seq & 1].seq = seq;
	t->row[seq & 1].type = type;
	t->row[seq & 1].tag = tag;
	/* Both scoreboard rows in use? Then the older unlock must land. */
	if (t->unl.valid && (t->unl.m.seq & 1) == (seq & 1))
		na_req_flush(t);
	/*
	 * A round that began in the quarantine or the flush may have had our
	 * report already: a request sent now could be granted and then
	 * dropped as aborted, its lock nobody's (lib/model/recsend.pml).
	 */
	if (!na_rec_sent(t->n->rec, t->id, tag, seq))
		goto again;
	tr = na_req_tr(t, seq);
	if (tr)
		na_req_trace(t, LCF_TP_EV_BEGIN, type, seq, home,
			     lcf_trace_sampled(t->n->self, t->id, seq,
					       t->n->tr.every));
	na_req_msg(t, &m, type, seq, tag, home);
	na_dir_wrap(t->n, &m);
	na_collect_init(c, type, t->n->self, t->d->topo.block_size);
	NA_STAT_INC(t->n->st.req.events);
	NA_STAT_INC(t->n->st.req.ev_type[type & 15]);
	na_req_q_begin(t, &q, &m);
	sent = na_now_ns();
	deadline = sent + na_req_timeout(t, NA_REQ_TIMEOUT_RTTS, 0);
	wired = false;
	if (!q.on || !na_reqq_pending_grant(t, &q, c, &deadline)) {
		if (tr)
			na_req_trace(t, LCF_TP_EV_SEND, m.type, seq, home,
				     rt->copies);
		/* An in-process answer is no round trip: sampled, it would
		 * shrink the RTT, and the NACK back-off with it, to ~0. */
		wired = !na_req_send_home(t, &m, t->local_seq == seq, false) &&
			na_node_wired(t->n, m.dst_node, m.type);
		rt->copies++;
	}
	for (;;) {
		if (q.noop || (q.granted && na_collect_done(c)))
			break;
		if (na_req_wait_mail(t, deadline) == 0) {
			if (q.on && na_reqq_mail(t, &q, c, &deadline))
				continue;
			if (t->mail.m.seq == seq &&
			    (t->mail.m.type == LCF_T_NACK ||
			     t->mail.m.type == NA_MSG_NACK))
				rt->nacks++;
			done = na_collect_reply(c, q.granted ? c->type : type,
						seq, tag, &t->mail.m,
						t->mail.payload, t->buf,
						&stale);
			if (stale)
				NA_STAT_INC(t->n->st.req.stale_replies);
			if (done)
				break;
		}
		if (!na_rec_quiet(t->n->rec) &&
		    na_rec_blocked(t->n->rec, tag)) {
			/*
			 * The switch that may hold our lock is gone: abort.
			 * A copy delayed in the network may still take the
			 * lock after the block's re-ADD: quarantined as a
			 * NACKed event is (lib/model/miglate.pml).
			 */
			abandon(t, type, seq, tag, rt, true);
			rt->seq = 0;
			na_rec_idle(t->n->rec, t->id, true);
			return NA_EV_NACK;
		}
		now = na_now_ns();
		if (now < deadline)
			continue;
		if (na_req_stopping(t) && now - sent > NA_GIVE_UP_NS) {
			NA_STAT_INC(t->n->st.req.aborted);
			na_rec_idle(t->n->rec, t->id, false);
			return NA_EV_ABORT;
		}
		/* Same seq: the switch's scoreboard and LAST-EXECUTED dedupe. */
		if (tr)
			na_req_trace(t, LCF_TP_EV_SEND, m.type, seq, home,
				     rt->copies);
		if (q.on)
			na_reqq_retransmit(t, &q);
		else
			na_req_send_home(t, &m, t->local_seq == seq, false);
		rt->copies++;
		NA_STAT_INC(t->n->st.req.retransmit_request);
		tries++;
		deadline = now + (q.on ? na_reqq_interval(t, &q, tries)
				       : na_req_timeout(t, NA_REQ_TIMEOUT_RTTS,
							tries));
	}
	if (tr)
		na_req_trace(t, LCF_TP_EV_DONE, type, seq, LCF_TRACE_NO_PEER,
			     (c->nacked ? 1u : 0u) | (c->in_switch ? 2u : 0u));
	if (!tries && wired && !q.queued && !q.granted)
		na_req_rtt_sample(t,
				  na_now_ns() - sent); /* Karn: clean samples */
	if (q.noop) {
		/* Granted, but the request no longer fits: end the event
		 * with the metadata unchanged (passes the lock on) and let
		 * the caller re-read its state; that seq is spent. */
		na_req_send_unlock(t, LCF_T_WRITE_UNLOCK, seq, tag, q.gs, q.cs);
		rt->seq = 0;
		na_rec_idle(t->n->rec, t->id, false);
		return NA_EV_NACK;
	}
	if (q.on)
		na_reqq_end(t, &q, c);
	if (c->nacked) {
		na_rec_idle(t->n->rec, t->id, false);
		NA_STAT_INC(t->n->st.req.nacks);
		/*
		 * A copy may take the lock later: a network duplicate
		 * is a copy we never counted, so only an ABORT can
		 * tell (na_req_quarantine(), lib/model/dircount.pml).
		 */
		abandon(t, type, seq, tag, rt, false);
		return NA_EV_NACK;
	}
	na_rec_granted(t->n->rec, t->id, tag);
	/* Who serialised it: the switch or the home agent (migration's aim). */
	if (c->in_switch)
		NA_STAT_INC(t->n->st.req.events_in_switch);
	else
		NA_STAT_INC(t->n->st.req.events_at_home);
	return NA_EV_OK;
}

/* ---- queued lock mode (docs/QUEUED-LOCKS.md 5) --------------------------- */

/*
 * The requester in queued lock mode (docs/QUEUED-LOCKS.md 5,
 * "Requesters" and "The next holder"): its event registers with the
 * node's queue holders (it may become the holder), Q_QUEUED stops the
 * request's retransmission (a 64-RTT watchdog instead), Q_NACK sends it
 * again at once, and a Q_GRANT is the answer: the event runs against the
 * grant's metadata (na_qplan.h: Q_INV to the copyset or the home, the
 * replies collected as for a switch copy). QWAIT (a write that met
 * readers: the block's waiting writer) turns the retransmission into a
 * poll every RTT estimate until the switch's QGRANT, which the node's
 * queue holders deliver as a Q_GRANT (flags IN_SWITCH). The holder's end
 * is in na_req_mail.c (na_req_send_unlock).
 */

#define NA_QUEUED_WATCHDOG_RTTS 64

void
na_reqq_begin(struct dsm_thread *t, struct na_reqq *q, const struct lcf_msg *m)
{
	uint64_t start = na_now_ns();

	memset(q, 0, sizeof(*q));
	q->req = *m;
	for (unsigned i = 0;; i++) {
		int rc = na_node_q_request(t->n, m->tag, t->id, m->seq);

		if (rc == 0)
			q->on = true;
		if (rc != -EBUSY && rc != -ENOSPC)
			break;
		/* Stopped (dsm_stop): the tenure may never end (a crashed
		 * node's hand-over is never acknowledged), so give up as
		 * every other wait does; the request goes without a holder
		 * slot and the event gives up in turn. */
		if (na_req_stopping(t) && na_now_ns() - start > NA_GIVE_UP_NS)
			break;
		/* Another local event's tenure on this block is ending, or
		 * no holder slot is free: a request without one could not
		 * take a grant (a Q_GRANT or QGRANT), so it waits. */
		if (rc == -EBUSY)
			NA_STAT_INC(t->n->st.req.q_busy_waits);
		else
			NA_STAT_INC(t->n->st.req.q_slot_waits);
		na_req_backoff(t, i < 4 ? i : 4);
	}
}

/* Send the plan's Q_INVs (again: the agents answer duplicates alike). */
static void
send_inv(struct dsm_thread *t, struct na_reqq *q)
{
	struct lcf_msg m;

	na_req_msg(t, &m, NA_MSG_Q_INV, q->req.seq, q->req.tag, 0);
	m.gstatus = q->gs;
	m.copyset = q->cs;
	m.aux = na_aux_orig(q->plan.type, 0);
	if (q->plan.home) {
		m.dst_node = na_req_home_of(t, q->req.tag);
		m.flags = LCF_F_DATA_PROVIDER;
		na_node_send(t->n, m.dst_node, &m, NULL);
		NA_STAT_INC(t->n->st.req.q_inv_sent);
	}
	for (uint16_t i = 0; i < LCF_MAX_NODES; i++) {
		if (!na_cs_has(q->plan.to, i))
			continue;
		m.dst_node = i;
		m.flags = i == q->plan.provider ? LCF_F_DATA_PROVIDER : 0;
		na_node_send(t->n, i, &m, NULL);
		NA_STAT_INC(t->n->st.req.q_inv_sent);
	}
}

/* The lock is the event's (Q_GRANT with gs, cs): run the request. */
static void
granted(struct dsm_thread *t, struct na_reqq *q, const struct lcf_msg *g,
	struct na_collect *c, uint64_t *deadline)
{
	q->granted = true;
	q->queued = false;
	q->swait = false;
	q->gs = g->gstatus;
	q->cs = g->copyset;
	t->qgrant_valid = false;
	NA_STAT_INC(t->n->st.req.q_grants);
	if (g->flags & LCF_F_IN_SWITCH)
		NA_STAT_INC(t->n->st.req.q_sw_grants); /* QGRANT */
	na_qplan_make(q->req.type, t->n->self, q->gs, q->cs, na_req_rnd(t),
		      &q->plan);
	if (q->plan.noop) {
		q->noop = true;
		NA_STAT_INC(t->n->st.req.q_noop);
		return;
	}
	if (q->plan.type != q->req.type)
		NA_STAT_INC(t->n->st.req.q_converted);
	na_collect_init(c, q->plan.type, t->n->self, t->d->topo.block_size);
	na_collect_ack(c, LCF_NODE_NONE, q->gs, q->cs, true);
	send_inv(t, q);
	*deadline = na_now_ns() + na_req_timeout(t, NA_REQ_TIMEOUT_RTTS, 0);
}

bool
na_reqq_pending_grant(struct dsm_thread *t, struct na_reqq *q,
		      struct na_collect *c, uint64_t *deadline)
{
	if (!q->on || !t->qgrant_valid || t->qgrant.seq != q->req.seq ||
	    t->qgrant.tag != q->req.tag)
		return false;
	granted(t, q, &t->qgrant, c, deadline);
	return true;
}

bool
na_reqq_mail(struct dsm_thread *t, struct na_reqq *q, struct na_collect *c,
	     uint64_t *deadline)
{
	const struct lcf_msg *x = &t->mail.m;
	uint64_t now = na_now_ns();

	if (!q->on || x->seq != q->req.seq || x->tag != q->req.tag)
		return false;
	switch (x->type) {
	case LCF_T_QWAIT:
		/* The block's waiting writer: poll until QGRANT. */
		if (!q->granted && !c->got_reply) {
			if (!q->swait)
				NA_STAT_INC(t->n->st.req.q_waits);
			q->swait = true;
			q->queued = false;
			*deadline = now + na_req_rtt(t);
		}
		return true;
	case NA_MSG_Q_QUEUED:
		if (!q->granted && !c->got_reply && !q->swait) {
			q->queued = true;
			*deadline = now +
				    na_req_timeout(t, NA_QUEUED_WATCHDOG_RTTS,
						   0);
		}
		NA_STAT_INC(t->n->st.req.q_queued);
		return true;
	case NA_MSG_Q_NACK:
		NA_STAT_INC(t->n->st.req.q_nacks);
		if (q->granted || c->got_reply || q->swait)
			return true;
		q->queued = false;
		na_node_send(t->n, q->req.dst_node, &q->req, NULL);
		*deadline = now + na_req_timeout(t, NA_REQ_TIMEOUT_RTTS, 0);
		return true;
	case NA_MSG_Q_GRANT:
		if (!q->granted && !c->got_reply)
			granted(t, q, x, c, deadline);
		return true;
	case LCF_T_NACK:
	case NA_MSG_NACK:
		/* A copy NACKed while another is queued or the lock is
		 * ours: the queue answers this event. */
		if (q->queued || q->granted || q->swait) {
			NA_STAT_INC(t->n->st.req.q_nack_ignored);
			return true;
		}
		return false;
	default:
		return false;
	}
}

void
na_reqq_retransmit(struct dsm_thread *t, struct na_reqq *q)
{
	if (q->granted) {
		send_inv(t, q);
		return;
	}
	if (q->swait)
		NA_STAT_INC(t->n->st.req.q_polls);
	else if (q->queued)
		NA_STAT_INC(t->n->st.req.q_watchdog);
	q->queued = false;
	na_node_send(t->n, q->req.dst_node, &q->req, NULL);
}

uint64_t
na_reqq_interval(const struct dsm_thread *t, const struct na_reqq *q,
		 uint32_t tries)
{
	if (q->swait)
		return na_req_rtt(t); /* a poll: not doubled */
	return na_req_timeout(t, NA_REQ_TIMEOUT_RTTS, tries);
}

void
na_reqq_end(struct dsm_thread *t, struct na_reqq *q, const struct na_collect *c)
{
	if (!q->on || q->granted || c->nacked)
		return; /* holding (ends at its unlock) or retried */
	/* A write lock granted by the switch or, for a home-owned block, by
	 * its home holds the queue (QSTATE = {id, 0} at either, QUEUED-LOCKS.md
	 * 3 and 11). */
	na_node_q_result(t->n, q->req.tag, t->id, q->req.seq,
			 c->type != LCF_T_READ_MISS);
}
