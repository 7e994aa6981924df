/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Queued lock mode: a given-up event's tenure ends out of its thread's
 * unlock order (docs/MODEL.md qorder.pml; PROTOCOL.md "Queued locks").
 * Node 0's thread gives seq 5 on Y up while its copy is queued or waits;
 * the thread goes on with seq 6 on X, whose unlock executes first. QXFER /
 * QRELEASE end the event in SCOREBOARD (not LAST-UNLOCK), QRELEASE's second
 * pass is gated by its own register, and a stale copy that is the waiting
 * writer's poll is still answered. Topology pcap3q: nodes 0, 1, 2; blocks on
 * home node 2.
 */
#include <criterion/criterion.h>

#include "lcf_qlock.h"
#include "lcf_test_util.h"

static void
setup_q(void)
{
	tu_setup("pcap3q.json");
}

TestSuite(qorder, .init = setup_q, .fini = tu_teardown);

static struct lcf_result
send(uint8_t type, uint16_t node, uint32_t seq, uint64_t tag, uint32_t aux,
     uint8_t gs, uint32_t cs)
{
	struct lcf_msg m = tu_msg(type, node, 0, seq, tag);
	struct lcf_result r;

	m.aux = aux;
	m.gstatus = gs;
	m.copyset = cs;
	tu_send(&m, &r, NULL);
	return r;
}

#define REQ(t, n, s, tag) send(t, n, s, tag, 0, 0, 0)

static uint32_t
reason(const struct lcf_result *r)
{
	return (r->out.aux >> 16) & 0xff;
}

/* Node 0's seq on X (Shared at node 2): read, then its unlock executes. */
static void
read_x(uint64_t x, uint32_t seq)
{
	cr_assert_eq(REQ(LCF_T_READ_MISS, 0, seq, x).action,
		     LCF_A_FWD_PROVIDER);
	cr_assert_eq(send(LCF_T_READ_UNLOCK, 0, seq, x, 0, LCF_GS_SHARED,
			  BIT(0) | BIT(2))
			     .action,
		     LCF_A_UNLOCK_EXEC);
	cr_assert_eq(tu_block(x).lock, 0);
}

/* Node 2 (seq 1) holds Y; node 0's write seq 5 is forwarded to it and
 * given up: the ABORT finds no copy holding (on to the home). */
static void
queued_then_given_up(uint64_t x, uint64_t y)
{
	tu_add(x, LCF_GS_SHARED, BIT(2));
	tu_add(y, LCF_GS_UNSHARED, 0);
	cr_assert_eq(REQ(LCF_T_WRITE_MISS, 2, 1, y).action, LCF_A_FWD_HOME);
	cr_assert_eq(REQ(LCF_T_WRITE_MISS, 0, 5, y).action, LCF_A_FWD_HOLDER);
	cr_assert_eq(REQ(LCF_T_ABORT, 0, 5, y).action, LCF_A_ABORT_HOME);
}

/* Node 2 hands over to seq 5, whose node passes the tenure on at once. */
static void
handed_over_and_released(uint64_t y)
{
	struct lcf_result r;

	r = send(LCF_T_QXFER, 2, 1, y, 1, 0, lcf_q_id(0, 0, 5));
	cr_assert_eq(r.action, LCF_A_QXFER_OK);
	r = send(LCF_T_QRELEASE, 0, 5, y, 0, LCF_GS_UNSHARED, 0);
	cr_assert_eq(r.action, LCF_A_QRELEASE_EXEC);
	cr_assert_eq(reason(&r), LCF_Q_OK);
	cr_assert_eq(tu_block(y).lock, 0, "released");
	cr_assert_eq(tu_block(y).qholder, 0);
	cr_assert_eq(tu_block(y).fwd_cnt, 0);
	/* the next writer takes it */
	cr_assert_eq(REQ(LCF_T_WRITE_MISS, 1, 1, y).action, LCF_A_FWD_HOME);
}

/* Issue 28 1(a): seq 6's unlock executes before the given-up tenure ends. */
Test(qorder, given_up_tenure_ends_after_a_later_unlock)
{
	uint64_t x = tu_tag(2, 1), y = tu_tag(2, 2);

	queued_then_given_up(x, y);
	read_x(x, 6);
	handed_over_and_released(y);
}

/* 1(c): seq 4's read unlock on X is lost; the given-up seq 5's tenure
 * ends; the retransmitted unlock still executes. */
Test(qorder, earlier_unlock_after_a_given_up_tenure_executes)
{
	uint64_t x = tu_tag(2, 1), y = tu_tag(2, 2);
	struct lcf_result r;

	queued_then_given_up(x, y);
	cr_assert_eq(REQ(LCF_T_READ_MISS, 0, 4, x).action, LCF_A_FWD_PROVIDER);
	handed_over_and_released(y);
	r = send(LCF_T_READ_UNLOCK, 0, 4, x, 0, LCF_GS_SHARED, BIT(0) | BIT(2));
	cr_assert_eq(r.action, LCF_A_UNLOCK_EXEC);
	cr_assert_eq(tu_block(x).lock, 0, "the reader is gone");
}

/* Node 1 reads Y; node 0's write seq 5 waits (QWAIT) and is given up: the
 * ABORT answers "a copy passed". */
static void
waiting_then_given_up(uint64_t x, uint64_t y)
{
	tu_add(x, LCF_GS_SHARED, BIT(2));
	tu_add(y, LCF_GS_SHARED, BIT(2));
	cr_assert_eq(REQ(LCF_T_READ_MISS, 1, 1, y).action, LCF_A_FWD_PROVIDER);
	cr_assert_eq(REQ(LCF_T_WRITE_MISS, 0, 5, y).action, LCF_A_QWAIT);
	cr_assert_eq(REQ(LCF_T_ABORT, 0, 5, y).action, LCF_A_ABORT_PASSED);
}

static void
reader_leaves(uint64_t y)
{
	cr_assert_eq(send(LCF_T_READ_UNLOCK, 1, 1, y, 0, LCF_GS_SHARED,
			  BIT(1) | BIT(2))
			     .action,
		     LCF_A_UNLOCK_EXEC);
	cr_assert_eq(tu_block(y).lock, LCF_LOCK_WAITING);
}

static void
waiter_releases(uint64_t y)
{
	struct lcf_result r;

	r = send(LCF_T_QRELEASE, 0, 5, y, 0, LCF_GS_MODIFIED, BIT(0));
	cr_assert_eq(r.action, LCF_A_QRELEASE_EXEC);
	cr_assert_eq(tu_block(y).lock, 0);
	cr_assert_eq(tu_block(y).qholder, 0);
	cr_assert_eq(REQ(LCF_T_WRITE_MISS, 1, 2, y).action, LCF_A_FWD_OWNER);
}

/* 1(b): seq 6 unlocked before the reader leaves: the poll of seq 5 is
 * stale by LAST-UNLOCK but is the waiting writer's: QGRANT. */
Test(qorder, given_up_waiter_polls_after_a_later_unlock)
{
	uint64_t x = tu_tag(2, 1), y = tu_tag(2, 2);
	struct lcf_result r;

	waiting_then_given_up(x, y);
	read_x(x, 6);
	r = REQ(LCF_T_WRITE_MISS, 0, 5, y);
	cr_assert_eq(r.action, LCF_A_QWAIT, "readers still hold");
	reader_leaves(y);
	r = REQ(LCF_T_WRITE_MISS, 0, 5, y);
	cr_assert_eq(r.action, LCF_A_QGRANT);
	cr_assert_eq(r.out.type, LCF_T_QGRANT);
	cr_assert_eq(r.to_nodes, BIT(0));
	waiter_releases(y);
	/* a stale copy that is no poll is still NACKed */
	cr_assert_eq(REQ(LCF_T_WRITE_MISS, 0, 5, y).action, LCF_A_NACK_STALE);
}

/* 1(b), the QGRANT first: seq 6's unlock comes before the QRELEASE. */
Test(qorder, given_up_waiter_released_after_a_later_unlock)
{
	uint64_t x = tu_tag(2, 1), y = tu_tag(2, 2);

	waiting_then_given_up(x, y);
	reader_leaves(y);
	cr_assert_eq(REQ(LCF_T_WRITE_MISS, 0, 5, y).action, LCF_A_QGRANT);
	read_x(x, 6);
	waiter_releases(y);
}

/* Two QRELEASEs of one thread between their passes: the gate lets the
 * later one execute and answers the other "closing"; it is sent again. */
Test(qorder, interleaved_qreleases_of_one_thread)
{
	uint64_t y = tu_tag(2, 2), z = tu_tag(2, 3);
	struct lcf_msg a = tu_msg(LCF_T_QRELEASE, 0, 0, 5, y);
	struct lcf_msg b = tu_msg(LCF_T_QRELEASE, 0, 0, 7, z);
	struct lcf_result ra, rb, r;

	tu_add(y, LCF_GS_UNSHARED, 0);
	tu_add(z, LCF_GS_UNSHARED, 0);
	cr_assert_eq(REQ(LCF_T_WRITE_MISS, 0, 5, y).action, LCF_A_FWD_HOME);
	cr_assert_eq(REQ(LCF_T_WRITE_MISS, 0, 7, z).action, LCF_A_FWD_HOME);
	tu_pass(&a, false, 0, &ra);
	cr_assert_eq(ra.verdict, LCF_V_RESUBMIT);
	tu_pass(&b, false, 0, &rb);
	cr_assert_eq(rb.verdict, LCF_V_RESUBMIT);
	tu_pass(&a, true, ra.resubmit_meta, &r);
	cr_assert_eq(r.action, LCF_A_QXFER_DENIED);
	cr_assert_eq(reason(&r), LCF_Q_IS_CLOSING);
	cr_assert_eq(r.out.flags, LCF_F_IN_SWITCH | LCF_F_FAIL);
	cr_assert_eq(tu_block(y).lock, LCF_LOCK_WRITER, "not released");
	cr_assert_eq(tu_block(y).fwd_cnt, LCF_Q_CLOSING);
	tu_pass(&b, true, rb.resubmit_meta, &r);
	cr_assert_eq(r.action, LCF_A_QRELEASE_EXEC);
	cr_assert_eq(tu_block(z).lock, 0);
	r = send(LCF_T_QRELEASE, 0, 5, y, 0, LCF_GS_UNSHARED, 0);
	cr_assert_eq(r.action, LCF_A_QRELEASE_EXEC);
	cr_assert_eq(tu_block(y).lock, 0);
	cr_assert_eq(tu_block(y).qholder, 0);
	/* a late duplicate: answered approved, releases nothing */
	cr_assert_eq(REQ(LCF_T_WRITE_MISS, 1, 1, y).action, LCF_A_FWD_HOME);
	r = send(LCF_T_QRELEASE, 0, 5, y, 0, LCF_GS_UNSHARED, 0);
	cr_assert_eq(reason(&r), LCF_Q_NOT_HOLDER);
	cr_assert_eq(tu_block(y).lock, LCF_LOCK_WRITER, "node 1's");
}
