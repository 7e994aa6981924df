/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The node's local write-back cache (paper section 6, "Cache"): a hash table
 * of buckets, NA_CACHE_WAYS entries per bucket, LRU by timestamp. An entry
 * records the local state of one block (Invalid, clean = Shared, dirty =
 * Modified), its data, and who in this node is using it:
 *  - busy: the one local thread running a coherence event for it (other
 *    local threads wait: one event per block per node keeps local state
 *    simple; the switch serialises across nodes),
 *  - pins: the per-block reader-writer lock API (dsm_rlock/dsm_wlock). A
 *    pinned block is never evicted, and the cache agent defers requests that
 *    would take it away (docs/NODE-AGENT.md "Locks").
 *
 * Each bucket has its own mutex and condition variable. The cache agent
 * takes the mutex, never waits on busy/pins (it must not block the agents).
 */
#ifndef NA_CACHE_H
#define NA_CACHE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define NA_CACHE_WAYS 8
#define NA_NOBODY     (-1)

enum na_lstate {
	NA_L_INVALID = 0,
	NA_L_SHARED = 1,   /* clean, read permission */
	NA_L_MODIFIED = 2, /* dirty, exclusive, write permission */
};

struct na_centry {
	uint64_t tag;
	uint64_t ts;    /* last access (LRU) */
	bool used;      /* the slot belongs to `tag` */
	uint8_t state;  /* enum na_lstate */
	int16_t busy;   /* thread running an event on it, or NOBODY */
	int16_t pin_w;  /* thread holding the write pin, or NOBODY */
	uint64_t pin_r; /* threads holding read pins (bit = thread) */
	uint8_t *data;
	uint8_t *twin; /* PIPE: data when it became Modified, if the home's
			   copy was that then (docs/PIPE.md); else NULL */
};

struct na_cbucket {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct na_centry e[NA_CACHE_WAYS];
};

struct na_cache {
	uint32_t n_buckets; /* power of two */
	uint32_t block_size;
	struct na_cbucket *b;
	uint8_t *mem; /* n_buckets * WAYS * block_size */
};

/**
 * Make a cache of at least `entries` entries (rounded up to a power-of-two
 * number of buckets) of `block_size` bytes each.
 * @return 0, -EINVAL, -ENOMEM.
 */
int na_cache_init(struct na_cache *c, uint32_t entries, uint32_t block_size);
void na_cache_fini(struct na_cache *c);

/** The bucket a tag lives in. */
static inline struct na_cbucket *
na_cache_bucket(const struct na_cache *c, uint64_t tag)
{
	/* Fibonacci hashing: neighbouring tags land in different buckets. */
	uint64_t h = tag * 0x9e3779b97f4a7c15ull;

	return &c->b[(h >> 32) & (c->n_buckets - 1)];
}

/* The functions below are called with the bucket's mutex held. */

/** The entry holding `tag`, or NULL. */
struct na_centry *na_cache_find(struct na_cbucket *b, uint64_t tag);

/** An entry nobody uses and that holds no valid data. */
static inline bool
na_centry_free(const struct na_centry *e)
{
	return !e->used || (e->state == NA_L_INVALID && e->busy == NA_NOBODY &&
			    e->pin_w == NA_NOBODY && !e->pin_r);
}

/** Can `e` be chosen as an eviction victim? */
static inline bool
na_centry_evictable(const struct na_centry *e)
{
	return e->used && e->busy == NA_NOBODY && e->pin_w == NA_NOBODY &&
	       !e->pin_r;
}

/**
 * Find room for a new tag: a free entry (returned, *victim = NULL), or else
 * the least recently used evictable entry (*victim set, NULL returned), or
 * neither when every entry is busy or pinned (both NULL: wait and retry).
 */
struct na_centry *na_cache_room(struct na_cbucket *b,
				struct na_centry **victim);

/**
 * PIPE: the line becomes Modified now (called before the write). Keep a
 * twin of its data when `home_current` (the home's copy is this data),
 * else drop any twin. A failed allocation leaves no twin (whole-block
 * write-back).
 */
void na_centry_twin(struct na_centry *e, uint32_t block_size,
		    bool home_current);

/** Free the twin (the line is written back, or no longer Modified). */
void na_centry_twin_free(struct na_centry *e);

/** Claim a free entry for `tag` in state Invalid, busy for `thread`. */
void na_cache_claim(struct na_centry *e, uint64_t tag, int16_t thread,
		    uint64_t now);

/**
 * The requester's lookup, in one call: the entry holding `tag` (*found);
 * else a free entry, claimed for `tag` busy for `thread` (na_cache_claim);
 * else NULL with *victim as na_cache_room. Bucket mutex held.
 */
struct na_centry *na_cache_lookup(struct na_cbucket *b, uint64_t tag,
				  int16_t thread, uint64_t now,
				  struct na_centry **victim, bool *found);

#endif /* NA_CACHE_H */
