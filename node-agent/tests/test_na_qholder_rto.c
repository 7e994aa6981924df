/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The queue holder's retransmission back-off is capped (na_qholder.h
 * NA_QH_RTO_MAX_NS): a QRELEASE / QXFER / Q_GRANT lost again and again is
 * re-sent at most every 200 ms (or every delay bound, if longer), not at
 * intervals that double without end.
 */
#include <criterion/criterion.h>

#include "lcf_qlock.h"
#include "na_qholder.h"

#define MS 1000000ull

/* Tick at each timer, `n` times; returns the largest interval seen and
 * checks each tick re-sends. */
static uint64_t
tick_intervals(struct na_qholder *h, int n, uint64_t *last)
{
	uint64_t prev = na_qholder_next_timer(h), maxi = 0;

	for (int i = 0; i < n; i++) {
		struct na_qacts out = { 0 };
		uint64_t next;

		cr_assert_eq(na_qholder_tick(h, prev, &out), 0);
		cr_assert_geq(out.n, 1, "tick %d: a retransmission", i);
		next = na_qholder_next_timer(h);
		cr_assert_gt(next, prev);
		if (next - prev > maxi)
			maxi = next - prev;
		*last = next - prev;
		prev = next;
	}
	return maxi;
}

/* A holder whose event is done, its QRELEASE sent (ENDING); RTT `rtt`. */
static void
ending(struct na_qholder *h, uint64_t rtt)
{
	struct na_qacts out = { 0 };

	na_qholder_init(h, NA_QORDER_FIFO, 0, rtt);
	cr_assert_eq(na_qholder_request(h, 0, 1), 0);
	cr_assert_eq(na_qholder_switch_granted(h, 0, 1), 0);
	cr_assert_eq(na_qholder_done(h, 1, 0, 0, &out), 0);
	cr_assert_eq(h->st, NA_QH_ENDING);
}

Test(qholder_rto, qrelease_backoff_capped)
{
	struct na_qholder h;
	uint64_t last = 0;

	ending(&h, 1 * MS); /* bound 6 ms */
	cr_assert_eq(tick_intervals(&h, 40, &last), NA_QH_RTO_MAX_NS);
	cr_assert_eq(last, NA_QH_RTO_MAX_NS, "re-sent at the cap");
}

Test(qholder_rto, long_bound_is_the_cap)
{
	struct na_qholder h;
	uint64_t last = 0;

	ending(&h, 100 * MS); /* bound 600 ms */
	cr_assert_eq(tick_intervals(&h, 10, &last), 600 * MS);
	cr_assert_eq(last, 600 * MS);
}
