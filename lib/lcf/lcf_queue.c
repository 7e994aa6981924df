/* SPDX-License-Identifier: BSD-3-Clause
 *
 * QSTATE = {QHOLDER, FWD_CNT} of the queued lock mode (docs/QUEUED-LOCKS.md
 * sections 2-4; the model is lib/model/qlock.pml). One paired register per
 * way slot: QXFER must compare FWD_CNT and reset both halves in one step,
 * or a forward could slip in between. Each function is the one
 * read-modify-write of its pass kind.
 */
#include "lcf_queue.h"

static inline struct lcf_q *
q_at(struct lcf_pipeline *p, uint32_t way, uint32_t slot)
{
	return &p->q[way][slot];
}

enum lcf_q_verdict
lcf_q_request(struct lcf_pipeline *p, uint32_t way, uint32_t slot,
	      const struct lcf_q_in *in, uint16_t *to, uint32_t *aux)
{
	struct lcf_q *q = q_at(p, way, slot);

	if (in->grant) {
		/* The lock was free, so no queue existed: a new tenure. */
		*q = (struct lcf_q){ in->id, 0 };
		return LCF_QV_NONE;
	}
	if (in->waiter) {
		/* WAITING was clear, so no queue existed either. An event
		 * that is over polls for nothing: its WAITING is undone. */
		if (in->over)
			return LCF_QV_UNDO;
		*q = (struct lcf_q){ in->id, LCF_Q_SWITCH };
		return LCF_QV_WAIT;
	}
	if (!in->taken && q->hi == in->id && (q->lo & LCF_Q_SWITCH) &&
	    !(q->lo & LCF_Q_CLOSING))
		return in->readers ? LCF_QV_WAIT : LCF_QV_GRANT;
	if (!in->busy || q->hi == 0 || (q->lo & LCF_Q_CLOSING) ||
	    (q->lo & LCF_Q_COUNT_MASK) == LCF_Q_COUNT_MASK)
		return LCF_QV_NONE;
	q->lo++;
	*to = (uint16_t)lcf_q_id_node(q->hi);
	*aux = lcf_q_fwd_aux(q->hi, q->lo);
	return LCF_QV_FORWARD;
}

/* A waiting writer's tenure the readers still hold: never granted, so its
 * holder cannot hand it on or end it. */
static inline bool
q_waiting(const struct lcf_q *q, uint16_t lock)
{
	return (q->lo & LCF_Q_SWITCH) && (lock & LCF_LOCK_READERS) != 0;
}

static bool
valid_next(const struct lcf_pipeline *p, uint32_t next)
{
	uint32_t node = lcf_q_id_node(next);

	return next != 0 && node < LCF_MAX_NODES &&
	       (p->cfg.node_mask & (1u << node)) &&
	       lcf_q_id_thread(next) < p->cfg.threads_per_node;
}

enum lcf_q_reason
lcf_q_xfer(struct lcf_pipeline *p, uint32_t way, uint32_t slot, uint32_t id,
	   uint32_t count, uint32_t next, uint16_t lock, uint32_t *fwd_cnt)
{
	struct lcf_q *q = q_at(p, way, slot);

	*fwd_cnt = q->lo;
	if (q->hi != id)
		return LCF_Q_NOT_HOLDER;
	if (q_waiting(q, lock))
		return LCF_Q_WAITING;
	if (q->lo & LCF_Q_CLOSING)
		return LCF_Q_IS_CLOSING;
	if (!valid_next(p, next))
		return LCF_Q_BAD_NEXT;
	if ((q->lo & LCF_Q_COUNT_MASK) != (count & LCF_Q_COUNT_MASK))
		return LCF_Q_COUNT;
	*q = (struct lcf_q){ next, 0 };
	return LCF_Q_OK;
}

enum lcf_q_reason
lcf_q_release1(struct lcf_pipeline *p, uint32_t way, uint32_t slot, uint32_t id,
	       uint32_t count, uint16_t lock, uint32_t *fwd_cnt)
{
	struct lcf_q *q = q_at(p, way, slot);

	*fwd_cnt = q->lo;
	if (q->hi != id)
		return LCF_Q_NOT_HOLDER;
	if (!(q->lo & LCF_Q_CLOSING) && q_waiting(q, lock))
		return LCF_Q_WAITING;
	if (!(q->lo & LCF_Q_CLOSING) &&
	    (q->lo & LCF_Q_COUNT_MASK) != (count & LCF_Q_COUNT_MASK))
		return LCF_Q_COUNT;
	q->lo = LCF_Q_CLOSING;
	return LCF_Q_OK;
}

bool
lcf_q_release2(struct lcf_pipeline *p, uint32_t way, uint32_t slot, uint32_t id,
	       bool exec)
{
	struct lcf_q *q;

	if (p->q[way] == NULL) /* retry mode: forged metadata reached here */
		return false;
	q = q_at(p, way, slot);
	if (q->hi != id || !(q->lo & LCF_Q_CLOSING))
		return false;
	if (!exec)
		return true;
	*q = (struct lcf_q){ 0, 0 };
	return false;
}

uint16_t
lcf_q_gate_open(struct lcf_pipeline *p, uint32_t req, uint32_t seq)
{
	struct lcf_qgate *g = &p->q_gate[req];

	if (!(g->eo & 1))
		g->eo += LCF_QG_EPOCH_ONE + 1;
	else if (g->seq != seq)
		g->eo += LCF_QG_EPOCH_ONE;
	g->seq = seq;
	return (uint16_t)(g->eo >> 16);
}

bool
lcf_q_gate_close(struct lcf_pipeline *p, uint32_t req, uint32_t seq,
		 uint16_t epoch)
{
	struct lcf_qgate *g = &p->q_gate[req];

	if (g->seq != seq || g->eo != ((uint32_t)epoch << 16 | 1))
		return false;
	g->eo -= 1;
	return true;
}

bool
lcf_q_stale_poll(const struct lcf_pipeline *p, uint32_t way, uint32_t slot,
		 uint32_t id)
{
	const struct lcf_q *q = &p->q[way][slot];

	return q->hi == id && (q->lo & LCF_Q_SWITCH) &&
	       !(q->lo & LCF_Q_CLOSING);
}

bool
lcf_q_abort_waiting(const struct lcf_pipeline *p, uint32_t way, uint32_t slot,
		    uint32_t id)
{
	const struct lcf_q *q;

	if (!p->cfg.queued || p->q[way] == NULL)
		return false;
	q = &p->q[way][slot];
	return q->hi == id && (q->lo & LCF_Q_SWITCH);
}

void
lcf_q_wait_reply(struct lcf_msg *m, bool grant, uint16_t readers)
{
	uint8_t orig = m->type;

	m->type = grant ? LCF_T_QGRANT : LCF_T_QWAIT;
	m->flags = LCF_F_IN_SWITCH;
	m->aux = (uint32_t)orig << 24 | (grant ? 0 : readers);
}

void
lcf_q_clear(struct lcf_pipeline *p, uint32_t way, uint32_t slot)
{
	if (p->q[way] != NULL)
		*q_at(p, way, slot) = (struct lcf_q){ 0, 0 };
}

bool
lcf_q_first_pass(struct lcf_pipeline *p, const struct lcf_msg *m, uint32_t way,
		 uint32_t slot, uint16_t lock, enum lcf_q_reason *why,
		 uint32_t *fwd_cnt)
{
	uint32_t id = lcf_q_id(m->node, m->thread, m->seq);
	uint32_t count = m->aux & LCF_Q_COUNT_MASK;

	*why = LCF_Q_NOT_HOLDER; /* retry mode: no QSTATE, nobody holds */
	*fwd_cnt = 0;
	if (!p->cfg.queued)
		return false;
	if (m->type == LCF_T_QRELEASE) {
		*why = lcf_q_release1(p, way, slot, id, count, lock, fwd_cnt);
		return *why == LCF_Q_OK;
	}
	*why = lcf_q_xfer(p, way, slot, id, count, m->copyset, lock, fwd_cnt);
	return false;
}

void
lcf_q_ack(struct lcf_msg *m, enum lcf_q_reason why, uint32_t fwd_cnt)
{
	uint8_t orig = m->type;

	m->type = LCF_T_QXFER_ACK;
	m->flags = LCF_F_IN_SWITCH | (why == LCF_Q_OK ? 0 : LCF_F_FAIL);
	m->aux = lcf_q_ack_aux(orig, why, fwd_cnt);
}
