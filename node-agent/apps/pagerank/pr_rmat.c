/* SPDX-License-Identifier: BSD-3-Clause
 *
 * pr_rmat: the R-MAT power-law graph generator (Chakrabarti et al., with
 * Graph500's parameters a = 0.57, b = c = 0.19): each edge descends `scale`
 * levels of the adjacency matrix, picking a quadrant per level; the vertex
 * labels are then shuffled with a seeded Fisher-Yates permutation, as
 * Graph500 does. Deterministic: one splitmix64 stream from the seed, and
 * integer thresholds so no floating-point rounding differs between nodes.
 */
#include <errno.h>
#include <stdlib.h>

#include "pr_graph.h"

void
pr_rmat_default(struct pr_rmat *p)
{
	p->scale = 14;
	p->edge_factor = 16;
	p->seed = 1;
	p->a = 0.57;
	p->b = 0.19;
	p->c = 0.19;
}

/* A probability as a threshold on a 53-bit draw. */
static uint64_t
threshold(double p)
{
	return (uint64_t)(p * 0x1.0p53);
}

int
pr_rmat_edges(const struct pr_rmat *p, struct pr_edge **out, uint64_t *m)
{
	uint64_t ta = threshold(p->a), tab = threshold(p->a + p->b);
	uint64_t tabc = threshold(p->a + p->b + p->c);
	uint64_t s = p->seed ^ 0x5052524d41542d31ull; /* "PRRMAT-1" */
	uint32_t n, *perm;
	struct pr_edge *e;
	uint64_t cnt;

	if (p->scale < 1 || p->scale > PR_RMAT_MAX_SCALE ||
	    p->edge_factor < 1 || p->edge_factor > PR_RMAT_MAX_EF ||
	    !(p->a > 0) || !(p->b >= 0) || !(p->c >= 0) ||
	    !(p->a + p->b + p->c <= 1))
		return -EINVAL;
	n = 1u << p->scale;
	cnt = (uint64_t)p->edge_factor << p->scale;
	e = malloc(cnt * sizeof(*e));
	perm = malloc((size_t)n * sizeof(*perm));
	if (e == NULL || perm == NULL) {
		free(e);
		free(perm);
		return -ENOMEM;
	}
	for (uint64_t i = 0; i < cnt; i++) {
		uint32_t u = 0, v = 0;

		for (unsigned l = 0; l < p->scale; l++) {
			uint64_t r = pr_mix64(&s) >> 11;

			u <<= 1;
			v <<= 1;
			if (r < ta)
				continue;
			if (r < tab)
				v |= 1;
			else if (r < tabc)
				u |= 1;
			else
				u |= 1, v |= 1;
		}
		e[i].src = u;
		e[i].dst = v;
	}
	for (uint32_t v = 0; v < n; v++)
		perm[v] = v;
	for (uint32_t v = n - 1; v > 0; v--) {
		uint32_t j = (uint32_t)(pr_mix64(&s) % ((uint64_t)v + 1));
		uint32_t x = perm[v];

		perm[v] = perm[j];
		perm[j] = x;
	}
	for (uint64_t i = 0; i < cnt; i++) {
		e[i].src = perm[e[i].src];
		e[i].dst = perm[e[i].dst];
	}
	free(perm);
	*out = e;
	*m = cnt;
	return 0;
}
