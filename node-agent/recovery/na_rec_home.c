/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Recovery, home side (na_recovery.h, docs/FAULTS.md): switch restart
 * detection by a REMOVE_FROM_SWITCH probe, recovery rounds over this home's
 * blocks, the rebuild from the nodes' reports, re-adding the blocks to the
 * switch. The dead-node drain is na_rec_drain.c. About 700 lines: the
 * detection, the round and the rebuild are one state machine over the
 * home's blocks (its per-block round state is private to this file).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "na_msg.h"
#include "na_rec_int.h"

/* ---- home side: detection, rounds, rebuild ------------------------------------ */

static int64_t
own_block(const struct na_rec *r, uint64_t tag)
{
	uint64_t mask = (1ull << (48 - r->env.home->block_shift)) - 1;

	if (!r->env.role_home ||
	    topo_tag_home(r->env.topo, tag) != r->env.self ||
	    (tag & mask) >= r->env.home->n_blocks)
		return -1;
	return (int64_t)(tag & mask);
}

static void
send_begin(struct na_rec *r, uint32_t to, struct na_out *out)
{
	struct rec_home *h = &r->h;
	struct lcf_msg m;

	for (uint16_t d = 0; d < LCF_MAX_NODES; d++) {
		if (!na_cs_has(to, d))
			continue;
		hdr(&m, NA_MSG_REC_BEGIN, r->env.self, d, h->round);
		m.len = (uint16_t)(h->n * 8);
		na_out_push(out, d, &m, h->begin);
	}
	h->last_ns = na_now_ns();
}

static void
send_done(struct na_rec *r, uint32_t to, struct na_out *out)
{
	struct rec_home *h = &r->h;
	struct lcf_msg m;

	for (uint16_t d = 0; d < LCF_MAX_NODES; d++) {
		if (!na_cs_has(to, d))
			continue;
		hdr(&m, NA_MSG_REC_DONE, r->env.self, d, h->round);
		na_out_push(out, d, &m, NULL);
	}
	h->last_ns = na_now_ns();
}

/* A round over the next NA_REC_TAGS switch-owned blocks (none: finished). */
void
na_rec_start_round(struct na_rec *r, struct na_out *out)
{
	struct rec_home *h = &r->h;

	h->n = 0;
	for (uint32_t i = 0; i < r->env.home->n_blocks && h->n < NA_REC_TAGS;
	     i++)
		if (r->env.home->blk[i].owner == NA_OWN_RECOVERING) {
			put64(h->begin + 8 * h->n, na_home_tag(r->env.home, i));
			h->idx[h->n++] = i;
		}
	if (!h->n) {
		/* Finished: give the blocks back to the new switch (5.2.1). */
		h->phase = h->n_readd ? PH_READD : PH_IDLE;
		if (h->detect_ns)
			r->st.last_recovery_us = (na_now_ns() - h->detect_ns) /
						 1000;
		h->detect_ns = 0;
		return;
	}
	h->round++;
	h->phase = PH_COLLECT;
	h->expect = all_nodes(r);
	h->reported = h->acked = 0;
	h->n_unset = 0;
	h->n_dh = 0;
	memset(h->cs, 0, sizeof(h->cs));
	memset(h->mod, 0, sizeof(h->mod));
	for (int i = 0; i < REC_DIRTY; i++)
		h->cand[i].used = false;
	r->st.rounds++;
	send_begin(r, h->expect, out);
}

static int
slot_of(const struct rec_home *h, uint64_t tag, const struct na_rec *r)
{
	int64_t idx = own_block(r, tag);

	for (uint32_t i = 0; idx >= 0 && i < h->n; i++)
		if (h->idx[i] == (uint32_t)idx)
			return (int)i;
	return -1;
}

static bool
same_event(const struct rec_dhdr *a, const struct rec_dhdr *b)
{
	return a->slot == b->slot && a->src == b->src && a->rnode == b->rnode &&
	       a->rthread == b->rthread && a->seq == b->seq;
}

/* The data slot holding record `k`, or NULL. */
static struct rec_cand *
cand_find(struct rec_home *h, const struct rec_dhdr *k)
{
	for (int i = 0; i < REC_DIRTY; i++)
		if (h->cand[i].used && same_event(&h->cand[i].k, k))
			return &h->cand[i];
	return NULL;
}

/*
 * Record `k` is its block's orphan as far as the reports in so far tell:
 * its seq lies between the lowest and highest seq its requester thread
 * listed unsettled on the block (a node keeps only those two per block:
 * lib/model/recunset.pml), or its data equals the provider's Shared copy
 * (lib/model/recorphan.pml).
 */
static bool
matches(const struct rec_home *h, const struct rec_dhdr *k)
{
	uint32_t lo = 0, hi = 0;
	bool any = false;

	for (uint32_t i = 0; i < h->n_dh; i++)
		if (h->dh[i].cur && same_event(&h->dh[i], k))
			return true;
	for (uint32_t i = 0; i < h->n_unset; i++) {
		const struct rec_unset *u = &h->unset[i];

		if (u->slot != k->slot || u->node != k->rnode ||
		    u->thread != k->rthread)
			continue;
		if (!any || lcf_seq_after(lo, u->seq))
			lo = u->seq;
		if (!any || lcf_seq_after(u->seq, hi))
			hi = u->seq;
		any = true;
	}
	return any && !lcf_seq_after(lo, k->seq) && !lcf_seq_after(k->seq, hi);
}

/*
 * A data slot for record `k`: its own, a free one, or, `k` matching, one
 * of a record that does not. Without the last, old records of completed
 * events filled the slots first and the orphan's data was dropped: memory
 * kept an old value (lib/model/recslots.pml). NULL: none (a matching
 * record's provider is asked again once every report is in).
 */
static struct rec_cand *
cand_get(struct na_rec *r, const struct rec_dhdr *k)
{
	struct rec_home *h = &r->h;
	struct rec_cand *c = cand_find(h, k), *free_c = NULL, *old_c = NULL;

	if (c)
		return c;
	for (int i = 0; i < REC_DIRTY; i++) {
		c = &h->cand[i];
		if (!c->used && !free_c)
			free_c = c;
		else if (c->used && !old_c && !matches(h, &c->k))
			old_c = c;
	}
	if (!free_c && matches(h, k))
		free_c = old_c;
	if (!free_c)
		return NULL;
	if (!free_c->data && !(free_c->data = malloc(r->env.topo->block_size)))
		return NULL;
	*free_c = (struct rec_cand){ .used = true,
				     .k = *k,
				     .data = free_c->data };
	return free_c;
}

void
na_rec_home_report(struct na_rec *r, const struct lcf_msg *m, const uint8_t *p)
{
	struct rec_home *h = &r->h;
	uint16_t src = m->node;

	if (h->phase != PH_COLLECT || m->seq != h->round ||
	    !na_cs_has(h->expect, src) || na_cs_has(h->reported, src))
		return;
	for (uint16_t off = 0; off + REC_ENTRY <= m->len; off += REC_ENTRY) {
		const uint8_t *e = p + off;
		int s = slot_of(h, get64(e), r);

		if (s < 0)
			continue;
		switch (e[8]) {
		case ENT_HOLD:
			h->cs[s] |= na_bit(src);
			if (e[9] == 2)
				h->mod[s] |= na_bit(src);
			break;
		case ENT_UNSETTLED:
			if (h->n_unset < REC_ULIST)
				h->unset[h->n_unset++] = (struct rec_unset){
					.slot = (uint32_t)s,
					.node = src,
					.thread = e[9],
					.seq = get32(e + 12)
				};
			break;
		case ENT_DIRTY:
			/* Every header is kept: which record is the orphan is
			 * known once every report is in. */
			if (h->n_dh < REC_ULIST)
				h->dh[h->n_dh++] = (struct rec_dhdr){
					.slot = (uint32_t)s,
					.src = src,
					.rnode = e[9],
					.rthread = e[10],
					.seq = get32(e + 12),
					.cur = e[11] & REC_DIRTY_CUR
				};
			break;
		default:
			break;
		}
	}
	h->reported |= na_bit(src);
}

void
na_rec_home_data(struct na_rec *r, const struct lcf_msg *m, const uint8_t *p)
{
	struct rec_home *h = &r->h;
	struct rec_cand *c;
	int s = slot_of(h, m->tag, r);
	int seg = na_seg_index(r->env.topo->block_size, m->aux, m->len);

	if (h->phase != PH_COLLECT || s < 0 || seg < 0)
		return;
	c = cand_get(r, &(struct rec_dhdr){ .slot = (uint32_t)s,
					    .src = m->node,
					    .rnode = (uint16_t)m->copyset,
					    .rthread = m->thread,
					    .seq = m->seq });
	if (!c)
		return;
	memcpy(c->data + m->aux, p, m->len);
	c->have |= 1ull << seg;
}

/*
 * The orphan record of block slot `s`: its event was aborted, or the data
 * equals the provider's Shared copy (its requester may be dead, its
 * write-back never sent: lib/model/recorphan.pml).
 */
static const struct rec_dhdr *
orphan(const struct rec_home *h, uint32_t s)
{
	for (uint32_t i = 0; i < h->n_dh; i++)
		if (h->dh[i].slot == s && matches(h, &h->dh[i]))
			return &h->dh[i];
	return NULL;
}

/* Does record `k` hold the orphan of a block without a Modified copy? */
static bool
needed(const struct rec_home *h, const struct rec_dhdr *k)
{
	const struct rec_dhdr *o;

	return k->slot < h->n && !h->mod[k->slot] && (o = orphan(h, k->slot)) &&
	       same_event(o, k);
}

/* Every report in, every needed orphan complete? Else ask again. */
static bool
collected(struct na_rec *r, uint32_t *missing)
{
	struct rec_home *h = &r->h;
	uint64_t all = na_seg_all(r->env.topo->block_size);

	*missing = h->expect & ~h->reported;
	if (*missing)
		return false;
	/* Every record known: free the data no orphan needs. */
	for (int i = 0; i < REC_DIRTY; i++)
		if (h->cand[i].used && !needed(h, &h->cand[i].k))
			h->cand[i].used = false;
	for (uint32_t s = 0; s < h->n; s++) {
		const struct rec_dhdr *o = h->mod[s] ? NULL : orphan(h, s);
		const struct rec_cand *c = o ? cand_find(h, o) : NULL;

		/* Not all in: its provider sends report and data again (a
		 * provider declared dead meanwhile: its data is lost). */
		if (o && (!c || c->have != all) && na_cs_has(h->expect, o->src))
			*missing |= na_bit(o->src);
	}
	return !*missing;
}

/* The seq LAST-EXECUTED records, its lock gone with the block: NACK. */
static void
nack_decision(struct na_rec *r, struct na_hreq *rq, uint64_t tag)
{
	if (rq->dec.kind == NA_HDEC_NACK)
		return;
	rq->dec = (struct na_hdec){ .kind = NA_HDEC_NACK,
				    .type = rq->dec.type,
				    .tag = tag };
	r->st.held_nacked++;
}

/*
 * The rebuilt metadata is the truth: an unlock of an event that ended
 * before the round (still on its way) must not overwrite it. A forgotten
 * holder's seq, if it is the one LAST-EXECUTED records, gets a NACK
 * decision, as an unexecuted unsettled seq does: its lock is gone, so its
 * ABORT must not be answered "a copy passed", nor a re-sent copy replay a
 * forward to a provider that may have lost its copy since
 * (lib/model/recpass.pml).
 */
static void
forget_holders(struct na_rec *r, uint64_t tag)
{
	struct na_home *home = r->env.home;

	for (size_t i = 0; i < (size_t)LCF_MAX_NODES * home->tpn; i++) {
		struct na_hreq *rq = &home->req[i];

		for (int k = 0; k < 2; k++) {
			if (!rq->held[k].valid || rq->held[k].tag != tag)
				continue;
			rq->held[k].valid = false;
			if (rq->req.valid && rq->req.seq == rq->held[k].seq)
				nack_decision(r, rq, tag);
		}
	}
}

static void
rebuild(struct na_rec *r)
{
	struct rec_home *h = &r->h;
	struct na_home *home = r->env.home;

	for (uint32_t s = 0; s < h->n; s++) {
		struct na_hblock *b = &home->blk[h->idx[s]];
		const struct rec_dhdr *o = h->mod[s] ? NULL : orphan(h, s);
		const struct rec_cand *c = o ? cand_find(h, o) : NULL;

		if (c && c->have == na_seg_all(home->block_size)) {
			na_sabres_note_write(&home->sab,
					     (uint64_t)h->idx[s]
						     << home->block_shift,
					     home->block_size);
			memcpy(home->mem + ((uint64_t)h->idx[s]
					    << home->block_shift),
			       c->data, home->block_size);
			r->st.orphans_written++;
		}
		if (__builtin_popcount(h->mod[s]) > 1 ||
		    (h->mod[s] && h->cs[s] != h->mod[s]))
			r->st.inconsistent++;
		b->cs = h->cs[s];
		b->gs = h->mod[s]  ? LCF_GS_MODIFIED
			: h->cs[s] ? LCF_GS_SHARED
				   : LCF_GS_UNSHARED;
		b->readers = 0; /* the switch's locks died with it */
		b->writer = false;
		na_hq_clear(&b->q);
		b->hot = 0;
		b->owner = NA_OWN_HOME;
		na_add_hold_rebuilt(b, na_now_ns());
		r->st.blocks_recovered++;
		forget_holders(r, na_home_tag(home, h->idx[s]));
	}
	/*
	 * Late copies of unsettled requests become duplicates: NACK. So does
	 * the seq LAST-EXECUTED records, if unsettled: executed here as the
	 * switch's forward target, its lock was the switch's and the block's
	 * removal ended it (no holder here to forget); kept, its ABORT was
	 * answered "a copy passed" and, the block ADDed again, the switch
	 * NACKed every copy re-sent to collect (lib/model/recpass.pml SWITCH).
	 */
	for (uint32_t k = 0; k < h->n_unset; k++) {
		const struct rec_unset *u = &h->unset[k];
		uint64_t tag = na_home_tag(home, h->idx[u->slot]);
		struct na_hreq *rq;

		if (u->thread >= home->tpn)
			continue;
		rq = &home->req[(size_t)u->node * home->tpn + u->thread];
		if (rq->req.valid && rq->req.seq == u->seq) {
			if (rq->dec.tag == tag)
				nack_decision(r, rq, tag);
			continue;
		}
		if (rq->req.valid && lcf_seq_after(rq->req.seq, u->seq))
			continue;
		na_le_commit(&rq->req, u->seq);
		rq->dec = (struct na_hdec){ .kind = NA_HDEC_NACK, .tag = tag };
		r->st.unsettled_recorded++;
	}
}

/*
 * The switch lost the probed block: recover it, then re-add it. Only that
 * block: the switch's control plane evicts single entries when a memory
 * node fails (docs/FAULTS.md section 2), so one lost tag says nothing of the
 * others, and taking a block the switch still holds would make two owners.
 * After a switch restart every other lost block is found the same way, by
 * its own next tag miss.
 */
static void
switch_lost(struct na_rec *r, struct na_out *out)
{
	struct rec_home *h = &r->h;
	uint32_t idx = h->probe_idx;

	h->detect_ns = h->probe_ns;
	r->st.detections++;
	r->env.home->blk[idx].owner = NA_OWN_RECOVERING;
	if (h->n_readd < REC_READD)
		h->readd[h->n_readd++] = idx;
	na_rec_start_round(r, out);
}

/* Block `idx` waits for its re-add, not started yet. */
static bool
readd_listed(const struct rec_home *h, int64_t idx)
{
	for (uint32_t i = 0; i < h->n_readd; i++)
		if (h->readd[i] == (uint32_t)idx)
			return true;
	return false;
}

void
na_rec_block_lost(struct na_rec *r, uint64_t tag, struct na_out *out)
{
	struct rec_home *h = &r->h;
	int64_t idx = own_block(r, tag);

	if (idx < 0 || r->env.home->blk[idx].owner != NA_OWN_REMOVING)
		return;
	r->env.home->blk[idx].owner = NA_OWN_RECOVERING;
	if (r->env.home->blk[idx].add_settle) {
		r->env.home->blk[idx].add_settle = 0;
		r->st.settle_recovered++;
		/* An unanswered ADD's block: to the switch after the round,
		 * as was meant (a static block stays switch-owned). */
		if (r->env.home->blk[idx].add_readd && !readd_listed(h, idx) &&
		    h->n_readd < REC_READD)
			h->readd[h->n_readd++] = (uint32_t)idx;
		r->env.home->blk[idx].add_readd = false;
	} else {
		r->st.remove_ack_lost++;
	}
	if (r->h.phase == PH_IDLE || r->h.phase == PH_READD)
		na_rec_start_round(r, out);
	else
		r->h.pending = true; /* after the probe or current round */
}

static void
send_probe(struct na_rec *r, uint32_t idx, struct na_out *out)
{
	struct rec_home *h = &r->h;
	struct lcf_msg m;

	/*
	 * REMOVE_FROM_SWITCH from the last scoreboard row (no requester
	 * thread uses it unless --threads equals threads_per_node).
	 */
	hdr(&m, LCF_T_REMOVE_FROM_SWITCH, r->env.self, r->env.self,
	    ++h->probe_seq);
	m.thread = (uint16_t)(r->env.topo->threads_per_node - 1);
	m.tag = na_home_tag(r->env.home, idx);
	na_out_push(out, r->env.self, &m, NULL);
	h->phase = PH_PROBE;
	h->probe_idx = idx;
	h->probe_ns = na_now_ns();
	r->st.probes++;
}

/* Requests, probes and MIGRATE_ACKs seen by the home. @return consumed. */
bool
na_rec_home_watch(struct na_rec *r, const struct lcf_msg *m, struct na_out *out)
{
	/* Its cases are na_rec_home_watched's (na_rec_int.h). */
	struct rec_home *h = &r->h;
	int64_t idx = own_block(r, m->tag);

	if (idx < 0)
		return false;
	switch (m->type) {
	case LCF_T_READ_MISS:
	case LCF_T_WRITE_MISS:
	case LCF_T_WRITE_SHARED:
	case LCF_T_EVICT_SHARED:
	case LCF_T_EVICT_MODIFIED:
		/* A tag miss on a block the switch should own. A block being
		 * removed needs no probe: its REMOVE's own tag miss recovers
		 * it (na_rec_block_lost). */
		if (!(m->flags & LCF_F_IN_SWITCH) && h->phase == PH_IDLE &&
		    r->env.home->blk[idx].owner == NA_OWN_SWITCH)
			send_probe(r, (uint32_t)idx, out);
		return false;
	case LCF_T_REMOVE_FROM_SWITCH:
		/* Our probe came back as a tag miss: the switch lost it. */
		if (m->node != r->env.self || (m->flags & LCF_F_IN_SWITCH) ||
		    m->thread != r->env.topo->threads_per_node - 1 ||
		    h->phase != PH_PROBE || (uint32_t)idx != h->probe_idx)
			return false; /* not our probe: the home's business */
		/* A migration REMOVE took the block meanwhile: no proof. */
		if (r->env.home->blk[idx].owner != NA_OWN_SWITCH) {
			h->phase = PH_IDLE;
			r->st.probe_raced_remove++;
			return true;
		}
		switch_lost(r, out);
		return true;
	case LCF_T_MIGRATE_ACK:
		/* A settling block's REMOVE found it: the entry may be a late
		 * ADD copy's, not the truth; recovered from the caches
		 * (migsettle.pml). */
		if (m->node == r->env.self && !(m->flags & LCF_F_FAIL) &&
		    na_aux_orig_type(m->aux) == LCF_T_REMOVE_FROM_SWITCH &&
		    r->env.home->blk[idx].owner == NA_OWN_REMOVING &&
		    r->env.home->blk[idx].add_settle == 2 &&
		    na_home_remove_answer(&r->env.home->blk[idx], m->seq)) {
			/* A miss came first: the ADD installed it after the
			 * REMOVE's pass (migpass.pml). */
			if (r->env.home->blk[idx].rm_conf)
				r->st.settle_miss_refuted++;
			na_rec_block_lost(r, m->tag, out);
			return true;
		}
		if (m->node != r->env.self || h->phase != PH_PROBE ||
		    (uint32_t)idx != h->probe_idx || (m->flags & LCF_F_FAIL) ||
		    m->thread != r->env.topo->threads_per_node - 1 ||
		    na_aux_orig_type(m->aux) != LCF_T_REMOVE_FROM_SWITCH)
			return false;
		/* The switch had it: the probe moved it home, metadata intact
		 * (a block being removed: the home takes this as its REMOVE's
		 * ACK). */
		h->phase = PH_IDLE;
		if (r->env.home->blk[idx].owner == NA_OWN_SWITCH) {
			struct na_hblock *b = &r->env.home->blk[idx];

			b->owner = NA_OWN_HOME;
			b->gs = m->gstatus;
			b->cs = m->copyset;
			b->writer = false;
			b->readers = 0;
			na_hq_clear(&b->q);
			r->st.probe_switch_had_it++;
			/* Home after the drain, listing a dead node: drain it. */
			if (b->cs &
			    __atomic_load_n(&r->pub.dead, __ATOMIC_ACQUIRE)) {
				drain_block(r, b, r->pub.dead);
				h->pending = true;
			}
		}
		return false;
	default:
		return false;
	}
}

void
na_rec_home_done_ack(struct na_rec *r, const struct lcf_msg *m)
{
	struct rec_home *h = &r->h;

	if (h->phase == PH_DONE && m->seq == h->round)
		h->acked |= na_bit(m->node);
}

/*
 * ADD_TO_SWITCH the recovered blocks (a locked one waits for the next
 * tick; one unanswered for na_home_add_rto() is settled,
 * na_home_migrate_timeout, and ADDed again after its round).
 */
static void
readd(struct na_rec *r, struct na_out *out)
{
	struct rec_home *h = &r->h;
	uint32_t left = 0;

	for (uint32_t i = 0; i < h->n_readd; i++) {
		uint32_t idx = h->readd[i] & ~READD_STARTED;
		bool started = h->readd[i] & READD_STARTED;
		uint8_t owner = r->env.home->blk[idx].owner;

		if (owner == NA_OWN_SWITCH) {
			r->st.readded++;
			continue;
		}
		if (out->n + 2 >= NA_OUT_MAX) {
			h->readd[left++] = h->readd[i];
			continue;
		}
		if (owner == NA_OWN_MIGRATING) {
			const struct na_hblock *b = &r->env.home->blk[idx];
			uint64_t now = na_now_ns();

			/* Its copy went as it began (na_home_migrate_start):
			 * settled once the ADDs' round trip has passed. */
			if (b->add_hold || na_add_age_ns(b, now) >=
						   na_home_add_rto(r->env.home))
				na_home_migrate_timeout(r->env.home, idx, now,
							out);
			h->readd[left++] = h->readd[i];
		} else if (!started) {
			/* Home again after an ADD: a collision; it stays home. */
			if (na_home_migrate_start(r->env.home, idx, na_now_ns(),
						  out) == 0)
				h->readd[left++] = idx | READD_STARTED;
			else
				h->readd[left++] = idx; /* locked: later */
		}
	}
	h->n_readd = left;
	h->last_ns = na_now_ns();
	if (!left)
		h->phase = PH_IDLE;
}

void
na_rec_home_tick(struct na_rec *r, uint64_t now, struct na_out *out)
{
	struct rec_home *h = &r->h;
	uint32_t missing;

	switch (h->phase) {
	case PH_PROBE:
		if (now - h->probe_ns > REC_PROBE_NS)
			h->phase = PH_IDLE; /* NACKed or lost: no conclusion */
		return;
	case PH_IDLE:
		if (h->pending) {
			h->pending = false;
			na_rec_start_round(r, out);
		}
		return;
	case PH_COLLECT:
		if (collected(r, &missing)) {
			rebuild(r);
			h->phase = PH_DONE;
			send_done(r, h->expect, out);
		} else if (now - h->last_ns > REC_RETX_NS) {
			send_begin(r, missing, out);
		}
		return;
	case PH_READD:
		/* No round runs (recjoin.pml's idle home): a due drain round
		 * starts now, the re-adds go on after it. Waiting for them let
		 * a re-add held by a declared node's lock block the drain and
		 * the node's re-admission for good (na-sim --fault restart
		 * sweep 70 run 741). */
		if (h->pending) {
			h->pending = false;
			na_rec_start_round(r, out);
		} else if (now - h->last_ns > REC_RETX_NS) {
			readd(r, out);
		}
		return;
	case PH_DONE:
		if ((h->acked & h->expect) == h->expect)
			na_rec_start_round(
				r, out); /* the next blocks, or finished */
		else if (now - h->last_ns > REC_RETX_NS)
			send_done(r, h->expect & ~h->acked, out);
		return;
	default:
		return;
	}
}
