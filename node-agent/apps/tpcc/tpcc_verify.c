/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The check after the run: read one warehouse's rows from global memory
 * and hand them to the pure conditions of tpcc_check.c; also every lock
 * word of the warehouse must be free again. See tpcc_verify.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpcc_check.h"
#include "tpcc_verify.h"

/* Order slots read past D_NEXT_O_ID - 1, to see rows that should not be. */
#define TPCC_CHECK_EXTRA 16

/* Rows first .. first + n - 1 of an array at `base`, packed into `out`. */
static int
read_rows(struct dsm_thread *t, dsm_addr_t base, uint64_t first, uint64_t n,
	  uint32_t size, uint32_t block, void *out)
{
	uint32_t per = block / size;
	uint8_t *o = out;

	while (n > 0) {
		uint64_t k = per - first % per;
		int rc;

		if (k > n)
			k = n;
		rc = dsm_read(t, tpcc_row_addr(base, first, size, block), o,
			      k * size);
		if (rc != 0)
			return rc;
		o += k * size;
		first += k;
		n -= k;
	}
	return 0;
}

/* Every row's lock word (its first 8 bytes) free? */
static int
locks_free(struct dsm_thread *t, dsm_addr_t base, uint64_t n, uint32_t size,
	   uint32_t block, uint32_t w_id, const char *table, char *msg,
	   size_t len)
{
	uint8_t *rows = malloc(n * size);
	int rc = rows ? read_rows(t, base, 0, n, size, block, rows) : -ENOMEM;

	for (uint64_t i = 0; rc == 0 && i < n; i++) {
		uint64_t w;

		memcpy(&w, rows + i * size, sizeof(w));
		if (w != 0) {
			snprintf(msg, len,
				 "warehouse %u: %s row %llu still locked "
				 "(lock word 0x%llx) after the run",
				 w_id, table, (unsigned long long)i + 1,
				 (unsigned long long)w);
			rc = TPCC_COND_LOCKS;
		}
	}
	free(rows);
	return rc;
}

static int
check_district(struct dsm_thread *t, const struct tpcc_ctx *x, uint32_t w,
	       const struct tpcc_district *d, char *msg, size_t len)
{
	const struct tpcc_scale *s = &x->s;
	dsm_addr_t dreg = x->wh[w].dreg[d->id - 1];
	struct tpcc_dview v = { .w_id = w + 1, .d_id = d->id };
	void *o, *no, *ol;
	int rc;

	v.next_o_id = d->next_o_id;
	v.no_first = d->no_first;
	v.max_orders = s->max_orders;
	v.slots = d->next_o_id - 1 + TPCC_CHECK_EXTRA;
	if (v.slots > s->max_orders)
		v.slots = s->max_orders;
	o = malloc((size_t)v.slots * TPCC_O_SZ);
	no = malloc((size_t)v.slots * TPCC_NO_SZ);
	ol = malloc((size_t)v.slots * TPCC_MAX_OL * TPCC_OL_SZ);
	rc = o && no && ol ? 0 : -ENOMEM;
	if (rc == 0)
		rc = read_rows(t, tpcc_order_addr(s, dreg, 1), 0, v.slots,
			       TPCC_O_SZ, s->block, o);
	if (rc == 0)
		rc = read_rows(t, tpcc_new_order_addr(s, dreg, 1), 0, v.slots,
			       TPCC_NO_SZ, s->block, no);
	if (rc == 0)
		rc = read_rows(t, tpcc_lines_addr(s, dreg, 1), 0, v.slots,
			       TPCC_MAX_OL * TPCC_OL_SZ, s->block, ol);
	if (rc == 0) {
		v.orders = o;
		v.nos = no;
		v.ols = ol;
		rc = tpcc_check_district(&v, msg, len);
	}
	free(o);
	free(no);
	free(ol);
	return rc;
}

int
tpcc_verify_warehouse(struct dsm_thread *t, const struct tpcc_ctx *x,
		      uint32_t w, const struct tpcc_owner *own, char *msg,
		      size_t len)
{
	const struct tpcc_scale *s = &x->s;
	const struct tpcc_wh_addr *a = &x->wh[w];
	uint8_t img[(TPCC_DISTRICTS + 1) * TPCC_D_SZ];
	const struct tpcc_warehouse *wh = (const void *)img;
	int64_t d_ytd[TPCC_DISTRICTS];
	uint64_t added = 0;
	int rc;

	rc = dsm_read(t, a->wd, img, sizeof(img));
	if (rc != 0)
		goto dsm_error;
	rc = locks_free(t, a->wd, TPCC_DISTRICTS + 1, TPCC_D_SZ, s->block,
			w + 1, "WAREHOUSE/DISTRICT", msg, len);
	if (rc != 0)
		goto out;
	for (uint32_t d = 0; d < TPCC_DISTRICTS; d++) {
		const struct tpcc_district
			*dr = (const void *)(img + (d + 1) * TPCC_D_SZ);

		d_ytd[d] = dr->ytd;
		added += dr->next_o_id - 1 - tpcc_init_orders(s);
	}
	rc = tpcc_check_ytd(w + 1, wh->ytd, d_ytd, msg, len);
	for (uint32_t d = 0; rc == 0 && d < TPCC_DISTRICTS; d++)
		rc = check_district(t, x, w,
				    (const void *)(img + (d + 1) * TPCC_D_SZ),
				    msg, len);
	if (rc == 0 && own != NULL)
		rc = tpcc_check_owner(w + 1, wh->ytd, added, own->new_orders,
				      own->paid, msg, len);
	if (rc == 0)
		rc = locks_free(t, a->cust,
				(uint64_t)s->customers * TPCC_DISTRICTS,
				TPCC_C_SZ, s->block, w + 1, "CUSTOMER", msg,
				len);
	if (rc == 0)
		rc = locks_free(t, a->stock, s->items, TPCC_S_SZ, s->block,
				w + 1, "STOCK", msg, len);
out:
	if (rc >= 0)
		return rc;
dsm_error:
	snprintf(msg, len, "warehouse %u: reading it back: %s", w + 1,
		 strerror(-rc));
	return rc;
}
