/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Queued locks, the requester's calls into the node's queue holders
 * (na_node.h, na_node_q_*; docs/QUEUED-LOCKS.md 5): each runs na_qtable in
 * the agents' section and sends or delivers what it produced.
 */
#include <errno.h>

#include "na_node_int.h"

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
