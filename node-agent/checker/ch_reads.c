/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The register checks of one address, check_history.py's _check_reads and
 * _check_zones, with the same order and messages (its docstrings explain
 * them; comments here say where the C differs in how, never in what):
 * values are found through a hash table instead of the Python's dicts.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ch.h"

#define OP(c, i) (&(c)->h->ops[(i)])

void
ch_values_build(struct ch_ctx *c, struct ch_values *v, const uint32_t *ws,
		size_t nw)
{
	ch_hmap_init(&v->m, nw);
	for (size_t p = 0; p < nw; p++) {
		size_t before = v->m.n;
		uint32_t d = ch_hmap_id(&v->m, OP(c, ws[p])->value, 1);

		c->next[p] = UINT32_MAX;
		if (v->m.n > before) {
			c->head[d] = c->tail[d] = (uint32_t)p;
			c->count[d] = 1;
		} else {
			c->next[c->tail[d]] = (uint32_t)p;
			c->tail[d] = (uint32_t)p;
			c->count[d]++;
		}
	}
	v->ndistinct = v->m.n;
}

/* The first write that starts after after_end and ends before
 * before_start (skew applied), or UINT32_MAX. */
static uint32_t
overwriter(const struct ch_ctx *c, size_t n, ch_int after_end,
	   ch_int before_start)
{
	size_t i = ch_bisect(c->starts, n, after_end + c->skew, 1);

	if (i < n && c->sme[i] + c->skew < before_start)
		return c->sarg[i];
	return UINT32_MAX;
}

void
ch_check_reads(struct ch_ctx *c, ch_int addr, const uint32_t *rs, size_t nr,
	       const uint32_t *ws, size_t nw, struct ch_values *v)
{
	char a[CH_NUMBUF], x[CH_NUMBUF];
	ch_int best = CH_POS_INF;
	uint32_t arg = UINT32_MAX;

	if (nr == 0)
		return;
	c->res->stats[CH_S_READS] += nr;
	for (size_t p = 0; p < nw; p++) {
		c->kd[p].k = OP(c, ws[p])->start;
		c->kd[p].i = ws[p];
	}
	ch_sort_keyed(c->kd, nw, c->tmp);
	c->sme[nw] = CH_POS_INF;
	for (size_t i = nw; i-- > 0;) {
		const struct ch_op *w = OP(c, c->kd[i].i);

		c->starts[i] = c->kd[i].k;
		if (w->end < best) {
			best = w->end;
			arg = c->kd[i].i;
		}
		c->sme[i] = best;
		c->sarg[i] = arg;
	}
	ch_fmt_hex(a, addr);
	for (size_t k = 0; k < nr; k++) {
		const struct ch_op *r = OP(c, rs[k]);
		uint32_t d = ch_hmap_id(&v->m, r->value, 0), w2, why_w = 0;
		uint32_t why_w2 = 0;
		int why = -1;
		char *rr, *wr, *w2r;

		if (r->value == 0) {
			w2 = overwriter(c, nw, CH_NEG_INF, r->start);
			if (w2 == UINT32_MAX)
				continue;
			if (d == UINT32_MAX) {
				rr = ch_op_repr(c->h, r);
				w2r = ch_op_repr(c->h, OP(c, w2));
				ch_bad(c->res, CH_V_STALE_READ,
				       "%s: %s returned the initial value 0 but "
				       "%s had completed before it started",
				       a, rr, w2r);
				free(rr);
				free(w2r);
				continue;
			}
		}
		if (d == UINT32_MAX) {
			rr = ch_op_repr(c->h, r);
			ch_bad(c->res, CH_V_VALUE_NEVER_WRITTEN,
			       "%s: %s returned %s, which no write wrote", a,
			       rr, ch_fmt_int(x, r->value));
			free(rr);
			continue;
		}
		if (c->count[d] > 1)
			c->res->stats[CH_S_AMBIGUOUS_READS]++;
		for (uint32_t p = c->head[d]; p != UINT32_MAX; p = c->next[p]) {
			const struct ch_op *w = OP(c, ws[p]);

			if (w->start > r->end + c->skew) {
				why = CH_V_FROM_FUTURE;
				why_w = ws[p];
				continue;
			}
			w2 = overwriter(c, nw, w->end, r->start);
			if (w2 != UINT32_MAX) {
				why = CH_V_STALE_READ;
				why_w = ws[p];
				why_w2 = w2;
				continue;
			}
			why = -1;
			break;
		}
		if (why < 0)
			continue;
		rr = ch_op_repr(c->h, r);
		wr = ch_op_repr(c->h, OP(c, why_w));
		if (why == CH_V_FROM_FUTURE) {
			ch_bad(c->res, CH_V_FROM_FUTURE,
			       "%s: %s returned the value of %s, which started "
			       "after the read ended",
			       a, rr, wr);
		} else {
			w2r = ch_op_repr(c->h, OP(c, why_w2));
			ch_bad(c->res, CH_V_STALE_READ,
			       "%s: %s returned %s written by %s, but %s "
			       "overwrote it and completed before the read "
			       "started",
			       a, rr, ch_fmt_int(x, r->value), wr, w2r);
			free(w2r);
		}
		free(rr);
		free(wr);
	}
}

struct zone {
	ch_int e, s, v; /* forward: (min end, max start); backward swapped */
};

static int
zone_cmp(const void *pa, const void *pb)
{
	const struct zone *a = pa, *b = pb;

	if (a->e != b->e)
		return a->e < b->e ? -1 : 1;
	if (a->s != b->s)
		return a->s < b->s ? -1 : 1;
	return a->v < b->v ? -1 : a->v > b->v;
}

/* Gibbons and Korach's zones (check_history.py's _check_zones). */
void
ch_check_zones(struct ch_ctx *c, ch_int addr, const uint32_t *rs, size_t nr,
	       const uint32_t *ws, struct ch_values *v)
{
	size_t nz = v->ndistinct, nf = 0, nb = 0;
	struct zone *z = ch_xrealloc(NULL, (nz + 1) * sizeof(*z));
	struct zone *fwd = ch_xrealloc(NULL, (nz + 1) * sizeof(*z));
	struct zone *bwd = ch_xrealloc(NULL, (nz + 1) * sizeof(*z));
	char a[CH_NUMBUF], n[6][CH_NUMBUF];
	int has_initial = 0;

	for (size_t d = 0; d < nz; d++) {
		const struct ch_op *w = OP(c, ws[c->head[d]]);

		z[d] = (struct zone){ w->end, w->start, w->value };
	}
	for (size_t k = 0; k < nr; k++) {
		const struct ch_op *r = OP(c, rs[k]);
		uint32_t d = ch_hmap_id(&v->m, r->value, 0);
		struct zone *t = d != UINT32_MAX                ? &z[d]
				 : r->value == 0 && has_initial ? &z[nz]
								: NULL;

		if (t != NULL) {
			if (r->end < t->e)
				t->e = r->end;
			if (r->start > t->s)
				t->s = r->start;
		} else if (r->value == 0) {
			z[nz] = (struct zone){ CH_NEG_INF, r->start, 0 };
			has_initial = 1;
		}
	}
	for (size_t d = 0; d < nz + (size_t)has_initial; d++) {
		if (z[d].e + c->skew < z[d].s)
			fwd[nf++] = z[d];
		else
			bwd[nb++] = (struct zone){ z[d].s, z[d].e, z[d].v };
	}
	qsort(fwd, nf, sizeof(*fwd), zone_cmp);
	ch_fmt_hex(a, addr);
	for (size_t i = 1; i < nf; i++) {
		const struct zone *p = &fwd[i - 1], *q = &fwd[i];

		if (q->e + c->skew < p->s)
			ch_bad(c->res, CH_V_NOT_LINEARIZABLE,
			       "%s: the values %s and %s were each observed "
			       "over overlapping intervals of real time ([%s, "
			       "%s] and [%s, %s]): no single order of the "
			       "writes explains the reads",
			       a, ch_fmt_int(n[0], p->v),
			       ch_fmt_int(n[1], q->v), ch_fmt_int(n[2], p->e),
			       ch_fmt_int(n[3], p->s), ch_fmt_int(n[4], q->e),
			       ch_fmt_int(n[5], q->s));
	}
	for (size_t i = 0; i < nf; i++)
		c->starts[i] = fwd[i].e;
	for (size_t b = 0; b < nb && nf > 0; b++) {
		ch_int bs = bwd[b].e, be = bwd[b].s; /* (max start, min end) */
		size_t i = ch_bisect(c->starts, nf, bs - c->skew, 0);

		for (size_t k = i >= 2 ? i - 2 : 0; k < i; k++) {
			const struct zone *f = &fwd[k];

			if (f->e + c->skew < bs && be + c->skew < f->s) {
				ch_bad(c->res, CH_V_NOT_LINEARIZABLE,
				       "%s: value %s was written and read "
				       "within [%s, %s], entirely while value "
				       "%s was being observed ([%s, %s])",
				       a, ch_fmt_int(n[0], bwd[b].v),
				       ch_fmt_int(n[1], bs),
				       ch_fmt_int(n[2], be),
				       ch_fmt_int(n[3], f->v),
				       ch_fmt_int(n[4], f->e),
				       ch_fmt_int(n[5], f->s));
				break;
			}
		}
	}
	free(z);
	free(fwd);
	free(bwd);
}
