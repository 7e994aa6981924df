/* SPDX-License-Identifier: BSD-3-Clause
 *
 * pr_ref: the single-process PageRank reference (pr_ref.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "pr_ref.h"

int
pr_reference(const struct pr_graph *g, unsigned iterations, double d,
	     double *rank)
{
	double *contrib;

	if (g->n == 0 || !(d >= 0 && d <= 1))
		return -EINVAL;
	contrib = malloc((size_t)g->n * sizeof(*contrib));
	if (contrib == NULL)
		return -ENOMEM;
	for (uint32_t v = 0; v < g->n; v++)
		rank[v] = 1.0 / g->n;
	for (unsigned k = 0; k < iterations; k++) {
		double dangling = 0;

		for (uint32_t u = 0; u < g->n; u++) {
			contrib[u] = pr_contrib(rank[u], g->outdeg[u]);
			if (g->outdeg[u] == 0)
				dangling += rank[u];
		}
		for (uint32_t v = 0; v < g->n; v++) {
			double s = 0;

			for (uint64_t i = g->in_off[v]; i < g->in_off[v + 1];
			     i++)
				s += contrib[g->in_src[i]];
			rank[v] = pr_apply(s, dangling, d, g->n);
		}
	}
	free(contrib);
	return 0;
}
