/* SPDX-License-Identifier: BSD-3-Clause
 *
 * dsm_locks: the lock benchmark's workloads (docs/QUEUED-LOCKS.md
 * "Benchmark", scripts/bench-locks.sh), one process per node, dsm.h and
 * dsm_app.h only. Every thread of every node runs, until --duration:
 *
 *   handover  write-lock ONE block (dsm_wlock_region), increment its
 *             counter, unlock: every grant's counter value, request time
 *             and grant time go to --grants FILE (FIFO order and handovers
 *             are computed from them), each increment to the history as an
 *             `incr` (check_history.py: values 1..n, no lost update)
 *   gcs       the GCS microbenchmark (paper 002, section 5.2): acquire one
 *             lock that protects --data-blocks blocks of data, access the
 *             data, release. --kind read|write (reader-reader or
 *             writer-writer contention); --data combined (dsm_*lock_region
 *             on the data: lock and data in one coherence event per block)
 *             or separate (a lock block, then the data in its own coherence
 *             events); --locality on (the lock and data stay cached after
 *             the release) or off (dropped with dsm_evict_region: GCS's
 *             "w/o locality" scheme). Writers write a stamp into every data
 *             block and increment a counter; readers check that every
 *             block carries the same stamp (else a violation).
 *
 * The CSV row (--csv, dsm_app's columns) adds kind, data, locality,
 * data_blocks, lat_p50_us, lat_p99_us, lat_mean_us (acquire + data access,
 * per operation) and violations. Exit status 0; 1 on a violation or a
 * failed DSM call; 2 for bad options.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dsm_app.h"

#define LAT_CAP   (1u << 20) /* latency samples kept per thread */
#define GRANT_CAP (1u << 18) /* grants kept per thread */

struct lk_opts {
	bool handover;
	bool write;
	bool combined;
	bool locality;
	uint32_t data_blocks;
	double hold_us;
	double max_rate;
	const char *grants;
};

struct grant {
	uint64_t counter, start_ns, grant_ns;
};

struct lk_thread {
	uint64_t *lat;
	uint32_t nlat;
	struct grant *g;
	uint32_t ng;
	uint64_t violations;
	uint64_t seen; /* operations (latency samples beyond LAT_CAP too) */
	double lat_sum;
};

struct lk_run {
	struct lk_opts k;
	struct lk_thread *th;
	dsm_addr_t data, lock;
};

static void
usage(FILE *f, const char *prg)
{
	fprintf(f,
		"Usage: %s --topo FILE --node N [options]\n"
		"Lock benchmark workloads (docs/QUEUED-LOCKS.md "
		"\"Benchmark\").\n\n"
		"  --workload W      handover (all threads write-lock one "
		"block) or gcs\n"
		"  --kind K          gcs: read or write (default write)\n"
		"  --data D          gcs: combined (region lock brings the "
		"data) or separate\n"
		"                    (lock block, then the data); default "
		"combined\n"
		"  --locality L      gcs: on (default) or off (evict lock and "
		"data after\n"
		"                    each release)\n"
		"  --data-blocks K   gcs: blocks of data per lock (1..%d, "
		"default 1)\n"
		"  --hold-us U       time in the critical section (default "
		"0)\n"
		"  --grants FILE     handover: every grant as a CSV line\n"
		"  --max-rate R      operations/s per thread at most (default "
		"0: no limit;\n"
		"                    bounds histories)\n\n",
		prg, DSM_REGION_MAX_BLOCKS);
	app_opts_usage(f);
}

static int
parse(int argc, char **argv, struct app_opts *o, struct lk_opts *k)
{
	static const struct option opts[] = {
		APP_OPTS_LONG,
		{ "workload", required_argument, NULL, 'w' },
		{ "kind", required_argument, NULL, 'k' },
		{ "data", required_argument, NULL, 'd' },
		{ "locality", required_argument, NULL, 'l' },
		{ "data-blocks", required_argument, NULL, 'b' },
		{ "hold-us", required_argument, NULL, 'u' },
		{ "grants", required_argument, NULL, 'g' },
		{ "max-rate", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c, r;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		r = app_opts_take(o, c, optarg);
		if (r < 0)
			return 2;
		if (r > 0)
			continue;
		switch (c) {
		case 'w':
			if (strcmp(optarg, "handover") && strcmp(optarg, "gcs"))
				goto bad;
			k->handover = !strcmp(optarg, "handover");
			break;
		case 'k':
			if (strcmp(optarg, "read") && strcmp(optarg, "write"))
				goto bad;
			k->write = !strcmp(optarg, "write");
			break;
		case 'd':
			if (strcmp(optarg, "combined") &&
			    strcmp(optarg, "separate"))
				goto bad;
			k->combined = !strcmp(optarg, "combined");
			break;
		case 'l':
			if (strcmp(optarg, "on") && strcmp(optarg, "off"))
				goto bad;
			k->locality = !strcmp(optarg, "on");
			break;
		case 'b':
			if (app_parse_u64(optarg, DSM_REGION_MAX_BLOCKS, &v) ||
			    v == 0)
				goto bad;
			k->data_blocks = (uint32_t)v;
			break;
		case 'u':
			if (app_parse_double(optarg, 0, 1e6, &k->hold_us))
				goto bad;
			break;
		case 'g':
			k->grants = optarg;
			break;
		case 'r':
			if (app_parse_double(optarg, 0, 1e9, &k->max_rate))
				goto bad;
			break;
		case 'h':
			usage(stdout, argv[0]);
			exit(0);
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
	return app_opts_check(o, argv[0]) != 0 ? 2 : 0;
bad:
	fprintf(stderr, "%s: bad value '%s' (see --help)\n", argv[0], optarg);
	return 2;
}

static void
hold(double us)
{
	uint64_t until = app_now_ns() + (uint64_t)(us * 1e3);

	while (us > 0 && app_now_ns() < until)
		;
}

/* Sleep while the thread is ahead of --max-rate (op n since t_start). */
static void
pace(const struct app *a, double rate, uint64_t n)
{
	uint64_t due;

	if (rate <= 0)
		return;
	due = a->t_start_ns + (uint64_t)((double)n / rate * 1e9);
	for (;;) {
		uint64_t now = app_now_ns();

		if (app_time_up(a) || now >= due)
			return;
		usleep((useconds_t)((due - now) / 1000 > 100000
					    ? 100000
					    : (due - now) / 1000 + 1));
	}
}

static int
acquire(struct dsm_thread *t, const struct lk_run *r, uint32_t bs)
{
	size_t size = (size_t)r->k.data_blocks * bs;

	if (r->k.combined)
		return r->k.write ? dsm_wlock_region(t, r->data, size)
				  : dsm_rlock_region(t, r->data, size);
	return r->k.write ? dsm_wlock(t, r->lock) : dsm_rlock(t, r->lock);
}

static int
release(struct dsm_thread *t, const struct lk_run *r, uint32_t bs)
{
	size_t size = (size_t)r->k.data_blocks * bs;
	int rc;

	rc = r->k.combined ? dsm_unlock_region(t, r->data, size)
			   : dsm_unlock(t, r->lock);
	if (rc == 0 && !r->k.locality) {
		rc = dsm_evict_region(t, r->data, size);
		if (rc == 0 && !r->k.combined)
			rc = dsm_evict_region(t, r->lock, bs);
		if (rc == -EBUSY) /* another local thread holds it now */
			rc = 0;
	}
	return rc;
}

/*
 * The data access under the lock. Writers: a stamp into word 1 of every
 * block (written first, so that a separate-data writer's first access
 * brings each block Modified in one event), then counter (word 0 of the
 * first block) + 1, its new value in *counter. Readers: every block's
 * stamp must be the same.
 */
static int
access_data(struct dsm_thread *t, struct lk_run *r, struct lk_thread *me,
	    uint32_t bs, uint64_t stamp, uint64_t *counter)
{
	uint64_t c, first = 0, x;
	int rc = 0;

	for (uint32_t b = 0; rc == 0 && b < r->k.data_blocks; b++) {
		dsm_addr_t a = r->data + (uint64_t)b * bs + 8;

		if (r->k.write) {
			rc = dsm_write(t, a, &stamp, sizeof(stamp));
			continue;
		}
		rc = dsm_read(t, a, &x, sizeof(x));
		if (b == 0)
			first = x;
		else if (rc == 0 && x != first)
			me->violations++;
	}
	if (rc != 0 || !r->k.write)
		return rc;
	rc = dsm_read(t, r->data, &c, sizeof(c));
	if (rc == 0) {
		c++;
		rc = dsm_write(t, r->data, &c, sizeof(c));
	}
	*counter = c;
	return rc;
}

static int
worker(struct app *a, uint16_t id, void *arg)
{
	struct lk_run *r = arg;
	struct lk_thread *me = &r->th[id];
	struct dsm_thread *t = dsm_thread(a->d, id);
	uint32_t bs = a->block;
	uint64_t n = 0;
	int rc = 0;

	while (!app_time_up(a)) {
		uint64_t t0, t1, t2, counter = 0;
		uint64_t stamp = (uint64_t)a->o.node << 48 |
				 (uint64_t)id << 40 | ++n;

		t0 = app_now_ns();
		rc = acquire(t, r, bs);
		if (rc != 0)
			break;
		t1 = app_now_ns();
		rc = access_data(t, r, me, bs, stamp, &counter);
		t2 = app_now_ns();
		hold(r->k.hold_us);
		if (rc == 0)
			rc = release(t, r, bs);
		if (rc != 0)
			break;
		if (me->nlat < LAT_CAP)
			me->lat[me->nlat++] = t2 - t0;
		me->lat_sum += (double)(t2 - t0);
		me->seen++;
		if (r->k.handover && me->ng < GRANT_CAP)
			me->g[me->ng++] = (struct grant){ counter, t0, t1 };
		if (r->k.write && r->k.data_blocks >= 1)
			app_hist(a, id, "incr", r->data, counter, t0,
				 app_now_ns());
		atomic_fetch_add(&a->cnt[id].ops, 1);
		pace(a, r->k.max_rate, n);
	}
	dsm_sync(t);
	return rc;
}

static int
cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* Latency percentiles (us) over every thread's samples. */
static void
latency(const struct app *a, const struct lk_run *r, double *p50, double *p99,
	double *mean)
{
	uint64_t total = 0, k = 0, seen = 0;
	double sum = 0;
	uint64_t *all;

	for (uint16_t i = 0; i < a->o.threads; i++) {
		total += r->th[i].nlat;
		seen += r->th[i].seen;
		sum += r->th[i].lat_sum;
	}
	*p50 = *p99 = *mean = 0;
	all = total ? malloc(total * sizeof(*all)) : NULL;
	if (all == NULL)
		return;
	for (uint16_t i = 0; i < a->o.threads; i++)
		for (uint32_t j = 0; j < r->th[i].nlat; j++)
			all[k++] = r->th[i].lat[j];
	qsort(all, total, sizeof(*all), cmp_u64);
	*p50 = all[total / 2] / 1e3;
	*p99 = all[total * 99 / 100] / 1e3;
	*mean = seen ? sum / (double)seen / 1e3 : 0;
	free(all);
}

static int
write_grants(const struct app *a, const struct lk_run *r)
{
	FILE *f = fopen(r->k.grants, "w");

	if (f == NULL) {
		fprintf(stderr, "--grants %s: cannot write\n", r->k.grants);
		return -EIO;
	}
	fprintf(f, "counter,node,thread,start_ns,grant_ns\n");
	for (uint16_t i = 0; i < a->o.threads; i++)
		for (uint32_t j = 0; j < r->th[i].ng; j++)
			fprintf(f,
				"%" PRIu64 ",%d,%u,%" PRIu64 ",%" PRIu64 "\n",
				r->th[i].g[j].counter, a->o.node, i,
				r->th[i].g[j].start_ns, r->th[i].g[j].grant_ns);
	return fclose(f) == 0 ? 0 : -EIO;
}

static int
run(struct app *a, struct lk_run *r)
{
	struct dsm_thread *t0 = dsm_thread(a->d, 0);
	int rc;

	r->data = dsm_static_addr(0, app_static_base(a));
	r->lock = r->data + (uint64_t)r->k.data_blocks * a->block;
	r->th = calloc(a->o.threads, sizeof(*r->th));
	if (r->th == NULL)
		return -ENOMEM;
	for (uint16_t i = 0; i < a->o.threads; i++) {
		r->th[i].lat = malloc(LAT_CAP * sizeof(uint64_t));
		r->th[i].g = r->k.handover
				     ? malloc(GRANT_CAP * sizeof(struct grant))
				     : NULL;
		if (r->th[i].lat == NULL || (r->k.handover && !r->th[i].g))
			return -ENOMEM;
	}
	rc = app_barrier(a, t0);
	if (rc == 0)
		rc = app_run_threads(a, worker, r);
	if (rc == 0)
		rc = app_leave(a, t0);
	if (rc == 0 && r->k.grants)
		rc = write_grants(a, r);
	return rc;
}

int
main(int argc, char **argv)
{
	struct app_opts o;
	struct lk_run r = { .k = { .write = true,
				   .combined = true,
				   .locality = true,
				   .data_blocks = 1 } };
	struct app a = { 0 };
	char cols[256], vals[256];
	double p50, p99, mean;
	uint64_t viol = 0;
	int rc;

	app_opts_init(&o);
	rc = parse(argc, argv, &o, &r.k);
	if (rc)
		return rc;
	if (r.k.handover) { /* one block, written, lock and data together */
		r.k.write = r.k.combined = r.k.locality = true;
		r.k.data_blocks = 1;
	}
	rc = app_open(&a, &o);
	if (rc != 0)
		return 1;
	rc = run(&a, &r);
	if (rc != 0)
		fprintf(stderr, "dsm_locks: %s\n", strerror(-rc));
	latency(&a, &r, &p50, &p99, &mean);
	for (uint16_t i = 0; r.th && i < o.threads; i++)
		viol += r.th[i].violations;
	snprintf(cols, sizeof(cols),
		 "kind,data,locality,data_blocks,lat_p50_us,lat_p99_us,"
		 "lat_mean_us,violations");
	snprintf(vals, sizeof(vals), "%s,%s,%s,%u,%.2f,%.2f,%.2f,%" PRIu64,
		 r.k.write ? "write" : "read",
		 r.k.combined ? "combined" : "separate",
		 r.k.locality ? "on" : "off", r.k.data_blocks, p50, p99, mean,
		 viol);
	if (app_report(&a, "locks", r.k.handover ? "handover" : "gcs", cols,
		       vals))
		rc = rc ? rc : -EIO;
	app_close(&a);
	for (uint16_t i = 0; r.th && i < o.threads; i++) {
		free(r.th[i].lat);
		free(r.th[i].g);
	}
	free(r.th);
	if (viol)
		fprintf(stderr, "dsm_locks: %" PRIu64 " violations\n", viol);
	return rc || viol ? 1 : 0;
}
