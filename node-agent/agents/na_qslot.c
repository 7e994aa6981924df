/* SPDX-License-Identifier: BSD-3-Clause
 *
 * A node's queue-holder slots (na_qtable.h): finding and making them, and
 * turning a holder's actions into messages and local deliveries. Internal
 * to na_qtable.c; pure.
 */
#include <string.h>

#include "lcf_qlock.h"
#include "na_msg.h"
#include "na_qslot.h"

struct na_qslot *
na_qslot_find(struct na_qtable *qt, uint64_t tag, uint16_t thread)
{
	for (uint32_t i = 0; i < NA_QT_SLOTS; i++)
		if (qt->s[i].used && !qt->s[i].passing && qt->s[i].tag == tag &&
		    qt->s[i].h.thread == thread)
			return &qt->s[i];
	return NULL;
}

struct na_qslot *
na_qslot_new(struct na_qtable *qt, uint64_t tag, uint16_t thread, uint64_t now,
	     const struct na_qslot *keep)
{
	struct na_qslot *s, *best = NULL;

	for (uint32_t i = 0; i < NA_QT_SLOTS; i++) {
		s = &qt->s[i];
		if (s == keep || (s->used && s->h.st != NA_QH_IDLE))
			continue;
		if (!best || !s->used || (best->used && s->last < best->last))
			best = s;
		if (!s->used)
			break;
	}
	if (!best)
		return NULL;
	memset(best, 0, sizeof(*best) - sizeof(best->h));
	best->used = true;
	best->tag = tag;
	best->last = now;
	na_qholder_init(&best->h, NA_QORDER_FIFO, qt->self, qt->rtt);
	best->h.thread = thread;
	return best;
}

struct na_qslot *
na_qslot_for(struct na_qtable *qt, uint64_t tag, uint16_t thread, uint64_t now)
{
	struct na_qslot *s = na_qslot_find(qt, tag, thread);

	return s ? s : na_qslot_new(qt, tag, thread, now, NULL);
}

static void
local(struct na_qlocals *loc, uint16_t thread, uint8_t type, uint64_t tag,
      uint16_t self, uint32_t seq)
{
	struct na_qlocal *l;

	if (loc->n == NA_QT_LOCAL_MAX)
		return; /* not reached: at most 2 per input */
	l = &loc->l[loc->n++];
	memset(l, 0, sizeof(*l));
	l->thread = thread;
	l->m.version = LCF_VERSION;
	l->m.type = type;
	l->m.node = self;
	l->m.thread = thread;
	l->m.seq = seq;
	l->m.tag = tag;
	l->m.dst_node = self;
}

void
na_qslot_to_requester(struct na_out *out, uint8_t type, uint64_t tag,
		      const struct na_qentry *e, uint32_t aux)
{
	struct lcf_msg m = { .version = LCF_VERSION };

	m.type = type;
	m.node = e->node;
	m.thread = e->thread;
	m.seq = e->seq;
	m.tag = tag;
	m.dst_node = e->node;
	m.aux = aux;
	na_out_push(out, e->node, &m, NULL);
}

void
na_qslot_emit(struct na_qtable *qt, struct na_qslot *s, enum na_qh_state before,
	      const struct na_qacts *a, struct na_out *out,
	      struct na_qlocals *loc)
{
	const struct na_qholder *h = &s->h;

	for (uint32_t i = 0; i < a->n; i++) {
		const struct na_qact *x = &a->a[i];
		struct lcf_msg m = { .version = LCF_VERSION };

		switch (x->kind) {
		case NA_QA_QUEUED:
			na_qslot_to_requester(out, NA_MSG_Q_QUEUED, s->tag,
					      &x->req, x->aux);
			qt->st.queued_sent++;
			break;
		case NA_QA_QNACK:
			na_qslot_to_requester(out, NA_MSG_Q_NACK, s->tag,
					      &x->req, 0);
			qt->st.qnack_sent++;
			break;
		case NA_QA_QXFER:
		case NA_QA_QRELEASE:
			m.type = x->kind == NA_QA_QXFER ? LCF_T_QXFER
							: LCF_T_QRELEASE;
			m.node = qt->self;
			m.thread = x->req.thread;
			m.seq = x->req.seq;
			m.tag = s->tag;
			m.aux = x->count & LCF_Q_COUNT_MASK;
			if (x->kind == NA_QA_QXFER) {
				m.copyset = x->next;
				qt->st.qxfer_sent++;
			} else {
				m.gstatus = x->gstatus;
				m.copyset = x->copyset;
				qt->st.qrelease_sent++;
			}
			m.dst_node = qt->home_of(qt->home_ctx, s->tag);
			na_out_push(out, m.dst_node, &m, NULL);
			break;
		case NA_QA_QGRANT:
			m.type = NA_MSG_Q_GRANT;
			m.node = x->req.node;
			m.thread = x->req.thread;
			m.seq = x->req.seq;
			m.tag = s->tag;
			m.gstatus = x->gstatus;
			m.copyset = x->copyset;
			m.aux = x->aux;
			m.len = (uint16_t)x->payload_len;
			m.dst_node = x->req.node;
			na_out_push(out, m.dst_node, &m, x->payload);
			qt->st.qgrant_sent++;
			break;
		case NA_QA_QGRANT_ACK:
			m.type = NA_MSG_Q_GRANT_ACK;
			m.node = x->req.node;
			m.thread = x->req.thread;
			m.seq = x->req.seq;
			m.tag = s->tag;
			m.dst_node = x->dst;
			na_out_push(out, x->dst, &m, NULL);
			break;
		case NA_QA_GRANTED:
			local(loc, x->req.thread, NA_MSG_Q_GRANT, s->tag,
			      qt->self, x->req.seq);
			loc->l[loc->n - 1].m.gstatus = x->gstatus;
			loc->l[loc->n - 1].m.copyset = x->copyset;
			qt->st.qgrant_taken++;
			break;
		case NA_QA_LOST:
			qt->st.lost_declared += x->n;
			break;
		case NA_QA_WAIT:
			qt->st.count_waits++;
			break;
		case NA_QA_OVER:
			break;
		}
	}
	/* QXFER/QRELEASE approved: the event is over for its requester. */
	if (before == NA_QH_ENDING && h->st != NA_QH_ENDING)
		local(loc, h->thread, LCF_T_UNLOCK_ACK, s->tag, qt->self,
		      h->seq);
}
