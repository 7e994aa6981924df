/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Queued locks, the node's side (docs/QUEUED-LOCKS.md 5): the queue
 * holders (na_qtable.h) run in the agents' section; what they send goes
 * out, what they deliver to a requester thread goes to its mailbox; Q_INV
 * is answered by the cache or home agent as the switch copy it stands for
 * (na_qplan.h). The holders' timer, their table and the requester's calls
 * (na_node_q_*) are in na_node.c; a node declared dead or rejoined in
 * na_node_start.c.
 */

#include "na_msg.h"
#include "na_node_int.h"
#include "na_qplan.h"

void
na_node_queue_process(struct na_node *n, const struct lcf_msg *m,
		      const void *payload, struct na_out *out)
{
	struct na_qlocals loc = { 0 };
	struct lcf_msg c;

	if (m->type == NA_MSG_Q_INV) {
		na_qplan_inv_as_copy(m, &c);
		if (c.gstatus == LCF_GS_UNSHARED || c.copyset == 0) {
			if (n->cfg.roles & NA_ROLE_HOME)
				na_home_handle(&n->home, &c, NULL, 0, out);
		} else if (n->cfg.roles & NA_ROLE_CACHE) {
			na_cagent_handle(&n->cagent, &c, out);
		}
		return;
	}
	if (!n->qt) {
		NA_STAT_INC(n->st.dropped);
		return;
	}
	if (m->type == NA_MSG_QFWD || m->type == NA_MSG_QXFER_ACK) {
		/* A home's forward and answer stand for the switch's forwarded
		 * copy and QXFER_ACK (QUEUED-LOCKS.md 11). */
		if (na_qplan_home_as_switch(m, payload, &c) < 0) {
			NA_STAT_INC(n->st.dropped);
			return;
		}
		m = &c;
	}
	na_qtable_handle(n->qt, m, payload, na_now_ns(), out, &loc);
	na_node_queue_deliver(n, &loc);
}

void
na_node_q_recovered(void *ctx, const uint64_t *tags, uint32_t n)
{
	struct na_node *nd = ctx;
	struct na_qlocals loc;
	int more;

	if (!nd->qt)
		return;
	do {
		loc.n = 0;
		more = na_qtable_recovered(nd->qt, tags, n, &loc);
		na_node_queue_deliver(nd, &loc);
	} while (more == 1);
}
