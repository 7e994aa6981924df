/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Internal to the node runtime: na_node.c (sending, routing, the agents'
 * section, the dispatch thread) as used by na_node_start.c.
 */
#ifndef NA_NODE_INT_H
#define NA_NODE_INT_H

#include "na_node.h"
#include "na_out.h"

/**
 * Enter the agents' section from any thread (agent_mu); on leaving, the
 * messages the agents sent to their own node meanwhile are run too.
 */
void na_node_agents_enter(struct na_node *n);
void na_node_agents_leave(struct na_node *n);

/** Send everything in `out` (agents' section held) and empty it. */
void na_node_flush(struct na_node *n, struct na_out *out);

/** The dispatch thread (pthread start routine, `arg` is the node). */
void *na_node_dispatch(void *arg);

/** Start / stop the version thread (home role). @return 0 or -errno. */
int na_node_voh_start(struct na_node *n);
void na_node_voh_stop(struct na_node *n);

/** Queued locks (na_node_queue.c): the holders' table, when the topology
 * says lock_mode "queued". @return 0 or -ENOMEM. */
int na_node_queue_init(struct na_node *n);
void na_node_queue_fini(struct na_node *n);

/** A message of NA_ROUTE_QUEUE or NA_ROUTE_QINV; agents' section held. */
void na_node_queue_process(struct na_node *n, const struct lcf_msg *m,
			   const void *payload, struct na_out *out);

/** Deliver the holders' messages for requester threads (mailboxes). */
void na_node_queue_deliver(struct na_node *n, const struct na_qlocals *loc);
/** The recovery's hook (na_rec_env.q_recovered; agent_mu held): free the
 * queue holder rows of a round's blocks (na_qtable_recovered). */
void na_node_q_recovered(void *ctx, const uint64_t *tags, uint32_t n);

#endif /* NA_NODE_INT_H */
