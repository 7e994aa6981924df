/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The requester in queued lock mode (na_req_queued.c,
 * docs/QUEUED-LOCKS.md 5): one event's queued-mode state and its steps;
 * the steps an event takes every time are inline here, so that it goes
 * from na_requester.c to the node's queue holders (na_node_q_*) directly.
 * Internal to libdsm.
 */
#ifndef NA_REQ_QUEUED_H
#define NA_REQ_QUEUED_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "na_msg.h"
#include "na_qplan.h"
#include "na_recovery.h"
#include "na_requester.h"

/* One event's queued-mode state. */
struct na_reqq {
	bool on;      /* registered with the node's queue holders */
	bool queued;  /* Q_QUEUED: only the watchdog retransmits */
	bool swait;   /* QWAIT: the block's waiting writer, polling */
	bool granted; /* Q_GRANT or QGRANT: the lock is the event's */
	bool noop;    /* granted, but the check failed (na_qplan.h) */
	bool sent;    /* the registration sent the request's first copy */
	struct lcf_msg req;
	struct na_qplan plan;
	uint8_t gs;
	uint32_t cs;
};

/** Is the thread's kept Q_GRANT (t->qgrant) for request `m`? */
static inline bool
na_reqq_grant_here(const struct dsm_thread *t, const struct lcf_msg *m)
{
	return t->qgrant_valid && t->qgrant.seq == m->seq &&
	       t->qgrant.tag == m->tag;
}

/** Register the event of request `m` (waits while another local event's
 * tenure on the block ends) and, registered, send `m` (q->sent) unless
 * its Q_GRANT is here already (na_reqq_pending_grant takes it). @return
 * false when a recovery round took the block meanwhile: nothing
 * registered or sent, the event is retried after the round. */
static inline bool
na_reqq_begin(struct dsm_thread *t, struct na_reqq *q, const struct lcf_msg *m)
{
	uint64_t start = na_now_ns();

	memset(q, 0, sizeof(*q));
	q->req = *m;
	for (unsigned i = 0;; i++) {
		bool send = !na_reqq_grant_here(t, m);
		int rc = na_node_q_request(t->n, t->id, m, send);

		if (rc == 0) {
			q->on = true;
			q->sent = send;
		}
		if (rc != -EBUSY && rc != -ENOSPC)
			break;
		/* A recovery round took the block: its report waits for the
		 * thread to leave, and the tenure it waits for may end only
		 * by that report (its hand-over refused until the round is
		 * over: lib/model/qrejoin.pml ROUND). Nothing is sent yet:
		 * out of the event, retried after the round. */
		if (na_rec_blocked(t->n->rec, m->tag))
			return false;
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
	return true;
}

/** A Q_GRANT for this event arrived before it (during a backoff)? Then
 * take it. @return true when taken. */
bool na_reqq_pending_grant(struct dsm_thread *t, struct na_reqq *q,
			   struct na_collect *c, uint64_t *deadline);

/** t->mail: Q_QUEUED, QWAIT, Q_NACK, Q_GRANT, or a NACK the queue overrides.
 * @return true when consumed. */
bool na_reqq_mail(struct dsm_thread *t, struct na_reqq *q, struct na_collect *c,
		  uint64_t *deadline);

/** The event's timer expired: Q_INVs again, or the request (a poll when
 * the event is the block's waiting writer). */
void na_reqq_retransmit(struct dsm_thread *t, struct na_reqq *q);

/** The event's timer after its `tries`-th retransmission: the RTT
 * estimate for a waiting writer's poll, else 6 RTTs doubled per try. */
uint64_t na_reqq_interval(const struct dsm_thread *t, const struct na_reqq *q,
			  uint32_t tries);

/*
 * The requester's only calls into the node's queue holders (na_node_q_*)
 * are na_req_queued.c's na_reqq_* and the functions below; each is a no-op
 * in retry mode, checked here so that an event in that mode does not leave
 * its file.
 */

/** t->mail is for the queue (na_reqq_mail)? Checked here first, so that an
 * event's other replies do not leave na_requester.c. @return true when
 * consumed. */
static inline bool
na_req_q_mail(struct dsm_thread *t, struct na_reqq *q, struct na_collect *c,
	      uint64_t *deadline)
{
	const struct lcf_msg *x = &t->mail.m;

	if (!q->on || x->seq != q->req.seq || x->tag != q->req.tag)
		return false;
	switch (x->type) {
	case LCF_T_QWAIT:
	case NA_MSG_Q_QUEUED:
	case NA_MSG_Q_NACK:
	case NA_MSG_Q_GRANT:
		break;
	case LCF_T_NACK:
	case NA_MSG_NACK:
		if (!q->queued && !q->granted && !q->swait)
			return false;
		break;
	default:
		return false;
	}
	return na_reqq_mail(t, q, c, deadline);
}

/** Queued mode: register the event (na_reqq_begin); else q is off.
 * @return false when a recovery round took the block first. */
static inline bool
na_req_q_begin(struct dsm_thread *t, struct na_reqq *q, const struct lcf_msg *m)
{
	if (t->n->qt)
		return na_reqq_begin(t, q, m);
	memset(q, 0, sizeof(*q));
	return true;
}

/** Queued mode: end the abandoned request `seq` on `tag` at the queue
 * holders (a granted one passes the lock on). */
static inline void
na_req_q_abandon(struct dsm_thread *t, uint64_t tag, uint32_t seq)
{
	if (t->n->qt)
		na_node_q_abandon(t->n, tag, t->id, seq);
}

/** Queued mode: the event completed through the switch or home path (not
 * granted): tell the holders whether it holds the queue. */
static inline void
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

/** Queued mode: the event that holds the queue ends (QXFER / QRELEASE
 * instead of the unlock). @return 0 when it held it, -ESRCH. */
static inline int
na_reqq_done(struct dsm_thread *t, uint64_t tag, uint32_t seq, uint8_t gs,
	     uint32_t cs)
{
	return na_node_q_done(t->n, tag, t->id, seq, gs, cs);
}

/** Queued mode: does request `seq` on `tag` hold the queue? */
static inline bool
na_reqq_holds(struct dsm_thread *t, uint64_t tag, uint32_t seq)
{
	return na_node_q_holds(t->n, tag, t->id, seq);
}

#endif /* NA_REQ_QUEUED_H */
