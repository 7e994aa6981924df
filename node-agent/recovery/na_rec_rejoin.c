/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Recovery, re-admission of a restarted node (na_recovery.h,
 * docs/FAULTS.md section 3, lib/model/rejoin.pml): once node X is drained
 * (na_rec_drain.c) and its old process can send nothing more, its new
 * incarnation starts its seqs at 1. While X is dead its messages are
 * dropped (na_rec_dead_drop: a late copy of the old process can neither
 * lock nor be recorded); the rejoin forgets every per-requester row of X
 * (the home's LAST-EXECUTED, held locks, queue ids, validate-on-hit
 * operations; the cache agent's LAST-EXECUTED; the last round of X's this
 * node ended) and this node's copies of
 * blocks X homes (its memory is new), then clears the dead mark.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "na_cache.h"
#include "na_cagent.h"
#include "na_home.h"
#include "na_rec_int.h"
#include "na_voh_home.h"

/*
 * A cache-agent row of the old incarnation holding an orphan: kept aside,
 * a home's round that began before the rejoin may still ask for it (a
 * report lost and asked again; directory mode sends the owner's data to the
 * home, which loses it with a lost segment; na-sim --directory
 * --restart-node seed 60: a lost update). The row's buffer moves, none is
 * copied.
 */
static void
keep_orphan(struct na_rec *r, struct na_creq *cr)
{
	for (int i = 0; i < REC_KEPT; i++) {
		struct na_creq *k = &r->kept[i];
		uint8_t *spare = k->data;

		if (k->le.valid)
			continue;
		*k = *cr;
		cr->data = spare;
		r->st.rejoin_kept++;
		return;
	}
	r->st.rejoin_kept_lost++;
}

/* The home's (coherence, validate-on-hit) and the cache agent's rows of
 * every thread of `node`. */
static void
forget_rows(struct na_rec *r, uint16_t node)
{
	struct na_cagent *ca = r->env.cagent;
	struct na_home *h = r->env.home;
	struct na_voh_home *v = r->env.voh;

	if (r->env.role_home && h->req)
		for (uint16_t t = 0; t < h->tpn; t++) {
			struct na_hreq *rq = &h->req[(size_t)node * h->tpn + t];

			free(rq->diff);
			memset(rq, 0, sizeof(*rq));
			if (v && v->req)
				memset(&v->req[(size_t)node * h->tpn + t], 0,
				       sizeof(*v->req));
		}
	/* Its new incarnation numbers its rounds from 1 again. */
	r->pend[node].ended = false;
	if (ca && ca->req)
		for (uint16_t t = 0; t < ca->tpn; t++) {
			struct na_creq
				*cr = &ca->req[(size_t)node * ca->tpn + t];

			if (cr->le.valid && cr->has_data &&
			    cr->ack.gstatus == LCF_GS_MODIFIED)
				keep_orphan(r, cr);
			cr->le.valid = false;
			cr->has_data = false;
		}
}

/* Drop this node's idle copies of blocks `node` homes: their memory was
 * lost with the old process, the new home lists no copy. */
static void
forget_copies(struct na_rec *r, uint16_t node)
{
	struct na_cache *c = r->env.cache;

	for (uint32_t i = 0; c && i < c->n_buckets; i++) {
		struct na_cbucket *b = &c->b[i];

		pthread_mutex_lock(&b->mu);
		for (int w = 0; w < NA_CACHE_WAYS; w++) {
			struct na_centry *e = &b->e[w];

			if (!e->used || e->state == NA_L_INVALID ||
			    topo_tag_home(r->env.topo, e->tag) != node)
				continue;
			if (!na_centry_evictable(e)) {
				r->st.rejoin_pinned++; /* left as it is */
				continue;
			}
			na_centry_twin_free(e);
			e->state = NA_L_INVALID;
			r->st.rejoin_uncached++;
		}
		pthread_mutex_unlock(&b->mu);
	}
}

/* A rejoin of `node` can be applied: drained, and no round of ours is
 * running or due (its rebuilds must not see the new incarnation). */
static bool
rejoin_ready(const struct na_rec *r, uint16_t node)
{
	if (!na_cs_has(r->pub.dead, node))
		return false;
	return !r->env.role_home ||
	       ((r->h.phase == PH_IDLE || r->h.phase == PH_READD) &&
		!r->h.pending);
}

void
na_rec_rejoin_tick(struct na_rec *r)
{
	uint32_t req = __atomic_load_n(&r->rejoin_req, __ATOMIC_ACQUIRE);

	for (uint16_t x = 0; req && x < LCF_MAX_NODES; x++) {
		if (!na_cs_has(req, x) || !rejoin_ready(r, x))
			continue;
		forget_rows(r, x);
		forget_copies(r, x);
		__atomic_and_fetch(&r->dead_req, ~na_bit(x), __ATOMIC_RELEASE);
		__atomic_and_fetch(&r->pub.dead, ~na_bit(x), __ATOMIC_RELEASE);
		if (r->env.role_home && r->env.home)
			__atomic_and_fetch(&r->env.home->dead, ~na_bit(x),
					   __ATOMIC_RELEASE);
		__atomic_and_fetch(&r->rejoin_req, ~na_bit(x),
				   __ATOMIC_RELEASE);
		r->st.rejoined++;
	}
}

int
na_rec_node_rejoined(struct na_rec *r, uint16_t node)
{
	uint32_t dead;

	if (node >= LCF_MAX_NODES || node == r->env.self ||
	    !topo_node_by_id(r->env.topo, node))
		return -EINVAL;
	dead = __atomic_load_n(&r->dead_req, __ATOMIC_ACQUIRE) |
	       __atomic_load_n(&r->pub.dead, __ATOMIC_ACQUIRE);
	if (!na_cs_has(dead, node))
		return -EALREADY; /* never declared dead: nothing to forget */
	__atomic_or_fetch(&r->rejoin_req, na_bit(node), __ATOMIC_RELEASE);
	return 0;
}
