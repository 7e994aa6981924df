/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The requester: one coherence event (na_req_event). See na_requester.h
 * and docs/NODE-AGENT.md "Requester".
 *
 * One event: send the request to the block's home node (the switch, if it
 * owns the block, intercepts it), collect the replies until na_collect_done
 * (all ACKs the copyset asks for, the data for a miss); the caller
 * (na_access.c) installs, computes the new metadata (Figure 6), writes back
 * if the data must reach home, and sends the unlock (na_req_send_unlock). A
 * NACKed request whose copies may still take the lock is remembered
 * (struct na_stale) and ended by na_req_quarantine (na_req_stale.c) before
 * the thread uses a new seq.
 *
 * The requester is one module in four files around na_requester.h; each
 * file owns:
 *   na_requester.c  an event's path: seqs, the request, waiting for its
 *                   replies (na_req_wait_mail: unlock ACKs and the
 *                   unlock's retransmission on the way) and collecting
 *                   them (na_req_event), the unlock (one in flight),
 *                   backoff, NA_WB write-backs, request/reply calls,
 *                   init/fini. Over 500 lines: so that a request, from
 *                   its send to its unlock, enters this file once;
 *   na_req_queued.c queued lock mode (na_reqq_*): registration with the
 *                   holders, Q_QUEUED / Q_NACK / Q_GRANT / QWAIT, the
 *                   grant's plan. With the inlines of na_requester.h
 *                   (na_req_q_*, na_reqq_done/holds) these are the
 *                   requester's only calls into the node's queue holders
 *                   (na_node_q_*, node/na_node.c), each made only in
 *                   queued mode;
 *   na_req_stale.c  the abandoned request: its replies, the ABORT
 *                   quarantine and the settling unlock of a lock a late
 *                   copy took (na_req_quarantine, na_req_give_up);
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
			if (t->stale.valid && na_req_stale_mail(t, &t->mail)) {
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
 * round holds the tag. With `seq` (planned_seq) and 0 returned, `*sent`
 * tells whether request `seq` is recorded as sent already (na_rec_begin).
 */
static int
rec_before_event(struct dsm_thread *t, uint64_t tag, uint32_t seq, bool *sent)
{
	struct na_rec *r = t->n->rec;
	uint64_t start = na_now_ns();
	bool settled;
	int fresh;

	fresh = na_rec_begin(r, tag, t->id, t->stale.valid, t->stale.tag,
			     &settled, seq, sent);
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

/*
 * The seq the event below takes when recovery has recorded none of this
 * thread's requests (rec_before_event returns 0), if it takes it with no
 * wait first (no quarantine, row guard or flush): the retry's seq, or the
 * next one. 0: it may wait, or the seq is not known yet.
 */
static uint32_t
planned_seq(const struct dsm_thread *t, uint8_t type, uint64_t tag,
	    const struct na_retry *rt)
{
	uint32_t seq;

	if (rt->seq && rt->seq == t->seq && rt->type == type && rt->tag == tag)
		seq = rt->seq;
	else if (t->stale.valid || t->row[0].seq || t->row[1].seq)
		return 0;
	else
		seq = t->seq + 1 ? t->seq + 1 : 1; /* na_req_next_seq */
	if (t->unl.valid && (t->unl.m.seq & 1) == (seq & 1))
		return 0;
	return seq;
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
	bool tr, done, stale, wired, recorded;

again:
	/* Recovery once per event: the request's seq is recorded as it is
	 * asked whether the event may start, when known by then. */
	switch (rec_before_event(t, tag, planned_seq(t, type, tag, rt),
				 &recorded)) {
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
	if (!recorded && !na_rec_sent(t->n->rec, t->id, tag, seq))
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
	if (!q.on || !t->qgrant_valid ||
	    !na_reqq_pending_grant(t, &q, c, &deadline)) {
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
			if (na_req_q_mail(t, &q, c, &deadline))
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

/* ---- unlocks, write-backs, backoff and calls ------------------------------ */

/* At most one unlock is in flight per requester, and a request never starts
 * while an unlock with the same seq parity is unacknowledged (the switch's
 * two scoreboard rows). */

/* Handle whatever arrived while no event is in progress. */
void
na_req_service(struct dsm_thread *t)
{
	while (na_req_wait_mail(t, 0) == 0)
		NA_STAT_INC(t->n->st.req.stale_replies);
}

void
na_req_flush(struct dsm_thread *t)
{
	uint64_t start = na_now_ns(),
		 t0 = t->unl.valid ? na_req_trace_t0(t) : 0;

	while (t->unl.valid) {
		if (na_req_wait_mail(t, t->unl.deadline_ns) == 0)
			NA_STAT_INC(t->n->st.req.stale_replies);
		if (t->unl.valid && na_req_stopping(t) &&
		    na_now_ns() - start > NA_GIVE_UP_NS) {
			t->unl.valid = false;
			NA_STAT_INC(t->n->st.req.aborted);
		}
	}
	na_req_trace_wait(t, LCF_TP_FLUSH, t0);
}

void
na_req_send_unlock(struct dsm_thread *t, uint8_t type, uint32_t seq,
		   uint64_t tag, uint8_t gs, uint32_t cs)
{
	/* Section 5.3.2: the previous unlock must be acknowledged first. */
	na_req_flush(t);
	memset(&t->unl, 0, sizeof(t->unl));
	t->unl.m.version = LCF_VERSION;
	t->unl.m.type = type;
	t->unl.m.gstatus = gs;
	t->unl.m.node = t->n->self;
	t->unl.m.thread = t->id;
	t->unl.m.seq = seq;
	t->unl.m.copyset = cs;
	t->unl.m.tag = tag;
	t->unl.m.dst_node = na_req_home_of(t, tag);
	t->unl.valid = true;
	t->last_unlock_seq = seq;
	/* Acknowledged before this parity's next seq is requested (the
	 * flush in na_req_event). */
	na_req_row_ended(t, seq);
	if (na_req_tr(t, seq))
		na_req_trace(t, LCF_TP_UNL_SEND, type, seq, t->unl.m.dst_node,
			     0);
	if (t->n->qt && na_reqq_done(t, tag, seq, gs, cs) == 0) {
		/* Queued mode, the event holds the queue: QXFER/QRELEASE
		 * went instead; the holder's approval acknowledges. */
		t->unl.queued = true;
		t->any_unlock = true;
		t->unl.sent_ns = na_now_ns();
		t->unl.deadline_ns = t->unl.sent_ns + na_req_timeout(t, 64, 0);
		NA_STAT_INC(t->n->st.req.q_ends);
		na_rec_idle(t->n->rec, t->id, false);
		return;
	}
	t->any_unlock = true;
	t->unl.sent_ns = na_now_ns();
	t->unl.deadline_ns = t->unl.sent_ns +
			     na_req_timeout(t, NA_UNLOCK_TIMEOUT_RTTS, 0);
	na_dir_wrap(t->n, &t->unl.m);
	/* The unlock takes its event's path: the home holds a local
	 * event's lock; a wire event's copies may still be in the switch. */
	t->unl.local = na_req_send_home(t, &t->unl.m, t->local_seq == seq,
					true);
	t->unl.wired = !t->unl.local &&
		       na_node_wired(t->n, t->unl.m.dst_node, t->unl.m.type);
	na_rec_idle(t->n->rec, t->id, false);
}

bool
na_req_send_home(struct dsm_thread *t, const struct lcf_msg *m, bool local,
		 bool any_owner)
{
	struct na_node *n = t->n;
	uint32_t p = m->seq & 1;
	bool try_local = local && !n->qt && !n->cfg.direct &&
			 !n->cfg.directory &&
			 m->seq - t->last_wired[p] < NA_HOME_LOCAL_WRAP;

	if (na_node_send_home(n, m, try_local, any_owner))
		return true;
	/* lib/model/homelocal.pml -guard: a later copy going local could
	 * leave this one to take the switch's lock after the unlock. */
	if (t->local_seq == m->seq)
		t->local_seq = 0;
	t->last_wired[p] = m->seq;
	return false;
}

/*
 * Randomised exponential backoff after a NACK, serving the mailbox. It
 * scales from the measured round trip, not from the timeouts' floor
 * (NA_RTT_FLOOR_NS, 500 us): a retry is no retransmission, and at a
 * microsecond RTT a floored back-off idles a thread for 100 round trips.
 */
void
na_req_backoff(struct dsm_thread *t, unsigned attempt)
{
	uint64_t base = t->rtt_ns / 4 + 1, cap = 2000000ull, span, until;
	uint64_t t0 = na_req_trace_t0(t);

	span = base << (attempt < 10 ? attempt : 10);
	if (span > cap)
		span = cap;
	until = na_now_ns() + na_req_rnd(t) % (span + 1);
	while (na_now_ns() < until)
		if (na_req_wait_mail(t, until) == 0)
			NA_STAT_INC(t->n->st.req.stale_replies);
	na_req_trace_wait(t, LCF_TP_BACKOFF, t0);
	/*
	 * No settle_stale() here: the request we back off from is usually
	 * retried with the same seq, and releasing it would install metadata
	 * the retry then contradicts. Only na_req_quarantine() releases.
	 */
}

/* Write the block home while the event still holds its lock. */
int
na_req_writeback(struct dsm_thread *t, uint32_t seq, uint64_t tag,
		 const uint8_t *data)
{
	return na_req_writeback_rest(t, seq, tag, data, 0, false);
}

int
na_req_writeback_rest(struct dsm_thread *t, uint32_t seq, uint64_t tag,
		      const uint8_t *data, uint64_t have, bool sent_by_owner)
{
	uint32_t bs = t->d->topo.block_size;
	uint16_t home = na_req_home_of(t, tag);
	uint64_t all = na_seg_all(bs), sent = na_now_ns(), deadline;
	uint64_t t0 = na_req_trace_t0(t);
	uint32_t tries = 0;
	struct lcf_msg m;

	na_req_msg(t, &m, 0, seq, tag, home);
	for (;;) {
		/* (Re)send every segment not acknowledged yet; the owner
		 * sent the first copies of its write-back itself. */
		for (uint32_t i = 0; i < na_seg_count(bs) && !sent_by_owner;
		     i++) {
			uint32_t off;
			uint16_t len;

			if (have & (1ull << i))
				continue;
			na_seg_span(bs, i, &off, &len);
			m.type = NA_MSG_WB;
			m.aux = off;
			m.len = len;
			na_node_send(t->n, home, &m, data + off);
			if (tries)
				NA_STAT_INC(t->n->st.req.retransmit_writeback);
		}
		deadline = na_now_ns() +
			   na_req_timeout(t, NA_REQ_TIMEOUT_RTTS, tries);
		while (have != all && na_now_ns() < deadline) {
			const struct lcf_msg *x = &t->mail.m;

			if (na_req_wait_mail(t, deadline) != 0)
				continue;
			if (x->type == NA_MSG_WB_ACK && x->seq == seq &&
			    x->tag == tag && x->aux < bs &&
			    x->aux % NA_MAX_FRAME_PAYLOAD == 0)
				have |= 1ull << (x->aux / NA_MAX_FRAME_PAYLOAD);
			else
				NA_STAT_INC(t->n->st.req.stale_replies);
		}
		if (have == all)
			break;
		if (na_req_stopping(t) && na_now_ns() - sent > NA_GIVE_UP_NS)
			return -EINTR;
		if (sent_by_owner)
			NA_STAT_INC(t->n->st.req.retransmit_writeback);
		sent_by_owner = false;
		tries++;
	}
	NA_STAT_INC(t->n->st.req.writebacks);
	na_req_trace_wait(t, LCF_TP_WB, t0);
	return 0;
}

int
na_req_call(struct dsm_thread *t, uint16_t dst, const struct lcf_msg *m,
	    uint8_t reply_type, struct na_mail *reply)
{
	uint64_t sent = na_now_ns(), deadline;
	uint32_t tries = 0;

	na_node_send(t->n, dst, m, NULL);
	deadline = sent + na_req_timeout(t, NA_REQ_TIMEOUT_RTTS, 0);
	for (;;) {
		const struct lcf_msg *x = &t->mail.m;
		uint64_t now;

		if (na_req_wait_mail(t, deadline) == 0) {
			if (x->type == reply_type && x->seq == m->seq) {
				*reply = t->mail;
				return 0;
			}
			NA_STAT_INC(t->n->st.req.stale_replies);
			continue;
		}
		now = na_now_ns();
		if (now < deadline)
			continue;
		if (na_req_stopping(t) && now - sent > NA_GIVE_UP_NS)
			return -EINTR;
		na_node_send(t->n, dst, m, NULL);
		tries++;
		deadline = now + na_req_timeout(t, NA_REQ_TIMEOUT_RTTS, tries);
	}
}
