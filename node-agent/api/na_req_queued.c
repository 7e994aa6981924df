/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The requester in queued lock mode (na_reqq_*): an event's registration
 * with the node's queue holders, Q_QUEUED / Q_NACK / Q_GRANT / QWAIT, the
 * grant's plan. Part of the requester (which file owns what: the top of
 * na_requester.c).
 */
#include <string.h>

#include "na_msg.h"
#include "na_req_queued.h"
#include "na_requester.h"

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
 * is in na_requester.c (na_req_send_unlock).
 */

#define NA_QUEUED_WATCHDOG_RTTS 64

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
	if (!q->on || !na_reqq_grant_here(t, &q->req))
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
