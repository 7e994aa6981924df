/* SPDX-License-Identifier: BSD-3-Clause
 *
 * TPC-C's consistency conditions (clause 3.3.2) on a snapshot of one
 * warehouse taken after the run (tpcc_verify.c reads it from global
 * memory). Pure, so a hand-made inconsistent state can be tested. Each
 * check returns 0, or the number of the violated condition with a message:
 *
 *   1  W_YTD = sum(D_YTD)
 *   2  D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)
 *   3  max(NO_O_ID) - min(NO_O_ID) + 1 = rows in NEW-ORDER (per district)
 *   4  sum(O_OL_CNT) = rows in ORDER-LINE (per district)
 *   5  O_CARRIER_ID is null iff the order has a NEW-ORDER row
 *   6  O_OL_CNT = the order's ORDER-LINE rows
 *   7  OL_DELIVERY_D is null iff O_CARRIER_ID is null
 *   TPCC_COND_LAYOUT  a row in another slot than its O_ID's, an order
 *                     older than the ring holds, or the district's
 *                     new-order head not at min(NO_O_ID)
 *   TPCC_COND_LOCKS   a lock word still held after the run
 *   TPCC_COND_OWNER   the warehouse's totals disagree with what its thread
 *                     committed (new orders; payments' amounts)
 */
#ifndef TPCC_CHECK_H
#define TPCC_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "tpcc.h"

#define TPCC_COND_LAYOUT 8
#define TPCC_COND_LOCKS  9
#define TPCC_COND_OWNER  10

/* One district's rows: ring slots 0 .. slots - 1 of max_orders (O_ID o
 * in slot (o - 1) mod max_orders). */
struct tpcc_dview {
	uint32_t w_id, d_id;
	uint32_t next_o_id; /* D_NEXT_O_ID */
	uint32_t no_first;  /* the new-order head */
	uint32_t max_orders;
	uint32_t slots;
	const struct tpcc_order *orders;   /* [slots] */
	const struct tpcc_new_order *nos;  /* [slots] */
	const struct tpcc_order_line *ols; /* [slots * TPCC_MAX_OL] */
};

/** Condition 1. */
int tpcc_check_ytd(uint32_t w_id, int64_t w_ytd,
		   const int64_t d_ytd[TPCC_DISTRICTS], char *msg, size_t len);

/** Conditions 2 - 7 and the layout, for one district. */
int tpcc_check_district(const struct tpcc_dview *v, char *msg, size_t len);

/**
 * The warehouse against its own thread's counters: it alone runs New-Order
 * and Payment on it, so sum over districts of (D_NEXT_O_ID - 1 - initial
 * orders) = its committed New-Orders and W_YTD - 300,000.00 = the amounts
 * of its committed Payments.
 */
int tpcc_check_owner(uint32_t w_id, int64_t w_ytd, uint64_t orders_added,
		     uint64_t new_orders, int64_t paid, char *msg, size_t len);

#endif /* TPCC_CHECK_H */
