/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Recovery, memory-node failure (na_recovery.h, docs/FAULTS.md): the
 * stop-the-world drain of a node declared dead, as recovery rounds
 * (na_rec_home.c) over the home-owned blocks it locked or held a copy of.
 */
#include <errno.h>

#include "na_rec_int.h"

/* ---- memory-node failure: the stop-the-world drain ----------------------- */

/* Does a requester of `node` hold the home-side lock of block `tag`? */
static bool
held_by(const struct na_home *home, uint16_t node, uint64_t tag)
{
	for (uint16_t t = 0; t < home->tpn; t++)
		for (int k = 0; k < 2; k++) {
			const struct na_hheld
				*hl = &home->req[(size_t)node * home->tpn + t]
					       .held[k];

			if (hl->valid && hl->tag == tag)
				return true;
		}
	return false;
}

/*
 * Is the block's queue tenure the node's, or one handed over since this
 * home granted it? A handed-over tenure's copyset travels in its Q_GRANTs
 * and may name the node (a reader's copy made by an earlier tenure: the
 * holder's Q_INV to it is never answered), and a tenure the node handed
 * over may have died with its Q_GRANT (lib/model/qfault.pml HOME, qdrain.pml).
 */
static bool
q_tenure(const struct na_hblock *b, uint16_t node)
{
	return na_hq_held_by(&b->q, node) ||
	       (b->q.holder != 0 && b->q_from != 0);
}

/*
 * Node `dead` is gone. Its pending rounds are void; as a home we freeze
 * every home-owned block (or one a migration drain has not sent yet) it
 * holds a lock on or a copy of, and run recovery rounds over them without
 * it: the survivors abort their events on them (one may wait for the dead
 * node's ACK forever), report their copies, and the rebuilt metadata has no lock and no dead node in any copyset.
 * Switch-owned blocks are the switch control plane's part
 * (/swswitch/node_failed evicts those the node blocks); each evicted one is
 * then found by its next tag miss and recovered without the dead node, as
 * after a switch restart.
 */
void
na_rec_drain(struct na_rec *r, uint16_t dead, struct na_out *out)
{
	struct rec_pend *p = &r->pend[dead];
	struct na_home *home = r->env.home;

	pthread_mutex_lock(&r->mu);
	if (p->active) {
		p->active = false;
		__atomic_sub_fetch(&r->pub.n_active, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&r->mu);
	__atomic_or_fetch(&r->pub.dead, na_bit(dead), __ATOMIC_RELEASE);
	r->st.dead_nodes++;
	r->h.expect &= ~na_bit(dead);
	/*
	 * The running round's blocks are RECOVERING, so the loop below
	 * passes them by: a copy the node reported in it before it died
	 * would be rebuilt into their copysets, a copy its new incarnation
	 * does not have (every read forwarded there gets no data; na-sim
	 * --fault restart sweep 70 run 385, lib/model/recjoin.pml HOLD).
	 */
	for (uint32_t s = 0; r->h.phase == PH_COLLECT && s < r->h.n; s++) {
		if (r->h.mod[s] & na_bit(dead))
			r->st.dead_dirty_lost++; /* its only copy died */
		r->h.cs[s] &= ~na_bit(dead);
		r->h.mod[s] &= ~na_bit(dead);
	}
	if (r->env.role_home)
		__atomic_and_fetch(&home->dead_new, ~na_bit(dead),
				   __ATOMIC_RELEASE);
	if (!r->env.role_home)
		return;
	if (r->env.voh) /* its reads and updates hold the queues up */
		na_voh_node_failed(r->env.voh, dead, out);
	for (uint32_t i = 0; i < home->n_blocks; i++) {
		struct na_hblock *b = &home->blk[i];

		/* A migration drain has sent no ADD yet: the block is still
		 * this home's, its lock may be the dead node's (migcrash.pml:
		 * the drain gives up and the lock stays); cancelled here. */
		bool draining = b->owner == NA_OWN_MIGRATING && b->add_draining;

		/* A timer's settle: the ADD's answer no longer decides (the
		 * declaration may have evicted what it installed, and the
		 * block's copyset may name the dead node); REMOVE and round
		 * (migsettle.pml). */
		if (b->owner == NA_OWN_REMOVING && b->add_late) {
			b->add_late = false;
			if (b->add_settle == 3)
				b->add_settle = 1;
		}

		/*
		 * Its ADD is out (a migration's or a round's re-add): a copy
		 * may have installed it unanswered and the switch command
		 * evicted it (locked), a write having moved its data on; a
		 * later copy of the home's metadata would install a lie.
		 * No more copies (copies stopped at the declaration,
		 * dead_new); once those in flight are gone, REMOVE it until
		 * the switch answers and recover it from the caches either
		 * way (na_migrate_settle, migsettle.pml).
		 */
		if (b->owner == NA_OWN_MIGRATING && !b->add_draining) {
			if (na_cs_has(b->cs, dead)) {
				b->cs &= ~na_bit(dead);
				r->st.adding_cleared++;
			}
			na_home_migrate_settle(home, b, na_now_ns());
			r->st.adding_settled++;
			continue;
		}
		if ((b->owner != NA_OWN_HOME && !draining) ||
		    (!na_cs_has(b->cs, dead) &&
		     !held_by(home, dead, na_home_tag(home, i)) &&
		     !q_tenure(b, dead)))
			continue;
		b->add_draining = false;
		drain_block(r, b, na_bit(dead));
	}
	if (r->h.phase == PH_IDLE || r->h.phase == PH_READD)
		na_rec_start_round(r, out);
	else
		r->h.pending = true; /* after the probe or current round */
}

int
na_rec_node_failed(struct na_rec *r, uint16_t node)
{
	if (node >= LCF_MAX_NODES || node == r->env.self ||
	    !topo_node_by_id(r->env.topo, node))
		return -EINVAL;
	__atomic_or_fetch(&r->dead_req, na_bit(node), __ATOMIC_RELEASE);
	/* At once, not at the next tick: the switch's control plane evicts
	 * with the same declaration (na_home.h dead). */
	if (r->env.role_home && r->env.home) {
		__atomic_or_fetch(&r->env.home->dead_new, na_bit(node),
				  __ATOMIC_RELEASE);
		__atomic_or_fetch(&r->env.home->dead, na_bit(node),
				  __ATOMIC_RELEASE);
	}
	return 0;
}
