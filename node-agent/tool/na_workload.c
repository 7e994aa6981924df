/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Workloads; see na_workload.h.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "na_node.h"
#include "na_requester.h"
#include "na_wait.h"
#include "na_workload.h"

#define COUNTER_SLOTS 8 /* per block: slot 0 counter, 1..7 data */

struct wl_thread {
	na_thread_t tid;
	struct dsm *d;
	const struct na_wl_config *cfg;
	struct na_history *h;
	volatile int *stop;
	const double *zipf_cdf; /* shared_blocks entries, or NULL */
	uint16_t id;
	uint32_t rng;
	struct na_wl_result r;
	int rc;
};

int
na_workload_parse(const char *s)
{
	if (!strcmp(s, "none"))
		return NA_WL_NONE;
	if (!strcmp(s, "micro"))
		return NA_WL_MICRO;
	if (!strcmp(s, "counter"))
		return NA_WL_COUNTER;
	if (!strcmp(s, "poll"))
		return NA_WL_POLL;
	if (!strcmp(s, "rwlock"))
		return NA_WL_RWLOCK;
	return -1;
}

static uint32_t
rnd(struct wl_thread *w)
{
	uint32_t x = w->rng;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return w->rng = x;
}

static double
frand(struct wl_thread *w)
{
	return (rnd(w) >> 8) / (double)(1u << 24);
}

/* Shared block i, spread round-robin over the home nodes. */
static dsm_addr_t
shared_block(const struct dsm *d, uint32_t i)
{
	const struct topo *t = &d->topo;

	return dsm_static_addr(t->nodes[i % t->n_nodes].id,
			       (uint64_t)(i / t->n_nodes) * t->block_size);
}

/* Cumulative Zipf(theta) distribution over n ranks. NULL: no memory. */
static double *
zipf_cdf_make(uint32_t n, double theta)
{
	double *cdf = malloc(sizeof(*cdf) * n), sum = 0;

	if (!cdf)
		return NULL;
	for (uint32_t i = 0; i < n; i++)
		cdf[i] = sum += pow(i + 1.0, -theta);
	for (uint32_t i = 0; i < n; i++)
		cdf[i] /= sum;
	return cdf;
}

/* A shared block index: uniform, or Zipf by binary search in the CDF. */
static uint32_t
shared_pick(struct wl_thread *w)
{
	uint32_t lo = 0, hi = w->cfg->shared_blocks - 1;
	double u;

	if (!w->zipf_cdf)
		return rnd(w) % w->cfg->shared_blocks;
	u = frand(w);
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (w->zipf_cdf[mid] > u)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static bool
done(struct wl_thread *w, uint64_t start)
{
	double rate = w->cfg->max_rate;

	if (rate > 0) {
		/* Pace: the (ops+1)-th operation starts no earlier than
		 * start + ops / rate. */
		uint64_t due = start + (uint64_t)(w->r.ops * 1e9 / rate);
		uint64_t now = na_now_ns();

		if (due > now && !*w->stop)
			na_sleep_until(due);
	}
	if (*w->stop)
		return true;
	return w->cfg->duration_s > 0 &&
	       na_now_ns() - start >= (uint64_t)(w->cfg->duration_s * 1e9);
}

static void
run_micro(struct wl_thread *w)
{
	const struct na_wl_config *c = w->cfg;
	struct dsm_thread *t = dsm_thread(w->d, w->id);
	uint32_t bs = dsm_block_size(w->d), sz = c->op_size;
	dsm_addr_t priv, last_shared, last_priv, a;
	uint64_t start = na_now_ns(), n = 0;
	uint8_t buf[NA_MAX_BLOCK];

	priv = dsm_malloc(t, (size_t)c->private_blocks * bs, -1);
	if (!priv) {
		w->rc = -ENOMEM;
		return;
	}
	last_shared = shared_block(w->d, 0);
	last_priv = priv;
	memset(buf, 0, sizeof(buf));
	while (!done(w, start)) {
		bool shared = frand(w) < c->sharing_ratio;
		bool reuse = frand(w) < c->locality;
		bool read = frand(w) < c->read_ratio || c->read_only;
		uint64_t t0, value;
		int rc;

		if (shared)
			a = reuse ? last_shared
				  : shared_block(w->d, shared_pick(w));
		else
			a = reuse ? last_priv
				  : priv + (uint64_t)(rnd(w) %
						      c->private_blocks) *
						    bs;
		if (shared)
			last_shared = a;
		else
			last_priv = a;
		a += (uint64_t)(rnd(w) % (bs / sz)) * sz;
		value = (uint64_t)t->n->self << 48 | (uint64_t)w->id << 40 |
			++n;
		t0 = na_now_ns();
		if (read) {
			rc = dsm_read(t, a, buf, sz);
		} else {
			memcpy(buf, &value, sz < 8 ? sz : 8);
			rc = dsm_write(t, a, buf, sz);
		}
		if (rc < 0) {
			w->r.errors++;
			break;
		}
		if (sz == 8) {
			memcpy(&value, buf, 8);
			na_history_op(w->h, w->id, read ? "read" : "write", a,
				      value, t0, na_now_ns());
		}
		w->r.ops++;
		if (read)
			w->r.reads++;
		else
			w->r.writes++;
	}
}

/* The block's counter (its first 8 bytes) under its lock: read under a
 * read lock, or read and incremented under the write lock. *v gets the
 * value read, or the value written. Returns 0 or the first error. */
static int
locked_counter(struct dsm_thread *t, dsm_addr_t blk, bool incr, uint64_t *v)
{
	int rc = incr ? dsm_wlock(t, blk) : dsm_rlock(t, blk);

	if (rc < 0)
		return rc;
	rc = dsm_read(t, blk, v, 8);
	if (rc == 0 && incr) {
		(*v)++;
		rc = dsm_write(t, blk, v, 8);
	}
	if (dsm_unlock(t, blk) < 0 && rc == 0)
		rc = -EIO;
	return rc;
}
static void
run_counter(struct wl_thread *w)
{
	const struct na_wl_config *c = w->cfg;
	struct dsm_thread *t = dsm_thread(w->d, w->id);
	uint64_t start = na_now_ns(), n = 0;

	while (!done(w, start)) {
		dsm_addr_t blk = shared_block(w->d, rnd(w) % c->shared_blocks);
		uint32_t kind = rnd(w) % 3;
		uint64_t t0 = na_now_ns(), v = 0;
		dsm_addr_t a;
		int rc;

		if (c->read_only)
			kind = 0;

		if (kind == 2) {
			/* Increment under the block's write lock. */
			a = blk;
			rc = locked_counter(t, blk, true, &v);
			if (rc < 0) {
				w->r.errors++;
				break;
			}
			na_history_op(w->h, w->id, "incr", a, v, t0,
				      na_now_ns());
			w->r.incrs++;
		} else {
			a = blk + 8 * (1 + rnd(w) % (COUNTER_SLOTS - 1));
			if (kind == 0) {
				rc = dsm_read(t, a, &v, 8);
			} else {
				v = (uint64_t)t->n->self << 48 |
				    (uint64_t)w->id << 40 | ++n;
				rc = dsm_write(t, a, &v, 8);
			}
			if (rc < 0) {
				w->r.errors++;
				break;
			}
			na_history_op(w->h, w->id, kind ? "write" : "read", a,
				      v, t0, na_now_ns());
			if (kind)
				w->r.writes++;
			else
				w->r.reads++;
		}
		w->r.ops++;
	}
}

/* rwlock: the lock benchmark's KV shape (dsm_kv --rwlock): a read of the
 * block's counter under dsm_rlock, or an increment under dsm_wlock. */
static void
run_rwlock(struct wl_thread *w)
{
	struct dsm_thread *t = dsm_thread(w->d, w->id);
	uint64_t start = na_now_ns();

	while (!done(w, start)) {
		dsm_addr_t blk = shared_block(w->d, shared_pick(w));
		bool read = frand(w) < w->cfg->read_ratio || w->cfg->read_only;
		uint64_t t0 = na_now_ns(), v = 0;
		int rc = locked_counter(t, blk, !read, &v);

		if (rc < 0) {
			w->r.errors++;
			break;
		}
		na_history_op(w->h, w->id, read ? "read" : "incr", blk, v, t0,
			      na_now_ns());
		if (read)
			w->r.reads++;
		else
			w->r.incrs++;
		w->r.ops++;
	}
}

/* poll: one updater writing every data slot each period, readers. */
static void
run_poll(struct wl_thread *w)
{
	const struct na_wl_config *c = w->cfg;
	struct dsm_thread *t = dsm_thread(w->d, w->id);
	bool updater = w->id == 0 && !c->read_only &&
		       (t->n->self == c->updater_node ||
			c->updater_node == NA_WL_ALL_NODES);
	double period = c->update_period_s > 0 ? c->update_period_s : 1.0;
	uint64_t start = na_now_ns(), n = 0, next = start;

	while (!*w->stop && !(c->duration_s > 0 &&
			      na_now_ns() - start >= c->duration_s * 1e9)) {
		uint64_t t0, v = 0;
		dsm_addr_t a;
		int rc = 0;

		if (updater) {
			if (na_now_ns() < next) {
				na_sleep_until(next);
				continue;
			}
			next += (uint64_t)(period * 1e9);
			for (uint32_t b = 0; b < c->shared_blocks && !rc; b++)
				for (uint32_t s = 1; s < COUNTER_SLOTS && !rc;
				     s++) {
					a = shared_block(w->d, b) + 8 * s;
					v = (uint64_t)t->n->self << 48 | ++n;
					t0 = na_now_ns();
					rc = dsm_write(t, a, &v, 8);
					if (!rc)
						na_history_op(w->h, w->id,
							      "write", a, v, t0,
							      na_now_ns());
					w->r.writes++;
					w->r.ops++;
				}
		} else {
			a = shared_block(w->d, rnd(w) % c->shared_blocks) +
			    8 * (1 + rnd(w) % (COUNTER_SLOTS - 1));
			t0 = na_now_ns();
			rc = dsm_read(t, a, &v, 8);
			if (!rc)
				na_history_op(w->h, w->id, "read", a, v, t0,
					      na_now_ns());
			w->r.reads++;
			w->r.ops++;
			if (c->max_rate > 0)
				na_sleep_until(t0 +
					       (uint64_t)(1e9 / c->max_rate));
		}
		if (rc < 0) {
			w->r.errors++;
			break;
		}
	}
}

static void *
wl_main(void *arg)
{
	struct wl_thread *w = arg;

	if (w->cfg->kind == NA_WL_POLL)
		run_poll(w);
	else if (w->cfg->kind == NA_WL_MICRO)
		run_micro(w);
	else if (w->cfg->kind == NA_WL_RWLOCK)
		run_rwlock(w);
	else
		run_counter(w);
	/* Nobody retransmits our last unlock once we stop: settle it. */
	dsm_sync(dsm_thread(w->d, w->id));
	return NULL;
}

int
na_workload_run(struct dsm *d, const struct na_wl_config *cfg,
		struct na_history *h, volatile int *stop,
		struct na_wl_result *res)
{
	struct wl_thread *w;
	double *zipf = NULL;
	uint64_t start;
	int rc = 0;

	memset(res, 0, sizeof(*res));
	if (cfg->kind == NA_WL_NONE)
		return 0;
	if (!cfg->shared_blocks || !cfg->op_size ||
	    cfg->op_size > dsm_block_size(d) ||
	    dsm_block_size(d) % cfg->op_size || !cfg->private_blocks)
		return -EINVAL;
	if (cfg->zipf > 0 &&
	    (cfg->kind == NA_WL_MICRO || cfg->kind == NA_WL_RWLOCK) &&
	    !(zipf = zipf_cdf_make(cfg->shared_blocks, cfg->zipf)))
		return -ENOMEM;
	for (uint32_t b = 0; cfg->kind == NA_WL_POLL && b < cfg->shared_blocks;
	     b++) {
		rc = dsm_set_policy(d, shared_block(d, b), dsm_block_size(d),
				    cfg->policy, cfg->ttl_us);
		if (rc) {
			free(zipf);
			return rc;
		}
	}
	w = calloc(cfg->threads, sizeof(*w));
	if (!w) {
		free(zipf);
		return -ENOMEM;
	}
	start = na_now_ns();
	for (uint16_t i = 0; i < cfg->threads; i++) {
		w[i] = (struct wl_thread){
			.d = d,
			.cfg = cfg,
			.h = h,
			.stop = stop,
			.id = i,
			.zipf_cdf = zipf,
			.rng = (cfg->seed + 1) * 2654435761u ^
			       (d->node.self + 1u) * 40503u ^ (i + 1u) * 9973u,
		};
		if (!w[i].rng)
			w[i].rng = 1;
		if (na_thread_start(&w[i].tid, wl_main, &w[i])) {
			rc = -EAGAIN;
			*stop = 1;
			for (uint16_t j = 0; j < i; j++)
				na_thread_join(w[j].tid);
			free(w);
			free(zipf);
			return rc;
		}
	}
	for (uint16_t i = 0; i < cfg->threads; i++) {
		na_thread_join(w[i].tid);
		res->ops += w[i].r.ops;
		res->reads += w[i].r.reads;
		res->writes += w[i].r.writes;
		res->incrs += w[i].r.incrs;
		res->errors += w[i].r.errors;
		if (w[i].rc)
			rc = w[i].rc;
	}
	res->seconds = (na_now_ns() - start) / 1e9;
	free(w);
	free(zipf);
	return rc;
}

int
na_workload_final_reads(struct dsm *d, const struct na_wl_config *cfg,
			struct na_history *h, uint16_t tid)
{
	struct dsm_thread *t = dsm_thread(d, tid);
	uint32_t bs = dsm_block_size(d), words;
	uint64_t *buf, t0;
	int rc = 0;

	/* The words the workload writes (and records, 8-byte ops only). */
	if (cfg->kind == NA_WL_MICRO)
		words = cfg->op_size == 8 ? bs / 8 : 0;
	else if (cfg->kind == NA_WL_RWLOCK)
		words = 1;
	else if (cfg->kind == NA_WL_POLL && cfg->policy == DSM_POLICY_TTL)
		words = 0; /* stale within the TTL by design */
	else
		words = COUNTER_SLOTS;
	if (!words || cfg->kind == NA_WL_NONE)
		return 0;
	buf = malloc(bs);
	if (!buf)
		return -ENOMEM;
	for (uint32_t b = 0; b < cfg->shared_blocks && !rc; b++) {
		dsm_addr_t blk = shared_block(d, b);

		t0 = na_now_ns();
		rc = dsm_read(t, blk, buf, words * 8);
		for (uint32_t i = 0; !rc && i < words; i++)
			na_history_op(h, tid, "read", blk + 8ull * i, buf[i],
				      t0, na_now_ns());
	}
	free(buf);
	dsm_sync(t); /* the last read's unlock, as after a workload */
	return rc;
}
