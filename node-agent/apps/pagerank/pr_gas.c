/* SPDX-License-Identifier: BSD-3-Clause
 *
 * pr_gas: the gather-apply-scatter iterations of one application thread
 * (pr_engine.h). Per iteration k, for each vertex v of the thread's share:
 *
 *   gather   read v's in-edge list from global memory, and for each source
 *            u the contribution r_k(u) / out(u) from vals[k & 1] at u's
 *            owner (through the local cache: a block is fetched once per
 *            iteration, when its owner rewrote it in the previous one);
 *   apply    r_{k+1}(v) = (1 - d) / n + d * (sum + D_k / n) (pr_ref.h);
 *   scatter  publish r_{k+1}(v) and r_{k+1}(v) / out(v) in vals[(k+1) & 1]
 *            for v's out-neighbours to gather next time, and add r_{k+1}(v)
 *            to the thread's dangling slot if out(v) = 0.
 *
 * Then the node's threads meet (local barrier), thread 0 enters the cluster
 * barrier (app_barrier), and at the start of the next iteration thread 0
 * sums every node's dangling slots into D_{k+1} while the others wait at
 * the local barrier. Dangling slots are double-buffered like the values.
 */
#include <errno.h>
#include <stddef.h>

#include "pr_engine.h"
#include "pr_ref.h"

#define VCHUNK 256  /* vertex records read / values written per call */
#define ECHUNK 1024 /* in-edges read per call */

/* A thread's failure: the node's other threads are released. */
static int
fail(struct pr_engine *e, int rc)
{
	atomic_store(&e->failed, 1);
	pr_lbar_break(&e->bar);
	return rc;
}

/* D_k: every node's dangling slots of parity `par`, in node order. */
static int
read_dangling(const struct pr_engine *e, struct dsm_thread *t, unsigned par,
	      double *out)
{
	uint16_t nt = e->a->o.threads;
	double slot[256], d = 0;
	int rc;

	for (uint16_t k = 0; k < e->a->o.nodes; k++) {
		rc = dsm_read(t, pr_dangling_addr(e, k, par, 0), slot,
			      nt * sizeof(*slot));
		if (rc != 0)
			return rc;
		for (uint16_t j = 0; j < nt; j++)
			d += slot[j];
	}
	*out = d;
	return 0;
}

/* Sum of r_k(u) / out(u) over v's in-edges, in the edges' order. */
static int
gather(const struct pr_engine *e, struct dsm_thread *t, const struct pr_vrec *v,
       unsigned cur, uint32_t *ebuf, double *sum)
{
	const struct pr_hdr *h = &e->hdr[e->a->o.node];
	const struct pr_part *p = e->p;
	double s = 0, c;
	int rc;

	for (uint32_t off = 0; off < v->in_count; off += ECHUNK) {
		uint32_t cnt = v->in_count - off < ECHUNK ? v->in_count - off
							  : ECHUNK;

		rc = dsm_read(t,
			      h->edges + ((uint64_t)v->in_begin + off) *
						 sizeof(*ebuf),
			      ebuf, cnt * sizeof(*ebuf));
		if (rc != 0)
			return rc;
		for (uint32_t j = 0; j < cnt; j++) {
			uint32_t u = ebuf[j];
			const struct pr_hdr *o;

			if (u >= p->n)
				return -EPROTO;
			o = &e->hdr[p->owner[u]];
			rc = dsm_read(t,
				      o->vals +
					      ((uint64_t)cur * o->nlocal +
					       p->idx[u]) *
						      sizeof(struct pr_val) +
					      offsetof(struct pr_val, contrib),
				      &c, sizeof(c));
			if (rc != 0)
				return rc;
			s += c;
		}
	}
	*sum = s;
	return 0;
}

/* One iteration over local vertices lo .. hi-1; *dang gets their
 * dangling mass. */
static int
sweep(struct pr_engine *e, struct dsm_thread *t, uint16_t th, unsigned cur,
      uint32_t lo, uint32_t hi, double *dang)
{
	const struct pr_hdr *h = &e->hdr[e->a->o.node];
	struct pr_vrec vr[VCHUNK];
	struct pr_val out[VCHUNK];
	uint32_t ebuf[ECHUNK], cnt;
	double s, r, d = 0;
	int rc;

	for (uint32_t i = lo; i < hi; i += cnt) {
		cnt = hi - i < VCHUNK ? hi - i : VCHUNK;
		rc = dsm_read(t, h->vtx + (uint64_t)i * sizeof(*vr), vr,
			      cnt * sizeof(*vr));
		for (uint32_t j = 0; rc == 0 && j < cnt; j++) {
			rc = gather(e, t, &vr[j], cur, ebuf, &s);
			if (rc != 0)
				break;
			r = pr_apply(s, e->dangling, e->damping, e->g->n);
			out[j].rank = r;
			out[j].contrib = pr_contrib(r, vr[j].outdeg);
			if (vr[j].outdeg == 0)
				d += r;
			atomic_fetch_add_explicit(&e->a->cnt[th].ops, 1,
						  memory_order_relaxed);
		}
		if (rc == 0)
			rc = dsm_write(t,
				       h->vals + ((uint64_t)(cur ^ 1) *
							  h->nlocal +
						  i) * sizeof(*out),
				       out, cnt * sizeof(*out));
		if (rc != 0)
			return rc;
	}
	*dang = d;
	return 0;
}

int
pr_engine_thread(struct app *a, uint16_t th, void *arg)
{
	struct pr_engine *e = arg;
	struct dsm_thread *t = dsm_thread(a->d, th);
	uint16_t me = (uint16_t)a->o.node;
	uint64_t nl = e->hdr[me].nlocal;
	uint32_t lo = (uint32_t)(nl * th / a->o.threads);
	uint32_t hi = (uint32_t)(nl * (th + 1u) / a->o.threads);
	double dang;
	int rc = 0;

	for (unsigned k = 0; k < e->warmup + e->iterations; k++) {
		unsigned cur = k & 1;

		if (th == 0 && (rc = read_dangling(e, t, cur, &e->dangling)))
			return fail(e, rc);
		if (pr_lbar_wait(&e->bar) != 0)
			return -ECANCELED;
		rc = sweep(e, t, th, cur, lo, hi, &dang);
		if (rc == 0)
			rc = dsm_write(t, pr_dangling_addr(e, me, cur ^ 1, th),
				       &dang, sizeof(dang));
		if (rc != 0)
			return fail(e, rc);
		if (pr_lbar_wait(&e->bar) != 0)
			return -ECANCELED;
		if (th == 0) {
			rc = app_barrier(a, t);
			/* The others wait at the local barrier: nothing
			 * counts while the measured phase starts. */
			if (rc == 0 && k + 1 == e->warmup)
				rc = app_measure_from_now(a);
			if (rc != 0)
				return fail(e, rc);
			if (k >= e->warmup)
				e->iter_end_ns[k - e->warmup] = app_now_ns();
		}
	}
	return 0;
}
