/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The requester: coherence events, write-backs, asynchronous unlocks,
 * retransmission and backoff. See na_requester.h and docs/NODE-AGENT.md.
 *
 * One event: send the request to the block's home node (the switch, if it
 * owns the block, intercepts it), collect the replies until na_collect_done
 * (all ACKs the copyset asks for, the data for a miss), install, compute the
 * new metadata (Figure 6), write back if the data must reach home, then
 * send the unlock asynchronously. At most one unlock is in flight per
 * requester, and a request never starts while an unlock with the same seq
 * parity is unacknowledged (the switch's two scoreboard rows).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "na_directory.h"
#include "na_msg.h"
#include "na_recovery.h"
#include "na_requester.h"
#include "na_seg.h"

int
na_req_init(struct dsm_thread *t, struct dsm *d, uint16_t id)
{
	memset(t, 0, sizeof(*t));
	t->d = d;
	t->n = &d->node;
	t->id = id;
	t->rtt_ns = NA_RTT_INIT_NS;
	t->rng = (uint32_t)(d->node.self * 7919u + id * 104729u + 1u) ^
		 d->node.cfg.seed;
	if (!t->rng)
		t->rng = 1;
	t->buf = malloc(d->topo.block_size);
	t->stale.buf = malloc(d->topo.block_size);
	return t->buf && t->stale.buf ? 0 : -ENOMEM;
}

void
na_req_fini(struct dsm_thread *t)
{
	free(t->buf);
	free(t->stale.buf);
	t->buf = NULL;
	t->stale.buf = NULL;
}

uint32_t
na_req_next_seq(struct dsm_thread *t)
{
	if (++t->seq == 0)
		t->seq = 1;
	return t->seq;
}

static uint32_t
rnd(struct dsm_thread *t)
{
	uint32_t x = t->rng;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return t->rng = x;
}

static uint64_t
rtt(const struct dsm_thread *t)
{
	return t->rtt_ns > NA_RTT_FLOOR_NS ? t->rtt_ns : NA_RTT_FLOOR_NS;
}

static void
rtt_sample(struct dsm_thread *t, uint64_t ns)
{
	t->rtt_ns = t->rtt_ns - t->rtt_ns / 8 + ns / 8;
}

/* `rtts` round trips, doubled per retry so a slow peer is not flooded. */
static uint64_t
timeout(const struct dsm_thread *t, unsigned rtts, uint32_t tries)
{
	uint64_t to = rtt(t) * rtts << (tries < 6 ? tries : 6);

	return to < 200000000ull ? to : 200000000ull;
}

static bool
stopping(const struct dsm_thread *t)
{
	return __atomic_load_n(&t->d->stopping, __ATOMIC_RELAXED);
}

static uint16_t
home_of(const struct dsm_thread *t, uint64_t tag)
{
	return (uint16_t)topo_tag_home(&t->d->topo, tag);
}

/* ---- unlocks -------------------------------------------------------------- */

/* An UNLOCK_ACK (switch) or NA_UNLOCK_ACK (home)? Consume it. */
static bool
on_unlock_ack(struct dsm_thread *t, const struct lcf_msg *m)
{
	if (m->type != LCF_T_UNLOCK_ACK && m->type != NA_MSG_UNLOCK_ACK)
		return false;
	if (t->unl.valid && m->seq == t->unl.m.seq && m->tag == t->unl.m.tag) {
		if (!t->unl.retx)
			rtt_sample(t, na_now_ns() - t->unl.sent_ns);
		t->unl.valid = false;
	} else {
		NA_STAT_INC(t->n->st.req.stale_replies);
	}
	return true;
}

static void
unlock_timer(struct dsm_thread *t, uint64_t now)
{
	if (!t->unl.valid || now < t->unl.deadline_ns)
		return;
	na_node_send(t->n, home_of(t, t->unl.m.tag), &t->unl.m, NULL);
	NA_STAT_INC(t->n->st.req.retransmit_unlock);
	t->unl.retx = true;
	t->unl.tries++;
	t->unl.deadline_ns = now + timeout(t, NA_UNLOCK_TIMEOUT_RTTS,
					   t->unl.tries);
}

/* A reply for the abandoned request of struct na_stale? Collect it. */
static bool
on_stale_mail(struct dsm_thread *t, const struct na_mail *x)
{
	struct na_stale *s = &t->stale;
	const struct lcf_msg *m = &x->m;

	if (!s->valid || m->seq != s->seq || m->tag != s->tag ||
	    m->node != t->n->self)
		return false;
	switch (m->type) {
	case NA_MSG_ACK:
		na_collect_ack(&s->c, na_aux_responder(m->aux), m->gstatus,
			       m->copyset, m->flags & LCF_F_IN_SWITCH);
		break;
	case NA_MSG_DATA:
		if (na_collect_data(&s->c, m->aux, m->len))
			memcpy(s->buf + m->aux, x->payload, m->len);
		break;
	case NA_MSG_DIR_GRANT:
		na_collect_grant(&s->c, na_aux_responder(m->aux), m->gstatus,
				 m->copyset);
		break;
	case LCF_T_ABORT_ACK:
	case NA_MSG_ABORT_ACK:
		if (s->answer == NA_AB_NONE)
			s->answer = m->flags & LCF_F_FAIL ? NA_AB_PASSED
							  : NA_AB_ABORTED;
		break;
	default:
		if (m->type == s->type)         /* returned by the switch */
			na_collect_ack(&s->c, LCF_NODE_NONE, m->gstatus,
				       m->copyset, true);
		if (m->type == LCF_T_NACK || m->type == NA_MSG_NACK)
			s->nacks++;             /* one more copy is dead */
		break;
	}
	return true;
}

/*
 * Wait for a message until `deadline`, consuming unlock ACKs and running the
 * unlock timer on the way (an ACK is handled before the timer looks, so a
 * waiting ACK never causes a spurious retransmission).
 * @return 0 with t->mail set, or -ETIMEDOUT.
 */
static int
wait_mail(struct dsm_thread *t, uint64_t deadline)
{
	for (;;) {
		uint64_t dl = deadline;
		int rc;

		if (t->unl.valid && t->unl.deadline_ns < dl)
			dl = t->unl.deadline_ns;
		rc = na_node_mbox_wait(t->n, t->id, &t->mail, dl);
		if (rc == 0 && (on_unlock_ack(t, &t->mail.m) ||
				on_stale_mail(t, &t->mail)))
			continue;
		unlock_timer(t, na_now_ns());
		if (rc == 0)
			return 0;
		if (dl >= deadline || na_now_ns() >= deadline)
			return -ETIMEDOUT;
	}
}

/* Handle whatever arrived while no event is in progress. */
void
na_req_service(struct dsm_thread *t)
{
	while (wait_mail(t, 0) == 0)
		NA_STAT_INC(t->n->st.req.stale_replies);
}

void
na_req_flush(struct dsm_thread *t)
{
	uint64_t start = na_now_ns();

	while (t->unl.valid) {
		if (wait_mail(t, t->unl.deadline_ns) == 0)
			NA_STAT_INC(t->n->st.req.stale_replies);
		if (t->unl.valid && stopping(t) &&
		    na_now_ns() - start > NA_GIVE_UP_NS) {
			t->unl.valid = false;
			NA_STAT_INC(t->n->st.req.aborted);
		}
	}
}

void
na_req_send_unlock(struct dsm_thread *t, uint8_t type, uint32_t seq, uint64_t tag,
	    uint8_t gs, uint32_t cs)
{
	/* Section 5.3.2: the previous unlock must be acknowledged first. */
	na_req_flush(t);
	memset(&t->unl, 0, sizeof(t->unl));
	t->unl.m.version = LCF_VERSION;
	t->unl.m.type = type;
	t->unl.m.gstatus = gs;
	t->unl.m.node = t->n->self;
	t->unl.m.thread = t->id;
	t->unl.m.seq = seq;
	t->unl.m.copyset = cs;
	t->unl.m.tag = tag;
	t->unl.m.dst_node = home_of(t, tag);
	t->unl.valid = true;
	t->last_unlock_seq = seq;
	t->any_unlock = true;
	t->unl.sent_ns = na_now_ns();
	t->unl.deadline_ns = t->unl.sent_ns +
			     timeout(t, NA_UNLOCK_TIMEOUT_RTTS, 0);
	na_dir_wrap(t->n, &t->unl.m);
	na_node_send(t->n, t->unl.m.dst_node, &t->unl.m, NULL);
	na_rec_idle(t->n->rec, t->id, false);
}


/*
 * Release a lock an abandoned request took late (struct na_stale), with
 * metadata that is true after what its delivery did: a READ_MISS changed
 * nothing but a Modified owner's copy (now clean: we write its data home);
 * a WRITE_MISS invalidated every copy (the data goes home if it was dirty);
 * a WRITE_SHARED invalidated every copy but ours; an eviction changed
 * nothing. Impossible once we sent an unlock with a later seq (the switch's
 * LAST-UNLOCK would ignore this one): counted, the block stays locked.
 */
static void
settle_stale(struct dsm_thread *t)
{
	struct na_stale *s = &t->stale;
	uint8_t type = s->type, unl = LCF_T_WRITE_UNLOCK, gs;
	uint32_t seq = s->seq, cs;
	bool wb = false;

	if (!s->valid || !na_collect_done(&s->c))
		return;
	s->valid = false;
	na_rec_granted(t->n->rec, t->id, s->tag);
	if (t->any_unlock && lcf_seq_after(t->last_unlock_seq, seq)) {
		NA_STAT_INC(t->n->st.req.stale_grants_unreleasable);
		return;
	}
	gs = s->c.gs_old;
	cs = s->c.cs_old;
	switch (type) {
	case LCF_T_READ_MISS:
		unl = LCF_T_READ_UNLOCK;
		wb = gs == LCF_GS_MODIFIED;
		/* Shared even if cs is empty (other readers may be joining);
		 * the switch and home treat an empty Shared like Unshared. */
		gs = LCF_GS_SHARED;
		break;
	case LCF_T_WRITE_MISS:
		wb = gs == LCF_GS_MODIFIED;
		gs = LCF_GS_UNSHARED;
		cs = 0;
		break;
	case LCF_T_WRITE_SHARED: {
		/* Every other copy is gone; is ours still there? */
		struct na_cbucket *b = na_cache_bucket(&t->n->cache, s->tag);
		struct na_centry *e;

		pthread_mutex_lock(&b->mu);
		e = na_cache_find(b, s->tag);
		cs = e && e->state != NA_L_INVALID ? na_bit(t->n->self) : 0;
		pthread_mutex_unlock(&b->mu);
		gs = cs ? LCF_GS_SHARED : LCF_GS_UNSHARED;
		break;
	}
	default:
		break;
	}
	if (wb && na_req_writeback(t, seq, s->tag, s->buf) < 0)
		return;
	na_req_send_unlock(t, unl, seq, s->tag, gs, cs);
	NA_STAT_INC(t->n->st.req.stale_grants_released);
}

/* A copy of the abandoned request, or (`type` ABORT) its ABORT. */
static void
stale_msg(const struct dsm_thread *t, uint8_t type, struct lcf_msg *m)
{
	const struct na_stale *s = &t->stale;

	memset(m, 0, sizeof(*m));
	m->version = LCF_VERSION;
	m->type = type;
	m->node = t->n->self;
	m->thread = t->id;
	m->seq = s->seq;
	m->tag = s->tag;
	m->dst_node = home_of(t, s->tag);
	na_dir_wrap(t->n, m);
}

/*
 * Before a new seq: end the abandoned event. An ABORT (PROTOCOL.md 4.9)
 * asks whoever grants the block's lock (the switch, or the home on a tag
 * miss) whether a copy of the event holds it: if none does, none ever will
 * (no count of NACKs can tell: the network duplicates requests and NACKs).
 * If one does ("a copy passed"), its replies come: collect them all
 * (re-sending the request, which passes on the scoreboard or is answered
 * from LAST-EXECUTED) and release the lock with its own seq. The directory
 * baseline has no ABORT: there the requester waits for one NACK per copy
 * sent, or 500 ms.
 */
static void
quarantine(struct dsm_thread *t)
{
	struct na_stale *s = &t->stale;
	bool dir = t->n->cfg.directory;
	uint64_t start = na_now_ns(), next = start;
	struct lcf_msg req, ab;
	uint32_t tries = 0;

	stale_msg(t, s->type, &req);
	stale_msg(t, LCF_T_ABORT, &ab);
	s->answer = NA_AB_NONE;
	while (s->valid && !na_collect_done(&s->c)) {
		uint64_t now = na_now_ns();
		bool granted = s->c.got_reply || s->answer == NA_AB_PASSED;

		if (s->answer == NA_AB_ABORTED && !s->c.got_reply)
			break;
		if (dir && !granted && (s->nacks >= s->copies ||
					now - start > NA_QUARANTINE_NS))
			break;
		if (now - start > NA_GIVE_UP_NS && stopping(t))
			break;
		/* A recovery round settles the tag's locks (docs/FAULTS.md). */
		if (na_rec_blocked(t->n->rec, s->tag))
			break;
		if (now >= next && (granted || !dir)) {
			/* Granted: re-ask for lost replies; else the ABORT. */
			na_node_send(t->n, req.dst_node, granted ? &req : &ab,
				     NULL);
			if (granted)
				NA_STAT_INC(t->n->st.req.retransmit_request);
			else
				NA_STAT_INC(t->n->st.req.aborts_sent);
			next = now + timeout(t, granted ? NA_REQ_TIMEOUT_RTTS
						       : NA_UNLOCK_TIMEOUT_RTTS,
					     tries++);
		}
		if (wait_mail(t, dir && !granted ? now + 200000 : next) == 0)
			NA_STAT_INC(t->n->st.req.stale_replies);
	}
	if (s->answer == NA_AB_ABORTED)
		NA_STAT_INC(t->n->st.req.aborts_done);
	else if (s->answer == NA_AB_PASSED)
		NA_STAT_INC(t->n->st.req.aborts_passed);
	settle_stale(t);
	s->valid = false;
}

/* Randomised exponential backoff after a NACK, serving the mailbox. */
void
na_req_backoff(struct dsm_thread *t, unsigned attempt)
{
	uint64_t base = rtt(t) / 4, cap = 2000000ull, span, until;

	span = base << (attempt < 10 ? attempt : 10);
	if (span > cap)
		span = cap;
	until = na_now_ns() + rnd(t) % (span + 1);
	while (na_now_ns() < until)
		if (wait_mail(t, until) == 0)
			NA_STAT_INC(t->n->st.req.stale_replies);
	/*
	 * No settle_stale() here: the request we back off from is usually
	 * retried with the same seq, and releasing it would install metadata
	 * the retry then contradicts. Only quarantine() releases.
	 */
}

/* ---- one coherence event --------------------------------------------------- */

/*
 * Recovery (na_recovery.h) before an event on `tag`: wait while a recovery
 * round holds the tag. @return 1 when the retry seq must not be reused (a
 * recovery recorded it as unsettled), 0, or -EHOSTDOWN when the tag's home
 * node was declared dead (dsm_node_failed).
 */
static int
rec_before_event(struct dsm_thread *t, uint64_t tag)
{
	struct na_rec *r = t->n->rec;
	uint64_t start = na_now_ns();
	bool fresh, settled;

	if (na_rec_home_dead(r, tag))
		return -EHOSTDOWN;
	while (na_rec_blocked(r, tag)) {
		if (stopping(t) && na_now_ns() - start > NA_GIVE_UP_NS)
			break;
		na_req_backoff(t, 4);
	}
	fresh = na_rec_resume(r, t->id, t->stale.valid, t->stale.tag, &settled);
	if (settled)
		t->stale.valid = false;
	return fresh ? 1 : 0;
}

static void
on_event_mail(struct dsm_thread *t, uint8_t type, uint32_t seq, uint64_t tag,
	      struct na_collect *c)
{
	const struct lcf_msg *x = &t->mail.m;

	if (x->seq != seq || x->tag != tag) {
		NA_STAT_INC(t->n->st.req.stale_replies);
		return;
	}
	switch (x->type) {
	case LCF_T_NACK:
	case NA_MSG_NACK:
		/* Another copy of this request holds the lock already? */
		if (!c->got_reply)
			c->nacked = true;
		return;
	case NA_MSG_ACK:
		na_collect_ack(c, na_aux_responder(x->aux), x->gstatus,
			       x->copyset, x->flags & LCF_F_IN_SWITCH);
		return;
	case LCF_T_WRITE_SHARED:
	case LCF_T_EVICT_SHARED:
	case LCF_T_EVICT_MODIFIED:
		/* Our own request, returned by the switch: the ACK. */
		if (x->type == type)
			na_collect_ack(c, LCF_NODE_NONE, x->gstatus,
				       x->copyset, true);
		return;
	case NA_MSG_DATA:
		if (na_collect_data(c, x->aux, x->len))
			memcpy(t->buf + x->aux, t->mail.payload, x->len);
		return;
	case NA_MSG_DIR_GRANT:
		na_collect_grant(c, na_aux_responder(x->aux), x->gstatus,
				 x->copyset);
		return;
	default:
		NA_STAT_INC(t->n->st.req.stale_replies);
		return;
	}
}


int
na_req_event(struct dsm_thread *t, uint8_t type, uint64_t tag, struct na_collect *c,
      struct na_retry *rt)
{
	uint16_t home = home_of(t, tag);
	uint64_t sent, deadline, now;
	uint32_t tries = 0, seq;
	struct lcf_msg m;

	switch (rec_before_event(t, tag)) {
	case 0:
		break;
	case 1:
		rt->seq = 0;            /* a recovery recorded that seq */
		break;
	default:
		NA_STAT_INC(t->n->st.req.aborted);
		return NA_EV_ABORT;     /* its home node is dead */
	}
	/* Reuse only while it is our latest seq: seqs never go backwards. */
	if (rt->seq && rt->seq == t->seq && rt->type == type && rt->tag == tag) {
		seq = rt->seq;
		if (t->stale.valid && t->stale.seq == seq) {
			rt->nacks = t->stale.nacks;     /* not abandoned */
			t->stale.valid = false;
		}
	} else {
		if (t->stale.valid)
			quarantine(t);
		seq = na_req_next_seq(t);
		rt->copies = 0;
		rt->nacks = 0;
	}
	rt->seq = seq;
	rt->type = type;
	rt->tag = tag;
	/* Both scoreboard rows in use? Then the older unlock must land. */
	if (t->unl.valid && (t->unl.m.seq & 1) == (seq & 1))
		na_req_flush(t);
	memset(&m, 0, sizeof(m));
	m.version = LCF_VERSION;
	m.type = type;
	m.node = t->n->self;
	m.thread = t->id;
	m.seq = seq;
	m.tag = tag;
	m.dst_node = home;
	na_dir_wrap(t->n, &m);
	na_collect_init(c, type, t->n->self, t->d->topo.block_size);
	NA_STAT_INC(t->n->st.req.events);
	NA_STAT_INC(t->n->st.req.ev_type[type & 15]);
	sent = na_now_ns();
	deadline = sent + timeout(t, NA_REQ_TIMEOUT_RTTS, 0);
	na_rec_sent(t->n->rec, t->id, tag, seq);
	na_node_send(t->n, home, &m, NULL);
	rt->copies++;
	for (;;) {
		if (wait_mail(t, deadline) == 0) {
			if (t->mail.m.seq == seq && (t->mail.m.type == LCF_T_NACK ||
			    t->mail.m.type == NA_MSG_NACK))
				rt->nacks++;
			on_event_mail(t, type, seq, tag, c);
			if (na_collect_done(c))
				break;
		}
		if (na_rec_blocked(t->n->rec, tag)) {
			/* The switch that may hold our lock is gone: abort. */
			rt->seq = 0;
			na_rec_idle(t->n->rec, t->id, true);
			return NA_EV_NACK;
		}
		now = na_now_ns();
		if (now < deadline)
			continue;
		if (stopping(t) && now - sent > NA_GIVE_UP_NS) {
			NA_STAT_INC(t->n->st.req.aborted);
			na_rec_idle(t->n->rec, t->id, false);
			return NA_EV_ABORT;
		}
		/* Same seq: the switch's scoreboard and LAST-EXECUTED dedupe. */
		na_node_send(t->n, home, &m, NULL);
		rt->copies++;
		NA_STAT_INC(t->n->st.req.retransmit_request);
		tries++;
		deadline = now + timeout(t, NA_REQ_TIMEOUT_RTTS, tries);
	}
	if (!tries)
		rtt_sample(t, na_now_ns() - sent);      /* Karn: clean samples */
	if (c->nacked) {
		na_rec_idle(t->n->rec, t->id, false);
		NA_STAT_INC(t->n->st.req.nacks);
		if (rt->nacks < rt->copies || !t->n->cfg.directory) {
			/*
			 * A copy may take the lock later: a network duplicate
			 * is a copy we never counted, so outside the directory
			 * baseline only an ABORT can tell (quarantine()).
			 */
			t->stale.valid = true;
			t->stale.type = type;
			t->stale.seq = seq;
			t->stale.tag = tag;
			t->stale.copies = rt->copies;
			t->stale.nacks = rt->nacks;
			na_collect_init(&t->stale.c, type, t->n->self,
					t->d->topo.block_size);
		}
		return NA_EV_NACK;
	}
	na_rec_granted(t->n->rec, t->id, tag);
	/* Who serialised it: the switch or the home agent (migration's aim). */
	if (c->in_switch)
		NA_STAT_INC(t->n->st.req.events_in_switch);
	else
		NA_STAT_INC(t->n->st.req.events_at_home);
	return NA_EV_OK;
}

/* Write the block home while the event still holds its lock. */
int
na_req_writeback(struct dsm_thread *t, uint32_t seq, uint64_t tag,
		 const uint8_t *data)
{
	uint32_t bs = t->d->topo.block_size;
	uint16_t home = home_of(t, tag);
	uint64_t all = na_seg_all(bs), have = 0, sent = na_now_ns(), deadline;
	uint32_t tries = 0;
	struct lcf_msg m;

	memset(&m, 0, sizeof(m));
	m.version = LCF_VERSION;
	m.node = t->n->self;
	m.thread = t->id;
	m.seq = seq;
	m.tag = tag;
	m.dst_node = home;
	for (;;) {
		/* (Re)send every segment not acknowledged yet. */
		for (uint32_t i = 0; i < na_seg_count(bs); i++) {
			uint32_t off;
			uint16_t len;

			if (have & (1ull << i))
				continue;
			na_seg_span(bs, i, &off, &len);
			m.type = NA_MSG_WB;
			m.aux = off;
			m.len = len;
			na_node_send(t->n, home, &m, data + off);
			if (tries)
				NA_STAT_INC(t->n->st.req.retransmit_writeback);
		}
		deadline = na_now_ns() + timeout(t, NA_REQ_TIMEOUT_RTTS, tries);
		while (have != all && na_now_ns() < deadline) {
			const struct lcf_msg *x = &t->mail.m;

			if (wait_mail(t, deadline) != 0)
				continue;
			if (x->type == NA_MSG_WB_ACK && x->seq == seq &&
			    x->tag == tag && x->aux < bs &&
			    x->aux % NA_MAX_FRAME_PAYLOAD == 0)
				have |= 1ull << (x->aux / NA_MAX_FRAME_PAYLOAD);
			else
				NA_STAT_INC(t->n->st.req.stale_replies);
		}
		if (have == all)
			break;
		if (stopping(t) && na_now_ns() - sent > NA_GIVE_UP_NS)
			return -EINTR;
		tries++;
	}
	NA_STAT_INC(t->n->st.req.writebacks);
	return 0;
}

int
na_req_call(struct dsm_thread *t, uint16_t dst, const struct lcf_msg *m,
	    uint8_t reply_type, struct na_mail *reply)
{
	uint64_t sent = na_now_ns(), deadline;
	uint32_t tries = 0;

	na_node_send(t->n, dst, m, NULL);
	deadline = sent + timeout(t, NA_REQ_TIMEOUT_RTTS, 0);
	for (;;) {
		const struct lcf_msg *x = &t->mail.m;
		uint64_t now;

		if (wait_mail(t, deadline) == 0) {
			if (x->type == reply_type && x->seq == m->seq) {
				*reply = t->mail;
				return 0;
			}
			NA_STAT_INC(t->n->st.req.stale_replies);
			continue;
		}
		now = na_now_ns();
		if (now < deadline)
			continue;
		if (stopping(t) && now - sent > NA_GIVE_UP_NS)
			return -EINTR;
		na_node_send(t->n, dst, m, NULL);
		tries++;
		deadline = now + timeout(t, NA_REQ_TIMEOUT_RTTS, tries);
	}
}
