/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Ownership migration requests (paper 5.2.1) and tag misses.
 */
#include <criterion/criterion.h>

#include "lcf_test_util.h"

static void
setup3(void)
{
	tu_setup("pcap3.json");
}
static void
setup1x1(void)
{
	tu_setup("tiny1x1.json");
}

TestSuite(migrate, .init = setup3, .fini = tu_teardown);
TestSuite(collision, .init = setup1x1, .fini = tu_teardown);

static struct lcf_result
migrate(uint8_t type, uint64_t tag, uint8_t gs, uint32_t cs, int *passes)
{
	struct lcf_msg m = tu_msg(type, (uint16_t)topo_tag_home(&tu_topo, tag),
				  0, 1, tag);
	struct lcf_result r;

	m.gstatus = gs;
	m.copyset = cs;
	tu_send(&m, &r, passes);
	return r;
}

Test(migrate, add_installs_block_and_acks_mirrored_to_shadow)
{
	uint64_t tag = tu_tag(1, 3);
	struct lcf_result r;
	int passes;

	r = migrate(LCF_T_ADD_TO_SWITCH, tag, LCF_GS_SHARED, BIT(0) | BIT(1),
		    &passes);
	cr_assert_eq(passes, 2, "lookup, then insert on the resubmit");
	cr_assert_eq(r.action, LCF_A_ADD_OK);
	cr_assert_eq(r.out.type, LCF_T_MIGRATE_ACK);
	cr_assert_eq(r.out.flags, LCF_F_IN_SWITCH);
	cr_assert_eq(r.out.aux >> 24, LCF_T_ADD_TO_SWITCH);
	cr_assert_eq(r.to_nodes, BIT(1), "ACK to the home agent");
	cr_assert_eq(r.mirror_nodes, BIT(2), "mirrored to the shadow node");
	cr_assert(r.from_switch);
	cr_assert_eq(tu_block(tag).gstatus, LCF_GS_SHARED);
	cr_assert_eq(tu_block(tag).copyset, BIT(0) | BIT(1));
	cr_assert_eq(tu_block(tag).lock, 0);
	cr_assert_eq((r.out.aux >> 16) & 0xff, tu_block(tag).way);
	cr_assert_eq(tu_count(LCF_A_MIRROR_SHADOW), 1);
}

Test(migrate, duplicate_add_changes_nothing_and_acks)
{
	uint64_t tag = tu_tag(1, 3);
	struct lcf_result r;
	uint64_t before;
	int passes;

	migrate(LCF_T_ADD_TO_SWITCH, tag, LCF_GS_SHARED, BIT(0), NULL);
	before = lcf_pipeline_digest(tu_p);
	r = migrate(LCF_T_ADD_TO_SWITCH, tag, LCF_GS_MODIFIED, BIT(1), &passes);
	cr_assert_eq(passes, 1);
	cr_assert_eq(r.action, LCF_A_ADD_DUP);
	cr_assert_eq(r.out.flags & LCF_F_FAIL, 0);
	cr_assert_eq(r.out.gstatus, LCF_GS_SHARED, "reports the stored state");
	cr_assert_eq(lcf_pipeline_digest(tu_p), before);
}

Test(migrate, remove_takes_lock_clears_and_returns_metadata)
{
	uint64_t tag = tu_tag(1, 3);
	uint32_t occ[2];
	struct lcf_result r;
	int passes;

	migrate(LCF_T_ADD_TO_SWITCH, tag, LCF_GS_MODIFIED, BIT(0), NULL);
	r = migrate(LCF_T_REMOVE_FROM_SWITCH, tag, 0, 0, &passes);
	cr_assert_eq(passes, 2);
	cr_assert_eq(r.action, LCF_A_REMOVE_OK);
	cr_assert_eq(r.out.type, LCF_T_MIGRATE_ACK);
	cr_assert_eq(r.out.aux >> 24, LCF_T_REMOVE_FROM_SWITCH);
	cr_assert_eq(r.out.gstatus, LCF_GS_MODIFIED);
	cr_assert_eq(r.out.copyset, BIT(0));
	cr_assert_eq(r.to_nodes, BIT(1));
	cr_assert_eq(r.mirror_nodes, BIT(2));
	{
		struct lcf_block_view v;

		cr_assert_eq(lcf_pipeline_read_block(tu_p, tag, &v), -ENOENT);
	}
	lcf_pipeline_way_occupancy(tu_p, occ);
	cr_assert_eq(occ[0] + occ[1], 0);
}

Test(migrate, remove_of_locked_block_is_nacked)
{
	uint64_t tag = tu_tag(1, 3);
	struct lcf_msg rm = tu_msg(LCF_T_READ_MISS, 0, 0, 1, tag);
	struct lcf_result r;
	int passes;

	migrate(LCF_T_ADD_TO_SWITCH, tag, LCF_GS_SHARED, BIT(1), NULL);
	tu_send(&rm, &r, NULL);
	r = migrate(LCF_T_REMOVE_FROM_SWITCH, tag, 0, 0, &passes);
	cr_assert_eq(passes, 1);
	cr_assert_eq(r.action, LCF_A_NACK_LOCK_BUSY);
	cr_assert_eq(r.out.type, LCF_T_NACK);
	cr_assert_eq(tu_block(tag).lock, 1, "still held by the reader");
}

Test(migrate, remove_of_absent_block_returns_home_without_in_switch)
{
	uint64_t tag = tu_tag(1, 3);
	struct lcf_result r = migrate(LCF_T_REMOVE_FROM_SWITCH, tag, 0, 0,
				      NULL);

	cr_assert_eq(r.action, LCF_A_TAG_MISS_HOME);
	cr_assert_eq(r.out.type, LCF_T_REMOVE_FROM_SWITCH);
	cr_assert_eq(r.out.flags & LCF_F_IN_SWITCH, 0);
	cr_assert_eq(r.to_nodes, BIT(1));
}

Test(migrate, tag_miss_forwards_to_home_with_in_switch_clear)
{
	struct lcf_msg m = tu_msg(LCF_T_READ_MISS, 0, 0, 1, tu_tag(1, 77));
	struct lcf_result r;
	uint64_t before = lcf_pipeline_digest(tu_p);

	m.flags = LCF_F_IN_SWITCH | LCF_F_DATA_PROVIDER;
	tu_send(&m, &r, NULL);
	cr_assert_eq(r.action, LCF_A_TAG_MISS_HOME);
	cr_assert_eq(r.to_nodes, BIT(1));
	cr_assert_eq(r.out.flags, 0);
	cr_assert_not(r.from_switch, "forwarded, not originated");
	cr_assert_eq(lcf_pipeline_digest(tu_p), before, "no register touched");
}

Test(migrate, add_after_remove_reuses_the_slot)
{
	uint64_t tag = tu_tag(1, 3);

	migrate(LCF_T_ADD_TO_SWITCH, tag, LCF_GS_SHARED, BIT(0), NULL);
	migrate(LCF_T_REMOVE_FROM_SWITCH, tag, 0, 0, NULL);
	cr_assert_eq(migrate(LCF_T_ADD_TO_SWITCH, tag, LCF_GS_UNSHARED, 0, NULL)
			     .action,
		     LCF_A_ADD_OK);
	cr_assert_eq(tu_block(tag).gstatus, LCF_GS_UNSHARED);
}

/* tiny1x1: one way of one slot, so a second tag always collides. */
Test(collision, second_block_collides_and_fails)
{
	uint64_t a = tu_tag(0, 1), b = tu_tag(1, 2);
	struct lcf_result r;
	uint64_t before;

	cr_assert_eq(migrate(LCF_T_ADD_TO_SWITCH, a, LCF_GS_SHARED, BIT(0),
			     NULL)
			     .action,
		     LCF_A_ADD_OK);
	before = lcf_pipeline_digest(tu_p);
	r = migrate(LCF_T_ADD_TO_SWITCH, b, LCF_GS_SHARED, BIT(1), NULL);
	cr_assert_eq(r.action, LCF_A_ADD_COLLISION);
	cr_assert_eq(r.out.type, LCF_T_MIGRATE_ACK);
	cr_assert_eq(r.out.flags, LCF_F_IN_SWITCH | LCF_F_FAIL);
	cr_assert_eq((r.out.aux >> 16) & 0xff, 0xff);
	cr_assert_eq(r.to_nodes, BIT(1));
	cr_assert_eq(r.mirror_nodes, BIT(2), "failed ACK mirrored too");
	cr_assert_eq(lcf_pipeline_digest(tu_p), before);
	/* the block that is in keeps working */
	tu_block(a);
}

Test(migrate, installed_copysets_hold_only_existing_nodes)
{
	uint64_t tag = tu_tag(1, 3);
	struct lcf_msg u = tu_msg(LCF_T_WRITE_UNLOCK, 0, 0, 1, tag);
	struct lcf_msg w = tu_msg(LCF_T_WRITE_MISS, 0, 0, 1, tag);
	struct lcf_result r;

	migrate(LCF_T_ADD_TO_SWITCH, tag, LCF_GS_SHARED, 0x750002, NULL);
	cr_assert_eq(tu_block(tag).copyset, BIT(1));
	tu_send(&w, &r, NULL);
	cr_assert_eq(r.to_nodes, BIT(1));
	u.gstatus = LCF_GS_MODIFIED;
	u.copyset = 0xf0000001;
	tu_send(&u, &r, NULL);
	cr_assert_eq(tu_block(tag).copyset, BIT(0));
}

/* lcf_pipeline_read_slot enumerates exactly the installed blocks (na-sim's
 * quiescence check reads every block this way). */
Test(migrate, read_slot_enumerates_installed_blocks)
{
	const struct lcf_pipeline_config *c = lcf_pipeline_config(tu_p);
	uint64_t t1 = tu_tag(1, 3), t2 = tu_tag(2, 5), tag;
	struct lcf_block_view v;
	uint32_t found = 0;

	tu_add(t1, LCF_GS_UNSHARED, 0);
	tu_add(t2, LCF_GS_UNSHARED, 0);
	for (uint32_t w = 0; w < c->ways; w++)
		for (uint32_t s = 0; s < c->slots_per_way; s++) {
			int rc = lcf_pipeline_read_slot(tu_p, w, s, &tag, &v);

			if (rc == -ENOENT)
				continue;
			cr_assert_eq(rc, 0);
			cr_assert(tag == t1 || tag == t2);
			cr_assert_eq(v.way, w);
			cr_assert_eq(v.slot, s);
			found++;
		}
	cr_assert_eq(found, 2);
	cr_assert_eq(lcf_pipeline_read_slot(tu_p, c->ways, 0, &tag, &v),
		     -EINVAL);
	cr_assert_eq(lcf_pipeline_read_slot(tu_p, 0, c->slots_per_way, &tag,
					    &v),
		     -EINVAL);
}
