/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The seq-bound SCOREBOARD (docs/PROTOCOL.md 4.2, 4.3, 4.9): the sequences
 * in which the parity-keyed scoreboard let two writers hold one block, let
 * a lost second pass leak a lock, or released a reader twice. Each test
 * drives the passes by hand in the order swswitch runs them (a resubmitted
 * pass after the rest of the burst). The same sequences are the model's
 * counterexamples (docs/MODEL.md) and pcap vectors 070-072.
 * Topology pcap3: nodes 0, 1, 2; 16 threads per node; 2 ways.
 */
#include <criterion/criterion.h>

#include "lcf_test_util.h"

static void
setup(void)
{
	tu_setup("pcap3.json");
}

TestSuite(scoreboard, .init = setup, .fini = tu_teardown);

/* First pass of a message from node/thread; returns the result. */
static struct lcf_result
first(uint8_t type, uint16_t node, uint16_t thread, uint32_t seq, uint64_t tag)
{
	struct lcf_msg m = tu_msg(type, node, thread, seq, tag);
	struct lcf_result r;

	tu_pass(&m, false, 0, &r);
	return r;
}

/* The second pass of a first pass `r1` of the same message. */
static struct lcf_result
second(uint8_t type, uint16_t node, uint16_t thread, uint32_t seq, uint64_t tag,
       const struct lcf_result *r1)
{
	struct lcf_msg m = tu_msg(type, node, thread, seq, tag);
	struct lcf_result r;

	cr_assert_eq(r1->verdict, LCF_V_RESUBMIT);
	m.gstatus = r1->out.gstatus;
	m.copyset = r1->out.copyset;
	tu_pass(&m, true, r1->resubmit_meta, &r);
	return r;
}

/*
 * The two-writer sequence. Home 1 owns X and Y, both in the switch. Node 2
 * write-locks Y. Node 0 aborts its NACKed READ_MISS seq 10 on X; a late
 * copy of it takes X's read lock and waits for its RELEASE pass; in the
 * same burst node 0's next even event, seq 12, a WRITE_MISS on Y, fails to
 * take Y's lock. On the parity-keyed scoreboard the late copy's score let
 * seq 12 through: two writers on Y.
 */
Test(scoreboard, late_copy_of_aborted_event_lets_no_other_event_pass)
{
	uint64_t x = tu_tag(1, 1), y = tu_tag(1, 2);
	struct lcf_result r, rel;

	tu_add(x, LCF_GS_UNSHARED, 0);
	tu_add(y, LCF_GS_UNSHARED, 0);
	r = first(LCF_T_WRITE_MISS, 2, 0, 1, y);
	cr_assert_eq(r.action, LCF_A_FWD_HOME, "node 2 holds Y");
	r = first(LCF_T_WRITE_MISS, 1, 0, 1, x);
	cr_assert_eq(r.action, LCF_A_FWD_HOME, "node 1 holds X");
	r = first(LCF_T_READ_MISS, 0, 0, 10, x);
	cr_assert_eq(r.action, LCF_A_NACK_LOCK_BUSY);
	r = first(LCF_T_ABORT, 0, 0, 10, x);
	cr_assert_eq(r.action, LCF_A_ABORT_HOME);
	r = first(LCF_T_WRITE_UNLOCK, 1, 0, 1, x);
	cr_assert_eq(second(LCF_T_WRITE_UNLOCK, 1, 0, 1, x, &r).action,
		     LCF_A_UNLOCK_EXEC, "X is free again");

	/* the burst: the late copy of seq 10, then seq 12 */
	rel = first(LCF_T_READ_MISS, 0, 0, 10, x);
	cr_assert_eq(rel.verdict, LCF_V_RESUBMIT, "took X's lock, over");
	cr_assert_eq(tu_block(x).lock, 1);
	r = first(LCF_T_WRITE_MISS, 0, 0, 12, y);
	cr_assert_eq(r.action, LCF_A_NACK_LOCK_BUSY,
		     "no pass on seq 10's lock");
	cr_assert_eq(tu_block(y).lock, LCF_LOCK_WRITER, "node 2's lock only");
	/* after the burst: the RELEASE */
	r = second(LCF_T_READ_MISS, 0, 0, 10, x, &rel);
	cr_assert_eq(r.action, LCF_A_NACK_CHECK_FAIL);
	cr_assert_eq(tu_block(x).lock, 0);
	cr_assert_eq(tu_count(LCF_A_FWD_HOME), 2, "only nodes 1 and 2");
}

/* The same, with the seq-12 copy after the RELEASE: still NACKed. */
Test(scoreboard, score_of_an_old_event_is_never_a_new_events)
{
	uint64_t x = tu_tag(1, 1), y = tu_tag(1, 2);
	struct lcf_result r;

	tu_add(x, LCF_GS_UNSHARED, 0);
	tu_add(y, LCF_GS_UNSHARED, 0);
	/* node 0's event 10 holds X (counted) ... */
	cr_assert_eq(first(LCF_T_READ_MISS, 0, 0, 10, x).action,
		     LCF_A_FWD_HOME);
	cr_assert_eq(tu_requester(0, 0).score_even, 1);
	/* ... node 2 holds Y; node 0's event 12 (same parity) is refused */
	cr_assert_eq(first(LCF_T_WRITE_MISS, 2, 0, 1, y).action,
		     LCF_A_FWD_HOME);
	r = first(LCF_T_WRITE_MISS, 0, 0, 12, y);
	cr_assert_eq(r.action, LCF_A_NACK_LOCK_BUSY);
	cr_assert_eq(tu_requester(0, 0).sb_seq[0], 10, "entry unchanged");
	cr_assert_eq(tu_requester(0, 0).score_even, 1);
}

/*
 * An unlock whose second pass is lost (a dropped resubmit, or metadata
 * rejected) is executed by its retransmission: the first pass only opens
 * LAST-UNLOCK, the pass that releases the lock closes it. On the old rules
 * the first pass moved LAST-UNLOCK, the retransmission was a duplicate and
 * the lock leaked, and the home's REMOVE was refused as busy for ever.
 */
Test(scoreboard, lost_unlock_second_pass_does_not_leak_the_lock)
{
	uint64_t x = tu_tag(2, 1);
	struct lcf_result r;
	int passes;

	tu_add(x, LCF_GS_UNSHARED, 0);
	cr_assert_eq(first(LCF_T_WRITE_MISS, 0, 0, 3, x).action,
		     LCF_A_FWD_HOME);
	r = first(LCF_T_WRITE_UNLOCK, 0, 0, 3, x);
	cr_assert_eq(r.verdict, LCF_V_RESUBMIT);
	/* the second pass is lost; a bad-metadata pass changes nothing */
	{
		struct lcf_msg m = tu_msg(LCF_T_WRITE_UNLOCK, 0, 0, 3, x);
		struct lcf_result bad;

		tu_pass(&m, true, r.resubmit_meta ^ 0x100, &bad);
		cr_assert_eq(bad.drop_reason, LCF_DROP_BAD_RESUBMIT);
	}
	cr_assert_eq(tu_requester(0, 0).last_unlock, 3);
	cr_assert(tu_requester(0, 0).lu_open, "still to execute");
	/* a copy of the request arriving now is stale */
	r = first(LCF_T_WRITE_MISS, 0, 0, 3, x);
	cr_assert_eq(r.action, LCF_A_NACK_STALE);
	/* the retransmitted unlock executes */
	r = tu_send_meta(LCF_T_WRITE_UNLOCK, 0, 3, x, LCF_GS_MODIFIED, BIT(0),
			 &passes);
	cr_assert_eq(passes, 2);
	cr_assert_eq(r.action, LCF_A_UNLOCK_EXEC);
	cr_assert_eq(tu_block(x).lock, 0);
	cr_assert(!tu_requester(0, 0).lu_open);
	/* and the home can take the block back */
	r = tu_send_meta(LCF_T_REMOVE_FROM_SWITCH, 2, 1, x, 0, 0, &passes);
	cr_assert_eq(r.action, LCF_A_REMOVE_OK);
}

/*
 * A copy that takes a read lock but fails Table 2 waits for its RELEASE;
 * the event's unlock, first pass in between, must not count that lock:
 * on the old rules the unlock subtracted it and the RELEASE released it
 * again, freeing another reader's lock (here node 1's), and a writer then
 * entered while node 1 read.
 */
Test(scoreboard, read_lock_is_released_once)
{
	uint64_t x = tu_tag(2, 1);
	struct lcf_result r, rel, un;

	tu_add(x, LCF_GS_SHARED, BIT(2));
	/* node 1 reads X and holds its read lock */
	cr_assert_eq(first(LCF_T_READ_MISS, 1, 0, 1, x).action,
		     LCF_A_FWD_PROVIDER);
	/* node 0 thread 0, event 5: copy A is counted and forwarded */
	cr_assert_eq(first(LCF_T_READ_MISS, 0, 0, 5, x).action,
		     LCF_A_FWD_PROVIDER);
	/* node 0 thread 1 reads X and unlocks: node 0 joins the copyset */
	cr_assert_eq(first(LCF_T_READ_MISS, 0, 1, 1, x).action,
		     LCF_A_FWD_PROVIDER);
	{
		struct lcf_msg m = tu_msg(LCF_T_READ_UNLOCK, 0, 1, 1, x);

		m.gstatus = LCF_GS_SHARED;
		m.copyset = BIT(0) | BIT(2);
		tu_send(&m, &r, NULL);
		cr_assert_eq(r.action, LCF_A_UNLOCK_EXEC);
	}
	cr_assert_eq(tu_block(x).lock, 2, "node 1 and event 5");
	/* the burst: copy B of event 5 (check fails: node 0 is in the
	 * copyset), then event 5's unlock */
	rel = first(LCF_T_READ_MISS, 0, 0, 5, x);
	cr_assert_eq(rel.verdict, LCF_V_RESUBMIT);
	cr_assert_eq(tu_requester(0, 0).score_odd, 1, "B is not counted");
	{
		struct lcf_msg m = tu_msg(LCF_T_READ_UNLOCK, 0, 0, 5, x);

		m.gstatus = LCF_GS_SHARED;
		m.copyset = BIT(0) | BIT(2);
		tu_pass(&m, false, 0, &un);
		cr_assert_eq(un.verdict, LCF_V_RESUBMIT);
		/* after the burst: B's RELEASE, then the unlock */
		r = second(LCF_T_READ_MISS, 0, 0, 5, x, &rel);
		cr_assert_eq(r.action, LCF_A_NACK_CHECK_FAIL);
		tu_pass(&m, true, un.resubmit_meta, &r);
		cr_assert_eq(r.action, LCF_A_UNLOCK_EXEC);
	}
	cr_assert_eq(tu_block(x).lock, 1, "node 1 still holds its read lock");
	/* so a writer is refused while node 1 reads */
	cr_assert_eq(first(LCF_T_WRITE_MISS, 2, 0, 1, x).action,
		     LCF_A_NACK_LOCK_BUSY);
}

/*
 * ABORT is bound to its event: a counted copy makes it "passed" and records
 * nothing; once the unlock has claimed the count, a late ABORT copy still
 * says "passed" and changes nothing.
 */
Test(scoreboard, abort_is_bound_to_its_event)
{
	uint64_t x = tu_tag(2, 1);
	struct lcf_result r;

	tu_add(x, LCF_GS_UNSHARED, 0);
	cr_assert_eq(first(LCF_T_READ_MISS, 0, 0, 4, x).action, LCF_A_FWD_HOME);
	r = first(LCF_T_ABORT, 0, 0, 4, x);
	cr_assert_eq(r.action, LCF_A_ABORT_PASSED);
	cr_assert_eq(tu_requester(0, 0).sb_state[0], LCF_SB_STATE_COUNT);
	r = first(LCF_T_READ_UNLOCK, 0, 0, 4, x);
	cr_assert_eq(tu_requester(0, 0).sb_state[0], LCF_SB_STATE_CLAIMED);
	cr_assert_eq(first(LCF_T_ABORT, 0, 0, 4, x).action, LCF_A_ABORT_PASSED);
	cr_assert_eq(second(LCF_T_READ_UNLOCK, 0, 0, 4, x, &r).action,
		     LCF_A_UNLOCK_EXEC);
	cr_assert_eq(tu_block(x).lock, 0);
	/* the requester's next event of the parity is not affected */
	cr_assert_eq(first(LCF_T_WRITE_MISS, 0, 0, 6, x).action,
		     LCF_A_FWD_HOME);
}

/*
 * A requester whose seq jumps (issue 28 item 8). Node 0 writes and unlocks
 * three blocks with seqs 0x7ffffff0 and 0xf0000000 (even, each step under
 * 2^31), then writes a third with 0xffffffff. The odd entry was never
 * used: its power-on seq 0 is "after" every seq of the upper half in RFC
 * 1982 order, so the request was refused as over (nack_aborted_request).
 * Seq 0 is no requester's (agents skip it): the entry is empty.
 */
Test(scoreboard, seq_jump_to_an_unused_parity_is_not_over)
{
	static const uint32_t seqs[] = { 0x7ffffff0u, 0xf0000000u };
	uint64_t z = tu_tag(1, 9);
	struct lcf_msg m;
	struct lcf_result r;

	for (unsigned i = 0; i < 2; i++) {
		uint64_t y = tu_tag(1, 3 + i);

		tu_add(y, LCF_GS_UNSHARED, 0);
		m = tu_msg(LCF_T_WRITE_MISS, 0, 0, seqs[i], y);
		tu_send(&m, &r, NULL);
		cr_assert_eq(r.action, LCF_A_FWD_HOME, "seq %#x", seqs[i]);
		m = tu_msg(LCF_T_WRITE_UNLOCK, 0, 0, seqs[i], y);
		m.gstatus = LCF_GS_MODIFIED;
		m.copyset = BIT(0);
		tu_send(&m, &r, NULL);
		cr_assert_eq(r.action, LCF_A_UNLOCK_EXEC, "seq %#x", seqs[i]);
	}
	tu_add(z, LCF_GS_UNSHARED, 0);
	m = tu_msg(LCF_T_WRITE_MISS, 0, 0, 0xffffffffu, z);
	tu_send(&m, &r, NULL);
	cr_assert_eq(r.action, LCF_A_FWD_HOME);
	cr_assert_eq(tu_block(z).lock & 0x8000, 0x8000, "write-locked");
	cr_assert_eq(tu_requester(0, 0).score_odd, 1);
}
