/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The requester's mailbox side: what its wait (na_req_wait_mail, inline in
 * na_req_mail.h) hands on (the unlock timer, the abandoned request's
 * replies), the unlock's retransmission,
 * backoff, write-backs and request/reply calls.
 * Part of the requester (which file owns what: the top of
 * na_requester.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "na_msg.h"
#include "na_recovery.h"
#include "na_req_mail.h"
#include "na_req_queued.h"
#include "na_seg.h"

/* ---- what the mailbox's wait hands on ------------------------------------- */

/* The pending unlock's timer expired (`now`): retransmit it. */
void
na_req_unlock_timer(struct dsm_thread *t, uint64_t now)
{
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
bool
na_req_stale_mail(struct dsm_thread *t, const struct na_mail *x)
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

/* ---- backoff, write-backs and calls -------------------------------------- */

/* Handle whatever arrived while no event is in progress. */
void
na_req_service(struct dsm_thread *t)
{
	while (na_req_wait_mail(t, 0) == 0)
		NA_STAT_INC(t->n->st.req.stale_replies);
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
