/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The key-value store's DSM side: where every node's buckets are in global
 * memory, the parallel load, and GET/PUT as DSM calls (README.md lists the
 * calls one operation makes).
 *
 * Node n's buckets fill its segments in order: segment 0 is n's static
 * region, segments 1.. are 32 MB chunks that n allocates from its own home
 * agent with dsm_malloc; in each, the first kv_seg_skip() blocks stay unused
 * (in node 0's static region they hold dsm_app's barrier and the directory).
 * The directory, KV_DIR_BYTES at app_static_base() in node 0's static
 * region, holds each node's chunk addresses: entry n * KV_MAX_SEGS + k.
 */
#ifndef KV_STORE_H
#define KV_STORE_H

#include <stdint.h>

#include "dsm_app.h"
#include "kv_table.h"

#define KV_MAX_NODES 16 /* directory: KV_MAX_NODES x KV_MAX_SEGS entries */
#define KV_DIR_BYTES (KV_MAX_NODES * KV_MAX_SEGS * 8)

/* Results of kv_get/kv_put besides 0 and -errno: correctness violations. */
#define KV_TORN    1 /* the value read does not check (kv_value_check) */
#define KV_MISSING 2 /* the key is in no bucket of its probe sequence */

/** Blocks unused at the start of a segment (the geometry's seg_skip). */
static inline uint32_t
kv_seg_skip(const struct app *a)
{
	return (uint32_t)((app_static_base(a) + KV_DIR_BYTES + a->block - 1) /
			  a->block);
}

struct kv_store {
	struct kv_geom g;
	dsm_addr_t seg[KV_MAX_NODES][KV_MAX_SEGS];
	bool rlock_gets; /* --rwlock: GET reads a bucket under dsm_rlock */
};

/**
 * Allocate this node's segments, publish them in the directory and learn
 * everybody's (one cluster barrier inside). `s->g` is set by the caller.
 * Call from one thread of every node. @return 0, -ENOMEM (dsm_malloc
 * failed: --mem-mb too small), -EINVAL (geometry beyond the directory), or
 * an error of the DSM calls / app_barrier.
 */
int kv_store_setup(struct app *a, struct dsm_thread *t, struct kv_store *s);

/**
 * Write this node's buckets as kv_load_image builds them, with all
 * o.threads threads (stamp 0 in every value). No barrier: the caller's
 * app_barrier after it ends the load. @return 0, -ENOMEM, -ENOSPC, or the
 * first failed dsm_write's error.
 */
int kv_store_load(struct app *a, struct kv_store *s);

/** Global address of bucket b. */
dsm_addr_t kv_bucket_addr(const struct kv_store *s, uint64_t b);

/**
 * GET: dsm_read of the key's bucket (kv_bucket_bytes), and of each further
 * bucket of its probe sequence while the key is not found in a full one.
 * `buf` holds a bucket. @return 0 with the value's stamp and address,
 * KV_TORN (stamp set to what was read), KV_MISSING, or the dsm_read error.
 */
int kv_get(struct dsm_thread *t, const struct kv_store *s, uint64_t key,
	   uint8_t *buf, uint64_t *stamp, dsm_addr_t *vaddr);

/**
 * PUT of the value stamped `stamp`: per bucket of the probe sequence,
 * dsm_wlock, dsm_read of its keys, dsm_write of the value where the key is,
 * dsm_unlock. `buf` holds a bucket's keys. @return 0 with the value's address, KV_MISSING, or the first
 * DSM call's error (the lock is released).
 */
int kv_put(struct dsm_thread *t, const struct kv_store *s, uint64_t key,
	   uint64_t stamp, uint8_t *buf, dsm_addr_t *vaddr);

#endif /* KV_STORE_H */
