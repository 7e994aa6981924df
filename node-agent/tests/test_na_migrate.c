/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Dynamic migration: the home's epoch top-k with drain (no quiet period),
 * ADD copy accounting, REMOVE on the shadow's request; the shadow's
 * SHADOW-TAG mirror and its collision decision. About 700 lines: the
 * home's and the shadow's tests share one fixture (a home's block table
 * and a shadow over the same topology).
 */
#include <errno.h>

#include <criterion/criterion.h>

#include "na_migrate.h"
#include "na_msg.h"
#include "na_shadow.h"
#include "topo.h"

/* A 1-way, 1-slot switch: every tag collides with every other. */
static const char *topo1 =
	"{ \"lcf_port\": 7340, \"block_size\": 4096,"
	"  \"switch\": { \"mac\": \"02:00:00:00:00:fe\", \"ip\": \"10.0.0.254\","
	"              \"profile\": \"tiny\", \"ways\": 1, \"slots_per_way\": 1 },"
	"  \"nodes\": ["
	"    { \"id\": 0, \"mac\": \"02:00:00:00:00:01\", \"ip\": \"10.0.0.1\", \"port\": 0 },"
	"    { \"id\": 1, \"mac\": \"02:00:00:00:00:02\", \"ip\": \"10.0.0.2\", \"port\": 1 } ],"
	"  \"shadow\": 1 }";

static struct topo t;
static struct na_home h;
static struct na_migrate mg;
static struct na_out out;
static struct na_mig_io io = { .out = &out };

static void
no_flush(void *ctx, struct na_out *o)
{
	(void)ctx;
	(void)o;
	cr_assert_fail("output list full");
}

static void
setup(void)
{
	char err[TOPO_ERR_LEN];

	cr_assert_eq(topo_load_string(topo1, &t, err), 0, "%s", err);
	cr_assert_eq(na_home_init(&h, &t, 0, NA_CHUNK_SIZE, 7), 0);
	cr_assert_eq(na_migrate_init(&mg, true, 2, 10, 1, 0), 0);
	io.flush = no_flush;
}

static void
teardown(void)
{
	na_migrate_fini(&mg);
	na_home_fini(&h);
}

#define MS 1000000ull

static void
tick(uint64_t now)
{
	na_out_reset(&out);
	na_migrate_tick(&mg, &h, now, &io);
}

static struct lcf_msg
ack(uint32_t idx, uint32_t seq, uint8_t orig, bool fail)
{
	return (struct lcf_msg){ .version = 1,
				 .type = LCF_T_MIGRATE_ACK,
				 .node = 0,
				 .seq = seq,
				 .tag = na_home_tag(&h, idx),
				 .flags = LCF_F_IN_SWITCH |
					  (fail ? LCF_F_FAIL : 0),
				 .aux = (uint32_t)orig << 24,
				 .gstatus = LCF_GS_SHARED,
				 .copyset = 3 };
}

static void
feed(struct lcf_msg m)
{
	na_out_reset(&out);
	na_home_handle(&h, &m, NULL, 0, &out);
}

/* The output message about block `idx`, or fail. */
static const struct na_out_msg *
out_for(uint32_t idx)
{
	for (uint32_t i = 0; i < out.n; i++)
		if (out.m[i].msg.tag == na_home_tag(&h, idx))
			return &out.m[i];
	cr_assert_fail("no message for block %u", idx);
	return NULL;
}

/* Epoch end, then drain: the ADD of the hottest goes out with the lock. */
static struct lcf_msg
migrate_hottest(void)
{
	na_home_count_hot(&h, &h.blk[5], 9);
	na_home_count_hot(&h, &h.blk[6], 1);
	na_home_count_hot(&h, &h.blk[7], 4);
	tick(10 * MS); /* epoch end: top-2 = 5, 7; no holder: lock and ADD */
	cr_assert_eq(h.blk[5].owner, NA_OWN_MIGRATING);
	cr_assert_eq(h.blk[7].owner, NA_OWN_MIGRATING);
	cr_assert_eq(h.blk[6].owner, NA_OWN_HOME, "not in the top-2");
	cr_assert_eq(h.blk[6].hot, 0, "counts reset every epoch");
	cr_assert(h.blk[5].writer, "at the epoch's tick, not the next");
	cr_assert_eq(mg.n_draining, 0);
	cr_assert_eq(out.n, 2, "no quiet period (PROTOCOL.md 4.3)");
	cr_assert_eq(out_for(5)->msg.type, LCF_T_ADD_TO_SWITCH);
	cr_assert_eq(out_for(7)->msg.type, LCF_T_ADD_TO_SWITCH);
	return out_for(5)->msg;
}

TestSuite(migrate_home, .init = setup, .fini = teardown);

Test(migrate_home, top_k_after_drain)
{
	struct lcf_msg add = migrate_hottest();

	feed(ack(5, add.seq, LCF_T_ADD_TO_SWITCH, false));
	cr_assert_eq(h.blk[5].owner, NA_OWN_SWITCH);
	cr_assert_not(h.blk[5].writer, "home lock released at the ACK");
}

Test(migrate_home, a_locked_block_waits_for_its_holder)
{
	na_home_count_hot(&h, &h.blk[5], 9);
	h.blk[5].readers = 1;
	tick(10 * MS);
	tick(45 * MS);
	cr_assert_not(h.blk[5].writer, "never while a reader holds it");
	h.blk[5].readers = 0; /* the holder's unlock */
	tick(50 * MS);
	cr_assert(h.blk[5].writer);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, LCF_T_ADD_TO_SWITCH);
}

/* The holder's unlock ends the drain at once, not at the next tick. */
Test(migrate_home, the_holders_unlock_sends_the_add)
{
	na_home_count_hot(&h, &h.blk[5], 9);
	h.blk[5].readers = 2;
	tick(10 * MS);
	cr_assert_eq(out.n, 0);
	cr_assert_eq(mg.n_draining, 1);
	h.blk[5].readers = 1; /* one reader's unlock: still held */
	na_out_reset(&out);
	na_migrate_released(&mg, &h, na_home_tag(&h, 5), 10 * MS + 900, &io);
	cr_assert_eq(out.n, 0, "a reader still holds it");
	na_migrate_released(&mg, &h, na_home_tag(&h, 6), 10 * MS + 950, &io);
	cr_assert_eq(out.n, 0, "not draining");
	h.blk[5].readers = 0; /* the last one */
	na_migrate_released(&mg, &h, na_home_tag(&h, 5), 10 * MS + 1000, &io);
	cr_assert(h.blk[5].writer, "the drain's lock");
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, LCF_T_ADD_TO_SWITCH);
	cr_assert_eq(mg.n_draining, 0);
	cr_assert_eq(mg.st.adds, 1);
	na_out_reset(&out);
	na_migrate_released(&mg, &h, na_home_tag(&h, 5), 10 * MS + 2000, &io);
	cr_assert_eq(out.n, 0, "once");
	tick(11 * MS);
	cr_assert_eq(out.n, 0, "no second copy before its timeout");
	feed(ack(5, h.blk[5].add_seq, LCF_T_ADD_TO_SWITCH, false));
	cr_assert_eq(h.blk[5].owner, NA_OWN_SWITCH);
}

/*
 * A node failure's drain took a draining block (na_rec_drain): the
 * migration forgets it and leaves its owner and lock alone, also once the
 * drain's time is up (lib/model/migcrash.pml).
 */
Test(migrate_home, a_drain_forgets_a_block_recovery_took)
{
	na_home_count_hot(&h, &h.blk[5], 9);
	h.blk[5].readers = 1;
	tick(10 * MS);
	cr_assert_eq(mg.n_draining, 1);
	h.blk[5].owner = NA_OWN_RECOVERING; /* na_rec_drain */
	h.blk[5].add_draining = false;
	tick(70 * MS);
	cr_assert_eq(mg.n_draining, 0);
	cr_assert_eq(h.blk[5].owner, NA_OWN_RECOVERING);
	h.blk[5].owner = NA_OWN_HOME; /* the round's rebuild */
	h.blk[5].readers = 0;
	tick(75 * MS);
	cr_assert_not(h.blk[5].writer, "no lock taken for a forgotten drain");
	cr_assert_eq(out.n, 0);
}

Test(migrate_home, collision_when_the_copy_failed)
{
	struct lcf_msg add = migrate_hottest();

	feed(ack(7, h.blk[7].add_seq, LCF_T_ADD_TO_SWITCH, false));
	/* copy 0 failed, twice (the shadow node gets ACK and mirror) */
	feed(ack(5, add.seq, LCF_T_ADD_TO_SWITCH, true));
	feed(ack(5, add.seq, LCF_T_ADD_TO_SWITCH, true));
	feed(ack(5, add.seq - NA_ADD_COPY_SEQS, LCF_T_ADD_TO_SWITCH, false));
	cr_assert_eq(h.blk[5].owner, NA_OWN_MIGRATING, "late ack: ignored");
	tick(61 * MS); /* the hold starts: no copy */
	for (uint32_t i = 0; i < out.n; i++)
		cr_assert_neq(out.m[i].msg.tag, na_home_tag(&h, 5), "no copy");
	tick(61 * MS + NA_ADD_HOLD_NS / 2);
	cr_assert_eq(h.blk[5].owner, NA_OWN_MIGRATING);
	cr_assert(h.blk[5].writer, "still locked: requests NACKed");
	tick(63 * MS + NA_ADD_HOLD_NS); /* over: home (an epoch's end) */
	cr_assert_eq(h.blk[5].owner, NA_OWN_HOME);
	cr_assert_not(h.blk[5].writer);
	cr_assert_eq(h.st.migrate_fail, 1);
	cr_assert_eq(h.st.migrate_unanswered, 0, "a FAIL is an answer");
	if (!mg.st.collision_reports) /* no epoch ended at that tick */
		tick(64 * MS + NA_ADD_HOLD_NS);
	cr_assert_eq(mg.st.collision_reports, 1, "reported to the shadow");
	cr_assert_eq(out_for(5)->msg.type, NA_MSG_COLLISION);
	cr_assert_eq(out_for(5)->dst, 1);
	cr_assert_eq(out_for(5)->msg.aux, 9, "with the block's hotness");
	/* a network duplicate of copy 0 found a free slot after all */
	feed(ack(5, add.seq, LCF_T_ADD_TO_SWITCH, false));
	cr_assert_eq(h.blk[5].owner, NA_OWN_HOME);
	cr_assert_eq(h.st.migrate_late_ok, 1, "counted, not hidden");
}

/*
 * Sweep 31300 run 566 (lib/model/migdup.pml): the only copy FAILs (set
 * full), a network duplicate of it finds a slot freed meanwhile and
 * installs the block. Its OK in the hold gives the block to the switch;
 * the home took it back at the FAIL, and was then its second owner.
 */
Test(migrate_home, late_duplicate_in_the_hold_gives_it_to_the_switch)
{
	struct lcf_msg add = migrate_hottest();

	feed(ack(5, add.seq, LCF_T_ADD_TO_SWITCH, true));
	cr_assert_eq(h.blk[5].owner, NA_OWN_MIGRATING, "not home yet");
	cr_assert(h.blk[5].writer);
	tick(11 * MS);
	for (uint32_t i = 0; i < out.n; i++)
		cr_assert_neq(out.m[i].msg.tag, na_home_tag(&h, 5), "no copy");
	feed(ack(5, add.seq, LCF_T_ADD_TO_SWITCH, false)); /* the duplicate */
	cr_assert_eq(h.blk[5].owner, NA_OWN_SWITCH);
	cr_assert_not(h.blk[5].writer);
	cr_assert_eq(h.st.migrate_ok, 1);
	cr_assert_eq(h.st.migrate_fail, 0);
	cr_assert_eq(h.st.migrate_late_ok, 0);
}

/*
 * Static and dynamic migration together (lib/model/migmix.pml): a block
 * the drain marked MIGRATING while a writer holds it gets no ADD from the
 * static migration's re-send loop, and no ACK of an earlier set counts:
 * the holder's lock is never cleared under it.
 */
Test(migrate_home, draining_block_sends_no_add_and_counts_no_ack)
{
	struct na_out o2 = { 0 };
	uint32_t old;

	cr_assert_eq(na_home_migrate_start(&h, 5, 0, &o2), 0); /* static */
	old = o2.m[0].msg.seq;
	feed(ack(5, old, LCF_T_ADD_TO_SWITCH, false));
	cr_assert_eq(h.blk[5].owner, NA_OWN_SWITCH);
	h.blk[5].owner = NA_OWN_HOME; /* back home (REMOVE) */
	h.blk[5].writer = true;       /* a requester's write lock */
	na_home_count_hot(&h, &h.blk[5], 9);
	tick(10 * MS); /* the drain */
	cr_assert_eq(h.blk[5].owner, NA_OWN_MIGRATING);
	na_out_reset(&o2);
	cr_assert_eq(na_home_migrate_resend(&h, 5, 0, &o2), -EALREADY);
	cr_assert_eq(o2.n, 0, "no ADD while the holder has the lock");
	feed(ack(5, old, LCF_T_ADD_TO_SWITCH, true));
	feed(ack(5, h.blk[5].add_seq, LCF_T_ADD_TO_SWITCH, true));
	cr_assert(h.blk[5].writer, "the holder's lock is kept");
	cr_assert_eq(h.blk[5].owner, NA_OWN_MIGRATING);
	h.blk[5].writer = false; /* the holder's unlock */
	tick(12 * MS);
	cr_assert(h.blk[5].writer, "the drain's lock");
	cr_assert_eq(out_for(5)->msg.type, LCF_T_ADD_TO_SWITCH);
}

/*
 * Switch-restart sweep 68 run 542 (lib/model/migrestart.pml): copy 0
 * installed the block, every reply lost, a write at the switch made node 1
 * its Modified holder, the switch restarted; the re-sent copy installed
 * the home's old metadata (Unshared) in the new switch and its ACK made
 * the block the switch's: reads got the old memory. An unanswered copy is
 * now settled, never re-sent: no copy more, the copies in flight waited
 * out, REMOVE, recovered from the caches whatever the REMOVE's answer.
 */
Test(migrate_home, unanswered_add_is_settled_not_resent)
{
	const struct na_out_msg *rm;

	(void)migrate_hottest();

	tick(11 * MS);
	cr_assert_eq(h.blk[5].owner, NA_OWN_MIGRATING, "within the RTO");
	tick(60 * MS); /* no answer: the retransmission timer */
	for (uint32_t i = 0; i < out.n; i++)
		cr_assert_neq(out.m[i].msg.tag, na_home_tag(&h, 5),
			      "no copy re-sent");
	cr_assert_eq(h.blk[5].owner, NA_OWN_REMOVING);
	cr_assert_eq(h.blk[5].add_settle, 1, "waiting out the copies");
	cr_assert_not(h.blk[5].writer);
	cr_assert_eq(h.st.migrate_unanswered, 2, "blocks 5 and 7");
	cr_assert_eq(h.st.migrate_ok, 0);
	tick(60 * MS + NA_ADD_HOLD_NS / 2);
	cr_assert_eq(mg.st.settle_removes, 0, "a copy may be in flight");
	tick(62 * MS + NA_ADD_HOLD_NS);
	cr_assert_eq(mg.st.settle_removes, 2);
	cr_assert_eq(h.blk[5].add_settle, 2, "REMOVE sent");
	rm = out_for(5);
	cr_assert_eq(rm->msg.type, LCF_T_REMOVE_FROM_SWITCH);
	cr_assert_eq(mg.st.collision_reports, 0, "not a collision");
}

/*
 * A settled ADD's one copy answered in the hold, before the REMOVE
 * (lib/model/migrestart.pml): under load every settle of a clean
 * test-migration run was such a late answer, and each cost a REMOVE, a
 * recovery round and a rebuilt block's hold. OK: the switch that answered
 * holds it, switch-owned; FAIL: home at the hold's end, as a collision.
 * Neither sends a REMOVE.
 */
Test(migrate_home, a_settled_adds_answer_in_the_hold_decides)
{
	struct lcf_msg add = migrate_hottest();
	uint32_t seq7 = h.blk[7].add_seq;

	tick(60 * MS); /* both unanswered: settled */
	cr_assert_eq(h.blk[5].add_settle, 1);
	cr_assert_eq(h.blk[7].add_settle, 1);
	feed(ack(5, add.seq, LCF_T_ADD_TO_SWITCH, false));
	cr_assert_eq(h.blk[5].owner, NA_OWN_SWITCH, "the late OK");
	cr_assert_eq(h.blk[5].add_settle, 0);
	cr_assert_eq(h.st.settle_answered_ok, 1);
	feed(ack(7, seq7, LCF_T_ADD_TO_SWITCH, true));
	cr_assert_eq(h.blk[7].owner, NA_OWN_REMOVING, "held out");
	cr_assert_eq(h.blk[7].add_settle, 3, "the late FAIL");
	cr_assert_eq(h.st.settle_answered_fail, 1);
	feed(ack(7, seq7, LCF_T_ADD_TO_SWITCH, true));
	cr_assert_eq(h.st.settle_answered_fail, 1, "its mirror: once");
	tick(62 * MS + NA_ADD_HOLD_NS);
	cr_assert_eq(mg.st.settle_removes, 0, "no REMOVE, no round");
	cr_assert_eq(h.blk[7].owner, NA_OWN_HOME, "a collision");
	cr_assert(h.blk[7].add_collided);
	cr_assert_not(h.blk[7].writer);
	cr_assert_eq(h.n_settle, 0);
	cr_assert_eq(h.st.migrate_fail, 1);
}

/* A duplicate copy's OK after the FAIL, in the hold: the switch's. */
Test(migrate_home, an_ok_after_a_settled_adds_fail_is_the_switchs)
{
	struct lcf_msg add = migrate_hottest();

	tick(60 * MS);
	feed(ack(5, add.seq, LCF_T_ADD_TO_SWITCH, true));
	cr_assert_eq(h.blk[5].add_settle, 3);
	feed(ack(5, add.seq, LCF_T_ADD_TO_SWITCH, false));
	cr_assert_eq(h.blk[5].owner, NA_OWN_SWITCH);
	cr_assert_eq(h.n_settle, 1, "block 7 only");
}

/* After the hold the REMOVE is out: an answer changes nothing, the
 * REMOVE's answer and the round decide (migsettle.pml). */
Test(migrate_home, a_settled_adds_answer_after_the_hold_changes_nothing)
{
	struct lcf_msg add = migrate_hottest();

	tick(60 * MS);
	tick(62 * MS + NA_ADD_HOLD_NS);
	cr_assert_eq(h.blk[5].add_settle, 2, "REMOVE sent");
	feed(ack(5, add.seq, LCF_T_ADD_TO_SWITCH, false));
	cr_assert_eq(h.blk[5].owner, NA_OWN_REMOVING);
	cr_assert_eq(h.blk[5].add_settle, 2);
	cr_assert_eq(h.st.settle_answered_ok, 0);
}

/*
 * The settle timer is the ADDs' own measured round trip, not a constant:
 * at 5 ms every ADD of a cluster whose round trip through the switch is
 * 3-8 ms (a loaded 2-vCPU VM) was settled, each a REMOVE and a recovery
 * round instead of its migration. Block 5's FAIL 4 ms after its ADD is a
 * sample (srtt 4, rttvar 2: RTO 12 ms); block 7 is not settled at 10 ms,
 * and is at 13 ms.
 */
Test(migrate_home, settle_timer_follows_the_measured_round_trip)
{
	struct lcf_msg add = migrate_hottest();

	cr_assert_eq(na_home_add_rto(&h), NA_ADD_RTO_MIN_NS, "no sample yet");
	feed(ack(5, add.seq, LCF_T_ADD_TO_SWITCH, true));
	tick(14 * MS);
	cr_assert_eq(h.add_srtt_ns, 4 * MS, "the FAIL's round trip");
	cr_assert_eq(na_home_add_rto(&h), 12 * MS, "srtt + 4 rttvar");
	tick(20 * MS);
	cr_assert_eq(h.blk[7].owner, NA_OWN_MIGRATING,
		     "10 ms unanswered: within the measured RTO");
	cr_assert_eq(h.st.migrate_unanswered, 0);
	tick(23 * MS);
	cr_assert_eq(h.blk[7].owner, NA_OWN_REMOVING, "13 ms: settled");
	cr_assert_eq(h.st.migrate_unanswered, 1);
}

/* The estimator: RFC 6298's gains, the floor and the cap. */
Test(migrate_home, add_rto_floor_and_cap)
{
	na_home_add_rtt_sample(&h, 1 * MS);
	cr_assert_eq(na_home_add_rto(&h), NA_ADD_RTO_MIN_NS, "3 ms: floor");
	for (int i = 0; i < 40; i++)
		na_home_add_rtt_sample(&h, 10 * MS);
	cr_assert_geq(na_home_add_rto(&h), 10 * MS);
	cr_assert_lt(na_home_add_rto(&h), 12 * MS, "steady: little var");
	na_home_add_rtt_sample(&h, 2000 * MS);
	cr_assert_eq(na_home_add_rto(&h), NA_ADD_RTO_MAX_NS, "capped");
}

/* The timeout from its parts: floor first, then the doublings, then the cap. */
Test(migrate_home, add_rto_of_backs_off_and_caps)
{
	cr_assert_eq(na_add_rto_of(0, 0, 0), NA_ADD_RTO_MIN_NS, "no sample");
	cr_assert_eq(na_add_rto_of(4 * MS, 2 * MS, 0), 12 * MS);
	cr_assert_eq(na_add_rto_of(4 * MS, 2 * MS, 1), 24 * MS, "doubled");
	cr_assert_eq(na_add_rto_of(1 * MS, 0, 2), NA_ADD_RTO_MIN_NS << 2,
		     "the floor doubles");
	cr_assert_eq(na_add_rto_of(4 * MS, 2 * MS, 40), NA_ADD_RTO_MAX_NS);
	cr_assert_eq(na_add_rto_of(1 * MS, 0, 40),
		     NA_ADD_RTO_MIN_NS << NA_ADD_RTO_MAX_BACKOFF,
		     "at most NA_ADD_RTO_MAX_BACKOFF doublings");
}

/*
 * Only answers within the timeout were samples: the estimate never saw the
 * round trips longer than itself (a loaded VM: 40-50 ms), and 30-90 ADDs a
 * run were settled, each a REMOVE and a recovery round. Of two unanswered
 * ADDs one is settled at the 5 ms floor, the other at 10 (each settle
 * doubles the timeout); block 5's OK 30 ms after its ADD is a sample
 * (srtt 30, rttvar 15: 90 ms, the backoff over); block 7, never
 * answered, gives none.
 */
Test(migrate_home, a_settled_adds_late_answer_is_a_sample)
{
	struct lcf_msg add = migrate_hottest();

	tick(16 * MS);
	cr_assert_eq(h.st.migrate_unanswered, 1, "one at the floor");
	cr_assert_eq(na_home_add_rto(&h), 2 * NA_ADD_RTO_MIN_NS, "backed off");
	tick(19 * MS);
	cr_assert_eq(h.st.migrate_unanswered, 1, "the other: doubled");
	tick(21 * MS);
	cr_assert_eq(h.st.migrate_unanswered, 2);
	cr_assert_eq(na_home_add_rto(&h), 4 * NA_ADD_RTO_MIN_NS);
	feed(ack(5, add.seq, LCF_T_ADD_TO_SWITCH, false));
	cr_assert_eq(h.blk[5].owner, NA_OWN_SWITCH, "in the hold: decides");
	tick(40 * MS);
	cr_assert_eq(mg.st.add_late_samples, 1);
	cr_assert_eq(h.add_srtt_ns, 30 * MS, "the late OK's round trip");
	cr_assert_eq(na_home_add_rto(&h), 90 * MS, "srtt + 4 rttvar");
	tick(10 * MS + NA_ADD_RTO_MAX_NS + 2 * MS);
	cr_assert_eq(mg.st.add_late_samples, 1, "block 7: none");
	cr_assert_eq(h.add_srtt_ns, 30 * MS);
}

/* Blocks 5 and 7 ADDed and ACKed; the shadow's REMOVE request of 5. */
static struct lcf_msg
both_switch_owned(void)
{
	struct lcf_msg add = migrate_hottest();

	feed(ack(5, add.seq, LCF_T_ADD_TO_SWITCH, false));
	feed(ack(7, h.blk[7].add_seq, LCF_T_ADD_TO_SWITCH, false));
	return (struct lcf_msg){ .version = 1,
				 .type = NA_MSG_REMOVE_REQ,
				 .node = 1,
				 .tag = na_home_tag(&h, 5) };
}

Test(migrate_home, remove_on_the_shadows_request)
{
	struct lcf_msg r = both_switch_owned();

	na_out_reset(&out);
	na_migrate_handle(&mg, &h, &r, 70 * MS, &io);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, LCF_T_REMOVE_FROM_SWITCH);
	cr_assert_eq(out.m[0].dst, 0, "to itself, across the switch");
	cr_assert_eq(h.blk[5].owner, NA_OWN_REMOVING);
	feed(ack(5, out.m[0].msg.seq, LCF_T_REMOVE_FROM_SWITCH, false));
	cr_assert_eq(h.blk[5].owner, NA_OWN_HOME);
	cr_assert_eq(h.blk[5].gs, LCF_GS_SHARED, "the switch's metadata");
	cr_assert_eq(h.blk[5].cs, 3);
}

/* A retransmitted REMOVE that misses: its first copy's ACK was lost. */
Test(migrate_home, remove_miss_while_removing_asks_for_recovery)
{
	struct lcf_msg r = both_switch_owned(), miss;

	na_out_reset(&out);
	cr_assert_not(na_migrate_handle(&mg, &h, &r, 70 * MS, &io));
	miss = out.m[0].msg; /* back as a tag miss: confirmed first */
	na_out_reset(&out);
	cr_assert_not(na_migrate_handle(&mg, &h, &miss, 71 * MS, &io));
	miss = out.m[0].msg; /* the confirming copy, back as a tag miss */
	cr_assert(na_migrate_handle(&mg, &h, &miss, 71 * MS, &io));
	cr_assert_eq(mg.st.remove_missed, 1);
	h.blk[5].owner = NA_OWN_RECOVERING; /* what the caller does */
	cr_assert_not(na_migrate_handle(&mg, &h, &miss, 72 * MS, &io), "once");
	tick(73 * MS);
	cr_assert_eq(mg.n_pend, 0, "the ADDs and the REMOVE settled");
	cr_assert_eq(mg.st.remove_ok, 0);
}

/*
 * Issue 28 (test-migration hang, lib/model/migorphan.pml): a late tag miss
 * and a late ACK of a REMOVE sent before the block's current removal are
 * not its answers: taken for them, the round ran while a re-ADD held the
 * block in the switch, and the writer holding its lock gave its event up
 * with no unlock (the lock never released, every REMOVE NACKed).
 */
Test(migrate_home, earlier_remove_answers_do_not_count)
{
	struct lcf_msg r = both_switch_owned(), old, cur;

	na_out_reset(&out);
	na_migrate_handle(&mg, &h, &r, 70 * MS, &io);
	old = out.m[0].msg; /* the first removal's copy */
	feed(ack(5, old.seq, LCF_T_REMOVE_FROM_SWITCH, false));
	cr_assert_eq(h.blk[5].owner, NA_OWN_HOME);
	h.blk[5].owner = NA_OWN_SWITCH; /* ADDed again */
	na_out_reset(&out);
	na_migrate_handle(&mg, &h, &r, 80 * MS, &io);
	cur = out.m[0].msg;
	cr_assert_eq(h.blk[5].owner, NA_OWN_REMOVING);
	cr_assert_not(na_migrate_handle(&mg, &h, &old, 81 * MS, &io),
		      "an earlier REMOVE's tag miss: no recovery");
	cr_assert_eq(mg.st.remove_stale, 1);
	feed(ack(5, old.seq, LCF_T_REMOVE_FROM_SWITCH, false));
	cr_assert_eq(h.blk[5].owner, NA_OWN_REMOVING, "an earlier ACK");
	na_out_reset(&out);
	cr_assert_not(na_migrate_handle(&mg, &h, &cur, 82 * MS, &io),
		      "its own copy's tag miss: confirmed first");
	cur = out.m[0].msg;
	cr_assert(na_migrate_handle(&mg, &h, &cur, 82 * MS, &io),
		  "the confirming copy's tag miss");
	cr_assert_eq(mg.st.remove_missed, 1);
	feed(ack(5, cur.seq, LCF_T_REMOVE_FROM_SWITCH, false));
	cr_assert_eq(h.blk[5].owner, NA_OWN_HOME, "its own ACK");
}

/*
 * Issue 28 (test-migration --faults hang, lib/model/migpass.pml): an ADD
 * is two passes and its second re-enters behind the frames received with
 * it, so a REMOVE that reached the switch with a settled ADD misses and the
 * ADD then installs the block. Taken as proof, that miss sent the block
 * into a round while the switch held it: two owners, the switch's copyset
 * no longer the caches' (a WRITE_MISS waited for ever for the data of a
 * provider with no copy). Only the miss of a REMOVE sent after a miss of
 * the removal proves it; copies sent before do not, and that REMOVE's
 * MIGRATE_ACK (the ADD installed it) brings the block home.
 */
Test(migrate_home, a_remove_miss_before_an_answer_is_confirmed)
{
	struct lcf_msg r = both_switch_owned(), first, second, conf;

	na_out_reset(&out);
	na_migrate_handle(&mg, &h, &r, 70 * MS, &io);
	first = out.m[0].msg;
	second = first;
	second.seq = ++mg.seq; /* a retransmission sent before any answer */
	na_out_reset(&out);
	cr_assert_not(na_migrate_handle(&mg, &h, &first, 71 * MS, &io),
		      "a miss before any answer: no recovery");
	cr_assert_eq(out.n, 1, "a confirming REMOVE at once");
	conf = out.m[0].msg;
	cr_assert_eq(conf.type, LCF_T_REMOVE_FROM_SWITCH);
	cr_assert(lcf_seq_after(conf.seq, second.seq));
	cr_assert_eq(mg.st.remove_confirms, 1);
	na_out_reset(&out);
	cr_assert_not(na_migrate_handle(&mg, &h, &second, 71 * MS, &io),
		      "a copy sent before the answer: no proof either");
	cr_assert_eq(out.n, 0, "one confirming copy (the timer re-sends)");
	cr_assert_eq(mg.st.remove_missed, 0);
	cr_assert_eq(h.blk[5].owner, NA_OWN_REMOVING);
	/* The ADD's second pass installed it: the confirming copy finds it. */
	feed(ack(5, conf.seq, LCF_T_REMOVE_FROM_SWITCH, false));
	cr_assert_eq(h.blk[5].owner, NA_OWN_HOME,
		     "home, the switch's metadata");
	cr_assert_eq(mg.st.remove_missed, 0);
}

/* An earlier removal's tag miss while a settle's hold has sent no REMOVE
 * of its own: not an answer, and no REMOVE goes out in the hold. */
Test(migrate_home, a_remove_miss_in_a_settles_hold_is_stale)
{
	struct lcf_msg r = both_switch_owned(), miss;

	na_out_reset(&out);
	na_migrate_handle(&mg, &h, &r, 70 * MS, &io);
	miss = out.m[0].msg;
	feed(ack(5, miss.seq, LCF_T_REMOVE_FROM_SWITCH, false));
	cr_assert_eq(h.blk[5].owner, NA_OWN_HOME);
	na_home_migrate_settle(&h, &h.blk[5], 80 * MS); /* a later ADD's */
	na_out_reset(&out);
	cr_assert_not(na_migrate_handle(&mg, &h, &miss, 81 * MS, &io));
	cr_assert_eq(out.n, 0, "no REMOVE in the hold");
	cr_assert_eq(mg.st.remove_stale, 1);
	cr_assert_eq(mg.st.remove_confirms, 0);
}

/* ---- shadow ------------------------------------------------------------- */

static struct na_shadow s;

static void
shadow_setup(void)
{
	char err[TOPO_ERR_LEN];

	cr_assert_eq(topo_load_string(topo1, &t, err), 0, "%s", err);
	cr_assert_eq(na_shadow_init(&s, &t, 1), 0);
	cr_assert_eq(s.capacity, 1);
}

static void
shadow_teardown(void)
{
	na_shadow_fini(&s);
}

static void
report(uint64_t tag, uint32_t count)
{
	uint8_t p[12];
	struct lcf_msg m = { .type = NA_MSG_HOT_REPORT, .len = 12, .aux = 1 };

	for (int k = 0; k < 8; k++)
		p[k] = (uint8_t)(tag >> (56 - 8 * k));
	for (int k = 0; k < 4; k++)
		p[8 + k] = (uint8_t)(count >> (24 - 8 * k));
	na_shadow_report(&s, &m, p, sizeof(p));
}

TestSuite(shadow, .init = shadow_setup, .fini = shadow_teardown);

Test(shadow, collision_evicts_a_colder_block_only)
{
	uint64_t old_tag = 0x10;
	struct lcf_msg m = { .type = LCF_T_MIGRATE_ACK,
			     .tag = old_tag,
			     .aux = (uint32_t)LCF_T_ADD_TO_SWITCH << 24 };
	struct lcf_msg coll = { .type = NA_MSG_COLLISION,
				.node = 0,
				.tag = 0x20 };

	na_shadow_migrate_ack(&s, &m);
	cr_assert_eq(s.n_tags, 1);
	for (int e = 0; e < 4; e++) { /* 4 copies per epoch */
		report(old_tag, 4);
		na_out_reset(&out);
		na_shadow_epoch(&s, &out);
	}
	coll.aux = 6; /* hotness 3 copies/epoch: not 2x hotter */
	na_out_reset(&out);
	na_shadow_collision(&s, &coll, &out);
	cr_assert_eq(out.n, 0);
	coll.aux = 40;
	na_shadow_collision(&s, &coll, &out);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_REMOVE_REQ);
	cr_assert_eq(out.m[0].msg.tag, old_tag);
	cr_assert_eq(out.m[0].dst, 0, "to the block's home");
	m.aux = (uint32_t)LCF_T_REMOVE_FROM_SWITCH << 24;
	na_shadow_migrate_ack(&s, &m);
	cr_assert_eq(s.n_tags, 0);
	cr_assert_eq(s.peak_tags, 1);
}

Test(shadow, young_blocks_are_not_evicted)
{
	struct lcf_msg m = { .type = LCF_T_MIGRATE_ACK,
			     .tag = 0x10,
			     .aux = (uint32_t)LCF_T_ADD_TO_SWITCH << 24 };
	struct lcf_msg coll = { .type = NA_MSG_COLLISION,
				.tag = 0x20,
				.aux = 1000 };

	na_shadow_migrate_ack(&s, &m);
	na_out_reset(&out);
	na_shadow_collision(&s, &coll, &out);
	cr_assert_eq(out.n, 0, "its hotness was not reported yet");
}
