/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The VERSION stage (docs/PROTOCOL.md 4.10, lib/lcf/lcf_version.c): the
 * ADD sets VERSION = (seq & 0xffff) << 16; every first pass of a WRITE_MISS
 * or WRITE_SHARED that hits and is not stale adds 1 (granted or not: the
 * stage is the LOCK's), no other pass does; VERSION_READ answers from the
 * switch, hit or miss, in one pass that changes no register; the count
 * (low 16 bits) saturates at 0xffff.
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

TestSuite(version, .init = setup, .fini = tu_teardown);

/* ADD from home node 2 with `seq` (the epoch). */
static void
add_seq(uint64_t tag, uint32_t seq, uint8_t gs, uint32_t cs)
{
	struct lcf_msg m = tu_msg(LCF_T_ADD_TO_SWITCH, 2, 0, seq, tag);
	struct lcf_result r;

	m.gstatus = gs;
	m.copyset = cs;
	tu_send(&m, &r, NULL);
	cr_assert_eq(r.action, LCF_A_ADD_OK);
}

/* One VERSION_READ from node/thread 0; asserts a single pass. */
static struct lcf_result
vread(uint16_t node, uint32_t seq, uint64_t tag)
{
	struct lcf_msg m = tu_msg(LCF_T_VERSION_READ, node, 0, seq, tag);
	struct lcf_result r;
	int passes;

	tu_send(&m, &r, &passes);
	cr_assert_eq(passes, 1);
	cr_assert_eq(r.verdict, LCF_V_EMIT);
	cr_assert_eq(r.out.type, LCF_T_VERSION);
	cr_assert(r.from_switch);
	cr_assert_eq(r.to_nodes, BIT(node));
	cr_assert_eq(r.out.seq, seq);
	cr_assert_eq(r.out.tag, tag);
	cr_assert_eq(r.out.aux >> 24, LCF_T_VERSION_READ);
	return r;
}

Test(version, add_sets_epoch_and_read_changes_nothing)
{
	uint64_t tag = tu_tag(2, 1);
	struct lcf_result r;
	uint64_t before;

	add_seq(tag, 0x12345, LCF_GS_SHARED, BIT(1));
	cr_assert_eq(tu_block(tag).version, 0x23450000);
	before = lcf_pipeline_digest(tu_p);
	r = vread(0, 9, tag);
	cr_assert_eq(lcf_pipeline_digest(tu_p), before, "no register written");
	cr_assert_eq(r.action, LCF_A_VERSION_HIT);
	cr_assert_eq(r.out.flags, LCF_F_IN_SWITCH);
	cr_assert_eq(r.out.copyset, 0x23450000, "the version");
	cr_assert_eq(r.out.aux, (uint32_t)LCF_T_VERSION_READ << 24);
	cr_assert_eq(r.out.gstatus, LCF_GS_SHARED);
	cr_assert_eq(tu_count(LCF_A_VERSION_HIT), 1);
}

Test(version, miss_is_answered_not_here)
{
	uint64_t tag = tu_tag(2, 2);
	struct lcf_result r;
	uint64_t before = lcf_pipeline_digest(tu_p);

	r = vread(1, 4, tag);
	cr_assert_eq(r.action, LCF_A_VERSION_MISS);
	cr_assert_eq(r.out.flags, LCF_F_FAIL, "FAIL, IN_SWITCH clear");
	cr_assert_eq(r.out.aux, (uint32_t)LCF_T_VERSION_READ << 24);
	cr_assert_eq(lcf_pipeline_digest(tu_p), before);
	cr_assert_eq(tu_count(LCF_A_TAG_MISS_HOME), 0, "not forwarded home");
}

Test(version, write_requests_bump_reads_do_not)
{
	uint64_t tag = tu_tag(2, 3);
	struct lcf_result r;
	int passes;

	add_seq(tag, 7, LCF_GS_SHARED, BIT(0) | BIT(1));
	/* a read grant: no bump */
	r = tu_send_meta(LCF_T_READ_MISS, 2, 1, tag, 0, 0, NULL);
	cr_assert_eq(r.action, LCF_A_FWD_PROVIDER);
	cr_assert_eq(tu_block(tag).version, 0x70000);
	/* a write refused (read lock held): counted all the same */
	r = tu_send_meta(LCF_T_WRITE_SHARED, 0, 1, tag, 0, 0, NULL);
	cr_assert_eq(r.action, LCF_A_NACK_LOCK_BUSY);
	cr_assert_eq(tu_block(tag).version, 0x70001);
	r = tu_send_meta(LCF_T_READ_UNLOCK, 2, 1, tag, LCF_GS_SHARED,
			 BIT(0) | BIT(1) | BIT(2), NULL);
	cr_assert_eq(r.action, LCF_A_UNLOCK_EXEC);
	cr_assert_eq(tu_block(tag).version, 0x70001, "unlocks do not bump");
	/* S -> M: granted, + 1; the write lock shows as busy */
	r = tu_send_meta(LCF_T_WRITE_SHARED, 0, 2, tag, 0, 0, NULL);
	cr_assert_eq(r.action, LCF_A_MCAST_INVALIDATE);
	cr_assert_eq(tu_block(tag).version, 0x70002);
	r = vread(1, 1, tag);
	cr_assert_eq(r.out.copyset, 0x70002);
	cr_assert_eq(r.out.aux & LCF_VER_AUX_BUSY, LCF_VER_AUX_BUSY);
	/* its retransmission passes on the score: + 1 again (harmless) */
	r = tu_send_meta(LCF_T_WRITE_SHARED, 0, 2, tag, 0, 0, NULL);
	cr_assert_eq(tu_count(LCF_A_RETRANSMIT_PASS), 1);
	cr_assert_eq(tu_block(tag).version, 0x70003);
	r = tu_send_meta(LCF_T_WRITE_UNLOCK, 0, 2, tag, LCF_GS_MODIFIED, BIT(0),
			 NULL);
	cr_assert_eq(r.action, LCF_A_UNLOCK_EXEC);
	r = vread(1, 2, tag);
	cr_assert_eq(r.out.aux & LCF_VER_AUX_BUSY, 0);
	cr_assert_eq(r.out.gstatus, LCF_GS_MODIFIED);
	/* evictions and a failed check's release pass do not bump */
	r = tu_send_meta(LCF_T_EVICT_MODIFIED, 0, 3, tag, 0, 0, NULL);
	cr_assert_eq(r.action, LCF_A_RETURN_EVICT);
	r = tu_send_meta(LCF_T_WRITE_UNLOCK, 0, 3, tag, LCF_GS_MODIFIED, BIT(0),
			 NULL);
	cr_assert_eq(tu_block(tag).version, 0x70003);
	r = tu_send_meta(LCF_T_WRITE_SHARED, 0, 5, tag, 0, 0, &passes);
	cr_assert_eq(passes, 2);
	cr_assert_eq(r.action, LCF_A_NACK_CHECK_FAIL);
	cr_assert_eq(tu_block(tag).version, 0x70004, "first pass only");
	/* I -> M from another node: to the owner, + 1 */
	r = tu_send_meta(LCF_T_WRITE_MISS, 1, 5, tag, 0, 0, NULL);
	cr_assert_eq(r.action, LCF_A_FWD_OWNER);
	cr_assert_eq(tu_block(tag).version, 0x70005);
}

Test(version, stale_requests_do_not_bump)
{
	uint64_t tag = tu_tag(2, 4);
	struct lcf_result r;

	add_seq(tag, 3, LCF_GS_UNSHARED, 0);
	r = tu_send_meta(LCF_T_WRITE_MISS, 0, 1, tag, 0, 0, NULL);
	r = tu_send_meta(LCF_T_WRITE_UNLOCK, 0, 1, tag, LCF_GS_MODIFIED, BIT(0),
			 NULL);
	cr_assert_eq(tu_block(tag).version, 0x30001);
	/* a late copy of seq 1 after its unlock: NACKed as stale */
	r = tu_send_meta(LCF_T_WRITE_MISS, 0, 1, tag, 0, 0, NULL);
	cr_assert_eq(r.action, LCF_A_NACK_STALE);
	cr_assert_eq(tu_block(tag).version, 0x30001);
}

Test(version, readd_starts_a_new_epoch)
{
	uint64_t tag = tu_tag(2, 5);
	struct lcf_msg m;
	struct lcf_result r;

	add_seq(tag, 1, LCF_GS_UNSHARED, 0);
	r = tu_send_meta(LCF_T_WRITE_MISS, 0, 1, tag, 0, 0, NULL);
	r = tu_send_meta(LCF_T_WRITE_UNLOCK, 0, 1, tag, LCF_GS_MODIFIED, BIT(0),
			 NULL);
	cr_assert_eq(tu_block(tag).version, 0x10001);
	m = tu_msg(LCF_T_REMOVE_FROM_SWITCH, 2, 0, 2, tag);
	tu_send(&m, &r, NULL);
	cr_assert_eq(r.action, LCF_A_REMOVE_OK);
	cr_assert_eq(vread(0, 3, tag).action, LCF_A_VERSION_MISS);
	add_seq(tag, 3, LCF_GS_MODIFIED, BIT(0));
	r = vread(0, 4, tag);
	cr_assert_eq(r.action, LCF_A_VERSION_HIT);
	cr_assert_eq(r.out.copyset, 0x30000, "a new epoch");
	/* a duplicate ADD leaves the epoch and version as they are */
	r = tu_send_meta(LCF_T_WRITE_MISS, 1, 1, tag, 0, 0, NULL);
	cr_assert_eq(r.action, LCF_A_FWD_OWNER);
	m = tu_msg(LCF_T_ADD_TO_SWITCH, 2, 0, 3, tag);
	tu_send(&m, &r, NULL);
	cr_assert_eq(r.action, LCF_A_ADD_DUP);
	cr_assert_eq(tu_block(tag).version, 0x30001);
}

Test(version, resubmitted_version_read_is_rejected)
{
	uint64_t tag = tu_tag(2, 6);
	struct lcf_msg m = tu_msg(LCF_T_VERSION_READ, 0, 0, 1, tag);
	struct lcf_result r;

	tu_add(tag, LCF_GS_UNSHARED, 0);
	tu_pass(&m, true, 0, &r);
	cr_assert_eq(r.verdict, LCF_V_DROP);
	cr_assert_eq(r.drop_reason, LCF_DROP_BAD_RESUBMIT);
}

/* 2^16 write requests in one stay: the count stops at 0xffff and does not
 * carry into the epoch (a carry makes a later stay's VERSION, under which
 * a stale copy would validate: vohepoch.pml vohepoch-block-carry); the
 * next ADD starts the count again. */
Test(version, count_saturates_without_carry)
{
	uint64_t tag = tu_tag(2, 7);
	struct lcf_msg m;
	struct lcf_result r;
	uint32_t i;

	add_seq(tag, 5, LCF_GS_SHARED, BIT(1));
	r = tu_send_meta(LCF_T_READ_MISS, 2, 1, tag, 0, 0, NULL);
	cr_assert_eq(r.action, LCF_A_FWD_PROVIDER);
	for (i = 0; i < 0x10000 + 9; i++) {
		r = tu_send_meta(LCF_T_WRITE_SHARED, 0, 1, tag, 0, 0, NULL);
		cr_assert_eq(r.action, LCF_A_NACK_LOCK_BUSY);
		if (i == 0xfffd)
			cr_assert_eq(tu_block(tag).version, 0x5fffe);
	}
	cr_assert_eq(tu_block(tag).version, 0x5ffff, "saturated, epoch kept");
	cr_assert_eq(vread(0, 2, tag).out.copyset, 0x5ffff);
	r = tu_send_meta(LCF_T_READ_UNLOCK, 2, 1, tag, LCF_GS_SHARED,
			 BIT(1) | BIT(2), NULL);
	cr_assert_eq(r.action, LCF_A_UNLOCK_EXEC);
	m = tu_msg(LCF_T_REMOVE_FROM_SWITCH, 2, 0, 6, tag);
	tu_send(&m, &r, NULL);
	cr_assert_eq(r.action, LCF_A_REMOVE_OK);
	add_seq(tag, 13, LCF_GS_SHARED, BIT(1));
	cr_assert_eq(tu_block(tag).version, 0xd0000, "the next ADD resets it");
	r = tu_send_meta(LCF_T_WRITE_MISS, 0, 3, tag, 0, 0, NULL);
	cr_assert_eq(tu_block(tag).version, 0xd0001);
}
