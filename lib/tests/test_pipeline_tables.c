/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Every row of the check table (paper Table 2) and the forward table
 * (Table 3). Topology pcap3: nodes 0, 1, 2 on ports 0, 1, 2; shadow 2.
 * Blocks live on home node 2; the requester is node 0 unless said.
 */
#include <criterion/criterion.h>

#include "lcf_test_util.h"

static void
setup(void)
{
	tu_setup("pcap3.json");
}

TestSuite(forward_table, .init = setup, .fini = tu_teardown);
TestSuite(check_table, .init = setup, .fini = tu_teardown);

/* Send `type` from node 0 for a block added with (gs, cs); one pass expected. */
static struct lcf_result
request(uint8_t type, uint8_t gs, uint32_t cs)
{
	uint64_t tag = tu_tag(2, 7);
	struct lcf_msg m = tu_msg(type, 0, 0, 1, tag);
	struct lcf_result r;
	int passes;

	tu_add(tag, gs, cs);
	tu_send(&m, &r, &passes);
	cr_assert_eq(passes, 1);
	cr_assert_eq(r.verdict, LCF_V_EMIT);
	cr_assert_eq(r.out.flags & LCF_F_IN_SWITCH, LCF_F_IN_SWITCH);
	cr_assert_eq(r.out.gstatus, gs, "block's gstatus filled in");
	cr_assert_eq(r.out.copyset, cs, "block's copyset filled in");
	cr_assert_eq(r.out.type, type);
	cr_assert_eq(r.mirror_nodes, 0);
	return r;
}

Test(forward_table, read_miss_unshared_goes_home)
{
	struct lcf_result r = request(LCF_T_READ_MISS, LCF_GS_UNSHARED, 0);

	cr_assert_eq(r.to_nodes, BIT(2));
	cr_assert_eq(r.provider, LCF_NODE_NONE);
	cr_assert_not(r.from_switch);
	cr_assert_eq(r.action, LCF_A_FWD_HOME);
	cr_assert_eq(tu_block(tu_tag(2, 7)).lock, 1, "read lock held");
}

Test(forward_table, write_miss_unshared_goes_home)
{
	struct lcf_result r = request(LCF_T_WRITE_MISS, LCF_GS_UNSHARED, 0);

	cr_assert_eq(r.to_nodes, BIT(2));
	cr_assert_eq(r.action, LCF_A_FWD_HOME);
	cr_assert_eq(tu_block(tu_tag(2, 7)).lock, LCF_LOCK_WRITER);
}

Test(forward_table, read_miss_modified_goes_to_owner_as_provider)
{
	struct lcf_result r = request(LCF_T_READ_MISS, LCF_GS_MODIFIED, BIT(1));

	cr_assert_eq(r.to_nodes, BIT(1));
	cr_assert_eq(r.provider, 1);
	cr_assert_eq(r.action, LCF_A_FWD_OWNER);
}

Test(forward_table, write_miss_modified_goes_to_owner_as_provider)
{
	struct lcf_result r = request(LCF_T_WRITE_MISS, LCF_GS_MODIFIED,
				      BIT(1));

	cr_assert_eq(r.to_nodes, BIT(1));
	cr_assert_eq(r.provider, 1);
	cr_assert_eq(r.action, LCF_A_FWD_OWNER);
	cr_assert_eq(tu_block(tu_tag(2, 7)).lock, LCF_LOCK_WRITER);
}

Test(forward_table, read_miss_shared_goes_to_one_random_provider)
{
	struct lcf_result r = request(LCF_T_READ_MISS, LCF_GS_SHARED,
				      BIT(1) | BIT(2));
	uint32_t seen = 0;

	cr_assert_eq(r.action, LCF_A_FWD_PROVIDER);
	cr_assert_eq(r.to_nodes, BIT(r.provider), "exactly the provider");
	seen |= r.to_nodes;
	/* Further readers: the choice is random over the holders. */
	for (uint32_t seq = 3; seq < 64; seq += 2) {
		struct lcf_msg m = tu_msg(LCF_T_READ_MISS, 0, 1, seq,
					  tu_tag(2, 7));

		m.thread = (uint16_t)(seq % 16);
		tu_send(&m, &r, NULL);
		cr_assert_eq(r.to_nodes, BIT(r.provider));
		cr_assert(r.to_nodes & (BIT(1) | BIT(2)));
		seen |= r.to_nodes;
	}
	cr_assert_eq(seen, BIT(1) | BIT(2), "both holders get chosen");
}

Test(forward_table, write_miss_shared_multicasts_with_one_provider)
{
	struct lcf_result r = request(LCF_T_WRITE_MISS, LCF_GS_SHARED,
				      BIT(1) | BIT(2));

	cr_assert_eq(r.action, LCF_A_MCAST_INVALIDATE);
	cr_assert_eq(r.to_nodes, BIT(1) | BIT(2));
	cr_assert(r.provider == 1 || r.provider == 2);
	cr_assert_not(r.from_switch);
}

Test(forward_table, write_shared_multicasts_to_others)
{
	struct lcf_result r = request(LCF_T_WRITE_SHARED, LCF_GS_SHARED,
				      BIT(0) | BIT(1) | BIT(2));

	cr_assert_eq(r.action, LCF_A_MCAST_INVALIDATE);
	cr_assert_eq(r.to_nodes, BIT(1) | BIT(2), "requester excluded");
	cr_assert_eq(r.provider, LCF_NODE_NONE, "requester has the data");
}

Test(forward_table, write_shared_sole_holder_gets_direct_ack)
{
	struct lcf_result r = request(LCF_T_WRITE_SHARED, LCF_GS_SHARED,
				      BIT(0));

	cr_assert_eq(r.action, LCF_A_ACK_SOLE_HOLDER);
	cr_assert_eq(r.to_nodes, BIT(0));
	cr_assert(r.from_switch);
}

Test(forward_table, evict_shared_returns_to_requester)
{
	struct lcf_result r = request(LCF_T_EVICT_SHARED, LCF_GS_SHARED,
				      BIT(0) | BIT(1));

	cr_assert_eq(r.action, LCF_A_RETURN_EVICT);
	cr_assert_eq(r.to_nodes, BIT(0));
	cr_assert(r.from_switch);
	cr_assert_eq(tu_block(tu_tag(2, 7)).lock, LCF_LOCK_WRITER,
		     "evictions take the write lock");
}

Test(forward_table, evict_modified_returns_to_requester)
{
	struct lcf_result r = request(LCF_T_EVICT_MODIFIED, LCF_GS_MODIFIED,
				      BIT(0));

	cr_assert_eq(r.action, LCF_A_RETURN_EVICT);
	cr_assert_eq(r.to_nodes, BIT(0));
	cr_assert(r.from_switch);
}

/*
 * A failing check: the first pass takes the lock and resubmits, the second
 * releases it and NACKs from the switch. The copy is never counted in
 * SCOREBOARD (only its RELEASE frees its lock).
 */
static void
check_fails(uint8_t type, uint8_t gs, uint32_t cs)
{
	uint64_t tag = tu_tag(2, 9);
	struct lcf_msg m = tu_msg(type, 0, 3, 5, tag);
	struct lcf_result r;

	tu_add(tag, gs, cs);
	tu_pass(&m, false, 0, &r);
	cr_assert_eq(r.verdict, LCF_V_RESUBMIT);
	cr_assert_neq(tu_block(tag).lock, 0, "lock held between passes");
	cr_assert_eq(tu_requester(0, 3).score_odd, 0, "not counted");
	tu_pass(&m, true, r.resubmit_meta, &r);
	cr_assert_eq(r.verdict, LCF_V_EMIT);
	cr_assert_eq(r.out.type, LCF_T_NACK);
	cr_assert_eq(r.out.flags, LCF_F_IN_SWITCH | LCF_F_FAIL);
	cr_assert_eq(r.out.aux >> 24, type, "aux names the NACKed type");
	cr_assert_eq(r.to_nodes, BIT(0));
	cr_assert(r.from_switch);
	cr_assert_eq(r.action, LCF_A_NACK_CHECK_FAIL);
	cr_assert_eq(tu_block(tag).lock, 0, "lock released");
	cr_assert_eq(tu_requester(0, 3).score_odd, 0);
}

Test(check_table, read_miss_fails_when_requester_holds_block)
{
	check_fails(LCF_T_READ_MISS, LCF_GS_SHARED, BIT(0) | BIT(1));
}

Test(check_table, write_miss_fails_when_requester_holds_block)
{
	check_fails(LCF_T_WRITE_MISS, LCF_GS_MODIFIED, BIT(0));
}

Test(check_table, write_shared_fails_when_requester_not_in_copyset)
{
	check_fails(LCF_T_WRITE_SHARED, LCF_GS_SHARED, BIT(1));
}

Test(check_table, write_shared_fails_when_not_shared)
{
	check_fails(LCF_T_WRITE_SHARED, LCF_GS_MODIFIED, BIT(0));
}

Test(check_table, evict_shared_fails_when_requester_not_in_copyset)
{
	check_fails(LCF_T_EVICT_SHARED, LCF_GS_SHARED, BIT(1));
}

Test(check_table, evict_shared_fails_when_not_shared)
{
	check_fails(LCF_T_EVICT_SHARED, LCF_GS_MODIFIED, BIT(0));
}

Test(check_table, evict_modified_fails_when_requester_not_in_copyset)
{
	check_fails(LCF_T_EVICT_MODIFIED, LCF_GS_MODIFIED, BIT(1));
}

Test(check_table, evict_modified_fails_when_not_modified)
{
	check_fails(LCF_T_EVICT_MODIFIED, LCF_GS_SHARED, BIT(0));
}

Test(check_table, read_and_write_miss_pass_when_requester_not_in_copyset)
{
	struct lcf_result r = request(LCF_T_READ_MISS, LCF_GS_SHARED, BIT(1));

	cr_assert_eq(r.action, LCF_A_FWD_PROVIDER);
}

/* The slot hash documented in PROTOCOL.md section 4, computed bit by bit. */
static uint32_t
ref_slot(uint32_t way, uint32_t salt, uint32_t slots, uint64_t tag)
{
	uint32_t crc = 0x9e3779b9u * (way + 1) + salt;

	for (int i = 0; i < 8; i++) {
		crc ^= (uint8_t)(tag >> (8 * i));
		for (int b = 0; b < 8; b++)
			crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1)));
	}
	return (uint32_t)(((uint64_t)crc * slots) >> 32);
}

Test(forward_table, slot_hash_is_the_documented_crc32c)
{
	struct lcf_pipeline_config cfg = *lcf_pipeline_config(tu_p);

	cfg.slots_per_way = 37500;
	for (uint32_t salt = 0; salt < 3; salt++) {
		cfg.hash_salt = salt;
		for (uint32_t w = 0; w < 10; w++)
			for (uint64_t t = 1; t < (1ull << 40); t = t * 7 + 3)
				cr_assert_eq(lcf_pipeline_slot(&cfg, w, t),
					     ref_slot(w, salt, 37500, t));
	}
}
