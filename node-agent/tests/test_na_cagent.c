/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Cache agent: invalidation, data provision, downgrade, LAST-EXECUTED,
 * deferral while a local thread holds a pin.
 */
#include <criterion/criterion.h>

#include "na_cagent.h"
#include "na_msg.h"

static struct na_cache cache;
static struct na_cagent ca;
static struct na_out out;

static void
setup(void)
{
	cr_assert_eq(na_cache_init(&cache, 64, 4096), 0);
	cr_assert_eq(na_cagent_init(&ca, 2, 16, &cache), 0);
}

static void
teardown(void)
{
	na_cagent_fini(&ca);
	na_cache_fini(&cache);
}

static struct na_centry *
put(uint64_t tag, uint8_t state, uint8_t fill)
{
	struct na_cbucket *b = na_cache_bucket(&cache, tag);
	struct na_centry *victim, *e = na_cache_room(b, &victim);

	na_cache_claim(e, tag, 0, 1);
	e->busy = NA_NOBODY;
	e->state = state;
	memset(e->data, fill, 4096);
	return e;
}

static struct lcf_msg
fwd(uint8_t type, uint64_t tag, uint16_t node, uint32_t seq, bool provider)
{
	/* as the switch sends it: the request, IN_SWITCH, metadata */
	return (struct lcf_msg){
		.version = 1,
		.type = type,
		.node = node,
		.thread = 0,
		.seq = seq,
		.tag = tag,
		.gstatus = LCF_GS_SHARED,
		.copyset = 0x4,
		.dst_node = 2,
		.flags = LCF_F_IN_SWITCH | (provider ? LCF_F_DATA_PROVIDER : 0),
	};
}

static void
feed(struct lcf_msg m)
{
	na_out_reset(&out);
	na_cagent_handle(&ca, &m, &out);
}

TestSuite(cagent, .init = setup, .fini = teardown);

Test(cagent, write_miss_provider_invalidates_and_duplicate_resends_data)
{
	struct na_centry *e = put(100, NA_L_MODIFIED, 0x5a);

	feed(fwd(LCF_T_WRITE_MISS, 100, 1, 7, true));
	cr_assert_eq(e->state, NA_L_INVALID);
	cr_assert_eq(out.n, 4);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_DATA);
	cr_assert_eq(out.m[0].dst, 1);
	cr_assert_eq(((const uint8_t *)out.m[0].payload)[0], 0x5a);
	cr_assert_eq(out.m[3].msg.type, NA_MSG_ACK);
	cr_assert_eq(out.m[3].msg.copyset, 0x4);
	cr_assert_eq(out.m[3].msg.gstatus, LCF_GS_SHARED);
	cr_assert(out.m[3].msg.flags & LCF_F_IN_SWITCH);
	cr_assert(out.m[3].msg.flags & LCF_F_DATA_PROVIDER);
	cr_assert_eq(na_aux_responder(out.m[3].msg.aux), 2);

	/* the copy is gone, yet a retransmission gets the same data */
	memset(e->data, 0, 4096);
	feed(fwd(LCF_T_WRITE_MISS, 100, 1, 7, true));
	cr_assert_eq(out.n, 4);
	cr_assert_eq(((const uint8_t *)out.m[2].payload)[10], 0x5a);
	cr_assert_eq(ca.st.duplicates, 1);
	/* older: ignored */
	feed(fwd(LCF_T_WRITE_MISS, 100, 1, 6, true));
	cr_assert_eq(out.n, 0);
}

Test(cagent, read_miss_downgrades_modified)
{
	struct na_centry *e = put(200, NA_L_MODIFIED, 1);

	feed(fwd(LCF_T_READ_MISS, 200, 3, 1, true));
	cr_assert_eq(e->state, NA_L_SHARED);
	cr_assert_eq(out.n, 4);
	cr_assert_eq(ca.st.downgrades, 1);
}

/* The home's cache agent, as na_node_start.c sets it up: records the
 * write-backs it is asked to do, takes them when `home_ok`. */
static int home_calls;
static bool home_ok;
static uint8_t home_byte;

static bool
home_wb(void *ctx, const struct lcf_msg *req, const uint8_t *data)
{
	(void)ctx;
	(void)req;
	home_calls++;
	home_byte = data[4095];
	return home_ok;
}

static void
home_setup(bool ok)
{
	home_calls = 0;
	home_ok = ok;
	ca.home_wb = home_wb;
	ca.home_ctx = NULL;
}

Test(cagent, read_miss_of_modified_copy_at_its_home_writes_it_home)
{
	struct na_centry *e = put(210, NA_L_MODIFIED, 0x3c);

	home_setup(true);
	feed(fwd(LCF_T_READ_MISS, 210, 3, 1, true));
	cr_assert_eq(e->state, NA_L_SHARED);
	cr_assert_eq(home_calls, 1);
	cr_assert_eq(home_byte, 0x3c);
	cr_assert_eq(out.n, 4);
	cr_assert_eq(out.m[3].msg.type, NA_MSG_ACK);
	cr_assert(out.m[3].msg.flags & LCF_F_DATA_PROVIDER);
	cr_assert(out.m[3].msg.aux & NA_ACK_HOME_WRITTEN);
	cr_assert_eq(na_aux_responder(out.m[3].msg.aux), 2);
	cr_assert_eq(ca.st.home_written, 1);
	/* A duplicate gets the same answer; nothing is written again. */
	feed(fwd(LCF_T_READ_MISS, 210, 3, 1, true));
	cr_assert_eq(out.n, 4);
	cr_assert(out.m[3].msg.aux & NA_ACK_HOME_WRITTEN);
	cr_assert_eq(home_calls, 1);
}

Test(cagent, reader_writes_home_when_the_home_did_not)
{
	struct na_centry *e;

	/* The home refuses (or the block is not this node's). */
	put(220, NA_L_MODIFIED, 1);
	home_setup(false);
	feed(fwd(LCF_T_READ_MISS, 220, 3, 1, true));
	cr_assert_eq(home_calls, 1);
	cr_assert_eq(out.n, 4);
	cr_assert_eq(out.m[3].msg.aux & NA_ACK_HOME_WRITTEN, 0);
	/* A clean copy: memory has it already, nothing to write. */
	home_setup(true);
	e = put(230, NA_L_SHARED, 1);
	feed(fwd(LCF_T_READ_MISS, 230, 3, 2, true));
	cr_assert_eq(e->state, NA_L_SHARED);
	cr_assert_eq(home_calls, 0);
	cr_assert_eq(out.m[3].msg.aux & NA_ACK_HOME_WRITTEN, 0);
	/* A write takes the block away: the writer's, not the home's. */
	put(240, NA_L_MODIFIED, 1);
	feed(fwd(LCF_T_WRITE_MISS, 240, 3, 3, true));
	cr_assert_eq(home_calls, 0);
	cr_assert_eq(out.m[3].msg.aux & NA_ACK_HOME_WRITTEN, 0);
	cr_assert_eq(ca.st.home_written, 0);
}

/* Two readers under one read lock of a Modified block homed here: the
 * first downgraded the copy and wrote memory; the second finds it Shared
 * (G-STATUS still Modified) and gets HOME_WRITTEN too, so it does not
 * send the same block home (lcf.pml cache_serve). */
Test(cagent, second_reader_of_modified_block_at_its_home_gets_home_written)
{
	struct lcf_msg m;

	put(270, NA_L_MODIFIED, 0x42);
	home_setup(true);
	m = fwd(LCF_T_READ_MISS, 270, 3, 1, true);
	m.gstatus = LCF_GS_MODIFIED;
	feed(m);
	cr_assert(out.m[3].msg.aux & NA_ACK_HOME_WRITTEN);
	m = fwd(LCF_T_READ_MISS, 270, 4, 1, true);
	m.gstatus = LCF_GS_MODIFIED;
	feed(m);
	cr_assert_eq(ca.st.downgrades, 1);
	cr_assert_eq(home_calls, 2);
	cr_assert_eq(home_byte, 0x42);
	cr_assert_eq(out.n, 4);
	cr_assert(out.m[3].msg.flags & LCF_F_DATA_PROVIDER);
	cr_assert(out.m[3].msg.aux & NA_ACK_HOME_WRITTEN);
	cr_assert_eq(ca.st.home_written, 2);
	/* The home refuses: the reader writes it back, as before. */
	home_setup(false);
	m = fwd(LCF_T_READ_MISS, 270, 5, 1, true);
	m.gstatus = LCF_GS_MODIFIED;
	feed(m);
	cr_assert_eq(home_calls, 1);
	cr_assert_eq(out.m[3].msg.aux & NA_ACK_HOME_WRITTEN, 0);
}

/* A Modified owner that is not the home (lib/model/wbown.pml): the block
 * goes home as NA_WB under the reader's identity beside the data, once;
 * a duplicate request gets the ACK and data again, not the NA_WB. */
static uint16_t
home_of(void *ctx, uint64_t tag)
{
	(void)ctx;
	(void)tag;
	return 5;
}

Test(cagent, read_miss_of_modified_copy_elsewhere_sends_it_home)
{
	put(250, NA_L_MODIFIED, 0x7e);
	home_setup(false);
	ca.home_of = home_of;
	feed(fwd(LCF_T_READ_MISS, 250, 3, 9, true));
	cr_assert_eq(out.n, 7);
	for (uint32_t i = 0; i < 3; i++) {
		cr_assert_eq(out.m[i].msg.type, NA_MSG_WB);
		cr_assert_eq(out.m[i].dst, 5);
		cr_assert_eq(out.m[i].msg.node, 3);
		cr_assert_eq(out.m[i].msg.seq, 9);
		cr_assert_eq(out.m[i].msg.tag, 250);
		cr_assert_eq(((const uint8_t *)out.m[i].payload)[0], 0x7e);
		cr_assert_eq(out.m[i + 3].msg.type, NA_MSG_DATA);
		cr_assert_eq(out.m[i + 3].dst, 3);
	}
	cr_assert(out.m[6].msg.aux & NA_ACK_OWNER_WB);
	cr_assert_eq(out.m[6].msg.aux & NA_ACK_HOME_WRITTEN, 0);
	cr_assert_eq(ca.st.owner_wb, 1);
	feed(fwd(LCF_T_READ_MISS, 250, 3, 9, true));
	cr_assert_eq(out.n, 4);
	cr_assert(out.m[3].msg.aux & NA_ACK_OWNER_WB);
	cr_assert_eq(ca.st.owner_wb, 1);
	/* A Shared copy: memory has it, nothing goes home. */
	put(260, NA_L_SHARED, 1);
	feed(fwd(LCF_T_READ_MISS, 260, 3, 10, true));
	cr_assert_eq(out.n, 4);
	cr_assert_eq(out.m[3].msg.aux & NA_ACK_OWNER_WB, 0);
}

Test(cagent, home_forward_is_handled_like_a_switch_copy)
{
	struct na_centry *e = put(300, NA_L_SHARED, 1);
	struct lcf_msg m = fwd(LCF_T_WRITE_SHARED, 300, 1, 4, false);

	m.type = NA_MSG_FWD;
	m.flags = 0;
	m.aux = na_aux_orig(LCF_T_WRITE_SHARED, 0);
	feed(m);
	cr_assert_eq(e->state, NA_L_INVALID);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_ACK);
	cr_assert_eq(out.m[0].msg.flags, 0); /* not IN_SWITCH */
	cr_assert_eq(na_aux_orig_type(out.m[0].msg.aux), LCF_T_WRITE_SHARED);
}

Test(cagent, pinned_block_defers_until_released)
{
	struct na_centry *e = put(400, NA_L_SHARED, 1);

	e->pin_r = 1;
	feed(fwd(LCF_T_WRITE_MISS, 400, 1, 9, false));
	cr_assert_eq(out.n, 0);
	cr_assert_eq(e->state, NA_L_SHARED);
	cr_assert_eq(ca.n_def, 1);
	/* its retransmission is not queued twice */
	feed(fwd(LCF_T_WRITE_MISS, 400, 1, 9, false));
	cr_assert_eq(ca.n_def, 1);
	/* a read pin does not stop another reader */
	feed(fwd(LCF_T_READ_MISS, 400, 3, 1, true));
	cr_assert_eq(out.n, 4);

	e->pin_r = 0;
	na_out_reset(&out);
	na_cagent_run_deferred(&ca, &out);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(e->state, NA_L_INVALID);
	cr_assert_eq(ca.n_def, 0);
}

Test(cagent, hot_report_for_switch_owned_invalidations)
{
	put(500, NA_L_SHARED, 1);
	feed(fwd(LCF_T_WRITE_SHARED, 500, 1, 1, false));
	na_out_reset(&out);
	na_cagent_epoch(&ca, 3, &out);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_HOT_REPORT);
	cr_assert_eq(out.m[0].msg.len, 12);
	cr_assert_eq(((const uint8_t *)out.m[0].payload)[7], 500 & 0xff);
	cr_assert_eq(((const uint8_t *)out.m[0].payload)[11], 1);
	na_out_reset(&out);
	na_cagent_epoch(&ca, 3, &out);
	cr_assert_eq(out.n, 0);
}
