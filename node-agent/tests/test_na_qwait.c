/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The switch's waiting writer at the node (na_qwait.c through na_qtable,
 * docs/QUEUED-LOCKS.md 5 "The waiting writer at the node"): QWAIT,
 * forwards buffered, QGRANT taken as a Q_GRANT with no entries and no Q_GRANT_ACK, the plan
 * against its metadata, the hand-over to the head; duplicates and strays
 * ignored; a given-up waiting writer polled and passed on; the table's
 * na_qtable_holds for the ABORT of a waiting writer whose QWAIT was lost;
 * the `waiting` denial; na_classify of 0x16/0x17.
 */
#include <errno.h>

#include <criterion/criterion.h>

#include "lcf_qlock.h"
#include "na_msg.h"
#include "na_proto.h"
#include "na_qplan.h"
#include "na_qtable.h"
#include "qt_test.h"

static struct na_qtable qt;

static void
setup(void)
{
	cr_assert_eq(na_qtable_init(&qt, 0, RTT, home_of, NULL), 0);
}

static void
teardown(void)
{
	na_qtable_fini(&qt);
}

/* The switch's QWAIT (readers 2) or QGRANT for node 0's (thread, seq). */
static struct lcf_msg
sw(uint8_t type, uint16_t thread, uint32_t seq, uint8_t gs, uint32_t cs)
{
	return (struct lcf_msg){ .version = LCF_VERSION,
				 .type = type,
				 .flags = LCF_F_IN_SWITCH,
				 .node = 0,
				 .thread = thread,
				 .seq = seq,
				 .tag = TAG,
				 .gstatus = gs,
				 .copyset = cs,
				 .aux = (uint32_t)LCF_T_WRITE_MISS << 24 |
					(type == LCF_T_QWAIT ? 2 : 0) };
}

static void
handle(struct lcf_msg m, uint64_t now)
{
	cr_assert_eq(na_qtable_handle(&qt, &m, NULL, now, &out, &loc), 0);
}

Test(qwait, forwards_buffered_then_qgrant_then_qxfer_to_head, .init = setup,
     .fini = teardown)
{
	uint32_t me = lcf_q_id(0, 1, 5);
	struct na_qplan p;

	clear();
	cr_assert_eq(na_qtable_request(&qt, TAG, 1, 5, 0, &out, &loc), 0);
	handle(sw(LCF_T_QWAIT, 1, 5, 0, 0), 1);
	cr_assert_eq(out.n, 0);
	cr_assert_eq(loc.n, 1, "the QWAIT goes to the requester thread");
	cr_assert_eq(loc.l[0].thread, 1);
	cr_assert_eq(loc.l[0].m.type, LCF_T_QWAIT);
	cr_assert_eq(loc.l[0].m.seq, 5);
	cr_assert_eq(qt.st.sw_waits, 1);

	/* Requests meeting the waiting writer queue at it (reads too). */
	clear();
	handle(qt_forward(LCF_T_READ_MISS, TAG, 1, 0, 3, me, 1), 2);
	handle(qt_forward(LCF_T_READ_MISS, TAG, 2, 0, 7, me, 2), 3);
	handle(qt_forward(LCF_T_READ_MISS, TAG, 2, 0, 7, me, 3),
	       4); /* a retransmission: counted */
	cr_assert_eq(out.n, 2);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_Q_QUEUED);
	cr_assert_eq(out.m[0].dst, 1);
	cr_assert_eq(out.m[1].msg.type, NA_MSG_Q_QUEUED);
	cr_assert_eq(out.m[1].dst, 2);
	cr_assert_eq(loc.n, 0);

	/* A second QWAIT (a poll's answer): nothing new. */
	clear();
	handle(sw(LCF_T_QWAIT, 1, 5, 0, 0), 5);
	cr_assert_eq(out.n, 0);
	cr_assert_eq(qt.st.sw_waits, 1);

	/* QGRANT: a Q_GRANT with no entries, without Q_GRANT_ACK. */
	clear();
	handle(sw(LCF_T_QGRANT, 1, 5, LCF_GS_SHARED, 1u << 1 | 1u << 2), 6);
	cr_assert_eq(out.n, 0, "no Q_GRANT_ACK to the switch");
	cr_assert_eq(loc.n, 1);
	cr_assert_eq(loc.l[0].thread, 1);
	cr_assert_eq(loc.l[0].m.type, NA_MSG_Q_GRANT);
	cr_assert_eq(loc.l[0].m.seq, 5);
	cr_assert_eq(loc.l[0].m.gstatus, LCF_GS_SHARED);
	cr_assert_eq(loc.l[0].m.copyset, 1u << 1 | 1u << 2);
	cr_assert(loc.l[0].m.flags & LCF_F_IN_SWITCH);
	cr_assert_eq(qt.st.sw_grants, 1);
	cr_assert_eq(qt.st.qgrant_taken, 1);

	/* The plan against its metadata: invalidate the readers' copies. */
	na_qplan_make(LCF_T_WRITE_MISS, 0, loc.l[0].m.gstatus,
		      loc.l[0].m.copyset, 0, &p);
	cr_assert(!p.noop);
	cr_assert_eq(p.to, 1u << 1 | 1u << 2);

	/* A duplicate QGRANT: ignored, nothing sent or delivered. */
	clear();
	handle(sw(LCF_T_QGRANT, 1, 5, LCF_GS_SHARED, 6), 7);
	cr_assert_eq(out.n + loc.n, 0);
	cr_assert_eq(qt.st.sw_ignored, 1);
	cr_assert_eq(qt.st.sw_grants, 1);

	/* Its end: QXFER to the head with the count (3 indices). */
	clear();
	cr_assert_eq(na_qtable_done(&qt, TAG, 1, 5, LCF_GS_MODIFIED, 1, 8, &out,
				    &loc),
		     0);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, LCF_T_QXFER);
	cr_assert_eq(out.m[0].dst, HOME);
	cr_assert_eq(out.m[0].msg.aux, 3);
	cr_assert_eq(out.m[0].msg.copyset, lcf_q_id(1, 0, 3));
	clear();
	handle(qt_qack(0, 1, 5, LCF_T_QXFER, LCF_Q_OK, 3), 9);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_Q_GRANT);
	cr_assert_eq(out.m[0].dst, 1);
	cr_assert_eq(out.m[0].msg.gstatus, LCF_GS_MODIFIED);
	cr_assert_eq(loc.n, 1);
	cr_assert_eq(loc.l[0].m.type, LCF_T_UNLOCK_ACK);
}

Test(qwait, not_waited_for_is_ignored, .init = setup, .fini = teardown)
{
	clear();
	handle(sw(LCF_T_QWAIT, 1, 5, 0, 0), 1);
	handle(sw(LCF_T_QGRANT, 1, 5, LCF_GS_UNSHARED, 0), 2);
	cr_assert_eq(out.n + loc.n, 0);
	cr_assert_eq(qt.st.sw_ignored, 2);

	/* Another seq than the waiting one. */
	cr_assert_eq(na_qtable_request(&qt, TAG, 1, 6, 3, &out, &loc), 0);
	handle(sw(LCF_T_QWAIT, 1, 5, 0, 0), 4);
	handle(sw(LCF_T_QGRANT, 1, 5, LCF_GS_UNSHARED, 0), 5);
	cr_assert_eq(out.n + loc.n, 0);
	cr_assert_eq(qt.st.sw_ignored, 4);

	/* The switch granted it by a QGRANT although its QWAIT was lost:
	 * taken all the same. */
	handle(sw(LCF_T_QGRANT, 1, 6, LCF_GS_UNSHARED, 0), 6);
	cr_assert_eq(out.n, 0);
	cr_assert_eq(loc.n, 1);
	cr_assert_eq(loc.l[0].m.type, NA_MSG_Q_GRANT);
	cr_assert_eq(loc.l[0].m.seq, 6);
}

Test(qwait, given_up_waiting_writer_is_polled_and_passes_on, .init = setup,
     .fini = teardown)
{
	uint32_t me = lcf_q_id(0, 1, 5);

	clear();
	cr_assert_eq(na_qtable_request(&qt, TAG, 1, 5, 0, &out, &loc), 0);
	handle(sw(LCF_T_QWAIT, 1, 5, 0, 0), 1);
	handle(qt_forward(LCF_T_READ_MISS, TAG, 2, 0, 7, me, 1), 2);
	/* The requester gives the seq up (its NACKed copy ended the event
	 * before the QWAIT): kept, the table polls. */
	clear();
	na_qtable_abandon(&qt, TAG, 1, 5, 3, &out, &loc);
	cr_assert_eq(out.n + loc.n, 0);
	na_qtable_tick(&qt, 3, &out, &loc);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, LCF_T_WRITE_MISS);
	cr_assert_eq(out.m[0].msg.seq, 5);
	cr_assert_eq(out.m[0].msg.thread, 1);
	cr_assert_eq(out.m[0].dst, HOME);
	clear();
	na_qtable_tick(&qt, 3 + RTT - 1, &out, &loc);
	cr_assert_eq(out.n, 0, "every RTT, not sooner");
	na_qtable_tick(&qt, 3 + RTT, &out, &loc);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(qt.st.sw_polls, 2);
	/* The thread's next request on the block waits for the slot. */
	cr_assert_eq(na_qtable_request(&qt, TAG, 1, 6, 20, &out, &loc), -EBUSY);

	/* QGRANT: taken for nobody, QXFER to the head at once. */
	clear();
	handle(sw(LCF_T_QGRANT, 1, 5, LCF_GS_UNSHARED, 0), 21);
	cr_assert_eq(loc.n, 0, "nothing delivered to the thread");
	cr_assert_eq(out.n, 1, "no Q_GRANT_ACK");
	cr_assert_eq(out.m[0].msg.type, LCF_T_QXFER);
	cr_assert_eq(out.m[0].msg.aux, 1);
	cr_assert_eq(out.m[0].msg.copyset, lcf_q_id(2, 0, 7));
	clear();
	na_qtable_tick(&qt, 40, &out, &loc);
	cr_assert_eq(out.n, 0, "no more polls");
	handle(qt_qack(0, 1, 5, LCF_T_QXFER, LCF_Q_OK, 1), 41);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_Q_GRANT);
	handle((struct lcf_msg){ .type = NA_MSG_Q_GRANT_ACK,
				 .node = 2,
				 .thread = 0,
				 .seq = 7,
				 .tag = TAG },
	       42);
	cr_assert_eq(na_qtable_request(&qt, TAG, 1, 6, 43, &out, &loc), 0);
}

Test(qwait, qwait_after_give_up_polls_from_a_passing_slot, .init = setup,
     .fini = teardown)
{
	clear();
	cr_assert_eq(na_qtable_request(&qt, TAG, 1, 5, 0, &out, &loc), 0);
	na_qtable_abandon(&qt, TAG, 1, 5, 1, &out, &loc); /* NACKed, gone */
	cr_assert_eq(na_qtable_request(&qt, TAG, 1, 6, 2, &out, &loc), 0);
	/* A copy of seq 5 met readers: the QWAIT comes now. */
	handle(sw(LCF_T_QWAIT, 1, 5, 0, 0), 3);
	cr_assert_eq(loc.n, 0);
	cr_assert_eq(qt.st.sw_waits, 1);
	na_qtable_tick(&qt, 3 + RTT, &out, &loc);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.seq, 5);
	cr_assert_eq(out.m[0].msg.type, LCF_T_WRITE_MISS);
	/* Its QGRANT: passed on (QRELEASE, the queue is empty). */
	clear();
	handle(sw(LCF_T_QGRANT, 1, 5, LCF_GS_SHARED, 4), 30);
	cr_assert_eq(loc.n, 0);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, LCF_T_QRELEASE);
	cr_assert_eq(out.m[0].msg.seq, 5);
	cr_assert_eq(out.m[0].msg.gstatus, LCF_GS_SHARED);
	cr_assert_eq(out.m[0].msg.copyset, 4);
	/* The thread's own slot still waits for seq 6. */
	clear();
	handle(sw(LCF_T_QGRANT, 1, 6, LCF_GS_UNSHARED, 0), 31);
	cr_assert_eq(loc.n, 1);
	cr_assert_eq(loc.l[0].m.seq, 6);
}

/*
 * The ABORT of a waiting writer whose QWAIT was lost (docs/QUEUED-LOCKS.md
 * 5): the requester's quarantine runs before the slot is abandoned, the
 * re-sent request's QWAIT makes the slot the waiting writer and the table
 * holds the seq's tenure (the quarantine ends, nothing to settle); the
 * abandon keeps and polls it, its QGRANT passes the lock on.
 */
Test(qwait, lost_qwait_quarantine_then_abandon_polls_and_passes_on,
     .init = setup, .fini = teardown)
{
	uint32_t me = lcf_q_id(0, 1, 5);

	clear();
	cr_assert_eq(na_qtable_request(&qt, TAG, 1, 5, 0, &out, &loc), 0);
	cr_assert(!na_qtable_holds(&qt, TAG, 1, 5), "waiting, no QWAIT");
	/* A forward for its tenure: it may be a copy's switch lock (the
	 * ABORT's answer tells), so still not held. */
	handle(qt_forward(LCF_T_READ_MISS, TAG, 2, 0, 7, me, 1), 1);
	cr_assert(!na_qtable_holds(&qt, TAG, 1, 5));
	/* The quarantine's re-sent request met readers: QWAIT. */
	clear();
	handle(sw(LCF_T_QWAIT, 1, 5, 0, 0), 2);
	cr_assert_eq(loc.n, 1, "the QWAIT goes to the quarantined thread");
	cr_assert(na_qtable_holds(&qt, TAG, 1, 5));
	cr_assert(!na_qtable_holds(&qt, TAG, 1, 4), "another seq");
	cr_assert(!na_qtable_holds(&qt, TAG, 2, 5), "another thread");
	cr_assert(!na_qtable_holds(&qt, TAG + 1, 1, 5), "another block");
	/* The quarantine ended: the slot is abandoned, kept and polled. */
	clear();
	na_qtable_abandon(&qt, TAG, 1, 5, 3, &out, &loc);
	na_qtable_tick(&qt, 3, &out, &loc);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, LCF_T_WRITE_MISS);
	cr_assert_eq(out.m[0].msg.seq, 5);
	cr_assert(na_qtable_holds(&qt, TAG, 1, 5));
	/* QGRANT: passed on to the head at once. */
	clear();
	handle(sw(LCF_T_QGRANT, 1, 5, LCF_GS_UNSHARED, 0), 10);
	cr_assert_eq(loc.n, 0);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, LCF_T_QXFER);
	cr_assert_eq(out.m[0].msg.copyset, lcf_q_id(2, 0, 7));
	cr_assert(na_qtable_holds(&qt, TAG, 1, 5), "ending");
	clear();
	handle(qt_qack(0, 1, 5, LCF_T_QXFER, LCF_Q_OK, 1), 11);
	handle((struct lcf_msg){ .type = NA_MSG_Q_GRANT_ACK,
				 .node = 2,
				 .thread = 0,
				 .seq = 7,
				 .tag = TAG },
	       12);
	cr_assert(na_qtable_holds(&qt, TAG, 1, 5), "passed on");
	cr_assert_eq(na_qtable_request(&qt, TAG, 1, 6, 13, &out, &loc), 0);
	cr_assert(na_qtable_holds(&qt, TAG, 1, 5), "still passed on");
	cr_assert(!na_qtable_holds(&qt, TAG, 1, 6));
}

/* The re-sent request met no readers any more: QGRANT at once, taken by
 * the waiting slot (HOLD, the Q_GRANT delivered): held; the abandon ends
 * it through the queue. */
Test(qwait, lost_qwait_quarantine_qgrant_held_then_passed_on, .init = setup,
     .fini = teardown)
{
	clear();
	cr_assert_eq(na_qtable_request(&qt, TAG, 1, 5, 0, &out, &loc), 0);
	handle(sw(LCF_T_QGRANT, 1, 5, LCF_GS_SHARED, 4), 1);
	cr_assert_eq(loc.n, 1);
	cr_assert_eq(loc.l[0].m.type, NA_MSG_Q_GRANT);
	cr_assert(na_qtable_holds(&qt, TAG, 1, 5));
	clear();
	na_qtable_abandon(&qt, TAG, 1, 5, 2, &out, &loc);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, LCF_T_QRELEASE);
	cr_assert_eq(out.m[0].msg.gstatus, LCF_GS_SHARED);
	cr_assert_eq(out.m[0].msg.copyset, 4);
	cr_assert(na_qtable_holds(&qt, TAG, 1, 5), "ending");
}

/* A given-up seq with no QWAIT (cancelled, `gone`): not held; then a QWAIT
 * (a late copy, or the re-sent request) makes a polling passing slot: held;
 * its QGRANT is passed on: held (recorded) after the slot is freed. */
Test(qwait, given_up_seq_qwait_polls_qgrant_passes_on_holds, .init = setup,
     .fini = teardown)
{
	clear();
	cr_assert_eq(na_qtable_request(&qt, TAG, 1, 5, 0, &out, &loc), 0);
	na_qtable_abandon(&qt, TAG, 1, 5, 1, &out, &loc);
	cr_assert(!na_qtable_holds(&qt, TAG, 1, 5), "gone, no QWAIT");
	handle(sw(LCF_T_QWAIT, 1, 5, 0, 0), 2);
	cr_assert_eq(loc.n, 0);
	cr_assert(na_qtable_holds(&qt, TAG, 1, 5), "a polling passing slot");
	na_qtable_tick(&qt, 2 + RTT, &out, &loc);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.seq, 5);
	clear();
	handle(sw(LCF_T_QGRANT, 1, 5, LCF_GS_UNSHARED, 0), 20);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, LCF_T_QRELEASE);
	clear();
	handle(qt_qack(0, 1, 5, LCF_T_QRELEASE, LCF_Q_OK, 0), 21);
	cr_assert_eq(loc.n, 1); /* its UNLOCK_ACK: a stale reply there */
	cr_assert_eq(loc.l[0].m.type, LCF_T_UNLOCK_ACK);
	cr_assert(na_qtable_holds(&qt, TAG, 1, 5), "passed on");
	/* A duplicate QGRANT changes nothing. */
	clear();
	handle(sw(LCF_T_QGRANT, 1, 5, LCF_GS_UNSHARED, 0), 22);
	cr_assert_eq(out.n + loc.n, 0);
	cr_assert(na_qtable_holds(&qt, TAG, 1, 5));
}

Test(qwait, waiting_denial_resent_at_the_bound, .init = setup, .fini = teardown)
{
	clear();
	cr_assert_eq(na_qtable_request(&qt, TAG, 1, 5, 0, &out, &loc), 0);
	cr_assert_eq(na_qtable_switch_granted(&qt, TAG, 1, 5), 0);
	cr_assert_eq(na_qtable_done(&qt, TAG, 1, 5, LCF_GS_MODIFIED, 1, 1, &out,
				    &loc),
		     0);
	cr_assert_eq(out.m[0].msg.type, LCF_T_QRELEASE);
	clear();
	handle(qt_qack(0, 1, 5, LCF_T_QRELEASE, LCF_Q_WAITING, 0), 2);
	cr_assert_eq(out.n + loc.n, 0);
	cr_assert_eq(qt.st.qrelease_denied, 1);
	na_qtable_tick(&qt, 2 + NA_QH_BOUND_RTTS * RTT - 1, &out, &loc);
	cr_assert_eq(out.n, 0);
	na_qtable_tick(&qt, 2 + NA_QH_BOUND_RTTS * RTT, &out, &loc);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, LCF_T_QRELEASE);
	clear();
	handle(qt_qack(0, 1, 5, LCF_T_QRELEASE, LCF_Q_OK, 0), 80);
	cr_assert_eq(loc.n, 1);
	cr_assert_eq(loc.l[0].m.type, LCF_T_UNLOCK_ACK);
}

Test(qwait, classify)
{
	struct lcf_msg m = sw(LCF_T_QWAIT, 0, 1, 0, 0);

	cr_assert_eq(na_classify(&m, 0), NA_ROUTE_QUEUE);
	cr_assert_eq(na_classify(&m, 1), NA_ROUTE_DROP);
	m.type = LCF_T_QGRANT;
	cr_assert_eq(na_classify(&m, 0), NA_ROUTE_QUEUE);
	cr_assert_eq(na_classify(&m, 1), NA_ROUTE_DROP);
}
