/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Which worker owns a tag. The dispatcher (sw_loop.c), the telemetry block
 * read-out (stats.c) and the tests (swswitch/test_shard.c pins golden values;
 * scripts/test-multicore.sh carries a Python copy checked against the same
 * values) must agree, so the one definition lives here.
 *
 * Multiply-shift (Fibonacci hashing) of the 64-bit tag, then the high 32
 * bits scaled to [0, n) (Lemire's "fastrange", no division). Why not CRC32C
 * like the TAG ways: the pipeline's way slots are CRC32C of the tag; an
 * unrelated hash keeps a shard from seeing only a subset of its slots. The
 * function is part of the documented behaviour (docs/SWSWITCH.md); changing
 * it moves blocks between workers, so it is pinned by a test.
 */
#ifndef SW_SHARD_H
#define SW_SHARD_H

#include <stdint.h>

#define SW_SHARD_MULT UINT64_C(0x9e3779b97f4a7c15)  /* 2^64 / golden ratio */

/** Worker index in [0, n_workers) that owns `tag`; n_workers >= 1. */
static inline unsigned int
sw_shard_of(uint64_t tag, unsigned int n_workers)
{
	uint32_t h = (uint32_t)((tag * SW_SHARD_MULT) >> 32);

	return (unsigned int)(((uint64_t)h * n_workers) >> 32);
}

#endif /* SW_SHARD_H */
