/* SPDX-License-Identifier: BSD-3-Clause
 *
 * dsm_tpcc: TPC-C on libdsm (paper section 7.4, Figure 15). The rows of the
 * nine tables as they lie in global memory, the scale of a run, and where
 * every row is (the layout, README.md "Data layout"). Pure: no DSM calls.
 *
 * Money is in cents, rates (tax, discount) in 1/10000. TPC-C's ids are
 * 1-based (W_ID, D_ID, C_ID, I_ID, O_ID) as in the rows; a warehouse's index
 * in the address tables is W_ID - 1. A lockable row (warehouse, district,
 * customer, stock) starts with its 64-bit lock word (tpcc_lock.h).
 */
#ifndef TPCC_H
#define TPCC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dsm.h>

#define TPCC_DISTRICTS 10 /* per warehouse (clause 1.2) */
#define TPCC_MIN_OL    5  /* order lines per order */
#define TPCC_MAX_OL    15
#define TPCC_NAMES     1000 /* distinct C_LAST values (clause 4.3.2.3) */

/* Initial values of clause 4.3.3.1, in cents. */
#define TPCC_W_YTD0 INT64_C(30000000)
#define TPCC_D_YTD0 INT64_C(3000000)

struct tpcc_warehouse {
	uint64_t lock;
	int64_t ytd;
	uint32_t id;
	int32_t tax;
	char name[11];
	char street_1[21];
	char street_2[21];
	char city[21];
	char state[3];
	char zip[10];
	uint8_t pad_[17];
};

struct tpcc_district {
	uint64_t lock;
	int64_t ytd;
	uint32_t id;
	uint32_t w_id;
	int32_t tax;
	uint32_t next_o_id;
	uint32_t no_first; /* oldest undelivered O_ID (new-order head) */
	uint32_t h_count;  /* history rows inserted (the ring's head) */
	char name[11];
	char street_1[21];
	char street_2[21];
	char city[21];
	char state[3];
	char zip[10];
	uint8_t pad_[1];
};

struct tpcc_customer {
	uint64_t lock;
	int64_t balance;
	int64_t ytd_payment;
	int64_t credit_lim;
	uint64_t since;
	uint32_t id;
	uint32_t d_id;
	uint32_t w_id;
	uint32_t payment_cnt;
	uint32_t delivery_cnt;
	int32_t discount;
	char first[17];
	char middle[3];
	char last[17];
	char credit[3]; /* "GC" or "BC" */
	char phone[17];
	char street_1[21];
	char city[21];
	char state[3];
	char zip[10];
	char data[80]; /* C_DATA, shortened from 300..500 characters */
};

struct tpcc_stock {
	uint64_t lock;
	int64_t ytd;
	uint32_t i_id;
	uint32_t w_id;
	int32_t quantity;
	uint32_t order_cnt;
	uint32_t remote_cnt;
	uint32_t pad_;
	char dist[TPCC_DISTRICTS][25]; /* S_DIST_01 .. S_DIST_10 */
	char data[30];                 /* S_DATA, shortened from 26..50 */
};

/* Read-only after the load: no lock word. */
struct tpcc_item {
	uint32_t id;
	uint32_t im_id;
	int64_t price;
	char name[25];
	char data[51];
	uint8_t pad_[36];
};

/* Rows inserted under their district's write lock: no lock word. */
struct tpcc_order {
	uint32_t id; /* 0: free slot */
	uint32_t c_id;
	uint64_t entry_d;
	uint32_t w_id;
	uint8_t d_id;
	uint8_t ol_cnt;
	uint8_t carrier_id; /* 0: null */
	uint8_t all_local;
	uint8_t pad_[8];
};

struct tpcc_new_order {
	uint32_t o_id; /* 0: no row */
	uint16_t d_id;
	uint16_t w_id;
};

struct tpcc_order_line {
	uint32_t o_id;
	uint32_t i_id;
	uint32_t supply_w_id;
	uint32_t w_id;
	int64_t amount;
	uint64_t delivery_d; /* 0: null */
	uint8_t d_id;
	uint8_t number; /* 0: no row */
	uint8_t quantity;
	char dist_info[25];
	uint8_t pad_[4];
};

struct tpcc_history {
	uint32_t c_id;
	uint32_t c_w_id;
	uint32_t w_id;
	uint8_t c_d_id;
	uint8_t d_id;
	uint8_t pad_[2];
	uint64_t date;
	int64_t amount;
	char data[25];
	uint8_t pad2_[7];
};

/* The sizes the layout is computed with (each divides 4096). */
#define TPCC_W_SZ  128
#define TPCC_D_SZ  128
#define TPCC_C_SZ  256
#define TPCC_S_SZ  320
#define TPCC_I_SZ  128
#define TPCC_O_SZ  32
#define TPCC_NO_SZ 8
#define TPCC_OL_SZ 64
#define TPCC_H_SZ  64
/* The largest lockable row (a transaction's copy of one). */
#define TPCC_MAX_ROW TPCC_S_SZ

/** Placement of a warehouse's rows over the nodes' memory. */
enum tpcc_placement {
	TPCC_PLACE_STRIPE, /* warehouse w at node w mod nodes */
	TPCC_PLACE_LOCAL,  /* at the node whose thread runs it */
};

/** The scale of a run (every node must use the same one). */
struct tpcc_scale {
	uint32_t nodes;
	uint32_t threads;    /* per node: warehouses = nodes x threads */
	uint32_t items;      /* ITEM rows, STOCK rows per warehouse */
	uint32_t customers;  /* per district */
	uint32_t max_orders; /* order slots per district (a ring) */
	uint32_t history;    /* history ring slots per district */
	uint32_t block;      /* DSM block size */
	uint32_t placement;  /* enum tpcc_placement */
};

static inline uint32_t
tpcc_warehouses(const struct tpcc_scale *s)
{
	return s->nodes * s->threads;
}

/* Initial orders per district (clause 4.3.3.1: one per customer). */
static inline uint32_t
tpcc_init_orders(const struct tpcc_scale *s)
{
	return s->customers;
}

/* The first O_ID with a NEW-ORDER row after the load (2101 of 3000). */
static inline uint32_t
tpcc_first_new_order(const struct tpcc_scale *s)
{
	return s->customers - s->customers * 3 / 10 + 1;
}

/* Where one warehouse's rows are (published in the directory). */
struct tpcc_wh_addr {
	dsm_addr_t wd;    /* the WAREHOUSE row, then its 10 DISTRICT rows */
	dsm_addr_t cust;  /* CUSTOMER, district-major */
	dsm_addr_t cidx;  /* the last-name index, one part per district */
	dsm_addr_t stock; /* STOCK by I_ID */
	dsm_addr_t dreg[TPCC_DISTRICTS]; /* ORDER, NEW-ORDER, ORDER-LINE,
					    HISTORY of one district */
	uint64_t pad_[2];
};

/** Bytes of an array of n rows of `size`, none across a block boundary. */
uint64_t tpcc_array_bytes(uint64_t n, uint32_t size, uint32_t block);

/** Address of row `idx` of such an array at `base`. */
dsm_addr_t tpcc_row_addr(dsm_addr_t base, uint64_t idx, uint32_t size,
			 uint32_t block);

/*
 * A district region: orders, new-orders, order-line groups (TPCC_MAX_OL
 * rows per order slot), history ring; each part block-aligned. The order
 * parts are rings of max_orders slots: O_ID o is in slot (o - 1) mod
 * max_orders, and a New-Order may reuse a slot only once its order is
 * delivered (else TPCC_FULL).
 */
uint64_t tpcc_dreg_bytes(const struct tpcc_scale *s);
uint32_t tpcc_order_slot(const struct tpcc_scale *s, uint32_t o_id);
dsm_addr_t tpcc_order_addr(const struct tpcc_scale *s, dsm_addr_t dreg,
			   uint32_t o_id);
dsm_addr_t tpcc_new_order_addr(const struct tpcc_scale *s, dsm_addr_t dreg,
			       uint32_t o_id);
/* The order's lines, contiguous: TPCC_MAX_OL x TPCC_OL_SZ bytes. */
dsm_addr_t tpcc_lines_addr(const struct tpcc_scale *s, dsm_addr_t dreg,
			   uint32_t o_id);
dsm_addr_t tpcc_history_addr(const struct tpcc_scale *s, dsm_addr_t dreg,
			     uint32_t slot);

/* The last-name index of one district (read-only after the load): for
 * each name number a struct tpcc_cidx_ent, then the district's C_IDs
 * (uint16_t) sorted by (C_LAST, C_FIRST). */
struct tpcc_cidx_ent {
	uint16_t start; /* first position in the sorted C_IDs */
	uint16_t count;
};
#define TPCC_CIDX_IDS_OFF (TPCC_NAMES * sizeof(struct tpcc_cidx_ent))
uint64_t tpcc_cidx_bytes(const struct tpcc_scale *s); /* one district */

dsm_addr_t tpcc_warehouse_addr(const struct tpcc_wh_addr *a);
dsm_addr_t tpcc_district_addr(const struct tpcc_wh_addr *a, uint32_t d_id);
dsm_addr_t tpcc_customer_addr(const struct tpcc_scale *s,
			      const struct tpcc_wh_addr *a, uint32_t d_id,
			      uint32_t c_id);
dsm_addr_t tpcc_stock_addr(const struct tpcc_scale *s,
			   const struct tpcc_wh_addr *a, uint32_t i_id);

/* ITEM is split in `nodes` parts; part p (homed at node p) holds I_IDs
 * p * per + 1 .. (p + 1) * per. */
uint32_t tpcc_items_per_part(const struct tpcc_scale *s);
dsm_addr_t tpcc_item_addr(const struct tpcc_scale *s, const dsm_addr_t *parts,
			  uint32_t i_id);

/** Home node of warehouse index w's rows. */
uint16_t tpcc_wh_home(const struct tpcc_scale *s, uint32_t w);

/**
 * Global memory (--mem-mb) each node needs to home its share of the
 * tables at this scale: 32 MB of static region plus the 32 MB chunks that
 * dsm_malloc takes from it for every allocating node (home memory is
 * zeroed lazily: what is not written costs nothing).
 */
uint32_t tpcc_mem_mb(const struct tpcc_scale *s);

/**
 * Check a scale before anything is allocated. @return 0, or -1 with a
 * message in `err` (e.g. a district region over 32 MB).
 */
int tpcc_scale_check(const struct tpcc_scale *s, char *err, size_t len);

#endif /* TPCC_H */
