/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Bad input: every drop class is dropped, counted, and leaves every register
 * as it was (digest compared before and after).
 */
#include <criterion/criterion.h>

#include "lcf_test_util.h"

static void
setup(void)
{
	tu_setup("pcap3.json");
}

TestSuite(bad_input, .init = setup, .fini = tu_teardown);

/* Put some state in, so "unchanged" means something. */
static void
populate(void)
{
	struct lcf_msg m = tu_msg(LCF_T_READ_MISS, 0, 0, 1, tu_tag(2, 1));
	struct lcf_result r;

	tu_add(tu_tag(2, 1), LCF_GS_SHARED, BIT(1));
	tu_add(tu_tag(1, 2), LCF_GS_MODIFIED, BIT(0));
	tu_send(&m, &r, NULL);
}

static void
expect_drop(const struct lcf_msg *m, uint16_t port, bool resub, uint64_t md,
	    enum lcf_drop why)
{
	struct lcf_ingress ing = { .port = port,
				   .resubmitted = resub,
				   .resubmit_meta = md };
	uint64_t before = lcf_pipeline_digest(tu_p);
	uint64_t count = lcf_pipeline_counters(tu_p)->drop[why];
	struct lcf_result r;

	lcf_pipeline_process(tu_p, m, &ing, &r);
	cr_assert_eq(r.verdict, LCF_V_DROP);
	cr_assert_eq(r.drop_reason, why, "got %s, want %s",
		     lcf_drop_name(r.drop_reason), lcf_drop_name(why));
	cr_assert_eq(lcf_pipeline_counters(tu_p)->drop[why], count + 1);
	cr_assert_eq(lcf_pipeline_digest(tu_p), before, "state changed");
}

Test(bad_input, node_not_in_topology)
{
	struct lcf_msg m = tu_msg(LCF_T_WRITE_MISS, 5, 0, 1, tu_tag(2, 1));

	populate();
	expect_drop(&m, 0, false, 0, LCF_DROP_NODE_UNKNOWN);
}

Test(bad_input, node_on_wrong_port_is_a_spoof)
{
	struct lcf_msg m = tu_msg(LCF_T_READ_UNLOCK, 0, 0, 1, tu_tag(2, 1));

	populate();
	m.gstatus = LCF_GS_SHARED;
	expect_drop(&m, 1, false, 0, LCF_DROP_NODE_PORT_MISMATCH);
	m.type = LCF_T_REMOVE_FROM_SWITCH;
	expect_drop(&m, 2, false, 0, LCF_DROP_NODE_PORT_MISMATCH);
	expect_drop(&m, 9, false, 0, LCF_DROP_NODE_PORT_MISMATCH);
}

Test(bad_input, thread_out_of_range)
{
	struct lcf_msg m = tu_msg(LCF_T_READ_MISS, 0, 16, 1, tu_tag(2, 1));

	populate();
	expect_drop(&m, 0, false, 0, LCF_DROP_THREAD_RANGE);
}

Test(bad_input, tag_home_not_in_topology)
{
	struct lcf_msg m = tu_msg(LCF_T_READ_MISS, 0, 0, 1, tu_tag(7, 1));

	populate();
	expect_drop(&m, 0, false, 0, LCF_DROP_TAG_RANGE);
	m.tag = ~0ull;
	expect_drop(&m, 0, false, 0, LCF_DROP_TAG_RANGE);
}

Test(bad_input, type_not_for_the_pipeline)
{
	struct lcf_msg m = tu_msg(LCF_T_NACK, 0, 0, 1, tu_tag(2, 1));

	populate();
	expect_drop(&m, 0, false, 0, LCF_DROP_UNKNOWN_TYPE);
}

Test(bad_input, forged_resubmit_metadata)
{
	struct lcf_msg m = tu_msg(LCF_T_READ_UNLOCK, 0, 0, 1, tu_tag(2, 1));

	populate();
	/* wrong op for the type, way out of range, reserved bits, wrong way */
	expect_drop(&m, 0, true, LCF_RS_RELEASE, LCF_DROP_BAD_RESUBMIT);
	expect_drop(&m, 0, true, LCF_RS_UNLOCK | 9u << 8,
		    LCF_DROP_BAD_RESUBMIT);
	expect_drop(&m, 0, true, LCF_RS_UNLOCK | 1ull << 63,
		    LCF_DROP_BAD_RESUBMIT);
	{
		struct lcf_block_view v = tu_block(tu_tag(2, 1));

		expect_drop(&m, 0, true,
			    LCF_RS_UNLOCK | (uint64_t)(v.way ^ 1) << 8,
			    LCF_DROP_BAD_RESUBMIT);
	}
	m.type = LCF_T_ADD_TO_SWITCH;
	m.node = 2;
	expect_drop(&m, 2, true, LCF_RS_REMOVE, LCF_DROP_BAD_RESUBMIT);
}

Test(bad_input, wire_drops_are_counted)
{
	lcf_pipeline_count_drop(tu_p, LCF_DROP_BAD_VERSION);
	lcf_pipeline_count_drop(tu_p, LCF_DROP_SHORT);
	cr_assert_eq(lcf_pipeline_counters(tu_p)->drop[LCF_DROP_BAD_VERSION],
		     1);
	cr_assert_eq(lcf_pipeline_counters(tu_p)->drop[LCF_DROP_SHORT], 1);
	cr_assert_eq(lcf_pipeline_counters(tu_p)->action[LCF_A_DROP], 2);
}

Test(bad_input, create_refuses_bad_config)
{
	struct lcf_pipeline_config cfg;

	lcf_pipeline_config_from_topo(&tu_topo, &cfg);
	cfg.ways = 0;
	cr_assert_null(lcf_pipeline_create(&cfg));
	cr_assert_eq(errno, EINVAL);
	cfg.ways = LCF_MAX_WAYS + 1;
	cr_assert_null(lcf_pipeline_create(&cfg));
	cfg.ways = 1;
	cfg.seed = 0;
	cr_assert_null(lcf_pipeline_create(&cfg));
}

Test(bad_input, footprint_of_tofino_profile)
{
	struct lcf_pipeline_config cfg = {
		.ways = 10,
		.slots_per_way = 37500,
		.threads_per_node = 16,
	};
	struct lcf_footprint fp;

	lcf_pipeline_footprint(&cfg, &fp);
	cr_assert_eq(fp.tag, 375000ull * 8);
	cr_assert_eq(fp.lock + fp.gstatus + fp.copyset, 375000ull * 7);
	cr_assert_eq(fp.scoreboard, 512ull * 16, "2 paired 32-bit entries");
	cr_assert_eq(fp.last_unlock, 512ull * 8, "paired 32-bit seq and flag");
	cr_assert_eq(fp.version, 375000ull * 4, "32-bit VERSION");
	cr_assert_eq(fp.total, 375000ull * 19 + 512ull * 24);
}
