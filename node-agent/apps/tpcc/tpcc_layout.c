/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Where TPC-C's rows lie in global memory (tpcc.h; README.md "Data
 * layout"). Arrays never put a row across a block boundary: a row is then
 * read or written by one block access, atomic in the DSM.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpcc.h"

_Static_assert(sizeof(struct tpcc_warehouse) == TPCC_W_SZ, "warehouse");
_Static_assert(sizeof(struct tpcc_district) == TPCC_D_SZ, "district");
_Static_assert(sizeof(struct tpcc_customer) == TPCC_C_SZ, "customer");
_Static_assert(sizeof(struct tpcc_stock) == TPCC_S_SZ, "stock");
_Static_assert(sizeof(struct tpcc_item) == TPCC_I_SZ, "item");
_Static_assert(sizeof(struct tpcc_order) == TPCC_O_SZ, "order");
_Static_assert(sizeof(struct tpcc_new_order) == TPCC_NO_SZ, "new-order");
_Static_assert(sizeof(struct tpcc_order_line) == TPCC_OL_SZ, "order-line");
_Static_assert(sizeof(struct tpcc_history) == TPCC_H_SZ, "history");
_Static_assert(sizeof(struct tpcc_wh_addr) == 128, "directory entry");

#define TPCC_LINES_SZ  (TPCC_MAX_OL * TPCC_OL_SZ)
#define TPCC_CHUNK     (32ull << 20) /* dsm_malloc's largest piece */
#define TPCC_MIN_BLOCK 1024u         /* an order's lines in one block */

uint64_t
tpcc_array_bytes(uint64_t n, uint32_t size, uint32_t block)
{
	uint64_t per = block / size;

	return (n + per - 1) / per * block;
}

dsm_addr_t
tpcc_row_addr(dsm_addr_t base, uint64_t idx, uint32_t size, uint32_t block)
{
	uint64_t per = block / size;

	return base + idx / per * block + idx % per * size;
}

static uint64_t
orders_bytes(const struct tpcc_scale *s)
{
	return tpcc_array_bytes(s->max_orders, TPCC_O_SZ, s->block);
}

static uint64_t
new_orders_bytes(const struct tpcc_scale *s)
{
	return tpcc_array_bytes(s->max_orders, TPCC_NO_SZ, s->block);
}

static uint64_t
lines_bytes(const struct tpcc_scale *s)
{
	return tpcc_array_bytes(s->max_orders, TPCC_LINES_SZ, s->block);
}

uint64_t
tpcc_dreg_bytes(const struct tpcc_scale *s)
{
	return orders_bytes(s) + new_orders_bytes(s) + lines_bytes(s) +
	       tpcc_array_bytes(s->history, TPCC_H_SZ, s->block);
}

uint32_t
tpcc_order_slot(const struct tpcc_scale *s, uint32_t o_id)
{
	return (o_id - 1) % s->max_orders;
}

dsm_addr_t
tpcc_order_addr(const struct tpcc_scale *s, dsm_addr_t dreg, uint32_t o_id)
{
	return tpcc_row_addr(dreg, tpcc_order_slot(s, o_id), TPCC_O_SZ,
			     s->block);
}

dsm_addr_t
tpcc_new_order_addr(const struct tpcc_scale *s, dsm_addr_t dreg, uint32_t o_id)
{
	return tpcc_row_addr(dreg + orders_bytes(s), tpcc_order_slot(s, o_id),
			     TPCC_NO_SZ, s->block);
}

dsm_addr_t
tpcc_lines_addr(const struct tpcc_scale *s, dsm_addr_t dreg, uint32_t o_id)
{
	return tpcc_row_addr(dreg + orders_bytes(s) + new_orders_bytes(s),
			     tpcc_order_slot(s, o_id), TPCC_LINES_SZ, s->block);
}

dsm_addr_t
tpcc_history_addr(const struct tpcc_scale *s, dsm_addr_t dreg, uint32_t slot)
{
	return tpcc_row_addr(dreg + orders_bytes(s) + new_orders_bytes(s) +
				     lines_bytes(s),
			     slot, TPCC_H_SZ, s->block);
}

uint64_t
tpcc_cidx_bytes(const struct tpcc_scale *s)
{
	uint64_t b = (2ull * TPCC_NAMES + s->customers) * sizeof(uint16_t);

	return (b + s->block - 1) / s->block * s->block;
}

dsm_addr_t
tpcc_warehouse_addr(const struct tpcc_wh_addr *a)
{
	return a->wd;
}

dsm_addr_t
tpcc_district_addr(const struct tpcc_wh_addr *a, uint32_t d_id)
{
	return a->wd + (dsm_addr_t)d_id * TPCC_D_SZ;
}

dsm_addr_t
tpcc_customer_addr(const struct tpcc_scale *s, const struct tpcc_wh_addr *a,
		   uint32_t d_id, uint32_t c_id)
{
	uint64_t idx = (uint64_t)(d_id - 1) * s->customers + (c_id - 1);

	return tpcc_row_addr(a->cust, idx, TPCC_C_SZ, s->block);
}

dsm_addr_t
tpcc_stock_addr(const struct tpcc_scale *s, const struct tpcc_wh_addr *a,
		uint32_t i_id)
{
	return tpcc_row_addr(a->stock, i_id - 1, TPCC_S_SZ, s->block);
}

uint32_t
tpcc_items_per_part(const struct tpcc_scale *s)
{
	return (s->items + s->nodes - 1) / s->nodes;
}

dsm_addr_t
tpcc_item_addr(const struct tpcc_scale *s, const dsm_addr_t *parts,
	       uint32_t i_id)
{
	uint32_t per = tpcc_items_per_part(s);

	return tpcc_row_addr(parts[(i_id - 1) / per], (i_id - 1) % per,
			     TPCC_I_SZ, s->block);
}

uint16_t
tpcc_wh_home(const struct tpcc_scale *s, uint32_t w)
{
	if (s->placement == TPCC_PLACE_LOCAL)
		return (uint16_t)(w / s->threads);
	return (uint16_t)(w % s->nodes);
}

int
tpcc_scale_check(const struct tpcc_scale *s, char *err, size_t len)
{
	uint64_t stock = tpcc_array_bytes(s->items, TPCC_S_SZ, s->block);
	uint64_t cust = tpcc_array_bytes((uint64_t)s->customers *
						 TPCC_DISTRICTS,
					 TPCC_C_SZ, s->block);
	uint64_t items = tpcc_array_bytes(tpcc_items_per_part(s), TPCC_I_SZ,
					  s->block);

	if (s->block < TPCC_MIN_BLOCK) {
		snprintf(err, len,
			 "block size %u: dsm_tpcc needs at least %u (an "
			 "order's lines in one block)",
			 s->block, TPCC_MIN_BLOCK);
		return -1;
	}
	if (s->items < s->nodes || s->customers < 10 || s->customers > 60000) {
		snprintf(err, len,
			 "--items must be at least --nodes and "
			 "--customers-per-district in 10..60000");
		return -1;
	}
	if (s->max_orders <= tpcc_init_orders(s) || s->max_orders < 32) {
		snprintf(err, len,
			 "--max-orders %u must exceed the %u initial orders "
			 "per district (--customers-per-district) and 31",
			 s->max_orders, tpcc_init_orders(s));
		return -1;
	}
	if (tpcc_dreg_bytes(s) > TPCC_CHUNK || stock > TPCC_CHUNK ||
	    cust > TPCC_CHUNK || items > TPCC_CHUNK ||
	    tpcc_cidx_bytes(s) * TPCC_DISTRICTS > TPCC_CHUNK) {
		snprintf(err, len,
			 "a table part exceeds 32 MB (district region %llu, "
			 "stock %llu, customers %llu, item part %llu bytes): "
			 "lower --max-orders, --items or "
			 "--customers-per-district",
			 (unsigned long long)tpcc_dreg_bytes(s),
			 (unsigned long long)stock, (unsigned long long)cust,
			 (unsigned long long)items);
		return -1;
	}
	return 0;
}

/* Bump allocation of `n` pieces in 32 MB chunks as dsm_malloc does them
 * (block-aligned, a new chunk when one does not fit): chunks used. */
static uint32_t
chunks_for(const uint64_t *piece, uint32_t n)
{
	uint64_t used = TPCC_CHUNK;
	uint32_t chunks = 0;

	for (uint32_t i = 0; i < n; i++) {
		if (used + piece[i] > TPCC_CHUNK) {
			chunks++;
			used = 0;
		}
		used += piece[i];
	}
	return chunks;
}

uint32_t
tpcc_mem_mb(const struct tpcc_scale *s)
{
	enum {
		REGIONS = 4 + TPCC_DISTRICTS
	};
	uint64_t wh[REGIONS], *piece;
	uint32_t most = 0;

	piece = malloc((1 + (size_t)s->threads * REGIONS) * sizeof(*piece));
	if (piece == NULL)
		return 0;
	wh[0] = s->block;
	wh[1] = tpcc_array_bytes((uint64_t)s->customers * TPCC_DISTRICTS,
				 TPCC_C_SZ, s->block);
	wh[2] = tpcc_cidx_bytes(s) * TPCC_DISTRICTS;
	wh[3] = tpcc_array_bytes(s->items, TPCC_S_SZ, s->block);
	for (int d = 0; d < TPCC_DISTRICTS; d++)
		wh[4 + d] = tpcc_dreg_bytes(s);
	for (uint32_t h = 0; h < s->nodes; h++) {
		uint32_t chunks = 0;

		/* Each node allocates with its own chunks at every home. */
		for (uint32_t p = 0; p < s->nodes; p++) {
			uint32_t n = 0;

			if (p == h)
				piece[n++] =
					tpcc_array_bytes(tpcc_items_per_part(s),
							 TPCC_I_SZ, s->block);
			for (uint32_t t = 0; t < s->threads; t++) {
				if (tpcc_wh_home(s, p * s->threads + t) != h)
					continue;
				memcpy(piece + n, wh, sizeof(wh));
				n += REGIONS;
			}
			/* + 1: the threads allocate in any order. */
			if (n > 0)
				chunks += chunks_for(piece, n) + 1;
		}
		most = chunks > most ? chunks : most;
	}
	free(piece);
	return 32 * (1 + most);
}
