/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Node runtime: transport, dispatch thread, mailboxes, local delivery to the
 * agents. See na_node.h.
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
#include "na_node.h"
#include "na_proto.h"
#include "na_recovery.h"

/* Set while this thread runs the agents (holds agent_mu). */
static __thread bool tls_in_agents;

/* ---- mailboxes ---------------------------------------------------------- */

static int
mbox_init(struct na_mailbox *mb)
{
	pthread_condattr_t ca;

	pthread_mutex_init(&mb->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&mb->cv, &ca);
	pthread_condattr_destroy(&ca);
	mb->head = mb->tail = 0;
	mb->q = malloc(sizeof(*mb->q) * NA_MBOX_CAP);
	return mb->q ? 0 : -ENOMEM;
}

static void
mbox_fini(struct na_mailbox *mb)
{
	pthread_mutex_destroy(&mb->mu);
	pthread_cond_destroy(&mb->cv);
	free(mb->q);
}

static void
mbox_push(struct na_node *n, uint16_t thread, const struct lcf_msg *m,
	  const void *payload)
{
	struct na_mailbox *mb;

	if (thread >= n->cfg.threads) {
		NA_STAT_INC(n->st.dropped);
		return;
	}
	mb = &n->mbox[thread];
	pthread_mutex_lock(&mb->mu);
	if (mb->tail - mb->head >= NA_MBOX_CAP) {
		/* A lost message: the requester's timers recover from it. */
		NA_STAT_INC(n->st.mbox_overflow);
	} else {
		struct na_mail *x = &mb->q[mb->tail++ % NA_MBOX_CAP];

		x->m = *m;
		if (m->len)
			memcpy(x->payload, payload, m->len);
		pthread_cond_signal(&mb->cv);
	}
	pthread_mutex_unlock(&mb->mu);
}

int
na_node_mbox_wait(struct na_node *n, uint16_t thread, struct na_mail *out,
		  uint64_t deadline_ns)
{
	struct na_mailbox *mb = &n->mbox[thread];
	struct timespec ts = {
		.tv_sec = (time_t)(deadline_ns / 1000000000ull),
		.tv_nsec = (long)(deadline_ns % 1000000000ull),
	};
	int rc = 0;

	pthread_mutex_lock(&mb->mu);
	while (mb->head == mb->tail && rc == 0)
		rc = pthread_cond_timedwait(&mb->cv, &mb->mu, &ts);
	if (mb->head != mb->tail) {
		struct na_mail *x = &mb->q[mb->head++ % NA_MBOX_CAP];

		out->m = x->m;
		if (x->m.len)
			memcpy(out->payload, x->payload, x->m.len);
		rc = 0;
	} else {
		rc = -ETIMEDOUT;
	}
	pthread_mutex_unlock(&mb->mu);
	return rc;
}

/* ---- agents --------------------------------------------------------------- */

static void route(struct na_node *n, const struct lcf_msg *m,
		  const void *payload);

static void
flush_out(struct na_node *n, struct na_out *out)
{
	for (uint32_t i = 0; i < out->n; i++)
		na_node_send(n, out->m[i].dst, &out->m[i].msg,
			     out->m[i].payload);
	out->n = 0;
}

/* ---- dynamic migration hooks (na_migrate.h) ------------------------------ */

static void
mig_flush(void *ctx, struct na_out *out)
{
	flush_out(ctx, out);
}

static void
migrate_handle(struct na_node *n, const struct lcf_msg *m, struct na_out *out)
{
	struct na_mig_io io = { .out = out, .flush = mig_flush, .ctx = n };

	if (na_migrate_handle(&n->migrate, &n->home, m, na_now_ns(), &io))
		na_rec_block_lost(n->rec, m->tag, out);
}

/* Run one message through the agents; agent_mu held. */
static void
agents_process(struct na_node *n, const struct lcf_msg *m, const void *payload)
{
	static __thread struct na_out out;
	enum na_route r = na_classify(m, n->self);
	unsigned roles = n->cfg.roles;

	na_out_reset(&out);
	if (na_rec_agents(n->rec, m, payload, &out))
		r = NA_ROUTE_DROP;      /* consumed by the recovery */
	switch (r) {
	case NA_ROUTE_DROP:
		break;
	case NA_ROUTE_HOME:
		if (roles & NA_ROLE_HOME) {
			na_home_handle(&n->home, m, payload, m->len, &out);
			/* Figure 10's count: messages in and out of the home. */
			NA_STAT_INC(n->st.home_rx);
			NA_STAT_ADD(n->st.home_tx, out.n);
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
	flush_out(n, &out);
}

static void
agents_drain(struct na_node *n)
{
	while (n->fifo_head != n->fifo_tail) {
		struct na_mail x = n->fifo[n->fifo_head++ % NA_FIFO_CAP];

		agents_process(n, &x.m, x.payload);
	}
}

/* Deliver to this node's agents, from any thread. */
static void
agents_deliver(struct na_node *n, const struct lcf_msg *m, const void *payload)
{
	if (tls_in_agents) {
		/* An agent sending to its own node: queue, the holder drains. */
		if (n->fifo_tail - n->fifo_head >= NA_FIFO_CAP) {
			NA_STAT_INC(n->st.mbox_overflow);
			return;
		}
		struct na_mail *x = &n->fifo[n->fifo_tail++ % NA_FIFO_CAP];

		x->m = *m;
		if (m->len)
			memcpy(x->payload, payload, m->len);
		return;
	}
	pthread_mutex_lock(&n->agent_mu);
	tls_in_agents = true;
	agents_process(n, m, payload);
	agents_drain(n);
	tls_in_agents = false;
	pthread_mutex_unlock(&n->agent_mu);
}

static void
route(struct na_node *n, const struct lcf_msg *m, const void *payload)
{
	if (na_rec_is_msg(m->type)) {
		agents_deliver(n, m, payload);
		return;
	}
	switch (na_classify(m, n->self)) {
	case NA_ROUTE_REQUESTER:
		mbox_push(n, m->thread, m, payload);
		return;
	case NA_ROUTE_DROP:
		NA_STAT_INC(n->st.dropped);
		return;
	default:
		agents_deliver(n, m, payload);
		return;
	}
}

void
na_node_run_deferred(struct na_node *n)
{
	static __thread struct na_out out;

	pthread_mutex_lock(&n->agent_mu);
	tls_in_agents = true;
	do {
		na_out_reset(&out);
		na_cagent_run_deferred(&n->cagent, &out);
		flush_out(n, &out);
	} while (out.overflow);
	agents_drain(n);
	tls_in_agents = false;
	pthread_mutex_unlock(&n->agent_mu);
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

			c.flags &= (uint8_t)~(LCF_F_IN_SWITCH |
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

/* ---- dispatch thread ------------------------------------------------------ */

static void
epoch_tick(struct na_node *n)
{
	static __thread struct na_out out;

	if (!(n->cfg.roles & (NA_ROLE_CACHE | NA_ROLE_SHADOW)) ||
	    n->topo->shadow < 0)
		return;
	pthread_mutex_lock(&n->agent_mu);
	tls_in_agents = true;
	na_out_reset(&out);
	if (n->cfg.roles & NA_ROLE_CACHE)
		na_cagent_epoch(&n->cagent, (uint16_t)n->topo->shadow, &out);
	flush_out(n, &out);
	if (n->cfg.roles & NA_ROLE_SHADOW)
		na_shadow_epoch(&n->shadow, &out);
	flush_out(n, &out);
	agents_drain(n);
	tls_in_agents = false;
	pthread_mutex_unlock(&n->agent_mu);
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
	pthread_mutex_lock(&n->agent_mu);
	tls_in_agents = true;
	na_out_reset(&out);
	na_migrate_tick(&n->migrate, &n->home, now, &io);
	flush_out(n, &out);
	agents_drain(n);
	tls_in_agents = false;
	pthread_mutex_unlock(&n->agent_mu);
}

static void
rec_tick(struct na_node *n)
{
	static __thread struct na_out out;

	pthread_mutex_lock(&n->agent_mu);
	tls_in_agents = true;
	na_out_reset(&out);
	na_rec_tick(n->rec, &out);
	flush_out(n, &out);
	agents_drain(n);
	tls_in_agents = false;
	pthread_mutex_unlock(&n->agent_mu);
}

static void *
dispatch_main(void *arg)
{
	struct na_node *n = arg;
	static __thread struct na_mail x;
	uint64_t next_epoch = na_now_ns() + n->cfg.epoch_ms * 1000000ull;
	uint64_t next_rec = 0;

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
		if (rc >= 0) {
			NA_STAT_INC(n->st.recv[x.m.type]);
			route(n, &x.m, x.payload);
		}
		if (na_now_ns() >= next_rec) {
			rec_tick(n);
			next_rec = na_now_ns() + 2000000ull;
		}
		if (na_now_ns() >= next_epoch) {
			epoch_tick(n);
			next_epoch += n->cfg.epoch_ms * 1000000ull;
		}
		migrate_tick(n);
	}
	return NULL;
}

/* ---- start / stop --------------------------------------------------------- */

/* The recovery works on this node's agents (na_recovery.h). */
static int
rec_init(struct na_node *n)
{
	struct na_rec_env env = {
		.topo = n->topo,
		.self = n->self,
		.threads = n->cfg.threads,
		.role_home = n->cfg.roles & NA_ROLE_HOME,
		.role_shadow = n->cfg.roles & NA_ROLE_SHADOW,
		.cache = &n->cache,
		.home = &n->home,
		.cagent = &n->cagent,
		.shadow = &n->shadow,
	};

	return na_rec_init(&n->rec, &env);
}

int
na_node_start(struct na_node *n, const struct na_node_config *cfg, char *err,
	      size_t err_len)
{
	const struct na_transport_ops *ops;
	int rc;

	memset(n, 0, sizeof(*n));
	n->cfg = *cfg;
	if (!n->cfg.epoch_ms)
		n->cfg.epoch_ms = NA_MIGRATE_DEFAULT_EPOCH_MS;
	if (!n->cfg.migrate_k)
		n->cfg.migrate_k = NA_MIGRATE_DEFAULT_K;
	n->topo = cfg->topo;
	n->self = cfg->self;
	pthread_mutex_init(&n->tp_mu, NULL);
	pthread_mutex_init(&n->agent_mu, NULL);
	if (!topo_node_by_id(n->topo, n->self)) {
		snprintf(err, err_len, "node %u is not in the topology", n->self);
		return -EINVAL;
	}
	if (cfg->threads == 0 || cfg->threads > n->topo->threads_per_node ||
	    cfg->threads > 64) {
		snprintf(err, err_len,
			 "--threads %u: must be 1..%u (the topology's "
			 "threads_per_node, at most 64)", cfg->threads,
			 n->topo->threads_per_node < 64 ?
			 n->topo->threads_per_node : 64);
		return -EINVAL;
	}
	if (n->topo->block_size > NA_MAX_BLOCK) {
		snprintf(err, err_len, "block_size %u: node-agent supports "
			 "at most %u", n->topo->block_size, NA_MAX_BLOCK);
		return -EINVAL;
	}
	ops = na_transport_find(cfg->transport ? cfg->transport : "udp");
	if (!ops) {
		snprintf(err, err_len, "unknown transport \"%s\" (udp, udp-nosteer, verbs)",
			 cfg->transport);
		return -EINVAL;
	}
	n->tp.ops = ops;
	n->serialize_tp = strncmp(ops->name, "udp", 3) != 0;
	rc = ops->open(&n->tp, n->topo, n->self, err, err_len);
	if (rc < 0)
		return rc;
	n->tp_open = true;

	rc = -ENOMEM;
	snprintf(err, err_len, "out of memory");
	if (na_cache_init(&n->cache, cfg->cache_entries, n->topo->block_size))
		goto fail;
	if ((cfg->roles & NA_ROLE_HOME) &&
	    na_home_init(&n->home, n->topo, n->self, cfg->mem_size,
			 cfg->seed * 2654435761u + n->self + 1)) {
		snprintf(err, err_len, "home agent: cannot allocate %llu bytes "
			 "of global memory (a multiple of 32 MB)",
			 (unsigned long long)cfg->mem_size);
		goto fail;
	}
	if ((cfg->roles & NA_ROLE_HOME) && cfg->directory &&
	    na_dir_attach(&n->home))
		goto fail;
	if (na_cagent_init(&n->cagent, n->self, n->topo->threads_per_node,
			   &n->cache) ||
	    na_shadow_init(&n->shadow, n->topo, n->self) ||
	    na_migrate_init(&n->migrate, cfg->migrate, n->cfg.migrate_k,
			    n->cfg.epoch_ms, n->topo->shadow, na_now_ns()))
		goto fail;
	if (rec_init(n))
		goto fail;
	n->fifo = malloc(sizeof(*n->fifo) * NA_FIFO_CAP);
	n->mbox = calloc(cfg->threads, sizeof(*n->mbox));
	if (!n->fifo || !n->mbox)
		goto fail;
	for (uint16_t i = 0; i < cfg->threads; i++)
		if (mbox_init(&n->mbox[i]))
			goto fail;
	rc = pthread_create(&n->disp, NULL, dispatch_main, n);
	if (rc) {
		snprintf(err, err_len, "pthread_create: %s", strerror(rc));
		rc = -rc;
		goto fail;
	}
	n->disp_running = true;
	err[0] = '\0';
	return 0;
fail:
	na_node_stop(n);
	return rc;
}

void
na_node_stop(struct na_node *n)
{
	if (n->disp_running) {
		__atomic_store_n(&n->stop, 1, __ATOMIC_RELAXED);
		pthread_join(n->disp, NULL);
		n->disp_running = false;
	}
	if (n->tp_open) {
		n->tp.ops->close(&n->tp);
		n->tp_open = false;
	}
	if (n->mbox) {
		for (uint16_t i = 0; i < n->cfg.threads; i++)
			if (n->mbox[i].q)
				mbox_fini(&n->mbox[i]);
		free(n->mbox);
		n->mbox = NULL;
	}
	free(n->fifo);
	n->fifo = NULL;
	na_rec_fini(n->rec);
	n->rec = NULL;
	na_shadow_fini(&n->shadow);
	na_migrate_fini(&n->migrate);
	na_cagent_fini(&n->cagent);
	na_dir_detach(&n->home);
	if (n->home.mem)
		na_home_fini(&n->home);
	na_cache_fini(&n->cache);
}

/* ---- static migration ----------------------------------------------------- */

uint32_t
na_node_migrate_static(struct na_node *n, uint32_t count)
{
	static struct na_out out;
	uint32_t ok = 0, pending;

	if (!(n->cfg.roles & NA_ROLE_HOME) || !count)
		return 0;
	if (count > n->home.n_blocks)
		count = n->home.n_blocks;
	pthread_mutex_lock(&n->agent_mu);
	tls_in_agents = true;
	na_out_reset(&out);
	for (uint32_t i = 0; i < count; i++) {
		na_home_migrate_start(&n->home, i, &out);
		if (out.n >= NA_OUT_MAX - 1)
			flush_out(n, &out);
	}
	flush_out(n, &out);
	agents_drain(n);
	tls_in_agents = false;
	pthread_mutex_unlock(&n->agent_mu);

	/* ADDs are idempotent at the switch: re-send until every ACK is in. */
	for (int round = 0; round < 100; round++) {
		usleep(round < 10 ? 2000 : 20000);
		pending = 0;
		pthread_mutex_lock(&n->agent_mu);
		tls_in_agents = true;
		na_out_reset(&out);
		for (uint32_t i = 0; i < count; i++) {
			if (na_home_migrate_resend(&n->home, i, &out) == 0)
				pending++;
			if (out.n >= NA_OUT_MAX - 1)
				flush_out(n, &out);
		}
		flush_out(n, &out);
		agents_drain(n);
		tls_in_agents = false;
		pthread_mutex_unlock(&n->agent_mu);
		if (!pending)
			break;
	}
	pthread_mutex_lock(&n->agent_mu);
	for (uint32_t i = 0; i < count; i++) {
		struct na_hblock *b = &n->home.blk[i];

		if (b->owner == NA_OWN_SWITCH) {
			ok++;
		} else if (b->owner == NA_OWN_MIGRATING) {
			/* No answer: no switch on the path. Keep it home. */
			b->owner = NA_OWN_HOME;
			b->writer = false;
		}
	}
	pthread_mutex_unlock(&n->agent_mu);
	return ok;
}
