/* SPDX-License-Identifier: BSD-3-Clause
 *
 * `na-sim --app NAME`: one of node-agent/apps run on every node of a
 * simulated cluster, with the cost model (na_sim_cost.h); see
 * na_sim_app.h for how the application's sources are built for it and
 * docs/SIMULATION.md "Applications" for the options and the output.
 *
 * Over 500 lines: the calls the applications make (threads, clocks, dsm),
 * the latency histogram and the run share one state (R) that a split would
 * have to export.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "na_requester.h"
#include "na_sim_app_run.h"
#include "na_sim_cost.h"
#include "na_sim_net.h"
#include "na_sim_sched.h"
#include "na_transport_sim.h"

/* The applications, registered by node-agent/simapps (their main()s). */
#define MAX_APPS 8
static struct {
	const char *name;
	int (*main)(int, char **);
} apps[MAX_APPS];
static unsigned int n_apps;

void
na_sim_app_register(const char *name, int (*main_fn)(int, char **))
{
	if (n_apps < MAX_APPS) {
		apps[n_apps].name = name;
		apps[n_apps++].main = main_fn;
	}
}

#define MAX_NODES 16
#define MAX_ARGS  64
/* Latency histogram: 16 sub-buckets per power of two (~4% wide). */
#define SUB      16
#define LAT_BINS (64 * SUB)

struct app_node {
	struct dsm *d;
	bool closed;
	int argc;
	char *argv[MAX_ARGS];
	int rc;
};

static struct {
	int (*main)(int, char **);
	const char *app, *mode, *out, *profile;
	const char *cost[8]; /* --cost NAME=NS, applied after --profile */
	unsigned int n_cost;
	uint16_t nodes, threads;
	uint32_t seed, trace_every;
	double duration, stuck_s;
	struct topo topo;
	struct na_sim_net *net;
	struct app_node node[MAX_NODES];
	uint32_t running;
	volatile int all_done;
	uint64_t lat[LAT_BINS], lat_n;
	char argbuf[MAX_NODES][MAX_ARGS][256];
} R;

/* ---- what the applications call (na_sim_app.h) --------------------------- */

int
na_sim_app_pthread_create(pthread_t *t, const pthread_attr_t *attr,
			  void *(*fn)(void *), void *arg)
{
	na_thread_t co;
	int rc;

	(void)attr;
	_Static_assert(sizeof(pthread_t) >= sizeof(na_thread_t),
		       "a coroutine handle fits a pthread_t");
	rc = na_thread_start(&co, fn, arg);
	if (rc == 0)
		*t = (pthread_t)co;
	return rc;
}

int
na_sim_app_pthread_join(pthread_t t, void **ret)
{
	if (ret)
		*ret = NULL;
	na_thread_join((na_thread_t)t);
	return 0;
}

int
na_sim_app_cond_wait(pthread_cond_t *cv, pthread_mutex_t *mu)
{
	return na_cond_wait_until(cv, mu, UINT64_MAX);
}

int
na_sim_app_cond_broadcast(pthread_cond_t *cv)
{
	na_cond_broadcast(cv);
	return 0;
}

int
na_sim_app_usleep(useconds_t us)
{
	na_sleep_until(na_now_ns() + (uint64_t)us * 1000u);
	return 0;
}

unsigned int
na_sim_app_sleep(unsigned int s)
{
	na_sleep_until(na_now_ns() + (uint64_t)s * 1000000000u);
	return 0;
}

int
na_sim_app_clock_gettime(clockid_t clk, struct timespec *ts)
{
	uint64_t now = na_now_ns(), ready = na_sim_cost_block(now);

	if (ready > now) {
		na_sleep_until(ready);
		now = na_now_ns();
	}

	(void)clk; /* the apps read CLOCK_MONOTONIC only */
	ts->tv_sec = (time_t)(now / 1000000000u);
	ts->tv_nsec = (long)(now % 1000000000u);
	return 0;
}

/* Every node's timers, once a virtual ms (its dispatch thread's job). */
static void
tick(void *ctx, void *arg)
{
	struct app_node *an = ctx;

	(void)arg;
	if (an->closed)
		return;
	na_node_timers(&an->d->node);
	na_sim_at(na_now_ns() + 1000000ull, tick, an, NULL);
}

int
na_sim_app_dsm_open(const struct dsm_config *cfg, struct dsm **out, char *err,
		    size_t err_len)
{
	struct dsm_config dc = *cfg;
	struct app_node *an;
	int rc;

	if (cfg->node >= R.nodes) {
		snprintf(err, err_len, "node %u is not simulated", cfg->node);
		return -EINVAL;
	}
	an = &R.node[cfg->node];
	dc.topo_path = NULL;
	rc = na_dsm_open(&dc, &R.topo, &na_transport_sim, true, out, err,
			 err_len);
	if (rc < 0)
		return rc;
	an->d = *out;
	na_sim_net_attach(R.net, cfg->node, &an->d->node);
	na_sim_at(na_now_ns() + 1000000ull, tick, an, NULL);
	return 0;
}

void
na_sim_app_dsm_close(struct dsm *d)
{
	for (uint16_t i = 0; i < R.nodes; i++)
		if (R.node[i].d == d) {
			/* No frame reaches a node once it is detached. */
			R.node[i].closed = true;
			na_sim_net_attach(R.net, i, NULL);
		}
	dsm_close(d);
}

void
na_sim_app_trace_mark(struct dsm *d)
{
	na_sim_cost_mark(na_now_ns());
	dsm_trace_mark(d);
}

uint64_t
na_sim_app_begin(void)
{
	uint64_t now = na_now_ns(), t = na_sim_cost_app(now);

	if (t > now)
		na_sleep_until(t);
	return now; /* the latency counts the application's time */
}

static uint32_t
lat_bin(uint64_t ns)
{
	uint32_t e;

	if (ns < SUB)
		return (uint32_t)ns;
	e = 63u - (uint32_t)__builtin_clzll(ns); /* ns >= 2^e */
	return (e - 3) * SUB + (uint32_t)((ns >> (e - 4)) & (SUB - 1));
}

static uint64_t
bin_low(uint32_t b)
{
	uint32_t e = b / SUB + 3;

	if (b < SUB)
		return b;
	return ((uint64_t)1 << e) + ((uint64_t)(b % SUB) << (e - 4));
}

void
na_sim_app_end(uint64_t start_ns)
{
	R.lat[lat_bin(na_now_ns() - start_ns +
		      na_sim_cost_app_deferred_ns())]++;
	R.lat_n++;
}

static double
lat_pct(double q)
{
	uint64_t want = (uint64_t)ceil(q * (double)R.lat_n), seen = 0;

	for (uint32_t b = 0; b < LAT_BINS && R.lat_n; b++) {
		seen += R.lat[b];
		if (seen >= want && R.lat[b])
			return (double)bin_low(b);
	}
	return 0;
}

/* ---- the run --------------------------------------------------------------- */

static void
usage(FILE *f)
{
	fprintf(f, "usage: na-sim --app kv|tpcc|pagerank --out DIR [--nodes N] "
		   "[--threads T]\n"
		   "              [--mode switch|home|directory] [--seed S] "
		   "[--duration S]\n"
		   "              [--profile local|paper] [--cost NAME=NS].. "
		   "[--stuck-s S] [--trace N] [-- APP OPTIONS]\n");
}

static int
parse(int argc, char **argv, int *app_argi)
{
	static const struct option lo[] = {
		{ "app", required_argument, NULL, 'a' },
		{ "nodes", required_argument, NULL, 'n' },
		{ "threads", required_argument, NULL, 't' },
		{ "mode", required_argument, NULL, 'm' },
		{ "seed", required_argument, NULL, 's' },
		{ "duration", required_argument, NULL, 'd' },
		{ "profile", required_argument, NULL, 'p' },
		{ "cost", required_argument, NULL, 'c' },
		{ "out", required_argument, NULL, 'o' },
		{ "stuck-s", required_argument, NULL, 'k' },
		{ "trace", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	R.nodes = 2;
	R.threads = 2;
	R.mode = "switch";
	R.seed = 1;
	R.duration = 0.05;
	R.stuck_s = 30;
	R.profile = "local";
	na_sim_cost_select(R.profile);
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		errno = 0;
		switch (c) {
		case 'a':
			for (unsigned int i = 0; i < n_apps; i++)
				if (!strcmp(optarg, apps[i].name)) {
					R.app = apps[i].name;
					R.main = apps[i].main;
				}
			if (!R.main) {
				fprintf(stderr,
					"na-sim: --app %s: kv, tpcc or "
					"pagerank\n",
					optarg);
				return -1;
			}
			break;
		case 'n':
			R.nodes = (uint16_t)strtoul(optarg, &end, 10);
			if (*end || R.nodes < 2 || R.nodes > MAX_NODES) {
				fprintf(stderr, "na-sim: --nodes: 2-%d\n",
					MAX_NODES);
				return -1;
			}
			break;
		case 't':
			R.threads = (uint16_t)strtoul(optarg, &end, 10);
			if (*end || R.threads < 1 || R.threads > 32) {
				fprintf(stderr, "na-sim: --threads: 1-32\n");
				return -1;
			}
			break;
		case 'm':
			R.mode = optarg;
			if (strcmp(optarg, "switch") &&
			    strcmp(optarg, "home") &&
			    strcmp(optarg, "directory")) {
				fprintf(stderr, "na-sim: --mode: switch, home "
						"or directory\n");
				return -1;
			}
			break;
		case 's':
			R.seed = (uint32_t)strtoul(optarg, &end, 10);
			if (*end || !R.seed || errno) {
				fprintf(stderr, "na-sim: --seed: 1-%u\n",
					UINT32_MAX);
				return -1;
			}
			break;
		case 'd':
		case 'k':
			*(c == 'd' ? &R.duration : &R.stuck_s) = strtod(optarg,
									&end);
			if (*end || errno || !(R.duration > 0) ||
			    !(R.stuck_s > 0)) {
				fprintf(stderr,
					"na-sim: --%s: virtual seconds "
					"> 0\n",
					c == 'd' ? "duration" : "stuck-s");
				return -1;
			}
			break;
		case 'p':
			R.profile = optarg;
			/* Without a cost a cached access takes no time: an
			 * application would loop at one instant. */
			if (!strcmp(optarg, "none") ||
			    na_sim_cost_select(optarg) < 0) {
				fprintf(stderr,
					"na-sim: --profile: local or paper\n");
				return -1;
			}
			break;
		case 'c':
			if (R.n_cost == sizeof(R.cost) / sizeof(R.cost[0])) {
				fprintf(stderr, "na-sim: --cost: at most %zu\n",
					sizeof(R.cost) / sizeof(R.cost[0]));
				return -1;
			}
			R.cost[R.n_cost++] = optarg;
			break;
		case 'o':
			R.out = optarg;
			break;
		case 'r':
			R.trace_every = (uint32_t)strtoul(optarg, &end, 10);
			if (*end || !R.trace_every || errno) {
				fprintf(stderr, "na-sim: --trace: sample 1 in "
						"N events, N >= 1\n");
				return -1;
			}
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return -1;
		}
	}
	na_sim_cost_for_app(R.app);
	for (unsigned int i = 0; i < R.n_cost; i++)
		if (na_sim_cost_set(R.cost[i]) < 0) {
			fprintf(stderr,
				"na-sim: --cost %s: NAME=NS, NAME one of "
				"hop_ns, tx_ns, rx_ns, wake_ns, op_ns, sw_pass_ns\n",
				R.cost[i]);
			return -1;
		}
	if (!R.main || !R.out) {
		fprintf(stderr, "na-sim: --app and --out are required\n");
		usage(stderr);
		return -1;
	}
	*app_argi = optind;
	return 0;
}

/* The cluster: nodes 0..n-1 on ports 0..n-1, the last the shadow, the
 * switch as the namespace clusters' (topo/demo*.json) or, when the cost
 * profile names one, of the profile's geometry (`paper`: the paper's). */
static int
make_topo(void)
{
	const struct na_sim_cost_profile *p = na_sim_cost_profile();
	char json[4096], err[TOPO_ERR_LEN], geo[64] = "";
	int len;

	if (p && p->sw_ways)
		snprintf(geo, sizeof(geo), ",\"ways\":%u,\"slots_per_way\":%u",
			 p->sw_ways, p->sw_slots);
	len = snprintf(json, sizeof(json),
		       "{\"lcf_port\":7340,\"block_size\":4096,"
		       "\"threads_per_node\":%u,\"switch\":{\"mac\":"
		       "\"02:00:00:00:00:fe\",\"ip\":\"10.0.0.254\","
		       "\"profile\":\"tofino\"%s},\"nodes\":[",
		       R.threads < 2 ? 2u : (unsigned int)R.threads, geo);
	for (uint16_t i = 0; i < R.nodes; i++)
		len += snprintf(json + len, sizeof(json) - (size_t)len,
				"%s{\"id\":%u,\"mac\":\"02:00:00:00:00:%02x\","
				"\"ip\":\"10.0.0.%u\",\"port\":%u}",
				i ? "," : "", (unsigned int)i, i + 1u, i + 1u,
				(unsigned int)i);
	snprintf(json + len, sizeof(json) - (size_t)len, "],\"shadow\":%u}",
		 R.nodes - 1u);
	if (topo_load_string(json, &R.topo, err) < 0) {
		fprintf(stderr, "na-sim: generated topology: %s\n", err);
		return -1;
	}
	return 0;
}

/* The common options of node-agent/apps/common for node `n`, then the
 * application's own. */
static void
build_argv(uint16_t n, int extra_argc, char **extra)
{
	struct app_node *an = &R.node[n];
	char(*b)[256] = R.argbuf[n];
	int k = 0;

#define ARG(...)                                           \
	do {                                               \
		snprintf(b[k], sizeof(b[k]), __VA_ARGS__); \
		an->argv[k] = b[k];                        \
		k++;                                       \
	} while (0)
	ARG("%s", R.app);
	ARG("--topo");
	ARG("sim");
	ARG("--node");
	ARG("%u", n);
	ARG("--nodes");
	ARG("%u", R.nodes);
	ARG("--threads");
	ARG("%u", R.threads);
	ARG("--mode");
	ARG("%s", R.mode);
	ARG("--duration");
	ARG("%.9g", R.duration);
	ARG("--seed");
	ARG("%u", R.seed);
	ARG("--csv");
	ARG("%s/app-%u.csv", R.out, n);
	ARG("--stats");
	ARG("%s/na-%u.json", R.out, n);
	ARG("--stats-start");
	ARG("%s/na-%u-start.json", R.out, n);
	if (R.trace_every) {
		ARG("--trace");
		ARG("%s/trace-%u.bin", R.out, n);
		ARG("--trace-every");
		ARG("%u", R.trace_every);
	}
#undef ARG
	for (int i = 0; i < extra_argc && k < MAX_ARGS - 1; i++)
		an->argv[k++] = extra[i];
	an->argv[k] = NULL;
	an->argc = k;
}

static void *
node_main(void *arg)
{
	struct app_node *an = arg;

	/* getopt's state is global: the application parses its options
	 * before its first wait, so no other node's run interleaves. */
	optind = 0;
	an->rc = R.main(an->argc, an->argv);
	if (--R.running == 0)
		R.all_done = 1;
	return NULL;
}

static double
wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
summary(FILE *f, double wall_s, bool stuck)
{
	const struct na_sim_net_stats *ns = na_sim_net_stats(R.net);

	fprintf(f,
		"{\"app\":\"%s\",\"mode\":\"%s\",\"nodes\":%u,\"threads\":%u,"
		"\"seed\":%u,\"stuck\":%s,\"events\":%" PRIu64
		",\"virtual_s\":%.6f,\"wall_s\":%.3f,\"latency\":{\"calls\":%" PRIu64
		",\"p50_ns\":%.0f,\"p99_ns\":%.0f},\"cost\":{",
		R.app, R.mode, R.nodes, R.threads, R.seed,
		stuck ? "true" : "false", na_sim_events(), na_now_ns() / 1e9,
		wall_s, R.lat_n, lat_pct(0.5), lat_pct(0.99));
	na_sim_cost_json(f);
	fprintf(f,
		"},\"net\":{\"sent\":%" PRIu64 ",\"delivered\":%" PRIu64
		",\"forwarded\":%" PRIu64 ",\"passes\":%" PRIu64
		",\"resubmits\":%" PRIu64 ",\"switch_drops\":%" PRIu64
		",\"detached\":%" PRIu64 "},\"switch_actions\":{",
		ns->sent, ns->delivered, ns->forwarded, ns->passes,
		ns->resubmits, ns->sw_drops, ns->detached);
	na_sim_net_actions_json(R.net, f);
	fprintf(f, "}}\n");
}

int
na_sim_app_main(int argc, char **argv)
{
	struct na_sim_net_config nc;
	double wall0 = wall_now();
	char path[4096];
	na_thread_t t;
	FILE *f;
	int argi = 0, rc;
	bool stuck = false;

	rc = parse(argc, argv, &argi);
	if (rc)
		return rc < 0 ? 2 : 0;
	if (mkdir(R.out, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "na-sim: --out %s: %s\n", R.out,
			strerror(errno));
		return 2;
	}
	if (make_topo() < 0)
		return 2;
	na_sim_init();
	/* An application thread's CPU is booked when it blocks. */
	na_sim_on_park(na_sim_cost_block);
	nc = (struct na_sim_net_config){ .topo = &R.topo, .seed = R.seed };
	rc = na_sim_net_create(&nc, &R.net);
	if (rc < 0) {
		fprintf(stderr, "na-sim: network: %s\n", strerror(-rc));
		return 1;
	}
	if (R.trace_every &&
	    na_sim_net_trace(R.net, R.trace_every, 1u << 20) < 0) {
		fprintf(stderr, "na-sim: --trace: out of memory\n");
		return 1;
	}
	na_transport_sim_bind(R.net);
	for (uint16_t n = 0; n < R.nodes; n++) {
		build_argv(n, argc - argi, argv + argi);
		if (na_sim_spawn(&t, node_main, &R.node[n]) == 0)
			R.running++;
	}
	while (!R.all_done) {
		uint64_t done = na_sim_run(100000, &R.all_done);

		if (!R.all_done &&
		    (done == 0 ||
		     na_now_ns() >
			     (uint64_t)((R.duration + R.stuck_s) * 1e9))) {
			stuck = true;
			break;
		}
	}
	snprintf(path, sizeof(path), "%s/sim.json", R.out);
	f = fopen(path, "w");
	if (f) {
		summary(f, wall_now() - wall0, stuck);
		fclose(f);
	}
	summary(stdout, wall_now() - wall0, stuck);
	if (stuck) {
		fprintf(stderr,
			"na-sim: %s seed %u: %u of %u nodes did not finish "
			"within %g virtual s (a liveness failure)\n",
			R.app, R.seed, R.running, R.nodes,
			R.duration + R.stuck_s);
		return 3;
	}
	na_sim_run(0, NULL);
	if (R.trace_every) {
		snprintf(path, sizeof(path), "%s/trace-sw.bin", R.out);
		f = fopen(path, "wb");
		if (f == NULL || na_sim_net_trace_dump(R.net, f) < 0)
			fprintf(stderr, "na-sim: %s: cannot write\n", path);
		if (f != NULL)
			fclose(f);
	}
	na_sim_net_free(R.net);
	na_sim_fini();
	for (uint16_t n = 0; n < R.nodes; n++)
		if (R.node[n].rc)
			return 1;
	return 0;
}
