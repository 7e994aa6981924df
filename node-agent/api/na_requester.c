/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The requester: a miss or an eviction (na_req_miss, na_req_evict) from its
 * request through its install to its unlock. See na_requester.h and
 * docs/NODE-AGENT.md "Requester". Over 500 lines: the request, its
 * replies, the install and every unlock (the settling unlock of an
 * abandoned request too) are sent from this one file, so a request enters
 * it once (docs/ARCHITECTURE.md "The path of one request") and the
 * quarantine (na_req_stale.c), which the event runs, never calls back.
 *
 * One event (na_req_event): send the request to the block's home node (the
 * switch, if it owns the block, intercepts it), collect the replies until
 * na_collect_done (all ACKs the copyset asks for, the data for a miss);
 * then the miss installs, computes the new metadata (Figure 6), writes back
 * if the data must reach home, and sends the unlock by the path the
 * request took (na_req_send_unlock). Recovery is asked once as the event
 * begins (na_rec_begin) and told once as it ends (na_rec_end, with the
 * unlock). A NACKed request whose copies may still take the lock is
 * remembered (struct na_stale) and ended (na_req_end_stale: the
 * quarantine of na_req_stale.c, then its settling unlock) before the
 * thread uses a new seq.
 *
 * The requester is one module in five files around na_requester.h; each
 * file owns:
 *   na_requester.c  the event: seqs, the request, collecting its replies,
 *                   the install, unlocks (one in flight), the abandoned
 *                   request's end. Its mailbox wait and send
 *                   home are inline (na_req_mail.h), as are the queued
 *                   mode's registration and end (na_req_queued.h);
 *   na_req_mail.c   what the mailbox's wait hands on (the unlock timer,
 *                   the abandoned request's replies), backoff, NA_WB
 *                   write-backs, request/reply calls;
 *   na_req_queued.c queued lock mode (na_reqq_*): Q_QUEUED / Q_NACK /
 *                   Q_GRANT / QWAIT, the grant's plan. With the inlines of
 *                   na_req_queued.h these are the requester's only calls
 *                   into the node's queue holders (na_node_q_*,
 *                   node/na_node.c), each made only in queued mode;
 *   na_req_stale.c  the abandoned request's quarantine: its ABORT, and the
 *                   unlock that settles a lock a late copy took
 *                   (na_req_quarantine);
 *   na_req_diff.c   PIPE's diff write-back (na_req_writeback_diff).
 * The local side of an access (lookup, hits, local waits) is na_access.c.
 */
#include <errno.h>
#include <string.h>

#include "na_msg.h"
#include "na_recovery.h"
#include "na_req_mail.h"
#include "na_req_queued.h"
#include "na_requester.h"
#include "na_seg.h"

uint32_t
na_req_next_seq(struct dsm_thread *t)
{
	if (++t->seq == 0)
		t->seq = 1;
	return t->seq;
}

/* ---- the unlock ------------------------------------------------------------ */

/* At most one unlock is in flight per requester, and a request never starts
 * while an unlock with the same seq parity is unacknowledged (the switch's
 * two scoreboard rows). */

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
		   uint64_t tag, uint8_t gs, uint32_t cs, enum na_rec_end how)
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
		na_rec_end(t->n->rec, t->id, tag, how);
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
	na_rec_end(t->n->rec, t->id, tag, how);
}

/* ---- the abandoned request's end ------------------------------------------ */

/* The quarantine (na_req_stale.c), then the unlock it settles on, if any. */
static void
quarantine(struct dsm_thread *t)
{
	struct na_settle u;

	if (na_req_quarantine(t, &u))
		na_req_send_unlock(t, u.type, u.seq, u.tag, u.gs, u.cs,
				   NA_REC_DONE);
}

/*
 * The quarantine first, then the holder slot's abandon: while the
 * quarantine runs, the slot still waits for the seq, so a QWAIT or QGRANT
 * answering its re-sent request (the ABORT's "a copy passed" for a waiting
 * writer whose QWAIT was lost) finds it; cancelled first, the slot could be
 * taken for another block meanwhile, and with it the record of the given-up
 * seq. Abandoned afterwards, a waiting writer's slot is kept and polled, a
 * granted one passes the lock on (na_qtable_abandon).
 */
void
na_req_give_up(struct dsm_thread *t, uint64_t tag, uint32_t seq)
{
	if (t->n->qt && t->stale.valid && t->stale.seq == seq &&
	    t->stale.tag == tag)
		quarantine(t);
	na_req_q_abandon(t, tag, seq);
}

/*
 * The quarantine, then (queued mode) the holder slot's abandon, so that a
 * grant of that seq passes on (na_req_give_up's order): before a new seq,
 * before a local wait (na_access.c) and when the thread stops (dsm_sync).
 */
void
na_req_row_guard(struct dsm_thread *t)
{
	for (uint32_t i = 0; i < 2; i++) {
		/* The older one first: its unlock must precede the other's
		 * (LAST-UNLOCK ignores an unlock older than one executed). */
		uint32_t p = (t->seq + 1 + i) & 1, seq = t->row[p].seq;

		if (!seq)
			continue;
		NA_STAT_INC(t->n->st.req.row_guard);
		t->stale.valid = true;
		t->stale.round = false;
		t->stale.type = t->row[p].type;
		t->stale.seq = seq;
		t->stale.tag = t->row[p].tag;
		t->stale.copies = 0;
		t->stale.nacks = 0;
		na_collect_init(&t->stale.c, t->stale.type, t->n->self,
				t->d->topo.block_size);
		na_req_end_stale(t);
		/* Tried once: a quarantine given up (the thread stopping,
		 * the home dead) is counted there (quarantine_unsettled). */
		t->row[p].seq = 0;
	}
}

void
na_req_end_stale(struct dsm_thread *t)
{
	uint64_t tag = t->stale.tag;
	uint32_t seq = t->stale.seq;

	if (!t->stale.valid)
		return;
	quarantine(t);
	na_req_q_abandon(t, tag, seq);
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
	na_req_msg(t, &m, type, seq, tag, home);
	na_dir_wrap(t->n, &m);
	if (!na_req_q_begin(t, &q, &m)) {
		na_rec_end(t->n->rec, t->id, tag, NA_REC_LEFT);
		goto again;
	}
	tr = na_req_tr(t, seq);
	if (tr)
		na_req_trace(t, LCF_TP_EV_BEGIN, type, seq, home,
			     lcf_trace_sampled(t->n->self, t->id, seq,
					       t->n->tr.every));
	na_collect_init(c, type, t->n->self, t->d->topo.block_size);
	NA_STAT_INC(t->n->st.req.events);
	NA_STAT_INC(t->n->st.req.ev_type[type & 15]);
	sent = na_now_ns();
	deadline = sent + na_req_timeout(t, NA_REQ_TIMEOUT_RTTS, 0);
	wired = false;
	if (!q.on || !na_reqq_grant_here(t, &m) ||
	    !na_reqq_pending_grant(t, &q, c, &deadline)) {
		if (tr)
			na_req_trace(t, LCF_TP_EV_SEND, m.type, seq, home,
				     rt->copies);
		/* Queued mode sent it as it registered (na_reqq_begin). An
		 * in-process answer is no round trip: sampled, it would
		 * shrink the RTT, and the NACK back-off with it, to ~0. */
		if (q.sent)
			na_req_on_wire(t, &m);
		wired = (q.sent || !na_req_send_home(t, &m, t->local_seq == seq,
						     false)) &&
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
			na_rec_end(t->n->rec, t->id, tag, NA_REC_ABORTED);
			return NA_EV_NACK;
		}
		now = na_now_ns();
		if (now < deadline)
			continue;
		if (na_req_stopping(t) && now - sent > NA_GIVE_UP_NS) {
			NA_STAT_INC(t->n->st.req.aborted);
			na_rec_end(t->n->rec, t->id, tag, NA_REC_LEFT);
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
		na_req_send_unlock(t, LCF_T_WRITE_UNLOCK, seq, tag, q.gs, q.cs,
				   NA_REC_LEFT);
		rt->seq = 0;
		return NA_EV_NACK;
	}
	if (q.on)
		na_reqq_end(t, &q, c);
	if (c->nacked) {
		na_rec_end(t->n->rec, t->id, tag, NA_REC_LEFT);
		NA_STAT_INC(t->n->st.req.nacks);
		/*
		 * A copy may take the lock later: a network duplicate
		 * is a copy we never counted, so only an ABORT can
		 * tell (na_req_quarantine(), lib/model/dircount.pml).
		 */
		abandon(t, type, seq, tag, rt, false);
		return NA_EV_NACK;
	}
	/* Granted: its end goes to recovery with the unlock (or as the
	 * write-back that gives up instead), na_rec_end. */
	/* Who serialised it: the switch or the home agent (migration's aim). */
	if (c->in_switch)
		NA_STAT_INC(t->n->st.req.events_in_switch);
	else
		NA_STAT_INC(t->n->st.req.events_at_home);
	return NA_EV_OK;
}

/* ---- a miss or an eviction, from the request to the unlock ---------------- */

/* A write-back inside a granted event gave up (stopping): the event ends
 * without its unlock, its requests settled. */
static int
gave_up(struct dsm_thread *t, uint64_t tag)
{
	na_rec_end(t->n->rec, t->id, tag, NA_REC_SETTLED);
	return -EINTR;
}

static void
release_busy(struct na_cbucket *b, struct na_centry *e)
{
	pthread_mutex_lock(&b->mu);
	e->busy = NA_NOBODY;
	na_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->mu);
}

int
na_req_evict(struct dsm_thread *t, struct na_cbucket *b, struct na_centry *e)
{
	uint32_t bs = t->d->topo.block_size;
	struct na_retry rt = { 0 };

	for (unsigned attempt = 0;; attempt++) {
		struct na_collect c;
		uint32_t seq, cs;
		uint64_t tag;
		uint8_t st, type, gs;
		int ev;

		pthread_mutex_lock(&b->mu);
		st = e->state;
		tag = e->tag;
		if (st == NA_L_INVALID) { /* invalidated meanwhile */
			e->used = false;
			e->busy = NA_NOBODY;
			na_cond_broadcast(&b->cv);
			pthread_mutex_unlock(&b->mu);
			if (rt.seq) /* a NACKed eviction not retried */
				na_req_give_up(t, rt.tag, rt.seq);
			return 0;
		}
		pthread_mutex_unlock(&b->mu);
		type = st == NA_L_MODIFIED ? LCF_T_EVICT_MODIFIED
					   : LCF_T_EVICT_SHARED;
		ev = na_req_event(t, type, tag, &c, &rt);
		seq = rt.seq;
		if (ev == NA_EV_ABORT) {
			release_busy(b, e);
			return -EINTR;
		}
		if (ev == NA_EV_NACK) {
			na_req_backoff(t, attempt);
			continue;
		}
		if (type == LCF_T_EVICT_MODIFIED) {
			bool twin;

			pthread_mutex_lock(&b->mu);
			memcpy(t->buf, e->data, bs);
			twin = e->twin != NULL;
			if (twin)
				memcpy(t->tbuf, e->twin, bs);
			pthread_mutex_unlock(&b->mu);
			if (na_req_writeback_diff(t, seq, tag, t->buf,
						  twin ? t->tbuf : NULL) < 0) {
				release_busy(b, e);
				return gave_up(t, tag);
			}
		}
		pthread_mutex_lock(&b->mu);
		e->state = NA_L_INVALID;
		na_centry_twin_free(e);
		e->used = false;
		e->busy = NA_NOBODY;
		na_cond_broadcast(&b->cv);
		pthread_mutex_unlock(&b->mu);
		NA_STAT_INC(t->n->st.req.evictions);
		na_unlock_meta(type, c.gs_old, c.cs_old, t->n->self, &gs, &cs);
		na_req_send_unlock(t, LCF_T_WRITE_UNLOCK, seq, tag, gs, cs,
				   NA_REC_DONE);
		return 0;
	}
}

int
na_req_miss(struct dsm_thread *t, struct na_cbucket *b, struct na_centry *e,
	    uint64_t tag, uint8_t type, enum na_mode mode, uint32_t off,
	    uint32_t len, void *buf, struct na_retry *rt)
{
	struct na_collect c;
	int ev = na_req_event(t, type, tag, &c, rt);
	uint32_t seq = rt->seq, cs;
	uint8_t gs;

	if (ev != NA_EV_OK) {
		/*
		 * Queued mode: a NACKed request keeps the block busy through
		 * its backoff. Its copy may be queued at a holder and its
		 * Q_GRANT come meanwhile; another local thread claiming the
		 * block would queue behind that grant, which this thread could
		 * then never take (lib/model/qlock-threads.pml; RELBUSY finds it).
		 */
		if (ev != NA_EV_NACK || !t->n->qt)
			release_busy(b, e);
		return ev == NA_EV_NACK ? 1 : -EINTR;
	}
	/* Queued mode may have run it as another request (na_qplan.h). */
	type = c.type;
	pthread_mutex_lock(&b->mu);
	if (!na_type_needs_data(type) && e->state == NA_L_INVALID) {
		/*
		 * WRITE_SHARED granted but our copy is gone: cannot happen
		 * while the lock serialises events; be safe: put the metadata
		 * back unchanged and retry.
		 */
		e->busy = NA_NOBODY;
		na_cond_broadcast(&b->cv);
		pthread_mutex_unlock(&b->mu);
		na_req_send_unlock(t, LCF_T_WRITE_UNLOCK, seq, tag, c.gs_old,
				   c.cs_old, NA_REC_DONE);
		rt->seq = 0; /* that seq is spent */
		return 1;
	}
	if (na_type_needs_data(type))
		memcpy(e->data, t->buf, t->d->topo.block_size);
	e->state = type == LCF_T_READ_MISS ? NA_L_SHARED : NA_L_MODIFIED;
	/*
	 * PIPE twin (docs/PIPE.md, the rule lib/model checks): the home's
	 * copy is this data when it came from memory or a sharer (the block
	 * was not Modified) or was ours (WRITE_SHARED); from a Modified owner
	 * the home's copy is older, and the write-back is the whole block.
	 */
	if (t->d->pipe_depth && e->state == NA_L_MODIFIED)
		na_centry_twin(e, t->d->topo.block_size,
			       type == LCF_T_WRITE_SHARED ||
				       c.gs_old != LCF_GS_MODIFIED);
	else if (e->state != NA_L_MODIFIED && e->twin)
		na_centry_twin_free(e); /* a Shared copy keeps no twin */
	e->ts = na_now_ns();
	na_req_perform(e, t->id, mode, off, len, buf);
	if (mode == NA_M_RMW_THROUGH)
		memcpy(t->buf, e->data, t->d->topo.block_size);
	e->busy = NA_NOBODY;
	na_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->mu);

	/* Write-through: home memory gets it while we hold the lock. */
	if (mode == NA_M_RMW_THROUGH && ((struct na_rmw *)buf)->wrote &&
	    na_req_writeback(t, seq, tag, t->buf) < 0)
		return gave_up(t, tag);

	/*
	 * Read from a Modified owner: its copy is now clean, so global memory
	 * must get the data before the block can become Unshared. We write
	 * it home while our read lock still holds everybody's writes off,
	 * unless the owner was the home and wrote it there as it answered;
	 * another owner sent it home itself (NA_ACK_OWNER_WB): we wait for
	 * the home's ACKs and re-send from our copy only on a timeout.
	 */
	if (type == LCF_T_READ_MISS && c.gs_old == LCF_GS_MODIFIED &&
	    !c.home_written &&
	    na_req_writeback_rest(t, seq, tag, t->buf, c.wb_have, c.owner_wb))
		return gave_up(t, tag);
	na_unlock_meta(type, c.gs_old, c.cs_old, t->n->self, &gs, &cs);
	na_req_send_unlock(t, na_unlock_type(type), seq, tag, gs, cs,
			   NA_REC_DONE);
	return 0;
}
