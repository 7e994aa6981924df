/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Application options, parsed with getopt_long after rte_eal_init() has
 * consumed the EAL options.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

static const char opts_short[] = "h";

enum {
	OPTS_TOPO = 256,
	OPTS_IDLE_EXIT,
	OPTS_MAC_AGE,
	OPTS_STATS_FILE,
	OPTS_MBUFS,
	OPTS_DRAIN_US,
	OPTS_RXD,
	OPTS_TXD,
	OPTS_SEED,
	OPTS_WORKERS,
	OPTS_FAULT,
	OPTS_FAULT_SEED,
	OPTS_FAULT_DELAY,
	OPTS_BENCH_RX,
	OPTS_TRACE,
	OPTS_TRACE_EVERY,
	OPTS_BATCH_TX,
	OPTS_IDLE_SLEEP,
};

static const struct option opts_long[] = {
	{ "topo", required_argument, NULL, OPTS_TOPO },
	{ "idle-exit", required_argument, NULL, OPTS_IDLE_EXIT },
	{ "mac-age", required_argument, NULL, OPTS_MAC_AGE },
	{ "stats-file", required_argument, NULL, OPTS_STATS_FILE },
	{ "mbufs", required_argument, NULL, OPTS_MBUFS },
	{ "drain-us", required_argument, NULL, OPTS_DRAIN_US },
	{ "rxd", required_argument, NULL, OPTS_RXD },
	{ "txd", required_argument, NULL, OPTS_TXD },
	{ "seed", required_argument, NULL, OPTS_SEED },
	{ "workers", required_argument, NULL, OPTS_WORKERS },
	{ "fault", required_argument, NULL, OPTS_FAULT },
	{ "fault-seed", required_argument, NULL, OPTS_FAULT_SEED },
	{ "fault-delay-us", required_argument, NULL, OPTS_FAULT_DELAY },
	{ "bench-rx", required_argument, NULL, OPTS_BENCH_RX },
	{ "trace", required_argument, NULL, OPTS_TRACE },
	{ "trace-every", required_argument, NULL, OPTS_TRACE_EVERY },
	{ "batch-tx", no_argument, NULL, OPTS_BATCH_TX },
	{ "idle-sleep-us", required_argument, NULL, OPTS_IDLE_SLEEP },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

void
opts_usage(FILE *f, const char *prgname)
{
	fprintf(f,
		"Usage: %s [EAL options] -- --topo FILE [options]\n"
		"\n"
		"  --topo FILE         topology JSON (docs/TOPOLOGY.md); required\n"
		"  --idle-exit MS      exit after MS ms without a received packet\n"
		"                      (0 = never, the default)\n"
		"  --mac-age SEC       L2 table entry lifetime (default %u, 0 = never age)\n"
		"  --stats-file FILE   also write the exit statistics JSON to FILE\n"
		"  --mbufs N           packet mbufs in the pool (default %u; raised\n"
		"                      to what the rx/tx rings need)\n"
		"  --drain-us US       tx buffer drain interval (default %u); tx\n"
		"                      is also sent after every short rx burst\n"
		"  --batch-tx          ... unless given: tx waits for a full burst\n"
		"                      or the drain interval\n"
		"  --idle-sleep-us US  sleep US after 64 empty polls in a row (0,\n"
		"                      the default: poll without sleeping)\n"
		"  --rxd N, --txd N    rx/tx descriptors per port (default %u/%u)\n"
		"  --seed N            data-provider PRNG seed, N > 0 (default 1)\n"
		"  --workers N         worker lcores, each with its shard of the tag\n"
		"                      space (default 1; 0 = every EAL lcore; needs\n"
		"                      N lcores in -l and N tx queues per port)\n"
		"  --fault ACTION:TYPES:DIR:PROB\n"
		"                      inject faults (repeatable, up to 8 rules):\n"
		"                      ACTION drop|dup|delay, TYPES all|requests|\n"
		"                      unlocks|migrate|replies|node|READ_MISS|0x21..\n"
		"                      joined with '+', DIR in|out|both, PROB 0..1;\n"
		"                      e.g. --fault drop:all:out:0.01\n"
		"  --fault-seed N      fault PRNG seed (default 1)\n"
		"  --fault-delay-us US how long 'delay' holds a frame (default 1000)\n"
		"  --bench-rx DIR      benchmark source: rx queue Q of port P replays\n"
		"                      DIR/pP_qQ.pcap in a loop, copied into fresh\n"
		"                      mbufs (as net_null,copy=1 does); the ports'\n"
		"                      own rx is not polled\n"
		"  --trace FILE        write a sampled latency trace at exit\n"
		"                      (lib/trace/lcf_trace.h)\n"
		"  --trace-every N     trace 1 in N events (default 64)\n"
		"  -h, --help          this text\n"
		"\n"
		"Statistics are printed as one JSON object on stdout at exit; logs go\n"
		"to stderr; choose their level with EAL options, e.g.\n"
		"--log-level=swswitch,debug --log-level='pmd.net.*,notice'.\n"
		"Telemetry: /swswitch/stats, /swswitch/block,TAG,\n"
		"/swswitch/requester,NODE,THREAD[,TAG], /swswitch/occupancy.\n",
		prgname, OPTS_DEFAULT_MAC_AGE_S, OPTS_DEFAULT_MBUFS,
		OPTS_DEFAULT_DRAIN_US, OPTS_DEFAULT_RXD, OPTS_DEFAULT_TXD);
}

bool
opts_wants_help(int argc, char **argv)
{
	bool app = false;
	int i;

	for (i = 1; i < argc; i++) {
		if (!app) {
			app = strcmp(argv[i], "--") == 0;
			continue;
		}
		if (strcmp(argv[i], "--help") == 0 ||
		    strcmp(argv[i], "-h") == 0)
			return true;
	}
	return false;
}

/* A whole-string decimal number in [min, max]. */
static int
opts_number(const char *name, const char *arg, uint64_t min, uint64_t max,
	    uint64_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno != 0 || end == arg || *end != '\0' || arg[0] == '-' ||
	    v < min || v > max) {
		fprintf(stderr,
			"swswitch: --%s: expected a number in %" PRIu64
			"..%" PRIu64 ", got \"%s\"\n",
			name, min, max, arg);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int
opts_parse(int argc, char **argv, struct sw_opts *o)
{
	const char *prgname = argv[0];
	uint64_t v = 0;
	int opt, idx;

	memset(o, 0, sizeof(*o));
	o->mac_age_s = OPTS_DEFAULT_MAC_AGE_S;
	o->n_mbufs = OPTS_DEFAULT_MBUFS;
	o->drain_us = OPTS_DEFAULT_DRAIN_US;
	o->nb_rxd = OPTS_DEFAULT_RXD;
	o->nb_txd = OPTS_DEFAULT_TXD;
	o->seed = 1;
	o->n_workers = 1;
	o->fault.seed = 1;
	o->fault.delay_us = 1000;

	/* EAL ran getopt over the same argv first. */
	optind = 1;
	while ((opt = getopt_long(argc, argv, opts_short, opts_long, &idx)) !=
	       EOF) {
		int ret = 0;

		switch (opt) {
		case OPTS_TOPO:
			o->topo_path = optarg;
			break;
		case OPTS_IDLE_EXIT:
			ret = opts_number("idle-exit", optarg, 0, UINT32_MAX,
					  &v);
			o->idle_exit_ms = (uint32_t)v;
			break;
		case OPTS_MAC_AGE:
			ret = opts_number("mac-age", optarg, 0, 86400 * 365,
					  &v);
			o->mac_age_s = (uint32_t)v;
			break;
		case OPTS_STATS_FILE:
			o->stats_file = optarg;
			break;
		case OPTS_MBUFS:
			ret = opts_number("mbufs", optarg, 1023, 1u << 24, &v);
			o->n_mbufs = (uint32_t)v;
			break;
		case OPTS_DRAIN_US:
			ret = opts_number("drain-us", optarg, 1, 1000000, &v);
			o->drain_us = (uint32_t)v;
			break;
		case OPTS_RXD:
			ret = opts_number("rxd", optarg, 32, 16384, &v);
			o->nb_rxd = (uint16_t)v;
			break;
		case OPTS_TXD:
			ret = opts_number("txd", optarg, 32, 16384, &v);
			o->nb_txd = (uint16_t)v;
			break;
		case OPTS_SEED:
			ret = opts_number("seed", optarg, 1, UINT32_MAX, &v);
			o->seed = (uint32_t)v;
			break;
		case OPTS_WORKERS:
			ret = opts_number("workers", optarg, 0, 128, &v);
			o->n_workers = (uint32_t)v;
			break;
		case OPTS_FAULT: {
			char err[256];

			if (o->fault.n_rules == FAULT_MAX_RULES) {
				fprintf(stderr,
					"swswitch: at most %d --fault rules\n",
					FAULT_MAX_RULES);
				return -EINVAL;
			}
			ret = fault_parse_rule(optarg,
					       &o->fault.rules
							[o->fault.n_rules],
					       err, sizeof(err));
			if (ret < 0)
				fprintf(stderr, "swswitch: --%s\n", err);
			else
				o->fault.n_rules++;
			break;
		}
		case OPTS_FAULT_SEED:
			ret = opts_number("fault-seed", optarg, 0, UINT64_MAX,
					  &v);
			o->fault.seed = v;
			break;
		case OPTS_FAULT_DELAY:
			ret = opts_number("fault-delay-us", optarg, 1, 10000000,
					  &v);
			o->fault.delay_us = (uint32_t)v;
			break;
		case OPTS_BENCH_RX:
			o->bench_rx_dir = optarg;
			break;
		case OPTS_TRACE:
			o->trace_path = optarg;
			break;
		case OPTS_BATCH_TX:
			o->batch_tx = true;
			break;
		case OPTS_IDLE_SLEEP:
			ret = opts_number("idle-sleep-us", optarg, 0, 100000,
					  &v);
			o->idle_sleep_us = (uint32_t)v;
			break;
		case OPTS_TRACE_EVERY:
			ret = opts_number("trace-every", optarg, 1, 1u << 30,
					  &v);
			o->trace_every = (uint32_t)v;
			break;
		case 'h':
			opts_usage(stdout, prgname);
			exit(EXIT_SUCCESS);
		default:
			opts_usage(stderr, prgname);
			return -EINVAL;
		}
		if (ret < 0)
			return ret;
	}
	if (optind < argc) {
		fprintf(stderr, "swswitch: unexpected argument \"%s\"\n",
			argv[optind]);
		return -EINVAL;
	}
	if (o->trace_path != NULL && o->trace_every == 0)
		o->trace_every = 64;
	if (o->topo_path == NULL) {
		fprintf(stderr, "swswitch: --topo FILE is required\n");
		opts_usage(stderr, prgname);
		return -EINVAL;
	}
	return 0;
}
