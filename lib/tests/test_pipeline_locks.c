/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Lock phase and idempotent lock/unlock (paper 5.1, 5.3.2, Figures 4 and 8).
 * Topology pcap3: nodes 0, 1, 2; blocks on home node 2.
 */
#include <criterion/criterion.h>

#include "lcf_test_util.h"

static void
setup(void)
{
	tu_setup("pcap3.json");
}

TestSuite(locks, .init = setup, .fini = tu_teardown);
TestSuite(figure8, .init = setup, .fini = tu_teardown);
TestSuite(figure4, .init = setup, .fini = tu_teardown);

static struct lcf_result
send(uint8_t type, uint16_t node, uint16_t thread, uint32_t seq, uint64_t tag)
{
	struct lcf_msg m = tu_msg(type, node, thread, seq, tag);
	struct lcf_result r;

	tu_send(&m, &r, NULL);
	return r;
}

static struct lcf_result
unlock(uint8_t type, uint16_t node, uint16_t thread, uint32_t seq, uint64_t tag,
       uint8_t gs, uint32_t cs)
{
	struct lcf_msg m = tu_msg(type, node, thread, seq, tag);
	struct lcf_result r;
	int passes;

	m.gstatus = gs;
	m.copyset = cs;
	tu_send(&m, &r, &passes);
	cr_assert_eq(passes, 2, "an unlock is always resubmitted once");
	cr_assert_eq(r.out.type, LCF_T_UNLOCK_ACK);
	cr_assert_eq(r.to_nodes, BIT(node));
	cr_assert(r.from_switch);
	cr_assert_eq(r.out.seq, seq);
	return r;
}

Test(locks, read_read_is_granted)
{
	uint64_t tag = tu_tag(2, 1);

	tu_add(tag, LCF_GS_SHARED, BIT(2));
	cr_assert_eq(send(LCF_T_READ_MISS, 0, 0, 1, tag).action,
		     LCF_A_FWD_PROVIDER);
	cr_assert_eq(send(LCF_T_READ_MISS, 1, 0, 1, tag).action,
		     LCF_A_FWD_PROVIDER);
	cr_assert_eq(tu_block(tag).lock, 2, "two readers");
}

Test(locks, read_then_write_is_nacked)
{
	uint64_t tag = tu_tag(2, 1);
	struct lcf_result r;

	tu_add(tag, LCF_GS_SHARED, BIT(2));
	send(LCF_T_READ_MISS, 0, 0, 1, tag);
	r = send(LCF_T_WRITE_MISS, 1, 0, 1, tag);
	cr_assert_eq(r.action, LCF_A_NACK_LOCK_BUSY);
	cr_assert_eq(r.out.type, LCF_T_NACK);
	cr_assert_eq(r.out.flags, LCF_F_IN_SWITCH | LCF_F_FAIL);
	cr_assert_eq(r.to_nodes, BIT(1));
	cr_assert(r.from_switch);
	cr_assert_eq(tu_block(tag).lock, 1, "reader unaffected");
	cr_assert_eq(tu_requester(1, 0).score_odd, 0, "no score on failure");
}

Test(locks, write_then_read_is_nacked)
{
	uint64_t tag = tu_tag(2, 1);

	tu_add(tag, LCF_GS_UNSHARED, 0);
	send(LCF_T_WRITE_MISS, 0, 0, 1, tag);
	cr_assert_eq(send(LCF_T_READ_MISS, 1, 0, 1, tag).action,
		     LCF_A_NACK_LOCK_BUSY);
}

Test(locks, write_then_write_is_nacked)
{
	uint64_t tag = tu_tag(2, 1);

	tu_add(tag, LCF_GS_UNSHARED, 0);
	send(LCF_T_WRITE_MISS, 0, 0, 1, tag);
	cr_assert_eq(send(LCF_T_WRITE_MISS, 1, 0, 1, tag).action,
		     LCF_A_NACK_LOCK_BUSY);
	cr_assert_eq(tu_block(tag).lock, LCF_LOCK_WRITER);
}

Test(locks, nack_after_check_failure_leaves_lock_free_for_next)
{
	uint64_t tag = tu_tag(2, 1);
	struct lcf_result r;

	tu_add(tag, LCF_GS_SHARED, BIT(1));
	/* node 0 is not a holder: its WRITE_SHARED fails the check */
	r = send(LCF_T_WRITE_SHARED, 0, 0, 1, tag);
	cr_assert_eq(r.action, LCF_A_NACK_CHECK_FAIL);
	cr_assert_eq(tu_block(tag).lock, 0);
	r = send(LCF_T_WRITE_MISS, 0, 0, 2, tag);
	cr_assert_eq(r.action, LCF_A_MCAST_INVALIDATE, "lock is free again");
	cr_assert_eq(tu_block(tag).lock, LCF_LOCK_WRITER);
}

Test(locks, retransmitted_write_passes_on_score)
{
	uint64_t tag = tu_tag(2, 1);
	struct lcf_result r;

	tu_add(tag, LCF_GS_UNSHARED, 0);
	send(LCF_T_WRITE_MISS, 0, 0, 1, tag);
	/* the copy to home was lost; the requester retransmits seq 1 */
	r = send(LCF_T_WRITE_MISS, 0, 0, 1, tag);
	cr_assert_eq(r.action, LCF_A_FWD_HOME);
	cr_assert_eq(tu_count(LCF_A_RETRANSMIT_PASS), 1);
	cr_assert_eq(tu_requester(0, 0).score_odd, 1);
}

Test(locks, odd_and_even_scores_are_kept_apart)
{
	uint64_t a = tu_tag(2, 1), b = tu_tag(2, 2);

	tu_add(a, LCF_GS_SHARED, BIT(2));
	tu_add(b, LCF_GS_SHARED, BIT(2));
	send(LCF_T_READ_MISS, 0, 0, 1, a); /* odd event */
	send(LCF_T_READ_MISS, 0, 0, 2, b); /* even event */
	cr_assert_eq(tu_requester(0, 0).score_odd, 1);
	cr_assert_eq(tu_requester(0, 0).score_even, 1);
	/* unlocking the odd event resets only the odd score */
	unlock(LCF_T_READ_UNLOCK, 0, 0, 1, a, LCF_GS_SHARED, BIT(0) | BIT(2));
	cr_assert_eq(tu_requester(0, 0).score_odd, 0);
	cr_assert_eq(tu_requester(0, 0).score_even, 1);
	cr_assert_eq(tu_block(a).lock, 0);
	cr_assert_eq(tu_block(b).lock, 1);
	unlock(LCF_T_READ_UNLOCK, 0, 0, 2, b, LCF_GS_SHARED, BIT(0) | BIT(2));
	cr_assert_eq(tu_requester(0, 0).score_even, 0);
	cr_assert_eq(tu_block(b).lock, 0);
}

Test(locks, scores_are_per_requester_thread)
{
	uint64_t tag = tu_tag(2, 1);

	tu_add(tag, LCF_GS_SHARED, BIT(2));
	send(LCF_T_READ_MISS, 0, 0, 1, tag);
	send(LCF_T_READ_MISS, 0, 1, 1, tag);
	cr_assert_eq(tu_requester(0, 0).score_odd, 1);
	cr_assert_eq(tu_requester(0, 1).score_odd, 1);
	cr_assert_eq(tu_block(tag).lock, 2);
}

Test(locks, write_unlock_installs_metadata_and_releases)
{
	uint64_t tag = tu_tag(2, 1);
	struct lcf_result r;

	tu_add(tag, LCF_GS_SHARED, BIT(1) | BIT(2));
	send(LCF_T_WRITE_MISS, 0, 0, 1, tag);
	r = unlock(LCF_T_WRITE_UNLOCK, 0, 0, 1, tag, LCF_GS_MODIFIED, BIT(0));
	cr_assert_eq(r.action, LCF_A_UNLOCK_EXEC);
	cr_assert_eq(r.out.gstatus, LCF_GS_MODIFIED);
	cr_assert_eq(r.out.copyset, BIT(0), "write unlock replaces copyset");
	cr_assert_eq(tu_block(tag).lock, 0);
	cr_assert_eq(tu_block(tag).gstatus, LCF_GS_MODIFIED);
	cr_assert_eq(tu_requester(0, 0).last_unlock, 1);
}

Test(locks, read_unlock_takes_union_with_concurrent_readers)
{
	uint64_t tag = tu_tag(2, 1);

	tu_add(tag, LCF_GS_SHARED, BIT(2));
	send(LCF_T_READ_MISS, 0, 0, 1, tag);
	send(LCF_T_READ_MISS, 1, 0, 1, tag);
	unlock(LCF_T_READ_UNLOCK, 0, 0, 1, tag, LCF_GS_SHARED, BIT(0) | BIT(2));
	unlock(LCF_T_READ_UNLOCK, 1, 0, 1, tag, LCF_GS_SHARED, BIT(1) | BIT(2));
	cr_assert_eq(tu_block(tag).copyset, BIT(0) | BIT(1) | BIT(2));
	cr_assert_eq(tu_block(tag).lock, 0);
}

Test(locks, unlock_of_block_not_in_switch_goes_home)
{
	struct lcf_result r = send(LCF_T_WRITE_UNLOCK, 0, 0, 1, tu_tag(1, 5));

	cr_assert_eq(r.action, LCF_A_TAG_MISS_HOME);
	cr_assert_eq(r.to_nodes, BIT(1));
}

/* One write event (lock, unlock) of node 0 with seq; returns the unlock. */
static struct lcf_result
write_event(uint64_t tag, uint32_t seq)
{
	struct lcf_result r = send(LCF_T_WRITE_MISS, 0, 0, seq, tag);

	cr_assert_eq(r.action, LCF_A_FWD_HOME, "seq %#x", seq);
	return unlock(LCF_T_WRITE_UNLOCK, 0, 0, seq, tag, LCF_GS_UNSHARED, 0);
}

Test(locks, unlock_seq_wraps_around)
{
	/* LAST-UNLOCK and both SCOREBOARD entries start at 0; walk them to
	 * the top in steps < 2^31 (per seq parity for SCOREBOARD). */
	static const uint32_t seqs[] = {
		0x3fffffffu, 0x40000000u, 0x7fffffffu, 0x80000000u, 0xbfffffffu,
		0xc0000000u, 0xfffffffeu, 0xffffffffu, 0,           1
	};
	uint64_t tag = tu_tag(2, 1);

	tu_add(tag, LCF_GS_UNSHARED, 0);
	for (size_t i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++) {
		cr_assert_eq(write_event(tag, seqs[i]).action,
			     LCF_A_UNLOCK_EXEC,
			     "seq %#x after the previous one", seqs[i]);
		cr_assert_eq(tu_block(tag).lock, 0);
		cr_assert_eq(tu_requester(0, 0).last_unlock, seqs[i]);
	}
	/* a stale unlock from before the wrap is a duplicate */
	cr_assert_eq(unlock(LCF_T_WRITE_UNLOCK, 0, 0, 0xfffffffeu, tag,
			    LCF_GS_MODIFIED, BIT(0))
			     .action,
		     LCF_A_UNLOCK_DUP);
	cr_assert_eq(tu_block(tag).gstatus, LCF_GS_UNSHARED);
}

/* Figure 8: (a) initial, (b) READ_MISS lost after the switch, (c) the
 * retransmission with the same seq, (d) the unlock; then a duplicate. */
Test(figure8, lost_read_miss_retransmitted_then_unlocked_once)
{
	uint64_t tag = tu_tag(2, 4);
	struct lcf_result r;

	tu_add(tag, LCF_GS_SHARED, BIT(1));
	/* (a) */
	cr_assert_eq(tu_block(tag).lock, 0);
	cr_assert_eq(tu_requester(0, 0).score_odd, 0);
	cr_assert_eq(tu_requester(0, 0).last_unlock, 0);
	/* (b) LK 0:1, SB 1 */
	r = send(LCF_T_READ_MISS, 0, 0, 1, tag);
	cr_assert_eq(r.action, LCF_A_FWD_PROVIDER);
	cr_assert_eq(tu_block(tag).lock, 1);
	cr_assert_eq(tu_requester(0, 0).score_odd, 1);
	/* (c) LK 0:2, SB 2, and the request goes on */
	r = send(LCF_T_READ_MISS, 0, 0, 1, tag);
	cr_assert_eq(r.action, LCF_A_FWD_PROVIDER);
	cr_assert_eq(tu_block(tag).lock, 2);
	cr_assert_eq(tu_requester(0, 0).score_odd, 2);
	/* (d) first pass reads score 2 and resubmits with it */
	{
		struct lcf_msg m = tu_msg(LCF_T_READ_UNLOCK, 0, 0, 1, tag);

		m.gstatus = LCF_GS_SHARED;
		m.copyset = BIT(0) | BIT(1);
		tu_pass(&m, false, 0, &r);
		cr_assert_eq(r.verdict, LCF_V_RESUBMIT);
		cr_assert_eq((r.resubmit_meta >> 32) & 0xffff, 2,
			     "score carried in resubmit metadata");
		cr_assert_eq(tu_block(tag).lock, 2, "nothing released yet");
		/* second pass: seq 1 > LU 0 -> LU 1, readers 2 - 2, SB 0 */
		tu_pass(&m, true, r.resubmit_meta, &r);
		cr_assert_eq(r.action, LCF_A_UNLOCK_EXEC);
		cr_assert_eq(tu_requester(0, 0).last_unlock, 1);
		cr_assert_eq(tu_block(tag).lock, 0);
		cr_assert_eq(tu_requester(0, 0).score_odd, 0);
	}
	/* a duplicate unlock is ignored but still ACKed */
	r = unlock(LCF_T_READ_UNLOCK, 0, 0, 1, tag, LCF_GS_SHARED,
		   BIT(0) | BIT(1));
	cr_assert_eq(r.action, LCF_A_UNLOCK_DUP);
	cr_assert_eq(tu_block(tag).lock, 0);
	cr_assert_eq(tu_requester(0, 0).last_unlock, 1);
}

Test(figure8, duplicate_unlock_does_not_release_a_later_lock)
{
	uint64_t tag = tu_tag(2, 4);
	struct lcf_result r;

	tu_add(tag, LCF_GS_SHARED, BIT(1));
	send(LCF_T_READ_MISS, 0, 0, 1, tag);
	unlock(LCF_T_READ_UNLOCK, 0, 0, 1, tag, LCF_GS_SHARED, BIT(0) | BIT(1));
	send(LCF_T_READ_MISS, 0, 0, 3, tu_tag(2, 4)); /* evicted, re-read */
	cr_assert_eq(tu_requester(0, 0).score_odd, 0,
		     "node 0 already in copyset: check failed, score undone");
	send(LCF_T_READ_MISS, 1, 0, 1, tag); /* node 1 fails the check too */
	r = send(LCF_T_WRITE_SHARED, 1, 0, 3, tag);
	cr_assert_eq(r.action, LCF_A_MCAST_INVALIDATE);
	/* a late duplicate of node 0's unlock seq 1 must not touch node 1's lock */
	r = unlock(LCF_T_READ_UNLOCK, 0, 0, 1, tag, LCF_GS_SHARED, BIT(0));
	cr_assert_eq(r.action, LCF_A_UNLOCK_DUP);
	cr_assert_eq(tu_block(tag).lock, LCF_LOCK_WRITER);
}

/* Figure 4: node 1 writes block C held Shared by {1, 2, 3}; here {0, 1, 2}
 * with node 0 as the writer. */
Test(figure4, write_shared_invalidate_ack_unlock)
{
	uint64_t c = tu_tag(2, 12);
	struct lcf_result r;

	tu_add(c, LCF_GS_SHARED, BIT(0) | BIT(1) | BIT(2));
	/* 1-3: lock and multicast to the other holders with the metadata */
	r = send(LCF_T_WRITE_SHARED, 0, 0, 1, c);
	cr_assert_eq(r.action, LCF_A_MCAST_INVALIDATE);
	cr_assert_eq(r.to_nodes, BIT(1) | BIT(2));
	cr_assert_eq(r.out.gstatus, LCF_GS_SHARED);
	cr_assert_eq(r.out.copyset, BIT(0) | BIT(1) | BIT(2));
	cr_assert_eq(tu_block(c).lock, LCF_LOCK_WRITER);
	/* concurrent readers are serialised behind the write lock */
	cr_assert_eq(send(LCF_T_READ_MISS, 1, 0, 1, c).action,
		     LCF_A_NACK_LOCK_BUSY);
	/* 4-6 happen at the nodes; 7-8: unlock with <Modified, {0}> */
	r = unlock(LCF_T_WRITE_UNLOCK, 0, 0, 1, c, LCF_GS_MODIFIED, BIT(0));
	cr_assert_eq(r.action, LCF_A_UNLOCK_EXEC);
	cr_assert_eq(tu_block(c).gstatus, LCF_GS_MODIFIED);
	cr_assert_eq(tu_block(c).copyset, BIT(0));
	cr_assert_eq(tu_block(c).lock, 0);
	/* the next reader is sent to the new owner as data provider */
	r = send(LCF_T_READ_MISS, 1, 0, 3, c);
	cr_assert_eq(r.action, LCF_A_FWD_OWNER);
	cr_assert_eq(r.provider, 0);
}
