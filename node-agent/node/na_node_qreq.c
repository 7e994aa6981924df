/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Queued locks, the node's queue holders (docs/QUEUED-LOCKS.md 5): their
 * table (made at start when the topology says lock_mode "queued") and the
 * requester's calls into it (na_node.h, na_node_q_*), its one interface to
 * the holders: each runs na_qtable in the agents' section and sends or
 * delivers what it produced. Messages to the holders: na_node_queue.c.
 */
#include <errno.h>
#include <stdlib.h>

#include "na_node_int.h"

/* The holders' delay bound and retransmission unit: 6 x this. */
#define NA_QT_RTT_NS 1000000ull

static uint16_t
home_of(const void *ctx, uint64_t tag)
{
	return (uint16_t)topo_tag_home(ctx, tag);
}

int
na_node_queue_init(struct na_node *n)
{
	if (!n->topo->sw.queued || n->cfg.direct || n->cfg.directory)
		return 0;
	n->qt = malloc(sizeof(*n->qt));
	if (!n->qt)
		return -ENOMEM;
	if (na_qtable_init(n->qt, n->self, NA_QT_RTT_NS, home_of, n->topo)) {
		free(n->qt);
		n->qt = NULL;
		return -ENOMEM;
	}
	return 0;
}

void
na_node_queue_fini(struct na_node *n)
{
	if (!n->qt)
		return;
	na_qtable_fini(n->qt);
	free(n->qt);
	n->qt = NULL;
}

int
na_node_q_request(struct na_node *n, uint64_t tag, uint16_t thread,
		  uint32_t seq)
{
	static __thread struct na_out out;
	struct na_qlocals loc = { 0 };
	int rc;

	if (!n->qt)
		return -ENOTSUP;
	na_node_agents_enter(n);
	na_out_reset(&out);
	rc = na_qtable_request(n->qt, tag, thread, seq, na_now_ns(), &out,
			       &loc);
	na_node_queue_deliver(n, &loc);
	na_node_flush(n, &out);
	na_node_agents_leave(n);
	return rc;
}

void
na_node_q_result(struct na_node *n, uint64_t tag, uint16_t thread, uint32_t seq,
		 bool holds)
{
	if (!n->qt)
		return;
	na_node_agents_enter(n);
	if (!holds || na_qtable_switch_granted(n->qt, tag, thread, seq) != 0)
		na_qtable_cancel(n->qt, tag, thread, seq);
	na_node_agents_leave(n);
}

int
na_node_q_done(struct na_node *n, uint64_t tag, uint16_t thread, uint32_t seq,
	       uint8_t gs, uint32_t cs)
{
	static __thread struct na_out out;
	struct na_qlocals loc = { 0 };
	int rc;

	if (!n->qt)
		return -ESRCH;
	na_node_agents_enter(n);
	na_out_reset(&out);
	rc = na_qtable_done(n->qt, tag, thread, seq, gs, cs, na_now_ns(), &out,
			    &loc);
	na_node_queue_deliver(n, &loc);
	na_node_flush(n, &out);
	na_node_agents_leave(n);
	return rc;
}

void
na_node_q_abandon(struct na_node *n, uint64_t tag, uint16_t thread,
		  uint32_t seq)
{
	static __thread struct na_out out;
	struct na_qlocals loc = { 0 };

	if (!n->qt)
		return;
	na_node_agents_enter(n);
	na_out_reset(&out);
	na_qtable_abandon(n->qt, tag, thread, seq, na_now_ns(), &out, &loc);
	na_node_queue_deliver(n, &loc);
	na_node_flush(n, &out);
	na_node_agents_leave(n);
}

bool
na_node_q_holds(struct na_node *n, uint64_t tag, uint16_t thread, uint32_t seq)
{
	bool holds;

	if (!n->qt)
		return false;
	na_node_agents_enter(n);
	holds = na_qtable_holds(n->qt, tag, thread, seq);
	na_node_agents_leave(n);
	return holds;
}

void
na_node_q_node_rejoined(struct na_node *n, uint16_t node)
{
	if (!n->qt)
		return;
	na_node_agents_enter(n);
	na_qtable_node_rejoined(n->qt, node);
	na_node_agents_leave(n);
}

int
na_node_q_node_failed(struct na_node *n, uint16_t node)
{
	struct na_qlocals loc;
	int rc;

	if (!n->qt)
		return 0;
	na_node_agents_enter(n);
	do {
		loc.n = 0;
		rc = na_qtable_node_failed(n->qt, node, &loc);
		na_node_queue_deliver(n, &loc);
	} while (rc == 1);
	na_node_agents_leave(n);
	return rc;
}
