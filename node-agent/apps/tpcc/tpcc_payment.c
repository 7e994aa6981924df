/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Payment (clause 2.5.2): the warehouse and district (exclusive: W_YTD,
 * D_YTD) of the home warehouse, the customer (exclusive) of the customer
 * warehouse, which the distribution ratio makes remote, found by C_ID or
 * by last name through the read-only index; a HISTORY row goes into the
 * home district's ring under the district's lock.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tpcc_tx.h"

int
tpcc_customer_by_name(struct tpcc_txn *tx, uint32_t w_id, uint32_t d_id,
		      uint32_t c_last, uint32_t *c_id)
{
	const struct tpcc_scale *s = &tx->x->s;
	dsm_addr_t base = tx->x->wh[w_id - 1].cidx +
			  (dsm_addr_t)(d_id - 1) * tpcc_cidx_bytes(s);
	struct tpcc_cidx_ent e;
	uint16_t id;
	int r;

	r = dsm_read(tx->t, base + c_last * sizeof(e), &e, sizeof(e));
	if (r != 0)
		return r;
	if (e.count == 0 || (uint32_t)e.start + e.count > s->customers)
		return -ENOENT;
	r = dsm_read(tx->t,
		     base + TPCC_CIDX_IDS_OFF +
			     (e.start + (e.count - 1u) / 2) * sizeof(id),
		     &id, sizeof(id));
	if (r != 0)
		return r;
	*c_id = id;
	return 0;
}

/* Clause 2.5.2.2: a bad-credit customer's C_DATA gets the payment first. */
static void
bad_credit_data(struct tpcc_customer *c, const struct tpcc_pay_in *in)
{
	char buf[sizeof(c->data) + 64];

	snprintf(buf, sizeof(buf), "%u %u %u %u %u %lld.%02lld|%s", c->id,
		 in->c_d_id, in->c_w_id, in->d_id, in->w_id,
		 (long long)(in->amount / 100), (long long)(in->amount % 100),
		 c->data);
	memcpy(c->data, buf, sizeof(c->data) - 1);
	c->data[sizeof(c->data) - 1] = '\0';
}

int
tpcc_payment(struct tpcc_txn *tx, const struct tpcc_pay_in *in)
{
	const struct tpcc_ctx *x = tx->x;
	const struct tpcc_scale *s = &x->s;
	const struct tpcc_wh_addr *wa = &x->wh[in->w_id - 1];
	const struct tpcc_wh_addr *ca = &x->wh[in->c_w_id - 1];
	struct tpcc_row *rw, *rd, *rc;
	struct tpcc_warehouse *w;
	struct tpcc_district *d;
	struct tpcc_customer *c;
	struct tpcc_history h;
	uint32_t c_id = in->c_id;
	int r;

	tpcc_txn_begin(tx);
	r = tpcc_txn_lock(tx, tpcc_warehouse_addr(wa), TPCC_W_SZ, TPCC_LOCK_X,
			  &rw);
	if (r == 0)
		r = tpcc_txn_lock(tx, tpcc_district_addr(wa, in->d_id),
				  TPCC_D_SZ, TPCC_LOCK_X, &rd);
	if (r == 0 && in->by_name)
		r = tpcc_customer_by_name(tx, in->c_w_id, in->c_d_id,
					  in->c_last, &c_id);
	if (r == 0)
		r = tpcc_txn_lock(tx,
				  tpcc_customer_addr(s, ca, in->c_d_id, c_id),
				  TPCC_C_SZ, TPCC_LOCK_X, &rc);
	if (r != 0)
		return tpcc_tx_fail(tx, r);

	w = (struct tpcc_warehouse *)rw->img;
	d = (struct tpcc_district *)rd->img;
	c = (struct tpcc_customer *)rc->img;
	w->ytd += in->amount;
	if (!tx->inject_bug)
		d->ytd += in->amount;
	tx->inject_bug = false; /* one lost update is enough to see */
	c->balance -= in->amount;
	c->ytd_payment += in->amount;
	c->payment_cnt++;
	if (!strcmp(c->credit, "BC"))
		bad_credit_data(c, in);
	rw->dirty = rd->dirty = rc->dirty = true;

	memset(&h, 0, sizeof(h));
	h.c_id = c_id;
	h.c_d_id = (uint8_t)in->c_d_id;
	h.c_w_id = in->c_w_id;
	h.d_id = (uint8_t)in->d_id;
	h.w_id = in->w_id;
	h.date = (uint64_t)time(NULL);
	h.amount = in->amount;
	snprintf(h.data, sizeof(h.data), "%.10s    %.10s", w->name, d->name);
	r = dsm_write(tx->t,
		      tpcc_history_addr(s, wa->dreg[in->d_id - 1],
					d->h_count % s->history),
		      &h, sizeof(h));
	d->h_count++;
	if (r != 0)
		return tpcc_tx_fail(tx, r);
	return tpcc_txn_commit(tx);
}
