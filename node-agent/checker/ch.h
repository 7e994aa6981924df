/* SPDX-License-Identifier: BSD-3-Clause
 *
 * check-history, the C history checker: the same checks, options, output
 * and exit codes as check_history.py (the reference; its docstring states
 * the checks). This header is shared by the checker's files only:
 *
 *   ch_json.c    JSON values of one line, Python's int(s, 0), strip, UTF-8
 *   ch_load.c    history files: lines, records, ops and final lines
 *   ch_check.c   the checks (registers, zones, counters, final lines)
 *   ch_report.c  violations, statistics, numbers and ops as Python prints
 *   check_history.c  the command line
 *
 * Integers are 128-bit and must lie within +-2^100 (the Python accepts any
 * size; nothing writes larger ones): -inf/+inf of the Python are values
 * beyond that range, so sums with a 64-bit skew never overflow.
 */
#ifndef CH_H
#define CH_H

#include <stddef.h>
#include <stdint.h>

__extension__ typedef __int128 ch_int;

#define CH_INT_MAX ((ch_int)1 << 100) /* |integer| < this */
#define CH_NEG_INF (-((ch_int)1 << 120))
#define CH_POS_INF ((ch_int)1 << 120)

enum ch_opkind {
	CH_READ,
	CH_WRITE,
	CH_INCR,
	CH_NKINDS
};

struct ch_op {
	ch_int addr, value, start, end, node, thread;
	uint32_t file, line; /* where: files[file]:line */
	uint8_t kind;        /* enum ch_opkind */
};

/* One (addr, value) pair a final line reports. */
struct ch_pair {
	ch_int addr, value;
};

struct ch_final {
	char *node_repr; /* the node as the Python prints it */
	int node_is_num; /* node compares equal to an integer */
	ch_int node_num; /* ... this one */
	struct ch_pair *pairs;
	size_t npairs;
	char *error; /* malformed counters: bad input at check time */
	uint32_t file, line;
};

struct ch_history {
	const char **files;
	size_t nfiles;
	struct ch_op *ops;
	size_t nops, cap_ops;
	struct ch_final *finals;
	size_t nfinals, cap_finals;
};

enum ch_stat {
	CH_S_ADDRESSES,
	CH_S_AMBIGUOUS_READS,
	CH_S_COUNTERS,
	CH_S_DUP_WRITTEN,
	CH_S_FINAL_VALUES,
	CH_S_INCRS,
	CH_S_NODES_WITHOUT_OPS,
	CH_S_OPS,
	CH_S_OPS_INCR,
	CH_S_OPS_READ,
	CH_S_OPS_WRITE,
	CH_S_READS,
	CH_S_REGISTERS,
	CH_NSTATS
};

enum ch_vkind {
	CH_V_STALE_READ,
	CH_V_VALUE_NEVER_WRITTEN,
	CH_V_FROM_FUTURE,
	CH_V_NOT_LINEARIZABLE,
	CH_V_MIXED_OPS,
	CH_V_DUPLICATE_INCR,
	CH_V_INCR_OUT_OF_RANGE,
	CH_V_LOST_UPDATE,
	CH_V_REALTIME_ORDER,
	CH_V_FINAL_VALUE,
	CH_V_MISSING_FINAL,
	CH_V_TOO_FEW_OPS,
	CH_NVKINDS
};

struct ch_result {
	uint64_t stats[CH_NSTATS];
	uint64_t vcount[CH_NVKINDS];
	uint64_t nviolations;
	/* the first `keep` violations' messages (SIZE_MAX: all) */
	size_t keep;
	uint8_t *vkinds;
	char **vmsgs;
	size_t nkept, cap_kept;
};

/* ---- ch_json.c ---- */

enum ch_jtype {
	CH_J_NULL,
	CH_J_FALSE,
	CH_J_TRUE,
	CH_J_INT,
	CH_J_BIGINT, /* an integer beyond +-2^100 */
	CH_J_FLOAT,
	CH_J_STR,
	CH_J_ARR,
	CH_J_OBJ
};

/* A JSON value of one line; children (array elements, object members) are
 * linked through `next` from `child`, indexes into the parser's arena. */
struct ch_jv {
	uint8_t type;
	uint32_t next, child; /* 0: none (the arena's first slot is unused) */
	const char *key;      /* object members: the key (unescaped) */
	size_t klen;
	const char *s; /* strings: unescaped contents */
	size_t slen;
	const char *raw; /* the value's source text */
	size_t rawlen;
	ch_int i;
	double d;
};

struct ch_json {
	struct ch_jv *v;
	size_t n, cap;
	char *scratch; /* unescaped strings */
	size_t scap, sused;
	char err[160];
};

/* Parses the whole of line[0..len) as one JSON value (Python's json rules:
 * NaN/Infinity accepted, duplicate keys allowed, the last one wins).
 * Returns the root's index, or 0 with j->err set. */
uint32_t ch_json_parse(struct ch_json *j, const char *line, size_t len);
void ch_json_free(struct ch_json *j);
/* The last member of object `obj` named `key`, or NULL. */
const struct ch_jv *ch_json_get(const struct ch_json *j,
				const struct ch_jv *obj, const char *key);
/* found[k]: the last member named keys[k] (nkeys <= 16), or NULL. */
void ch_json_fields(const struct ch_json *j, const struct ch_jv *obj,
		    const char *const *keys, size_t nkeys,
		    const struct ch_jv **found);
int ch_json_truthy(const struct ch_jv *v);
/* Python's int(s, 0) on ASCII text (whitespace around, sign, 0x/0o/0b,
 * underscores). Returns 0 and sets *out, -1 when not an integer, -2 when
 * beyond +-2^100. */
int ch_pyint(const char *s, size_t len, ch_int *out);
/* The bytes Python's str.strip() would keep: *b, *e move inwards. */
void ch_strip(const char **b, const char **e);
/* 1 when s[0..len) is valid UTF-8 (as Python's decoder accepts it). */
int ch_utf8_valid(const char *s, size_t len);

/* ---- ch_load.c ---- */

/* Reads the history files h->files (in order). Returns 0, or -1 with the
 * error (bad input or a file that cannot be read) in err. */
int ch_load(struct ch_history *h, char *err, size_t errlen);
void ch_history_free(struct ch_history *h);

/* ---- ch_util.c ---- */

/* realloc that exits 2 with a message when memory runs out */
void *ch_xrealloc(void *p, size_t n);

/* An open-addressing table of 128-bit keys to dense ids 0, 1, ... in
 * insertion order; it holds at most the n given to ch_hmap_init. */
struct ch_hmap {
	ch_int *keys;
	uint32_t *ids; /* UINT32_MAX: empty slot */
	size_t mask, n;
};
void ch_hmap_init(struct ch_hmap *m, size_t n);
void ch_hmap_free(struct ch_hmap *m);
/* The key's id; a new one (m->n - 1) when absent and `add`, else
 * UINT32_MAX when absent. */
uint32_t ch_hmap_id(struct ch_hmap *m, ch_int k, int add);

struct ch_keyed {
	ch_int k;
	uint32_t i;
};
/* Stable sort of a[0..n) by k (bottom-up merge sort; runs already in order
 * are copied, so nearly sorted input, as histories are, is fast). */
void ch_sort_keyed(struct ch_keyed *a, size_t n, struct ch_keyed *tmp);
/* Python's bisect: the first i with a[i] > x (after = 1) or >= x (0). */
size_t ch_bisect(const ch_int *a, size_t n, ch_int x, int after);

/* ---- ch_reads.c: register reads and zones of one address ---- */

/* Scratch of the checks, each array sized for the whole history. */
struct ch_ctx {
	const struct ch_history *h;
	struct ch_result *res;
	ch_int skew;
	struct ch_keyed *kd, *tmp;
	ch_int *starts, *sme;
	uint32_t *sarg, *next, *head, *tail, *count;
};

/* The values written at one address (ws: its writes, in input order):
 * ids in first-occurrence order; the writes of id d are the positions in
 * ws head[d], next[head[d]], ... (count[d] of them, in the ctx). */
struct ch_values {
	struct ch_hmap m;
	size_t ndistinct;
};
void ch_values_build(struct ch_ctx *c, struct ch_values *v, const uint32_t *ws,
		     size_t nw);
/* _check_reads: reads rs against writes ws (values v of ws). */
void ch_check_reads(struct ch_ctx *c, ch_int addr, const uint32_t *rs,
		    size_t nr, const uint32_t *ws, size_t nw,
		    struct ch_values *v);
/* _check_zones: the Gibbons-Korach test of reads rs and writes ws. */
void ch_check_zones(struct ch_ctx *c, ch_int addr, const uint32_t *rs,
		    size_t nr, const uint32_t *ws, struct ch_values *v);

/* ---- ch_check.c ---- */

/* The checks of check_history.py's check(). Returns 0, or -1 on bad input
 * found late (a final line's counters), with the message in err. */
int ch_check(const struct ch_history *h, struct ch_result *res, ch_int skew,
	     int has_expect, ch_int expect_nodes, char *err, size_t errlen);

/* ---- ch_report.c ---- */

void ch_result_init(struct ch_result *res, size_t keep);
void ch_result_free(struct ch_result *res);
/* Counts a violation; keeps its message (printf format) when within keep. */
void ch_bad(struct ch_result *res, enum ch_vkind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *ch_vkind_name(enum ch_vkind kind);
/* Python's str(int) / '%x' of an integer; -inf/inf for the sentinels.
 * Returns buf (at least CH_NUMBUF bytes). */
#define CH_NUMBUF 48
char *ch_fmt_int(char *buf, ch_int v);
char *ch_fmt_hex(char *buf, ch_int v);
/* repr() of an op, as check_history.py's Op.__repr__, in a heap string. */
char *ch_op_repr(const struct ch_history *h, const struct ch_op *op);
/* Prints the violations and the summary line (or JSON) as the Python's
 * main() does; max_violations as its --max-violations. */
void ch_report(const struct ch_history *h, const struct ch_result *res,
	       long long max_violations, int json);

#endif
