/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Unit tests of the key-value store's pure parts: YCSB's generators
 * (kv_zipf.c), the layout and self-checking values (kv_table.c), the
 * workload names (kv_workload.c).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kv_table.h"
#include "kv_workload.h"
#include "kv_zipf.h"

/* The tests' own uniform source (splitmix64), seeded per test. */
static double
unit(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

Test(kv_zipf, fnv64_as_ycsb)
{
	/* Utils.fnvhash64 of YCSB, evaluated with Java's long arithmetic. */
	cr_expect_eq(kv_fnv64(0), 6284781860667377211ull);
	cr_expect_eq(kv_fnv64(1), 8517097267634966620ull);
	cr_expect_eq(kv_fnv64(12345678901ull), 5686546334140306951ull);
	for (uint64_t v = 0; v < 100000; v++)
		cr_assert_lt(kv_fnv64(v), 1ull << 63, "Math.abs: positive");
}

Test(kv_zipf, zeta_estimate_matches_exact_sum_and_ycsb)
{
	uint64_t n = 3000000;
	double exact = 0, est = kv_zeta(n, 0.99);

	for (uint64_t i = 1; i <= n; i++)
		exact += 1 / pow((double)i, 0.99);
	cr_expect(fabs(est - exact) / exact < 1e-10, "%.15g vs %.15g", est,
		  exact);
	/* YCSB's ZETAN constant: zeta over ITEM_COUNT + 1 = 10^10 + 1. */
	est = kv_zeta(10000000001ull, 0.99);
	cr_expect(fabs(est - 26.46902820178302) < 1e-8, "%.15g", est);
	cr_expect(fabs(kv_zeta(2, 0.5) - (1 + 1 / sqrt(2))) < 1e-15);
}

Test(kv_zipf, rejects_bad_parameters)
{
	struct kv_zipf z;

	cr_expect_eq(kv_zipf_init(&z, 1, 0.99, 0), -EINVAL);
	cr_expect_eq(kv_zipf_init(&z, 100, 1.0, 0), -EINVAL);
	cr_expect_eq(kv_zipf_init(&z, 100, -0.1, 0), -EINVAL);
	cr_expect_eq(kv_zipf_init(&z, 100, 0.5, 0), 0);
}

Test(kv_zipf, rank_frequencies_follow_zipf)
{
	const uint64_t n = 1000, draws = 2000000;
	uint64_t *c = calloc(n, sizeof(*c)), s = 7, top;
	struct kv_zipf z;
	double zetan, sx = 0, sy = 0, sxx = 0, sxy = 0, slope, expect;
	int pts = 0;

	cr_assert_eq(kv_zipf_init(&z, n, 0.99, 0), 0);
	zetan = kv_zeta(n, 0.99);
	for (uint64_t i = 0; i < draws; i++) {
		uint64_t r = kv_zipf_rank(&z, unit(&s));

		cr_assert_lt(r, n);
		c[r]++;
	}
	/* Ranks 0 and 1 are exact in Gray's algorithm. */
	for (uint64_t k = 0; k < 2; k++) {
		expect = draws / pow((double)(k + 1), 0.99) / zetan;
		cr_expect(fabs(c[k] / expect - 1) < 0.02,
			  "rank %lu: %lu vs %.0f", (unsigned long)k,
			  (unsigned long)c[k], expect);
	}
	/* Beyond, it approximates: the share of the top K ranks within 2
	 * points of the law, and the log-log slope over ranks 10..500 -theta
	 * within 0.05. */
	for (uint64_t k = 10; k <= 500; k *= 5) {
		double got = 0, law = 0;

		for (uint64_t i = 0; i < k; i++) {
			got += (double)c[i] / draws;
			law += 1 / pow((double)(i + 1), 0.99) / zetan;
		}
		cr_expect(fabs(got - law) < 0.02, "top %lu: %.4f vs %.4f",
			  (unsigned long)k, got, law);
	}
	for (uint64_t k = 10; k < 500; k += 10) {
		/* + 1: never log(0), and negligible against the counts */
		double x = log((double)k + 5.5), y = 1;

		for (uint64_t i = k; i < k + 10; i++)
			y += (double)c[i];
		y = log(y / 10);
		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
		pts++;
	}
	slope = (pts * sxy - sx * sy) / (pts * sxx - sx * sx);
	cr_expect(fabs(slope + 0.99) < 0.05, "slope %.3f", slope);
	top = 0;
	for (uint64_t i = 1; i < n; i++)
		top = c[i] > c[top] ? i : top;
	cr_expect_eq(top, 0);
	free(c);
}

/* The `k` most drawn items of `draws` from g, most drawn first. */
static void
hottest(const struct kv_keygen *g, uint64_t draws, uint64_t *out, int k)
{
	uint64_t *c = calloc(g->items, sizeof(*c)), s = 11;

	for (uint64_t i = 0; i < draws; i++)
		c[kv_keygen_next(g, unit(&s))]++;
	for (int j = 0; j < k; j++) {
		uint64_t best = 0;

		for (uint64_t i = 1; i < g->items; i++)
			best = c[i] > c[best] ? i : best;
		out[j] = best;
		c[best] = 0;
	}
	free(c);
}

Test(kv_zipf, scrambled_spreads_the_hot_keys)
{
	const uint64_t n = 1000000;
	struct kv_keygen plain, scr;
	uint64_t hp[10], hs[10], lo = n, hi = 0;

	cr_assert_eq(kv_keygen_init(&plain, KV_DIST_ZIPF, n, 0.99), 0);
	cr_assert_eq(kv_keygen_init(&scr, KV_DIST_SCRAMBLED, n, 0.99), 0);
	hottest(&plain, 500000, hp, 10);
	hottest(&scr, 500000, hs, 10);
	/* Plain Zipf: the hot items are the first ones. */
	for (int j = 0; j < 3; j++)
		cr_expect_eq(hp[j], (uint64_t)j);
	/* Scrambled: the hottest is where FNV puts rank 0, and the hot set
	 * is spread over the key space, not clustered at its start. */
	cr_expect_eq(hs[0], kv_fnv64(0) % n);
	cr_expect_eq(hs[1], kv_fnv64(1) % n);
	for (int j = 0; j < 10; j++) {
		lo = hs[j] < lo ? hs[j] : lo;
		hi = hs[j] > hi ? hs[j] : hi;
	}
	cr_expect_gt(hi - lo, n / 4, "hot keys within [%lu, %lu]",
		     (unsigned long)lo, (unsigned long)hi);
}

Test(kv_zipf, uniform_and_names)
{
	struct kv_keygen g;
	uint64_t s = 3, c[10] = { 0 };
	enum kv_dist d;

	cr_assert_eq(kv_keygen_init(&g, KV_DIST_UNIFORM, 10, 0.99), 0);
	for (int i = 0; i < 100000; i++)
		c[kv_keygen_next(&g, unit(&s))]++;
	for (int i = 0; i < 10; i++)
		cr_expect(c[i] > 9500 && c[i] < 10500, "item %d: %lu", i,
			  (unsigned long)c[i]);
	cr_expect_eq(kv_keygen_next(&g, 0.9999999999999999), 9);
	cr_expect_eq(kv_dist_parse("scrambled-zipf", &d), 0);
	cr_expect_eq(d, KV_DIST_SCRAMBLED);
	cr_expect_str_eq(kv_dist_name(d), "scrambled-zipf");
	cr_expect_eq(kv_dist_parse("zipfian", &d), -EINVAL);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

Test(kv_table, keys_unique_and_never_zero)
{
	const uint64_t n = 200000;
	uint64_t *k = malloc(n * sizeof(*k));

	for (uint64_t i = 0; i < n; i++) {
		k[i] = kv_key(i);
		cr_assert_neq(k[i], 0);
	}
	qsort(k, n, sizeof(*k), cmp_u64);
	for (uint64_t i = 1; i < n; i++)
		cr_assert_neq(k[i], k[i - 1]);
	free(k);
}

Test(kv_table, geometry)
{
	struct kv_geom g;

	cr_assert_eq(kv_geom_init(&g, 4096, 4, 1000000, 0.75, 2), 0);
	cr_expect_eq(g.slots, 30);
	cr_expect_eq(g.buckets % 4, 0);
	cr_expect_geq(g.buckets * 30 * 0.75, 1000000);
	cr_expect_eq(g.per_seg, 8192 - 2);
	cr_expect_eq(g.segs, 2);
	cr_expect_leq(kv_value_off(&g, 29) + KV_VALUE_SIZE, 4096);
	cr_expect_eq(kv_bucket_bytes(&g), 4080);
	cr_expect_eq(kv_geom_init(&g, 64, 4, 1000, 0.75, 2), -EINVAL);
	cr_expect_eq(kv_geom_init(&g, 4096, 1, 1ull << 30, 0.75, 2), -E2BIG);
	/* The capacity of n segments fits in n segments. */
	for (uint32_t segs = 1; segs < 6; segs++) {
		uint64_t cap = kv_geom_capacity(4096, 3, segs, 0.75, 2);

		cr_assert_eq(kv_geom_init(&g, 4096, 3, cap, 0.75, 2), 0);
		cr_expect_leq(g.segs, segs);
	}
}

Test(kv_table, probe_stays_on_the_node)
{
	struct kv_geom g;

	cr_assert_eq(kv_geom_init(&g, 4096, 3, 10000, 0.75, 2), 0);
	for (uint64_t b = 0; b < g.buckets; b++) {
		uint64_t nb = kv_probe_next(&g, b);

		cr_assert_eq(kv_bucket_node(&g, nb), kv_bucket_node(&g, b));
		cr_assert_eq(kv_bucket_index(&g, nb),
			     (kv_bucket_index(&g, b) + 1) % g.per_node);
	}
}

Test(kv_table, values_check_and_torn_ones_do_not)
{
	uint8_t a[KV_VALUE_SIZE], b[KV_VALUE_SIZE], m[KV_VALUE_SIZE];
	uint64_t st;

	kv_value_fill(a, 0x0001000000000005ull, 42);
	kv_value_fill(b, 0x0002000000000009ull, 42);
	cr_expect_eq(kv_value_check(a, 42, &st), 0);
	cr_expect_eq(st, 0x0001000000000005ull);
	cr_expect_eq(kv_value_check(a, 43, &st), -1, "another key's value");
	/* Torn at every 8-byte boundary: a's head, b's tail. */
	for (int cut = 8; cut < KV_VALUE_SIZE; cut += 8) {
		memcpy(m, a, cut);
		memcpy(m + cut, b + cut, KV_VALUE_SIZE - cut);
		cr_expect_eq(kv_value_check(m, 42, &st), -1, "cut %d", cut);
	}
	memset(m, 0, sizeof(m));
	cr_expect_eq(kv_value_check(m, 42, &st), -1, "zeroed memory");
	kv_value_fill(m, 0, 42);
	cr_expect_eq(kv_value_check(m, 42, &st), 0, "the loaded value");
	cr_expect_eq(st, 0);
}

Test(kv_table, load_places_every_key_where_a_lookup_finds_it)
{
	struct kv_geom g;
	uint8_t *img[3];
	int64_t total = 0;

	/* A high fill, so that buckets overflow and probing is exercised. */
	cr_assert_eq(kv_geom_init(&g, 1024, 3, 20000, 0.95, 2), 0);
	for (uint16_t n = 0; n < 3; n++) {
		img[n] = calloc(g.per_node, g.block);
		int64_t k = kv_load_image(&g, n, img[n]);

		cr_assert_geq(k, 0);
		total += k;
	}
	cr_expect_eq(total, 20000);
	uint64_t probed = 0;

	for (uint64_t i = 0; i < g.keys; i++) {
		uint64_t key = kv_key(i), b = kv_bucket(&g, key), st;
		const uint8_t *bk;
		int s;

		for (;;) {
			bk = img[kv_bucket_node(&g, b)] +
			     kv_bucket_index(&g, b) * g.block;
			s = kv_find(&g, bk, key);
			if (s != KV_FIND_NEXT)
				break;
			probed++;
			b = kv_probe_next(&g, b);
		}
		cr_assert_geq(s, 0, "key of item %lu not found",
			      (unsigned long)i);
		cr_assert_eq(kv_value_check(bk + kv_value_off(&g, (uint32_t)s),
					    key, &st),
			     0);
		cr_assert_eq(st, 0);
	}
	cr_expect_gt(probed, 0, "no bucket overflowed at fill 0.95");
	cr_expect_eq(kv_find(&g, img[0], kv_key(g.keys)) < 0, 1);
	for (int n = 0; n < 3; n++)
		free(img[n]);
}

Test(kv_table, load_reports_a_full_node)
{
	struct kv_geom g;
	uint8_t *img;

	cr_assert_eq(kv_geom_init(&g, 4096, 2, 1000, 0.75, 2), 0);
	g.keys = g.buckets * g.slots + 500; /* more than fit */
	img = calloc(g.per_node, g.block);
	cr_expect_eq(kv_load_image(&g, 0, img), -ENOSPC);
	free(img);
}

Test(kv_workload, names)
{
	cr_expect_eq(kv_workload_find("ycsb-a")->get_ratio, 0.5);
	cr_expect_eq(kv_workload_find("ycsb-b")->get_ratio, 0.95);
	cr_expect_eq(kv_workload_find("ycsb-c")->get_ratio, 1.0);
	cr_expect_eq(kv_workload_find("get95")->get_ratio, 0.95);
	cr_expect_eq(kv_workload_find("get50")->get_ratio, 0.5);
	cr_expect_null(kv_workload_find("ycsb-e"));
}
