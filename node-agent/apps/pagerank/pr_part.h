/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Random vertex partitioning (paper 7.5, as PowerGraph's random
 * placement): vertex v lives on node hash(seed, v) mod nodes, at the next
 * free index of that node's vertex arrays (vertices in ascending id order).
 * Every node computes the same map from (n, nodes, seed), so a vertex's
 * location needs no lookup in global memory. Pure logic: no DSM.
 */
#ifndef PR_PART_H
#define PR_PART_H

#include <stdint.h>

struct pr_part {
	uint32_t n;
	uint16_t nodes;
	uint16_t *owner; /* [n] node holding v */
	uint32_t *idx;   /* [n] v's index among its owner's vertices */
	uint32_t *count; /* [nodes] vertices per node */
	uint32_t **gid;  /* [nodes][count] vertex id of each local index */
};

/**
 * Partition n vertices over `nodes` nodes with `seed`.
 * @return 0; -EINVAL (nodes 0), -ENOMEM.
 */
int pr_part_init(struct pr_part *p, uint32_t n, uint16_t nodes, uint64_t seed);

void pr_part_free(struct pr_part *p);

#endif /* PR_PART_H */
