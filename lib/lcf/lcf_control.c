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

#include "lcf_internal.h"

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
involves(const struct lcf_meta *m, uint16_t node)
{
	return m->lock != 0 || (m->copyset & (1u << node)) != 0;
}

int
lcf_pipeline_node_failed(struct lcf_pipeline *p, uint16_t node,
			 struct lcf_node_failed_report *rep,
			 uint64_t *tags, uint32_t max_tags)
{
	if (node >= LCF_MAX_NODES || !(p->cfg.node_mask & (1u << node)))
		return -EINVAL;
	memset(rep, 0, sizeof(*rep));
	for (uint32_t w = 0; w < p->cfg.ways; w++)
		for (uint32_t s = 0; s < p->cfg.slots_per_way; s++) {
			struct lcf_meta *m = &p->meta[w][s];
			uint64_t tag = p->tag[w][s] & ~LCF_TAG_VALID;

			if (!p->tag[w][s] || !involves(m, node))
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
			lcf_summary_del(p, tag);
		}
	/*
	 * SCOREBOARD counts, per requester and seq parity, the lock grants of
	 * its current event. Every held lock was just evicted, so every
	 * non-zero score counts a lock that no longer exists; left there it
	 * would let the requester's next request of that parity pass a busy
	 * lock "as a retransmission", or make its read unlock release other
	 * readers' locks. All rows go to zero, as after a restart. LAST-UNLOCK
	 * and ABORTED stay (they only ever protect) except the dead node's.
	 */
	for (uint32_t r = 0; r < p->n_requesters; r++) {
		bool dead = r / p->cfg.threads_per_node == node;

		rep->requesters += p->scoreboard[r][0] || p->scoreboard[r][1] ||
				   (dead && p->last_unlock[r]);
		p->scoreboard[r][0] = p->scoreboard[r][1] = 0;
		if (dead)
			p->last_unlock[r] = p->aborted[r] = 0;
	}
	return 0;
}
