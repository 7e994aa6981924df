/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Region locks (dsm_wlock_region, dsm_rlock_region, dsm_unlock_region,
 * dsm_evict_region) over the simulated cluster: the real libdsm, agents and
 * switch pipeline built with NA_SIM (docs/SIMULATION.md), with loss and
 * duplication. All nodes live in this process, so mutual exclusion is
 * checked directly: a counter per block of the threads inside a critical
 * section that covers it. Also the ABORT quarantine of a NACKed event on
 * the same cluster (its timing is the virtual clock's), a local wait
 * that ends one, a stopped node's wait for its own ending tenure
 * (queued mode) and a round's end of that wait, and the ABORT of an
 * event a recovery round made the thread give up, of one that ended with
 * neither an unlock nor an ABORT before the thread's next seq, and of one
 * whose "a copy passed" a later round voided. Over 500 lines: these tests
 * share the cluster setup.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "na_msg.h"
#include "na_recovery.h"
#include "na_req_queued.h"
#include "na_requester.h"
#include "na_sim_net.h"
#include "na_sim_sched.h"
#include "na_transport_sim.h"

#define NODES   3
#define THREADS 2
#define BS      4096u
#define BLOCKS  5 /* the shared blocks the regions overlap on */

static const char *lock_mode = "retry"; /* the next cluster_up's */

static struct {
	struct topo topo;
	struct na_sim_net *net;
	struct dsm *d[NODES];
	volatile int closing;
	volatile int done;
	uint32_t running;
	/* the mutual-exclusion check */
	int writers[BLOCKS], readers[BLOCKS];
	uint64_t incrs[BLOCKS];
	uint32_t violations;
	int errors;
} s;

static void
tick(void *ctx, void *arg)
{
	struct dsm *d = ctx;

	(void)arg;
	if (s.closing)
		return;
	na_node_timers(&d->node);
	na_sim_at(na_now_ns() + 1000000ull, tick, d, NULL);
}

/* A cluster of NODES nodes; `switch_blocks` of each home's first blocks
 * moved to the switch at start (0: every block served by its home). */
static void
cluster_up(double loss)
{
	char json[2048], err[256];
	int len;

	memset(&s, 0, sizeof(s));
	len = snprintf(json, sizeof(json),
		       "{\"lcf_port\":7340,\"block_size\":%u,"
		       "\"threads_per_node\":%u,\"switch\":{\"mac\":"
		       "\"02:00:00:00:00:fe\",\"ip\":\"10.0.0.254\","
		       "\"profile\":\"tiny\",\"ways\":2,\"slots_per_way\":64,"
		       "\"lock_mode\":\"%s\"},\"nodes\":[",
		       BS, (unsigned int)THREADS, lock_mode);
	for (int i = 0; i < NODES; i++)
		len += snprintf(json + len, sizeof(json) - (size_t)len,
				"%s{\"id\":%d,\"mac\":\"02:00:00:00:00:%02x\","
				"\"ip\":\"10.0.0.%d\",\"port\":%d}",
				i ? "," : "", i, i + 1, i + 1, i);
	snprintf(json + len, sizeof(json) - (size_t)len, "],\"shadow\":%d}",
		 NODES - 1);
	cr_assert_eq(topo_load_string(json, &s.topo, err), 0, "%s", err);
	cr_assert_eq(na_sim_init(), 0);
	struct na_sim_net_config nc = {
		.topo = &s.topo,
		.seed = 7,
		.loss = loss,
		.dup = loss,
		.delay_ns = 2000,
		.jitter_ns = 4000,
	};
	cr_assert_eq(na_sim_net_create(&nc, &s.net), 0);
	na_transport_sim_bind(s.net);
	for (int i = 0; i < NODES; i++) {
		struct dsm_config dc = {
			.node = (uint16_t)i,
			.threads = THREADS,
			.cache_blocks = 64,
			.mem_mb = 64,
			.seed = 7,
		};

		cr_assert_eq(na_dsm_open(&dc, &s.topo, &na_transport_sim, true,
					 &s.d[i], err, sizeof(err)),
			     0, "%s", err);
		na_sim_net_attach(s.net, (uint16_t)i, &s.d[i]->node);
		na_sim_at(1000000ull, tick, s.d[i], NULL);
	}
}

static void *
close_all(void *arg)
{
	(void)arg;
	for (int i = 0; i < NODES; i++)
		dsm_close(s.d[i]);
	return NULL;
}

static void
cluster_down(void)
{
	na_thread_t t;

	s.closing = 1;
	for (int i = 0; i < NODES; i++)
		na_sim_net_attach(s.net, (uint16_t)i, NULL);
	cr_assert_eq(na_sim_spawn(&t, close_all, NULL), 0);
	na_sim_run(0, NULL);
	na_sim_net_free(s.net);
	na_sim_fini();
}

/* Run coroutines fn(arg[i]) to completion (at most `max` events). */
static void
run_all(void *(*fn)(void *), void **args, int n, uint64_t max)
{
	na_thread_t t;
	uint64_t taken = 0;

	s.running = (uint32_t)n;
	s.done = 0;
	for (int i = 0; i < n; i++)
		cr_assert_eq(na_sim_spawn(&t, fn, args[i]), 0);
	while (!s.done && taken < max)
		taken += na_sim_run(20000, &s.done);
	cr_assert(s.done, "coroutines stuck after %lu events",
		  (unsigned long)taken);
}

static void
finished(void)
{
	if (--s.running == 0)
		s.done = 1;
}

static uint64_t
sent_total(const struct dsm *d)
{
	uint64_t n = 0;

	for (int i = 0; i < 256; i++)
		n += d->node.st.sent[i];
	return n;
}

/* The shared blocks: node 0's static region, blocks 2 .. 2+BLOCKS-1. */
static dsm_addr_t
blk(int i)
{
	return dsm_static_addr(0, (uint64_t)(2 + i) * BS);
}

/* ---- bad input --------------------------------------------------------- */

static void *
bad_input(void *arg)
{
	struct dsm_thread *t = dsm_thread(s.d[1], 0);
	dsm_addr_t a = blk(0);
	dsm_addr_t top = dsm_static_addr(0, (1ull << 48) - BS);

	(void)arg;
	cr_expect_eq(dsm_wlock_region(t, a, 0), -EINVAL, "size 0");
	cr_expect_eq(dsm_rlock_region(t, a, 0), -EINVAL, "size 0");
	cr_expect_eq(dsm_wlock_region(t, a + 8, BS), -EINVAL, "addr");
	cr_expect_eq(dsm_wlock_region(t, a, BS + 8), -EINVAL, "size");
	cr_expect_eq(dsm_rlock_region(t, a, 100), -EINVAL, "size");
	cr_expect_eq(dsm_wlock_region(t, top, 2 * BS), -EINVAL, "past 2^48");
	cr_expect_eq(dsm_wlock_region(t, a, SIZE_MAX - BS + 1), -EINVAL,
		     "wraps");
	cr_expect_eq(dsm_wlock_region(t, dsm_static_addr(9, 0), BS), -EINVAL,
		     "no node 9");
	cr_expect_eq(dsm_wlock_region(t, a, (DSM_REGION_MAX_BLOCKS + 1) * BS),
		     -E2BIG);
	cr_expect_eq(dsm_unlock_region(t, a, 0), -EINVAL);
	cr_expect_eq(dsm_unlock_region(t, a, BS), -ENOENT, "not held");
	cr_expect_eq(dsm_evict_region(t, a, 0), -EINVAL);
	/* nothing was sent for any of them */
	cr_expect_eq(sent_total(s.d[1]), 0);
	finished();
	return NULL;
}

Test(region, bad_input)
{
	void *args[1] = { NULL };

	cluster_up(0);
	run_all(bad_input, args, 1, 1000000);
	cluster_down();
}

/* ---- one event per block, none on a warm re-acquire -------------------- */

static void *
warm(void *arg)
{
	struct dsm_thread *t = dsm_thread(s.d[1], 0);
	const struct na_stats *st = &s.d[1]->node.st;
	dsm_addr_t a = blk(0);
	uint64_t wm, rm, ws, before;
	uint8_t buf[3 * BS];

	(void)arg;
	memset(buf, 0x5a, sizeof(buf));
	/* another node writes the data first: ours must come with the lock */
	cr_assert_eq(dsm_write(dsm_thread(s.d[2], 0), a, buf, sizeof(buf)), 0);
	dsm_sync(dsm_thread(s.d[2], 0));
	wm = st->sent[LCF_T_WRITE_MISS];
	rm = st->sent[LCF_T_READ_MISS];
	ws = st->sent[LCF_T_WRITE_SHARED];
	cr_assert_eq(dsm_wlock_region(t, a, 3 * BS), 0);
	/* cold: one WRITE_MISS per block (no retransmission without loss),
	 * no separate fetch */
	cr_expect_eq(st->sent[LCF_T_WRITE_MISS] - wm, 3);
	cr_expect_eq(st->sent[LCF_T_READ_MISS] - rm, 0);
	cr_expect_eq(st->sent[LCF_T_WRITE_SHARED] - ws, 0);
	memset(buf, 0, sizeof(buf));
	before = sent_total(s.d[1]);
	cr_assert_eq(dsm_read(t, a, buf, sizeof(buf)), 0);
	cr_expect_eq(buf[0], 0x5a);
	cr_expect_eq(buf[3 * BS - 1], 0x5a);
	cr_expect_eq(sent_total(s.d[1]), before, "data came with the lock");
	cr_assert_eq(dsm_unlock_region(t, a, 3 * BS), 0);
	dsm_sync(t);
	for (int i = 0; i < 3; i++) {
		before = sent_total(s.d[1]);
		cr_assert_eq(dsm_wlock_region(t, a, 3 * BS), 0);
		cr_assert_eq(dsm_write(t, a + 8, &i, sizeof(i)), 0);
		cr_assert_eq(dsm_unlock_region(t, a, 3 * BS), 0);
		cr_assert_eq(dsm_rlock_region(t, a, 3 * BS), 0);
		cr_assert_eq(dsm_unlock_region(t, a, 3 * BS), 0);
		cr_expect_eq(sent_total(s.d[1]), before,
			     "warm re-acquire %d sent packets", i);
	}
	/* the other thread of the node re-acquires locally too */
	before = sent_total(s.d[1]);
	cr_assert_eq(dsm_rlock_region(dsm_thread(s.d[1], 1), a, 3 * BS), 0);
	cr_assert_eq(dsm_unlock_region(dsm_thread(s.d[1], 1), a, 3 * BS), 0);
	cr_expect_eq(sent_total(s.d[1]), before);
	/* evicted: the next acquire is a coherence event again */
	cr_assert_eq(dsm_evict_region(t, a, 3 * BS), 0);
	wm = st->sent[LCF_T_WRITE_MISS];
	cr_assert_eq(dsm_wlock_region(t, a, BS), 0);
	cr_expect_eq(dsm_evict_region(t, a, BS), -EBUSY, "pinned");
	cr_expect_eq(st->sent[LCF_T_WRITE_MISS] - wm, 1);
	cr_assert_eq(dsm_unlock_region(t, a, BS), 0);
	dsm_sync(t);
	finished();
	return NULL;
}

Test(region, one_event_per_block_and_warm_reacquire_is_local)
{
	void *args[1] = { NULL };

	cluster_up(0);
	run_all(warm, args, 1, 5000000);
	cluster_down();
}

/* ---- mutual exclusion of overlapping regions across nodes -------------- */

struct worker {
	int node, thread, iters;
	bool reader;
};

static void *
contend(void *arg)
{
	struct worker *w = arg;
	struct dsm_thread *t = dsm_thread(s.d[w->node], (uint16_t)w->thread);
	int k = w->node * THREADS + w->thread;
	int first = k % (BLOCKS - 2), n = 3; /* regions overlap */

	for (int it = 0; it < w->iters; it++) {
		int rc = w->reader ? dsm_rlock_region(t, blk(first), n * BS)
				   : dsm_wlock_region(t, blk(first), n * BS);

		if (rc != 0) {
			s.errors++;
			break;
		}
		for (int b = first; b < first + n; b++) {
			if (w->reader)
				s.readers[b]++;
			else
				s.writers[b]++;
			if (s.writers[b] > 1 || (s.writers[b] && s.readers[b]))
				s.violations++;
		}
		for (int b = first; b < first + n && !w->reader; b++) {
			uint64_t c;

			if (dsm_read(t, blk(b), &c, sizeof(c)) != 0 ||
			    dsm_write(t, blk(b), &(uint64_t){ c + 1 },
				      sizeof(c)) != 0)
				s.errors++;
			s.incrs[b]++;
		}
		/* hold it a while: others' requests meet the lock */
		na_sleep_until(na_now_ns() + 20000);
		for (int b = first; b < first + n; b++) {
			if (w->reader)
				s.readers[b]--;
			else
				s.writers[b]--;
		}
		if (dsm_unlock_region(t, blk(first), n * BS) != 0)
			s.errors++;
	}
	dsm_sync(t);
	finished();
	return NULL;
}

static void *
read_counters(void *arg)
{
	uint64_t *out = arg;

	for (int b = 0; b < BLOCKS; b++)
		if (dsm_read(dsm_thread(s.d[0], 0), blk(b), &out[b],
			     sizeof(out[b])) != 0)
			s.errors++;
	finished();
	return NULL;
}

static void *
migrate(void *arg)
{
	uint32_t *moved = arg;

	/* node 0's first 8 static blocks (the shared ones among them) */
	*moved = na_node_migrate_static(&s.d[0]->node, 8);
	finished();
	return NULL;
}

static void
exclusion(double loss, bool readers, bool in_switch)
{
	struct worker w[NODES * THREADS];
	void *args[NODES * THREADS];
	uint64_t got[BLOCKS] = { 0 };
	void *rargs[1] = { got };
	uint32_t moved = 0;
	void *margs[1] = { &moved };

	cluster_up(loss);
	if (in_switch) {
		run_all(migrate, margs, 1, 5000000);
		cr_assert_gt(moved, 0, "no block moved to the switch");
	}
	for (int i = 0; i < NODES * THREADS; i++) {
		w[i] = (struct worker){ .node = i / THREADS,
					.thread = i % THREADS,
					.iters = 40,
					.reader = readers && i % 3 == 2 };
		args[i] = &w[i];
	}
	run_all(contend, args, NODES * THREADS, 50000000);
	cr_expect_eq(s.violations, 0, "%u mutual-exclusion violations",
		     s.violations);
	cr_expect_eq(s.errors, 0);
	if (in_switch)
		cr_expect_gt(lcf_pipeline_counters(na_sim_net_pipeline(s.net))
				     ->action[LCF_A_UNLOCK_EXEC],
			     0, "no event serialised by the switch");
	run_all(read_counters, rargs, 1, 5000000);
	for (int b = 0; b < BLOCKS; b++)
		cr_expect_eq(got[b], s.incrs[b],
			     "block %d: counter %lu, %lu increments", b,
			     (unsigned long)got[b], (unsigned long)s.incrs[b]);
	cluster_down();
}

Test(region, overlapping_writers_exclude_each_other)
{
	exclusion(0, false, false);
}

Test(region, overlapping_writers_and_readers_under_loss)
{
	exclusion(0.02, true, false);
}

Test(region, overlapping_regions_of_switch_owned_blocks_under_loss)
{
	exclusion(0.02, true, true);
}

/* ---- the ABORT quarantine of a NACKed event ---------------------------- */

static uint64_t quarantine_ns;

/*
 * Node 2's event holds block 0's write lock at the home; node 1's
 * WRITE_MISS is NACKed and abandoned (t->stale). Before its next seq the
 * thread ABORTs it: the home answers at once (no copy holds the lock), and
 * the quarantine must end on that answer, not sleep out its 3-RTT timeout
 * (at least 3 x NA_RTT_FLOOR_NS).
 */
static void *
abandoned(void *arg)
{
	struct dsm_thread *h = dsm_thread(s.d[2], 0);
	struct dsm_thread *t = dsm_thread(s.d[1], 0);
	uint64_t tag = blk(0) >> s.d[1]->topo.block_shift, t0;
	struct na_retry hr, rt;
	struct na_collect hc, c;

	(void)arg;
	memset(&hr, 0, sizeof(hr));
	memset(&rt, 0, sizeof(rt));
	cr_assert_eq(na_req_event(h, LCF_T_WRITE_MISS, tag, &hc, &hr),
		     NA_EV_OK);
	cr_assert_eq(na_req_event(t, LCF_T_WRITE_MISS, tag, &c, &rt),
		     NA_EV_NACK);
	cr_assert(t->stale.valid, "the NACKed event is abandoned");
	t0 = na_now_ns();
	na_req_end_stale(t);
	quarantine_ns = na_now_ns() - t0;
	cr_expect(!t->stale.valid);
	cr_expect_eq(t->n->st.req.aborts_done, 1);
	/* memory is the block's value (it was Unshared): nothing cached */
	na_req_send_unlock(h, LCF_T_WRITE_UNLOCK, hr.seq, tag, LCF_GS_UNSHARED,
			   0, NA_REC_DONE);
	na_req_flush(h);
	finished();
	return NULL;
}

Test(region, abort_quarantine_ends_on_its_answer)
{
	void *args[1] = { NULL };

	cluster_up(0);
	run_all(abandoned, args, 1, 5000000);
	cr_expect_lt(quarantine_ns, NA_RTT_FLOOR_NS,
		     "quarantine took %lu ns (slept to its timeout)",
		     (unsigned long)quarantine_ns);
	cluster_down();
}

/* ---- a local wait ends the thread's abandoned request ----------------- */

static volatile int evicting;

static void *
lw_evictor(void *arg)
{
	struct dsm_thread *t = dsm_thread(s.d[1], 1);

	(void)arg;
	while (!evicting)
		na_req_backoff(t, 0);
	evicting = 2;
	cr_assert_eq(dsm_evict_region(t, blk(0), BS), 0);
	finished();
	return NULL;
}

/*
 * lib/model/rlocal.pml at the home: node 1's thread 0 holds block 0 Shared;
 * its WRITE_SHARED is NACKed (node 2 holds a read lock), and a network
 * duplicate of it (sent here by hand) takes the write lock once the read
 * ends. Thread 1 evicts the block (lw_evictor): the entry busy,
 * EVICT_SHARED refused while that lock holds. Thread 0 then writes the
 * block, finds the entry busy and ends its abandoned seq (the duplicate's
 * replies, its unlock) before it waits; waiting with it, neither thread
 * would finish.
 */
static void *
lw_writer(void *arg)
{
	struct dsm_thread *h = dsm_thread(s.d[2], 0);
	struct dsm_thread *t = dsm_thread(s.d[1], 0);
	uint64_t tag = blk(0) >> s.d[1]->topo.block_shift, v = 0;
	struct na_retry hr = { 0 }, rt = { 0 };
	struct na_collect hc, c;
	struct lcf_msg m;
	uint32_t cs;
	uint8_t gs;

	if (arg)
		return lw_evictor(arg);
	cr_assert_eq(dsm_read(t, blk(0), &v, sizeof(v)), 0);
	cr_assert_eq(na_req_event(h, LCF_T_READ_MISS, tag, &hc, &hr), NA_EV_OK);
	cr_assert_eq(na_req_event(t, LCF_T_WRITE_SHARED, tag, &c, &rt),
		     NA_EV_NACK);
	na_unlock_meta(LCF_T_READ_MISS, hc.gs_old, hc.cs_old, 2, &gs, &cs);
	na_req_send_unlock(h, LCF_T_READ_UNLOCK, hr.seq, tag, gs, cs,
			   NA_REC_DONE);
	na_req_flush(h);
	na_req_msg(t, &m, LCF_T_WRITE_SHARED, rt.seq, tag,
		   na_req_home_of(t, tag));
	na_node_send(t->n, m.dst_node, &m, NULL);
	evicting = 1;
	while (evicting != 2 || t->n->st.req.nacks < 2)
		na_req_backoff(t, 0); /* the eviction is refused */
	v = 42;
	cr_assert_eq(dsm_write(t, blk(0), &v, sizeof(v)), 0);
	cr_expect_eq(t->n->st.req.aborts_before_wait, 1);
	/* the duplicate's grant, released by the thread itself */
	cr_expect_eq(t->n->st.req.stale_grants_released, 1);
	finished();
	return NULL;
}

Test(region, local_wait_ends_the_abandoned_request)
{
	void *args[2] = { NULL, &s };

	cluster_up(0);
	evicting = 0;
	run_all(lw_writer, args, 2, 3000000);
	cluster_down();
}

/* One thread's `fn` on a lossless cluster in queued lock mode. */
static void
run_queued_one(void *(*fn)(void *))
{
	void *args[1] = { NULL };

	lock_mode = "queued";
	cluster_up(0);
	lock_mode = "retry";
	run_all(fn, args, 1, 1000000);
	cluster_down();
}

/* ---- a stopped node's thread gives up a tenure that never ends ----------- */

/*
 * Queued mode: node 1 crashes (na-sim's --crash-node: its frames dropped,
 * dsm_stop) while thread 0's tenure on the block is ending (its QRELEASE
 * out, never answered). The thread's next event on the block waits for
 * that tenure to end (-EBUSY), as long as a live node's would; stopped, it
 * gives up after NA_GIVE_UP_NS like every other wait (na-sim restart
 * sweep 70: the old incarnation's thread waited for ever).
 */
static void *
stopped_begin(void *arg)
{
	struct dsm_thread *t = dsm_thread(s.d[1], 0);
	struct na_qtable *qt = t->n->qt;
	uint64_t tag = blk(0) >> s.d[1]->topo.block_shift, t0;
	struct na_qlocals loc = { 0 };
	struct na_out out;
	struct na_reqq q;
	struct lcf_msg m;

	(void)arg;
	cr_assert_not_null(qt);
	na_out_reset(&out);
	cr_assert_eq(na_qtable_request(qt, tag, 0, 9, na_now_ns(), &out, &loc),
		     0);
	cr_assert_eq(na_qtable_switch_granted(qt, tag, 0, 9), 0);
	cr_assert_eq(na_qtable_done(qt, tag, 0, 9, LCF_GS_UNSHARED, 0,
				    na_now_ns(), &out, &loc),
		     0);
	na_sim_net_crash(s.net, 1);
	dsm_stop(s.d[1]);
	na_req_msg(t, &m, LCF_T_WRITE_MISS, 11, tag, na_req_home_of(t, tag));
	t0 = na_now_ns();
	na_reqq_begin(t, &q, &m);
	cr_expect_not(q.on, "no holder slot: the tenure never ended");
	cr_expect_geq(na_now_ns() - t0, NA_GIVE_UP_NS);
	cr_expect_gt(t->n->st.req.q_busy_waits, 0);
	finished();
	return NULL;
}

Test(region, stopped_thread_gives_up_a_tenure_that_never_ends)
{
	run_queued_one(stopped_begin);
}

/*
 * lib/model/qrejoin.pml ROUND: thread 0's tenure on the block is ending
 * (its QRELEASE out, never answered: node 1's frames are dropped) and the
 * thread's next event on the block has begun (na_rec_sent: inside it)
 * when a recovery round of the block's home takes the block. The report
 * waits for the thread to leave; the tenure may end only by that report
 * (na-sim restart harsh sweep 93 run 120: its QXFER refused until the
 * home's round was over). The event leaves (nothing sent) and the report
 * resets the ending row.
 */
static void *
round_begin(void *arg)
{
	struct dsm_thread *t = dsm_thread(s.d[1], 0);
	struct na_qtable *qt = t->n->qt;
	uint64_t tag = blk(0) >> s.d[1]->topo.block_shift, t0;
	struct na_qlocals loc = { 0 };
	uint8_t tags[8];
	struct na_out out;
	struct na_reqq q;
	struct lcf_msg m = { .version = LCF_VERSION,
			     .type = NA_MSG_REC_BEGIN,
			     .node = 0, /* the block's home */
			     .seq = 1,
			     .len = sizeof(tags) };
	bool begun;
	int n;

	(void)arg;
	cr_assert_not_null(qt);
	na_out_reset(&out);
	cr_assert_eq(na_qtable_request(qt, tag, 0, 9, na_now_ns(), &out, &loc),
		     0);
	cr_assert_eq(na_qtable_switch_granted(qt, tag, 0, 9), 0);
	cr_assert_eq(na_qtable_done(qt, tag, 0, 9, LCF_GS_UNSHARED, 0,
				    na_now_ns(), &out, &loc),
		     0);
	na_sim_net_crash(s.net, 1);
	cr_assert(na_rec_sent(t->n->rec, 0, tag, 11));
	for (int i = 0; i < 8; i++)
		tags[i] = (uint8_t)(tag >> (56 - 8 * i));
	na_out_reset(&out);
	na_rec_agents(t->n->rec, &m, tags, &out);
	cr_assert_eq(out.n, 0, "no report while the thread is inside an event");
	na_req_msg(t, &m, LCF_T_WRITE_MISS, 11, tag, na_req_home_of(t, tag));
	t0 = na_now_ns();
	begun = na_reqq_begin(t, &q, &m);
	cr_expect_not(begun, "the round took the event out");
	cr_expect_not(q.on, "nothing registered");
	cr_expect_lt(na_now_ns() - t0, NA_GIVE_UP_NS);
	na_rec_end(t->n->rec, 0, tag, NA_REC_LEFT);
	for (n = 0; n < 100 && na_qtable_request(qt, tag, 0, 12, na_now_ns(),
						 &out, &loc) != 0;
	     n++)
		na_req_backoff(t, 4);
	cr_expect_lt(n, 100, "the report reset the ending row");
	finished();
	return NULL;
}

Test(region, round_takes_an_event_waiting_for_its_ending_tenure)
{
	run_queued_one(round_begin);
}

/* ---- an event given up in a recovery round ------------------------------ */

static volatile int gu_sent;

/* Does the switch hold `tag`? Its entry in *v. */
static bool
switch_entry(uint64_t tag, struct lcf_block_view *v)
{
	const struct lcf_pipeline *p = na_sim_net_pipeline(s.net);
	const struct lcf_pipeline_config *c = lcf_pipeline_config(p);
	uint64_t t;

	for (uint32_t w = 0; w < c->ways; w++)
		for (uint32_t k = 0; k < c->slots_per_way; k++)
			if (lcf_pipeline_read_slot(p, w, k, &t, v) == 0 &&
			    t == tag)
				return true;
	return false;
}

/* The round's trigger: once the switch is back, a request of node 0's
 * thread 1 misses its tag; the home probes, finds the block lost and starts
 * the round (its NACK goes to a thread that does not read it). */
static void *
gu_trigger(void *arg)
{
	struct dsm_thread *h = dsm_thread(s.d[0], 1);
	uint64_t tag = blk(0) >> s.d[0]->topo.block_shift, until;
	struct lcf_msg m;

	(void)arg;
	while (!gu_sent)
		na_req_backoff(h, 0);
	until = na_now_ns() + 200000; /* past the switch's outage */
	while (na_now_ns() < until)
		na_req_backoff(h, 0);
	na_req_msg(h, &m, LCF_T_READ_MISS, 1, tag, na_req_home_of(h, tag));
	na_node_send(h->n, m.dst_node, &m, NULL);
	finished();
	return NULL;
}

/*
 * lib/model/miglate.pml: node 1's WRITE_MISS on switch-owned block 0
 * reaches the switch during a restart's outage; a copy of it is held in
 * the network. A round recovers the block while the thread waits: the
 * thread gives the event up (no unlock: "the switch that may hold our lock
 * is gone") and reports it UNSETTLED; the home records the seq and ADDs
 * the block again. The held copy then takes its lock. The thread's next
 * event must first ABORT the given-up seq (kept though the round recorded
 * it), get "a copy passed" and unlock with that seq (the home serving the
 * copy it recorded NACKed); without the ABORT the lock is nobody's and the
 * next event is NACKed for ever.
 */
static void *
gu_requester(void *arg)
{
	struct dsm_thread *t = dsm_thread(s.d[1], 0);
	uint64_t tag = blk(0) >> s.d[1]->topo.block_shift;
	struct na_home *home = &s.d[0]->node.home;
	struct na_retry rt = { 0 }, rt2 = { 0 };
	struct lcf_block_view v = { 0 };
	struct na_collect c;
	uint32_t idx = 0, seq;
	int ev = NA_EV_NACK, n;

	if (arg)
		return gu_trigger(arg);
	while (idx < home->n_blocks && na_home_tag(home, idx) != tag)
		idx++;
	cr_assert_lt(idx, home->n_blocks);
	cr_assert_eq(home->blk[idx].owner, NA_OWN_SWITCH);
	na_sim_net_restart_at(s.net, na_now_ns(), 100000);
	na_sim_net_hold(s.net, LCF_T_WRITE_MISS, 1, 0);
	gu_sent = 1;
	cr_assert_eq(na_req_event(t, LCF_T_WRITE_MISS, tag, &c, &rt),
		     NA_EV_NACK);
	seq = t->seq;
	cr_assert_eq(t->n->st.req.nacks, 0, "given up in the round");
	cr_expect(t->stale.valid && t->stale.seq == seq,
		  "the given-up event is quarantined");
	/* The round ends; the block is ADDed again. */
	for (n = 0; n < 100000 && !(home->blk[idx].owner == NA_OWN_SWITCH &&
				    switch_entry(tag, &v));
	     n++)
		na_req_backoff(t, 4);
	cr_assert(switch_entry(tag, &v), "the block is back in the switch");
	cr_assert(na_sim_net_release(s.net), "a copy was held");
	for (n = 0; n < 100000 && !(switch_entry(tag, &v) && v.lock); n++)
		na_req_backoff(t, 0);
	cr_assert(v.lock & LCF_LOCK_WRITER, "the late copy took the lock");
	for (n = 0; n < 20 && ev != NA_EV_OK; n++) {
		ev = na_req_event(t, LCF_T_WRITE_MISS, tag, &c, &rt2);
		if (ev == NA_EV_NACK)
			na_req_backoff(t, (unsigned)n);
	}
	cr_expect_eq(ev, NA_EV_OK, "the next event is granted");
	cr_expect_gt(t->n->st.req.aborts_sent, 0);
	cr_expect_eq(t->n->st.req.aborts_passed, 1, "abort_copy_passed");
	cr_expect_eq(t->n->st.req.stale_grants_released, 1,
		     "the late copy's lock released with seq %u", seq);
	if (ev == NA_EV_OK) { /* nothing installed: the metadata unchanged */
		na_req_send_unlock(t, LCF_T_WRITE_UNLOCK, rt2.seq, tag,
				   c.gs_old, c.cs_old, NA_REC_DONE);
		na_req_flush(t);
	}
	cr_expect(switch_entry(tag, &v) && !v.lock, "nothing left locked");
	finished();
	return NULL;
}

Test(region, round_given_up_event_is_aborted_before_the_next)
{
	uint32_t moved = 0;
	void *margs[1] = { &moved }, *args[2] = { NULL, &s };

	cluster_up(0);
	run_all(migrate, margs, 1, 5000000);
	cr_assert_gt(moved, 0, "no block moved to the switch");
	gu_sent = 0;
	run_all(gu_requester, args, 2, 20000000);
	cluster_down();
}

/* ---- an event ended with no unlock and no ABORT: its row ------------- */

/* A switch-owned block of node 0's (migrate) other than `skip`, or -1. */
static int
switch_block(int skip)
{
	struct lcf_block_view v;

	for (int i = 0; i < BLOCKS; i++)
		if (i != skip &&
		    switch_entry(blk(i) >> s.d[1]->topo.block_shift, &v))
			return i;
	return -1;
}

/*
 * lib/model/migrows.pml: node 1's thread reads switch-owned block A (seq
 * s, its read lock counted in SCOREBOARD's row of s's parity) and ends the
 * event with neither an unlock nor an ABORT (as a quarantine that left
 * through a round, or a give-up while stopping). Its next events write
 * block B (s+1, s+2): s+2's request would move the row of s on, after
 * which s's unlock and ABORT find it over and A's read lock has no holder
 * (every writer of A NACKed for ever, the test-migration hang). The thread
 * must end s first: ABORT, "a copy passed", re-ask, unlock with seq s.
 */
static void *
row_requester(void *arg)
{
	struct dsm_thread *t = dsm_thread(s.d[1], 0);
	int a = switch_block(-1), b = switch_block(a);
	uint64_t ta, tb;
	struct lcf_block_view v = { 0 };
	struct na_collect c;
	int ev;

	(void)arg;
	cr_assert(a >= 0 && b >= 0, "two switch-owned blocks");
	ta = blk(a) >> t->d->topo.block_shift;
	tb = blk(b) >> t->d->topo.block_shift;
	for (int k = 0; k < 3; k++) {
		struct na_retry rt = { 0 };
		uint8_t type = k ? LCF_T_WRITE_MISS : LCF_T_READ_MISS;

		ev = NA_EV_NACK;
		for (int n = 0; n < 20 && ev != NA_EV_OK; n++) {
			ev = na_req_event(t, type, k ? tb : ta, &c, &rt);
			if (ev == NA_EV_NACK)
				na_req_backoff(t, (unsigned)n);
		}
		cr_assert_eq(ev, NA_EV_OK, "event %d granted", k);
		if (!k) {
			cr_assert(switch_entry(ta, &v) && v.lock == 1,
				  "the read lock is taken in the switch");
			continue; /* no unlock, no ABORT */
		}
		/* nothing installed: the metadata unchanged */
		na_req_send_unlock(t, LCF_T_WRITE_UNLOCK, rt.seq, tb, c.gs_old,
				   c.cs_old, NA_REC_DONE);
		na_req_flush(t);
	}
	cr_expect_eq(lcf_pipeline_counters(na_sim_net_pipeline(s.net))
			     ->sb_held_overwritten,
		     0, "a row that counted a lock was moved on");
	cr_expect(switch_entry(ta, &v) && v.lock == 0,
		  "block A left locked (LOCK 0x%x)", v.lock);
	cr_expect_eq(t->n->st.req.row_guard, 1);
	cr_expect_eq(t->n->st.req.aborts_passed, 1, "abort_copy_passed");
	finished();
	return NULL;
}

Test(region, event_without_unlock_is_ended_before_its_row_is_reused)
{
	uint32_t moved = 0;
	void *margs[1] = { &moved }, *args[1] = { NULL };

	cluster_up(0);
	run_all(migrate, margs, 1, 5000000);
	cr_assert_gt(moved, 1, "fewer than two blocks moved to the switch");
	run_all(row_requester, args, 1, 20000000);
	cluster_down();
}

/* ---- a round between the ABORT's answer and the collection ----------- */

/* The declaration, just after a re-send of the collecting quarantine. */
static void *
early_declare(void *arg)
{
	struct dsm_thread *t = dsm_thread(s.d[1], 0);
	struct dsm_thread *w = dsm_thread(s.d[0], 1);
	uint64_t sent;

	(void)arg;
	while (t->stale.answer != NA_AB_PASSED)
		na_req_backoff(w, 0);
	sent = t->n->st.req.retransmit_request;
	while (t->n->st.req.retransmit_request == sent)
		na_req_backoff(w, 0);
	cr_assert_eq(dsm_node_failed(s.d[0], 2), 0);
	finished();
	return NULL;
}

/*
 * lib/model/recpass.pml EARLY: node 1's WRITE_MISS on home-owned block 0
 * is NACKed (node 2 holds the lock) while a copy of it is held in the
 * network; node 2 unlocks as the block's Modified owner (nothing cached:
 * it has no data to give) and the copy executes, forwarded to node 2. The
 * ABORT is answered "a copy passed"; the quarantine re-sends, node 2 gives
 * no data. Node 2 is declared dead at the home while the quarantine sleeps
 * out a re-send's timeout: the drain's round begins and ends there, drops
 * the lock and NACKs the seq. The quarantine must ask afresh ("aborted"),
 * not collect for ever from a lock that is gone.
 */
static void *
early_requester(void *arg)
{
	struct dsm_thread *h = dsm_thread(s.d[2], 0);
	struct dsm_thread *t = dsm_thread(s.d[1], 0);
	uint64_t tag = blk(0) >> s.d[1]->topo.block_shift;
	struct na_home *home = &s.d[0]->node.home;
	struct na_retry hr = { 0 }, rt = { 0 };
	struct na_collect hc, c;
	uint32_t idx = 0;

	if (arg)
		return early_declare(arg);
	while (idx < home->n_blocks && na_home_tag(home, idx) != tag)
		idx++;
	cr_assert_lt(idx, home->n_blocks);
	cr_assert_eq(na_req_event(h, LCF_T_WRITE_MISS, tag, &hc, &hr),
		     NA_EV_OK);
	na_sim_net_hold(s.net, LCF_T_WRITE_MISS, 1, 0);
	cr_assert_eq(na_req_event(t, LCF_T_WRITE_MISS, tag, &c, &rt),
		     NA_EV_NACK);
	cr_assert(t->stale.valid, "the NACKed event is abandoned");
	na_req_send_unlock(h, LCF_T_WRITE_UNLOCK, hr.seq, tag, LCF_GS_MODIFIED,
			   1u << 2, NA_REC_DONE);
	na_req_flush(h);
	cr_assert(na_sim_net_release(s.net), "a copy was held");
	while (!home->blk[idx].writer)
		na_req_backoff(h, 0);
	na_req_end_stale(t);
	cr_expect(!t->stale.valid);
	cr_expect_eq(t->n->st.req.aborts_done, 1, "answered aborted at last");
	cr_expect_gt(t->n->st.req.aborts_after_round, 0);
	finished();
	return NULL;
}

Test(region, a_round_after_a_passed_answer_is_asked_afresh)
{
	void *args[2] = { NULL, &s };

	cluster_up(0);
	run_all(early_requester, args, 2, 2000000);
	cluster_down();
}
