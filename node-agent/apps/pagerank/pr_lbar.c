/* SPDX-License-Identifier: BSD-3-Clause
 *
 * pr_lbar: a breakable barrier among a node's threads (pr_lbar.h).
 */
#include <errno.h>

#include "pr_lbar.h"

int
pr_lbar_init(struct pr_lbar *b, unsigned n)
{
	int rc;

	b->n = n;
	b->waiting = 0;
	b->gen = 0;
	b->broken = false;
	rc = pthread_mutex_init(&b->mu, NULL);
	if (rc != 0)
		return -rc;
	rc = pthread_cond_init(&b->cv, NULL);
	if (rc != 0) {
		pthread_mutex_destroy(&b->mu);
		return -rc;
	}
	return 0;
}

void
pr_lbar_destroy(struct pr_lbar *b)
{
	pthread_cond_destroy(&b->cv);
	pthread_mutex_destroy(&b->mu);
}

int
pr_lbar_wait(struct pr_lbar *b)
{
	uint64_t gen;
	int rc = 0;

	pthread_mutex_lock(&b->mu);
	gen = b->gen;
	if (++b->waiting == b->n) {
		b->waiting = 0;
		b->gen++;
		pthread_cond_broadcast(&b->cv);
	} else {
		while (gen == b->gen && !b->broken)
			pthread_cond_wait(&b->cv, &b->mu);
	}
	if (b->broken)
		rc = -ECANCELED;
	pthread_mutex_unlock(&b->mu);
	return rc;
}

void
pr_lbar_break(struct pr_lbar *b)
{
	pthread_mutex_lock(&b->mu);
	b->broken = true;
	pthread_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->mu);
}
