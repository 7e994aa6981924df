/* SPDX-License-Identifier: BSD-3-Clause
 *
 * A node's queue holders after a fault (na_qtable_recovered,
 * na_qtable_node_failed; docs/FAULTS.md, lib/model/qfault.pml): the rows
 * of a recovery round's blocks are freed, and nothing is handed to or
 * queued for a dead node. Without them (today's qfault-*-old runs): a kept
 * row blocks its thread for ever (na-sim --seed 24 with a switch restart)
 * and a GIVING row re-sends its Q_GRANT to the dead node for ever.
 */
#include <errno.h>

#include <criterion/criterion.h>

#include "lcf_qlock.h"
#include "na_msg.h"
#include "na_qtable.h"
#include "qt_test.h"

#define OTHER 0x80ull

static struct na_qtable qt;

static void
setup(uint16_t self)
{
	cr_assert_eq(na_qtable_init(&qt, self, RTT, home_of, NULL), 0);
	na_out_reset(&out);
	loc.n = 0;
}

static uint32_t
count_type(uint8_t type)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < out.n; i++)
		n += out.m[i].msg.type == type;
	return n;
}

/*
 * na-sim --seed 24 --lock-mode queued --switch-restart-at 10000ev: node 1's
 * seq 28 waits; a copy of it held the lock in the old switch, so another
 * node's request was forwarded to its tenure; the round aborts the event
 * (no quarantine, no Q_GRANT will come). The thread's next event found
 * the kept row busy for ever; the round frees it.
 */
Test(qreset, round_frees_a_kept_row)
{
	struct lcf_msg m;
	uint64_t tags[1] = { TAG };

	setup(1);
	cr_assert_eq(na_qtable_request(&qt, TAG, 0, 28, 0, &out, &loc), 0);
	m = qt_forward(LCF_T_WRITE_MISS, TAG, 2, 0, 9, lcf_q_id(1, 0, 28), 1);
	na_qtable_handle(&qt, &m, NULL, 1, &out, &loc);
	na_qtable_abandon(&qt, TAG, 0, 28, 2, &out, &loc);
	cr_assert_eq(na_qtable_request(&qt, TAG, 0, 29, 3, &out, &loc), -EBUSY,
		     "kept: waits for a Q_GRANT");
	cr_assert_eq(na_qtable_recovered(&qt, tags, 1, &loc), 0);
	cr_assert_eq(qt.st.fault_resets, 1);
	cr_assert_eq(loc.n, 0, "nothing to acknowledge: it was waiting");
	cr_assert_eq(na_qtable_request(&qt, TAG, 0, 29, 4, &out, &loc), 0);
	na_qtable_fini(&qt);
}

/* An ending row (QXFER sent) of a round's block: its unlock is
 * acknowledged to the thread, the slot freed; late answers change
 * nothing; rows of other blocks stay. */
Test(qreset, round_acknowledges_an_ending_row)
{
	struct lcf_msg m;
	uint64_t tags[1] = { TAG };

	setup(0);
	na_qtable_request(&qt, TAG, 1, 5, 0, &out, &loc);
	na_qtable_switch_granted(&qt, TAG, 1, 5);
	na_qtable_request(&qt, OTHER, 0, 3, 0, &out, &loc);
	m = qt_forward(LCF_T_WRITE_MISS, TAG, 2, 0, 7, lcf_q_id(0, 1, 5), 1);
	na_qtable_handle(&qt, &m, NULL, 1, &out, &loc);
	na_qtable_done(&qt, TAG, 1, 5, LCF_GS_MODIFIED, 1, 2, &out, &loc);
	cr_assert_eq(count_type(LCF_T_QXFER), 1);
	clear();
	cr_assert_eq(na_qtable_recovered(&qt, tags, 1, &loc), 0);
	cr_assert_eq(loc.n, 1);
	cr_assert_eq(loc.l[0].thread, 1);
	cr_assert_eq(loc.l[0].m.type, LCF_T_UNLOCK_ACK);
	cr_assert_eq(loc.l[0].m.seq, 5);
	clear();
	na_qtable_tick(&qt, 1000000000ull, &out, &loc);
	cr_assert_eq(out.n + loc.n, 0, "no QXFER retransmission");
	m = qt_qack(0, 1, 5, LCF_T_QXFER, LCF_Q_NOT_HOLDER, 0);
	na_qtable_handle(&qt, &m, NULL, 3, &out, &loc);
	cr_assert_eq(count_type(NA_MSG_Q_GRANT), 0,
		     "no Q_GRANT of the ended tenure");
	cr_assert_eq(na_qtable_request(&qt, OTHER, 0, 3, 4, &out, &loc), 0,
		     "the other block's row is still waiting");
	cr_assert_eq(na_qtable_request(&qt, TAG, 1, 6, 5, &out, &loc), 0);
	na_qtable_fini(&qt);
}

/* The hand-over to a dead node's event ends: no Q_GRANT re-sent for ever
 * (na-sim --fault crash, the queued stalls). */
Test(qreset, no_hand_over_to_a_dead_node)
{
	struct lcf_msg m;

	setup(0);
	na_qtable_request(&qt, TAG, 0, 5, 0, &out, &loc);
	na_qtable_switch_granted(&qt, TAG, 0, 5);
	m = qt_forward(LCF_T_WRITE_MISS, TAG, 2, 0, 7, lcf_q_id(0, 0, 5), 1);
	na_qtable_handle(&qt, &m, NULL, 1, &out, &loc);
	na_qtable_done(&qt, TAG, 0, 5, LCF_GS_MODIFIED, 1, 2, &out, &loc);
	m = qt_qack(0, 0, 5, LCF_T_QXFER, LCF_Q_OK, 1);
	na_qtable_handle(&qt, &m, NULL, 3, &out, &loc);
	cr_assert_eq(count_type(NA_MSG_Q_GRANT), 1, "GIVING to node 2");
	clear();
	cr_assert_eq(na_qtable_request(&qt, TAG, 0, 6, 4, &out, &loc), -EBUSY);
	cr_assert_eq(na_qtable_node_failed(&qt, 2, &loc), 0);
	cr_assert_eq(qt.st.dead_dropped, 1);
	na_qtable_tick(&qt, 1000000000ull, &out, &loc);
	cr_assert_eq(count_type(NA_MSG_Q_GRANT), 0, "not re-sent");
	cr_assert_eq(na_qtable_request(&qt, TAG, 0, 6, 5, &out, &loc), 0);
	cr_assert_eq(na_qtable_node_failed(&qt, 0, &loc), -EINVAL, "self");
	na_qtable_fini(&qt);
}

/* A dead node's entries leave the queue; an approval naming it (the QXFER
 * left before it died) hands nothing over. */
Test(qreset, dead_node_leaves_the_queue)
{
	struct lcf_msg m;

	setup(0);
	na_qtable_request(&qt, TAG, 0, 5, 0, &out, &loc);
	na_qtable_switch_granted(&qt, TAG, 0, 5);
	m = qt_forward(LCF_T_WRITE_MISS, TAG, 2, 0, 7, lcf_q_id(0, 0, 5), 1);
	na_qtable_handle(&qt, &m, NULL, 1, &out, &loc);
	m = qt_forward(LCF_T_WRITE_MISS, TAG, 1, 0, 4, lcf_q_id(0, 0, 5), 2);
	na_qtable_handle(&qt, &m, NULL, 1, &out, &loc);
	na_qtable_node_failed(&qt, 2, &loc);
	clear();
	na_qtable_done(&qt, TAG, 0, 5, LCF_GS_MODIFIED, 1, 2, &out, &loc);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, LCF_T_QXFER);
	cr_assert_eq(out.m[0].msg.aux, 2, "both indices counted");
	cr_assert_eq(out.m[0].msg.copyset, lcf_q_id(1, 0, 4), "node 1 next");

	/* Node 1 dies too, after the QXFER naming it left: approved, the
	 * tenure is not handed to it. */
	cr_assert_eq(na_qtable_node_failed(&qt, 1, &loc), 0);
	clear();
	m = qt_qack(0, 0, 5, LCF_T_QXFER, LCF_Q_OK, 2);
	na_qtable_handle(&qt, &m, NULL, 3, &out, &loc);
	cr_assert_eq(count_type(NA_MSG_Q_GRANT), 0);
	cr_assert_eq(loc.n, 1, "the unlock acknowledged");
	cr_assert_eq(loc.l[0].m.type, LCF_T_UNLOCK_ACK);
	cr_assert_eq(na_qtable_request(&qt, TAG, 0, 6, 4, &out, &loc), 0);
	na_qtable_fini(&qt);
}

/*
 * Node 2 died and was re-admitted (a new incarnation): its new event's
 * forward, queued here, is handed the tenure and its Q_GRANT goes. Kept
 * dead, the approved hand-over sent nothing and the event waited for ever
 * (na-sim --fault restart --seed 70 run 17; lib/model/qrejoin.pml).
 */
Test(qreset, rejoined_node_is_handed_the_tenure)
{
	struct lcf_msg m;

	setup(0);
	cr_assert_eq(na_qtable_node_failed(&qt, 2, &loc), 0);
	na_qtable_node_rejoined(&qt, 2);
	na_qtable_request(&qt, TAG, 0, 5, 0, &out, &loc);
	na_qtable_switch_granted(&qt, TAG, 0, 5);
	m = qt_forward(LCF_T_WRITE_MISS, TAG, 2, 0, 1, lcf_q_id(0, 0, 5), 1);
	na_qtable_handle(&qt, &m, NULL, 1, &out, &loc);
	na_qtable_done(&qt, TAG, 0, 5, LCF_GS_MODIFIED, 1, 2, &out, &loc);
	cr_assert_eq(count_type(LCF_T_QXFER), 1, "node 2's event is next");
	clear();
	m = qt_qack(0, 0, 5, LCF_T_QXFER, LCF_Q_OK, 1);
	na_qtable_handle(&qt, &m, NULL, 3, &out, &loc);
	cr_assert_eq(count_type(NA_MSG_Q_GRANT), 1, "handed to node 2");
	cr_assert_eq(qt.st.dead_dropped, 0);
	na_qtable_fini(&qt);
}

/* The block's home died: its rows go, an ending one acknowledged. */
Test(qreset, dead_home_frees_its_rows)
{
	setup(0);
	na_qtable_request(&qt, TAG, 0, 5, 0, &out, &loc);
	na_qtable_switch_granted(&qt, TAG, 0, 5);
	na_qtable_done(&qt, TAG, 0, 5, LCF_GS_MODIFIED, 1, 2, &out, &loc);
	cr_assert_eq(count_type(LCF_T_QRELEASE), 1);
	clear();
	cr_assert_eq(na_qtable_node_failed(&qt, HOME, &loc), 0);
	cr_assert_eq(loc.n, 1);
	cr_assert_eq(loc.l[0].m.type, LCF_T_UNLOCK_ACK);
	cr_assert_eq(qt.st.fault_resets, 1);
	na_qtable_tick(&qt, 1000000000ull, &out, &loc);
	cr_assert_eq(count_type(LCF_T_QRELEASE), 0, "not re-sent to the dead");
	na_qtable_fini(&qt);
}
