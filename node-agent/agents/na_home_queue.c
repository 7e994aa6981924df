/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Queued locks at the home agent (docs/QUEUED-LOCKS.md section 11): QSTATE
 * per home-owned block with the switch's rules (lib/lcf/lcf_queue.c), and
 * the home's NA_QFWD and NA_QXFER_ACK. See na_home_queue.h.
 */
#include "na_home_queue.h"

#include "na_home.h"
#include "na_msg.h"
#include "topo.h"

void
na_hq_cfg_init(struct na_hq_cfg *c, const struct topo *t)
{
	c->queued = t->sw.queued;
	c->node_mask = t->node_mask;
	c->tpn = t->threads_per_node;
}

void
na_hq_granted(const struct na_hq_cfg *c, struct na_hqs *q, uint32_t id)
{
	if (!c->queued)
		return;
	/* The lock was free, so no queue existed: a new tenure. */
	q->holder = id;
	q->fwd = 0;
}

bool
na_hq_busy(const struct na_hq_cfg *c, struct na_hqs *q, bool writer,
	   uint16_t *to, uint32_t *aux)
{
	/* Readers hold it, or a lock without a tenure (a migration's). */
	if (!c->queued || !writer || q->holder == 0 ||
	    (q->fwd & LCF_Q_CLOSING) ||
	    (q->fwd & LCF_Q_COUNT_MASK) == LCF_Q_COUNT_MASK)
		return false;
	q->fwd++;
	*to = (uint16_t)lcf_q_id_node(q->holder);
	*aux = lcf_q_fwd_aux(q->holder, q->fwd);
	return true;
}

static bool
valid_next(const struct na_hq_cfg *c, uint32_t next)
{
	uint32_t node = lcf_q_id_node(next);

	return next != 0 && node < LCF_MAX_NODES &&
	       (c->node_mask & (1u << node)) && lcf_q_id_thread(next) < c->tpn;
}

enum lcf_q_reason
na_hq_xfer(const struct na_hq_cfg *c, struct na_hqs *q, uint32_t id,
	   uint32_t count, uint32_t next, uint32_t *fwd_cnt)
{
	*fwd_cnt = q->fwd;
	if (!c->queued || !na_hq_holds(q, id))
		return LCF_Q_NOT_HOLDER;
	if (q->fwd & LCF_Q_CLOSING)
		return LCF_Q_IS_CLOSING;
	if (!valid_next(c, next))
		return LCF_Q_BAD_NEXT;
	if (q->fwd != (count & LCF_Q_COUNT_MASK))
		return LCF_Q_COUNT;
	q->holder = next;
	q->fwd = 0;
	return LCF_Q_OK;
}

enum lcf_q_reason
na_hq_release1(const struct na_hq_cfg *c, struct na_hqs *q, uint32_t id,
	       uint32_t count, uint32_t *fwd_cnt)
{
	*fwd_cnt = q->fwd;
	if (!c->queued || !na_hq_holds(q, id))
		return LCF_Q_NOT_HOLDER;
	if (!(q->fwd & LCF_Q_CLOSING) && q->fwd != (count & LCF_Q_COUNT_MASK))
		return LCF_Q_COUNT;
	q->fwd = LCF_Q_CLOSING;
	return LCF_Q_OK;
}

bool
na_hq_release2(struct na_hqs *q, uint32_t id)
{
	if (!na_hq_holds(q, id) || !(q->fwd & LCF_Q_CLOSING))
		return false;
	na_hq_clear(q);
	return true;
}

/* ---- the home's messages ------------------------------------------------- */

/* NA_QFWD's payload: the request's type, class 0, pad (static: the output
 * list keeps a pointer until it is sent). */
static const uint8_t qfwd_payload[LCF_T_EVICT_MODIFIED + 1][4] = {
	{ 0 }, { 1 }, { 2 }, { 3 }, { 4 }, { 5 },
};

bool
na_home_q_busy(struct na_home *h, const struct lcf_msg *m, struct na_hblock *b,
	       struct na_out *out)
{
	struct lcf_msg r;
	uint32_t aux = 0;
	uint16_t to = 0;

	if (m->type > LCF_T_EVICT_MODIFIED ||
	    !na_hq_busy(&h->qcfg, &b->q, b->writer, &to, &aux))
		return false;
	r = *m;
	r.type = NA_MSG_QFWD;
	r.flags = 0;
	r.gstatus = b->gs;
	r.copyset = b->cs;
	r.dst_node = to;
	r.aux = aux;
	r.len = sizeof(qfwd_payload[0]);
	na_out_push(out, to, &r, qfwd_payload[m->type]);
	h->st.q_forwards++;
	return true;
}

void
na_home_q_granted(struct na_home *h, const struct lcf_msg *m,
		  struct na_hblock *b)
{
	na_hq_granted(&h->qcfg, &b->q, lcf_q_id(m->node, m->thread, m->seq));
}

static void
q_ack(const struct lcf_msg *m, const struct na_hblock *b, enum lcf_q_reason why,
      uint32_t fwd_cnt, struct na_out *out)
{
	struct lcf_msg r;

	na_reply_hdr(m, &r, NA_MSG_QXFER_ACK);
	r.flags = why == LCF_Q_OK ? 0 : LCF_F_FAIL;
	r.gstatus = b->gs;
	r.copyset = b->cs;
	r.aux = lcf_q_ack_aux(m->type, why, fwd_cnt);
	na_out_push(out, m->node, &r, NULL);
}

/* The tenure is over: its lock record (if its request took the lock here)
 * no longer releases or writes the block; its unlock is recorded. */
static void
q_over(struct na_hreq *rq, const struct lcf_msg *m)
{
	struct na_hheld *hl = &rq->held[m->seq & 1];

	if (hl->valid && hl->seq == m->seq && hl->tag == m->tag)
		hl->valid = false;
	na_le_commit(&rq->unlock, m->seq);
}

void
na_home_q_end(struct na_home *h, const struct lcf_msg *m, struct na_hreq *rq,
	      struct na_hblock *b, struct na_out *out)
{
	uint32_t id = lcf_q_id(m->node, m->thread, m->seq);
	uint32_t count = m->aux & LCF_Q_COUNT_MASK, fwd_cnt = 0;
	bool xfer = m->type == LCF_T_QXFER;
	enum lcf_q_reason why;

	switch (na_le_check(&rq->unlock, m->seq)) {
	case NA_LE_STALE:
		h->st.stale++;
		return;
	case NA_LE_DUPLICATE: /* an approved one: approved again */
		if (xfer)
			h->st.qxfer_duplicate++;
		else
			h->st.qrelease_duplicate++;
		q_ack(m, b, LCF_Q_OK, 0, out);
		return;
	case NA_LE_EXECUTE:
		break;
	}
	/*
	 * The event is over for its requests (the switch's LAST-UNLOCK): a
	 * late copy of a request that was forwarded, never executed here, is
	 * answered NACK as a duplicate.
	 */
	if (na_le_check(&rq->req, m->seq) == NA_LE_EXECUTE) {
		na_le_commit(&rq->req, m->seq);
		rq->dec = (struct na_hdec){ .kind = NA_HDEC_NACK,
					    .type = m->type,
					    .tag = m->tag };
	}
	if (xfer) {
		why = na_hq_xfer(&h->qcfg, &b->q, id, count, m->copyset,
				 &fwd_cnt);
		if (why == LCF_Q_OK) {
			/* The write lock stays held, by the next tenure. */
			q_over(rq, m);
			h->st.qxfer_approved++;
		} else {
			h->st.qxfer_denied++;
		}
	} else {
		why = na_hq_release1(&h->qcfg, &b->q, id, count, &fwd_cnt);
		/* The second step at once: the home has no resubmit. */
		if (why == LCF_Q_OK && na_hq_release2(&b->q, id)) {
			b->writer = false;
			b->gs = m->gstatus;
			b->cs = m->copyset;
			q_over(rq, m);
			h->st.qrelease_executed++;
		} else {
			h->st.qxfer_denied++;
		}
	}
	q_ack(m, b, why, fwd_cnt, out);
}
