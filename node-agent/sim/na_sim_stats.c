/* SPDX-License-Identifier: BSD-3-Clause
 *
 * na-sim's summary: counters of every node summed; see na_sim_stats.h.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "na_qholder.h"
#include "na_qtable.h"
#include "na_recovery.h"
#include "na_requester.h"
#include "na_sim_stats.h"

/* PIPE write-backs of every node (docs/PIPE.md). */
void
na_sim_pipe_json(struct dsm *const *d, uint32_t n_nodes, FILE *f)
{
	uint64_t v[5] = { 0 };

	for (uint32_t i = 0; i < n_nodes; i++) {
		const struct na_node *n = &d[i]->node;

		v[0] += n->st.req.writebacks;
		v[1] += n->st.req.diff_writebacks;
		v[2] += n->st.req.diffs_empty;
		v[3] += n->home.st.diffs_applied;
		v[4] += n->home.st.diff_frames;
	}
	fprintf(f,
		"\"writebacks\":%" PRIu64 ",\"diff_writebacks\":%" PRIu64
		",\"diffs_empty\":%" PRIu64 ",\"diffs_applied\":%" PRIu64
		",\"diff_frames\":%" PRIu64,
		v[0], v[1], v[2], v[3], v[4]);
}

/* Validate-on-hit counters of every node, summed (docs/VALIDATE.md). */
void
na_sim_voh_json(struct dsm *const *d, uint32_t n_nodes, FILE *f)
{
	struct dsm_voh_stats s, t = { 0 };

	for (uint32_t i = 0; i < n_nodes; i++) {
		dsm_voh_stats(d[i], &s);
		t.checks += s.checks;
		t.validated_hits += s.validated_hits;
		t.changed += s.changed;
		t.fetches += s.fetches;
		t.updates += s.updates;
		t.fallbacks += s.fallbacks;
		t.sw_checks += s.sw_checks;
		t.sw_hits += s.sw_hits;
		t.sw_fetches += s.sw_fetches;
		t.sw_uncached += s.sw_uncached;
		t.sw_writes += s.sw_writes;
		t.expired += s.expired;
	}
	fprintf(f,
		"\"checks\":%" PRIu64 ",\"validated_hits\":%" PRIu64
		",\"changed\":%" PRIu64 ",\"fetches\":%" PRIu64
		",\"updates\":%" PRIu64 ",\"fallbacks\":%" PRIu64
		",\"sw_checks\":%" PRIu64 ",\"sw_hits\":%" PRIu64
		",\"sw_fetches\":%" PRIu64 ",\"sw_uncached\":%" PRIu64
		",\"sw_writes\":%" PRIu64 ",\"expired\":%" PRIu64,
		t.checks, t.validated_hits, t.changed, t.fetches, t.updates,
		t.fallbacks, t.sw_checks, t.sw_hits, t.sw_fetches,
		t.sw_uncached, t.sw_writes, t.expired);
}

/* Queued locks (docs/QUEUED-LOCKS.md): the holders' and requesters'
 * counters summed over the nodes. */
void
na_sim_qlock_json(struct dsm *const *d, uint32_t n_nodes, bool queued, FILE *f)
{
	struct na_qt_stats q = { 0 };
	struct na_req_stats r = { 0 };
	uint64_t hl = 0, hc = 0, hn = 0;

	for (uint32_t i = 0; i < n_nodes; i++) {
		const struct na_node *n = &d[i]->node;

		hl += n->home.st.pipeline_nack_lock;
		hc += n->home.st.pipeline_nack_check;
		hn += n->home.st.pipeline_nack_not_home;

		if (n->qt) {
#define NA_X_ADD(name) q.name += n->qt->st.name;
			NA_QT_COUNTERS(NA_X_ADD)
#undef NA_X_ADD
		}
#define NA_X_ADD(name) r.name += n->st.req.name;
		NA_REQ_COUNTERS(NA_X_ADD)
#undef NA_X_ADD
	}
	fprintf(f, "\"mode\":\"%s\"", queued ? "queued" : "retry");
#define NA_X_PRINT(name) fprintf(f, ",\"" #name "\":%" PRIu64, q.name);
	NA_QT_COUNTERS(NA_X_PRINT)
#undef NA_X_PRINT
	fprintf(f,
		",\"requester_nacks\":%" PRIu64 ",\"requester_events\":%" PRIu64
		",\"req_queued\":%" PRIu64 ",\"req_q_nacks\":%" PRIu64
		",\"req_nack_ignored\":%" PRIu64 ",\"req_watchdog\":%" PRIu64
		",\"req_grants\":%" PRIu64 ",\"req_converted\":%" PRIu64
		",\"req_noop\":%" PRIu64 ",\"req_q_ends\":%" PRIu64,
		r.nacks, r.events, r.q_queued, r.q_nacks, r.q_nack_ignored,
		r.q_watchdog, r.q_grants, r.q_converted, r.q_noop, r.q_ends);
	fprintf(f,
		",\"req_q_waits\":%" PRIu64 ",\"req_q_polls\":%" PRIu64
		",\"req_q_sw_grants\":%" PRIu64 ",\"req_q_slot_waits\":%" PRIu64
		",\"req_aborts_sent\":%" PRIu64 ",\"req_aborts_done\":%" PRIu64
		",\"req_aborts_passed\":%" PRIu64
		",\"req_aborts_waiting\":%" PRIu64
		",\"req_aborts_before_wait\":%" PRIu64
		",\"req_aborts_after_round\":%" PRIu64
		",\"req_home_local\":%" PRIu64,
		r.q_waits, r.q_polls, r.q_sw_grants, r.q_slot_waits,
		r.aborts_sent, r.aborts_done, r.aborts_passed, r.aborts_waiting,
		r.aborts_before_wait, r.aborts_after_round, r.home_local);
	fprintf(f,
		",\"home_nack_lock\":%" PRIu64 ",\"home_nack_check\":%" PRIu64
		",\"home_nack_not_home\":%" PRIu64,
		hl, hc, hn);
}

/* A stuck run: the queue holders not idle. */
void
na_sim_qlock_dump(const struct na_node *n)
{
	const struct dsm *d = (const struct dsm *)n; /* node is first */

	if (getenv("QDBG") && n->rec) {
		const struct na_rec_pub *p = (const void *)n->rec;

		fprintf(stderr, "  recovery rounds in %d dead %#x\n",
			p->n_active, p->dead);
	}
	for (uint16_t k = 0; getenv("QDBG") && k < n->cfg.threads; k++) {
		const struct dsm_thread *t = &d->threads[k];

		fprintf(stderr,
			"  thread %u seq %u unl %d/%d seq %u stale %d seq %u "
			"qgrant %d seq %u\n",
			k, t->seq, t->unl.valid, t->unl.queued, t->unl.m.seq,
			t->stale.valid, t->stale.seq, t->qgrant_valid,
			t->qgrant.seq);
	}
	for (uint32_t i = 0; n->qt && i < NA_QT_SLOTS; i++) {
		const struct na_qslot *s = &n->qt->s[i];

		if (!s->used || s->h.st == NA_QH_IDLE)
			continue;
		fprintf(stderr,
			"  holder tag %#" PRIx64 " thread %u seq %u state %d "
			"count %u next %#x queue %u count_wait %d\n",
			s->tag, s->h.thread, s->h.seq, (int)s->h.st, s->h.count,
			s->h.next, s->h.q.n, (int)s->h.count_wait);
	}
}
