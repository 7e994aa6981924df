/* SPDX-License-Identifier: BSD-3-Clause
 *
 * TPC-C's five transactions (clauses 2.4 - 2.8) on tpcc_txn.h. Each runs
 * one attempt: it returns TPCC_OK (committed), TPCC_ROLLBACK (New-Order's
 * 1% with an unused item: rolled back, a completed business transaction),
 * TPCC_FULL (New-Order: the district's order slots are used up), -EBUSY (a
 * lock was taken: aborted, every lock released; retry with the same input),
 * or another negative errno from the DSM (the run cannot go on).
 */
#ifndef TPCC_TX_H
#define TPCC_TX_H

#include <stdint.h>

#include "tpcc_rand.h"
#include "tpcc_txn.h"

enum {
	TPCC_OK = 0,
	TPCC_ROLLBACK = 1,
	TPCC_FULL = 2,
};

int tpcc_new_order(struct tpcc_txn *tx, const struct tpcc_no_in *in);

int tpcc_payment(struct tpcc_txn *tx, const struct tpcc_pay_in *in);

/** Order-Status (read-only). */
int tpcc_order_status(struct tpcc_txn *tx, const struct tpcc_os_in *in);

/** Delivery of all 10 districts in one transaction; *delivered: orders. */
int tpcc_delivery(struct tpcc_txn *tx, const struct tpcc_del_in *in,
		  uint32_t *delivered);

/** Stock-Level (read-only); *low: distinct items below the threshold. */
int tpcc_stock_level(struct tpcc_txn *tx, const struct tpcc_sl_in *in,
		     uint32_t *low);

/**
 * The C_ID at position ceil(n / 2) of the n customers named `c_last` in
 * district (w_id, d_id), sorted by C_FIRST (clause 2.5.2.2), from the
 * read-only last-name index. @return 0, -ENOENT (no such name), a DSM error.
 */
int tpcc_customer_by_name(struct tpcc_txn *tx, uint32_t w_id, uint32_t d_id,
			  uint32_t c_last, uint32_t *c_id);

/** The abort of a failed attempt: release what it holds, return rc. */
int tpcc_tx_fail(struct tpcc_txn *tx, int rc);

#endif /* TPCC_TX_H */
