/* SPDX-License-Identifier: BSD-3-Clause
 *
 * dsm_pagerank: PageRank on the DSM (paper 7.5, Figure 16: total run time).
 * Every node builds the same graph (R-MAT from --seed, or a SNAP file),
 * loads its random partition into global memory, runs --iterations rounds
 * of gather-apply-scatter with its threads (pr_engine.h), reads all final
 * ranks back through the DSM and compares them with the single-process
 * reference (pr_ref.h): exit 1 if any vertex differs by more than
 * --tolerance. README.md in this directory has the details.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dsm_app.h>

#include "pr_engine.h"
#include "pr_graph.h"
#include "pr_part.h"
#include "pr_ref.h"

struct pr_opts {
	struct pr_rmat rmat;
	const char *edges; /* --edges FILE, else R-MAT */
	unsigned iterations, warmup;
	double damping, tolerance;
};

static void
usage(FILE *f, const char *prg)
{
	fprintf(f,
		"Usage: %s --topo FILE --node N [options]\n"
		"PageRank on the DSM (gather-apply-scatter, random vertex "
		"partitioning),\nchecked against a single-process "
		"reference.\n"
		"Graph (the same on every node):\n"
		"  --scale S         R-MAT graph of 2^S vertices (default 14, "
		"max %d)\n"
		"  --edge-factor E   R-MAT edges per vertex (default 16)\n"
		"  --edges FILE      a SNAP edge list (\"src dst\" lines, '#' "
		"comments)\n"
		"                    instead of R-MAT\n"
		"PageRank:\n"
		"  --iterations N    iterations measured (default 10)\n"
		"  --warmup-iterations W\n"
		"                    iterations run first, uncounted "
		"(default 0; e.g.\n"
		"                    migration's first epochs)\n"
		"  --damping D       damping factor (default 0.85)\n"
		"  --tolerance T     largest allowed |rank - reference| "
		"(default 1e-6)\n"
		"The run is iteration-bound: --duration is accepted and "
		"ignored; the\n"
		"ranks checked are those after W + N iterations.\n",
		prg, PR_RMAT_MAX_SCALE);
	app_opts_usage(f);
}

/* @return 0, 1 (--help), 2 (bad usage). */
static int
parse(int argc, char **argv, struct app_opts *ao, struct pr_opts *po)
{
	static const struct option lo[] = {
		APP_OPTS_LONG,
		{ "scale", required_argument, NULL, 's' },
		{ "edge-factor", required_argument, NULL, 'e' },
		{ "edges", required_argument, NULL, 'f' },
		{ "iterations", required_argument, NULL, 'i' },
		{ "warmup-iterations", required_argument, NULL, 'w' },
		{ "damping", required_argument, NULL, 'd' },
		{ "tolerance", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c, r;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		r = app_opts_take(ao, c, optarg);
		if (r < 0)
			return 2;
		if (r > 0)
			continue;
		switch (c) {
		case 's':
			if (app_parse_u64(optarg, PR_RMAT_MAX_SCALE, &v) ||
			    v < 1) {
				fprintf(stderr, "--scale: 1..%d, got '%s'\n",
					PR_RMAT_MAX_SCALE, optarg);
				return 2;
			}
			po->rmat.scale = (unsigned)v;
			break;
		case 'e':
			if (app_parse_u64(optarg, PR_RMAT_MAX_EF, &v) ||
			    v < 1) {
				fprintf(stderr,
					"--edge-factor: 1..%d, got '%s'\n",
					PR_RMAT_MAX_EF, optarg);
				return 2;
			}
			po->rmat.edge_factor = (unsigned)v;
			break;
		case 'f':
			po->edges = optarg;
			break;
		case 'i':
			if (app_parse_u64(optarg, 100000, &v) || v < 1) {
				fprintf(stderr,
					"--iterations: 1..100000, got '%s'\n",
					optarg);
				return 2;
			}
			po->iterations = (unsigned)v;
			break;
		case 'w':
			if (app_parse_u64(optarg, 100000, &v)) {
				fprintf(stderr,
					"--warmup-iterations: 0..100000, got "
					"'%s'\n",
					optarg);
				return 2;
			}
			po->warmup = (unsigned)v;
			break;
		case 'd':
			if (app_parse_double(optarg, 0, 1, &po->damping)) {
				fprintf(stderr, "--damping: 0..1, got '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 't':
			if (app_parse_double(optarg, 0, 1, &po->tolerance)) {
				fprintf(stderr, "--tolerance: 0..1, got '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout, argv[0]);
			return 1;
		default:
			usage(stderr, argv[0]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s' (--help)\n",
			argv[0], argv[optind]);
		return 2;
	}
	if (ao->warmup > 0) {
		fprintf(stderr,
			"%s: --warmup: not for a fixed number of "
			"iterations (--warmup-iterations)\n",
			argv[0]);
		return 2;
	}
	return app_opts_check(ao, argv[0]) == 0 ? 0 : 2;
}

/* The input graph. @return 0, or 2 (bad input: message printed). */
static int
load_graph(const struct pr_opts *po, struct pr_graph *g, char *workload,
	   size_t wl_len)
{
	struct pr_edge *e = NULL;
	char err[512];
	uint64_t m;
	uint32_t n;
	int rc;

	if (po->edges != NULL) {
		const char *base = strrchr(po->edges, '/');

		rc = pr_snap_load(po->edges, &e, &m, &n, err, sizeof(err));
		if (rc != 0) {
			fprintf(stderr, "--edges: %s\n", err);
			return 2;
		}
		snprintf(workload, wl_len, "snap-%s",
			 base != NULL ? base + 1 : po->edges);
	} else {
		rc = pr_rmat_edges(&po->rmat, &e, &m);
		if (rc != 0) {
			fprintf(stderr, "R-MAT: %s\n", strerror(-rc));
			return 2;
		}
		n = 1u << po->rmat.scale;
		snprintf(workload, wl_len, "rmat-s%u-e%u", po->rmat.scale,
			 po->rmat.edge_factor);
	}
	rc = pr_graph_build(g, n, e, m);
	free(e);
	if (rc != 0) {
		fprintf(stderr, "graph: %s\n", strerror(-rc));
		return 2;
	}
	return 0;
}

/* Max |rank - reference|; *worst gets its vertex. */
static double
compare(const double *rank, const double *ref, uint32_t n, uint32_t *worst,
	double *sum)
{
	double max = 0;

	*worst = 0;
	*sum = 0;
	for (uint32_t v = 0; v < n; v++) {
		double d = fabs(rank[v] - ref[v]);

		*sum += rank[v];
		/* NaN counts as the worst possible. */
		if (!(d <= max)) {
			max = isnan(d) ? INFINITY : d;
			*worst = v;
		}
	}
	return max;
}

static void
print_iterations(const struct app *a, const struct pr_engine *e)
{
	uint64_t prev = a->t_start_ns, lo = UINT64_MAX, hi = 0;

	printf("pagerank node %d: per iteration (ms):", a->o.node);
	for (unsigned k = 0; k < e->iterations; k++) {
		uint64_t d = e->iter_end_ns[k] - prev;

		lo = d < lo ? d : lo;
		hi = d > hi ? d : hi;
		prev = e->iter_end_ns[k];
		printf(" %.1f", d / 1e6);
	}
	printf("; min %.1f max %.1f\n", lo / 1e6, hi / 1e6);
}

/* Reference, comparison, report. @return the exit status. */
static int
check_and_report(struct app *a, const struct pr_engine *e,
		 const struct pr_opts *po, const char *workload,
		 const double *rank)
{
	const struct pr_graph *g = e->g;
	double *ref = malloc((size_t)g->n * sizeof(*ref)), err, sum;
	double secs = (a->t_end_ns - a->t_start_ns) / 1e9;
	char cols[256], vals[256];
	uint32_t worst;
	int status = 0;

	if (ref == NULL ||
	    pr_reference(g, po->warmup + po->iterations, po->damping, ref)) {
		fprintf(stderr, "pagerank: reference failed\n");
		free(ref);
		return 1;
	}
	err = compare(rank, ref, g->n, &worst, &sum);
	print_iterations(a, e);
	if (err <= po->tolerance) {
		printf("pagerank node %d: all %u ranks match the reference: "
		       "max |err| %.3g (vertex %u), tolerance %g, sum of "
		       "ranks %.12f\n",
		       a->o.node, g->n, err, worst, po->tolerance, sum);
	} else {
		printf("pagerank node %d: MISMATCH: vertex %u has rank %.17g, "
		       "the reference %.17g (|err| %.3g > tolerance %g)\n",
		       a->o.node, worst, rank[worst], ref[worst], err,
		       po->tolerance);
		status = 1;
	}
	snprintf(cols, sizeof(cols),
		 "vertices,edges,iterations,seconds_total,max_err,"
		 "seconds_per_iter");
	snprintf(vals, sizeof(vals), "%u,%" PRIu64 ",%u,%.6f,%.3g,%.6f", g->n,
		 g->m, po->iterations, secs, err, secs / po->iterations);
	if (app_report(a, "pagerank", workload, cols, vals) != 0)
		status = 1;
	free(ref);
	return status;
}

/* Load, barrier, iterations, ranks back, leave. @return 0 or -errno. */
static int
run(struct app *a, struct pr_engine *e, double *rank)
{
	struct dsm_thread *t = dsm_thread(a->d, 0);
	uint64_t t0 = app_now_ns();
	int rc;

	rc = pr_engine_load(e, t);
	if (rc == 0)
		rc = app_barrier(a, t);
	if (rc != 0)
		return rc;
	rc = pr_engine_attach(e, t);
	if (rc != 0) {
		/* A mismatch is seen by every node (each compares all the
		 * headers with its own): leave together, so that none
		 * vanishes while a peer still reads its header. */
		app_leave(a, t);
		return rc;
	}
	printf("pagerank node %d: %u of %u vertices, %" PRIu64
	       " in-edges here; load %.2f s\n",
	       a->o.node, e->hdr[a->o.node].nlocal, e->g->n,
	       e->hdr[a->o.node].nedges, (app_now_ns() - t0) / 1e9);
	rc = app_run_threads(a, pr_engine_thread, e);
	if (rc == 0) {
		printf("pagerank node %d: %u iterations in %.3f s\n", a->o.node,
		       e->iterations, (a->t_end_ns - a->t_start_ns) / 1e9);
		rc = pr_engine_ranks(e, t, rank);
	}
	if (rc == 0)
		rc = app_leave(a, t);
	return rc;
}

int
main(int argc, char **argv)
{
	struct pr_opts po = { .iterations = 10,
			      .damping = 0.85,
			      .tolerance = 1e-6 };
	struct pr_graph g = { 0 };
	struct pr_part p = { 0 };
	struct pr_engine e = { 0 };
	struct app_opts ao;
	struct app a;
	char workload[128];
	double *rank = NULL;
	int rc, status = 1;

	/* Lines as they come, also into a file: a run that is killed
	 * still shows how far it got. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	app_opts_init(&ao);
	pr_rmat_default(&po.rmat);
	rc = parse(argc, argv, &ao, &po);
	if (rc != 0)
		return rc == 1 ? 0 : 2;
	po.rmat.seed = ao.seed;
	if (load_graph(&po, &g, workload, sizeof(workload)) != 0)
		return 2;
	printf("pagerank: %s: %u vertices, %" PRIu64 " edges (%" PRIu64
	       " self loops, %" PRIu64 " duplicates dropped)\n",
	       workload, g.n, g.m, g.dropped_loops, g.dropped_dups);
	rank = malloc((size_t)g.n * sizeof(*rank));
	if (rank == NULL || pr_part_init(&p, g.n, ao.nodes, ao.seed) != 0) {
		fprintf(stderr, "pagerank: out of memory\n");
		goto out_graph;
	}
	if (app_open(&a, &ao) != 0)
		goto out_part;
	if (pr_engine_init(&e, &a, &g, &p, po.warmup, po.iterations,
			   po.damping) == 0) {
		rc = run(&a, &e, rank);
		if (rc != 0)
			fprintf(stderr, "pagerank node %d: %s\n", ao.node,
				strerror(-rc));
		else
			status = check_and_report(&a, &e, &po, workload, rank);
		pr_engine_free(&e);
	}
	app_close(&a);
out_part:
	pr_part_free(&p);
out_graph:
	free(rank);
	pr_graph_free(&g);
	return status;
}
