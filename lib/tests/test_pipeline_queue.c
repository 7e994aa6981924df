/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The queued lock mode (docs/QUEUED-LOCKS.md): QSTATE = {QHOLDER, FWD_CNT},
 * forward to the holder instead of NACK, QXFER approve/deny, the two-pass
 * QRELEASE; and the retry mode untouched. Topologies pcap3q (queued) and
 * pcap3 (retry): nodes 0, 1, 2; blocks on home node 2.
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

TestSuite(queued, .init = setup_q, .fini = tu_teardown);
TestSuite(retry_mode, .init = setup_r, .fini = tu_teardown);

static struct lcf_result
req(uint8_t type, uint16_t node, uint32_t seq, uint64_t tag)
{
	struct lcf_msg m = tu_msg(type, node, 0, seq, tag);
	struct lcf_result r;

	tu_send(&m, &r, NULL);
	return r;
}

/* QXFER (one pass) of holder event (node, seq) with count and next id. */
static struct lcf_result
qxfer(uint16_t node, uint32_t seq, uint64_t tag, uint32_t count, uint32_t next)
{
	struct lcf_msg m = tu_msg(LCF_T_QXFER, node, 0, seq, tag);
	struct lcf_result r;
	int passes;

	m.aux = count;
	m.copyset = next;
	tu_send(&m, &r, &passes);
	cr_assert_eq(passes, 1);
	cr_assert_eq(r.out.type, LCF_T_QXFER_ACK);
	cr_assert_eq(r.to_nodes, BIT(node));
	cr_assert(r.from_switch);
	cr_assert_eq(r.out.aux >> 24, LCF_T_QXFER);
	return r;
}

static struct lcf_result
qrelease(uint16_t node, uint32_t seq, uint64_t tag, uint32_t count, uint8_t gs,
	 uint32_t cs, int *passes)
{
	struct lcf_msg m = tu_msg(LCF_T_QRELEASE, node, 0, seq, tag);
	struct lcf_result r;

	m.aux = count;
	m.gstatus = gs;
	m.copyset = cs;
	tu_send(&m, &r, passes);
	cr_assert_eq(r.out.type, LCF_T_QXFER_ACK);
	cr_assert_eq(r.to_nodes, BIT(node));
	return r;
}

static uint32_t
reason(const struct lcf_result *r)
{
	return (r->out.aux >> 16) & 0xff;
}

/* Node 0's WRITE_MISS holds the block (Unshared at home 2); node 1's is
 * forwarded to it. */
static uint64_t
holder_and_one_forward(void)
{
	uint64_t tag = tu_tag(2, 1);
	struct lcf_result r;

	tu_add(tag, LCF_GS_UNSHARED, 0);
	r = req(LCF_T_WRITE_MISS, 0, 1, tag);
	cr_assert_eq(r.action, LCF_A_FWD_HOME);
	cr_assert_eq(tu_block(tag).qholder, lcf_q_id(0, 0, 1));
	cr_assert_eq(tu_block(tag).fwd_cnt, 0);
	r = req(LCF_T_WRITE_MISS, 1, 1, tag);
	cr_assert_eq(r.action, LCF_A_FWD_HOLDER);
	cr_assert_eq(r.to_nodes, BIT(0), "to the holder's node");
	cr_assert_not(r.from_switch);
	cr_assert_eq(r.out.type, LCF_T_WRITE_MISS, "the request itself");
	cr_assert_eq(r.out.node, 1);
	cr_assert_eq(r.out.flags, LCF_F_IN_SWITCH);
	cr_assert_eq(r.out.aux, lcf_q_fwd_aux(lcf_q_id(0, 0, 1), 1));
	cr_assert_eq(tu_block(tag).fwd_cnt, 1);
	return tag;
}

Test(queued, conflict_is_forwarded_not_nacked)
{
	uint64_t tag = holder_and_one_forward();

	cr_assert_eq(tu_count(LCF_A_NACK_LOCK_BUSY), 0);
	cr_assert_eq(tu_count(LCF_A_FWD_HOLDER), 1);
	/* M -> S: a read meeting the writer is queued too, index 2. */
	cr_assert_eq(req(LCF_T_READ_MISS, 2, 1, tag).action, LCF_A_FWD_HOLDER);
	cr_assert_eq(tu_block(tag).fwd_cnt, 2);
	cr_assert_eq(tu_block(tag).lock, LCF_LOCK_WRITER);
}

Test(queued, holder_retransmission_passes_on_its_score)
{
	uint64_t tag = holder_and_one_forward();

	cr_assert_eq(req(LCF_T_WRITE_MISS, 0, 1, tag).action, LCF_A_FWD_HOME);
	cr_assert_eq(tu_count(LCF_A_RETRANSMIT_PASS), 1);
	cr_assert_eq(tu_block(tag).fwd_cnt, 1, "not forwarded to itself");
}

Test(queued, aborted_event_is_not_forwarded)
{
	uint64_t tag = holder_and_one_forward();
	struct lcf_msg ab = tu_msg(LCF_T_ABORT, 2, 0, 1, tag);
	struct lcf_result r;

	/* Node 2 abandons seq 1 (no copy holds a lock: on to the home); a
	 * late copy of its request is then over: NACKed, not queued. */
	tu_send(&ab, &r, NULL);
	cr_assert_eq(r.action, LCF_A_ABORT_HOME);
	cr_assert_eq(req(LCF_T_WRITE_MISS, 2, 1, tag).action,
		     LCF_A_NACK_LOCK_BUSY);
	cr_assert_eq(tu_block(tag).fwd_cnt, 1, "not counted");
}

Test(queued, readers_are_never_queued)
{
	uint64_t tag = tu_tag(2, 2);

	tu_add(tag, LCF_GS_SHARED, BIT(2));
	/* I -> S and S -> S: granted. */
	cr_assert_eq(req(LCF_T_READ_MISS, 0, 1, tag).action,
		     LCF_A_FWD_PROVIDER);
	cr_assert_eq(req(LCF_T_READ_MISS, 1, 1, tag).action,
		     LCF_A_FWD_PROVIDER);
	cr_assert_eq(tu_block(tag).qholder, 0, "read locks make no holder");
	/* A write meeting readers is their waiting writer (test_pipeline_
	 * qwait.c): QWAIT, not a NACK. */
	cr_assert_eq(req(LCF_T_WRITE_MISS, 2, 1, tag).action, LCF_A_QWAIT);
	cr_assert_eq(tu_block(tag).fwd_cnt, LCF_Q_SWITCH);
}

Test(queued, failed_check_makes_no_holder)
{
	uint64_t tag = tu_tag(2, 3);
	struct lcf_result r;
	int passes;

	tu_add(tag, LCF_GS_UNSHARED, 0);
	/* WRITE_SHARED by a node not in the copyset: check fails. */
	r = tu_send_meta(LCF_T_WRITE_SHARED, 0, 1, tag, 0, 0, &passes);
	cr_assert_eq(r.action, LCF_A_NACK_CHECK_FAIL);
	cr_assert_eq(passes, 2);
	cr_assert_eq(tu_block(tag).qholder, 0);
	cr_assert_eq(tu_block(tag).lock, 0);
}

Test(queued, qxfer_denied_while_a_forward_is_unseen)
{
	uint64_t tag = holder_and_one_forward();
	struct lcf_result r = qxfer(0, 1, tag, 0, lcf_q_id(1, 0, 1));

	cr_assert_eq(r.action, LCF_A_QXFER_DENIED);
	cr_assert_eq(r.out.flags, LCF_F_IN_SWITCH | LCF_F_FAIL);
	cr_assert_eq(reason(&r), LCF_Q_COUNT);
	cr_assert_eq(r.out.aux & 0xffff, 1, "the switch's FWD_CNT");
	cr_assert_eq(tu_block(tag).qholder, lcf_q_id(0, 0, 1), "unchanged");
	cr_assert_eq(tu_block(tag).fwd_cnt, 1);
}

Test(queued, qxfer_approved_moves_the_queue_keeps_the_lock)
{
	uint64_t tag = holder_and_one_forward();
	struct lcf_result r = qxfer(0, 1, tag, 1, lcf_q_id(1, 0, 1));

	cr_assert_eq(r.action, LCF_A_QXFER_OK);
	cr_assert_eq(r.out.flags, LCF_F_IN_SWITCH);
	cr_assert_eq(reason(&r), LCF_Q_OK);
	cr_assert_eq(tu_block(tag).qholder, lcf_q_id(1, 0, 1));
	cr_assert_eq(tu_block(tag).fwd_cnt, 0, "both reset");
	cr_assert_eq(tu_block(tag).lock, LCF_LOCK_WRITER, "held by node 1 now");
	/* The holder's event ended in SCOREBOARD (its count claimed), not in
	 * LAST-UNLOCK: a late copy of its request is over, never forwarded. */
	cr_assert_eq(tu_requester(0, 0).last_unlock, 0);
	cr_assert_eq(tu_requester(0, 0).sb_state[1], LCF_SB_STATE_CLAIMED);
	cr_assert_eq(req(LCF_T_WRITE_MISS, 0, 1, tag).action,
		     LCF_A_NACK_LOCK_BUSY);
	cr_assert_eq(tu_block(tag).fwd_cnt, 0, "not queued");
	/* Node 2 now queues at node 1, index 1 of the new tenure. */
	r = req(LCF_T_WRITE_MISS, 2, 1, tag);
	cr_assert_eq(r.action, LCF_A_FWD_HOLDER);
	cr_assert_eq(r.to_nodes, BIT(1));
	cr_assert_eq(r.out.aux, lcf_q_fwd_aux(lcf_q_id(1, 0, 1), 1));
	/* A duplicate of the approved QXFER: not the holder any more. */
	r = qxfer(0, 1, tag, 1, lcf_q_id(1, 0, 1));
	cr_assert_eq(reason(&r), LCF_Q_NOT_HOLDER);
	cr_assert_eq(tu_block(tag).qholder, lcf_q_id(1, 0, 1));
}

Test(queued, qxfer_refuses_a_bad_next_and_a_non_holder)
{
	uint64_t tag = holder_and_one_forward();

	struct lcf_result r;

	r = qxfer(0, 1, tag, 1, 0);
	cr_assert_eq(reason(&r), LCF_Q_BAD_NEXT);
	r = qxfer(0, 1, tag, 1, lcf_q_id(5, 0, 1));
	cr_assert_eq(reason(&r), LCF_Q_BAD_NEXT,
		     "node 5 is not in the topology");
	r = qxfer(1, 1, tag, 1, lcf_q_id(2, 0, 1));
	cr_assert_eq(reason(&r), LCF_Q_NOT_HOLDER);
	cr_assert_eq(tu_block(tag).qholder, lcf_q_id(0, 0, 1));
	cr_assert_eq(tu_block(tag).fwd_cnt, 1);
}

Test(queued, qrelease_releases_and_installs)
{
	uint64_t tag = holder_and_one_forward();
	struct lcf_result r;
	int passes;

	cr_assert_eq(qxfer(0, 1, tag, 1, lcf_q_id(1, 0, 1)).action,
		     LCF_A_QXFER_OK);
	/* Denied while FWD_CNT differs. */
	req(LCF_T_WRITE_MISS, 2, 1, tag);
	r = qrelease(1, 1, tag, 0, LCF_GS_MODIFIED, BIT(1), &passes);
	cr_assert_eq(passes, 1);
	cr_assert_eq(reason(&r), LCF_Q_COUNT);
	cr_assert_eq(tu_block(tag).lock, LCF_LOCK_WRITER);
	/* Node 1 hands over to node 2, which then releases. */
	cr_assert_eq(qxfer(1, 1, tag, 1, lcf_q_id(2, 0, 1)).action,
		     LCF_A_QXFER_OK);
	r = qrelease(2, 1, tag, 0, LCF_GS_MODIFIED, BIT(2), &passes);
	cr_assert_eq(passes, 2);
	cr_assert_eq(r.action, LCF_A_QRELEASE_EXEC);
	cr_assert_eq(reason(&r), LCF_Q_OK);
	cr_assert_eq(r.out.gstatus, LCF_GS_MODIFIED);
	cr_assert_eq(r.out.copyset, BIT(2));
	cr_assert_eq(tu_block(tag).lock, 0);
	cr_assert_eq(tu_block(tag).qholder, 0);
	cr_assert_eq(tu_block(tag).fwd_cnt, 0);
	cr_assert_eq(tu_block(tag).gstatus, LCF_GS_MODIFIED);
	cr_assert_eq(tu_block(tag).copyset, BIT(2));
	/* A duplicate changes nothing. */
	r = qrelease(2, 1, tag, 0, LCF_GS_UNSHARED, 0, &passes);
	cr_assert_eq(reason(&r), LCF_Q_NOT_HOLDER);
	cr_assert_eq(tu_block(tag).copyset, BIT(2));
	/* The lock is free: the next writer is granted. */
	cr_assert_eq(req(LCF_T_WRITE_MISS, 0, 2, tag).action, LCF_A_FWD_OWNER);
}

Test(queued, qrelease_lost_second_pass_is_retransmitted)
{
	uint64_t tag = tu_tag(2, 4);
	struct lcf_msg m = tu_msg(LCF_T_QRELEASE, 0, 0, 1, tag);
	struct lcf_result r;
	int passes;

	tu_add(tag, LCF_GS_UNSHARED, 0);
	req(LCF_T_WRITE_MISS, 0, 1, tag);
	m.gstatus = LCF_GS_MODIFIED;
	m.copyset = BIT(0);
	tu_pass(&m, false, 0, &r); /* first pass; its second pass is lost */
	cr_assert_eq(r.verdict, LCF_V_RESUBMIT);
	cr_assert_eq(tu_block(tag).fwd_cnt, LCF_Q_CLOSING);
	/* Between the passes a conflicting request is NACKed. */
	cr_assert_eq(req(LCF_T_WRITE_MISS, 1, 1, tag).action,
		     LCF_A_NACK_LOCK_BUSY);
	r = qrelease(0, 1, tag, 0, LCF_GS_MODIFIED, BIT(0), &passes);
	cr_assert_eq(passes, 2);
	cr_assert_eq(r.action, LCF_A_QRELEASE_EXEC);
	cr_assert_eq(tu_block(tag).lock, 0);
	cr_assert_eq(tu_block(tag).qholder, 0);
}

Test(queued, qrelease_second_pass_twice_releases_once)
{
	uint64_t tag = tu_tag(2, 5);
	struct lcf_msg m = tu_msg(LCF_T_QRELEASE, 0, 0, 1, tag);
	struct lcf_result a, b;

	tu_add(tag, LCF_GS_UNSHARED, 0);
	req(LCF_T_WRITE_MISS, 0, 1, tag);
	m.gstatus = LCF_GS_MODIFIED;
	m.copyset = BIT(0);
	tu_pass(&m, false, 0, &a);
	tu_pass(&m, false, 0, &b); /* a duplicate's first pass */
	cr_assert_eq(a.verdict, LCF_V_RESUBMIT);
	cr_assert_eq(b.verdict, LCF_V_RESUBMIT);
	tu_pass(&m, true, a.resubmit_meta, &a);
	cr_assert_eq(a.action, LCF_A_QRELEASE_EXEC);
	/* Node 1 takes the free lock before the duplicate's second pass. */
	cr_assert_eq(req(LCF_T_WRITE_MISS, 1, 1, tag).action, LCF_A_FWD_OWNER);
	tu_pass(&m, true, b.resubmit_meta, &b);
	cr_assert_eq(b.action, LCF_A_QRELEASE_DUP);
	cr_assert_eq(tu_block(tag).lock, LCF_LOCK_WRITER, "node 1's lock kept");
	cr_assert_eq(tu_block(tag).qholder, lcf_q_id(1, 0, 1));
}

Test(queued, tag_miss_goes_home)
{
	uint64_t tag = tu_tag(2, 6);
	struct lcf_msg m = tu_msg(LCF_T_QXFER, 0, 0, 1, tag);
	struct lcf_result r;

	tu_send(&m, &r, NULL);
	cr_assert_eq(r.action, LCF_A_TAG_MISS_HOME);
	cr_assert_eq(r.to_nodes, BIT(2));
}

Test(queued, footprint_counts_qstate)
{
	struct lcf_footprint fp;

	lcf_pipeline_footprint(lcf_pipeline_config(tu_p), &fp);
	/* QSTATE per slot, QRELEASE's gate per requester */
	cr_assert_eq(fp.qstate,
		     2 * 8 * 8 + LCF_MAX_NODES * tu_topo.threads_per_node * 8);
}

Test(retry_mode, conflict_is_nacked_and_qxfer_denied)
{
	uint64_t tag = tu_tag(2, 1);
	struct lcf_footprint fp;
	struct lcf_result r;

	tu_add(tag, LCF_GS_UNSHARED, 0);
	cr_assert_eq(req(LCF_T_WRITE_MISS, 0, 1, tag).action, LCF_A_FWD_HOME);
	cr_assert_eq(req(LCF_T_WRITE_MISS, 1, 1, tag).action,
		     LCF_A_NACK_LOCK_BUSY);
	cr_assert_eq(tu_block(tag).qholder, 0);
	r = qxfer(0, 1, tag, 0, lcf_q_id(1, 0, 1));
	cr_assert_eq(reason(&r), LCF_Q_NOT_HOLDER);
	cr_assert_eq(tu_block(tag).lock, LCF_LOCK_WRITER);
	lcf_pipeline_footprint(lcf_pipeline_config(tu_p), &fp);
	cr_assert_eq(fp.qstate, 0);
}
