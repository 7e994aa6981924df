/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Queued locks at the home agent (docs/QUEUED-LOCKS.md section 11): the
 * pure QSTATE decisions (na_home_queue.h) and the home agent fed messages
 * through na_home_handle().
 *
 * Why one file of this length: the pure decisions and the agent's
 * handling of them share one home and its helpers below, and a failing
 * agent case reads next to the decision it applies.
 */
#include <criterion/criterion.h>

#include "na_home.h"
#include "na_home_queue.h"
#include "na_msg.h"
#include "na_proto.h"
#include "test_na_topo.h"
#include "topo.h"

static struct topo t;
static struct na_home h;
static struct na_out out;

static void
start(bool queued)
{
	test_na_topo4(&t);
	t.sw.queued = queued;
	cr_assert_eq(na_home_init(&h, &t, 0, NA_CHUNK_SIZE * 2, 7), 0);
}

static void
setup(void)
{
	start(true);
}

static void
teardown(void)
{
	na_home_fini(&h);
}

static struct lcf_msg
req(uint8_t type, uint16_t node, uint32_t seq, uint32_t blk)
{
	return (struct lcf_msg){ .version = 1,
				 .type = type,
				 .node = node,
				 .thread = 1,
				 .seq = seq,
				 .tag = na_home_tag(&h, blk) };
}

static void
feed(struct lcf_msg m)
{
	na_out_reset(&out);
	na_home_handle(&h, &m, NULL, 0, &out);
	cr_assert_eq(out.overflow, 0);
}

/* The last message out (the ACK after any data segments). */
static const struct lcf_msg *
last(void)
{
	cr_assert_gt(out.n, 0);
	return &out.m[out.n - 1].msg;
}

static uint32_t
id(uint16_t node, uint32_t seq)
{
	return lcf_q_id(node, 1, seq);
}

/* Node `node`'s event `seq` takes block 0's write lock with `type`. */
static void
take_as(uint8_t type, uint16_t node, uint32_t seq)
{
	feed(req(type, node, seq, 0));
	cr_assert_neq(last()->type, NA_MSG_NACK);
	cr_assert_neq(last()->type, NA_MSG_QFWD);
	cr_assert(h.blk[0].writer);
}

static void
take(uint16_t node, uint32_t seq)
{
	take_as(LCF_T_WRITE_MISS, node, seq);
}

/* QXFER (next != 0) or QRELEASE (next == 0) of (node, seq) for block 0. */
static void
qend(uint16_t node, uint32_t seq, uint32_t count, uint32_t next, uint8_t gs,
     uint32_t cs)
{
	struct lcf_msg m = req(next ? LCF_T_QXFER : LCF_T_QRELEASE, node, seq,
			       0);

	m.aux = count;
	m.copyset = next ? next : cs;
	m.gstatus = next ? 0 : gs;
	feed(m);
}

static void
assert_qack(uint8_t orig, enum lcf_q_reason why, uint32_t fwd_cnt)
{
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_QXFER_ACK);
	cr_assert_eq(out.m[0].msg.aux, lcf_q_ack_aux(orig, why, fwd_cnt));
	cr_assert_eq(!!(out.m[0].msg.flags & LCF_F_FAIL), why != LCF_Q_OK);
	cr_assert_not(out.m[0].msg.flags & LCF_F_IN_SWITCH);
}

static void
assert_qfwd(uint8_t type, uint16_t node, uint32_t seq, uint32_t holder,
	    uint32_t index)
{
	const struct lcf_msg *f = &out.m[0].msg;

	cr_assert_eq(out.n, 1);
	cr_assert_eq(f->type, NA_MSG_QFWD);
	cr_assert_eq(out.m[0].dst, lcf_q_id_node(holder));
	cr_assert_eq(f->dst_node, lcf_q_id_node(holder));
	cr_assert_eq(f->node, node);
	cr_assert_eq(f->thread, 1);
	cr_assert_eq(f->seq, seq);
	cr_assert_eq(f->tag, na_home_tag(&h, 0));
	cr_assert_eq(f->flags, 0);
	cr_assert_eq(f->gstatus, h.blk[0].gs);
	cr_assert_eq(f->copyset, h.blk[0].cs);
	cr_assert_eq(f->aux, lcf_q_fwd_aux(holder, index));
	cr_assert_eq(f->len, 4);
	cr_assert_eq(((const uint8_t *)out.m[0].payload)[0], type);
	cr_assert_eq(((const uint8_t *)out.m[0].payload)[1], 0);
}

TestSuite(hq, .init = setup, .fini = teardown);

/* ---- pure QSTATE ------------------------------------------------------- */

Test(hq, pure_busy_needs_a_writer_a_holder_and_room)
{
	struct na_hqs q = { 0, 0, 0 };
	uint32_t aux = 0;
	uint16_t to = 0;

	cr_assert_not(na_hq_busy(&h.qcfg, &q, true, &to, &aux)); /* no holder */
	na_hq_granted(&h.qcfg, &q, id(2, 5), 5);
	cr_assert_not(na_hq_busy(&h.qcfg, &q, false, &to, &aux)); /* readers */
	cr_assert(na_hq_busy(&h.qcfg, &q, true, &to, &aux));
	cr_assert_eq(to, 2);
	cr_assert_eq(aux, lcf_q_fwd_aux(id(2, 5), 1));
	cr_assert_eq(q.fwd, 1);
	q.fwd = LCF_Q_COUNT_MASK; /* saturated */
	cr_assert_not(na_hq_busy(&h.qcfg, &q, true, &to, &aux));
	q.fwd = LCF_Q_CLOSING;
	cr_assert_not(na_hq_busy(&h.qcfg, &q, true, &to, &aux));
	cr_assert_eq(q.fwd, LCF_Q_CLOSING);
}

Test(hq, pure_xfer_reasons)
{
	struct na_hqs q = { 0, 0, 0 };
	uint32_t f = 0;

	na_hq_granted(&h.qcfg, &q, id(1, 10), 10);
	q.fwd = 2;
	cr_assert_eq(na_hq_xfer(&h.qcfg, &q, id(3, 1), 1, 2, id(2, 1), 1, &f),
		     LCF_Q_NOT_HOLDER);
	cr_assert_eq(na_hq_xfer(&h.qcfg, &q, id(1, 10), 10, 1, id(2, 1), 1, &f),
		     LCF_Q_COUNT);
	cr_assert_eq(f, 2);
	cr_assert_eq(na_hq_xfer(&h.qcfg, &q, id(1, 10), 10, 2, 0, 0, &f),
		     LCF_Q_BAD_NEXT);
	cr_assert_eq(na_hq_xfer(&h.qcfg, &q, id(1, 10), 10, 2, id(9, 1), 1, &f),
		     LCF_Q_BAD_NEXT); /* no node 9 */
	cr_assert_eq(na_hq_xfer(&h.qcfg, &q, id(1, 10), 10, 2,
				lcf_q_id(2, t.threads_per_node, 1), 1, &f),
		     LCF_Q_BAD_NEXT); /* no such thread */
	cr_assert_eq(q.holder, id(1, 10));
	cr_assert_eq(q.fwd, 2);
	cr_assert_eq(na_hq_xfer(&h.qcfg, &q, id(1, 10), 10, 2, id(2, 1), 1, &f),
		     LCF_Q_OK);
	cr_assert_eq(q.holder, id(2, 1));
	cr_assert_eq(q.fwd, 0);
	/* The old holder's copy again: no longer the holder. */
	cr_assert_eq(na_hq_xfer(&h.qcfg, &q, id(1, 10), 10, 2, id(2, 1), 1, &f),
		     LCF_Q_NOT_HOLDER);
}

Test(hq, pure_release_two_steps)
{
	struct na_hqs q = { 0, 0, 0 };
	uint32_t f = 0;

	na_hq_granted(&h.qcfg, &q, id(1, 10), 10);
	q.fwd = 1;
	cr_assert_eq(na_hq_release1(&h.qcfg, &q, id(1, 10), 10, 0, &f),
		     LCF_Q_COUNT);
	cr_assert_eq(na_hq_release1(&h.qcfg, &q, id(2, 10), 10, 1, &f),
		     LCF_Q_NOT_HOLDER);
	cr_assert_eq(na_hq_release1(&h.qcfg, &q, id(1, 10), 10, 1, &f),
		     LCF_Q_OK);
	cr_assert_eq(q.fwd, LCF_Q_CLOSING);
	/* CLOSING: a QXFER is refused, a retransmitted QRELEASE approved. */
	cr_assert_eq(na_hq_xfer(&h.qcfg, &q, id(1, 10), 10, 0, id(2, 1), 1, &f),
		     LCF_Q_IS_CLOSING);
	cr_assert_eq(na_hq_release1(&h.qcfg, &q, id(1, 10), 10, 7, &f),
		     LCF_Q_OK);
	cr_assert_not(na_hq_release2(&q, id(2, 10), 10));
	cr_assert(na_hq_release2(&q, id(1, 10), 10));
	cr_assert_eq(q.holder, 0);
	cr_assert_eq(q.fwd, 0);
	cr_assert_not(na_hq_release2(&q, id(1, 10), 10)); /* second copy */
}

Test(hq, pure_node_failure_and_holds)
{
	struct na_hqs q = { 0, 0, 0 };

	cr_assert_not(na_hq_held_by(&q, 0)); /* id 0 is nobody */
	cr_assert_not(na_hq_holds(&q, 0, 0));
	na_hq_granted(&h.qcfg, &q, id(2, 3), 3);
	cr_assert(na_hq_held_by(&q, 2));
	cr_assert_not(na_hq_held_by(&q, 1));
	cr_assert(na_hq_holds(&q, id(2, 3), 3));
	na_hq_clear(&q);
	cr_assert_not(na_hq_held_by(&q, 2));
}

/* ---- the home agent -------------------------------------------------------
 */

Test(hq, forward_to_holder_m_to_m_and_m_to_s)
{
	take(1, 10);
	cr_assert_eq(h.blk[0].q.holder, id(1, 10));
	cr_assert_eq(h.blk[0].q.fwd, 0);
	feed(req(LCF_T_WRITE_MISS, 2, 20, 0)); /* M->M */
	assert_qfwd(LCF_T_WRITE_MISS, 2, 20, id(1, 10), 1);
	feed(req(LCF_T_READ_MISS, 3, 30, 0)); /* M->S */
	assert_qfwd(LCF_T_READ_MISS, 3, 30, id(1, 10), 2);
	cr_assert_eq(h.blk[0].q.fwd, 2);
	cr_assert_eq(h.st.q_forwards, 2);
	cr_assert_eq(h.st.pipeline_nack_lock, 0);
	/* A retransmission meets the busy lock again: a new index (the
	 * holder counts it and drops the duplicate), nothing recorded. */
	feed(req(LCF_T_WRITE_MISS, 2, 20, 0));
	assert_qfwd(LCF_T_WRITE_MISS, 2, 20, id(1, 10), 3);
	/* The holder's own retransmission: its recorded decision, no forward. */
	feed(req(LCF_T_WRITE_MISS, 1, 10, 0));
	cr_assert_eq(last()->type, NA_MSG_ACK);
	cr_assert_eq(h.blk[0].q.fwd, 3);
	cr_assert_eq(h.st.duplicates, 1);
}

Test(hq, readers_never_queued)
{
	feed(req(LCF_T_READ_MISS, 1, 10, 0)); /* I->S */
	cr_assert_eq(h.blk[0].readers, 1);
	cr_assert_eq(h.blk[0].q.holder, 0);
	feed(req(LCF_T_READ_MISS, 2, 20, 0)); /* S->S */
	cr_assert_eq(last()->type, NA_MSG_ACK);
	feed(req(LCF_T_WRITE_MISS, 3, 30, 0)); /* a write meeting readers */
	cr_assert_eq(last()->type, NA_MSG_NACK);
	cr_assert_eq(h.st.pipeline_nack_lock, 1);
	cr_assert_eq(h.st.q_forwards, 0);
}

Test(hq, failed_check_makes_no_holder)
{
	/* WRITE_SHARED of a block the node has no copy of. */
	feed(req(LCF_T_WRITE_SHARED, 1, 10, 0));
	cr_assert_eq(last()->type, NA_MSG_NACK);
	cr_assert_not(h.blk[0].writer);
	cr_assert_eq(h.blk[0].q.holder, 0);
}

Test(hq, retry_mode_unchanged)
{
	na_home_fini(&h);
	start(false);
	take(1, 10);
	cr_assert_eq(h.blk[0].q.holder, 0); /* nothing written */
	feed(req(LCF_T_WRITE_MISS, 2, 20, 0));
	cr_assert_eq(out.n, 1);
	cr_assert_eq(last()->type, NA_MSG_NACK);
	cr_assert_eq(h.st.pipeline_nack_lock, 1);
	qend(1, 10, 0, 0, LCF_GS_MODIFIED, 1u << 1); /* QRELEASE */
	assert_qack(LCF_T_QRELEASE, LCF_Q_NOT_HOLDER, 0);
	cr_assert(h.blk[0].writer);
	qend(1, 10, 0, id(2, 20), 0, 0); /* QXFER */
	assert_qack(LCF_T_QXFER, LCF_Q_NOT_HOLDER, 0);
	cr_assert_eq(h.st.qxfer_denied, 2);
}

Test(hq, qxfer_denied_then_approved)
{
	take(1, 10);
	feed(req(LCF_T_WRITE_MISS, 2, 20, 0));
	feed(req(LCF_T_WRITE_MISS, 3, 30, 0));
	qend(1, 10, 1, id(2, 20), 0, 0); /* one forward still on its way */
	assert_qack(LCF_T_QXFER, LCF_Q_COUNT, 2);
	qend(3, 30, 2, id(2, 20), 0, 0);
	assert_qack(LCF_T_QXFER, LCF_Q_NOT_HOLDER, 2);
	qend(1, 10, 2, id(9, 1), 0, 0);
	assert_qack(LCF_T_QXFER, LCF_Q_BAD_NEXT, 2);
	cr_assert_eq(h.st.qxfer_denied, 3);
	/* Denials are not recorded: the same seq with the right count. */
	qend(1, 10, 2, id(2, 20), 0, 0);
	assert_qack(LCF_T_QXFER, LCF_Q_OK, 2);
	cr_assert_eq(out.m[0].dst, 1);
	cr_assert_eq(h.st.qxfer_approved, 1);
	cr_assert_eq(h.blk[0].q.holder, id(2, 20));
	cr_assert_eq(h.blk[0].q.fwd, 0);
	cr_assert(h.blk[0].writer); /* the lock stays held */
	/* Later requests go to the new holder, a new tenure's indices. */
	feed(req(LCF_T_READ_MISS, 3, 31, 0));
	assert_qfwd(LCF_T_READ_MISS, 3, 31, id(2, 20), 1);
	/* The old tenure's WRITE_UNLOCK releases nothing now. */
	feed(req(LCF_T_WRITE_UNLOCK, 1, 10, 0));
	cr_assert_eq(last()->type, NA_MSG_UNLOCK_ACK);
	cr_assert(h.blk[0].writer);
	cr_assert_eq(h.blk[0].q.holder, id(2, 20));
}

Test(hq, qxfer_closing)
{
	uint32_t f;

	take(1, 10);
	cr_assert_eq(na_hq_release1(&h.qcfg, &h.blk[0].q, id(1, 10), 10, 0, &f),
		     LCF_Q_OK);
	qend(1, 10, 0, id(2, 20), 0, 0);
	assert_qack(LCF_T_QXFER, LCF_Q_IS_CLOSING, LCF_Q_COUNT_MASK & 0);
	feed(req(LCF_T_WRITE_MISS, 2, 20, 0)); /* closing: NACK */
	cr_assert_eq(last()->type, NA_MSG_NACK);
}

Test(hq, qrelease_installs_and_duplicate_changes_nothing)
{
	take(1, 10);
	feed(req(LCF_T_WRITE_MISS, 2, 20, 0));
	qend(1, 10, 0, 0, LCF_GS_MODIFIED, 1u << 1);
	assert_qack(LCF_T_QRELEASE, LCF_Q_COUNT, 1);
	cr_assert(h.blk[0].writer);
	qend(1, 10, 1, 0, LCF_GS_MODIFIED, 1u << 1);
	assert_qack(LCF_T_QRELEASE, LCF_Q_OK, 1);
	cr_assert_not(h.blk[0].writer);
	cr_assert_eq(h.blk[0].gs, LCF_GS_MODIFIED);
	cr_assert_eq(h.blk[0].cs, 1u << 1);
	cr_assert_eq(out.m[0].msg.gstatus, LCF_GS_MODIFIED);
	cr_assert_eq(out.m[0].msg.copyset, 1u << 1);
	cr_assert_eq(h.blk[0].q.holder, 0);
	cr_assert_eq(h.blk[0].q.fwd, 0);
	cr_assert_eq(h.st.qrelease_executed, 1);
	/* Node 3 takes the lock; a duplicate QRELEASE does not release it:
	 * `not_holder`, which the holder takes as approved. */
	take(3, 30);
	qend(1, 10, 1, 0, LCF_GS_MODIFIED, 1u << 1);
	assert_qack(LCF_T_QRELEASE, LCF_Q_NOT_HOLDER, 0);
	cr_assert_eq(h.st.qrelease_duplicate, 1);
	cr_assert(h.blk[0].writer);
	cr_assert_eq(h.blk[0].q.holder, id(3, 30));
	cr_assert_eq(h.blk[0].cs, 1u << 1); /* node 3's grant: metadata kept */
	/* An older one: the same answer. */
	qend(1, 9, 1, 0, 0, 0);
	assert_qack(LCF_T_QRELEASE, LCF_Q_NOT_HOLDER, 0);
	cr_assert(h.blk[0].writer);
}

Test(hq, duplicated_qxfer_answered_not_holder)
{
	take(1, 10);
	qend(1, 10, 0, id(2, 20), 0, 0);
	assert_qack(LCF_T_QXFER, LCF_Q_OK, 0);
	qend(1, 10, 0, id(2, 20), 0, 0);
	assert_qack(LCF_T_QXFER, LCF_Q_NOT_HOLDER, 0);
	cr_assert_eq(h.st.qxfer_approved, 1);
	cr_assert_eq(h.st.qxfer_duplicate, 1);
	cr_assert_eq(h.blk[0].q.holder, id(2, 20));
}

/* Node 2, queued behind node 1, is declared dead while node 1 holds (the
 * drain then leaves the block: not node 2's tenure): a QXFER naming it is
 * refused, or the tenure would be a dead node's and node 3's watchdog copy
 * forwarded to it for ever (qfault.pml HOME N=3); the holder, its queue
 * rid of node 2, hands to node 3. */
Test(hq, qxfer_to_a_dead_node_refused)
{
	take(1, 10);
	feed(req(LCF_T_WRITE_MISS, 2, 20, 0));
	feed(req(LCF_T_WRITE_MISS, 3, 30, 0));
	h.dead |= 1u << 2;
	qend(1, 10, 2, id(2, 20), 0, 0);
	assert_qack(LCF_T_QXFER, LCF_Q_BAD_NEXT, 2);
	cr_assert_eq(h.blk[0].q.holder, id(1, 10));
	cr_assert_eq(h.blk[0].q_from, 0);
	qend(1, 10, 2, id(3, 30), 0, 0);
	assert_qack(LCF_T_QXFER, LCF_Q_OK, 2);
	cr_assert_eq(h.blk[0].q.holder, id(3, 30));
}

/* Node 1 holds and is declared dead: a request meeting its tenure is
 * NACKed, not forwarded, until the rejoin (the drain rebuilds the lock
 * first); node 1's new process may wait with the same queue id and would
 * queue a forward the rebuilt FWD_CNT does not count (qrejoin.pml FWD). */
Test(hq, tenure_of_a_dead_node_not_forwarded)
{
	take(1, 10);
	h.dead |= 1u << 1;
	feed(req(LCF_T_READ_MISS, 2, 20, 0));
	cr_assert_eq(out.n, 1);
	cr_assert_eq(last()->type, NA_MSG_NACK);
	cr_assert_eq(h.blk[0].q.fwd, 0);
	cr_assert_eq(h.st.q_forwards, 0);
	cr_assert_eq(h.st.pipeline_nack_lock, 1);
	h.dead &= ~(1u << 1);
	feed(req(LCF_T_READ_MISS, 2, 21, 0));
	assert_qfwd(LCF_T_READ_MISS, 2, 21, id(1, 10), 1);
}

Test(hq, chain_of_tenures_and_late_copies)
{
	take(1, 10);
	feed(req(LCF_T_WRITE_MISS, 2, 20, 0));
	qend(1, 10, 1, id(2, 20), 0, 0);
	assert_qack(LCF_T_QXFER, LCF_Q_OK, 1);
	/* Node 2's tenure (granted by Q_GRANT) may write back. */
	{
		struct lcf_msg wb = req(NA_MSG_WB, 2, 20, 0);
		struct na_hreq *rq = &h.req[2 * h.tpn + 1];

		cr_assert(na_home_wb_allowed(rq, &h.blk[0], &wb));
		wb.seq = 21;
		cr_assert_not(na_home_wb_allowed(rq, &h.blk[0], &wb));
	}
	qend(2, 20, 0, 0, LCF_GS_MODIFIED, 1u << 2);
	assert_qack(LCF_T_QRELEASE, LCF_Q_OK, 0);
	cr_assert_not(h.blk[0].writer);
	/* A late copy of node 2's request (forwarded, never executed here):
	 * its event is over, NACK as a duplicate, the lock stays free. */
	feed(req(LCF_T_WRITE_MISS, 2, 20, 0));
	cr_assert_eq(last()->type, NA_MSG_NACK);
	cr_assert_not(h.blk[0].writer);
	cr_assert_eq(h.st.duplicates, 1);
	/* Its next event executes (it holds the block Modified). */
	take_as(LCF_T_EVICT_MODIFIED, 2, 21);
	cr_assert_eq(h.blk[0].q.holder, id(2, 21));
}

Test(hq, write_unlock_clears_qstate)
{
	take(1, 10);
	feed(req(LCF_T_WRITE_MISS, 2, 20, 0));
	cr_assert_eq(h.blk[0].q.fwd, 1);
	feed(req(LCF_T_WRITE_UNLOCK, 1, 10, 0));
	cr_assert_eq(last()->type, NA_MSG_UNLOCK_ACK);
	cr_assert_not(h.blk[0].writer);
	cr_assert_eq(h.blk[0].q.holder, 0);
	cr_assert_eq(h.blk[0].q.fwd, 0);
	/* The holder's QRELEASE after its unlock: not the holder (taken as
	 * approved). */
	qend(1, 10, 1, 0, 0, 0);
	assert_qack(LCF_T_QRELEASE, LCF_Q_NOT_HOLDER, 0);
	cr_assert_not(h.blk[0].writer);
	take(2, 20);
	cr_assert_eq(h.blk[0].q.holder, id(2, 20));
}

Test(hq, aborted_copy_not_forwarded)
{
	struct lcf_msg m;

	take(1, 10);
	m = req(LCF_T_WRITE_MISS, 2, 20, 0);
	m.flags = LCF_F_FAIL; /* the switch saw its event over */
	feed(m);
	cr_assert_eq(last()->type, NA_MSG_NACK);
	cr_assert_eq(h.blk[0].q.fwd, 0);
}

Test(hq, routing_and_names)
{
	struct lcf_msg m = req(LCF_T_QXFER, 1, 1, 0);

	cr_assert_eq(na_classify(&m, 0), NA_ROUTE_HOME);
	m.type = LCF_T_QRELEASE;
	cr_assert_eq(na_classify(&m, 0), NA_ROUTE_HOME);
	cr_assert_str_eq(na_type_name(NA_MSG_QFWD), "NA_QFWD");
	cr_assert_str_eq(na_type_name(NA_MSG_QXFER_ACK), "NA_QXFER_ACK");
	cr_assert_eq(NA_MSG_QFWD, 0x6f);
	cr_assert_eq(NA_MSG_QXFER_ACK, 0x6e);
}

/* ---- a given-up event's tenure ends out of its thread's unlock order
 * (issue 28 1(a)/(c) at the home; docs/MODEL.md qorder-home-old): block 0
 * is Y (node 2 holds it), block 1 is X. */

/* Node 2 holds Y; node 1's WRITE_MISS s5 is forwarded to it. */
static void
y_queued(void)
{
	take(2, 20);
	feed(req(LCF_T_WRITE_MISS, 1, 5, 0));
	assert_qfwd(LCF_T_WRITE_MISS, 1, 5, id(2, 20), 1);
}

Test(hq, given_up_tenure_released_after_a_later_unlock)
{
	y_queued();
	/* Node 1 gave s5 up; its thread reads X with s6 and unlocks it. */
	feed(req(LCF_T_READ_MISS, 1, 6, 1));
	cr_assert_neq(last()->type, NA_MSG_NACK);
	feed(req(LCF_T_READ_UNLOCK, 1, 6, 1));
	cr_assert_eq(last()->type, NA_MSG_UNLOCK_ACK);
	cr_assert_eq(h.blk[1].readers, 0);
	/* Node 2 hands Y over to s5; s5's passing slot releases it. */
	qend(2, 20, 1, id(1, 5), 0, 0);
	assert_qack(LCF_T_QXFER, LCF_Q_OK, 1);
	qend(1, 5, 0, 0, LCF_GS_MODIFIED, 1u << 1);
	/* (the LAST-EXECUTED rule: stale after s6's unlock, no answer, Y
	 * locked for good) */
	assert_qack(LCF_T_QRELEASE, LCF_Q_OK, 0);
	cr_assert_not(h.blk[0].writer);
	cr_assert_eq(h.blk[0].q.holder, 0);
	take(3, 30);
}

Test(hq, given_up_tenure_end_does_not_hide_an_earlier_unlock)
{
	/* Node 1 reads X with s4; its READ_UNLOCK s4 is delayed. */
	feed(req(LCF_T_READ_MISS, 1, 4, 1));
	cr_assert_neq(last()->type, NA_MSG_NACK);
	cr_assert_eq(h.blk[1].readers, 1);
	/* s5 on Y is queued, given up, handed over and released. */
	y_queued();
	qend(2, 20, 1, id(1, 5), 0, 0);
	assert_qack(LCF_T_QXFER, LCF_Q_OK, 1);
	qend(1, 5, 0, 0, LCF_GS_MODIFIED, 1u << 1);
	assert_qack(LCF_T_QRELEASE, LCF_Q_OK, 0);
	cr_assert_not(h.blk[0].writer);
	/* The retransmitted s4 unlock still releases X (the LAST-EXECUTED
	 * rule: stale, no answer, X keeps a reader that is gone). */
	feed(req(LCF_T_READ_UNLOCK, 1, 4, 1));
	cr_assert_eq(last()->type, NA_MSG_UNLOCK_ACK);
	cr_assert_eq(h.blk[1].readers, 0);
}

/* ---- the id keeps 16 bits of the seq (issue 28 item 2 at the home): a
 * delayed copy from the tenure 65,536 seqs older is not the current one. */

Test(hq, delayed_qrelease_of_an_aliased_tenure_not_approved)
{
	take(1, 1);
	qend(1, 1, 0, 0, 0, 0);
	assert_qack(LCF_T_QRELEASE, LCF_Q_OK, 0);
	/* s65537 takes Y (same id as s1) and holds it. */
	take(1, 65537);
	cr_assert_eq(h.blk[0].q.holder, id(1, 1));
	/* A delayed copy of the QRELEASE s1: not the holder, nothing freed. */
	qend(1, 1, 0, 0, 0, 0);
	assert_qack(LCF_T_QRELEASE, LCF_Q_NOT_HOLDER, 0);
	cr_assert(h.blk[0].writer);
	cr_assert_eq(h.blk[0].q.seq, 65537);
	/* The real one releases it. */
	qend(1, 65537, 0, 0, 0, 0);
	assert_qack(LCF_T_QRELEASE, LCF_Q_OK, 0);
	cr_assert_not(h.blk[0].writer);
}

Test(hq, delayed_qxfer_of_an_aliased_tenure_granted_by_qxfer)
{
	uint32_t s2 = 0x10014; /* 20 + 65,536 */

	/* Node 2's s20 holds; later node 2's s2 (same id) is handed Y. */
	take(2, 20);
	qend(2, 20, 0, 0, 0, 0);
	assert_qack(LCF_T_QRELEASE, LCF_Q_OK, 0);
	take(1, 10);
	feed(req(LCF_T_WRITE_MISS, 2, s2, 0));
	assert_qfwd(LCF_T_WRITE_MISS, 2, s2, id(1, 10), 1);
	qend(1, 10, 1, id(2, 20), 0, 0);
	assert_qack(LCF_T_QXFER, LCF_Q_OK, 1);
	cr_assert_eq(h.blk[0].q.seq, s2); /* from node 2's last forward */
	/* A delayed QRELEASE s20: not the holder. */
	qend(2, 20, 0, 0, 0, 0);
	assert_qack(LCF_T_QRELEASE, LCF_Q_NOT_HOLDER, 0);
	cr_assert(h.blk[0].writer);
	qend(2, s2, 0, 0, 0, 0);
	assert_qack(LCF_T_QRELEASE, LCF_Q_OK, 0);
	cr_assert_not(h.blk[0].writer);
}

Test(hq, pure_full_seq_of_an_id)
{
	cr_assert_eq(na_hq_seq_of(id(1, 5), 5), 5);
	cr_assert_eq(na_hq_seq_of(id(1, 5), 9), 5);
	cr_assert_eq(na_hq_seq_of(id(1, 0xfffe), 0x10003), 0xfffe);
	cr_assert_eq(na_hq_seq_of(id(1, 3), 0x10003), 0x10003);
	cr_assert_eq(na_hq_seq_of(id(1, 2), 1), 0xffff0002); /* wraps */
}
