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
na_hq_granted(const struct na_hq_cfg *c, struct na_hqs *q, uint32_t id,
	      uint32_t seq)
{
	if (!c->queued)
		return;
	/* The lock was free, so no queue existed: a new tenure. */
	q->holder = id;
	q->fwd = 0;
	q->seq = seq;
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
	   uint32_t seq, uint32_t count, uint32_t next, uint32_t next_seq,
	   uint32_t *fwd_cnt)
{
	*fwd_cnt = q->fwd;
	if (!c->queued || !na_hq_holds(q, id, seq))
		return LCF_Q_NOT_HOLDER;
	if (q->fwd & LCF_Q_CLOSING)
		return LCF_Q_IS_CLOSING;
	if (!valid_next(c, next))
		return LCF_Q_BAD_NEXT;
	if (q->fwd != (count & LCF_Q_COUNT_MASK))
		return LCF_Q_COUNT;
	q->holder = next;
	q->fwd = 0;
	q->seq = next_seq;
	return LCF_Q_OK;
}

enum lcf_q_reason
na_hq_release1(const struct na_hq_cfg *c, struct na_hqs *q, uint32_t id,
	       uint32_t seq, uint32_t count, uint32_t *fwd_cnt)
{
	*fwd_cnt = q->fwd;
	if (!c->queued || !na_hq_holds(q, id, seq))
		return LCF_Q_NOT_HOLDER;
	if (!(q->fwd & LCF_Q_CLOSING) && q->fwd != (count & LCF_Q_COUNT_MASK))
		return LCF_Q_COUNT;
	q->fwd = LCF_Q_CLOSING;
	return LCF_Q_OK;
}

bool
na_hq_release2(struct na_hqs *q, uint32_t id, uint32_t seq)
{
	if (!na_hq_holds(q, id, seq) || !(q->fwd & LCF_Q_CLOSING))
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

/* Whether queue id `id` names a node declared dead (na_home.h dead). */
static bool
dead_holder(const struct na_home *h, uint32_t id)
{
	uint32_t node = lcf_q_id_node(id);

	return node < LCF_MAX_NODES &&
	       (__atomic_load_n(&h->dead, __ATOMIC_ACQUIRE) >> node & 1);
}

bool
na_home_q_busy(struct na_home *h, const struct lcf_msg *m, struct na_hreq *rq,
	       struct na_hblock *b, struct na_out *out)
{
	struct lcf_msg r;
	uint32_t aux = 0;
	uint16_t to = 0;

	/*
	 * A tenure of a node declared dead is not forwarded (NACKed, retried):
	 * its drain rebuilds the lock, and the node's new process may already
	 * wait with the same queue id (its seqs start again); it would queue
	 * the forward, a count the rebuilt FWD_CNT lacks, and its QXFER would
	 * be denied `count` for ever (lib/model/qrejoin.pml FWD).
	 */
	if (m->type > LCF_T_EVICT_MODIFIED || dead_holder(h, b->q.holder) ||
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
	/* Forward only: a late copy of an older request forwarded again must
	 * not hide the later seqs already queued. */
	if (lcf_seq_after(m->seq, rq->qfwd_seq))
		rq->qfwd_seq = m->seq;
	h->st.q_forwards++;
	return true;
}

void
na_home_q_granted(struct na_home *h, const struct lcf_msg *m,
		  struct na_hblock *b)
{
	na_hq_granted(&h->qcfg, &b->q, lcf_q_id(m->node, m->thread, m->seq),
		      m->seq);
	b->q_from = 0;
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
 * no longer releases or writes the block. Nothing goes into LAST-EXECUTED
 * of unlocks (na_home_q_end()). */
static void
q_over(struct na_hreq *rq, const struct lcf_msg *m)
{
	struct na_hheld *hl = &rq->held[m->seq & 1];

	if (hl->valid && hl->seq == m->seq && hl->tag == m->tag)
		hl->valid = false;
}

/* The full seq of QXFER's next holder `next`: its request was forwarded
 * here (it is in a queue of this home's), so its requester's last
 * forwarded seq bounds it. 0 when `next` names no requester (refused as
 * bad_next by na_hq_xfer()). */
static uint32_t
next_seq(const struct na_home *h, uint32_t next)
{
	uint32_t node = lcf_q_id_node(next);
	uint16_t thread = lcf_q_id_thread(next);

	if (next == 0 || node >= LCF_MAX_NODES || thread >= h->tpn)
		return 0;
	return na_hq_seq_of(next,
			    h->req[(size_t)node * h->tpn + thread].qfwd_seq);
}

/*
 * QXFER's next holder, 0 (refused as bad_next) when its node is declared
 * dead: the drain at the declaration took only the tenures the dead node
 * held or that were handed over, so a tenure handed to it afterwards would
 * belong to nobody (its holder, told of the failure, drops the GIVING row)
 * and its waiters wait for ever (lib/model/qfault.pml HOME, -DOLDNEXT).
 * Refused, the holder resends at its timer with the head re-read: the dead
 * node's entry leaves its queue once it is told (na_qslot_settle_dead).
 */
static uint32_t
live_next(const struct na_home *h, uint32_t next)
{
	return dead_holder(h, next) ? 0 : next;
}

void
na_home_q_end(struct na_home *h, const struct lcf_msg *m, struct na_hreq *rq,
	      struct na_hblock *b, struct na_out *out)
{
	uint32_t id = lcf_q_id(m->node, m->thread, m->seq);
	uint32_t count = m->aux & LCF_Q_COUNT_MASK, fwd_cnt = 0;
	bool xfer = m->type == LCF_T_QXFER;
	enum lcf_q_reason why;

	/*
	 * Not against LAST-EXECUTED of unlocks (as the switch keeps QXFER and
	 * QRELEASE out of LAST-UNLOCK): a given-up event's tenure is ended by
	 * its node's passing slot while the thread unlocks later seqs, so its
	 * QXFER / QRELEASE may come after a later unlock (it would be stale
	 * and ignored: the lock leaks) and before an earlier one still in
	 * flight (recorded, it would make that unlock stale). A copy of an
	 * approved one finds QSTATE moved on: `not_holder`, which the holder
	 * takes as approved.
	 */
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
		uint32_t next = live_next(h, m->copyset);

		why = na_hq_xfer(&h->qcfg, &b->q, id, m->seq, count, next,
				 next_seq(h, next), &fwd_cnt);
		if (why == LCF_Q_OK) {
			/* The write lock stays held, by the next tenure. */
			q_over(rq, m);
			b->q_from = (uint16_t)(m->node + 1);
			h->st.qxfer_approved++;
		} else {
			h->st.qxfer_denied++;
			/* a copy of an approved one, or a late one */
			h->st.qxfer_duplicate += why == LCF_Q_NOT_HOLDER;
		}
	} else {
		why = na_hq_release1(&h->qcfg, &b->q, id, m->seq, count,
				     &fwd_cnt);
		/* The second step at once: the home has no resubmit. */
		if (why == LCF_Q_OK && na_hq_release2(&b->q, id, m->seq)) {
			b->writer = false;
			b->gs = m->gstatus;
			b->cs = m->copyset;
			q_over(rq, m);
			h->st.qrelease_executed++;
		} else {
			h->st.qxfer_denied++;
			h->st.qrelease_duplicate += why == LCF_Q_NOT_HOLDER;
		}
	}
	q_ack(m, b, why, fwd_cnt, out);
}
