/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The queue holder's wait queue (na_qfifo, docs/QUEUED-LOCKS.md 5): FIFO by
 * forward index whatever the arrival order, duplicates counted once,
 * the holder's own request, the counts (all, up to and past an index)
 * and declared losses, the priority order, the Q_GRANT wire form and the
 * merge of a granted queue with the forwards buffered before it.
 */
#include <errno.h>

#include <criterion/criterion.h>

#include "na_qfifo.h"

static struct na_qentry
ent(uint16_t node, uint32_t seq, uint8_t cls)
{
	return (struct na_qentry){
		.node = node, .seq = seq, .type = 2, .cls = cls
	};
}

static void
expect_order(const struct na_qfifo *q, const uint16_t *nodes, uint32_t n)
{
	cr_assert_eq(q->n, n);
	for (uint32_t i = 0; i < n; i++)
		cr_assert_eq(q->e[i].node, nodes[i],
			     "entry %u: node %u, want %u", i, q->e[i].node,
			     nodes[i]);
}

Test(qfifo, fifo_by_index_not_arrival)
{
	struct na_qfifo q;
	struct na_qentry a = ent(1, 5, 0), b = ent(2, 7, 0), c = ent(3, 1, 0);

	na_qfifo_init(&q, NA_QORDER_FIFO, 0, 0, 9);
	/* The network reorders: index 3, then 1, then 2. */
	cr_assert_eq(na_qfifo_forward(&q, &c, 3), NA_QFWD_QUEUED);
	cr_assert_eq(na_qfifo_forward(&q, &a, 1), NA_QFWD_QUEUED);
	cr_assert_eq(na_qfifo_forward(&q, &b, 2), NA_QFWD_QUEUED);
	expect_order(&q, (uint16_t[]){ 1, 2, 3 }, 3);
	cr_assert_eq(na_qfifo_count(&q), 3);
	cr_assert_eq(na_qfifo_head(&q)->node, 1);
}

Test(qfifo, duplicates_and_own_request)
{
	struct na_qfifo q;
	struct na_qentry a = ent(1, 5, 0), self = ent(0, 9, 0);

	na_qfifo_init(&q, NA_QORDER_FIFO, 0, 0, 9);
	cr_assert_eq(na_qfifo_forward(&q, &a, 1), NA_QFWD_QUEUED);
	/* The network duplicated the copy: same index, ignored. */
	cr_assert_eq(na_qfifo_forward(&q, &a, 1), NA_QFWD_DUP_INDEX);
	/* The requester retransmitted: a new index, counted, not queued. */
	cr_assert_eq(na_qfifo_forward(&q, &a, 2), NA_QFWD_DUP_REQ);
	/* The holder's own retransmission forwarded to itself. */
	cr_assert_eq(na_qfifo_forward(&q, &self, 3), NA_QFWD_DUP_REQ);
	cr_assert_eq(q.n, 1);
	cr_assert_eq(na_qfifo_count(&q), 3, "three distinct indices");
	cr_assert_eq(na_qfifo_forward(&q, &a, 0), -EINVAL);
}

Test(qfifo, declared_lost)
{
	struct na_qfifo q;
	struct na_qentry a = ent(1, 5, 0);

	na_qfifo_init(&q, NA_QORDER_FIFO, 0, 0, 9);
	cr_assert_eq(na_qfifo_forward(&q, &a, 2), NA_QFWD_QUEUED);
	cr_assert_eq(na_qfifo_count(&q), 1);
	na_qfifo_declare_lost(&q, 2); /* index 1 never came */
	cr_assert_eq(na_qfifo_count(&q), 2);
	na_qfifo_declare_lost(&q, 1);
	cr_assert_eq(na_qfifo_count(&q), 2, "never lowered");
}

/* The counts up to and past an index, across the bitmap's 64-bit words. */
Test(qfifo, count_upto_and_past)
{
	static const uint32_t idx[] = { 1, 63, 64, 65, 128, 1024, 1500 };
	struct na_qfifo q;

	na_qfifo_init(&q, NA_QORDER_FIFO, 0, 0, 9);
	for (uint32_t i = 0; i < sizeof(idx) / sizeof(idx[0]); i++) {
		struct na_qentry e = ent((uint16_t)(i + 1), 1, 0);

		cr_assert_eq(na_qfifo_forward(&q, &e, idx[i]), NA_QFWD_QUEUED);
	}
	cr_assert_eq(na_qfifo_count_upto(&q, 0), 0);
	cr_assert_eq(na_qfifo_count_upto(&q, 63), 2);
	cr_assert_eq(na_qfifo_count_upto(&q, 64), 3);
	cr_assert_eq(na_qfifo_count_upto(&q, 127), 4);
	cr_assert_eq(na_qfifo_count_upto(&q, 1023), 5);
	cr_assert_eq(na_qfifo_count_upto(&q, 1024), 7); /* past the bitmap */
	cr_assert_eq(na_qfifo_count_past(&q, 0), 6);    /* 1500 untracked */
	cr_assert_eq(na_qfifo_count_past(&q, 63), 4);
	cr_assert_eq(na_qfifo_count_past(&q, 64), 3);
	cr_assert_eq(na_qfifo_count_past(&q, 128), 1);
	cr_assert_eq(na_qfifo_count_past(&q, 1024), 0);
}

Test(qfifo, priority_then_fifo)
{
	struct na_qfifo q;
	struct na_qentry lo1 = ent(1, 1, 2), hi = ent(2, 1, 0),
			 lo2 = ent(3, 1, 2), mid = ent(4, 1, 1);

	na_qfifo_init(&q, NA_QORDER_PRIORITY, 0, 0, 9);
	na_qfifo_forward(&q, &lo1, 1);
	na_qfifo_forward(&q, &hi, 2);
	na_qfifo_forward(&q, &lo2, 3);
	na_qfifo_forward(&q, &mid, 4);
	expect_order(&q, (uint16_t[]){ 2, 4, 1, 3 }, 4);
	/* The same arrivals in FIFO order ignore the class. */
	na_qfifo_init(&q, NA_QORDER_FIFO, 0, 0, 9);
	na_qfifo_forward(&q, &lo1, 1);
	na_qfifo_forward(&q, &hi, 2);
	na_qfifo_forward(&q, &lo2, 3);
	na_qfifo_forward(&q, &mid, 4);
	expect_order(&q, (uint16_t[]){ 1, 2, 3, 4 }, 4);
}

Test(qfifo, full)
{
	struct na_qfifo q;

	na_qfifo_init(&q, NA_QORDER_FIFO, 0, 0, 9);
	for (uint32_t i = 1; i <= NA_QFIFO_MAX; i++) {
		struct na_qentry e = ent(1, i, 0);

		cr_assert_eq(na_qfifo_forward(&q, &e, i), NA_QFWD_QUEUED);
	}
	struct na_qentry e = ent(2, 1, 0);

	cr_assert_eq(na_qfifo_forward(&q, &e, NA_QFIFO_MAX + 1), NA_QFWD_FULL);
	cr_assert_eq(na_qfifo_count(&q), NA_QFIFO_MAX + 1, "counted anyway");
}

Test(qfifo, handover_wire_and_merge)
{
	struct na_qfifo old, nxt;
	struct na_qentry a = ent(1, 5, 0), b = ent(2, 7, 3), c = ent(3, 1, 0),
			 d = ent(4, 2, 0);
	uint8_t buf[NA_QFIFO_MAX * NA_QENTRY_WIRE];
	int len;

	/* The old holder (node 0) queued a (index 1), b (2), c (3). */
	na_qfifo_init(&old, NA_QORDER_FIFO, 0, 0, 9);
	na_qfifo_forward(&old, &a, 1);
	na_qfifo_forward(&old, &b, 2);
	na_qfifo_forward(&old, &c, 3);
	/* a is the next holder; b and c travel in the Q_GRANT. */
	len = na_qfifo_export_rest(&old, na_qfifo_head(&old), buf, sizeof(buf));
	cr_assert_eq(len, 2 * NA_QENTRY_WIRE);
	cr_assert_eq(buf[1], 2, "node 2 first, big-endian");
	cr_assert_eq(buf[7], 7, "its seq");
	cr_assert_eq(buf[9], 3, "its class");
	cr_assert_eq(na_qfifo_export_rest(&old, na_qfifo_head(&old), buf, 16),
		     -ENOSPC);

	/* Before the Q_GRANT, the new holder (node 1, seq 5) was forwarded
	 * d (index 1 of its tenure) and a retransmission of c (index 2). */
	na_qfifo_init(&nxt, NA_QORDER_FIFO, 1, 0, 5);
	cr_assert_eq(na_qfifo_forward(&nxt, &d, 1), NA_QFWD_QUEUED);
	cr_assert_eq(na_qfifo_forward(&nxt, &c, 2), NA_QFWD_QUEUED);
	cr_assert_eq(na_qfifo_import_granted(&nxt, buf, (size_t)len), 2);
	/* The granted queue first, in its order; c once, at its granted
	 * place; then d. */
	expect_order(&nxt, (uint16_t[]){ 2, 3, 4 }, 3);
	cr_assert_eq(nxt.e[0].seq, 7);
	cr_assert_eq(nxt.e[0].cls, 3);
	cr_assert_eq(na_qfifo_count(&nxt), 2, "its own tenure's indices");
	/* A later forward goes behind them all. */
	struct na_qentry e = ent(0, 10, 0);

	cr_assert_eq(na_qfifo_forward(&nxt, &e, 3), NA_QFWD_QUEUED);
	expect_order(&nxt, (uint16_t[]){ 2, 3, 4, 0 }, 4);
	cr_assert_eq(na_qfifo_import_granted(&nxt, buf, 5), -EINVAL);
}
