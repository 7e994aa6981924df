/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Validate-on-hit and TTL, requester side. See na_voh.h, docs/VALIDATE.md.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "na_msg.h"
#include "na_req_mail.h"
#include "na_voh_int.h"
#include "na_voh_home.h"

_Static_assert(NA_VOH_LIFE_NS <= (65536 / NA_ADD_COPY_SEQS - 1) * NA_ADD_GAP_NS,
	       "a switch stamp outlives its block's epoch (vohepoch.pml)");

int
na_voh_init(struct dsm *d)
{
	struct na_voh *v = calloc(1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	v->bs = d->topo.block_size;
	v->e = calloc(VOH_SETS * VOH_WAYS, sizeof(*v->e));
	v->data = malloc((size_t)VOH_SETS * VOH_WAYS * v->bs);
	v->seq = calloc(d->node.cfg.threads ? d->node.cfg.threads : 1,
			sizeof(*v->seq));
	v->sbuf = malloc(
		(size_t)(d->node.cfg.threads ? d->node.cfg.threads : 1) *
		v->bs);
	if (!v->e || !v->data || !v->seq || !v->sbuf) {
		free(v->sbuf);
		free(v->seq);
		free(v->e);
		free(v->data);
		free(v);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < VOH_SETS * VOH_WAYS; i++)
		v->e[i].data = v->data + (size_t)i * v->bs;
	pthread_mutex_init(&v->mu, NULL);
	d->voh = v;
	return 0;
}

void
na_voh_fini(struct dsm *d)
{
	struct na_voh *v = d->voh;

	if (!v)
		return;
	pthread_mutex_destroy(&v->mu);
	free(v->sbuf);
	free(v->seq);
	free(v->e);
	free(v->data);
	free(v);
	d->voh = NULL;
}

int
dsm_set_policy(struct dsm *d, dsm_addr_t addr, size_t len, unsigned policy,
	       uint32_t ttl_us)
{
	struct na_voh *v = d->voh;
	unsigned base = policy & DSM_POLICY_MASK;
	uint32_t bs = d->topo.block_size;
	uint64_t lo = addr & ~(uint64_t)(bs - 1);
	uint64_t hi = (addr + len + bs - 1) & ~(uint64_t)(bs - 1);
	uint32_t i;

	if (len == 0 || base > DSM_POLICY_TTL ||
	    (policy & ~(DSM_POLICY_MASK | DSM_POLICY_RPC_CHECK)) ||
	    (base == DSM_POLICY_TTL && ttl_us == 0))
		return -EINVAL;
	pthread_mutex_lock(&v->mu);
	for (i = 0; i < v->n_reg; i++)
		if (v->reg[i].lo == lo && v->reg[i].hi == hi)
			break;
	if (i == v->n_reg && base != DSM_POLICY_INVALIDATE) {
		if (v->n_reg == VOH_REGIONS) {
			pthread_mutex_unlock(&v->mu);
			return -ENOSPC;
		}
		__atomic_store_n(&v->n_reg, v->n_reg + 1, __ATOMIC_RELEASE);
	}
	if (i < v->n_reg && base == DSM_POLICY_INVALIDATE) {
		v->reg[i] = v->reg[v->n_reg - 1]; /* back to the default */
		__atomic_store_n(&v->n_reg, v->n_reg - 1, __ATOMIC_RELEASE);
	} else if (i < v->n_reg) {
		v->reg[i] = (struct voh_region){ lo, hi, policy,
						 (uint64_t)ttl_us * 1000 };
	}
	/* What was cached under the old policy is not trusted. */
	for (uint32_t k = 0; k < VOH_SETS * VOH_WAYS; k++)
		if (v->e[k].valid && v->e[k].tag >= lo / bs &&
		    v->e[k].tag < hi / bs)
			v->e[k].valid = false;
	pthread_mutex_unlock(&v->mu);
	return 0;
}

void
dsm_voh_stats(struct dsm *d, struct dsm_voh_stats *out)
{
	struct na_voh *v = d->voh;

	pthread_mutex_lock(&v->mu);
	*out = v->st;
	pthread_mutex_unlock(&v->mu);
}

/* The policy of block `tag`; mu held. */
static const struct voh_region *
region_of(struct na_voh *v, uint64_t tag)
{
	uint64_t a = tag * v->bs;

	for (uint32_t i = 0; i < v->n_reg; i++)
		if (a >= v->reg[i].lo && a < v->reg[i].hi)
			return &v->reg[i];
	return NULL;
}

/* A request of this thread to the home of `tag`. */
static void
msg_init(struct dsm_thread *t, struct lcf_msg *m, uint8_t type, uint64_t tag,
	 uint32_t seq)
{
	na_req_msg(t, m, type, seq, tag, na_req_home_of(t, tag));
}

/* One version check. @return 0 with *stamp, -ENOTSUP, -EINTR. */
static int
check(struct dsm_thread *t, uint64_t tag, bool rpc, uint64_t *stamp)
{
	struct lcf_msg m;
	struct na_mail r;
	int rc;

	msg_init(t, &m, rpc ? NA_MSG_VOH_VRPC : NA_MSG_VOH_VREAD, tag,
		 na_voh_next_seq(t));
	rc = na_req_call(t, m.dst_node, &m, NA_MSG_VOH_VERSION, &r);
	if (rc)
		return rc;
	if (r.m.flags & LCF_F_FAIL)
		return -ENOTSUP;
	*stamp = na_voh_stamp(&r.m);
	return 0;
}

int
dsm_version_check(struct dsm_thread *t, dsm_addr_t addr, bool rpc,
		  uint32_t *version)
{
	uint64_t tag = addr >> t->d->topo.block_shift, stamp = 0;
	int rc = check(t, tag, rpc, &stamp);
	bool busy;

	if (rc == -ENOTSUP) /* switch-owned: its VERSION register */
		rc = na_voh_sw_version(t, tag, na_voh_next_seq(t), &stamp,
				       &busy);
	*version = (uint32_t)stamp;
	return rc;
}

/* Fetch the block through the home's ReadQueue into the cache and copy
 * the asked bytes out. @return 0, 1 (refused), -EINTR. */
static int
fetch(struct dsm_thread *t, struct na_voh *v, uint64_t tag, uint32_t off,
      uint32_t len, void *buf)
{
	uint64_t all = na_seg_all(v->bs), got = 0, sent = na_now_ns();
	uint64_t deadline = sent + na_req_timeout(t, NA_REQ_TIMEOUT_RTTS, 0);
	uint64_t stamp = 0;
	uint32_t tries = 0;
	struct lcf_msg m;
	struct na_mail r;
	int rc;

	msg_init(t, &m, NA_MSG_VOH_READ, tag, na_voh_next_seq(t));
	na_node_send(t->n, m.dst_node, &m, NULL);
	while (got != all) {
		const struct lcf_msg *x = &t->mail.m;
		int i;

		if (na_req_wait_mail(t, deadline) == 0) {
			if (x->type != NA_MSG_VOH_PROCEED || x->seq != m.seq)
				continue;
			if (x->flags & LCF_F_FAIL)
				return 1;
			i = na_seg_index(v->bs, x->aux & 0xffff, x->len);
			if (i < 0)
				continue;
			memcpy(t->buf + (x->aux & 0xffff), t->mail.payload,
			       x->len);
			got |= 1ull << i;
			stamp = na_voh_stamp(x);
			continue;
		}
		if (na_now_ns() < deadline)
			continue;
		if (na_req_stopping(t) && na_now_ns() - sent > NA_GIVE_UP_NS)
			return -EINTR;
		na_node_send(t->n, m.dst_node, &m, NULL);
		deadline = na_now_ns() +
			   na_req_timeout(t, NA_REQ_TIMEOUT_RTTS, ++tries);
	}
	memcpy(buf, t->buf + off, len);
	pthread_mutex_lock(&v->mu);
	na_voh_install(v, tag, t->buf, stamp);
	v->st.fetches++;
	pthread_mutex_unlock(&v->mu);
	/* READ_DONE: leave the ReadQueue (acknowledged, so never lost). */
	m.type = NA_MSG_VOH_DONE;
	m.aux = na_aux_orig(NA_MSG_VOH_READ, 0);
	rc = na_req_call(t, m.dst_node, &m, NA_MSG_VOH_VERSION, &r);
	return rc;
}

static void
send_frames(struct dsm_thread *t, const struct lcf_msg *tmpl, uint32_t off,
	    uint32_t len, const uint8_t *buf)
{
	struct lcf_msg m = *tmpl;

	m.type = NA_MSG_VOH_WDATA;
	for (uint32_t f = 0, pos = 0; pos < len; f++) {
		uint32_t n = len - pos < NA_MAX_FRAME_PAYLOAD
				     ? len - pos
				     : NA_MAX_FRAME_PAYLOAD;

		m.aux = f << 24 | (off + pos);
		m.len = (uint16_t)n;
		na_node_send(t->n, m.dst_node, &m, buf + pos);
		pos += n;
	}
}

/* UPDATE_REQUEST, the data, UPDATE_DONE. @return 0, 1 (refused), -EINTR */
static int
update(struct dsm_thread *t, struct na_voh *v, uint64_t tag, uint32_t off,
       uint32_t len, const uint8_t *buf)
{
	uint32_t frames = (len + NA_MAX_FRAME_PAYLOAD - 1) /
			  NA_MAX_FRAME_PAYLOAD;
	struct voh_entry *e;
	struct lcf_msg m;
	struct na_mail r;
	int rc;

	msg_init(t, &m, NA_MSG_VOH_UPDATE, tag, na_voh_next_seq(t));
	rc = na_req_call(t, m.dst_node, &m, NA_MSG_VOH_PROCEED, &r);
	if (rc)
		return rc;
	if (r.m.flags & LCF_F_FAIL)
		return 1;
	m.type = NA_MSG_VOH_DONE;
	m.aux = na_aux_orig(NA_MSG_VOH_UPDATE, 0);
	m.copyset = frames;
	do {
		send_frames(t, &m, off, len, buf);
		rc = na_req_call(t, m.dst_node, &m, NA_MSG_VOH_VERSION, &r);
		if (rc)
			return rc;
	} while (r.m.flags & LCF_F_FAIL); /* data lost on the way: again */
	pthread_mutex_lock(&v->mu);
	e = na_voh_entry(v, tag, false);
	if (e && e->stamp + 1 == na_voh_stamp(&r.m)) {
		/* our copy was the version this update was applied to */
		memcpy(e->data + off, buf, len);
		e->stamp = na_voh_stamp(&r.m);
		e->fetched_ns = na_now_ns();
	} else if (e) {
		e->valid = false;
	}
	v->st.updates++;
	pthread_mutex_unlock(&v->mu);
	return 0;
}

/* Read from the home's ReadQueue or the switch's path, the switch first if
 * `sw_first`. @return 0, 1 (neither serves it: migrating), -EINTR. */
static int
fetch_any(struct dsm_thread *t, struct na_voh *v, uint64_t tag, uint32_t off,
	  uint32_t len, void *buf, bool sw_first)
{
	int rc = sw_first ? na_voh_sw_read(t, v, tag, off, len, buf)
			  : fetch(t, v, tag, off, len, buf);

	if (rc == 1)
		rc = sw_first ? fetch(t, v, tag, off, len, buf)
			      : na_voh_sw_read(t, v, tag, off, len, buf);
	return rc;
}

int
na_voh_access(struct dsm_thread *t, uint64_t tag, uint32_t off, uint32_t len,
	      void *buf, bool write)
{
	struct na_voh *v = t->d->voh;
	const struct voh_region *g;
	struct voh_entry *e;
	uint64_t cver, g0, ver = 0, pre_ns;
	bool busy = false;
	unsigned policy;
	int rc;

	if (!na_voh_any(v))
		return 1;
	pthread_mutex_lock(&v->mu);
	g = region_of(v, tag);
	e = g && !write ? na_voh_entry(v, tag, false) : NULL;
	switch (na_voh_decide(g != NULL, g ? g->policy : 0, g ? g->ttl_ns : 0,
			      write, e != NULL,
			      e ? na_now_ns() - e->fetched_ns : 0)) {
	case NA_VOH_COHERENT:
		pthread_mutex_unlock(&v->mu);
		return 1;
	case NA_VOH_UPDATE:
		pthread_mutex_unlock(&v->mu);
		rc = update(t, v, tag, off, len, buf);
		if (rc == 1) /* the home does not serve it: the switch's path */
			rc = na_voh_sw_write(t, v, tag, off, len, buf);
		return rc;
	case NA_VOH_TTL_HIT:
		memcpy(buf, e->data + off, len);
		e->used = ++v->tick;
		v->st.ttl_hits++;
		pthread_mutex_unlock(&v->mu);
		return 0;
	case NA_VOH_FETCH:
		pthread_mutex_unlock(&v->mu);
		rc = fetch_any(t, v, tag, off, len, buf, false);
		goto out;
	case NA_VOH_CHECK:
		break;
	}
	policy = g->policy;
	cver = e->stamp;
	g0 = v->wgen;
	pthread_mutex_unlock(&v->mu);
	pre_ns = na_now_ns();
	if (cver & NA_VOH_SW)
		rc = na_voh_sw_version(t, tag, na_voh_next_seq(t), &ver, &busy);
	else
		rc = check(t, tag, policy & DSM_POLICY_RPC_CHECK, &ver);
	if (rc == -ENOTSUP) {
		/* the block moved between the home and the switch */
		rc = fetch_any(t, v, tag, off, len, buf, !(cver & NA_VOH_SW));
		goto out;
	}
	if (rc)
		goto out;
	pthread_mutex_lock(&v->mu);
	v->st.checks++;
	v->st.sw_checks += (cver & NA_VOH_SW) != 0;
	e = na_voh_entry(v, tag, false);
	if (e && e->stamp == cver && ver == cver &&
	    na_voh_fresh(e->fetched_ns, na_now_ns())) {
		/* the version when the home or the switch answered: this
		 * copy is current (its stamp cannot have come round again
		 * while young, vohepoch.pml) */
		memcpy(buf, e->data + off, len);
		e->used = ++v->tick;
		v->st.validated_hits++;
		v->st.sw_hits += (cver & NA_VOH_SW) != 0;
		pthread_mutex_unlock(&v->mu);
		return 0;
	}
	v->st.changed++;
	v->st.expired += e && e->stamp == cver && ver == cver;
	pthread_mutex_unlock(&v->mu);
	if (ver & NA_VOH_SW) /* the switch's answer is the read before */
		rc = na_voh_sw_fetch(t, v, tag, off, len, buf, ver, busy, g0,
				     pre_ns);
	else
		rc = fetch_any(t, v, tag, off, len, buf, false);
out:
	if (rc == 1) {
		pthread_mutex_lock(&v->mu);
		na_voh_drop(v, tag);
		v->st.fallbacks++;
		pthread_mutex_unlock(&v->mu);
	}
	return rc;
}
