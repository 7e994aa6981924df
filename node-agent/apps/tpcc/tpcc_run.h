/* SPDX-License-Identifier: BSD-3-Clause
 *
 * dsm_tpcc's run: options, the node's state, the measured phase's worker
 * (tpcc_run.c) and the whole program's course (tpcc_app.c).
 */
#ifndef TPCC_RUN_H
#define TPCC_RUN_H

#include <stdint.h>

#include "dsm_app.h"
#include "tpcc.h"
#include "tpcc_rand.h"
#include "tpcc_txn.h"

struct tpcc_opts {
	double dist_ratio; /* < 0: TPC-C's 1% / 15% */
	uint32_t mix[TPCC_TX_N];
	uint32_t items;
	uint32_t customers;
	uint32_t max_orders;
	uint32_t placement; /* enum tpcc_placement */
	bool inject_bug;    /* a test of the check: break condition 1 */
};

void tpcc_opts_init(struct tpcc_opts *t);

/* One thread's results (its own cache lines: written by it alone). */
struct tpcc_tstat {
	uint64_t done[TPCC_TX_N]; /* committed, per type */
	uint64_t rollbacks;       /* New-Orders rolled back (unused item) */
	uint64_t delivered;       /* orders delivered */
	int64_t paid;             /* committed Payments' amounts, cents */
	uint64_t locks, conflicts;
	int rc; /* a DSM error that ended the thread */
	_Alignas(64) uint8_t pad_[64];
};

struct tpcc_node {
	struct app a;
	struct tpcc_opts t;
	struct tpcc_ctx x;
	struct tpcc_txn **tx;  /* [threads] */
	struct tpcc_tstat *st; /* [threads] */
	_Atomic int full;      /* a district's order slots ran out */
};

/** The measured phase of thread `id` (app_run_threads's fn; arg: node). */
int tpcc_worker(struct app *a, uint16_t id, void *arg);

/** Run dsm_tpcc with parsed options. @return the exit status. */
int tpcc_main(const struct app_opts *o, const struct tpcc_opts *t);

#endif /* TPCC_RUN_H */
