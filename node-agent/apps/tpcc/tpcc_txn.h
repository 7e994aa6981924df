/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Transactions over global memory: strict two-phase locking with the
 * no-wait rule on the rows' lock words (tpcc_lock.h). A transaction first
 * locks and reads every row it needs (a conflict: -EBUSY, the caller aborts
 * and retries), then writes (inserts directly; locked rows into the copies
 * it holds), then commits: every changed row is written back together with
 * its lock word cleared, in one block access, and the shared locks are
 * dropped. Nothing is written before the last lock is held, so an abort
 * only has to release. README.md "Concurrency control".
 */
#ifndef TPCC_TXN_H
#define TPCC_TXN_H

#include <stdbool.h>
#include <stdint.h>

#include <dsm.h>

#include "tpcc.h"
#include "tpcc_lock.h"
#include "tpcc_rand.h"

/* Rows one transaction may lock: Stock-Level's district and up to 300
 * stock rows; New-Order's 3 + 15; Delivery's 10 + 10. */
#define TPCC_TXN_ROWS 320

/** What every thread of a node reads: the scale and the directory. */
struct tpcc_ctx {
	struct tpcc_scale s;
	struct tpcc_consts c;
	struct tpcc_wh_addr *wh; /* [warehouses] */
	dsm_addr_t *items;       /* [nodes]: ITEM parts */
	uint16_t node;
};

struct tpcc_row {
	dsm_addr_t addr;
	uint32_t size;
	uint8_t mode; /* enum tpcc_lmode */
	bool dirty;
	_Alignas(8) uint8_t img[TPCC_MAX_ROW];
};

struct tpcc_txn {
	const struct tpcc_ctx *x;
	struct dsm_thread *t;
	uint64_t owner;
	uint32_t n;
	uint64_t locks;     /* lock words taken */
	uint64_t conflicts; /* lock words found taken (aborts) */
	bool inject_bug;    /* --inject-bug: the next Payment skips D_YTD */
	struct tpcc_row rows[TPCC_TXN_ROWS];
};

void tpcc_txn_init(struct tpcc_txn *tx, const struct tpcc_ctx *x,
		   struct dsm_thread *t, uint16_t node, uint16_t thread);

/** Start a transaction (no rows held). */
void tpcc_txn_begin(struct tpcc_txn *tx);

/**
 * Lock the row of `size` bytes at `addr` in `mode` and read it into the
 * returned copy (*row). A row held already is returned as is (a shared
 * lock is upgraded when `mode` is exclusive). @return 0; -EBUSY when the
 * lock is taken (the no-wait rule: call tpcc_txn_abort); -ENOSPC when the
 * transaction holds TPCC_TXN_ROWS rows; a DSM error (-EINTR, -EINVAL).
 */
int tpcc_txn_lock(struct tpcc_txn *tx, dsm_addr_t addr, uint32_t size,
		  enum tpcc_lmode mode, struct tpcc_row **row);

/**
 * Write back the changed rows (lock word cleared in the same write) and
 * release every lock. @return 0; -EPROTO when a lock word is not what this
 * transaction left in it (a bug); a DSM error.
 */
int tpcc_txn_commit(struct tpcc_txn *tx);

/** Release every lock, writing nothing. @return as tpcc_txn_commit. */
int tpcc_txn_abort(struct tpcc_txn *tx);

#endif /* TPCC_TXN_H */
