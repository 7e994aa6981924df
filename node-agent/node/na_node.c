/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Node runtime: sending (to the transport or, for this node, locally),
 * routing received messages to a requester's mailbox or to the agents, the
 * agents' section, their timers and the dispatch thread; queued mode's
 * holders' table and the requester's calls into it (na_node_q_*). Start
 * and stop are in na_node_start.c. See na_node.h. Over 500 lines: a
 * requester's call into the agents' section (the queue holders) runs in
 * the file that owns the section and sends its output, so a request
 * enters the node runtime once per call.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "na_directory.h"
#include "na_msg.h"
#include "na_node_int.h"
#include "na_proto.h"
#include "na_recovery.h"

/* Set while this thread runs the agents (holds agent_mu). */
__thread bool na_node_in_agents;

/* ---- agents --------------------------------------------------------------- */

/* To requester thread `thread`'s mailbox. */
static void
mbox_push(struct na_node *n, uint16_t thread, const struct lcf_msg *m,
	  const void *payload)
{
	if (thread >= n->cfg.threads) {
		NA_STAT_INC(n->st.dropped);
		return;
	}
	/* A lost message: the requester's timers recover from it. */
	if (!na_mbox_push(&n->mbox[thread], m, payload))
		NA_STAT_INC(n->st.mbox_overflow);
}

void
na_node_flush(struct na_node *n, struct na_out *out)
{
	for (uint32_t i = 0; i < out->n; i++) {
		na_node_trace_msg(n, LCF_TP_AG_OUT, &out->m[i].msg,
				  out->m[i].dst);
		na_node_send(n, out->m[i].dst, &out->m[i].msg,
			     out->m[i].payload);
	}
	out->n = 0;
}

/* ---- dynamic migration hooks (na_migrate.h) ------------------------------ */

static void
mig_flush(void *ctx, struct na_out *out)
{
	na_node_flush(ctx, out);
}

static void
migrate_handle(struct na_node *n, const struct lcf_msg *m, struct na_out *out)
{
	struct na_mig_io io = { .out = out, .flush = mig_flush, .ctx = n };

	if (na_migrate_handle(&n->migrate, &n->home, m, na_now_ns(), &io))
		na_rec_block_lost(n->rec, m->tag, out);
}

/* A draining block's last holder gone: its ADD now (na_migrate.h). */
static void
migrate_released(struct na_node *n, const struct lcf_msg *m, struct na_out *out)
{
	struct na_mig_io io = { .out = out, .flush = mig_flush, .ctx = n };

	if (n->migrate.n_draining)
		na_migrate_released(&n->migrate, &n->home, m->tag, na_now_ns(),
				    &io);
}

/* Run one message, classified as `r`, through the agents; agent_mu held. */
static void
agents_process(struct na_node *n, const struct lcf_msg *m, const void *payload,
	       enum na_route r)
{
	static __thread struct na_out out;
	unsigned roles = n->cfg.roles;

	na_node_trace_msg(n, LCF_TP_AG_IN, m, LCF_TRACE_NO_PEER);
	na_out_reset(&out);
	if (na_rec_agents(n->rec, m, payload, &out))
		r = NA_ROUTE_DROP; /* consumed by the recovery */
	else if ((r == NA_ROUTE_CACHE || r == NA_ROUTE_QINV) &&
		 na_rec_cache_frozen(n->rec, m->tag))
		r = NA_ROUTE_DROP; /* our report stands for the copy */
	switch (r) {
	case NA_ROUTE_DROP:
		break;
	case NA_ROUTE_HOME:
		if (roles & NA_ROLE_HOME) {
			na_home_handle(&n->home, m, payload, m->len, &out);
			/* Figure 10's count: messages in and out of the home. */
			NA_STAT_INC(n->st.home_rx);
			NA_STAT_ADD(n->st.home_tx, out.n);
			migrate_released(n, m, &out);
		}
		break;
	case NA_ROUTE_CACHE:
		if (roles & NA_ROLE_CACHE)
			na_cagent_handle(&n->cagent, m, &out);
		break;
	case NA_ROUTE_MIGRATE:
		if ((roles & NA_ROLE_HOME) && m->node == n->self)
			na_home_handle(&n->home, m, payload, m->len, &out);
		if (roles & NA_ROLE_SHADOW) {
			na_shadow_migrate_ack(&n->shadow, m);
			NA_STAT_INC(n->st.shadow_adds);
		}
		break;
	case NA_ROUTE_HOME_MIGRATE:
		if (roles & NA_ROLE_HOME)
			migrate_handle(n, m, &out);
		break;
	case NA_ROUTE_VOH:
		if (roles & NA_ROLE_HOME)
			na_voh_handle(&n->voh, m, payload, m->len, &out);
		break;
	case NA_ROUTE_QUEUE:
	case NA_ROUTE_QINV:
		na_node_queue_process(n, m, payload, &out);
		break;
	case NA_ROUTE_SHADOW:
		if (!(roles & NA_ROLE_SHADOW))
			break;
		if (m->type == NA_MSG_COLLISION) {
			na_shadow_collision(&n->shadow, m, &out);
		} else {
			na_shadow_report(&n->shadow, m, payload, m->len);
			NA_STAT_INC(n->st.shadow_reports);
		}
		break;
	default:
		NA_STAT_INC(n->st.dropped);
		break;
	}
	na_node_flush(n, &out);
}

/* Run what the agents sent to their own node meanwhile. */
static void
agents_drain(struct na_node *n)
{
	while (n->fifo_head != n->fifo_tail) {
		struct na_fifo_mail *f = &n->fifo[n->fifo_head++ % NA_FIFO_CAP];
		struct na_mail x = f->x;

		agents_process(n, &x.m, x.payload, f->route);
	}
}

void
na_node_agents_leave(struct na_node *n)
{
	agents_drain(n);
	na_node_in_agents = false;
	pthread_mutex_unlock(&n->agent_mu);
}

/* Deliver to this node's agents, from any thread, classified as `r`. */
static void
agents_deliver(struct na_node *n, const struct lcf_msg *m, const void *payload,
	       enum na_route r)
{
	if (na_node_in_agents) {
		/* An agent sending to its own node: queue, the holder drains. */
		if (n->fifo_tail - n->fifo_head >= NA_FIFO_CAP) {
			NA_STAT_INC(n->st.mbox_overflow);
			return;
		}
		struct na_fifo_mail *f = &n->fifo[n->fifo_tail++ % NA_FIFO_CAP];

		f->x.m = *m;
		if (m->len)
			memcpy(f->x.payload, payload, m->len);
		f->route = r;
		return;
	}
	na_node_agents_enter(n);
	agents_process(n, m, payload, r);
	na_node_agents_leave(n);
}

/*
 * Validate-on-hit's version checks (na_node_voh.c): VOH_VREAD answered
 * here on the receive path without the agents' section, VOH_VRPC handed to
 * the version thread. True when `m` was consumed.
 */
static bool
voh_route(struct na_node *n, const struct lcf_msg *m)
{
	struct lcf_msg r;

	if (!(n->cfg.roles & NA_ROLE_HOME) || !n->voh.ver)
		return false;
	if (m->type == NA_MSG_VOH_VREAD) {
		if (na_voh_vread(&n->voh, m, &r))
			na_node_send(n, r.dst_node, &r, NULL);
		return true;
	}
	if (m->type != NA_MSG_VOH_VRPC || !n->vthread_running)
		return false; /* the agents' section answers it */
	if (!na_mbox_push(&n->vq, m, NULL))
		NA_STAT_INC(n->st.mbox_overflow);
	return true;
}

/* Classified once: the agents run it as routed here. */
static void
route(struct na_node *n, const struct lcf_msg *m, const void *payload)
{
	enum na_route r;

	if (voh_route(n, m))
		return; /* a version check, answered outside the agents */
	r = na_classify(m, n->self);
	if (na_rec_is_msg(m->type)) {
		agents_deliver(n, m, payload, r);
		return;
	}
	switch (r) {
	case NA_ROUTE_REQUESTER:
		if ((m->type == NA_MSG_SABRE_DATA ||
		     m->type == NA_MSG_SABRE_VALID) &&
		    m->thread < n->cfg.threads) {
			/* Straight into the reader's buffer (na_sabre_rx.h). */
			na_sabre_rx_deliver(&n->sabrx[m->thread], m, payload);
			return;
		}
		mbox_push(n, m->thread, m, payload);
		return;
	case NA_ROUTE_DROP:
		NA_STAT_INC(n->st.dropped);
		return;
	default:
		agents_deliver(n, m, payload, r);
		return;
	}
}

void
na_node_run_deferred(struct na_node *n)
{
	static __thread struct na_out out;

	na_node_agents_enter(n);
	do {
		na_out_reset(&out);
		na_cagent_run_deferred(&n->cagent, &out);
		na_node_flush(n, &out);
	} while (out.overflow);
	na_node_agents_leave(n);
}

/* ---- queued locks: the holders' table and the requester's calls ---------- */

/*
 * The requester's one interface to the node's queue holders (na_node.h,
 * na_node_q_*): each runs na_qtable in the agents' section and sends or
 * delivers what it produced. Messages to the holders: na_node_queue.c.
 */

/* The holders' delay bound and retransmission unit: 6 x this. */
#define NA_QT_RTT_NS 1000000ull

static uint16_t
home_of(const void *ctx, uint64_t tag)
{
	return (uint16_t)topo_tag_home(ctx, tag);
}

int
na_node_queue_init(struct na_node *n)
{
	if (!n->topo->sw.queued || n->cfg.direct || n->cfg.directory)
		return 0;
	n->qt = malloc(sizeof(*n->qt));
	if (!n->qt)
		return -ENOMEM;
	if (na_qtable_init(n->qt, n->self, NA_QT_RTT_NS, home_of, n->topo)) {
		free(n->qt);
		n->qt = NULL;
		return -ENOMEM;
	}
	return 0;
}

void
na_node_queue_fini(struct na_node *n)
{
	if (!n->qt)
		return;
	na_qtable_fini(n->qt);
	free(n->qt);
	n->qt = NULL;
}

/* A requester's call into the holders: the agents' section, with an
 * output list of the calling thread's; q_leave sends and delivers what
 * the holders produced, then leaves. */
static struct na_out *
q_enter(struct na_node *n)
{
	static __thread struct na_out out;

	na_node_agents_enter(n);
	na_out_reset(&out);
	return &out;
}

static void
q_leave(struct na_node *n, struct na_out *out, const struct na_qlocals *loc)
{
	na_node_queue_deliver(n, loc);
	na_node_flush(n, out);
	na_node_agents_leave(n);
}

int
na_node_q_request(struct na_node *n, uint16_t thread, const struct lcf_msg *req,
		  bool send)
{
	struct na_qlocals loc = { 0 };
	struct na_out *out;
	int rc;

	if (!n->qt)
		return -ENOTSUP;
	out = q_enter(n);
	rc = na_qtable_request(n->qt, req->tag, thread, req->seq, na_now_ns(),
			       out, &loc);
	q_leave(n, out, &loc);
	if (rc == 0 && send)
		na_node_send(n, req->dst_node, req, NULL);
	return rc;
}

void
na_node_q_result(struct na_node *n, uint64_t tag, uint16_t thread, uint32_t seq,
		 bool holds)
{
	if (!n->qt)
		return;
	na_node_agents_enter(n);
	if (!holds || na_qtable_switch_granted(n->qt, tag, thread, seq) != 0)
		na_qtable_cancel(n->qt, tag, thread, seq);
	na_node_agents_leave(n);
}

int
na_node_q_done(struct na_node *n, uint64_t tag, uint16_t thread, uint32_t seq,
	       uint8_t gs, uint32_t cs)
{
	struct na_qlocals loc = { 0 };
	struct na_out *out;
	int rc;

	if (!n->qt)
		return -ESRCH;
	out = q_enter(n);
	rc = na_qtable_done(n->qt, tag, thread, seq, gs, cs, na_now_ns(), out,
			    &loc);
	q_leave(n, out, &loc);
	return rc;
}

void
na_node_q_abandon(struct na_node *n, uint64_t tag, uint16_t thread,
		  uint32_t seq)
{
	struct na_qlocals loc = { 0 };
	struct na_out *out;

	if (!n->qt)
		return;
	out = q_enter(n);
	na_qtable_abandon(n->qt, tag, thread, seq, na_now_ns(), out, &loc);
	q_leave(n, out, &loc);
}

bool
na_node_q_holds(struct na_node *n, uint64_t tag, uint16_t thread, uint32_t seq)
{
	bool holds;

	if (!n->qt)
		return false;
	na_node_agents_enter(n);
	holds = na_qtable_holds(n->qt, tag, thread, seq);
	na_node_agents_leave(n);
	return holds;
}

/* ---- sending -------------------------------------------------------------- */

static int
tp_send(struct na_node *n, uint16_t dst, const struct lcf_msg *m,
	const void *payload)
{
	int rc = -EAGAIN;

	for (int tries = 0; tries < 100 && rc == -EAGAIN; tries++) {
		if (tries)
			sched_yield();
		if (n->serialize_tp)
			pthread_mutex_lock(&n->tp_mu);
		rc = n->tp.ops->send(&n->tp, dst, m, payload, m->len);
		if (n->serialize_tp)
			pthread_mutex_unlock(&n->tp_mu);
	}
	return rc;
}

int
na_node_send(struct na_node *n, uint16_t dst, const struct lcf_msg *m,
	     const void *payload)
{
	int rc = 0;

	NA_STAT_INC(n->st.sent[m->type]);
	if (dst == n->self) {
		if (!lcf_type_is_pipeline(m->type)) {
			NA_STAT_INC(n->st.recv[m->type]);
			route(n, m, payload);
			return 0;
		}
		if (n->cfg.direct) {
			/* No switch: to the home as a tag miss would arrive. */
			struct lcf_msg c = *m;

			c.flags &= (uint8_t) ~(LCF_F_IN_SWITCH |
					       LCF_F_DATA_PROVIDER);
			NA_STAT_INC(n->st.recv[m->type]);
			route(n, &c, payload);
			return 0;
		}
		/* else: the transport sends it across the switch. */
	}
	rc = tp_send(n, dst, m, payload);
	if (rc < 0)
		NA_STAT_INC(n->st.send_errors);
	return rc;
}

bool
na_node_send_home_local(struct na_node *n, const struct lcf_msg *m,
			bool any_owner)
{
	struct lcf_msg c = *m;
	struct na_hblock *b;
	struct na_hreq *rq;
	bool ok;

	/* An agent's own send cannot take the section it is in. */
	if (na_node_in_agents || !(n->cfg.roles & NA_ROLE_HOME) ||
	    m->dst_node != n->self)
		return false;
	c.flags &= (uint8_t) ~(LCF_F_IN_SWITCH | LCF_F_DATA_PROVIDER);
	na_node_agents_enter(n);
	b = na_home_lookup(&n->home, &c, &rq);
	ok = b && (any_owner || b->owner == NA_OWN_HOME);
	if (ok) {
		NA_STAT_INC(n->st.sent[m->type]);
		NA_STAT_INC(n->st.recv[m->type]);
		NA_STAT_INC(n->st.req.home_local);
		agents_process(n, &c, NULL, na_classify(&c, n->self));
	}
	na_node_agents_leave(n);
	return ok;
}

bool
na_node_send_home(struct na_node *n, const struct lcf_msg *m, bool try_local,
		  bool any_owner)
{
	if (try_local && na_node_send_home_local(n, m, any_owner))
		return true;
	na_node_send(n, m->dst_node, m, NULL);
	return false;
}

/* ---- dispatch thread ------------------------------------------------------ */

static void
epoch_tick(struct na_node *n)
{
	static __thread struct na_out out;

	if (!(n->cfg.roles & (NA_ROLE_CACHE | NA_ROLE_SHADOW)) ||
	    n->topo->shadow < 0)
		return;
	na_node_agents_enter(n);
	na_out_reset(&out);
	if (n->cfg.roles & NA_ROLE_CACHE)
		na_cagent_epoch(&n->cagent, (uint16_t)n->topo->shadow, &out);
	na_node_flush(n, &out);
	if (n->cfg.roles & NA_ROLE_SHADOW)
		na_shadow_epoch(&n->shadow, &out);
	na_node_flush(n, &out);
	na_node_agents_leave(n);
}

/* Dispatch thread: the home's migration timers, at most once a ms. */
static void
migrate_tick(struct na_node *n)
{
	static __thread struct na_out out;
	struct na_mig_io io = { .out = &out, .flush = mig_flush, .ctx = n };
	uint64_t now = na_now_ns();

	if (!(n->cfg.roles & NA_ROLE_HOME) || n->cfg.direct ||
	    now < n->next_mig_tick_ns)
		return;
	n->next_mig_tick_ns = now + 1000000ull;
	na_node_agents_enter(n);
	na_out_reset(&out);
	na_migrate_tick(&n->migrate, &n->home, now, &io);
	na_node_flush(n, &out);
	na_node_agents_leave(n);
}

static void
rec_tick(struct na_node *n)
{
	static __thread struct na_out out;

	na_node_agents_enter(n);
	na_out_reset(&out);
	na_rec_tick(n->rec, &out);
	na_node_flush(n, &out);
	na_node_agents_leave(n);
}

/* Dispatch thread: the queue holders' timers (queued locks, na_qtable.h),
 * every 0.25 ms. */
static void
queue_tick(struct na_node *n)
{
	static __thread struct na_out out;
	struct na_qlocals loc = { 0 };
	uint64_t now = na_now_ns();

	if (!n->qt || now < n->next_q_tick_ns)
		return;
	n->next_q_tick_ns = now + 250000ull;
	na_node_agents_enter(n);
	na_out_reset(&out);
	na_qtable_tick(n->qt, now, &out, &loc);
	na_node_queue_deliver(n, &loc);
	na_node_flush(n, &out);
	na_node_agents_leave(n);
}

void
na_node_receive(struct na_node *n, const struct lcf_msg *m, const void *payload)
{
	na_node_receive_at(n, m, payload, na_now_ns());
}

void
na_node_receive_at(struct na_node *n, const struct lcf_msg *m,
		   const void *payload, uint64_t rx_ns)
{
	NA_STAT_INC(n->st.recv[m->type]);
	if (na_node_traced(n, m))
		lcf_trace_put(&n->tr, rx_ns, LCF_TP_RX, m->type, m->node,
			      m->thread, m->seq, LCF_TRACE_NO_PEER, 0);
	route(n, m, payload);
}

void
na_node_timers(struct na_node *n)
{
	if (na_now_ns() >= n->next_rec_ns) {
		rec_tick(n);
		n->next_rec_ns = na_now_ns() + 2000000ull;
	}
	if (na_now_ns() >= n->next_epoch_ns) {
		epoch_tick(n);
		n->next_epoch_ns += n->cfg.epoch_ms * 1000000ull;
	}
	migrate_tick(n);
	queue_tick(n);
}

void *
na_node_dispatch(void *arg)
{
	struct na_node *n = arg;
	static __thread struct na_mail x;

	while (!__atomic_load_n(&n->stop, __ATOMIC_RELAXED)) {
		int rc;

		if (n->serialize_tp) {
			pthread_mutex_lock(&n->tp_mu);
			rc = n->tp.ops->recv(&n->tp, &x.m, x.payload,
					     sizeof(x.payload), 0);
			pthread_mutex_unlock(&n->tp_mu);
			if (rc == -EAGAIN)
				usleep(20);
		} else {
			rc = n->tp.ops->recv(&n->tp, &x.m, x.payload,
					     sizeof(x.payload), 10);
		}
		if (rc >= 0)
			na_node_receive(n, &x.m, x.payload);
		na_node_timers(n);
	}
	return NULL;
}
