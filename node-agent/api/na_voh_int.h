/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Validate-on-hit and TTL, requester side, shared between its files: the
 * policy table and validated cache (na_voh_cache.c), the home's path
 * (na_voh.c) and the switch's path (na_voh_sw.c). Internal to libdsm.
 */
#ifndef NA_VOH_INT_H
#define NA_VOH_INT_H

#include <pthread.h>

#include "lcf_wire.h"
#include "na_voh.h"

#define VOH_REGIONS 64
#define VOH_SETS    256
#define VOH_WAYS    4

struct voh_region {
	uint64_t lo, hi; /* [lo, hi) */
	unsigned policy;
	uint64_t ttl_ns;
};

struct voh_entry {
	bool valid;
	uint64_t tag;
	uint64_t stamp; /* epoch << 32 | version (na_voh_stamp), or from
			   the switch NA_VOH_SW | its VERSION register */
	uint64_t fetched_ns;
	uint64_t used; /* LRU tick */
	uint8_t *data;
};

struct na_voh {
	pthread_mutex_t mu;
	uint32_t n_reg; /* read without mu on the fast path */
	struct voh_region reg[VOH_REGIONS];
	struct voh_entry *e; /* VOH_SETS * VOH_WAYS */
	uint8_t *data;
	uint32_t bs;
	uint64_t tick;
	uint32_t *seq; /* per application thread: its own sequence, apart
			  from the coherence events' (whose parities the
			  switch's scoreboard rows follow) */
	uint8_t *sbuf; /* per application thread: a switch-owned block */
	/* This node's writes to switch-owned blocks (they need no switch
	 * pass while it holds them Modified): bumped as each starts and
	 * ends, and how many are under way. A copy is kept only when
	 * neither changed during its fetch (lib/model/vohsw.pml). */
	uint64_t wgen;
	uint32_t writing;
	struct dsm_voh_stats st;
};

/** Any VALIDATE or TTL region? Read without mu: dsm_read / dsm_write
 * take the invalidation protocol's path at once when there is none. */
static inline bool
na_voh_any(const struct na_voh *v)
{
	return __atomic_load_n(&v->n_reg, __ATOMIC_ACQUIRE) != 0;
}

/* What an access does under its region's policy. */
enum na_voh_act {
	NA_VOH_COHERENT, /* no such region: the invalidation protocol */
	NA_VOH_UPDATE,   /* a write: the home's update (or the switch's) */
	NA_VOH_TTL_HIT,  /* a read, the copy younger than the TTL: use it */
	NA_VOH_FETCH,    /* a read without a copy, or not VALIDATE: fetch */
	NA_VOH_CHECK,    /* a read of a VALIDATE copy: check its version */
};

/**
 * The policy decision (validate-on-hit, TTL, invalidate), pure: `region`
 * the access's region has a policy (`policy`, `ttl_ns`), `cached` this
 * node keeps a copy fetched `age_ns` ago. docs/VALIDATE.md.
 */
static inline enum na_voh_act
na_voh_decide(bool region, unsigned policy, uint64_t ttl_ns, bool write,
	      bool cached, uint64_t age_ns)
{
	unsigned base = policy & DSM_POLICY_MASK;

	if (!region)
		return NA_VOH_COHERENT;
	if (write)
		return NA_VOH_UPDATE;
	if (cached && base == DSM_POLICY_TTL && age_ns < ttl_ns)
		return NA_VOH_TTL_HIT;
	if (!cached || base != DSM_POLICY_VALIDATE)
		return NA_VOH_FETCH;
	return NA_VOH_CHECK;
}

/** May a copy stamped at `stamped_ns` be served at `now_ns` if its version
 * checks out? Only while young (NA_VOH_LIFE_NS), whoever stamped it: a
 * home stamp too comes round (vohepoch.pml HSTAMP). */
static inline bool
na_voh_fresh(uint64_t stamped_ns, uint64_t now_ns)
{
	return now_ns - stamped_ns < NA_VOH_LIFE_NS;
}

/** May a fetch keep its copy with the switch stamp `pre` (`busy`: the
 * write lock was held when it was read)? Not when busy, nor when `pre`'s
 * count is saturated (LCF_VER_COUNT_MAX): writes no longer move VERSION,
 * so such a stamp would validate a stale copy (vohepoch.pml SAT). */
static inline bool
na_voh_sw_keep(uint64_t pre, bool busy)
{
	return !busy && (pre & LCF_VER_COUNT_MAX) != LCF_VER_COUNT_MAX;
}

/** The entry of `tag`, or (alloc) a free or least recently used way; mu
 * held. @return the entry, or NULL (not alloc) when `tag` has none. */
struct voh_entry *na_voh_entry(struct na_voh *v, uint64_t tag, bool alloc);

/** Keep `data` as the copy of `tag` with `stamp`; mu held. */
void na_voh_install(struct na_voh *v, uint64_t tag, const uint8_t *data,
		    uint64_t stamp);

/** Forget the copy of `tag`, if any; mu held. */
void na_voh_drop(struct na_voh *v, uint64_t tag);

/** A fresh seq of this thread's validate-on-hit operations (never 0); the
 * thread's own counter, beside its operations rather than in the cache
 * table's file. */
static inline uint32_t
na_voh_next_seq(struct dsm_thread *t)
{
	uint32_t *s = &((struct na_voh *)t->d->voh)->seq[t->id];

	if (++*s == 0)
		++*s;
	return *s;
}

/**
 * A switch-owned block: read it through the coherence protocol and keep it
 * with `pre`, the VERSION read before the read began, unless the block's
 * write lock was held then (`busy`), `pre`'s count is saturated
 * (na_voh_sw_keep), or a write of this node to a
 * switch-owned block began or ended since `g0` (struct na_voh wgen) or is
 * under way; `pre_ns`: when the VERSION_READ of `pre` was sent (the copy's
 * age, na_voh_fresh). @return 0, -EINTR.
 */
int na_voh_sw_fetch(struct dsm_thread *t, struct na_voh *v, uint64_t tag,
		    uint32_t off, uint32_t len, void *buf, uint64_t pre,
		    bool busy, uint64_t g0, uint64_t pre_ns);

/** Read a block the home refused: VERSION_READ, then na_voh_sw_fetch.
 * @return 0, 1 (the switch does not hold it either), -EINTR. */
int na_voh_sw_read(struct dsm_thread *t, struct na_voh *v, uint64_t tag,
		   uint32_t off, uint32_t len, void *buf);

/** Write a block the home refused through the coherence protocol; this
 * node keeps no copy of it while the write runs. @return 0, -EINTR. */
int na_voh_sw_write(struct dsm_thread *t, struct na_voh *v, uint64_t tag,
		    uint32_t off, uint32_t len, void *buf);

#endif /* NA_VOH_INT_H */
