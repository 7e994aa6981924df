/* SPDX-License-Identifier: BSD-3-Clause
 *
 * A barrier among one node's application threads that can be broken: when
 * a thread fails (a DSM error), the others must not wait for it forever,
 * which pthread_barrier_t cannot express.
 */
#ifndef PR_LBAR_H
#define PR_LBAR_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct pr_lbar {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned n, waiting;
	uint64_t gen;
	bool broken;
};

/** @return 0; -errno from pthread. */
int pr_lbar_init(struct pr_lbar *b, unsigned n);
void pr_lbar_destroy(struct pr_lbar *b);

/**
 * Wait until all n threads have arrived.
 * @return 0; -ECANCELED once the barrier is broken.
 */
int pr_lbar_wait(struct pr_lbar *b);

/** Release every waiter, now and later, with -ECANCELED. */
void pr_lbar_break(struct pr_lbar *b);

#endif /* PR_LBAR_H */
