/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The classic directory protocol; see na_directory.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lcf_pipeline.h"
#include "na_directory.h"
#include "na_msg.h"

int
na_dir_attach(struct na_home *h)
{
	struct na_dir *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->tx = calloc((size_t)LCF_MAX_NODES * h->tpn, sizeof(*d->tx));
	if (!d->tx) {
		free(d);
		return -ENOMEM;
	}
	h->dir = d;
	h->ext = na_dir_home_handle;
	return 0;
}

void
na_dir_detach(struct na_home *h)
{
	if (!h->dir)
		return;
	free(h->dir->tx);
	free(h->dir);
	h->dir = NULL;
	h->ext = NULL;
}

static uint8_t *
block_mem(const struct na_home *h, uint64_t tag)
{
	uint64_t idx = tag & ((1ull << (48 - h->block_shift)) - 1);

	return h->mem + (idx << h->block_shift);
}

/* A message of the requester's event `m` (node/thread/seq/tag are its). */
static void
msg_for(const struct lcf_msg *m, struct lcf_msg *r, uint8_t type, uint16_t dst)
{
	memset(r, 0, sizeof(*r));
	r->type = type;
	r->node = m->node;
	r->thread = m->thread;
	r->seq = m->seq;
	r->tag = m->tag;
	r->dst_node = dst;
}

static void
emit_nack(struct na_home *h, const struct lcf_msg *m, uint8_t type,
	  const struct na_hblock *b, struct na_out *out)
{
	struct lcf_msg r;

	msg_for(m, &r, NA_MSG_NACK, m->node);
	r.flags = LCF_F_FAIL;
	r.gstatus = b->gs;
	r.copyset = b->cs;
	r.aux = na_aux_orig(type, h->self);
	na_out_push(out, m->node, &r, NULL);
}

/* The home's one answer: the metadata after its actions, the block. */
static void
emit_grant(struct na_home *h, const struct lcf_msg *m, const struct na_dtxn *tx,
	   struct na_out *out)
{
	struct lcf_msg r;

	msg_for(m, &r, NA_MSG_DIR_GRANT, m->node);
	r.gstatus = tx->gs_after;
	r.copyset = tx->cs_after;
	r.aux = na_aux_orig(tx->type, h->self);
	if (tx->data) {
		na_out_segments(out, m->node, &r, NA_MSG_DATA,
				block_mem(h, m->tag), h->block_size);
		r.flags = LCF_F_DATA_PROVIDER;
	}
	na_out_push(out, m->node, &r, NULL);
}

/* (Re-)send the invalidations still unanswered (and the fetch). */
static void
emit_invalidations(struct na_home *h, const struct lcf_msg *m,
		   const struct na_dtxn *tx, struct na_out *out)
{
	bool need_data = tx->provider != LCF_NODE_NONE &&
			 tx->seg_have != na_seg_all(h->block_size);
	struct lcf_msg r;

	msg_for(m, &r, NA_MSG_DIR_INV, 0);
	r.gstatus = tx->gs_lock;
	r.copyset = tx->cs_lock;
	r.aux = na_aux_orig(tx->type, h->self);
	for (uint16_t n = 0; n < LCF_MAX_NODES; n++) {
		bool prov = n == tx->provider;

		if (!na_cs_has(tx->wait, n) && !(prov && need_data))
			continue;
		r.dst_node = n;
		r.flags = prov ? LCF_F_DATA_PROVIDER : 0;
		na_out_push(out, n, &r, NULL);
	}
}

/* Every ACK and the data are in: install, grant. */
static void
complete(struct na_home *h, const struct lcf_msg *m, struct na_dtxn *tx,
	 struct na_hblock *b, struct na_hreq *rq, struct na_out *out)
{
	if (tx->wait || (tx->provider != LCF_NODE_NONE &&
			 tx->seg_have != na_seg_all(h->block_size)))
		return;
	tx->pending = false;
	tx->granted = true;
	if (tx->type == LCF_T_READ_MISS) {
		/* Exclusive while fetching; now an ordinary reader. */
		b->writer = false;
		b->readers++;
		rq->held[tx->seq & 1].write = false;
	}
	b->gs = tx->gs_after;
	b->cs = tx->cs_after;
	h->dir->st.grants_after_invalidation++;
	emit_grant(h, m, tx, out);
}

/*
 * Plan the transaction for a request that passed lock and check: whom to
 * invalidate, who must send the block, and what the metadata is after.
 */
static void
plan(struct na_dtxn *tx, const struct na_hblock *b, uint16_t node, uint32_t rnd)
{
	bool cached = b->gs != LCF_GS_UNSHARED && b->cs;

	tx->provider = LCF_NODE_NONE;
	tx->inv = 0;
	tx->gs_after = cached ? b->gs : LCF_GS_UNSHARED;
	tx->cs_after = cached ? b->cs : 0;
	tx->data = na_type_needs_data(tx->type);
	switch (tx->type) {
	case LCF_T_READ_MISS:
		/* Shared or Unshared: memory is current. */
		if (cached && b->gs == LCF_GS_MODIFIED) {
			tx->provider = lcf_random_node(b->cs, rnd);
			tx->inv = na_bit(tx->provider);
			tx->gs_after = LCF_GS_SHARED; /* owner downgraded */
		}
		return;
	case LCF_T_WRITE_MISS:
		if (cached) {
			tx->inv = b->cs;
			if (b->gs == LCF_GS_MODIFIED)
				tx->provider = lcf_random_node(b->cs, rnd);
		}
		tx->gs_after = LCF_GS_UNSHARED;
		tx->cs_after = 0;
		return;
	case LCF_T_WRITE_SHARED:
		tx->inv = b->cs & ~na_bit(node);
		tx->cs_after = na_bit(node);
		return;
	default:
		return; /* evictions: the lock is the answer */
	}
}

static void
request(struct na_home *h, const struct lcf_msg *req, struct na_out *out)
{
	struct na_dir *d = h->dir;
	struct na_hreq *rq;
	struct na_hblock *b = na_home_lookup(h, req, &rq);
	struct lcf_msg m = *req;
	struct na_dtxn *tx;
	bool write, exclusive;

	m.type = na_aux_orig_type(req->aux);
	if (!b || m.type < LCF_T_READ_MISS || m.type > LCF_T_EVICT_MODIFIED) {
		d->st.stray++;
		return;
	}
	d->st.requests++;
	tx = &d->tx[(size_t)m.node * h->tpn + m.thread];
	switch (na_le_check(&rq->req, m.seq)) {
	case NA_LE_STALE:
		return;
	case NA_LE_DUPLICATE:
		d->st.duplicates++;
		if (tx->seq != m.seq || tx->tag != m.tag)
			return;
		if (tx->pending) {
			d->st.resent_invalidations++;
			emit_invalidations(h, &m, tx, out);
		} else if (tx->granted) {
			emit_grant(h, &m, tx, out);
		}
		return;
	case NA_LE_EXECUTE:
		break;
	}
	if (b->owner != NA_OWN_HOME) {
		d->st.nack_not_home++;
		emit_nack(h, &m, m.type, b, out);
		return;
	}
	write = m.type != LCF_T_READ_MISS;
	/* A read that must fetch from the owner holds the block alone. */
	exclusive = write || (b->gs == LCF_GS_MODIFIED && b->cs);
	if (b->writer || (exclusive && b->readers) || b->readers == 0x7fff) {
		d->st.nack_lock++;
		emit_nack(h, &m, m.type, b, out);
		return;
	}
	if (!na_check(m.type, m.node, b->gs, b->cs)) {
		d->st.nack_check++;
		emit_nack(h, &m, m.type, b, out);
		return;
	}
	/* Not recorded for NACKs: the retry comes with the same seq. An
	 * ABORT of this seq now answers "a copy passed" (na_home.c). */
	na_le_commit(&rq->req, m.seq);
	rq->dec.kind = NA_HDEC_REPLY;
	if (exclusive) {
		b->writer = true;
		b->wgrants += write;
	} else {
		b->readers++;
	}
	rq->held[m.seq & 1] = (struct na_hheld){
		.valid = true, .write = exclusive, .seq = m.seq, .tag = m.tag
	};
	*tx = (struct na_dtxn){ .type = m.type,
				.seq = m.seq,
				.tag = m.tag,
				.gs_lock = b->gs,
				.cs_lock = b->cs };
	plan(tx, b, m.node, lcf_xorshift32(&h->rng));
	if (!tx->inv) {
		tx->granted = true;
		if (m.type == LCF_T_READ_MISS || m.type == LCF_T_WRITE_MISS) {
			b->gs = tx->gs_after;
			b->cs = tx->cs_after;
		}
		d->st.grants_immediate++;
		emit_grant(h, &m, tx, out);
		return;
	}
	tx->pending = true;
	tx->wait = tx->inv;
	d->st.invalidations_sent += (uint64_t)__builtin_popcount(tx->inv);
	if (tx->provider != LCF_NODE_NONE)
		d->st.fetches++;
	na_home_count_hot(h, b, (uint32_t)__builtin_popcount(tx->inv));
	emit_invalidations(h, &m, tx, out);
}

/* DIR_INV_ACK or DIR_DATA from a cache agent, for requester m->node/thread. */
static void
inv_reply(struct na_home *h, const struct lcf_msg *m, const void *payload,
	  uint16_t len, struct na_out *out)
{
	struct na_dir *d = h->dir;
	struct na_hreq *rq;
	struct na_hblock *b = na_home_lookup(h, m, &rq);
	struct na_dtxn *tx;

	if (!b) {
		d->st.stray++;
		return;
	}
	tx = &d->tx[(size_t)m->node * h->tpn + m->thread];
	if (!tx->pending || tx->seq != m->seq || tx->tag != m->tag)
		return; /* a duplicate of a finished one */
	if (m->type == NA_MSG_DIR_DATA) {
		int i = na_seg_index(h->block_size, m->aux, len);

		if (i < 0 || tx->provider == LCF_NODE_NONE) {
			d->st.stray++;
			return;
		}
		/* The owner's copy is the current one: memory catches up. */
		na_sabres_note_write(&h->sab,
				     (uint64_t)(block_mem(h, m->tag) - h->mem) +
					     m->aux,
				     len);
		memcpy(block_mem(h, m->tag) + m->aux, payload, len);
		tx->seg_have |= 1ull << i;
		d->st.data_segments++;
	} else {
		uint16_t from = na_aux_responder(m->aux);

		d->st.inv_acks++;
		tx->wait &= ~na_bit(from);
		if (from == tx->provider && !(m->flags & LCF_F_DATA_PROVIDER)) {
			/* No copy to give (cannot happen with exact copysets). */
			d->st.provider_without_data++;
			tx->seg_have = na_seg_all(h->block_size);
		}
	}
	complete(h, m, tx, b, rq, out);
}

bool
na_dir_home_handle(struct na_home *h, const struct lcf_msg *m,
		   const void *payload, uint16_t len, struct na_out *out)
{
	struct lcf_msg u;

	switch (m->type) {
	case NA_MSG_DIR_REQ:
		request(h, m, out);
		return true;
	case NA_MSG_DIR_INV_ACK:
	case NA_MSG_DIR_DATA:
		inv_reply(h, m, payload, len, out);
		return true;
	case NA_MSG_DIR_UNLOCK:
		/* The home agent's unlock: release, install, NA_UNLOCK_ACK. */
		u = *m;
		u.type = na_aux_orig_type(m->aux);
		u.aux = 0;
		if (u.type != LCF_T_READ_UNLOCK &&
		    u.type != LCF_T_WRITE_UNLOCK) {
			h->dir->st.stray++;
			return true;
		}
		h->dir->st.unlocks++;
		na_home_handle(h, &u, NULL, 0, out);
		return true;
	default:
		return false;
	}
}

void
na_dir_cagent_reply(const struct lcf_msg *m, struct lcf_msg *ack)
{
	if (m->type != NA_MSG_DIR_INV)
		return;
	ack->type = NA_MSG_DIR_INV_ACK;
	ack->dst_node = na_aux_responder(m->aux); /* the home */
}

void
na_dir_stats_json(const struct na_dir *d, FILE *f)
{
	const char *sep = "";

	fprintf(f, ",\"directory\":{");
#define NA_X_PRINT(name)                                         \
	fprintf(f, "%s\"" #name "\":%" PRIu64, sep, d->st.name); \
	sep = ",";
	NA_DIR_COUNTERS(NA_X_PRINT)
#undef NA_X_PRINT
	fprintf(f, "}");
}
