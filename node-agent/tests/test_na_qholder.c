/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The queue holder's and next holder's decisions (na_qholder,
 * docs/QUEUED-LOCKS.md 5, lib/model/qlock.pml): table-driven scenarios,
 * one input per step, the actions and the state after each.
 */
#include <errno.h>

#include <criterion/criterion.h>

#include "lcf_qlock.h"
#include "na_qgrant.h"
#include "na_qholder.h"

enum in {
	REQ = 1, /* this node's event (thread, seq) requests */
	SWG,     /* the switch granted it */
	FWD,     /* forward of (node, seq, cls) with aux */
	DONE,    /* the event is done: gstatus = aux */
	QACK,    /* QXFER_ACK: seq, reason = aux, FWD_CNT = fwd */
	QG,      /* Q_GRANT from giver `node` for (thread, seq), grant[] */
	QGACK,   /* Q_GRANT_ACK from (node, thread, seq) */
	TICK,
};

#define MAXA 4
#define MAXQ 6

struct exp {
	enum na_qact_kind kind;
	uint16_t node;     /* req.node, or dst for Q_GRANT_ACK */
	uint64_t a;        /* count / position / entries / deadline / first */
	uint32_t b;        /* QXFER next / LOST n */
	uint16_t pl[MAXQ]; /* QGRANT: payload nodes (0-terminated, +1) */
};

struct step {
	enum in in;
	uint16_t node, thread;
	uint32_t seq;
	uint8_t cls;
	uint32_t aux, fwd;
	uint64_t now;
	uint16_t grant[MAXQ]; /* QG: queue nodes + 1 (seq = node * 2 + 1) */
	int ret;
	struct exp acts[MAXA];
	enum na_qh_state st;
	uint32_t count;
	uint16_t q[MAXQ]; /* queue after, nodes + 1, 0-terminated */
};

struct scenario {
	const char *name;
	enum na_qorder order;
	struct step s[20];
};

/* This node: 0, its event thread 0 seq 1; RTT 10 (bound 60). */
#define ME 0
/* lcf_q_id() and lcf_q_tenure() as constant expressions (checked against
 * them in Test(qholder, ids)). */
#define QID(n, t, q) ((uint32_t)((n) + 1) << 26 | (uint32_t)(t) << 16 | (q))
#define QTEN(id)     (((id) >> 16 & 0x3ff) << 6 | ((id)&0x3f))
#define TEN          QTEN(QID(ME, 0, 1))
#define F(i)         ((uint32_t)TEN << 16 | (i))
#define OLD(i)       ((uint32_t)QTEN(QID(ME, 0, 9)) << 16 | (i))
#define ID(n)        QID(n, 0, (n)*2 + 1)
#define S(n)         ((n)*2 + 1) /* requester n's seq */

/* An expected action: kind (NA_QA_ without prefix), node, fields. */
#define A(k, n, ...)                                      \
	{                                                 \
		.kind = NA_QA_##k, .node = n, __VA_ARGS__ \
	}

#define HOLDING                                \
	{ REQ, 0, 0, 1, .st = NA_QH_WAIT },    \
	{                                      \
		SWG, 0, 0, 1, .st = NA_QH_HOLD \
	}
#define FW(n, i, pos, cnt, ...)                                               \
	{                                                                     \
		FWD, n, 0, S(n), .aux = F(i), .count = cnt, .st = NA_QH_HOLD, \
				 .acts = { A(QUEUED, n, .a = pos) },          \
				 .q = { __VA_ARGS__ }                         \
	}

/* clang-format off */
static const struct scenario scen[] = {
{ "duplicates counted once, Q_QUEUED once, QXFER, Q_GRANT until ACK",
  NA_QORDER_FIFO, {
	HOLDING,
	FW(1, 1, 0, 1, 2),
	{FWD, 1, 0, S(1), .aux = F(1), .count = 1, .st = NA_QH_HOLD,
	 .q = {2}},                           /* network duplicate */
	{FWD, 1, 0, S(1), .aux = F(2), .count = 2, .st = NA_QH_HOLD,
	 .q = {2}},                           /* retransmission */
	FW(2, 3, 1, 3, 2, 3),
	{DONE, .now = 100, .st = NA_QH_ENDING, .count = 3,
	 .acts = {A(QXFER, ME, .a = 3, .b = ID(1))}, .q = {2, 3}},
	{QACK, .seq = 1, .aux = LCF_Q_OK, .now = 110, .st = NA_QH_GIVING,
	 .count = 3, .acts = {A(QGRANT, 1, .a = 1, .pl = {3})}, .q = {2, 3}},
	{TICK, .now = 169, .st = NA_QH_GIVING, .count = 3, .q = {2, 3}},
	{TICK, .now = 170, .st = NA_QH_GIVING, .count = 3, .q = {2, 3},
	 .acts = {A(QGRANT, 1, .a = 1, .pl = {3})}},
	{TICK, .now = 289, .st = NA_QH_GIVING, .count = 3, .q = {2, 3}},
	{TICK, .now = 290, .st = NA_QH_GIVING, .count = 3, .q = {2, 3},
	 .acts = {A(QGRANT, 1, .a = 1, .pl = {3})}},  /* doubled: 120 */
	{QGACK, 2, 0, S(2), .now = 300, .ret = -ESRCH,
	 .st = NA_QH_GIVING, .count = 3, .q = {2, 3}}, /* not the next */
	{QGACK, 1, 0, S(1), .now = 300, .st = NA_QH_IDLE,
	 .acts = {A(OVER, ME)}},
} },
{ "done with an empty queue: QRELEASE, retransmitted, approved",
  NA_QORDER_FIFO, {
	HOLDING,
	{DONE, .aux = 0x5, .now = 0, .st = NA_QH_ENDING,
	 .acts = {A(QRELEASE, ME, .a = 0, .b = 0)}},
	{TICK, .now = 60, .st = NA_QH_ENDING,
	 .acts = {A(QRELEASE, ME, .a = 0, .b = 0)}},
	{QACK, .seq = 1, .aux = LCF_Q_OK, .now = 70, .st = NA_QH_IDLE,
	 .acts = {A(OVER, ME)}},
	{QACK, .seq = 1, .aux = LCF_Q_OK, .now = 71, .ret = -ESRCH,
	 .st = NA_QH_IDLE},
} },
{ "denied count: wait, resend when the count catches up",
  NA_QORDER_FIFO, {
	HOLDING,
	FW(1, 1, 0, 1, 2),
	{DONE, .now = 100, .st = NA_QH_ENDING, .count = 1, .q = {2},
	 .acts = {A(QXFER, ME, .a = 1, .b = ID(1))}},
	{QACK, .seq = 1, .aux = LCF_Q_COUNT, .fwd = 3, .now = 105,
	 .st = NA_QH_ENDING, .count = 1, .q = {2},
	 .acts = {A(WAIT, ME, .a = 165)}},
	{FWD, 3, 0, S(3), .aux = F(3), .count = 2, .st = NA_QH_ENDING,
	 .acts = {A(QUEUED, 3, .a = 1)}, .q = {2, 4}},
	{FWD, 2, 0, S(2), .aux = F(2), .count = 3, .st = NA_QH_ENDING,
	 .acts = {A(QUEUED, 2, .a = 1), A(QXFER, ME, .a = 3, .b = ID(1))},
	 .q = {2, 3, 4}},
	/* a duplicate of the first denial: stale, no resend */
	{QACK, .seq = 1, .aux = LCF_Q_COUNT, .fwd = 1, .now = 115,
	 .st = NA_QH_ENDING, .count = 3, .q = {2, 3, 4}},
	{QACK, .seq = 1, .aux = LCF_Q_OK, .now = 120, .st = NA_QH_GIVING,
	 .count = 3, .q = {2, 3, 4},
	 .acts = {A(QGRANT, 1, .a = 2, .pl = {3, 4})}},
} },
{ "denied count below the count: indices past FWD_CNT not counted",
  NA_QORDER_FIFO, {
	HOLDING,
	FW(1, 1, 0, 1, 2),
	/* an older tenure's copy with this tag, index past FWD_CNT */
	FW(2, 5, 1, 2, 2, 3),
	{DONE, .now = 100, .st = NA_QH_ENDING, .count = 2, .q = {2, 3},
	 .acts = {A(QXFER, ME, .a = 2, .b = ID(1))}},
	{QACK, .seq = 1, .aux = LCF_Q_COUNT, .fwd = 1, .now = 105,
	 .st = NA_QH_ENDING, .count = 2, .q = {2, 3},
	 .acts = {A(QXFER, ME, .a = 1, .b = ID(1))}},
	/* a forward of this tenure after the denial: counted at the next */
	{FWD, 3, 0, S(3), .aux = F(2), .count = 3, .st = NA_QH_ENDING,
	 .acts = {A(QUEUED, 3, .a = 1)}, .q = {2, 4, 3}},
	{QACK, .seq = 1, .aux = LCF_Q_COUNT, .fwd = 2, .now = 110,
	 .st = NA_QH_ENDING, .count = 3, .q = {2, 4, 3},
	 .acts = {A(QXFER, ME, .a = 2, .b = ID(1))}},
	/* the first denial again (duplicated, or the answer to a send
	 * the timer repeated): below FWD_CNT 2, nothing dropped */
	{QACK, .seq = 1, .aux = LCF_Q_COUNT, .fwd = 1, .now = 115,
	 .st = NA_QH_ENDING, .count = 3, .q = {2, 4, 3}},
	{TICK, .now = 170, .st = NA_QH_ENDING, .count = 3, .q = {2, 4, 3},
	 .acts = {A(QXFER, ME, .a = 2, .b = ID(1))}},
	{QACK, .seq = 1, .aux = LCF_Q_OK, .now = 175, .st = NA_QH_GIVING,
	 .count = 3, .q = {2, 4, 3},
	 .acts = {A(QGRANT, 1, .a = 2, .pl = {4, 3})}},
} },
{ "an end is kept until a denial passes its count: QRELEASE",
  NA_QORDER_FIFO, {
	HOLDING,
	{DONE, .now = 0, .st = NA_QH_ENDING,
	 .acts = {A(QRELEASE, ME, .a = 0, .b = 0)}},
	/* an older tenure's copy with this tag, after the send */
	{FWD, 2, 0, S(2), .aux = F(3), .count = 1, .st = NA_QH_ENDING,
	 .acts = {A(QUEUED, 2, .a = 0)}, .q = {3}},
	{TICK, .now = 60, .st = NA_QH_ENDING, .count = 1, .q = {3},
	 .acts = {A(QRELEASE, ME, .a = 1, .b = 0)}},
	/* the first QRELEASE's approval: the lock is free, no Q_GRANT */
	{QACK, .seq = 1, .aux = LCF_Q_OK, .now = 65, .st = NA_QH_IDLE,
	 .acts = {A(OVER, ME)}},
} },
{ "an end is kept until a denial passes its count: QXFER's next",
  NA_QORDER_FIFO, {
	HOLDING,
	FW(1, 2, 0, 1, 2),
	{DONE, .now = 0, .st = NA_QH_ENDING, .count = 1, .q = {2},
	 .acts = {A(QXFER, ME, .a = 1, .b = ID(1))}},
	/* an older tenure's copy with a lower index: the head now */
	{FWD, 2, 0, S(2), .aux = F(1), .count = 2, .st = NA_QH_ENDING,
	 .acts = {A(QUEUED, 2, .a = 0)}, .q = {3, 2}},
	{TICK, .now = 60, .st = NA_QH_ENDING, .count = 2, .q = {3, 2},
	 .acts = {A(QXFER, ME, .a = 2, .b = ID(1))}},
	{QACK, .seq = 1, .aux = LCF_Q_NOT_HOLDER, .now = 65,
	 .st = NA_QH_GIVING, .count = 2, .q = {3, 2},
	 .acts = {A(QGRANT, 1, .a = 1, .pl = {3})}},
} },
{ "denied count on QRELEASE: a forward makes it a QXFER",
  NA_QORDER_FIFO, {
	HOLDING,
	{DONE, .now = 0, .st = NA_QH_ENDING,
	 .acts = {A(QRELEASE, ME, .a = 0, .b = 0)}},
	{QACK, .seq = 1, .aux = LCF_Q_COUNT, .fwd = 1, .now = 5,
	 .st = NA_QH_ENDING, .acts = {A(WAIT, ME, .a = 65)}},
	{FWD, 2, 0, S(2), .aux = F(1), .count = 1, .st = NA_QH_ENDING,
	 .acts = {A(QUEUED, 2, .a = 0), A(QXFER, ME, .a = 1, .b = ID(2))},
	 .q = {3}},
} },
{ "denied count: missing indices declared lost at the bound",
  NA_QORDER_FIFO, {
	HOLDING,
	{DONE, .now = 0, .st = NA_QH_ENDING,
	 .acts = {A(QRELEASE, ME, .a = 0, .b = 0)}},
	{QACK, .seq = 1, .aux = LCF_Q_COUNT, .fwd = 4, .now = 5,
	 .st = NA_QH_ENDING, .acts = {A(WAIT, ME, .a = 65)}},
	{FWD, 1, 0, S(1), .aux = F(2), .count = 1, .st = NA_QH_ENDING,
	 .acts = {A(QUEUED, 1, .a = 0)}, .q = {2}},
	{TICK, .now = 64, .st = NA_QH_ENDING, .count = 1, .q = {2}},
	{TICK, .now = 65, .st = NA_QH_ENDING, .count = 4, .q = {2},
	 .acts = {A(LOST, ME, .a = 1, .b = 1), A(LOST, ME, .a = 3, .b = 2),
		  A(QXFER, ME, .a = 4, .b = ID(1))}},
	/* a lost one after all: a duplicate index, not counted */
	{FWD, 3, 0, S(3), .aux = F(3), .count = 4, .st = NA_QH_ENDING,
	 .q = {2}},
} },
{ "denied not_holder is approved", NA_QORDER_FIFO, {
	HOLDING,
	FW(1, 1, 0, 1, 2),
	{DONE, .now = 0, .st = NA_QH_ENDING, .count = 1, .q = {2},
	 .acts = {A(QXFER, ME, .a = 1, .b = ID(1))}},
	{QACK, .seq = 1, .aux = LCF_Q_NOT_HOLDER, .fwd = 0, .now = 5,
	 .st = NA_QH_GIVING, .count = 1, .q = {2},
	 .acts = {A(QGRANT, 1, .a = 0, .pl = {0})}},
	{QGACK, 1, 0, S(1), .now = 9, .st = NA_QH_IDLE,
	 .acts = {A(OVER, ME)}},
} },
{ "next holder: buffered forwards after the granted queue", NA_QORDER_FIFO, {
	{REQ, 0, 0, 1, .st = NA_QH_WAIT},
	{FWD, 3, 0, S(3), .aux = F(1), .count = 1, .st = NA_QH_WAIT,
	 .acts = {A(QUEUED, 3, .a = 0)}, .q = {4}},
	/* a retransmission of a request that is also in the granted queue */
	{FWD, 2, 0, S(2), .aux = F(2), .count = 2, .st = NA_QH_WAIT,
	 .acts = {A(QUEUED, 2, .a = 1)}, .q = {4, 3}},
	{QG, 4, 0, 1, .grant = {2, 3}, .count = 2, .st = NA_QH_HOLD,
	 .acts = {A(GRANTED, ME), A(QGRANT_ACK, 4)},
	 .q = {2, 3, 4}},
	{QG, 4, 0, 1, .grant = {2, 3}, .count = 2, .st = NA_QH_HOLD,
	 .acts = {A(QGRANT_ACK, 4)}, .q = {2, 3, 4}}, /* duplicate */
	/* for an event it is not waiting for: acknowledged, nothing else */
	{QG, 4, 0, 7, .grant = {6}, .count = 2, .st = NA_QH_HOLD,
	 .acts = {A(QGRANT_ACK, 4)}, .q = {2, 3, 4}},
	{DONE, .now = 0, .st = NA_QH_ENDING, .count = 2, .q = {2, 3, 4},
	 .acts = {A(QXFER, ME, .a = 2, .b = ID(1))}},
	{QACK, .seq = 1, .aux = LCF_Q_OK, .now = 5, .st = NA_QH_GIVING,
	 .count = 2, .q = {2, 3, 4},
	 .acts = {A(QGRANT, 1, .a = 2, .pl = {3, 4})}},
} },
{ "a forward for a tenure it no longer holds", NA_QORDER_FIFO, {
	{FWD, 5, 0, S(5), .aux = F(1), .st = NA_QH_IDLE,
	 .acts = {A(QNACK, 5)}},
	HOLDING,
	FW(1, 1, 0, 1, 2),
	FW(2, 2, 1, 2, 2, 3),
	{FWD, 5, 0, S(5), .aux = OLD(1), .st = NA_QH_HOLD, .count = 2,
	 .acts = {A(QNACK, 5)}, .q = {2, 3}}, /* another tenure */
	{DONE, .now = 0, .st = NA_QH_ENDING, .count = 2, .q = {2, 3},
	 .acts = {A(QXFER, ME, .a = 2, .b = ID(1))}},
	{QACK, .seq = 1, .aux = LCF_Q_OK, .now = 5, .st = NA_QH_GIVING,
	 .count = 2, .q = {2, 3}, .acts = {A(QGRANT, 1, .a = 1, .pl = {3})}},
	{FWD, 2, 0, S(2), .aux = F(3), .st = NA_QH_GIVING, .count = 2,
	 .q = {2, 3}}, /* handed over: ignored */
	{QGACK, 1, 0, S(1), .now = 10, .st = NA_QH_IDLE,
	 .acts = {A(OVER, ME)}},
	{FWD, 1, 0, S(1), .aux = F(4), .now = 20, .st = NA_QH_IDLE},
	{FWD, 2, 0, S(2), .aux = F(5), .now = 69, .st = NA_QH_IDLE},
	{FWD, 0, 1, 7, .aux = F(6), .now = 20, .st = NA_QH_IDLE}, /* own */
	{FWD, 3, 0, S(3), .aux = F(6), .now = 20, .st = NA_QH_IDLE,
	 .acts = {A(QNACK, 3)}},
	/* beyond the bound the handed-over ids are forgotten */
	{FWD, 2, 0, S(2), .aux = F(7), .now = 70, .st = NA_QH_IDLE,
	 .acts = {A(QNACK, 2)}},
} },
{ "priority order via na_qfifo", NA_QORDER_PRIORITY, {
	HOLDING,
	{FWD, 1, 0, S(1), 2, F(1), .count = 1, .st = NA_QH_HOLD,
	 .acts = {A(QUEUED, 1, .a = 0)}, .q = {2}},
	{FWD, 2, 0, S(2), 0, F(2), .count = 2, .st = NA_QH_HOLD,
	 .acts = {A(QUEUED, 2, .a = 0)}, .q = {3, 2}},
	{FWD, 3, 0, S(3), 2, F(3), .count = 3, .st = NA_QH_HOLD,
	 .acts = {A(QUEUED, 3, .a = 2)}, .q = {3, 2, 4}},
	{FWD, 4, 0, S(4), 0, F(4), .count = 4, .st = NA_QH_HOLD,
	 .acts = {A(QUEUED, 4, .a = 1)}, .q = {3, 5, 2, 4}},
	{DONE, .now = 0, .st = NA_QH_ENDING, .count = 4, .q = {3, 5, 2, 4},
	 .acts = {A(QXFER, ME, .a = 4, .b = ID(2))}},
	{QACK, .seq = 1, .aux = LCF_Q_OK, .now = 5, .st = NA_QH_GIVING,
	 .count = 4, .q = {3, 5, 2, 4},
	 .acts = {A(QGRANT, 2, .a = 3, .pl = {5, 2, 4})}},
} },
{ "refusals", NA_QORDER_FIFO, {
	{DONE, .ret = -EINVAL, .st = NA_QH_IDLE},
	{REQ, 0, 0, 1, .st = NA_QH_WAIT},
	{REQ, 0, 1, 2, .ret = -EBUSY, .st = NA_QH_WAIT},
	{SWG, 0, 0, 2, .ret = -EINVAL, .st = NA_QH_WAIT},
	{FWD, 1, 0, S(1), .aux = F(0), .ret = -EINVAL, .st = NA_QH_WAIT},
	{SWG, 0, 0, 1, .st = NA_QH_HOLD},
	{DONE, .st = NA_QH_ENDING, .acts = {A(QRELEASE, ME, .a = 0, .b = 0)}},
	{QACK, .seq = 2, .aux = LCF_Q_OK, .ret = -ESRCH, .st = NA_QH_ENDING},
	/* closing: the switch's QRELEASE gate moved on, the timer resends */
	{QACK, .seq = 1, .aux = LCF_Q_IS_CLOSING, .st = NA_QH_ENDING},
	{QACK, .seq = 1, .aux = 9, .ret = -EPROTO, .st = NA_QH_ENDING},
} },
};
/* clang-format on */

static int
run_step(struct na_qholder *h, const struct step *s, struct na_qacts *out)
{
	struct na_qentry e = { .node = s->node,
			       .thread = s->thread,
			       .seq = s->seq,
			       .type = 2,
			       .cls = s->cls };
	struct na_qg_entry g[MAXQ];
	uint8_t buf[MAXQ * NA_QG_ENTRY];
	uint32_t n = 0;

	switch (s->in) {
	case REQ:
		return na_qholder_request(h, s->thread, s->seq);
	case SWG:
		return na_qholder_switch_granted(h, s->thread, s->seq);
	case FWD:
		return na_qholder_forward(h, &e, s->aux, s->now, out);
	case DONE:
		return na_qholder_done(h, (uint8_t)s->aux, 0x6, s->now, out);
	case QACK:
		return na_qholder_qack(h, s->seq, (uint8_t)s->aux, s->fwd,
				       s->now, out);
	case QG:
		while (n < MAXQ && s->grant[n]) {
			uint16_t nd = s->grant[n] - 1;

			g[n] = (struct na_qg_entry){
				.node = nd, .seq = S(nd), .type = 2, .index = n
			};
			n++;
		}
		cr_assert_eq(na_qg_encode(g, n, buf, sizeof(buf)),
			     (int)(n * NA_QG_ENTRY));
		return na_qholder_qgrant(h, s->node, s->thread, s->seq, 1, 0x6,
					 buf, n * NA_QG_ENTRY, s->now, out);
	case QGACK:
		return na_qholder_qgrant_ack(h, s->node, s->thread, s->seq,
					     s->now, out);
	case TICK:
		return na_qholder_tick(h, s->now, out);
	}
	return -1;
}

static void
check_act(const char *sc, int k, int j, const struct exp *x,
	  const struct na_qact *a)
{
	cr_assert_eq(a->kind, x->kind, "%s step %d act %d: kind %d, want %d",
		     sc, k, j, a->kind, x->kind);
	cr_assert_eq(a->kind == NA_QA_QGRANT_ACK ? a->dst : a->req.node,
		     x->node, "%s step %d act %d: node", sc, k, j);
	switch (a->kind) {
	case NA_QA_QXFER:
		cr_assert_eq(a->next, x->b, "%s step %d: next", sc, k);
		/* fall through */
	case NA_QA_QRELEASE:
		cr_assert_eq(a->count, x->a, "%s step %d: count %u, want %lu",
			     sc, k, a->count, (unsigned long)x->a);
		break;
	case NA_QA_QUEUED:
		cr_assert_eq(a->aux, x->a, "%s step %d: position", sc, k);
		break;
	case NA_QA_WAIT:
		cr_assert_eq(a->deadline, x->a, "%s step %d: deadline", sc, k);
		break;
	case NA_QA_LOST:
		cr_assert(a->first == x->a && a->n == x->b,
			  "%s step %d: lost %u+%u", sc, k, a->first, a->n);
		break;
	case NA_QA_QGRANT: {
		struct na_qg_entry g[MAXQ];
		int n = na_qg_decode(a->payload, a->payload_len, g, MAXQ);

		cr_assert_eq(n, (int)x->a, "%s step %d: entries %d", sc, k, n);
		cr_assert_eq(na_qg_aux_entries(a->aux), x->a);
		cr_assert_eq(na_qg_aux_giver(a->aux), ME);
		for (int i = 0; i < n; i++)
			cr_assert_eq(g[i].node + 1, x->pl[i],
				     "%s step %d: payload %d", sc, k, i);
		break;
	}
	default:
		break;
	}
}

Test(qholder, table)
{
	for (size_t c = 0; c < sizeof(scen) / sizeof(scen[0]); c++) {
		const struct scenario *sc = &scen[c];
		struct na_qholder h;

		na_qholder_init(&h, sc->order, ME, 10);
		for (int k = 0; k < 20 && sc->s[k].in; k++) {
			const struct step *s = &sc->s[k];
			struct na_qacts out = { 0 };
			uint32_t na = 0, qn = 0;

			cr_assert_eq(run_step(&h, s, &out), s->ret,
				     "%s step %d: return", sc->name, k);
			while (na < MAXA && s->acts[na].kind)
				na++;
			cr_assert_eq(out.n, na,
				     "%s step %d: %u actions, want %u",
				     sc->name, k, out.n, na);
			for (uint32_t j = 0; j < na; j++)
				check_act(sc->name, k, (int)j, &s->acts[j],
					  &out.a[j]);
			cr_assert_eq(h.st, s->st, "%s step %d: state %d",
				     sc->name, k, h.st);
			cr_assert_eq(na_qfifo_count(&h.q), s->count,
				     "%s step %d: count %u", sc->name, k,
				     na_qfifo_count(&h.q));
			while (qn < MAXQ && s->q[qn])
				qn++;
			cr_assert_eq(h.q.n, qn, "%s step %d: queue length %u",
				     sc->name, k, h.q.n);
			for (uint32_t j = 0; j < qn; j++)
				cr_assert_eq(h.q.e[j].node + 1, s->q[j],
					     "%s step %d: queue %u", sc->name,
					     k, j);
		}
	}
}

Test(qholder, ids)
{
	cr_assert_eq(QID(3, 2, 7), lcf_q_id(3, 2, 7));
	cr_assert_eq(QTEN(QID(3, 2, 7)), lcf_q_tenure(lcf_q_id(3, 2, 7)));
	cr_assert_eq(F(5), lcf_q_fwd_aux(lcf_q_id(ME, 0, 1), 5));
}

Test(qholder, next_timer)
{
	struct na_qholder h;
	struct na_qacts out = { 0 };

	na_qholder_init(&h, NA_QORDER_FIFO, ME, 10);
	cr_assert_eq(na_qholder_next_timer(&h), UINT64_MAX);
	cr_assert_eq(na_qholder_request(&h, 0, 1), 0);
	cr_assert_eq(na_qholder_switch_granted(&h, 0, 1), 0);
	cr_assert_eq(na_qholder_next_timer(&h), UINT64_MAX);
	cr_assert_eq(na_qholder_done(&h, 1, 0, 100, &out), 0);
	cr_assert_eq(na_qholder_next_timer(&h), 160); /* retransmission */
	cr_assert_eq(na_qholder_qack(&h, 1, LCF_Q_COUNT, 2, 110, &out), 0);
	cr_assert_eq(na_qholder_next_timer(&h), 170); /* the bound */
}

Test(qholder, bad_grant_payload)
{
	struct na_qholder h;
	struct na_qacts out = { 0 };
	uint8_t buf[NA_QG_ENTRY + 1] = { 0 };

	na_qholder_init(&h, NA_QORDER_FIFO, ME, 10);
	cr_assert_eq(na_qholder_request(&h, 0, 1), 0);
	cr_assert_eq(na_qholder_qgrant(&h, 4, 0, 1, 1, 0, buf, sizeof(buf), 0,
				       &out),
		     -EINVAL);
	cr_assert_eq(out.n, 0);
	cr_assert_eq(h.st, NA_QH_WAIT);
}
