/* SPDX-License-Identifier: BSD-3-Clause
 *
 * New-Order (clause 2.4.2): lock the warehouse (shared), the district
 * (exclusive: D_NEXT_O_ID), the customer (shared) and each line's stock
 * row (exclusive, at the supply warehouse, which the distribution ratio
 * makes remote); ITEM is read without a lock (never written after the
 * load). Then insert ORDER, NEW-ORDER and the ORDER-LINE rows in O_ID's
 * slot of the district's rings (the district's lock covers them) and
 * commit the district and stock rows.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "tpcc_tx.h"

int
tpcc_tx_fail(struct tpcc_txn *tx, int rc)
{
	int r = tpcc_txn_abort(tx);

	return rc == -EBUSY && r != 0 ? r : rc;
}

/* Clause 2.4.2.2: S_QUANTITY and the stock counters after one line. */
static void
stock_take(struct tpcc_stock *st, uint32_t qty, bool remote)
{
	if (st->quantity >= (int32_t)qty + 10)
		st->quantity -= (int32_t)qty;
	else
		st->quantity = st->quantity - (int32_t)qty + 91;
	st->ytd += qty;
	st->order_cnt++;
	if (remote)
		st->remote_cnt++;
}

int
tpcc_new_order(struct tpcc_txn *tx, const struct tpcc_no_in *in)
{
	const struct tpcc_ctx *x = tx->x;
	const struct tpcc_scale *s = &x->s;
	const struct tpcc_wh_addr *wa = &x->wh[in->w_id - 1];
	struct tpcc_row *rw, *rd, *rc, *rs[TPCC_MAX_OL];
	struct tpcc_order_line ol[TPCC_MAX_OL];
	struct tpcc_item it[TPCC_MAX_OL];
	struct tpcc_district *d;
	struct tpcc_new_order no;
	struct tpcc_order o;
	uint64_t now = (uint64_t)time(NULL);
	uint32_t o_id;
	int r;

	tpcc_txn_begin(tx);
	r = tpcc_txn_lock(tx, tpcc_warehouse_addr(wa), TPCC_W_SZ, TPCC_LOCK_S,
			  &rw);
	if (r == 0)
		r = tpcc_txn_lock(tx, tpcc_district_addr(wa, in->d_id),
				  TPCC_D_SZ, TPCC_LOCK_X, &rd);
	if (r == 0)
		r = tpcc_txn_lock(tx,
				  tpcc_customer_addr(s, wa, in->d_id, in->c_id),
				  TPCC_C_SZ, TPCC_LOCK_S, &rc);
	if (r != 0)
		return tpcc_tx_fail(tx, r);
	d = (struct tpcc_district *)rd->img;
	/* The ring slot of the new order: its last order must be delivered. */
	r = dsm_read(tx->t,
		     tpcc_order_addr(s, wa->dreg[in->d_id - 1], d->next_o_id),
		     &o, sizeof(o));
	if (r != 0)
		return tpcc_tx_fail(tx, r);
	if (o.id != 0 && o.carrier_id == 0) {
		r = tpcc_txn_abort(tx);
		return r != 0 ? r : TPCC_FULL;
	}
	for (uint32_t i = 0; i < in->ol_cnt; i++) {
		const struct tpcc_wh_addr
			*sa = &x->wh[in->ol[i].supply_w_id - 1];

		if (in->ol[i].i_id < 1 || in->ol[i].i_id > s->items) {
			/* Clause 2.4.2.3: "Item number is not valid". */
			r = tpcc_txn_abort(tx);
			return r != 0 ? r : TPCC_ROLLBACK;
		}
		r = dsm_read(tx->t, tpcc_item_addr(s, x->items, in->ol[i].i_id),
			     &it[i], sizeof(it[i]));
		if (r == 0)
			r = tpcc_txn_lock(tx,
					  tpcc_stock_addr(s, sa,
							  in->ol[i].i_id),
					  TPCC_S_SZ, TPCC_LOCK_X, &rs[i]);
		if (r != 0)
			return tpcc_tx_fail(tx, r);
	}

	/* Every lock is held: the write phase cannot abort. */
	o_id = d->next_o_id++;
	rd->dirty = true;
	memset(&o, 0, sizeof(o));
	o.id = o_id;
	o.c_id = in->c_id;
	o.entry_d = now;
	o.w_id = in->w_id;
	o.d_id = (uint8_t)in->d_id;
	o.ol_cnt = (uint8_t)in->ol_cnt;
	o.all_local = in->all_local;
	no = (struct tpcc_new_order){ .o_id = o_id,
				      .d_id = (uint16_t)in->d_id,
				      .w_id = (uint16_t)in->w_id };
	memset(ol, 0, sizeof(ol));
	for (uint32_t i = 0; i < in->ol_cnt; i++) {
		struct tpcc_stock *st = (struct tpcc_stock *)rs[i]->img;

		stock_take(st, in->ol[i].quantity,
			   in->ol[i].supply_w_id != in->w_id);
		rs[i]->dirty = true;
		ol[i].o_id = o_id;
		ol[i].d_id = (uint8_t)in->d_id;
		ol[i].w_id = in->w_id;
		ol[i].number = (uint8_t)(i + 1);
		ol[i].i_id = in->ol[i].i_id;
		ol[i].supply_w_id = in->ol[i].supply_w_id;
		ol[i].quantity = (uint8_t)in->ol[i].quantity;
		ol[i].amount = (int64_t)in->ol[i].quantity * it[i].price;
		memcpy(ol[i].dist_info, st->dist[in->d_id - 1],
		       sizeof(ol[i].dist_info));
	}
	r = dsm_write(tx->t, tpcc_order_addr(s, wa->dreg[in->d_id - 1], o_id),
		      &o, sizeof(o));
	if (r == 0)
		r = dsm_write(tx->t,
			      tpcc_new_order_addr(s, wa->dreg[in->d_id - 1],
						  o_id),
			      &no, sizeof(no));
	if (r == 0)
		r = dsm_write(tx->t,
			      tpcc_lines_addr(s, wa->dreg[in->d_id - 1], o_id),
			      ol, sizeof(ol)); /* all: clear a reused slot */
	if (r != 0)
		return tpcc_tx_fail(tx, r);
	return tpcc_txn_commit(tx);
}
