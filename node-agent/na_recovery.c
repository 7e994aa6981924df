/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Switch restart recovery; see na_recovery.h and docs/FAULTS.md.
 *
 * Two halves run on every node: the home side (detection, rounds, rebuild)
 * for this node's blocks, and the node side (quiesce, report, resume) for
 * every home that recovers. Requester threads only touch the per-thread
 * records below, under rec->mu; the agents take rec->mu inside agent_mu.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "na_msg.h"
#include "na_node.h"
#include "na_recovery.h"
#include "na_requester.h"

#define REC_UNSETTLED 8         /* unsettled requests remembered per thread */
#define REC_DIRTY 8             /* orphan-data records per report / round */
#define REC_ULIST 256           /* unsettled requests per round at a home */
#define REC_RETX_NS 50000000ull
#define REC_PROBE_NS 200000000ull
#define REC_TICK_NS 2000000ull
#define REC_ENTRY 16

enum { ENT_HOLD = 1, ENT_UNSETTLED = 2, ENT_DIRTY = 3 };
enum { PH_IDLE, PH_PROBE, PH_COLLECT, PH_DONE, PH_READD };
#define REC_READD 256           /* recovered blocks given back to the switch */
#define READD_STARTED 0x80000000u

struct rec_thread {
	bool busy;                      /* inside an event: sent .. unlock */
	uint64_t busy_tag;
	struct { bool valid; uint64_t tag; uint32_t seq; } u[REC_UNSETTLED];
	uint32_t u_next;
	bool fresh;                     /* reported: never reuse those seqs */
	uint64_t fresh_tag[REC_UNSETTLED];
	uint32_t n_fresh;
};

struct rec_dirty {
	uint64_t tag;
	uint16_t rnode, rthread;
	uint32_t seq;
};

/* Node side: one recovery round of home `h`. */
struct rec_pend {
	bool active, reported;
	uint32_t round;
	uint32_t n_tags;
	uint64_t tags[NA_REC_TAGS];
	uint16_t rlen;
	uint8_t report[NA_MAX_FRAME_PAYLOAD];
	uint32_t n_dirty;
	struct rec_dirty dirty[REC_DIRTY];
	uint8_t *data;                  /* REC_DIRTY blocks */
};

struct rec_unset {
	uint32_t slot;
	uint16_t node, thread;
	uint32_t seq;
};

struct rec_cand {
	bool used;
	uint32_t slot;                  /* index into the round's blocks */
	uint16_t src, rnode, rthread;
	uint32_t seq;
	uint64_t have;
	uint8_t *data;
};

/* Home side. */
struct rec_home {
	int phase;
	uint32_t probe_idx, probe_seq;
	uint64_t probe_ns;
	uint32_t round;
	uint32_t n;
	uint32_t idx[NA_REC_TAGS];
	uint32_t cs[NA_REC_TAGS];       /* holders */
	uint32_t mod[NA_REC_TAGS];      /* Modified holders */
	uint32_t expect, reported, acked;
	uint32_t n_unset;
	struct rec_unset unset[REC_ULIST];
	struct rec_cand cand[REC_DIRTY];
	uint64_t last_ns, detect_ns;
	uint8_t begin[NA_REC_TAGS * 8];
	uint32_t n_readd;
	uint32_t readd[REC_READD];
	bool pending;                   /* a drain waits for PH_IDLE */
};

#define REC_COUNTERS(X)                        \
	X(probes)                              \
	X(probe_switch_had_it)                 \
	X(detections)                          \
	X(rounds)                              \
	X(blocks_recovered)                    \
	X(orphans_written)                     \
	X(inconsistent)                        \
	X(unsettled_recorded)                  \
	X(reports_sent)                        \
	X(report_overflow)                     \
	X(aborted_events)                      \
	X(deferred_purged)                     \
	X(shadow_cleared)                      \
	X(last_recovery_us)                    \
	X(readded)                             \
	X(dead_nodes)                          \
	X(drained_blocks)                      \
	X(dead_dirty_lost)                     \
	X(dead_home_refused)

struct na_rec {
	pthread_mutex_t mu;
	int n_active;                   /* active pends (fast path) */
	uint32_t dead;                  /* nodes declared dead (drained) */
	uint32_t dead_req;              /* declared, drain not started yet */
	struct rec_thread *th;
	struct rec_pend *pend;          /* LCF_MAX_NODES */
	struct rec_home h;
	uint64_t next_tick;
#define X_FIELD(name) uint64_t name;
	struct { REC_COUNTERS(X_FIELD) } st;
#undef X_FIELD
};

/* ---- helpers -------------------------------------------------------------- */

static void
put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (56 - 8 * i));
}

static uint64_t
get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static void
put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (24 - 8 * i));
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static void
hdr(struct lcf_msg *m, uint8_t type, uint16_t node, uint16_t dst, uint32_t seq)
{
	memset(m, 0, sizeof(*m));
	m->version = LCF_VERSION;
	m->type = type;
	m->node = node;
	m->seq = seq;
	m->dst_node = dst;
}

static bool
tag_in(const uint64_t *tags, uint32_t n, uint64_t tag)
{
	for (uint32_t i = 0; i < n; i++)
		if (tags[i] == tag)
			return true;
	return false;
}

static uint32_t
all_nodes(const struct na_node *n)
{
	uint32_t m = 0;

	for (uint32_t i = 0; i < n->topo->n_nodes; i++)
		m |= na_bit(n->topo->nodes[i].id);
	return m & ~__atomic_load_n(&n->rec->dead, __ATOMIC_ACQUIRE);
}

int
na_rec_init(struct na_node *n)
{
	struct na_rec *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	pthread_mutex_init(&r->mu, NULL);
	r->th = calloc(n->cfg.threads ? n->cfg.threads : 1, sizeof(*r->th));
	r->pend = calloc(LCF_MAX_NODES, sizeof(*r->pend));
	n->rec = r;
	if (!r->th || !r->pend) {
		na_rec_fini(n);
		return -ENOMEM;
	}
	return 0;
}

void
na_rec_fini(struct na_node *n)
{
	struct na_rec *r = n->rec;

	if (!r)
		return;
	if (r->pend)
		for (int i = 0; i < LCF_MAX_NODES; i++)
			free(r->pend[i].data);
	for (int i = 0; i < REC_DIRTY; i++)
		free(r->h.cand[i].data);
	free(r->pend);
	free(r->th);
	pthread_mutex_destroy(&r->mu);
	free(r);
	n->rec = NULL;
}

/* ---- requester hooks -------------------------------------------------------- */

bool
na_rec_blocked(struct na_node *n, uint64_t tag)
{
	struct na_rec *r = n->rec;
	const struct rec_pend *p;
	bool b;

	if (na_cs_has(__atomic_load_n(&r->dead, __ATOMIC_ACQUIRE),
		      (uint16_t)topo_tag_home(n->topo, tag)))
		return true;
	if (!__atomic_load_n(&r->n_active, __ATOMIC_ACQUIRE))
		return false;
	pthread_mutex_lock(&r->mu);
	p = &r->pend[topo_tag_home(n->topo, tag) % LCF_MAX_NODES];
	b = p->active && tag_in(p->tags, p->n_tags, tag);
	pthread_mutex_unlock(&r->mu);
	return b;
}

int
na_rec_before_event(struct dsm_thread *t, uint64_t tag)
{
	struct na_rec *r = t->n->rec;
	struct rec_thread *th = &r->th[t->id];
	uint64_t start = na_now_ns();
	bool fresh;

	if (na_cs_has(__atomic_load_n(&r->dead, __ATOMIC_ACQUIRE),
		      (uint16_t)topo_tag_home(t->n->topo, tag))) {
		/* Its memory died with it: fail, do not wait. */
		__atomic_add_fetch(&r->st.dead_home_refused, 1, __ATOMIC_RELAXED);
		return -EHOSTDOWN;
	}
	for (unsigned i = 0; na_rec_blocked(t->n, tag); i++) {
		if (__atomic_load_n(&t->d->stopping, __ATOMIC_RELAXED) &&
		    na_now_ns() - start > NA_GIVE_UP_NS)
			break;
		na_req_backoff(t, 4);
	}
	pthread_mutex_lock(&r->mu);
	fresh = th->fresh;
	if (fresh) {
		/* The abandoned request's copies are accounted for at home. */
		if (t->stale.valid &&
		    tag_in(th->fresh_tag, th->n_fresh, t->stale.tag))
			t->stale.valid = false;
		th->fresh = false;
		th->n_fresh = 0;
	}
	pthread_mutex_unlock(&r->mu);
	return fresh ? 1 : 0;
}

void
na_rec_sent(struct na_node *n, uint16_t thread, uint64_t tag, uint32_t seq)
{
	struct rec_thread *th = &n->rec->th[thread];

	pthread_mutex_lock(&n->rec->mu);
	th->busy = true;
	th->busy_tag = tag;
	for (int i = 0; i < REC_UNSETTLED; i++)
		if (th->u[i].valid && th->u[i].tag == tag && th->u[i].seq == seq)
			goto out;
	th->u[th->u_next].valid = true;
	th->u[th->u_next].tag = tag;
	th->u[th->u_next].seq = seq;
	th->u_next = (th->u_next + 1) % REC_UNSETTLED;
out:
	pthread_mutex_unlock(&n->rec->mu);
}

void
na_rec_granted(struct na_node *n, uint16_t thread, uint64_t tag)
{
	struct rec_thread *th = &n->rec->th[thread];

	pthread_mutex_lock(&n->rec->mu);
	for (int i = 0; i < REC_UNSETTLED; i++)
		if (th->u[i].tag == tag)
			th->u[i].valid = false;
	pthread_mutex_unlock(&n->rec->mu);
}

void
na_rec_idle(struct na_node *n, uint16_t thread, bool aborted)
{
	pthread_mutex_lock(&n->rec->mu);
	n->rec->th[thread].busy = false;
	if (aborted)
		n->rec->st.aborted_events++;
	pthread_mutex_unlock(&n->rec->mu);
}

/* ---- node side: quiesce and report ------------------------------------------ */

static void
shadow_clear(struct na_node *n)
{
	/* The restarted switch owns nothing: neither does SHADOW-TAG. */
	memset(n->shadow.t, 0, sizeof(*n->shadow.t) * NA_SHADOW_SLOTS);
	n->shadow.n_tags = 0;
	n->rec->st.shadow_cleared++;
}

static bool
quiescent(struct na_node *n, const struct rec_pend *p)
{
	for (uint16_t i = 0; i < n->cfg.threads; i++) {
		const struct rec_thread *th = &n->rec->th[i];

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
report_copies(struct na_node *n, struct rec_pend *p)
{
	for (uint32_t i = 0; i < p->n_tags; i++) {
		struct na_cbucket *b = na_cache_bucket(&n->cache, p->tags[i]);
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
			add_entry(n->rec, p, p->tags[i], ENT_HOLD, st, 0, 0);
	}
}

/* Our threads' requests on the tags that may have been granted. */
static void
report_unsettled(struct na_node *n, struct rec_pend *p)
{
	for (uint16_t i = 0; i < n->cfg.threads; i++) {
		struct rec_thread *th = &n->rec->th[i];

		for (int k = 0; k < REC_UNSETTLED; k++) {
			if (!th->u[k].valid ||
			    !tag_in(p->tags, p->n_tags, th->u[k].tag))
				continue;
			if (!add_entry(n->rec, p, th->u[k].tag, ENT_UNSETTLED,
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
 * Data the cache agent gave away from a Modified copy (the request carried
 * gstatus Modified): if that event was aborted it is the only current value.
 * Also drops deferred requests on the tags: their events are over.
 */
static void
report_cagent(struct na_node *n, struct rec_pend *p)
{
	struct na_cagent *ca = &n->cagent;
	uint32_t bs = n->topo->block_size;

	for (size_t i = 0; i < (size_t)LCF_MAX_NODES * ca->tpn; i++) {
		const struct na_creq *rq = &ca->req[i];

		if (!rq->le.valid || !rq->has_data ||
		    rq->ack.gstatus != LCF_GS_MODIFIED ||
		    !tag_in(p->tags, p->n_tags, rq->ack.tag))
			continue;
		if (p->n_dirty >= REC_DIRTY ||
		    !add_entry(n->rec, p, rq->ack.tag, ENT_DIRTY,
			       (uint8_t)rq->ack.node, (uint8_t)rq->ack.thread,
			       rq->le.seq)) {
			n->rec->st.report_overflow++;
			continue;
		}
		p->dirty[p->n_dirty] = (struct rec_dirty){
			.tag = rq->ack.tag, .rnode = rq->ack.node,
			.rthread = rq->ack.thread, .seq = rq->le.seq };
		memcpy(p->data + (size_t)p->n_dirty * bs, rq->data, bs);
		p->n_dirty++;
	}
	for (uint32_t i = 0; i < NA_DEFER_MAX; i++) {
		struct na_cdefer *d = &ca->def[i];

		if (d->used && tag_in(p->tags, p->n_tags, d->m.tag)) {
			d->used = false;
			ca->n_def--;
			n->rec->st.deferred_purged++;
		}
	}
}

static void
send_report(struct na_node *n, uint16_t home, const struct rec_pend *p,
	    struct na_out *out)
{
	uint32_t bs = n->topo->block_size;
	struct lcf_msg m;

	for (uint32_t i = 0; i < p->n_dirty; i++) {
		hdr(&m, NA_MSG_REC_DATA, n->self, home, p->dirty[i].seq);
		m.thread = p->dirty[i].rthread;
		m.copyset = p->dirty[i].rnode;
		m.tag = p->dirty[i].tag;
		na_out_segments(out, home, &m, NA_MSG_REC_DATA,
				p->data + (size_t)i * bs, bs);
	}
	hdr(&m, NA_MSG_REC_REPORT, n->self, home, p->round);
	m.aux = p->n_dirty;
	m.len = p->rlen;
	na_out_push(out, home, &m, p->report);
	n->rec->st.reports_sent++;
}

/* Report to `home` once none of our threads is inside an event on its tags. */
static void
try_report(struct na_node *n, uint16_t home, struct na_out *out)
{
	struct na_rec *r = n->rec;
	struct rec_pend *p = &r->pend[home];

	pthread_mutex_lock(&r->mu);
	if (!p->active || p->reported || !quiescent(n, p)) {
		pthread_mutex_unlock(&r->mu);
		return;
	}
	p->rlen = 0;
	p->n_dirty = 0;
	report_copies(n, p);
	report_unsettled(n, p);
	pthread_mutex_unlock(&r->mu);
	report_cagent(n, p);
	p->reported = true;
	send_report(n, home, p, out);
}

static void
on_begin(struct na_node *n, const struct lcf_msg *m, const uint8_t *payload,
	 struct na_out *out)
{
	struct na_rec *r = n->rec;
	uint16_t home = m->node;
	struct rec_pend *p;

	if (home >= LCF_MAX_NODES || m->len % 8 || m->len / 8 > NA_REC_TAGS)
		return;
	p = &r->pend[home];
	if (!p->data && !(p->data = malloc((size_t)REC_DIRTY *
					   n->topo->block_size)))
		return;                 /* the home re-sends BEGIN */
	if (p->active && p->round == m->seq) {
		if (p->reported)
			send_report(n, home, p, out);
		return;
	}
	pthread_mutex_lock(&r->mu);
	if (!p->active)
		__atomic_add_fetch(&r->n_active, 1, __ATOMIC_RELEASE);
	p->active = true;
	p->reported = false;
	p->round = m->seq;
	p->n_tags = m->len / 8;
	for (uint32_t i = 0; i < p->n_tags; i++)
		p->tags[i] = get64(payload + 8 * i);
	pthread_mutex_unlock(&r->mu);
	if (n->cfg.roles & NA_ROLE_SHADOW)
		shadow_clear(n);
	try_report(n, home, out);
}

static void
on_done(struct na_node *n, const struct lcf_msg *m, struct na_out *out)
{
	struct na_rec *r = n->rec;
	struct rec_pend *p;
	struct lcf_msg a;

	if (m->node >= LCF_MAX_NODES)
		return;
	p = &r->pend[m->node];
	pthread_mutex_lock(&r->mu);
	if (p->active && p->round == m->seq) {
		p->active = false;
		__atomic_sub_fetch(&r->n_active, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&r->mu);
	hdr(&a, NA_MSG_REC_DONE_ACK, n->self, m->node, m->seq);
	na_out_push(out, m->node, &a, NULL);
}

/* ---- home side: detection, rounds, rebuild ------------------------------------ */

static int64_t
own_block(const struct na_node *n, uint64_t tag)
{
	uint64_t mask = (1ull << (48 - n->home.block_shift)) - 1;

	if (!(n->cfg.roles & NA_ROLE_HOME) ||
	    topo_tag_home(n->topo, tag) != n->self || (tag & mask) >= n->home.n_blocks)
		return -1;
	return (int64_t)(tag & mask);
}

static void
send_begin(struct na_node *n, uint32_t to, struct na_out *out)
{
	struct rec_home *h = &n->rec->h;
	struct lcf_msg m;

	for (uint16_t d = 0; d < LCF_MAX_NODES; d++) {
		if (!na_cs_has(to, d))
			continue;
		hdr(&m, NA_MSG_REC_BEGIN, n->self, d, h->round);
		m.len = (uint16_t)(h->n * 8);
		na_out_push(out, d, &m, h->begin);
	}
	h->last_ns = na_now_ns();
}

static void
send_done(struct na_node *n, uint32_t to, struct na_out *out)
{
	struct rec_home *h = &n->rec->h;
	struct lcf_msg m;

	for (uint16_t d = 0; d < LCF_MAX_NODES; d++) {
		if (!na_cs_has(to, d))
			continue;
		hdr(&m, NA_MSG_REC_DONE, n->self, d, h->round);
		na_out_push(out, d, &m, NULL);
	}
	h->last_ns = na_now_ns();
}

/* A round over the next NA_REC_TAGS switch-owned blocks (none: finished). */
static void
start_round(struct na_node *n, struct na_out *out)
{
	struct na_rec *r = n->rec;
	struct rec_home *h = &r->h;

	h->n = 0;
	for (uint32_t i = 0; i < n->home.n_blocks && h->n < NA_REC_TAGS; i++)
		if (n->home.blk[i].owner == NA_OWN_RECOVERING) {
			put64(h->begin + 8 * h->n, na_home_tag(&n->home, i));
			h->idx[h->n++] = i;
		}
	if (!h->n) {
		/* Finished: give the blocks back to the new switch (5.2.1). */
		h->phase = h->n_readd ? PH_READD : PH_IDLE;
		if (h->detect_ns)
			r->st.last_recovery_us = (na_now_ns() - h->detect_ns) / 1000;
		h->detect_ns = 0;
		return;
	}
	h->round++;
	h->phase = PH_COLLECT;
	h->expect = all_nodes(n);
	h->reported = h->acked = 0;
	h->n_unset = 0;
	memset(h->cs, 0, sizeof(h->cs));
	memset(h->mod, 0, sizeof(h->mod));
	for (int i = 0; i < REC_DIRTY; i++)
		h->cand[i].used = false;
	r->st.rounds++;
	send_begin(n, h->expect, out);
}

static int
slot_of(const struct rec_home *h, uint64_t tag, const struct na_node *n)
{
	int64_t idx = own_block(n, tag);

	for (uint32_t i = 0; idx >= 0 && i < h->n; i++)
		if (h->idx[i] == (uint32_t)idx)
			return (int)i;
	return -1;
}

static struct rec_cand *
cand_get(struct na_node *n, uint32_t slot, uint16_t src, uint16_t rnode,
	 uint16_t rthread, uint32_t seq)
{
	struct rec_home *h = &n->rec->h;
	struct rec_cand *free_c = NULL;

	for (int i = 0; i < REC_DIRTY; i++) {
		struct rec_cand *c = &h->cand[i];

		if (c->used && c->slot == slot && c->src == src &&
		    c->rnode == rnode && c->rthread == rthread && c->seq == seq)
			return c;
		if (!c->used && !free_c)
			free_c = c;
	}
	if (!free_c)
		return NULL;
	if (!free_c->data && !(free_c->data = malloc(n->topo->block_size)))
		return NULL;
	*free_c = (struct rec_cand){ .used = true, .slot = slot, .src = src,
		.rnode = rnode, .rthread = rthread, .seq = seq,
		.data = free_c->data };
	return free_c;
}

static void
on_report(struct na_node *n, const struct lcf_msg *m, const uint8_t *p)
{
	struct rec_home *h = &n->rec->h;
	uint16_t src = m->node;

	if (h->phase != PH_COLLECT || m->seq != h->round ||
	    !na_cs_has(h->expect, src) || na_cs_has(h->reported, src))
		return;
	for (uint16_t off = 0; off + REC_ENTRY <= m->len; off += REC_ENTRY) {
		const uint8_t *e = p + off;
		int s = slot_of(h, get64(e), n);

		if (s < 0)
			continue;
		switch (e[8]) {
		case ENT_HOLD:
			h->cs[s] |= na_bit(src);
			if (e[9] == 2)
				h->mod[s] |= na_bit(src);
			break;
		case ENT_UNSETTLED:
			if (h->n_unset < REC_ULIST)
				h->unset[h->n_unset++] = (struct rec_unset){
					.slot = (uint32_t)s, .node = src,
					.thread = e[9], .seq = get32(e + 12) };
			break;
		case ENT_DIRTY:
			cand_get(n, (uint32_t)s, src, e[9], e[10], get32(e + 12));
			break;
		default:
			break;
		}
	}
	h->reported |= na_bit(src);
}

static void
on_data(struct na_node *n, const struct lcf_msg *m, const uint8_t *p)
{
	struct rec_home *h = &n->rec->h;
	struct rec_cand *c;
	int s = slot_of(h, m->tag, n);
	int seg = na_seg_index(n->topo->block_size, m->aux, m->len);

	if (h->phase != PH_COLLECT || s < 0 || seg < 0)
		return;
	c = cand_get(n, (uint32_t)s, m->node, (uint16_t)m->copyset, m->thread,
		     m->seq);
	if (!c)
		return;
	memcpy(c->data + m->aux, p, m->len);
	c->have |= 1ull << seg;
}

/* The orphan data of block slot `s`, if its event was aborted. */
static struct rec_cand *
orphan(struct rec_home *h, uint32_t s)
{
	for (int i = 0; i < REC_DIRTY; i++) {
		struct rec_cand *c = &h->cand[i];

		if (!c->used || c->slot != s)
			continue;
		for (uint32_t k = 0; k < h->n_unset; k++)
			if (h->unset[k].slot == s && h->unset[k].node == c->rnode &&
			    h->unset[k].thread == c->rthread &&
			    h->unset[k].seq == c->seq)
				return c;
	}
	return NULL;
}

/* Every report in, every needed orphan complete? Else ask again. */
static bool
collected(struct na_node *n, uint32_t *missing)
{
	struct rec_home *h = &n->rec->h;
	uint64_t all = na_seg_all(n->topo->block_size);

	*missing = h->expect & ~h->reported;
	for (uint32_t s = 0; s < h->n; s++) {
		struct rec_cand *c = h->mod[s] ? NULL : orphan(h, s);

		if (c && c->have != all)
			*missing |= na_bit(c->src);
	}
	return !*missing;
}

/*
 * The rebuilt metadata is the truth: an unlock of an event that ended
 * before the round (still on its way) must not overwrite it.
 */
static void
forget_holders(struct na_home *home, uint64_t tag)
{
	for (size_t i = 0; i < (size_t)LCF_MAX_NODES * home->tpn; i++)
		for (int k = 0; k < 2; k++)
			if (home->req[i].held[k].valid &&
			    home->req[i].held[k].tag == tag)
				home->req[i].held[k].valid = false;
}

static void
rebuild(struct na_node *n)
{
	struct na_rec *r = n->rec;
	struct rec_home *h = &r->h;
	struct na_home *home = &n->home;

	for (uint32_t s = 0; s < h->n; s++) {
		struct na_hblock *b = &home->blk[h->idx[s]];
		struct rec_cand *c = h->mod[s] ? NULL : orphan(h, s);

		if (c) {
			memcpy(home->mem + ((uint64_t)h->idx[s] << home->block_shift),
			       c->data, home->block_size);
			r->st.orphans_written++;
		}
		if (__builtin_popcount(h->mod[s]) > 1 ||
		    (h->mod[s] && h->cs[s] != h->mod[s]))
			r->st.inconsistent++;
		b->cs = h->cs[s];
		b->gs = h->mod[s] ? LCF_GS_MODIFIED :
			h->cs[s] ? LCF_GS_SHARED : LCF_GS_UNSHARED;
		b->readers = 0;         /* the switch's locks died with it */
		b->writer = false;
		b->hot = 0;
		b->owner = NA_OWN_HOME;
		r->st.blocks_recovered++;
		forget_holders(home, na_home_tag(home, h->idx[s]));
	}
	/* Late copies of unsettled requests become duplicates: NACK. */
	for (uint32_t k = 0; k < h->n_unset; k++) {
		struct na_hreq *rq;

		if (h->unset[k].thread >= home->tpn)
			continue;
		rq = &home->req[(size_t)h->unset[k].node * home->tpn +
				h->unset[k].thread];
		if (rq->req.valid && !lcf_seq_after(h->unset[k].seq, rq->req.seq))
			continue;
		na_le_commit(&rq->req, h->unset[k].seq);
		rq->dec = (struct na_hdec){ .kind = NA_HDEC_NACK,
			.tag = na_home_tag(home, h->idx[h->unset[k].slot]) };
		r->st.unsettled_recorded++;
	}
}

/* Switch state lost: every switch-owned block is recovered, then re-added. */
static void
switch_lost(struct na_node *n, struct na_out *out)
{
	struct rec_home *h = &n->rec->h;

	h->detect_ns = h->probe_ns;
	n->rec->st.detections++;
	for (uint32_t i = 0; i < n->home.n_blocks; i++) {
		if (n->home.blk[i].owner != NA_OWN_SWITCH)
			continue;
		n->home.blk[i].owner = NA_OWN_RECOVERING;
		if (h->n_readd < REC_READD)
			h->readd[h->n_readd++] = i;
	}
	start_round(n, out);
}

static void
send_probe(struct na_node *n, uint32_t idx, struct na_out *out)
{
	struct rec_home *h = &n->rec->h;
	struct lcf_msg m;

	/*
	 * REMOVE_FROM_SWITCH from the last scoreboard row (no requester
	 * thread uses it unless --threads equals threads_per_node).
	 */
	hdr(&m, LCF_T_REMOVE_FROM_SWITCH, n->self, n->self, ++h->probe_seq);
	m.thread = (uint16_t)(n->topo->threads_per_node - 1);
	m.tag = na_home_tag(&n->home, idx);
	na_out_push(out, n->self, &m, NULL);
	h->phase = PH_PROBE;
	h->probe_idx = idx;
	h->probe_ns = na_now_ns();
	n->rec->st.probes++;
}

/* Requests, probes and MIGRATE_ACKs seen by the home. @return consumed. */
static bool
home_watch(struct na_node *n, const struct lcf_msg *m, struct na_out *out)
{
	struct rec_home *h = &n->rec->h;
	int64_t idx = own_block(n, m->tag);

	if (idx < 0)
		return false;
	switch (m->type) {
	case LCF_T_READ_MISS:
	case LCF_T_WRITE_MISS:
	case LCF_T_WRITE_SHARED:
	case LCF_T_EVICT_SHARED:
	case LCF_T_EVICT_MODIFIED:
		/* A tag miss on a block the switch should own. */
		if (!(m->flags & LCF_F_IN_SWITCH) && h->phase == PH_IDLE &&
		    n->home.blk[idx].owner == NA_OWN_SWITCH)
			send_probe(n, (uint32_t)idx, out);
		return false;
	case LCF_T_REMOVE_FROM_SWITCH:
		/* Our probe came back as a tag miss: the switch lost it. */
		if (m->node != n->self || (m->flags & LCF_F_IN_SWITCH) ||
		    m->thread != n->topo->threads_per_node - 1 ||
		    h->phase != PH_PROBE || (uint32_t)idx != h->probe_idx)
			return false;   /* not our probe: the home's business */
		switch_lost(n, out);
		return true;
	case LCF_T_MIGRATE_ACK:
		/* The switch had it: the probe moved it home, metadata intact. */
		if (m->node == n->self && h->phase == PH_PROBE &&
		    (uint32_t)idx == h->probe_idx && !(m->flags & LCF_F_FAIL) &&
		    na_aux_orig_type(m->aux) == LCF_T_REMOVE_FROM_SWITCH &&
		    n->home.blk[idx].owner == NA_OWN_SWITCH) {
			struct na_hblock *b = &n->home.blk[idx];

			b->owner = NA_OWN_HOME;
			b->gs = m->gstatus;
			b->cs = m->copyset;
			b->writer = false;
			b->readers = 0;
			h->phase = PH_IDLE;
			n->rec->st.probe_switch_had_it++;
		}
		return false;
	default:
		return false;
	}
}

static void
on_done_ack(struct na_node *n, const struct lcf_msg *m)
{
	struct rec_home *h = &n->rec->h;

	if (h->phase == PH_DONE && m->seq == h->round)
		h->acked |= na_bit(m->node);
}

bool
na_rec_agents(struct na_node *n, const struct lcf_msg *m, const void *payload,
	      struct na_out *out)
{
	switch (m->type) {
	case NA_MSG_REC_BEGIN:
		on_begin(n, m, payload, out);
		return true;
	case NA_MSG_REC_REPORT:
		on_report(n, m, payload);
		return true;
	case NA_MSG_REC_DATA:
		on_data(n, m, payload);
		return true;
	case NA_MSG_REC_DONE:
		on_done(n, m, out);
		return true;
	case NA_MSG_REC_DONE_ACK:
		on_done_ack(n, m);
		return true;
	default:
		return (n->cfg.roles & NA_ROLE_HOME) && home_watch(n, m, out);
	}
}

/*
 * ADD_TO_SWITCH the recovered blocks (a locked one waits for the next
 * tick; an ADD is idempotent at the switch, so unanswered ones are re-sent).
 */
static void
readd(struct na_node *n, struct na_out *out)
{
	struct rec_home *h = &n->rec->h;
	uint32_t left = 0;

	for (uint32_t i = 0; i < h->n_readd; i++) {
		uint32_t idx = h->readd[i] & ~READD_STARTED;
		bool started = h->readd[i] & READD_STARTED;
		uint8_t owner = n->home.blk[idx].owner;

		if (owner == NA_OWN_SWITCH) {
			n->rec->st.readded++;
			continue;
		}
		if (out->n + 2 >= NA_OUT_MAX) {
			h->readd[left++] = h->readd[i];
			continue;
		}
		if (owner == NA_OWN_MIGRATING) {
			na_home_migrate_resend(&n->home, idx, out);
			h->readd[left++] = h->readd[i];
		} else if (!started) {
			/* Home again after an ADD: a collision; it stays home. */
			if (na_home_migrate_start(&n->home, idx, out) == 0)
				h->readd[left++] = idx | READD_STARTED;
			else
				h->readd[left++] = idx;         /* locked: later */
		}
	}
	h->n_readd = left;
	h->last_ns = na_now_ns();
	if (!left)
		h->phase = PH_IDLE;
}

static void
home_tick(struct na_node *n, uint64_t now, struct na_out *out)
{
	struct rec_home *h = &n->rec->h;
	uint32_t missing;

	switch (h->phase) {
	case PH_PROBE:
		if (now - h->probe_ns > REC_PROBE_NS)
			h->phase = PH_IDLE;     /* NACKed or lost: no conclusion */
		return;
	case PH_IDLE:
		if (h->pending) {
			h->pending = false;
			start_round(n, out);
		}
		return;
	case PH_COLLECT:
		if (collected(n, &missing)) {
			rebuild(n);
			h->phase = PH_DONE;
			send_done(n, h->expect, out);
		} else if (now - h->last_ns > REC_RETX_NS) {
			send_begin(n, missing, out);
		}
		return;
	case PH_READD:
		if (now - h->last_ns > REC_RETX_NS)
			readd(n, out);
		return;
	case PH_DONE:
		if ((h->acked & h->expect) == h->expect)
			start_round(n, out);    /* the next blocks, or finished */
		else if (now - h->last_ns > REC_RETX_NS)
			send_done(n, h->expect & ~h->acked, out);
		return;
	default:
		return;
	}
}

/* ---- memory-node failure: the stop-the-world drain ----------------------- */

/* Does a requester of `node` hold the home-side lock of block `tag`? */
static bool
held_by(const struct na_home *home, uint16_t node, uint64_t tag)
{
	for (uint16_t t = 0; t < home->tpn; t++)
		for (int k = 0; k < 2; k++) {
			const struct na_hheld *hl =
				&home->req[(size_t)node * home->tpn + t].held[k];

			if (hl->valid && hl->tag == tag)
				return true;
		}
	return false;
}

/*
 * Node `dead` is gone. Its pending rounds are void; as a home we freeze
 * every home-owned block it holds a lock on or a copy of, and run recovery
 * rounds over them without it: the survivors abort their events on them
 * (one may wait for the dead node's ACK forever), report their copies, and
 * the rebuilt metadata has no lock and no dead node in any copyset.
 * Switch-owned blocks are not drained (docs/FAULTS.md: the switch's lock
 * of a dead requester can only be cleared by its control plane).
 */
static void
drain(struct na_node *n, uint16_t dead, struct na_out *out)
{
	struct na_rec *r = n->rec;
	struct rec_pend *p = &r->pend[dead];
	struct na_home *home = &n->home;

	pthread_mutex_lock(&r->mu);
	if (p->active) {
		p->active = false;
		__atomic_sub_fetch(&r->n_active, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&r->mu);
	__atomic_or_fetch(&r->dead, na_bit(dead), __ATOMIC_RELEASE);
	r->st.dead_nodes++;
	r->h.expect &= ~na_bit(dead);
	if (!(n->cfg.roles & NA_ROLE_HOME))
		return;
	for (uint32_t i = 0; i < home->n_blocks; i++) {
		struct na_hblock *b = &home->blk[i];

		if (b->owner != NA_OWN_HOME || (!na_cs_has(b->cs, dead) &&
		    !held_by(home, dead, na_home_tag(home, i))))
			continue;
		if (b->gs == LCF_GS_MODIFIED && na_cs_has(b->cs, dead))
			r->st.dead_dirty_lost++;   /* its only copy died */
		b->owner = NA_OWN_RECOVERING;
		r->st.drained_blocks++;
	}
	if (r->h.phase == PH_IDLE || r->h.phase == PH_READD)
		start_round(n, out);
	else
		r->h.pending = true;    /* after the probe or current round */
}

int
dsm_node_failed(struct dsm *d, uint16_t node)
{
	struct na_node *n = &d->node;

	if (node >= LCF_MAX_NODES || node == n->self ||
	    !topo_node_by_id(n->topo, node))
		return -EINVAL;
	__atomic_or_fetch(&n->rec->dead_req, na_bit(node), __ATOMIC_RELEASE);
	return 0;
}

void
na_rec_tick(struct na_node *n, struct na_out *out)
{
	struct na_rec *r = n->rec;
	uint64_t now = na_now_ns();
	uint32_t news;

	if (now < r->next_tick)
		return;
	r->next_tick = now + REC_TICK_NS;
	news = __atomic_load_n(&r->dead_req, __ATOMIC_ACQUIRE) &
	       ~__atomic_load_n(&r->dead, __ATOMIC_ACQUIRE);
	for (uint16_t d = 0; news && d < LCF_MAX_NODES; d++)
		if (na_cs_has(news, d))
			drain(n, d, out);
	if (__atomic_load_n(&r->n_active, __ATOMIC_ACQUIRE))
		for (uint16_t home = 0; home < LCF_MAX_NODES; home++) {
			/* Room for a report and its orphan data. */
			if (out->n + REC_DIRTY * na_seg_count(n->topo->block_size)
			    + 1 >= NA_OUT_MAX)
				break;
			try_report(n, home, out);
		}
	if (n->cfg.roles & NA_ROLE_HOME)
		home_tick(n, now, out);
}

void
na_rec_stats_json(struct na_node *n, FILE *f)
{
	struct na_rec *r = n->rec;
	const char *sep = "";

	fprintf(f, "\"recovery\":{");
#define X_PRINT(name) \
	fprintf(f, "%s\"" #name "\":%" PRIu64, sep, r->st.name); sep = ",";
	REC_COUNTERS(X_PRINT)
#undef X_PRINT
	fprintf(f, "}");
}
