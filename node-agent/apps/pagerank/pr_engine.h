/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The vertex-centric gather-apply-scatter engine over the DSM (paper 7.5,
 * like PowerGraph): the graph's vertices, their data and their in-edges live
 * in global memory, each vertex at the node the random partition
 * (pr_part.h) gives it; every application thread runs the three phases
 * over its share of its node's vertices, iteration after iteration.
 *
 * Global memory of node k (its own home), written by node k at load time
 * (pr_store.c) and read by everyone through the DSM:
 *
 *   static region, offset B (B = block size; block 0 of node 0 is the
 *   apps' barrier, so every node starts at B alike):
 *     struct pr_hdr            where node k's arrays are, its sizes, the
 *                              graph digest
 *   static region, offset 2B:  double dangling[2][threads], each thread's
 *                              share of the dangling mass, by parity
 *   dsm_malloc'd at node k:
 *     vtx[nlocal]              struct pr_vrec: vertex id, out-degree and
 *                              where its in-edges are in edges[]
 *     edges[nedges]            uint32_t source vertex ids, in-edge lists
 *                              of k's vertices one after the other (CSR)
 *     vals[2][nlocal]          struct pr_val: rank and rank / out-degree,
 *                              double-buffered by iteration parity
 *
 * Iteration k reads vals[k & 1] (anyone's) and writes vals[(k + 1) & 1]
 * (its own), so reads see the previous iteration's values; a cluster
 * barrier separates iterations (pr_gas.c).
 */
#ifndef PR_ENGINE_H
#define PR_ENGINE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <dsm.h>
#include <dsm_app.h>

#include "pr_graph.h"
#include "pr_lbar.h"
#include "pr_part.h"

#define PR_MAGIC 0x31304b5247415250ull /* "PRAGRK01" */

/** A vertex as stored at its owner. */
struct pr_vrec {
	uint32_t gid;      /* vertex id */
	uint32_t outdeg;   /* out-degree */
	uint32_t in_begin; /* first in-edge in the owner's edges[] */
	uint32_t in_count; /* in-degree */
};

/** A vertex's value: what gather reads of it is `contrib`. */
struct pr_val {
	double rank;
	double contrib; /* rank / outdeg, 0 when dangling */
};

/** A node's partition header, in its static region at offset B. */
struct pr_hdr {
	uint64_t magic;
	uint64_t digest; /* pr_graph_digest: all nodes must agree */
	uint32_t nlocal;
	uint32_t threads;
	uint64_t nedges;
	dsm_addr_t vtx, edges, vals;
};

struct pr_engine {
	struct app *a;
	const struct pr_graph *g;
	const struct pr_part *p;
	unsigned iterations; /* measured */
	unsigned warmup;     /* run first, uncounted */
	double damping;
	struct pr_hdr *hdr; /* [nodes] every node's, after attach */
	struct pr_lbar bar; /* among this node's threads */
	bool bar_ready;
	double dangling;       /* D of the running iteration (thread 0) */
	uint64_t *iter_end_ns; /* [iterations], after each measured one's
				* cluster barrier */
	_Atomic int failed;
};

/**
 * Set up the engine of app `a` for graph g partitioned by p: `warmup`
 * iterations uncounted (migration's first epochs), then `iterations`
 * measured; the ranks are those after both.
 * @return 0; -EINVAL (the block cannot hold 2 x threads dangling slots),
 * -ENOMEM.
 */
int pr_engine_init(struct pr_engine *e, struct app *a, const struct pr_graph *g,
		   const struct pr_part *p, unsigned warmup,
		   unsigned iterations, double damping);

void pr_engine_free(struct pr_engine *e);

/**
 * Write this node's partition into its global memory (pr_store.c):
 * arrays, initial values (1/n), dangling slots, header last.
 * @return 0; -ENOMEM (dsm_malloc failed: message printed), or a DSM error.
 */
int pr_engine_load(struct pr_engine *e, struct dsm_thread *t);

/**
 * After the load barrier: read every node's header and check that all
 * loaded the same graph with the same thread count.
 * @return 0; -EPROTO (mismatch, message printed), or a DSM error.
 */
int pr_engine_attach(struct pr_engine *e, struct dsm_thread *t);

/** Address of node `node`'s dangling slot (parity, thread). */
dsm_addr_t pr_dangling_addr(const struct pr_engine *e, uint16_t node,
			    unsigned parity, uint16_t thread);

/**
 * The app_run_threads body: warmup + iterations rounds of gather, apply
 * and scatter over this thread's share (pr_gas.c); the measured phase
 * starts after the warm-up's last cluster barrier (app_measure_from_now).
 * @return 0; a DSM error; -EIO (the stats-start snapshot); -ECANCELED
 * when another local thread failed.
 */
int pr_engine_thread(struct app *a, uint16_t thread, void *arg);

/**
 * Read every vertex's final rank from global memory into rank[] (g->n,
 * indexed by vertex id). Call after the run, before app_leave.
 * @return 0, or a DSM error.
 */
int pr_engine_ranks(struct pr_engine *e, struct dsm_thread *t, double *rank);

#endif /* PR_ENGINE_H */
