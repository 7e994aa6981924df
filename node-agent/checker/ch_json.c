/* SPDX-License-Identifier: BSD-3-Clause
 *
 * One line's JSON value, parsed as Python's json module parses it (the
 * reference checker decodes each line with json.JSONDecoder.raw_decode),
 * and Python's int(s, 0), str.strip() and UTF-8 decoder rules (ch.h).
 * A line is a few fields: values go into an arena reset per line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch.h"

#define MAX_DEPTH    900  /* Python's recursion limit stops near 1000 */
#define MAX_DIGITS   4300 /* Python's int('...') limit (sys.int_info) */
#define CH_ALLOC_MIN 64

struct parser {
	struct ch_json *j;
	const char *begin, *p, *end;
	int depth;
};

static int
fail(struct parser *ps, const char *what)
{
	struct ch_json *j = ps->j;

	snprintf(j->err, sizeof(j->err), "%s at column %zu", what,
		 (size_t)(ps->p - ps->begin) + 1);
	return -1;
}

static uint32_t
new_value(struct ch_json *j, uint8_t type, const char *raw)
{
	struct ch_jv *v;

	if (j->n == j->cap) {
		j->cap = j->cap ? 2 * j->cap : CH_ALLOC_MIN;
		j->v = ch_xrealloc(j->v, j->cap * sizeof(*j->v));
	}
	v = &j->v[j->n];
	v->type = type;
	v->next = v->child = 0;
	v->key = NULL;
	v->klen = 0;
	v->raw = raw;
	return (uint32_t)j->n++;
}

static void
skip_ws(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' ||
				   *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static int
hex4(const char *p, unsigned *out)
{
	unsigned v = 0;

	for (int i = 0; i < 4; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

static char *
put_utf8(char *o, unsigned c)
{
	if (c < 0x80) {
		*o++ = (char)c;
	} else if (c < 0x800) {
		*o++ = (char)(0xc0 | (c >> 6));
		*o++ = (char)(0x80 | (c & 0x3f));
	} else if (c < 0x10000) {
		*o++ = (char)(0xe0 | (c >> 12));
		*o++ = (char)(0x80 | ((c >> 6) & 0x3f));
		*o++ = (char)(0x80 | (c & 0x3f));
	} else {
		*o++ = (char)(0xf0 | (c >> 18));
		*o++ = (char)(0x80 | ((c >> 12) & 0x3f));
		*o++ = (char)(0x80 | ((c >> 6) & 0x3f));
		*o++ = (char)(0x80 | (c & 0x3f));
	}
	return o;
}

/* A string at ps->p (the opening quote): its unescaped contents in *s. The
 * scratch buffer holds at least the line's length, which no unescaped
 * string exceeds. */
static int
parse_string(struct parser *ps, const char **s, size_t *slen)
{
	const char *p = ++ps->p, *start = p;
	struct ch_json *j = ps->j;
	char *o;

	while (p < ps->end && *p != '"' && *p != '\\' &&
	       (unsigned char)*p >= 0x20)
		p++;
	if (p < ps->end && *p == '"') { /* no escape: the line's bytes */
		*s = start;
		*slen = (size_t)(p - start);
		ps->p = p + 1;
		return 0;
	}
	o = j->scratch + j->sused;
	*s = o;
	memcpy(o, start, (size_t)(p - start));
	o += p - start;
	for (;;) {
		unsigned c, c2;

		if (p >= ps->end) {
			ps->p = p;
			return fail(ps, "unterminated string");
		}
		if (*p == '"')
			break;
		if ((unsigned char)*p < 0x20) {
			ps->p = p;
			return fail(ps, "invalid control character");
		}
		if (*p != '\\') {
			*o++ = *p++;
			continue;
		}
		if (++p >= ps->end) {
			ps->p = p;
			return fail(ps, "unterminated string");
		}
		switch (*p++) {
		case '"':
			*o++ = '"';
			break;
		case '\\':
			*o++ = '\\';
			break;
		case '/':
			*o++ = '/';
			break;
		case 'b':
			*o++ = '\b';
			break;
		case 'f':
			*o++ = '\f';
			break;
		case 'n':
			*o++ = '\n';
			break;
		case 'r':
			*o++ = '\r';
			break;
		case 't':
			*o++ = '\t';
			break;
		case 'u':
			if (ps->end - p < 4 || hex4(p, &c) < 0) {
				ps->p = p;
				return fail(ps, "invalid \\uXXXX escape");
			}
			p += 4;
			/* a surrogate pair is one character; a lone surrogate
			 * stays (Python keeps it) */
			if (c >= 0xd800 && c <= 0xdbff && ps->end - p >= 6 &&
			    p[0] == '\\' && p[1] == 'u' &&
			    hex4(p + 2, &c2) == 0 && c2 >= 0xdc00 &&
			    c2 <= 0xdfff) {
				c = 0x10000 + ((c - 0xd800) << 10) +
				    (c2 - 0xdc00);
				p += 6;
			}
			o = put_utf8(o, c);
			break;
		default:
			ps->p = p - 1;
			return fail(ps, "invalid escape");
		}
	}
	*slen = (size_t)(o - *s);
	j->sused += *slen;
	ps->p = p + 1;
	return 0;
}

static int
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int
match(struct parser *ps, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(ps->end - ps->p) >= n && memcmp(ps->p, lit, n) == 0) {
		ps->p += n;
		return 1;
	}
	return 0;
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?, NaN, Infinity, -Infinity */
static int
parse_number(struct parser *ps, uint32_t vi)
{
	const char *p = ps->p, *ds;
	struct ch_jv *v = &ps->j->v[vi];
	int neg = 0, isfloat = 0;
	char buf[64];

	if (*p == '-') {
		neg = 1;
		p++;
	}
	if (p >= ps->end || !is_digit(*p)) {
		ps->p = p;
		if (neg && match(ps, "Infinity")) {
			v->type = CH_J_FLOAT;
			v->d = -1.0 / 0.0;
			return 0;
		}
		return fail(ps, "expecting value");
	}
	ds = p;
	if (*p == '0')
		p++;
	else
		while (p < ps->end && is_digit(*p))
			p++;
	if (p - ds > MAX_DIGITS) {
		ps->p = p;
		return fail(ps, "integer string too long");
	}
	if (ps->end - p >= 2 && *p == '.' && is_digit(p[1])) {
		isfloat = 1;
		p += 2;
		while (p < ps->end && is_digit(*p))
			p++;
	}
	if (p < ps->end && (*p == 'e' || *p == 'E')) {
		const char *q = p + 1;

		if (q < ps->end && (*q == '+' || *q == '-'))
			q++;
		if (q < ps->end && is_digit(*q)) {
			isfloat = 1;
			while (q < ps->end && is_digit(*q))
				q++;
			p = q;
		}
	}
	if (isfloat) {
		size_t n = (size_t)(p - ps->p);
		char *heap = NULL, *t = buf;

		if (n >= sizeof(buf))
			t = heap = ch_xrealloc(NULL, n + 1);
		memcpy(t, ps->p, n);
		t[n] = 0;
		v->type = CH_J_FLOAT;
		v->d = strtod(t, NULL);
		free(heap);
	} else {
		ch_int x = 0;
		const char *q = ds;

		v->type = CH_J_INT;
		if (p - ds <= 18) { /* fits in 64 bits: the common case */
			uint64_t u = 0;

			for (; q < p; q++)
				u = u * 10 + (uint64_t)(*q - '0');
			x = (ch_int)u;
		}
		for (; q < p; q++) {
			x = x * 10 + (*q - '0');
			if (x >= CH_INT_MAX) {
				v->type = CH_J_BIGINT;
				break;
			}
		}
		v->i = neg ? -x : x;
	}
	ps->p = p;
	return 0;
}

static int parse_value(struct parser *ps, uint32_t *out);

static int
parse_container(struct parser *ps, uint32_t vi, int obj)
{
	uint32_t last = 0;
	char close = obj ? '}' : ']';

	if (++ps->depth > MAX_DEPTH)
		return fail(ps, "nested too deeply");
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		ps->depth--;
		return 0;
	}
	for (;;) {
		const char *key = NULL;
		size_t klen = 0;
		uint32_t ci;

		if (obj) {
			if (ps->p >= ps->end || *ps->p != '"')
				return fail(ps, "expecting property name");
			if (parse_string(ps, &key, &klen) < 0)
				return -1;
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':')
				return fail(ps, "expecting ':'");
			ps->p++;
			skip_ws(ps);
		}
		if (parse_value(ps, &ci) < 0)
			return -1;
		ps->j->v[ci].key = key;
		ps->j->v[ci].klen = klen;
		if (last)
			ps->j->v[last].next = ci;
		else
			ps->j->v[vi].child = ci;
		last = ci;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			break;
		}
		if (ps->p >= ps->end || *ps->p != ',')
			return fail(ps, "expecting ',' delimiter");
		ps->p++;
		skip_ws(ps);
	}
	ps->depth--;
	return 0;
}

static int
parse_value(struct parser *ps, uint32_t *out)
{
	const char *start = ps->p;
	uint32_t vi;
	int rc = 0;

	if (ps->p >= ps->end)
		return fail(ps, "expecting value");
	vi = new_value(ps->j, CH_J_NULL, start);
	switch (*ps->p) {
	case '"':
		ps->j->v[vi].type = CH_J_STR;
		rc = parse_string(ps, &ps->j->v[vi].s, &ps->j->v[vi].slen);
		break;
	case '{':
	case '[':
		ps->j->v[vi].type = *ps->p == '{' ? CH_J_OBJ : CH_J_ARR;
		rc = parse_container(ps, vi, *ps->p == '{');
		break;
	case 'n':
		rc = match(ps, "null") ? 0 : fail(ps, "expecting value");
		break;
	case 't':
		ps->j->v[vi].type = CH_J_TRUE;
		rc = match(ps, "true") ? 0 : fail(ps, "expecting value");
		break;
	case 'f':
		ps->j->v[vi].type = CH_J_FALSE;
		rc = match(ps, "false") ? 0 : fail(ps, "expecting value");
		break;
	case 'N':
		ps->j->v[vi].type = CH_J_FLOAT;
		ps->j->v[vi].d = 0.0 / 0.0;
		rc = match(ps, "NaN") ? 0 : fail(ps, "expecting value");
		break;
	case 'I':
		ps->j->v[vi].type = CH_J_FLOAT;
		ps->j->v[vi].d = 1.0 / 0.0;
		rc = match(ps, "Infinity") ? 0 : fail(ps, "expecting value");
		break;
	default:
		rc = parse_number(ps, vi);
	}
	if (rc < 0)
		return -1;
	ps->j->v[vi].rawlen = (size_t)(ps->p - start);
	*out = vi;
	return 0;
}

uint32_t
ch_json_parse(struct ch_json *j, const char *line, size_t len)
{
	struct parser ps = { j, line, line, line + len, 0 };
	uint32_t root;

	j->n = 1; /* index 0 means "none" */
	j->sused = 0;
	if (j->cap == 0) {
		j->cap = CH_ALLOC_MIN;
		j->v = ch_xrealloc(NULL, j->cap * sizeof(*j->v));
	}
	if (j->scap < len + 1) {
		j->scap = 2 * len + CH_ALLOC_MIN;
		j->scratch = ch_xrealloc(j->scratch, j->scap);
	}
	if (parse_value(&ps, &root) < 0)
		return 0;
	if (ps.p != ps.end) {
		fail(&ps, "extra data");
		return 0;
	}
	return root;
}

void
ch_json_free(struct ch_json *j)
{
	free(j->v);
	free(j->scratch);
	memset(j, 0, sizeof(*j));
}

const struct ch_jv *
ch_json_get(const struct ch_json *j, const struct ch_jv *obj, const char *key)
{
	const struct ch_jv *found = NULL;

	ch_json_fields(j, obj, &key, 1, &found);
	return found;
}

void
ch_json_fields(const struct ch_json *j, const struct ch_jv *obj,
	       const char *const *keys, size_t nkeys,
	       const struct ch_jv **found)
{
	size_t len[16];

	for (size_t k = 0; k < nkeys; k++) {
		len[k] = strlen(keys[k]);
		found[k] = NULL;
	}
	for (uint32_t c = obj->child; c; c = j->v[c].next)
		for (size_t k = 0; k < nkeys; k++)
			if (j->v[c].klen == len[k] &&
			    j->v[c].key[0] == keys[k][0] &&
			    memcmp(j->v[c].key, keys[k], len[k]) == 0) {
				found[k] = &j->v[c];
				break;
			}
}

int
ch_json_truthy(const struct ch_jv *v)
{
	switch (v->type) {
	case CH_J_NULL:
	case CH_J_FALSE:
		return 0;
	case CH_J_INT:
		return v->i != 0;
	case CH_J_FLOAT:
		return v->d != 0.0; /* NaN is true, as in Python */
	case CH_J_STR:
		return v->slen > 0;
	case CH_J_ARR:
	case CH_J_OBJ:
		return v->child != 0;
	default:
		return 1;
	}
}
