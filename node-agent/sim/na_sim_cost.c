/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The cost model's profiles and resources; see na_sim_cost.h. Every
 * figure of a profile comes from a measurement or a publication, listed in
 * docs/SIMULATION.md "Cost model" (the `local` figures are measured by
 * scripts/sim_measure_local.py).
 */
#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lcf_wire.h"
#include "na_sim_cost.h"

#define MAX_NODES LCF_MAX_NODES
#define MAX_CPUS  64

static const struct na_sim_cost_profile profiles[] = {
	/* This machine (2 vCPUs: swswitch's busy-polling lcore on one, every
	 * node on the other, cluster.sh --pin; UDP over veths into an
	 * af_packet swswitch), measured by bench-apps.sh --validate-local
	 * (scripts/sim_measure_local.py, before and after the cluster's runs,
	 * load average 0-3): the median ping RTT through swswitch / 4; a
	 * node's CPU per UDP frame through swswitch, a send, a receive and a
	 * wake-up; the callgrind instructions per received frame and per DSM
	 * call at the instructions per ns measured then. swswitch's time is
	 * in the hop. */
	{
		.name = "local",
		.hop_ns = 12500,
		.link_gbps = 0, /* a veth: the copies are in tx_ns, rx_ns */
		.wire_overhead = 66,
		.sw_pass_ns = 0,
		.sw_service_ns = 0,
		.tx_ns = 6508,
		.rx_ns = 11592,
		.wake_ns = 2030,
		.agent_threads = 1, /* libdsm's dispatch thread */
		.op_ns = 1412,
		.cpus = 1,
		.instr_per_ns = 0.694,
		/* swswitch as the clusters run it: topo/demo*.json's
		 * "tofino" defaults (2 ways of 2^15 slots) */
		.sw_ways = 0,
		.sw_slots = 0,
	},
	/* Concordia's testbed (paper 000 section 7): 100 Gbps ConnectX-5
	 * RoCE, one Tofino pipeline, two agent threads per node, 24 cores per
	 * node for 4 application threads (no shared processor). */
	{
		.name = "paper",
		.hop_ns = 500,
		.link_gbps = 100,
		.wire_overhead = 66,
		.sw_pass_ns = 1000,
		.sw_service_ns = 1,
		.tx_ns = 100,
		.rx_ns = 834,
		/* Verbs receivers poll their completion queue; the paper's
		 * two background threads (section 7) have cores of their own
		 * among 24, so no frame waits for a wake-up. */
		.wake_ns = 0,
		.agent_threads = 2,
		.op_ns = 514,
		.cpus = 0,
		.instr_per_ns = 2.2, /* E5-2650 v4, 1 instruction per cycle */
		/* The paper's switch: 375K blocks, a way per stage over 10
		 * stages (paper 000 sections 4-5). */
		.sw_ways = 10,
		.sw_slots = 37500,
	},
};

/* The requester's own instructions per DSM call of each app (callgrind,
 * self instructions of node-agent/api over the DSM calls of a 2-node,
 * 2-thread na-sim run: scripts/sim_measure_local.py CALLGRIND_APPS). */
static const struct {
	const char *app;
	uint32_t instr;
} app_instr[] = {
	{ "kv", 939 },
	{ "tpcc", 579 },
	{ "pagerank", 207 },
};

static struct {
	const struct na_sim_cost_profile *p; /* &cur, or NULL */
	struct na_sim_cost_profile cur; /* the profile, measured overrides */
	uint64_t up[MAX_NODES], down[MAX_NODES]; /* links free at */
	uint64_t sw;                             /* the pipeline free at */
	uint64_t cpu[MAX_CPUS];                  /* shared processors */
	struct na_sim_cost_busy busy;
	struct na_sim_cost_busy mark; /* busy when the measured phase began */
	uint64_t mark_ns;
	/* The running application thread (a coroutine runs until it waits,
	 * and every wait books these, so they are always its): op_ns of the
	 * DSM calls it made since it last sent or waited, and the end of
	 * the CPU it last booked (its sends do not stop it). */
	uint64_t pending, run_ready;
} cm;

int
na_sim_cost_for_app(const char *app)
{
	if (!cm.p)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(app_instr) / sizeof(app_instr[0]); i++)
		if (app && !strcmp(app, app_instr[i].app))
			cm.cur.op_ns = (uint64_t)(app_instr[i].instr /
						  cm.cur.instr_per_ns);
	return 0;
}

int
na_sim_cost_select(const char *name)
{
	memset(&cm, 0, sizeof(cm));
	if (!name || !strcmp(name, "none"))
		return 0;
	for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++)
		if (!strcmp(name, profiles[i].name)) {
			cm.cur = profiles[i];
			cm.p = &cm.cur;
			return 0;
		}
	return -EINVAL;
}

int
na_sim_cost_set(const char *assign)
{
	static const struct {
		const char *name;
		size_t off;
	} fields[] = {
		{ "hop_ns", offsetof(struct na_sim_cost_profile, hop_ns) },
		{ "tx_ns", offsetof(struct na_sim_cost_profile, tx_ns) },
		{ "rx_ns", offsetof(struct na_sim_cost_profile, rx_ns) },
		{ "wake_ns", offsetof(struct na_sim_cost_profile, wake_ns) },
		{ "op_ns", offsetof(struct na_sim_cost_profile, op_ns) },
		{ "sw_pass_ns",
		  offsetof(struct na_sim_cost_profile, sw_pass_ns) },
	};
	const char *eq = strchr(assign, '=');
	unsigned long long v;
	char *end;

	if (!cm.p || !eq || eq[1] < '0' || eq[1] > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(eq + 1, &end, 10);
	if (*end || errno)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (strlen(fields[i].name) == (size_t)(eq - assign) &&
		    !strncmp(assign, fields[i].name, (size_t)(eq - assign))) {
			*(uint64_t *)((char *)&cm.cur + fields[i].off) = v;
			return 0;
		}
	return -EINVAL;
}

const struct na_sim_cost_profile *
na_sim_cost_profile(void)
{
	return cm.p;
}

const char *
na_sim_cost_names(void)
{
	return "none, local, paper";
}

const struct na_sim_cost_busy *
na_sim_cost_busy(void)
{
	return &cm.busy;
}

/* The earliest free server of a pool of `n`: its index. */
static uint32_t
earliest(const uint64_t *free_at, uint32_t n)
{
	uint32_t best = 0;

	for (uint32_t i = 1; i < n; i++)
		if (free_at[i] < free_at[best])
			best = i;
	return best;
}

static uint64_t
max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* `cost` ns of CPU from `now`: when it ends. Counts the wait for a
 * processor (in `*waited` too, if given). */
static uint64_t
run_on_cpu(uint64_t now, uint64_t cost, uint64_t *waited)
{
	uint64_t start = now;
	uint32_t c;

	if (cm.p->cpus) {
		c = earliest(cm.cpu, cm.p->cpus);
		start = max64(start, cm.cpu[c]);
		cm.cpu[c] = start + cost;
		cm.busy.cpu_wait += start - now;
	}
	if (waited)
		*waited += start - now;
	return start + cost;
}

/* A frame on a link free at `*link`: when it has left it. */
static uint64_t
serialise(uint64_t *link, uint32_t len, uint64_t now)
{
	uint64_t bits = (uint64_t)(len + cm.p->wire_overhead) * 8;
	uint64_t t, start;

	if (cm.p->link_gbps <= 0)
		return now; /* no link of its own to serialise on */
	t = (uint64_t)((double)bits / cm.p->link_gbps + 0.5);
	start = max64(now, *link);

	cm.busy.link_wait += start - now;
	cm.busy.link += t;
	*link = start + t;
	return *link;
}

uint64_t
na_sim_cost_uplink(uint16_t src, uint32_t len, uint64_t now)
{
	uint64_t t;

	if (!cm.p || src >= MAX_NODES)
		return now;
	cm.busy.frames++;
	cm.busy.tx += cm.p->tx_ns;
	/* A sender that is an application thread runs its DSM calls and
	 * then the send in one turn (none in the agents' events). */
	t = run_on_cpu(max64(now, cm.run_ready), cm.pending + cm.p->tx_ns,
		       NULL);
	if (cm.pending || cm.run_ready)
		cm.run_ready = t;
	cm.pending = 0;
	return serialise(&cm.up[src], len, t) + cm.p->hop_ns;
}

uint64_t
na_sim_cost_switch(uint64_t now)
{
	uint64_t start;

	if (!cm.p)
		return now;
	start = max64(now, cm.sw);
	cm.sw = start + cm.p->sw_service_ns;
	cm.busy.sw += cm.p->sw_service_ns;
	return start + cm.p->sw_pass_ns;
}

uint64_t
na_sim_cost_downlink(uint16_t dst, uint32_t len, uint64_t now)
{
	if (!cm.p || dst >= MAX_NODES)
		return now;
	return serialise(&cm.down[dst], len, now) + cm.p->hop_ns;
}

uint32_t
na_sim_cost_agent_threads(void)
{
	return cm.p && cm.p->agent_threads ? cm.p->agent_threads : 1;
}

uint64_t
na_sim_cost_agent(uint64_t arrived, uint64_t now, bool woke)
{
	uint64_t cost;

	if (!cm.p)
		return now;
	cost = cm.p->rx_ns + (woke ? cm.p->wake_ns : 0);
	cm.busy.rx_frames++;
	cm.busy.wakes += woke;
	cm.busy.agent += cost;
	cm.busy.agent_wait += now - arrived;
	return run_on_cpu(now, cost, &cm.busy.agent_wait);
}

uint64_t
na_sim_cost_app(uint64_t now)
{
	if (!cm.p)
		return now;
	cm.busy.app_calls++;
	cm.busy.app += cm.p->op_ns;
	if (!cm.p->cpus) /* its own processor: nothing to hold */
		return run_on_cpu(now, cm.p->op_ns, NULL);
	cm.pending += cm.p->op_ns;
	return now;
}

uint64_t
na_sim_cost_app_deferred_ns(void)
{
	return cm.p && cm.p->cpus ? cm.p->op_ns : 0;
}

uint64_t
na_sim_cost_block(uint64_t now)
{
	uint64_t ready = max64(now, cm.run_ready);

	if (cm.pending)
		ready = run_on_cpu(ready, cm.pending, NULL);
	cm.pending = 0;
	cm.run_ready = 0;
	return ready;
}

void
na_sim_cost_mark(uint64_t now)
{
	if (!cm.p)
		return;
	cm.mark = cm.busy;
	cm.mark_ns = now;
}

void
na_sim_cost_measured(struct na_sim_cost_busy *out)
{
	const struct na_sim_cost_busy *b = &cm.busy, *m = &cm.mark;

	*out = (struct na_sim_cost_busy){
		.link = b->link - m->link,
		.sw = b->sw - m->sw,
		.agent = b->agent - m->agent,
		.tx = b->tx - m->tx,
		.app = b->app - m->app,
		.agent_wait = b->agent_wait - m->agent_wait,
		.cpu_wait = b->cpu_wait - m->cpu_wait,
		.link_wait = b->link_wait - m->link_wait,
		.frames = b->frames - m->frames,
		.app_calls = b->app_calls - m->app_calls,
		.rx_frames = b->rx_frames - m->rx_frames,
		.wakes = b->wakes - m->wakes,
	};
}

/* One set of counters as JSON members (no braces). */
static void
busy_json(FILE *f, const struct na_sim_cost_busy *b)
{
	fprintf(f,
		"\"busy_ns\":{\"link\":%" PRIu64 ",\"switch\":%" PRIu64
		",\"agent\":%" PRIu64 ",\"tx\":%" PRIu64 ",\"app\":%" PRIu64
		"},\"wait_ns\":{\"agent\":%" PRIu64 ",\"cpu\":%" PRIu64
		",\"link\":%" PRIu64 "},\"frames\":%" PRIu64
		",\"app_calls\":%" PRIu64 ",\"rx_frames\":%" PRIu64
		",\"wakes\":%" PRIu64,
		b->link, b->sw, b->agent, b->tx, b->app, b->agent_wait,
		b->cpu_wait, b->link_wait, b->frames, b->app_calls,
		b->rx_frames, b->wakes);
}

void
na_sim_cost_json(FILE *f)
{
	const struct na_sim_cost_profile *p = cm.p;
	struct na_sim_cost_busy m;

	if (!p) {
		fprintf(f, "\"profile\":\"none\"");
		return;
	}
	fprintf(f,
		"\"profile\":\"%s\",\"hop_ns\":%" PRIu64
		",\"link_gbps\":%g,\"sw_pass_ns\":%" PRIu64
		",\"sw_service_ns\":%" PRIu64 ",\"tx_ns\":%" PRIu64
		",\"rx_ns\":%" PRIu64 ",\"wake_ns\":%" PRIu64
		",\"agent_threads\":%u,\"op_ns\":%" PRIu64
		",\"cpus\":%u,\"sw_ways\":%u,\"sw_slots\":%u,",
		p->name, p->hop_ns, p->link_gbps, p->sw_pass_ns,
		p->sw_service_ns, p->tx_ns, p->rx_ns, p->wake_ns,
		p->agent_threads, p->op_ns, p->cpus, p->sw_ways, p->sw_slots);
	busy_json(f, &cm.busy);
	na_sim_cost_measured(&m);
	fprintf(f, ",\"measured\":{\"from_s\":%.6f,", cm.mark_ns / 1e9);
	busy_json(f, &m);
	fputc('}', f);
}
