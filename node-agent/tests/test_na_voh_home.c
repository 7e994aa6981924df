/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Validate-on-hit at the home (na_voh_home.h), fed messages through its
 * pure interface: fetch, update behind a reader, commit and version bump,
 * the lock-free version read, duplicates, lost data, switch-owned blocks.
 */
#include <criterion/criterion.h>

#include "na_home.h"
#include "na_msg.h"
#include "na_voh_home.h"
#include "test_na_topo.h"
#include "topo.h"

static struct topo t;
static struct na_home h;
static struct na_voh_home v;
static struct na_out out;

static void
setup(void)
{
	test_na_topo4(&t);
	cr_assert_eq(na_home_init(&h, &t, 0, NA_CHUNK_SIZE, 7), 0);
	cr_assert_eq(na_voh_home_init(&v, &h), 0);
}

static void
teardown(void)
{
	na_voh_home_fini(&v);
	na_home_fini(&h);
}

static struct lcf_msg
msg(uint8_t type, uint16_t node, uint32_t seq, uint32_t blk)
{
	return (struct lcf_msg){ .version = 1,
				 .type = type,
				 .node = node,
				 .thread = 0,
				 .seq = seq,
				 .tag = na_home_tag(&h, blk) };
}

static void
feed(struct lcf_msg m, const void *payload)
{
	na_out_reset(&out);
	na_voh_handle(&v, &m, payload, m.len, &out);
	cr_assert_eq(out.overflow, 0);
}

static void
done(uint16_t node, uint32_t seq, uint8_t op, uint32_t frames)
{
	struct lcf_msg m = msg(NA_MSG_VOH_DONE, node, seq, 5);

	m.aux = na_aux_orig(op, 0);
	m.copyset = frames;
	feed(m, NULL);
}

static uint32_t
vread(uint16_t node, uint32_t blk)
{
	struct lcf_msg m = msg(NA_MSG_VOH_VREAD, node, 1, blk), r;

	cr_assert(na_voh_vread(&v, &m, &r));
	cr_assert_eq(r.type, NA_MSG_VOH_VERSION);
	cr_assert_eq(r.dst_node, node);
	cr_assert_eq(r.flags & LCF_F_FAIL, 0);
	return r.copyset;
}

TestSuite(voh_home, .init = setup, .fini = teardown);

Test(voh_home, fetch_update_behind_reader_commit)
{
	uint8_t data[100];

	memset(data, 0xab, sizeof(data));
	/* node 1 fetches block 5: the block in 3 segments, version 0 */
	feed(msg(NA_MSG_VOH_READ, 1, 10, 5), NULL);
	cr_assert_eq(out.n, 3);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_VOH_PROCEED);
	cr_assert_eq(out.m[0].msg.copyset, 0);
	/* node 2's update waits for the reader */
	feed(msg(NA_MSG_VOH_UPDATE, 2, 20, 5), NULL);
	cr_assert_eq(out.n, 0);
	/* a new read now waits behind the update (writers preferred) */
	feed(msg(NA_MSG_VOH_READ, 3, 30, 5), NULL);
	cr_assert_eq(out.n, 0);
	/* the reader leaves: ACKed with the version, the update proceeds */
	done(1, 10, NA_MSG_VOH_READ, 0);
	cr_assert_eq(out.n, 2);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_VOH_PROCEED);
	cr_assert_eq(out.m[0].dst, 2);
	cr_assert_eq(out.m[0].msg.len, 0);
	cr_assert_eq(out.m[1].msg.type, NA_MSG_VOH_VERSION);
	cr_assert_eq(out.m[1].dst, 1);
	/* DONE before the data: refused, nothing committed */
	done(2, 20, NA_MSG_VOH_UPDATE, 1);
	cr_assert_eq(out.n, 1);
	cr_assert(out.m[0].msg.flags & LCF_F_FAIL);
	cr_assert_eq(vread(0, 5), 0);
	/* the data, then DONE: version 1, the queued reader gets new data */
	struct lcf_msg w = msg(NA_MSG_VOH_WDATA, 2, 20, 5);

	w.aux = 0u << 24 | 200;
	w.len = sizeof(data);
	feed(w, data);
	cr_assert_eq(out.n, 0);
	done(2, 20, NA_MSG_VOH_UPDATE, 1);
	cr_assert_eq(out.n, 4);
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(out.m[i].dst, 3);
		cr_assert_eq(out.m[i].msg.copyset, 1);
	}
	cr_assert_eq(((const uint8_t *)out.m[0].payload)[200], 0xab);
	cr_assert_eq(out.m[3].msg.type, NA_MSG_VOH_VERSION);
	cr_assert_eq(out.m[3].msg.copyset, 1);
	cr_assert_eq(vread(0, 5), 1);
	cr_assert_eq(h.mem[5 * 4096 + 299], 0xab);
	cr_assert_eq(v.st.commits, 1);
	/* a duplicate DONE is answered again, not committed twice */
	done(2, 20, NA_MSG_VOH_UPDATE, 1);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.copyset, 1);
	cr_assert_eq(v.st.commits, 1);
	cr_assert_eq(v.st.table_errors, 0);
}

Test(voh_home, duplicate_request_resends_grant)
{
	feed(msg(NA_MSG_VOH_READ, 1, 10, 5), NULL);
	cr_assert_eq(out.n, 3);
	feed(msg(NA_MSG_VOH_READ, 1, 10, 5), NULL);
	cr_assert_eq(out.n, 3); /* granted: the PROCEED again */
	cr_assert_eq(v.blk[5]->q.n_rq, 1);
	cr_assert_eq(v.st.duplicates, 1);
}

Test(voh_home, second_updater_waits_for_the_first)
{
	uint8_t b = 1;
	struct lcf_msg w = msg(NA_MSG_VOH_WDATA, 1, 10, 5);

	feed(msg(NA_MSG_VOH_UPDATE, 1, 10, 5), NULL);
	cr_assert_eq(out.n, 1);
	feed(msg(NA_MSG_VOH_UPDATE, 2, 20, 5), NULL);
	cr_assert_eq(out.n, 0);
	w.len = 1;
	feed(w, &b);
	done(1, 10, NA_MSG_VOH_UPDATE, 1);
	cr_assert_eq(out.n, 2); /* the ACK, then the next update's PROCEED */
	cr_assert_eq(out.m[0].msg.type, NA_MSG_VOH_VERSION);
	cr_assert_eq(out.m[1].msg.type, NA_MSG_VOH_PROCEED);
	cr_assert_eq(out.m[1].dst, 2);
	cr_assert_eq(v.st.table_errors, 0);
}

Test(voh_home, switch_owned_block_refused)
{
	struct lcf_msg m = msg(NA_MSG_VOH_VREAD, 1, 1, 7), r;

	h.blk[7].owner = NA_OWN_SWITCH;
	cr_assert(na_voh_vread(&v, &m, &r));
	cr_assert(r.flags & LCF_F_FAIL);
	feed(msg(NA_MSG_VOH_READ, 1, 2, 7), NULL);
	cr_assert_eq(out.n, 1);
	cr_assert(out.m[0].msg.flags & LCF_F_FAIL);
	feed(msg(NA_MSG_VOH_UPDATE, 2, 3, 7), NULL);
	cr_assert(out.m[0].msg.flags & LCF_F_FAIL);
	cr_assert_eq(v.st.refused, 2);
}

/* lib/model/vohfall.pml: home memory is not the value while the coherence
 * protocol has a writer or a Modified copy; an update may not change it
 * under coherent copies; a write granted by the home changes the version. */
Test(voh_home, coherence_writer_or_modified_copy_refused)
{
	struct lcf_msg m = msg(NA_MSG_VOH_VREAD, 1, 1, 6), r;
	uint32_t v0 = vread(1, 6);

	h.blk[6].writer = true; /* a fallback WRITE_MISS granted */
	h.blk[6].wgrants++;
	cr_assert(na_voh_vread(&v, &m, &r));
	cr_assert(r.flags & LCF_F_FAIL, "locked: refused");
	h.blk[6].writer = false; /* its unlock: Modified at node 2 */
	h.blk[6].gs = LCF_GS_MODIFIED;
	h.blk[6].cs = 0x4;
	feed(msg(NA_MSG_VOH_READ, 1, 2, 6), NULL);
	cr_assert(out.m[0].msg.flags & LCF_F_FAIL, "memory is stale");
	h.blk[6].gs = LCF_GS_SHARED; /* a READ_MISS wrote it home */
	cr_assert_neq(vread(1, 6), v0, "the write counts in the version");
	feed(msg(NA_MSG_VOH_UPDATE, 2, 3, 6), NULL);
	cr_assert(out.m[0].msg.flags & LCF_F_FAIL, "coherent copies exist");
	h.blk[6].cs = 0; /* evicted */
	feed(msg(NA_MSG_VOH_UPDATE, 2, 4, 6), NULL);
	cr_assert_eq(out.m[0].msg.flags & LCF_F_FAIL, 0);
}

Test(voh_home, rpc_check_answers_like_vread)
{
	feed(msg(NA_MSG_VOH_VRPC, 1, 4, 5), NULL);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_VOH_VERSION);
	cr_assert_eq(na_aux_orig_type(out.m[0].msg.aux), NA_MSG_VOH_VRPC);
	cr_assert_eq(v.st.vrpcs, 1);
}

/*
 * lib/model/vohdup.pml: a repeated READ of a granted read gets the block
 * again only at the grant's version with the home still serving; after a
 * coherence write granted meanwhile it is refused, the read leaves the
 * ReadQueue, and later copies of it are refused too (a lost FAIL).
 */
Test(voh_home, repeated_read_after_a_coherence_write_refused)
{
	feed(msg(NA_MSG_VOH_READ, 1, 10, 5), NULL);
	cr_assert_eq(out.n, 3);
	feed(msg(NA_MSG_VOH_READ, 1, 10, 5), NULL);
	cr_assert_eq(out.n, 3, "unchanged: the block again");
	h.blk[5].wgrants++; /* a WRITE_MISS granted: Modified at node 2 */
	h.blk[5].gs = LCF_GS_MODIFIED;
	h.blk[5].cs = 0x4;
	feed(msg(NA_MSG_VOH_READ, 1, 10, 5), NULL);
	cr_assert_eq(out.n, 1);
	cr_assert(out.m[0].msg.flags & LCF_F_FAIL, "memory is stale");
	cr_assert_eq(v.blk[5]->q.n_rq, 0, "out of the ReadQueue");
	h.blk[5].gs = LCF_GS_SHARED; /* its data written home */
	feed(msg(NA_MSG_VOH_READ, 1, 10, 5), NULL);
	cr_assert_eq(out.n, 1);
	cr_assert(out.m[0].msg.flags & LCF_F_FAIL,
		  "serving again, but at a version the grant did not carry");
	feed(msg(NA_MSG_VOH_UPDATE, 2, 20, 5), NULL);
	cr_assert(out.m[0].msg.flags & LCF_F_FAIL, "coherent copies exist");
	h.blk[5].cs = 0;
	feed(msg(NA_MSG_VOH_UPDATE, 2, 21, 5), NULL);
	cr_assert_eq(out.m[0].msg.flags & LCF_F_FAIL, 0, "no reader inside");
	cr_assert_eq(v.st.table_errors, 0);
}

/* The home agent's answer to a coherence request on block `blk`. */
static uint8_t
coherent(uint8_t type, uint16_t node, uint32_t seq, uint32_t blk)
{
	struct lcf_msg m = msg(type, node, seq, blk);

	na_out_reset(&out);
	na_home_handle(&h, &m, NULL, 0, &out);
	cr_assert_geq(out.n, 1);
	return out.m[out.n - 1].msg.type;
}

/*
 * lib/model/vohupd.pml: an update writes memory under no coherent copy and
 * invalidates none, so while it is in the UpdateQueue the home agent
 * refuses coherence requests (lock busy); after the commit they pass.
 */
Test(voh_home, coherence_refused_while_an_update_is_in_the_queue)
{
	uint8_t b = 1;
	struct lcf_msg w = msg(NA_MSG_VOH_WDATA, 1, 10, 5);

	feed(msg(NA_MSG_VOH_UPDATE, 1, 10, 5), NULL);
	cr_assert_eq(out.m[0].msg.flags & LCF_F_FAIL, 0);
	cr_assert(h.blk[5].voh_upd);
	cr_assert_eq(coherent(LCF_T_READ_MISS, 2, 1, 5), NA_MSG_NACK);
	cr_assert_eq(coherent(LCF_T_WRITE_MISS, 3, 1, 5), NA_MSG_NACK);
	cr_assert_eq(h.blk[5].cs, 0, "no coherent copy under the update");
	w.len = 1;
	feed(w, &b);
	done(1, 10, NA_MSG_VOH_UPDATE, 1);
	cr_assert_eq(out.m[0].msg.flags & LCF_F_FAIL, 0, "committed");
	cr_assert_not(h.blk[5].voh_upd);
	cr_assert_eq(coherent(LCF_T_READ_MISS, 2, 2, 5), NA_MSG_ACK);
}

/*
 * lib/model/vohref.pml (na-sim seed 3954815210): a READ refused while the
 * block is not served here stays refused when a copy of it arrives after
 * the block is served again (its requester went back to the coherence
 * protocol and sends no VOH_DONE: a grant would hold the requester's
 * record, and its next request would be dropped as a second operation).
 * A copy older than the record's request is dropped unanswered.
 */
Test(voh_home, refused_read_copy_not_granted_later)
{
	h.blk[5].owner = NA_OWN_SWITCH;
	feed(msg(NA_MSG_VOH_READ, 1, 6, 5), NULL);
	cr_assert_eq(out.n, 1);
	cr_assert(out.m[0].msg.flags & LCF_F_FAIL);
	h.blk[5].owner = NA_OWN_HOME; /* served here again */
	feed(msg(NA_MSG_VOH_READ, 1, 6, 5), NULL);
	cr_assert_eq(out.n, 1);
	cr_assert(out.m[0].msg.flags & LCF_F_FAIL,
		  "a copy of the refused READ");
	cr_assert(v.blk[5] == NULL || v.blk[5]->q.n_rq == 0, "not queued");
	feed(msg(NA_MSG_VOH_READ, 1, 10, 5), NULL);
	cr_assert_eq(out.n, 3, "the thread's next READ: the block");
	done(1, 10, NA_MSG_VOH_READ, 0);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_VOH_VERSION);
	feed(msg(NA_MSG_VOH_READ, 1, 7, 5), NULL);
	cr_assert_eq(out.n, 0, "older than the record: a late copy");
	cr_assert_eq(v.blk[5]->q.n_rq, 0);
	feed(msg(NA_MSG_VOH_READ, 1, 11, 5), NULL);
	cr_assert_eq(out.n, 3);
}

static void
node_failed(uint16_t node)
{
	na_out_reset(&out);
	na_voh_node_failed(&v, node, &out);
	cr_assert_eq(out.overflow, 0);
}

/*
 * Node 3 fails holding a read of block 5 (no READ_DONE will come): its
 * read leaves RQ and node 2's update proceeds (lib/model/vohcrash.pml; the
 * update waited for ever: crash sweep 63 run 36).
 */
Test(voh_home, dead_reader_leaves_and_the_update_proceeds)
{
	feed(msg(NA_MSG_VOH_READ, 3, 30, 5), NULL);
	feed(msg(NA_MSG_VOH_UPDATE, 2, 20, 5), NULL);
	cr_assert_eq(out.n, 0, "waits for the reader");
	node_failed(3);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_VOH_PROCEED);
	cr_assert_eq(out.m[0].dst, 2);
	cr_assert_eq(vread(0, 5), 0, "a read ended: no version change");
	cr_assert_eq(v.st.table_errors, 0);
}

/*
 * Node 3 fails with its update granted (its data may be in memory): the
 * update counts as committed (the version moves), the read queued behind
 * it proceeds, node 2's waiting update and node 3's queued entries go.
 */
Test(voh_home, dead_updater_leaves_committed_and_releases_the_queue)
{
	uint8_t b = 7;
	struct lcf_msg w = msg(NA_MSG_VOH_WDATA, 3, 30, 5);

	feed(msg(NA_MSG_VOH_UPDATE, 3, 30, 5), NULL);
	cr_assert_eq(out.n, 1, "granted");
	w.len = 1;
	feed(w, &b);
	feed(msg(NA_MSG_VOH_READ, 1, 10, 5), NULL);
	feed(msg(NA_MSG_VOH_UPDATE, 2, 20, 5), NULL);
	cr_assert_eq(out.n, 0);
	cr_assert(h.blk[5].voh_upd);
	node_failed(3);
	cr_assert_eq(vread(0, 5), 1, "counted as committed");
	cr_assert_eq(out.n, 3, "node 1's read: the block in 3 segments");
	cr_assert_eq(out.m[0].dst, 1);
	cr_assert_eq(out.m[0].msg.copyset, 1);
	cr_assert(h.blk[5].voh_upd, "node 2's update heads UQ, behind node 1");
	done(1, 10, NA_MSG_VOH_READ, 0);
	cr_assert_eq(out.n, 2);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_VOH_PROCEED);
	cr_assert_eq(out.m[0].dst, 2);
	cr_assert_eq(v.st.table_errors, 0);
}
