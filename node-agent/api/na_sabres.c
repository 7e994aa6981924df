/* SPDX-License-Identifier: BSD-3-Clause
 *
 * libdsm's object functions (dsm.h, docs/SABRES.md): SABRe atomic object
 * reads served from the home's memory, plain one-sided reads, and the
 * seqlock writer that goes through the coherent write path and writes
 * every block home inside its write event.
 */
#include <errno.h>
#include <string.h>

#include "dsm.h"
#include "na_msg.h"
#include "na_requester.h"
#include "na_sabres.h"

#define NA_SAB_MAX_TRIES 10000u /* dsm_read_object's attempts */
/*
 * An attempt's deadline: the event timeout, at least 20 ms. The replies'
 * loss is rare; a host's scheduling delays (2 cores, namespaces) are not,
 * and a premature retry only adds load.
 */
#define NA_SAB_MIN_WAIT_NS 20000000ull

/* An object (or a plain read) inside one home's memory? */
static bool
range_ok(const struct dsm_thread *t, dsm_addr_t addr, size_t len,
	 size_t min_len)
{
	uint64_t off = addr & ((1ull << 48) - 1);

	return len >= min_len && len <= NA_SAB_MAX_LEN &&
	       topo_node_by_id(&t->d->topo, (uint32_t)(addr >> 48)) &&
	       off + len > off && off + len <= (1ull << 48);
}

/* One attempt: REG (unless plain), every chunk request, wait. */
static int
read_once(struct dsm_thread *t, dsm_addr_t addr, uint32_t len, void *buf,
	  bool plain, uint32_t attempt)
{
	struct na_sabre_rx *r = &t->n->sabrx[t->id];
	uint16_t home = (uint16_t)(addr >> 48);
	uint32_t n = na_sab_chunks(len);
	uint8_t p[NA_SAB_REQ_LEN];
	struct lcf_msg m;
	uint64_t wait;
	int rc;

	na_req_service(t); /* keep our last unlock moving */
	if (++t->sab_seq == 0)
		t->sab_seq = 1;
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(addr >> (56 - 8 * i));
	for (int i = 0; i < 4; i++)
		p[8 + i] = (uint8_t)(len >> (24 - 8 * i));
	na_req_msg(t, &m, 0, t->sab_seq, addr >> t->d->topo.block_shift, home);
	m.len = NA_SAB_REQ_LEN;
	na_sabre_rx_arm(r, m.seq, buf, len, plain);
	if (!plain) {
		m.type = NA_MSG_SABRE_REG;
		m.aux = n;
		na_node_send(t->n, home, &m, p);
	}
	/* All chunk reads at once (LightSABRes: no read-version-first). */
	m.type = plain ? NA_MSG_RREAD : NA_MSG_SABRE_READ;
	for (uint32_t c = 0; c < n; c++) {
		m.aux = c;
		na_node_send(t->n, home, &m, p);
	}
	wait = na_req_timeout(t, NA_REQ_TIMEOUT_RTTS,
			      attempt < 4 ? attempt : 4);
	if (wait < NA_SAB_MIN_WAIT_NS)
		wait = NA_SAB_MIN_WAIT_NS;
	rc = na_sabre_rx_wait(r, na_now_ns() + wait);
	na_sabre_rx_disarm(r);
	return rc;
}

static int
read_retry(struct dsm_thread *t, dsm_addr_t addr, size_t len, void *buf,
	   bool plain)
{
	struct na_sab_req_stats *st = &t->n->st.sab;

	NA_STAT_INC(*(plain ? &st->plain_reads : &st->reads));
	for (uint32_t attempt = 0;; attempt++) {
		int rc;

		if (attempt)
			NA_STAT_INC(st->retries);
		rc = read_once(t, addr, (uint32_t)len, buf, plain, attempt);
		if (rc == 0) {
			if (!plain)
				NA_STAT_INC(st->ok);
			return 0;
		}
		if (rc == -ETIMEDOUT) {
			NA_STAT_INC(st->timeouts);
		} else {
			NA_STAT_INC(st->aborts);
			NA_STAT_INC(st->abort_reason[rc & 7]);
		}
		if (na_req_stopping(t))
			return -EINTR;
		if (attempt + 1 >= NA_SAB_MAX_TRIES) {
			NA_STAT_INC(st->gave_up);
			return -EAGAIN;
		}
		na_req_backoff(t, attempt);
	}
}

int
dsm_read_object(struct dsm_thread *t, dsm_addr_t addr, size_t len, void *buf)
{
	if (!range_ok(t, addr, len, NA_SAB_HDR))
		return -EINVAL;
	return read_retry(t, addr, len, buf, false);
}

int
dsm_read_remote(struct dsm_thread *t, dsm_addr_t addr, size_t len, void *buf)
{
	if (!range_ok(t, addr, len, 1))
		return -EINVAL;
	return read_retry(t, addr, len, buf, true);
}

/* ---- the writer ----------------------------------------------------------- */

struct tas_ctx {
	uint64_t version; /* found */
	bool busy;
};

static void
put_version(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Even: make it odd (we are the writer). Odd: somebody else is. */
static bool
tas_fn(uint8_t *p, uint32_t len, void *ctx)
{
	struct tas_ctx *c = ctx;

	(void)len;
	c->version = na_sab_version(p);
	c->busy = c->version & 1;
	if (c->busy)
		return false;
	put_version(p, c->version + 1);
	return true;
}

static bool
set_fn(uint8_t *p, uint32_t len, void *ctx)
{
	(void)len;
	put_version(p, *(const uint64_t *)ctx);
	return true;
}

struct copy_ctx {
	const uint8_t *src;
};

static bool
copy_fn(uint8_t *p, uint32_t len, void *ctx)
{
	struct copy_ctx *c = ctx;

	memcpy(p, c->src, len);
	c->src += len;
	return true;
}

/* One write-through RMW on [addr, addr + len), split per block. */
static int
rmw_range(struct dsm_thread *t, dsm_addr_t addr, size_t len, struct na_rmw *r)
{
	uint8_t shift = t->d->topo.block_shift;
	uint32_t bs = t->d->topo.block_size;

	while (len) {
		uint32_t off = (uint32_t)(addr & (bs - 1));
		uint32_t n = bs - off < len ? bs - off : (uint32_t)len;
		int rc = na_req_access(t, addr >> shift, off, n, r,
				       NA_M_RMW_THROUGH);

		if (rc < 0)
			return rc;
		NA_STAT_INC(t->n->st.req.writes);
		addr += n;
		len -= n;
	}
	return 0;
}

int
dsm_object_lock(struct dsm_thread *t, dsm_addr_t addr, uint64_t *version)
{
	struct tas_ctx c;
	struct na_rmw r = { .fn = tas_fn, .ctx = &c };

	if (!range_ok(t, addr, NA_SAB_HDR, NA_SAB_HDR) ||
	    (addr & (t->d->topo.block_size - 1)) >
		    t->d->topo.block_size - NA_SAB_HDR)
		return -EINVAL;
	for (uint32_t attempt = 0;; attempt++) {
		int rc = rmw_range(t, addr, NA_SAB_HDR, &r);

		if (rc < 0)
			return rc;
		if (!c.busy)
			break;
		NA_STAT_INC(t->n->st.sab.write_busy);
		if (na_req_stopping(t))
			return -EINTR;
		na_req_backoff(t, attempt);
	}
	*version = c.version;
	return 0;
}

int
dsm_object_unlock(struct dsm_thread *t, dsm_addr_t addr, uint64_t version)
{
	struct na_rmw r = { .fn = set_fn, .ctx = &version };

	if ((version & 1) || !range_ok(t, addr, NA_SAB_HDR, NA_SAB_HDR) ||
	    (addr & (t->d->topo.block_size - 1)) >
		    t->d->topo.block_size - NA_SAB_HDR)
		return -EINVAL;
	return rmw_range(t, addr, NA_SAB_HDR, &r);
}

int
dsm_write_through(struct dsm_thread *t, dsm_addr_t addr, const void *buf,
		  size_t len)
{
	struct copy_ctx c = { .src = buf };
	struct na_rmw r = { .fn = copy_fn, .ctx = &c };

	if (!range_ok(t, addr, len, 1))
		return -EINVAL;
	return rmw_range(t, addr, len, &r);
}

int
dsm_write_object(struct dsm_thread *t, dsm_addr_t addr, size_t len,
		 const void *buf)
{
	uint64_t v;
	int rc;

	if (!range_ok(t, addr, len, NA_SAB_HDR))
		return -EINVAL;
	rc = dsm_object_lock(t, addr, &v);
	if (rc < 0)
		return rc;
	if (len > NA_SAB_HDR) {
		rc = dsm_write_through(t, addr + NA_SAB_HDR,
				       (const uint8_t *)buf + NA_SAB_HDR,
				       len - NA_SAB_HDR);
		if (rc < 0)
			return rc; /* the version stays odd: see dsm.h */
	}
	rc = dsm_object_unlock(t, addr, v + 2);
	if (rc == 0)
		NA_STAT_INC(t->n->st.sab.object_writes);
	return rc;
}
