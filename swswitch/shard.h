/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Which worker owns a tag. The dispatcher (sw_loop.c), the NIC steering rules
 * (steer.c), the telemetry block read-out and the tests
 * (swswitch/test_shard.c pins golden values; scripts/test-multicore.sh
 * carries a Python copy checked against the same values) must agree, so the
 * one definition lives here.
 *
 * The owner is a function of the tag's steering key (lib/wire/lcf_steer.h):
 * the 64 keys are cut into n contiguous ranges, key * n / 64. So a NIC rule
 * per key (UDP source port -> queue) sends every frame to its owner for any
 * worker count. When n divides 64 this is exactly Lemire's "fastrange" of
 * the full 32-bit hash, floor(hash * n / 2^32) (the key is the hash's top 6
 * bits, and the bits below cannot carry across a multiple of 64/n), which is
 * what this function was before steering keys: blocks did not move. With n
 * not dividing 64, workers own floor(64/n) or ceil(64/n) keys (n = 3: 22,
 * 21, 21). Changing it moves blocks between workers: pinned by a test.
 */
#ifndef SW_SHARD_H
#define SW_SHARD_H

#include <stdint.h>

#include "lcf_steer.h"

/** Worker in [0, n_workers) that owns steering key `key`; n_workers >= 1. */
static inline unsigned int
sw_shard_of_key(unsigned int key, unsigned int n_workers)
{
	return key * n_workers / LCF_STEER_KEYS;
}

/** Worker index in [0, n_workers) that owns `tag`; n_workers >= 1. */
static inline unsigned int
sw_shard_of(uint64_t tag, unsigned int n_workers)
{
	return sw_shard_of_key(lcf_steer_key(tag), n_workers);
}

#endif /* SW_SHARD_H */
