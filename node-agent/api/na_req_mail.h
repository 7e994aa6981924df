/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The requester's mailbox wait and its send home, inline: an event takes
 * each reply and sends each copy of its request without leaving
 * na_requester.c (docs/ARCHITECTURE.md "The path of one request"), and
 * takes the previous unlock's ACK on the way; what else the wait hands on
 * (the unlock's timer, the abandoned request's replies) is in
 * na_req_mail.c. Internal to libdsm.
 */
#ifndef NA_REQ_MAIL_H
#define NA_REQ_MAIL_H

#include <errno.h>

#include "na_msg.h"
#include "na_requester.h"

/** The pending unlock's deadline passed at `now`: retransmit it (queued
 * mode: wait on, the holder retransmits). */
void na_req_unlock_timer(struct dsm_thread *t, uint64_t now);

/** A reply for the abandoned request (t->stale, valid)? Collect it.
 * @return true when it was one. */
bool na_req_stale_mail(struct dsm_thread *t, const struct na_mail *x);

/*
 * An UNLOCK_ACK (switch) or NA_UNLOCK_ACK (home): consume it. Nobody waits
 * for it: the thread may take it long after it came (hits in between),
 * so the round trip ends at its arrival, not here (a late sample inflated
 * the RTT, and with it the NACK back-off, up to 1000x).
 */
static inline void
na_req_unlock_ack(struct dsm_thread *t, const struct na_mail *x)
{
	const struct lcf_msg *m = &x->m;

	if (t->unl.valid && m->seq == t->unl.m.seq && m->tag == t->unl.m.tag) {
		if (!t->unl.retx && !t->unl.queued && t->unl.wired &&
		    x->at_ns >= t->unl.sent_ns)
			na_req_rtt_sample(t, x->at_ns - t->unl.sent_ns);
		t->unl.valid = false;
	} else {
		NA_STAT_INC(t->n->st.req.stale_replies);
	}
}

/** Copy `m` of an event's request, unlock or ABORT went on the wire. */
static inline void
na_req_on_wire(struct dsm_thread *t, const struct lcf_msg *m)
{
	/* lib/model/homelocal.pml -guard: a later copy going local could
	 * leave this one to take the switch's lock after the unlock. */
	if (t->local_seq == m->seq)
		t->local_seq = 0;
	t->last_wired[m->seq & 1] = m->seq;
}

/**
 * Send copy `m` of event m->seq's request (`any_owner` false), unlock or
 * ABORT (`any_owner` true) to its home (lib/model/homelocal.pml):
 * straight to the home agent (na_node_send_home_local) when `local` (no
 * copy of the event has crossed the switch), the lock mode is retry, the
 * home is this node and owns the block or any_owner, and the wrap guard
 * (NA_HOME_LOCAL_WRAP) allows; else on the wire, after which the event's
 * later copies and its unlock take the wire too (t->local_seq cleared).
 * @return true when delivered locally.
 */
static inline bool
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
	na_req_on_wire(t, m);
	return false;
}

/**
 * Wait for a message until `deadline`, consuming unlock ACKs and the
 * abandoned request's replies, and running the unlock timer on the way.
 * @return 0 with t->mail set, -ETIMEDOUT, -EAGAIN (before `deadline`)
 *         when it consumed the ACK of the pending unlock, or -EINPROGRESS
 *         when it collected an abandoned request's answer while
 *         na_req_quarantine waits (t->stale.wake).
 */
static inline int
na_req_wait_mail(struct dsm_thread *t, uint64_t deadline)
{
	for (;;) {
		uint64_t dl = deadline, now;
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

			if (t->mail.m.type == LCF_T_UNLOCK_ACK ||
			    t->mail.m.type == NA_MSG_UNLOCK_ACK) {
				na_req_unlock_ack(t, &t->mail);
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
		now = na_now_ns();
		if (t->unl.valid && now >= t->unl.deadline_ns)
			na_req_unlock_timer(t, now);
		if (rc == 0)
			return 0;
		if (dl >= deadline || na_now_ns() >= deadline)
			return -ETIMEDOUT;
	}
}

#endif /* NA_REQ_MAIL_H */
