/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Home agent: requests, unlocks, ABORTs, write-backs, chunk allocation;
 * see na_home.h and docs/PROTOCOL.md section 5. Its side of migration
 * (ADD_TO_SWITCH and the MIGRATE_ACKs) is na_home_migrate.c.
 *
 * The home agent is one module in three files around na_home.h (the
 * functions they share are declared there); each file owns:
 *   na_home.c          the block table, requests (switch copies and direct
 *                      pipeline requests), unlocks, ABORTs, NA_WB
 *                      write-backs, chunk allocation, and the dispatch
 *                      (na_home_handle) that calls the other two;
 *   na_home_diff.c     PIPE's NA_DIFF write-backs (na_home_diff);
 *   na_home_migrate.c  migration: ADD_TO_SWITCH, the copies' seqs,
 *                      MIGRATE_ACKs and their retransmission.
 * The queued-lock decisions are a module of their own (na_home_queue.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lcf_pipeline.h"
#include "na_home.h"
#include "na_msg.h"
#include "topo.h"

int
na_home_init(struct na_home *h, const struct topo *t, uint16_t self,
	     uint64_t mem_size, uint32_t seed)
{
	memset(h, 0, sizeof(*h));
	if (mem_size < NA_CHUNK_SIZE || mem_size % NA_CHUNK_SIZE ||
	    mem_size > (1ull << 48) || t->threads_per_node == 0)
		return -EINVAL;
	h->self = self;
	h->block_shift = t->block_shift;
	h->block_size = t->block_size;
	h->tpn = t->threads_per_node;
	h->mem_size = mem_size;
	h->n_blocks = (uint32_t)(mem_size >> t->block_shift);
	h->n_chunks = (uint32_t)(mem_size / NA_CHUNK_SIZE);
	h->next_chunk = 1;
	na_hq_cfg_init(&h->qcfg, t);
	h->rng = seed ? seed : 0x2545f491u;
	na_sabres_init(&h->sab);
	/* calloc: global memory starts zeroed, pages are faulted in lazily. */
	h->mem = calloc(1, mem_size);
	h->blk = calloc(h->n_blocks, sizeof(*h->blk));
	h->hot_map = calloc((h->n_blocks + 63) / 64, sizeof(*h->hot_map));
	h->req = calloc((size_t)LCF_MAX_NODES * h->tpn, sizeof(*h->req));
	if (!h->mem || !h->blk || !h->hot_map || !h->req) {
		na_home_fini(h);
		return -ENOMEM;
	}
	return 0;
}

void
na_home_fini(struct na_home *h)
{
	free(h->mem);
	free(h->blk);
	free(h->hot_map);
	if (h->req)
		for (size_t i = 0; i < (size_t)LCF_MAX_NODES * h->tpn; i++)
			free(h->req[i].diff);
	free(h->req);
	memset(h, 0, sizeof(*h));
}

/* Block index of a tag homed here, or -1. */
static int64_t
home_block(const struct na_home *h, uint64_t tag)
{
	uint64_t idx_mask = (1ull << (48 - h->block_shift)) - 1;

	if ((tag >> (48 - h->block_shift)) != h->self)
		return -1;
	if ((tag & idx_mask) >= h->n_blocks)
		return -1;
	return (int64_t)(tag & idx_mask);
}

static struct na_hreq *
home_req(struct na_home *h, const struct lcf_msg *m)
{
	if (m->node >= LCF_MAX_NODES || m->thread >= h->tpn)
		return NULL;
	return &h->req[(size_t)m->node * h->tpn + m->thread];
}

/* Send (or re-send) the decision for the requester's event `m`. */
static void
emit_decision(struct na_home *h, const struct lcf_msg *m,
	      const struct na_hdec *d, struct na_out *out)
{
	struct lcf_msg r;

	na_reply_hdr(m, &r, NA_MSG_ACK);
	r.gstatus = d->gs;
	r.copyset = d->cs;
	r.aux = na_aux_orig(d->type, h->self);
	switch (d->kind) {
	case NA_HDEC_NACK:
		r.type = NA_MSG_NACK;
		r.flags = LCF_F_FAIL;
		na_out_push(out, m->node, &r, NULL);
		return;
	case NA_HDEC_REPLY:
		r.flags = d->flags;
		if (d->fwd.kind == NA_FWD_REPLY_DATA) {
			int64_t idx = home_block(h, d->tag);

			na_out_segments(out, m->node, &r, NA_MSG_DATA,
					h->mem + ((uint64_t)idx
						  << h->block_shift),
					h->block_size);
			r.flags |= LCF_F_DATA_PROVIDER;
		}
		na_out_push(out, m->node, &r, NULL);
		return;
	case NA_HDEC_FORWARD:
		/* The switch's multicast, as one unicast per cache agent. */
		r.type = NA_MSG_FWD;
		for (uint16_t n = 0; n < LCF_MAX_NODES; n++) {
			if (!na_cs_has(d->fwd.to, n))
				continue;
			r.dst_node = n;
			r.flags = n == d->fwd.provider ? LCF_F_DATA_PROVIDER
						       : 0;
			na_out_push(out, n, &r, NULL);
		}
		return;
	default:
		return;
	}
}

/* IN_SWITCH set, Unshared: the switch sent us the request for the data. */
static void
switch_request(struct na_home *h, const struct lcf_msg *m, struct na_hreq *rq,
	       struct na_out *out)
{
	switch (na_le_check(&rq->req, m->seq)) {
	case NA_LE_STALE:
		h->st.stale++;
		return;
	case NA_LE_DUPLICATE:
		/*
		 * NACKed here, but this copy holds the switch's lock: a round
		 * recorded the seq (na_rec_home.c) and a late copy took the
		 * re-ADDed block's lock. Serve it, so that its requester's
		 * ABORT (a copy passed) can collect it and release the lock
		 * with its seq (lib/model/miglate.pml); an ABORT's own record
		 * ends the seq at the switch first, no copy passes after it.
		 */
		if (rq->dec.kind == NA_HDEC_NACK) {
			h->st.switch_late_served++;
			break;
		}
		h->st.duplicates++;
		emit_decision(h, m, &rq->dec, out);
		return;
	case NA_LE_EXECUTE:
		break;
	}
	na_le_commit(&rq->req, m->seq);
	h->st.switch_data_replies++;
	rq->dec = (struct na_hdec){
		.kind = NA_HDEC_REPLY,
		.type = m->type,
		.flags = LCF_F_IN_SWITCH,
		.gs = m->gstatus,
		.cs = m->copyset,
		.tag = m->tag,
		.fwd = { .kind = NA_FWD_REPLY_DATA },
	};
	emit_decision(h, m, &rq->dec, out);
}

/*
 * IN_SWITCH clear: run the server-side LCF pipeline. A NACK is not recorded
 * in LAST-EXECUTED: the requester retries a NACKed request with the same
 * seq (na_requester.c, struct na_retry), which must try the lock again.
 */
static void
pipeline_request(struct na_home *h, const struct lcf_msg *m, struct na_hreq *rq,
		 struct na_hblock *b, struct na_out *out)
{
	struct na_hdec nack = { .kind = NA_HDEC_NACK,
				.type = m->type,
				.gs = b->gs,
				.cs = b->cs,
				.tag = m->tag };
	struct na_hdec *d = &rq->dec;
	bool write = m->type != LCF_T_READ_MISS;

	switch (na_le_check(&rq->req, m->seq)) {
	case NA_LE_STALE:
		h->st.stale++;
		return;
	case NA_LE_DUPLICATE:
		h->st.duplicates++;
		emit_decision(h, m, d, out);
		return;
	case NA_LE_EXECUTE:
		break;
	}
	/* The switch has seen this event aborted (PROTOCOL.md 4.9). */
	if (m->flags & LCF_F_FAIL) {
		h->st.aborted_refused++;
		emit_decision(h, m, &nack, out);
		return;
	}
	/*
	 * The switch owns it (a request forwarded on a tag miss just before
	 * the ADD, or a migration in progress): NACK, the retry goes through
	 * the switch.
	 */
	if (b->owner != NA_OWN_HOME) {
		h->st.pipeline_nack_not_home++;
		emit_decision(h, m, &nack, out);
		return;
	}
	/* Lock. */
	if (b->writer || b->voh_upd || (write && b->readers) ||
	    (!write && b->readers == 0x7fff)) { /* 15-bit reader count */
		if (na_home_q_busy(h, m, rq, b, out))
			return; /* queued mode: to the holder */
		h->st.pipeline_nack_lock++;
		emit_decision(h, m, &nack, out);
		return;
	}
	/* Check (Table 2) before taking it: nothing to release on failure. */
	if (!na_check(m->type, m->node, b->gs, b->cs)) {
		h->st.pipeline_nack_check++;
		emit_decision(h, m, &nack, out);
		return;
	}
	na_le_commit(&rq->req, m->seq);
	if (write) {
		b->writer = true;
		b->wgrants++;
		na_home_q_granted(h, m, b);
	} else {
		b->readers++;
	}
	rq->held[m->seq & 1] = (struct na_hheld){
		.valid = true, .write = write, .seq = m->seq, .tag = m->tag
	};

	/* Forward (Table 3). */
	*d = (struct na_hdec){
		.type = m->type, .gs = b->gs, .cs = b->cs, .tag = m->tag
	};
	na_forward_rule(m->type, b->gs, b->cs, m->node, lcf_xorshift32(&h->rng),
			&d->fwd);
	if (d->fwd.kind == NA_FWD_TO_CACHES) {
		d->kind = NA_HDEC_FORWARD;
		na_home_count_hot(h, b,
				  (uint32_t)__builtin_popcount(d->fwd.to));
		h->st.pipeline_forwards++;
	} else {
		d->kind = NA_HDEC_REPLY;
		if (d->fwd.kind == NA_FWD_REPLY_DATA)
			h->st.pipeline_reply_data++;
		else
			h->st.pipeline_reply_ack++;
	}
	emit_decision(h, m, d, out);
}

/*
 * ABORT (PROTOCOL.md 4.9), after a tag miss or after a hit in which no copy
 * of the event passed the switch: "a copy passed" when one of its copies
 * executed here (it holds our lock; the requester releases it with its
 * unlock), otherwise record the seq with a NACK decision, so that every
 * later copy is answered as a duplicate with a NACK (even one that missed in
 * the switch before an ADD and arrives after a REMOVE), and answer
 * "aborted".
 */
static void
abort_event(struct na_home *h, const struct lcf_msg *m, struct na_hreq *rq,
	    struct na_out *out)
{
	const struct na_hheld *hl = &rq->held[m->seq & 1];
	struct lcf_msg r;
	bool passed;

	switch (na_le_check(&rq->req, m->seq)) {
	case NA_LE_EXECUTE:
		na_le_commit(&rq->req, m->seq);
		rq->dec = (struct na_hdec){ .kind = NA_HDEC_NACK,
					    .type = m->type,
					    .tag = m->tag };
		h->st.aborts++;
		passed = false;
		break;
	case NA_LE_DUPLICATE:
		/* Only an ABORT records a NACK decision. */
		passed = rq->dec.kind != NA_HDEC_NACK;
		break;
	default:
		passed = hl->valid && hl->seq == m->seq && hl->tag == m->tag;
		break;
	}
	na_reply_hdr(m, &r, NA_MSG_ABORT_ACK);
	r.flags = passed ? LCF_F_FAIL : 0;
	r.aux = na_aux_orig(m->type, h->self);
	na_out_push(out, m->node, &r, NULL);
}

static void
unlock(struct na_home *h, const struct lcf_msg *m, struct na_hreq *rq,
       struct na_hblock *b, struct na_out *out)
{
	struct na_hheld *hl = &rq->held[m->seq & 1];
	struct lcf_msg r;

	switch (na_le_check(&rq->unlock, m->seq)) {
	case NA_LE_STALE:
		h->st.stale++;
		return;
	case NA_LE_DUPLICATE:
		h->st.unlock_duplicates++;
		break;
	case NA_LE_EXECUTE:
		na_le_commit(&rq->unlock, m->seq);
		h->st.unlocks++;
		/* Only the event that took the lock can release it. */
		if (hl->valid && hl->seq == m->seq && hl->tag == m->tag) {
			if (hl->write) {
				b->writer = false;
				na_hq_clear(&b->q);
				b->cs = m->copyset;
			} else {
				if (b->readers)
					b->readers--;
				/* concurrent readers: union (section 5.1.1) */
				b->cs |= m->copyset;
			}
			b->gs = m->gstatus;
			hl->valid = false;
		}
		break;
	}
	na_reply_hdr(m, &r, NA_MSG_UNLOCK_ACK);
	r.gstatus = b->gs;
	r.copyset = b->cs;
	r.aux = na_aux_orig(m->type, h->self);
	na_out_push(out, m->node, &r, NULL);
}

static void
writeback(struct na_home *h, const struct lcf_msg *m, const void *payload,
	  uint16_t len, struct na_hreq *rq, struct na_hblock *b, int64_t idx,
	  struct na_out *out)
{
	struct lcf_msg r;
	int seg = na_seg_index(h->block_size, m->aux, len);

	if (seg < 0) {
		h->st.bad++;
		return;
	}
	if (!na_home_wb_allowed(rq, b, m)) {
		h->st.writebacks_refused++;
		return;
	}
	/*
	 * Switch-owned: each segment of an event is written once. A later
	 * copy may come after the event's unlock (at the switch, unseen here)
	 * and another node's write-back of the block: it is ACKed again and
	 * changes nothing (lib/model/wbdup.pml). The first copy of every
	 * segment came before the event's unlock, which waits for its ACK.
	 */
	if (b->owner != NA_OWN_HOME) {
		na_home_wb_commit(rq, m->seq);
		if (rq->wb_segs & (1ull << seg)) {
			h->st.writebacks_duplicate++;
			goto ack;
		}
		rq->wb_segs |= 1ull << seg;
	}
	na_sabres_note_write(&h->sab,
			     ((uint64_t)idx << h->block_shift) + m->aux, len);
	memcpy(h->mem + ((uint64_t)idx << h->block_shift) + m->aux, payload,
	       len);
	h->st.writebacks++;
ack:
	na_reply_hdr(m, &r, NA_MSG_WB_ACK);
	r.aux = m->aux;
	na_out_push(out, m->node, &r, NULL);
}

bool
na_home_write_local(struct na_home *h, const struct lcf_msg *req,
		    const uint8_t *data)
{
	struct lcf_msg m = *req;
	struct na_hreq *rq = home_req(h, req);
	int64_t idx = home_block(h, req->tag);
	struct na_hblock *b;

	if (idx < 0 || !rq || h->ext)
		return false;
	b = &h->blk[idx];
	m.type = NA_MSG_WB;
	if (!na_home_wb_allowed(rq, b, &m)) {
		h->st.writebacks_refused++;
		return false;
	}
	if (b->owner != NA_OWN_HOME) { /* as if every segment came */
		na_home_wb_commit(rq, m.seq);
		rq->wb_segs = na_seg_all(h->block_size);
	}
	na_sabres_note_write(&h->sab, (uint64_t)idx << h->block_shift,
			     h->block_size);
	memcpy(h->mem + ((uint64_t)idx << h->block_shift), data, h->block_size);
	h->st.writebacks++;
	return true;
}

static void
alloc_chunk(struct na_home *h, const struct lcf_msg *m, struct na_hreq *rq,
	    struct na_out *out)
{
	struct lcf_msg r;
	uint8_t *p;

	switch (na_le_check(&rq->alloc, m->seq)) {
	case NA_LE_STALE:
		return;
	case NA_LE_EXECUTE:
		na_le_commit(&rq->alloc, m->seq);
		rq->alloc_addr = 0;
		if (h->next_chunk < h->n_chunks) {
			rq->alloc_addr = (uint64_t)h->self << 48 |
					 (uint64_t)h->next_chunk *
						 NA_CHUNK_SIZE;
			h->next_chunk++;
		}
		h->st.allocs++;
		break;
	case NA_LE_DUPLICATE:
		break;
	}
	na_reply_hdr(m, &r, NA_MSG_ALLOC_REPLY);
	r.aux = m->aux;
	if (!rq->alloc_addr) {
		r.flags = LCF_F_FAIL;
		na_out_push(out, m->node, &r, NULL);
		return;
	}
	p = rq->alloc_be;
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(rq->alloc_addr >> (56 - 8 * i));
	r.len = 8;
	na_out_push(out, m->node, &r, p);
}

void
na_home_handle(struct na_home *h, const struct lcf_msg *m, const void *payload,
	       uint16_t len, struct na_out *out)
{
	struct na_hreq *rq = home_req(h, m);
	int64_t idx = home_block(h, m->tag);
	struct na_hblock *b;

	if (h->ext && h->ext(h, m, payload, len, out))
		return;
	if (m->type == NA_MSG_SABRE_REG || m->type == NA_MSG_SABRE_READ ||
	    m->type == NA_MSG_RREAD) {
		/* Served from memory: no lock taken, no metadata changed. */
		na_sabres_handle(&h->sab, h->mem, h->mem_size, h->self, m,
				 payload, len, out);
		return;
	}
	if (m->type == NA_MSG_ALLOC_REQ) {
		if (rq)
			alloc_chunk(h, m, rq, out);
		return;
	}
	if (idx < 0 || (!rq && m->type != LCF_T_MIGRATE_ACK)) {
		h->st.bad++;
		return;
	}
	b = &h->blk[idx];
	switch (m->type) {
	case LCF_T_READ_MISS:
	case LCF_T_WRITE_MISS:
	case LCF_T_WRITE_SHARED:
	case LCF_T_EVICT_SHARED:
	case LCF_T_EVICT_MODIFIED:
		h->st.requests++;
		if (m->flags & LCF_F_IN_SWITCH)
			switch_request(h, m, rq, out);
		else
			pipeline_request(h, m, rq, b, out);
		return;
	case LCF_T_READ_UNLOCK:
	case LCF_T_WRITE_UNLOCK:
		unlock(h, m, rq, b, out);
		return;
	case LCF_T_ABORT:
		abort_event(h, m, rq, out);
		return;
	case LCF_T_QXFER:
	case LCF_T_QRELEASE:
		na_home_q_end(h, m, rq, b, out);
		return;
	case LCF_T_MIGRATE_ACK:
		na_home_migrate_ack(h, m, b);
		return;
	case NA_MSG_WB:
		writeback(h, m, payload, len, rq, b, idx, out);
		return;
	case NA_MSG_DIFF:
		na_home_diff(h, m, payload, len, rq, b,
			     h->mem + ((uint64_t)idx << h->block_shift), out);
		return;
	default:
		h->st.bad++; /* e.g. a REMOVE that missed: not used yet */
		return;
	}
}

struct na_hblock *
na_home_lookup(struct na_home *h, const struct lcf_msg *m, struct na_hreq **rq)
{
	int64_t idx = home_block(h, m->tag);

	*rq = home_req(h, m);
	return idx < 0 || !*rq ? NULL : &h->blk[idx];
}
