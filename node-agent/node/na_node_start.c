/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Node runtime: start (transport, cache, agents, recovery, mailboxes, the
 * dispatch thread), stop, static migration at start-up, and the queue
 * holders told of a node declared dead or rejoined. See na_node.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "na_node_int.h"
#include "na_recovery.h"
#include "na_wait.h"

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
		.voh = (n->cfg.roles & NA_ROLE_HOME) ? &n->voh : NULL,
		.q_recovered = na_node_q_recovered,
		.q_ctx = n,
	};

	return na_rec_init(&n->rec, &env);
}

/* The cache agent's write-back of a block it downgraded (na_cagent.h);
 * called inside the agents' section. */
static bool
home_wb(void *ctx, const struct lcf_msg *req, const uint8_t *data)
{
	struct na_node *n = ctx;

	return na_home_write_local(&n->home, req, data);
}

static uint16_t
home_of(void *ctx, uint64_t tag)
{
	struct na_node *n = ctx;

	return (uint16_t)topo_tag_home(n->topo, tag);
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
		snprintf(err, err_len, "node %u is not in the topology",
			 n->self);
		return -EINVAL;
	}
	rc = lcf_trace_init(&n->tr, n->self, cfg->trace_every,
			    cfg->trace_cap ? cfg->trace_cap : 1u << 20);
	if (rc < 0) {
		snprintf(err, err_len, "trace ring: out of memory");
		return rc;
	}
	if (cfg->threads == 0 || cfg->threads > n->topo->threads_per_node ||
	    cfg->threads > 64) {
		snprintf(err, err_len,
			 "--threads %u: must be 1..%u (the topology's "
			 "threads_per_node, at most 64)",
			 cfg->threads,
			 n->topo->threads_per_node < 64
				 ? (unsigned int)n->topo->threads_per_node
				 : 64u);
		return -EINVAL;
	}
	if (n->topo->block_size > NA_MAX_BLOCK) {
		snprintf(err, err_len,
			 "block_size %u: node-agent supports "
			 "at most %u",
			 n->topo->block_size, NA_MAX_BLOCK);
		return -EINVAL;
	}
	ops = cfg->transport_ops
		      ? cfg->transport_ops
		      : na_transport_find(cfg->transport ? cfg->transport
							 : "udp");
	if (!ops) {
		snprintf(err, err_len,
			 "unknown transport \"%s\" (udp, udp-nosteer, verbs)",
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
		snprintf(err, err_len,
			 "home agent: cannot allocate %llu bytes "
			 "of global memory (a multiple of 32 MB)",
			 (unsigned long long)cfg->mem_size);
		goto fail;
	}
	if ((cfg->roles & NA_ROLE_HOME) && cfg->directory &&
	    na_dir_attach(&n->home))
		goto fail;
	if ((cfg->roles & NA_ROLE_HOME) && na_node_voh_start(n))
		goto fail;
	if (na_cagent_init(&n->cagent, n->self, n->topo->threads_per_node,
			   &n->cache) ||
	    na_shadow_init(&n->shadow, n->topo, n->self) ||
	    na_migrate_init(&n->migrate, cfg->migrate, n->cfg.migrate_k,
			    n->cfg.epoch_ms, n->topo->shadow, na_now_ns()))
		goto fail;
	if ((cfg->roles & NA_ROLE_HOME) && !cfg->directory)
		n->cagent.home_wb = home_wb;
	if (!cfg->directory) {
		n->cagent.home_of = home_of;
		n->cagent.home_ctx = n;
	}
	if (rec_init(n) || na_node_queue_init(n))
		goto fail;
	n->fifo = malloc(sizeof(*n->fifo) * NA_FIFO_CAP);
	n->mbox = calloc(cfg->threads, sizeof(*n->mbox));
	n->sabrx = calloc(cfg->threads, sizeof(*n->sabrx));
	if (!n->fifo || !n->mbox || !n->sabrx)
		goto fail;
	for (uint16_t i = 0; i < cfg->threads; i++)
		if (na_mbox_init(&n->mbox[i]) || na_sabre_rx_init(&n->sabrx[i]))
			goto fail;
	n->next_epoch_ns = na_now_ns() + n->cfg.epoch_ms * 1000000ull;
	if (!cfg->external_dispatch) {
		rc = pthread_create(&n->disp, NULL, na_node_dispatch, n);
		if (rc) {
			snprintf(err, err_len, "pthread_create: %s",
				 strerror(rc));
			rc = -rc;
			goto fail;
		}
		/* Named for top -H, perf and the benchmarks' per-thread
		 * wake-up counts (scripts/cluster_run.py). */
		pthread_setname_np(n->disp, "na-dispatch");
		n->disp_running = true;
	}
	err[0] = '\0';
	return 0;
fail:
	na_node_stop(n);
	return rc;
}

/* The trace ring to cfg.trace_path (requesters and dispatch stopped). */
static void
trace_write(struct na_node *n)
{
	FILE *f;

	if (!n->tr.every || !n->cfg.trace_path)
		return;
	f = fopen(n->cfg.trace_path, "wb");
	if (f == NULL || lcf_trace_dump(&n->tr, f) < 0)
		fprintf(stderr, "node %u: trace %s: cannot write\n", n->self,
			n->cfg.trace_path);
	if (f != NULL)
		fclose(f);
	lcf_trace_fini(&n->tr);
}

void
na_node_stop(struct na_node *n)
{
	if (n->disp_running) {
		__atomic_store_n(&n->stop, 1, __ATOMIC_RELAXED);
		pthread_join(n->disp, NULL);
		n->disp_running = false;
	}
	na_node_voh_stop(n); /* its thread sends: before the transport */
	trace_write(n);
	if (n->tp_open) {
		n->tp.ops->close(&n->tp);
		n->tp_open = false;
	}
	if (n->mbox) {
		for (uint16_t i = 0; i < n->cfg.threads; i++)
			if (n->mbox[i].q)
				na_mbox_fini(&n->mbox[i]);
		free(n->mbox);
		n->mbox = NULL;
	}
	if (n->sabrx) {
		for (uint16_t i = 0; i < n->cfg.threads; i++)
			na_sabre_rx_fini(&n->sabrx[i]);
		free(n->sabrx);
		n->sabrx = NULL;
	}
	free(n->fifo);
	n->fifo = NULL;
	na_rec_fini(n->rec);
	n->rec = NULL;
	na_node_queue_fini(n);
	na_shadow_fini(&n->shadow);
	na_migrate_fini(&n->migrate);
	na_cagent_fini(&n->cagent);
	na_dir_detach(&n->home);
	if (n->home.mem)
		na_home_fini(&n->home);
	na_cache_fini(&n->cache);
	lcf_trace_fini(&n->tr);
}

/* ---- static migration ----------------------------------------------------- */

/*
 * How long static ADDs sent `el` ago may go unanswered: twice the ADDs'
 * round trip (na_home_add_rto; many blocks, one ACK each: the last answers
 * queue behind the first). Each block answered (OK or FAIL) since the last
 * call, counted in `*answered`, is a sample of `el`: at the loop's 2 ms
 * grain, an over-estimate.
 */
static uint64_t
static_rto(struct na_home *h, uint32_t count, uint64_t el, uint32_t *answered)
{
	uint32_t now = 0;

	for (uint32_t i = 0; i < count; i++) {
		const struct na_hblock *b = &h->blk[i];

		now += b->owner == NA_OWN_SWITCH ||
		       (b->owner == NA_OWN_MIGRATING && b->add_hold) ||
		       (b->owner == NA_OWN_HOME && b->add_collided);
	}
	for (; *answered < now; (*answered)++)
		na_home_add_rtt_sample(h, el);
	return 2 * na_home_add_rto(h);
}

uint32_t
na_node_migrate_static(struct na_node *n, uint32_t count)
{
	static struct na_out out;
	uint32_t ok = 0, pending;
	uint32_t answered = 0;
	uint64_t t0, el;
	bool wait;

	if (!(n->cfg.roles & NA_ROLE_HOME) || !count)
		return 0;
	if (count > n->home.n_blocks)
		count = n->home.n_blocks;
	na_node_agents_enter(n);
	na_out_reset(&out);
	for (uint32_t i = 0; i < count; i++) {
		na_home_migrate_start(&n->home, i, na_now_ns(), &out);
		if (out.n >= NA_OUT_MAX - 1)
			na_node_flush(n, &out);
	}
	na_node_flush(n, &out);
	na_node_agents_leave(n);
	t0 = na_now_ns();

	/* An unanswered ADD is settled, not re-sent (na_home_migrate_timeout):
	 * the switch may have restarted since a copy installed it. */
	for (int round = 0; round < 100; round++) {
		na_sleep_until(na_now_ns() +
			       (round < 10 ? 2000000ull : 20000000ull));
		pending = 0;
		na_node_agents_enter(n);
		na_out_reset(&out);
		el = na_now_ns() - t0;
		wait = el < static_rto(&n->home, count, el, &answered);
		for (uint32_t i = 0; i < count; i++) {
			const struct na_hblock *b = &n->home.blk[i];

			/* A block a peer's request held locked at the first
			 * pass (the peers' workloads may run before this
			 * home's) starts now: a home may start an ADD whenever
			 * it owns the block unlocked (homelocal.pml's home). */
			if (b->owner == NA_OWN_HOME && b->add_seq == 0) {
				if (na_home_migrate_start(&n->home, i,
							  na_now_ns(),
							  &out) != -EINVAL)
					pending++;
			} else if (wait && b->owner == NA_OWN_MIGRATING &&
				   !b->add_hold && !b->add_draining)
				pending++;
			else if (na_home_migrate_timeout(&n->home, i,
							 na_now_ns(),
							 &out) >= 0)
				pending++;
			if (out.n >= NA_OUT_MAX - 1)
				na_node_flush(n, &out);
		}
		na_node_flush(n, &out);
		na_node_agents_leave(n);
		if (!pending)
			break;
	}
	pthread_mutex_lock(&n->agent_mu);
	for (uint32_t i = 0; i < count; i++) {
		struct na_hblock *b = &n->home.blk[i];

		if (b->owner == NA_OWN_SWITCH) {
			ok++;
		} else if (b->owner == NA_OWN_MIGRATING && !b->add_draining) {
			/* No answer: no switch on the path. Keep it home. */
			b->owner = NA_OWN_HOME;
			b->writer = false;
		}
	}
	pthread_mutex_unlock(&n->agent_mu);
	return ok;
}

/* ---- a node declared dead or rejoined: the queue holders (na_node.h) ---- */

void
na_node_q_node_rejoined(struct na_node *n, uint16_t node)
{
	if (!n->qt)
		return;
	na_node_agents_enter(n);
	na_qtable_node_rejoined(n->qt, node);
	na_node_agents_leave(n);
}

int
na_node_q_node_failed(struct na_node *n, uint16_t node)
{
	struct na_qlocals loc;
	int rc;

	if (!n->qt)
		return 0;
	na_node_agents_enter(n);
	do {
		loc.n = 0;
		rc = na_qtable_node_failed(n->qt, node, &loc);
		na_node_queue_deliver(n, &loc);
	} while (rc == 1);
	na_node_agents_leave(n);
	return rc;
}
