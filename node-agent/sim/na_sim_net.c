/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The simulated network and switch; see na_sim_net.h.
 *
 * Over 500 lines: the switch's passes, its stall bursts and its restarts
 * share the frame and the network's state, which stay private to this file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "na_msg.h"
#include "na_node.h"
#include "na_sim_cost.h"
#include "na_sim_net.h"
#include "na_sim_sched.h"
#include "na_transport_udp.h"

/* A resubmitted frame re-enters within this time: after what is queued. */
#define RESUBMIT_NS 200ull
/* swswitch's rx burst (SW_MAX_PKT_BURST, swswitch.h): a stall's backlog
 * runs in bursts of this many frames. */
#define STALL_BURST 32u

struct na_sim_net {
	struct na_sim_net_config cfg;
	struct lcf_pipeline *pipe;
	struct na_node *node[LCF_MAX_NODES];
	uint64_t rng;
	uint32_t loss_th, dup_th; /* thresholds on a 32-bit draw */
	struct na_sim_net_stats st;
	uint64_t pass_done;  /* the current switch pass's end (cost model) */
	uint64_t down_until; /* a restarted switch forwards again */
	uint64_t down_ns;    /* the next restart's outage */
	uint32_t crashed;    /* nodes that crashed (bit per id) */
	uint8_t hold_type;   /* na_sim_net_hold */
	uint64_t hold_nth, hold_seen, hold_ns;
	struct frame *held;
	/* Each node's frames waiting for an agent thread, first come first
	 * served, and its threads serving (cost model): a thread takes the
	 * CPU only when it starts, so a backlog never books a shared CPU
	 * ahead of time. */
	struct frame *aq_head[LCF_MAX_NODES], *aq_tail[LCF_MAX_NODES];
	uint32_t abusy[LCF_MAX_NODES];
	struct lcf_counters acc; /* counters of the registers before restarts */
	struct lcf_trace tr;     /* the switch's sampled trace (every 0: off) */
	/* A stalled switch (na_sim_net_stall): frames reaching it queue,
	 * and a burst's resubmitted frames wait for the burst's end. */
	uint64_t stall_every, stall_ns;
	uint64_t stall_sent; /* st.sent at the last stall's end */
	bool stalled, in_burst;
	struct frame *sq_head, *sq_tail, *rs_head, *rs_tail;
};

/* One frame on a hop: its LCF header and payload as on the wire. */
struct frame {
	struct na_sim_net *net;
	uint16_t src, dst;  /* sending node; node it is for (L2) */
	bool resubmitted;   /* second pass at the switch */
	bool served;        /* taken by the node's agent (cost model) */
	bool woke;          /* found the node's agent threads idle */
	struct frame *next; /* the agent queue (cost model) */
	uint64_t gen;       /* switch restarts when it was resubmitted */
	uint64_t rx_ns;     /* when it reached its node (the trace's RX) */
	uint64_t meta;      /* resubmit metadata */
	uint16_t len;       /* bytes[] */
	uint8_t bytes[];
};

static uint32_t
rnd32(struct na_sim_net *net)
{
	/* xorshift64*: one generator for every draw keeps a run one seed. */
	net->rng ^= net->rng >> 12;
	net->rng ^= net->rng << 25;
	net->rng ^= net->rng >> 27;
	return (uint32_t)((net->rng * 2685821657736338717ull) >> 32);
}

static uint32_t
threshold(double p)
{
	return (uint32_t)(p * 4294967296.0);
}

int
na_sim_net_create(const struct na_sim_net_config *cfg, struct na_sim_net **out)
{
	struct lcf_pipeline_config pc;
	struct na_sim_net *net;

	*out = NULL;
	if (!cfg->seed || cfg->loss < 0 || cfg->loss >= 1 || cfg->dup < 0 ||
	    cfg->dup >= 1)
		return -EINVAL;
	net = calloc(1, sizeof(*net));
	if (!net)
		return -ENOMEM;
	net->cfg = *cfg;
	net->rng = cfg->seed * 0x9e3779b97f4a7c15ull | 1;
	net->loss_th = threshold(cfg->loss);
	net->dup_th = threshold(cfg->dup);
	lcf_pipeline_config_from_topo(cfg->topo, &pc);
	pc.seed = cfg->seed;
	net->pipe = lcf_pipeline_create(&pc);
	if (!net->pipe) {
		free(net);
		return -ENOMEM;
	}
	*out = net;
	return 0;
}

static void
frames_free(struct frame *f)
{
	while (f) {
		struct frame *next = f->next;

		free(f);
		f = next;
	}
}

static void
frame_append(struct frame **head, struct frame **tail, struct frame *f)
{
	f->next = NULL;
	if (*tail)
		(*tail)->next = f;
	else
		*head = f;
	*tail = f;
}

void
na_sim_net_free(struct na_sim_net *net)
{
	if (!net)
		return;
	free(net->held);
	frames_free(net->sq_head);
	frames_free(net->rs_head);
	for (uint32_t i = 0; i < LCF_MAX_NODES; i++)
		while (net->aq_head[i]) {
			struct frame *f = net->aq_head[i];

			net->aq_head[i] = f->next;
			free(f);
		}
	lcf_pipeline_free(net->pipe);
	lcf_trace_fini(&net->tr);
	free(net);
}

void
na_sim_net_attach(struct na_sim_net *net, uint16_t id, struct na_node *n)
{
	if (id < LCF_MAX_NODES)
		net->node[id] = n;
}

const struct na_sim_net_stats *
na_sim_net_stats(const struct na_sim_net *net)
{
	return &net->st;
}

const struct lcf_pipeline *
na_sim_net_pipeline(const struct na_sim_net *net)
{
	return net->pipe;
}

uint64_t
na_sim_net_life_ns(const struct na_sim_net *net)
{
	/* Two hops at most, each delay + jitter (a duplicate's too). */
	return 2 * (net->cfg.delay_ns + net->cfg.jitter_ns);
}

static struct frame *
frame_copy(const struct frame *f)
{
	struct frame *c = malloc(sizeof(*c) + f->len);

	if (c)
		memcpy(c, f, sizeof(*c) + f->len);
	return c;
}

static void switch_arrive(void *ctx, void *arg);

static void
release_held(void *ctx, void *arg)
{
	(void)arg;
	na_sim_net_release(ctx);
}

/* One hop: lose, duplicate, delay (the cost model's link and latency,
 * na_sim_cost.h, then the configured delay). Takes ownership of `f`. */
static void
hop(struct frame *f, na_sim_fn arrive)
{
	struct na_sim_net *net = f->net;
	uint64_t now =
		arrive == switch_arrive
			? na_sim_cost_uplink(f->src, f->len, na_now_ns())
			: na_sim_cost_downlink(f->dst, f->len,
					       net->pass_done > na_now_ns()
						       ? net->pass_done
						       : na_now_ns());
	struct frame *d;

	if (rnd32(net) < net->loss_th) {
		net->st.lost++;
		free(f);
		return;
	}
	if (rnd32(net) < net->dup_th && (d = frame_copy(f)) != NULL) {
		net->st.duplicated++;
		na_sim_at(now + net->cfg.delay_ns +
				  rnd32(net) % (net->cfg.jitter_ns + 1),
			  arrive, net, d);
	}
	na_sim_at(now + net->cfg.delay_ns +
			  rnd32(net) % (net->cfg.jitter_ns + 1),
		  arrive, net, f);
}

/* NA_SIM_TRACE set: every frame delivered to a node and every switch pass
 * on stderr, one line each (docs/SIMULATION.md). */
static bool
tracing(void)
{
	static int on = -1;

	if (on < 0)
		on = getenv("NA_SIM_TRACE") != NULL;
	return on;
}

static void node_arrive(void *ctx, void *arg);

/* Node `dst`'s idle agent threads take the frames waiting, in order. */
static void
agent_next(struct na_sim_net *net, uint16_t dst)
{
	while (net->aq_head[dst] &&
	       net->abusy[dst] < na_sim_cost_agent_threads()) {
		struct frame *f = net->aq_head[dst];

		net->aq_head[dst] = f->next;
		if (!f->next)
			net->aq_tail[dst] = NULL;
		net->abusy[dst]++;
		na_sim_at(na_sim_cost_agent(f->rx_ns, na_now_ns(), f->woke),
			  node_arrive, net, f);
	}
}

/* A frame lands at its node. */
static void
node_arrive(void *ctx, void *arg)
{
	struct na_sim_net *net = ctx;
	struct frame *f = arg;
	struct na_node *n = f->dst < LCF_MAX_NODES ? net->node[f->dst] : NULL;
	const uint8_t *payload;
	struct lcf_msg m;

	if (!f->served)
		f->rx_ns = na_now_ns();
	if (n && !f->served && na_sim_cost_profile()) {
		/* Wait for and take one of the node's agent threads. With
		 * none serving and none waiting, libdsm's dispatch thread
		 * sleeps in poll() and this frame wakes it. */
		f->served = true;
		f->woke = !net->abusy[f->dst] && !net->aq_head[f->dst];
		f->next = NULL;
		if (net->aq_tail[f->dst])
			net->aq_tail[f->dst]->next = f;
		else
			net->aq_head[f->dst] = f;
		net->aq_tail[f->dst] = f;
		agent_next(net, f->dst);
		return;
	}
	if (!n)
		net->st.detached++;
	else if (na_udp_parse(f->bytes, f->len, NA_MAX_FRAME_PAYLOAD, &m,
			      &payload) < 0)
		net->st.rejected++;
	else {
		net->st.delivered++;
		if (tracing())
			fprintf(stderr,
				"T %llu ->%u %s(%#x) n%u t%u s%u fl%#x aux%#x "
				"gs%u cs%#x tag%#llx\n",
				(unsigned long long)na_now_ns(), f->dst,
				na_type_name(m.type), m.type, m.node, m.thread,
				m.seq, m.flags, m.aux, m.gstatus, m.copyset,
				(unsigned long long)m.tag);
		na_node_receive_at(n, &m, payload, f->rx_ns);
	}
	if (f->served) {
		/* Its agent thread is free for the next. */
		uint16_t dst = f->dst;

		free(f);
		net->abusy[dst]--;
		agent_next(net, dst);
		return;
	}
	free(f);
}

/* The switch sends a copy of `f` with header `out` to node `to`. */
static void
emit_copy(const struct frame *f, const struct lcf_result *res, uint16_t to,
	  bool mirror)
{
	struct frame *c = frame_copy(f);
	uint8_t flags = res->out.flags;

	if (!c)
		return;
	if (to == res->provider && !mirror)
		flags |= LCF_F_DATA_PROVIDER;
	lcf_hdr_encode(&res->out, c->bytes);
	lcf_hdr_address(c->bytes, to, flags);
	c->dst = to;
	c->resubmitted = false;
	hop(c, node_arrive);
}

static void
switch_pipeline(struct na_sim_net *net, struct frame *f,
		const struct lcf_msg *m)
{
	const struct topo_node *src = topo_node_by_id(net->cfg.topo, f->src);
	struct lcf_ingress ing = {
		.port = src ? src->port : UINT16_MAX,
		.resubmitted = f->resubmitted,
		.resubmit_meta = f->meta,
	};
	struct lcf_result res;

	net->st.passes++;
	lcf_pipeline_process(net->pipe, m, &ing, &res);
	/* As swswitch records a pass (sw_loop.c): its start at the frame's
	 * arrival, its end when the cost model's result leaves. */
	if (net->tr.every &&
	    lcf_trace_sampled(m->node, m->thread, m->seq, net->tr.every)) {
		lcf_trace_put(&net->tr, na_now_ns(), LCF_TP_SW_IN, m->type,
			      m->node, m->thread, m->seq, ing.port,
			      f->resubmitted);
		lcf_trace_put(&net->tr,
			      net->pass_done > na_now_ns() ? net->pass_done
							   : na_now_ns(),
			      LCF_TP_SW_OUT, m->type, m->node, m->thread,
			      m->seq, ing.port, (uint64_t)res.verdict);
	}
	if (tracing())
		fprintf(stderr,
			"T %llu SW %s n%u t%u s%u aux%#x tag%#llx rs%d -> v%d "
			"to%#x %s\n",
			(unsigned long long)na_now_ns(), na_type_name(m->type),
			m->node, m->thread, m->seq, m->aux,
			(unsigned long long)m->tag, (int)f->resubmitted,
			(int)res.verdict, res.to_nodes,
			na_type_name(res.out.type));
	switch (res.verdict) {
	case LCF_V_EMIT:
		for (uint16_t n = 0; n < LCF_MAX_NODES; n++) {
			if (res.to_nodes & (1u << n))
				emit_copy(f, &res, n, false);
			if (res.mirror_nodes & (1u << n))
				emit_copy(f, &res, n, true);
		}
		break;
	case LCF_V_RESUBMIT:
		if (!f->resubmitted) {
			/* The unmodified frame, after what is queued now. */
			net->st.resubmits++;
			f->resubmitted = true;
			f->gen = net->st.restarts;
			f->meta = res.resubmit_meta;
			if (net->in_burst) {
				/* After the whole burst, as sw_loop.c. */
				frame_append(&net->rs_head, &net->rs_tail, f);
				return;
			}
			na_sim_at(na_now_ns() + rnd32(net) % RESUBMIT_NS,
				  switch_arrive, net, f);
			return;
		}
		net->st.sw_drops++; /* resubmitted twice: a pipeline bug */
		break;
	case LCF_V_DROP:
	default:
		net->st.sw_drops++;
		break;
	}
	free(f);
}

/* A frame's pass through the switch: the pipeline, or L2 to its node. */
static void
switch_pass(struct na_sim_net *net, struct frame *f)
{
	struct lcf_msg m;

	if (na_now_ns() < net->down_until ||
	    (f->resubmitted && f->gen != net->st.restarts)) {
		net->st.down_drops++; /* a dead switch; the old one's pass */
		free(f);
		return;
	}
	net->pass_done = na_sim_cost_switch(na_now_ns());
	lcf_hdr_decode(f->bytes, &m);
	if (!lcf_type_is_pipeline(m.type) && !lcf_type_from_switch(m.type)) {
		/* Node to node: switched on its addresses, as swswitch's L2. */
		net->st.forwarded++;
		hop(f, node_arrive);
		return;
	}
	if (lcf_msg_validate(&m, f->len - LCF_HDR_LEN) != LCF_DROP_NONE) {
		net->st.sw_drops++; /* spoofed switch types included */
		free(f);
		return;
	}
	switch_pipeline(net, f, &m);
}

/* A frame reaches the switch: queued while it stalls. */
static void
switch_arrive(void *ctx, void *arg)
{
	struct na_sim_net *net = ctx;
	struct frame *f = arg;

	if (net->stalled) {
		net->st.stall_queued++;
		frame_append(&net->sq_head, &net->sq_tail, f);
		return;
	}
	switch_pass(net, f);
}

static void stall_begin(void *ctx, void *arg);

/*
 * The stall ends: its backlog runs as swswitch runs a full rx ring
 * (sw_loop.c sw_burst): bursts of STALL_BURST frames, each burst's first
 * passes in arrival order, then the second passes its frames asked for,
 * in order, before the next burst. A frame received during the stall is
 * behind every one received before it, whatever its type.
 */
static void
stall_end(void *ctx, void *arg)
{
	struct na_sim_net *net = ctx;

	(void)arg;
	net->stalled = false;
	while (net->sq_head) {
		net->in_burst = true;
		for (unsigned int i = 0; i < STALL_BURST && net->sq_head; i++) {
			struct frame *f = net->sq_head;

			net->sq_head = f->next;
			if (!net->sq_head)
				net->sq_tail = NULL;
			switch_pass(net, f);
		}
		net->in_burst = false;
		while (net->rs_head) {
			struct frame *f = net->rs_head;

			net->rs_head = f->next;
			if (!net->rs_head)
				net->rs_tail = NULL;
			switch_pass(net, f);
		}
	}
	/* No frame sent in a whole period: the cluster is done (the final
	 * drain runs until no event is left). */
	if (net->stall_every > net->stall_ns && net->st.sent != net->stall_sent)
		na_sim_at(na_now_ns() + net->stall_every - net->stall_ns,
			  stall_begin, net, NULL);
	net->stall_sent = net->st.sent;
}

static void
stall_begin(void *ctx, void *arg)
{
	struct na_sim_net *net = ctx;

	(void)arg;
	net->stalled = true;
	net->st.stalls++;
	na_sim_at(na_now_ns() + net->stall_ns, stall_end, net, NULL);
}

void
na_sim_net_stall(struct na_sim_net *net, uint64_t at_ns, uint64_t every_ns,
		 uint64_t for_ns)
{
	net->stall_every = every_ns;
	net->stall_ns = for_ns;
	na_sim_at(at_ns, stall_begin, net, NULL);
}

int
na_sim_net_send(struct na_sim_net *net, uint16_t src, uint16_t dst,
		const struct lcf_msg *m, const void *payload)
{
	struct frame *f;

	if (!topo_node_by_id(net->cfg.topo, dst))
		return -EINVAL;
	if (m->len > NA_MAX_FRAME_PAYLOAD)
		return -EMSGSIZE;
	if (src < LCF_MAX_NODES && net->crashed & 1u << src) {
		net->st.crash_drops++;
		return 0; /* a dead node sends nothing */
	}
	f = malloc(sizeof(*f) + LCF_HDR_LEN + m->len);
	if (!f)
		return -ENOMEM;
	f->net = net;
	f->src = src;
	f->dst = dst;
	f->resubmitted = false;
	f->served = false;
	f->gen = 0;
	f->meta = 0;
	f->len = (uint16_t)(LCF_HDR_LEN + m->len);
	lcf_hdr_encode(m, f->bytes);
	if (m->len)
		memcpy(f->bytes + LCF_HDR_LEN, payload, m->len);
	net->st.sent++;
	if (net->hold_nth && m->type == net->hold_type &&
	    ++net->hold_seen == net->hold_nth && !net->held &&
	    (net->held = frame_copy(f)) != NULL) {
		net->st.held++;
		if (net->hold_ns)
			na_sim_at(na_now_ns() + net->hold_ns, release_held, net,
				  NULL);
	}
	hop(f, switch_arrive);
	return 0;
}

void
na_sim_net_hold(struct na_sim_net *net, uint8_t type, uint64_t nth,
		uint64_t hold_ns)
{
	net->hold_type = type;
	net->hold_nth = nth;
	net->hold_ns = hold_ns;
}

bool
na_sim_net_release(struct na_sim_net *net)
{
	struct frame *f = net->held;

	if (!f)
		return false;
	net->held = NULL;
	net->st.released++;
	if (f->src < LCF_MAX_NODES && net->crashed & 1u << f->src)
		free(f); /* nothing of a dead node's */
	else
		hop(f, switch_arrive);
	return true;
}

void
na_sim_net_crash(struct na_sim_net *net, uint16_t id)
{
	if (id < LCF_MAX_NODES)
		net->crashed |= 1u << id;
	na_sim_net_attach(net, id, NULL);
}

void
na_sim_net_rejoin(struct na_sim_net *net, uint16_t id, struct na_node *n)
{
	if (id >= LCF_MAX_NODES)
		return;
	/* A held copy of the old process would be sent after the rejoin:
	 * the copy lifetime rejoin.pml's bound excludes. */
	if (net->held && net->held->src == id) {
		free(net->held);
		net->held = NULL;
	}
	net->crashed &= ~(1u << id);
	na_sim_net_attach(net, id, n);
}

int
na_sim_net_node_failed(struct na_sim_net *net, uint16_t id,
		       struct lcf_node_failed_report *rep)
{
	return lcf_pipeline_node_failed(net->pipe, id, rep, NULL, 0);
}

static void
switch_restart(void *ctx, void *arg)
{
	struct na_sim_net *net = ctx;
	const struct lcf_counters *c = lcf_pipeline_counters(net->pipe);

	(void)arg;
	net->acc.packets += c->packets;
	for (int i = 0; i < LCF_A_MAX; i++)
		net->acc.action[i] += c->action[i];
	for (int i = 0; i < LCF_DROP_MAX; i++)
		net->acc.drop[i] += c->drop[i];
	lcf_pipeline_reset(net->pipe);
	net->st.restarts++;
	net->down_until = na_now_ns() + net->down_ns;
}

void
na_sim_net_restart_at(struct na_sim_net *net, uint64_t at_ns, uint64_t down_ns)
{
	net->down_ns = down_ns;
	na_sim_at(at_ns, switch_restart, net, NULL);
}

int
na_sim_net_trace(struct na_sim_net *net, uint32_t every, uint32_t capacity)
{
	lcf_trace_fini(&net->tr);
	return lcf_trace_init(&net->tr, LCF_TRACE_SWITCH, every, capacity);
}

int
na_sim_net_trace_dump(const struct na_sim_net *net, FILE *f)
{
	return lcf_trace_dump(&net->tr, f);
}

void
na_sim_net_actions_json(const struct na_sim_net *net, FILE *f)
{
	const struct lcf_counters *pc = lcf_pipeline_counters(
		na_sim_net_pipeline(net));
	bool first = true;

	for (int a = 0; a < LCF_A_MAX; a++) {
		uint64_t v = pc->action[a] + net->acc.action[a];

		if (!v)
			continue;
		fprintf(f, "%s\"%s\":%" PRIu64, first ? "" : ",",
			lcf_action_name((enum lcf_action)a), v);
		first = false;
	}
	/* Never expected: a lock leak's witness (lcf_counters). */
	if (pc->sb_held_overwritten)
		fprintf(f, "%s\"sb_held_overwritten\":%" PRIu64,
			first ? "" : ",", pc->sb_held_overwritten);
}
