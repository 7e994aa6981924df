/* SPDX-License-Identifier: BSD-3-Clause
 *
 * FlowCC rules (na_proto.c) and segmentation (na_seg.h).
 */
#include <string.h>

#include <criterion/criterion.h>

#include "na_collect.h"
#include "na_msg.h"
#include "na_proto.h"
#include "na_seg.h"

enum {
	U = LCF_GS_UNSHARED,
	S = LCF_GS_SHARED,
	M = LCF_GS_MODIFIED
};

Test(fig6, transitions)
{
	/* READ_MISS: to Shared from every state. */
	cr_assert_eq(na_next_gstatus(LCF_T_READ_MISS, U, 0x2), S);
	cr_assert_eq(na_next_gstatus(LCF_T_READ_MISS, S, 0x6), S);
	cr_assert_eq(na_next_gstatus(LCF_T_READ_MISS, M, 0x6), S);
	/* Writes: to Modified. */
	cr_assert_eq(na_next_gstatus(LCF_T_WRITE_MISS, U, 0x2), M);
	cr_assert_eq(na_next_gstatus(LCF_T_WRITE_MISS, S, 0x2), M);
	cr_assert_eq(na_next_gstatus(LCF_T_WRITE_MISS, M, 0x2), M);
	cr_assert_eq(na_next_gstatus(LCF_T_WRITE_SHARED, S, 0x2), M);
	/* EVICT_SHARED: Unshared only when the copyset empties. */
	cr_assert_eq(na_next_gstatus(LCF_T_EVICT_SHARED, S, 0), U);
	cr_assert_eq(na_next_gstatus(LCF_T_EVICT_SHARED, S, 0x4), S);
	cr_assert_eq(na_next_gstatus(LCF_T_EVICT_MODIFIED, M, 0), U);
}

Test(copyset, new_copyset)
{
	cr_assert_eq(na_new_copyset(LCF_T_WRITE_MISS, 0xf0, 1), 0x2);
	cr_assert_eq(na_new_copyset(LCF_T_WRITE_SHARED, 0x16, 1), 0x2);
	cr_assert_eq(na_new_copyset(LCF_T_READ_MISS, 0x10, 1), 0x12);
	cr_assert_eq(na_new_copyset(LCF_T_EVICT_SHARED, 0x12, 1), 0x10);
	cr_assert_eq(na_new_copyset(LCF_T_EVICT_MODIFIED, 0x2, 1), 0);
	cr_assert_eq(na_new_copyset(LCF_T_READ_MISS, 0, 31), 0x80000000u);
	cr_assert_eq(na_unlock_type(LCF_T_READ_MISS), LCF_T_READ_UNLOCK);
	cr_assert_eq(na_unlock_type(LCF_T_EVICT_SHARED), LCF_T_WRITE_UNLOCK);
}

Test(table2, check)
{
	cr_assert(na_check(LCF_T_READ_MISS, 1, S, 0x4));
	cr_assert_not(na_check(LCF_T_READ_MISS, 2, S, 0x4));
	cr_assert(na_check(LCF_T_WRITE_MISS, 1, U, 0));
	cr_assert(na_check(LCF_T_WRITE_SHARED, 2, S, 0x4));
	cr_assert_not(na_check(LCF_T_WRITE_SHARED, 2, M, 0x4));
	cr_assert_not(na_check(LCF_T_WRITE_SHARED, 1, S, 0x4));
	cr_assert(na_check(LCF_T_EVICT_SHARED, 2, S, 0x4));
	cr_assert_not(na_check(LCF_T_EVICT_SHARED, 2, M, 0x4));
	cr_assert(na_check(LCF_T_EVICT_MODIFIED, 2, M, 0x4));
	cr_assert_not(na_check(LCF_T_EVICT_MODIFIED, 2, S, 0x4));
}

Test(table3, forward_rule)
{
	struct na_fwd f;

	na_forward_rule(LCF_T_READ_MISS, U, 0, 1, 7, &f);
	cr_assert_eq(f.kind, NA_FWD_REPLY_DATA);
	na_forward_rule(LCF_T_WRITE_MISS, M, 0x8, 1, 7, &f);
	cr_assert_eq(f.kind, NA_FWD_TO_CACHES);
	cr_assert_eq(f.to, 0x8);
	cr_assert_eq(f.provider, 3);
	/* READ_MISS, Shared: exactly one provider, from the copyset. */
	for (uint32_t r = 0; r < 6; r++) {
		na_forward_rule(LCF_T_READ_MISS, S, 0x2c, 0, r, &f);
		cr_assert_eq(f.to, 1u << f.provider);
		cr_assert(0x2c & f.to);
	}
	na_forward_rule(LCF_T_READ_MISS, S, 0x2c, 0, 1, &f);
	cr_assert_eq(f.provider, 3); /* 2nd set bit of 0b101100 */
	/* WRITE_MISS, Shared: everyone, one of them provides. */
	na_forward_rule(LCF_T_WRITE_MISS, S, 0x2c, 0, 2, &f);
	cr_assert_eq(f.to, 0x2c);
	cr_assert_eq(f.provider, 5);
	/* WRITE_SHARED: the others; the sole holder gets an ACK. */
	na_forward_rule(LCF_T_WRITE_SHARED, S, 0x2c, 2, 0, &f);
	cr_assert_eq(f.kind, NA_FWD_TO_CACHES);
	cr_assert_eq(f.to, 0x28);
	cr_assert_eq(f.provider, LCF_NODE_NONE);
	na_forward_rule(LCF_T_WRITE_SHARED, S, 0x4, 2, 0, &f);
	cr_assert_eq(f.kind, NA_FWD_REPLY_ACK);
	na_forward_rule(LCF_T_EVICT_MODIFIED, M, 0x4, 2, 0, &f);
	cr_assert_eq(f.kind, NA_FWD_REPLY_ACK);
	/* Shared with an empty copyset: the home answers with data. */
	na_forward_rule(LCF_T_READ_MISS, S, 0, 2, 0, &f);
	cr_assert_eq(f.kind, NA_FWD_REPLY_DATA);
}

Test(seq, wraparound)
{
	cr_assert(lcf_seq_after(1, 0xffffffffu));
	cr_assert(lcf_seq_after(5, 0xfffffff0u));
	cr_assert_not(lcf_seq_after(0xfffffff0u, 5));
	cr_assert_not(lcf_seq_after(7, 7));
}

Test(last_executed, verdicts)
{
	struct na_last_exec le = { 0 };

	cr_assert_eq(na_le_check(&le, 1), NA_LE_EXECUTE);
	na_le_commit(&le, 1);
	cr_assert_eq(na_le_check(&le, 1), NA_LE_DUPLICATE);
	cr_assert_eq(na_le_check(&le, 0), NA_LE_STALE);
	cr_assert_eq(na_le_check(&le, 2), NA_LE_EXECUTE);
	/* across the wrap */
	na_le_commit(&le, 0xfffffffeu);
	cr_assert_eq(na_le_check(&le, 3), NA_LE_EXECUTE);
	cr_assert_eq(na_le_check(&le, 0xfffffff0u), NA_LE_STALE);
	cr_assert_eq(na_le_check(&le, 0xfffffffeu), NA_LE_DUPLICATE);
}

static struct lcf_msg
msg(uint8_t type, uint8_t flags, uint8_t gs, uint32_t cs, uint16_t node)
{
	return (struct lcf_msg){ .version = 1,
				 .type = type,
				 .flags = flags,
				 .gstatus = gs,
				 .copyset = cs,
				 .node = node };
}

Test(dispatch, classify)
{
	struct lcf_msg m;

	m = msg(LCF_T_READ_MISS, 0, U, 0, 1); /* tag miss */
	cr_assert_eq(na_classify(&m, 0), NA_ROUTE_HOME);
	m = msg(LCF_T_READ_MISS, LCF_F_IN_SWITCH, U, 0, 1); /* fwd home */
	cr_assert_eq(na_classify(&m, 0), NA_ROUTE_HOME);
	m = msg(LCF_T_WRITE_MISS, LCF_F_IN_SWITCH, S, 0x5, 1);
	cr_assert_eq(na_classify(&m, 0), NA_ROUTE_CACHE);
	m = msg(LCF_T_WRITE_SHARED, LCF_F_IN_SWITCH, S, 0x1, 0); /* sole */
	cr_assert_eq(na_classify(&m, 0), NA_ROUTE_REQUESTER);
	m = msg(LCF_T_WRITE_SHARED, LCF_F_IN_SWITCH, S, 0x3, 1); /* inval */
	cr_assert_eq(na_classify(&m, 0), NA_ROUTE_CACHE);
	m = msg(LCF_T_EVICT_SHARED, LCF_F_IN_SWITCH, S, 0x1, 0);
	cr_assert_eq(na_classify(&m, 0), NA_ROUTE_REQUESTER);
	m = msg(LCF_T_WRITE_UNLOCK, 0, M, 0x1, 1);
	cr_assert_eq(na_classify(&m, 0), NA_ROUTE_HOME);
	m = msg(LCF_T_NACK, LCF_F_IN_SWITCH | LCF_F_FAIL, S, 0x1, 0);
	cr_assert_eq(na_classify(&m, 0), NA_ROUTE_REQUESTER);
	cr_assert_eq(na_classify(&m, 1), NA_ROUTE_DROP);
	m = msg(LCF_T_MIGRATE_ACK, LCF_F_IN_SWITCH, U, 0, 2);
	cr_assert_eq(na_classify(&m, 3), NA_ROUTE_MIGRATE);
	m = msg(NA_MSG_FWD, 0, S, 0x4, 1);
	cr_assert_eq(na_classify(&m, 2), NA_ROUTE_CACHE);
	m = msg(NA_MSG_DATA, 0, 0, 0, 2);
	cr_assert_eq(na_classify(&m, 2), NA_ROUTE_REQUESTER);
	m = msg(NA_MSG_WB, 0, 0, 0, 2);
	cr_assert_eq(na_classify(&m, 0), NA_ROUTE_HOME);
	m = msg(0x7d, 0, 0, 0, 2);
	cr_assert_eq(na_classify(&m, 0), NA_ROUTE_DROP);
}

Test(collect, write_miss_waits_for_all_acks_and_data)
{
	struct na_collect c;

	na_collect_init(&c, LCF_T_WRITE_MISS, 0, 4096);
	cr_assert_not(na_collect_done(&c));
	na_collect_ack(&c, 2, S, 0x6, true);
	cr_assert_not(na_collect_done(&c)); /* node 1 missing */
	na_collect_ack(&c, 1, S, 0x6, true);
	cr_assert_not(na_collect_done(&c)); /* no data yet */
	cr_assert(na_collect_data(&c, 0, 1400));
	cr_assert(na_collect_data(&c, 2800, 1296));
	cr_assert_not(na_collect_done(&c));
	cr_assert(na_collect_data(&c, 1400, 1400));
	cr_assert(na_collect_done(&c));
	cr_assert_eq(c.cs_old, 0x6);
}

/* A read of a Modified block: the reader writes it home unless the data
 * provider's ACK says the home has it (NA_ACK_HOME_WRITTEN). */
Test(collect, home_written_only_from_the_data_provider)
{
	struct na_collect c;
	struct lcf_msg a = { .type = NA_MSG_ACK,
			     .gstatus = LCF_GS_MODIFIED,
			     .copyset = 0x4,
			     .aux = na_aux_orig(LCF_T_READ_MISS, 2) };

	na_collect_init(&c, LCF_T_READ_MISS, 0, 4096);
	na_collect_na_ack(&c, &a); /* no DATA_PROVIDER */
	cr_assert_not(c.home_written);
	cr_assert_eq(c.acked, 0x4);
	na_collect_init(&c, LCF_T_READ_MISS, 0, 4096);
	a.flags = LCF_F_DATA_PROVIDER;
	na_collect_na_ack(&c, &a); /* the provider, data not home */
	cr_assert_not(c.home_written);
	a.aux |= NA_ACK_HOME_WRITTEN;
	na_collect_na_ack(&c, &a);
	cr_assert(c.home_written);
	cr_assert_eq(c.gs_old, LCF_GS_MODIFIED);
	cr_assert_eq(c.acked, 0x4); /* the responder is still node 2 */
	a.flags = 0;                /* the flag counts only with the data */
	na_collect_init(&c, LCF_T_READ_MISS, 0, 4096);
	na_collect_na_ack(&c, &a);
	cr_assert_not(c.home_written);
}

/* The owner's write-back (NA_ACK_OWNER_WB): the home's NA_WB_ACKs may come
 * before the data; each is kept for the reader's write-back wait. */
Test(collect, owner_wb_and_early_wb_acks)
{
	struct na_collect c;
	uint8_t buf[4096];
	bool stale;
	struct lcf_msg a = { .type = NA_MSG_ACK,
			     .flags = LCF_F_DATA_PROVIDER,
			     .gstatus = LCF_GS_MODIFIED,
			     .node = 0,
			     .seq = 7,
			     .tag = 9,
			     .copyset = 0x4,
			     .aux = na_aux_orig(LCF_T_READ_MISS, 2) |
				    NA_ACK_OWNER_WB };
	struct lcf_msg w = { .type = NA_MSG_WB_ACK,
			     .node = 0,
			     .seq = 7,
			     .tag = 9,
			     .aux = NA_MAX_FRAME_PAYLOAD };

	na_collect_init(&c, LCF_T_READ_MISS, 0, 4096);
	cr_assert_not(na_collect_reply(&c, LCF_T_READ_MISS, 7, 9, &w, NULL, buf,
				       &stale));
	cr_assert_not(stale);
	cr_assert_eq(c.wb_have, 0x2);
	w.aux = 5; /* not a segment's offset */
	na_collect_reply(&c, LCF_T_READ_MISS, 7, 9, &w, NULL, buf, &stale);
	cr_assert_eq(c.wb_have, 0x2);
	cr_assert_not(c.owner_wb);
	na_collect_na_ack(&c, &a);
	cr_assert(c.owner_wb);
	cr_assert_not(c.home_written);
	cr_assert_not(na_collect_done(&c)); /* the data is still missing */
}

Test(collect, write_shared_sole_holder_and_others)
{
	struct na_collect c;

	na_collect_init(&c, LCF_T_WRITE_SHARED, 3, 4096);
	na_collect_ack(&c, LCF_NODE_NONE, S, 0x8, true); /* returned */
	cr_assert(na_collect_done(&c));
	na_collect_init(&c, LCF_T_WRITE_SHARED, 3, 4096);
	na_collect_ack(&c, 0, S, 0x9, true);
	cr_assert(na_collect_done(&c)); /* {0,3} - {3} */
	na_collect_init(&c, LCF_T_WRITE_SHARED, 3, 4096);
	na_collect_ack(&c, 0, S, 0xb, true);
	cr_assert_not(na_collect_done(&c)); /* node 1 too */
}

/* na_collect_reply: one message of the event, or stale. */
Test(collect, reply_dispatch)
{
	static uint8_t buf[4096], pl[1400];
	struct lcf_msg x = { .seq = 7, .tag = 9 };
	struct na_collect c;
	bool stale;

	memset(pl, 0xab, sizeof(pl));
	na_collect_init(&c, LCF_T_READ_MISS, 0, 4096);
	x.type = NA_MSG_DATA;
	x.aux = 1400;
	x.len = 1400;
	x.seq = 8; /* another seq's */
	cr_assert_not(na_collect_reply(&c, LCF_T_READ_MISS, 7, 9, &x, pl, buf,
				       &stale));
	cr_assert(stale);
	cr_assert_eq(buf[1400], 0);
	x.seq = 7;
	cr_assert_not(na_collect_reply(&c, LCF_T_READ_MISS, 7, 9, &x, pl, buf,
				       &stale));
	cr_assert_not(stale);
	cr_assert_eq(buf[1400], 0xab);
	x.type = LCF_T_READ_UNLOCK; /* of no use */
	na_collect_reply(&c, LCF_T_READ_MISS, 7, 9, &x, pl, buf, &stale);
	cr_assert(stale);
	x.type = NA_MSG_ACK;
	x.aux = 1; /* responder */
	x.flags = LCF_F_DATA_PROVIDER;
	x.aux = 1 | NA_ACK_HOME_WRITTEN; /* the home wrote the data */
	na_collect_reply(&c, LCF_T_READ_MISS, 7, 9, &x, pl, buf, &stale);
	cr_assert(c.got_reply);
	cr_assert(c.home_written);
	cr_assert_eq(c.acked, 0x2);
	x.flags = 0;
	x.type = NA_MSG_NACK; /* after a reply: not a refusal */
	na_collect_reply(&c, LCF_T_READ_MISS, 7, 9, &x, pl, buf, &stale);
	cr_assert_not(c.nacked);
	na_collect_init(&c, LCF_T_WRITE_SHARED, 0, 4096);
	x.type = LCF_T_WRITE_SHARED; /* returned by the switch: the ACK */
	x.copyset = 0x1;
	cr_assert(na_collect_reply(&c, LCF_T_WRITE_SHARED, 7, 9, &x, pl, buf,
				   &stale));
	na_collect_init(&c, LCF_T_WRITE_MISS, 0, 4096);
	x.type = LCF_T_NACK;
	cr_assert(na_collect_reply(&c, LCF_T_WRITE_MISS, 7, 9, &x, pl, buf,
				   &stale));
	cr_assert(c.nacked);
}

Test(collect, unlock_meta_is_figure_6)
{
	uint8_t gs;
	uint32_t cs;

	na_unlock_meta(LCF_T_READ_MISS, LCF_GS_SHARED, 0x2, 0, &gs, &cs);
	cr_assert_eq(cs, 0x3);
	cr_assert_eq(gs, na_next_gstatus(LCF_T_READ_MISS, LCF_GS_SHARED, 0x3));
	na_unlock_meta(LCF_T_WRITE_MISS, LCF_GS_SHARED, 0x6, 0, &gs, &cs);
	cr_assert_eq(cs, 0x1);
	cr_assert_eq(gs, LCF_GS_MODIFIED);
}

Test(collect, nack_and_read)
{
	struct na_collect c;

	na_collect_init(&c, LCF_T_READ_MISS, 0, 4096);
	c.nacked = true;
	cr_assert(na_collect_done(&c));
	na_collect_init(&c, LCF_T_READ_MISS, 0, 1024);
	cr_assert_not(na_collect_data(&c, 0, 1000)); /* wrong length */
	cr_assert(na_collect_data(&c, 0, 1024));
	cr_assert_not(na_collect_done(&c)); /* no ACK yet */
	na_collect_ack(&c, 2, M, 0x4, false);
	cr_assert(na_collect_done(&c));
}

Test(seg, split_and_index)
{
	uint32_t off;
	uint16_t len;

	cr_assert_eq(na_seg_count(4096), 3);
	cr_assert_eq(na_seg_count(1400), 1);
	cr_assert_eq(na_seg_count(65536), 47);
	cr_assert_eq(na_seg_all(4096), 0x7);
	na_seg_span(4096, 2, &off, &len);
	cr_assert_eq(off, 2800);
	cr_assert_eq(len, 1296);
	cr_assert_eq(na_seg_index(4096, 2800, 1296), 2);
	cr_assert_eq(na_seg_index(4096, 2800, 1400), -1);
	cr_assert_eq(na_seg_index(4096, 100, 1400), -1);
	cr_assert_eq(na_seg_index(4096, 4200, 10), -1);
	cr_assert_eq(na_seg_index(65536, 46 * 1400, 65536 - 46 * 1400), 46);
}

Test(names, types)
{
	cr_assert_str_eq(na_type_name(NA_MSG_FWD), "NA_FWD");
	cr_assert_str_eq(na_type_name(LCF_T_NACK), "NACK");
	cr_assert_str_eq(na_type_name(0x7d), "?");
}

/*
 * The replies numbered by SABRes' and validate-on-hit's own counters are
 * never a coherence request's: the quarantine of an abandoned request of
 * the same seq must not take them (harsh sweeps 33000 run 158: VOH_VERSION;
 * 36000 run 2919: the switch's VERSION).
 */
Test(seq, own_counters_are_not_the_requesters)
{
	cr_assert(na_msg_own_seq(NA_MSG_VOH_VERSION));
	cr_assert(na_msg_own_seq(NA_MSG_SABRE_DATA));
	cr_assert(na_msg_own_seq(LCF_T_VERSION_READ));
	cr_assert(na_msg_own_seq(LCF_T_VERSION));
	cr_assert_not(na_msg_own_seq(LCF_T_READ_MISS));
	cr_assert_not(na_msg_own_seq(LCF_T_NACK));
	cr_assert_not(na_msg_own_seq(NA_MSG_ACK));
	cr_assert_not(na_msg_own_seq(NA_MSG_ABORT_ACK));
}
