/* SPDX-License-Identifier: BSD-3-Clause
 *
 * dsm_app: the applications' shared options, set-up, barrier, threads,
 * progress, histories, report, and what SIGINT/SIGTERM write; see dsm_app.h.
 *
 * Why one file of this length: every application links only this object
 * for its harness, and the option table, the report and the signal path
 * read the same struct dsm_app, which a split would have to export.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dsm_app.h"

/* Node 0's static region: the barrier counter in the first block. */
#define APP_BARRIER_OFF 0

static const char *const mode_names[] = {
	[APP_MODE_SWITCH] = "switch",
	[APP_MODE_HOME] = "home",
	[APP_MODE_DIRECTORY] = "directory",
};

void
app_opts_init(struct app_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->node = -1;
	o->nodes = 2;
	o->threads = 2;
	o->duration = 5;
	o->mode = APP_MODE_SWITCH;
	o->seed = 1;
	o->mem_mb = 128;
	o->cache_mb = 64;
}

int
app_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 0);
	return errno != 0 || *s == '\0' || *s == '-' || *end != '\0' ||
			       *out > max
		       ? -1
		       : 0;
}

int
app_parse_double(const char *s, double lo, double hi, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return errno != 0 || *s == '\0' || *end != '\0' || !(*out >= lo) ||
			       !(*out <= hi)
		       ? -1
		       : 0;
}

const char *
app_mode_name(enum app_mode m)
{
	return mode_names[m];
}

static int
take_u(const char *name, const char *arg, uint64_t lo, uint64_t max,
       uint64_t *v)
{
	if (app_parse_u64(arg, max, v) != 0 || *v < lo) {
		fprintf(stderr,
			"--%s: expected a whole number in %" PRIu64 "..%" PRIu64
			", got '%s'\n",
			name, lo, max, arg);
		return -1;
	}
	return 1;
}

int
app_opts_take(struct app_opts *o, int c, const char *arg)
{
	uint64_t v;
	int r;

	switch (c) {
	case 0x1000:
		o->topo = arg;
		return 1;
	case 0x1001:
		if ((r = take_u("node", arg, 0, 0xfffe, &v)) == 1)
			o->node = (int)v;
		return r;
	case 0x1002:
		if ((r = take_u("nodes", arg, 1, 0xfffe, &v)) == 1)
			o->nodes = (uint16_t)v;
		return r;
	case 0x1003:
		if ((r = take_u("threads", arg, 1, 255, &v)) == 1)
			o->threads = (uint16_t)v;
		return r;
	case 0x1004:
		if (app_parse_double(arg, 0, 86400, &o->duration) != 0) {
			fprintf(stderr, "--duration: seconds, got '%s'\n", arg);
			return -1;
		}
		return 1;
	case 0x1005:
		for (unsigned i = 0; i < 3; i++)
			if (!strcmp(arg, mode_names[i])) {
				o->mode = (enum app_mode)i;
				return 1;
			}
		fprintf(stderr, "--mode: switch, home or directory, got '%s'\n",
			arg);
		return -1;
	case 0x1006:
		if ((r = take_u("seed", arg, 0, UINT32_MAX, &v)) == 1)
			o->seed = (uint32_t)v;
		return r;
	case 0x1007:
		if ((r = take_u("mem-mb", arg, 32, 1 << 20, &v)) == 1)
			o->mem_mb = (uint32_t)v;
		return r;
	case 0x1008:
		if ((r = take_u("cache-mb", arg, 1, 1 << 20, &v)) == 1)
			o->cache_mb = (uint32_t)v;
		return r;
	case 0x1009:
		o->csv = arg;
		return 1;
	case 0x100a:
		o->stats = arg;
		return 1;
	case 0x100b:
		o->history_dir = arg;
		return 1;
	case 0x100c:
		o->progress = true;
		return 1;
	case 0x100d:
		o->stats_start = arg;
		return 1;
	case 0x100e:
		o->trace = arg;
		return 1;
	case 0x100f:
		if ((r = take_u("trace-every", arg, 1, 1u << 30, &v)) == 1)
			o->trace_every = (uint32_t)v;
		return r;
	case 0x1010:
		if (app_parse_double(arg, 0, 86400, &o->warmup) != 0) {
			fprintf(stderr, "--warmup: seconds, got '%s'\n", arg);
			return -1;
		}
		return 1;
	}
	return 0;
}

int
app_opts_check(const struct app_opts *o, const char *prg)
{
	if (o->topo == NULL || o->node < 0) {
		fprintf(stderr, "%s: --topo and --node are required (--help)\n",
			prg);
		return -1;
	}
	if (o->node >= o->nodes) {
		fprintf(stderr,
			"%s: --node %d is not below --nodes %d: the app runs on "
			"nodes 0..%d\n",
			prg, o->node, (int)o->nodes, o->nodes - 1);
		return -1;
	}
	if (o->mem_mb % 32 != 0) {
		fprintf(stderr, "%s: --mem-mb must be a multiple of 32\n", prg);
		return -1;
	}
	return 0;
}

void
app_opts_usage(FILE *f)
{
	fprintf(f,
		"Common options:\n"
		"  --topo FILE       topology JSON shared with the switch "
		"(required)\n"
		"  --node N          this process's node id (required)\n"
		"  --nodes K         processes running the app, nodes 0..K-1 "
		"(default 2)\n"
		"  --threads T       application threads per node (default 2)\n"
		"  --duration SEC    length of the measured phase (default 5)\n"
		"  --warmup SEC      run the workload this long first, "
		"uncounted (default 0)\n"
		"  --mode M          switch (LCF, hot blocks migrate into the "
		"switch),\n"
		"                    home (LCF, every block at its home) or\n"
		"                    directory (server directory); default "
		"switch\n"
		"  --seed S          random seed (default 1)\n"
		"  --mem-mb M        global memory held by this node, a "
		"multiple of 32\n"
		"                    (default 128)\n"
		"  --cache-mb M      local cache (default 64)\n"
		"  --csv FILE        append the result row (header if new)\n"
		"  --stats FILE      write the node's DSM statistics (JSON)\n"
		"  --stats-start FILE  the same, as the measured phase starts\n"
		"                    (the difference: the measured phase)\n"
		"  --history DIR     write per-thread histories for "
		"check_history.py\n"
		"  --progress        one line per second on stderr\n"
		"  --trace FILE      write a sampled latency trace\n"
		"                    (scripts/latency_breakdown.py)\n"
		"  --trace-every N   trace 1 in N events and accesses "
		"(default 64)\n"
		"  --help            this text\n");
}

uint64_t
app_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int
open_histories(struct app *a)
{
	char path[4096];

	if (a->o.history_dir == NULL)
		return 0;
	if (mkdir(a->o.history_dir, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "--history %s: %s\n", a->o.history_dir,
			strerror(errno));
		return -errno;
	}
	a->hist = calloc(a->o.threads, sizeof(*a->hist));
	if (a->hist == NULL)
		return -ENOMEM;
	for (uint16_t t = 0; t < a->o.threads; t++) {
		snprintf(path, sizeof(path), "%s/n%d-t%u.jsonl",
			 a->o.history_dir, a->o.node, t);
		a->hist[t] = fopen(path, "w");
		if (a->hist[t] == NULL) {
			fprintf(stderr, "%s: %s\n", path, strerror(errno));
			return -errno;
		}
		/* Lines are flushed at the end, not per operation. */
		setvbuf(a->hist[t], NULL, _IOFBF, 1 << 20);
	}
	return 0;
}

int
app_open(struct app *a, const struct app_opts *o)
{
	struct dsm_config cfg = { 0 };
	char err[256];
	int rc;

	memset(a, 0, sizeof(*a));
	a->o = *o;
	a->phase_s = o->duration;
	a->cnt = calloc(o->threads, sizeof(*a->cnt));
	if (a->cnt == NULL)
		return -ENOMEM;
	rc = open_histories(a);
	if (rc != 0)
		return rc;
	cfg.topo_path = o->topo;
	cfg.node = (uint16_t)o->node;
	cfg.threads = o->threads;
	cfg.mem_mb = o->mem_mb;
	cfg.cache_mb = o->cache_mb;
	cfg.seed = o->seed;
	cfg.migrate = o->mode == APP_MODE_SWITCH;
	cfg.directory = o->mode == APP_MODE_DIRECTORY;
	cfg.trace_path = o->trace;
	if (o->trace)
		cfg.trace_every = o->trace_every ? o->trace_every : 64;
	rc = dsm_open(&cfg, &a->d, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "dsm_open: %s\n", err);
		return rc;
	}
	a->block = dsm_block_size(a->d);
	return 0;
}

void
app_close(struct app *a)
{
	uint64_t ops = 0;

	if (a->hist != NULL) {
		for (uint16_t t = 0; t < a->o.threads; t++) {
			if (a->hist[t] == NULL)
				continue;
			ops = atomic_load(&a->cnt[t].ops);
			/* Thread 0's file carries the node's final line. */
			if (t == 0)
				fprintf(a->hist[t],
					"{\"node\":%d,\"final\":true,"
					"\"ops\":%" PRIu64 "}\n",
					a->o.node, ops);
			fclose(a->hist[t]);
		}
		free(a->hist);
		a->hist = NULL;
	}
	if (a->d != NULL)
		dsm_close(a->d);
	a->d = NULL;
	free(a->cnt);
	a->cnt = NULL;
}

uint64_t
app_static_base(const struct app *a)
{
	return a->block;
}

int
app_barrier(struct app *a, struct dsm_thread *t)
{
	const dsm_addr_t addr = dsm_static_addr(0, APP_BARRIER_OFF);
	uint64_t v = 0, want;
	useconds_t nap = 1;
	int rc;

	want = (uint64_t)++a->barrier_round * a->o.nodes;
	rc = dsm_wlock(t, addr);
	if (rc == 0)
		rc = dsm_read(t, addr, &v, sizeof(v));
	v++;
	if (rc == 0)
		rc = dsm_write(t, addr, &v, sizeof(v));
	if (rc == 0)
		rc = dsm_unlock(t, addr);
	/* The others may not have arrived yet; coherence brings their
	 * increments into the cached copy this reads (a hit until then).
	 * Polls 1 us apart, 25% longer each time up to 1 ms: a wait overshoots
	 * by at most a quarter of itself, so the poll period does not decide
	 * a short phase's run time (a fixed 1 ms did, at microsecond RTTs). */
	while (rc == 0 && v < want) {
		usleep(nap);
		nap = nap < 800 ? nap + nap / 4 + 1 : 1000;
		rc = dsm_read(t, addr, &v, sizeof(v));
	}
	dsm_sync(t);
	return rc;
}

int
app_leave(struct app *a, struct dsm_thread *t)
{
	int rc = app_barrier(a, t);

	sleep(1);
	return rc;
}

bool
app_time_up(const struct app *a)
{
	return a->stop ||
	       app_now_ns() - a->t_start_ns >= (uint64_t)(a->phase_s * 1e9);
}

void
app_hist(struct app *a, uint16_t thread, const char *op, dsm_addr_t addr,
	 uint64_t value, uint64_t start_ns, uint64_t end_ns)
{
	if (a->hist == NULL)
		return;
	fprintf(a->hist[thread],
		"{\"node\":%d,\"thread\":%u,\"op\":\"%s\",\"addr\":\"0x%" PRIx64
		"\",\"value\":%" PRIu64 ",\"start_ns\":%" PRIu64
		",\"end_ns\":%" PRIu64 "}\n",
		a->o.node, thread, op, addr, value, start_ns, end_ns);
}

uint64_t
app_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t
app_rand_seed(const struct app *a, uint16_t thread)
{
	uint64_t s = (uint64_t)a->o.seed << 32 ^ (uint64_t)a->o.node << 16 ^
		     thread;

	return app_rand(&s);
}

double
app_rand_unit(uint64_t *s)
{
	return (double)(app_rand(s) >> 11) * 0x1.0p-53;
}

struct worker {
	pthread_t tid;
	struct app *a;
	int (*fn)(struct app *, uint16_t, void *);
	void *arg;
	uint16_t id;
	_Atomic int done;
	int rc;
	uint64_t end_ns; /* when fn returned */
};

static void *
worker_main(void *p)
{
	struct worker *w = p;

	w->rc = w->fn(w->a, w->id, w->arg);
	w->end_ns = app_now_ns();
	atomic_store(&w->done, 1);
	return NULL;
}

static uint64_t
sum_ops(const struct app *a, uint64_t *aborts)
{
	uint64_t ops = 0;

	*aborts = 0;
	for (uint16_t t = 0; t < a->o.threads; t++) {
		ops += atomic_load(&a->cnt[t].ops);
		*aborts += atomic_load(&a->cnt[t].aborts);
	}
	return ops;
}

/* dsm_stats_json into `path`. @return 0, or -EIO (message printed). */
static int
write_stats(struct dsm *d, const char *path)
{
	FILE *f = fopen(path, "w");
	int rc = 0;

	if (f == NULL || dsm_stats_json(d, f) != 0)
		rc = -EIO;
	if (f != NULL && fclose(f) != 0)
		rc = -EIO;
	if (rc != 0)
		fprintf(stderr, "%s: cannot write the statistics\n", path);
	return rc;
}

/*
 * SIGINT/SIGTERM during a run: the watch loop writes --stats and flushes
 * the histories so far (a run a watchdog took down is diagnosed from
 * them), then exits 128 + the signal; workers blocked in the DSM cannot
 * be joined.
 */
static volatile sig_atomic_t app_signal;

static void
on_signal(int sig)
{
	app_signal = sig;
}

static void
interrupted(struct app *a)
{
	int sig = app_signal;

	fprintf(stderr,
		"node %d: %s: writing the statistics and histories "
		"so far, exiting\n",
		a->o.node, strsignal(sig));
	if (a->o.stats != NULL)
		(void)write_stats(a->d, a->o.stats);
	for (uint16_t t = 0; a->hist != NULL && t < a->o.threads; t++)
		if (a->hist[t] != NULL)
			fflush(a->hist[t]);
	_exit(128 + sig);
}

/* Wait for the workers; a progress line every second if asked. */
static void
watch(struct app *a, struct worker *w)
{
	uint64_t last_ops = 0, last_ab = 0, next = a->t_start_ns + 1000000000;
	bool all;

	do {
		usleep(20000);
		if (app_signal)
			interrupted(a);
		all = true;
		for (uint16_t t = 0; t < a->o.threads; t++)
			all = all && atomic_load(&w[t].done);
		if (a->o.progress && app_now_ns() >= next) {
			uint64_t ab, ops = sum_ops(a, &ab);

			fprintf(stderr,
				"node %d: %3.0f s  %8" PRIu64
				" ops/s  %6" PRIu64 " aborts/s\n",
				a->o.node, (next - a->t_start_ns) / 1e9,
				ops - last_ops, ab - last_ab);
			last_ops = ops;
			last_ab = ab;
			next += 1000000000;
		}
	} while (!all);
}

/* One phase: `fn` on every thread for a->phase_s (or until stopped). */
static int
run_phase(struct app *a, int (*fn)(struct app *, uint16_t, void *), void *arg)
{
	struct worker *w = calloc(a->o.threads, sizeof(*w));
	uint16_t started = 0;
	int rc = 0;

	if (w == NULL)
		return -ENOMEM;
	a->t_start_ns = app_now_ns();
	for (; started < a->o.threads; started++) {
		w[started] = (struct worker){
			.a = a, .fn = fn, .arg = arg, .id = started
		};
		if (pthread_create(&w[started].tid, NULL, worker_main,
				   &w[started]) != 0) {
			rc = -EAGAIN;
			a->stop = 1;
			break;
		}
	}
	if (started == a->o.threads)
		watch(a, w);
	/* The phase ends with its last thread, not when watch() (20 ms
	 * polls) noticed: a short run's time is not the poll's multiple. */
	a->t_end_ns = a->t_start_ns;
	for (uint16_t t = 0; t < started; t++) {
		pthread_join(w[t].tid, NULL);
		if (rc == 0)
			rc = w[t].rc;
		if (w[t].end_ns > a->t_end_ns)
			a->t_end_ns = w[t].end_ns;
	}
	free(w);
	return rc;
}

int
app_measure_from_now(struct app *a)
{
	for (uint16_t t = 0; t < a->o.threads; t++)
		a->cnt[t] = (struct app_counters){ 0 };
	if (a->o.stats_start != NULL && write_stats(a->d, a->o.stats_start))
		return -EIO;
	dsm_trace_mark(a->d);
	a->t_start_ns = app_now_ns();
	return 0;
}

int
app_run_threads(struct app *a, int (*fn)(struct app *, uint16_t, void *),
		void *arg)
{
	int rc;

	a->stop = 0;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (a->o.warmup > 0) {
		/* Steady state first (e.g. migration's first epochs). */
		a->phase_s = a->o.warmup;
		rc = run_phase(a, fn, arg);
		if (rc != 0 || a->stop)
			goto out;
	}
	rc = app_measure_from_now(a);
	if (rc != 0)
		goto out;
	a->phase_s = a->o.duration;
	rc = run_phase(a, fn, arg);
out:
	/* After the run (the final barrier, the report): a signal ends the
	 * process again, as before the run. */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	return rc;
}

/* Append the row, with the header first when the file is new or empty. */
static int
append_csv(const char *path, const char *header, const char *row)
{
	/* The nodes of one run append to the same file at once: the lock
	 * makes "header if new, then the row" one step, so two nodes that
	 * both find the file empty cannot both write the header. */
	char buf[2200];
	struct stat st;
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644), n, rc = 0;

	if (fd < 0)
		return -EIO;
	if (flock(fd, LOCK_EX) != 0 || fstat(fd, &st) != 0) {
		close(fd);
		return -EIO;
	}
	n = snprintf(buf, sizeof(buf), "%s%s%s\n", st.st_size ? "" : header,
		     st.st_size ? "" : "\n", row);
	if (n < 0 || (size_t)n >= sizeof(buf) || write(fd, buf, n) != n)
		rc = -EIO;
	if (close(fd) != 0)
		rc = -EIO;
	return rc;
}

int
app_report(struct app *a, const char *app, const char *workload,
	   const char *extra_cols, const char *extra_vals)
{
	uint64_t aborts, retries = 0, ops = sum_ops(a, &aborts);
	double secs = (a->t_end_ns - a->t_start_ns) / 1e9;
	double ratio = ops + aborts ? (double)aborts / (double)(ops + aborts)
				    : 0;
	char header[1024], row[1024];
	int rc = 0;

	for (uint16_t t = 0; t < a->o.threads; t++)
		retries += atomic_load(&a->cnt[t].retries);
	printf("%s %s node %d: %" PRIu64 " ops in %.2f s = %.0f ops/s, "
	       "%" PRIu64 " aborts (%.4f), %" PRIu64 " retries\n",
	       app, workload, a->o.node, ops, secs, secs > 0 ? ops / secs : 0,
	       aborts, ratio, retries);
	fflush(stdout);
	snprintf(header, sizeof(header),
		 "app,mode,workload,node,nodes,threads,seconds,ops,ops_per_s,"
		 "aborts,abort_ratio,retries%s%s",
		 *extra_cols ? "," : "", extra_cols);
	snprintf(row, sizeof(row),
		 "%s,%s,%s,%d,%u,%u,%.3f,%" PRIu64 ",%.1f,%" PRIu64
		 ",%.6f,%" PRIu64 "%s%s",
		 app, app_mode_name(a->o.mode), workload, a->o.node, a->o.nodes,
		 a->o.threads, secs, ops, secs > 0 ? ops / secs : 0, aborts,
		 ratio, retries, *extra_vals ? "," : "", extra_vals);
	if (a->o.csv != NULL && append_csv(a->o.csv, header, row) != 0) {
		fprintf(stderr, "--csv %s: cannot write\n", a->o.csv);
		rc = -EIO;
	}
	if (a->o.stats != NULL) {
		FILE *f = fopen(a->o.stats, "w");

		if (f == NULL || dsm_stats_json(a->d, f) != 0) {
			fprintf(stderr, "--stats %s: cannot write\n",
				a->o.stats);
			rc = -EIO;
		}
		if (f != NULL && fclose(f) != 0)
			rc = -EIO;
	}
	return rc;
}
