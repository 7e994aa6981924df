/* SPDX-License-Identifier: BSD-3-Clause
 *
 * dsm_app: what every application under node-agent/apps shares, on top of
 * dsm.h alone: the common command-line options, opening the DSM in one of
 * the three coherence modes, a cluster-wide barrier, worker threads with
 * per-thread counters, a once-a-second progress line, per-thread history
 * files for node-agent/checker/check_history.py, a random generator, and the
 * result row (CSV) plus the node's statistics (JSON) at the end.
 *
 * Node 0's static region starts with one block that this library owns (the
 * barrier counters); applications lay out their own static data from
 * app_static_base() on.
 */
#ifndef DSM_APP_H
#define DSM_APP_H

#include <getopt.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <dsm.h>

/** The three coherence modes of the paper's evaluation (section 7). */
enum app_mode {
	APP_MODE_SWITCH,    /* LCF, hot blocks migrate into the switch */
	APP_MODE_HOME,      /* LCF with every block at its home (base) */
	APP_MODE_DIRECTORY, /* the classic server directory */
};

/** Common options; app_opts_init() sets the defaults. */
struct app_opts {
	const char *topo;        /* --topo FILE (required) */
	int node;                /* --node N (required) */
	uint16_t nodes;          /* --nodes K: processes running the app (2) */
	uint16_t threads;        /* --threads T per node (2) */
	double duration;         /* --duration SEC of the measured phase (5) */
	double warmup;           /* --warmup SEC run before it, not counted */
	enum app_mode mode;      /* --mode switch|home|directory (switch) */
	uint32_t seed;           /* --seed S (1) */
	uint32_t mem_mb;         /* --mem-mb M held by this home (128) */
	uint32_t cache_mb;       /* --cache-mb M local cache (64) */
	const char *csv;         /* --csv FILE: append the result row */
	const char *stats;       /* --stats FILE: dsm_stats_json at the end */
	const char *history_dir; /* --history DIR: per-thread histories */
	bool progress;           /* --progress: a line per second on stderr */
	const char *stats_start; /* --stats-start FILE: dsm_stats_json as the
				    measured phase starts */
	const char *trace;       /* --trace FILE: the sampled latency trace */
	uint32_t trace_every;    /* --trace-every N (64 with --trace) */
};

/** Long options of struct app_opts, to splice into an app's table. */
/* clang-format off */
#define APP_OPTS_LONG                                          \
	{ "topo", required_argument, NULL, 0x1000 },           \
	{ "node", required_argument, NULL, 0x1001 },           \
	{ "nodes", required_argument, NULL, 0x1002 },          \
	{ "threads", required_argument, NULL, 0x1003 },        \
	{ "duration", required_argument, NULL, 0x1004 },       \
	{ "mode", required_argument, NULL, 0x1005 },           \
	{ "seed", required_argument, NULL, 0x1006 },           \
	{ "mem-mb", required_argument, NULL, 0x1007 },         \
	{ "cache-mb", required_argument, NULL, 0x1008 },       \
	{ "csv", required_argument, NULL, 0x1009 },            \
	{ "stats", required_argument, NULL, 0x100a },          \
	{ "history", required_argument, NULL, 0x100b },        \
	{ "progress", no_argument, NULL, 0x100c },             \
	{ "stats-start", required_argument, NULL, 0x100d },    \
	{ "trace", required_argument, NULL, 0x100e },          \
	{ "trace-every", required_argument, NULL, 0x100f },    \
	{ "warmup", required_argument, NULL, 0x1010 }
/* clang-format on */

void app_opts_init(struct app_opts *o);

/**
 * Take one getopt_long result if it is a common option.
 * @return 1 taken, 0 not a common option, -1 bad value (message printed).
 */
int app_opts_take(struct app_opts *o, int c, const char *arg);

/** Check the required options. @return 0, or -1 (message printed). */
int app_opts_check(const struct app_opts *o, const char *prg);

/** The common options' lines of --help. */
void app_opts_usage(FILE *f);

/** Parse helpers for an app's own options. @return 0, or -1. */
int app_parse_u64(const char *s, uint64_t max, uint64_t *out);
int app_parse_double(const char *s, double lo, double hi, double *out);

const char *app_mode_name(enum app_mode m);

/** Per-thread counters, read by the progress line while threads run. */
struct app_counters {
	_Atomic uint64_t ops;     /* completed operations / transactions */
	_Atomic uint64_t aborts;  /* aborted (and retried) attempts */
	_Atomic uint64_t retries; /* app-specific retries (e.g. lock busy) */
};

struct app {
	struct app_opts o;
	struct dsm *d;
	uint32_t block;                /* block size */
	struct app_counters *cnt;      /* one per thread */
	FILE **hist;                   /* one per thread, or NULL */
	uint32_t barrier_round;        /* barriers passed */
	volatile int stop;             /* set at the end of the run */
	uint64_t t_start_ns, t_end_ns; /* measured phase */
	double phase_s;                /* the running phase's length */
};

/**
 * Open the DSM as o->node with o->threads application threads in o->mode.
 * @return 0, or -errno with a message on stderr.
 */
int app_open(struct app *a, const struct app_opts *o);

/**
 * The end of a run on every node: a last barrier, then a second's linger
 * so that peers still reading blocks this node homes get their answers.
 * Call before app_report/app_close. @return as app_barrier.
 */
int app_leave(struct app *a, struct dsm_thread *t);

/** Close the DSM and the history files (final lines written). */
void app_close(struct app *a);

/** The application's first free offset in node 0's static region. */
uint64_t app_static_base(const struct app *a);

/**
 * Cluster-wide barrier: returns once all o->nodes processes have called it
 * as often as this one. Call it from one thread of the process (it uses
 * thread handle `t`). @return 0, or -errno (-EINTR when stopped).
 */
int app_barrier(struct app *a, struct dsm_thread *t);

/**
 * Start the measured phase now: the counters to zero, the start time, the
 * --stats-start snapshot and the trace mark. app_run_threads calls it; an
 * iteration-bound app calls it again after its warm-up iterations, while
 * its other threads wait (they must not count meanwhile).
 * @return 0, or -EIO (the --stats-start file cannot be written).
 */
int app_measure_from_now(struct app *a);

/**
 * Run fn(a, thread, arg) on o->threads threads until each returns; while
 * they run, print the progress line if asked. With --warmup the threads
 * run `fn` for that long first, uncounted (a time-bound `fn` only). The
 * measured phase's times are taken around the second run; --stats-start
 * is written just before it. @return 0,
 * -EIO (--stats-start could not be written), or the first thread's
 * non-zero result.
 */
int app_run_threads(struct app *a, int (*fn)(struct app *, uint16_t, void *),
		    void *arg);

/** True once the measured phase has lasted o->duration seconds. */
bool app_time_up(const struct app *a);

/** CLOCK_MONOTONIC in nanoseconds (the history checker's clock). */
uint64_t app_now_ns(void);

/**
 * Append one operation to thread `thread`'s history (no-op without
 * --history); op is "read", "write" or "incr" (check_history.py).
 */
void app_hist(struct app *a, uint16_t thread, const char *op, dsm_addr_t addr,
	      uint64_t value, uint64_t start_ns, uint64_t end_ns);

/** splitmix64: a thread's generator, seeded from (seed, node, thread). */
uint64_t app_rand(uint64_t *s);
uint64_t app_rand_seed(const struct app *a, uint16_t thread);
/** Uniform in [0, 1). */
double app_rand_unit(uint64_t *s);

/**
 * The end of a run: the totals as a line on stdout, one CSV row appended to
 * --csv (header first if the file is new or empty) with the columns
 * app,mode,workload,node,nodes,threads,seconds,ops,ops_per_s,aborts,
 * abort_ratio,retries followed by the app's `extra_cols` / `extra_vals`
 * (comma-separated, may be ""), and dsm_stats_json into --stats.
 * @return 0, or -EIO when a file could not be written.
 */
int app_report(struct app *a, const char *app, const char *workload,
	       const char *extra_cols, const char *extra_vals);

#endif /* DSM_APP_H */
