/* SPDX-License-Identifier: BSD-3-Clause
 *
 * History files into ops and final lines, with check_history.py's load()
 * and Op rules: lines split as Python's universal newlines split them,
 * stripped, blank ones skipped; each a JSON object; an op needs node,
 * op, addr, value, start_ns, end_ns (thread defaults to 0), integers or
 * strings int(s, 0) accepts (not booleans); end_ns >= start_ns. A line
 * with a true "final" is a final line; its counters are parsed here but,
 * as in the Python, reported as bad input only once the checks run.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ch.h"

#define REPR_MAX 60 /* a bad value is shown up to this many bytes */

struct where {
	const char *path;
	uint32_t line;
};

static char *
xstrndup(const char *s, size_t n)
{
	char *d = ch_xrealloc(NULL, n + 1);

	memcpy(d, s, n);
	d[n] = 0;
	return d;
}

/* "what: not an integer: RAW" or 0 with *out (check_history.py's _int) */
static int
to_int(const struct ch_jv *v, const char *what, ch_int *out, char *err,
       size_t errlen)
{
	int rc = -1;

	if (v->type == CH_J_INT) {
		*out = v->i;
		return 0;
	}
	if (v->type == CH_J_STR)
		rc = ch_pyint(v->s, v->slen, out);
	else if (v->type == CH_J_BIGINT)
		rc = -2;
	if (rc == 0)
		return 0;
	if (rc == -2)
		snprintf(err, errlen, "%s: integer beyond +-2^100: %.*s", what,
			 (int)(v->rawlen < REPR_MAX ? v->rawlen : REPR_MAX),
			 v->raw);
	else
		snprintf(err, errlen, "%s: not an integer: %.*s", what,
			 (int)(v->rawlen < REPR_MAX ? v->rawlen : REPR_MAX),
			 v->raw);
	return -1;
}

static int
parse_op(const struct ch_json *j, const struct ch_jv *rec, struct ch_op *op,
	 char *err, size_t errlen)
{
	static const char *const names[] = { "node",  "thread", "op",
					     "addr",  "value",  "start_ns",
					     "end_ns" };
	ch_int *dst[] = { &op->node,  &op->thread, NULL,    &op->addr,
			  &op->value, &op->start,  &op->end };
	const struct ch_jv *kind = NULL, *f[7];

	ch_json_fields(j, rec, names, 7, f);
	for (size_t i = 0; i < 7; i++) {
		const struct ch_jv *v = f[i];

		if (v == NULL && i == 1) {
			op->thread = 0;
			continue;
		}
		if (v == NULL) {
			snprintf(err, errlen, "missing field '%s'", names[i]);
			return -1;
		}
		if (dst[i] == NULL)
			kind = v;
		else if (to_int(v, names[i], dst[i], err, errlen) < 0)
			return -1;
	}
	if (kind->type == CH_J_STR && kind->slen == 4 &&
	    memcmp(kind->s, "read", 4) == 0)
		op->kind = CH_READ;
	else if (kind->type == CH_J_STR && kind->slen == 5 &&
		 memcmp(kind->s, "write", 5) == 0)
		op->kind = CH_WRITE;
	else if (kind->type == CH_J_STR && kind->slen == 4 &&
		 memcmp(kind->s, "incr", 4) == 0)
		op->kind = CH_INCR;
	else {
		snprintf(err, errlen, "unknown op %.*s",
			 (int)(kind->rawlen < REPR_MAX ? kind->rawlen
						       : REPR_MAX),
			 kind->raw);
		return -1;
	}
	if (op->end < op->start) {
		snprintf(err, errlen, "end_ns < start_ns");
		return -1;
	}
	return 0;
}

static void
add_pair(struct ch_final *f, ch_int addr, ch_int value)
{
	f->pairs = ch_xrealloc(f->pairs, (f->npairs + 1) * sizeof(*f->pairs));
	f->pairs[f->npairs].addr = addr;
	f->pairs[f->npairs++].value = value;
}

/* The final line's (addr, value) pairs (the Python's _final_values):
 * counters as an object or a list of {addr, value}, and addr/value on
 * the line itself. */
static int
final_pairs(const struct ch_json *j, const struct ch_jv *rec,
	    struct ch_final *f, char *err, size_t errlen)
{
	const struct ch_jv *c = ch_json_get(j, rec, "counters");
	const struct ch_jv *a, *v;
	ch_int x, y;

	if (c != NULL && c->type == CH_J_OBJ) {
		/* a repeated key: the first one's place, the last one's value */
		for (uint32_t m = c->child; m; m = j->v[m].next) {
			const struct ch_jv *e = &j->v[m];
			int first = 1;

			for (uint32_t k = c->child; k != m; k = j->v[k].next)
				if (j->v[k].klen == e->klen &&
				    memcmp(j->v[k].key, e->key, e->klen) == 0)
					first = 0;
			if (!first)
				continue;
			for (uint32_t k = j->v[m].next; k; k = j->v[k].next)
				if (j->v[k].klen == e->klen &&
				    memcmp(j->v[k].key, e->key, e->klen) == 0)
					e = &j->v[k];
			if (ch_pyint(e->key, e->klen, &x) != 0) {
				snprintf(err, errlen,
					 "counters key: not an integer: '%.*s'",
					 (int)(e->klen < REPR_MAX ? e->klen
								  : REPR_MAX),
					 e->key);
				return -1;
			}
			if (to_int(e, "counters value", &y, err, errlen) < 0)
				return -1;
			add_pair(f, x, y);
		}
	} else if (c != NULL && c->type == CH_J_ARR) {
		for (uint32_t m = c->child; m; m = j->v[m].next) {
			const struct ch_jv *e = &j->v[m];

			if (e->type != CH_J_OBJ) {
				snprintf(err, errlen,
					 "counters[]: not an object: %.*s",
					 (int)(e->rawlen < REPR_MAX ? e->rawlen
								    : REPR_MAX),
					 e->raw);
				return -1;
			}
			a = ch_json_get(j, e, "addr");
			v = ch_json_get(j, e, "value");
			if (a == NULL || v == NULL) {
				snprintf(err, errlen, "'%s'",
					 a == NULL ? "addr" : "value");
				return -1;
			}
			if (to_int(a, "counters[].addr", &x, err, errlen) < 0 ||
			    to_int(v, "counters[].value", &y, err, errlen) < 0)
				return -1;
			add_pair(f, x, y);
		}
	}
	a = ch_json_get(j, rec, "addr");
	v = ch_json_get(j, rec, "value");
	if (a != NULL && v != NULL) {
		if (to_int(a, "addr", &x, err, errlen) < 0 ||
		    to_int(v, "value", &y, err, errlen) < 0)
			return -1;
		add_pair(f, x, y);
	}
	return 0;
}

static int
add_final(struct ch_history *h, const struct ch_json *j,
	  const struct ch_jv *rec, struct where w, uint32_t file, char *err,
	  size_t errlen)
{
	const struct ch_jv *node = ch_json_get(j, rec, "node");
	struct ch_final *f;
	char msg[256], num[CH_NUMBUF];

	if (node != NULL &&
	    (node->type == CH_J_ARR || node->type == CH_J_OBJ)) {
		snprintf(err, errlen,
			 "%s:%u: final line's node is a list or "
			 "an object",
			 w.path, w.line);
		return -1;
	}
	if (h->nfinals == h->cap_finals) {
		h->cap_finals = h->cap_finals ? 2 * h->cap_finals : 16;
		h->finals = ch_xrealloc(h->finals,
					h->cap_finals * sizeof(*h->finals));
	}
	f = &h->finals[h->nfinals++];
	memset(f, 0, sizeof(*f));
	f->file = file;
	f->line = w.line;
	if (node == NULL || node->type == CH_J_NULL) {
		f->node_repr = xstrndup("None", 4);
	} else if (node->type == CH_J_TRUE || node->type == CH_J_FALSE) {
		f->node_is_num = 1;
		f->node_num = node->type == CH_J_TRUE;
		f->node_repr = xstrndup(f->node_num ? "True" : "False",
					f->node_num ? 4 : 5);
	} else if (node->type == CH_J_INT) {
		f->node_is_num = 1;
		f->node_num = node->i;
		ch_fmt_int(num, node->i);
		f->node_repr = xstrndup(num, strlen(num));
	} else if (node->type == CH_J_STR) {
		f->node_repr = ch_xrealloc(NULL, node->slen + 3);
		snprintf(f->node_repr, node->slen + 3, "'%.*s'",
			 (int)node->slen, node->s);
	} else {
		if (node->type == CH_J_FLOAT && isfinite(node->d) &&
		    node->d == floor(node->d) && fabs(node->d) < 1e30) {
			f->node_is_num = 1;
			f->node_num = (ch_int)node->d;
		}
		f->node_repr = xstrndup(node->raw, node->rawlen);
	}
	if (final_pairs(j, rec, f, msg, sizeof(msg)) < 0) {
		size_t n = strlen(w.path) + strlen(msg) + 32;

		f->error = ch_xrealloc(NULL, n);
		snprintf(f->error, n, "%s:%u: %s", w.path, w.line, msg);
	}
	return 0;
}

/* The file's bytes, mapped (a history is read once, front to back). */
static int
map_file(const char *path, char **buf, size_t *len, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: %s", path, strerror(EISDIR));
		close(fd);
		return -1;
	}
	*len = (size_t)st.st_size;
	*buf = NULL;
	if (*len > 0) {
		*buf = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (*buf == MAP_FAILED) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		madvise(*buf, *len, MADV_SEQUENTIAL);
	}
	close(fd);
	return 0;
}

/* Decimal digits as JSON writes an integer (no leading zero), at most 18:
 * the end of them, or NULL. */
static const char *
fast_dec(const char *p, const char *e, ch_int *out)
{
	const char *s = p;
	uint64_t u = 0;

	while (p < e && *p >= '0' && *p <= '9' && p - s < 19)
		u = u * 10 + (uint64_t)(*p++ - '0');
	if (p == s || p - s > 18 || (*s == '0' && p - s > 1))
		return NULL;
	*out = (ch_int)u;
	return p;
}

static const char *
fast_lit(const char *p, const char *e, const char *lit, size_t n)
{
	return p && (size_t)(e - p) >= n && memcmp(p, lit, n) == 0 ? p + n
								   : NULL;
}

#define LIT(p, s) fast_lit((p), e, (s), sizeof(s) - 1)

/* The line exactly as node-agent writes it (tool/na_history.c), read
 * without the general parser; 0 when it is not, and the general path
 * decides (the same result for every line this accepts). */
static int
fast_op(const char *p, const char *e, struct ch_op *op)
{
	ch_int v;

	if ((p = LIT(p, "{\"node\":")) == NULL ||
	    (p = fast_dec(p, e, &op->node)) == NULL ||
	    (p = LIT(p, ",\"thread\":")) == NULL ||
	    (p = fast_dec(p, e, &op->thread)) == NULL ||
	    (p = LIT(p, ",\"op\":\"")) == NULL)
		return 0;
	if (LIT(p, "read\"")) {
		op->kind = CH_READ;
		p += 5;
	} else if (LIT(p, "write\"")) {
		op->kind = CH_WRITE;
		p += 6;
	} else if (LIT(p, "incr\"")) {
		op->kind = CH_INCR;
		p += 5;
	} else {
		return 0;
	}
	if ((p = LIT(p, ",\"addr\":\"0x")) == NULL)
		return 0;
	v = 0;
	for (const char *s = p; p < e && p - s < 16; p++) {
		int d = *p >= '0' && *p <= '9'   ? *p - '0'
			: *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
			: *p >= 'A' && *p <= 'F' ? *p - 'A' + 10
						 : -1;

		if (d < 0)
			break;
		v = v << 4 | d;
	}
	op->addr = v;
	if ((p = LIT(p, "\",\"value\":")) == NULL ||
	    (p = fast_dec(p, e, &op->value)) == NULL ||
	    (p = LIT(p, ",\"start_ns\":")) == NULL ||
	    (p = fast_dec(p, e, &op->start)) == NULL ||
	    (p = LIT(p, ",\"end_ns\":")) == NULL ||
	    (p = fast_dec(p, e, &op->end)) == NULL || (p = LIT(p, "}")) == NULL)
		return 0;
	return p == e && op->end >= op->start;
}

static int
load_line(struct ch_history *h, struct ch_json *j, const char *b, const char *e,
	  int has_newline, struct where w, uint32_t file, char *err,
	  size_t errlen)
{
	const struct ch_jv *rec, *fin;
	uint32_t root;
	char msg[256];

	if (h->nops == h->cap_ops) {
		h->cap_ops = h->cap_ops ? 2 * h->cap_ops : 1024;
		h->ops = ch_xrealloc(h->ops, h->cap_ops * sizeof(*h->ops));
	}
	if (fast_op(b, e, &h->ops[h->nops])) {
		h->ops[h->nops].file = file;
		h->ops[h->nops++].line = w.line;
		return 0;
	}
	if (!ch_utf8_valid(b, (size_t)(e - b))) {
		snprintf(err, errlen, "%s:%u: not UTF-8", w.path, w.line);
		return -1;
	}
	ch_strip(&b, &e);
	if (b == e)
		return 0;
	root = ch_json_parse(j, b, (size_t)(e - b));
	if (root == 0) {
		if (!has_newline)
			snprintf(err, errlen,
				 "%s:%u: truncated last line (was "
				 "the node killed before it closed its "
				 "history?)",
				 w.path, w.line);
		else
			snprintf(err, errlen, "%s:%u: not JSON: %s", w.path,
				 w.line, j->err);
		return -1;
	}
	rec = &j->v[root];
	if (rec->type != CH_J_OBJ) {
		snprintf(err, errlen, "%s:%u: not a JSON object", w.path,
			 w.line);
		return -1;
	}
	fin = ch_json_get(j, rec, "final");
	if (fin != NULL && ch_json_truthy(fin))
		return add_final(h, j, rec, w, file, err, errlen);
	if (parse_op(j, rec, &h->ops[h->nops], msg, sizeof(msg)) < 0) {
		snprintf(err, errlen, "%s:%u: %s", w.path, w.line, msg);
		return -1;
	}
	h->ops[h->nops].file = file;
	h->ops[h->nops].line = w.line;
	h->nops++;
	return 0;
}

int
ch_load(struct ch_history *h, char *err, size_t errlen)
{
	struct ch_json j = { 0 };
	int rc = 0;

	for (uint32_t fi = 0; fi < h->nfiles && rc == 0; fi++) {
		struct where w = { h->files[fi], 0 };
		const char *p, *end;
		char *buf;
		size_t len;

		if (map_file(w.path, &buf, &len, err, errlen) < 0) {
			rc = -1;
			break;
		}
		p = buf;
		end = buf + len;
		while (p < end && rc == 0) {
			/* a line ends at \n, \r\n or \r (universal newlines) */
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			const char *stop = nl ? nl : end;
			const char *cr = memchr(p, '\r', (size_t)(stop - p));
			const char *term = cr ? cr : stop, *next;

			next = term < end ? term + 1 : end;
			if (cr && next < end && *next == '\n')
				next++;
			w.line++;
			rc = load_line(h, &j, p, term, term < end, w, fi, err,
				       errlen);
			p = next;
		}
		if (len > 0)
			munmap(buf, len);
	}
	ch_json_free(&j);
	return rc;
}

void
ch_history_free(struct ch_history *h)
{
	for (size_t i = 0; i < h->nfinals; i++) {
		free(h->finals[i].node_repr);
		free(h->finals[i].pairs);
		free(h->finals[i].error);
	}
	free(h->finals);
	free(h->ops);
	h->finals = NULL;
	h->ops = NULL;
}
