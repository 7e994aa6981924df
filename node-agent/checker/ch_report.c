/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Violations and statistics, and what check_history.py's main() prints:
 * integers and ops as Python formats them, the VIOLATION lines, the
 * summary line or its --json object (the same keys, sorted).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch.h"

static const char *const vkind_names[CH_NVKINDS] = {
	[CH_V_STALE_READ] = "stale_read",
	[CH_V_VALUE_NEVER_WRITTEN] = "value_never_written",
	[CH_V_FROM_FUTURE] = "from_future",
	[CH_V_NOT_LINEARIZABLE] = "not_linearizable",
	[CH_V_MIXED_OPS] = "mixed_ops",
	[CH_V_DUPLICATE_INCR] = "duplicate_incr",
	[CH_V_INCR_OUT_OF_RANGE] = "incr_out_of_range",
	[CH_V_LOST_UPDATE] = "lost_update",
	[CH_V_REALTIME_ORDER] = "realtime_order",
	[CH_V_FINAL_VALUE] = "final_value",
	[CH_V_MISSING_FINAL] = "missing_final",
	[CH_V_TOO_FEW_OPS] = "too_few_ops",
};

/* the Python's stats keys; ops and addresses are always printed, the
 * others only when not 0 (the Python's defaultdict creates them then) */
static const char *const stat_names[CH_NSTATS] = {
	[CH_S_ADDRESSES] = "addresses",
	[CH_S_AMBIGUOUS_READS] = "ambiguous_reads",
	[CH_S_COUNTERS] = "counters",
	[CH_S_DUP_WRITTEN] = "duplicate_written_values",
	[CH_S_FINAL_VALUES] = "final_values",
	[CH_S_INCRS] = "incrs",
	[CH_S_NODES_WITHOUT_OPS] = "nodes_without_ops",
	[CH_S_OPS] = "ops",
	[CH_S_OPS_INCR] = "ops.incr",
	[CH_S_OPS_READ] = "ops.read",
	[CH_S_OPS_WRITE] = "ops.write",
	[CH_S_READS] = "reads",
	[CH_S_REGISTERS] = "registers",
};

const char *
ch_vkind_name(enum ch_vkind kind)
{
	return vkind_names[kind];
}

void
ch_result_init(struct ch_result *res, size_t keep)
{
	memset(res, 0, sizeof(*res));
	res->keep = keep;
}

void
ch_result_free(struct ch_result *res)
{
	for (size_t i = 0; i < res->nkept; i++)
		free(res->vmsgs[i]);
	free(res->vmsgs);
	free(res->vkinds);
}

void
ch_bad(struct ch_result *res, enum ch_vkind kind, const char *fmt, ...)
{
	va_list ap;
	int n;
	char *m;

	res->nviolations++;
	res->vcount[kind]++;
	if (res->nkept >= res->keep)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	m = ch_xrealloc(NULL, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(m, (size_t)n + 1, fmt, ap);
	va_end(ap);
	if (res->nkept == res->cap_kept) {
		res->cap_kept = res->cap_kept ? 2 * res->cap_kept : 64;
		res->vmsgs = ch_xrealloc(res->vmsgs,
					 res->cap_kept * sizeof(*res->vmsgs));
		res->vkinds = ch_xrealloc(res->vkinds,
					  res->cap_kept * sizeof(*res->vkinds));
	}
	res->vkinds[res->nkept] = (uint8_t)kind;
	res->vmsgs[res->nkept++] = m;
}

/* digits of |v| in base (10 or 16), with a '-' before them when negative */
static char *
fmt_base(char *buf, ch_int v, unsigned base, const char *prefix)
{
	char tmp[CH_NUMBUF];
	size_t n = 0, o = 0;
	__extension__ unsigned __int128 u;

	if (v <= CH_NEG_INF || v >= CH_POS_INF) {
		snprintf(buf, CH_NUMBUF, "%s", v < 0 ? "-inf" : "inf");
		return buf;
	}
	u = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
	do {
		tmp[n++] = "0123456789abcdef"[u % base];
		u /= base;
	} while (u);
	for (const char *p = prefix; *p; p++)
		buf[o++] = *p;
	if (v < 0)
		buf[o++] = '-';
	while (n)
		buf[o++] = tmp[--n];
	buf[o] = 0;
	return buf;
}

char *
ch_fmt_int(char *buf, ch_int v)
{
	return fmt_base(buf, v, 10, "");
}

char *
ch_fmt_hex(char *buf, ch_int v)
{
	return fmt_base(buf, v, 16, "0x");
}

char *
ch_op_repr(const struct ch_history *h, const struct ch_op *op)
{
	static const char *const kinds[] = { "read", "write", "incr" };
	char n[6][CH_NUMBUF];
	const char *path = h->files[op->file];
	size_t len = strlen(path) + 6 * CH_NUMBUF + 64;
	char *s = ch_xrealloc(NULL, len);

	snprintf(s, len,
		 "%s(node %s thread %s, %s, value %s, [%s, %s]) at %s:%u",
		 kinds[op->kind], ch_fmt_int(n[0], op->node),
		 ch_fmt_int(n[1], op->thread), ch_fmt_hex(n[2], op->addr),
		 ch_fmt_int(n[3], op->value), ch_fmt_int(n[4], op->start),
		 ch_fmt_int(n[5], op->end), path, op->line);
	return s;
}

struct kv {
	const char *k;
	uint64_t v;
	const char *s; /* a string value instead */
};

static int
kv_cmp(const void *a, const void *b)
{
	return strcmp(((const struct kv *)a)->k, ((const struct kv *)b)->k);
}

static void
print_json(const struct ch_history *h, const struct ch_result *res)
{
	struct kv kv[CH_NSTATS + CH_NVKINDS + 3];
	char names[CH_NVKINDS][40];
	size_t n = 0;

	for (int i = 0; i < CH_NSTATS; i++)
		if (res->stats[i] || i == CH_S_OPS || i == CH_S_ADDRESSES)
			kv[n++] = (struct kv){ stat_names[i], res->stats[i],
					       NULL };
	for (int i = 0; i < CH_NVKINDS; i++) {
		if (!res->vcount[i])
			continue;
		snprintf(names[i], sizeof(names[i]), "violations.%s",
			 vkind_names[i]);
		kv[n++] = (struct kv){ names[i], res->vcount[i], NULL };
	}
	kv[n++] = (struct kv){ "files", h->nfiles, NULL };
	kv[n++] = (struct kv){ "finals", h->nfinals, NULL };
	kv[n++] = (struct kv){ "result", 0,
			       res->nviolations ? "FAIL" : "PASS" };
	qsort(kv, n, sizeof(*kv), kv_cmp);
	putchar('{');
	for (size_t i = 0; i < n; i++) {
		printf("%s\"%s\": ", i ? ", " : "", kv[i].k);
		if (kv[i].s)
			printf("\"%s\"", kv[i].s);
		else
			printf("%llu", (unsigned long long)kv[i].v);
	}
	puts("}");
}

void
ch_report(const struct ch_history *h, const struct ch_result *res,
	  long long max_violations, int json)
{
	uint64_t total = res->nviolations, shown;

	/* the Python's violations[:max] (0: all) */
	if (max_violations == 0)
		shown = total;
	else if (max_violations > 0)
		shown = total < (uint64_t)max_violations
				? total
				: (uint64_t)max_violations;
	else
		shown = total > (uint64_t)-max_violations
				? total - (uint64_t)-max_violations
				: 0;
	for (uint64_t i = 0; i < shown && i < res->nkept; i++)
		printf("VIOLATION %s: %s\n", vkind_names[res->vkinds[i]],
		       res->vmsgs[i]);
	if (shown < total)
		printf("... %llu more violations\n",
		       (unsigned long long)(total - shown));
	if (json) {
		print_json(h, res);
		return;
	}
	printf("check_history: %zu files, %llu ops (%llu read, %llu write, "
	       "%llu incr), %llu addresses (%llu counters), %zu final lines: "
	       "%llu violations: %s\n",
	       h->nfiles, (unsigned long long)res->stats[CH_S_OPS],
	       (unsigned long long)res->stats[CH_S_OPS_READ],
	       (unsigned long long)res->stats[CH_S_OPS_WRITE],
	       (unsigned long long)res->stats[CH_S_OPS_INCR],
	       (unsigned long long)res->stats[CH_S_ADDRESSES],
	       (unsigned long long)res->stats[CH_S_COUNTERS], h->nfinals,
	       (unsigned long long)total, total ? "FAIL" : "PASS");
}
