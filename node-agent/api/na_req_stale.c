/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The abandoned request (struct na_stale in na_requester.h): its quarantine,
 * an ABORT before the thread takes a new seq, and the unlock that releases
 * a lock one of its copies took late (sent by its caller, na_requester.c's
 * na_req_end_stale and na_req_give_up). See docs/NODE-AGENT.md "Abandoned
 * requests: ABORT".
 * Part of the requester (which file owns what: the top of
 * na_requester.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "na_msg.h"
#include "na_recovery.h"
#include "na_req_mail.h"
#include "na_req_queued.h"
#include "na_requester.h"
#include "na_seg.h"

/*
 * The unlock (`u`, after the write-back it needs) that releases a lock an
 * abandoned request took late (struct na_stale), with metadata that is
 * true after what its delivery did: a READ_MISS changed
 * nothing but a Modified owner's copy (now clean: we write its data home);
 * a WRITE_MISS invalidated every copy (the data goes home if it was dirty);
 * a WRITE_SHARED invalidated every copy but ours; an eviction changed
 * nothing. Impossible once we sent an unlock with a later seq (the switch's
 * LAST-UNLOCK would ignore this one): counted, the block stays locked.
 */
static bool
settle_stale(struct dsm_thread *t, struct na_settle *u)
{
	struct na_stale *s = &t->stale;
	uint8_t type = s->type, unl = LCF_T_WRITE_UNLOCK, gs;
	uint32_t seq = s->seq, cs;
	bool wb = false;

	if (!s->valid || (!s->in_cs && !na_collect_done(&s->c)))
		return false;
	s->valid = false;
	na_rec_end(t->n->rec, t->id, s->tag, NA_REC_SETTLED);
	if (t->any_unlock && lcf_seq_after(t->last_unlock_seq, seq)) {
		NA_STAT_INC(t->n->st.req.stale_grants_unreleasable);
		return false;
	}
	gs = s->c.gs_old;
	cs = s->c.cs_old;
	switch (type) {
	case LCF_T_READ_MISS:
		unl = LCF_T_READ_UNLOCK;
		wb = gs == LCF_GS_MODIFIED && !s->c.home_written;
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
		return false;
	u->type = unl;
	u->seq = seq;
	u->tag = s->tag;
	u->gs = gs;
	u->cs = cs;
	NA_STAT_INC(t->n->st.req.stale_grants_released);
	return true;
}

/* Does the node's cache hold a valid copy of `tag` (a sibling's)? */
static bool
node_has_copy(struct dsm_thread *t, uint64_t tag)
{
	struct na_cbucket *b = na_cache_bucket(&t->n->cache, tag);
	struct na_centry *e;
	bool v;

	pthread_mutex_lock(&b->mu);
	e = na_cache_find(b, tag);
	v = e && e->state != NA_L_INVALID;
	pthread_mutex_unlock(&b->mu);
	return v;
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
	m->dst_node = na_req_home_of(t, s->tag);
	na_dir_wrap(t->n, m);
}

/*
 * A recovery round on the tag ended the locks the request's copies held
 * before it (the switch lost them, or the block left it) and recorded the
 * seq at home, but not a lock a late copy takes after the block's re-ADD:
 * forget the replies collected, the ABORT asks afresh
 * (lib/model/miglate.pml).
 */
static void
ask_afresh(struct dsm_thread *t)
{
	struct na_stale *s = &t->stale;

	s->round = false;
	s->rounds = na_rec_rounds(t->n->rec);
	NA_STAT_INC(t->n->st.req.aborts_after_round);
	s->answer = NA_AB_NONE;
	s->in_cs = false;
	na_collect_init(&s->c, s->type, t->n->self, t->d->topo.block_size);
}

/* Wait out a round holding the tag, or begun since the ABORT (it may have
 * ended the lock "a copy passed" spoke of), then ask afresh. @return false
 * when the thread stopped meanwhile (the quarantine is given up). */
static bool
wait_round(struct dsm_thread *t, uint64_t start)
{
	while (na_rec_blocked(t->n->rec, t->stale.tag)) {
		if (na_now_ns() - start > NA_GIVE_UP_NS && na_req_stopping(t))
			return false;
		na_req_backoff(t, 4);
	}
	ask_afresh(t);
	return true;
}

/*
 * Before a new seq: end the abandoned event. An ABORT (PROTOCOL.md 4.9)
 * asks whoever grants the block's lock (the switch, or the home on a tag
 * miss) whether a copy of the event holds it: if none does, none ever will
 * (no count of NACKs can tell: the network duplicates requests and NACKs).
 * If one does ("a copy passed"), its replies come: collect them all
 * (re-sending the request, which passes on the scoreboard or is answered
 * from LAST-EXECUTED) and release the lock with its own seq. The directory
 * baseline's home answers the ABORT the same way (na_home.c abort_event):
 * counting one NACK per copy sent cannot tell either, a network duplicate
 * is a copy never counted (lib/model/dircount.pml).
 *
 * Queued mode: a copy that became the block's waiting writer passed too,
 * and the re-sent request is answered QWAIT or QGRANT, which the node's
 * queue holders take (docs/QUEUED-LOCKS.md 5, "The waiting writer at the
 * node"). As soon as they hold that seq's tenure (na_node_q_holds: waiting
 * as the switch's waiting writer, granted, or passed on), the quarantine
 * ends with nothing to settle: no copy of the seq holds the switch's write
 * lock beside that tenure (the waiting writer's WAITING keeps every copy
 * from taking it), the holders end the tenure, and its QXFER or QRELEASE
 * makes the seq's late copies stale (LAST-UNLOCK).
 */
bool
na_req_quarantine(struct dsm_thread *t, struct na_settle *u)
{
	struct na_stale *s = &t->stale;
	uint64_t start = na_now_ns(), next = start;
	struct lcf_msg req, ab;
	uint32_t tries = 0;
	bool held = false, settle = false;

	stale_msg(t, s->type, &req);
	stale_msg(t, LCF_T_ABORT, &ab);
	s->answer = NA_AB_NONE;
	s->in_cs = false;
	s->rounds = na_rec_rounds(t->n->rec);
	if (s->round)
		ask_afresh(t);
	s->wake = true; /* an answer ends the wait, not the timeout */
	while (s->valid && !na_collect_done(&s->c)) {
		uint64_t now = na_now_ns();
		bool granted = s->c.got_reply || s->answer == NA_AB_PASSED;

		if (granted && s->in_cs && node_has_copy(t, s->tag)) {
			/* lib/model/rthreads.pml: the check refuses every
			 * re-sent copy while our read lock holds; the
			 * sibling's read brought the data (and wrote a
			 * Modified owner's data home): release now. */
			s->c.gs_old = LCF_GS_SHARED;
			s->c.cs_old = na_bit(t->n->self);
			break;
		}

		if (t->n->qt && na_reqq_holds(t, s->tag, s->seq)) {
			held = true; /* the queue holders end the tenure */
			break;
		}
		if (s->answer == NA_AB_ABORTED && !s->c.got_reply)
			break;
		if (now - start > NA_GIVE_UP_NS && na_req_stopping(t))
			break;
		if (na_rec_blocked(t->n->rec, s->tag) ||
		    na_rec_rounds(t->n->rec) != s->rounds) {
			/* Its home is dead: the drain settles its locks. */
			if (na_rec_home_dead(t->n->rec, s->tag) ||
			    !wait_round(t, start)) {
				NA_STAT_INC(t->n->st.req.quarantine_round_exit);
				break;
			}
			next = na_now_ns();
			continue;
		}
		if (now >= next) {
			/* Granted: re-ask for lost replies; else the ABORT. */
			na_req_send_home(t, granted ? &req : &ab,
					 t->local_seq == s->seq, !granted);
			if (granted)
				NA_STAT_INC(t->n->st.req.retransmit_request);
			else
				NA_STAT_INC(t->n->st.req.aborts_sent);
			next = now +
			       na_req_timeout(t,
					      granted ? NA_REQ_TIMEOUT_RTTS
						      : NA_UNLOCK_TIMEOUT_RTTS,
					      tries++);
		}
		if (na_req_wait_mail(t, next) == 0)
			NA_STAT_INC(t->n->st.req.stale_replies);
	}
	s->wake = false;
	if (s->answer == NA_AB_ABORTED)
		NA_STAT_INC(t->n->st.req.aborts_done);
	else if (s->answer == NA_AB_PASSED)
		NA_STAT_INC(t->n->st.req.aborts_passed);
	if (held || s->answer == NA_AB_ABORTED)
		na_req_row_ended(t, s->seq); /* the holders end a tenure */
	if (held)
		NA_STAT_INC(t->n->st.req.aborts_waiting);
	else if (!(settle = settle_stale(t, u)) && s->answer != NA_AB_ABORTED)
		/* Neither an unlock nor an answered ABORT ended the seq: a
		 * lock a copy took may have no holder (a leak's witness). */
		NA_STAT_INC(t->n->st.req.quarantine_unsettled);
	s->valid = false;
	return settle;
}
