/* SPDX-License-Identifier: BSD-3-Clause
 *
 * dsm_tpcc's course: open the DSM, load this node's warehouses (one
 * thread each, in parallel) and ITEM part, barrier, read the directory,
 * the measured phase, barrier, check this node's warehouses, leave,
 * report. The check runs before app_leave so that every node is still
 * there to answer for the blocks it homes or holds.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpcc_load.h"
#include "tpcc_run.h"
#include "tpcc_verify.h"

void
tpcc_opts_init(struct tpcc_opts *t)
{
	static const uint32_t mix[TPCC_TX_N] = { 45, 43, 4, 4, 4 };

	memset(t, 0, sizeof(*t));
	t->dist_ratio = -1;
	memcpy(t->mix, mix, sizeof(mix));
	t->items = 10000;
	t->customers = 300;
	t->max_orders = 3000;
	t->placement = TPCC_PLACE_STRIPE;
}

struct loader {
	pthread_t tid;
	struct tpcc_node *nd;
	dsm_addr_t dir;
	uint16_t id;
	int rc;
	char err[256];
};

static void *
load_main(void *p)
{
	struct loader *l = p;
	struct tpcc_node *nd = l->nd;
	struct dsm_thread *t = dsm_thread(nd->a.d, l->id);
	uint32_t w = (uint32_t)nd->a.o.node * nd->a.o.threads + l->id;

	if (l->id == 0)
		l->rc = tpcc_load_items(t, &nd->x, l->dir, nd->a.o.seed, l->err,
					sizeof(l->err));
	if (l->rc == 0)
		l->rc = tpcc_load_warehouse(t, &nd->x, l->dir, w, nd->a.o.seed,
					    l->err, sizeof(l->err));
	dsm_sync(t);
	return NULL;
}

static int
load(struct tpcc_node *nd, dsm_addr_t dir)
{
	uint16_t n = nd->a.o.threads, started = 0;
	struct loader *l = calloc(n, sizeof(*l));
	uint64_t t0 = app_now_ns();
	int rc = l ? 0 : -ENOMEM;

	for (; rc == 0 && started < n; started++) {
		l[started] = (struct loader){ .nd = nd,
					      .dir = dir,
					      .id = started };
		if (pthread_create(&l[started].tid, NULL, load_main,
				   &l[started]) != 0)
			rc = -EAGAIN;
	}
	for (uint16_t i = 0; i < started; i++) {
		pthread_join(l[i].tid, NULL);
		if (l[i].rc != 0 && rc == 0) {
			fprintf(stderr, "dsm_tpcc node %d: %s\n", nd->a.o.node,
				l[i].err);
			rc = l[i].rc;
		}
	}
	if (rc == 0)
		printf("dsm_tpcc node %d: loaded %u warehouse(s) in %.2f s\n",
		       nd->a.o.node, n, (app_now_ns() - t0) / 1e9);
	free(l);
	return rc;
}

static void
fill_scale(struct tpcc_scale *s, const struct app_opts *o,
	   const struct tpcc_opts *t, uint32_t block)
{
	memset(s, 0, sizeof(*s));
	s->nodes = o->nodes;
	s->threads = o->threads;
	s->items = t->items;
	s->customers = t->customers;
	s->max_orders = t->max_orders;
	s->history = t->max_orders;
	s->block = block;
	s->placement = t->placement;
}

static int
setup(struct tpcc_node *nd, dsm_addr_t *dir)
{
	struct tpcc_scale *s = &nd->x.s;
	char err[256];

	fill_scale(s, &nd->a.o, &nd->t, nd->a.block);
	if (tpcc_scale_check(s, err, sizeof(err)) != 0) {
		fprintf(stderr, "dsm_tpcc: %s\n", err);
		return 2;
	}
	if (nd->a.o.mem_mb < tpcc_mem_mb(s)) {
		fprintf(stderr,
			"dsm_tpcc: --mem-mb %u is too small for this scale: "
			"%u needed (or leave --mem-mb out)\n",
			nd->a.o.mem_mb, tpcc_mem_mb(s));
		return 2;
	}
	*dir = dsm_static_addr(0, app_static_base(&nd->a));
	if (app_static_base(&nd->a) + tpcc_dir_bytes(s) > (32ull << 20)) {
		fprintf(stderr, "dsm_tpcc: too many warehouses for the "
				"directory in node 0's static region\n");
		return 2;
	}
	nd->x.node = (uint16_t)nd->a.o.node;
	tpcc_consts_init(&nd->x.c, nd->a.o.seed);
	nd->x.wh = calloc(tpcc_warehouses(s), sizeof(*nd->x.wh));
	nd->x.items = calloc(s->nodes, sizeof(*nd->x.items));
	nd->tx = calloc(s->threads, sizeof(*nd->tx));
	nd->st = calloc(s->threads, sizeof(*nd->st));
	if (!nd->x.wh || !nd->x.items || !nd->tx || !nd->st)
		return 1;
	for (uint16_t i = 0; i < s->threads; i++) {
		nd->tx[i] = malloc(sizeof(*nd->tx[i]));
		if (nd->tx[i] == NULL)
			return 1;
		tpcc_txn_init(nd->tx[i], &nd->x, dsm_thread(nd->a.d, i),
			      nd->x.node, i);
	}
	return 0;
}

/* This node's warehouses, each against its own thread's totals. */
static int
check(struct tpcc_node *nd)
{
	struct dsm_thread *t = dsm_thread(nd->a.d, 0);
	uint32_t first = (uint32_t)nd->a.o.node * nd->a.o.threads;
	char msg[512];
	int bad = 0;

	for (uint16_t i = 0; i < nd->a.o.threads; i++) {
		struct tpcc_owner own = {
			.new_orders = nd->st[i].done[TPCC_TX_NEW_ORDER],
			.paid = nd->st[i].paid,
		};
		int rc = tpcc_verify_warehouse(t, &nd->x, first + i, &own, msg,
					       sizeof(msg));

		if (rc != 0) {
			fprintf(stderr, "dsm_tpcc node %d: CONSISTENCY: %s\n",
				nd->a.o.node, msg);
			bad = 1;
		}
	}
	if (!bad)
		printf("dsm_tpcc node %d: consistency conditions 1-7, free "
		       "locks and the threads' totals hold for warehouses "
		       "%u..%u\n",
		       nd->a.o.node, first + 1, first + nd->a.o.threads);
	return bad;
}

static int
report(struct tpcc_node *nd)
{
	struct tpcc_tstat sum = { 0 };
	double secs = (nd->a.t_end_ns - nd->a.t_start_ns) / 1e9;
	uint64_t committed = 0, aborted = 0;
	char cols[512], vals[512], ratio[32];

	for (uint16_t i = 0; i < nd->a.o.threads; i++) {
		for (int k = 0; k < TPCC_TX_N; k++)
			sum.done[k] += nd->st[i].done[k];
		sum.rollbacks += nd->st[i].rollbacks;
		sum.delivered += nd->st[i].delivered;
		sum.locks += nd->st[i].locks;
		sum.conflicts += nd->st[i].conflicts;
		committed += atomic_load(&nd->a.cnt[i].ops);
		aborted += atomic_load(&nd->a.cnt[i].aborts);
	}
	if (nd->t.dist_ratio < 0)
		snprintf(ratio, sizeof(ratio), "spec");
	else
		snprintf(ratio, sizeof(ratio), "%g", nd->t.dist_ratio);
	snprintf(cols, sizeof(cols),
		 "dist_ratio,warehouses,new_orders,payments,order_status,"
		 "deliveries,stock_levels,rollbacks,committed,aborted,"
		 "tpmc,locks,lock_conflicts,placement,items,"
		 "customers_per_district");
	snprintf(vals, sizeof(vals),
		 "%s,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		 ",%.1f,%" PRIu64 ",%" PRIu64 ",%s,%u,%u",
		 ratio, tpcc_warehouses(&nd->x.s), sum.done[TPCC_TX_NEW_ORDER],
		 sum.done[TPCC_TX_PAYMENT], sum.done[TPCC_TX_ORDER_STATUS],
		 sum.done[TPCC_TX_DELIVERY], sum.done[TPCC_TX_STOCK_LEVEL],
		 sum.rollbacks, committed, aborted,
		 secs > 0 ? (sum.done[TPCC_TX_NEW_ORDER] + sum.rollbacks) *
				    60.0 / secs
			  : 0,
		 sum.locks, sum.conflicts,
		 nd->x.s.placement == TPCC_PLACE_LOCAL ? "local" : "stripe",
		 nd->x.s.items, nd->x.s.customers);
	printf("dsm_tpcc node %d: %" PRIu64 " New-Order (%" PRIu64
	       " rolled back), %" PRIu64 " Payment, %" PRIu64
	       " Order-Status, %" PRIu64 " Delivery (%" PRIu64
	       " orders), %" PRIu64 " Stock-Level; %" PRIu64
	       " lock words taken, %" PRIu64 " found taken\n",
	       nd->a.o.node, sum.done[TPCC_TX_NEW_ORDER], sum.rollbacks,
	       sum.done[TPCC_TX_PAYMENT], sum.done[TPCC_TX_ORDER_STATUS],
	       sum.done[TPCC_TX_DELIVERY], sum.delivered,
	       sum.done[TPCC_TX_STOCK_LEVEL], sum.locks, sum.conflicts);
	return app_report(&nd->a, "tpcc", "tpcc", cols, vals) != 0;
}

static void
node_free(struct tpcc_node *nd)
{
	if (nd->tx != NULL)
		for (uint16_t i = 0; i < nd->a.o.threads; i++)
			free(nd->tx[i]);
	free(nd->tx);
	free(nd->st);
	free(nd->x.wh);
	free(nd->x.items);
}

int
tpcc_main(const struct app_opts *o, const struct tpcc_opts *t)
{
	/* On the heap, not static: na-sim runs every node's tpcc_main in one
	 * process (docs/SIMULATION.md "Applications and the cost model"). */
	struct tpcc_node *nd = calloc(1, sizeof(*nd));
	struct app_opts oo = *o;
	struct dsm_thread *t0;
	dsm_addr_t dir = 0;
	char err[256];
	int rc, status = 0;

	if (nd == NULL)
		return 1;
	nd->t = *t;
	if (oo.mem_mb == 0) {
		/* Enough for the scale (the block size is the usual 4096 until
		 * the topology is read); zeroed lazily, so not a cost. */
		struct tpcc_scale s;

		fill_scale(&s, o, t, 4096);
		oo.mem_mb = tpcc_mem_mb(&s);
	}
	rc = app_open(&nd->a, &oo);
	if (rc != 0) {
		app_close(&nd->a);
		free(nd);
		return 1;
	}
	t0 = dsm_thread(nd->a.d, 0);
	status = setup(nd, &dir);
	if (status == 0 && load(nd, dir) != 0)
		status = 1;
	if (status == 0 && app_barrier(&nd->a, t0) != 0)
		status = 1;
	if (status == 0 &&
	    tpcc_dir_read(t0, &nd->x, dir, err, sizeof(err)) != 0) {
		fprintf(stderr, "dsm_tpcc node %d: %s\n", o->node, err);
		status = 1;
	}
	if (status == 0 && app_run_threads(&nd->a, tpcc_worker, nd) != 0)
		status = 1;
	/* Everyone's transactions are over before anyone checks. */
	if (status == 0 && app_barrier(&nd->a, t0) != 0)
		status = 1;
	/* After a failure the peers may never come: no more barriers. */
	if (status == 0) {
		status = check(nd);
		if (app_leave(&nd->a, t0) != 0)
			status = 1;
		if (report(nd) != 0)
			status = 1;
	}
	app_close(&nd->a);
	node_free(nd);
	free(nd);
	return status;
}
