/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Cache agent; see na_cagent.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "na_cagent.h"
#include "na_directory.h"
#include "na_msg.h"

int
na_cagent_init(struct na_cagent *ca, uint16_t self, uint16_t tpn,
	       struct na_cache *cache)
{
	memset(ca, 0, sizeof(*ca));
	ca->self = self;
	ca->tpn = tpn;
	ca->cache = cache;
	ca->block_size = cache->block_size;
	ca->req = calloc((size_t)LCF_MAX_NODES * tpn, sizeof(*ca->req));
	return ca->req ? 0 : -ENOMEM;
}

void
na_cagent_fini(struct na_cagent *ca)
{
	if (ca->req) {
		for (size_t i = 0; i < (size_t)LCF_MAX_NODES * ca->tpn; i++)
			free(ca->req[i].data);
	}
	free(ca->req);
	memset(ca, 0, sizeof(*ca));
}

static uint8_t
orig_type(const struct lcf_msg *m)
{
	return m->type == NA_MSG_FWD || m->type == NA_MSG_DIR_INV
		       ? na_aux_orig_type(m->aux)
		       : m->type;
}

static bool
invalidating(uint8_t t)
{
	return t == LCF_T_WRITE_MISS || t == LCF_T_WRITE_SHARED;
}

static void
emit_reply(struct na_cagent *ca, const struct na_creq *rq, struct na_out *out)
{
	/* To the requester, or to the home (directory mode). */
	uint8_t dtype = rq->ack.type == NA_MSG_DIR_INV_ACK ? NA_MSG_DIR_DATA
							   : NA_MSG_DATA;

	if (rq->has_data)
		na_out_segments(out, rq->ack.dst_node, &rq->ack, dtype,
				rq->data, ca->block_size);
	na_out_push(out, rq->ack.dst_node, &rq->ack, NULL);
}

static void
hot_count(struct na_cagent *ca, uint64_t tag)
{
	struct na_hot *h = &ca->hot[(tag * 0x9e3779b97f4a7c15ull) >> 56];

	/* A tiny direct-mapped sketch: a collision replaces the colder tag. */
	if (h->tag != tag || !h->count) {
		if (h->count > 1) {
			h->count--;
			return;
		}
		h->tag = tag;
		h->count = 0;
	}
	h->count++;
}

static bool
already_deferred(const struct na_cagent *ca, const struct lcf_msg *m)
{
	for (uint32_t i = 0; i < NA_DEFER_MAX; i++) {
		const struct na_cdefer *d = &ca->def[i];

		if (d->used && d->m.node == m->node &&
		    d->m.thread == m->thread && d->m.seq == m->seq)
			return true;
	}
	return false;
}

static void
defer(struct na_cagent *ca, const struct lcf_msg *m)
{
	for (uint32_t i = 0; i < NA_DEFER_MAX; i++) {
		if (!ca->def[i].used) {
			ca->def[i].used = true;
			ca->def[i].m = *m;
			ca->n_def++;
			ca->st.deferred++;
			return;
		}
	}
	/* Full: drop it; the requester's retransmission brings it back. */
	ca->st.defer_overflow++;
}

/*
 * Execute a request against the local cache. @return false when a local
 * pin forbids it now (the caller defers it).
 */
static bool
execute(struct na_cagent *ca, const struct lcf_msg *m, struct na_creq *rq)
{
	struct na_cbucket *b = na_cache_bucket(ca->cache, m->tag);
	uint8_t t = orig_type(m);
	bool provide = m->flags & LCF_F_DATA_PROVIDER;
	struct na_centry *e;

	pthread_mutex_lock(&b->mu);
	e = na_cache_find(b, m->tag);
	if (e && ((invalidating(t) && (e->pin_w != NA_NOBODY || e->pin_r)) ||
		  (t == LCF_T_READ_MISS && e->pin_w != NA_NOBODY))) {
		pthread_mutex_unlock(&b->mu);
		return false;
	}
	rq->has_data = false;
	rq->downgraded = false;
	if (provide) {
		if (e && e->state != NA_L_INVALID) {
			memcpy(rq->data, e->data, ca->block_size);
			rq->has_data = true;
			ca->st.data_provided++;
		} else {
			/* Cannot happen while copysets are exact; count it. */
			ca->st.provider_without_data++;
		}
	}
	if (invalidating(t)) {
		if (e && e->state != NA_L_INVALID)
			ca->st.invalidations++;
		/*
		 * Keep `used`: a local thread may be mid-event on it and will
		 * re-read the state; a non-busy Invalid entry is free anyway.
		 */
		if (e) {
			e->state = NA_L_INVALID;
			na_centry_twin_free(e);
		}
	} else if (t == LCF_T_READ_MISS && e && e->state == NA_L_MODIFIED) {
		/* Figure 6: Modified -> Shared; the data goes home (below). */
		e->state = NA_L_SHARED;
		na_centry_twin_free(e);
		ca->st.downgrades++;
		rq->downgraded = true;
	}
	pthread_mutex_unlock(&b->mu);
	return true;
}

/*
 * A READ_MISS of a block Modified here (its G-STATUS): we downgraded our
 * copy now, or a concurrent reader under the same read lock did and our
 * Shared copy is still the latest value (no write runs meanwhile). At the
 * home the data goes to memory either way (lib/model/wbshare.pml), so
 * this reader does not send the same block back (PageRank, 8 nodes: most
 * of its read misses' write-backs). An owner elsewhere sends NA_WB only
 * for its own downgrade (wbown.pml).
 */
static bool
from_modified(const struct lcf_msg *m, const struct na_creq *rq)
{
	return rq->downgraded || (orig_type(m) == LCF_T_READ_MISS &&
				  m->gstatus == LCF_GS_MODIFIED);
}

/*
 * A READ_MISS downgraded our Modified copy of a block whose home is this
 * node: write the data home now, still inside the reader's lock, instead
 * of the reader sending it back here (lib/model/lcf.pml cache_serve: the
 * owner downgrades and memory gets its value in one step). LCF only: a
 * directory home collects the data itself.
 */
static bool
home_writes(struct na_cagent *ca, const struct lcf_msg *m,
	    const struct na_creq *rq)
{
	return from_modified(m, rq) && rq->has_data &&
	       rq->ack.type == NA_MSG_ACK && ca->home_wb &&
	       ca->home_wb(ca->home_ctx, m, rq->data);
}

/* Not the home: the owner's write-back goes home beside the data (the
 * reader unlocks on both the data and the home's NA_WB_ACKs). */
static bool
owner_writes(const struct na_cagent *ca, const struct na_creq *rq)
{
	return rq->downgraded && rq->has_data && rq->ack.type == NA_MSG_ACK &&
	       ca->home_of;
}

static void
handle(struct na_cagent *ca, const struct lcf_msg *m, struct na_out *out,
       bool from_defer)
{
	struct na_creq *rq;
	uint8_t t = orig_type(m);

	if (m->node >= LCF_MAX_NODES || m->thread >= ca->tpn ||
	    (t != LCF_T_READ_MISS && !invalidating(t)))
		return;
	rq = &ca->req[(size_t)m->node * ca->tpn + m->thread];
	switch (na_le_check(&rq->le, m->seq)) {
	case NA_LE_STALE:
		ca->st.stale++;
		return;
	case NA_LE_DUPLICATE:
		ca->st.duplicates++;
		emit_reply(ca, rq, out);
		return;
	case NA_LE_EXECUTE:
		break;
	}
	if (!from_defer && already_deferred(ca, m))
		return;
	if (!rq->data && !(rq->data = malloc(ca->block_size)))
		return; /* the retransmission will retry */
	if (!from_defer)
		ca->st.requests++;
	if (!execute(ca, m, rq)) {
		if (!from_defer)
			defer(ca, m);
		return;
	}
	/* Every copy the switch sent us: the unit of the homes' hotness. */
	if (m->flags & LCF_F_IN_SWITCH)
		hot_count(ca, m->tag);
	na_le_commit(&rq->le, m->seq);
	memset(&rq->ack, 0, sizeof(rq->ack));
	rq->ack.version = LCF_VERSION;
	rq->ack.type = NA_MSG_ACK;
	rq->ack.flags = (m->flags & LCF_F_IN_SWITCH) |
			(rq->has_data ? LCF_F_DATA_PROVIDER : 0);
	rq->ack.gstatus = m->gstatus;
	rq->ack.node = m->node;
	rq->ack.thread = m->thread;
	rq->ack.seq = m->seq;
	rq->ack.copyset = m->copyset;
	rq->ack.tag = m->tag;
	rq->ack.dst_node = m->node;
	rq->ack.aux = na_aux_orig(t, ca->self);
	na_dir_cagent_reply(m, &rq->ack);
	if (home_writes(ca, m, rq)) {
		rq->ack.aux |= NA_ACK_HOME_WRITTEN;
		ca->st.home_written++;
	} else if (owner_writes(ca, rq)) {
		struct lcf_msg wb = rq->ack;

		wb.dst_node = ca->home_of(ca->home_ctx, m->tag);
		na_out_segments(out, wb.dst_node, &wb, NA_MSG_WB, rq->data,
				ca->block_size);
		rq->ack.aux |= NA_ACK_OWNER_WB;
		ca->st.owner_wb++;
	}
	emit_reply(ca, rq, out);
}

void
na_cagent_handle(struct na_cagent *ca, const struct lcf_msg *m,
		 struct na_out *out)
{
	handle(ca, m, out, false);
}

void
na_cagent_run_deferred(struct na_cagent *ca, struct na_out *out)
{
	for (uint32_t i = 0; i < NA_DEFER_MAX && ca->n_def; i++) {
		struct na_cdefer *d = &ca->def[i];
		struct na_creq *rq;
		struct lcf_msg m;

		if (!d->used)
			continue;
		m = d->m;
		rq = &ca->req[(size_t)m.node * ca->tpn + m.thread];
		/* Executed already (a later event superseded it)? */
		if (na_le_check(&rq->le, m.seq) != NA_LE_EXECUTE) {
			d->used = false;
			ca->n_def--;
			continue;
		}
		if (out->n + na_seg_count(ca->block_size) + 1 > NA_OUT_MAX)
			return; /* the caller runs us again */
		handle(ca, &m, out, true);
		if (na_le_check(&rq->le, m.seq) != NA_LE_EXECUTE) {
			d->used = false;
			ca->n_def--;
		}
	}
}

void
na_cagent_epoch(struct na_cagent *ca, uint16_t shadow, struct na_out *out)
{
	struct lcf_msg r;
	uint32_t n = 0;
	uint8_t *p = ca->report;

	for (uint32_t i = 0; i < NA_HOT_SLOTS; i++) {
		struct na_hot *h = &ca->hot[i];

		if (!h->count || (n + 1) * 12 > sizeof(ca->report))
			continue;
		/* (tag: 8 bytes, count: 4 bytes), big-endian */
		for (int k = 0; k < 8; k++)
			*p++ = (uint8_t)(h->tag >> (56 - 8 * k));
		for (int k = 0; k < 4; k++)
			*p++ = (uint8_t)(h->count >> (24 - 8 * k));
		n++;
		h->count = 0;
	}
	if (!n)
		return;
	memset(&r, 0, sizeof(r));
	r.type = NA_MSG_HOT_REPORT;
	r.node = ca->self;
	r.dst_node = shadow;
	r.len = (uint16_t)(n * 12);
	r.aux = n;
	na_out_push(out, shadow, &r, ca->report);
	ca->st.hot_reports++;
}
