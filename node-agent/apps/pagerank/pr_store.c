/* SPDX-License-Identifier: BSD-3-Clause
 *
 * pr_store: the engine's data in global memory (layout in pr_engine.h):
 * loading this node's partition, reading the other nodes' headers, reading
 * the final ranks back.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pr_engine.h"
#include "pr_ref.h"

int
pr_engine_init(struct pr_engine *e, struct app *a, const struct pr_graph *g,
	       const struct pr_part *p, unsigned warmup, unsigned iterations,
	       double damping)
{
	int rc;

	memset(e, 0, sizeof(*e));
	if ((size_t)a->o.threads * 2 * sizeof(double) > a->block) {
		fprintf(stderr,
			"pagerank: %u threads need %zu bytes of dangling "
			"slots, more than a block (%u)\n",
			a->o.threads, (size_t)a->o.threads * 16, a->block);
		return -EINVAL;
	}
	e->a = a;
	e->g = g;
	e->p = p;
	e->iterations = iterations;
	e->warmup = warmup;
	e->damping = damping;
	e->hdr = calloc(a->o.nodes, sizeof(*e->hdr));
	e->iter_end_ns = calloc(iterations ? iterations : 1,
				sizeof(*e->iter_end_ns));
	if (e->hdr == NULL || e->iter_end_ns == NULL) {
		pr_engine_free(e);
		return -ENOMEM;
	}
	rc = pr_lbar_init(&e->bar, a->o.threads);
	if (rc != 0) {
		pr_engine_free(e);
		return rc;
	}
	e->bar_ready = true;
	return 0;
}

void
pr_engine_free(struct pr_engine *e)
{
	if (e->bar_ready)
		pr_lbar_destroy(&e->bar);
	free(e->hdr);
	free(e->iter_end_ns);
	memset(e, 0, sizeof(*e));
}

static dsm_addr_t
hdr_addr(const struct pr_engine *e, uint16_t node)
{
	return dsm_static_addr(node, app_static_base(e->a));
}

dsm_addr_t
pr_dangling_addr(const struct pr_engine *e, uint16_t node, unsigned parity,
		 uint16_t thread)
{
	return dsm_static_addr(node, 2 * (uint64_t)e->a->block) +
	       ((uint64_t)parity * e->a->o.threads + thread) * sizeof(double);
}

/* dsm_malloc at this node, with a message when it cannot be had. */
static int
alloc_here(struct dsm_thread *t, size_t size, const char *what, dsm_addr_t *out)
{
	*out = 0;
	if (size == 0)
		return 0;
	*out = dsm_malloc(t, size, -1);
	if (*out != 0)
		return 0;
	fprintf(stderr,
		"pagerank: cannot allocate %zu bytes of global memory for "
		"%s (one allocation holds at most 32 MB, and --mem-mb bounds "
		"the total): use more nodes or a smaller graph\n",
		size, what);
	return -ENOMEM;
}

/* This node's vertex records, in-edges and initial values, in memory. */
static int
build_local(const struct pr_engine *e, struct pr_vrec **vtx, uint32_t **edges,
	    struct pr_val **vals, struct pr_hdr *h, double *dangling)
{
	const struct pr_graph *g = e->g;
	uint16_t me = (uint16_t)e->a->o.node;
	uint32_t nl = e->p->count[me];
	const uint32_t *gid = e->p->gid[me];
	uint64_t ne = 0;

	for (uint32_t i = 0; i < nl; i++)
		ne += g->in_off[gid[i] + 1] - g->in_off[gid[i]];
	if (ne > UINT32_MAX) {
		fprintf(stderr, "pagerank: %" PRIu64 " in-edges on one node\n",
			ne);
		return -ENOMEM;
	}
	*vtx = malloc((nl ? nl : 1) * sizeof(**vtx));
	*edges = malloc((ne ? ne : 1) * sizeof(**edges));
	*vals = malloc((nl ? nl : 1) * sizeof(**vals));
	if (*vtx == NULL || *edges == NULL || *vals == NULL)
		return -ENOMEM;
	*dangling = 0;
	ne = 0;
	for (uint32_t i = 0; i < nl; i++) {
		uint32_t v = gid[i];
		uint64_t b = g->in_off[v], c = g->in_off[v + 1] - b;

		(*vtx)[i] = (struct pr_vrec){ .gid = v,
					      .outdeg = g->outdeg[v],
					      .in_begin = (uint32_t)ne,
					      .in_count = (uint32_t)c };
		memcpy(*edges + ne, g->in_src + b, c * sizeof(**edges));
		ne += c;
		(*vals)[i].rank = 1.0 / g->n;
		(*vals)[i].contrib = pr_contrib(1.0 / g->n, g->outdeg[v]);
		if (g->outdeg[v] == 0)
			*dangling += 1.0 / g->n;
	}
	*h = (struct pr_hdr){ .magic = PR_MAGIC,
			      .digest = pr_graph_digest(g),
			      .nlocal = nl,
			      .threads = e->a->o.threads,
			      .nedges = ne };
	return 0;
}

int
pr_engine_load(struct pr_engine *e, struct dsm_thread *t)
{
	uint16_t me = (uint16_t)e->a->o.node, nt = e->a->o.threads;
	struct pr_vrec *vtx = NULL;
	uint32_t *edges = NULL;
	struct pr_val *vals = NULL;
	double *slots = calloc(2 * (size_t)nt, sizeof(*slots));
	struct pr_hdr h;
	size_t nl;
	int rc;

	rc = slots == NULL ? -ENOMEM
			   : build_local(e, &vtx, &edges, &vals, &h, &slots[0]);
	nl = h.nlocal;
	if (rc == 0)
		rc = alloc_here(t, nl * sizeof(*vtx), "vertices", &h.vtx);
	if (rc == 0)
		rc = alloc_here(t, h.nedges * sizeof(*edges), "in-edges",
				&h.edges);
	if (rc == 0)
		rc = alloc_here(t, 2 * nl * sizeof(*vals), "ranks", &h.vals);
	if (rc == 0 && nl > 0)
		rc = dsm_write(t, h.vtx, vtx, nl * sizeof(*vtx));
	if (rc == 0 && h.nedges > 0)
		rc = dsm_write(t, h.edges, edges, h.nedges * sizeof(*edges));
	/* vals[1] is written by iteration 0 before anyone reads it. */
	if (rc == 0 && nl > 0)
		rc = dsm_write(t, h.vals, vals, nl * sizeof(*vals));
	if (rc == 0)
		rc = dsm_write(t, pr_dangling_addr(e, me, 0, 0), slots,
			       2 * (size_t)nt * sizeof(*slots));
	/* The header last: a peer that sees it sees the rest. */
	if (rc == 0)
		rc = dsm_write(t, hdr_addr(e, me), &h, sizeof(h));
	free(vtx);
	free(edges);
	free(vals);
	free(slots);
	return rc;
}

int
pr_engine_attach(struct pr_engine *e, struct dsm_thread *t)
{
	uint64_t digest = pr_graph_digest(e->g);
	int rc;

	for (uint16_t k = 0; k < e->a->o.nodes; k++) {
		struct pr_hdr *h = &e->hdr[k];

		rc = dsm_read(t, hdr_addr(e, k), h, sizeof(*h));
		if (rc != 0)
			return rc;
		if (h->magic != PR_MAGIC || h->digest != digest ||
		    h->threads != e->a->o.threads ||
		    h->nlocal != e->p->count[k]) {
			fprintf(stderr,
				"pagerank: node %u's partition does not match "
				"this node's (magic %s, graph digest %016" PRIx64
				" vs %016" PRIx64 ", threads %u vs %u): all "
				"nodes must run with the same --scale, "
				"--edge-factor, --edges, --seed, --nodes and "
				"--threads\n",
				k, h->magic == PR_MAGIC ? "ok" : "missing",
				h->digest, digest, h->threads, e->a->o.threads);
			return -EPROTO;
		}
	}
	return 0;
}

int
pr_engine_ranks(struct pr_engine *e, struct dsm_thread *t, double *rank)
{
	unsigned fin = (e->warmup + e->iterations) & 1;
	int rc = 0;

	for (uint16_t k = 0; k < e->a->o.nodes && rc == 0; k++) {
		uint32_t nl = e->hdr[k].nlocal;
		struct pr_val *v;

		if (nl == 0)
			continue;
		v = malloc(nl * sizeof(*v));
		if (v == NULL)
			return -ENOMEM;
		rc = dsm_read(t,
			      e->hdr[k].vals + (uint64_t)fin * nl * sizeof(*v),
			      v, nl * sizeof(*v));
		for (uint32_t i = 0; rc == 0 && i < nl; i++)
			rank[e->p->gid[k][i]] = v[i].rank;
		free(v);
	}
	return rc;
}
