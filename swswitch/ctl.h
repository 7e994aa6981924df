/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Control commands: register writes the operator asks for (the software
 * counterpart of BF Runtime writing a Tofino's registers). The registers
 * belong to the workers and the hot path takes no locks, so a command is
 * posted to every worker, which applies it to its own pipeline between two
 * bursts and posts its report back (docs/SWSWITCH.md "Control commands").
 */
#ifndef SW_CTL_H
#define SW_CTL_H

#include <stdint.h>

#include "lcf_pipeline.h"

#define SW_CTL_TAGS 32 /* evicted tags reported per worker */

/* One worker's mailbox. `req` and `done` are sequence numbers: a command
 * is pending while they differ. */
struct sw_ctl {
	uint32_t req;  /* written by the command (release) */
	uint32_t done; /* written by the worker (release) */
	uint16_t node;
	int rc;
	uint64_t apply_ns; /* how long the worker spent on it */
	struct lcf_node_failed_report rep;
	uint64_t tags[SW_CTL_TAGS];
};

struct sw_lcore;
struct rte_tel_data;

/**
 * Worker side: apply the pending command of `lc` to its pipeline and post
 * the report. Called by the worker between bursts when req != done.
 */
void sw_ctl_apply(struct sw_lcore *lc);

/**
 * Command side (telemetry thread; the caller serializes commands: telemetry
 * serves each client on its own thread): node `node` failed. Posts the eviction
 * (lcf_pipeline_node_failed) to every worker, waits for each report and
 * fills `d` with the totals and the per-worker reports.
 *
 * @return 0 (the reply carries "error" when a worker did not answer within
 *         a second, e.g. because the workers are stopping), or -ENOMEM.
 */
int sw_ctl_node_failed(uint16_t node, struct rte_tel_data *d);

#endif /* SW_CTL_H */
