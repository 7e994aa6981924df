/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Recovery (na_recovery.h, docs/FAULTS.md) driven through its agent
 * interface on a node without a transport: the home's detection probe, the
 * round, the rebuild (copyset, orphan data, LAST-EXECUTED), the drain and
 * the rejoin. Over 500 lines: every case shares one node's fixture and the
 * round's helpers (report, self_round), which a split would copy.
 */
#include <criterion/criterion.h>
#include <errno.h>

#include "na_msg.h"
#include "na_node.h"
#include "test_na_topo.h"
#include "na_rec_int.h"

static struct topo t;
static struct na_node n;
static struct na_out out;
static uint8_t blk[4096];

static void
setup(void)
{
	test_na_topo4(&t);
	memset(&n, 0, sizeof(n));
	n.topo = &t;
	n.self = 0;
	n.cfg.threads = 1;
	n.cfg.roles = NA_ROLE_HOME | NA_ROLE_CACHE;
	cr_assert_eq(na_cache_init(&n.cache, 64, t.block_size), 0);
	cr_assert_eq(na_home_init(&n.home, &t, 0, NA_CHUNK_SIZE, 7), 0);
	cr_assert_eq(na_cagent_init(&n.cagent, 0, t.threads_per_node, &n.cache),
		     0);
	cr_assert_eq(na_shadow_init(&n.shadow, &t, 0), 0);
	cr_assert_eq(na_rec_init(&n.rec,
				 &(struct na_rec_env){ .topo = &t,
						       .self = 0,
						       .threads = 1,
						       .role_home = true,
						       .cache = &n.cache,
						       .home = &n.home,
						       .cagent = &n.cagent,
						       .shadow = &n.shadow }),
		     0);
	na_out_reset(&out);
}

static void
teardown(void)
{
	na_rec_fini(n.rec);
	na_shadow_fini(&n.shadow);
	na_cagent_fini(&n.cagent);
	na_home_fini(&n.home);
	na_cache_fini(&n.cache);
}

TestSuite(na_recovery, .init = setup, .fini = teardown);

static struct lcf_msg
msg(uint8_t type, uint16_t node, uint32_t seq, uint64_t tag)
{
	return (struct lcf_msg){ .version = 1,
				 .type = type,
				 .node = node,
				 .seq = seq,
				 .tag = tag,
				 .dst_node = 0 };
}

/* The messages of `type` in `out`, as a bitmap of destinations. */
static uint32_t
sent_to(uint8_t type)
{
	uint32_t m = 0;

	for (uint32_t i = 0; i < out.n; i++)
		if (out.m[i].msg.type == type)
			m |= 1u << out.m[i].dst;
	return m;
}

static const struct na_out_msg *
find(uint8_t type, uint16_t dst)
{
	for (uint32_t i = 0; i < out.n; i++)
		if (out.m[i].msg.type == type && out.m[i].dst == dst)
			return &out.m[i];
	return NULL;
}

/* Feed a message; what it emits replaces `out`. */
static bool
feed(const struct lcf_msg *m, const void *payload)
{
	na_out_reset(&out);
	return na_rec_agents(n.rec, m, payload, &out);
}

static void
report(uint16_t from, uint32_t round, const uint8_t *entries, uint16_t len,
       uint32_t dirty)
{
	struct lcf_msg m = msg(NA_MSG_REC_REPORT, from, round, 0);

	m.len = len;
	m.aux = dirty;
	feed(&m, entries);
}

static uint16_t
entry(uint8_t *p, uint64_t tag, uint8_t kind, uint8_t a, uint8_t b,
      uint32_t seq)
{
	put64(p, tag);
	p[8] = kind;
	p[9] = a;
	p[10] = b;
	p[11] = 0;
	put32(p + 12, seq);
	return REC_ENTRY;
}

/* Provider `from`'s orphan record for (rnode, rthread, seq), every byte
 * `v` (also left in `blk`), as NA_MSG_REC_DATA segments. */
static void
send_data(uint64_t tag, uint16_t from, uint16_t rnode, uint16_t rthread,
	  uint32_t seq, uint8_t v)
{
	memset(blk, v, sizeof(blk));
	for (uint32_t i = 0; i < na_seg_count(t.block_size); i++) {
		struct lcf_msg d = msg(NA_MSG_REC_DATA, from, seq, tag);
		uint32_t off;

		na_seg_span(t.block_size, i, &off, &d.len);
		d.aux = off;
		d.thread = rthread;
		d.copyset = rnode;
		feed(&d, blk + off);
	}
}

/* Our own BEGIN, delivered back to us: the local report goes home. */
static uint32_t
self_round(void)
{
	const struct na_out_msg *b = find(NA_MSG_REC_BEGIN, 0);
	struct lcf_msg m;
	const struct na_out_msg *r;

	cr_assert_not_null(b);
	m = b->msg;
	feed(&m, b->payload);
	r = find(NA_MSG_REC_REPORT, 0);
	cr_assert_not_null(r, "an idle node reports at once");
	m = r->msg;
	feed(&m, r->payload);
	return m.seq;
}

/* A request `m` takes a tag miss on switch-owned block `idx`: @return the
 * REMOVE probe the home sends the switch. */
static struct lcf_msg
probe_of(uint32_t idx, struct lcf_msg m)
{
	const struct na_out_msg *p;

	n.home.blk[idx].owner = NA_OWN_SWITCH;
	feed(&m, NULL);
	p = find(LCF_T_REMOVE_FROM_SWITCH, 0);
	cr_assert_not_null(p);
	return p->msg;
}

/* ... and the switch no longer has it: the probe comes back as a tag miss
 * and a round begins; our own report is in. @return the round. */
static uint32_t
lost_block_round(uint32_t idx, struct lcf_msg m)
{
	m = probe_of(idx, m);
	feed(&m, NULL);
	return self_round();
}

/* Every report is in: the next tick rebuilds and sends DONE to all. */
static void
tick_done(void)
{
	n.rec->next_tick = 0;
	na_out_reset(&out);
	na_rec_tick(n.rec, &out);
	cr_assert_eq(sent_to(NA_MSG_REC_DONE), 0xf);
}

Test(na_recovery, restart_detected_by_probe_and_rebuilt_with_orphan)
{
	uint64_t tag = na_home_tag(&n.home, 0);
	struct lcf_msg m = msg(LCF_T_READ_MISS, 1, 5, tag);
	const struct na_out_msg *p;
	uint8_t e[64];
	uint16_t len;
	uint32_t round;
	struct na_hreq *rq;

	n.home.blk[0].owner = NA_OWN_SWITCH;
	n.home.blk[0].gs = LCF_GS_MODIFIED; /* stale: the switch's */
	/* A tag miss on a switch-owned block: a REMOVE probe, nothing else. */
	cr_assert_not(feed(&m, NULL));
	p = find(LCF_T_REMOVE_FROM_SWITCH, 0);
	cr_assert_not_null(p);
	cr_assert_eq(p->msg.thread, t.threads_per_node - 1);
	cr_assert_eq(n.home.blk[0].owner, NA_OWN_SWITCH);
	/* The empty switch returns it as a tag miss: a round begins. */
	m = p->msg;
	cr_assert(feed(&m, NULL));
	cr_assert_eq(sent_to(NA_MSG_REC_BEGIN), 0xf);
	cr_assert_eq(n.home.blk[0].owner, NA_OWN_RECOVERING);
	round = self_round();
	cr_assert(na_rec_blocked(n.rec, tag), "no new event until DONE");

	/* Node 1 still holds it Shared and gave Modified data to (2, 0, 7). */
	len = entry(e, tag, ENT_HOLD, 1, 0, 0);
	len += entry(e + len, tag, ENT_DIRTY, 2, 0, 7);
	send_data(tag, 1, 2, 0, 7, 0xab);
	report(1, round, e, len, 1);
	/* Node 2's event 7 was cut off by the crash. */
	len = entry(e, tag, ENT_UNSETTLED, 0, 0, 7);
	report(2, round, e, len, 0);
	na_out_reset(&out);
	na_rec_tick(n.rec, &out);
	cr_assert_eq(sent_to(NA_MSG_REC_DONE), 0, "node 3 has not reported");
	report(3, round, e, 0, 0);
	tick_done();

	cr_assert_eq(n.home.blk[0].owner, NA_OWN_HOME);
	cr_assert_eq(n.home.blk[0].gs, LCF_GS_SHARED);
	cr_assert_eq(n.home.blk[0].cs, 1u << 1);
	cr_assert_not(n.home.blk[0].writer);
	cr_assert_eq(memcmp(n.home.mem, blk, sizeof(blk)), 0,
		     "the orphan data is the block's value");
	rq = &n.home.req[2 * t.threads_per_node + 0];
	cr_assert(rq->req.valid);
	cr_assert_eq(rq->req.seq, 7);
	cr_assert_eq(rq->dec.kind, NA_HDEC_NACK, "a late copy of 7 is NACKed");
	/* DONE resumes this node's threads and is acknowledged. */
	p = find(NA_MSG_REC_DONE, 0);
	m = p->msg;
	feed(&m, NULL);
	cr_assert_not(na_rec_blocked(n.rec, tag));
	cr_assert_eq(sent_to(NA_MSG_REC_DONE_ACK), 1u);
}

/*
 * From our report to DONE the cache agent's requests on the round's blocks
 * are dropped (a tenure's Q_INV sent before the round must not invalidate
 * the copy the report declared: lib/model/recfreeze.pml); other blocks,
 * and the block again after DONE, are served.
 */
Test(na_recovery, cache_requests_on_a_reported_block_dropped_until_done)
{
	uint64_t tag = na_home_tag(&n.home, 0), other = na_home_tag(&n.home, 3);
	const struct na_out_msg *p;
	struct lcf_msg m;
	uint32_t round;

	cr_assert_not(na_rec_cache_frozen(n.rec, tag), "no round yet");
	round = lost_block_round(0, msg(LCF_T_READ_MISS, 1, 5, tag));
	cr_assert(na_rec_cache_frozen(n.rec, tag), "reported: frozen");
	cr_assert_not(na_rec_cache_frozen(n.rec, other), "not in the round");
	cr_assert_eq(n.rec->st.frozen_dropped, 1);
	for (uint16_t k = 1; k < 4; k++)
		report(k, round, NULL, 0, 0);
	tick_done();
	p = find(NA_MSG_REC_DONE, 0);
	cr_assert_not_null(p);
	m = p->msg;
	feed(&m, NULL);
	cr_assert_not(na_rec_cache_frozen(n.rec, tag), "DONE: served again");
	cr_assert_eq(n.rec->st.frozen_dropped, 1);
}

/*
 * The MIGRATE_ACK of a REMOVE was lost (its retransmission missed): only
 * that block goes through a round, and SHADOW-TAG, which mirrors a switch
 * that still holds its other blocks, is kept.
 */
Test(na_recovery, lost_remove_ack_recovers_the_block_from_the_caches)
{
	uint64_t tag = na_home_tag(&n.home, 3);
	uint8_t e[16];
	uint32_t round;

	n.rec->env.role_shadow = true;
	n.home.blk[3].owner = NA_OWN_REMOVING;
	n.home.blk[3].gs = LCF_GS_MODIFIED; /* stale: as it was added */
	n.home.blk[3].cs = 1u << 3;
	na_out_reset(&out);
	na_rec_block_lost(n.rec, tag, &out);
	cr_assert_eq(n.home.blk[3].owner, NA_OWN_RECOVERING);
	cr_assert_eq(n.rec->st.remove_ack_lost, 1);
	cr_assert_eq(sent_to(NA_MSG_REC_BEGIN), 0xf);
	cr_assert_eq(find(NA_MSG_REC_BEGIN, 1)->msg.len, 8, "only this block");
	round = self_round();
	/* since the ADD, nodes 1 and 2 have read it: Shared {1, 2} */
	report(1, round, e, entry(e, tag, ENT_HOLD, 1, 0, 0), 0);
	report(2, round, e, entry(e, tag, ENT_HOLD, 1, 0, 0), 0);
	report(3, round, e, 0, 0);
	tick_done();
	cr_assert_eq(n.home.blk[3].owner, NA_OWN_HOME);
	cr_assert_eq(n.home.blk[3].gs, LCF_GS_SHARED);
	cr_assert_eq(n.home.blk[3].cs, (1u << 1) | (1u << 2));
	/* a block not being removed is left alone */
	n.home.blk[4].owner = NA_OWN_SWITCH;
	na_rec_block_lost(n.rec, na_home_tag(&n.home, 4), &out);
	cr_assert_eq(n.home.blk[4].owner, NA_OWN_SWITCH);
}

/*
 * The probe and a migration REMOVE of the same block cross: the REMOVE
 * clears the slot, the probe misses. That proves nothing about a restart.
 */
Test(na_recovery, probe_missing_after_a_migration_remove_is_no_restart)
{
	uint64_t tag = na_home_tag(&n.home, 0);
	struct lcf_msg m = msg(LCF_T_READ_MISS, 1, 5, tag);
	const struct na_out_msg *p;

	n.home.blk[0].owner = NA_OWN_SWITCH;
	cr_assert_not(feed(&m, NULL));
	p = find(LCF_T_REMOVE_FROM_SWITCH, 0);
	cr_assert_not_null(p);
	m = p->msg;
	n.home.blk[0].owner = NA_OWN_REMOVING; /* the shadow asked for it */
	cr_assert(feed(&m, NULL), "our probe: consumed");
	cr_assert_eq(sent_to(NA_MSG_REC_BEGIN), 0, "no recovery");
	cr_assert_eq(n.home.blk[0].owner, NA_OWN_REMOVING);
	cr_assert_eq(n.rec->st.detections, 0);
	cr_assert_eq(n.rec->st.probe_raced_remove, 1);
}

Test(na_recovery, orphan_ignored_when_its_event_completed)
{
	uint64_t tag = na_home_tag(&n.home, 1);
	struct lcf_msg m = msg(LCF_T_WRITE_MISS, 2, 9, tag);
	uint8_t e[64];
	uint32_t round;

	round = lost_block_round(1, m);
	/* Node 1 gave data to (2, 0, 9), but node 2 completed it: Modified. */
	send_data(tag, 1, 2, 0, 9, 0xcd);
	report(1, round, e, entry(e, tag, ENT_DIRTY, 2, 0, 9), 1);
	report(2, round, e, entry(e, tag, ENT_HOLD, 2, 0, 0), 0);
	report(3, round, e, 0, 0);
	na_out_reset(&out);
	na_rec_tick(n.rec, &out);
	cr_assert_eq(n.home.blk[1].gs, LCF_GS_MODIFIED);
	cr_assert_eq(n.home.blk[1].cs, 1u << 2);
	cr_assert_neq(n.home.mem[t.block_size], 0xcd, "memory untouched");
	cr_assert_eq(n.rec->st.orphans_written, 0);
}

/*
 * The home's REC_DIRTY data slots are full of records of completed events
 * (node 1's) when node 3's record of the event holding the lock at the
 * crash comes: its data was dropped, header too, and memory kept an old
 * value (lib/model/recslots.pml; na-sim seed 503091392, stale reads). Now
 * the header is kept, the old slots are freed once every report is in and
 * node 3 is asked again.
 */
Test(na_recovery, orphan_after_full_slots_is_fetched_again)
{
	uint64_t tag = na_home_tag(&n.home, 0);
	struct lcf_msg m = msg(LCF_T_READ_MISS, 1, 5, tag);
	uint8_t e[(REC_DIRTY + 1) * REC_ENTRY];
	uint16_t len = 0;
	uint32_t round;

	round = lost_block_round(0, m);
	for (uint32_t s = 1; s <= REC_DIRTY; s++) {
		send_data(tag, 1, 2, 1, s, 0x11);
		len += entry(e + len, tag, ENT_DIRTY, 2, 1, s);
	}
	report(1, round, e, len, REC_DIRTY);
	send_data(tag, 3, 2, 0, 9, 0xee); /* slots full: dropped */
	report(3, round, e, entry(e, tag, ENT_DIRTY, 2, 0, 9), 1);
	report(2, round, e, entry(e, tag, ENT_UNSETTLED, 0, 0, 9), 0);
	n.rec->h.last_ns = 0; /* the re-send's timer has run out */
	n.rec->next_tick = 0;
	na_out_reset(&out);
	na_rec_tick(n.rec, &out);
	cr_assert_eq(sent_to(NA_MSG_REC_DONE), 0,
		     "the orphan's data is not in");
	cr_assert_eq(sent_to(NA_MSG_REC_BEGIN), 1u << 3, "node 3 asked again");
	send_data(tag, 3, 2, 0, 9, 0xee);
	tick_done();
	cr_assert_eq(n.home.blk[0].owner, NA_OWN_HOME);
	cr_assert_eq(n.home.blk[0].gs, LCF_GS_UNSHARED);
	cr_assert_eq(memcmp(n.home.mem, blk, sizeof(blk)), 0,
		     "the aborted event's data is the block's value");
	cr_assert_eq(n.rec->st.orphans_written, 1);
}

/*
 * Our thread's event 8 held the lock at the switch restart: node 1 gave it
 * its Modified data, the ACK was lost. Before the round, each retry was
 * NACKed and aborted, a new seq each time: a ring of the last requests
 * lost 8's record and the orphan was not written (lib/model/recunset.pml;
 * na-sim switch-restart sweep 68 runs 116, 239: lost writes). Now the
 * lowest and highest records of the block are kept and node 1's record
 * matches between them.
 */
Test(na_recovery, orphan_of_an_event_retried_past_the_records_is_written)
{
	uint64_t tag = na_home_tag(&n.home, 0);
	uint32_t last = 8 + REC_UNSETTLED + 2, round;
	uint8_t e[16];
	struct na_hreq *rq;

	for (uint32_t s = 8; s <= last; s++) {
		cr_assert(na_rec_sent(n.rec, 0, tag, s));
		na_rec_end(n.rec, 0, tag, NA_REC_ABORTED);
	}
	round = lost_block_round(0, msg(LCF_T_WRITE_MISS, 1, 5, tag));
	send_data(tag, 1, 0, 0, 8, 0x5a);
	report(1, round, e, entry(e, tag, ENT_DIRTY, 0, 0, 8), 1);
	report(2, round, e, 0, 0);
	report(3, round, e, 0, 0);
	tick_done();
	cr_assert_eq(n.home.blk[0].gs, LCF_GS_UNSHARED);
	cr_assert_eq(memcmp(n.home.mem, blk, sizeof(blk)), 0,
		     "event 8's data is the block's value");
	cr_assert_eq(n.rec->st.orphans_written, 1);
	cr_assert_eq(n.rec->h.n_unset, 2, "the lowest and the highest");
	cr_assert_eq(n.rec->st.report_overflow, 0);
	rq = &n.home.req[0];
	cr_assert_eq(rq->req.seq, last, "late copies NACKed up to the last");
}

/*
 * A tag miss on switch-owned block `idx`; the switch answers the probe
 * with MIGRATE_ACK (it had the block) and metadata gs/cs.
 * @return whether the agents consumed the ACK.
 */
static bool
probe_answered(uint32_t idx, uint8_t gs, uint32_t cs)
{
	struct lcf_msg m = probe_of(idx, msg(LCF_T_READ_MISS, 1, 5,
					     na_home_tag(&n.home, idx)));

	m.type = LCF_T_MIGRATE_ACK;
	m.flags = LCF_F_IN_SWITCH;
	m.aux = na_aux_orig(LCF_T_REMOVE_FROM_SWITCH, 0);
	m.gstatus = gs;
	m.copyset = cs;
	return feed(&m, NULL);
}

Test(na_recovery, probe_answered_by_the_switch_brings_the_block_home)
{
	cr_assert_not(probe_answered(2, LCF_GS_SHARED, 0x6));
	cr_assert_eq(n.home.blk[2].owner, NA_OWN_HOME);
	cr_assert_eq(n.home.blk[2].cs, 0x6);
	cr_assert_eq(sent_to(NA_MSG_REC_BEGIN), 0,
		     "no round: the switch is fine");
	cr_assert_eq(n.rec->st.detections, 0);
}

/* Home block 3 Shared by the nodes of `cs`: its tag. */
static uint64_t
shared_block3(uint32_t cs)
{
	n.home.blk[3].gs = LCF_GS_SHARED;
	n.home.blk[3].cs = cs;
	return na_home_tag(&n.home, 3);
}

Test(na_recovery, drain_rebuilds_without_the_dead_node)
{
	uint64_t tag = shared_block3((1u << 1) | (1u << 3));
	uint8_t e[64];
	uint32_t round;

	n.home.blk[3].readers = 1; /* node 3's read lock */
	n.home.req[3 * t.threads_per_node].held[1] = (struct na_hheld){
		.valid = true, .seq = 11, .tag = tag
	};
	na_rec_drain(n.rec, 3, &out);
	cr_assert_eq(sent_to(NA_MSG_REC_BEGIN), 0x7, "node 3 is not asked");
	cr_assert_eq(n.home.blk[3].owner, NA_OWN_RECOVERING);
	cr_assert(na_rec_blocked(n.rec, (uint64_t)3 << (48 - t.block_shift)),
		  "memory of the dead node is refused");
	round = self_round();
	report(1, round, e, entry(e, tag, ENT_HOLD, 1, 0, 0), 0);
	report(2, round, e, 0, 0);
	na_out_reset(&out);
	na_rec_tick(n.rec, &out);
	cr_assert_eq(sent_to(NA_MSG_REC_DONE), 0x7);
	cr_assert_eq(n.home.blk[3].owner, NA_OWN_HOME);
	cr_assert_eq(n.home.blk[3].cs, 1u << 1);
	cr_assert_eq(n.home.blk[3].readers, 0);
	cr_assert_not(n.home.req[3 * t.threads_per_node].held[1].valid);
}

/* Node 3 reports its copy of block 3 in node 2's drain round, then is
 * declared too: the round rebuilds the block without node 3's copy (its
 * new incarnation has none; lib/model/recjoin.pml HOLD, na-sim --fault
 * restart sweep 70 run 385: every read forwarded to it got no data). */
Test(na_recovery, a_declaration_takes_its_copies_out_of_the_running_round)
{
	uint64_t tag = shared_block3((1u << 2) | (1u << 3));
	uint8_t e[64];
	uint32_t round;

	na_rec_drain(n.rec, 2, &out);
	cr_assert_eq(n.home.blk[3].owner, NA_OWN_RECOVERING);
	round = self_round();
	report(3, round, e, entry(e, tag, ENT_HOLD, 1, 0, 0), 0);
	na_out_reset(&out);
	na_rec_drain(n.rec, 3, &out);
	report(1, round, e, 0, 0);
	na_out_reset(&out);
	na_rec_tick(n.rec, &out);
	cr_assert_eq(n.home.blk[3].owner, NA_OWN_HOME);
	cr_assert_eq(n.home.blk[3].cs, 0, "node 3's old copy is gone");
	cr_assert_eq(n.home.blk[3].gs, LCF_GS_UNSHARED);
}

/* Feed a coherence message to the home agent; what it emits replaces
 * `out`. */
static void
home_feed(struct lcf_msg m)
{
	na_out_reset(&out);
	na_home_handle(&n.home, &m, NULL, 0, &out);
}

/* Request `m`'s lock is gone: its ABORT is answered "aborted" (no copy
 * holds a lock), and a re-sent copy is NACKed, nothing replayed. */
static void
aborted_then_nacked(struct lcf_msg m)
{
	uint8_t type = m.type;

	m.type = LCF_T_ABORT;
	home_feed(m);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_ABORT_ACK);
	cr_assert_not(out.m[0].msg.flags & LCF_F_FAIL, "aborted");
	m.type = type;
	home_feed(m);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_NACK, "nothing replayed");
}

/*
 * Node 1's READ_MISS executed (read lock, a forward to node 2, the
 * provider) and its forward lost; node 3's drain rebuilds block 3 without
 * that lock. The ABORT node 1 quarantines the event with is no "a copy
 * passed" (no lock is held: the requester would collect again for ever,
 * each copy replaying the forward to a provider that may have lost its
 * copy), and a late copy is NACKed (lib/model/recpass.pml).
 */
Test(na_recovery, a_dropped_lock_of_an_executed_event_is_no_passed_copy)
{
	uint64_t tag = na_home_tag(&n.home, 3);
	struct lcf_msg m = msg(LCF_T_READ_MISS, 1, 9, tag);
	uint8_t e[64];
	uint32_t round;

	n.home.blk[3].gs = LCF_GS_SHARED;
	n.home.blk[3].cs = (1u << 2) | (1u << 3);
	home_feed(m);
	cr_assert_eq(n.home.blk[3].readers, 1, "executed");
	cr_assert(find(NA_MSG_FWD, 2) || find(NA_MSG_FWD, 3), "forwarded");
	na_out_reset(&out);
	na_rec_drain(n.rec, 3, &out);
	round = self_round();
	report(1, round, e, 0, 0);
	report(2, round, e, entry(e, tag, ENT_HOLD, 1, 0, 0), 0);
	na_out_reset(&out);
	na_rec_tick(n.rec, &out);
	cr_assert_eq(n.home.blk[3].owner, NA_OWN_HOME);
	cr_assert_eq(n.home.blk[3].readers, 0);
	cr_assert_eq(n.rec->st.held_nacked, 1);

	aborted_then_nacked(m);
	cr_assert_eq(n.home.blk[3].readers, 0);
}

/*
 * The same with the switch's lock: node 2's READ_MISS passed the switch,
 * which sent it here for the data (no lock here); node 2 reports it
 * unsettled in the round that removed the block. Its ABORT is answered
 * "aborted", not "a copy passed": collecting again, every re-sent copy
 * met the re-ADDed block's switch, where the seq is over, and was NACKed
 * for ever (lib/model/recpass.pml SWITCH; na-sim --fault crash sweep 71
 * run 73).
 */
Test(na_recovery, an_unsettled_seq_served_for_the_switch_is_no_passed_copy)
{
	uint64_t tag = na_home_tag(&n.home, 0);
	struct lcf_msg m = msg(LCF_T_READ_MISS, 2, 9, tag);
	uint8_t e[16];
	uint32_t round;

	n.home.blk[0].owner = NA_OWN_SWITCH;
	m.flags = LCF_F_IN_SWITCH;
	home_feed(m);
	cr_assert(find(NA_MSG_DATA, 2), "served for the switch");
	round = lost_block_round(0, msg(LCF_T_READ_MISS, 1, 5, tag));
	report(1, round, e, 0, 0);
	report(2, round, e, entry(e, tag, ENT_UNSETTLED, 0, 0, 9), 0);
	report(3, round, e, 0, 0);
	tick_done();
	cr_assert_eq(n.home.blk[0].owner, NA_OWN_HOME);
	cr_assert_eq(n.rec->st.held_nacked, 1);
	m.flags = 0; /* the block at home: a tag miss */
	aborted_then_nacked(m);
}

/*
 * Queued mode (QUEUED-LOCKS.md 11): node 3 holds block 3's write lock as a
 * queue tenure granted by Q_GRANT (no lock record here, not in the
 * copyset): the drain finds it by QSTATE, the rebuild frees the lock and
 * clears QSTATE.
 */
Test(na_recovery, drain_finds_a_dead_queue_holder)
{
	uint64_t tag = na_home_tag(&n.home, 3);
	uint8_t e[64];
	uint32_t round;

	n.home.blk[3].gs = LCF_GS_MODIFIED;
	n.home.blk[3].cs = 1u << 1;
	n.home.blk[3].writer = true;
	n.home.blk[3].q = (struct na_hqs){ lcf_q_id(3, 0, 11), 2, 11 };
	na_rec_drain(n.rec, 3, &out);
	cr_assert_eq(n.home.blk[3].owner, NA_OWN_RECOVERING);
	round = self_round();
	report(1, round, e, entry(e, tag, ENT_HOLD, 1, 0, 0), 0);
	report(2, round, e, 0, 0);
	na_out_reset(&out);
	na_rec_tick(n.rec, &out);
	cr_assert_eq(n.home.blk[3].owner, NA_OWN_HOME);
	cr_assert_not(n.home.blk[3].writer);
	cr_assert_eq(n.home.blk[3].q.holder, 0);
	cr_assert_eq(n.home.blk[3].q.fwd, 0);
}

/* Block 3's tenure, now node 1's, was handed over by node `from`; node 3
 * dies: the drain takes the block. */
static void
drain_handed_over(uint16_t from)
{
	n.home.blk[3].writer = true;
	n.home.blk[3].q = (struct na_hqs){ lcf_q_id(1, 0, 5), 0, 5 };
	n.home.blk[3].q_from = from + 1;
	na_rec_drain(n.rec, 3, &out);
	cr_assert_eq(n.home.blk[3].owner, NA_OWN_RECOVERING);
}

/* Node 3 handed block 3's tenure to node 1 (QXFER approved) and died:
 * its Q_GRANT may never have left, the drain takes the block too
 * (lib/model/qfault.pml HOME; na-sim crash sweep 63 run 125). */
Test(na_recovery, drain_finds_a_tenure_the_dead_node_handed_over)
{
	drain_handed_over(3);
}

/* Node 2 handed block 3's tenure to node 1; its copyset (carried in the
 * Q_GRANTs, not known here) may list node 3, a reader of an earlier
 * tenure: node 1's Q_INV to it is never answered, so node 3's failure
 * drains the block too (lib/model/qdrain.pml; na-sim crash sweep 71 run
 * 680). */
Test(na_recovery, drain_takes_a_handed_over_tenure_of_another_node)
{
	drain_handed_over(2);
}

/*
 * The switch's control plane evicted block 0 for dead node 3 and kept block
 * 1: the home recovers block 0 alone (taking block 1 would make two owners),
 * without node 3, and the shadow forgets block 0 only.
 */
Test(na_recovery, partial_loss_recovers_only_the_lost_block)
{
	uint64_t tag0 = na_home_tag(&n.home, 0), tag1 = na_home_tag(&n.home, 1);
	struct lcf_msg m = msg(LCF_T_WRITE_MISS, 1, 5, tag0);
	const struct na_out_msg *p;
	uint8_t e[64];
	uint32_t round;

	n.rec->env.role_shadow = true;
	for (int i = 0; i < 2; i++) {
		struct lcf_msg a = msg(LCF_T_MIGRATE_ACK, 0, 1,
				       i ? tag1 : tag0);

		a.flags = LCF_F_IN_SWITCH;
		a.aux = na_aux_orig(LCF_T_ADD_TO_SWITCH, 0);
		na_shadow_migrate_ack(&n.shadow, &a);
		n.home.blk[i].owner = NA_OWN_SWITCH;
	}
	cr_assert_eq(n.shadow.n_tags, 2);
	na_rec_drain(n.rec, 3, &out);
	cr_assert_eq(sent_to(NA_MSG_REC_BEGIN), 0,
		     "no home-owned block to drain");
	feed(&m, NULL);
	p = find(LCF_T_REMOVE_FROM_SWITCH, 0);
	cr_assert_not_null(p);
	m = p->msg;
	cr_assert(feed(&m, NULL), "the probe came back: block 0 is lost");
	cr_assert_eq(n.home.blk[0].owner, NA_OWN_RECOVERING);
	cr_assert_eq(n.home.blk[1].owner, NA_OWN_SWITCH,
		     "the switch still has it");
	cr_assert_eq(sent_to(NA_MSG_REC_BEGIN), 0x7, "node 3 is not asked");
	p = find(NA_MSG_REC_BEGIN, 0);
	cr_assert_eq(p->msg.len, 8, "one tag in the round");
	round = self_round();
	cr_assert_eq(n.shadow.n_tags, 1, "the shadow forgot block 0 only");
	report(1, round, e, entry(e, tag0, ENT_HOLD, 1, 0, 0), 0);
	report(2, round, e, 0, 0);
	na_out_reset(&out);
	na_rec_tick(n.rec, &out);
	cr_assert_eq(sent_to(NA_MSG_REC_DONE), 0x7);
	cr_assert_eq(n.home.blk[0].owner, NA_OWN_HOME);
	cr_assert_eq(n.home.blk[0].cs, 1u << 1);
	cr_assert_eq(n.home.blk[0].gs, LCF_GS_SHARED);
	cr_assert_eq(n.home.blk[1].owner, NA_OWN_SWITCH);
	cr_assert_eq(n.rec->st.blocks_recovered, 1);
}

/* A block the probe brings home after the declaration, listing the dead node. */
Test(na_recovery, probed_home_block_listing_a_dead_node_is_drained)
{
	na_rec_drain(n.rec, 3, &out);
	probe_answered(2, LCF_GS_SHARED, (1u << 1) | (1u << 3));
	cr_assert_eq(n.home.blk[2].owner, NA_OWN_RECOVERING);
	na_out_reset(&out);
	na_rec_tick(n.rec, &out);
	cr_assert_eq(sent_to(NA_MSG_REC_BEGIN), 0x7, "a round without node 3");
}

/*
 * A node whose thread was inside an event on the round's block when BEGIN
 * came reports from its tick once the thread leaves, also with 16 KB blocks
 * (12 segments: the tick's room for a report with REC_DIRTY orphan records
 * was more than an output list holds, and it never reported; na-sim sweep
 * 31004 run 1027).
 */
Test(na_recovery, busy_node_reports_from_the_tick_with_16k_blocks)
{
	uint64_t tag = 0x100000001ull;
	struct lcf_msg m = msg(NA_MSG_REC_BEGIN, 1, 4, 0);
	uint8_t tags[8];
	const struct na_out_msg *r;

	t.block_size = 16384;
	put64(tags, tag);
	m.len = sizeof(tags);
	na_rec_sent(n.rec, 0, tag, 9);
	feed(&m, tags);
	cr_assert_null(find(NA_MSG_REC_REPORT, 1), "busy: no report yet");
	na_rec_end(n.rec, 0, tag, NA_REC_ABORTED);
	n.rec->next_tick = 0;
	na_out_reset(&out);
	na_rec_tick(n.rec, &out);
	r = find(NA_MSG_REC_REPORT, 1);
	cr_assert_not_null(r, "the tick reports once the thread is out");
	cr_assert_eq(r->msg.seq, 4);
	cr_assert_eq(r->msg.len, REC_ENTRY, "the unsettled request");
	cr_assert_eq(out.overflow, 0);
}

/*
 * Node 3 holds block 3's read lock when the migration policy starts to
 * drain it (MIGRATING, no ADD sent): the failure drain takes the block and
 * the round frees the lock (lib/model/migcrash.pml; the drain used to skip
 * it, the migration gave up and the lock stayed: crash sweep 63 run 54).
 */
Test(na_recovery, drain_takes_a_block_a_migration_drains)
{
	uint64_t tag = na_home_tag(&n.home, 3);
	uint8_t e[64];
	uint32_t round;

	n.home.blk[3].gs = LCF_GS_SHARED;
	n.home.blk[3].cs = 1u << 3;
	n.home.blk[3].readers = 1;
	n.home.req[3 * t.threads_per_node].held[1] = (struct na_hheld){
		.valid = true, .seq = 11, .tag = tag
	};
	n.home.blk[3].owner = NA_OWN_MIGRATING;
	n.home.blk[3].add_draining = true;
	na_rec_drain(n.rec, 3, &out);
	cr_assert_eq(n.home.blk[3].owner, NA_OWN_RECOVERING);
	cr_assert_not(n.home.blk[3].add_draining, "the migration is cancelled");
	round = self_round();
	report(1, round, e, 0, 0);
	report(2, round, e, 0, 0);
	na_out_reset(&out);
	na_rec_tick(n.rec, &out);
	cr_assert_eq(n.home.blk[3].owner, NA_OWN_HOME);
	cr_assert_eq(n.home.blk[3].readers, 0);
	cr_assert_eq(n.home.blk[3].cs, 0);
}

/*
 * A round that began after the thread's check (in its ABORT quarantine)
 * and has the node's report: the request is neither sent nor recorded (it
 * would be granted after the rebuild and dropped as aborted, the lock
 * nobody's: lib/model/recsend.pml, switch-restart sweep 61 run 42).
 */
Test(na_recovery, no_request_goes_once_the_round_has_the_report)
{
	uint64_t tag = (1ull << (48 - t.block_shift)) | 1; /* home 1 */
	struct lcf_msg m = msg(NA_MSG_REC_BEGIN, 1, 4, 0);
	struct lcf_msg d = msg(NA_MSG_REC_DONE, 1, 4, 0);
	uint8_t tags[8];
	const struct na_out_msg *r;

	put64(tags, tag);
	m.len = sizeof(tags);
	feed(&m, tags);
	cr_assert_not_null(find(NA_MSG_REC_REPORT, 1), "idle: reported");
	cr_assert_not(na_rec_sent(n.rec, 0, tag, 9), "the round holds it");
	feed(&d, NULL);
	m.seq = d.seq = 5; /* the next round: nothing of seq 9 */
	feed(&m, tags);
	r = find(NA_MSG_REC_REPORT, 1);
	cr_assert_not_null(r, "not inside an event: reported at once");
	cr_assert_eq(r->msg.len, 0, "no unsettled request");
	feed(&d, NULL);
	cr_assert(na_rec_sent(n.rec, 0, tag, 9), "after DONE");
}

/* na_rec_begin: na_rec_before and, when the event may start, na_rec_sent
 * in one call; a round holding the tag records nothing. */
Test(na_recovery, begin_records_the_request_only_when_it_may_go)
{
	uint64_t tag = (1ull << (48 - t.block_shift)) | 1; /* home 1 */
	struct lcf_msg m = msg(NA_MSG_REC_BEGIN, 1, 4, 0);
	struct lcf_msg d = msg(NA_MSG_REC_DONE, 1, 4, 0);
	uint8_t tags[8];
	const struct na_out_msg *r;
	bool settled, sent = true;

	put64(tags, tag);
	m.len = sizeof(tags);
	feed(&m, tags);
	cr_assert_eq(na_rec_begin(n.rec, tag, 0, false, 0, &settled, 9, &sent),
		     -EAGAIN, "the round holds it");
	cr_assert_not(sent);
	feed(&d, NULL);
	cr_assert_eq(na_rec_begin(n.rec, tag, 0, false, 0, &settled, 9, &sent),
		     0);
	cr_assert(sent, "recorded as sent");
	m.seq = d.seq = 5;
	feed(&m, tags);
	cr_assert_null(find(NA_MSG_REC_REPORT, 1), "inside the event: waits");
	na_rec_end(n.rec, 0, tag, NA_REC_ABORTED);
	na_out_reset(&out);
	na_rec_tick(n.rec, &out);
	r = find(NA_MSG_REC_REPORT, 1);
	cr_assert_not_null(r, "reported once idle");
	cr_assert_neq(r->msg.len, 0, "seq 9 listed as unsettled");
}

/*
 * Dead node 3's read was given node 1's Modified data; node 3 died before
 * writing it home, so no report lists its event as unsettled. Node 1 still
 * holds that data Shared and marks its record current: the home writes it
 * (lib/model/recorphan.pml; memory kept the old value and validate-on-hit
 * served it: crash sweep 62 run 2, stale reads).
 */
Test(na_recovery, current_orphan_of_a_dead_requester_is_written)
{
	uint64_t tag = na_home_tag(&n.home, 0);
	struct lcf_msg m = msg(LCF_T_READ_MISS, 1, 5, tag);
	const struct na_out_msg *p;
	uint8_t e[64];
	uint16_t len;
	uint32_t round;

	na_rec_drain(n.rec, 3, &out); /* nothing of block 0 at home */
	n.home.blk[0].owner = NA_OWN_SWITCH;
	feed(&m, NULL);
	p = find(LCF_T_REMOVE_FROM_SWITCH, 0);
	cr_assert_not_null(p);
	m = p->msg;
	cr_assert(feed(&m, NULL), "the switch evicted it");
	round = self_round();
	len = entry(e, tag, ENT_HOLD, 1, 0, 0);
	len += entry(e + len, tag, ENT_DIRTY, 3, 0, 7);
	e[len - REC_ENTRY + 11] = REC_DIRTY_CUR;
	send_data(tag, 1, 3, 0, 7, 0xab);
	report(1, round, e, len, 1);
	report(2, round, e, 0, 0);
	na_out_reset(&out);
	na_rec_tick(n.rec, &out);
	cr_assert_eq(n.home.blk[0].owner, NA_OWN_HOME);
	cr_assert_eq(n.home.blk[0].gs, LCF_GS_SHARED);
	cr_assert_eq(memcmp(n.home.mem, blk, sizeof(blk)), 0,
		     "the Shared copy's value is in memory");
	cr_assert_eq(n.rec->st.orphans_written, 1);
}

/*
 * Node 3's thread 0 was given data from our Modified copy of home 1's
 * block `tag` (the cache agent's row: an orphan record, seq 7); our copy of
 * the block is Shared with that data. @return our copy.
 */
static struct na_centry *
orphan_row(uint64_t tag)
{
	struct na_creq *rq = &n.cagent.req[3 * t.threads_per_node];
	struct na_cbucket *b = na_cache_bucket(&n.cache, tag);
	struct na_centry *ce;

	rq->le = (struct na_last_exec){ .valid = true, .seq = 7 };
	rq->ack = (struct lcf_msg){ .gstatus = LCF_GS_MODIFIED,
				    .tag = tag,
				    .node = 3 };
	rq->has_data = true;
	if (!rq->data)
		rq->data = calloc(1, t.block_size);
	cr_assert_not_null(rq->data);
	memset(rq->data, 0x5a, t.block_size);
	ce = na_cache_room(b, &(struct na_centry *){ NULL });
	cr_assert_not_null(ce);
	na_cache_claim(ce, tag, 0, 1);
	ce->busy = -1;
	ce->state = NA_L_SHARED;
	memset(ce->data, 0x5a, t.block_size);
	return ce;
}

/* A round of home 1 on `tag` (round `seq`): our report. */
static const struct na_out_msg *
report_of(uint64_t tag, uint32_t seq)
{
	struct lcf_msg m = msg(NA_MSG_REC_BEGIN, 1, seq, 0);
	const struct na_out_msg *r;
	uint8_t tags[8];

	put64(tags, tag);
	m.len = sizeof(tags);
	feed(&m, tags);
	r = find(NA_MSG_REC_REPORT, 1);
	cr_assert_not_null(r);
	return r;
}

/* The node side: a record is marked current only while this node's copy
 * is Shared with the same data. */
Test(na_recovery, dirty_record_marked_current_only_when_equal)
{
	uint64_t tag = (1ull << (48 - t.block_shift)) | 2; /* home 1 */
	struct na_centry *ce = orphan_row(tag);
	const struct na_out_msg *r = report_of(tag, 4);

	cr_assert_eq(r->msg.len, 2 * REC_ENTRY, "HOLD and DIRTY");
	cr_assert_eq(((const uint8_t *)r->payload)[REC_ENTRY + 8], ENT_DIRTY);
	cr_assert_eq(((const uint8_t *)r->payload)[REC_ENTRY + 11],
		     REC_DIRTY_CUR);
	ce->data[5] ^= 1; /* our copy differs: not current */
	r = report_of(tag, 5);
	cr_assert_eq(((const uint8_t *)r->payload)[REC_ENTRY + 11], 0);
}

/* ---- re-admission of a restarted node (FAULTS.md 3, rejoin.pml) ---------- */

static void
tick_now(void)
{
	n.rec->next_tick = 0;
	na_out_reset(&out);
	na_rec_tick(n.rec, &out);
}

/* A Shared copy in our cache of node 3's block at `tag`. */
static void
cache_copy(uint64_t tag)
{
	struct na_cbucket *b = na_cache_bucket(&n.cache, tag);
	struct na_centry *v, *e = na_cache_room(b, &v);

	cr_assert_not_null(e);
	na_cache_claim(e, tag, 0, 1);
	e->busy = NA_NOBODY;
	e->state = NA_L_SHARED;
}

Test(na_recovery, rejoin_forgets_the_old_incarnations_rows_and_copies)
{
	uint64_t tag3 = (uint64_t)3 << (48 - t.block_shift);
	struct na_hreq *rq = &n.home.req[3 * t.threads_per_node];
	struct na_creq *cr = &n.cagent.req[3 * t.threads_per_node];
	struct lcf_msg late = msg(LCF_T_WRITE_MISS, 3, 501, 0);

	rq->req = (struct na_last_exec){ 500, true };
	rq->unlock = (struct na_last_exec){ 500, true };
	rq->qfwd_seq = 500;
	cr->le = (struct na_last_exec){ 500, true };
	cache_copy(tag3);
	cr_assert_eq(na_rec_node_rejoined(n.rec, 3), -EALREADY,
		     "never declared dead");
	cr_assert_eq(na_rec_node_failed(n.rec, 3), 0);
	cr_assert(feed(&late, NULL), "dropped from the declaration on");
	tick_now();
	cr_assert(feed(&late, NULL), "a dead node's late copy is dropped");
	cr_assert_eq(n.rec->st.dead_dropped, 2);
	cr_assert_eq(na_rec_node_rejoined(n.rec, 0), -EINVAL);
	cr_assert_eq(na_rec_node_rejoined(n.rec, 3), 0);
	tick_now();
	cr_assert_eq(n.rec->st.rejoined, 1);
	cr_assert(na_rec_quiet(n.rec), "no node dead any more");
	cr_assert_not(na_rec_home_dead(n.rec, tag3));
	cr_assert_eq(na_le_check(&rq->req, 1), NA_LE_EXECUTE,
		     "the new incarnation's seq 1 is executed");
	cr_assert_eq(na_le_check(&rq->unlock, 1), NA_LE_EXECUTE);
	cr_assert_eq(rq->qfwd_seq, 0);
	cr_assert_eq(na_le_check(&cr->le, 1), NA_LE_EXECUTE);
	cr_assert_eq(na_cache_find(na_cache_bucket(&n.cache, tag3), tag3)
			     ->state,
		     NA_L_INVALID, "the old memory's copy is dropped");
	cr_assert_eq(n.rec->st.rejoin_uncached, 1);
	cr_assert_not(feed(&late, NULL), "node 3 is heard again");
}

/* orphan_row(), then node 3 died and rejoined here. @return our copy. */
static struct na_centry *
rejoined_with_orphan(uint64_t tag)
{
	struct na_centry *ce = orphan_row(tag);

	cr_assert_eq(na_rec_node_failed(n.rec, 3), 0);
	tick_now();
	cr_assert_eq(na_rec_node_rejoined(n.rec, 3), 0);
	tick_now();
	cr_assert_eq(n.rec->st.rejoined, 1);
	cr_assert_eq(na_le_check(&n.cagent.req[3 * t.threads_per_node].le, 1),
		     NA_LE_EXECUTE, "row reset");
	cr_assert_eq(n.rec->st.rejoin_kept, 1);
	return ce;
}

/*
 * The rejoin came before home 1's round asked us (our first report lost):
 * the record is kept aside, reported current, until that round ends
 * (lib/model/recorphan.pml KEEP; na-sim --directory --restart-node seed 60
 * lost an update without it).
 */
Test(na_recovery, rejoin_keeps_an_orphan_until_its_round_ends)
{
	uint64_t tag = (1ull << (48 - t.block_shift)) | 2; /* home 1 */
	struct lcf_msg done = msg(NA_MSG_REC_DONE, 1, 4, 0);
	const uint8_t *e;

	(void)rejoined_with_orphan(tag);
	cr_assert_eq(report_of(tag, 4)->msg.len, 2 * REC_ENTRY,
		     "HOLD, kept DIRTY");
	e = find(NA_MSG_REC_REPORT, 1)->payload;
	cr_assert_eq(e[REC_ENTRY + 8], ENT_DIRTY);
	cr_assert_eq(e[REC_ENTRY + 9], 3);
	cr_assert_eq(e[REC_ENTRY + 11], REC_DIRTY_CUR);
	cr_assert_not_null(find(NA_MSG_REC_DATA, 1), "and its data");
	feed(&done, NULL);
	cr_assert_eq(report_of(tag, 5)->msg.len, REC_ENTRY, "done: HOLD only");
}

/* Not current: not reported at all (its seq is the dead process's; the
 * new incarnation may list the same seq unsettled: recorphan.pml -alias,
 * na-sim --restart-node seed 126 wrote an older value). */
Test(na_recovery, a_kept_orphan_is_reported_only_when_current)
{
	uint64_t tag = (1ull << (48 - t.block_shift)) | 2; /* home 1 */
	struct na_centry *ce = rejoined_with_orphan(tag);

	ce->data[5] ^= 1;
	cr_assert_eq(report_of(tag, 4)->msg.len, REC_ENTRY, "HOLD only");
}

/* A due drain round is no reason to wait while re-adds are pending: a
 * re-add held by a lock waited for the rejoin, the rejoin for the round
 * (na-sim --fault restart sweep 70 run 741: node 4's write-backs dropped
 * for good). */
Test(na_recovery, a_due_round_starts_between_re_adds)
{
	n.home.blk[5].writer = true; /* its re-add waits for the lock */
	n.rec->h.readd[0] = 5;
	n.rec->h.n_readd = 1;
	n.rec->h.phase = PH_READD;
	n.rec->h.pending = true;
	cr_assert_eq(na_rec_node_failed(n.rec, 3), 0);
	tick_now();
	cr_assert_eq(na_rec_node_rejoined(n.rec, 3), 0);
	tick_now();
	tick_now();
	cr_assert_eq(n.rec->st.rejoined, 1, "re-admitted");
	cr_assert_eq(n.rec->h.phase, PH_READD, "the re-add goes on");
	cr_assert_eq(n.rec->h.n_readd, 1);
}

/* The rejoin waits until the drain's round rebuilt node 3's block. */
Test(na_recovery, rejoin_waits_for_the_drain_round)
{
	uint64_t tag = na_home_tag(&n.home, 3);
	struct na_hreq *rq = &n.home.req[3 * t.threads_per_node];
	uint8_t e[64];
	uint32_t round;

	n.home.blk[3].gs = LCF_GS_SHARED;
	n.home.blk[3].cs = 1u << 3;
	n.home.blk[3].readers = 1;
	rq->held[1] = (struct na_hheld){ .valid = true, .seq = 11, .tag = tag };
	rq->req = (struct na_last_exec){ 11, true };
	cr_assert_eq(na_rec_node_failed(n.rec, 3), 0);
	cr_assert_eq(na_rec_node_rejoined(n.rec, 3), 0,
		     "declared, not drained");
	tick_now();
	cr_assert_eq(n.home.blk[3].owner, NA_OWN_RECOVERING);
	cr_assert_eq(n.rec->st.rejoined, 0, "a round runs");
	cr_assert(rq->req.valid);
	round = self_round();
	report(1, round, e, 0, 0);
	report(2, round, e, 0, 0);
	tick_now();
	cr_assert_eq(n.home.blk[3].owner, NA_OWN_HOME);
	cr_assert_eq(n.home.blk[3].readers, 0);
	cr_assert_eq(n.rec->st.rejoined, 0, "DONE not acknowledged yet");
	for (uint16_t i = 0; i < 3; i++) {
		struct lcf_msg a = msg(NA_MSG_REC_DONE_ACK, i, round, 0);

		feed(&a, NULL);
	}
	tick_now(); /* the round ends */
	tick_now(); /* the rejoin */
	cr_assert_eq(n.rec->st.rejoined, 1);
	cr_assert_not(rq->req.valid);
	cr_assert_not(rq->held[1].valid);
	cr_assert_eq(sent_to(NA_MSG_REC_BEGIN), 0);
}

/*
 * A round that begins between node 3's declaration and the tick that
 * drains it (a tag miss on a block the switch lost) leaves node 3 out:
 * its new incarnation, up before that tick, would wait in the round for
 * ever, its report dropped and no DONE once the drain took it out
 * (lib/model/recjoin.pml; na-sim --fault restart, sweep 70).
 */
Test(na_recovery, round_begun_before_the_drain_leaves_a_declared_node_out)
{
	uint64_t tag = na_home_tag(&n.home, 0);
	struct lcf_msg m;
	uint8_t e[64];
	uint32_t round;

	cr_assert_eq(na_rec_node_failed(n.rec, 3), 0);
	cr_assert_eq(na_rec_node_rejoined(n.rec, 3), 0);
	m = probe_of(0, msg(LCF_T_READ_MISS, 1, 5, tag));
	cr_assert(feed(&m, NULL), "the probe came back: block 0 is lost");
	cr_assert_eq(sent_to(NA_MSG_REC_BEGIN), 0x7, "node 3 is not asked");
	round = self_round();
	report(1, round, e, 0, 0);
	report(2, round, e, 0, 0);
	tick_now(); /* the drain, then the rebuild */
	cr_assert_eq(sent_to(NA_MSG_REC_DONE), 0x7, "node 3 was never asked");
	cr_assert_eq(n.home.blk[0].owner, NA_OWN_HOME);
}

/*
 * A late copy of home 3's BEGIN, after the round's DONE or during a newer
 * round, starts nothing: started again, the round would never end (the home
 * sends DONE only for its current round) and the node's requests on its
 * blocks would wait for ever (lib/model/recround.pml). Home 3's new
 * incarnation numbers its rounds from 1 again: the rejoin forgets the last.
 */
Test(na_recovery, late_begin_copy_starts_no_round)
{
	uint64_t tag = (uint64_t)3 << (48 - t.block_shift);
	struct lcf_msg b = msg(NA_MSG_REC_BEGIN, 3, 4, 0);
	struct lcf_msg d = msg(NA_MSG_REC_DONE, 3, 4, 0);
	uint8_t tags[8];

	put64(tags, tag);
	b.len = sizeof(tags);
	feed(&b, tags);
	cr_assert_not_null(find(NA_MSG_REC_REPORT, 3));
	feed(&d, NULL);
	cr_assert(na_rec_quiet(n.rec));
	feed(&b, tags); /* the late copy of round 4 */
	cr_assert_null(find(NA_MSG_REC_REPORT, 3), "no report");
	cr_assert(na_rec_quiet(n.rec), "no round");
	cr_assert(na_rec_sent(n.rec, 0, tag, 9), "requests go");
	na_rec_end(n.rec, 0, tag, NA_REC_LEFT);
	b.seq = d.seq = 5;
	feed(&b, tags);
	cr_assert_not_null(find(NA_MSG_REC_REPORT, 3), "round 5 is newer");
	b.seq = 4;
	feed(&b, tags);
	cr_assert_null(find(NA_MSG_REC_REPORT, 3), "older than round 5");
	feed(&d, NULL);
	cr_assert(na_rec_quiet(n.rec), "round 5 ended");
	cr_assert_eq(n.rec->st.late_begins, 2);
	cr_assert_eq(na_rec_node_failed(n.rec, 3), 0);
	tick_now();
	cr_assert_eq(na_rec_node_rejoined(n.rec, 3), 0);
	tick_now();
	cr_assert_eq(n.rec->st.rejoined, 1);
	b.seq = 1;
	feed(&b, tags);
	cr_assert_not_null(find(NA_MSG_REC_REPORT, 3),
			   "the new incarnation's round 1");
}

/* ---- a node declared dead while an ADD is out (migdead.pml) -------------- */

/* The copyset of the last ADD_TO_SWITCH in `out`, -1 when none. */
static int64_t
add_copyset(void)
{
	const struct na_out_msg *a = find(LCF_T_ADD_TO_SWITCH, 0);

	return a ? (int64_t)a->msg.copyset : -1;
}

/* A block being added (migration or re-add) at a declaration: no copy goes
 * from the declaration on (one delivered after the switch's eviction would
 * install the home's stale metadata, migsettle.pml), the drain clears the
 * dead node from its copyset and settles it: REMOVE once the copies in
 * flight are gone, and a recovery whatever the switch answers (na-sim
 * crash-migrate seeds 3 and 17). */
static void
mig_flush(void *ctx, struct na_out *o)
{
	(void)ctx;
	(void)o;
}

Test(na_recovery, a_declaration_settles_an_add_out)
{
	struct na_hblock *b = &n.home.blk[2];
	struct na_migrate mg;
	struct na_mig_io io = { .out = &out, .flush = mig_flush };
	uint64_t tag = na_home_tag(&n.home, 2);
	struct lcf_msg ack = msg(LCF_T_MIGRATE_ACK, 0, 1, tag);
	uint64_t t0;

	b->gs = LCF_GS_MODIFIED;
	b->cs = 1u << 3;
	cr_assert_eq(na_home_migrate_start(&n.home, 2, na_now_ns(), &out), 0);
	cr_assert_eq(add_copyset(), 1u << 3, "node 3 alive");
	cr_assert_eq(na_rec_node_failed(n.rec, 3), 0);
	na_out_reset(&out);
	cr_assert_eq(na_home_migrate_resend(&n.home, 2, 0, &out), 1);
	cr_assert_eq(add_copyset(), -1, "no copy from the declaration on");
	tick_now();
	cr_assert_eq(b->owner, NA_OWN_REMOVING, "settling");
	cr_assert_eq(b->add_settle, 1);
	cr_assert_not(b->writer);
	cr_assert_eq(b->cs, 0, "the drain clears it");
	cr_assert_eq(n.rec->st.adding_cleared, 1);
	cr_assert_eq(n.rec->st.adding_settled, 1);
	na_out_reset(&out);
	cr_assert_eq(na_home_migrate_resend(&n.home, 2, 0, &out), -EALREADY);
	cr_assert_eq(add_copyset(), -1, "nor after the drain");
	/* The REMOVE once no copy can be in flight, not before. */
	cr_assert_eq(na_migrate_init(&mg, false, 0, 0, -1, 0), 0);
	t0 = (uint64_t)b->add_hold_t << 20;
	na_migrate_tick(&mg, &n.home, t0, &io);
	cr_assert_null(find(LCF_T_REMOVE_FROM_SWITCH, 0), "copies in flight");
	na_migrate_tick(&mg, &n.home, t0 + NA_ADD_HOLD_NS + (2ull << 20), &io);
	cr_assert_not_null(find(LCF_T_REMOVE_FROM_SWITCH, 0));
	cr_assert_eq(b->add_settle, 2);
	cr_assert_eq(mg.st.settle_removes, 1);
	/* The switch had an entry (a copy's, maybe stale): not taken as the
	 * truth, the block is recovered. */
	ack.aux = (uint32_t)LCF_T_REMOVE_FROM_SWITCH << 24;
	ack.gstatus = LCF_GS_MODIFIED;
	ack.copyset = 1u << 1;
	cr_assert(feed(&ack, NULL), "the recovery's");
	cr_assert_eq(b->owner, NA_OWN_RECOVERING);
	cr_assert_eq(b->add_settle, 0);
	cr_assert_eq(n.rec->st.settle_recovered, 1);
	na_migrate_fini(&mg);
}

/* A timer's settle whose ADD FAILed in the hold, then a declaration: the
 * FAIL no longer decides (the block's copyset names the dead node, which
 * the drain skips while it is REMOVING): REMOVE and round, as any settle
 * at a declaration; a late OK neither (lib/model/migrestart.pml). */
Test(na_recovery, a_declaration_in_a_settles_hold_keeps_its_round)
{
	struct na_hblock *b = &n.home.blk[2];
	struct lcf_msg ack = msg(LCF_T_MIGRATE_ACK, 0, 0,
				 na_home_tag(&n.home, 2));

	b->cs = 1u << 3;
	cr_assert_eq(na_home_migrate_start(&n.home, 2, na_now_ns(), &out), 0);
	ack.seq = b->add_seq0;
	ack.aux = (uint32_t)LCF_T_ADD_TO_SWITCH << 24;
	cr_assert_eq(na_home_migrate_timeout(&n.home, 2, na_now_ns(), &out),
		     -EALREADY, "settled");
	cr_assert(b->add_late);
	ack.flags = LCF_F_FAIL;
	na_home_handle(&n.home, &ack, NULL, 0, &out);
	cr_assert_eq(b->add_settle, 3, "the FAIL in the hold");
	cr_assert_eq(na_rec_node_failed(n.rec, 3), 0);
	tick_now();
	cr_assert_eq(b->add_settle, 1, "REMOVE and round again");
	cr_assert_not(b->add_late);
	ack.flags = 0;
	na_home_handle(&n.home, &ack, NULL, 0, &out);
	cr_assert_eq(b->owner, NA_OWN_REMOVING, "a late OK no longer decides");
	cr_assert_eq(n.home.st.settle_answered_ok, 0);
}

/* An ADD after the drain names no dead node (the switch evicted what named
 * it, migdead.pml); once the node rejoins, its new incarnation may be. */
Test(na_recovery, no_add_copy_names_a_dead_node)
{
	struct na_hblock *b = &n.home.blk[2];

	cr_assert_eq(na_rec_node_failed(n.rec, 3), 0);
	tick_now();
	b->gs = LCF_GS_SHARED;
	b->cs = 1u << 3;
	na_out_reset(&out);
	cr_assert_eq(na_home_migrate_start(&n.home, 2, na_now_ns(), &out), 0);
	cr_assert_eq(add_copyset(), 0);
	cr_assert_eq(find(LCF_T_ADD_TO_SWITCH, 0)->msg.gstatus,
		     LCF_GS_UNSHARED);
	cr_assert_eq(na_rec_node_rejoined(n.rec, 3), 0);
	tick_now();
	cr_assert_eq(n.rec->st.rejoined, 1);
	na_out_reset(&out);
	cr_assert_eq(na_home_migrate_resend(&n.home, 2, 0, &out), 0);
	cr_assert_eq(add_copyset(), 1u << 3);
}

/*
 * Switch-restart sweep 68 run 542 (lib/model/migrestart.pml): the ADD's
 * copy installed the block in the old switch, its replies lost, node 1
 * wrote it there (Modified); after the restart a re-sent copy installed
 * the home's metadata of before (Unshared). Unanswered, the ADD is
 * settled: REMOVE, the entry found is not the truth, the block is rebuilt
 * from the caches' reports and ADDed again with that.
 */
Test(na_recovery, an_unanswered_add_is_recovered_and_added_again)
{
	struct na_hblock *b = &n.home.blk[2];
	struct na_migrate mg;
	struct na_mig_io io = { .out = &out, .flush = mig_flush };
	uint64_t tag = na_home_tag(&n.home, 2);
	struct lcf_msg ack = msg(LCF_T_MIGRATE_ACK, 0, 1, tag);
	const struct na_out_msg *add;
	uint8_t e[64];
	uint32_t round;
	uint64_t t0;

	b->gs = LCF_GS_UNSHARED;
	b->cs = 0;
	cr_assert_eq(na_home_migrate_start(&n.home, 2, na_now_ns(), &out), 0);
	na_out_reset(&out);
	cr_assert_eq(na_home_migrate_timeout(&n.home, 2, 0, &out), -EALREADY);
	cr_assert_null(find(LCF_T_ADD_TO_SWITCH, 0), "no copy re-sent");
	cr_assert_eq(b->owner, NA_OWN_REMOVING);
	cr_assert_eq(n.home.st.migrate_unanswered, 1);
	cr_assert_eq(na_migrate_init(&mg, false, 0, 0, -1, 0), 0);
	t0 = (uint64_t)b->add_hold_t << 20;
	na_migrate_tick(&mg, &n.home, t0 + NA_ADD_HOLD_NS + (2ull << 20), &io);
	cr_assert_not_null(find(LCF_T_REMOVE_FROM_SWITCH, 0));
	/* The re-sent copy's entry: Unshared, not the truth. */
	ack.aux = (uint32_t)LCF_T_REMOVE_FROM_SWITCH << 24;
	ack.gstatus = LCF_GS_UNSHARED;
	ack.copyset = 0;
	na_out_reset(&out);
	cr_assert(feed(&ack, NULL));
	cr_assert_eq(b->owner, NA_OWN_RECOVERING);
	round = self_round();
	report(1, round, e, entry(e, tag, ENT_HOLD, 2, 0, 0), 0);
	report(2, round, e, 0, 0);
	report(3, round, e, 0, 0);
	tick_done();
	cr_assert_eq(b->owner, NA_OWN_HOME);
	cr_assert_eq(b->gs, LCF_GS_MODIFIED, "node 1's write");
	cr_assert_eq(b->cs, 1u << 1);
	for (uint16_t i = 0; i < 4; i++) {
		struct lcf_msg a = msg(NA_MSG_REC_DONE_ACK, i, round, 0);

		feed(&a, NULL);
	}
	tick_now(); /* the round ends: the re-add */
	cr_assert_eq(n.rec->h.n_readd, 1);
	n.rec->h.last_ns = 0;
	/* The settle's hold (NA_ADD_HOLD_NS) spaces the migrations in real
	 * time (NA_ADD_GAP_NS), as does the rebuild's hold; this test's round
	 * takes microseconds. */
	b->add_t -= NA_ADD_GAP_UNITS;
	b->rec_t -= (uint32_t)(NA_ADD_HOLD_NS >> 20) + 2;
	tick_now();
	add = find(LCF_T_ADD_TO_SWITCH, 0);
	cr_assert_not_null(add, "ADDed again");
	cr_assert_eq(add->msg.gstatus, LCF_GS_MODIFIED);
	cr_assert_eq(add->msg.copyset, 1u << 1);
	na_migrate_fini(&mg);
}

/*
 * A rebuilt block is ADDed to the switch only once the packet lifetime has
 * passed: node 2's request copy, sent before its report (its event aborted
 * by the round), may still be on its way; delivered after a re-ADD it can
 * take the lock, or be queued into another node's tenure that is then
 * handed to it, and the block stays locked (lib/model/qfault.pml,
 * qfault-restart-late; RHOLD). Times from the rebuild's own stamp
 * (2^20 ns units), not the test's clock.
 */
Test(na_recovery, rebuilt_block_waits_out_the_packet_lifetime)
{
	uint64_t tag = na_home_tag(&n.home, 3);
	struct na_hblock *b = &n.home.blk[3];
	uint32_t round = lost_block_round(3, msg(LCF_T_WRITE_MISS, 2, 9, tag));
	uint64_t r;
	uint8_t e[16];

	report(1, round, e, 0, 0);
	report(2, round, e, entry(e, tag, ENT_UNSETTLED, 0, 0, 9), 0);
	report(3, round, e, 0, 0);
	tick_done();
	cr_assert_eq(b->owner, NA_OWN_HOME);
	r = (uint64_t)b->rec_t << 20;
	na_out_reset(&out);
	/* 10 units after the stamp: maybe only 9 x 2^20 ns < NA_ADD_HOLD_NS */
	cr_assert_eq(na_home_migrate_start(&n.home, 3, r + (10ull << 20), &out),
		     -EBUSY, "a copy sent before the reports may be in flight");
	cr_assert_eq(b->owner, NA_OWN_HOME);
	cr_assert_eq(na_home_migrate_start(&n.home, 3, r + (11ull << 20), &out),
		     0);
	cr_assert_eq(b->owner, NA_OWN_MIGRATING);
}
