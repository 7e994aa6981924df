/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Pipeline micro-benchmark: the cost of lcf_pipeline_process() alone, with
 * no I/O, in bursts of 32 whose tags are prefetched first (as swswitch does
 * with a parsed burst), on coherence traffic that keeps the pipeline honest
 * (every request that gets its lock is followed by its unlock, so locks are
 * released and scores reset, as with real requesters).
 *
 *   bench_pipeline [--profile tofino|large] [--blocks N] [--owned PCT]
 *                  [--zipf S] [--read PCT] [--events N] [--csv FILE]
 *
 * Prints passes/s, ns and cycles (TSC) per pass, p50/p99 per-burst latency
 * per pass, and the register footprint of the profile.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#include "lcf_pipeline.h"

#define BURST   32
#define NODES   8
#define THREADS 16

struct event {
	struct lcf_msg m;
	uint16_t port;
};

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t rng_state = 88172645463325252ull;

static uint64_t
rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Zipf(s) over [0, n) by inverse CDF on a precomputed table. */
static uint32_t *
zipf_table(uint32_t n, double s, uint32_t samples)
{
	double *cdf = malloc(n * sizeof(double)), sum = 0;
	uint32_t *out = malloc(samples * sizeof(uint32_t));

	for (uint32_t i = 0; i < n; i++) {
		sum += 1.0 / pow(i + 1, s);
		cdf[i] = sum;
	}
	for (uint32_t k = 0; k < samples; k++) {
		double u = (double)(rng() >> 11) / (double)(1ull << 53) * sum;
		uint32_t lo = 0, hi = n - 1;

		while (lo < hi) {
			uint32_t mid = (lo + hi) / 2;

			if (cdf[mid] < u)
				lo = mid + 1;
			else
				hi = mid;
		}
		out[k] = lo;
	}
	free(cdf);
	return out;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void
usage(void)
{
	fprintf(stderr, "usage: bench_pipeline [--profile tofino|large] "
			"[--blocks N] [--owned PCT] [--zipf S] [--read PCT] "
			"[--events N] [--csv FILE]\n");
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "profile", required_argument, NULL, 'p' },
		{ "blocks", required_argument, NULL, 'b' },
		{ "owned", required_argument, NULL, 'o' },
		{ "zipf", required_argument, NULL, 'z' },
		{ "read", required_argument, NULL, 'r' },
		{ "events", required_argument, NULL, 'e' },
		{ "csv", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *profile = "tofino", *csv = NULL;
	uint32_t blocks = 100000, owned_pct = 80, read_pct = 50;
	uint32_t n_events = 2000000;
	double zipf = 0.99;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			profile = optarg;
			break;
		case 'b':
			blocks = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'o':
			owned_pct = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'z':
			zipf = strtod(optarg, NULL);
			break;
		case 'r':
			read_pct = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'e':
			n_events = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'c':
			csv = optarg;
			break;
		default:
			usage();
			return c == 'h' ? 0 : 2;
		}
	}
	if (blocks == 0 || n_events == 0 || owned_pct > 100 || read_pct > 100) {
		usage();
		return 2;
	}

	struct lcf_pipeline_config cfg = {
		.threads_per_node = THREADS,
		.block_shift = 12,
		.node_mask = (1u << NODES) - 1,
		.n_ports = NODES,
		.shadow = NODES - 1,
		.seed = 1,
	};
	if (strcmp(profile, "tofino") == 0) {
		cfg.ways = 10;
		cfg.slots_per_way = 37500;
	} else if (strcmp(profile, "large") == 0) {
		cfg.ways = 16;
		cfg.slots_per_way = 1u << 20;
	} else {
		fprintf(stderr, "unknown profile %s\n", profile);
		return 2;
	}
	for (int i = 0; i < LCF_MAX_NODES; i++)
		cfg.port_node[i] = (int8_t)(i < NODES ? i : -1);

	struct lcf_footprint fp;
	lcf_pipeline_footprint(&cfg, &fp);
	struct lcf_pipeline *p = lcf_pipeline_create(&cfg);
	if (p == NULL) {
		perror("lcf_pipeline_create");
		return 1;
	}

	/* Tag of block i: home = i % NODES, spread over the address space. */
	uint64_t *tags = malloc(blocks * sizeof(uint64_t));
	uint32_t owned = 0;
	struct lcf_result res;
	for (uint32_t i = 0; i < blocks; i++) {
		tags[i] = (uint64_t)(i % NODES) << 36 | (i * 2654435761u);
		if (rng() % 100 < owned_pct) {
			struct lcf_msg m = {
				.version = 1,
				.type = LCF_T_ADD_TO_SWITCH,
				.node = (uint16_t)(i % NODES),
				.seq = 1,
				.tag = tags[i],
				.gstatus = LCF_GS_SHARED,
				.copyset = 1u << ((i + 1) % NODES),
			};
			struct lcf_ingress ing = { .port = m.node };

			lcf_pipeline_process(p, &m, &ing, &res);
			ing.resubmitted = true;
			ing.resubmit_meta = res.resubmit_meta;
			lcf_pipeline_process(p, &m, &ing, &res);
			owned += res.action == LCF_A_ADD_OK;
		}
	}

	/* Events: request then its unlock, from a random requester. */
	uint32_t *pick = zipf > 0 ? zipf_table(blocks, zipf, n_events) : NULL;
	struct event *ev = malloc(2 * (size_t)n_events * sizeof(*ev));
	uint32_t seqs[NODES * THREADS] = { 0 };
	for (uint32_t k = 0; k < n_events; k++) {
		uint32_t b = pick ? pick[k] : (uint32_t)(rng() % blocks);
		uint16_t node = (uint16_t)(rng() % NODES);
		uint16_t thr = (uint16_t)(rng() % THREADS);
		uint32_t seq = ++seqs[node * THREADS + thr];
		bool rd = rng() % 100 < read_pct;
		struct lcf_msg m = {
			.version = 1,
			.node = node,
			.thread = thr,
			.seq = seq,
			.tag = tags[b],
			.type = rd ? LCF_T_READ_MISS : LCF_T_WRITE_MISS,
		};

		ev[2 * k] = (struct event){ m, node };
		m.type = rd ? LCF_T_READ_UNLOCK : LCF_T_WRITE_UNLOCK;
		m.gstatus = rd ? LCF_GS_SHARED : LCF_GS_MODIFIED;
		m.copyset = 1u << node;
		ev[2 * k + 1] = (struct event){ m, node };
	}

	/* Run in bursts; resubmits re-enter after their burst, as in swswitch. */
	uint32_t n_bursts = (2 * n_events + BURST - 1) / BURST;
	uint64_t *lat = malloc(n_bursts * sizeof(uint64_t));
	uint64_t passes = 0, t0 = now_ns(), c0 = __rdtsc();
	struct event held[BURST];
	for (uint32_t bi = 0; bi < n_bursts; bi++) {
		uint32_t first = bi * BURST, n = 2 * n_events - first, nh = 0;
		uint64_t b0 = __rdtsc();

		if (n > BURST)
			n = BURST;
		/* As swswitch does with a parsed burst. */
		for (uint32_t i = 0; i < n; i++)
			lcf_pipeline_prefetch(p, ev[first + i].m.tag);
		for (uint32_t i = 0; i < n; i++) {
			struct lcf_ingress ing = { .port = ev[first + i].port };

			lcf_pipeline_process(p, &ev[first + i].m, &ing, &res);
			if (res.verdict == LCF_V_RESUBMIT) {
				held[nh] = ev[first + i];
				held[nh++].m.aux = (uint32_t)res.resubmit_meta;
				held[nh - 1].m.dst_node =
					(uint16_t)(res.resubmit_meta >> 32);
			}
		}
		for (uint32_t i = 0; i < nh; i++) {
			struct lcf_ingress ing = {
				.port = held[i].port,
				.resubmitted = true,
				.resubmit_meta = (uint64_t)held[i].m.aux |
						 (uint64_t)held[i].m.dst_node
							 << 32,
			};

			held[i].m.aux = 0;
			held[i].m.dst_node = 0;
			lcf_pipeline_process(p, &held[i].m, &ing, &res);
		}
		passes += n + nh;
		lat[bi] = (__rdtsc() - b0) / (n + nh);
	}
	uint64_t cycles = __rdtsc() - c0, ns = now_ns() - t0;

	qsort(lat, n_bursts, sizeof(uint64_t), cmp_u64);
	const struct lcf_counters *ctr = lcf_pipeline_counters(p);
	double mpps = (double)passes / ((double)ns / 1e9) / 1e6;
	double tsc_ghz = (double)cycles / (double)ns;

	printf("profile=%s ways=%u slots=%u blocks=%u owned=%u zipf=%.2f read=%u%%\n",
	       profile, cfg.ways, cfg.slots_per_way, blocks, owned, zipf,
	       read_pct);
	printf("register footprint: %.2f MiB (tag %.2f, lock+gstatus+copyset %.2f, "
	       "scoreboard+last_unlock %.3f)\n",
	       fp.total / 1048576.0, fp.tag / 1048576.0,
	       (fp.lock + fp.gstatus + fp.copyset) / 1048576.0,
	       (fp.scoreboard + fp.last_unlock) / 1048576.0);
	printf("passes=%llu (%.1f%% resubmits)  %.2f Mpps  %.1f ns/pass  "
	       "%.1f cycles/pass  p50 %llu  p99 %llu cycles/pass per burst\n",
	       (unsigned long long)passes,
	       100.0 * ctr->action[LCF_A_RESUBMIT] / passes, mpps,
	       (double)ns / passes, (double)cycles / passes,
	       (unsigned long long)lat[n_bursts / 2],
	       (unsigned long long)lat[(uint64_t)n_bursts * 99 / 100]);
	printf("actions:");
	for (int a = 0; a < LCF_A_MAX; a++)
		if (ctr->action[a])
			printf(" %s=%llu", lcf_action_name(a),
			       (unsigned long long)ctr->action[a]);
	printf("\n");
	if (csv) {
		FILE *f = fopen(csv, "a");

		if (f == NULL) {
			perror(csv);
			return 1;
		}
		fprintf(f,
			"%s,%u,%u,%.2f,%u,%llu,%.3f,%.1f,%.1f,%llu,%llu,%.2f\n",
			profile, blocks, owned, zipf, read_pct,
			(unsigned long long)passes, mpps, (double)ns / passes,
			(double)cycles / passes,
			(unsigned long long)lat[n_bursts / 2],
			(unsigned long long)lat[(uint64_t)n_bursts * 99 / 100],
			tsc_ghz);
		fclose(f);
	}
	free(lat);
	free(ev);
	free(pick);
	free(tags);
	lcf_pipeline_free(p);
	return 0;
}
