/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The queue holder's and the next holder's decisions (na_qholder.h,
 * docs/QUEUED-LOCKS.md 5, lib/model/qlock.pml proctype node).
 */
#include <errno.h>
#include <string.h>

#include "lcf_qlock.h"
#include "na_qgrant.h"
#include "na_qholder.h"

void
na_qholder_init(struct na_qholder *h, enum na_qorder order, uint16_t node,
		uint64_t rtt)
{
	memset(h, 0, sizeof(*h));
	h->order = order;
	h->node = node;
	h->rtt = rtt ? rtt : 1;
	na_qfifo_init(&h->q, order, node, 0, 0);
}

static struct na_qact *
emit(struct na_qacts *out, enum na_qact_kind kind)
{
	struct na_qact *a;

	if (out->n == NA_QH_MAX_ACTS)
		return NULL; /* not reached: at most LOST runs + 1 per input */
	a = &out->a[out->n++];
	memset(a, 0, sizeof(*a));
	a->kind = kind;
	return a;
}

static struct na_qentry
self_entry(const struct na_qholder *h)
{
	return (struct na_qentry){ .node = h->node,
				   .thread = h->thread,
				   .seq = h->seq };
}

static uint64_t
bound(const struct na_qholder *h)
{
	return NA_QH_BOUND_RTTS * h->rtt;
}

/* The retransmission timer doubled, capped: a holder whose QXFER, QRELEASE
 * or Q_GRANT keeps being lost goes on trying at the cap. */
static uint64_t
backoff(const struct na_qholder *h)
{
	uint64_t cap = bound(h) > NA_QH_RTO_MAX_NS ? bound(h)
						   : NA_QH_RTO_MAX_NS;

	return h->rto * 2 < cap ? h->rto * 2 : cap;
}

/* The event's tenure is over: forget its queue (model: idle()). */
static void
to_idle(struct na_qholder *h, struct na_qacts *out)
{
	struct na_qact *a = emit(out, NA_QA_OVER);

	if (a)
		a->req = self_entry(h);
	h->st = NA_QH_IDLE;
	na_qfifo_init(&h->q, h->order, h->node, h->thread, h->seq);
	h->next = 0;
	h->rest_len = 0;
	h->count_wait = false;
	h->fwd_cnt = 0;
	h->capped = false;
	h->pinned = false;
	h->sent_max = 0;
}

int
na_qholder_request(struct na_qholder *h, uint16_t thread, uint32_t seq)
{
	if (h->st != NA_QH_IDLE)
		return -EBUSY;
	h->st = NA_QH_WAIT;
	h->thread = thread;
	h->seq = seq;
	h->id = lcf_q_id(h->node, thread, seq);
	na_qfifo_init(&h->q, h->order, h->node, thread, seq);
	h->next = 0;
	h->rest_len = 0;
	h->count_wait = false;
	h->fwd_cnt = 0;
	h->capped = false;
	h->pinned = false;
	h->sent_max = 0;
	h->release_only = false;
	return 0;
}

int
na_qholder_switch_granted(struct na_qholder *h, uint16_t thread, uint32_t seq)
{
	if (h->st != NA_QH_WAIT || h->thread != thread || h->seq != seq)
		return -EINVAL;
	h->st = NA_QH_HOLD;
	return 0;
}

int
na_qholder_cancel(struct na_qholder *h, uint16_t thread, uint32_t seq)
{
	if (h->st != NA_QH_WAIT || h->thread != thread || h->seq != seq)
		return -EINVAL;
	h->st = NA_QH_IDLE;
	na_qfifo_init(&h->q, h->order, h->node, thread, seq);
	return 0;
}

/* The count the end carries (lib/model/qtag.pml UPTO): the indices
 * received but those past the highest FWD_CNT a `count` denial reported
 * that had come when it came. FWD_CNT never falls within a tenure and an
 * index of it reaches the holder only after the switch counted it, so
 * such an index is an older tenure's copy whose tag aliases, unless the
 * denial answers an earlier send (a later denial judges it again); one
 * that comes after the denial is counted. */
static uint32_t
end_count(const struct na_qholder *h)
{
	if (!h->capped)
		return na_qfifo_count(&h->q);
	return na_qfifo_count_upto(&h->q, h->fwd_max) +
	       na_qfifo_count_past(&h->q, h->fwd_max) - h->suspects;
}

/* The end: QRELEASE (queue empty, or release_only; next 0) or QXFER to
 * the head, chosen at the first send and kept while pinned (model qtag.pml
 * PIN): an end sent before may still be approved, and the answer does not
 * say which send it answers: a QRELEASE approved while a forward turned
 * the end into a QXFER would have the lock granted while the switch
 * holds it free. */
static void
choose_end(struct na_qholder *h)
{
	const struct na_qentry *head = na_qfifo_head(&h->q);

	if (h->pinned)
		return;
	h->pinned = true;
	if (!head || h->release_only) {
		h->next = 0;
		return;
	}
	h->next_e = *head;
	h->next = lcf_q_id(head->node, head->thread, head->seq);
}

/* Send the end with the count (model: the HOLD step and the ENDING
 * timer). */
static void
send_end(struct na_qholder *h, uint64_t now, struct na_qacts *out)
{
	struct na_qact *a;
	int r;

	h->count = end_count(h);
	if (h->count > h->sent_max)
		h->sent_max = h->count;
	h->count_wait = false;
	h->st = NA_QH_ENDING;
	h->retx_at = now + h->rto;
	choose_end(h);
	if (h->next == 0) {
		h->rest_len = 0;
		a = emit(out, NA_QA_QRELEASE);
		if (a) {
			a->req = self_entry(h);
			a->count = h->count;
			a->gstatus = h->gstatus;
			a->copyset = h->copyset;
		}
		return;
	}
	r = na_qfifo_export_rest(&h->q, &h->next_e, h->rest, sizeof(h->rest));
	h->rest_len = r > 0 ? (uint32_t)r : 0; /* fits: rest < NA_QFIFO_MAX */
	a = emit(out, NA_QA_QXFER);
	if (a) {
		a->req = self_entry(h);
		a->count = h->count;
		a->next = h->next;
	}
}

static uint32_t
position(const struct na_qfifo *q, const struct na_qentry *e)
{
	for (uint32_t i = 0; i < q->n; i++)
		if (q->e[i].node == e->node && q->e[i].thread == e->thread &&
		    q->e[i].seq == e->seq)
			return i;
	return q->n;
}

static bool
seen(const struct na_qholder *h, const struct na_qentry *e, uint64_t now)
{
	for (uint32_t i = 0; i < NA_QH_SEEN; i++) {
		const struct na_qh_seen *s = &h->seen[i];

		if (s->until > now && s->node == e->node &&
		    s->thread == e->thread && s->seq == e->seq)
			return true;
	}
	return position(&h->q, e) < h->q.n;
}

/* Remember the ids of the queue handed over, for the delay bound. */
static void
remember_queue(struct na_qholder *h, uint64_t now)
{
	uint32_t slot = 0;

	for (uint32_t i = 0; i < h->q.n; i++) {
		while (slot < NA_QH_SEEN && h->seen[slot].until > now)
			slot++;
		if (slot == NA_QH_SEEN)
			return; /* full: a late duplicate gets a Q_NACK */
		h->seen[slot] = (struct na_qh_seen){
			.node = h->q.e[i].node,
			.thread = h->q.e[i].thread,
			.seq = h->q.e[i].seq,
			.until = now + bound(h),
		};
	}
}

static bool
holds_tenure(const struct na_qholder *h, uint16_t tenure)
{
	return (h->st == NA_QH_WAIT || h->st == NA_QH_HOLD ||
		h->st == NA_QH_ENDING) &&
	       tenure == lcf_q_tenure(h->id);
}

int
na_qholder_forward(struct na_qholder *h, const struct na_qentry *req,
		   uint32_t aux, uint64_t now, struct na_qacts *out)
{
	uint32_t index = aux & LCF_Q_COUNT_MASK;
	struct na_qact *a;
	int r;

	if (index == 0)
		return -EINVAL;
	if (!holds_tenure(h, (uint16_t)(aux >> 16))) {
		/* Not this tenure (any more): a duplicate of a request it
		 * queued or handed over (or its own) is ignored; any other
		 * came after the bound: Q_NACK, the requester retries. */
		if (req->node == h->node || seen(h, req, now))
			return 0;
		a = emit(out, NA_QA_QNACK);
		if (a)
			a->req = *req;
		return 0;
	}
	r = na_qfifo_forward(&h->q, req, index);
	if (r == NA_QFWD_QUEUED) {
		a = emit(out, NA_QA_QUEUED);
		if (a) {
			a->req = *req;
			a->aux = position(&h->q, req);
		}
	}
	if (h->st == NA_QH_ENDING && h->count_wait &&
	    end_count(h) >= h->fwd_cnt)
		send_end(h, now, out); /* the count caught up */
	return 0;
}

int
na_qholder_done(struct na_qholder *h, uint8_t gstatus, uint32_t copyset,
		uint64_t now, struct na_qacts *out)
{
	if (h->st != NA_QH_HOLD)
		return -EINVAL;
	h->gstatus = gstatus;
	h->copyset = copyset;
	h->rto = bound(h);
	send_end(h, now, out);
	return 0;
}

static void
send_grant(struct na_qholder *h, struct na_qacts *out)
{
	struct na_qact *a = emit(out, NA_QA_QGRANT);

	if (!a)
		return;
	a->req = h->next_e;
	a->gstatus = h->gstatus;
	a->copyset = h->copyset;
	a->payload = h->rest;
	a->payload_len = h->rest_len;
	a->aux = na_qg_aux(h->node, (uint16_t)(h->rest_len / NA_QENTRY_WIRE));
}

/* A denied end: wait (the bound from the first denial on) and resend. */
static void
wait_denied(struct na_qholder *h, uint64_t now, struct na_qacts *out)
{
	struct na_qact *a;

	if (!h->count_wait) {
		h->count_wait = true;
		h->deadline = now + bound(h);
	}
	a = emit(out, NA_QA_WAIT);
	if (a) {
		a->req = self_entry(h);
		a->deadline = h->deadline;
	}
}

int
na_qholder_qack(struct na_qholder *h, uint32_t seq, uint8_t reason,
		uint32_t fwd_cnt, uint64_t now, struct na_qacts *out)
{
	if (h->st != NA_QH_ENDING || seq != h->seq)
		return -ESRCH;
	switch (reason) {
	case LCF_Q_OK:
	case LCF_Q_NOT_HOLDER: /* an earlier copy was approved */
		if (h->next == 0) {
			to_idle(h, out);
			return 0;
		}
		h->st = NA_QH_GIVING;
		h->rto = bound(h);
		h->retx_at = now + h->rto;
		send_grant(h, out);
		return 0;
	case LCF_Q_COUNT:
		if (fwd_cnt > h->sent_max)
			h->pinned = false; /* no end sent can be approved */
		if (h->capped && fwd_cnt < h->fwd_max)
			return 0; /* an answer to an earlier send (late or
				   * duplicated): the timer resends */
		h->capped = true;
		h->fwd_max = fwd_cnt;
		h->suspects = na_qfifo_count_past(&h->q, fwd_cnt);
		if (fwd_cnt > h->fwd_cnt || !h->count_wait)
			h->fwd_cnt = fwd_cnt;
		if (end_count(h) >= h->fwd_cnt) {
			send_end(h, now, out);
			return 0;
		}
		wait_denied(h, now, out);
		return 0;
	case LCF_Q_IS_CLOSING:
		/* A QRELEASE approved whose releasing pass another QRELEASE
		 * of this thread stopped (the switch's gate moved on): the
		 * timer sends it again. */
		return 0;
	case LCF_Q_WAITING:
		/* A switch tenure whose readers still hold: not sent by a
		 * correct holder. A denial: resend after the bound. */
		if (!h->count_wait)
			h->fwd_cnt = end_count(h);
		wait_denied(h, now, out);
		return 0;
	default:
		return -EPROTO;
	}
}

int
na_qholder_qgrant(struct na_qholder *h, uint16_t giver, uint16_t thread,
		  uint32_t seq, uint8_t gstatus, uint32_t copyset,
		  const uint8_t *buf, uint32_t len, uint64_t now,
		  struct na_qacts *out)
{
	struct na_qact *a;
	int r;

	(void)now;
	if (h->st == NA_QH_WAIT && h->thread == thread && h->seq == seq) {
		r = na_qfifo_import_granted(&h->q, buf, len);
		if (r < 0)
			return r;
		h->st = NA_QH_HOLD;
		h->gstatus = gstatus;
		h->copyset = copyset;
		a = emit(out, NA_QA_GRANTED);
		if (a) {
			a->req = self_entry(h);
			a->gstatus = gstatus;
			a->copyset = copyset;
		}
	}
	/* A duplicate (or any other) Q_GRANT is acknowledged and changes
	 * nothing (the model's receive of QGRANT). */
	a = emit(out, NA_QA_QGRANT_ACK);
	if (a) {
		a->dst = giver;
		a->req = (struct na_qentry){ .node = h->node,
					     .thread = thread,
					     .seq = seq };
	}
	return 0;
}

int
na_qholder_qgrant_ack(struct na_qholder *h, uint16_t node, uint16_t thread,
		      uint32_t seq, uint64_t now, struct na_qacts *out)
{
	if (h->st != NA_QH_GIVING || lcf_q_id(node, thread, seq) != h->next)
		return -ESRCH;
	remember_queue(h, now);
	to_idle(h, out);
	return 0;
}

/* LOST actions for the indices 1..fwd_cnt not received (runs; the last
 * run takes the rest when the actions run out). */
static void
emit_lost(struct na_qholder *h, struct na_qacts *out)
{
	uint32_t top = h->fwd_cnt < NA_QFIFO_INDICES ? h->fwd_cnt
						     : NA_QFIFO_INDICES;
	struct na_qact *a = NULL;

	for (uint32_t i = 1; i <= top; i++) {
		bool got = h->q.seen[(i - 1) / 64] >> ((i - 1) % 64) & 1;

		if (got) {
			if (a && out->n < NA_QH_MAX_ACTS - 1)
				a = NULL; /* close the run */
			continue;
		}
		if (a) {
			a->n = i - a->first + 1;
			continue;
		}
		a = emit(out, NA_QA_LOST);
		if (!a)
			return;
		a->req = self_entry(h);
		a->first = i;
		a->n = 1;
	}
}

int
na_qholder_tick(struct na_qholder *h, uint64_t now, struct na_qacts *out)
{
	if (h->st == NA_QH_ENDING && h->count_wait) {
		if (now < h->deadline)
			return 0;
		/* The bound passed: indices still missing are lost (their
		 * requesters had no Q_QUEUED and retransmit). */
		emit_lost(h, out);
		na_qfifo_declare_lost(&h->q, h->fwd_cnt);
		h->rto = bound(h);
		send_end(h, now, out);
	} else if (h->st == NA_QH_ENDING && now >= h->retx_at) {
		h->rto = backoff(h);
		send_end(h, now, out);
	} else if (h->st == NA_QH_GIVING && now >= h->retx_at) {
		h->rto = backoff(h);
		h->retx_at = now + h->rto;
		send_grant(h, out);
	}
	return 0;
}

uint64_t
na_qholder_next_timer(const struct na_qholder *h)
{
	if (h->st == NA_QH_ENDING)
		return h->count_wait ? h->deadline : h->retx_at;
	if (h->st == NA_QH_GIVING)
		return h->retx_at;
	return UINT64_MAX;
}
