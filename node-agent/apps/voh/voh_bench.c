/* SPDX-License-Identifier: BSD-3-Clause
 *
 * voh-bench: validate-on-hit's benchmark (docs/VALIDATE.md), paper 003's
 * section 4.2 shape on two nodes: the home runs `--busy B` CPU-bound
 * threads in its process (the paper's compute threads on the application
 * server) until SIGINT/SIGTERM; the client, on another node, times closed
 * loops of
 *   check-onesided  dsm_version_check (VOH_VREAD: the home's receive path)
 *   check-rpc       dsm_version_check rpc (VOH_VRPC: the version thread)
 *   read-onesided   dsm_read of a cached block under DSM_POLICY_VALIDATE
 *   read-rpc        the same with DSM_POLICY_RPC_CHECK
 *   fetch           dsm_read that fetches the block every time (no cache:
 *                   TTL of 1 us, always expired)
 * and prints one JSON line per loop: count, p50/p99/mean latency (us),
 * operations per second. Uses dsm.h only.
 *
 *   voh-bench --topo T --node 1 --role home --busy 8
 *   voh-bench --topo T --node 0 --role client --home 1 --busy 8 --ops 2000
 */
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dsm.h>

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *
busy(void *arg)
{
	volatile uint64_t *spins = arg;

	while (!stop)
		(*spins)++;
	return NULL;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

enum mode {
	CHECK_ONE,
	CHECK_RPC,
	READ_ONE,
	READ_RPC,
	FETCH,
	N_MODES
};

static const char *const mode_name[N_MODES] = {
	"check-onesided", "check-rpc", "read-onesided", "read-rpc", "fetch",
};

static int
one_op(struct dsm *d, struct dsm_thread *t, enum mode m, dsm_addr_t a)
{
	uint32_t ver;
	uint64_t v;

	(void)d;
	switch (m) {
	case CHECK_ONE:
		return dsm_version_check(t, a, false, &ver);
	case CHECK_RPC:
		return dsm_version_check(t, a, true, &ver);
	default:
		return dsm_read(t, a, &v, sizeof(v));
	}
}

static int
run_loop(struct dsm *d, struct dsm_thread *t, enum mode m, dsm_addr_t a,
	 unsigned busy_n, unsigned ops)
{
	uint64_t *lat = calloc(ops, sizeof(*lat)), t0, sum = 0;
	unsigned pol[N_MODES] = {
		DSM_POLICY_VALIDATE, DSM_POLICY_VALIDATE,
		DSM_POLICY_VALIDATE, DSM_POLICY_VALIDATE | DSM_POLICY_RPC_CHECK,
		DSM_POLICY_TTL,
	};
	int rc;

	if (!lat)
		return -1;
	rc = dsm_set_policy(d, a, dsm_block_size(d), pol[m], 1);
	for (unsigned i = 0; rc == 0 && i < ops / 10 + 10; i++)
		rc = one_op(d, t, m, a); /* warm up: the block cached */
	t0 = now_ns();
	for (unsigned i = 0; rc == 0 && i < ops && !stop; i++) {
		uint64_t s = now_ns();

		rc = one_op(d, t, m, a);
		lat[i] = now_ns() - s;
		sum += lat[i];
	}
	if (rc) {
		fprintf(stderr, "voh-bench: %s: %s\n", mode_name[m],
			strerror(-rc));
		free(lat);
		return -1;
	}
	double secs = (now_ns() - t0) / 1e9;

	qsort(lat, ops, sizeof(*lat), cmp_u64);
	printf("{\"busy\":%u,\"mode\":\"%s\",\"n\":%u,\"p50_us\":%.2f,"
	       "\"p99_us\":%.2f,\"mean_us\":%.2f,\"ops_per_s\":%.1f}\n",
	       busy_n, mode_name[m], ops, lat[ops / 2] / 1e3,
	       lat[ops * 99 / 100] / 1e3, sum / 1e3 / ops, ops / secs);
	fflush(stdout);
	free(lat);
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "topo", 1, 0, 't' }, { "node", 1, 0, 'n' },
		{ "role", 1, 0, 'r' }, { "busy", 1, 0, 'b' },
		{ "home", 1, 0, 'H' }, { "ops", 1, 0, 'o' },
		{ 0, 0, 0, 0 },
	};
	struct dsm_config cfg = { .threads = 1, .seed = 1 };
	const char *role = "client";
	unsigned busy_n = 0, ops = 2000, home = 1;
	struct sigaction sa = { .sa_handler = on_signal };
	char err[256];
	struct dsm *d;
	int c, rc = 0;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 't':
			cfg.topo_path = optarg;
			break;
		case 'n':
			cfg.node = (uint16_t)atoi(optarg);
			break;
		case 'r':
			role = optarg;
			break;
		case 'b':
			busy_n = (unsigned)atoi(optarg);
			break;
		case 'H':
			home = (unsigned)atoi(optarg);
			break;
		case 'o':
			ops = (unsigned)atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: see the top of voh_bench.c\n");
			return 2;
		}
	}
	if (!cfg.topo_path || ops == 0) {
		fprintf(stderr, "voh-bench: --topo and --ops > 0 needed\n");
		return 2;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (dsm_open(&cfg, &d, err, sizeof(err))) {
		fprintf(stderr, "voh-bench: %s\n", err);
		return 1;
	}
	if (!strcmp(role, "home")) {
		pthread_t *th = calloc(busy_n + 1, sizeof(*th));
		uint64_t *spins = calloc(busy_n + 1, sizeof(*spins));

		struct sched_param sp = { .sched_priority = 0 };
		pthread_attr_t at;

		/* compute threads: ordinary, whatever class the process has */
		pthread_attr_init(&at);
		pthread_attr_setinheritsched(&at, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&at, SCHED_OTHER);
		pthread_attr_setschedparam(&at, &sp);
		for (unsigned i = 0; th && spins && i < busy_n; i++)
			pthread_create(&th[i], &at, busy, &spins[i]);
		pthread_attr_destroy(&at);
		while (!stop)
			usleep(10000);
		for (unsigned i = 0; th && spins && i < busy_n; i++)
			pthread_join(th[i], NULL);
		free(th);
		free(spins);
	} else {
		struct dsm_thread *t = dsm_thread(d, 0);
		dsm_addr_t a = dsm_static_addr((uint16_t)home, 4096 * 16);
		uint32_t ver;

		/* the home is up when it answers */
		while (!stop && dsm_version_check(t, a, false, &ver))
			usleep(100000);
		for (int m = 0; m < N_MODES && !rc && !stop; m++)
			rc = run_loop(d, t, (enum mode)m, a, busy_n, ops);
	}
	dsm_close(d);
	return rc ? 1 : 0;
}
