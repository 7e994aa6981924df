/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The consistency check of a warehouse after the run (tpcc_check.h), read
 * from global memory.
 */
#ifndef TPCC_VERIFY_H
#define TPCC_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include <dsm.h>

#include "tpcc_txn.h"

/* What the warehouse's own thread committed. */
struct tpcc_owner {
	uint64_t new_orders; /* committed New-Orders (not rolled back) */
	int64_t paid;        /* amounts of committed Payments, cents */
};

/**
 * Check warehouse index w: conditions 1 - 7, the layout, free lock words,
 * and (own != NULL) its thread's totals. Call once no transaction runs.
 * @return 0; a condition number of tpcc_check.h with `msg` set; or a
 * negative DSM error (-ENOMEM) with `msg` set.
 */
int tpcc_verify_warehouse(struct dsm_thread *t, const struct tpcc_ctx *x,
			  uint32_t w, const struct tpcc_owner *own, char *msg,
			  size_t len);

#endif /* TPCC_VERIFY_H */
