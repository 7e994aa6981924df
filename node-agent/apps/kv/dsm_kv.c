/* SPDX-License-Identifier: BSD-3-Clause
 *
 * dsm_kv: the distributed key-value store of the paper's section 7.3
 * (Figure 14) on libdsm. Buckets spread over every node's global memory, a
 * key hashed to a bucket, GET and PUT as DSM calls (kv_store.h), YCSB's
 * workloads and key popularity (kv_workload.h, kv_zipf.h), fixed 8-byte
 * keys and 128-byte self-checking values (kv_table.h). Run one process per
 * node; README.md has the commands.
 *
 * Exit status: 0 when the run completed and no GET saw a torn value or
 * missed a key, 1 on such a violation or a failed DSM call, 2 for usage.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* getopt_long, usleep */
#endif
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dsm_app.h"
#include "kv_store.h"
#include "kv_workload.h"
#include "kv_zipf.h"

#define KV_DEFAULT_KEYS 1000000ull
#define KV_MAX_REPORTS  10 /* violations printed per node */

struct kv_opts {
	const char *workload; /* name for the CSV */
	double get_ratio;
	enum kv_dist dist;
	double theta;
	uint64_t keys; /* 0: the default */
	double fill;
	double max_rate; /* operations/s per thread, 0: no limit */
	bool rwlock;     /* GETs under dsm_rlock (per-bucket rwlocks) */
};

/* One thread's counters: written by it, read after it ended. */
struct kv_tstats {
	uint64_t gets, puts, torn, missing;
};

struct kv_run {
	struct kv_opts ko;
	struct kv_store st;
	struct kv_keygen gen;
	struct kv_tstats *ts;
	_Atomic unsigned reports;
};

static void
usage(FILE *f, const char *prg)
{
	fprintf(f,
		"Usage: %s --topo FILE --node N [options]\n"
		"The paper's key-value store (section 7.3): buckets spread "
		"over the nodes'\nglobal memory, 8-byte keys, 128-byte "
		"values, YCSB workloads.\n\n"
		"Key-value options:\n"
		"  --workload W      ycsb-a (50%% GET), ycsb-b (95%%), ycsb-c "
		"(100%%),\n"
		"                    get95, get50 (the paper's); default "
		"ycsb-b\n"
		"  --get-ratio R     fraction of GETs, 0..1 (instead of "
		"--workload)\n"
		"  --dist D          key popularity: zipf, scrambled-zipf or "
		"uniform\n"
		"                    (default zipf)\n"
		"  --zipf-theta T    Zipf constant, 0 <= T < 1 (default 0.99)\n"
		"  --keys N          key space (default 1M, less when --mem-mb "
		"cannot hold it)\n"
		"  --load-factor F   average bucket fill after the load, 0..1 "
		"(default 0.75)\n"
		"  --max-rate R      operations/s per thread at most (default "
		"0: no limit)\n"
		"  --rwlock          per-bucket rwlocks: GET reads the bucket "
		"under dsm_rlock\n"
		"                    (PUT always writes under dsm_wlock)\n\n",
		prg);
	app_opts_usage(f);
}

/* Parse the options into `o` and `ko`. @return 0, or 2 (usage). */
static int
parse(int argc, char **argv, struct app_opts *o, struct kv_opts *ko, bool *help)
{
	static const struct option opts[] = {
		APP_OPTS_LONG,
		{ "workload", required_argument, NULL, 'w' },
		{ "get-ratio", required_argument, NULL, 'g' },
		{ "dist", required_argument, NULL, 'd' },
		{ "zipf-theta", required_argument, NULL, 'z' },
		{ "keys", required_argument, NULL, 'k' },
		{ "load-factor", required_argument, NULL, 'l' },
		{ "max-rate", required_argument, NULL, 'r' },
		{ "rwlock", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static char name[32];
	const struct kv_workload *w;
	bool named = false, ratio = false;
	int c, r;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		r = app_opts_take(o, c, optarg);
		if (r < 0)
			return 2;
		if (r > 0)
			continue;
		switch (c) {
		case 'w':
			w = kv_workload_find(optarg);
			if (w == NULL) {
				fprintf(stderr,
					"--workload: ycsb-a, ycsb-b, ycsb-c, "
					"get95 or get50, got '%s'\n",
					optarg);
				return 2;
			}
			ko->workload = w->name;
			ko->get_ratio = w->get_ratio;
			named = true;
			break;
		case 'g':
			if (app_parse_double(optarg, 0, 1, &ko->get_ratio)) {
				fprintf(stderr, "--get-ratio: 0..1, got '%s'\n",
					optarg);
				return 2;
			}
			snprintf(name, sizeof(name), "get%g",
				 ko->get_ratio * 100);
			ko->workload = name;
			ratio = true;
			break;
		case 'd':
			if (kv_dist_parse(optarg, &ko->dist) != 0) {
				fprintf(stderr,
					"--dist: zipf, scrambled-zipf or "
					"uniform, got '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'z':
			if (app_parse_double(optarg, 0, 0.999999, &ko->theta)) {
				fprintf(stderr,
					"--zipf-theta: 0 <= T < 1, got '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'k':
			if (app_parse_u64(optarg, 1ull << 40, &ko->keys) ||
			    ko->keys < 2) {
				fprintf(stderr,
					"--keys: a whole number >= 2, got "
					"'%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'l':
			if (app_parse_double(optarg, 0.01, 1, &ko->fill)) {
				fprintf(stderr,
					"--load-factor: 0.01..1, got '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'r':
			if (app_parse_double(optarg, 0, 1e9, &ko->max_rate)) {
				fprintf(stderr, "--max-rate: ops/s, got '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'L':
			ko->rwlock = true;
			break;
		case 'h':
			*help = true;
			return 0;
		default:
			fprintf(stderr, "%s: see --help\n", argv[0]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0],
			argv[optind]);
		return 2;
	}
	if (named && ratio) {
		fprintf(stderr,
			"%s: --workload and --get-ratio exclude each "
			"other\n",
			argv[0]);
		return 2;
	}
	if (o->nodes > KV_MAX_NODES) {
		fprintf(stderr, "%s: at most %d nodes\n", argv[0],
			KV_MAX_NODES);
		return 2;
	}
	return app_opts_check(o, argv[0]) != 0 ? 2 : 0;
}

/* A correctness violation: counted by the caller, the first few printed. */
static void
violation(struct kv_run *r, struct app *a, uint16_t id, const char *what,
	  uint64_t key, uint64_t stamp, dsm_addr_t addr)
{
	if (atomic_fetch_add(&r->reports, 1) >= KV_MAX_REPORTS)
		return;
	fprintf(stderr,
		"VIOLATION node %d thread %u: %s: key 0x%016" PRIx64
		" value at 0x%" PRIx64 " stamp 0x%" PRIx64 "\n",
		a->o.node, id, what, key, addr, stamp);
}

/* Sleep while the thread is ahead of --max-rate, 100 ms at a time at most
 * (the end of the run is noticed). */
static void
pace(const struct app *a, double rate, uint64_t done)
{
	uint64_t due, now, us;

	if (rate <= 0)
		return;
	due = a->t_start_ns + (uint64_t)((double)done / rate * 1e9);
	while (!app_time_up(a) && (now = app_now_ns()) < due) {
		us = (due - now) / 1000 + 1;
		usleep((useconds_t)(us < 100000 ? us : 100000));
	}
}

/* The measured phase of one thread: GETs and PUTs until time is up. */
static int
worker(struct app *a, uint16_t id, void *arg)
{
	struct kv_run *r = arg;
	struct kv_tstats *ts = &r->ts[id];
	struct dsm_thread *t = dsm_thread(a->d, id);
	uint64_t rng = app_rand_seed(a, id), n = 0, stamp, key, t0, t1;
	uint8_t *buf = malloc(a->block);
	dsm_addr_t vaddr = 0;
	bool get = false;
	int rc = 0;

	if (buf == NULL)
		return -ENOMEM;
	while (rc >= 0 && !app_time_up(a)) {
		key = kv_key(kv_keygen_next(&r->gen, app_rand_unit(&rng)));
		get = app_rand_unit(&rng) < r->ko.get_ratio;
		/* Unique per write, never 0 (the loaded values' stamp). */
		stamp = (uint64_t)a->o.node << 48 | (uint64_t)id << 40 | ++n;
		t0 = app_now_ns();
		rc = get ? kv_get(t, &r->st, key, buf, &stamp, &vaddr)
			 : kv_put(t, &r->st, key, stamp, buf, &vaddr);
		t1 = app_now_ns();
		if (rc < 0)
			break;
		if (get)
			ts->gets++;
		else
			ts->puts++;
		atomic_fetch_add(&a->cnt[id].ops, 1);
		if (rc == KV_TORN) {
			ts->torn++;
			violation(r, a, id, "torn value", key, stamp, vaddr);
		} else if (rc == KV_MISSING) {
			ts->missing++;
			violation(r, a, id, "key not found", key, 0, 0);
		} else {
			app_hist(a, id, get ? "read" : "write", vaddr, stamp,
				 t0, t1);
		}
		pace(a, r->ko.max_rate, n);
	}
	free(buf);
	if (rc < 0)
		fprintf(stderr, "dsm_kv node %d thread %u: %s: %s\n", a->o.node,
			id, get ? "GET" : "PUT", strerror(-rc));
	return rc < 0 ? rc : 0;
}

/* The geometry for --keys (or the default) within --mem-mb. */
static int
geometry(struct app *a, struct kv_opts *ko, struct kv_geom *g)
{
	uint32_t segs = a->o.mem_mb / 32, skip = kv_seg_skip(a);
	uint64_t cap = kv_geom_capacity(a->block, a->o.nodes,
					segs < KV_MAX_SEGS ? segs : KV_MAX_SEGS,
					ko->fill, skip);
	int rc;

	if (a->block < KV_SLOT_SIZE) {
		fprintf(stderr,
			"dsm_kv: block size %u holds no 8-byte key and 128-byte "
			"value: use a topology with block_size >= 256\n",
			a->block);
		return -EINVAL;
	}
	if (ko->keys == 0) {
		ko->keys = KV_DEFAULT_KEYS < cap ? KV_DEFAULT_KEYS : cap;
		if (ko->keys < KV_DEFAULT_KEYS)
			printf("dsm_kv: %" PRIu64 " keys: what --mem-mb %u on "
			       "%u nodes holds (raise it for 1M)\n",
			       ko->keys, a->o.mem_mb, a->o.nodes);
	}
	rc = kv_geom_init(g, a->block, a->o.nodes, ko->keys, ko->fill, skip);
	if (rc == 0 && (uint64_t)g->segs * 32 > a->o.mem_mb)
		rc = -E2BIG;
	if (rc != 0)
		fprintf(stderr,
			"dsm_kv: --keys %" PRIu64 " needs more global memory "
			"than --mem-mb %u per node on %u nodes holds (at most "
			"%" PRIu64 " keys at load factor %.2f)\n",
			ko->keys, a->o.mem_mb, a->o.nodes, cap, ko->fill);
	return rc;
}

/* Set up, load, run, leave. @return 0 or the first error. */
static int
run(struct app *a, struct kv_run *r, double *load_s)
{
	struct dsm_thread *t = dsm_thread(a->d, 0);
	uint64_t t0;
	int rc;

	rc = kv_keygen_init(&r->gen, r->ko.dist, r->ko.keys, r->ko.theta);
	if (rc != 0) {
		fprintf(stderr, "dsm_kv: bad key distribution parameters\n");
		return rc;
	}
	rc = kv_store_setup(a, t, &r->st);
	if (rc != 0) {
		fprintf(stderr, "dsm_kv: setting up the buckets: %s\n",
			strerror(-rc));
		return rc;
	}
	t0 = app_now_ns();
	rc = kv_store_load(a, &r->st);
	if (rc == 0)
		rc = app_barrier(a, t);
	*load_s = (app_now_ns() - t0) / 1e9;
	if (rc != 0) {
		fprintf(stderr, "dsm_kv: load: %s\n", strerror(-rc));
		return rc;
	}
	printf("dsm_kv node %d: %" PRIu64 " keys in %" PRIu64
	       " buckets of %u (%u per node in %u segment(s)), loaded in "
	       "%.2f s\n",
	       a->o.node, r->ko.keys, r->st.g.buckets, r->st.g.slots,
	       (unsigned)r->st.g.per_node, r->st.g.segs, *load_s);
	fflush(stdout);
	rc = app_run_threads(a, worker, r);
	if (rc == 0)
		rc = app_leave(a, t);
	return rc;
}

int
main(int argc, char **argv)
{
	struct kv_run r = { .ko = { .workload = "ycsb-b",
				    .get_ratio = 0.95,
				    .dist = KV_DIST_ZIPF,
				    .theta = KV_ZIPF_THETA,
				    .fill = 0.75 } };
	struct kv_tstats sum = { 0 };
	char cols[256], vals[256];
	struct app_opts o;
	bool help = false;
	double load_s = 0;
	struct app a;
	int rc;

	app_opts_init(&o);
	rc = parse(argc, argv, &o, &r.ko, &help);
	if (help) {
		usage(stdout, argv[0]);
		return 0;
	}
	if (rc != 0)
		return rc;
	rc = app_open(&a, &o);
	if (rc != 0)
		return 1;
	if (geometry(&a, &r.ko, &r.st.g) != 0) {
		app_close(&a);
		return 2;
	}
	r.st.rlock_gets = r.ko.rwlock;
	r.ts = calloc(o.threads, sizeof(*r.ts));
	rc = r.ts == NULL ? -ENOMEM : run(&a, &r, &load_s);
	for (uint16_t i = 0; r.ts != NULL && i < o.threads; i++) {
		sum.gets += r.ts[i].gets;
		sum.puts += r.ts[i].puts;
		sum.torn += r.ts[i].torn;
		sum.missing += r.ts[i].missing;
	}
	snprintf(cols, sizeof(cols),
		 "dist,theta,keys,buckets,get_ratio,gets,puts,torn,missing,"
		 "load_s");
	snprintf(vals, sizeof(vals),
		 "%s,%.4g,%" PRIu64 ",%" PRIu64 ",%.4g,%" PRIu64 ",%" PRIu64
		 ",%" PRIu64 ",%" PRIu64 ",%.3f",
		 kv_dist_name(r.ko.dist), r.ko.theta, r.ko.keys, r.st.g.buckets,
		 r.ko.get_ratio, sum.gets, sum.puts, sum.torn, sum.missing,
		 load_s);
	if (rc == 0 && app_report(&a, "kv", r.ko.workload, cols, vals) != 0)
		rc = -EIO;
	printf("dsm_kv node %d: %" PRIu64 " GETs, %" PRIu64 " PUTs, %" PRIu64
	       " torn values, %" PRIu64 " missing keys: %s\n",
	       o.node, sum.gets, sum.puts, sum.torn, sum.missing,
	       rc != 0                   ? "run FAILED"
	       : sum.torn || sum.missing ? "correctness VIOLATED"
					 : "correctness OK");
	app_close(&a);
	free(r.ts);
	return rc != 0 || sum.torn || sum.missing ? 1 : 0;
}
