/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The tag -> worker function is behaviour: a change moves blocks between
 * workers, changes which UDP source port a node agent sends a tag's frames
 * from (lib/wire/lcf_steer.h) and breaks the Python copies in
 * scripts/test_multicore.py and swswitch/bench/gen_traffic.py. Pin it with
 * golden values; check that the owner is a function of the steering key that
 * equals fastrange of the full hash whenever n divides 64 (what it was
 * before steering keys), and that it balances the tag patterns the switch
 * sees (consecutive blocks of one home, the same index on every home).
 */
#include <criterion/criterion.h>

#include "shard.h"

static const struct {
	uint64_t tag;
	unsigned int key, w2, w3, w4, w7;
} golden[] = {
	{ 0x0, 0, 0, 0, 0, 0 },
	{ 0x1, 39, 1, 1, 2, 4 },
	{ 0x3, 54, 1, 2, 3, 5 },
	{ 0x10, 56, 1, 2, 3, 6 },
	{ 0x1234, 2, 0, 0, 0, 0 },
	{ 0x1000000000ull, 61, 1, 2, 3, 6 },
	{ 0x1000000005ull, 2, 0, 0, 0, 0 },
	{ 0x100000000ull, 31, 0, 1, 1, 3 },
	{ 0xffffffffffffffffull, 24, 0, 1, 1, 2 },
	{ 0x8000000000000123ull, 22, 0, 1, 1, 2 },
};

Test(shard, golden_values)
{
	for (size_t i = 0; i < sizeof(golden) / sizeof(golden[0]); i++) {
		const uint64_t t = golden[i].tag;

		cr_expect_eq(lcf_steer_key(t), golden[i].key, "tag %#llx",
			     (unsigned long long)t);
		cr_expect_eq(sw_shard_of(t, 1), 0);
		cr_expect_eq(sw_shard_of(t, 2), golden[i].w2, "tag %#llx",
			     (unsigned long long)t);
		cr_expect_eq(sw_shard_of(t, 3), golden[i].w3);
		cr_expect_eq(sw_shard_of(t, 4), golden[i].w4);
		cr_expect_eq(sw_shard_of(t, 7), golden[i].w7);
	}
	cr_expect_eq(lcf_steer_sport(7340, 0), 7341);
	cr_expect_eq(lcf_steer_sport(7340, LCF_STEER_KEYS - 1), 7404);
	cr_expect(lcf_steer_usable(7340));
	cr_expect(!lcf_steer_usable(65500));
}

/* For n dividing 64 the key-based owner is fastrange of the 32-bit hash,
 * the function before steering keys existed. */
Test(shard, nests_fastrange_when_n_divides_64)
{
	uint64_t x = 88172645463325252ull;

	for (unsigned int i = 0; i < 1u << 18; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		for (unsigned int n = 1; n <= 64; n *= 2)
			cr_assert_eq(sw_shard_of(x, n),
				     (unsigned int)(((uint64_t)lcf_steer_hash(
							     x) *
						     n) >>
						    32),
				     "tag %#llx n %u", (unsigned long long)x,
				     n);
	}
}

/* Any n: each worker owns one contiguous range of floor(64/n) or
 * ceil(64/n) keys, so the NIC needs one rule per key and nothing else. */
Test(shard, keys_split_into_contiguous_ranges)
{
	for (unsigned int n = 1; n <= LCF_STEER_KEYS; n++) {
		unsigned int cnt[LCF_STEER_KEYS] = { 0 }, prev = 0;

		for (unsigned int k = 0; k < LCF_STEER_KEYS; k++) {
			unsigned int w = sw_shard_of_key(k, n);

			cr_assert_lt(w, n);
			cr_assert(w == prev || w == prev + 1, "n %u key %u", n,
				  k);
			prev = w;
			cnt[w]++;
		}
		for (unsigned int w = 0; w < n; w++)
			cr_expect(cnt[w] == LCF_STEER_KEYS / n ||
					  cnt[w] ==
						  (LCF_STEER_KEYS + n - 1) / n,
				  "n %u worker %u: %u keys", n, w, cnt[w]);
	}
}

/* Tags spread over the keys evenly: each worker gets its keys' share of
 * the tags within 5%. */
Test(shard, in_range_and_balanced)
{
	enum {
		N = 1 << 16
	};
	for (unsigned int n = 1; n <= 8; n++) {
		unsigned int cnt[8] = { 0 }, cnt_home[8] = { 0 },
			     keys[8] = { 0 };

		for (unsigned int k = 0; k < LCF_STEER_KEYS; k++)
			keys[sw_shard_of_key(k, n)]++;
		for (uint64_t i = 0; i < N; i++) {
			unsigned int a = sw_shard_of((uint64_t)3 << 36 | i, n);
			/* same index on many homes (block_shift 12) */
			unsigned int b = sw_shard_of(i % 32 << 36 | i / 32, n);

			cr_assert_lt(a, n);
			cr_assert_lt(b, n);
			cnt[a]++;
			cnt_home[b]++;
		}
		for (unsigned int w = 0; w < n; w++) {
			const unsigned int want = N / LCF_STEER_KEYS * keys[w];

			cr_expect(cnt[w] > want * 95 / 100 &&
					  cnt[w] < want * 105 / 100,
				  "n=%u w=%u: %u of %u", n, w, cnt[w], N);
			cr_expect(cnt_home[w] > want * 95 / 100 &&
					  cnt_home[w] < want * 105 / 100,
				  "n=%u w=%u: %u of %u (homes)", n, w,
				  cnt_home[w], N);
		}
	}
}
