/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Home agent decisions, fed messages through its pure interface.
 */
#include <errno.h>

#include <criterion/criterion.h>

#include "na_home.h"
#include "na_msg.h"
#include "na_seg.h"
#include "test_na_topo.h"
#include "topo.h"

static struct topo t;
static struct na_home h;
static struct na_out out;

static void
setup(void)
{
	test_na_topo4(&t);
	cr_assert_eq(na_home_init(&h, &t, 0, NA_CHUNK_SIZE * 2, 7), 0);
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

static void
unlock(uint8_t type, uint16_t node, uint32_t seq, uint32_t blk, uint8_t gs,
       uint32_t cs)
{
	struct lcf_msg m = req(type, node, seq, blk);

	m.gstatus = gs;
	m.copyset = cs;
	feed(m);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_UNLOCK_ACK);
	cr_assert_eq(out.m[0].msg.seq, seq);
}

TestSuite(home, .init = setup, .fini = teardown);

Test(home, read_miss_unshared_replies_with_data_and_dedupes)
{
	h.mem[5] = 0x42;
	feed(req(LCF_T_READ_MISS, 1, 10, 0));
	cr_assert_eq(out.n, 4); /* 3 segments + ACK */
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(out.m[i].msg.type, NA_MSG_DATA);
		cr_assert_eq(out.m[i].dst, 1);
		cr_assert_eq(out.m[i].msg.aux, i * 1400u);
	}
	cr_assert_eq(((const uint8_t *)out.m[0].payload)[5], 0x42);
	cr_assert_eq(out.m[3].msg.type, NA_MSG_ACK);
	cr_assert(out.m[3].msg.flags & LCF_F_DATA_PROVIDER);
	cr_assert_not(out.m[3].msg.flags & LCF_F_IN_SWITCH);
	cr_assert_eq(out.m[3].msg.gstatus, LCF_GS_UNSHARED);
	cr_assert_eq(na_aux_responder(out.m[3].msg.aux), 0);
	cr_assert_eq(h.blk[0].readers, 1);

	/* equal seq: same reply, no second read lock */
	feed(req(LCF_T_READ_MISS, 1, 10, 0));
	cr_assert_eq(out.n, 4);
	cr_assert_eq(h.blk[0].readers, 1);
	/* smaller seq: ignored */
	feed(req(LCF_T_READ_MISS, 1, 9, 0));
	cr_assert_eq(out.n, 0);

	unlock(LCF_T_READ_UNLOCK, 1, 10, 0, LCF_GS_SHARED, 0x2);
	cr_assert_eq(h.blk[0].readers, 0);
	cr_assert_eq(h.blk[0].gs, LCF_GS_SHARED);
	cr_assert_eq(h.blk[0].cs, 0x2);
	/* a duplicate unlock is ACKed and changes nothing */
	h.blk[0].cs = 0x6;
	unlock(LCF_T_READ_UNLOCK, 1, 10, 0, LCF_GS_SHARED, 0x2);
	cr_assert_eq(h.blk[0].cs, 0x6);
}

Test(home, concurrent_readers_union_copysets)
{
	feed(req(LCF_T_READ_MISS, 1, 1, 2));
	feed(req(LCF_T_READ_MISS, 2, 1, 2));
	cr_assert_eq(h.blk[2].readers, 2);
	unlock(LCF_T_READ_UNLOCK, 1, 1, 2, LCF_GS_SHARED, 0x2);
	unlock(LCF_T_READ_UNLOCK, 2, 1, 2, LCF_GS_SHARED, 0x4);
	cr_assert_eq(h.blk[2].cs, 0x6);
	cr_assert_eq(h.blk[2].readers, 0);
}

Test(home, write_miss_on_shared_forwards_and_locks)
{
	h.blk[1].gs = LCF_GS_SHARED;
	h.blk[1].cs = 0xa; /* nodes 1 and 3 */
	feed(req(LCF_T_WRITE_MISS, 2, 5, 1));
	cr_assert_eq(out.n, 2);
	for (uint32_t i = 0; i < out.n; i++) {
		cr_assert_eq(out.m[i].msg.type, NA_MSG_FWD);
		cr_assert_eq(na_aux_orig_type(out.m[i].msg.aux),
			     LCF_T_WRITE_MISS);
		cr_assert_eq(out.m[i].msg.node, 2); /* the requester */
		cr_assert_eq(out.m[i].msg.copyset, 0xa);
		cr_assert_eq(out.m[i].msg.dst_node, out.m[i].dst);
	}
	cr_assert_eq(out.m[0].dst, 1);
	cr_assert_eq(out.m[1].dst, 3);
	cr_assert_eq(!!(out.m[0].msg.flags & LCF_F_DATA_PROVIDER) +
			     !!(out.m[1].msg.flags & LCF_F_DATA_PROVIDER),
		     1);
	cr_assert(h.blk[1].writer);

	/* locked: a reader is NACKed */
	feed(req(LCF_T_READ_MISS, 0, 3, 1));
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_NACK);
	cr_assert(out.m[0].msg.flags & LCF_F_FAIL);
	/* a NACK is not recorded: its same-seq retry tries again */
	feed(req(LCF_T_READ_MISS, 0, 3, 1));
	cr_assert_eq(out.m[0].msg.type, NA_MSG_NACK);
	/* a duplicate of the granted request gets the same forwards */
	feed(req(LCF_T_WRITE_MISS, 2, 5, 1));
	cr_assert_eq(out.n, 2);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_FWD);

	unlock(LCF_T_WRITE_UNLOCK, 2, 5, 1, LCF_GS_MODIFIED, 0x4);
	cr_assert_not(h.blk[1].writer);
	cr_assert_eq(h.blk[1].gs, LCF_GS_MODIFIED);
	cr_assert_eq(h.blk[1].cs, 0x4);

	/* the retry (same seq 3) now gets the lock; Modified: the owner */
	feed(req(LCF_T_READ_MISS, 0, 3, 1));
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].dst, 2);
	cr_assert(out.m[0].msg.flags & LCF_F_DATA_PROVIDER);
}

Test(home, check_failure_nacks_without_holding_the_lock)
{
	feed(req(LCF_T_WRITE_SHARED, 1, 1, 3)); /* not a holder */
	cr_assert_eq(out.m[0].msg.type, NA_MSG_NACK);
	cr_assert_not(h.blk[3].writer);
	feed(req(LCF_T_WRITE_MISS, 2, 1, 3));
	cr_assert_eq(out.m[out.n - 1].msg.type, NA_MSG_ACK);
	cr_assert(h.blk[3].writer);
}

Test(home, write_shared_sole_holder_gets_an_ack)
{
	h.blk[4].gs = LCF_GS_SHARED;
	h.blk[4].cs = 0x2;
	feed(req(LCF_T_WRITE_SHARED, 1, 8, 4));
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_ACK);
	cr_assert_not(out.m[0].msg.flags & LCF_F_DATA_PROVIDER);
}

Test(home, switch_owned_request_is_answered_from_memory)
{
	struct lcf_msg m = req(LCF_T_WRITE_MISS, 3, 2, 6);

	m.flags = LCF_F_IN_SWITCH;
	feed(m);
	cr_assert_eq(out.n, 4);
	cr_assert_eq(out.m[3].msg.flags, LCF_F_IN_SWITCH | LCF_F_DATA_PROVIDER);
	cr_assert_not(h.blk[6].writer); /* the switch holds the lock */
}

Test(home, writeback_needs_the_event_lock)
{
	uint8_t seg[1400];
	struct lcf_msg m;

	memset(seg, 0x77, sizeof(seg));
	h.blk[7].gs = LCF_GS_MODIFIED;
	h.blk[7].cs = 0x2;
	/* no lock: refused */
	m = req(NA_MSG_WB, 1, 3, 7);
	m.len = 1400;
	na_out_reset(&out);
	na_home_handle(&h, &m, seg, 1400, &out);
	cr_assert_eq(out.n, 0);
	cr_assert_eq(h.st.writebacks_refused, 1);
	/* EVICT_MODIFIED holds it: accepted, ACKed per segment */
	feed(req(LCF_T_EVICT_MODIFIED, 1, 3, 7));
	na_out_reset(&out);
	na_home_handle(&h, &m, seg, 1400, &out);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_WB_ACK);
	cr_assert_eq(out.m[0].msg.aux, 0);
	cr_assert_eq(h.mem[7 * 4096 + 10], 0x77);
	unlock(LCF_T_WRITE_UNLOCK, 1, 3, 7, LCF_GS_UNSHARED, 0);
	cr_assert_eq(h.blk[7].gs, LCF_GS_UNSHARED);
}

/* A cache agent's write-back in the node (na_home_write_local): the NA_WB
 * rule, the whole block, no reply. */
Test(home, local_writeback_of_a_downgraded_block)
{
	uint8_t blk[4096];
	struct lcf_msg m = req(LCF_T_READ_MISS, 1, 5, 9);

	memset(blk, 0x42, sizeof(blk));
	h.blk[9].gs = LCF_GS_MODIFIED;
	h.blk[9].cs = 0x1;
	/* the reader's event does not hold the lock: refused */
	cr_assert_not(na_home_write_local(&h, &m, blk));
	cr_assert_eq(h.st.writebacks_refused, 1);
	cr_assert_eq(h.mem[9 * 4096], 0);
	/* its READ_MISS holds it: written */
	feed(m);
	cr_assert(na_home_write_local(&h, &m, blk));
	cr_assert_eq(h.mem[9 * 4096], 0x42);
	cr_assert_eq(h.mem[9 * 4096 + 4095], 0x42);
	cr_assert_eq(h.st.writebacks, 1);
	/* another home's block: not ours to write */
	m.tag = (uint64_t)1 << (48 - h.block_shift) | 9;
	cr_assert_not(na_home_write_local(&h, &m, blk));
}

/*
 * A write-back copy of an event served here, delayed until the block is in
 * the switch: its event's unlock reached us, so it is refused; the same
 * requester's write-backs of later (switch-served) events are accepted.
 */
Test(home, late_writeback_after_migration_refused)
{
	uint8_t seg[1400], old[1400];
	struct lcf_msg m;

	memset(old, 0x11, sizeof(old));
	memset(seg, 0x22, sizeof(seg));
	h.blk[7].gs = LCF_GS_MODIFIED;
	h.blk[7].cs = 0x2;
	feed(req(LCF_T_EVICT_MODIFIED, 1, 3, 7));
	m = req(NA_MSG_WB, 1, 3, 7);
	m.len = 1400;
	na_out_reset(&out);
	na_home_handle(&h, &m, old, 1400, &out);
	cr_assert_eq(out.n, 1, "the event's own write-back");
	unlock(LCF_T_WRITE_UNLOCK, 1, 3, 7, LCF_GS_UNSHARED, 0);
	h.blk[7].owner = NA_OWN_SWITCH;       /* migrated */
	memset(h.mem + 7 * 4096, 0x33, 1400); /* a later event's data */
	na_out_reset(&out);
	na_home_handle(&h, &m, old, 1400, &out); /* the late copy */
	cr_assert_eq(out.n, 0);
	cr_assert_eq(h.mem[7 * 4096 + 10], 0x33, "not overwritten");
	cr_assert_eq(h.st.writebacks_refused, 1);
	m.seq = 4; /* a switch-served event */
	na_out_reset(&out);
	na_home_handle(&h, &m, seg, 1400, &out);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(h.mem[7 * 4096 + 10], 0x22);
}

/*
 * Issue 28 item 6 (lib/model/wbdup.pml, run wbdup-old): a switch-owned
 * block; node 1's write-back segment is duplicated and one copy delayed
 * past node 2's later write-back of the block (node 1 unlocked at the
 * switch in between, which the home does not see). The late copy is ACKed
 * again and changes nothing; a copy of an older event is refused.
 */
static void
wb_seg(uint16_t node, uint32_t seq, uint32_t blk, uint32_t off, uint8_t v)
{
	uint8_t seg[1400];
	struct lcf_msg m = req(NA_MSG_WB, node, seq, blk);
	uint32_t o;
	uint16_t len;

	na_seg_span(4096, off / 1400, &o, &len);
	memset(seg, v, sizeof(seg));
	m.aux = off;
	m.len = len;
	na_out_reset(&out);
	na_home_handle(&h, &m, seg, len, &out);
}

Test(home, late_duplicate_writeback_segment_changes_nothing)
{
	h.blk[7].owner = NA_OWN_SWITCH;
	wb_seg(1, 5, 7, 0, 0x11); /* node 1's event 5, first copy */
	cr_assert_eq(out.n, 1);
	wb_seg(1, 5, 7, 1400, 0x11);
	cr_assert_eq(h.mem[7 * 4096 + 10], 0x11);
	wb_seg(2, 9, 7, 0, 0x22); /* node 2's later event */
	wb_seg(2, 9, 7, 1400, 0x22);
	cr_assert_eq(h.mem[7 * 4096 + 10], 0x22);
	wb_seg(1, 5, 7, 0, 0x11); /* the delayed copy of node 1's */
	cr_assert_eq(out.n, 1, "ACKed again");
	cr_assert_eq(out.m[0].msg.type, NA_MSG_WB_ACK);
	cr_assert_eq(h.mem[7 * 4096 + 10], 0x22, "not overwritten");
	cr_assert_eq(h.mem[7 * 4096 + 1400], 0x22);
	cr_assert_eq(h.st.writebacks_duplicate, 1);
	/* a segment of node 1's event not applied yet is (a retransmission) */
	wb_seg(1, 5, 7, 2800, 0x11);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(h.mem[7 * 4096 + 2800], 0x11);
	/* node 1's next event resets the record; its older one is refused */
	wb_seg(1, 6, 7, 0, 0x33);
	cr_assert_eq(h.mem[7 * 4096 + 10], 0x33);
	wb_seg(1, 5, 7, 1400, 0x11);
	cr_assert_eq(out.n, 0);
	cr_assert_eq(h.mem[7 * 4096 + 1400], 0x22);
}

Test(home, migration_holds_the_write_lock_until_migrate_ack)
{
	struct lcf_msg ack;

	na_out_reset(&out);
	cr_assert_eq(na_home_migrate_start(&h, 9, 0, &out), 0);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, LCF_T_ADD_TO_SWITCH);
	cr_assert_eq(out.m[0].dst, 0); /* via the switch */
	ack = out.m[0].msg;
	feed(req(LCF_T_READ_MISS, 1, 1, 9));
	cr_assert_eq(out.m[0].msg.type, NA_MSG_NACK);
	ack.type = LCF_T_MIGRATE_ACK;
	ack.flags = LCF_F_IN_SWITCH;
	ack.aux = (uint32_t)LCF_T_ADD_TO_SWITCH << 24;
	feed(ack);
	cr_assert_eq(h.blk[9].owner, NA_OWN_SWITCH);
	cr_assert_not(h.blk[9].writer);
	/* a late tag-miss request for it is NACKed (retry via the switch) */
	feed(req(LCF_T_READ_MISS, 1, 2, 9));
	cr_assert_eq(out.m[0].msg.type, NA_MSG_NACK);

	/* collision: stays home */
	na_out_reset(&out);
	cr_assert_eq(na_home_migrate_start(&h, 10, 0, &out), 0);
	ack = out.m[0].msg;
	ack.type = LCF_T_MIGRATE_ACK;
	ack.flags = LCF_F_IN_SWITCH | LCF_F_FAIL;
	ack.aux = (uint32_t)LCF_T_ADD_TO_SWITCH << 24 | 0xff << 16;
	feed(ack);
	/* ... after the hold (a duplicate of the copy may be in flight) */
	cr_assert_eq(h.blk[10].owner, NA_OWN_MIGRATING);
	feed(req(LCF_T_READ_MISS, 1, 3, 10));
	cr_assert_eq(out.m[0].msg.type, NA_MSG_NACK, "refused in the hold");
	na_out_reset(&out);
	cr_assert_eq(na_home_migrate_resend(&h, 10, 0, &out), 1);
	cr_assert_eq(out.n, 0, "no copy in the hold");
	cr_assert_eq(na_home_migrate_resend(&h, 10, NA_ADD_HOLD_NS / 2, &out),
		     1);
	cr_assert_eq(na_home_migrate_resend(&h, 10, 2 * NA_ADD_HOLD_NS, &out),
		     -EALREADY);
	cr_assert_eq(h.blk[10].owner, NA_OWN_HOME);
	cr_assert_not(h.blk[10].writer);
}

Test(home, chunk_allocation_is_idempotent)
{
	struct lcf_msg m = req(NA_MSG_ALLOC_REQ, 2, 40, 0);
	uint64_t a = 0;

	m.tag = 0;
	feed(m);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.len, 8);
	for (int i = 0; i < 8; i++)
		a = a << 8 | ((const uint8_t *)out.m[0].payload)[i];
	cr_assert_eq(a, NA_CHUNK_SIZE); /* chunk 1 of node 0 */
	feed(m);                        /* duplicate */
	cr_assert_eq(h.next_chunk, 2);
	m.seq = 41;
	feed(m); /* only 2 chunks */
	cr_assert(out.m[0].msg.flags & LCF_F_FAIL);
}

/* ---- ABORT of an abandoned event (PROTOCOL.md 4.9) ---------------------- */

static void
expect_abort_ack(uint16_t node, uint32_t seq, uint32_t blk, bool passed)
{
	feed(req(LCF_T_ABORT, node, seq, blk));
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_ABORT_ACK);
	cr_assert_eq(out.m[0].dst, node);
	cr_assert_eq(out.m[0].msg.seq, seq);
	cr_assert_eq(!!(out.m[0].msg.flags & LCF_F_FAIL), passed);
}

/*
 * Node 2's WRITE_MISS (seq 9) is NACKed while node 1 holds the block, and
 * node 2 gives up on it. A copy duplicated by the network arrives after
 * node 1's unlock: without the ABORT it would take the lock for an event
 * nobody will unlock.
 */
Test(home, late_copy_of_an_aborted_event_takes_no_lock)
{
	feed(req(LCF_T_WRITE_MISS, 1, 5, 3));
	cr_assert(h.blk[3].writer);
	feed(req(LCF_T_WRITE_MISS, 2, 9, 3));
	cr_assert_eq(out.m[0].msg.type, NA_MSG_NACK);
	expect_abort_ack(2, 9, 3, false);
	unlock(LCF_T_WRITE_UNLOCK, 1, 5, 3, LCF_GS_MODIFIED, 0x2);
	cr_assert_not(h.blk[3].writer);

	feed(req(LCF_T_WRITE_MISS, 2, 9, 3));
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_NACK);
	cr_assert_not(h.blk[3].writer, "no lock left held");
	expect_abort_ack(2, 9, 3, false); /* retransmitted */
	/* the requester's next event is served */
	feed(req(LCF_T_WRITE_MISS, 2, 10, 3));
	cr_assert_neq(out.m[out.n - 1].msg.type, NA_MSG_NACK);
	cr_assert(h.blk[3].writer);
}

/* A copy executed before the ABORT: "a copy passed"; its unlock releases. */
Test(home, abort_after_a_copy_executed_reports_it)
{
	feed(req(LCF_T_READ_MISS, 2, 9, 4));
	cr_assert_eq(h.blk[4].readers, 1);
	expect_abort_ack(2, 9, 4, true);
	expect_abort_ack(2, 9, 4, true);
	unlock(LCF_T_READ_UNLOCK, 2, 9, 4, LCF_GS_SHARED, 0x4);
	cr_assert_eq(h.blk[4].readers, 0);
}

/* The switch saw the event aborted (FAIL on a tag miss): never executed. */
Test(home, request_marked_aborted_by_the_switch_is_not_executed)
{
	struct lcf_msg m = req(LCF_T_READ_MISS, 2, 9, 4);

	m.flags = LCF_F_FAIL;
	feed(m);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_NACK);
	cr_assert_eq(h.blk[4].readers, 0);
	cr_assert_eq(h.st.aborted_refused, 1);
}
