/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The PageRank application's input graph in private memory: a directed
 * edge list from a generator (R-MAT, pr_rmat.c) or a SNAP file
 * (pr_snap.c), turned into a compressed in-edge representation (CSR by
 * destination) plus out-degrees (pr_graph.c). Every node builds the same
 * graph from the same options; the engine copies its partition into global
 * memory and the reference (pr_ref.c) runs on it. Pure logic: no DSM.
 */
#ifndef PR_GRAPH_H
#define PR_GRAPH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** A directed edge src -> dst (dense vertex ids 0 .. n-1). */
struct pr_edge {
	uint32_t src, dst;
};

/**
 * A simple directed graph: no self loops, no duplicate edges. in_src holds
 * the sources of v's in-edges at in_off[v] .. in_off[v+1]-1, ascending.
 */
struct pr_graph {
	uint32_t n;             /* vertices */
	uint64_t m;             /* edges */
	uint32_t *outdeg;       /* [n] */
	uint64_t *in_off;       /* [n + 1] */
	uint32_t *in_src;       /* [m] */
	uint64_t dropped_loops; /* self loops removed by pr_graph_build */
	uint64_t dropped_dups;  /* duplicate edges removed */
};

/** R-MAT parameters; pr_rmat_default() sets Graph500's. */
struct pr_rmat {
	unsigned scale;       /* 2^scale vertices (1 .. PR_RMAT_MAX_SCALE) */
	unsigned edge_factor; /* edges generated = edge_factor x 2^scale */
	uint64_t seed;
	double a, b, c; /* quadrant probabilities; d = 1 - a - b - c */
};

#define PR_RMAT_MAX_SCALE 26
#define PR_RMAT_MAX_EF    256

void pr_rmat_default(struct pr_rmat *p);

/**
 * Generate p->edge_factor << p->scale R-MAT edges (self loops and duplicates
 * included, as the generator draws them) with vertex labels permuted by a
 * seeded shuffle, as Graph500 does, so that the hubs are not the low ids.
 * The same parameters give the same edges on every machine.
 * @return 0 with *out (free()) and *m set; -EINVAL (scale, edge factor or
 * probabilities out of range), -ENOMEM.
 */
int pr_rmat_edges(const struct pr_rmat *p, struct pr_edge **out, uint64_t *m);

/**
 * Read a SNAP edge list from `f`: one edge "src dst" per line (whitespace
 * separated non-negative integers), '#' starts a comment line, blank lines
 * are skipped. Vertex ids are remapped densely to 0 .. n-1 in ascending
 * order of the file's ids. `name` labels error messages.
 * @return 0 with *out (free()), *m and *n set; -EINVAL with `err` set
 * ("NAME:LINE: what") for malformed input or a file without edges, -EIO
 * on a read error, -ENOMEM.
 */
int pr_snap_read(FILE *f, const char *name, struct pr_edge **out, uint64_t *m,
		 uint32_t *n, char *err, size_t err_len);

/** pr_snap_read on the file at `path`; -errno (with `err`) if not opened. */
int pr_snap_load(const char *path, struct pr_edge **out, uint64_t *m,
		 uint32_t *n, char *err, size_t err_len);

/**
 * Build g from m edges over n vertices: self loops and duplicates are
 * dropped (counted), in-edges sorted by source. `e` is used as scratch and
 * left in an unspecified order.
 * @return 0; -EINVAL (an endpoint >= n), -ENOMEM.
 */
int pr_graph_build(struct pr_graph *g, uint32_t n, struct pr_edge *e,
		   uint64_t m);

void pr_graph_free(struct pr_graph *g);

/** A digest of n, m and the edges: nodes compare it to see they agree. */
uint64_t pr_graph_digest(const struct pr_graph *g);

/** splitmix64: the generators' and the partition's random stream. */
uint64_t pr_mix64(uint64_t *s);

#endif /* PR_GRAPH_H */
