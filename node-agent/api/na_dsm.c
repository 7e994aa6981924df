/* SPDX-License-Identifier: BSD-3-Clause
 *
 * libdsm's public functions (dsm.h): joining the DSM, each thread's handle,
 * reads and writes of any size split per block, and the per-block lock API.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsm.h"
#include "na_recovery.h"
#include "na_requester.h"
#include "na_voh_int.h"

int na_alloc_init(struct dsm *d);
void na_alloc_fini(struct dsm *d);

/* A thread's handle: its requester state (na_requester.h). */
static int
thread_init(struct dsm_thread *t, struct dsm *d, uint16_t id)
{
	memset(t, 0, sizeof(*t));
	t->d = d;
	t->n = &d->node;
	t->id = id;
	t->rtt_ns = NA_RTT_INIT_NS;
	t->rng = (uint32_t)(d->node.self * 7919u + id * 104729u + 1u) ^
		 d->node.cfg.seed;
	if (!t->rng)
		t->rng = 1;
	t->buf = malloc(d->topo.block_size);
	t->stale.buf = malloc(d->topo.block_size);
	t->tbuf = malloc(d->topo.block_size);
	t->dbuf = malloc(d->topo.block_size);
	return t->buf && t->stale.buf && t->tbuf && t->dbuf ? 0 : -ENOMEM;
}

static void
thread_fini(struct dsm_thread *t)
{
	free(t->buf);
	free(t->stale.buf);
	free(t->tbuf);
	free(t->dbuf);
	t->tbuf = NULL;
	t->dbuf = NULL;
	t->buf = NULL;
	t->stale.buf = NULL;
}

static int
parse_roles(const char *s, unsigned *roles, char *err, size_t err_len)
{
	char buf[64], *tok, *save = NULL;

	*roles = 0;
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "home"))
			*roles |= NA_ROLE_HOME;
		else if (!strcmp(tok, "cache"))
			*roles |= NA_ROLE_CACHE;
		else if (!strcmp(tok, "shadow"))
			*roles |= NA_ROLE_SHADOW;
		else {
			snprintf(err, err_len,
				 "--role: unknown role \"%s\" "
				 "(home, cache, shadow)",
				 tok);
			return -EINVAL;
		}
	}
	return 0;
}

int
dsm_node_failed(struct dsm *d, uint16_t node)
{
	int rc = na_rec_node_failed(d->node.rec, node);

	/* Queued locks: no tenure is handed to or queued for it any more
	 * (lib/model/qfault.pml). */
	return rc ? rc : na_node_q_node_failed(&d->node, node);
}

int
dsm_node_rejoined(struct dsm *d, uint16_t node)
{
	int rc = na_rec_node_rejoined(d->node.rec, node);

	/* Queued locks: its new incarnation's events are granted again
	 * (lib/model/qrejoin.pml). */
	if (rc == 0)
		na_node_q_node_rejoined(&d->node, node);
	return rc;
}

int
dsm_open(const struct dsm_config *cfg, struct dsm **out, char *err,
	 size_t err_len)
{
	char terr[TOPO_ERR_LEN];
	struct topo *t;
	int rc;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	rc = topo_load(cfg->topo_path, t, terr);
	if (rc < 0)
		snprintf(err, err_len, "topology %s: %s", cfg->topo_path, terr);
	else
		rc = na_dsm_open(cfg, t, NULL, false, out, err, err_len);
	free(t);
	return rc;
}

int
na_dsm_open(const struct dsm_config *cfg, const struct topo *topo,
	    const struct na_transport_ops *tp_ops, bool external_dispatch,
	    struct dsm **out, char *err, size_t err_len)
{
	struct na_node_config nc;
	struct dsm *d;
	int rc;

	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->topo = *topo;
	d->pipe_depth = cfg->pipe_depth;
	memset(&nc, 0, sizeof(nc));
	nc.topo = &d->topo;
	nc.self = cfg->node;
	nc.transport = cfg->transport ? cfg->transport : "udp";
	nc.transport_ops = tp_ops;
	nc.external_dispatch = external_dispatch;
	nc.threads = cfg->threads ? cfg->threads : 1;
	nc.cache_entries = (uint32_t)(((uint64_t)(cfg->cache_mb ? cfg->cache_mb
								: 64)
				       << 20) /
				      d->topo.block_size);
	if (cfg->cache_blocks)
		nc.cache_entries = cfg->cache_blocks;
	nc.mem_size = (uint64_t)(cfg->mem_mb ? cfg->mem_mb : 128) << 20;
	nc.direct = cfg->direct;
	nc.directory = cfg->directory;
	nc.seed = cfg->seed;
	nc.migrate = cfg->migrate;
	nc.migrate_k = cfg->migrate_k;
	nc.epoch_ms = cfg->epoch_ms;
	nc.trace_every = cfg->trace_every;
	nc.trace_path = cfg->trace_path;
	if (cfg->roles) {
		rc = parse_roles(cfg->roles, &nc.roles, err, err_len);
		if (rc < 0) {
			free(d);
			return rc;
		}
	} else {
		nc.roles = NA_ROLE_HOME | NA_ROLE_CACHE;
		if (d->topo.shadow == cfg->node)
			nc.roles |= NA_ROLE_SHADOW;
	}
	rc = na_node_start(&d->node, &nc, err, err_len);
	if (rc < 0) {
		free(d);
		return rc;
	}
	d->threads = calloc(nc.threads, sizeof(*d->threads));
	rc = d->threads ? na_alloc_init(d) : -ENOMEM;
	if (rc == 0)
		rc = na_voh_init(d);
	for (uint16_t i = 0; rc == 0 && i < nc.threads; i++)
		rc = thread_init(&d->threads[i], d, i);
	if (rc < 0) {
		snprintf(err, err_len, "out of memory");
		dsm_close(d);
		return rc;
	}
	*out = d;
	return 0;
}

void
dsm_stop(struct dsm *d)
{
	__atomic_store_n(&d->stopping, 1, __ATOMIC_RELAXED);
}

void
dsm_close(struct dsm *d)
{
	if (!d)
		return;
	if (d->threads) {
		dsm_stop(d);
		for (uint16_t i = 0; i < d->node.cfg.threads; i++) {
			if (d->threads[i].buf)
				na_req_flush(&d->threads[i]);
			thread_fini(&d->threads[i]);
		}
	}
	na_node_stop(&d->node);
	na_alloc_fini(d);
	na_voh_fini(d);
	free(d->threads);
	free(d);
}

struct dsm_thread *
dsm_thread(struct dsm *d, uint16_t thread)
{
	return thread < d->node.cfg.threads ? &d->threads[thread] : NULL;
}

uint32_t
dsm_block_size(const struct dsm *d)
{
	return d->topo.block_size;
}

/* Valid global address range? The home must be a node of the topology. */
static bool
addr_ok(const struct dsm_thread *t, dsm_addr_t addr, size_t len)
{
	const struct topo *tp = &t->d->topo;
	uint64_t off = addr & ((1ull << 48) - 1);

	return len > 0 && topo_node_by_id(tp, (uint32_t)(addr >> 48)) &&
	       off + len <= (1ull << 48) && off + len > off;
}

/* Split an access into per-block pieces. */
static int
access_range(struct dsm_thread *t, dsm_addr_t addr, uint8_t *buf, size_t len,
	     enum na_mode mode)
{
	uint8_t shift = t->d->topo.block_shift;
	uint32_t bs = t->d->topo.block_size;

	if (!addr_ok(t, addr, len))
		return -EINVAL;
	while (len) {
		uint32_t off = (uint32_t)(addr & (bs - 1));
		uint32_t n = bs - off < len ? bs - off : (uint32_t)len;
		int rc;

		/* A VALIDATE or TTL region's access (docs/VALIDATE.md) or,
		 * with none, the invalidation protocol's. */
		rc = na_voh_any(t->d->voh)
			     ? na_voh_access(t, addr >> shift, off, n, buf,
					     mode == NA_M_WRITE)
			     : 1;
		if (rc == 1)
			rc = na_req_access(t, addr >> shift, off, n, buf, mode);
		if (rc < 0)
			return rc;
		if (mode == NA_M_READ)
			NA_STAT_INC(t->n->st.req.reads);
		else
			NA_STAT_INC(t->n->st.req.writes);
		addr += n;
		buf += n;
		len -= n;
	}
	return 0;
}

int
dsm_read(struct dsm_thread *t, dsm_addr_t addr, void *buf, size_t len)
{
	return access_range(t, addr, buf, len, NA_M_READ);
}

int
dsm_write(struct dsm_thread *t, dsm_addr_t addr, const void *buf, size_t len)
{
	return access_range(t, addr, (uint8_t *)(uintptr_t)buf, len,
			    NA_M_WRITE);
}

int
dsm_rlock(struct dsm_thread *t, dsm_addr_t addr)
{
	if (!addr_ok(t, addr, 1))
		return -EINVAL;
	return na_req_access(t, addr >> t->d->topo.block_shift, 0, 0, NULL,
			     NA_M_PIN_R);
}

int
dsm_wlock(struct dsm_thread *t, dsm_addr_t addr)
{
	if (!addr_ok(t, addr, 1))
		return -EINVAL;
	return na_req_access(t, addr >> t->d->topo.block_shift, 0, 0, NULL,
			     NA_M_PIN_W);
}

int
dsm_unlock(struct dsm_thread *t, dsm_addr_t addr)
{
	if (!addr_ok(t, addr, 1))
		return -EINVAL;
	return na_req_unpin(t, addr >> t->d->topo.block_shift);
}

void
dsm_sync(struct dsm_thread *t)
{
	/* A refused event whose copy may hold a lock ends here too, not only
	 * before the thread's next event: a thread that stops must not keep
	 * it. */
	na_req_end_stale(t);
	na_req_flush(t);
}

void
dsm_trace_mark(struct dsm *d)
{
	if (d->node.tr.every)
		lcf_trace_put(&d->node.tr, na_now_ns(), LCF_TP_MARK, 0,
			      d->node.self, 0, 0, LCF_TRACE_NO_PEER, 0);
}

int
dsm_stats_json(struct dsm *d, FILE *f)
{
	fprintf(f, "{\"node\":%u,", d->node.self);
	na_node_stats_json(&d->node, f);
	fprintf(f, "}\n");
	return ferror(f) ? -EIO : 0;
}
