/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Local cache table; see na_cache.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "na_cache.h"

int
na_cache_init(struct na_cache *c, uint32_t entries, uint32_t block_size)
{
	pthread_condattr_t ca;
	uint32_t nb = 1;

	memset(c, 0, sizeof(*c));
	if (entries == 0 || block_size == 0)
		return -EINVAL;
	while ((uint64_t)nb * NA_CACHE_WAYS < entries)
		nb <<= 1;
	c->n_buckets = nb;
	c->block_size = block_size;
	c->b = calloc(nb, sizeof(*c->b));
	/* calloc: untouched entries cost no memory until first used. */
	c->mem = calloc((size_t)nb * NA_CACHE_WAYS, block_size);
	if (!c->b || !c->mem) {
		na_cache_fini(c);
		return -ENOMEM;
	}
	pthread_condattr_init(&ca);
	/* Waiters use CLOCK_MONOTONIC deadlines, like everything else. */
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	for (uint32_t i = 0; i < nb; i++) {
		struct na_cbucket *b = &c->b[i];

		pthread_mutex_init(&b->mu, NULL);
		pthread_cond_init(&b->cv, &ca);
		for (int w = 0; w < NA_CACHE_WAYS; w++) {
			b->e[w].busy = NA_NOBODY;
			b->e[w].pin_w = NA_NOBODY;
			b->e[w].data = c->mem + ((size_t)i * NA_CACHE_WAYS +
						 w) * block_size;
		}
	}
	pthread_condattr_destroy(&ca);
	return 0;
}

void
na_cache_fini(struct na_cache *c)
{
	if (c->b) {
		for (uint32_t i = 0; i < c->n_buckets; i++) {
			for (int w = 0; w < NA_CACHE_WAYS; w++)
				na_centry_twin_free(&c->b[i].e[w]);
			pthread_mutex_destroy(&c->b[i].mu);
			pthread_cond_destroy(&c->b[i].cv);
		}
	}
	free(c->b);
	free(c->mem);
	memset(c, 0, sizeof(*c));
}

struct na_centry *
na_cache_find(struct na_cbucket *b, uint64_t tag)
{
	for (int w = 0; w < NA_CACHE_WAYS; w++) {
		struct na_centry *e = &b->e[w];

		if (e->used && e->tag == tag)
			return e;
	}
	return NULL;
}

struct na_centry *
na_cache_room(struct na_cbucket *b, struct na_centry **victim)
{
	struct na_centry *lru = NULL;

	*victim = NULL;
	for (int w = 0; w < NA_CACHE_WAYS; w++) {
		struct na_centry *e = &b->e[w];

		if (na_centry_free(e))
			return e;
		if (na_centry_evictable(e) && (!lru || e->ts < lru->ts))
			lru = e;
	}
	*victim = lru;
	return NULL;
}

void
na_centry_twin(struct na_centry *e, uint32_t block_size, bool home_current)
{
	if (!home_current) {
		na_centry_twin_free(e);
		return;
	}
	if (!e->twin)
		e->twin = malloc(block_size);
	if (e->twin)
		memcpy(e->twin, e->data, block_size);
}

void
na_centry_twin_free(struct na_centry *e)
{
	free(e->twin);
	e->twin = NULL;
}

void
na_cache_claim(struct na_centry *e, uint64_t tag, int16_t thread, uint64_t now)
{
	e->tag = tag;
	e->used = true;
	e->state = NA_L_INVALID;
	na_centry_twin_free(e);
	e->busy = thread;
	e->pin_w = NA_NOBODY;
	e->pin_r = 0;
	e->ts = now;
}

struct na_centry *
na_cache_lookup(struct na_cbucket *b, uint64_t tag, int16_t thread,
		uint64_t now, struct na_centry **victim, bool *found)
{
	struct na_centry *e = na_cache_find(b, tag);

	*found = e != NULL;
	*victim = NULL;
	if (e)
		return e;
	e = na_cache_room(b, victim);
	if (e)
		na_cache_claim(e, tag, thread, now);
	return e;
}
