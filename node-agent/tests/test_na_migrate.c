/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Dynamic migration: the home's epoch top-k with drain (no quiet period),
 * ADD copy accounting, REMOVE on the shadow's request; the shadow's
 * SHADOW-TAG mirror and its collision decision.
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

Test(migrate_home, collision_only_when_every_copy_failed)
{
	struct lcf_msg add = migrate_hottest();

	tick(60 * MS); /* no ACK: retransmission */
	cr_assert_eq(out.n, 2);
	cr_assert_eq(out_for(5)->msg.seq, add.seq + 1, "copy 1: its own seq");
	/* copy 0 failed, twice (the shadow node gets ACK and mirror) */
	feed(ack(5, add.seq, LCF_T_ADD_TO_SWITCH, true));
	feed(ack(5, add.seq, LCF_T_ADD_TO_SWITCH, true));
	cr_assert_eq(h.blk[5].owner, NA_OWN_MIGRATING, "copy 1 may succeed");
	feed(ack(5, add.seq - NA_ADD_COPY_SEQS, LCF_T_ADD_TO_SWITCH, true));
	cr_assert_eq(h.blk[5].owner, NA_OWN_MIGRATING, "late ack: ignored");
	feed(ack(5, add.seq + 1, LCF_T_ADD_TO_SWITCH, true));
	cr_assert_eq(h.blk[5].owner, NA_OWN_MIGRATING, "the hold");
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
 * Copy 0's FAIL is lost: the other copies' FAILs do not conclude (copy 0
 * may be late, not failed); the next set of copies does.
 */
Test(migrate_home, lost_fail_is_settled_by_the_next_set)
{
	struct lcf_msg add = migrate_hottest();
	uint32_t next;

	for (uint64_t ms = 100; ms <= 700; ms += 100)
		tick(ms * MS); /* copies 1..7 */
	for (uint32_t i = 1; i < NA_ADD_COPY_SEQS; i++)
		feed(ack(5, add.seq + i, LCF_T_ADD_TO_SWITCH, true));
	cr_assert_eq(h.blk[5].owner, NA_OWN_MIGRATING, "copy 0 unanswered");
	tick(800 * MS); /* a new set */
	next = out_for(5)->msg.seq;
	cr_assert_geq(next - add.seq, NA_ADD_COPY_SEQS);
	feed(ack(5, add.seq, LCF_T_ADD_TO_SWITCH, true));
	cr_assert_eq(h.blk[5].owner, NA_OWN_MIGRATING, "old set: ignored");
	feed(ack(5, next, LCF_T_ADD_TO_SWITCH, true));
	tick(801 * MS); /* the new set failed: the hold */
	cr_assert_eq(h.blk[5].owner, NA_OWN_MIGRATING);
	tick(802 * MS + NA_ADD_HOLD_NS);
	cr_assert_eq(h.blk[5].owner, NA_OWN_HOME);
}

/* An unanswered ADD is re-sent for as long as it takes, never dropped. */
Test(migrate_home, unanswered_add_is_never_given_up)
{
	struct lcf_msg add = migrate_hottest();
	uint32_t last;

	for (uint64_t ms = 100; ms <= 5000; ms += 100)
		tick(ms * MS);
	cr_assert_eq(h.blk[5].owner, NA_OWN_MIGRATING);
	cr_assert(h.blk[5].writer, "still locked at home");
	cr_assert_eq(mg.st.add_slow, 2, "blocks 5 and 7, once each");
	cr_assert_gt(mg.st.add_retransmits, 80, "one per tick and block");
	tick(5100 * MS);
	last = out_for(5)->msg.seq;
	cr_assert_geq(last - add.seq, NA_ADD_COPY_SEQS, "a new set of ids");
	feed(ack(5, add.seq + 1, LCF_T_ADD_TO_SWITCH, true));
	cr_assert_eq(h.blk[5].owner, NA_OWN_MIGRATING,
		     "a FAIL of an exhausted set: ignored");
	feed(ack(5, add.seq + 1, LCF_T_ADD_TO_SWITCH, false));
	cr_assert_eq(h.blk[5].owner, NA_OWN_SWITCH,
		     "an exhausted set's copy installed it");
	feed(ack(5, last, LCF_T_ADD_TO_SWITCH, false));
	cr_assert_eq(h.blk[5].owner, NA_OWN_SWITCH);
	cr_assert_eq(h.st.migrate_late_ok, 0);
	cr_assert_eq(h.st.migrate_ok, 1);
}

Test(migrate_home, remove_on_the_shadows_request)
{
	struct lcf_msg add = migrate_hottest(), r;

	feed(ack(5, add.seq, LCF_T_ADD_TO_SWITCH, false));
	r = (struct lcf_msg){ .version = 1,
			      .type = NA_MSG_REMOVE_REQ,
			      .node = 1,
			      .tag = na_home_tag(&h, 5) };
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
	struct lcf_msg add = migrate_hottest(), r, miss;

	feed(ack(5, add.seq, LCF_T_ADD_TO_SWITCH, false));
	r = (struct lcf_msg){ .version = 1,
			      .type = NA_MSG_REMOVE_REQ,
			      .node = 1,
			      .tag = na_home_tag(&h, 5) };
	na_out_reset(&out);
	cr_assert_not(na_migrate_handle(&mg, &h, &r, 70 * MS, &io));
	miss = out.m[0].msg; /* back as a tag miss */
	cr_assert(na_migrate_handle(&mg, &h, &miss, 71 * MS, &io));
	cr_assert_eq(mg.st.remove_missed, 1);
	h.blk[5].owner = NA_OWN_RECOVERING; /* what the caller does */
	cr_assert_not(na_migrate_handle(&mg, &h, &miss, 72 * MS, &io), "once");
	tick(73 * MS);
	cr_assert_eq(mg.n_pend, 1, "block 7's ADD; the REMOVE is settled");
	cr_assert_eq(mg.st.remove_ok, 0);
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
