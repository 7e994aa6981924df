/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The requester's local side: finding a block in the local cache, hits,
 * waiting for other local threads, choosing a victim; a miss or an
 * eviction is one call into na_requester.c (na_req_miss, na_req_evict),
 * which runs its event through the unlock. See docs/NODE-AGENT.md
 * "Requester" and "Locks".
 */
#include <errno.h>

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
				if ((rc = na_req_evict(t, b, e)) < 0)
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
				na_req_perform(e, t->id, mode, off, len, buf);
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
			if ((rc = na_req_evict(t, b, victim)) < 0)
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
		rc = na_req_miss(t, b, e, tag, type, mode, off, len, buf, &rt);
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
		return na_req_evict(t, b, e);
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
