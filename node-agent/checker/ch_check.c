/* SPDX-License-Identifier: BSD-3-Clause
 *
 * check_history.py's check() and _check_counter: ops grouped by address,
 * addresses in increasing order, counters (an address with an incr) and
 * registers, then the final lines and --expect-nodes; the same order and
 * messages. Per address the ops are laid out [reads | incrs | writes], in
 * input order, so a counter's "incrs + writes" is one slice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch.h"

#define OP(c, i)      (&(c)->h->ops[(i)])
#define MISSING_SHOWN 10

struct group {
	ch_int addr;
	size_t n[CH_NKINDS], off, fill[CH_NKINDS];
};

static void
bad_ops(struct ch_ctx *c, enum ch_vkind kind, const char *fmt, ch_int addr,
	const struct ch_op *o1, ch_int v1, const struct ch_op *o2, ch_int v2)
{
	char a[CH_NUMBUF], x[CH_NUMBUF], y[CH_NUMBUF];
	char *r1 = ch_op_repr(c->h, o1), *r2 = o2 ? ch_op_repr(c->h, o2) : NULL;

	ch_fmt_hex(a, addr);
	ch_fmt_int(x, v1);
	ch_fmt_int(y, v2);
	if (kind == CH_V_REALTIME_ORDER)
		ch_bad(c->res, kind, fmt, a, r1, x, r2, y);
	else if (kind == CH_V_MIXED_OPS)
		ch_bad(c->res, kind, fmt, a, r1, r2);
	else
		ch_bad(c->res, kind, fmt, a, r1, x, y);
	free(r1);
	free(r2);
}

/* A value no incr returned: counted, the first MISSING_SHOWN listed. */
static void
missing(char **shown, size_t *len, size_t *nmissing, ch_int v)
{
	char x[CH_NUMBUF];

	if ((*nmissing)++ >= MISSING_SHOWN)
		return;
	ch_fmt_int(x, v);
	*shown = ch_xrealloc(*shown, *len + strlen(x) + 3);
	*len += (size_t)sprintf(*shown + *len, "%s%s", *len ? ", " : "", x);
}

static void
check_counter(struct ch_ctx *c, ch_int addr, const uint32_t *incrs, size_t n)
{
	struct ch_keyed *kd = c->kd;
	ch_int min_end = CH_POS_INF, expect = 1;
	uint32_t min_op = UINT32_MAX;
	size_t nmissing = 0, len = 0;
	char a[CH_NUMBUF], x[CH_NUMBUF];
	char *shown = ch_xrealloc(NULL, 1);

	c->res->stats[CH_S_COUNTERS]++;
	c->res->stats[CH_S_INCRS] += n;
	shown[0] = 0;
	for (size_t p = 0; p < n; p++) {
		kd[p].k = OP(c, incrs[p])->value;
		kd[p].i = incrs[p];
	}
	ch_sort_keyed(kd, n, c->tmp);
	ch_fmt_hex(a, addr);
	for (size_t i = 0, j; i < n; i = j) {
		ch_int v = kd[i].k;

		for (j = i; j < n && kd[j].k == v; j++)
			;
		if (j - i > 1) {
			char *all = NULL;
			size_t alen = 0;

			for (size_t k = i; k < j; k++) {
				char *r = ch_op_repr(c->h, OP(c, kd[k].i));
				size_t rl = strlen(r);

				all = ch_xrealloc(all, alen + rl + 3);
				if (k > i) {
					memcpy(all + alen, "; ", 2);
					alen += 2;
				}
				memcpy(all + alen, r, rl + 1);
				alen += rl;
				free(r);
			}
			ch_bad(c->res, CH_V_DUPLICATE_INCR,
			       "%s: value %s returned by %zu incrs (two writers "
			       "held the lock at once, or an update was lost): "
			       "%s",
			       a, ch_fmt_int(x, v), j - i, all);
			free(all);
		}
		if (v < 1 || v > (ch_int)n)
			for (size_t k = i; k < j; k++)
				bad_ops(c, CH_V_INCR_OUT_OF_RANGE,
					"%s: %s returned %s, outside 1..%s (n = "
					"number of incrs)",
					addr, OP(c, kd[k].i), v, NULL,
					(ch_int)n);
		/* the values 1..n below v that no incr returned */
		for (; expect < v && expect <= (ch_int)n; expect++)
			missing(&shown, &len, &nmissing, expect);
		if (expect == v)
			expect++;
	}
	for (; expect <= (ch_int)n; expect++)
		missing(&shown, &len, &nmissing, expect);
	if (nmissing)
		ch_bad(c->res, CH_V_LOST_UPDATE,
		       "%s: %zu incrs but values %s%s never returned", a, n,
		       shown, nmissing > MISSING_SHOWN ? "..." : "");
	free(shown);
	/* real-time order: values downwards, the earliest end among the
	 * higher values; each value's incrs in input order */
	for (size_t j = n, i; j > 0; j = i) {
		for (i = j; i > 0 && kd[i - 1].k == kd[j - 1].k; i--)
			;
		for (size_t k = i; k < j && min_op != UINT32_MAX; k++) {
			const struct ch_op *o = OP(c, kd[k].i);

			if (min_end + c->skew < o->start)
				bad_ops(c, CH_V_REALTIME_ORDER,
					"%s: %s returned %s but %s returned %s "
					"and completed before it started",
					addr, o, o->value, OP(c, min_op),
					OP(c, min_op)->value);
		}
		for (size_t k = i; k < j; k++) {
			if (OP(c, kd[k].i)->end < min_end) {
				min_end = OP(c, kd[k].i)->end;
				min_op = kd[k].i;
			}
		}
	}
}

/* The ops' indexes grouped by address ([reads | incrs | writes] each in
 * input order) into perm; the groups in increasing address order. */
static struct group *
group_ops(const struct ch_history *h, struct ch_hmap *m, uint32_t *perm,
	  size_t *ngroups, struct ch_ctx *c)
{
	struct group *g = ch_xrealloc(NULL, (h->nops + 1) * sizeof(*g));
	uint32_t *gid = ch_xrealloc(NULL, (h->nops + 1) * sizeof(*gid));
	struct group *sorted;
	size_t off = 0;

	ch_hmap_init(m, h->nops);
	for (size_t i = 0; i < h->nops; i++) {
		size_t before = m->n;
		uint32_t d = ch_hmap_id(m, h->ops[i].addr, 1);

		if (m->n > before) {
			memset(&g[d], 0, sizeof(g[d]));
			g[d].addr = h->ops[i].addr;
		}
		g[d].n[h->ops[i].kind]++;
		gid[i] = d;
	}
	for (size_t d = 0; d < m->n; d++) {
		g[d].off = off;
		g[d].fill[CH_READ] = off;
		g[d].fill[CH_INCR] = off + g[d].n[CH_READ];
		g[d].fill[CH_WRITE] = g[d].fill[CH_INCR] + g[d].n[CH_INCR];
		off += g[d].n[CH_READ] + g[d].n[CH_INCR] + g[d].n[CH_WRITE];
	}
	for (size_t i = 0; i < h->nops; i++)
		perm[g[gid[i]].fill[h->ops[i].kind]++] = (uint32_t)i;
	for (size_t d = 0; d < m->n; d++) {
		c->kd[d].k = g[d].addr;
		c->kd[d].i = (uint32_t)d;
	}
	ch_sort_keyed(c->kd, m->n, c->tmp);
	sorted = ch_xrealloc(NULL, (m->n + 1) * sizeof(*sorted));
	for (size_t d = 0; d < m->n; d++)
		sorted[d] = g[c->kd[d].i];
	*ngroups = m->n;
	free(g);
	free(gid);
	return sorted;
}

static void
check_address(struct ch_ctx *c, const struct group *g, const uint32_t *perm)
{
	const uint32_t *rs = perm + g->off, *is = rs + g->n[CH_READ];
	const uint32_t *ws = is + g->n[CH_INCR];
	size_t nr = g->n[CH_READ], ni = g->n[CH_INCR], nw = g->n[CH_WRITE];
	struct ch_values v;
	uint64_t before;
	size_t ndup = 0;

	if (ni) {
		if (nw)
			bad_ops(c, CH_V_MIXED_OPS,
				"%s: both write and incr ops (%s, %s); a counter "
				"is only incremented",
				g->addr, OP(c, ws[0]), 0, OP(c, is[0]), 0);
		check_counter(c, g->addr, is, ni);
		ch_values_build(c, &v, is, ni + nw);
		before = c->res->nviolations;
		ch_check_reads(c, g->addr, rs, nr, is, ni + nw, &v);
		if (c->res->nviolations == before)
			ch_check_zones(c, g->addr, rs, nr, is, &v);
	} else {
		c->res->stats[CH_S_REGISTERS]++;
		ch_values_build(c, &v, ws, nw);
		for (size_t d = 0; d < v.ndistinct; d++)
			ndup += c->count[d] > 1;
		/* the check assumes unique written values: the workload's
		 * fault, not a coherence bug; counted, zones skipped */
		c->res->stats[CH_S_DUP_WRITTEN] += ndup;
		before = c->res->nviolations;
		ch_check_reads(c, g->addr, rs, nr, ws, nw, &v);
		if (c->res->nviolations == before && ndup == 0)
			ch_check_zones(c, g->addr, rs, nr, ws, &v);
	}
	ch_hmap_free(&v.m);
}

static int
check_finals(struct ch_ctx *c, struct ch_hmap *addrs, const struct group *g,
	     const uint32_t *gidx, int has_expect, ch_int expect_nodes,
	     char *err, size_t errlen)
{
	const struct ch_history *h = c->h;
	struct ch_hmap fin, nodes;
	char a[CH_NUMBUF], x[CH_NUMBUF], y[CH_NUMBUF];

	ch_hmap_init(&fin, h->nfinals);
	for (size_t f = 0; f < h->nfinals; f++) {
		const struct ch_final *fl = &h->finals[f];

		if (fl->node_is_num)
			ch_hmap_id(&fin, fl->node_num, 1);
		if (fl->error) {
			snprintf(err, errlen, "%s", fl->error);
			ch_hmap_free(&fin);
			return -1;
		}
		for (size_t k = 0; k < fl->npairs; k++) {
			uint32_t d = ch_hmap_id(addrs, fl->pairs[k].addr, 0);
			ch_int n = d == UINT32_MAX
					   ? 0
					   : (ch_int)g[gidx[d]].n[CH_INCR];

			c->res->stats[CH_S_FINAL_VALUES]++;
			if (fl->pairs[k].value != n)
				ch_bad(c->res, CH_V_FINAL_VALUE,
				       "%s: node %s reports final value %s, but "
				       "%s incrs completed (%s:%u)",
				       ch_fmt_hex(a, fl->pairs[k].addr),
				       fl->node_repr,
				       ch_fmt_int(x, fl->pairs[k].value),
				       ch_fmt_int(y, n), h->files[fl->file],
				       fl->line);
		}
	}
	if (has_expect) {
		ch_hmap_init(&nodes, h->nops);
		for (size_t i = 0; i < h->nops; i++)
			ch_hmap_id(&nodes, h->ops[i].node, 1);
		for (ch_int n = 0; n < expect_nodes; n++) {
			if (ch_hmap_id(&fin, n, 0) == UINT32_MAX)
				ch_bad(c->res, CH_V_MISSING_FINAL,
				       "node %s: no final line (did it exit "
				       "cleanly?)",
				       ch_fmt_int(x, n));
			if (ch_hmap_id(&nodes, n, 0) == UINT32_MAX)
				c->res->stats[CH_S_NODES_WITHOUT_OPS]++;
		}
		ch_hmap_free(&nodes);
	}
	ch_hmap_free(&fin);
	return 0;
}

int
ch_check(const struct ch_history *h, struct ch_result *res, ch_int skew,
	 int has_expect, ch_int expect_nodes, char *err, size_t errlen)
{
	size_t n = h->nops + 1, ng;
	struct ch_ctx c = { .h = h, .res = res, .skew = skew };
	uint32_t *perm = ch_xrealloc(NULL, n * sizeof(*perm));
	uint32_t *gidx;
	struct ch_hmap addrs;
	struct group *g;
	int rc;

	c.kd = ch_xrealloc(NULL, n * sizeof(*c.kd));
	c.tmp = ch_xrealloc(NULL, n * sizeof(*c.tmp));
	c.starts = ch_xrealloc(NULL, n * sizeof(*c.starts));
	c.sme = ch_xrealloc(NULL, n * sizeof(*c.sme));
	c.sarg = ch_xrealloc(NULL, n * sizeof(*c.sarg));
	c.next = ch_xrealloc(NULL, n * sizeof(*c.next));
	c.head = ch_xrealloc(NULL, n * sizeof(*c.head));
	c.tail = ch_xrealloc(NULL, n * sizeof(*c.tail));
	c.count = ch_xrealloc(NULL, n * sizeof(*c.count));
	g = group_ops(h, &addrs, perm, &ng, &c);
	/* address id (insertion order) -> its place in g (address order) */
	gidx = ch_xrealloc(NULL, (ng + 1) * sizeof(*gidx));
	for (size_t d = 0; d < ng; d++) {
		gidx[ch_hmap_id(&addrs, g[d].addr, 0)] = (uint32_t)d;
		res->stats[CH_S_OPS_READ] += g[d].n[CH_READ];
		res->stats[CH_S_OPS_WRITE] += g[d].n[CH_WRITE];
		res->stats[CH_S_OPS_INCR] += g[d].n[CH_INCR];
	}
	res->stats[CH_S_OPS] = h->nops;
	res->stats[CH_S_ADDRESSES] = ng;
	for (size_t d = 0; d < ng; d++)
		check_address(&c, &g[d], perm);
	rc = check_finals(&c, &addrs, g, gidx, has_expect, expect_nodes, err,
			  errlen);
	ch_hmap_free(&addrs);
	free(gidx);
	free(g);
	free(perm);
	free(c.kd);
	free(c.tmp);
	free(c.starts);
	free(c.sme);
	free(c.sarg);
	free(c.next);
	free(c.head);
	free(c.tail);
	free(c.count);
	return rc;
}
