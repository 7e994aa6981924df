/* SPDX-License-Identifier: BSD-3-Clause
 *
 * na-sim's command line: defaults, ranges, usage (na_sim_opts.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsm.h"
#include "na_msg.h"
#include "na_sim_opts.h"

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: na-sim [options]\n"
		"Runs a whole DSM cluster (nodes, switch pipeline, network) in "
		"one process\non a virtual clock, reproducibly from a seed; "
		"docs/SIMULATION.md.\n\n"
		"  --seed N            run's seed, not 0 (default 1)\n"
		"  --events N          scheduler events before the workloads "
		"stop (default 1000000)\n"
		"  --duration S        or stop after S virtual seconds\n"
		"  --nodes N           nodes, 2..%u (default 3; the last is the "
		"shadow)\n"
		"  --threads T         application threads per node (default 2)\n"
		"  --topo FILE         a topology instead of the generated one\n"
		"  --workload W        counter (default), micro, poll or rwlock\n"
		"  --read-ratio R      micro, rwlock: share of reads (default 0.5)\n"
		"  --policy P          poll: validate (default), validate-rpc "
		"or ttl\n"
		"  --ttl-us U          poll: the TTL (default 500000)\n"
		"  --update-s S        poll: update period, virtual (default 1)\n"
		"  --updaters all      poll: thread 0 of every node updates\n"
		"  --blocks K          shared blocks (default 6)\n"
		"  --switch-blocks K   blocks each home moves to the switch at "
		"start (default 1)\n"
		"  --cache-blocks C    local cache per node, blocks (default 4: "
		"evictions)\n"
		"  --block-size B      generated topology's block size (default "
		"4096)\n"
		"  --loss P            per-hop loss probability (default 0.01)\n"
		"  --dup P             per-hop duplication probability (default "
		"0.01)\n"
		"  --delay-us U        per-hop delay (default 2)\n"
		"  --jitter-us U       per-hop extra delay, uniform (default 4: "
		"reorders)\n"
		"  --max-rate R        ops/s per thread, virtual (default "
		"200000)\n"
		"  --migrate           dynamic migration of hot blocks\n"
		"  --directory         the directory protocol instead of LCF\n"
		"  --lock-mode M       generated topology's switch.lock_mode: "
		"retry (default)\n                      or queued "
		"(docs/QUEUED-LOCKS.md)\n"
		"  --pipe-depth W      PIPE diff write-back, credit window W "
		"(default 0: off)\n"
		"  --switch-restart-at S  restart the switch (empty registers) "
		"at S virtual s\n                      (or `Nev`: after N "
		"scheduler events)\n"
		"  --switch-down-ms M  ... dropping frames for M virtual ms "
		"(default 10)\n"
		"  --crash-node N      node N crashes (not the shadow, homing "
		"no shared block:\n                      N >= --blocks; it "
		"only reads, as test-drain.sh's)\n"
		"  --crash-at S        ... at S virtual s (or `Nev`)\n"
		"  --restart-node N    as --crash-node, and a new incarnation "
		"of N (fresh state,\n                      seqs from 1, full "
		"workload) rejoins 1 ms after the\n                      "
		"declaration (--restart-at S|Nev as --crash-at)\n"
		"  --detect-ms D       ... and the control plane declares it "
		"D virtual ms later\n                      (default 50)\n"
		"  --hold TYPE[:K]     hold a copy of the K-th (default 1st) "
		"TYPE frame sent\n                      (a type name of "
		"NA_SIM_TRACE, e.g. QRELEASE) ...\n"
		"  --hold-for T        ... and send it T virtual s later (or "
		"`Nev`; default 1)\n"
		"  --stall-for T       the switch stalls T virtual s (a "
		"starved lcore): frames\n                      queue, then run "
		"in bursts as swswitch's ...\n"
		"  --stall-at S        ... at S virtual s, and/or\n"
		"  --stall-every P     ... every P virtual s (P > T)\n"
		"  --history DIR       write DIR/node-<id>.jsonl for the checker (DIR made)\n"
		"  --stuck-s S         virtual seconds a stopped workload, or "
		"one final read,\n"
		"                      may take (default 30)\n"
		"  --quiet             no progress lines\n"
		"  -h, --help          this text\n"
		"SIGINT/SIGTERM stops the workloads as --events does; a second "
		"one ends at once.\n"
		"Exit: 0 ok, 1 operation errors, 2 usage, 3 stuck (liveness), "
		"4 not quiescent\nat the end (a lock, WAITING bit, QSTATE or "
		"unlock left).\n",
		(unsigned int)NA_SIM_MAX_NODES);
}

static int
num(const char *name, const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "na-sim: %s %s: expected a number in %g..%g\n",
			name, s, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

/* A fault's instant: "S" virtual seconds or "Nev" scheduler events. */
static int
fault_at(const char *name, const char *s, double *sec, uint64_t *ev)
{
	size_t n = strlen(s);
	char buf[64];
	double v;

	if (n > 2 && n < sizeof(buf) && !strcmp(s + n - 2, "ev")) {
		memcpy(buf, s, n - 2);
		buf[n - 2] = 0;
		if (num(name, buf, 1, 1e15, &v) < 0)
			return -1;
		*ev = (uint64_t)v;
		return 0;
	}
	return num(name, s, 1e-6, 1e6, sec);
}

static int
policy(const char *s, unsigned *out)
{
	if (!strcmp(s, "validate"))
		*out = DSM_POLICY_VALIDATE;
	else if (!strcmp(s, "validate-rpc"))
		*out = DSM_POLICY_VALIDATE | DSM_POLICY_RPC_CHECK;
	else if (!strcmp(s, "ttl"))
		*out = DSM_POLICY_TTL;
	else {
		fprintf(stderr,
			"na-sim: --policy %s: expected validate, "
			"validate-rpc or ttl\n",
			s);
		return -1;
	}
	return 0;
}

/* --hold TYPE[:K]: a frame type by its name (na_type_name). */
static int
hold_type(const char *s, struct na_sim_opts *o)
{
	const char *colon = strchr(s, ':');
	size_t len = colon ? (size_t)(colon - s) : strlen(s);
	double k = 1;

	o->hold_type = -1;
	for (int t = 0; t < 256 && o->hold_type < 0; t++)
		if (strlen(na_type_name((uint8_t)t)) == len &&
		    !strncmp(na_type_name((uint8_t)t), s, len))
			o->hold_type = t;
	if (o->hold_type < 0 || len == 1) { /* "?": an unknown type's */
		fprintf(stderr,
			"na-sim: --hold %s: not a frame type name (as "
			"NA_SIM_TRACE prints them)\n",
			s);
		return -1;
	}
	if (colon && num("--hold K", colon + 1, 1, 1e15, &k) < 0)
		return -1;
	o->hold_nth = (uint64_t)k;
	return 0;
}

/* The crash options (na_sim_crash.h): what the drain supports. */
static int
crash_check(const struct na_sim_opts *o)
{
	const char *why = NULL;

	if (o->crash_node < 0)
		why = o->crash_at || o->crash_ev
			      ? "--crash-at needs --crash-node"
			      : NULL;
	else if (!o->crash_at && !o->crash_ev)
		why = "--crash-node needs --crash-at";
	else if (o->topo)
		why = "--crash-node: the generated topology only";
	else if (o->crash_node >= o->nodes - 1)
		why = "--crash-node: a node below the shadow (the last node): "
		      "a dead shadow is not handled (docs/FAULTS.md)";
	else if ((uint32_t)o->crash_node < o->blocks)
		why = "--crash-node N needs N >= --blocks: shared block i is "
		      "homed at node i mod nodes, and the survivors' accesses "
		      "to a dead node's memory fail (docs/FAULTS.md 2)";
	if (why)
		fprintf(stderr, "na-sim: %s\n", why);
	return why ? -1 : 0;
}

int
na_sim_parse(int argc, char **argv, struct na_sim_opts *o)
{
	/* clang-format off */
	static const struct option lo[] = {
		{ "seed", 1, 0, 's' },
		{ "events", 1, 0, 'e' },
		{ "duration", 1, 0, 'D' },
		{ "nodes", 1, 0, 'n' },
		{ "threads", 1, 0, 't' },
		{ "topo", 1, 0, 'T' },
		{ "workload", 1, 0, 'w' },
		{ "blocks", 1, 0, 'b' },
		{ "switch-blocks", 1, 0, 'S' },
		{ "cache-blocks", 1, 0, 'c' },
		{ "block-size", 1, 0, 'B' },
		{ "loss", 1, 0, 'l' },
		{ "dup", 1, 0, 'd' },
		{ "delay-us", 1, 0, 'y' },
		{ "jitter-us", 1, 0, 'j' },
		{ "max-rate", 1, 0, 'r' },
		{ "migrate", 0, 0, 'm' },
		{ "directory", 0, 0, 'R' },
		{ "lock-mode", 1, 0, 'Q' },
		{ "read-ratio", 1, 0, 'X' },
		{ "pipe-depth", 1, 0, 'W' },
		{ "history", 1, 0, 'H' },
		{ "stuck-s", 1, 0, 'k' },
		{ "quiet", 0, 0, 'q' },
		{ "policy", 1, 0, 'P' },
		{ "ttl-us", 1, 0, 'L' },
		{ "update-s", 1, 0, 'U' },
		{ "updaters", 1, 0, 'A' },
		{ "switch-restart-at", 1, 0, 'z' },
		{ "switch-down-ms", 1, 0, 'Z' },
		{ "crash-node", 1, 0, 'x' },
		{ "crash-at", 1, 0, 'a' },
		{ "restart-node", 1, 0, 'N' },
		{ "restart-at", 1, 0, 'a' },
		{ "detect-ms", 1, 0, 'E' },
		{ "hold", 1, 0, 'o' },
		{ "hold-for", 1, 0, 'O' },
		{ "stall-at", 1, 0, 1001 },
		{ "stall-every", 1, 0, 1002 },
		{ "stall-for", 1, 0, 1003 },
		{ "help", 0, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	/* clang-format on */

	bool sb_set = false;
	double v;
	int c;

	*o = (struct na_sim_opts){
		.seed = 1,
		.read_ratio = 0.5,
		.events = 1000000,
		.nodes = 3,
		.threads = 2,
		.blocks = 6,
		.switch_blocks = 1,
		.cache_blocks = 4,
		.block_size = 4096,
		.loss = 0.01,
		.dup = 0.01,
		.delay_ns = 2000,
		.jitter_ns = 4000,
		.max_rate = 200000,
		.stuck_s = 30,
		.update_s = 1,
		.ttl_us = 500000,
		.policy = DSM_POLICY_VALIDATE,
		.workload = "counter",
		.sw_down_ms = 10,
		.crash_node = -1,
		.hold_type = -1,
		.hold_s = 1,
		.detect_ms = 50,
	};
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		int rc = 0;

		switch (c) {
		case 's':
			rc = num("--seed", optarg, 1, UINT32_MAX, &v);
			o->seed = (uint32_t)v;
			break;
		case 'e':
			rc = num("--events", optarg, 1, 1e15, &v);
			o->events = (uint64_t)v;
			break;
		case 'D':
			rc = num("--duration", optarg, 0, 1e6, &o->duration);
			break;
		case 'n':
			rc = num("--nodes", optarg, 2, NA_SIM_MAX_NODES, &v);
			o->nodes = (uint16_t)v;
			break;
		case 't':
			rc = num("--threads", optarg, 1, 64, &v);
			o->threads = (uint16_t)v;
			break;
		case 'T':
			o->topo = optarg;
			break;
		case 'w':
			o->workload = optarg;
			break;
		case 'b':
			rc = num("--blocks", optarg, 1, 1 << 20, &v);
			o->blocks = (uint32_t)v;
			break;
		case 'S':
			rc = num("--switch-blocks", optarg, 0, 1 << 20, &v);
			sb_set = true;
			o->switch_blocks = (uint32_t)v;
			break;
		case 'c':
			rc = num("--cache-blocks", optarg, 1, 1 << 24, &v);
			o->cache_blocks = (uint32_t)v;
			break;
		case 'B':
			rc = num("--block-size", optarg, 64, 65536, &v);
			o->block_size = (uint32_t)v;
			break;
		case 'l':
			rc = num("--loss", optarg, 0, 0.5, &o->loss);
			break;
		case 'd':
			rc = num("--dup", optarg, 0, 0.5, &o->dup);
			break;
		case 'y':
			rc = num("--delay-us", optarg, 0, 1e6, &v);
			o->delay_ns = (uint64_t)(v * 1000);
			break;
		case 'j':
			rc = num("--jitter-us", optarg, 0, 1e6, &v);
			o->jitter_ns = (uint64_t)(v * 1000);
			break;
		case 'r':
			rc = num("--max-rate", optarg, 1, 1e9, &o->max_rate);
			break;
		case 'm':
			o->migrate = true;
			break;
		case 'R':
			o->directory = true;
			break;
		case 'X':
			rc = num("--read-ratio", optarg, 0, 1, &o->read_ratio);
			break;
		case 'Q':
			if (strcmp(optarg, "queued") &&
			    strcmp(optarg, "retry")) {
				fprintf(stderr,
					"na-sim: --lock-mode %s: expected "
					"retry or queued\n",
					optarg);
				rc = -1;
			}
			o->queued = !strcmp(optarg, "queued");
			break;
		case 'W':
			rc = num("--pipe-depth", optarg, 0, 64, &v);
			o->pipe_depth = (uint32_t)v;
			break;
		case 'H':
			o->history = optarg;
			break;
		case 'k':
			rc = num("--stuck-s", optarg, 0.001, 1e6, &o->stuck_s);
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'P':
			rc = policy(optarg, &o->policy);
			break;
		case 'L':
			rc = num("--ttl-us", optarg, 1, 1e9, &o->ttl_us);
			break;
		case 'A':
			if (strcmp(optarg, "all") != 0) {
				fprintf(stderr,
					"na-sim: --updaters %s: only "
					"\"all\" is known\n",
					optarg);
				rc = -1;
			}
			o->all_updaters = true;
			break;
		case 'U':
			rc = num("--update-s", optarg, 0.001, 1e6,
				 &o->update_s);
			break;
		case 'z':
			rc = fault_at("--switch-restart-at", optarg,
				      &o->sw_restart_at, &o->sw_restart_ev);
			break;
		case 'Z':
			rc = num("--switch-down-ms", optarg, 0, 1e6,
				 &o->sw_down_ms);
			break;
		case 'N':
			o->restart = true;
			/* fall through */
		case 'x':
			rc = num(o->restart ? "--restart-node" : "--crash-node",
				 optarg, 0, NA_SIM_MAX_NODES - 1, &v);
			o->crash_node = (int)v;
			break;
		case 'a':
			rc = fault_at("--crash-at", optarg, &o->crash_at,
				      &o->crash_ev);
			break;
		case 'E':
			rc = num("--detect-ms", optarg, 0, 1e6, &o->detect_ms);
			break;
		case 'o':
			rc = hold_type(optarg, o);
			break;
		case 'O':
			o->hold_s = 0;
			rc = fault_at("--hold-for", optarg, &o->hold_s,
				      &o->hold_ev);
			break;
		case 1001:
			rc = num("--stall-at", optarg, 1e-6, 1e6, &o->stall_at);
			break;
		case 1002:
			rc = num("--stall-every", optarg, 1e-6, 1e6,
				 &o->stall_every);
			break;
		case 1003:
			rc = num("--stall-for", optarg, 1e-9, 1e6,
				 &o->stall_for);
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return -1;
		}
		if (rc < 0)
			return -1;
	}
	if (optind < argc) {
		fprintf(stderr, "na-sim: unexpected argument \"%s\"\n",
			argv[optind]);
		return -1;
	}
	/* The option sets node-agent refuses (na_main.c). */
	if (o->directory && (o->migrate || (sb_set && o->switch_blocks))) {
		fprintf(stderr,
			"na-sim: --switch-blocks and --migrate need LCF "
			"(the directory protocol never involves the "
			"switch's pipeline)\n");
		return -1;
	}
	if (crash_check(o) < 0)
		return -1;
	if ((o->stall_at || o->stall_every) != (o->stall_for > 0) ||
	    (o->stall_every && o->stall_every <= o->stall_for)) {
		fprintf(stderr, "na-sim: --stall-for needs --stall-at or "
				"--stall-every, a period longer than it\n");
		return -1;
	}
	if (o->directory && (o->sw_restart_at || o->sw_restart_ev)) {
		fprintf(stderr, "na-sim: --switch-restart-at needs LCF (the "
				"directory protocol keeps no state in the "
				"switch)\n");
		return -1;
	}
	return 0;
}
