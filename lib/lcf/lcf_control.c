/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Control-plane register writes (the BF Runtime equivalent of writing a
 * Tofino's registers): what the operator does to the switch when a memory
 * node is declared dead (docs/FAULTS.md section 2). Not on the packet path:
 * the caller runs it between two packets, on the thread driving the
 * pipeline.
 */
#include <errno.h>
#include <string.h>

#include "lcf_queue.h"

/*
 * LOCK does not record its holders, so an entry whose lock is held may be
 * locked by the dead node (its unlock never comes) or by a survivor (whose
 * event may wait for the dead node's reply forever). Either way the only
 * safe move is to forget the block, as a restarted switch would: its home
 * agent finds it missing (tag miss, REMOVE probe) and rebuilds it from the
 * survivors' reports (docs/FAULTS.md section 1). An unlocked entry listing
 * the node would send it invalidations it never answers: forgotten too.
 */
static bool
involves(const struct lcf_pipeline *p, const struct lcf_meta *m, uint64_t tag,
	 uint16_t node)
{
	/* A block homed at the node goes too: a restarted node's new home
	 * believes every block of its memory at home (docs/FAULTS.md section
	 * 3), and a dead one's memory is not reachable anyway. */
	return m->lock != 0 || (m->copyset & (1u << node)) != 0 ||
	       tag >> (48 - p->cfg.block_shift) == node;
}

int
lcf_pipeline_node_failed(struct lcf_pipeline *p, uint16_t node,
			 struct lcf_node_failed_report *rep, uint64_t *tags,
			 uint32_t max_tags)
{
	if (node >= LCF_MAX_NODES || !(p->cfg.node_mask & (1u << node)))
		return -EINVAL;
	memset(rep, 0, sizeof(*rep));
	for (uint32_t w = 0; w < p->cfg.ways; w++)
		for (uint32_t s = 0; s < p->cfg.slots_per_way; s++) {
			struct lcf_meta *m = &p->meta[w][s];
			uint64_t tag = p->tag[w][s] & ~LCF_TAG_VALID;

			if (!p->tag[w][s] || !involves(p, m, tag, node))
				continue;
			if (m->lock)
				rep->locked++;
			else
				rep->copyset++;
			if (m->gstatus == LCF_GS_MODIFIED &&
			    (m->copyset & (1u << node)))
				rep->modified++;
			if (rep->locked + rep->copyset <= max_tags)
				tags[rep->locked + rep->copyset - 1] = tag;
			p->tag[w][s] = 0;
			memset(m, 0, sizeof(*m));
			lcf_q_clear(p, w, s);
			lcf_summary_del(p, tag);
		}
	/*
	 * A SCOREBOARD count (or a claimed one) counts locks of its event.
	 * Every held lock was just evicted, so every count is of locks that no
	 * longer exist; left there, a copy of that event would pass the
	 * block's lock on it once the block is back in the switch, and its
	 * read unlock would release other readers' locks. Counts go to 0; the
	 * entry's seq and ABORTED marks stay, since they only ever protect
	 * (a later copy of an old event stays over). The dead node's rows go
	 * back to power-on values.
	 */
	for (uint32_t r = 0; r < p->n_requesters; r++) {
		bool dead = r / p->cfg.threads_per_node == node,
		     changed = false;

		for (int par = 0; par < 2; par++) {
			struct lcf_sb *e = &p->sb[r][par];
			uint32_t c = dead ? 0
					  : (e->c == LCF_SB_ENDED ? e->c : 0);

			changed |= e->c != c || (dead && e->seq != 0);
			e->c = c;
			if (dead)
				e->seq = 0;
		}
		changed |= dead && (p->last_unlock[r].seq != 0 ||
				    p->last_unlock[r].open != 0);
		if (dead)
			p->last_unlock[r] = (struct lcf_lu){ 0, 0 };
		if (dead && p->q_gate != NULL)
			p->q_gate[r] = (struct lcf_qgate){ 0, 0 };
		rep->requesters += changed;
	}
	return 0;
}
