/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The tag -> worker function is behaviour: a change moves blocks between
 * workers (and breaks the Python copy in scripts/test-multicore.sh). Pin it
 * with golden values, and check that it balances the tag patterns the
 * switch sees (consecutive blocks of one home, the same index on every home).
 */
#include <criterion/criterion.h>

#include "shard.h"

static const struct {
	uint64_t tag;
	unsigned int w2, w3, w4;
} golden[] = {
	{ 0x0, 0, 0, 0 },
	{ 0x1, 1, 1, 2 },
	{ 0x3, 1, 2, 3 },
	{ 0x10, 1, 2, 3 },
	{ 0x1234, 0, 0, 0 },
	{ 0x1000000000ull, 1, 2, 3 },
	{ 0x1000000005ull, 0, 0, 0 },
	{ 0x100000000ull, 0, 1, 1 },
	{ 0xffffffffffffffffull, 0, 1, 1 },
	{ 0x8000000000000123ull, 0, 1, 1 },
};

Test(shard, golden_values)
{
	for (size_t i = 0; i < sizeof(golden) / sizeof(golden[0]); i++) {
		cr_expect_eq(sw_shard_of(golden[i].tag, 1), 0);
		cr_expect_eq(sw_shard_of(golden[i].tag, 2), golden[i].w2,
			     "tag %#llx", (unsigned long long)golden[i].tag);
		cr_expect_eq(sw_shard_of(golden[i].tag, 3), golden[i].w3);
		cr_expect_eq(sw_shard_of(golden[i].tag, 4), golden[i].w4);
	}
}

Test(shard, in_range_and_balanced)
{
	enum { N = 1 << 16 };
	for (unsigned int n = 1; n <= 8; n++) {
		unsigned int cnt[8] = { 0 }, cnt_home[8] = { 0 };

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
			cr_expect(cnt[w] > N / n * 95 / 100 && cnt[w] < N / n * 105 / 100,
				  "n=%u w=%u: %u of %u", n, w, cnt[w], N);
			cr_expect(cnt_home[w] > N / n * 95 / 100 &&
				  cnt_home[w] < N / n * 105 / 100,
				  "n=%u w=%u: %u of %u (homes)", n, w, cnt_home[w], N);
		}
	}
}
