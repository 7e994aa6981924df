/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The measured phase: each thread runs transactions on its own warehouse
 * (W_ID = node x threads + thread + 1) in the --mix proportions. An
 * attempt that finds a lock taken has released everything it held
 * (no-wait); it is counted as an abort and retried with the same input
 * after a randomised, growing back-off, until it commits or time is up.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tpcc_tx.h"
#include "tpcc_run.h"

#define BACKOFF_US     20 /* first retry within 0 .. 20 us */
#define BACKOFF_MAX_US 2000

static void
backoff(uint64_t *rng, unsigned attempt)
{
	uint32_t span = BACKOFF_US << (attempt < 7 ? attempt : 7);

	if (span > BACKOFF_MAX_US)
		span = BACKOFF_MAX_US;
	usleep(tpcc_uniform(rng, 0, span));
}

union tpcc_input {
	struct tpcc_no_in no;
	struct tpcc_pay_in pay;
	struct tpcc_os_in os;
	struct tpcc_del_in del;
	struct tpcc_sl_in sl;
};

static void
generate(struct tpcc_gen *g, enum tpcc_tx type, union tpcc_input *in)
{
	switch (type) {
	case TPCC_TX_NEW_ORDER:
		tpcc_gen_new_order(g, &in->no);
		break;
	case TPCC_TX_PAYMENT:
		tpcc_gen_payment(g, &in->pay);
		break;
	case TPCC_TX_ORDER_STATUS:
		tpcc_gen_order_status(g, &in->os);
		break;
	case TPCC_TX_DELIVERY:
		tpcc_gen_delivery(g, &in->del);
		break;
	default:
		tpcc_gen_stock_level(g, &in->sl);
		break;
	}
}

static int
attempt(struct tpcc_txn *tx, enum tpcc_tx type, const union tpcc_input *in,
	uint32_t *n)
{
	*n = 0;
	switch (type) {
	case TPCC_TX_NEW_ORDER:
		return tpcc_new_order(tx, &in->no);
	case TPCC_TX_PAYMENT:
		return tpcc_payment(tx, &in->pay);
	case TPCC_TX_ORDER_STATUS:
		return tpcc_order_status(tx, &in->os);
	case TPCC_TX_DELIVERY:
		return tpcc_delivery(tx, &in->del, n);
	default:
		return tpcc_stock_level(tx, &in->sl, n);
	}
}

/* Count a finished transaction (committed or rolled back). */
static void
count(struct tpcc_tstat *st, enum tpcc_tx type, const union tpcc_input *in,
      int rc, uint32_t n)
{
	if (rc == TPCC_ROLLBACK) {
		st->rollbacks++;
		return;
	}
	st->done[type]++;
	if (type == TPCC_TX_PAYMENT)
		st->paid += in->pay.amount;
	if (type == TPCC_TX_DELIVERY)
		st->delivered += n;
}

int
tpcc_worker(struct app *a, uint16_t id, void *arg)
{
	struct tpcc_node *nd = arg;
	struct tpcc_txn *tx = nd->tx[id];
	struct tpcc_tstat *st = &nd->st[id];
	struct tpcc_gen g = {
		.s = &nd->x.s,
		.c = &nd->x.c,
		.w_id = (uint32_t)a->o.node * a->o.threads + id + 1,
		.item_remote = nd->t.dist_ratio < 0 ? TPCC_SPEC_ITEM_REMOTE
						    : nd->t.dist_ratio,
		.pay_remote = nd->t.dist_ratio < 0 ? TPCC_SPEC_PAY_REMOTE
						   : nd->t.dist_ratio,
		.rng = app_rand_seed(a, id),
	};
	uint64_t rng = app_rand_seed(a, id) ^ 0x5bd1e995ull;
	union tpcc_input in;

	tx->inject_bug = nd->t.inject_bug;
	while (!app_time_up(a)) {
		enum tpcc_tx type = tpcc_gen_tx(&g.rng, nd->t.mix);
		uint32_t n = 0;
		int rc;

		generate(&g, type, &in);
		for (unsigned k = 0;; k++) {
			rc = attempt(tx, type, &in, &n);
			if (rc != -EBUSY)
				break;
			atomic_fetch_add(&a->cnt[id].aborts, 1);
			if (app_time_up(a))
				break;
			atomic_fetch_add(&a->cnt[id].retries, 1);
			backoff(&rng, k);
		}
		if (rc == -EBUSY)
			break; /* time is up in the middle of retries */
		if (rc == TPCC_FULL) {
			/* Stop the node: the district has no order slot. */
			if (!atomic_exchange(&nd->full, 1))
				fprintf(stderr,
					"dsm_tpcc node %d: warehouse %u: a "
					"district's %u order slots are used "
					"up; the run ends early (raise "
					"--max-orders)\n",
					a->o.node, g.w_id, nd->x.s.max_orders);
			a->stop = 1;
			break;
		}
		if (rc < 0) {
			fprintf(stderr,
				"dsm_tpcc node %d thread %u: transaction "
				"failed: %s\n",
				a->o.node, id, strerror(-rc));
			st->rc = rc;
			a->stop = 1;
			break;
		}
		count(st, type, &in, rc, n);
		atomic_fetch_add(&a->cnt[id].ops, 1);
	}
	st->locks = tx->locks;
	st->conflicts = tx->conflicts;
	dsm_sync(tx->t);
	return st->rc;
}
