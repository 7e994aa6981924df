/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Queued lock mode, a write that meets readers (docs/QUEUED-LOCKS.md 3,
 * "the waiting writer"): it sets LOCK's WAITING and holds the queue as a
 * SWITCH tenure (QWAIT), later requests queue at it, its polls are answered
 * QWAIT while readers hold and QGRANT after the last read unlock, its
 * QXFER/QRELEASE are denied `waiting` before that, an aborted waiter's late
 * copy is undone, an ABORT of the waiter's event is answered "a copy
 * passed"; retry mode still NACKs. Topologies pcap3q (queued) and
 * pcap3 (retry): nodes 0, 1, 2; blocks on home node 2, Shared at node 2.
 */
#include <criterion/criterion.h>

#include "lcf_qlock.h"
#include "lcf_test_util.h"

static void
setup_q(void)
{
	tu_setup("pcap3q.json");
}

static void
setup_r(void)
{
	tu_setup("pcap3.json");
}

TestSuite(qwait, .init = setup_q, .fini = tu_teardown);
TestSuite(qwait_retry, .init = setup_r, .fini = tu_teardown);

static struct lcf_result
req(uint8_t type, uint16_t node, uint16_t thread, uint32_t seq, uint64_t tag)
{
	struct lcf_msg m = tu_msg(type, node, thread, seq, tag);
	struct lcf_result r;

	tu_send(&m, &r, NULL);
	return r;
}

static uint32_t
reason(const struct lcf_result *r)
{
	return (r->out.aux >> 16) & 0xff;
}

/* Node 0 (thread 0, seq 1) reads the block (Shared at node 2); node 1's
 * WRITE_MISS (seq 1) meets that reader: the waiter. */
static uint64_t
reader_and_waiter(uint64_t idx)
{
	uint64_t tag = tu_tag(2, idx);
	struct lcf_result r;

	tu_add(tag, LCF_GS_SHARED, BIT(2));
	cr_assert_eq(req(LCF_T_READ_MISS, 0, 0, 1, tag).action,
		     LCF_A_FWD_PROVIDER);
	r = req(LCF_T_WRITE_MISS, 1, 0, 1, tag);
	cr_assert_eq(r.action, LCF_A_QWAIT);
	cr_assert_eq(r.verdict, LCF_V_EMIT);
	cr_assert_eq(r.to_nodes, BIT(1), "to the requester");
	cr_assert(r.from_switch);
	cr_assert_eq(r.out.type, LCF_T_QWAIT);
	cr_assert_eq(r.out.flags, LCF_F_IN_SWITCH);
	cr_assert_eq(r.out.aux, (uint32_t)LCF_T_WRITE_MISS << 24 | 1,
		     "original type, READERS");
	cr_assert_eq(r.out.node, 1);
	cr_assert_eq(r.out.seq, 1);
	cr_assert_eq(r.out.gstatus, LCF_GS_SHARED);
	cr_assert_eq(r.out.copyset, BIT(2));
	cr_assert_eq(tu_block(tag).lock, LCF_LOCK_WAITING | 1);
	cr_assert_eq(tu_block(tag).qholder, lcf_q_id(1, 0, 1));
	cr_assert_eq(tu_block(tag).fwd_cnt, LCF_Q_SWITCH);
	return tag;
}

/* Node 0's read unlock (seq 1): Shared at nodes 0 and 2. */
static void
read_unlock(uint64_t tag)
{
	struct lcf_result r = tu_send_meta(LCF_T_READ_UNLOCK, 0, 1, tag,
					   LCF_GS_SHARED, BIT(0) | BIT(2),
					   NULL);

	cr_assert_eq(r.action, LCF_A_UNLOCK_EXEC);
}

static struct lcf_result
qmsg(uint8_t type, uint16_t node, uint32_t seq, uint64_t tag, uint32_t count,
     uint32_t cs, int *passes)
{
	struct lcf_msg m = tu_msg(type, node, 0, seq, tag);
	struct lcf_result r;

	m.aux = count;
	m.copyset = cs;
	m.gstatus = type == LCF_T_QRELEASE ? LCF_GS_MODIFIED : 0;
	tu_send(&m, &r, passes);
	cr_assert_eq(r.out.type, LCF_T_QXFER_ACK);
	return r;
}

Test(qwait, write_meeting_readers_is_the_waiter)
{
	reader_and_waiter(1);
	cr_assert_eq(tu_count(LCF_A_QWAIT), 1);
	cr_assert_eq(tu_count(LCF_A_NACK_LOCK_BUSY), 0);
}

Test(qwait, requests_meeting_waiting_queue_at_the_waiter)
{
	uint64_t tag = reader_and_waiter(2);
	struct lcf_result r;

	r = req(LCF_T_WRITE_MISS, 2, 0, 1, tag);
	cr_assert_eq(r.action, LCF_A_FWD_HOLDER);
	cr_assert_eq(r.to_nodes, BIT(1), "to the waiter's node");
	cr_assert_eq(r.out.aux, lcf_q_fwd_aux(lcf_q_id(1, 0, 1), 1));
	/* A new reader queues behind the waiting writer, too. */
	r = req(LCF_T_READ_MISS, 0, 1, 1, tag);
	cr_assert_eq(r.action, LCF_A_FWD_HOLDER);
	cr_assert_eq(r.out.aux, lcf_q_fwd_aux(lcf_q_id(1, 0, 1), 2));
	cr_assert_eq(tu_block(tag).fwd_cnt, LCF_Q_SWITCH | 2);
	cr_assert_eq(tu_block(tag).lock, LCF_LOCK_WAITING | 1, "not taken");
}

Test(qwait, poll_waits_then_is_granted_after_the_read_unlock)
{
	uint64_t tag = reader_and_waiter(3);
	struct lcf_result r;

	req(LCF_T_WRITE_MISS, 2, 0, 1, tag); /* one forward */
	r = req(LCF_T_WRITE_MISS, 1, 0, 1, tag);
	cr_assert_eq(r.action, LCF_A_QWAIT, "readers still hold");
	cr_assert_eq(tu_block(tag).fwd_cnt, LCF_Q_SWITCH | 1, "untouched");
	read_unlock(tag);
	cr_assert_eq(tu_block(tag).lock, LCF_LOCK_WAITING, "WAITING kept");
	r = req(LCF_T_WRITE_MISS, 1, 0, 1, tag);
	cr_assert_eq(r.action, LCF_A_QGRANT);
	cr_assert_eq(r.to_nodes, BIT(1));
	cr_assert(r.from_switch);
	cr_assert_eq(r.out.type, LCF_T_QGRANT);
	cr_assert_eq(r.out.flags, LCF_F_IN_SWITCH);
	cr_assert_eq(r.out.aux, (uint32_t)LCF_T_WRITE_MISS << 24);
	cr_assert_eq(r.out.gstatus, LCF_GS_SHARED, "what the unlock installed");
	cr_assert_eq(r.out.copyset, BIT(0) | BIT(2));
	cr_assert_eq(tu_block(tag).fwd_cnt, LCF_Q_SWITCH | 1, "untouched");
	cr_assert_eq(tu_block(tag).qholder, lcf_q_id(1, 0, 1));
	/* A duplicate poll: another QGRANT, harmless. */
	cr_assert_eq(req(LCF_T_WRITE_MISS, 1, 0, 1, tag).action, LCF_A_QGRANT);
	cr_assert_eq(tu_count(LCF_A_QGRANT), 2);
	/* A reader still cannot enter: the waiter's tenure holds. */
	cr_assert_eq(req(LCF_T_READ_MISS, 0, 0, 2, tag).action,
		     LCF_A_FWD_HOLDER);
}

Test(qwait, qxfer_and_qrelease_denied_while_readers_hold)
{
	uint64_t tag = reader_and_waiter(4);
	struct lcf_result r;
	int passes;

	req(LCF_T_WRITE_MISS, 2, 0, 1, tag);
	r = qmsg(LCF_T_QXFER, 1, 1, tag, 1, lcf_q_id(2, 0, 1), &passes);
	cr_assert_eq(passes, 1);
	cr_assert_eq(r.action, LCF_A_QXFER_DENIED);
	cr_assert_eq(r.out.flags, LCF_F_IN_SWITCH | LCF_F_FAIL);
	cr_assert_eq(reason(&r), LCF_Q_WAITING);
	cr_assert_eq(r.out.aux & 0xffff, 1, "the count");
	r = qmsg(LCF_T_QRELEASE, 1, 1, tag, 1, BIT(1), &passes);
	cr_assert_eq(passes, 1);
	cr_assert_eq(reason(&r), LCF_Q_WAITING);
	cr_assert_eq(tu_block(tag).qholder, lcf_q_id(1, 0, 1), "untouched");
	cr_assert_eq(tu_block(tag).fwd_cnt, LCF_Q_SWITCH | 1);
	cr_assert_eq(tu_block(tag).lock, LCF_LOCK_WAITING | 1);
	/* Readers gone: the count is compared without the SWITCH bit. */
	read_unlock(tag);
	r = qmsg(LCF_T_QXFER, 1, 1, tag, 1, lcf_q_id(2, 0, 1), &passes);
	cr_assert_eq(r.action, LCF_A_QXFER_OK);
	cr_assert_eq(tu_block(tag).qholder, lcf_q_id(2, 0, 1));
	cr_assert_eq(tu_block(tag).fwd_cnt, 0, "SWITCH cleared");
	cr_assert_eq(tu_block(tag).lock, LCF_LOCK_WAITING, "the queue holds");
	/* The next holder's retransmission is forwarded, not granted. */
	r = req(LCF_T_WRITE_MISS, 2, 0, 1, tag);
	cr_assert_eq(r.action, LCF_A_FWD_HOLDER);
	cr_assert_eq(r.to_nodes, BIT(2));
	cr_assert_eq(tu_count(LCF_A_QGRANT), 0);
}

Test(qwait, qrelease_clears_waiting)
{
	uint64_t tag = reader_and_waiter(5);
	struct lcf_result r;
	int passes;

	read_unlock(tag);
	cr_assert_eq(req(LCF_T_WRITE_MISS, 1, 0, 1, tag).action, LCF_A_QGRANT);
	r = qmsg(LCF_T_QRELEASE, 1, 1, tag, 0, BIT(1), &passes);
	cr_assert_eq(passes, 2);
	cr_assert_eq(r.action, LCF_A_QRELEASE_EXEC);
	cr_assert_eq(tu_block(tag).lock, 0);
	cr_assert_eq(tu_block(tag).qholder, 0);
	cr_assert_eq(tu_block(tag).fwd_cnt, 0);
	cr_assert_eq(tu_block(tag).gstatus, LCF_GS_MODIFIED);
	cr_assert_eq(tu_block(tag).copyset, BIT(1));
	/* Free again: a reader is granted (M at node 1: the owner). */
	cr_assert_eq(req(LCF_T_READ_MISS, 0, 0, 2, tag).action,
		     LCF_A_FWD_OWNER);
}

Test(qwait, aborted_waiters_late_copy_is_undone)
{
	uint64_t tag = tu_tag(2, 6);
	struct lcf_msg m;
	struct lcf_result r;
	int passes;

	tu_add(tag, LCF_GS_SHARED, BIT(2));
	req(LCF_T_READ_MISS, 0, 0, 1, tag);
	m = tu_msg(LCF_T_ABORT, 1, 0, 1, tag);
	tu_send(&m, &r, NULL);
	cr_assert_eq(r.action, LCF_A_ABORT_HOME, "no copy passed");
	m = tu_msg(LCF_T_WRITE_MISS, 1, 0, 1, tag);
	tu_send(&m, &r, &passes);
	cr_assert_eq(passes, 2, "RELEASE pass of lock kind 2");
	cr_assert_eq(r.action, LCF_A_NACK_ABORTED);
	cr_assert_eq(r.out.type, LCF_T_NACK);
	cr_assert_eq(r.out.flags, LCF_F_IN_SWITCH | LCF_F_FAIL);
	cr_assert_eq(tu_block(tag).lock, 1, "WAITING undone, reader kept");
	cr_assert_eq(tu_block(tag).qholder, 0, "QSTATE untouched");
	cr_assert_eq(tu_block(tag).fwd_cnt, 0);
	cr_assert_eq(tu_count(LCF_A_QWAIT), 0);
	/* A kind-2 RELEASE is a RELEASE's only: an unlock's is dropped. */
	m = tu_msg(LCF_T_READ_UNLOCK, 0, 0, 1, tag);
	tu_pass(&m, true, 2 | 2u << 16, &r);
	cr_assert_eq(r.action, LCF_A_DROP);
	cr_assert_eq(r.drop_reason, LCF_DROP_BAD_RESUBMIT);
}

Test(qwait, version_read_reports_a_waiting_writer_busy)
{
	uint64_t tag = reader_and_waiter(7);
	struct lcf_msg m = tu_msg(LCF_T_VERSION_READ, 0, 1, 1, tag);
	struct lcf_result r;

	tu_send(&m, &r, NULL);
	cr_assert_eq(r.action, LCF_A_VERSION_HIT);
	cr_assert(r.out.aux & LCF_VER_AUX_BUSY);
}

Test(qwait, remove_refused_while_a_writer_waits)
{
	uint64_t tag = reader_and_waiter(8);
	struct lcf_msg m = tu_msg(LCF_T_REMOVE_FROM_SWITCH, 2, 0, 2, tag);
	struct lcf_result r;

	read_unlock(tag);
	tu_send(&m, &r, NULL);
	cr_assert_eq(r.action, LCF_A_NACK_LOCK_BUSY, "LOCK = WAITING: held");
	cr_assert_eq(tu_block(tag).lock, LCF_LOCK_WAITING);
}

static struct lcf_result
abort_of(uint16_t node, uint16_t thread, uint32_t seq, uint64_t tag)
{
	struct lcf_msg m = tu_msg(LCF_T_ABORT, node, thread, seq, tag);
	struct lcf_result r;

	tu_send(&m, &r, NULL);
	return r;
}

Test(qwait, abort_of_the_waiter_is_answered_passed)
{
	uint64_t tag = reader_and_waiter(9);
	struct lcf_result r = abort_of(1, 0, 1, tag);

	cr_assert_eq(r.action, LCF_A_ABORT_PASSED);
	cr_assert_eq(r.out.type, LCF_T_ABORT_ACK);
	cr_assert_eq(r.out.flags, LCF_F_IN_SWITCH | LCF_F_FAIL);
	cr_assert_eq(r.to_nodes, BIT(1));
	cr_assert_eq(tu_block(tag).lock, LCF_LOCK_WAITING | 1, "unchanged");
	cr_assert_eq(tu_block(tag).qholder, lcf_q_id(1, 0, 1));
	cr_assert_eq(tu_block(tag).fwd_cnt, LCF_Q_SWITCH);
	/* The poll is row 4 whatever SCOREBOARD says. */
	cr_assert_eq(req(LCF_T_WRITE_MISS, 1, 0, 1, tag).action, LCF_A_QWAIT);
	/* A retransmitted ABORT says the same. */
	cr_assert_eq(abort_of(1, 0, 1, tag).action, LCF_A_ABORT_PASSED);
	read_unlock(tag);
	r = req(LCF_T_WRITE_MISS, 1, 0, 1, tag);
	cr_assert_eq(r.action, LCF_A_QGRANT);
	cr_assert_eq(r.out.copyset, BIT(0) | BIT(2));
	/* Granted, not yet handed on: still the waiter's tenure. */
	cr_assert_eq(abort_of(1, 0, 1, tag).action, LCF_A_ABORT_PASSED);
	cr_assert_eq(tu_count(LCF_A_ABORT_HOME), 0);
	cr_assert_eq(tu_block(tag).lock, LCF_LOCK_WAITING);
}

Test(qwait, abort_of_another_event_is_unchanged)
{
	uint64_t tag = reader_and_waiter(10);

	/* The waiter's thread, another seq. */
	cr_assert_eq(abort_of(1, 0, 2, tag).action, LCF_A_ABORT_HOME);
	/* Another thread of the waiter's node, same seq. */
	cr_assert_eq(abort_of(1, 1, 1, tag).action, LCF_A_ABORT_HOME);
	cr_assert_eq(tu_block(tag).qholder, lcf_q_id(1, 0, 1));
	cr_assert_eq(tu_block(tag).fwd_cnt, LCF_Q_SWITCH);
	cr_assert_eq(tu_block(tag).lock, LCF_LOCK_WAITING | 1);
}

Test(qwait, abort_of_a_granted_holder_is_unchanged)
{
	uint64_t tag = tu_tag(2, 11);
	struct lcf_result r;

	/* Node 1's write takes the free lock: QSTATE {id, 0}, not SWITCH. */
	tu_add(tag, LCF_GS_SHARED, BIT(2));
	r = req(LCF_T_WRITE_MISS, 1, 0, 1, tag);
	cr_assert_eq(tu_block(tag).qholder, lcf_q_id(1, 0, 1));
	cr_assert_eq(tu_block(tag).fwd_cnt, 0);
	/* Its copy holds a counted lock: passed, by the SCOREBOARD. */
	cr_assert_eq(abort_of(1, 0, 1, tag).action, LCF_A_ABORT_PASSED);
	/* The tenure handed on to node 2 (QXFER): node 1's seq 1 is not a
	 * SWITCH tenure, so an ABORT of seq 2 goes home. */
	r = qmsg(LCF_T_QXFER, 1, 1, tag, 0, lcf_q_id(2, 0, 1), NULL);
	cr_assert_eq(r.action, LCF_A_QXFER_OK);
	cr_assert_eq(abort_of(2, 0, 1, tag).action, LCF_A_ABORT_HOME,
		     "next holder named by QXFER: SWITCH clear");
}

Test(qwait_retry, write_meeting_readers_is_nacked)
{
	uint64_t tag = tu_tag(2, 1);
	struct lcf_msg m;
	struct lcf_result r;

	tu_add(tag, LCF_GS_SHARED, BIT(2));
	req(LCF_T_READ_MISS, 0, 0, 1, tag);
	cr_assert_eq(req(LCF_T_WRITE_MISS, 1, 0, 1, tag).action,
		     LCF_A_NACK_LOCK_BUSY);
	cr_assert_eq(tu_block(tag).lock, 1, "no WAITING in retry mode");
	cr_assert_eq(tu_count(LCF_A_QWAIT), 0);
	/* Lock kind 2 exists in the queued mode only. */
	m = tu_msg(LCF_T_WRITE_MISS, 1, 0, 1, tag);
	tu_pass(&m, true, 1 | 2u << 16, &r);
	cr_assert_eq(r.drop_reason, LCF_DROP_BAD_RESUBMIT);
}

Test(qwait_retry, abort_after_write_met_readers_goes_home)
{
	uint64_t tag = tu_tag(2, 2);

	tu_add(tag, LCF_GS_SHARED, BIT(2));
	req(LCF_T_READ_MISS, 0, 0, 1, tag);
	req(LCF_T_WRITE_MISS, 1, 0, 1, tag);
	cr_assert_eq(abort_of(1, 0, 1, tag).action, LCF_A_ABORT_HOME);
	cr_assert_eq(tu_count(LCF_A_ABORT_PASSED), 0);
}
