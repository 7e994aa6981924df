/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The initial population (clause 4.3.3.1, scaled by the options), written
 * a whole block at a time: rows are put into a local image of their block
 * and the image goes out in one dsm_write, so that loading costs one
 * coherence event per block. See tpcc_load.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tpcc_load.h"
#include "tpcc_rand.h"

/* ---- block images ------------------------------------------------------ */

struct blkw {
	struct dsm_thread *t;
	dsm_addr_t base;
	uint32_t size, block, per;
	uint64_t blk; /* block index of the image; UINT64_MAX: none */
	uint8_t *buf;
	int rc;
};

static int
blkw_init(struct blkw *b, struct dsm_thread *t, dsm_addr_t base, uint32_t size,
	  uint32_t block)
{
	b->t = t;
	b->base = base;
	b->size = size;
	b->block = block;
	b->per = block / size;
	b->blk = UINT64_MAX;
	b->rc = 0;
	b->buf = calloc(1, block);
	return b->buf ? 0 : -ENOMEM;
}

static void
blkw_flush(struct blkw *b)
{
	if (b->buf == NULL)
		return;
	if (b->blk != UINT64_MAX && b->rc == 0)
		b->rc = dsm_write(b->t, b->base + b->blk * b->block, b->buf,
				  (size_t)b->per * b->size);
	b->blk = UINT64_MAX;
	memset(b->buf, 0, b->block);
}

/* Put row `idx` (rows come in increasing order). */
static void
blkw_put(struct blkw *b, uint64_t idx, const void *row)
{
	if (idx / b->per != b->blk) {
		blkw_flush(b);
		b->blk = idx / b->per;
	}
	memcpy(b->buf + idx % b->per * b->size, row, b->size);
}

static int
blkw_done(struct blkw *b)
{
	int rc;

	if (b->buf == NULL)
		return b->rc != 0 ? b->rc : -ENOMEM;
	blkw_flush(b);
	rc = b->rc;
	free(b->buf);
	b->buf = NULL;
	return rc;
}

/* ---- rows ---------------------------------------------------------------- */

static void
address(uint64_t *r, char *s1, char *s2, char *city, char *state, char *zip)
{
	if (s1)
		tpcc_astring(r, s1, 10, 20);
	if (s2)
		tpcc_astring(r, s2, 10, 20);
	tpcc_astring(r, city, 10, 20);
	tpcc_astring(r, state, 2, 2);
	tpcc_nstring(r, zip, 4);
	strcat(zip, "11111");
}

static void
make_customer(uint64_t *r, const struct tpcc_consts *k, uint32_t w_id,
	      uint32_t d_id, uint32_t c_id, struct tpcc_customer *c,
	      uint32_t *name)
{
	memset(c, 0, sizeof(*c));
	c->id = c_id;
	c->d_id = d_id;
	c->w_id = w_id;
	*name = c_id <= TPCC_NAMES ? c_id - 1
				   : tpcc_nurand(r, 255, k->c_last_load, 0,
						 TPCC_NAMES - 1);
	tpcc_last_name(*name, c->last);
	strcpy(c->middle, "OE");
	tpcc_astring(r, c->first, 8, 16);
	address(r, c->street_1, NULL, c->city, c->state, c->zip);
	tpcc_nstring(r, c->phone, 16);
	c->since = (uint64_t)time(NULL);
	strcpy(c->credit, tpcc_uniform(r, 1, 10) == 1 ? "BC" : "GC");
	c->credit_lim = 5000000;
	c->discount = (int32_t)tpcc_uniform(r, 0, 5000);
	c->balance = -1000;
	c->ytd_payment = 1000;
	c->payment_cnt = 1;
	tpcc_astring(r, c->data, 60, sizeof(c->data) - 1);
}

/* Sort keys of the last-name index: (name number, C_FIRST). */
struct name_key {
	uint32_t name;
	uint16_t c_id;
	char first[17];
};

static int
cmp_name(const void *a, const void *b)
{
	const struct name_key *x = a, *y = b;

	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	return strcmp(x->first, y->first);
}

/* Customers, their index and history rows of district d_id. */
static int
load_customers(struct dsm_thread *t, const struct tpcc_ctx *x,
	       const struct tpcc_wh_addr *a, uint32_t w_id, uint32_t d_id,
	       uint64_t *r, struct blkw *cw)
{
	const struct tpcc_scale *s = &x->s;
	uint32_t n = s->customers;
	uint64_t ib = tpcc_cidx_bytes(s);
	struct name_key *keys = calloc(n, sizeof(*keys));
	uint8_t *idx = calloc(1, ib);
	struct tpcc_cidx_ent *ent = (struct tpcc_cidx_ent *)idx;
	uint16_t *ids = (uint16_t *)(idx + TPCC_CIDX_IDS_OFF);
	struct blkw hw = { 0 };
	int rc = keys && idx
			 ? blkw_init(&hw, t,
				     tpcc_history_addr(s, a->dreg[d_id - 1], 0),
				     TPCC_H_SZ, s->block)
			 : -ENOMEM;

	for (uint32_t c_id = 1; rc == 0 && c_id <= n; c_id++) {
		struct tpcc_customer c;
		struct tpcc_history h;

		make_customer(r, &x->c, w_id, d_id, c_id, &c,
			      &keys[c_id - 1].name);
		keys[c_id - 1].c_id = (uint16_t)c_id;
		memcpy(keys[c_id - 1].first, c.first, sizeof(c.first));
		blkw_put(cw, (uint64_t)(d_id - 1) * n + c_id - 1, &c);
		memset(&h, 0, sizeof(h));
		h.c_id = c_id;
		h.c_w_id = h.w_id = w_id;
		h.c_d_id = h.d_id = (uint8_t)d_id;
		h.date = (uint64_t)time(NULL);
		h.amount = 1000;
		tpcc_astring(r, h.data, 12, 24);
		blkw_put(&hw, c_id - 1, &h);
	}
	if (hw.buf != NULL) {
		int rc2 = blkw_done(&hw);

		rc = rc != 0 ? rc : rc2;
	}
	if (rc == 0) {
		qsort(keys, n, sizeof(*keys), cmp_name);
		for (uint32_t i = 0; i < n; i++) {
			if (ent[keys[i].name].count == 0)
				ent[keys[i].name].start = (uint16_t)i;
			ent[keys[i].name].count++;
			ids[i] = keys[i].c_id;
		}
		rc = dsm_write(t, a->cidx + (d_id - 1) * ib, idx, ib);
	}
	free(keys);
	free(idx);
	return rc;
}

/* ORDER, NEW-ORDER and ORDER-LINE rows of district d_id. */
static int
load_orders(struct dsm_thread *t, const struct tpcc_ctx *x,
	    const struct tpcc_wh_addr *a, uint32_t w_id, uint32_t d_id,
	    uint64_t *r)
{
	const struct tpcc_scale *s = &x->s;
	uint32_t n = tpcc_init_orders(s), first_new = tpcc_first_new_order(s);
	dsm_addr_t dreg = a->dreg[d_id - 1];
	uint32_t *perm = calloc(n, sizeof(*perm));
	struct tpcc_order_line ol[TPCC_MAX_OL];
	struct blkw ow = { 0 }, nw = { 0 }, lw = { 0 };
	uint64_t now = (uint64_t)time(NULL);
	int rc = perm ? 0 : -ENOMEM, rc2;

	if (rc == 0)
		rc = blkw_init(&ow, t, tpcc_order_addr(s, dreg, 1), TPCC_O_SZ,
			       s->block);
	if (rc == 0)
		rc = blkw_init(&nw, t, tpcc_new_order_addr(s, dreg, 1),
			       TPCC_NO_SZ, s->block);
	if (rc == 0)
		rc = blkw_init(&lw, t, tpcc_lines_addr(s, dreg, 1), sizeof(ol),
			       s->block);
	if (rc != 0) {
		free(perm);
		free(ow.buf);
		free(nw.buf);
		free(lw.buf);
		return rc;
	}
	/* O_C_ID: a random permutation of the customers. */
	for (uint32_t i = 0; i < n; i++)
		perm[i] = i + 1;
	for (uint32_t i = n - 1; i > 0; i--) {
		uint32_t j = tpcc_uniform(r, 0, i), v = perm[i];

		perm[i] = perm[j];
		perm[j] = v;
	}
	for (uint32_t o_id = 1; o_id <= n; o_id++) {
		bool delivered = o_id < first_new;
		struct tpcc_order o;

		memset(&o, 0, sizeof(o));
		o.id = o_id;
		o.c_id = perm[o_id - 1];
		o.entry_d = now;
		o.w_id = w_id;
		o.d_id = (uint8_t)d_id;
		o.ol_cnt = (uint8_t)tpcc_uniform(r, TPCC_MIN_OL, TPCC_MAX_OL);
		o.carrier_id = delivered ? (uint8_t)tpcc_uniform(r, 1, 10) : 0;
		o.all_local = 1;
		blkw_put(&ow, o_id - 1, &o);
		memset(ol, 0, sizeof(ol));
		for (uint32_t i = 0; i < o.ol_cnt; i++) {
			ol[i].o_id = o_id;
			ol[i].d_id = (uint8_t)d_id;
			ol[i].w_id = w_id;
			ol[i].number = (uint8_t)(i + 1);
			ol[i].i_id = tpcc_uniform(r, 1, s->items);
			ol[i].supply_w_id = w_id;
			ol[i].delivery_d = delivered ? now : 0;
			ol[i].quantity = 5;
			ol[i].amount = delivered ? 0
						 : tpcc_uniform(r, 1, 999999);
			tpcc_astring(r, ol[i].dist_info, 24, 24);
		}
		blkw_put(&lw, o_id - 1, ol);
		if (!delivered) {
			struct tpcc_new_order no = { .o_id = o_id,
						     .d_id = (uint16_t)d_id,
						     .w_id = (uint16_t)w_id };

			blkw_put(&nw, o_id - 1, &no);
		}
	}
	free(perm);
	rc = blkw_done(&ow);
	rc2 = blkw_done(&nw);
	rc = rc != 0 ? rc : rc2;
	rc2 = blkw_done(&lw);
	return rc != 0 ? rc : rc2;
}

/* WAREHOUSE and its DISTRICT rows: one block. */
static int
load_wd(struct dsm_thread *t, const struct tpcc_ctx *x,
	const struct tpcc_wh_addr *a, uint32_t w_id, uint64_t *r)
{
	uint8_t img[(TPCC_DISTRICTS + 1) * TPCC_D_SZ];
	struct tpcc_warehouse *w = (struct tpcc_warehouse *)img;

	memset(img, 0, sizeof(img));
	w->id = w_id;
	w->ytd = TPCC_W_YTD0;
	w->tax = (int32_t)tpcc_uniform(r, 0, 2000);
	tpcc_astring(r, w->name, 6, 10);
	address(r, w->street_1, w->street_2, w->city, w->state, w->zip);
	for (uint32_t d_id = 1; d_id <= TPCC_DISTRICTS; d_id++) {
		struct tpcc_district
			*d = (struct tpcc_district *)(img + d_id * TPCC_D_SZ);

		d->id = d_id;
		d->w_id = w_id;
		d->ytd = TPCC_D_YTD0;
		d->tax = (int32_t)tpcc_uniform(r, 0, 2000);
		d->next_o_id = tpcc_init_orders(&x->s) + 1;
		d->no_first = tpcc_first_new_order(&x->s);
		d->h_count = x->s.customers;
		tpcc_astring(r, d->name, 6, 10);
		address(r, d->street_1, d->street_2, d->city, d->state, d->zip);
	}
	return dsm_write(t, a->wd, img, sizeof(img));
}

static int
load_stock(struct dsm_thread *t, const struct tpcc_ctx *x,
	   const struct tpcc_wh_addr *a, uint32_t w_id, uint64_t *r)
{
	struct blkw sw;
	int rc = blkw_init(&sw, t, a->stock, TPCC_S_SZ, x->s.block);

	for (uint32_t i_id = 1; rc == 0 && i_id <= x->s.items; i_id++) {
		struct tpcc_stock st;

		memset(&st, 0, sizeof(st));
		st.i_id = i_id;
		st.w_id = w_id;
		st.quantity = (int32_t)tpcc_uniform(r, 10, 100);
		for (int d = 0; d < TPCC_DISTRICTS; d++)
			tpcc_astring(r, st.dist[d], 24, 24);
		tpcc_data_string(r, st.data, 12, sizeof(st.data) - 1);
		blkw_put(&sw, i_id - 1, &st);
	}
	return rc == 0 ? blkw_done(&sw) : rc;
}

static dsm_addr_t
alloc_at(struct dsm_thread *t, uint64_t bytes, uint16_t home, int *rc)
{
	dsm_addr_t p = *rc == 0 ? dsm_malloc(t, bytes, home) : 0;

	if (p == 0 && *rc == 0)
		*rc = -ENOMEM;
	return p;
}

int
tpcc_load_warehouse(struct dsm_thread *t, const struct tpcc_ctx *x,
		    dsm_addr_t dir, uint32_t w, uint32_t seed, char *err,
		    size_t len)
{
	const struct tpcc_scale *s = &x->s;
	uint16_t home = tpcc_wh_home(s, w);
	uint64_t r = (uint64_t)seed << 32 ^ (w + 1) * 0x9e3779b97f4a7c15ull;
	struct tpcc_wh_addr a;
	struct blkw cw = { 0 };
	int rc = 0;

	memset(&a, 0, sizeof(a));
	a.wd = alloc_at(t, s->block, home, &rc);
	a.cust = alloc_at(t,
			  tpcc_array_bytes((uint64_t)s->customers *
						   TPCC_DISTRICTS,
					   TPCC_C_SZ, s->block),
			  home, &rc);
	a.cidx = alloc_at(t, tpcc_cidx_bytes(s) * TPCC_DISTRICTS, home, &rc);
	a.stock = alloc_at(t, tpcc_array_bytes(s->items, TPCC_S_SZ, s->block),
			   home, &rc);
	for (int d = 0; d < TPCC_DISTRICTS; d++)
		a.dreg[d] = alloc_at(t, tpcc_dreg_bytes(s), home, &rc);
	if (rc != 0) {
		snprintf(err, len,
			 "warehouse %u: out of global memory at node %u "
			 "(raise --mem-mb or lower the scale)",
			 w + 1, home);
		return rc;
	}
	rc = tpcc_dir_put_wh(t, x, dir, w, &a);
	if (rc == 0)
		rc = load_wd(t, x, &a, w + 1, &r);
	if (rc == 0)
		rc = blkw_init(&cw, t, a.cust, TPCC_C_SZ, s->block);
	for (uint32_t d_id = 1; rc == 0 && d_id <= TPCC_DISTRICTS; d_id++)
		rc = load_customers(t, x, &a, w + 1, d_id, &r, &cw);
	if (cw.buf != NULL) {
		int rc2 = blkw_done(&cw);

		rc = rc != 0 ? rc : rc2;
	}
	for (uint32_t d_id = 1; rc == 0 && d_id <= TPCC_DISTRICTS; d_id++)
		rc = load_orders(t, x, &a, w + 1, d_id, &r);
	if (rc == 0)
		rc = load_stock(t, x, &a, w + 1, &r);
	if (rc != 0)
		snprintf(err, len, "loading warehouse %u: %s", w + 1,
			 strerror(-rc));
	return rc;
}

int
tpcc_load_items(struct dsm_thread *t, const struct tpcc_ctx *x, dsm_addr_t dir,
		uint32_t seed, char *err, size_t len)
{
	const struct tpcc_scale *s = &x->s;
	uint32_t per = tpcc_items_per_part(s), first = x->node * per + 1;
	uint64_t r = (uint64_t)seed << 32 ^ 0x17e11 ^ x->node;
	dsm_addr_t base = 0;
	struct blkw iw;
	int rc = 0;

	base = alloc_at(t, tpcc_array_bytes(per, TPCC_I_SZ, s->block), x->node,
			&rc);
	if (rc == 0)
		rc = blkw_init(&iw, t, base, TPCC_I_SZ, s->block);
	for (uint32_t i = 0; rc == 0 && i < per && first + i <= s->items; i++) {
		struct tpcc_item it;

		memset(&it, 0, sizeof(it));
		it.id = first + i;
		it.im_id = tpcc_uniform(&r, 1, 10000);
		it.price = tpcc_uniform(&r, 100, 10000);
		tpcc_astring(&r, it.name, 14, 24);
		tpcc_data_string(&r, it.data, 26, 50);
		blkw_put(&iw, i, &it);
	}
	if (rc == 0)
		rc = blkw_done(&iw);
	if (rc == 0)
		rc = tpcc_dir_put_node(t, x, dir, base);
	if (rc != 0)
		snprintf(err, len, "loading the ITEM part of node %u: %s",
			 x->node, strerror(-rc));
	return rc;
}
