/* SPDX-License-Identifier: BSD-3-Clause
 *
 * pr_snap: SNAP edge-list files (snap.stanford.edu's "FromNodeId ToNodeId"
 * text format) into dense edges (pr_graph.h). Strict: anything but two
 * non-negative integers on a non-comment line is an error naming the line,
 * so that a wrong file (a weighted list, a CSV) is not silently misread.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "pr_graph.h"

/* Ids of the file before remapping. */
struct raw {
	uint64_t *src, *dst;
	uint64_t n, cap;
};

static int
raw_push(struct raw *r, uint64_t s, uint64_t d)
{
	if (r->n == r->cap) {
		uint64_t cap = r->cap ? r->cap * 2 : 1024;
		uint64_t *ns = realloc(r->src, cap * sizeof(*ns));

		if (ns == NULL)
			return -ENOMEM;
		r->src = ns;
		ns = realloc(r->dst, cap * sizeof(*ns));
		if (ns == NULL)
			return -ENOMEM;
		r->dst = ns;
		r->cap = cap;
	}
	r->src[r->n] = s;
	r->dst[r->n++] = d;
	return 0;
}

static void
say(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

/* One unsigned decimal id at *p; advances *p. @return 0 or -1. */
static int
parse_id(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	if (!isdigit((unsigned char)*s))
		return -1;
	for (; isdigit((unsigned char)*s); s++) {
		uint64_t d = (uint64_t)(*s - '0');

		if (x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*p = s;
	*v = x;
	return 0;
}

static const char *
skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
		s++;
	return s;
}

/* A line: 0 edge, 1 nothing (comment/blank), -1 malformed. */
static int
parse_line(const char *line, uint64_t *s, uint64_t *d)
{
	const char *p = skip_ws(line);

	if (*p == '\0' || *p == '#')
		return 1;
	if (parse_id(&p, s) != 0 || (*p != ' ' && *p != '\t'))
		return -1;
	p = skip_ws(p);
	if (parse_id(&p, d) != 0)
		return -1;
	return *skip_ws(p) == '\0' ? 0 : -1;
}

static int
cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

static uint32_t
dense(const uint64_t *ids, uint64_t n, uint64_t id)
{
	const uint64_t *p = bsearch(&id, ids, n, sizeof(*ids), cmp_u64);

	return (uint32_t)(p - ids);
}

/* Remap the file's ids to 0 .. n-1 in ascending order. */
static int
remap(const struct raw *r, struct pr_edge **out, uint32_t *n, char *err,
      size_t err_len, const char *name)
{
	uint64_t *ids = malloc(r->n * 2 * sizeof(*ids)), k = 0;
	struct pr_edge *e = malloc(r->n * sizeof(*e));

	if (ids == NULL || e == NULL) {
		free(ids);
		free(e);
		return -ENOMEM;
	}
	memcpy(ids, r->src, r->n * sizeof(*ids));
	memcpy(ids + r->n, r->dst, r->n * sizeof(*ids));
	qsort(ids, r->n * 2, sizeof(*ids), cmp_u64);
	for (uint64_t i = 0; i < r->n * 2; i++)
		if (k == 0 || ids[i] != ids[k - 1])
			ids[k++] = ids[i];
	if (k > UINT32_MAX) {
		say(err, err_len, "%s: %" PRIu64 " vertices, more than %u",
		    name, k, UINT32_MAX);
		free(ids);
		free(e);
		return -EINVAL;
	}
	for (uint64_t i = 0; i < r->n; i++) {
		e[i].src = dense(ids, k, r->src[i]);
		e[i].dst = dense(ids, k, r->dst[i]);
	}
	free(ids);
	*out = e;
	*n = (uint32_t)k;
	return 0;
}

int
pr_snap_read(FILE *f, const char *name, struct pr_edge **out, uint64_t *m,
	     uint32_t *n, char *err, size_t err_len)
{
	struct raw r = { 0 };
	char *line = NULL;
	size_t cap = 0;
	uint64_t lineno = 0, s, d;
	int rc = 0, k;

	while (rc == 0 && getline(&line, &cap, f) >= 0) {
		lineno++;
		k = parse_line(line, &s, &d);
		if (k < 0) {
			line[strcspn(line, "\r\n")] = '\0';
			say(err, err_len,
			    "%s:%" PRIu64 ": expected \"SRC DST\" (two "
			    "non-negative integers), got \"%.60s\"",
			    name, lineno, line);
			rc = -EINVAL;
		} else if (k == 0) {
			rc = raw_push(&r, s, d);
		}
	}
	free(line);
	if (rc == 0 && ferror(f)) {
		say(err, err_len, "%s: read error", name);
		rc = -EIO;
	}
	if (rc == 0 && r.n == 0) {
		say(err, err_len, "%s: no edges", name);
		rc = -EINVAL;
	}
	if (rc == 0)
		rc = remap(&r, out, n, err, err_len, name);
	if (rc == -ENOMEM)
		say(err, err_len, "%s: out of memory", name);
	if (rc == 0)
		*m = r.n;
	free(r.src);
	free(r.dst);
	return rc;
}

int
pr_snap_load(const char *path, struct pr_edge **out, uint64_t *m, uint32_t *n,
	     char *err, size_t err_len)
{
	FILE *f = fopen(path, "r");
	int rc;

	if (f == NULL) {
		rc = -errno;
		say(err, err_len, "%s: %s", path, strerror(errno));
		return rc;
	}
	rc = pr_snap_read(f, path, out, m, n, err, err_len);
	fclose(f);
	return rc;
}
