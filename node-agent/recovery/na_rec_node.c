/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Recovery, node side (na_recovery.h, docs/FAULTS.md): the requester
 * hooks, quiescing and reporting to a recovering home, resuming on DONE;
 * the message dispatch and the tick. The home side is na_rec_home.c.
 * About 600 lines: the hooks, the quiescing and the report share the
 * node's quiesce state, which no other file touches.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "na_msg.h"
#include "na_rec_int.h"

int
na_rec_init(struct na_rec **out, const struct na_rec_env *env)
{
	struct na_rec *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (!r)
		return -ENOMEM;
	pthread_mutex_init(&r->mu, NULL);
	r->env = *env;
	r->th = calloc(env->threads ? env->threads : 1, sizeof(*r->th));
	r->pend = calloc(LCF_MAX_NODES, sizeof(*r->pend));
	if (!r->th || !r->pend) {
		na_rec_fini(r);
		return -ENOMEM;
	}
	*out = r;
	return 0;
}

void
na_rec_fini(struct na_rec *r)
{
	if (!r)
		return;
	if (r->pend)
		for (int i = 0; i < LCF_MAX_NODES; i++)
			free(r->pend[i].data);
	for (int i = 0; i < REC_DIRTY; i++)
		free(r->h.cand[i].data);
	for (int i = 0; i < REC_KEPT; i++)
		free(r->kept[i].data);
	free(r->pend);
	free(r->th);
	pthread_mutex_destroy(&r->mu);
	free(r);
}

/* ---- requester hooks -------------------------------------------------------- */

bool
na_rec_blocked(struct na_rec *r, uint64_t tag)
{
	const struct rec_pend *p;
	bool b;

	if (na_cs_has(__atomic_load_n(&r->pub.dead, __ATOMIC_ACQUIRE),
		      (uint16_t)topo_tag_home(r->env.topo, tag)))
		return true;
	if (!__atomic_load_n(&r->pub.n_active, __ATOMIC_ACQUIRE))
		return false;
	pthread_mutex_lock(&r->mu);
	p = &r->pend[topo_tag_home(r->env.topo, tag) % LCF_MAX_NODES];
	b = p->active && tag_in(p->tags, p->n_tags, tag);
	pthread_mutex_unlock(&r->mu);
	return b;
}

bool
na_rec_cache_frozen(struct na_rec *r, uint64_t tag)
{
	const struct rec_pend *p;
	bool f;

	if (!__atomic_load_n(&r->pub.n_active, __ATOMIC_ACQUIRE))
		return false;
	pthread_mutex_lock(&r->mu);
	p = &r->pend[topo_tag_home(r->env.topo, tag) % LCF_MAX_NODES];
	f = p->active && p->reported && tag_in(p->tags, p->n_tags, tag);
	if (f)
		r->st.frozen_dropped++;
	pthread_mutex_unlock(&r->mu);
	return f;
}

bool
na_rec_home_dead(struct na_rec *r, uint64_t tag)
{
	if (!na_cs_has(__atomic_load_n(&r->pub.dead, __ATOMIC_ACQUIRE),
		       (uint16_t)topo_tag_home(r->env.topo, tag)))
		return false;
	/* Its memory died with it: fail, do not wait. */
	__atomic_add_fetch(&r->st.dead_home_refused, 1, __ATOMIC_RELAXED);
	return true;
}

bool
na_rec_resume(struct na_rec *r, uint16_t thread, bool stale, uint64_t stale_tag,
	      bool *stale_settled)
{
	struct rec_thread *th = &r->th[thread];
	bool fresh;

	*stale_settled = false;
	pthread_mutex_lock(&r->mu);
	fresh = th->fresh;
	if (fresh) {
		/* The abandoned request was recorded at home (its
		 * replies before the round are void). */
		if (stale && tag_in(th->fresh_tag, th->n_fresh, stale_tag))
			*stale_settled = true;
		th->fresh = false;
		th->n_fresh = 0;
	}
	pthread_mutex_unlock(&r->mu);
	return fresh;
}

int
na_rec_before(struct na_rec *r, uint64_t tag, uint16_t thread, bool stale,
	      uint64_t stale_tag, bool *stale_settled)
{
	*stale_settled = false;
	if (na_rec_home_dead(r, tag))
		return -EHOSTDOWN;
	if (na_rec_blocked(r, tag))
		return -EAGAIN;
	return na_rec_resume(r, thread, stale, stale_tag, stale_settled) ? 1
									 : 0;
}

int
na_rec_begin(struct na_rec *r, uint64_t tag, uint16_t thread, bool stale,
	     uint64_t stale_tag, bool *stale_settled, uint32_t seq, bool *sent)
{
	int rc = na_rec_before(r, tag, thread, stale, stale_tag, stale_settled);

	*sent = rc == 0 && seq && na_rec_sent(r, thread, tag, seq);
	return rc;
}

/*
 * Record request (tag, seq) as unsettled. Per block a thread keeps its
 * lowest and highest record (a grant clears both), and the home matches a
 * DIRTY seq between them: every seq between is unsettled. A ring of the
 * last requests lost the record of the event holding the lock at a switch
 * restart to the retries before the round, and the orphan with it
 * (lib/model/recunset.pml; na-sim switch-restart sweep 68 runs 116, 239).
 */
static void
record_sent(struct na_rec *r, struct rec_thread *th, uint64_t tag, uint32_t seq)
{
	int hi = -1, n = 0, k = -1;

	for (int i = 0; i < REC_UNSETTLED; i++) {
		if (!th->u[i].valid) {
			if (k < 0)
				k = i;
			continue;
		}
		if (th->u[i].tag != tag)
			continue;
		if (th->u[i].seq == seq)
			return;
		n++;
		if (hi < 0 || lcf_seq_after(th->u[i].seq, th->u[hi].seq))
			hi = i;
	}
	if (n >= 2) {
		if (lcf_seq_after(seq, th->u[hi].seq))
			th->u[hi].seq = seq;
		return;
	}
	if (k < 0) { /* a record of another block is lost */
		k = (int)th->u_next;
		th->u_next = (th->u_next + 1) % REC_UNSETTLED;
		r->st.report_overflow++;
	}
	th->u[k].valid = true;
	th->u[k].tag = tag;
	th->u[k].seq = seq;
}

bool
na_rec_sent(struct na_rec *r, uint16_t thread, uint64_t tag, uint32_t seq)
{
	struct rec_thread *th = &r->th[thread];
	const struct rec_pend
		*p = &r->pend[topo_tag_home(r->env.topo, tag) % LCF_MAX_NODES];

	pthread_mutex_lock(&r->mu);
	/* Under the lock the report is built under: recorded before it, or
	 * refused. */
	if (p->active && tag_in(p->tags, p->n_tags, tag)) {
		pthread_mutex_unlock(&r->mu);
		return false;
	}
	th->busy = true;
	th->busy_tag = tag;
	record_sent(r, th, tag, seq);
	pthread_mutex_unlock(&r->mu);
	return true;
}

void
na_rec_end(struct na_rec *r, uint16_t thread, uint64_t tag, enum na_rec_end how)
{
	struct rec_thread *th = &r->th[thread];

	pthread_mutex_lock(&r->mu);
	if (how == NA_REC_SETTLED || how == NA_REC_DONE)
		for (int i = 0; i < REC_UNSETTLED; i++)
			if (th->u[i].tag == tag)
				th->u[i].valid = false;
	if (how != NA_REC_SETTLED)
		th->busy = false;
	if (how == NA_REC_ABORTED)
		r->st.aborted_events++;
	pthread_mutex_unlock(&r->mu);
}

/* ---- node side: quiesce and report ------------------------------------------ */

/*
 * The round's blocks are not in the switch (lost in a restart, or evicted
 * for a dead node; a drained block never was): nor in SHADOW-TAG. Only
 * those: the switch may still hold others.
 */
static void
shadow_forget(struct na_rec *r, const struct rec_pend *p)
{
	for (uint32_t i = 0; i < p->n_tags; i++)
		na_shadow_forget(r->env.shadow, p->tags[i]);
	r->st.shadow_cleared++;
}

static bool
quiescent(struct na_rec *r, const struct rec_pend *p)
{
	for (uint16_t i = 0; i < r->env.threads; i++) {
		const struct rec_thread *th = &r->th[i];

		if (th->busy && tag_in(p->tags, p->n_tags, th->busy_tag))
			return false;
	}
	return true;
}

static uint8_t *
add_entry(struct na_rec *r, struct rec_pend *p, uint64_t tag, uint8_t kind,
	  uint8_t a, uint8_t b, uint32_t seq)
{
	uint8_t *e;

	if ((size_t)p->rlen + REC_ENTRY > sizeof(p->report)) {
		r->st.report_overflow++;
		return NULL;
	}
	e = p->report + p->rlen;
	put64(e, tag);
	e[8] = kind;
	e[9] = a;
	e[10] = b;
	e[11] = 0;
	put32(e + 12, seq);
	p->rlen += REC_ENTRY;
	return e;
}

/* Our copies of the tags. */
static void
report_copies(struct na_rec *r, struct rec_pend *p)
{
	for (uint32_t i = 0; i < p->n_tags; i++) {
		struct na_cbucket *b = na_cache_bucket(r->env.cache,
						       p->tags[i]);
		struct na_centry *e;
		uint8_t st = 0;

		pthread_mutex_lock(&b->mu);
		e = na_cache_find(b, p->tags[i]);
		if (e && e->state == NA_L_SHARED)
			st = 1;
		else if (e && e->state == NA_L_MODIFIED)
			st = 2;
		pthread_mutex_unlock(&b->mu);
		if (st)
			add_entry(r, p, p->tags[i], ENT_HOLD, st, 0, 0);
	}
}

/* Our threads' requests on the tags that may have been granted. */
static void
report_unsettled(struct na_rec *r, struct rec_pend *p)
{
	for (uint16_t i = 0; i < r->env.threads; i++) {
		struct rec_thread *th = &r->th[i];

		for (int k = 0; k < REC_UNSETTLED; k++) {
			if (!th->u[k].valid ||
			    !tag_in(p->tags, p->n_tags, th->u[k].tag))
				continue;
			if (!add_entry(r, p, th->u[k].tag, ENT_UNSETTLED,
				       (uint8_t)i, 0, th->u[k].seq))
				continue;
			th->u[k].valid = false;
			th->fresh = true;
			if (th->n_fresh < REC_UNSETTLED)
				th->fresh_tag[th->n_fresh++] = th->u[k].tag;
		}
	}
}

/*
 * Orphan-data records one report carries: its data segments and the report
 * itself fit one output list (NA_OUT_MAX), so 7 at 16 KB blocks, 2 at 64 KB.
 * With REC_DIRTY there, the tick's room check could never pass at 16 KB and
 * a node busy when BEGIN came never reported (na-sim sweep 31004 run 1027).
 */
static uint32_t
dirty_fit(const struct na_rec *r)
{
	uint32_t n = (NA_OUT_MAX - 1) / na_seg_count(r->env.topo->block_size);

	return n < REC_DIRTY ? n : REC_DIRTY;
}

/*
 * Data the cache agent gave away from a Modified copy (the request carried
 * gstatus Modified): if that event was aborted it is the only current value.
 * Also drops deferred requests on the tags: their events are over.
 */
/*
 * Is the data the cache agent gave away equal to our Shared copy of the
 * block? A Shared copy is current (a write invalidates it first), so that
 * data is the block's value, also when its requester died before writing
 * it home (lib/model/recorphan.pml).
 */
static bool
gave_current(struct na_rec *r, uint64_t tag, const uint8_t *data)
{
	struct na_cbucket *b = na_cache_bucket(r->env.cache, tag);
	struct na_centry *e;
	bool cur;

	pthread_mutex_lock(&b->mu);
	e = na_cache_find(b, tag);
	cur = e && e->state == NA_L_SHARED &&
	      !memcmp(e->data, data, r->env.topo->block_size);
	pthread_mutex_unlock(&b->mu);
	return cur;
}

/*
 * One cache-agent row's orphan, if it has one on the round's tags. A row
 * kept from an old incarnation only when current: its seq is the dead
 * process's, and the new one, numbering from 1 again, may list the same
 * seq unsettled (na-sim --restart-node seed 126: a kept record matched
 * the new thread's seq 1 and an older value went to memory).
 */
static void
report_row(struct na_rec *r, struct rec_pend *p, const struct na_creq *rq,
	   bool kept)
{
	uint32_t bs = r->env.topo->block_size;
	uint8_t *ent;
	bool cur;

	if (!rq->le.valid || !rq->has_data ||
	    rq->ack.gstatus != LCF_GS_MODIFIED ||
	    !tag_in(p->tags, p->n_tags, rq->ack.tag))
		return;
	cur = gave_current(r, rq->ack.tag, rq->data);
	if (kept && !cur)
		return;
	if (p->n_dirty >= dirty_fit(r) ||
	    !(ent = add_entry(r, p, rq->ack.tag, ENT_DIRTY,
			      (uint8_t)rq->ack.node, (uint8_t)rq->ack.thread,
			      rq->le.seq))) {
		r->st.report_overflow++;
		return;
	}
	if (cur)
		ent[11] = REC_DIRTY_CUR;
	p->dirty[p->n_dirty] = (struct rec_dirty){ .tag = rq->ack.tag,
						   .rnode = rq->ack.node,
						   .rthread = rq->ack.thread,
						   .seq = rq->le.seq };
	memcpy(p->data + (size_t)p->n_dirty * bs, rq->data, bs);
	p->n_dirty++;
}

static void
report_cagent(struct na_rec *r, struct rec_pend *p)
{
	struct na_cagent *ca = r->env.cagent;

	for (size_t i = 0; i < (size_t)LCF_MAX_NODES * ca->tpn; i++)
		report_row(r, p, &ca->req[i], false);
	for (int i = 0; i < REC_KEPT; i++)
		report_row(r, p, &r->kept[i], true);
	for (uint32_t i = 0; i < NA_DEFER_MAX; i++) {
		struct na_cdefer *d = &ca->def[i];

		if (d->used && tag_in(p->tags, p->n_tags, d->m.tag)) {
			d->used = false;
			ca->n_def--;
			r->st.deferred_purged++;
		}
	}
}

static void
send_report(struct na_rec *r, uint16_t home, const struct rec_pend *p,
	    struct na_out *out)
{
	uint32_t bs = r->env.topo->block_size;
	struct lcf_msg m;

	for (uint32_t i = 0; i < p->n_dirty; i++) {
		hdr(&m, NA_MSG_REC_DATA, r->env.self, home, p->dirty[i].seq);
		m.thread = p->dirty[i].rthread;
		m.copyset = p->dirty[i].rnode;
		m.tag = p->dirty[i].tag;
		na_out_segments(out, home, &m, NA_MSG_REC_DATA,
				p->data + (size_t)i * bs, bs);
	}
	hdr(&m, NA_MSG_REC_REPORT, r->env.self, home, p->round);
	m.aux = p->n_dirty;
	m.len = p->rlen;
	na_out_push(out, home, &m, p->report);
	r->st.reports_sent++;
}

/* Report to `home` once none of our threads is inside an event on its tags. */
static void
try_report(struct na_rec *r, uint16_t home, struct na_out *out)
{
	struct rec_pend *p = &r->pend[home];

	pthread_mutex_lock(&r->mu);
	if (!p->active || p->reported || !quiescent(r, p)) {
		pthread_mutex_unlock(&r->mu);
		return;
	}
	p->rlen = 0;
	p->n_dirty = 0;
	report_copies(r, p);
	report_unsettled(r, p);
	pthread_mutex_unlock(&r->mu);
	if (r->env.q_recovered)
		r->env.q_recovered(r->env.q_ctx, p->tags, p->n_tags);
	report_cagent(r, p);
	p->reported = true;
	send_report(r, home, p, out);
}

static void
on_begin(struct na_rec *r, const struct lcf_msg *m, const uint8_t *payload,
	 struct na_out *out)
{
	uint16_t home = m->node;
	struct rec_pend *p;

	if (home >= LCF_MAX_NODES || m->len % 8 || m->len / 8 > NA_REC_TAGS)
		return;
	p = &r->pend[home];
	if (!p->data &&
	    !(p->data = malloc((size_t)REC_DIRTY * r->env.topo->block_size)))
		return; /* the home re-sends BEGIN */
	if (p->active && p->round == m->seq) {
		if (p->reported)
			send_report(r, home, p, out);
		return;
	}
	/* A late copy of a BEGIN (not newer than the round this home last
	 * ended here, or than the one we are in): started again, the round
	 * would never end, the home sends DONE only for its current round
	 * (lib/model/recround.pml). Newer: 1 .. 2^31 - 1 rounds ahead. */
	if ((p->ended && (int32_t)(m->seq - p->last_done) <= 0) ||
	    (p->active && (int32_t)(m->seq - p->round) <= 0)) {
		r->st.late_begins++;
		return;
	}
	pthread_mutex_lock(&r->mu);
	if (!p->active)
		__atomic_add_fetch(&r->pub.n_active, 1, __ATOMIC_RELEASE);
	__atomic_add_fetch(&r->pub.rounds, 1, __ATOMIC_RELEASE);
	p->active = true;
	p->reported = false;
	p->round = m->seq;
	p->n_tags = m->len / 8;
	for (uint32_t i = 0; i < p->n_tags; i++)
		p->tags[i] = get64(payload + 8 * i);
	pthread_mutex_unlock(&r->mu);
	if (r->env.role_shadow)
		shadow_forget(r, p);
	try_report(r, home, out);
}

static void
on_done(struct na_rec *r, const struct lcf_msg *m, struct na_out *out)
{
	struct rec_pend *p;
	struct lcf_msg a;

	if (m->node >= LCF_MAX_NODES)
		return;
	p = &r->pend[m->node];
	pthread_mutex_lock(&r->mu);
	if (p->active && p->round == m->seq) {
		p->active = false;
		p->ended = true;
		p->last_done = m->seq;
		__atomic_sub_fetch(&r->pub.n_active, 1, __ATOMIC_RELEASE);
		/* Its blocks are rebuilt: the orphans kept for them are done. */
		for (int i = 0; i < REC_KEPT; i++)
			if (tag_in(p->tags, p->n_tags, r->kept[i].ack.tag))
				r->kept[i].le.valid = false;
	}
	pthread_mutex_unlock(&r->mu);
	hdr(&a, NA_MSG_REC_DONE_ACK, r->env.self, m->node, m->seq);
	na_out_push(out, m->node, &a, NULL);
}

bool
na_rec_agents(struct na_rec *r, const struct lcf_msg *m, const void *payload,
	      struct na_out *out)
{
	if (na_rec_dead_drop(r, m))
		return true;
	switch (m->type) {
	case NA_MSG_REC_BEGIN:
		on_begin(r, m, payload, out);
		return true;
	case NA_MSG_REC_REPORT:
		na_rec_home_report(r, m, payload);
		return true;
	case NA_MSG_REC_DATA:
		na_rec_home_data(r, m, payload);
		return true;
	case NA_MSG_REC_DONE:
		on_done(r, m, out);
		return true;
	case NA_MSG_REC_DONE_ACK:
		na_rec_home_done_ack(r, m);
		return true;
	default:
		return r->env.role_home && na_rec_home_watched(m->type) &&
		       na_rec_home_watch(r, m, out);
	}
}

void
na_rec_tick(struct na_rec *r, struct na_out *out)
{
	uint64_t now = na_now_ns();
	uint32_t news,
		room = dirty_fit(r) * na_seg_count(r->env.topo->block_size) + 1;

	if (now < r->next_tick)
		return;
	r->next_tick = now + REC_TICK_NS;
	news = __atomic_load_n(&r->dead_req, __ATOMIC_ACQUIRE) &
	       ~__atomic_load_n(&r->pub.dead, __ATOMIC_ACQUIRE);
	for (uint16_t d = 0; news && d < LCF_MAX_NODES; d++)
		if (na_cs_has(news, d))
			na_rec_drain(r, d, out);
	if (__atomic_load_n(&r->rejoin_req, __ATOMIC_ACQUIRE))
		na_rec_rejoin_tick(r);
	if (__atomic_load_n(&r->pub.n_active, __ATOMIC_ACQUIRE))
		for (uint16_t home = 0; home < LCF_MAX_NODES; home++) {
			/* Room for a report and its orphan data. */
			if (out->n + room > NA_OUT_MAX)
				break;
			try_report(r, home, out);
		}
	if (r->env.role_home)
		na_rec_home_tick(r, now, out);
}

void
na_rec_stats_sum_json(struct na_rec *const *r, uint32_t n, FILE *f)
{
	const char *sep = "";

	fprintf(f, "\"recovery\":{");
#define X_SUM(name)                                             \
	{                                                       \
		uint64_t v = 0;                                 \
		for (uint32_t i = 0; i < n; i++)                \
			v += r[i] ? r[i]->st.name : 0;          \
		fprintf(f, "%s\"" #name "\":%" PRIu64, sep, v); \
		sep = ",";                                      \
	}
	REC_COUNTERS(X_SUM)
#undef X_SUM
	fprintf(f, "}");
}

void
na_rec_stats_json(struct na_rec *r, FILE *f)
{
	na_rec_stats_sum_json(&r, 1, f);
}
