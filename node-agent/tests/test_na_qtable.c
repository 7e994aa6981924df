/* SPDX-License-Identifier: BSD-3-Clause
 *
 * A node's queue holders on the wire (na_qtable, docs/QUEUED-LOCKS.md 5-6),
 * the next holder's plan (na_qplan) and the dispatch of the queued-lock
 * messages (na_classify).
 *
 * Why one file of this length: the three share the fixtures below (one
 * holder table, its output and locals, frames built by the same helpers).
 */
#include <errno.h>

#include <criterion/criterion.h>

#include "lcf_qlock.h"
#include "na_msg.h"
#include "na_proto.h"
#include "na_qgrant.h"
#include "na_qplan.h"
#include "na_qtable.h"
#include "qt_test.h"

static struct na_qtable qt;

static void
setup(uint16_t self)
{
	cr_assert_eq(na_qtable_init(&qt, self, RTT, home_of, NULL), 0);
}

static void
teardown(void)
{
	na_qtable_fini(&qt);
}

Test(qtable, holder_hands_over_with_qxfer_and_qgrant)
{
	uint32_t me = lcf_q_id(0, 1, 5);
	struct lcf_msg m;

	setup(0);
	clear();
	cr_assert_eq(na_qtable_request(&qt, TAG, 1, 5, 0, &out, &loc), 0);
	cr_assert_eq(na_qtable_switch_granted(&qt, TAG, 1, 5), 0);
	m = qt_forward(LCF_T_WRITE_MISS, TAG, 1, 0, 3, me, 1);
	cr_assert_eq(na_qtable_handle(&qt, &m, NULL, 1, &out, &loc), 0);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_Q_QUEUED);
	cr_assert_eq(out.m[0].dst, 1);
	cr_assert_eq(out.m[0].msg.seq, 3);
	cr_assert_eq(out.m[0].msg.tag, TAG);

	clear();
	cr_assert_eq(na_qtable_done(&qt, TAG, 1, 5, LCF_GS_MODIFIED, 1, 2, &out,
				    &loc),
		     0);
	cr_assert_eq(out.n, 1);
	m = out.m[0].msg;
	cr_assert_eq(m.type, LCF_T_QXFER);
	cr_assert_eq(out.m[0].dst, HOME);
	cr_assert_eq(m.node, 0);
	cr_assert_eq(m.thread, 1);
	cr_assert_eq(m.seq, 5);
	cr_assert_eq(m.aux, 1);
	cr_assert_eq(m.copyset, lcf_q_id(1, 0, 3));
	cr_assert_eq(loc.n, 0);

	clear();
	m = qt_qack(0, 1, 5, LCF_T_QXFER, LCF_Q_OK, 1);
	na_qtable_handle(&qt, &m, NULL, 3, &out, &loc);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_Q_GRANT);
	cr_assert_eq(out.m[0].dst, 1);
	cr_assert_eq(out.m[0].msg.seq, 3);
	cr_assert_eq(out.m[0].msg.gstatus, LCF_GS_MODIFIED);
	cr_assert_eq(out.m[0].msg.copyset, 1);
	cr_assert_eq(na_qg_aux_giver(out.m[0].msg.aux), 0);
	cr_assert_eq(na_qg_aux_entries(out.m[0].msg.aux), 0);
	cr_assert_eq(loc.n, 1, "the event is over for its requester");
	cr_assert_eq(loc.l[0].thread, 1);
	cr_assert_eq(loc.l[0].m.type, LCF_T_UNLOCK_ACK);
	cr_assert_eq(loc.l[0].m.seq, 5);
	cr_assert_eq(qt.st.qxfer_approved, 1);

	clear();
	m = (struct lcf_msg){ .type = NA_MSG_Q_GRANT_ACK,
			      .node = 1,
			      .thread = 0,
			      .seq = 3,
			      .tag = TAG };
	na_qtable_handle(&qt, &m, NULL, 4, &out, &loc);
	cr_assert_eq(qt.st.qgrant_ack_recv, 1);
	cr_assert_eq(out.n + loc.n, 0);
	/* The thread's next event on the block may start. */
	cr_assert_eq(na_qtable_request(&qt, TAG, 1, 7, 5, &out, &loc), 0);
	teardown();
}

Test(qtable, empty_queue_qrelease_and_count_denial)
{
	uint32_t me = lcf_q_id(2, 0, 9);
	struct lcf_msg m;

	setup(2);
	clear();
	na_qtable_request(&qt, TAG, 0, 9, 0, &out, &loc);
	na_qtable_switch_granted(&qt, TAG, 0, 9);
	na_qtable_done(&qt, TAG, 0, 9, LCF_GS_SHARED, 0x5, 1, &out, &loc);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, LCF_T_QRELEASE);
	cr_assert_eq(out.m[0].msg.aux, 0);
	cr_assert_eq(out.m[0].msg.gstatus, LCF_GS_SHARED);
	cr_assert_eq(out.m[0].msg.copyset, 0x5);
	/* Denied: a forward is on its way (FWD_CNT 1); it arrives. */
	clear();
	m = qt_qack(2, 0, 9, LCF_T_QRELEASE, LCF_Q_COUNT, 1);
	na_qtable_handle(&qt, &m, NULL, 2, &out, &loc);
	cr_assert_eq(out.n, 0);
	cr_assert_eq(qt.st.qrelease_denied, 1);
	cr_assert_eq(na_qtable_request(&qt, TAG, 0, 11, 2, &out, &loc), -EBUSY,
		     "the thread's tenure is ending");
	m = qt_forward(LCF_T_WRITE_MISS, TAG, 1, 1, 4, me, 1);
	na_qtable_handle(&qt, &m, NULL, 3, &out, &loc);
	cr_assert_eq(out.n, 2);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_Q_QUEUED);
	cr_assert_eq(out.m[1].msg.type, LCF_T_QXFER, "now a QXFER");
	cr_assert_eq(out.m[1].msg.aux, 1);
	cr_assert_eq(loc.n, 0);
	teardown();
}

Test(qtable, next_holder_takes_grant_once)
{
	struct lcf_msg m = { .version = LCF_VERSION,
			     .type = NA_MSG_Q_GRANT,
			     .node = 1,
			     .thread = 0,
			     .seq = 3,
			     .tag = TAG,
			     .gstatus = LCF_GS_MODIFIED,
			     .copyset = 1,
			     .aux = na_qg_aux(0, 0) };

	setup(1);
	clear();
	cr_assert_eq(na_qtable_request(&qt, TAG, 0, 3, 0, &out, &loc), 0);
	na_qtable_handle(&qt, &m, NULL, 1, &out, &loc);
	cr_assert_eq(loc.n, 1);
	cr_assert_eq(loc.l[0].thread, 0);
	cr_assert_eq(loc.l[0].m.type, NA_MSG_Q_GRANT);
	cr_assert_eq(loc.l[0].m.gstatus, LCF_GS_MODIFIED);
	cr_assert_eq(loc.l[0].m.copyset, 1);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_Q_GRANT_ACK);
	cr_assert_eq(out.m[0].dst, 0);
	/* The request retried (its grant came during a backoff): kept. */
	cr_assert_eq(na_qtable_request(&qt, TAG, 0, 3, 1, &out, &loc), 0);
	/* A network duplicate while it holds: not acknowledged (sent again
	 * after the tenure), nothing delivered. */
	clear();
	na_qtable_handle(&qt, &m, NULL, 2, &out, &loc);
	cr_assert_eq(loc.n, 0);
	cr_assert_eq(out.n, 0);
	cr_assert_eq(qt.st.qgrant_deferred, 1);
	/* It holds: its end is a QRELEASE. */
	clear();
	cr_assert_eq(na_qtable_done(&qt, TAG, 0, 3, LCF_GS_MODIFIED, 2, 3, &out,
				    &loc),
		     0);
	cr_assert_eq(out.m[0].msg.type, LCF_T_QRELEASE);
	teardown();
}

Test(qtable, threads_have_own_holders_and_abandoned_grant_passes_on)
{
	struct lcf_msg g = { .version = LCF_VERSION,
			     .type = NA_MSG_Q_GRANT,
			     .node = 1,
			     .thread = 2,
			     .seq = 8,
			     .tag = TAG,
			     .gstatus = LCF_GS_MODIFIED,
			     .copyset = 1,
			     .aux = na_qg_aux(0, 0) };

	setup(1);
	clear();
	cr_assert_eq(na_qtable_request(&qt, TAG, 2, 8, 0, &out, &loc), 0);
	cr_assert_eq(na_qtable_request(&qt, TAG, 3, 4, 0, &out, &loc), 0,
		     "another thread, its own holder");
	/* Thread 2 gives seq 8 up (NACKed, not retried); its grant comes. */
	na_qtable_abandon(&qt, TAG, 2, 8, 1, &out, &loc);
	cr_assert_eq(qt.st.abandoned_waits, 1);
	na_qtable_handle(&qt, &g, NULL, 2, &out, &loc);
	cr_assert_eq(loc.n, 0, "not delivered: nobody waits");
	cr_assert_eq(out.n, 2);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_Q_GRANT_ACK);
	cr_assert_eq(out.m[1].msg.type, LCF_T_QRELEASE, "passed on at once");
	cr_assert_eq(out.m[1].msg.seq, 8);
	cr_assert_eq(out.m[1].msg.gstatus, LCF_GS_MODIFIED);
	cr_assert_eq(out.m[1].msg.copyset, 1);
	cr_assert_eq(qt.st.abandoned_holds, 1);
	/* A duplicate of it while the QRELEASE is pending: nothing. */
	clear();
	na_qtable_handle(&qt, &g, NULL, 3, &out, &loc);
	cr_assert_eq(out.n, 0);
	teardown();
}

Test(qtable, stray_forwards)
{
	struct lcf_msg m = qt_forward(LCF_T_WRITE_MISS, TAG, 2, 0, 6,
				      lcf_q_id(1, 0, 1), 1);

	setup(1);
	clear();
	na_qtable_handle(&qt, &m, NULL, 0, &out, &loc);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_Q_NACK);
	cr_assert_eq(out.m[0].dst, 2);
	cr_assert_eq(out.m[0].msg.seq, 6);
	clear();
	m = qt_forward(LCF_T_WRITE_MISS, TAG, 1, 0, 6, lcf_q_id(1, 0, 1),
		       1); /* our own request */
	na_qtable_handle(&qt, &m, NULL, 0, &out, &loc);
	cr_assert_eq(out.n, 0);
	m.type = NA_MSG_ACK;
	cr_assert_eq(na_qtable_handle(&qt, &m, NULL, 0, &out, &loc), -EINVAL);
	teardown();
}

Test(qtable, waiting_tenure_nacks_local_thread_and_settles)
{
	uint32_t stale = lcf_q_id(1, 0, 4);
	struct lcf_msg m;

	setup(1);
	clear();
	/* Thread 0's seq 4 was NACKed, a later copy took the write lock. */
	na_qtable_request(&qt, TAG, 0, 4, 0, &out, &loc);
	m = qt_forward(LCF_T_WRITE_MISS, TAG, 2, 1, 9, stale,
		       1); /* another node: queued */
	na_qtable_handle(&qt, &m, NULL, 1, &out, &loc);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_Q_QUEUED);
	clear();
	m = qt_forward(LCF_T_WRITE_MISS, TAG, 1, 2, 7, stale,
		       2); /* this node's thread 2: NACK */
	na_qtable_handle(&qt, &m, NULL, 2, &out, &loc);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_NACK);
	cr_assert_eq(out.m[0].msg.thread, 2);
	cr_assert_eq(out.m[0].msg.seq, 7);
	cr_assert_eq(qt.st.local_nacks, 1);
	/* Given up, it is kept: the forwards came for it. */
	na_qtable_abandon(&qt, TAG, 0, 4, 3, &out, &loc);
	cr_assert_eq(qt.st.abandoned_waits, 0);
	/* Its settling unlock hands over to node 2, counting both. */
	clear();
	cr_assert_eq(na_qtable_done(&qt, TAG, 0, 4, LCF_GS_MODIFIED, 2, 4, &out,
				    &loc),
		     0);
	cr_assert_eq(out.m[0].msg.type, LCF_T_QXFER);
	cr_assert_eq(out.m[0].msg.aux, 2);
	cr_assert_eq(out.m[0].msg.copyset, lcf_q_id(2, 1, 9));
	teardown();
}

Test(qplan, runs_the_request_against_the_grant)
{
	struct na_qplan p;

	/* WRITE_MISS, block Modified at node 2: invalidate it, it provides. */
	na_qplan_make(LCF_T_WRITE_MISS, 1, LCF_GS_MODIFIED, 1u << 2, 0, &p);
	cr_assert(!p.noop);
	cr_assert_eq(p.type, LCF_T_WRITE_MISS);
	cr_assert_eq(p.to, 1u << 2);
	cr_assert_eq(p.provider, 2);
	cr_assert(!p.home);
	/* WRITE_SHARED whose copy was invalidated: run as a WRITE_MISS. */
	na_qplan_make(LCF_T_WRITE_SHARED, 1, LCF_GS_MODIFIED, 1u << 0, 0, &p);
	cr_assert(!p.noop);
	cr_assert_eq(p.type, LCF_T_WRITE_MISS);
	cr_assert_eq(p.to, 1u << 0);
	/* WRITE_SHARED, sole holder: nothing to send. */
	na_qplan_make(LCF_T_WRITE_SHARED, 1, LCF_GS_SHARED, 1u << 1, 0, &p);
	cr_assert_eq(p.to, 0);
	cr_assert(!p.home);
	/* READ_MISS of an Unshared block: the home has the data. */
	na_qplan_make(LCF_T_READ_MISS, 1, LCF_GS_UNSHARED, 0, 0, &p);
	cr_assert(p.home);
	/* An eviction of a line no longer held: a no-op event. */
	na_qplan_make(LCF_T_EVICT_SHARED, 1, LCF_GS_MODIFIED, 1u << 0, 0, &p);
	cr_assert(p.noop);
}

Test(qplan, inv_as_copy)
{
	struct lcf_msg m = { .type = NA_MSG_Q_INV,
			     .flags = LCF_F_DATA_PROVIDER,
			     .node = 1,
			     .seq = 3,
			     .gstatus = LCF_GS_MODIFIED,
			     .copyset = 4,
			     .aux = na_aux_orig(LCF_T_WRITE_MISS, 0) },
		       c;

	na_qplan_inv_as_copy(&m, &c);
	cr_assert_eq(c.type, LCF_T_WRITE_MISS);
	cr_assert_eq(c.flags, LCF_F_IN_SWITCH | LCF_F_DATA_PROVIDER);
	cr_assert_eq(c.aux, 0);
	cr_assert_eq(c.seq, 3);
	cr_assert_eq(na_classify(&c, 2), NA_ROUTE_CACHE);
}

Test(qplan, classify)
{
	struct lcf_msg m = qt_forward(LCF_T_WRITE_MISS, TAG, 1, 0, 3,
				      lcf_q_id(0, 0, 1), 1);

	cr_assert_eq(na_classify(&m, 0), NA_ROUTE_QUEUE);
	m.aux = 0; /* a Table 3 copy */
	m.gstatus = LCF_GS_MODIFIED;
	m.copyset = 4;
	cr_assert_eq(na_classify(&m, 0), NA_ROUTE_CACHE);
	m = (struct lcf_msg){ .type = LCF_T_QXFER_ACK, .node = 0 };
	cr_assert_eq(na_classify(&m, 0), NA_ROUTE_QUEUE);
	cr_assert_eq(na_classify(&m, 1), NA_ROUTE_DROP);
	m.type = NA_MSG_Q_GRANT;
	cr_assert_eq(na_classify(&m, 0), NA_ROUTE_QUEUE);
	m.type = NA_MSG_Q_GRANT_ACK;
	cr_assert_eq(na_classify(&m, 1), NA_ROUTE_QUEUE);
	m.type = NA_MSG_Q_QUEUED;
	cr_assert_eq(na_classify(&m, 0), NA_ROUTE_REQUESTER);
	m.type = NA_MSG_Q_NACK;
	cr_assert_eq(na_classify(&m, 0), NA_ROUTE_REQUESTER);
	m.type = NA_MSG_Q_INV;
	cr_assert_eq(na_classify(&m, 1), NA_ROUTE_QINV);
}

Test(qplan, home_messages_as_the_switch_s)
{
	uint8_t pl[4] = { LCF_T_WRITE_MISS, 0, 0, 0 };
	struct lcf_msg m = { .type = NA_MSG_QFWD,
			     .node = 1,
			     .thread = 2,
			     .seq = 9,
			     .dst_node = 0,
			     .len = 4,
			     .aux = 5u << 16 | 3 },
		       c;

	cr_assert_eq(na_classify(&m, 0), NA_ROUTE_QUEUE);
	cr_assert_eq(na_classify(&m, 1), NA_ROUTE_DROP);
	cr_assert_eq(na_qplan_home_as_switch(&m, pl, &c), 0);
	cr_assert_eq(c.type, LCF_T_WRITE_MISS);
	cr_assert(c.flags & LCF_F_IN_SWITCH);
	cr_assert_eq(c.aux, 5u << 16 | 3);
	cr_assert_eq(c.len, 0);
	cr_assert(na_qtable_is_forward(&c));
	/* refused: no request type, an unlock's type, no forward index */
	cr_assert_eq(na_qplan_home_as_switch(&m, NULL, &c), -EINVAL);
	pl[0] = LCF_T_WRITE_UNLOCK;
	cr_assert_eq(na_qplan_home_as_switch(&m, pl, &c), -EINVAL);
	pl[0] = LCF_T_READ_MISS;
	m.aux = 5u << 16;
	cr_assert_eq(na_qplan_home_as_switch(&m, pl, &c), -EINVAL);

	m = (struct lcf_msg){ .type = NA_MSG_QXFER_ACK, .node = 0, .aux = 7 };
	cr_assert_eq(na_classify(&m, 0), NA_ROUTE_QUEUE);
	cr_assert_eq(na_classify(&m, 1), NA_ROUTE_DROP);
	cr_assert_eq(na_qplan_home_as_switch(&m, NULL, &c), 0);
	cr_assert_eq(c.type, LCF_T_QXFER_ACK);
	cr_assert_eq(c.aux, 7);
}

/*
 * lib/model/qlock-threads.pml TYPECHG (docs/QUEUED-LOCKS.md 5 "Giving a
 * request up"): node 1's thread 0 gives seq 1 up for seq 2 (a NACKed
 * request retried as another type) while a copy of seq 1 is queued at node
 * 0, seq 2 behind it. Node 0 hands over to seq 1 with seq 2 in the queue:
 * the Q_GRANT finds the thread's slot waiting for seq 2. A passing slot
 * takes it and hands over to seq 2 (QXFER, Q_GRANT to itself), which is
 * granted to the thread.
 */
Test(qtable, given_up_seq_granted_while_next_seq_waits_passes_on)
{
	struct na_qg_entry q[1] = {
		{ .node = 1, .thread = 0, .seq = 2, .type = 2, .index = 2 }
	};
	uint8_t buf[64];
	struct lcf_msg g = qgrant(0, 1, 0, 1, q, 1, buf, sizeof(buf)), m;

	setup(1);
	clear();
	cr_assert_eq(na_qtable_request(&qt, TAG, 0, 1, 0, &out, &loc), 0);
	/* NACKed; retried as another request: seq 1 given up, seq 2 waits. */
	na_qtable_abandon(&qt, TAG, 0, 1, 1, &out, &loc);
	cr_assert_eq(qt.st.abandoned_waits, 1);
	cr_assert_eq(na_qtable_request(&qt, TAG, 0, 2, 2, &out, &loc), 0);
	cr_assert_eq(out.n + loc.n, 0);

	na_qtable_handle(&qt, &g, buf, 3, &out, &loc);
	cr_assert_eq(loc.n, 0, "not delivered: the thread waits for seq 2");
	cr_assert_eq(out.n, 2);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_Q_GRANT_ACK);
	cr_assert_eq(out.m[0].dst, 0);
	cr_assert_eq(out.m[0].msg.seq, 1);
	m = out.m[1].msg;
	cr_assert_eq(m.type, LCF_T_QXFER, "passed on at once");
	cr_assert_eq(out.m[1].dst, HOME);
	cr_assert_eq(m.thread, 0);
	cr_assert_eq(m.seq, 1);
	cr_assert_eq(m.aux, 0, "no forward came for seq 1's tenure");
	cr_assert_eq(m.copyset, lcf_q_id(1, 0, 2), "to seq 2");
	cr_assert_eq(qt.st.abandoned_holds, 1);
	/* A duplicate of the Q_GRANT while the QXFER is pending: nothing. */
	clear();
	na_qtable_handle(&qt, &g, buf, 4, &out, &loc);
	cr_assert_eq(out.n, 0);
	cr_assert_eq(loc.n, 0);

	/* Approved: Q_GRANT to seq 2, on this node. */
	clear();
	m = qt_qack(1, 0, 1, LCF_T_QXFER, LCF_Q_OK, 0);
	na_qtable_handle(&qt, &m, NULL, 5, &out, &loc);
	cr_assert_eq(qt.st.qxfer_approved, 1);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_Q_GRANT);
	cr_assert_eq(out.m[0].dst, 1);
	cr_assert_eq(out.m[0].msg.thread, 0);
	cr_assert_eq(out.m[0].msg.seq, 2);
	cr_assert_eq(out.m[0].msg.gstatus, LCF_GS_MODIFIED);
	m = out.m[0].msg;

	/* It arrives: seq 2 is granted to the thread. */
	clear();
	na_qtable_handle(&qt, &m, NULL, 6, &out, &loc);
	cr_assert_eq(loc.n, 1);
	cr_assert_eq(loc.l[0].thread, 0);
	cr_assert_eq(loc.l[0].m.type, NA_MSG_Q_GRANT);
	cr_assert_eq(loc.l[0].m.seq, 2);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_Q_GRANT_ACK);
	cr_assert_eq(out.m[0].dst, 1);
	m = out.m[0].msg;
	m.tag = TAG;

	/* Its acknowledgement ends seq 1's tenure; seq 2 holds and ends. */
	clear();
	na_qtable_handle(&qt, &m, NULL, 7, &out, &loc);
	cr_assert_eq(qt.st.qgrant_ack_recv, 1);
	cr_assert_eq(out.n, 0);
	clear();
	cr_assert_eq(na_qtable_done(&qt, TAG, 0, 2, LCF_GS_MODIFIED, 2, 8, &out,
				    &loc),
		     0);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, LCF_T_QRELEASE);
	cr_assert_eq(out.m[0].msg.seq, 2);
	for (uint32_t i = 0; i < NA_QT_SLOTS; i++)
		cr_assert(!qt.s[i].passing, "the passing slot is free again");
	teardown();
}

/* Forwards for the given-up seq's tenure before its Q_GRANT (the switch
 * forwards to the new holder from the approval on): buffered in the
 * passing slot, queued after the granted queue, counted in its QXFER. */
Test(qtable, given_up_tenure_buffers_forwards_before_its_grant)
{
	uint32_t gone = lcf_q_id(1, 0, 1);
	uint8_t buf[64];
	struct lcf_msg g = qgrant(0, 1, 0, 1, NULL, 0, buf, sizeof(buf)), m;

	setup(1);
	clear();
	na_qtable_request(&qt, TAG, 0, 1, 0, &out, &loc);
	na_qtable_abandon(&qt, TAG, 0, 1, 1, &out, &loc);
	na_qtable_request(&qt, TAG, 0, 2, 2, &out, &loc);
	m = qt_forward(LCF_T_WRITE_MISS, TAG, 1, 0, 2, gone,
		       1); /* the thread's own seq 2 */
	na_qtable_handle(&qt, &m, NULL, 3, &out, &loc);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_Q_QUEUED);
	cr_assert_eq(out.m[0].msg.seq, 2);
	clear();
	m = qt_forward(LCF_T_WRITE_MISS, TAG, 2, 1, 5, gone,
		       2); /* another node's */
	na_qtable_handle(&qt, &m, NULL, 4, &out, &loc);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_Q_QUEUED);
	clear();
	na_qtable_handle(&qt, &g, buf, 5, &out, &loc);
	cr_assert_eq(out.n, 2);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_Q_GRANT_ACK);
	cr_assert_eq(out.m[1].msg.type, LCF_T_QXFER);
	cr_assert_eq(out.m[1].msg.seq, 1);
	cr_assert_eq(out.m[1].msg.aux, 2, "both forwards counted");
	cr_assert_eq(out.m[1].msg.copyset, lcf_q_id(1, 0, 2), "FIFO head");
	cr_assert_eq(loc.n, 0);
	teardown();
}

/* Without its Q_GRANT, the given-up event's copy took the lock: its
 * settling unlock (na_req_quarantine) ends the tenure through the passing
 * slot's queue. */
Test(qtable, given_up_tenure_with_forwards_settles_through_the_queue)
{
	uint32_t gone = lcf_q_id(1, 0, 1);
	uint8_t buf[16];
	struct lcf_msg m;

	setup(1);
	clear();
	na_qtable_request(&qt, TAG, 0, 1, 0, &out, &loc);
	na_qtable_abandon(&qt, TAG, 0, 1, 1, &out, &loc);
	na_qtable_request(&qt, TAG, 0, 2, 2, &out, &loc);
	m = qt_forward(LCF_T_WRITE_MISS, TAG, 2, 1, 5, gone, 1);
	na_qtable_handle(&qt, &m, NULL, 3, &out, &loc);
	clear();
	cr_assert_eq(na_qtable_done(&qt, TAG, 0, 1, LCF_GS_MODIFIED, 2, 4, &out,
				    &loc),
		     0);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, LCF_T_QXFER);
	cr_assert_eq(out.m[0].msg.seq, 1);
	cr_assert_eq(out.m[0].msg.copyset, lcf_q_id(2, 1, 5));
	/* A Q_GRANT for seq 1 while its tenure ends: not acknowledged. */
	clear();
	m = qgrant(0, 1, 0, 1, NULL, 0, buf, sizeof(buf));
	na_qtable_handle(&qt, &m, buf, 5, &out, &loc);
	cr_assert_eq(out.n, 0);
	cr_assert_eq(loc.n, 0);
	teardown();
}

/* Two seqs given up in a row (NACKed twice, the type changed twice) while
 * a copy of the first is queued: its Q_GRANT still passes on. */
Test(qtable, earlier_given_up_seq_is_remembered)
{
	struct na_qg_entry q[1] = {
		{ .node = 1, .thread = 0, .seq = 3, .type = 2, .index = 2 }
	};
	uint8_t buf[64];
	struct lcf_msg g = qgrant(0, 1, 0, 1, q, 1, buf, sizeof(buf));

	setup(1);
	clear();
	na_qtable_request(&qt, TAG, 0, 1, 0, &out, &loc);
	na_qtable_request(&qt, TAG, 0, 2, 1, &out, &loc); /* gives 1 up */
	na_qtable_request(&qt, TAG, 0, 3, 2, &out, &loc); /* gives 2 up */
	cr_assert_eq(qt.st.abandoned_waits, 2);
	na_qtable_handle(&qt, &g, buf, 3, &out, &loc);
	cr_assert_eq(out.n, 2);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_Q_GRANT_ACK);
	cr_assert_eq(out.m[1].msg.type, LCF_T_QXFER);
	cr_assert_eq(out.m[1].msg.seq, 1);
	cr_assert_eq(out.m[1].msg.copyset, lcf_q_id(1, 0, 3));
	teardown();
}

/* A seq given up while its slot is kept for a forward that came for its
 * tenure (lib/model/qlock-threads.pml, qlock-threads-typechg-kept): its
 * Q_GRANT is passed on in place, then the thread's next seq registers. */
Test(qtable, kept_given_up_seq_passes_its_grant_on)
{
	struct na_qg_entry q[1] = {
		{ .node = 2, .thread = 1, .seq = 7, .type = 2, .index = 3 }
	};
	uint8_t buf[64];
	struct lcf_msg g = qgrant(0, 1, 0, 1, q, 1, buf, sizeof(buf)), m;

	setup(1);
	clear();
	na_qtable_request(&qt, TAG, 0, 1, 0, &out, &loc);
	m = qt_forward(LCF_T_WRITE_MISS, TAG, 1, 0, 1, lcf_q_id(1, 0, 1),
		       1); /* its own copy */
	na_qtable_handle(&qt, &m, NULL, 1, &out, &loc);
	na_qtable_abandon(&qt, TAG, 0, 1, 2, &out, &loc);
	cr_assert_eq(qt.st.abandoned_waits, 0, "kept: a forward came");
	cr_assert_eq(na_qtable_request(&qt, TAG, 0, 2, 3, &out, &loc), -EBUSY);
	clear();
	na_qtable_handle(&qt, &g, buf, 4, &out, &loc);
	cr_assert_eq(loc.n, 0, "not delivered: given up");
	cr_assert_eq(out.n, 2);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_Q_GRANT_ACK);
	cr_assert_eq(out.m[1].msg.type, LCF_T_QXFER);
	cr_assert_eq(out.m[1].msg.seq, 1);
	cr_assert_eq(out.m[1].msg.aux, 1);
	cr_assert_eq(out.m[1].msg.copyset, lcf_q_id(2, 1, 7));
	clear();
	m = qt_qack(1, 0, 1, LCF_T_QXFER, LCF_Q_OK, 1);
	na_qtable_handle(&qt, &m, NULL, 5, &out, &loc);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_Q_GRANT);
	cr_assert_eq(out.m[0].dst, 2);
	clear();
	m = (struct lcf_msg){ .type = NA_MSG_Q_GRANT_ACK,
			      .node = 2,
			      .thread = 1,
			      .seq = 7,
			      .tag = TAG };
	na_qtable_handle(&qt, &m, NULL, 6, &out, &loc);
	cr_assert_eq(na_qtable_request(&qt, TAG, 0, 2, 7, &out, &loc), 0);
	teardown();
}
