/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The key-value store's data layout, pure (no DSM calls): the keys, the
 * bucket a key hashes to, where buckets live, the layout inside a bucket,
 * the self-checking values, and the image of a node's buckets after the
 * load. kv_store.c does the DSM I/O on top of it; README.md draws it.
 *
 * A bucket is one DSM block (the coherence unit): `slots` 8-byte keys
 * first, then `slots` 128-byte values, value s belonging to key s. Key 0
 * marks an empty slot. Bucket b is homed at node b % nodes, as that node's
 * bucket number b / nodes; a full bucket overflows into the next bucket of
 * the same node (linear probing that never leaves the node, so that every
 * node loads its own buckets alone).
 */
#ifndef KV_TABLE_H
#define KV_TABLE_H

#include <stdint.h>

#define KV_KEY_SIZE   8
#define KV_VALUE_SIZE 128
#define KV_SLOT_SIZE  (KV_KEY_SIZE + KV_VALUE_SIZE)
#define KV_SEG_SIZE   (32ull << 20) /* a dsm_malloc chunk, the static region */
#define KV_MAX_SEGS   32            /* segments per node (1 GB) */

struct kv_geom {
	uint32_t block;    /* bucket size: the DSM block size */
	uint32_t slots;    /* key-value pairs per bucket */
	uint16_t nodes;    /* nodes holding buckets */
	uint64_t keys;     /* items 0 .. keys-1 */
	uint64_t buckets;  /* nodes x per_node */
	uint64_t per_node; /* buckets of one node */
	uint64_t per_seg;  /* buckets of one segment (seg_skip blocks less) */
	uint32_t segs;     /* segments per node */
	uint32_t seg_skip; /* blocks at the start of a segment left unused */
};

/**
 * Size the table: `keys` pairs in buckets of `block` bytes filled to
 * `fill` (0 < fill <= 1) on average over `nodes` nodes, segments of
 * KV_SEG_SIZE whose first `seg_skip` blocks stay unused.
 * @return 0, -EINVAL (block too small for one pair, fill or nodes out of
 * range, keys 0), -E2BIG (more than KV_MAX_SEGS segments per node).
 */
int kv_geom_init(struct kv_geom *g, uint32_t block, uint16_t nodes,
		 uint64_t keys, double fill, uint32_t seg_skip);

/** The most keys `segs` segments per node hold at `fill`. */
uint64_t kv_geom_capacity(uint32_t block, uint16_t nodes, uint32_t segs,
			  double fill, uint32_t seg_skip);

/** Item i's 8-byte key: a bijection of i + 1, never 0 (the empty slot). */
uint64_t kv_key(uint64_t item);

/** The bucket key hashes to (FNV-1a over the key, mod buckets). */
uint64_t kv_bucket(const struct kv_geom *g, uint64_t key);

/** The bucket after b in b's probe sequence (same node, next index). */
uint64_t kv_probe_next(const struct kv_geom *g, uint64_t b);

static inline uint16_t
kv_bucket_node(const struct kv_geom *g, uint64_t b)
{
	return (uint16_t)(b % g->nodes);
}

static inline uint64_t
kv_bucket_index(const struct kv_geom *g, uint64_t b)
{
	return b / g->nodes;
}

/** Offset of slot s's key in a bucket. */
static inline uint32_t
kv_key_off(uint32_t s)
{
	return s * KV_KEY_SIZE;
}

/** Offset of slot s's value in a bucket. */
static inline uint32_t
kv_value_off(const struct kv_geom *g, uint32_t s)
{
	return g->slots * KV_KEY_SIZE + s * KV_VALUE_SIZE;
}

/** The bytes of a bucket in use (keys and values). */
static inline uint32_t
kv_bucket_bytes(const struct kv_geom *g)
{
	return g->slots * KV_SLOT_SIZE;
}

/** Look-up results of kv_find(). */
#define KV_FIND_ABSENT (-1) /* not here, and a slot is free: not stored */
#define KV_FIND_NEXT   (-2) /* not here, bucket full: probe the next one */

/**
 * Find `key` in a bucket's key array (slots keys).
 * @return its slot, KV_FIND_ABSENT or KV_FIND_NEXT.
 */
int kv_find(const struct kv_geom *g, const uint8_t *keys, uint64_t key);

/**
 * Fill a 128-byte value: the version stamp in the first 8 bytes, the rest
 * a function of (stamp, key), so that a value mixed from two writes, or
 * another key's, does not check.
 */
void kv_value_fill(uint8_t *v, uint64_t stamp, uint64_t key);

/**
 * Check a value written by kv_value_fill for `key`.
 * @return 0 and its stamp, or -1 (torn or foreign).
 */
int kv_value_check(const uint8_t *v, uint64_t key, uint64_t *stamp);

/**
 * Build node `node`'s buckets as they are after the load: per_node blocks
 * at `img` (zeroed by the caller), every key whose bucket is on the node
 * inserted in item order, values with stamp 0.
 * @return the keys inserted, or -ENOSPC (the node's buckets are full).
 */
int64_t kv_load_image(const struct kv_geom *g, uint16_t node, uint8_t *img);

#endif /* KV_TABLE_H */
