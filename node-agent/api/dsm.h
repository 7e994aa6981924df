/* SPDX-License-Identifier: BSD-3-Clause
 *
 * libdsm: the application interface of the distributed shared memory
 * (paper 000, sections 3, 5.4 and 6). One process = one memory node: it runs
 * the node's home agent, cache agent (and shadow role) on a background
 * dispatch thread, and its application threads call the functions below,
 * each through its own struct dsm_thread (a "requester": node id + thread
 * id, which the switch's scoreboard rows are indexed by).
 *
 * Global addresses are 64-bit: node id (16 bits) | offset (48 bits). The
 * first 32 MB of every node (chunk 0) is a static region that programs lay
 * out themselves (dsm_static_addr); dsm_malloc hands out the rest.
 *
 * All operations are linearizable. Errors are negative errno values:
 * -EINVAL (bad address or size), -EINTR (dsm_stop() was called and the
 * operation could not finish: peers stopped answering), -ENOMEM.
 */
#ifndef DSM_H
#define DSM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef uint64_t dsm_addr_t;

struct dsm;
struct dsm_thread;

struct dsm_config {
	const char *topo_path; /* topology JSON */
	uint16_t node;         /* this node's id */
	const char *transport; /* "udp" (default) or "verbs" */
	const char *roles;     /* "home,cache,shadow" subsets; NULL: home,cache
				   (+shadow on the topology's shadow node) */
	uint16_t threads;      /* application threads (< threads_per_node) */
	uint32_t cache_mb;     /* local cache size (default 64) */
	uint32_t cache_blocks; /* if not 0: cache size in blocks (tests) */
	uint32_t mem_mb;       /* global memory held by this home (default 128,
				   a multiple of 32) */
	bool direct;           /* no switch on the path (two-node tests) */
	bool directory;        /* classic directory protocol instead of LCF
				   (benchmark baseline; all nodes alike) */
	uint32_t seed;
	bool migrate;       /* dynamic ownership migration (section 5.2) */
	uint32_t migrate_k; /* blocks moved per epoch at most (0: 1000) */
	uint32_t epoch_ms;  /* migration epoch (0: 10 ms) */
	uint8_t pipe_depth; /* PIPE diff write-back (docs/PIPE.md): credit
			       window in frames; 0 (default): off, evictions
			       write the whole block */

	uint32_t trace_every;   /* sampled latency tracing: 1 in N events
				   and accesses (0, default: off;
				   docs/APPS.md "Where the time goes") */
	const char *trace_path; /* where dsm_close writes the trace */
};

/**
 * Join the DSM as node cfg->node. @return 0, or -errno with `err` set
 * (e.g. the verbs transport's refusal when there is no RDMA device).
 */
int dsm_open(const struct dsm_config *cfg, struct dsm **out, char *err,
	     size_t err_len);

/** Release every thread's pending unlock and leave. */
void dsm_close(struct dsm *d);

/** Ask blocked operations to give up (they return -EINTR after a while). */
void dsm_stop(struct dsm *d);

/**
 * Declare memory node `node` dead (paper 5.4, stop-the-world drain;
 * docs/FAULTS.md): this node's home agent releases the locks the dead
 * node's requesters held and removes it from copysets, and accesses to the
 * dead node's memory fail with -EHOSTDOWN. Every surviving node must be told.
 * @return 0, -EINVAL (unknown node or this node).
 */
int dsm_node_failed(struct dsm *d, uint16_t node);

/**
 * Re-admit `node`, declared dead, whose new process (seqs from 1) replaces
 * the old one, once that can send nothing more (docs/FAULTS.md section 3):
 * its rows are forgotten after its drain and its memory is usable again.
 * @return 0, -EINVAL (unknown node or this node), -EALREADY (not dead).
 */
int dsm_node_rejoined(struct dsm *d, uint16_t node);

/** The requester handle of application thread `thread` (0 .. threads-1). */
struct dsm_thread *dsm_thread(struct dsm *d, uint16_t thread);

/** Block size (from the topology). */
uint32_t dsm_block_size(const struct dsm *d);

/** Address `offset` of node `node`'s static region (chunk 0). */
static inline dsm_addr_t
dsm_static_addr(uint16_t node, uint64_t offset)
{
	return (dsm_addr_t)node << 48 | offset;
}

/** Linearizable read of `len` bytes (any size; split per block). */
int dsm_read(struct dsm_thread *t, dsm_addr_t addr, void *buf, size_t len);

/** Linearizable write of `len` bytes (any size; split per block). */
int dsm_write(struct dsm_thread *t, dsm_addr_t addr, const void *buf,
	      size_t len);

/**
 * Per-block reader-writer lock on the block holding `addr` (section 6,
 * "Synchronization primitive"). While a thread holds it, other nodes'
 * conflicting accesses wait, and other local threads too. Hold one lock at
 * a time per thread unless you order them yourself (no deadlock detection).
 */
int dsm_rlock(struct dsm_thread *t, dsm_addr_t addr);
int dsm_wlock(struct dsm_thread *t, dsm_addr_t addr);
int dsm_unlock(struct dsm_thread *t, dsm_addr_t addr);

/**
 * Wait until this thread's last asynchronous unlock is acknowledged (before
 * the thread goes idle for long: nobody retransmits it meanwhile).
 */
void dsm_sync(struct dsm_thread *t);

/**
 * Allocate `size` bytes of global memory homed at `node` (-1: this node).
 * Two-level (section 5.4): 32 MB chunks from that node's home agent, then
 * local bump/free-list allocation. Sizes >= the block size are block-aligned.
 * @return the address, or 0 when out of memory.
 */
dsm_addr_t dsm_malloc(struct dsm_thread *t, size_t size, int node);

/** Return memory from dsm_malloc (same size) for reuse by this process. */
void dsm_free(struct dsm_thread *t, dsm_addr_t addr, size_t size);

/**
 * Write this node's statistics as one JSON object and a newline: packets
 * sent and received by type, the requester's (hits, misses, events in the
 * switch and at home, NACKs, retransmissions), the home and cache agents',
 * recovery, migration and shadow counters: the per-node members of
 * node-agent's exit summary (docs/NODE-AGENT.md "Running"). Safe while
 * other threads run.
 * @return 0, or -EIO when writing to `f` failed.
 */
int dsm_stats_json(struct dsm *d, FILE *f);

/**
 * Mark the start of the measured phase in the sampled trace (a MARK
 * record; scripts/latency_breakdown.py leaves out what came before). No
 * error returns; nothing when tracing is off.
 */
void dsm_trace_mark(struct dsm *d);

/* ---- cache policies: validate-on-hit and TTL (docs/VALIDATE.md) ------- */

/*
 * Policies of a region, for dsm_set_policy. INVALIDATE is the default: the
 * coherence protocol above (blocks cached until invalidated). VALIDATE:
 * blocks are cached apart, with the version they were fetched at, and a
 * cached block is served only after a version check at its home answers
 * the same version (one-sided: the home's receive path answers from its
 * version array without its locks); fetches and writes go through the
 * home's ReadQueue/UpdateQueue (paper 003, writers preferred); reads and
 * writes stay linearizable. TTL (the baseline): a cached block is served
 * without any check until `ttl_us` after it was fetched; reads may be
 * stale. DSM_POLICY_RPC_CHECK (with VALIDATE): the check is an RPC served
 * by the home's version thread, for comparison.
 */
#define DSM_POLICY_INVALIDATE 0u
#define DSM_POLICY_VALIDATE   1u
#define DSM_POLICY_TTL        2u
#define DSM_POLICY_MASK       0xffu
#define DSM_POLICY_RPC_CHECK  0x100u

/**
 * Set the policy of the blocks overlapping [addr, addr + len) on this node
 * (every node accessing them must set the same policy: a region is
 * accessed under one policy only; dsm_rlock/dsm_wlock stay with the
 * invalidation protocol). Blocks the switch owns are served by the
 * invalidation protocol whatever the policy (the switch has no version
 * array). Setting a region drops this node's cached copies of it.
 * @return 0; -EINVAL (len 0, unknown policy, TTL with ttl_us 0), -ENOSPC
 * (more than 64 regions).
 */
int dsm_set_policy(struct dsm *d, dsm_addr_t addr, size_t len, unsigned policy,
		   uint32_t ttl_us);

/**
 * One version check of the block holding `addr` at its home: one-sided
 * (VOH_VREAD) or, with `rpc`, through the home's version thread
 * (VOH_VRPC). What VALIDATE does on every hit; exposed for benchmarks.
 * @return 0 with *version set; -ENOTSUP (the home does not serve the block:
 * the switch owns it), -EINTR.
 */
int dsm_version_check(struct dsm_thread *t, dsm_addr_t addr, bool rpc,
		      uint32_t *version);

/** This node's validate-on-hit / TTL counters. */
struct dsm_voh_stats {
	uint64_t checks;         /* version checks done on hits */
	uint64_t validated_hits; /* served from the cache after a check */
	uint64_t changed;        /* the check found a newer version */
	uint64_t ttl_hits;       /* served without a check (TTL) */
	uint64_t fetches;        /* blocks fetched through the ReadQueue */
	uint64_t updates;        /* writes committed through the UpdateQueue */
	uint64_t fallbacks;      /* refused by the home and not in the switch
				    (migrating): invalidation used */
	/* switch-owned blocks (docs/VALIDATE.md "Switch-owned blocks") */
	uint64_t sw_checks;   /* VERSION_READs at the switch on hits */
	uint64_t sw_hits;     /* served after the switch's check */
	uint64_t sw_fetches;  /* fetched through the coherence protocol */
	uint64_t sw_uncached; /* of those, not kept: a write was in progress */
	uint64_t sw_writes;   /* writes through the coherence protocol */
	uint64_t expired;     /* of checks, the version unchanged but the
				 copy too old (NA_VOH_LIFE_NS): fetched */
};

void dsm_voh_stats(struct dsm *d, struct dsm_voh_stats *out);
/*
 * ---- Objects: SABRe atomic reads (docs/SABRES.md) ----
 *
 * An object is `len` bytes (8 .. 65536) of one home node's memory whose
 * first 8 bytes are its version, a little-endian uint64 (a seqlock): even
 * when the object is stable, odd while a writer updates it. Writers bump it
 * before and after (dsm_write_object); nothing else may write an object's
 * bytes. Its 8-byte version must not straddle a block boundary.
 */

/**
 * Atomic read of the object at `addr` (SABRe: Single-site Atomic Bulk
 * Read, paper 001) into `buf`, version included. Served from the home's
 * memory like a one-sided read, without caching or any lock: every chunk
 * is requested at once, the home watches the object while it serves it and
 * validates the read at the end; a read that raced a writer aborts and is
 * retried after a randomised back-off. The home's chunks land directly in
 * `buf` (no intermediate buffer, no per-line version stripping). The local
 * cache is not consulted: read objects only written by dsm_write_object.
 * @return 0; -EINVAL (bad address, len < 8 or > 65536, a home that does not
 * exist); -EAGAIN (10,000 attempts aborted, e.g. a writer died with the
 * version odd); -EINTR (dsm_stop() was called).
 */
int dsm_read_object(struct dsm_thread *t, dsm_addr_t addr, size_t len,
		    void *buf);

/**
 * Seqlock write of the object at `addr` from `buf` (its first 8 bytes are
 * ignored: the version is the object's own): dsm_object_lock, then
 * dsm_write_through of bytes 8 .. len-1, then dsm_object_unlock with the
 * version + 2. Writers of one object exclude each other through the odd
 * version. @return 0; -EINVAL (as dsm_read_object); -EINTR (dsm_stop():
 * if it comes between lock and unlock, the version stays odd and readers
 * of the object get -EAGAIN).
 */
int dsm_write_object(struct dsm_thread *t, dsm_addr_t addr, size_t len,
		     const void *buf);

/**
 * First half of an object write: turn the object's even version odd in one
 * coherent write event that also writes the block home, waiting (with
 * back-off) while another writer holds it odd. `*version` gets the even
 * version found. @return 0, -EINVAL, -EINTR.
 */
int dsm_object_lock(struct dsm_thread *t, dsm_addr_t addr, uint64_t *version);

/**
 * Last half: set the object's version to the even `version` (the one
 * dsm_object_lock returned + 2), written home like the lock.
 * @return 0, -EINVAL (odd version or bad address), -EINTR.
 */
int dsm_object_unlock(struct dsm_thread *t, dsm_addr_t addr, uint64_t version);

/**
 * Linearizable write of `len` bytes that also writes every touched block
 * home inside the write event that holds the block's lock, so that the
 * home's memory has it before the call returns (a block cached Modified is
 * evicted first, so there is always such an event).
 * @return 0, -EINVAL, -EINTR.
 */
int dsm_write_through(struct dsm_thread *t, dsm_addr_t addr, const void *buf,
		      size_t len);

/**
 * Plain one-sided read of `len` bytes (1 .. 65536) of one home's memory
 * (like an RDMA READ: no atomicity across chunks, no cache, no lock); the
 * transport of the FaRM-style baseline (docs/SABRES.md).
 * @return 0, -EINVAL, -EAGAIN (no answer after 10,000 tries), -EINTR.
 */
int dsm_read_remote(struct dsm_thread *t, dsm_addr_t addr, size_t len,
		    void *buf);

/* ---- region locks (docs/QUEUED-LOCKS.md "Region locks") ---------------- */

/* Most blocks one region lock covers: the ways of one bucket of the local
 * cache, so that a region's pinned blocks always fit even if they all hash
 * to one bucket. */
#define DSM_REGION_MAX_BLOCKS 8

/**
 * Write-lock the region [addr, addr + size): every block of it, in address
 * order (two region lockers cannot deadlock), each as dsm_wlock does: the
 * block is obtained Modified and pinned, lock and data in one coherence
 * event (WRITE_MISS brings the block; WRITE_SHARED when a clean copy is
 * cached; none at all when the block is still cached Modified: a warm
 * re-acquire sends no packet). `addr` and `size` must be multiples of the
 * block size, the region within one home node's memory and at most
 * DSM_REGION_MAX_BLOCKS blocks. A thread holding a region holds no other
 * lock unless it orders its acquires itself (by address: no deadlock
 * detection). If an acquire fails part-way, the blocks already taken are
 * released before returning.
 * @return 0; -EINVAL (size 0, addr or size not block-aligned, the region
 * wraps or leaves the home's 48-bit offset space, unknown home node);
 * -E2BIG (more than DSM_REGION_MAX_BLOCKS blocks); -EINTR (dsm_stop()).
 */
int dsm_wlock_region(struct dsm_thread *t, dsm_addr_t addr, size_t size);

/**
 * Read-lock the region [addr, addr + size): as dsm_wlock_region, each block
 * obtained Shared or Modified and pinned as dsm_rlock does (READ_MISS
 * brings the data; a block still cached is local). @return as
 * dsm_wlock_region.
 */
int dsm_rlock_region(struct dsm_thread *t, dsm_addr_t addr, size_t size);

/**
 * Release this thread's read or write lock of every block of the region
 * (local: the requests the pins held off run now). Every block is released
 * even when one is not held. @return 0; -EINVAL (as dsm_wlock_region);
 * -E2BIG; -ENOENT (some block was not locked by this thread).
 */
int dsm_unlock_region(struct dsm_thread *t, dsm_addr_t addr, size_t size);

/**
 * Drop this node's cached copies of the blocks overlapping [addr, addr +
 * size): each is evicted as the cache would evict it (EVICT_SHARED, or
 * EVICT_MODIFIED with the write-back), so the next access is a coherence
 * event again. Blocks not cached are skipped. Used by benchmarks to run
 * without lock/data locality (GCS's "w/o locality" scheme).
 * @return 0; -EINVAL (size 0, bad address); -EBUSY (a block is locked
 * (pinned) by some thread: not dropped, the others are); -EINTR.
 */
int dsm_evict_region(struct dsm_thread *t, dsm_addr_t addr, size_t size);

#endif /* DSM_H */
