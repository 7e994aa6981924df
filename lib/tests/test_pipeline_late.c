/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Late copies of a home-served event after its block moved to the switch
 * (docs/PROTOCOL.md 4.3, Interpretation (unlocks of home-owned blocks)):
 * every unlock that passes the LAST-UNLOCK stage, tag hit or miss, records
 * its seq, so a request copy of an event the home served is NACKed as stale
 * and an unlock copy of it is a duplicate, whoever holds the switch's lock.
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

TestSuite(late_after_add, .init = setup, .fini = tu_teardown);

/* An event the home serialises: request and unlock both miss. */
static void
home_event(uint16_t node, uint32_t seq, uint64_t tag, uint8_t unlock)
{
	struct lcf_result r;
	int passes;

	r = tu_send_meta(LCF_T_WRITE_MISS, node, seq, tag, 0, 0, &passes);
	cr_assert_eq(r.action, LCF_A_TAG_MISS_HOME);
	r = tu_send_meta(unlock, node, seq, tag, LCF_GS_MODIFIED, BIT(node),
			 &passes);
	cr_assert_eq(r.action, LCF_A_TAG_MISS_HOME, "the unlock goes home");
	cr_assert_eq(passes, 1, "a tag miss is not resubmitted");
	cr_assert_eq(r.to_nodes, BIT(2));
	cr_assert_eq(r.out.type, unlock, "forwarded unchanged");
}

Test(late_after_add, unlock_on_tag_miss_records_its_seq)
{
	uint64_t tag = tu_tag(2, 1);

	home_event(0, 5, tag, LCF_T_WRITE_UNLOCK);
	cr_assert_eq(tu_requester(0, 0).last_unlock, 5);
	home_event(0, 6, tag, LCF_T_READ_UNLOCK);
	cr_assert_eq(tu_requester(0, 0).last_unlock, 6);
	cr_assert_eq(tu_requester(1, 0).last_unlock, 0, "per requester");
}

Test(late_after_add, older_unlock_on_tag_miss_goes_home_and_changes_nothing)
{
	uint64_t tag = tu_tag(2, 1);
	struct lcf_result r;
	int passes;

	home_event(0, 9, tag, LCF_T_WRITE_UNLOCK);
	/* a late copy of an older event's unlock: the home's LAST-EXECUTED
	 * answers it; LAST-UNLOCK does not go back */
	r = tu_send_meta(LCF_T_WRITE_UNLOCK, 0, 7, tag, LCF_GS_MODIFIED, BIT(0),
			 &passes);
	cr_assert_eq(r.action, LCF_A_TAG_MISS_HOME);
	cr_assert_eq(tu_requester(0, 0).last_unlock, 9);
}

/*
 * The home served (0, 5); the home then ADDs the block (its event is over:
 * the home takes its write lock only after the unlock). A copy of the
 * request delayed in the network arrives now: without the record it would
 * take the switch's lock, and no unlock would ever release it.
 */
Test(late_after_add, late_request_copy_after_add_is_nacked)
{
	static const uint8_t requests[] = {
		LCF_T_READ_MISS,    LCF_T_WRITE_MISS,     LCF_T_WRITE_SHARED,
		LCF_T_EVICT_SHARED, LCF_T_EVICT_MODIFIED,
	};
	uint64_t tag = tu_tag(2, 1);

	home_event(0, 5, tag, LCF_T_WRITE_UNLOCK);
	tu_add(tag, LCF_GS_MODIFIED, BIT(0));
	for (size_t i = 0; i < sizeof(requests); i++) {
		uint64_t before = lcf_pipeline_digest(tu_p);
		struct lcf_result r;
		int passes;

		r = tu_send_meta(requests[i], 0, 5, tag, LCF_GS_SHARED, BIT(0),
				 &passes);
		cr_assert_eq(r.action, LCF_A_NACK_STALE, "type %#x",
			     requests[i]);
		cr_assert_eq(lcf_pipeline_digest(tu_p), before);
	}
	cr_assert_eq(tu_block(tag).lock, 0, "nobody holds the lock");
	/* the block works: the next reader is sent to the owner */
	cr_assert_eq(tu_send_meta(LCF_T_READ_MISS, 1, 1, tag, 0, 0, NULL)
			     .action,
		     LCF_A_FWD_OWNER);
}

/*
 * A late copy of the unlock of a home-served event, after the ADD, while
 * another requester holds the switch's write lock: it must not release that
 * lock nor install its stale metadata. LAST-UNLOCK is what guards it (the
 * lock stage does not know who holds a lock).
 */
Test(late_after_add, late_unlock_copy_after_add_releases_nothing)
{
	uint64_t tag = tu_tag(2, 1);
	struct lcf_block_view before;
	struct lcf_result r;
	int passes;

	home_event(0, 5, tag, LCF_T_WRITE_UNLOCK);
	tu_add(tag, LCF_GS_MODIFIED, BIT(0));
	r = tu_send_meta(LCF_T_WRITE_MISS, 1, 1, tag, 0, 0, NULL);
	cr_assert_eq(r.action, LCF_A_FWD_OWNER, "node 1 takes the write lock");
	before = tu_block(tag);
	cr_assert_eq(before.lock, LCF_LOCK_WRITER);
	r = tu_send_meta(LCF_T_WRITE_UNLOCK, 0, 5, tag, LCF_GS_SHARED,
			 BIT(0) | BIT(2), &passes);
	cr_assert_eq(passes, 2);
	cr_assert_eq(r.action, LCF_A_UNLOCK_DUP);
	cr_assert_eq(r.out.type, LCF_T_UNLOCK_ACK, "still acknowledged");
	cr_assert_eq(tu_block(tag).lock, LCF_LOCK_WRITER, "node 1's lock");
	cr_assert_eq(tu_block(tag).gstatus, before.gstatus);
	cr_assert_eq(tu_block(tag).copyset, before.copyset);
	/* node 1's own unlock still executes */
	r = tu_send_meta(LCF_T_WRITE_UNLOCK, 1, 1, tag, LCF_GS_MODIFIED, BIT(1),
			 NULL);
	cr_assert_eq(r.action, LCF_A_UNLOCK_EXEC);
	cr_assert_eq(tu_block(tag).lock, 0);
}

/*
 * Two copies of one unlock, both first passes before either second pass:
 * both claim the same count; the first second pass closes LAST-UNLOCK, so
 * exactly one executes.
 */
Test(late_after_add, interleaved_unlock_copies_execute_once)
{
	uint64_t tag = tu_tag(2, 1);
	struct lcf_msg u = tu_msg(LCF_T_WRITE_UNLOCK, 0, 0, 3, tag);
	struct lcf_result a, b, a2, b2;

	tu_add(tag, LCF_GS_UNSHARED, 0);
	cr_assert_eq(tu_send_meta(LCF_T_WRITE_MISS, 0, 3, tag, 0, 0, NULL)
			     .action,
		     LCF_A_FWD_HOME);
	u.gstatus = LCF_GS_MODIFIED;
	u.copyset = BIT(0);
	tu_pass(&u, false, 0, &a);
	tu_pass(&u, false, 0, &b);
	cr_assert_eq(a.verdict, LCF_V_RESUBMIT);
	cr_assert_eq(b.verdict, LCF_V_RESUBMIT);
	cr_assert_eq(tu_requester(0, 0).last_unlock, 3, "opened by a 1st pass");
	cr_assert(tu_requester(0, 0).lu_open);
	cr_assert_eq(tu_requester(0, 0).sb_state[1], LCF_SB_STATE_CLAIMED);
	cr_assert_eq(a.resubmit_meta, b.resubmit_meta, "same claim");
	tu_pass(&u, true, a.resubmit_meta, &a2);
	tu_pass(&u, true, b.resubmit_meta, &b2);
	cr_assert_eq(a2.action, LCF_A_UNLOCK_EXEC);
	cr_assert_eq(b2.action, LCF_A_UNLOCK_DUP);
	cr_assert(!tu_requester(0, 0).lu_open, "closed by a 2nd pass");
	cr_assert_eq(tu_block(tag).lock, 0);
	cr_assert_eq(tu_block(tag).copyset, BIT(0));
}
