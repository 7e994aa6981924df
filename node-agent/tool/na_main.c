/* SPDX-License-Identifier: BSD-3-Clause
 *
 * node-agent: one memory node of the DSM (docs/NODE-AGENT.md).
 *
 *   node-agent --topo FILE --node N [options]
 *
 * Runs the home agent, cache agent (and shadow role) of node N on the
 * dispatch thread, optionally a workload on application threads, and prints
 * JSON statistics on stdout at exit. SIGINT/SIGTERM: the workload threads
 * finish their in-flight operation and settle their unlocks, the agents
 * keep answering peers for --linger seconds, the history is flushed.
 * SIGUSR1: the workload ends as if its duration ran out (nothing gives up).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dsm.h"
#include "na_history.h"
#include "na_node.h"
#include "na_requester.h"
#include "na_workload.h"

static volatile int force_quit;
static volatile int signals;
static struct dsm *the_dsm;

static void
on_signal(int sig)
{
	(void)sig;
	force_quit = 1;
	/* An atomic store: lets operations stuck on a dead peer give up. */
	if (the_dsm)
		dsm_stop(the_dsm);
	if (++signals >= 3)
		_exit(130); /* the user insists */
}

/*
 * SIGUSR1: a test's common end for processes started at different times
 * (test-drain.sh restart: every node's last operations need its peers, which
 * serve them only for --linger after their own workload). No dsm_stop(): an
 * operation still waits for its answer, so a lost one hangs visibly instead
 * of being given up after NA_GIVE_UP_NS.
 */
static void
on_end(int sig)
{
	(void)sig;
	force_quit = 1;
}

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: node-agent --topo FILE --node N [options]\n"
		"\n"
		"  --topo FILE          topology JSON (topo/*.json)\n"
		"  --node N             this node's id\n"
		"  --role LIST          home,cache,shadow (default: home,cache, plus shadow\n"
		"                       on the topology's shadow node)\n"
		"  --transport T        udp (default), udp-nosteer or verbs\n"
		"  --direct             no switch on the path (two-node tests): requests\n"
		"                       for blocks homed here are delivered locally\n"
		"  --threads T          application threads (default 1)\n"
		"  --duration SEC       workload duration (default 10; 0 = until signal;\n"
		"                       SIGUSR1 ends it like its timer)\n"
		"  --workload W         none (default), micro, counter\n"
		"  --read-ratio R       micro: fraction of reads (default 0.5)\n"
		"  --sharing-ratio S    micro: fraction of ops on the shared region (0.5)\n"
		"  --locality L         micro: probability to re-touch the last block (0.5)\n"
		"  --shared-blocks K    shared region size in blocks (micro 1024, counter 4)\n"
		"  --private-blocks P   micro: private blocks per thread (default 256)\n"
		"  --op-size B          micro: bytes per operation (default 8)\n"
		"  --max-rate R         at most R operations/s per thread (default 0: no\n"
		"                       limit; bounds the history of local-hit runs)\n"
		"  --switch-blocks N    move this home's first N blocks to the switch at\n"
		"                       start (ADD_TO_SWITCH; static migration)\n"
		"  --migrate            dynamic ownership migration (section 5.2): every\n"
		"                       epoch the top-k hottest home-owned blocks go to the\n"
		"                       switch; the shadow node sends cold ones back\n"
		"  --migrate-k K        blocks migrated per epoch at most (default 1000)\n"
		"  --epoch-ms MS        migration epoch and hotness report period (10)\n"
		"  --pipe-depth W       PIPE diff write-back of evictions, credit window\n"
		"                       of W frames (docs/PIPE.md; default 0: off)\n"
		"  --zipf THETA         micro: shared blocks drawn Zipf(THETA), shared\n"
		"                       block 0 the hottest (default 0: uniform)\n"
		"  --cache-mb M         local cache size (default 64)\n"
		"  --cache-blocks N     local cache size in blocks (overrides --cache-mb;\n"
		"                       small values exercise evictions)\n"
		"  --mem-mb M           global memory of this home, multiple of 32 (128)\n"
		"  --linger SEC         keep serving peers after the workload (default 2)\n"
		"  --history FILE       record every operation (JSON lines)\n"
		"  --stats FILE         also write the statistics JSON to FILE\n"
		"  --seed S             random seed (default 1)\n"
		"  --dead-file FILE     node ids declared dead, one a line, polled every\n"
		"                       100 ms: drain their locks; one taken off rejoins\n"
		"                       (a new process of it, docs/FAULTS.md 3)\n"
		"  --coherence P        lcf (default: the switch's LCF pipeline, home agents\n"
		"                       for blocks it does not own) or directory (a classic\n"
		"                       home-based directory protocol, benchmark baseline;\n"
		"                       every node of a run must use the same)\n"
		"  --start-at T         start the workload at CLOCK_REALTIME T (seconds,\n"
		"                       e.g. date +%%s.%%N + 2): a common start for all nodes\n"
		"  --help               this text\n");
}

enum {
	O_TOPO = 256,
	O_NODE,
	O_ROLE,
	O_TRANSPORT,
	O_DIRECT,
	O_THREADS,
	O_DURATION,
	O_WORKLOAD,
	O_READ,
	O_SHARING,
	O_LOCALITY,
	O_SHARED,
	O_PRIVATE,
	O_OPSIZE,
	O_SWITCH,
	O_CACHE,
	O_MEM,
	O_LINGER,
	O_HISTORY,
	O_STATS,
	O_SEED,
	O_HELP,
	O_CACHE_BLOCKS,
	O_DEAD_FILE,
	O_MAX_RATE,
	O_MIGRATE,
	O_MIGRATE_K,
	O_EPOCH,
	O_ZIPF,
	O_COHERENCE,
	O_START_AT,
	O_PIPE_DEPTH,
};

static const struct option opts[] = {
	{ "topo", required_argument, NULL, O_TOPO },
	{ "node", required_argument, NULL, O_NODE },
	{ "role", required_argument, NULL, O_ROLE },
	{ "transport", required_argument, NULL, O_TRANSPORT },
	{ "direct", no_argument, NULL, O_DIRECT },
	{ "threads", required_argument, NULL, O_THREADS },
	{ "duration", required_argument, NULL, O_DURATION },
	{ "workload", required_argument, NULL, O_WORKLOAD },
	{ "read-ratio", required_argument, NULL, O_READ },
	{ "sharing-ratio", required_argument, NULL, O_SHARING },
	{ "locality", required_argument, NULL, O_LOCALITY },
	{ "shared-blocks", required_argument, NULL, O_SHARED },
	{ "private-blocks", required_argument, NULL, O_PRIVATE },
	{ "op-size", required_argument, NULL, O_OPSIZE },
	{ "switch-blocks", required_argument, NULL, O_SWITCH },
	{ "cache-mb", required_argument, NULL, O_CACHE },
	{ "mem-mb", required_argument, NULL, O_MEM },
	{ "linger", required_argument, NULL, O_LINGER },
	{ "history", required_argument, NULL, O_HISTORY },
	{ "stats", required_argument, NULL, O_STATS },
	{ "seed", required_argument, NULL, O_SEED },
	{ "help", no_argument, NULL, O_HELP },
	{ "cache-blocks", required_argument, NULL, O_CACHE_BLOCKS },
	{ "dead-file", required_argument, NULL, O_DEAD_FILE },
	{ "max-rate", required_argument, NULL, O_MAX_RATE },
	{ "migrate", no_argument, NULL, O_MIGRATE },
	{ "migrate-k", required_argument, NULL, O_MIGRATE_K },
	{ "epoch-ms", required_argument, NULL, O_EPOCH },
	{ "zipf", required_argument, NULL, O_ZIPF },
	{ "coherence", required_argument, NULL, O_COHERENCE },
	{ "start-at", required_argument, NULL, O_START_AT },
	{ "pipe-depth", required_argument, NULL, O_PIPE_DEPTH },
	{ NULL, 0, NULL, 0 },
};

struct args {
	struct dsm_config dc;
	struct na_wl_config wl;
	uint32_t switch_blocks;
	double linger;
	double start_at;
	const char *history;
	const char *stats;
	const char *workload;
	const char *dead_file;
	bool node_set;
};

static int
num(const char *opt, const char *s, double lo, double hi, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || *end || *v < lo || *v > hi) {
		fprintf(stderr,
			"node-agent: --%s: expected a number in "
			"[%g, %g], got \"%s\"\n",
			opt, lo, hi, s);
		return -1;
	}
	return 0;
}

static int
parse(int argc, char **argv, struct args *a)
{
	double v;
	int c;

	memset(a, 0, sizeof(*a));
	a->dc.threads = 1;
	a->dc.seed = 1;
	a->wl = (struct na_wl_config){
		.duration_s = 10,
		.read_ratio = 0.5,
		.sharing_ratio = 0.5,
		.locality = 0.5,
		.private_blocks = 256,
		.op_size = 8,
	};
	a->linger = 2;
	a->workload = "none";
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		const char *o = opts[c >= 256 ? c - 256 : 0].name;

		switch (c) {
		case O_TOPO:
			a->dc.topo_path = optarg;
			break;
		case O_DEAD_FILE:
			a->dead_file = optarg;
			break;
		case O_ROLE:
			a->dc.roles = optarg;
			break;
		case O_TRANSPORT:
			a->dc.transport = optarg;
			break;
		case O_DIRECT:
			a->dc.direct = true;
			break;
		case O_MIGRATE:
			a->dc.migrate = true;
			break;
		case O_WORKLOAD:
			a->workload = optarg;
			break;
		case O_HISTORY:
			a->history = optarg;
			break;
		case O_STATS:
			a->stats = optarg;
			break;
		case O_HELP:
			usage(stdout);
			exit(0);
		case O_COHERENCE:
			if (strcmp(optarg, "lcf") &&
			    strcmp(optarg, "directory")) {
				fprintf(stderr,
					"node-agent: --coherence: lcf or "
					"directory, got \"%s\"\n",
					optarg);
				return -1;
			}
			a->dc.directory = !strcmp(optarg, "directory");
			break;
		case O_START_AT:
			if (num(o, optarg, 0, 1e11, &a->start_at) < 0)
				return -1;
			break;
		case O_NODE:
		case O_THREADS:
		case O_SHARED:
		case O_PRIVATE:
		case O_OPSIZE:
		case O_SWITCH:
		case O_CACHE:
		case O_MEM:
		case O_SEED:
		case O_CACHE_BLOCKS:
		case O_MIGRATE_K:
		case O_EPOCH:
		case O_PIPE_DEPTH:
			if (num(o, optarg, 0, 4294967295.0, &v) < 0)
				return -1;
			if (c == O_PIPE_DEPTH)
				a->dc.pipe_depth = (uint8_t)(v > 64 ? 64 : v);
			if (c == O_NODE) {
				a->dc.node = (uint16_t)v;
				a->node_set = true;
			}
			if (c == O_THREADS)
				a->dc.threads = (uint16_t)v;
			if (c == O_SHARED)
				a->wl.shared_blocks = (uint32_t)v;
			if (c == O_PRIVATE)
				a->wl.private_blocks = (uint32_t)v;
			if (c == O_OPSIZE)
				a->wl.op_size = (uint32_t)v;
			if (c == O_SWITCH)
				a->switch_blocks = (uint32_t)v;
			if (c == O_CACHE)
				a->dc.cache_mb = (uint32_t)v;
			if (c == O_MEM)
				a->dc.mem_mb = (uint32_t)v;
			if (c == O_SEED)
				a->dc.seed = (uint32_t)v;
			if (c == O_CACHE_BLOCKS)
				a->dc.cache_blocks = (uint32_t)v;
			if (c == O_MIGRATE_K)
				a->dc.migrate_k = (uint32_t)v;
			if (c == O_EPOCH)
				a->dc.epoch_ms = (uint32_t)v;
			break;
		case O_DURATION:
		case O_LINGER:
		case O_MAX_RATE:
			if (num(o, optarg, 0, 1e9, &v) < 0)
				return -1;
			if (c == O_DURATION)
				a->wl.duration_s = v;
			if (c == O_LINGER)
				a->linger = v;
			if (c == O_MAX_RATE)
				a->wl.max_rate = v;
			break;
		case O_ZIPF:
			if (num(o, optarg, 0, 10, &v) < 0)
				return -1;
			a->wl.zipf = v;
			break;
		case O_READ:
		case O_SHARING:
		case O_LOCALITY:
			if (num(o, optarg, 0, 1, &v) < 0)
				return -1;
			if (c == O_READ)
				a->wl.read_ratio = v;
			if (c == O_SHARING)
				a->wl.sharing_ratio = v;
			if (c == O_LOCALITY)
				a->wl.locality = v;
			break;
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc || !a->dc.topo_path || !a->node_set) {
		fprintf(stderr, "node-agent: --topo and --node are required\n");
		usage(stderr);
		return -1;
	}
	if (a->dc.directory && (a->switch_blocks || a->dc.migrate)) {
		fprintf(stderr,
			"node-agent: --switch-blocks and --migrate need "
			"--coherence lcf (the directory protocol never involves "
			"the switch's pipeline)\n");
		return -1;
	}
	if (na_workload_parse(a->workload) < 0) {
		fprintf(stderr,
			"node-agent: --workload: unknown \"%s\" (none, "
			"micro, counter)\n",
			a->workload);
		return -1;
	}
	a->wl.kind = (enum na_wl_kind)na_workload_parse(a->workload);
	if (!a->wl.shared_blocks)
		a->wl.shared_blocks = a->wl.kind == NA_WL_COUNTER ? 4 : 1024;
	a->wl.threads = a->dc.threads;
	a->wl.seed = a->dc.seed;
	return 0;
}

/* --start-at: every node's workload window starts together. */
static void
wait_start(const struct args *a)
{
	struct timespec now;

	for (;;) {
		clock_gettime(CLOCK_REALTIME, &now);
		if (force_quit || now.tv_sec + now.tv_nsec / 1e9 >= a->start_at)
			return;
		usleep(1000);
	}
}

static void
print_stats(FILE *f, struct dsm *d, const struct args *a,
	    const struct na_wl_result *r, uint32_t migrated)
{
	struct na_node *n = &d->node;
	uint64_t pk = 0;

	for (int i = 0; i < 256; i++)
		pk += __atomic_load_n(&n->st.sent[i], __ATOMIC_RELAXED);
	fprintf(f,
		"{\"node\":%u,\"transport\":\"%s\",\"workload\":\"%s\","
		"\"threads\":%u,\"seconds\":%.3f,\"ops\":%" PRIu64
		",\"ops_per_sec\":%.1f,\"reads\":%" PRIu64
		",\"writes\":%" PRIu64 ",\"incrs\":%" PRIu64
		",\"errors\":%" PRIu64 ",\"nacks\":%" PRIu64
		",\"retransmissions\":%" PRIu64
		",\"packets_sent_per_op\":%.2f,\"rtt_us\":%.1f,"
		"\"switch_blocks\":%u,\"coherence\":\"%s\",",
		n->self, n->tp.ops->name, a->workload, a->dc.threads,
		r->seconds, r->ops, r->seconds > 0 ? r->ops / r->seconds : 0,
		r->reads, r->writes, r->incrs, r->errors, n->st.req.nacks,
		n->st.req.retransmit_request + n->st.req.retransmit_unlock +
			n->st.req.retransmit_writeback,
		r->ops ? (double)pk / r->ops : 0, d->threads[0].rtt_ns / 1e3,
		migrated, a->dc.directory ? "directory" : "lcf");
	na_node_stats_json(n, f);
	fprintf(f, "}\n");
}

/* The operator's (or a failure detector's) list of dead nodes; a node
 * taken off the list restarted and is re-admitted (dsm_node_rejoined). */
static const char *dead_file;
static volatile int dead_stop;

static void *
dead_watch(void *arg)
{
	struct dsm *d = arg;
	uint32_t listed = 0;

	while (!dead_stop) {
		FILE *f = fopen(dead_file, "r");
		uint32_t now = 0;
		unsigned id;

		while (f && fscanf(f, "%u", &id) == 1)
			if (dsm_node_failed(d, (uint16_t)id) == 0)
				now |= 1u << id;
		if (f) {
			fclose(f);
			for (id = 0; id < 32; id++)
				if ((listed & ~now) >> id & 1)
					dsm_node_rejoined(d, (uint16_t)id);
			listed = now;
		}
		usleep(100000);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t watcher;
	struct sigaction sa = { .sa_handler = on_signal },
			 se = { .sa_handler = on_end };
	struct na_wl_result res = { 0 };
	struct na_history hist;
	struct args a;
	struct dsm *d;
	char err[512];
	uint32_t migrated = 0;
	uint64_t t0;
	int rc;

	if (parse(argc, argv, &a) < 0)
		return 2;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGUSR1, &se, NULL);
	signal(SIGPIPE, SIG_IGN);

	rc = dsm_open(&a.dc, &d, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "node-agent: %s\n", err);
		return 1;
	}
	the_dsm = d;
	rc = na_history_open(&hist, a.history, a.dc.node);
	if (rc < 0) {
		fprintf(stderr, "node-agent: --history %s: %s\n", a.history,
			strerror(-rc));
		dsm_close(d);
		return 1;
	}
	if (a.switch_blocks && !a.dc.direct)
		migrated = na_node_migrate_static(&d->node, a.switch_blocks);
	dead_file = a.dead_file;
	if (dead_file && pthread_create(&watcher, NULL, dead_watch, d) != 0)
		dead_file = NULL;
	fprintf(stderr,
		"node-agent: node %u up (%s, %u threads, workload %s"
		", %u blocks moved to the switch%s)\n",
		a.dc.node, d->node.tp.ops->name, a.dc.threads, a.workload,
		migrated, a.dc.directory ? ", directory protocol" : "");
	wait_start(&a);

	rc = na_workload_run(d, &a.wl, &hist, &force_quit, &res);
	if (rc < 0)
		fprintf(stderr, "node-agent: workload: %s\n", strerror(-rc));
	na_history_close(&hist, res.ops);

	/* Serve peers a while: they may still need our data and ACKs. */
	if (a.wl.kind == NA_WL_NONE) {
		t0 = na_now_ns();
		while (!force_quit &&
		       (a.wl.duration_s <= 0 ||
			na_now_ns() - t0 < (uint64_t)(a.wl.duration_s * 1e9)))
			usleep(10000);
	}
	t0 = na_now_ns();
	while (signals < 2 && na_now_ns() - t0 < (uint64_t)(a.linger * 1e9))
		usleep(10000);

	print_stats(stdout, d, &a, &res, migrated);
	if (a.stats) {
		FILE *f = fopen(a.stats, "w");

		if (f) {
			print_stats(f, d, &a, &res, migrated);
			fclose(f);
		} else {
			fprintf(stderr, "node-agent: --stats %s: %s\n", a.stats,
				strerror(errno));
		}
	}
	fflush(stdout);
	if (dead_file) {
		dead_stop = 1;
		pthread_join(watcher, NULL);
	}
	dsm_close(d);
	return rc < 0 || res.errors ? 1 : 0;
}
