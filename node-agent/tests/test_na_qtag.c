/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The 6-bit tenure tag on forwards (issue 28 item 3; lib/model/qtag.pml;
 * docs/QUEUED-LOCKS.md 5 "A grant for an event that is over"): a forward
 * that outlived its tenure is queued in a later tenure of the same thread
 * and block whose seq has the same low 6 bits, and that tenure is handed to
 * a requester event that is over. That node takes the tenure and releases
 * the block.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "lcf_qlock.h"
#include "na_msg.h"
#include "na_qgrant.h"
#include "na_qtable.h"
#include "qt_test.h"

/* Deliver `m` to `qt` at `now` with fresh output. */
static void
deliver(struct na_qtable *qt, const struct lcf_msg *m, const void *payload,
	uint64_t now)
{
	clear();
	cr_assert_eq(na_qtable_handle(qt, m, payload, now, &out, &loc), 0);
}

/* Node `self`'s thread 0 runs `seq` on TAG, granted by the switch. */
static void
hold(struct na_qtable *qt, uint32_t seq, uint64_t now)
{
	clear();
	cr_assert_eq(na_qtable_request(qt, TAG, 0, seq, now, &out, &loc), 0);
	cr_assert_eq(na_qtable_switch_granted(qt, TAG, 0, seq), 0);
}

/* ... and ends it with QRELEASE, approved. */
static void
release(struct na_qtable *qt, uint16_t self, uint32_t seq, uint64_t now)
{
	struct lcf_msg m;

	clear();
	cr_assert_eq(na_qtable_done(qt, TAG, 0, seq, LCF_GS_MODIFIED,
				    1u << self, now, &out, &loc),
		     0);
	cr_assert_eq(out.m[0].msg.type, LCF_T_QRELEASE);
	m = qt_qack(self, 0, seq, LCF_T_QRELEASE, LCF_Q_OK, 0);
	deliver(qt, &m, NULL, now + 1);
}

/*
 * The sequence. Node 2's s1 holds Y; node 0's s10 is forwarded to
 * it (index 1) and the copy is delayed past node 2's bound: s1 declares
 * it lost and releases; node 0 retransmits, holds Y and releases. 64
 * events later node 2's s65 holds Y (same tag). The late copy is queued
 * in s65's tenure, node 3's real forward with index 1 is a duplicate, and
 * s65 hands over to node 0's s10, which is over. Node 0 takes the tenure
 * and releases Y (before: it only acknowledged, Y stayed locked and node
 * 3 was answered Q_NACK for ever); node 3's retransmission, forwarded to
 * s10's tenure, is queued there and answered Q_NACK once Y is released.
 */
Test(qtag, grant_for_an_event_over_releases_the_block)
{
	struct na_qtable n0, n2;
	uint32_t s1 = lcf_q_id(2, 0, 1), s65 = lcf_q_id(2, 0, 65);
	uint32_t s10 = lcf_q_id(0, 0, 10);
	struct lcf_msg late = qt_forward(LCF_T_WRITE_MISS, TAG, 0, 0, 10, s1,
					 1),
		       m, g;
	uint8_t payload[NA_QFIFO_MAX * NA_QENTRY_WIRE];

	cr_assert_eq(lcf_q_tenure(s1), lcf_q_tenure(s65), "6 bits of seq");
	cr_assert_eq(na_qtable_init(&n0, 0, RTT, home_of, NULL), 0);
	cr_assert_eq(na_qtable_init(&n2, 2, RTT, home_of, NULL), 0);

	/* Node 2's s1: denied count 1 (the copy is late), declared lost. */
	hold(&n2, 1, 0);
	clear();
	cr_assert_eq(na_qtable_done(&n2, TAG, 0, 1, LCF_GS_MODIFIED, 1u << 2, 1,
				    &out, &loc),
		     0);
	m = qt_qack(2, 0, 1, LCF_T_QRELEASE, LCF_Q_COUNT, 1);
	deliver(&n2, &m, NULL, 2);
	clear();
	na_qtable_tick(&n2, 2 + 7 * RTT, &out, &loc);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, LCF_T_QRELEASE);
	cr_assert_eq(out.m[0].msg.aux, 1, "index 1 declared lost");
	m = qt_qack(2, 0, 1, LCF_T_QRELEASE, LCF_Q_OK, 1);
	deliver(&n2, &m, NULL, 100);

	/* Node 0's s10 (retransmitted) holds Y and releases it. */
	hold(&n0, 10, 100);
	release(&n0, 0, 10, 101);

	/* Node 2's s65 holds Y; the late copy, then node 3's forward. */
	hold(&n2, 65, 1000);
	deliver(&n2, &late, NULL, 1001);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_Q_QUEUED, "queued by the tag");
	m = qt_forward(LCF_T_WRITE_MISS, TAG, 3, 0, 7, s65, 1);
	deliver(&n2, &m, NULL, 1002);
	cr_assert_eq(out.n, 0, "index 1 received: dropped");
	clear();
	cr_assert_eq(na_qtable_done(&n2, TAG, 0, 65, LCF_GS_MODIFIED, 1u << 2,
				    1003, &out, &loc),
		     0);
	cr_assert_eq(out.m[0].msg.type, LCF_T_QXFER);
	cr_assert_eq(out.m[0].msg.copyset, s10, "to node 0's s10");
	m = qt_qack(2, 0, 65, LCF_T_QXFER, LCF_Q_OK, 1);
	deliver(&n2, &m, NULL, 1004);
	cr_assert_eq(out.n, 1);
	g = out.m[0].msg;
	cr_assert_eq(g.type, NA_MSG_Q_GRANT);
	cr_assert_eq(g.seq, 10);
	cr_assert_leq(g.len, sizeof(payload));
	memcpy(payload, out.m[0].payload, g.len);

	/* Node 0: s10 is over. The grant is acknowledged and taken; its
	 * QRELEASE carries the grant's metadata. */
	deliver(&n0, &g, payload, 1005);
	cr_assert_eq(loc.n, 0, "nobody waits for it");
	cr_assert_eq(out.n, 2);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_Q_GRANT_ACK);
	cr_assert_eq(out.m[0].dst, 2);
	cr_assert_eq(out.m[1].msg.type, LCF_T_QRELEASE, "the block released");
	cr_assert_eq(out.m[1].msg.seq, 10);
	cr_assert_eq(out.m[1].msg.aux, 0);
	cr_assert_eq(out.m[1].msg.gstatus, LCF_GS_MODIFIED);
	cr_assert_eq(out.m[1].msg.copyset, 1u << 2);
	cr_assert_eq(n0.st.qgrant_over, 1);

	/* Node 3's retransmission meets s10's tenure: queued; the count
	 * denial is met, and the approval answers node 3 Q_NACK. */
	m = qt_forward(LCF_T_WRITE_MISS, TAG, 3, 0, 7, s10, 1);
	deliver(&n0, &m, NULL, 1006);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_Q_QUEUED);
	m = qt_qack(0, 0, 10, LCF_T_QRELEASE, LCF_Q_COUNT, 1);
	deliver(&n0, &m, NULL, 1007);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, LCF_T_QRELEASE);
	cr_assert_eq(out.m[0].msg.aux, 1);
	m = qt_qack(0, 0, 10, LCF_T_QRELEASE, LCF_Q_OK, 1);
	deliver(&n0, &m, NULL, 1008);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_Q_NACK, "node 3 retries now");
	cr_assert_eq(out.m[0].dst, 3);
	cr_assert_eq(out.m[0].msg.seq, 7);
	for (uint32_t i = 0; i < NA_QT_SLOTS; i++)
		cr_assert(!n0.s[i].passing, "the passing slot is free again");

	na_qtable_fini(&n0);
	na_qtable_fini(&n2);
}

/*
 * A duplicate of a Q_GRANT the event took, after its tenure: taken and
 * released too, and the switch denies that QRELEASE not_holder (QSTATE
 * moved on): nothing changes but the granted entries' Q_NACK. While the
 * event holds, a duplicate is not acknowledged (a QRELEASE then could
 * race the tenure's own QXFER).
 */
Test(qtag, duplicate_grant_after_the_tenure_is_denied_harmlessly)
{
	struct na_qtable n1;
	struct na_qg_entry q[1] = {
		{ .node = 2, .thread = 1, .seq = 4, .type = 2, .index = 1 }
	};
	uint8_t buf[64];
	struct lcf_msg g = qgrant(0, 1, 0, 3, q, 1, buf, sizeof(buf)), m;

	cr_assert_eq(na_qtable_init(&n1, 1, RTT, home_of, NULL), 0);
	clear();
	cr_assert_eq(na_qtable_request(&n1, TAG, 0, 3, 0, &out, &loc), 0);
	deliver(&n1, &g, buf, 1);
	cr_assert_eq(loc.n, 1, "granted");
	deliver(&n1, &g, buf, 2);
	cr_assert_eq(out.n, 0, "held: not acknowledged");
	clear();
	cr_assert_eq(na_qtable_done(&n1, TAG, 0, 3, LCF_GS_MODIFIED, 2, 3, &out,
				    &loc),
		     0);
	cr_assert_eq(out.m[0].msg.type, LCF_T_QXFER);
	m = qt_qack(1, 0, 3, LCF_T_QXFER, LCF_Q_OK, 0);
	deliver(&n1, &m, NULL, 4);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_Q_GRANT, "to node 2");
	m = (struct lcf_msg){ .version = LCF_VERSION,
			      .type = NA_MSG_Q_GRANT_ACK,
			      .node = 2,
			      .thread = 1,
			      .seq = 4,
			      .tag = TAG };
	deliver(&n1, &m, NULL, 5);

	deliver(&n1, &g, buf, 6);
	cr_assert_eq(out.n, 2);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_Q_GRANT_ACK);
	cr_assert_eq(out.m[1].msg.type, LCF_T_QRELEASE, "never a QXFER");
	m = qt_qack(1, 0, 3, LCF_T_QRELEASE, LCF_Q_NOT_HOLDER, 0);
	deliver(&n1, &m, NULL, 7);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_Q_NACK, "no Q_GRANT to node 2");
	cr_assert_eq(out.m[0].dst, 2);
	na_qtable_fini(&n1);
}

/* A Q_GRANT for a given-up seq older than the slot's last NA_QT_GONE
 * records (no passing slot remembers it) is an event that is over too:
 * taken and released, not dropped with the lock stranded. */
Test(qtag, grant_for_a_forgotten_given_up_seq_is_released)
{
	struct na_qtable n1;
	uint8_t buf[16];
	struct lcf_msg g = qgrant(0, 1, 0, 1, NULL, 0, buf, sizeof(buf));

	cr_assert_eq(na_qtable_init(&n1, 1, RTT, home_of, NULL), 0);
	clear();
	for (uint32_t seq = 1; seq <= NA_QT_GONE + 2; seq++) {
		cr_assert_eq(na_qtable_request(&n1, TAG, 0, seq, seq, &out,
					       &loc),
			     0);
		na_qtable_abandon(&n1, TAG, 0, seq, seq, &out, &loc);
	}
	cr_assert_eq(out.n, 0);
	deliver(&n1, &g, buf, 100);
	cr_assert_eq(out.n, 2);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_Q_GRANT_ACK);
	cr_assert_eq(out.m[1].msg.type, LCF_T_QRELEASE);
	cr_assert_eq(out.m[1].msg.seq, 1);
	cr_assert_eq(n1.st.qgrant_over, 1);
	na_qtable_fini(&n1);
}
