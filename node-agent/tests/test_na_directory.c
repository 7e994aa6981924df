/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The directory protocol (na_directory.h): the home's side fed messages
 * through na_home_handle, the cache agent's reply and the requester's wrap.
 */
#include <criterion/criterion.h>

#include "na_directory.h"
#include "na_home.h"
#include "na_msg.h"
#include "test_na_topo.h"
#include "na_node.h"
#include "topo.h"

static struct topo t;
static struct na_home h;
static struct na_out out;
static uint8_t seg[1400];

static void
setup(void)
{
	test_na_topo4(&t);
	cr_assert_eq(na_home_init(&h, &t, 0, NA_CHUNK_SIZE * 2, 7), 0);
	cr_assert_eq(na_dir_attach(&h), 0);
}

static void
teardown(void)
{
	na_dir_detach(&h);
	na_home_fini(&h);
}

static void
feed(struct lcf_msg m, const void *payload)
{
	na_out_reset(&out);
	na_home_handle(&h, &m, payload, m.len, &out);
	cr_assert_eq(out.overflow, 0);
}

/* A DIR_REQ of `type` from requester (node, thread 1). */
static void
dreq(uint8_t type, uint16_t node, uint32_t seq, uint32_t blk)
{
	feed((struct lcf_msg){ .version = 1,
			       .type = NA_MSG_DIR_REQ,
			       .node = node,
			       .thread = 1,
			       .seq = seq,
			       .tag = na_home_tag(&h, blk),
			       .aux = na_aux_orig(type, 0) },
	     NULL);
}

static void
dunlock(uint8_t type, uint16_t node, uint32_t seq, uint32_t blk, uint8_t gs,
	uint32_t cs)
{
	feed((struct lcf_msg){ .version = 1,
			       .type = NA_MSG_DIR_UNLOCK,
			       .node = node,
			       .thread = 1,
			       .seq = seq,
			       .tag = na_home_tag(&h, blk),
			       .gstatus = gs,
			       .copyset = cs,
			       .aux = na_aux_orig(type, 0) },
	     NULL);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_UNLOCK_ACK);
	cr_assert_eq(out.m[0].msg.seq, seq);
}

/* The cache agent `from`'s answer to requester (node, seq). */
static void
inv_ack(uint16_t from, uint16_t node, uint32_t seq, uint32_t blk, bool data)
{
	feed((struct lcf_msg){ .version = 1,
			       .type = NA_MSG_DIR_INV_ACK,
			       .flags = data ? LCF_F_DATA_PROVIDER : 0,
			       .node = node,
			       .thread = 1,
			       .seq = seq,
			       .tag = na_home_tag(&h, blk),
			       .aux = na_aux_orig(LCF_T_WRITE_MISS, from) },
	     NULL);
}

static void
dir_data(uint16_t node, uint32_t seq, uint32_t blk, uint32_t off, uint16_t len)
{
	feed((struct lcf_msg){ .version = 1,
			       .type = NA_MSG_DIR_DATA,
			       .node = node,
			       .thread = 1,
			       .seq = seq,
			       .tag = na_home_tag(&h, blk),
			       .aux = off,
			       .len = len },
	     seg);
}

/* Block `blk` Modified at `owner` (its write miss and unlock). */
static void
make_modified(uint32_t blk, uint16_t owner, uint32_t seq)
{
	dreq(LCF_T_WRITE_MISS, owner, seq, blk);
	cr_assert_eq(out.m[out.n - 1].msg.type, NA_MSG_DIR_GRANT);
	dunlock(LCF_T_WRITE_UNLOCK, owner, seq, blk, LCF_GS_MODIFIED,
		na_bit(owner));
	cr_assert_eq(h.blk[blk].gs, LCF_GS_MODIFIED);
	cr_assert_eq(h.blk[blk].cs, na_bit(owner));
}

TestSuite(dir, .init = setup, .fini = teardown);

Test(dir, read_miss_unshared_is_granted_from_memory)
{
	h.mem[9] = 0x5a;
	dreq(LCF_T_READ_MISS, 1, 10, 0);
	cr_assert_eq(out.n, 4); /* 3 segments + grant */
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(out.m[i].msg.type, NA_MSG_DATA);
		cr_assert_eq(out.m[i].dst, 1);
	}
	cr_assert_eq(((const uint8_t *)out.m[0].payload)[9], 0x5a);
	cr_assert_eq(out.m[3].msg.type, NA_MSG_DIR_GRANT);
	cr_assert(out.m[3].msg.flags & LCF_F_DATA_PROVIDER);
	cr_assert_eq(na_aux_orig_type(out.m[3].msg.aux), LCF_T_READ_MISS);
	cr_assert_eq(na_aux_responder(out.m[3].msg.aux), 0);
	cr_assert_eq(h.blk[0].readers, 1);
	cr_assert_not(h.blk[0].writer);
	/* a duplicate gets the grant again, no second lock */
	dreq(LCF_T_READ_MISS, 1, 10, 0);
	cr_assert_eq(out.n, 4);
	cr_assert_eq(h.blk[0].readers, 1);
	dunlock(LCF_T_READ_UNLOCK, 1, 10, 0, LCF_GS_SHARED, 0x2);
	cr_assert_eq(h.blk[0].readers, 0);
	cr_assert_eq(h.blk[0].cs, 0x2);
}

Test(dir, write_miss_on_modified_fetches_through_the_home)
{
	make_modified(3, 2, 1);
	dreq(LCF_T_WRITE_MISS, 1, 7, 3);
	/* one fetch+invalidate to the owner, nothing to the requester yet */
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_DIR_INV);
	cr_assert_eq(out.m[0].dst, 2);
	cr_assert(out.m[0].msg.flags & LCF_F_DATA_PROVIDER);
	cr_assert_eq(out.m[0].msg.node, 1); /* the requester's */
	cr_assert_eq(na_aux_responder(out.m[0].msg.aux), 0); /* the home */
	cr_assert(h.blk[3].writer);

	/* another requester meanwhile: NACKed */
	dreq(LCF_T_READ_MISS, 3, 4, 3);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_NACK);
	/* the requester retransmits: the missing invalidation is re-sent */
	dreq(LCF_T_WRITE_MISS, 1, 7, 3);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_DIR_INV);

	/* the owner's ACK alone does not complete it: the data is missing */
	inv_ack(2, 1, 7, 3, true);
	cr_assert_eq(out.n, 0);
	memset(seg, 0xab, sizeof(seg));
	dir_data(1, 7, 3, 0, 1400);
	dir_data(1, 7, 3, 1400, 1400);
	cr_assert_eq(out.n, 0);
	dir_data(1, 7, 3, 2800, 1296);
	cr_assert_eq(out.n, 4);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_DATA);
	cr_assert_eq(((const uint8_t *)out.m[0].payload)[0], 0xab);
	cr_assert_eq(out.m[3].msg.type, NA_MSG_DIR_GRANT);
	cr_assert_eq(out.m[3].dst, 1);
	/* after the home acted: nobody holds it, memory has the data */
	cr_assert_eq(out.m[3].msg.gstatus, LCF_GS_UNSHARED);
	cr_assert_eq(out.m[3].msg.copyset, 0);
	cr_assert_eq(h.mem[(3u << 12) + 4095], 0xab);
	cr_assert(h.blk[3].writer);
	dunlock(LCF_T_WRITE_UNLOCK, 1, 7, 3, LCF_GS_MODIFIED, 0x2);
	cr_assert_not(h.blk[3].writer);
	cr_assert_eq(h.blk[3].cs, 0x2);
}

Test(dir, read_miss_on_modified_downgrades_then_readers_share)
{
	make_modified(5, 2, 1);
	dreq(LCF_T_READ_MISS, 1, 3, 5);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].dst, 2);
	cr_assert(out.m[0].msg.flags & LCF_F_DATA_PROVIDER);
	cr_assert(h.blk[5].writer); /* alone while fetching */
	for (uint32_t off = 0; off < 4096; off += 1400)
		dir_data(1, 3, 5, off, off + 1400 > 4096 ? 4096 - off : 1400);
	inv_ack(2, 1, 3, 5, true);
	cr_assert_eq(out.m[out.n - 1].msg.type, NA_MSG_DIR_GRANT);
	/* the owner kept a clean copy: Shared {2}; no write-back needed */
	cr_assert_eq(out.m[out.n - 1].msg.gstatus, LCF_GS_SHARED);
	cr_assert_eq(out.m[out.n - 1].msg.copyset, 0x4);
	cr_assert_not(h.blk[5].writer);
	cr_assert_eq(h.blk[5].readers, 1);
	/* a second reader is served from memory at once */
	dreq(LCF_T_READ_MISS, 3, 1, 5);
	cr_assert_eq(out.m[out.n - 1].msg.type, NA_MSG_DIR_GRANT);
	cr_assert_eq(h.blk[5].readers, 2);
	dunlock(LCF_T_READ_UNLOCK, 1, 3, 5, LCF_GS_SHARED, 0x6);
	dunlock(LCF_T_READ_UNLOCK, 3, 1, 5, LCF_GS_SHARED, 0xc);
	cr_assert_eq(h.blk[5].cs, 0xe);
	cr_assert_eq(h.blk[5].readers, 0);
}

Test(dir, write_shared_invalidates_the_other_sharers_only)
{
	h.blk[2].gs = LCF_GS_SHARED;
	h.blk[2].cs = 0xe; /* nodes 1, 2, 3 */
	dreq(LCF_T_WRITE_SHARED, 1, 9, 2);
	cr_assert_eq(out.n, 2);
	cr_assert_eq(out.m[0].dst, 2);
	cr_assert_eq(out.m[1].dst, 3);
	cr_assert_not(out.m[0].msg.flags & LCF_F_DATA_PROVIDER);
	inv_ack(3, 1, 9, 2, false);
	cr_assert_eq(out.n, 0);
	inv_ack(3, 1, 9, 2, false); /* duplicate ACK */
	cr_assert_eq(out.n, 0);
	inv_ack(2, 1, 9, 2, false);
	cr_assert_eq(out.n, 1); /* no data */
	cr_assert_eq(out.m[0].msg.type, NA_MSG_DIR_GRANT);
	cr_assert_eq(out.m[0].msg.copyset, 0x2);
	/* a late ACK of a finished transaction changes nothing */
	inv_ack(2, 1, 9, 2, false);
	cr_assert_eq(out.n, 0);
}

Test(dir, check_failure_is_nacked_and_not_recorded)
{
	h.blk[1].gs = LCF_GS_SHARED;
	h.blk[1].cs = 0x2;
	dreq(LCF_T_READ_MISS, 1, 4, 1); /* node 1 holds it */
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_NACK);
	cr_assert_eq(h.blk[1].readers, 0);
	/* the same seq, retried once the state allows it, executes */
	h.blk[1].cs = 0x4;
	dreq(LCF_T_READ_MISS, 1, 4, 1);
	cr_assert_eq(out.m[out.n - 1].msg.type, NA_MSG_DIR_GRANT);
}

Test(dir, requester_wraps_requests_and_unlocks)
{
	struct na_node n = { .cfg = { .directory = true } };
	struct lcf_msg m = { .type = LCF_T_WRITE_SHARED };

	na_dir_wrap(&n, &m);
	cr_assert_eq(m.type, NA_MSG_DIR_REQ);
	cr_assert_eq(na_aux_orig_type(m.aux), LCF_T_WRITE_SHARED);
	m = (struct lcf_msg){ .type = LCF_T_READ_UNLOCK };
	na_dir_wrap(&n, &m);
	cr_assert_eq(m.type, NA_MSG_DIR_UNLOCK);
	cr_assert_eq(na_classify(&m, 0), NA_ROUTE_HOME);
	n.cfg.directory = false;
	m = (struct lcf_msg){ .type = LCF_T_READ_MISS };
	na_dir_wrap(&n, &m);
	cr_assert_eq(m.type, LCF_T_READ_MISS);
}

Test(dir, cache_agent_answers_the_home)
{
	struct lcf_msg inv = { .type = NA_MSG_DIR_INV,
			       .node = 1,
			       .aux = na_aux_orig(LCF_T_WRITE_MISS, 3) };
	struct lcf_msg ack = { .type = NA_MSG_ACK, .node = 1, .dst_node = 1 };

	na_dir_cagent_reply(&inv, &ack);
	cr_assert_eq(ack.type, NA_MSG_DIR_INV_ACK);
	cr_assert_eq(ack.dst_node, 3);
	cr_assert_eq(na_classify(&ack, 3), NA_ROUTE_HOME);
	cr_assert_eq(na_classify(&inv, 2), NA_ROUTE_CACHE);
}

/* ABORT of requester (node, thread 1)'s seq; returns the answer's FAIL
 * flag ("a copy passed"). */
static bool
dabort(uint16_t node, uint32_t seq, uint32_t blk)
{
	feed((struct lcf_msg){ .version = 1,
			       .type = LCF_T_ABORT,
			       .node = node,
			       .thread = 1,
			       .seq = seq,
			       .tag = na_home_tag(&h, blk) },
	     NULL);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_ABORT_ACK);
	return out.m[0].msg.flags & LCF_F_FAIL;
}

/* lib/model/dircount.pml: the original refused, its network duplicate
 * granted; the ABORT answers "a copy passed" even after an earlier seq of
 * the requester was aborted (that NACK decision is not this seq's). */
Test(dir, refused_copy_then_granted_duplicate_abort_says_passed)
{
	cr_assert_not(dabort(1, 3, 0), "seq 3: no copy, aborted");
	dreq(LCF_T_WRITE_MISS, 2, 1, 0);
	dreq(LCF_T_READ_MISS, 1, 5, 0);
	cr_assert_eq(out.m[out.n - 1].msg.type, NA_MSG_NACK);
	dunlock(LCF_T_WRITE_UNLOCK, 2, 1, 0, LCF_GS_MODIFIED, 0x4);
	dreq(LCF_T_READ_MISS, 1, 5, 0); /* the duplicate */
	cr_assert_eq(h.blk[0].writer + h.blk[0].readers, 1);
	cr_assert(dabort(1, 5, 0), "seq 5 holds the lock: passed");
}

/* No copy granted: aborted, and a late copy of that seq takes nothing. */
Test(dir, aborted_seq_late_copy_takes_nothing)
{
	cr_assert_not(dabort(1, 5, 0));
	dreq(LCF_T_READ_MISS, 1, 5, 0);
	cr_assert_eq(h.blk[0].readers, 0);
	cr_assert_not(h.blk[0].writer);
}
