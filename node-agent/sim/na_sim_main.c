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
 * failure, reported with the nodes' statistics (exit 3). Then every node
 * reads back the words the workload writes (the checker compares them with
 * the history's last writes) and the cluster must become quiescent
 * (na_sim_quiesce.h; exit 4 when it does not).
 *
 * Over 500 lines: the run's phases (open, faults, workloads, final reads,
 * checks, summary) share the nodes' table and the scheduler's callbacks;
 * options are in na_sim_opts.c, the network in na_sim_net.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "na_history.h"
#include "na_recovery.h"
#include "na_requester.h"
#include "na_sim_crash.h"
#include "na_sim_app_run.h"
#include "na_sim_net.h"
#include "na_sim_opts.h"
#include "na_sim_quiesce.h"
#include "na_sim_sched.h"
#include "na_sim_stats.h"
#include "na_transport_sim.h"
#include "na_workload.h"

#define MAX_NODES NA_SIM_MAX_NODES

struct sim_node {
	struct dsm *d;
	struct na_history h;
	struct na_wl_result res;
	int rc;
	uint32_t migrated;
	bool returned;     /* its workload returned */
	bool closed;       /* its final reads ended, its history closed */
	volatile int stop; /* its workload's stop flag */
};

static struct {
	struct na_sim_opts o;
	struct topo topo;
	struct na_sim_net *net;
	struct na_wl_config wl, wl_ro; /* wl_ro: the crashing node's */
	struct na_sim_crash crash;
	/* by topology index; --restart-node's new incarnation last (the old
	 * one keeps its slot: its threads give up in their own time) */
	struct sim_node node[MAX_NODES + 1];
	uint32_t n_nodes;
	volatile int wl_stop;  /* the workloads' stop flag */
	volatile int all_done; /* every workload returned */
	volatile int closing;  /* timers stop rescheduling */
	volatile int finals_done;
	uint32_t running, finals;
	uint32_t sb_claimed; /* CLAIMED SCOREBOARD entries left at the end */
} sim;

static volatile sig_atomic_t interrupted;

/* The first SIGINT/SIGTERM stops the workloads and lets the run drain
 * (histories and summary written); a second one ends the process at once,
 * for a run whose drain does not end (a livelock at one virtual instant
 * never reaches --stuck-s). */
static void
on_signal(int sig)
{
	if (interrupted) {
		signal(sig, SIG_DFL);
		raise(sig);
	}
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

/* The node crashed (--crash-node): no timers, final reads nor checks. */
static bool
crashed(const struct sim_node *sn)
{
	return sim.crash.crashed && sn == &sim.node[sim.crash.idx];
}

/* Every node's timers, once a virtual ms (its dispatch thread's job). */
static void
node_tick(void *ctx, void *arg)
{
	struct sim_node *sn = ctx;

	(void)arg;
	if (sim.closing || crashed(sn))
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
	sn->rc = na_workload_run(sn->d,
				 (int)(sn - sim.node) == sim.o.crash_node
					 ? &sim.wl_ro
					 : &sim.wl,
				 &sn->h, &sn->stop, &sn->res);
	sn->returned = true;
	if (--sim.running == 0)
		sim.all_done = 1;
	return NULL;
}

/* Every workload returned: read back the final values, close the history. */
static void *
final_main(void *arg)
{
	struct sim_node *sn = arg;
	int rc = na_workload_final_reads(sn->d, &sim.wl, &sn->h, 0);

	if (rc < 0) {
		fprintf(stderr, "na-sim: node %u: final reads: %s\n",
			sn->d->node.self, strerror(-rc));
		sn->res.errors++;
	}
	na_history_close(&sn->h, sn->res.ops);
	sn->closed = true;
	if (--sim.finals == 0)
		sim.finals_done = 1;
	return NULL;
}

/*
 * The final reads: false when a node's read is stuck (it completes none
 * within --stuck-s virtual s, the virtual clock running on). The bound is
 * per read, not for the walk: the walk reads every shared block in turn, a
 * few round trips each, so 1,024 blocks at a 2.5 ms mean hop (--delay-us
 * 1000 --jitter-us 3000) took 29-32 virtual s with no lock held for more
 * than 0.14 s, and a bound on the whole walk called that stuck.
 */
static bool
run_finals(void)
{
	uint64_t lim = (uint64_t)(sim.o.stuck_s * 1e9);
	uint64_t reads[MAX_NODES + 1], since[MAX_NODES + 1];
	bool walking[MAX_NODES + 1] = { false };
	na_thread_t t;

	for (uint32_t i = 0; i < sim.n_nodes; i++) {
		reads[i] = sim.node[i].d->node.st.req.reads;
		since[i] = na_now_ns();
		walking[i] = !crashed(&sim.node[i]) &&
			     na_sim_spawn(&t, final_main, &sim.node[i]) == 0;
		sim.finals += walking[i];
	}
	while (sim.finals && !sim.finals_done) {
		if (!na_sim_run(20000, &sim.finals_done))
			return false;
		for (uint32_t i = 0; i < sim.n_nodes; i++) {
			uint64_t r = sim.node[i].d->node.st.req.reads;

			if (!walking[i] || sim.node[i].closed)
				continue;
			if (r != reads[i]) {
				reads[i] = r;
				since[i] = na_now_ns();
			} else if (na_now_ns() - since[i] > lim) {
				return false;
			}
		}
	}
	return true;
}

/* Quiescence within --stuck-s: the number of violations (printed). */
static uint32_t
finish_checks(void)
{
	struct dsm *d[MAX_NODES];

	for (uint32_t i = 0; i < sim.n_nodes; i++)
		d[i] = crashed(&sim.node[i]) ? NULL : sim.node[i].d;
	return na_sim_quiesce_wait(na_sim_net_pipeline(sim.net), d, sim.n_nodes,
				   (uint64_t)(sim.o.stuck_s * 1e9), stderr,
				   &sim.sb_claimed);
}

static void *
close_all(void *arg)
{
	(void)arg;
	for (uint32_t i = 0; i < sim.n_nodes; i++)
		dsm_close(sim.node[i].d);
	return NULL;
}

/* Open node `id` in `sn` (`inc`: its incarnation, 0 first), its history
 * node-ID.jsonl (a later incarnation's node-ID.rINC.jsonl). */
static int
open_node(struct sim_node *sn, uint16_t id, unsigned int inc)
{
	char err[256], path[4096];
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
	int rc = na_dsm_open(&dc, &sim.topo, &na_transport_sim, true, &sn->d,
			     err, sizeof(err));

	if (rc < 0) {
		fprintf(stderr, "na-sim: node %u: %s\n", id, err);
		return rc;
	}
	if (sim.o.history && inc)
		snprintf(path, sizeof(path), "%s/node-%u.r%u.jsonl",
			 sim.o.history, id, inc);
	else if (sim.o.history)
		snprintf(path, sizeof(path), "%s/node-%u.jsonl", sim.o.history,
			 id);
	rc = na_history_open(&sn->h, sim.o.history ? path : NULL, id);
	if (rc < 0)
		fprintf(stderr, "na-sim: --history %s: %s\n", path,
			strerror(-rc));
	return rc;
}

static int
open_nodes(void)
{
	for (uint32_t i = 0; i < sim.topo.n_nodes; i++) {
		struct sim_node *sn = &sim.node[i];
		uint16_t id = sim.topo.nodes[i].id;
		int rc = open_node(sn, id, 0);

		if (rc < 0)
			return rc;
		sim.n_nodes++;
		na_sim_net_attach(sim.net, id, &sn->d->node);
		na_sim_at(1000000ull, node_tick, sn, NULL);
	}
	return 0;
}

static struct dsm *crash_d[MAX_NODES]; /* the crash's view, by index */

/*
 * --restart-node: the crashed node's new incarnation (fresh state, seqs
 * from 1, the full workload) joins in a slot of its own; the old one is
 * muted (a SIGKILLed process sends nothing) and the survivors re-admit the
 * node.
 */
static void
restart_node(struct na_sim_crash *c)
{
	struct sim_node *old = &sim.node[c->idx], *sn = &sim.node[sim.n_nodes];
	uint16_t id = old->d->node.self;
	na_thread_t t;

	if (sim.wl_stop)
		return;              /* too late: the run is stopping */
	old->d->node.tp.priv = NULL; /* its sends fail (na_transport_sim) */
	if (open_node(sn, id, 1) < 0)
		return; /* said why; it stays crashed */
	sim.n_nodes++;
	na_sim_net_rejoin(sim.net, id, &sn->d->node);
	for (uint32_t i = 0; i < c->n; i++)
		if (i != c->idx)
			dsm_node_rejoined(c->d[i], id);
	c->restarted = true;
	if (na_sim_spawn(&t, node_main, sn) == 0)
		sim.running++;
	na_sim_at(na_now_ns() + 1000000ull, node_tick, sn, NULL);
}

/* Recovery (docs/FAULTS.md) summed over the nodes: "recovery":{...}. */
static void
rec_summary(FILE *f)
{
	struct na_rec *r[MAX_NODES];

	for (uint32_t i = 0; i < sim.n_nodes; i++)
		r[i] = sim.node[i].d->node.rec;
	na_rec_stats_sum_json(r, sim.n_nodes, f);
}

static void
print_summary(FILE *f, double wall_s, bool stuck)
{
	const struct na_sim_net_stats *ns = na_sim_net_stats(sim.net);
	struct na_wl_result r = { 0 };
	struct dsm *d[MAX_NODES];
	uint32_t migrated = 0;

	for (uint32_t i = 0; i < sim.n_nodes; i++) {
		r.ops += sim.node[i].res.ops;
		r.reads += sim.node[i].res.reads;
		r.writes += sim.node[i].res.writes;
		r.incrs += sim.node[i].res.incrs;
		if (!crashed(&sim.node[i])) /* its threads gave up */
			r.errors += sim.node[i].res.errors;
		migrated += sim.node[i].migrated;
	}
	fprintf(f,
		"{\"seed\":%u,\"nodes\":%u,\"threads\":%u,\"stuck\":%s,"
		"\"events\":%" PRIu64 ",\"virtual_s\":%.6f,\"wall_s\":%.3f,"
		"\"ops\":%" PRIu64 ",\"ops_per_wall_min\":%.0f,"
		"\"reads\":%" PRIu64 ",\"writes\":%" PRIu64
		",\"incrs\":%" PRIu64 ",\"errors\":%" PRIu64
		",\"blocks_in_switch\":%u,\"sb_claimed_left\":%u,",
		sim.o.seed, sim.topo.n_nodes, sim.o.threads,
		stuck ? "true" : "false", na_sim_events(), na_now_ns() / 1e9,
		wall_s, r.ops, wall_s > 0 ? r.ops / wall_s * 60 : 0, r.reads,
		r.writes, r.incrs, r.errors, migrated, sim.sb_claimed);
	fprintf(f,
		"\"net\":{\"sent\":%" PRIu64 ",\"lost\":%" PRIu64
		",\"duplicated\":%" PRIu64 ",\"delivered\":%" PRIu64
		",\"rejected\":%" PRIu64 ",\"forwarded\":%" PRIu64
		",\"passes\":%" PRIu64 ",\"resubmits\":%" PRIu64
		",\"switch_drops\":%" PRIu64 ",\"switch_restarts\":%" PRIu64
		",\"switch_down_drops\":%" PRIu64 ",\"crash_drops\":%" PRIu64
		",\"held\":%" PRIu64 ",\"released\":%" PRIu64
		",\"stalls\":%" PRIu64 ",\"stall_queued\":%" PRIu64
		"},\"switch_actions\":{",
		ns->sent, ns->lost, ns->duplicated, ns->delivered, ns->rejected,
		ns->forwarded, ns->passes, ns->resubmits, ns->sw_drops,
		ns->restarts, ns->down_drops, ns->crash_drops, ns->held,
		ns->released, ns->stalls, ns->stall_queued);
	na_sim_net_actions_json(sim.net, f);
	for (uint32_t i = 0; i < sim.n_nodes; i++)
		d[i] = sim.node[i].d;
	fprintf(f, "},\"pipe\":{");
	na_sim_pipe_json(d, sim.n_nodes, f);
	fprintf(f, "},\"voh\":{");
	na_sim_voh_json(d, sim.n_nodes, f);
	fprintf(f, "},\"qlock\":{");
	na_sim_qlock_json(d, sim.n_nodes, sim.topo.sw.queued, f);
	fprintf(f, "},");
	rec_summary(f);
	if (sim.o.crash_node >= 0) {
		fprintf(f, ",");
		na_sim_crash_json(&sim.crash, f);
		/* the new incarnation's (--restart-node), last */
		fprintf(f, ",\"restart_ops\":%" PRIu64,
			sim.crash.restarted ? sim.node[sim.n_nodes - 1].res.ops
					    : 0);
	}
	fprintf(f, "}\n");
}

static double
wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Run until the workloads return; false when they are stuck. */
/* --hold-for Nev: release the held copy N events after it was taken. */
static void
hold_step(void)
{
	static uint64_t taken_at;

	if (!sim.o.hold_ev || !na_sim_net_stats(sim.net)->held)
		return;
	if (!taken_at)
		taken_at = na_sim_events();
	else if (na_sim_events() >= taken_at + sim.o.hold_ev)
		na_sim_net_release(sim.net);
}

/* Events to run before the next fault given as an event count (steps of
 * 100 while a copy may be held for a number of events). */
static uint64_t
fault_chunk(uint64_t chunk)
{
	if (sim.o.hold_ev)
		chunk = 100;
	uint64_t at[2] = { sim.o.sw_restart_ev, sim.o.crash_ev };

	for (int i = 0; i < 2; i++)
		if (at[i] > na_sim_events() && at[i] - na_sim_events() < chunk)
			chunk = at[i] - na_sim_events();
	return chunk;
}

static void
crash_at(void *ctx, void *arg)
{
	(void)ctx;
	(void)arg;
	na_sim_crash_now(&sim.crash);
}

/* The crash's parameters, and its trigger when given as a time. */
static void
crash_setup(void)
{
	if (sim.o.crash_node < 0)
		return;
	for (uint32_t i = 0; i < sim.n_nodes; i++)
		crash_d[i] = sim.node[i].d;
	sim.crash = (struct na_sim_crash){
		.net = sim.net,
		.d = crash_d,
		.n = sim.n_nodes,
		.idx = (uint32_t)sim.o.crash_node,
		.detect_ns = (uint64_t)(sim.o.detect_ms * 1e6),
		.stop = &sim.node[sim.o.crash_node].stop,
		.closing = &sim.closing,
		.h = &sim.node[sim.o.crash_node].h,
		.restart = sim.o.restart ? restart_node : NULL,
	};
	if (sim.o.crash_at)
		na_sim_at((uint64_t)(sim.o.crash_at * 1e9), crash_at, NULL,
			  NULL);
}

static bool
run_workloads(double wall0)
{
	uint64_t stop_at = 0, next_report = 0;

	while (!sim.all_done) {
		uint64_t chunk = fault_chunk(20000), n;

		n = na_sim_run(chunk, &sim.all_done);
		if (sim.o.sw_restart_ev &&
		    na_sim_events() == sim.o.sw_restart_ev)
			na_sim_net_restart_at(sim.net, na_now_ns(),
					      (uint64_t)(sim.o.sw_down_ms *
							 1e6));
		if (sim.o.crash_ev && na_sim_events() == sim.o.crash_ev)
			na_sim_crash_now(&sim.crash);
		hold_step();
		if (!sim.wl_stop &&
		    (na_sim_events() >= sim.o.events || interrupted)) {
			sim.wl_stop = 1;
			for (uint32_t i = 0; i < sim.n_nodes; i++)
				sim.node[i].stop = 1;
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
	uint32_t unquiet;
	bool ok, finals;
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
	sim.wl_ro = sim.wl = (struct na_wl_config){
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
	sim.wl_ro.read_only = true;
	if (make_topo(&sim.o, &sim.topo) < 0)
		return 2;
	if (sim.o.history && mkdir(sim.o.history, 0755) != 0 &&
	    errno != EEXIST) {
		fprintf(stderr, "na-sim: --history %s: %s\n", sim.o.history,
			strerror(errno));
		return 2;
	}
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
	crash_setup();
	if (sim.o.hold_type >= 0)
		na_sim_net_hold(sim.net, (uint8_t)sim.o.hold_type,
				sim.o.hold_nth,
				sim.o.hold_ev ? 0
					      : (uint64_t)(sim.o.hold_s * 1e9));
	if (sim.o.sw_restart_at)
		na_sim_net_restart_at(sim.net,
				      (uint64_t)(sim.o.sw_restart_at * 1e9),
				      (uint64_t)(sim.o.sw_down_ms * 1e6));
	if (sim.o.stall_for)
		na_sim_net_stall(sim.net,
				 (uint64_t)((sim.o.stall_at
						     ? sim.o.stall_at
						     : sim.o.stall_every) *
					    1e9),
				 (uint64_t)(sim.o.stall_every * 1e9),
				 (uint64_t)(sim.o.stall_for * 1e9));
	for (uint32_t i = 0; i < sim.n_nodes; i++)
		if (na_sim_spawn(&t, node_main, &sim.node[i]) == 0)
			sim.running++;
	ok = run_workloads(wall0);
	finals = ok && run_finals();
	unquiet = finals ? finish_checks() : 0;
	print_summary(stdout, wall_now() - wall0, !finals);
	if (!finals) {
		for (uint32_t i = 0; i < sim.n_nodes; i++)
			if (sim.node[i].returned && !sim.node[i].closed &&
			    !crashed(&sim.node[i]))
				na_history_close(&sim.node[i].h,
						 sim.node[i].res.ops);
		if (!ok)
			fprintf(stderr,
				"na-sim: seed %u: %u of %u workloads did not "
				"finish within %g virtual s of the stop (a "
				"liveness failure)\n",
				sim.o.seed, sim.running, sim.n_nodes,
				sim.o.stuck_s);
		else
			fprintf(stderr,
				"na-sim: seed %u: a final read (%u nodes "
				"reading) did not complete within %g virtual s "
				"(a liveness failure)\n",
				sim.o.seed, sim.finals, sim.o.stuck_s);
		for (uint32_t i = 0; i < sim.n_nodes; i++) {
			if (getenv("QDBG"))
				fprintf(stderr,
					"node %u (slot %u): returned %d\n",
					sim.node[i].d->node.self, i,
					(int)sim.node[i].returned);
			fprintf(stderr, "node %u: {", sim.node[i].d->node.self);
			na_node_stats_json(&sim.node[i].d->node, stderr);
			fprintf(stderr, "}\n");
			na_sim_qlock_dump(&sim.node[i].d->node);
		}
		return 3; /* threads are mid-operation: no orderly close */
	}
	/* Close in order: no frame reaches a node once it is detached. */
	sim.closing = 1;
	for (uint32_t i = 0; i < sim.n_nodes; i++)
		na_sim_net_attach(sim.net, sim.node[i].d->node.self, NULL);
	if (na_sim_spawn(&t, close_all, NULL) == 0)
		na_sim_run(0, NULL);
	na_sim_net_free(sim.net);
	na_sim_fini();
	for (uint32_t i = 0; i < sim.n_nodes; i++)
		if (!crashed(&sim.node[i]) &&
		    (sim.node[i].rc < 0 || sim.node[i].res.errors))
			return 1;
	if (unquiet) {
		fprintf(stderr,
			"na-sim: seed %u: %u registers or requesters not "
			"quiescent %g virtual s after the workloads returned\n",
			sim.o.seed, unquiet, sim.o.stuck_s);
		return 4;
	}
	return 0;
}
