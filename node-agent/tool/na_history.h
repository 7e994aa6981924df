/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Operation history for the linearizability checker (format: docs/NODE-AGENT.md
 * "History format"): one JSON line per completed operation, times in
 * CLOCK_MONOTONIC ns (shared by every network namespace of the host, so
 * real-time order across nodes is meaningful).
 */
#ifndef NA_HISTORY_H
#define NA_HISTORY_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

struct na_history {
	FILE *f;
	pthread_mutex_t mu;
	uint16_t node;
	uint64_t lines;
};

/** @return 0 or -errno. A NULL path makes every call a no-op. */
int na_history_open(struct na_history *h, const char *path, uint16_t node);

/** Record one completed operation; `op` is "read", "write" or "incr". */
void na_history_op(struct na_history *h, uint16_t thread, const char *op,
		   uint64_t addr, uint64_t value, uint64_t start_ns,
		   uint64_t end_ns);

/** Write the final line and close. */
void na_history_close(struct na_history *h, uint64_t ops);

#endif /* NA_HISTORY_H */
