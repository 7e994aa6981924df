/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The requester's local side: finding a block in the local cache, waiting
 * for other local threads, evicting, and turning a miss into a coherence
 * event (na_requester.c) whose result it installs. See docs/NODE-AGENT.md
 * "Requester" and "Locks".
 */
#include <errno.h>
#include <string.h>

#include "na_msg.h"
#include "na_req_queued.h"
#include "na_requester.h"
#include "na_wait.h"

/* ---- the local cache side ----------------------------------------------- */

static bool
wants_write(enum na_mode mode)
{
	return mode == NA_M_WRITE || mode == NA_M_PIN_W ||
	       mode == NA_M_RMW_THROUGH;
}

/* Another local thread is in the way? */
static bool
conflict(const struct na_centry *e, uint16_t id, bool write)
{
	uint64_t others = e->pin_r & ~(1ull << id);

	return (e->busy != NA_NOBODY && e->busy != id) ||
	       (e->pin_w != NA_NOBODY && e->pin_w != id) || (write && others);
}

static bool
sufficient(const struct na_centry *e, bool write)
{
	return write ? e->state == NA_L_MODIFIED : e->state != NA_L_INVALID;
}

static void
perform(struct na_centry *e, uint16_t id, enum na_mode mode, uint32_t off,
	uint32_t len, void *buf)
{
	switch (mode) {
	case NA_M_READ:
		memcpy(buf, e->data + off, len);
		break;
	case NA_M_WRITE:
		memcpy(e->data + off, buf, len);
		break;
	case NA_M_PIN_R:
		e->pin_r |= 1ull << id;
		break;
	case NA_M_PIN_W:
		e->pin_w = (int16_t)id;
		break;
	case NA_M_RMW_THROUGH: {
		struct na_rmw *r = buf;

		r->wrote = r->fn(e->data + off, len, r->ctx);
		break;
	}
	}
}

static void
release_busy(struct na_cbucket *b, struct na_centry *e)
{
	pthread_mutex_lock(&b->mu);
	e->busy = NA_NOBODY;
	na_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->mu);
}

/*
 * Wait for another local thread; called with b->mu held, returns with it
 * released. Retry mode: a thread holding an abandoned request (t->stale)
 * ends it first and returns without waiting (the caller looks again), and
 * its access must not reuse that seq (`rt`, or NULL). A copy of it may hold
 * the lock the thread we would wait for needs: a sibling's eviction keeps
 * the entry busy through its refused retries (lib/model/rlocal.pml). Queued
 * mode keeps the entry busy through a NACK's backoff and gives a request
 * up before a hit, so the thread waits behind no lock of its own.
 */
static void
local_wait(struct dsm_thread *t, struct na_cbucket *b, struct na_retry *rt)
{
	uint64_t t0;

	if (t->stale.valid && !t->n->qt) {
		pthread_mutex_unlock(&b->mu);
		NA_STAT_INC(t->n->st.req.aborts_before_wait);
		na_req_end_stale(t);
		if (rt)
			rt->seq = 0;
		return;
	}
	t0 = na_req_trace_t0(t);
	na_cond_wait_until(&b->cv, &b->mu, na_now_ns() + 1000000ull);
	pthread_mutex_unlock(&b->mu);
	/* Keep our own unlock moving: the thread we wait for may need it. */
	na_req_service(t);
	na_req_trace_wait(t, LCF_TP_LWAIT, t0);
}

static int
evict(struct dsm_thread *t, struct na_cbucket *b, struct na_centry *e)
{
	uint32_t bs = t->d->topo.block_size;
	struct na_retry rt = { 0 };

	for (unsigned attempt = 0;; attempt++) {
		struct na_collect c;
		uint32_t seq, cs;
		uint64_t tag;
		uint8_t st, type, gs;
		int ev;

		pthread_mutex_lock(&b->mu);
		st = e->state;
		tag = e->tag;
		if (st == NA_L_INVALID) { /* invalidated meanwhile */
			e->used = false;
			e->busy = NA_NOBODY;
			na_cond_broadcast(&b->cv);
			pthread_mutex_unlock(&b->mu);
			if (rt.seq) /* a NACKed eviction not retried */
				na_req_give_up(t, rt.tag, rt.seq);
			return 0;
		}
		pthread_mutex_unlock(&b->mu);
		type = st == NA_L_MODIFIED ? LCF_T_EVICT_MODIFIED
					   : LCF_T_EVICT_SHARED;
		ev = na_req_event(t, type, tag, &c, &rt);
		seq = rt.seq;
		if (ev == NA_EV_ABORT) {
			release_busy(b, e);
			return -EINTR;
		}
		if (ev == NA_EV_NACK) {
			na_req_backoff(t, attempt);
			continue;
		}
		if (type == LCF_T_EVICT_MODIFIED) {
			bool twin;

			pthread_mutex_lock(&b->mu);
			memcpy(t->buf, e->data, bs);
			twin = e->twin != NULL;
			if (twin)
				memcpy(t->tbuf, e->twin, bs);
			pthread_mutex_unlock(&b->mu);
			if (na_req_writeback_diff(t, seq, tag, t->buf,
						  twin ? t->tbuf : NULL) < 0) {
				release_busy(b, e);
				return -EINTR;
			}
		}
		pthread_mutex_lock(&b->mu);
		e->state = NA_L_INVALID;
		na_centry_twin_free(e);
		e->used = false;
		e->busy = NA_NOBODY;
		na_cond_broadcast(&b->cv);
		pthread_mutex_unlock(&b->mu);
		NA_STAT_INC(t->n->st.req.evictions);
		na_unlock_meta(type, c.gs_old, c.cs_old, t->n->self, &gs, &cs);
		na_req_send_unlock(t, LCF_T_WRITE_UNLOCK, seq, tag, gs, cs);
		return 0;
	}
}

/* A miss (or write to a clean block) on `e`, which we hold busy. */
static int
miss(struct dsm_thread *t, struct na_cbucket *b, struct na_centry *e,
     uint64_t tag, uint8_t type, enum na_mode mode, uint32_t off, uint32_t len,
     void *buf, struct na_retry *rt)
{
	struct na_collect c;
	int ev = na_req_event(t, type, tag, &c, rt);
	uint32_t seq = rt->seq, cs;
	uint8_t gs;

	if (ev != NA_EV_OK) {
		/*
		 * Queued mode: a NACKed request keeps the block busy through
		 * its backoff. Its copy may be queued at a holder and its
		 * Q_GRANT come meanwhile; another local thread claiming the
		 * block would queue behind that grant, which this thread could
		 * then never take (lib/model/qlock-threads.pml; RELBUSY finds it).
		 */
		if (ev != NA_EV_NACK || !t->n->qt)
			release_busy(b, e);
		return ev == NA_EV_NACK ? 1 : -EINTR;
	}
	/* Queued mode may have run it as another request (na_qplan.h). */
	type = c.type;
	pthread_mutex_lock(&b->mu);
	if (!na_type_needs_data(type) && e->state == NA_L_INVALID) {
		/*
		 * WRITE_SHARED granted but our copy is gone: cannot happen
		 * while the lock serialises events; be safe: put the metadata
		 * back unchanged and retry.
		 */
		e->busy = NA_NOBODY;
		na_cond_broadcast(&b->cv);
		pthread_mutex_unlock(&b->mu);
		na_req_send_unlock(t, LCF_T_WRITE_UNLOCK, seq, tag, c.gs_old,
				   c.cs_old);
		rt->seq = 0; /* that seq is spent */
		return 1;
	}
	if (na_type_needs_data(type))
		memcpy(e->data, t->buf, t->d->topo.block_size);
	e->state = type == LCF_T_READ_MISS ? NA_L_SHARED : NA_L_MODIFIED;
	/*
	 * PIPE twin (docs/PIPE.md, the rule lib/model checks): the home's
	 * copy is this data when it came from memory or a sharer (the block
	 * was not Modified) or was ours (WRITE_SHARED); from a Modified owner
	 * the home's copy is older, and the write-back is the whole block.
	 */
	if (t->d->pipe_depth && e->state == NA_L_MODIFIED)
		na_centry_twin(e, t->d->topo.block_size,
			       type == LCF_T_WRITE_SHARED ||
				       c.gs_old != LCF_GS_MODIFIED);
	else if (e->state != NA_L_MODIFIED)
		na_centry_twin_free(e);
	e->ts = na_now_ns();
	perform(e, t->id, mode, off, len, buf);
	if (mode == NA_M_RMW_THROUGH)
		memcpy(t->buf, e->data, t->d->topo.block_size);
	e->busy = NA_NOBODY;
	na_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->mu);

	/* Write-through: home memory gets it while we hold the lock. */
	if (mode == NA_M_RMW_THROUGH && ((struct na_rmw *)buf)->wrote &&
	    na_req_writeback(t, seq, tag, t->buf) < 0)
		return -EINTR;

	/*
	 * Read from a Modified owner: its copy is now clean, so global memory
	 * must get the data before the block can become Unshared. We write
	 * it home while our read lock still holds everybody's writes off,
	 * unless the owner was the home and wrote it there as it answered;
	 * another owner sent it home itself (NA_ACK_OWNER_WB): we wait for
	 * the home's ACKs and re-send from our copy only on a timeout.
	 */
	if (type == LCF_T_READ_MISS && c.gs_old == LCF_GS_MODIFIED &&
	    !c.home_written &&
	    na_req_writeback_rest(t, seq, tag, t->buf, c.wb_have, c.owner_wb))
		return -EINTR;
	na_unlock_meta(type, c.gs_old, c.cs_old, t->n->self, &gs, &cs);
	na_req_send_unlock(t, na_unlock_type(type), seq, tag, gs, cs);
	return 0;
}

static int
access_block(struct dsm_thread *t, uint64_t tag, uint32_t off, uint32_t len,
	     void *buf, enum na_mode mode)
{
	struct na_cbucket *b = na_cache_bucket(&t->n->cache, tag);
	bool write = wants_write(mode);
	struct na_retry rt = { 0 };
	unsigned attempt = 0;

	for (;;) {
		struct na_centry *e, *victim;
		uint8_t type;
		bool found;
		int rc;

		pthread_mutex_lock(&b->mu);
		e = na_cache_lookup(b, tag, (int16_t)t->id, na_now_ns(),
				    &victim, &found);
		if (found) {
			if (conflict(e, t->id, write)) {
				local_wait(t, b, &rt);
				continue;
			}
			if (mode == NA_M_RMW_THROUGH &&
			    e->state == NA_L_MODIFIED) {
				/* No event without a miss: write it home. */
				e->busy = (int16_t)t->id;
				pthread_mutex_unlock(&b->mu);
				if ((rc = evict(t, b, e)) < 0)
					return rc;
				continue;
			}
			if (sufficient(e, write) && rt.seq && t->n->qt) {
				/*
				 * Queued mode, a NACKed request not retried:
				 * end it before the hit. A late copy of it may
				 * hold the lock, which would stay with it until
				 * this thread's next miss while the node keeps
				 * the block (lib/model/qlock-threads.pml,
				 * LATEQ). Then look again.
				 */
				pthread_mutex_unlock(&b->mu);
				na_req_give_up(t, tag, rt.seq);
				rt.seq = 0;
				continue;
			}
			if (sufficient(e, write)) {
				if (e->busy == (int16_t)t->id) {
					/* kept through a NACK's backoff */
					e->busy = NA_NOBODY;
					na_cond_broadcast(&b->cv);
				}
				perform(e, t->id, mode, off, len, buf);
				e->ts = na_now_ns();
				pthread_mutex_unlock(&b->mu);
				NA_STAT_INC(t->n->st.req.hits);
				/* A NACKed request not retried: give it up. */
				if (rt.seq)
					na_req_q_abandon(t, tag, rt.seq);
				return 0;
			}
			e->busy = (int16_t)t->id;
		} else if (victim) {
			victim->busy = (int16_t)t->id;
			pthread_mutex_unlock(&b->mu);
			if ((rc = evict(t, b, victim)) < 0)
				return rc;
			continue;
		} else if (!e) {
			local_wait(t, b, &rt);
			continue;
		}
		type = !write                    ? LCF_T_READ_MISS
		       : e->state == NA_L_SHARED ? LCF_T_WRITE_SHARED
						 : LCF_T_WRITE_MISS;
		pthread_mutex_unlock(&b->mu);
		NA_STAT_INC(t->n->st.req.misses);
		rc = miss(t, b, e, tag, type, mode, off, len, buf, &rt);
		if (rc != 1)
			return rc;
		na_req_backoff(t, attempt++);
	}
}

int
na_req_unpin(struct dsm_thread *t, uint64_t tag)
{
	struct na_cbucket *b = na_cache_bucket(&t->n->cache, tag);
	struct na_centry *e;
	int rc = 0;

	pthread_mutex_lock(&b->mu);
	e = na_cache_find(b, tag);
	if (e && e->pin_w == (int16_t)t->id)
		e->pin_w = NA_NOBODY;
	else if (e && (e->pin_r & (1ull << t->id)))
		e->pin_r &= ~(1ull << t->id);
	else
		rc = -ENOENT;
	na_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->mu);
	if (rc == 0)
		na_node_run_deferred(t->n); /* requests we held off */
	return rc;
}

int
na_req_drop(struct dsm_thread *t, uint64_t tag)
{
	struct na_cbucket *b = na_cache_bucket(&t->n->cache, tag);

	for (;;) {
		struct na_centry *e;

		pthread_mutex_lock(&b->mu);
		e = na_cache_find(b, tag);
		if (e == NULL ||
		    (e->state == NA_L_INVALID && e->busy == NA_NOBODY)) {
			pthread_mutex_unlock(&b->mu);
			return 0;
		}
		if (e->pin_w != NA_NOBODY || e->pin_r) {
			pthread_mutex_unlock(&b->mu);
			return -EBUSY;
		}
		if (e->busy != NA_NOBODY) {
			local_wait(t, b, NULL);
			continue;
		}
		e->busy = (int16_t)t->id;
		pthread_mutex_unlock(&b->mu);
		return evict(t, b, e);
	}
}

/* One block access; 1 in trace_every of a thread's accesses is traced
 * with every event and wait in it (lcf_trace.h). */
int
na_req_access(struct dsm_thread *t, uint64_t tag, uint32_t off, uint32_t len,
	      void *buf, enum na_mode mode)
{
	uint32_t every = t->n->tr.every, seq0;
	int rc;

	if (__builtin_expect(every == 0, 1) || ++t->tr_ops % every != 0)
		return access_block(t, tag, off, len, buf, mode);
	t->tr_op = true;
	seq0 = t->seq;
	na_req_trace(t, LCF_TP_OP_BEGIN, (uint8_t)mode, seq0, LCF_TRACE_NO_PEER,
		     tag);
	rc = access_block(t, tag, off, len, buf, mode);
	na_req_trace(t, LCF_TP_OP_END, (uint8_t)mode, seq0, LCF_TRACE_NO_PEER,
		     t->seq == seq0);
	t->tr_op = false;
	return rc;
}
