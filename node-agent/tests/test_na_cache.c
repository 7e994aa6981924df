/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Local cache table: 8-way buckets, LRU, busy/pinned entries never evicted.
 */
#include <errno.h>

#include <criterion/criterion.h>

#include "na_cache.h"

/* Tags that hash to the bucket of `first`. */
static uint32_t
same_bucket(struct na_cache *c, uint64_t first, uint64_t *out, uint32_t n)
{
	struct na_cbucket *b = na_cache_bucket(c, first);
	uint32_t k = 0;

	for (uint64_t tag = first; k < n; tag++)
		if (na_cache_bucket(c, tag) == b)
			out[k++] = tag;
	return k;
}

Test(cache, geometry)
{
	struct na_cache c;

	cr_assert_eq(na_cache_init(&c, 100, 4096), 0);
	cr_assert_eq(c.n_buckets, 16); /* 100 / 8 -> 16 buckets */
	cr_assert_eq(c.b[3].e[7].data - c.b[3].e[6].data, 4096);
	na_cache_fini(&c);
	cr_assert_eq(na_cache_init(&c, 0, 4096), -EINVAL);
}

Test(cache, eight_ways_then_lru_victim)
{
	struct na_cache c;
	uint64_t tags[9];
	struct na_cbucket *b;
	struct na_centry *e, *victim;

	cr_assert_eq(na_cache_init(&c, 64, 64), 0);
	same_bucket(&c, 1000, tags, 9);
	b = na_cache_bucket(&c, tags[0]);
	for (int i = 0; i < 8; i++) {
		e = na_cache_room(b, &victim);
		cr_assert_not_null(e, "way %d should be free", i);
		/* timestamps: tags[3] is the oldest */
		na_cache_claim(e, tags[i], 0, i == 3 ? 1 : 100 + i);
		e->state = NA_L_SHARED;
		e->busy = NA_NOBODY;
	}
	cr_assert_null(na_cache_room(b, &victim));
	cr_assert_not_null(victim);
	cr_assert_eq(victim->tag, tags[3]);
	/* a busy or pinned entry is never the victim */
	victim->busy = 2;
	na_cache_room(b, &victim);
	cr_assert_eq(victim->tag, tags[0]);
	victim->pin_r = 1;
	na_cache_room(b, &victim);
	cr_assert_eq(victim->tag, tags[1]);
	/* found by tag */
	cr_assert_eq(na_cache_find(b, tags[5])->tag, tags[5]);
	cr_assert_null(na_cache_find(b, tags[8]));
	/* an invalidated, idle entry is free again */
	na_cache_find(b, tags[6])->state = NA_L_INVALID;
	e = na_cache_room(b, &victim);
	cr_assert_not_null(e);
	cr_assert_eq(e->tag, tags[6]);
	na_cache_fini(&c);
}

/* na_cache_lookup: find, else claim a free way, else name the victim. */
Test(cache, lookup_finds_claims_or_names_the_victim)
{
	struct na_cache c;
	uint64_t tags[9];
	struct na_cbucket *b;
	struct na_centry *e, *victim;
	bool found;

	cr_assert_eq(na_cache_init(&c, 64, 64), 0);
	same_bucket(&c, 2000, tags, 9);
	b = na_cache_bucket(&c, tags[0]);
	for (int i = 0; i < 8; i++) {
		e = na_cache_lookup(b, tags[i], 1, 100 + i, &victim, &found);
		cr_assert_not_null(e);
		cr_assert(!found);
		cr_assert_null(victim);
		cr_assert_eq(e->tag, tags[i]);
		cr_assert_eq(e->busy, 1); /* claimed */
		e->state = NA_L_SHARED;
		e->busy = NA_NOBODY;
	}
	e = na_cache_lookup(b, tags[4], 2, 200, &victim, &found);
	cr_assert(found);
	cr_assert_eq(e->tag, tags[4]);
	cr_assert_eq(e->busy, NA_NOBODY); /* a hit claims nothing */
	e = na_cache_lookup(b, tags[8], 2, 200, &victim, &found);
	cr_assert_null(e);
	cr_assert(!found);
	cr_assert_eq(victim->tag, tags[0]); /* least recently used */
	na_cache_fini(&c);
}

Test(cache, all_busy_means_wait)
{
	struct na_cache c;
	uint64_t tags[8];
	struct na_cbucket *b;
	struct na_centry *e, *victim;

	cr_assert_eq(na_cache_init(&c, 8, 64), 0);
	same_bucket(&c, 1, tags, 8);
	b = na_cache_bucket(&c, tags[0]);
	for (int i = 0; i < 8; i++) {
		e = na_cache_room(b, &victim);
		na_cache_claim(e, tags[i], (int16_t)i, 1);
		e->state = NA_L_MODIFIED;
	}
	cr_assert_null(na_cache_room(b, &victim));
	cr_assert_null(victim);
	na_cache_fini(&c);
}
