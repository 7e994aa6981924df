/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The single-process PageRank reference: plain arrays, the same formula
 * and iteration count as the DSM engine, so that the engine's ranks can be
 * checked vertex by vertex. The formula (power iteration, ranks sum to 1):
 *
 *   r_0(v)     = 1 / n
 *   D_k        = sum of r_k(u) over dangling u (out-degree 0)
 *   r_{k+1}(v) = (1 - d) / n + d * (sum over edges u->v of r_k(u) / out(u)
 *                                   + D_k / n)
 *
 * i.e. a dangling vertex's rank is redistributed uniformly over all
 * vertices (the standard rule; networkx and the Graph500-era PageRank
 * kernels do the same). Pure logic: no DSM.
 */
#ifndef PR_REF_H
#define PR_REF_H

#include <stdint.h>

#include "pr_graph.h"

/**
 * Run `iterations` iterations with damping `d` on g; rank[] (g->n doubles)
 * receives r_iterations. @return 0; -EINVAL (empty graph, d outside
 * [0, 1]), -ENOMEM.
 */
int pr_reference(const struct pr_graph *g, unsigned iterations, double d,
		 double *rank);

/**
 * One vertex's new rank from its gathered sum (sum of r(u)/out(u) over its
 * in-edges) and the dangling mass D: the apply step the engine and the
 * reference share, so both round identically.
 */
static inline double
pr_apply(double gathered, double dangling, double d, uint32_t n)
{
	return (1.0 - d) / n + d * (gathered + dangling / n);
}

/** A vertex's contribution to each out-neighbour (0 when dangling). */
static inline double
pr_contrib(double rank, uint32_t outdeg)
{
	return outdeg ? rank / outdeg : 0.0;
}

#endif /* PR_REF_H */
