/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The key-value store's layout and values; see kv_table.h.
 */
#include <errno.h>
#include <string.h>

#include "kv_table.h"
#include "kv_zipf.h"

/* splitmix64's finaliser: a bijection on 64 bits with mix(0) = 0. */
static uint64_t
mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t
seg_buckets(uint32_t block, uint32_t seg_skip)
{
	uint64_t n = KV_SEG_SIZE / block;

	return n > seg_skip ? n - seg_skip : 0;
}

int
kv_geom_init(struct kv_geom *g, uint32_t block, uint16_t nodes, uint64_t keys,
	     double fill, uint32_t seg_skip)
{
	memset(g, 0, sizeof(*g));
	if (block < KV_SLOT_SIZE || nodes == 0 || keys == 0 || !(fill > 0) ||
	    !(fill <= 1) || seg_buckets(block, seg_skip) == 0)
		return -EINVAL;
	g->block = block;
	g->slots = block / KV_SLOT_SIZE;
	g->nodes = nodes;
	g->keys = keys;
	g->seg_skip = seg_skip;
	g->per_seg = seg_buckets(block, seg_skip);
	/* Enough buckets for the fill, and always one more than the keys
	 * need, so that a full probe sequence cannot happen with fill 1. */
	g->buckets = (uint64_t)((double)keys / (g->slots * fill)) + 1;
	g->per_node = (g->buckets + nodes - 1) / nodes;
	g->buckets = g->per_node * nodes;
	g->segs = (uint32_t)((g->per_node + g->per_seg - 1) / g->per_seg);
	return g->segs > KV_MAX_SEGS ? -E2BIG : 0;
}

uint64_t
kv_geom_capacity(uint32_t block, uint16_t nodes, uint32_t segs, double fill,
		 uint32_t seg_skip)
{
	uint64_t per_node = seg_buckets(block, seg_skip) * segs;

	if (block < KV_SLOT_SIZE || per_node < 2)
		return 0;
	/* kv_geom_init adds a bucket: leave it room. */
	return (uint64_t)((double)((per_node - 1) * nodes - 1) *
			  (block / KV_SLOT_SIZE) * fill);
}

uint64_t
kv_key(uint64_t item)
{
	return mix64(item + 1);
}

uint64_t
kv_bucket(const struct kv_geom *g, uint64_t key)
{
	return kv_fnv64(key) % g->buckets;
}

uint64_t
kv_probe_next(const struct kv_geom *g, uint64_t b)
{
	uint64_t i = kv_bucket_index(g, b) + 1;

	return (i == g->per_node ? 0 : i) * g->nodes + kv_bucket_node(g, b);
}

int
kv_find(const struct kv_geom *g, const uint8_t *keys, uint64_t key)
{
	int free_slot = 0;
	uint64_t k;

	for (uint32_t s = 0; s < g->slots; s++) {
		memcpy(&k, keys + kv_key_off(s), sizeof(k));
		if (k == key)
			return (int)s;
		free_slot |= k == 0;
	}
	return free_slot ? KV_FIND_ABSENT : KV_FIND_NEXT;
}

/* Word i (1..15) of the value of (stamp, key). */
static uint64_t
value_word(uint64_t stamp, uint64_t key, unsigned i)
{
	return mix64(stamp ^ mix64(key + i));
}

void
kv_value_fill(uint8_t *v, uint64_t stamp, uint64_t key)
{
	memcpy(v, &stamp, sizeof(stamp));
	for (unsigned i = 1; i < KV_VALUE_SIZE / 8; i++) {
		uint64_t w = value_word(stamp, key, i);

		memcpy(v + 8 * i, &w, sizeof(w));
	}
}

int
kv_value_check(const uint8_t *v, uint64_t key, uint64_t *stamp)
{
	uint64_t w;

	memcpy(stamp, v, sizeof(*stamp));
	for (unsigned i = 1; i < KV_VALUE_SIZE / 8; i++) {
		memcpy(&w, v + 8 * i, sizeof(w));
		if (w != value_word(*stamp, key, i))
			return -1;
	}
	return 0;
}

int64_t
kv_load_image(const struct kv_geom *g, uint16_t node, uint8_t *img)
{
	int64_t n = 0;

	for (uint64_t item = 0; item < g->keys; item++) {
		uint64_t key = kv_key(item), b = kv_bucket(g, key);
		uint64_t probes = 0;
		uint8_t *bk;
		int s;

		if (kv_bucket_node(g, b) != node)
			continue;
		for (;;) {
			bk = img + kv_bucket_index(g, b) * g->block;
			s = kv_find(g, bk, 0);
			if (s >= 0)
				break;
			if (++probes == g->per_node)
				return -ENOSPC;
			b = kv_probe_next(g, b);
		}
		memcpy(bk + kv_key_off((uint32_t)s), &key, sizeof(key));
		kv_value_fill(bk + kv_value_off(g, (uint32_t)s), 0, key);
		n++;
	}
	return n;
}
