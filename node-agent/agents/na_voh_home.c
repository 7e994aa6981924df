/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Validate-on-hit, home side: versions, the ReadQueue/UpdateQueue per
 * block, LAST-EXECUTED per requester. See na_voh_home.h, docs/VALIDATE.md.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "na_msg.h"
#include "na_voh_home.h"

#define ACT_MAX 256 /* PROCEEDs one transition may emit (readers released) */

int
na_voh_home_init(struct na_voh_home *v, struct na_home *h)
{
	memset(v, 0, sizeof(*v));
	v->h = h;
	v->ver = calloc(h->n_blocks ? h->n_blocks : 1, sizeof(*v->ver));
	v->blk = calloc(h->n_blocks ? h->n_blocks : 1, sizeof(*v->blk));
	v->req = calloc((size_t)LCF_MAX_NODES * (h->tpn ? h->tpn : 1),
			sizeof(*v->req));
	if (!v->ver || !v->blk || !v->req) {
		na_voh_home_fini(v);
		return -ENOMEM;
	}
	return 0;
}

void
na_voh_home_fini(struct na_voh_home *v)
{
	if (v->blk && v->h)
		for (uint32_t i = 0; i < v->h->n_blocks; i++) {
			if (!v->blk[i])
				continue;
			na_rq_fini(&v->blk[i]->q);
			free(v->blk[i]->pend);
			free(v->blk[i]);
		}
	free(v->blk);
	free(v->ver);
	free(v->req);
	memset(v, 0, sizeof(*v));
}

/* Block index of a tag homed here, or -1. */
static int64_t
blk_idx(const struct na_home *h, uint64_t tag)
{
	uint64_t mask = (1ull << (48 - h->block_shift)) - 1;

	if ((tag >> (48 - h->block_shift)) != h->self ||
	    (tag & mask) >= h->n_blocks)
		return -1;
	return (int64_t)(tag & mask);
}

/* The home agent runs this block's coherence (read without its lock: a
 * byte the home agent writes under the agents' section). */
static bool
home_owned(const struct na_home *h, int64_t idx)
{
	return __atomic_load_n(&h->blk[idx].owner, __ATOMIC_RELAXED) ==
	       NA_OWN_HOME;
}

/*
 * Home memory is the block's value for validate-on-hit only while the
 * coherence protocol has no writer and no Modified copy (a write that fell
 * back to it, or one made while the switch owned the block); an update may
 * also not change memory under coherent copies, which it would not
 * invalidate. Refused, the access falls back to the coherence protocol
 * (lib/model/vohfall.pml).
 */
static bool
serves(const struct na_home *h, int64_t idx, bool update)
{
	const struct na_hblock *b = &h->blk[idx];

	if (!home_owned(h, idx) ||
	    __atomic_load_n(&b->writer, __ATOMIC_RELAXED) ||
	    __atomic_load_n(&b->gs, __ATOMIC_RELAXED) == LCF_GS_MODIFIED)
		return false;
	return !update || (__atomic_load_n(&b->cs, __ATOMIC_RELAXED) == 0 &&
			   __atomic_load_n(&b->readers, __ATOMIC_RELAXED) == 0);
}

/* The version: validate-on-hit's commits plus the home's write grants
 * (a coherent write changes the value too). */
static uint32_t
cur_ver(const struct na_voh_home *v, int64_t idx)
{
	return __atomic_load_n(&v->ver[idx], __ATOMIC_ACQUIRE) +
	       __atomic_load_n(&v->h->blk[idx].wgrants, __ATOMIC_RELAXED);
}

uint32_t
na_voh_version(const struct na_voh_home *v, uint64_t tag)
{
	int64_t idx = blk_idx(v->h, tag);

	return idx < 0 ? 0 : cur_ver(v, idx);
}

/*
 * The block's migration epoch: its ADD_TO_SWITCH set count (add_seq's bits
 * 16-31), renewed by every move to the switch. While the switch owns a
 * block, writes bypass the version, so a copy fetched before a move must
 * not validate after the block comes home: replies carry the epoch beside
 * the version (16 bits: aux bits 16-23 and gstatus), and a copy matches
 * only both.
 */
static void
set_epoch(const struct na_voh_home *v, int64_t idx, struct lcf_msg *r)
{
	uint32_t e = __atomic_load_n(&v->h->blk[idx].add_seq,
				     __ATOMIC_RELAXED) >>
		     16;

	r->aux = (r->aux & 0xff00ffffu) | (e & 0xff) << 16;
	r->gstatus = (uint8_t)(e >> 8);
}

/* VOH_VERSION answering `m` (VREAD, VRPC or DONE). */
static void
version_reply(const struct na_voh_home *v, const struct lcf_msg *m,
	      struct lcf_msg *r, int64_t idx, bool fail)
{
	na_reply_hdr(m, r, NA_MSG_VOH_VERSION);
	r->aux = na_aux_orig(m->type, v->h->self);
	if (fail || idx < 0 || !serves(v->h, idx, false))
		r->flags = LCF_F_FAIL;
	else
		r->copyset = cur_ver(v, idx);
	if (idx >= 0)
		set_epoch(v, idx, r);
}

bool
na_voh_vread(struct na_voh_home *v, const struct lcf_msg *m,
	     struct lcf_msg *reply)
{
	if (m->type != NA_MSG_VOH_VREAD || m->node >= LCF_MAX_NODES)
		return false;
	version_reply(v, m, reply, blk_idx(v->h, m->tag), false);
	__atomic_add_fetch(&v->st.vreads, 1, __ATOMIC_RELAXED);
	return true;
}

/* Requester `who`'s header for a message about its operation `r`. */
static void
who_hdr(const struct na_voh_home *v, uint32_t who, const struct na_vreq *r,
	struct lcf_msg *m, uint8_t type)
{
	memset(m, 0, sizeof(*m));
	m->type = type;
	m->node = (uint16_t)(who / v->h->tpn);
	m->thread = (uint16_t)(who % v->h->tpn);
	m->seq = r->seq;
	m->tag = r->tag;
	m->dst_node = m->node;
}

/* READ_PROCEED (the block and its version) or UPDATE_PROCEED. */
static void
proceed(struct na_voh_home *v, uint32_t who, int64_t idx, struct na_out *out)
{
	const struct na_vreq *r = &v->req[who];
	struct lcf_msg m;

	who_hdr(v, who, r, &m, NA_MSG_VOH_PROCEED);
	if (r->op == NA_MSG_VOH_UPDATE) {
		m.aux = na_aux_orig(NA_MSG_VOH_UPDATE, v->h->self);
		na_out_push(out, m.node, &m, NULL);
		return;
	}
	m.copyset = cur_ver(v, idx);
	for (uint32_t i = 0; i < na_seg_count(v->h->block_size); i++) {
		uint32_t off;
		uint16_t len;

		na_seg_span(v->h->block_size, i, &off, &len);
		m.aux = off; /* < 64 KB: bits 16-23 carry the epoch */
		m.len = len;
		set_epoch(v, idx, &m);
		na_out_push(out, m.node, &m,
			    v->h->mem + ((uint64_t)idx << v->h->block_shift) +
				    off);
	}
}

/* Send the PROCEEDs a transition decided. */
static void
grant(struct na_voh_home *v, int64_t idx, const struct na_rq_action *act,
      uint32_t n, struct na_out *out)
{
	struct na_vblk *b = v->blk[idx];

	for (uint32_t i = 0; i < n; i++) {
		struct na_vreq *r = &v->req[act[i].who];

		r->state = NA_VR_GRANTED;
		if (act[i].kind == NA_RQ_UPDATE_PROCEED)
			b->wsegs = 0;
		r->gver = cur_ver(v, idx);
		r->gadd = __atomic_load_n(&v->h->blk[idx].add_seq,
					  __ATOMIC_RELAXED);
		proceed(v, act[i].who, idx, out);
	}
	/* The home agent's pipeline is locked out meanwhile (vohupd.pml). */
	__atomic_store_n(&v->h->blk[idx].voh_upd, b->q.n_uq != 0,
			 __ATOMIC_RELAXED);
}

/* Run one Table 1 transition and send the PROCEEDs it decides. */
static int
step(struct na_voh_home *v, int64_t idx, enum na_rq_msg msg, uint32_t who,
     struct na_out *out)
{
	static __thread struct na_rq_action act[ACT_MAX];
	uint32_t n = 0;
	int rc = na_rq_step(&v->blk[idx]->q, msg, who, act, ACT_MAX, &n);

	if (rc == -EPROTO)
		v->st.table_errors++;
	grant(v, idx, act, n, out);
	return rc;
}

static struct na_vblk *
vblk(struct na_voh_home *v, int64_t idx)
{
	if (!v->blk[idx]) {
		v->blk[idx] = calloc(1, sizeof(*v->blk[idx]));
		if (v->blk[idx])
			na_rq_init(&v->blk[idx]->q);
	}
	return v->blk[idx];
}

/* The next waiting updater takes UQ once it is empty. */
static void
next_update(struct na_voh_home *v, int64_t idx, struct na_out *out)
{
	struct na_vblk *b = v->blk[idx];
	uint32_t who;

	if (b->n_pend == 0 || b->q.n_uq)
		return;
	who = b->pend[0];
	memmove(b->pend, b->pend + 1, --b->n_pend * sizeof(*b->pend));
	step(v, idx, NA_RQ_UPDATE_REQUEST, who, out);
}

/*
 * A repeated READ of a granted read gets the block again only while memory
 * and version are still those of the grant: a coherence write granted
 * since (a Modified line, memory stale, its grant counted in the version)
 * or a move would pair memory with a version it does not match, or mix
 * segments of two values in the reader's copy (lib/model/vohdup.pml).
 */
static bool
same_block(const struct na_voh_home *v, int64_t idx, const struct na_vreq *r)
{
	return serves(v->h, idx, false) && cur_ver(v, idx) == r->gver &&
	       __atomic_load_n(&v->h->blk[idx].add_seq, __ATOMIC_RELAXED) ==
		       r->gadd;
}

/* PROCEED FAIL: the requester falls back to the coherence protocol. */
static void
fail_reply(struct na_voh_home *v, const struct lcf_msg *m, struct na_out *out)
{
	struct lcf_msg f;

	v->st.refused++;
	na_reply_hdr(m, &f, NA_MSG_VOH_PROCEED);
	f.flags = LCF_F_FAIL;
	f.aux = na_aux_orig(m->type, v->h->self);
	na_out_push(out, m->node, &f, NULL);
}

/* Refused, and the read leaves the ReadQueue as on its READ_DONE; later
 * copies of its READ are answered FAIL too. */
static void
refuse_read(struct na_voh_home *v, const struct lcf_msg *m, int64_t idx,
	    uint32_t who, struct na_out *out)
{
	struct na_vreq *r = &v->req[who];

	fail_reply(v, m, out);
	step(v, idx, NA_RQ_READ_DONE, who, out);
	r->state = NA_VR_DONE;
	r->ver = cur_ver(v, idx);
	next_update(v, idx, out);
}

static void
request(struct na_voh_home *v, const struct lcf_msg *m, int64_t idx,
	uint32_t who, struct na_out *out)
{
	struct na_vreq *r = &v->req[who];
	struct na_vblk *b;

	if (r->state != NA_VR_NONE && r->seq == m->seq && r->tag == m->tag &&
	    r->op == m->type) {
		v->st.duplicates++;
		if (r->state == NA_VR_GRANTED && m->type == NA_MSG_VOH_READ &&
		    !same_block(v, idx, r)) {
			refuse_read(v, m, idx, who, out);
			return;
		}
		if (r->state == NA_VR_GRANTED)
			proceed(v, who, idx, out);
		else if (r->state == NA_VR_REFUSED ||
			 (r->state == NA_VR_DONE && m->type == NA_MSG_VOH_READ))
			fail_reply(v, m, out); /* refused, its FAIL lost */
		return;
	}
	/*
	 * A thread runs one operation at a time and its seqs grow: a request
	 * older than the record's is a late copy of an operation over at the
	 * requester, granting it would hold the record (and the ReadQueue)
	 * for nobody (lib/model/vohref.pml).
	 */
	if (r->state != NA_VR_NONE && m->seq != r->seq &&
	    !lcf_seq_after(m->seq, r->seq)) {
		v->st.duplicates++;
		return;
	}
	if (r->state == NA_VR_QUEUED || r->state == NA_VR_GRANTED) {
		v->st.bad++; /* one operation at a time per requester */
		return;
	}
	b = vblk(v, idx);
	if (!serves(v->h, idx, m->type == NA_MSG_VOH_UPDATE) || !b) {
		/* Recorded: a later copy of it, once the block is served here
		 * again, is refused too, not granted to a requester gone back to
		 * the coherence protocol (no VOH_DONE would end that grant). */
		r->seq = m->seq;
		r->op = m->type;
		r->tag = m->tag;
		r->state = NA_VR_REFUSED;
		fail_reply(v, m, out);
		return;
	}
	r->seq = m->seq;
	r->op = m->type;
	r->tag = m->tag;
	r->state = NA_VR_QUEUED;
	if (m->type == NA_MSG_VOH_READ) {
		v->st.reads++;
		if (b->q.n_uq)
			v->st.reads_queued++;
		step(v, idx, NA_RQ_READ_REQUEST, who, out);
		return;
	}
	v->st.updates++;
	if (b->q.n_uq == 0) {
		step(v, idx, NA_RQ_UPDATE_REQUEST, who, out);
		return;
	}
	if (b->n_pend == b->cap_pend) {
		uint32_t c = b->cap_pend ? 2 * b->cap_pend : 4;
		uint32_t *p = realloc(b->pend, c * sizeof(*p));

		if (!p) {
			r->state = NA_VR_NONE; /* forgotten: it retransmits */
			return;
		}
		b->pend = p;
		b->cap_pend = c;
	}
	b->pend[b->n_pend++] = who;
	v->st.updates_waiting++;
}

/* An update's data: aux = frame index << 24 | byte offset in the block. */
static void
wdata(struct na_voh_home *v, const struct lcf_msg *m, const void *payload,
      uint16_t len, int64_t idx, uint32_t who)
{
	const struct na_vreq *r = &v->req[who];
	uint32_t off = m->aux & 0xffffff, frame = m->aux >> 24;

	if (r->state != NA_VR_GRANTED || r->op != NA_MSG_VOH_UPDATE ||
	    r->seq != m->seq || r->tag != m->tag) {
		v->st.duplicates++; /* a late copy */
		return;
	}
	if (frame >= 64 || off + len > v->h->block_size ||
	    len > NA_MAX_FRAME_PAYLOAD) {
		v->st.bad++;
		return;
	}
	memcpy(v->h->mem + ((uint64_t)idx << v->h->block_shift) + off, payload,
	       len);
	v->blk[idx]->wsegs |= 1ull << frame;
}

/* READ_DONE, or UPDATE_DONE with copyset = frames of data sent. */
static void
done(struct na_voh_home *v, const struct lcf_msg *m, int64_t idx, uint32_t who,
     struct na_out *out)
{
	struct na_vreq *r = &v->req[who];
	struct na_vblk *b = v->blk[idx];
	struct lcf_msg a;
	uint32_t frames = m->copyset;

	if (r->state == NA_VR_NONE || r->seq != m->seq || r->tag != m->tag) {
		v->st.duplicates++;
		return;
	}
	if (r->state == NA_VR_DONE) {
		v->st.duplicates++;
		na_reply_hdr(m, &a, NA_MSG_VOH_VERSION);
		a.aux = na_aux_orig(m->type, v->h->self);
		a.copyset = r->ver;
		set_epoch(v, idx, &a);
		na_out_push(out, m->node, &a, NULL);
		return;
	}
	if (r->state != NA_VR_GRANTED) {
		v->st.bad++;
		return;
	}
	if (r->op == NA_MSG_VOH_READ) {
		step(v, idx, NA_RQ_READ_DONE, who, out);
	} else {
		if (frames == 0 || frames > 64 ||
		    b->wsegs != (frames == 64 ? ~0ull : (1ull << frames) - 1)) {
			v->st.data_incomplete++;
			version_reply(v, m, &a, idx, true);
			na_out_push(out, m->node, &a, NULL);
			return;
		}
		/* The commit: the data is in memory, now the version. */
		__atomic_store_n(&v->ver[idx], v->ver[idx] + 1,
				 __ATOMIC_RELEASE);
		v->st.commits++;
		r->state = NA_VR_DONE; /* before the reads it releases */
		step(v, idx, NA_RQ_UPDATE_DONE, who, out);
	}
	r->state = NA_VR_DONE;
	r->ver = cur_ver(v, idx);
	version_reply(v, m, &a, idx, false);
	a.copyset = r->ver;
	na_out_push(out, m->node, &a, NULL);
	next_update(v, idx, out);
}

void
na_voh_handle(struct na_voh_home *v, const struct lcf_msg *m,
	      const void *payload, uint16_t len, struct na_out *out)
{
	int64_t idx = blk_idx(v->h, m->tag);
	uint32_t who = (uint32_t)m->node * v->h->tpn + m->thread;
	struct lcf_msg r;

	if (idx < 0 || m->node >= LCF_MAX_NODES || m->thread >= v->h->tpn) {
		v->st.bad++;
		return;
	}
	switch (m->type) {
	case NA_MSG_VOH_VREAD: /* delivered to the agents (local delivery) */
	case NA_MSG_VOH_VRPC:
		v->st.vrpcs += m->type == NA_MSG_VOH_VRPC;
		version_reply(v, m, &r, idx, false);
		na_out_push(out, m->node, &r, NULL);
		return;
	case NA_MSG_VOH_READ:
	case NA_MSG_VOH_UPDATE:
		request(v, m, idx, who, out);
		return;
	case NA_MSG_VOH_WDATA:
		wdata(v, m, payload, len, idx, who);
		return;
	case NA_MSG_VOH_DONE:
		if (v->blk[idx])
			done(v, m, idx, who, out);
		else
			v->st.bad++;
		return;
	default:
		v->st.bad++;
		return;
	}
}

/*
 * Node `node` failed: none of its requesters will send READ_DONE or
 * UPDATE_DONE. Every entry of theirs leaves the queues, releasing what
 * waited behind it; a granted update counts as committed (its data may be
 * in memory: no copy from before may validate). lib/model/vohcrash.pml.
 */
void
na_voh_node_failed(struct na_voh_home *v, uint16_t node, struct na_out *out)
{
	static __thread struct na_rq_action act[ACT_MAX];
	uint32_t tpn = v->h->tpn;

	for (uint32_t idx = 0; v->blk && idx < v->h->n_blocks; idx++) {
		struct na_vblk *b = v->blk[idx];

		if (!b)
			continue;
		for (uint32_t i = 0; i < b->n_pend;)
			if (b->pend[i] / tpn == node)
				memmove(b->pend + i, b->pend + i + 1,
					(--b->n_pend - i) * sizeof(*b->pend));
			else
				i++;
		for (uint32_t who = node * tpn; who < (node + 1u) * tpn;
		     who++) {
			uint32_t n = 0;

			if (b->q.n_uq && b->q.uq[0] == who && !b->q.n_rq)
				__atomic_store_n(&v->ver[idx], v->ver[idx] + 1,
						 __ATOMIC_RELEASE);
			if (na_rq_cancel(&b->q, who, act, ACT_MAX, &n))
				v->st.table_errors++;
			grant(v, (int64_t)idx, act, n, out);
			if (v->req[who].tag == na_home_tag(v->h, idx))
				v->req[who].state = NA_VR_NONE;
		}
		next_update(v, (int64_t)idx, out);
	}
}
