/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Steering key of a tag: which of LCF_STEER_KEYS buckets a coherence frame
 * belongs to, so that a switch with several pipelines can have its NIC
 * deliver every frame of a tag to the pipeline that owns it (docs/PROTOCOL.md
 * 1.1, docs/ARCHITECTURE.md "Multi-lcore").
 *
 * Senders put the key in the UDP source port (lcf_steer_sport); the switch
 * installs one exact-match rule per key value (UDP source port -> the rx
 * queue of the key's owner). A NIC cannot hash the tag, but every NIC's flow
 * director matches a UDP port. The owner of a key is a function of the key
 * alone for any worker count (swswitch/shard.h), so the rules never depend
 * on anything but the worker count.
 *
 * The key is the top 6 bits of a multiply-shift (Fibonacci hash) of the
 * 64-bit tag. Why not CRC32C like the TAG ways: the pipeline's way slots are
 * CRC32C of the tag; an unrelated hash keeps a shard from seeing only a
 * subset of its slots. Behaviour, pinned by swswitch/test_shard.c.
 */
#ifndef LCF_STEER_H
#define LCF_STEER_H

#include <stdint.h>

#define LCF_STEER_KEYS 64u
#define LCF_STEER_MULT UINT64_C(0x9e3779b97f4a7c15) /* 2^64 / golden ratio */

/** The 32-bit hash of `tag` whose top bits are the steering key. */
static inline uint32_t
lcf_steer_hash(uint64_t tag)
{
	return (uint32_t)((tag * LCF_STEER_MULT) >> 32);
}

/** Steering key of `tag`, in [0, LCF_STEER_KEYS). */
static inline unsigned int
lcf_steer_key(uint64_t tag)
{
	return lcf_steer_hash(tag) >> 26; /* 2^32 / LCF_STEER_KEYS = 2^26 */
}

/**
 * Whether the steering source ports of `lcf_port` fit in 16 bits:
 * lcf_port + 1 .. lcf_port + LCF_STEER_KEYS.
 */
static inline int
lcf_steer_usable(uint16_t lcf_port)
{
	return (uint32_t)lcf_port + LCF_STEER_KEYS <= UINT16_MAX;
}

/** UDP source port that carries steering key `key` (lcf_steer_usable()). */
static inline uint16_t
lcf_steer_sport(uint16_t lcf_port, unsigned int key)
{
	return (uint16_t)(lcf_port + 1 + key);
}

#endif /* LCF_STEER_H */
