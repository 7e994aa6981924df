/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The control-plane action for a dead memory node (lcf_pipeline_node_failed).
 */
#include <criterion/criterion.h>

#include "lcf_qlock.h"
#include "lcf_test_util.h"

static void
setup3(void)
{
	tu_setup("pcap3.json");
}

TestSuite(node_failed, .init = setup3, .fini = tu_teardown);

static bool
present(uint64_t tag)
{
	struct lcf_block_view v;

	return lcf_pipeline_read_block(tu_p, tag, &v) == 0;
}

static bool
listed(const uint64_t *tags, uint32_t n, uint64_t tag)
{
	for (uint32_t i = 0; i < n; i++)
		if (tags[i] == tag)
			return true;
	return false;
}

/* A request from node/thread that the switch grants (takes the lock). */
static void
grant(uint8_t type, uint16_t node, uint32_t seq, uint64_t tag)
{
	struct lcf_msg m = tu_msg(type, node, 0, seq, tag);
	struct lcf_result r;

	tu_send(&m, &r, NULL);
	cr_assert_eq(r.verdict, LCF_V_EMIT);
	cr_assert_neq(tu_block(tag).lock, 0, "the request holds the lock");
}

static void
unlock(uint8_t type, uint16_t node, uint32_t seq, uint64_t tag, uint8_t gs,
       uint32_t cs)
{
	struct lcf_msg m = tu_msg(type, node, 0, seq, tag);
	struct lcf_result r;

	m.gstatus = gs;
	m.copyset = cs;
	tu_send(&m, &r, NULL);
	cr_assert_eq(r.action, LCF_A_UNLOCK_EXEC);
}

Test(node_failed, evicts_locked_and_listing_entries_only)
{
	uint64_t shared0 = tu_tag(1, 3); /* Shared, copyset {0} */
	uint64_t other = tu_tag(1, 4);   /* Shared {1}: not involved */
	uint64_t mod0 = tu_tag(1, 5);    /* Modified at node 0 */
	uint64_t locked1 = tu_tag(0, 6); /* locked by node 1's read */
	uint64_t locked0 = tu_tag(1, 7); /* locked by node 0's write */
	struct lcf_node_failed_report rep;
	struct lcf_requester_view rv;
	uint64_t tags[8];

	tu_add(shared0, LCF_GS_SHARED, BIT(0));
	tu_add(other, LCF_GS_SHARED, BIT(1));
	tu_add(mod0, LCF_GS_MODIFIED, BIT(0));
	tu_add(locked1, LCF_GS_UNSHARED, 0);
	tu_add(locked0, LCF_GS_UNSHARED, 0);
	/* Node 2 reads `other` and unlocks: its LAST-UNLOCK becomes 1. */
	grant(LCF_T_READ_MISS, 2, 1, other);
	unlock(LCF_T_READ_UNLOCK, 2, 1, other, LCF_GS_SHARED, BIT(1) | BIT(2));
	cr_assert_eq(tu_requester(2, 0).last_unlock, 1);
	grant(LCF_T_READ_MISS, 1, 1, locked1);
	grant(LCF_T_WRITE_MISS, 0, 1, locked0);
	rv = tu_requester(0, 0);
	cr_assert(rv.score_even || rv.score_odd, "node 0's request was scored");

	cr_assert_eq(lcf_pipeline_node_failed(tu_p, 0, &rep, tags, 8), 0);
	cr_assert_eq(rep.locked, 2, "both locked entries: holders unknown");
	cr_assert_eq(rep.copyset, 2);
	cr_assert_eq(rep.modified, 1);
	cr_assert_eq(rep.requesters, 2, "node 0's and node 1's scored rows");
	for (int i = 0; i < 4; i++)
		cr_assert(listed(tags, 4,
				 (uint64_t[]){ shared0, mod0, locked1,
					       locked0 }[i]));
	cr_assert(!present(shared0) && !present(mod0) && !present(locked1) &&
		  !present(locked0));
	cr_assert(present(other), "a block not involving node 0 stays");
	cr_assert_eq(tu_block(other).copyset, BIT(1) | BIT(2));
	rv = tu_requester(0, 0);
	cr_assert_eq(rv.score_even | rv.score_odd | rv.last_unlock, 0);
	rv = tu_requester(1, 0);
	cr_assert_eq(rv.score_even | rv.score_odd, 0,
		     "node 1's score counted a lock that was evicted");
	cr_assert_eq(tu_requester(2, 0).last_unlock, 1, "a survivor's is kept");
}

/*
 * A survivor's score left behind by an evicted lock would let its next
 * request of that parity pass another node's lock as a "retransmission".
 */
Test(node_failed, survivor_cannot_pass_a_busy_lock_on_a_stale_score)
{
	uint64_t gone = tu_tag(1, 3), busy = tu_tag(1, 4);
	struct lcf_node_failed_report rep;
	struct lcf_msg m = tu_msg(LCF_T_WRITE_MISS, 1, 0, 3, busy);
	struct lcf_result r;

	tu_add(gone, LCF_GS_SHARED, BIT(0) | BIT(1));
	tu_add(busy, LCF_GS_UNSHARED, 0);
	grant(LCF_T_WRITE_SHARED, 1, 1, gone); /* waits for node 0's ACK */
	cr_assert_eq(lcf_pipeline_node_failed(tu_p, 0, &rep, NULL, 0), 0);
	grant(LCF_T_WRITE_MISS, 2, 1, busy);
	tu_send(&m, &r, NULL); /* node 1, seq 3: odd again */
	cr_assert_eq(r.action, LCF_A_NACK_LOCK_BUSY);
}

Test(node_failed, evicted_block_misses_and_can_be_added_again)
{
	uint64_t tag = tu_tag(1, 3);
	struct lcf_node_failed_report rep;
	struct lcf_msg m = tu_msg(LCF_T_READ_MISS, 2, 0, 1, tag);
	struct lcf_result r;

	tu_add(tag, LCF_GS_SHARED, BIT(0));
	cr_assert_eq(lcf_pipeline_node_failed(tu_p, 0, &rep, NULL, 0), 0);
	cr_assert_eq(rep.copyset, 1, "counted without a tag list");
	tu_send(&m, &r, NULL);
	cr_assert_eq(r.action, LCF_A_TAG_MISS_HOME, "the home sees a tag miss");
	cr_assert_eq(r.to_nodes, BIT(1));
	tu_add(tag, LCF_GS_UNSHARED, 0);
	cr_assert_eq(tu_block(tag).copyset, 0);
}

Test(node_failed, idempotent_and_bounded_tag_list)
{
	uint64_t tags[1] = { 0 };
	struct lcf_node_failed_report rep;
	uint64_t digest;

	tu_add(tu_tag(1, 3), LCF_GS_SHARED, BIT(0));
	tu_add(tu_tag(1, 4), LCF_GS_SHARED, BIT(0) | BIT(2));
	cr_assert_eq(lcf_pipeline_node_failed(tu_p, 0, &rep, tags, 1), 0);
	cr_assert_eq(rep.copyset, 2);
	cr_assert(tags[0] == tu_tag(1, 3) || tags[0] == tu_tag(1, 4));
	digest = lcf_pipeline_digest(tu_p);
	cr_assert_eq(lcf_pipeline_node_failed(tu_p, 0, &rep, tags, 1), 0);
	cr_assert_eq(rep.locked + rep.copyset + rep.requesters, 0);
	cr_assert_eq(lcf_pipeline_digest(tu_p), digest);
}

Test(node_failed, unknown_node_changes_nothing)
{
	struct lcf_node_failed_report rep;
	uint64_t digest;

	tu_add(tu_tag(1, 3), LCF_GS_SHARED, BIT(0));
	digest = lcf_pipeline_digest(tu_p);
	cr_assert_eq(lcf_pipeline_node_failed(tu_p, 5, &rep, NULL, 0), -EINVAL);
	cr_assert_eq(lcf_pipeline_node_failed(tu_p, LCF_MAX_NODES, &rep, NULL,
					      0),
		     -EINVAL);
	cr_assert_eq(lcf_pipeline_digest(tu_p), digest);
}

/*
 * A restarted node's new home believes every block of its memory at home
 * (docs/FAULTS.md section 3): a block homed at it, unlocked and cached
 * elsewhere only, is evicted too, or the switch and the home would both
 * own it. Another home's block stays.
 */
Test(node_failed, evicts_the_nodes_homed_blocks)
{
	uint64_t homed = tu_tag(2, 3); /* home 2, Shared at node 1 */
	uint64_t other = tu_tag(1, 4); /* home 1, Shared at node 1 */
	struct lcf_node_failed_report rep;
	uint64_t tags[4];

	tu_add(homed, LCF_GS_SHARED, BIT(1));
	tu_add(other, LCF_GS_SHARED, BIT(1));
	cr_assert_eq(lcf_pipeline_node_failed(tu_p, 2, &rep, tags, 4), 0);
	cr_assert_eq(rep.locked, 0);
	cr_assert_eq(rep.copyset, 1, "the homed block, counted as unlocked");
	cr_assert_eq(tags[0], homed);
	cr_assert(!present(homed));
	cr_assert(present(other));
}

/*
 * Queued mode (issue 28 item 7): a switch-owned block whose tenure, or
 * whose read lock under a waiting writer, is held by the dead node. Its
 * unlock, QXFER or QRELEASE never comes; the survivor queued behind it
 * would be forwarded to it, or polled QWAIT, for ever. The command
 * evicts the entry with its QSTATE; the survivor's request then misses
 * (its home recovers the block), and after the re-ADD it is granted.
 */
static void
setup3q(void)
{
	tu_setup("pcap3q.json");
}

TestSuite(node_failed_q, .init = setup3q, .fini = tu_teardown);

static struct lcf_result
qreq(uint8_t type, uint16_t node, uint32_t seq, uint64_t tag)
{
	return tu_send_meta(type, node, seq, tag, 0, 0, NULL);
}

static void
dead_holder_evicted(uint64_t tag)
{
	struct lcf_node_failed_report rep;
	uint64_t tags[2];

	cr_assert_eq(lcf_pipeline_node_failed(tu_p, 0, &rep, tags, 2), 0);
	cr_assert_eq(rep.locked, 1);
	cr_assert_eq(tags[0], tag);
	cr_assert(!present(tag));
	cr_assert_eq(qreq(LCF_T_WRITE_MISS, 1, 1, tag).action,
		     LCF_A_TAG_MISS_HOME, "the survivor's retransmission");
	/* the home rebuilt it without node 0 and added it again */
	tu_add(tag, LCF_GS_UNSHARED, 0);
	cr_assert_eq(qreq(LCF_T_WRITE_MISS, 1, 2, tag).action, LCF_A_FWD_HOME);
	cr_assert_eq(tu_block(tag).qholder, lcf_q_id(1, 0, 2));
	cr_assert_eq(tu_block(tag).fwd_cnt, 0);
}

Test(node_failed_q, dead_tenure_holder_is_drained)
{
	uint64_t tag = tu_tag(2, 1);
	struct lcf_result r;

	tu_add(tag, LCF_GS_UNSHARED, 0);
	cr_assert_eq(qreq(LCF_T_WRITE_MISS, 0, 1, tag).action, LCF_A_FWD_HOME);
	r = qreq(LCF_T_WRITE_MISS, 1, 1, tag);
	cr_assert_eq(r.action, LCF_A_FWD_HOLDER);
	cr_assert_eq(r.to_nodes, BIT(0), "queued behind the dead node");
	dead_holder_evicted(tag);
}

Test(node_failed_q, dead_reader_under_a_waiting_writer_is_drained)
{
	uint64_t tag = tu_tag(2, 2);

	tu_add(tag, LCF_GS_SHARED, BIT(2));
	cr_assert_eq(qreq(LCF_T_READ_MISS, 0, 1, tag).action,
		     LCF_A_FWD_PROVIDER);
	cr_assert_eq(qreq(LCF_T_WRITE_MISS, 1, 1, tag).action, LCF_A_QWAIT);
	cr_assert_eq(qreq(LCF_T_WRITE_MISS, 1, 1, tag).action, LCF_A_QWAIT,
		     "the poll: the dead reader never unlocks");
	dead_holder_evicted(tag);
}
