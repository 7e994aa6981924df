/* SPDX-License-Identifier: BSD-3-Clause
 *
 * QRELEASE's gate, queued mode (docs/QUEUED-LOCKS.md 2, PROTOCOL.md "Queued
 * locks"; model lib/model/qalias.pml, TOKEN + WIN): one execution per
 * opening of QGATE, for the tenure that approved it, and no execution of a
 * copy 2^15 or more seqs before its requester's SCOREBOARD entry. Both
 * sequences gave a second writer at the switch: a pending second pass of one
 * copy ran after a third copy reopened the gate, and a copy 2^16 seqs old
 * matched the queue holder id (16 bits of the seq) of a later tenure.
 * Topology pcap3q: nodes 0, 1, 2; blocks on home node 2.
 */
#include <criterion/criterion.h>

#include "lcf_qlock.h"
#include "lcf_test_util.h"

static void
setup_q(void)
{
	tu_setup("pcap3q.json");
}

TestSuite(qgate, .init = setup_q, .fini = tu_teardown);

static uint32_t
reason(const struct lcf_result *r)
{
	return (r->out.aux >> 16) & 0xff;
}

/* Node `node`'s WRITE_MISS `seq` takes the free block's write lock. */
static void
hold(uint16_t node, uint32_t seq, uint64_t tag)
{
	struct lcf_msg m = tu_msg(LCF_T_WRITE_MISS, node, 0, seq, tag);
	struct lcf_result r;

	tu_send(&m, &r, NULL);
	cr_assert(r.action == LCF_A_FWD_HOME || r.action == LCF_A_FWD_OWNER,
		  "node %u seq %u granted (action %d)", node, seq, r.action);
	cr_assert_eq(tu_block(tag).lock, LCF_LOCK_WRITER);
	cr_assert_eq(tu_block(tag).qholder, lcf_q_id(node, 0, seq));
}

static struct lcf_msg
qrel_msg(uint16_t node, uint32_t seq, uint64_t tag)
{
	struct lcf_msg m = tu_msg(LCF_T_QRELEASE, node, 0, seq, tag);

	/* the block back at home: the same node may write it again */
	m.gstatus = LCF_GS_UNSHARED;
	m.copyset = 0;
	return m;
}

/* Node 0 holds `tag` under s1 and two copies of its QRELEASE pass their
 * first pass; the first copy's second pass executes (the lock is free). */
static void
two_copies_one_executed(uint64_t tag, const struct lcf_msg *m,
			struct lcf_result *a, struct lcf_result *b)
{
	tu_add(tag, LCF_GS_UNSHARED, 0);
	hold(0, 1, tag);
	tu_pass(m, false, 0, a);
	tu_pass(m, false, 0, b);
	cr_assert_eq(a->verdict, LCF_V_RESUBMIT);
	cr_assert_eq(b->verdict, LCF_V_RESUBMIT);
	tu_pass(m, true, a->resubmit_meta, a);
	cr_assert_eq(a->action, LCF_A_QRELEASE_EXEC);
	cr_assert_eq(tu_block(tag).lock, 0);
}

/* Three copies of node 0's QRELEASE s1: the first two pass their first
 * pass, one executes, node 1 takes the lock, the third (denied) reopens
 * the gate; the second copy's pending second pass must not release node
 * 1's lock. */
Test(qgate, triple_copy_never_releases_the_next_holder)
{
	uint64_t tag = tu_tag(2, 3);
	struct lcf_msg m = qrel_msg(0, 1, tag);
	struct lcf_result a, b, c;

	two_copies_one_executed(tag, &m, &a, &b);
	hold(1, 1, tag);
	tu_pass(&m, false, 0, &c); /* the third copy: denied, one pass */
	cr_assert_eq(c.verdict, LCF_V_EMIT);
	cr_assert_eq(reason(&c), LCF_Q_NOT_HOLDER);
	tu_pass(&m, true, b.resubmit_meta, &b);
	cr_assert_eq(b.action, LCF_A_QRELEASE_DUP);
	cr_assert_eq(reason(&b), LCF_Q_OK);
	cr_assert_eq(tu_block(tag).lock, LCF_LOCK_WRITER, "node 1's lock kept");
	cr_assert_eq(tu_block(tag).qholder, lcf_q_id(1, 0, 1));
	/* Node 1's own QRELEASE still executes. */
	m = qrel_msg(1, 1, tag);
	tu_send(&m, &b, NULL);
	cr_assert_eq(b.action, LCF_A_QRELEASE_EXEC);
	cr_assert_eq(tu_block(tag).lock, 0);
}

/* The same with the third copy's first pass between the two second passes
 * of the first two (no other holder): one execution, the lock free. */
Test(qgate, reopened_gate_executes_once)
{
	uint64_t tag = tu_tag(2, 4);
	struct lcf_msg m = qrel_msg(0, 1, tag);
	struct lcf_result a, b, c;

	two_copies_one_executed(tag, &m, &a, &b);
	tu_pass(&m, false, 0, &c);
	cr_assert_eq(reason(&c), LCF_Q_NOT_HOLDER);
	tu_pass(&m, true, b.resubmit_meta, &b);
	cr_assert_eq(b.action, LCF_A_QRELEASE_DUP);
	cr_assert_eq(tu_block(tag).lock, 0);
	cr_assert_eq(tu_block(tag).qholder, 0);
}

/* Node 0's QRELEASE s1 executes; s65537 (the same 16-bit id) holds the
 * block; a delayed copy of QRELEASE s1 is stale (answered approved, one
 * pass, nothing changed) and s65537's own QRELEASE executes. */
Test(qgate, copy_2p16_seqs_old_is_stale)
{
	uint64_t tag = tu_tag(2, 5);
	struct lcf_msg old = qrel_msg(0, 1, tag), m;
	struct lcf_result r;
	int passes;

	cr_assert_eq(lcf_q_id(0, 0, 1), lcf_q_id(0, 0, 65537));
	tu_add(tag, LCF_GS_UNSHARED, 0);
	hold(0, 1, tag);
	tu_send(&old, &r, NULL);
	cr_assert_eq(r.action, LCF_A_QRELEASE_EXEC);
	hold(0, 65537, tag);
	tu_send(&old, &r, &passes); /* the delayed copy */
	cr_assert_eq(passes, 1);
	cr_assert_eq(r.action, LCF_A_QRELEASE_DUP);
	cr_assert_eq(reason(&r), LCF_Q_OK);
	cr_assert_eq(tu_block(tag).lock, LCF_LOCK_WRITER);
	cr_assert_eq(tu_block(tag).qholder, lcf_q_id(0, 0, 65537));
	cr_assert_eq(tu_block(tag).fwd_cnt, 0, "not CLOSING");
	m = qrel_msg(0, 65537, tag);
	tu_send(&m, &r, &passes);
	cr_assert_eq(passes, 2);
	cr_assert_eq(r.action, LCF_A_QRELEASE_EXEC);
	cr_assert_eq(tu_block(tag).lock, 0);
	cr_assert_eq(tu_block(tag).qholder, 0);
}

/* The staleness window: 2^15 - 1 seqs back still executes (a given-up
 * tenure ended after later seqs), 2^15 back is stale. */
Test(qgate, stale_window_is_2p15)
{
	uint64_t y = tu_tag(2, 6), z = tu_tag(2, 7);
	struct lcf_msg m;
	struct lcf_result r;

	tu_add(y, LCF_GS_UNSHARED, 0);
	tu_add(z, LCF_GS_UNSHARED, 0);
	hold(0, 1, y);
	hold(0, 3, z);
	/* Later seqs of the same parity move SCOREBOARD on. */
	m = tu_msg(LCF_T_WRITE_UNLOCK, 0, 0, 0x8001, tu_tag(2, 8));
	tu_send(&m, &r, NULL);
	cr_assert_eq(tu_requester(0, 0).sb_seq[1], 0x8001);
	m = qrel_msg(0, 3, z); /* 0x7ffe back: executes */
	tu_send(&m, &r, NULL);
	cr_assert_eq(r.action, LCF_A_QRELEASE_EXEC);
	cr_assert_eq(tu_block(z).lock, 0);
	m = qrel_msg(0, 1, y); /* 0x8000 back: stale, Y stays held */
	tu_send(&m, &r, NULL);
	cr_assert_eq(r.action, LCF_A_QRELEASE_DUP);
	cr_assert_eq(tu_block(y).lock, LCF_LOCK_WRITER);
}
