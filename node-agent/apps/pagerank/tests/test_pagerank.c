/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Unit tests of dsm_pagerank's pure parts: the R-MAT generator
 * (determinism, power-law skew), the SNAP parser (remapping, comments, bad
 * input), the graph builder, the partition and the reference PageRank
 * (graphs whose ranks are known in closed form).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pr_graph.h"
#include "pr_part.h"
#include "pr_ref.h"

static struct pr_edge *
rmat(unsigned scale, uint64_t seed, double a, double b, double c, uint64_t *m)
{
	struct pr_rmat p;
	struct pr_edge *e = NULL;

	pr_rmat_default(&p);
	p.scale = scale;
	p.seed = seed;
	p.a = a;
	p.b = b;
	p.c = c;
	cr_assert_eq(pr_rmat_edges(&p, &e, m), 0);
	return e;
}

Test(rmat, deterministic_per_seed)
{
	uint64_t m1, m2, m3;
	struct pr_edge *e1 = rmat(10, 7, 0.57, 0.19, 0.19, &m1);
	struct pr_edge *e2 = rmat(10, 7, 0.57, 0.19, 0.19, &m2);
	struct pr_edge *e3 = rmat(10, 8, 0.57, 0.19, 0.19, &m3);

	cr_assert_eq(m1, 16u << 10);
	cr_assert_eq(m1, m2);
	cr_assert(memcmp(e1, e2, m1 * sizeof(*e1)) == 0,
		  "same seed, different edges");
	cr_assert(memcmp(e1, e3, m1 * sizeof(*e1)) != 0,
		  "different seeds, same edges");
	for (uint64_t i = 0; i < m1; i++)
		cr_assert(e1[i].src < 1024 && e1[i].dst < 1024);
	free(e1);
	free(e2);
	free(e3);
}

/* Share of all edges held by the 1% of vertices of highest in-degree. */
static double
top_share(const struct pr_graph *g)
{
	uint32_t k = g->n / 100, *deg = malloc(g->n * sizeof(*deg));
	uint64_t hist[4096] = { 0 }, top = 0;

	for (uint32_t v = 0; v < g->n; v++) {
		deg[v] = (uint32_t)(g->in_off[v + 1] - g->in_off[v]);
		hist[deg[v] < 4095 ? deg[v] : 4095]++;
	}
	for (int d = 4095; d >= 0 && k > 0; d--) {
		uint64_t take = hist[d] < k ? hist[d] : k;

		top += take * (uint64_t)d;
		k -= (uint32_t)take;
	}
	free(deg);
	return (double)top / (double)g->m;
}

Test(rmat, degree_distribution_is_skewed)
{
	uint64_t m;
	struct pr_edge *e = rmat(12, 1, 0.57, 0.19, 0.19, &m);
	struct pr_edge *u = rmat(12, 1, 0.25, 0.25, 0.25, &m);
	struct pr_graph g, gu;
	uint64_t maxin = 0, isolated = 0;
	double skew, flat;

	cr_assert_eq(pr_graph_build(&g, 4096, e, m), 0);
	cr_assert_eq(pr_graph_build(&gu, 4096, u, m), 0);
	for (uint32_t v = 0; v < g.n; v++) {
		uint64_t d = g.in_off[v + 1] - g.in_off[v];

		maxin = d > maxin ? d : maxin;
		isolated += d == 0 && g.outdeg[v] == 0;
	}
	skew = top_share(&g);
	flat = top_share(&gu);
	/* Power law: hubs far above the mean (about 16), many vertices
	 * without edges, and the top 1% holding several times the share
	 * they hold in a uniform (a = b = c = d) graph of the same size. */
	cr_assert_gt(maxin, 20 * g.m / g.n, "max in-degree %lu, mean %lu",
		     (unsigned long)maxin, (unsigned long)(g.m / g.n));
	cr_assert_gt(isolated, g.n / 10);
	cr_assert_gt(skew, 0.10, "top 1%% share %f", skew);
	cr_assert_gt(skew, 4 * flat, "skewed %f vs uniform %f", skew, flat);
	pr_graph_free(&g);
	pr_graph_free(&gu);
	free(e);
	free(u);
}

Test(rmat, bad_parameters)
{
	struct pr_rmat p;
	struct pr_edge *e;
	uint64_t m;

	pr_rmat_default(&p);
	p.scale = 0;
	cr_assert_eq(pr_rmat_edges(&p, &e, &m), -EINVAL);
	p.scale = PR_RMAT_MAX_SCALE + 1;
	cr_assert_eq(pr_rmat_edges(&p, &e, &m), -EINVAL);
	pr_rmat_default(&p);
	p.edge_factor = 0;
	cr_assert_eq(pr_rmat_edges(&p, &e, &m), -EINVAL);
	pr_rmat_default(&p);
	p.a = 0.9;
	cr_assert_eq(pr_rmat_edges(&p, &e, &m), -EINVAL);
}

Test(graph, build_drops_loops_and_duplicates)
{
	struct pr_edge e[] = { { 0, 1 }, { 2, 1 }, { 0, 1 }, { 1, 1 },
			       { 1, 2 }, { 2, 0 }, { 0, 2 } };
	struct pr_graph g;

	cr_assert_eq(pr_graph_build(&g, 4, e, 7), 0);
	cr_assert_eq(g.m, 5);
	cr_assert_eq(g.dropped_loops, 1);
	cr_assert_eq(g.dropped_dups, 1);
	cr_assert_eq(g.outdeg[0], 2);
	cr_assert_eq(g.outdeg[1], 1);
	cr_assert_eq(g.outdeg[2], 2);
	cr_assert_eq(g.outdeg[3], 0);
	/* in-edges of 1: from 0 and 2, ascending */
	cr_assert_eq(g.in_off[1], 1);
	cr_assert_eq(g.in_off[2], 3);
	cr_assert_eq(g.in_src[1], 0);
	cr_assert_eq(g.in_src[2], 2);
	cr_assert_eq(g.in_off[4], 5);
	pr_graph_free(&g);
	e[0].dst = 4;
	cr_assert_eq(pr_graph_build(&g, 4, e, 7), -EINVAL);
}

static int
snap(const char *text, struct pr_edge **e, uint64_t *m, uint32_t *n, char *err)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rc;

	cr_assert_not_null(f);
	rc = pr_snap_read(f, "t.txt", e, m, n, err, 256);
	fclose(f);
	return rc;
}

Test(snap, parses_and_remaps_densely)
{
	const char *text = "# Directed graph: t.txt\n"
			   "# FromNodeId\tToNodeId\n"
			   "10\t5\n"
			   "\n"
			   "  5 1000\r\n"
			   "1000 10\n"
			   "10 1000";
	struct pr_edge *e;
	uint64_t m;
	uint32_t n;
	char err[256];

	cr_assert_eq(snap(text, &e, &m, &n, err), 0, "%s", err);
	cr_assert_eq(m, 4);
	cr_assert_eq(n, 3);
	/* 5 -> 0, 10 -> 1, 1000 -> 2 */
	cr_assert(e[0].src == 1 && e[0].dst == 0);
	cr_assert(e[1].src == 0 && e[1].dst == 2);
	cr_assert(e[2].src == 2 && e[2].dst == 1);
	cr_assert(e[3].src == 1 && e[3].dst == 2);
	free(e);
}

static void
snap_bad(const char *text, const char *want)
{
	struct pr_edge *e = NULL;
	uint64_t m;
	uint32_t n;
	char err[256] = "";

	cr_assert_eq(snap(text, &e, &m, &n, err), -EINVAL, "accepted: %s",
		     text);
	cr_assert_not_null(strstr(err, want), "error '%s' lacks '%s'", err,
			   want);
	cr_assert_null(e);
}

Test(snap, rejects_bad_input_with_the_line)
{
	snap_bad("1 2\n3\n", "t.txt:2: expected");
	snap_bad("1 2\n3 x\n", "t.txt:2:");
	snap_bad("# c\n-1 2\n", "t.txt:2:");
	snap_bad("1 2 0.5\n", "t.txt:1:");
	snap_bad("a b\n", "t.txt:1:");
	snap_bad("1,2\n", "t.txt:1:");
	snap_bad("1 99999999999999999999999\n", "t.txt:1:");
	snap_bad("", "no edges");
	snap_bad("# only\n# comments\n\n", "no edges");
}

Test(snap, missing_file)
{
	struct pr_edge *e;
	uint64_t m;
	uint32_t n;
	char err[256];

	cr_assert_eq(pr_snap_load("/nonexistent/x.txt", &e, &m, &n, err,
				  sizeof(err)),
		     -ENOENT);
	cr_assert_not_null(strstr(err, "/nonexistent/x.txt"));
}

Test(part, every_vertex_once_and_balanced)
{
	struct pr_part p, q;
	uint64_t total = 0;

	cr_assert_eq(pr_part_init(&p, 4096, 4, 1), 0);
	cr_assert_eq(pr_part_init(&q, 4096, 4, 2), 0);
	for (uint16_t k = 0; k < 4; k++) {
		total += p.count[k];
		cr_assert(p.count[k] > 900 && p.count[k] < 1150, "node %u: %u",
			  k, p.count[k]);
		for (uint32_t i = 0; i < p.count[k]; i++) {
			uint32_t v = p.gid[k][i];

			cr_assert(p.owner[v] == k && p.idx[v] == i);
		}
	}
	cr_assert_eq(total, 4096);
	cr_assert(memcmp(p.owner, q.owner, 4096 * sizeof(*p.owner)) != 0,
		  "the seed does not change the partition");
	pr_part_free(&p);
	pr_part_free(&q);
	cr_assert_eq(pr_part_init(&p, 10, 0, 1), -EINVAL);
}

static void
graph_of(struct pr_graph *g, uint32_t n, struct pr_edge *e, uint64_t m)
{
	cr_assert_eq(pr_graph_build(g, n, e, m), 0);
}

Test(reference, cycle_is_uniform)
{
	struct pr_edge e[] = { { 0, 1 }, { 1, 2 }, { 2, 0 } };
	struct pr_graph g;
	double r[3];

	graph_of(&g, 3, e, 3);
	cr_assert_eq(pr_reference(&g, 25, 0.85, r), 0);
	for (int v = 0; v < 3; v++)
		cr_assert_float_eq(r[v], 1.0 / 3, 1e-15);
	pr_graph_free(&g);
}

/*
 * 0 -> 1, 1 dangling. One iteration from (1/2, 1/2): D = 1/2,
 * r(0) = 0.075 + 0.85 x 0.25 = 0.2875, r(1) = 0.075 + 0.85 x 0.75 = 0.7125.
 * The fixed point: r0 = 0.075 + 0.425 r1 with r0 + r1 = 1, so
 * r0 = 0.5 / 1.425.
 */
Test(reference, dangling_vertex_known_ranks)
{
	struct pr_edge e[] = { { 0, 1 } };
	struct pr_graph g;
	double r[2];

	graph_of(&g, 2, e, 1);
	cr_assert_eq(pr_reference(&g, 1, 0.85, r), 0);
	cr_assert_float_eq(r[0], 0.2875, 1e-15);
	cr_assert_float_eq(r[1], 0.7125, 1e-15);
	cr_assert_eq(pr_reference(&g, 200, 0.85, r), 0);
	cr_assert_float_eq(r[0], 0.5 / 1.425, 1e-12);
	cr_assert_float_eq(r[1], 1 - 0.5 / 1.425, 1e-12);
	pr_graph_free(&g);
}

/*
 * A star: leaves 1..4 each link to hub 0, the hub links to leaf 1. The
 * fixed point (by symmetry leaves 2..4 are equal, x; leaf 1 is y; hub h):
 * x = 0.03, h = 0.03 + 0.85 (y + 3x), y = 0.03 + 0.85 h; h + y + 3x = 1.
 */
Test(reference, star_fixed_point)
{
	struct pr_edge e[] = {
		{ 1, 0 }, { 2, 0 }, { 3, 0 }, { 4, 0 }, { 0, 1 }
	};
	struct pr_graph g;
	double r[5], h = (0.03 + 0.85 * (0.03 + 0.09)) / (1 - 0.85 * 0.85);

	graph_of(&g, 5, e, 5);
	cr_assert_eq(pr_reference(&g, 300, 0.85, r), 0);
	cr_assert_float_eq(r[0], h, 1e-12);
	cr_assert_float_eq(r[1], 0.03 + 0.85 * h, 1e-12);
	for (int v = 2; v < 5; v++)
		cr_assert_float_eq(r[v], 0.03, 1e-12);
	cr_assert_float_eq(r[0] + r[1] + 3 * r[2], 1.0, 1e-12);
	pr_graph_free(&g);
}

Test(reference, ranks_sum_to_one_on_rmat)
{
	uint64_t m;
	struct pr_edge *e = rmat(10, 3, 0.57, 0.19, 0.19, &m);
	struct pr_graph g;
	double *r = malloc(1024 * sizeof(*r)), s = 0;

	graph_of(&g, 1024, e, m);
	cr_assert_eq(pr_reference(&g, 10, 0.85, r), 0);
	for (int v = 0; v < 1024; v++)
		s += r[v];
	cr_assert_float_eq(s, 1.0, 1e-12);
	cr_assert_eq(pr_reference(&g, 10, 1.5, r), -EINVAL);
	pr_graph_free(&g);
	free(r);
	free(e);
}
