/* SPDX-License-Identifier: BSD-3-Clause
 *
 * na-sim's summary (docs/SIMULATION.md): the counters of `n_nodes` nodes
 * summed, each printed as JSON members (no braces, no leading comma), and
 * the queue holders of a stuck run.
 */
#ifndef NA_SIM_STATS_H
#define NA_SIM_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct dsm;
struct na_node;

/** PIPE write-backs (docs/PIPE.md). */
void na_sim_pipe_json(struct dsm *const *d, uint32_t n_nodes, FILE *f);

/** Validate-on-hit (docs/VALIDATE.md). */
void na_sim_voh_json(struct dsm *const *d, uint32_t n_nodes, FILE *f);

/** Queued locks (docs/QUEUED-LOCKS.md): holders' and requesters'. */
void na_sim_qlock_json(struct dsm *const *d, uint32_t n_nodes, bool queued,
		       FILE *f);

/** A stuck run: the threads (with QDBG set) and busy queue holders. */
void na_sim_qlock_dump(const struct na_node *n);

#endif /* NA_SIM_STATS_H */
