/* SPDX-License-Identifier: BSD-3-Clause
 *
 * pr_part: seeded-hash random partitioning of the vertices (pr_part.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pr_graph.h"
#include "pr_part.h"

int
pr_part_init(struct pr_part *p, uint32_t n, uint16_t nodes, uint64_t seed)
{
	memset(p, 0, sizeof(*p));
	if (nodes == 0)
		return -EINVAL;
	p->n = n;
	p->nodes = nodes;
	p->owner = malloc((n ? n : 1) * sizeof(*p->owner));
	p->idx = malloc((n ? n : 1) * sizeof(*p->idx));
	p->count = calloc(nodes, sizeof(*p->count));
	p->gid = calloc(nodes, sizeof(*p->gid));
	if (p->owner == NULL || p->idx == NULL || p->count == NULL ||
	    p->gid == NULL)
		goto nomem;
	for (uint32_t v = 0; v < n; v++) {
		/* The hash of (seed, v): independent of the generator's
		 * stream, and of the vertex labels' order. */
		uint64_t s = seed * 0xd1b54a32d192ed03ull ^ v;

		p->owner[v] = (uint16_t)(pr_mix64(&s) % nodes);
		p->idx[v] = p->count[p->owner[v]]++;
	}
	for (uint16_t k = 0; k < nodes; k++) {
		p->gid[k] = malloc((p->count[k] ? p->count[k] : 1) *
				   sizeof(**p->gid));
		if (p->gid[k] == NULL)
			goto nomem;
	}
	for (uint32_t v = 0; v < n; v++)
		p->gid[p->owner[v]][p->idx[v]] = v;
	return 0;
nomem:
	pr_part_free(p);
	return -ENOMEM;
}

void
pr_part_free(struct pr_part *p)
{
	if (p->gid != NULL)
		for (uint16_t k = 0; k < p->nodes; k++)
			free(p->gid[k]);
	free(p->gid);
	free(p->owner);
	free(p->idx);
	free(p->count);
	memset(p, 0, sizeof(*p));
}
