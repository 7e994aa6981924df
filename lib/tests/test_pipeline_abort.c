/* SPDX-License-Identifier: BSD-3-Clause
 *
 * ABORT (docs/PROTOCOL.md 4.9): a requester that gives up on a NACKed event
 * asks the switch to end it. Either no copy of the event holds a lock (the
 * ABORT marks the event ENDED in its SCOREBOARD entry, so every later copy
 * is refused, even one that takes the lock on its pass, and goes on to the
 * home, which answers it), or a copy passed and holds it (the switch says
 * so and records nothing: the requester's unlock with that seq must still
 * execute). The regression: a network duplicate of the request
 * that arrives after the requester gave up must not leave a lock held.
 * Topology pcap3: nodes 0, 1, 2; blocks on home node 2.
 */
#include <criterion/criterion.h>

#include "lcf_internal.h"
#include "lcf_test_util.h"

static void
setup(void)
{
	tu_setup("pcap3.json");
}

TestSuite(abort, .init = setup, .fini = tu_teardown);

/* Node 0's SCOREBOARD entry of seq's parity says `seq` is aborted. */
static bool
sb_aborted(uint32_t seq)
{
	struct lcf_requester_view v = tu_requester(0, 0);

	return v.sb_seq[seq & 1] == seq &&
	       v.sb_state[seq & 1] == LCF_SB_STATE_ENDED;
}

/* Node 2 holds the write lock of `tag` with seq 3 (Modified at node 1). */
static uint64_t
busy_block(void)
{
	uint64_t tag = tu_tag(2, 1);
	struct lcf_result r;

	tu_add(tag, LCF_GS_MODIFIED, BIT(1));
	r = tu_send_meta(LCF_T_WRITE_MISS, 2, 3, tag, 0, 0, NULL);
	cr_assert_eq(r.action, LCF_A_FWD_OWNER);
	return tag;
}

/* Node 0's READ_MISS (seq 7) is NACKed: the block is write-locked. */
static void
nacked_read(uint64_t tag)
{
	struct lcf_result r;

	r = tu_send_meta(LCF_T_READ_MISS, 0, 7, tag, 0, 0, NULL);
	cr_assert_eq(r.action, LCF_A_NACK_LOCK_BUSY);
}

static void
release(uint64_t tag)
{
	struct lcf_result r = tu_send_meta(LCF_T_WRITE_UNLOCK, 2, 3, tag,
					   LCF_GS_MODIFIED, BIT(2), NULL);

	cr_assert_eq(r.action, LCF_A_UNLOCK_EXEC);
}

Test(abort, duplicate_request_after_abort_takes_no_lock)
{
	uint64_t tag = busy_block();
	struct lcf_result r;

	nacked_read(tag);
	r = tu_send_meta(LCF_T_ABORT, 0, 7, tag, 0, 0, NULL);
	cr_assert_eq(r.action, LCF_A_ABORT_HOME);
	cr_assert_eq(r.out.type, LCF_T_ABORT, "the home answers it");
	cr_assert_eq(r.out.flags, LCF_F_IN_SWITCH, "no FAIL");
	cr_assert_eq(r.to_nodes, BIT(2));
	cr_assert_eq(r.out.seq, 7);
	cr_assert(sb_aborted(7));
	release(tag);
	/* the network's duplicate of seq 7 arrives now: the lock is free */
	r = tu_send_meta(LCF_T_READ_MISS, 0, 7, tag, 0, 0, NULL);
	cr_assert_eq(r.out.type, LCF_T_NACK);
	cr_assert_eq(tu_block(tag).lock, 0, "no lock left held");
	cr_assert_eq(tu_requester(0, 0).score_odd, 0);
	/* a write copy takes the lock on its pass: the second pass frees it */
	r = tu_send_meta(LCF_T_WRITE_MISS, 0, 7, tag, 0, 0, NULL);
	cr_assert_eq(r.out.type, LCF_T_NACK);
	cr_assert_eq(tu_block(tag).lock, 0);
	cr_assert_eq(tu_requester(0, 0).score_odd, 0);
	/* the requester's next events (new seqs) are not affected */
	r = tu_send_meta(LCF_T_READ_MISS, 0, 8, tag, 0, 0, NULL);
	cr_assert_neq(r.out.type, LCF_T_NACK);
	cr_assert_eq(tu_block(tag).lock, 1);
}

Test(abort, copy_that_passed_is_reported_and_its_unlock_executes)
{
	uint64_t tag = busy_block();
	struct lcf_result r;

	nacked_read(tag);
	release(tag);
	/* a duplicate of seq 7 arrives before the ABORT and takes the lock */
	r = tu_send_meta(LCF_T_READ_MISS, 0, 7, tag, 0, 0, NULL);
	cr_assert_eq(r.action, LCF_A_FWD_OWNER);
	r = tu_send_meta(LCF_T_ABORT, 0, 7, tag, 0, 0, NULL);
	cr_assert_eq(r.action, LCF_A_ABORT_PASSED);
	cr_assert_eq(r.out.flags, LCF_F_IN_SWITCH | LCF_F_FAIL);
	cr_assert_eq(tu_requester(0, 0).sb_state[1], LCF_SB_STATE_COUNT,
		     "nothing recorded");
	cr_assert_eq(tu_requester(0, 0).score_odd, 1);
	/* the requester collects the replies (a retransmission still passes) */
	r = tu_send_meta(LCF_T_READ_MISS, 0, 7, tag, 0, 0, NULL);
	cr_assert_eq(r.action, LCF_A_FWD_OWNER);
	/* an ABORT copy retransmitted meanwhile says the same */
	r = tu_send_meta(LCF_T_ABORT, 0, 7, tag, 0, 0, NULL);
	cr_assert_eq(r.action, LCF_A_ABORT_PASSED);
	/* and releases the lock with seq 7 */
	r = tu_send_meta(LCF_T_READ_UNLOCK, 0, 7, tag, LCF_GS_SHARED,
			 BIT(0) | BIT(2), NULL);
	cr_assert_eq(r.action, LCF_A_UNLOCK_EXEC);
	cr_assert_eq(tu_block(tag).lock, 0);
	cr_assert_eq(tu_requester(0, 0).last_unlock, 7);
	cr_assert_eq(tu_requester(0, 0).score_odd, 0);
}

Test(abort, retransmitted_abort_after_done_stays_done)
{
	uint64_t tag = busy_block();
	struct lcf_result r;

	nacked_read(tag);
	cr_assert_eq(tu_send_meta(LCF_T_ABORT, 0, 7, tag, 0, 0, NULL).action,
		     LCF_A_ABORT_HOME);
	release(tag);
	r = tu_send_meta(LCF_T_ABORT, 0, 7, tag, 0, 0, NULL);
	cr_assert_eq(r.action, LCF_A_ABORT_HOME);
	/* an older event's late ABORT never moves the entry back */
	r = tu_send_meta(LCF_T_ABORT, 0, 5, tag, 0, 0, NULL);
	cr_assert_eq(r.action, LCF_A_ABORT_HOME);
	cr_assert(sb_aborted(7));
}

Test(abort, on_tag_miss_goes_home_records_and_marks_late_copies)
{
	uint64_t tag = tu_tag(2, 4);
	struct lcf_result r;

	r = tu_send_meta(LCF_T_ABORT, 0, 9, tag, 0, 0, NULL);
	cr_assert_eq(r.action, LCF_A_TAG_MISS_HOME, "the home answers");
	cr_assert_eq(r.to_nodes, BIT(2));
	cr_assert_eq(r.out.type, LCF_T_ABORT);
	cr_assert(sb_aborted(9));
	/* a late copy going home carries FAIL: the home must not execute it */
	r = tu_send_meta(LCF_T_WRITE_MISS, 0, 9, tag, 0, 0, NULL);
	cr_assert_eq(r.action, LCF_A_TAG_MISS_HOME);
	cr_assert_eq(r.out.flags & LCF_F_FAIL, LCF_F_FAIL);
	r = tu_send_meta(LCF_T_WRITE_MISS, 0, 10, tag, 0, 0, NULL);
	cr_assert_eq(r.out.flags & LCF_F_FAIL, 0, "a new event is not marked");
	/* the block moves to the switch: a late copy there takes no lock */
	tu_add(tag, LCF_GS_UNSHARED, 0);
	r = tu_send_meta(LCF_T_WRITE_MISS, 0, 9, tag, 0, 0, NULL);
	cr_assert_eq(r.out.type, LCF_T_NACK);
	cr_assert_eq(tu_block(tag).lock, 0);
}

/*
 * The model's counterexample (docs/MODEL.md): a copy of node 0's READ_MISS
 * misses in the switch before the block is ADDed and is still on its way
 * home when the ABORT hits; the home takes the block back (REMOVE) and then
 * receives that copy. Only the home can refuse it, so the ABORT that hit
 * must reach the home too: answered by the switch alone, the home would
 * grant the copy and hold its lock for good.
 */
Test(abort, hit_abort_reaches_the_home_for_copies_that_missed_before_add)
{
	uint64_t tag = tu_tag(2, 5);
	struct lcf_result r;

	r = tu_send_meta(LCF_T_READ_MISS, 0, 1, tag, 0, 0, NULL);
	cr_assert_eq(r.action, LCF_A_TAG_MISS_HOME, "a copy on its way home");
	tu_add(tag, LCF_GS_UNSHARED, 0);
	r = tu_send_meta(LCF_T_ABORT, 0, 1, tag, 0, 0, NULL);
	cr_assert_eq(r.action, LCF_A_ABORT_HOME);
	cr_assert_eq(r.to_nodes, BIT(2), "the home records it");
	cr_assert_eq(r.out.type, LCF_T_ABORT);
	cr_assert_eq(r.out.seq, 1);
	cr_assert_eq(r.out.tag, tag);
	cr_assert(sb_aborted(1));
	cr_assert_eq(tu_block(tag).lock, 0);
}

Test(abort, abort_never_resubmits)
{
	struct lcf_msg m = tu_msg(LCF_T_ABORT, 0, 0, 7, tu_tag(2, 1));
	struct lcf_result r;

	tu_add(m.tag, LCF_GS_UNSHARED, 0);
	for (uint64_t op = 0; op <= 4; op++) {
		tu_pass(&m, true, op, &r);
		cr_assert_eq(r.drop_reason, LCF_DROP_BAD_RESUBMIT);
	}
	cr_assert_eq(tu_block(m.tag).lock, 0);
}
