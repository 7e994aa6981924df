/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Internal to the node runtime: na_node.c (sending, routing, the agents'
 * section, the dispatch thread) as used by na_node_start.c.
 */
#ifndef NA_NODE_INT_H
#define NA_NODE_INT_H

#include "na_node.h"
#include "na_out.h"

/* Set while this thread runs the agents (holds agent_mu; na_node.c). */
extern __thread bool na_node_in_agents;

/**
 * Enter the agents' section from any thread (agent_mu); on leaving, the
 * messages the agents sent to their own node meanwhile are run too.
 * Inline: a requester's call into the queue holders enters the section
 * from its own file.
 */
static inline void
na_node_agents_enter(struct na_node *n)
{
	pthread_mutex_lock(&n->agent_mu);
	na_node_in_agents = true;
}

void na_node_agents_leave(struct na_node *n);

/** Send everything in `out` (agents' section held) and empty it. */
void na_node_flush(struct na_node *n, struct na_out *out);

/** The dispatch thread (pthread start routine, `arg` is the node). */
void *na_node_dispatch(void *arg);

/** Start / stop the version thread (home role). @return 0 or -errno. */
int na_node_voh_start(struct na_node *n);
void na_node_voh_stop(struct na_node *n);

/** Queued locks (na_node.c): the holders' table, when the topology
 * says lock_mode "queued". @return 0 or -ENOMEM. */
int na_node_queue_init(struct na_node *n);
void na_node_queue_fini(struct na_node *n);

/** A message of NA_ROUTE_QUEUE or NA_ROUTE_QINV; agents' section held. */
void na_node_queue_process(struct na_node *n, const struct lcf_msg *m,
			   const void *payload, struct na_out *out);

/** Deliver the holders' messages for requester threads (mailboxes). */
static inline void
na_node_queue_deliver(struct na_node *n, const struct na_qlocals *loc)
{
	for (uint32_t i = 0; i < loc->n; i++) {
		const struct na_qlocal *l = &loc->l[i];

		if (l->thread >= n->cfg.threads ||
		    !na_mbox_push(&n->mbox[l->thread], &l->m, NULL))
			NA_STAT_INC(n->st.mbox_overflow);
	}
}
/** The recovery's hook (na_rec_env.q_recovered; agent_mu held): free the
 * queue holder rows of a round's blocks (na_qtable_recovered). */
void na_node_q_recovered(void *ctx, const uint64_t *tags, uint32_t n);

#endif /* NA_NODE_INT_H */
