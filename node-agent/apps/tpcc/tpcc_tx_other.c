/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Order-Status (clause 2.6.2), Delivery (2.7.4, all ten districts in one
 * transaction, run by the warehouse's own thread rather than queued) and
 * Stock-Level (2.8.2, under shared locks: stricter than the spec asks).
 * A district's ORDER, NEW-ORDER and ORDER-LINE rows are read under that
 * district's lock, which every writer of them holds.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "tpcc_tx.h"

/* Rows of ORDER read at once while scanning (one block's at most). */
#define SCAN_MAX 512

/*
 * The customer's latest order in a district whose lock we hold: scan the
 * ORDER ring backwards from D_NEXT_O_ID - 1 over the orders it still
 * holds, one block's rows per read. @return 0 with *o (o->id 0: none), or
 * a DSM error.
 */
static int
last_order(struct tpcc_txn *tx, dsm_addr_t dreg, uint32_t next_o_id,
	   uint32_t c_id, struct tpcc_order *o)
{
	const struct tpcc_scale *s = &tx->x->s;
	uint32_t per = s->block / TPCC_O_SZ, lowest = 1;
	/* On the stack (16 KiB), not thread-local: na-sim runs every
	 * node's threads on one OS thread. */
	struct tpcc_order buf[SCAN_MAX];

	if (per > SCAN_MAX)
		per = SCAN_MAX;
	if (next_o_id > s->max_orders)
		lowest = next_o_id - s->max_orders;
	memset(o, 0, sizeof(*o));
	for (uint32_t hi = next_o_id; hi > lowest;) {
		/* O_IDs hi - k .. hi - 1: slots from a block's start on. */
		uint32_t k = tpcc_order_slot(s, hi - 1) % per + 1;
		int r;

		if (k > hi - lowest)
			k = hi - lowest;
		r = dsm_read(tx->t, tpcc_order_addr(s, dreg, hi - k), buf,
			     k * sizeof(buf[0]));
		if (r != 0)
			return r;
		for (uint32_t i = k; i-- > 0;)
			if (buf[i].id == hi - k + i && buf[i].c_id == c_id) {
				*o = buf[i];
				return 0;
			}
		hi -= k;
	}
	return 0;
}

int
tpcc_order_status(struct tpcc_txn *tx, const struct tpcc_os_in *in)
{
	const struct tpcc_ctx *x = tx->x;
	const struct tpcc_scale *s = &x->s;
	const struct tpcc_wh_addr *wa = &x->wh[in->w_id - 1];
	struct tpcc_order_line ol[TPCC_MAX_OL];
	struct tpcc_row *rd, *rc;
	struct tpcc_order o;
	uint32_t c_id = in->c_id;
	int r;

	tpcc_txn_begin(tx);
	r = tpcc_txn_lock(tx, tpcc_district_addr(wa, in->d_id), TPCC_D_SZ,
			  TPCC_LOCK_S, &rd);
	if (r == 0 && in->by_name)
		r = tpcc_customer_by_name(tx, in->w_id, in->d_id, in->c_last,
					  &c_id);
	if (r == 0)
		r = tpcc_txn_lock(tx, tpcc_customer_addr(s, wa, in->d_id, c_id),
				  TPCC_C_SZ, TPCC_LOCK_S, &rc);
	if (r == 0)
		r = last_order(tx, wa->dreg[in->d_id - 1],
			       ((struct tpcc_district *)rd->img)->next_o_id,
			       c_id, &o);
	if (r == 0 && o.id != 0)
		r = dsm_read(tx->t,
			     tpcc_lines_addr(s, wa->dreg[in->d_id - 1], o.id),
			     ol, o.ol_cnt * sizeof(ol[0]));
	if (r != 0)
		return tpcc_tx_fail(tx, r);
	return tpcc_txn_commit(tx);
}

struct del_plan {
	struct tpcc_row *rd, *rc;
	struct tpcc_order o;
	struct tpcc_order_line ol[TPCC_MAX_OL];
};

int
tpcc_delivery(struct tpcc_txn *tx, const struct tpcc_del_in *in,
	      uint32_t *delivered)
{
	const struct tpcc_ctx *x = tx->x;
	const struct tpcc_scale *s = &x->s;
	const struct tpcc_wh_addr *wa = &x->wh[in->w_id - 1];
	struct del_plan p[TPCC_DISTRICTS]; /* not thread-local: as above */
	uint64_t now = (uint64_t)time(NULL);
	int r = 0;

	*delivered = 0;
	tpcc_txn_begin(tx);
	for (uint32_t d_id = 1; d_id <= TPCC_DISTRICTS && r == 0; d_id++) {
		struct del_plan *pl = &p[d_id - 1];
		struct tpcc_district *d;

		pl->o.id = 0;
		r = tpcc_txn_lock(tx, tpcc_district_addr(wa, d_id), TPCC_D_SZ,
				  TPCC_LOCK_X, &pl->rd);
		if (r != 0)
			break;
		d = (struct tpcc_district *)pl->rd->img;
		if (d->no_first >= d->next_o_id)
			continue; /* no new order: skipped (clause 2.7.4.2) */
		r = dsm_read(tx->t,
			     tpcc_order_addr(s, wa->dreg[d_id - 1],
					     d->no_first),
			     &pl->o, sizeof(pl->o));
		if (r == 0 && pl->o.id != d->no_first)
			r = -EPROTO; /* a NEW-ORDER row without its order */
		if (r == 0)
			r = dsm_read(tx->t,
				     tpcc_lines_addr(s, wa->dreg[d_id - 1],
						     pl->o.id),
				     pl->ol, pl->o.ol_cnt * sizeof(pl->ol[0]));
		if (r == 0)
			r = tpcc_txn_lock(tx,
					  tpcc_customer_addr(s, wa, d_id,
							     pl->o.c_id),
					  TPCC_C_SZ, TPCC_LOCK_X, &pl->rc);
	}
	if (r != 0)
		return tpcc_tx_fail(tx, r);

	for (uint32_t d_id = 1; d_id <= TPCC_DISTRICTS && r == 0; d_id++) {
		struct del_plan *pl = &p[d_id - 1];
		dsm_addr_t dreg = wa->dreg[d_id - 1];
		struct tpcc_new_order no = { 0 };
		struct tpcc_district *d;
		struct tpcc_customer *c;
		int64_t sum = 0;

		if (pl->o.id == 0)
			continue;
		d = (struct tpcc_district *)pl->rd->img;
		c = (struct tpcc_customer *)pl->rc->img;
		for (uint32_t i = 0; i < pl->o.ol_cnt; i++) {
			pl->ol[i].delivery_d = now;
			sum += pl->ol[i].amount;
		}
		pl->o.carrier_id = (uint8_t)in->carrier_id;
		c->balance += sum;
		c->delivery_cnt++;
		d->no_first++;
		pl->rd->dirty = pl->rc->dirty = true;
		r = dsm_write(tx->t, tpcc_new_order_addr(s, dreg, pl->o.id),
			      &no, sizeof(no));
		if (r == 0)
			r = dsm_write(tx->t, tpcc_order_addr(s, dreg, pl->o.id),
				      &pl->o, sizeof(pl->o));
		if (r == 0)
			r = dsm_write(tx->t, tpcc_lines_addr(s, dreg, pl->o.id),
				      pl->ol, pl->o.ol_cnt * sizeof(pl->ol[0]));
		(*delivered)++;
	}
	if (r != 0)
		return tpcc_tx_fail(tx, r);
	return tpcc_txn_commit(tx);
}

int
tpcc_stock_level(struct tpcc_txn *tx, const struct tpcc_sl_in *in,
		 uint32_t *low)
{
	const struct tpcc_ctx *x = tx->x;
	const struct tpcc_scale *s = &x->s;
	const struct tpcc_wh_addr *wa = &x->wh[in->w_id - 1];
	uint32_t items[20 * TPCC_MAX_OL], n = 0, next, from;
	struct tpcc_order_line ol[TPCC_MAX_OL];
	struct tpcc_row *rd, *rs;
	int r;

	*low = 0;
	tpcc_txn_begin(tx);
	r = tpcc_txn_lock(tx, tpcc_district_addr(wa, in->d_id), TPCC_D_SZ,
			  TPCC_LOCK_S, &rd);
	if (r != 0)
		return tpcc_tx_fail(tx, r);
	next = ((struct tpcc_district *)rd->img)->next_o_id;
	from = next > 20 ? next - 20 : 1;
	for (uint32_t o_id = from; o_id < next && r == 0; o_id++) {
		r = dsm_read(tx->t,
			     tpcc_lines_addr(s, wa->dreg[in->d_id - 1], o_id),
			     ol, sizeof(ol));
		for (uint32_t i = 0; r == 0 && i < TPCC_MAX_OL; i++) {
			uint32_t k = 0;

			if (ol[i].number == 0)
				break;
			while (k < n && items[k] != ol[i].i_id)
				k++;
			if (k == n)
				items[n++] = ol[i].i_id;
		}
	}
	for (uint32_t k = 0; k < n && r == 0; k++) {
		r = tpcc_txn_lock(tx, tpcc_stock_addr(s, wa, items[k]),
				  TPCC_S_SZ, TPCC_LOCK_S, &rs);
		if (r == 0 && ((struct tpcc_stock *)rs->img)->quantity <
				      (int32_t)in->threshold)
			(*low)++;
	}
	if (r != 0)
		return tpcc_tx_fail(tx, r);
	return tpcc_txn_commit(tx);
}
