/* SPDX-License-Identifier: BSD-3-Clause
 *
 * na-sim: the deterministic in-process cluster (docs/SIMULATION.md). Every
 * node of a topology is a libdsm instance (requesters, cache, agents,
 * recovery: the same code as node-agent, built with NA_SIM) on the
 * simulated network and switch (na_sim_net.h), all on one OS thread with a
 * virtual clock (na_sim_sched.h). Each node runs a workload of node-agent
 * (counter by default) on its simulated threads and records its history
 * for node-agent/checker/check_history.py. A run is a function of its
 * options: the same seed gives the same histories, byte for byte.
 *
 * After --events events the workloads are told to stop; a workload that
 * has not finished within --stuck-s virtual seconds more is a liveness
 * failure, reported with the nodes' statistics (exit 3).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "na_history.h"
#include "na_requester.h"
#include "na_sim_app_run.h"
#include "na_sim_net.h"
#include "na_sim_opts.h"
#include "na_sim_sched.h"
#include "na_transport_sim.h"
#include "na_workload.h"

#define MAX_NODES NA_SIM_MAX_NODES

struct sim_node {
	struct dsm *d;
	struct na_history h;
	struct na_wl_result res;
	int rc;
	uint32_t migrated;
};

static struct {
	struct na_sim_opts o;
	struct topo topo;
	struct na_sim_net *net;
	struct na_wl_config wl;
	struct sim_node node[MAX_NODES];
	uint32_t n_nodes;
	volatile int wl_stop;  /* the workloads' stop flag */
	volatile int all_done; /* every workload returned */
	volatile int closing;  /* timers stop rescheduling */
	uint32_t running;
} sim;

static volatile sig_atomic_t interrupted;

static void
on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* The generated topology: nodes 0..n-1 on ports 0..n-1, the last the
 * shadow; a tiny switch (2 ways of 8 slots), so tags collide. */
static int
make_topo(const struct na_sim_opts *o, struct topo *t)
{
	char json[4096], err[TOPO_ERR_LEN];
	int len, rc;

	if (o->topo) {
		rc = topo_load(o->topo, t, err);
		if (rc < 0)
			fprintf(stderr, "na-sim: topology %s: %s\n", o->topo,
				err);
		return rc;
	}
	len = snprintf(json, sizeof(json),
		       "{\"lcf_port\":7340,\"block_size\":%u,"
		       "\"threads_per_node\":%u,"
		       "\"switch\":{\"mac\":\"02:00:00:00:00:fe\","
		       "\"ip\":\"10.0.0.254\",\"profile\":\"tiny\","
		       "\"ways\":2,\"slots_per_way\":8,\"lock_mode\":\"%s\"},"
		       "\"nodes\":[",
		       o->block_size,
		       o->threads < 2 ? 2u : (unsigned int)o->threads,
		       o->queued ? "queued" : "retry");
	for (uint16_t i = 0; i < o->nodes; i++)
		len += snprintf(json + len, sizeof(json) - (size_t)len,
				"%s{\"id\":%u,\"mac\":\"02:00:00:00:00:%02x\","
				"\"ip\":\"10.0.0.%u\",\"port\":%u}",
				i ? "," : "", (unsigned int)i, i + 1u, i + 1u,
				(unsigned int)i);
	snprintf(json + len, sizeof(json) - (size_t)len, "],\"shadow\":%u}",
		 o->nodes - 1u);
	rc = topo_load_string(json, t, err);
	if (rc < 0)
		fprintf(stderr, "na-sim: generated topology: %s\n", err);
	return rc;
}

/* Every node's timers, once a virtual ms (its dispatch thread's job). */
static void
node_tick(void *ctx, void *arg)
{
	struct sim_node *sn = ctx;

	(void)arg;
	if (sim.closing)
		return;
	na_node_timers(&sn->d->node);
	na_sim_at(na_now_ns() + 1000000ull, node_tick, sn, NULL);
}

static void *
node_main(void *arg)
{
	struct sim_node *sn = arg;

	if (sim.o.switch_blocks && !sim.o.directory)
		sn->migrated = na_node_migrate_static(&sn->d->node,
						      sim.o.switch_blocks);
	sn->rc = na_workload_run(sn->d, &sim.wl, &sn->h, &sim.wl_stop,
				 &sn->res);
	na_history_close(&sn->h, sn->res.ops);
	if (--sim.running == 0)
		sim.all_done = 1;
	return NULL;
}

static void *
close_all(void *arg)
{
	(void)arg;
	for (uint32_t i = 0; i < sim.n_nodes; i++)
		dsm_close(sim.node[i].d);
	return NULL;
}

static int
open_nodes(void)
{
	char err[256], path[4096];

	for (uint32_t i = 0; i < sim.topo.n_nodes; i++) {
		struct sim_node *sn = &sim.node[i];
		uint16_t id = sim.topo.nodes[i].id;
		struct dsm_config dc = {
			.node = id,
			.threads = sim.o.threads,
			.cache_blocks = sim.o.cache_blocks,
			.mem_mb = 64, /* the static chunk and one to allocate */
			.directory = sim.o.directory,
			.seed = sim.o.seed,
			.migrate = sim.o.migrate,
			.pipe_depth = (uint8_t)sim.o.pipe_depth,
		};
		int rc = na_dsm_open(&dc, &sim.topo, &na_transport_sim, true,
				     &sn->d, err, sizeof(err));

		if (rc < 0) {
			fprintf(stderr, "na-sim: node %u: %s\n", id, err);
			return rc;
		}
		sim.n_nodes++;
		na_sim_net_attach(sim.net, id, &sn->d->node);
		if (sim.o.history)
			snprintf(path, sizeof(path), "%s/node-%u.jsonl",
				 sim.o.history, id);
		rc = na_history_open(&sn->h, sim.o.history ? path : NULL, id);
		if (rc < 0) {
			fprintf(stderr, "na-sim: --history %s: %s\n", path,
				strerror(-rc));
			return rc;
		}
		na_sim_at(1000000ull, node_tick, sn, NULL);
	}
	return 0;
}

/* PIPE write-backs of every node (docs/PIPE.md). */
static void
pipe_summary(FILE *f)
{
	uint64_t v[5] = { 0 };

	for (uint32_t i = 0; i < sim.n_nodes; i++) {
		const struct na_node *n = &sim.node[i].d->node;

		v[0] += n->st.req.writebacks;
		v[1] += n->st.req.diff_writebacks;
		v[2] += n->st.req.diffs_empty;
		v[3] += n->home.st.diffs_applied;
		v[4] += n->home.st.diff_frames;
	}
	fprintf(f,
		"\"writebacks\":%" PRIu64 ",\"diff_writebacks\":%" PRIu64
		",\"diffs_empty\":%" PRIu64 ",\"diffs_applied\":%" PRIu64
		",\"diff_frames\":%" PRIu64,
		v[0], v[1], v[2], v[3], v[4]);
}

/* Validate-on-hit counters of every node, summed (docs/VALIDATE.md). */
static void
voh_summary(FILE *f)
{
	struct dsm_voh_stats s, t = { 0 };

	for (uint32_t i = 0; i < sim.n_nodes; i++) {
		dsm_voh_stats(sim.node[i].d, &s);
		t.checks += s.checks;
		t.validated_hits += s.validated_hits;
		t.changed += s.changed;
		t.fetches += s.fetches;
		t.updates += s.updates;
		t.fallbacks += s.fallbacks;
		t.sw_checks += s.sw_checks;
		t.sw_hits += s.sw_hits;
		t.sw_fetches += s.sw_fetches;
		t.sw_uncached += s.sw_uncached;
		t.sw_writes += s.sw_writes;
	}
	fprintf(f,
		"\"checks\":%" PRIu64 ",\"validated_hits\":%" PRIu64
		",\"changed\":%" PRIu64 ",\"fetches\":%" PRIu64
		",\"updates\":%" PRIu64 ",\"fallbacks\":%" PRIu64
		",\"sw_checks\":%" PRIu64 ",\"sw_hits\":%" PRIu64
		",\"sw_fetches\":%" PRIu64 ",\"sw_uncached\":%" PRIu64
		",\"sw_writes\":%" PRIu64,
		t.checks, t.validated_hits, t.changed, t.fetches, t.updates,
		t.fallbacks, t.sw_checks, t.sw_hits, t.sw_fetches,
		t.sw_uncached, t.sw_writes);
}

/* Queued locks (docs/QUEUED-LOCKS.md): the holders' and requesters'
 * counters summed over the nodes. */
static void
qlock_summary(FILE *f)
{
	struct na_qt_stats q = { 0 };
	struct na_req_stats r = { 0 };
	uint64_t hl = 0, hc = 0, hn = 0;

	for (uint32_t i = 0; i < sim.n_nodes; i++) {
		const struct na_node *n = &sim.node[i].d->node;

		hl += n->home.st.pipeline_nack_lock;
		hc += n->home.st.pipeline_nack_check;
		hn += n->home.st.pipeline_nack_not_home;

		if (n->qt) {
#define NA_X_ADD(name) q.name += n->qt->st.name;
			NA_QT_COUNTERS(NA_X_ADD)
#undef NA_X_ADD
		}
#define NA_X_ADD(name) r.name += n->st.req.name;
		NA_REQ_COUNTERS(NA_X_ADD)
#undef NA_X_ADD
	}
	fprintf(f, "\"mode\":\"%s\"", sim.topo.sw.queued ? "queued" : "retry");
#define NA_X_PRINT(name) fprintf(f, ",\"" #name "\":%" PRIu64, q.name);
	NA_QT_COUNTERS(NA_X_PRINT)
#undef NA_X_PRINT
	fprintf(f,
		",\"requester_nacks\":%" PRIu64 ",\"requester_events\":%" PRIu64
		",\"req_queued\":%" PRIu64 ",\"req_q_nacks\":%" PRIu64
		",\"req_nack_ignored\":%" PRIu64 ",\"req_watchdog\":%" PRIu64
		",\"req_grants\":%" PRIu64 ",\"req_converted\":%" PRIu64
		",\"req_noop\":%" PRIu64 ",\"req_q_ends\":%" PRIu64,
		r.nacks, r.events, r.q_queued, r.q_nacks, r.q_nack_ignored,
		r.q_watchdog, r.q_grants, r.q_converted, r.q_noop, r.q_ends);
	fprintf(f,
		",\"req_q_waits\":%" PRIu64 ",\"req_q_polls\":%" PRIu64
		",\"req_q_sw_grants\":%" PRIu64 ",\"req_q_slot_waits\":%" PRIu64
		",\"req_aborts_sent\":%" PRIu64 ",\"req_aborts_done\":%" PRIu64
		",\"req_aborts_passed\":%" PRIu64
		",\"req_aborts_waiting\":%" PRIu64,
		r.q_waits, r.q_polls, r.q_sw_grants, r.q_slot_waits,
		r.aborts_sent, r.aborts_done, r.aborts_passed,
		r.aborts_waiting);
	fprintf(f,
		",\"home_nack_lock\":%" PRIu64 ",\"home_nack_check\":%" PRIu64
		",\"home_nack_not_home\":%" PRIu64,
		hl, hc, hn);
}

/* A stuck run: the queue holders not idle. */
static void
qlock_dump(const struct na_node *n)
{
	const struct dsm *d = (const struct dsm *)n; /* node is first */

	for (uint16_t k = 0; getenv("QDBG") && k < n->cfg.threads; k++) {
		const struct dsm_thread *t = &d->threads[k];

		fprintf(stderr,
			"  thread %u seq %u unl %d/%d seq %u stale %d seq %u "
			"qgrant %d seq %u\n",
			k, t->seq, t->unl.valid, t->unl.queued, t->unl.m.seq,
			t->stale.valid, t->stale.seq, t->qgrant_valid,
			t->qgrant.seq);
	}
	for (uint32_t i = 0; n->qt && i < NA_QT_SLOTS; i++) {
		const struct na_qslot *s = &n->qt->s[i];

		if (!s->used || s->h.st == NA_QH_IDLE)
			continue;
		fprintf(stderr,
			"  holder tag %#" PRIx64 " thread %u seq %u state %d "
			"count %u next %#x queue %u count_wait %d\n",
			s->tag, s->h.thread, s->h.seq, (int)s->h.st, s->h.count,
			s->h.next, s->h.q.n, (int)s->h.count_wait);
	}
}

static void
print_summary(FILE *f, double wall_s, bool stuck)
{
	const struct na_sim_net_stats *ns = na_sim_net_stats(sim.net);
	struct na_wl_result r = { 0 };
	uint32_t migrated = 0;

	for (uint32_t i = 0; i < sim.n_nodes; i++) {
		r.ops += sim.node[i].res.ops;
		r.reads += sim.node[i].res.reads;
		r.writes += sim.node[i].res.writes;
		r.incrs += sim.node[i].res.incrs;
		r.errors += sim.node[i].res.errors;
		migrated += sim.node[i].migrated;
	}
	fprintf(f,
		"{\"seed\":%u,\"nodes\":%u,\"threads\":%u,\"stuck\":%s,"
		"\"events\":%" PRIu64 ",\"virtual_s\":%.6f,\"wall_s\":%.3f,"
		"\"ops\":%" PRIu64 ",\"ops_per_wall_min\":%.0f,"
		"\"reads\":%" PRIu64 ",\"writes\":%" PRIu64
		",\"incrs\":%" PRIu64 ",\"errors\":%" PRIu64
		",\"blocks_in_switch\":%u,",
		sim.o.seed, sim.n_nodes, sim.o.threads,
		stuck ? "true" : "false", na_sim_events(), na_now_ns() / 1e9,
		wall_s, r.ops, wall_s > 0 ? r.ops / wall_s * 60 : 0, r.reads,
		r.writes, r.incrs, r.errors, migrated);
	fprintf(f,
		"\"net\":{\"sent\":%" PRIu64 ",\"lost\":%" PRIu64
		",\"duplicated\":%" PRIu64 ",\"delivered\":%" PRIu64
		",\"rejected\":%" PRIu64 ",\"forwarded\":%" PRIu64
		",\"passes\":%" PRIu64 ",\"resubmits\":%" PRIu64
		",\"switch_drops\":%" PRIu64 "},\"switch_actions\":{",
		ns->sent, ns->lost, ns->duplicated, ns->delivered, ns->rejected,
		ns->forwarded, ns->passes, ns->resubmits, ns->sw_drops);
	na_sim_net_actions_json(sim.net, f);
	fprintf(f, "},\"pipe\":{");
	pipe_summary(f);
	fprintf(f, "},\"voh\":{");
	voh_summary(f);
	fprintf(f, "},\"qlock\":{");
	qlock_summary(f);
	fprintf(f, "}}\n");
}

static double
wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Run until the workloads return; false when they are stuck. */
static bool
run_workloads(double wall0)
{
	uint64_t stop_at = 0, next_report = 0;

	while (!sim.all_done) {
		uint64_t n = na_sim_run(20000, &sim.all_done);

		if (!sim.wl_stop &&
		    (na_sim_events() >= sim.o.events || interrupted)) {
			sim.wl_stop = 1;
			stop_at = na_now_ns();
		}
		if (sim.wl_stop && !sim.all_done &&
		    (n == 0 ||
		     na_now_ns() - stop_at > (uint64_t)(sim.o.stuck_s * 1e9)))
			return false;
		if (!sim.o.quiet && na_sim_events() >= next_report) {
			uint64_t acc = 0;

			for (uint32_t i = 0; i < sim.n_nodes; i++) {
				const struct na_stats
					*st = &sim.node[i].d->node.st;

				acc += st->req.reads + st->req.writes;
			}
			fprintf(stderr,
				"na-sim: %" PRIu64 " events, %" PRIu64
				" accesses, %.3f virtual s, %.1f wall s\n",
				na_sim_events(), acc, na_now_ns() / 1e9,
				wall_now() - wall0);
			next_report = na_sim_events() + 500000;
		}
	}
	return true;
}

int
main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct na_sim_net_config nc;
	na_thread_t t;
	double wall0 = wall_now();
	bool ok;
	int rc;

	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--app"))
			return na_sim_app_main(argc, argv);
	rc = na_sim_parse(argc, argv, &sim.o);
	if (rc)
		return rc < 0 ? 2 : 0;
	rc = na_workload_parse(sim.o.workload);
	if (rc != NA_WL_COUNTER && rc != NA_WL_MICRO && rc != NA_WL_POLL &&
	    rc != NA_WL_RWLOCK) {
		fprintf(stderr,
			"na-sim: --workload %s: counter, micro, poll or rwlock\n",
			sim.o.workload);
		return 2;
	}
	sim.wl = (struct na_wl_config){
		.kind = (enum na_wl_kind)rc,
		.threads = sim.o.threads,
		.duration_s = sim.o.duration,
		.read_ratio = sim.o.read_ratio,
		.sharing_ratio = 0.8,
		.shared_blocks = sim.o.blocks,
		.private_blocks = 4,
		.op_size = 8,
		.seed = sim.o.seed,
		.max_rate = sim.o.max_rate,
		.policy = sim.o.policy,
		.ttl_us = (uint32_t)sim.o.ttl_us,
		.update_period_s = sim.o.update_s,
		.updater_node = sim.o.all_updaters ? NA_WL_ALL_NODES : 0,
	};
	if (make_topo(&sim.o, &sim.topo) < 0)
		return 2;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	na_sim_init();
	nc = (struct na_sim_net_config){
		.topo = &sim.topo,
		.seed = sim.o.seed,
		.loss = sim.o.loss,
		.dup = sim.o.dup,
		.delay_ns = sim.o.delay_ns,
		.jitter_ns = sim.o.jitter_ns,
	};
	rc = na_sim_net_create(&nc, &sim.net);
	if (rc < 0) {
		fprintf(stderr, "na-sim: network: %s\n", strerror(-rc));
		return 1;
	}
	na_transport_sim_bind(sim.net);
	if (open_nodes() < 0)
		return 1;
	for (uint32_t i = 0; i < sim.n_nodes; i++)
		if (na_sim_spawn(&t, node_main, &sim.node[i]) == 0)
			sim.running++;
	ok = run_workloads(wall0);
	print_summary(stdout, wall_now() - wall0, !ok);
	if (!ok) {
		fprintf(stderr,
			"na-sim: seed %u: %u of %u workloads did not finish "
			"within %g virtual s of the stop (a liveness failure)\n",
			sim.o.seed, sim.running, sim.n_nodes, sim.o.stuck_s);
		for (uint32_t i = 0; i < sim.n_nodes; i++) {
			fprintf(stderr, "node %u: {", sim.topo.nodes[i].id);
			na_node_stats_json(&sim.node[i].d->node, stderr);
			fprintf(stderr, "}\n");
			qlock_dump(&sim.node[i].d->node);
		}
		return 3; /* threads are mid-operation: no orderly close */
	}
	/* Close in order: no frame reaches a node once it is detached. */
	sim.closing = 1;
	for (uint32_t i = 0; i < sim.n_nodes; i++)
		na_sim_net_attach(sim.net, sim.topo.nodes[i].id, NULL);
	if (na_sim_spawn(&t, close_all, NULL) == 0)
		na_sim_run(0, NULL);
	na_sim_net_free(sim.net);
	na_sim_fini();
	for (uint32_t i = 0; i < sim.n_nodes; i++)
		if (sim.node[i].rc < 0 || sim.node[i].res.errors)
			return 1;
	return 0;
}
