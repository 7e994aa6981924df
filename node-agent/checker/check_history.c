/* SPDX-License-Identifier: BSD-3-Clause
 *
 * check-history: the C build of node-agent/checker/check_history.py, ~10x
 * less CPU, with the same arguments, checks, output and exit codes (0: no
 * violation, 1: violations, 2: bad input or usage). The Python stays the
 * reference; test_check_history_diff.py runs both on the same histories.
 * This file: the command line (as the Python's argparse reads it: options
 * anywhere, --opt=N, unambiguous prefixes) and directories of *.jsonl.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ch.h"

static const char usage[] =
	"usage: check-history [-h] [--skew-ns SKEW_NS] [--expect-nodes "
	"EXPECT_NODES]\n"
	"                     [--min-ops MIN_OPS] [--max-violations "
	"MAX_VIOLATIONS]\n"
	"                     [--json]\n"
	"                     files [files ...]\n";

static const char help[] =
	"\nCheck node-agent histories for linearizability (registers) and "
	"exact\ncounting (counters); node-agent/checker/check_history.py "
	"describes the checks.\n\n"
	"positional arguments:\n"
	"  files                 history files (JSON lines), or directories "
	"of *.jsonl\n\n"
	"options:\n"
	"  -h, --help            show this help message and exit\n"
	"  --skew-ns SKEW_NS     clock skew bound between nodes (default 0: "
	"one machine,\n                        one clock)\n"
	"  --expect-nodes EXPECT_NODES\n"
	"                        nodes 0..N-1 must each have a final line\n"
	"  --min-ops MIN_OPS     fail when fewer operations were recorded\n"
	"  --max-violations MAX_VIOLATIONS\n"
	"                        print at most this many violations (default "
	"50; 0: all)\n"
	"  --json                print the summary as one JSON object\n";

enum opt {
	O_SKEW,
	O_EXPECT,
	O_MIN_OPS,
	O_MAX_VIOL,
	O_JSON,
	O_HELP,
	O_N
};

static const char *const opt_names[O_N] = { "--skew-ns", "--expect-nodes",
					    "--min-ops", "--max-violations",
					    "--json",    "--help" };

static int
usage_error(const char *fmt, const char *arg)
{
	fputs(usage, stderr);
	fputs("check-history: error: ", stderr);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return 2;
}

/* Python's int(s): base 10, whitespace around, sign, underscores between
 * digits, leading zeros allowed. */
static int
parse_int10(const char *s, ch_int *out)
{
	const char *b = s, *e = s + strlen(s);
	int neg = 0, nd = 0;
	ch_int x = 0;

	ch_strip(&b, &e);
	if (b < e && (*b == '+' || *b == '-'))
		neg = *b++ == '-';
	for (const char *p = b; p < e; p++) {
		if (*p == '_' && p > b && p + 1 < e && p[1] != '_')
			continue;
		if (*p < '0' || *p > '9')
			return -1;
		x = x * 10 + (*p - '0');
		if (x >= CH_INT_MAX)
			return -1;
		nd++;
	}
	if (nd == 0)
		return -1;
	*out = neg ? -x : x;
	return 0;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory: its *.jsonl (not hidden) in name order, as the Python's
 * sorted(glob(dir/"*.jsonl")); anything else: the path itself. */
static int
expand(const char *p, char ***files, size_t *n, size_t *cap)
{
	struct stat st;
	size_t first = *n, plen = strlen(p);
	int slash = plen > 0 && p[plen - 1] == '/';
	DIR *d;
	struct dirent *e;

	if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode) ||
	    (d = opendir(p)) == NULL) {
		if (*n == *cap) {
			*cap = *cap ? 2 * *cap : 16;
			*files = ch_xrealloc(*files, *cap * sizeof(**files));
		}
		(*files)[(*n)++] = strdup(p);
		return 0;
	}
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name), sz = plen + len + 2;

		if (e->d_name[0] == '.' || len < 6 ||
		    strcmp(e->d_name + len - 6, ".jsonl") != 0)
			continue;
		if (*n == *cap) {
			*cap = *cap ? 2 * *cap : 16;
			*files = ch_xrealloc(*files, *cap * sizeof(**files));
		}
		(*files)[*n] = ch_xrealloc(NULL, sz);
		snprintf((*files)[(*n)++], sz, "%s%s%s", p, slash ? "" : "/",
			 e->d_name);
	}
	closedir(d);
	qsort(*files + first, *n - first, sizeof(**files), by_name);
	return 0;
}

/* The option arg names (exactly or as an unambiguous prefix), or -1. */
static int
find_opt(const char *arg, size_t len)
{
	int found = -1;

	for (int i = 0; i < O_N; i++) {
		if (strlen(opt_names[i]) == len &&
		    strncmp(opt_names[i], arg, len) == 0)
			return i;
		if (strncmp(opt_names[i], arg, len) == 0)
			found = found == -1 ? i : -2;
	}
	return found < 0 ? -1 : found;
}

int
main(int argc, char **argv)
{
	ch_int val[O_N] = { 0 }, expect = 0;
	int has_expect = 0, json = 0, only_files = 0, npos = 0, rc;
	char **files = NULL, err[1024];
	size_t nfiles = 0, cap = 0;
	struct ch_history h = { 0 };
	struct ch_result res;

	val[O_MAX_VIOL] = 50;
	/* (--max-violations beyond 2^62 is as good as 0: all) */
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v, *eq;
		int o;

		if (only_files || a[0] != '-' || a[1] == 0 ||
		    (a[1] >= '0' && a[1] <= '9')) {
			expand(a, &files, &nfiles, &cap);
			npos++;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			only_files = 1;
			continue;
		}
		if (strcmp(a, "-h") == 0) {
			printf("%s%s", usage, help);
			return 0;
		}
		eq = a[1] == '-' ? strchr(a, '=') : NULL;
		o = a[1] == '-' ? find_opt(a, eq ? (size_t)(eq - a) : strlen(a))
				: -1;
		if (o < 0)
			return usage_error("unrecognized or ambiguous "
					   "argument: %s",
					   a);
		if (o == O_HELP) {
			printf("%s%s", usage, help);
			return 0;
		}
		if (o == O_JSON) {
			if (eq)
				return usage_error("argument --json: ignored "
						   "explicit argument '%s'",
						   eq + 1);
			json = 1;
			continue;
		}
		if (eq == NULL && i + 1 >= argc)
			return usage_error("argument %s: expected one argument",
					   opt_names[o]);
		v = eq ? eq + 1 : argv[++i];
		if (parse_int10(v, &val[o]) < 0)
			return usage_error("invalid int value: '%s'", v);
		if (o == O_EXPECT) {
			has_expect = 1;
			expect = val[o];
		}
	}
	if (npos == 0)
		return usage_error("the following arguments are required: %s",
				   "files");
	if (nfiles == 0) {
		fprintf(stderr, "check_history: no history files\n");
		return 2;
	}
	h.files = (const char **)files;
	h.nfiles = nfiles;
	if (val[O_MAX_VIOL] > ((ch_int)1 << 62) ||
	    val[O_MAX_VIOL] < -((ch_int)1 << 62))
		val[O_MAX_VIOL] = val[O_MAX_VIOL] > 0 ? 0 : -((ch_int)1 << 62);
	ch_result_init(&res, val[O_MAX_VIOL] > 0 ? (size_t)val[O_MAX_VIOL]
						 : SIZE_MAX);
	if (ch_load(&h, err, sizeof(err)) < 0 ||
	    ch_check(&h, &res, val[O_SKEW], has_expect, expect, err,
		     sizeof(err)) < 0) {
		fprintf(stderr, "check_history: %s\n", err);
		return 2;
	}
	if ((ch_int)h.nops < val[O_MIN_OPS]) {
		char x[CH_NUMBUF];

		ch_bad(&res, CH_V_TOO_FEW_OPS,
		       "%zu operations recorded, expected at least %s", h.nops,
		       ch_fmt_int(x, val[O_MIN_OPS]));
	}
	ch_report(&h, &res, (long long)val[O_MAX_VIOL], json);
	rc = res.nviolations ? 1 : 0;
	ch_result_free(&res);
	ch_history_free(&h);
	for (size_t i = 0; i < nfiles; i++)
		free(files[i]);
	free(files);
	return rc;
}
