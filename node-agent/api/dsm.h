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

#endif /* DSM_H */
