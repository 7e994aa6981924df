/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The queue holder's wait queue (na_qfifo.h, docs/QUEUED-LOCKS.md 5).
 */
#include <errno.h>
#include <string.h>

#include "na_qfifo.h"
#include "na_qgrant.h"

_Static_assert(NA_QENTRY_WIRE == NA_QG_ENTRY, "Q_GRANT entry size");

static bool
same_req(const struct na_qentry *a, const struct na_qentry *b)
{
	return a->node == b->node && a->thread == b->thread && a->seq == b->seq;
}

/* Does `a` go before `b`? */
static bool
before(const struct na_qfifo *q, const struct na_qentry *a,
       const struct na_qentry *b)
{
	if (q->order == NA_QORDER_PRIORITY && a->cls != b->cls)
		return a->cls < b->cls;
	if (a->phase != b->phase)
		return a->phase < b->phase;
	return a->index < b->index;
}

static int
find(const struct na_qfifo *q, const struct na_qentry *e)
{
	for (uint32_t i = 0; i < q->n; i++)
		if (same_req(&q->e[i], e))
			return (int)i;
	return -1;
}

static void
insert_sorted(struct na_qfifo *q, const struct na_qentry *e)
{
	uint32_t i = q->n;

	while (i > 0 && before(q, e, &q->e[i - 1])) {
		q->e[i] = q->e[i - 1];
		i--;
	}
	q->e[i] = *e;
	q->n++;
}

/* Mark index `index` received; false when it already was. Indices beyond
 * the bitmap are counted without duplicate detection. */
static bool
mark_index(struct na_qfifo *q, uint32_t index)
{
	uint32_t b = index - 1;

	if (b < NA_QFIFO_INDICES) {
		uint64_t bit = 1ull << (b % 64);

		if (q->seen[b / 64] & bit)
			return false;
		q->seen[b / 64] |= bit;
	}
	q->received++;
	return true;
}

int
na_qfifo_forward(struct na_qfifo *q, const struct na_qentry *e, uint32_t index)
{
	struct na_qentry x = *e;

	if (index == 0)
		return -EINVAL;
	if (!mark_index(q, index))
		return NA_QFWD_DUP_INDEX;
	if ((e->node == q->self_node && e->thread == q->self_thread &&
	     e->seq == q->self_seq) ||
	    find(q, e) >= 0)
		return NA_QFWD_DUP_REQ;
	if (q->n == NA_QFIFO_MAX)
		return NA_QFWD_FULL;
	x.phase = 1;
	x.index = index;
	insert_sorted(q, &x);
	return NA_QFWD_QUEUED;
}

uint32_t
na_qfifo_count_upto(const struct na_qfifo *q, uint32_t upto)
{
	uint32_t n = 0, w;

	if (upto >= NA_QFIFO_INDICES)
		return q->received;
	for (w = 0; w < upto / 64; w++)
		n += (uint32_t)__builtin_popcountll(q->seen[w]);
	if (upto % 64)
		n += (uint32_t)__builtin_popcountll(
			q->seen[w] & ((1ull << (upto % 64)) - 1));
	return n;
}

uint32_t
na_qfifo_count_past(const struct na_qfifo *q, uint32_t after)
{
	uint32_t n = 0;

	if (after >= NA_QFIFO_INDICES)
		return 0;
	for (uint32_t w = after / 64; w < NA_QFIFO_INDICES / 64; w++) {
		uint64_t m = w == after / 64 ? ~((1ull << (after % 64)) - 1)
					     : ~0ull;

		n += (uint32_t)__builtin_popcountll(q->seen[w] & m);
	}
	return n;
}

void
na_qfifo_declare_lost(struct na_qfifo *q, uint32_t fwd_cnt)
{
	/* Their indices count as received: a copy arriving after all is a
	 * duplicate index (the count stays FWD_CNT). */
	for (uint32_t i = 1; i <= fwd_cnt && i <= NA_QFIFO_INDICES; i++)
		q->seen[(i - 1) / 64] |= 1ull << ((i - 1) % 64);
	if (fwd_cnt > q->received)
		q->received = fwd_cnt;
}

int
na_qfifo_export_rest(const struct na_qfifo *q, const struct na_qentry *next,
		     uint8_t *buf, size_t cap)
{
	struct na_qg_entry w[NA_QFIFO_MAX];
	uint32_t n = 0;

	for (uint32_t i = 0; i < q->n; i++) {
		const struct na_qentry *e = &q->e[i];

		if (same_req(e, next))
			continue;
		w[n++] = (struct na_qg_entry){ .node = e->node,
					       .thread = e->thread,
					       .seq = e->seq,
					       .type = e->type,
					       .cls = e->cls,
					       .index = e->index };
	}
	return na_qg_encode(w, n, buf, cap);
}

static bool
in_granted(const struct na_qentry *e, const struct na_qentry *g, uint32_t ng)
{
	for (uint32_t j = 0; j < ng; j++)
		if (same_req(e, &g[j]))
			return true;
	return false;
}

int
na_qfifo_import_granted(struct na_qfifo *q, const uint8_t *buf, size_t len)
{
	struct na_qg_entry w[NA_QFIFO_MAX];
	struct na_qentry g[NA_QFIFO_MAX];
	uint32_t ng, kept = 0;
	int r = na_qg_decode(buf, len, w, NA_QFIFO_MAX);

	if (r < 0)
		return r;
	ng = (uint32_t)r;
	for (uint32_t i = 0; i < ng; i++)
		g[i] = (struct na_qentry){
			.node = w[i].node,
			.thread = w[i].thread,
			.seq = w[i].seq,
			.type = w[i].type,
			.cls = w[i].cls,
			.phase = 0,
			.index = i, /* the granted order */
		};
	/* Buffered entries that are not in the granted queue stay. */
	for (uint32_t i = 0; i < q->n; i++)
		kept += !in_granted(&q->e[i], g, ng);
	if (kept + ng > NA_QFIFO_MAX)
		return -ENOSPC; /* one entry per requester: does not happen */
	kept = 0;
	for (uint32_t i = 0; i < q->n; i++)
		if (!in_granted(&q->e[i], g, ng))
			q->e[kept++] = q->e[i];
	q->n = kept;
	for (uint32_t j = 0; j < ng; j++)
		insert_sorted(q, &g[j]);
	return (int)ng;
}

int
na_qfifo_remove(struct na_qfifo *q, uint16_t node, uint16_t thread,
		uint32_t seq)
{
	for (uint32_t i = 0; i < q->n; i++) {
		if (q->e[i].node != node || q->e[i].thread != thread ||
		    q->e[i].seq != seq)
			continue;
		memmove(&q->e[i], &q->e[i + 1],
			(q->n - i - 1) * sizeof(q->e[0]));
		q->n--;
		return 0;
	}
	return -ENOENT;
}
