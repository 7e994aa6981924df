/* SPDX-License-Identifier: BSD-3-Clause
 *
 * sab_local: the local-read kernel of paper 001's Figure 10. Read-only
 * lookups of random objects in local memory by T threads, both layouts:
 *   plain  seqlock read (version, copy, version again) into the caller's
 *          buffer: what an unmodified object store allows once remote
 *          atomicity is the home's business (SABRes);
 *   farm   per-cache-line versions: check every line and strip the
 *          copies into the caller's buffer.
 * Both then consume the object (a sum over its words). Prints one CSV row
 * per layout: layout,size,threads,objects,seconds,ops,ops_per_s.
 *
 *   sab_local [--size B] [--threads T] [--duration S] [--mb M]
 */
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sab_layout.h"

struct job {
	const uint8_t *store;
	size_t stride, size, objects;
	bool farm;
	double duration;
	uint64_t seed, ops, bad, sink;
};

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t
rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static bool
read_plain(uint8_t *buf, const uint8_t *obj, size_t size)
{
	uint64_t v1 = __atomic_load_n((const uint64_t *)obj, __ATOMIC_ACQUIRE);

	memcpy(buf, obj, size);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return !(v1 & 1) &&
	       v1 == __atomic_load_n((const uint64_t *)obj, __ATOMIC_RELAXED);
}

static void *
worker(void *p)
{
	struct job *j = p;
	uint8_t *buf = malloc(j->size);
	double end = now_s() + j->duration;
	uint64_t sum = 0;

	while (buf && now_s() < end) {
		for (int k = 0; k < 256; k++) {
			const uint8_t *o = j->store + rnd(&j->seed) %
							      j->objects *
							      j->stride;
			bool ok = j->farm ? sab_farm_decode(buf, o, j->size)
					  : read_plain(buf, o, j->size);
			uint64_t w;

			j->bad += !ok;
			for (size_t i = 0; ok && i < j->size; i += 8) {
				memcpy(&w, buf + i, 8);
				sum += w;
			}
			j->ops++;
		}
	}
	j->sink = sum;
	free(buf);
	return NULL;
}

static void
run(size_t size, unsigned threads, double duration, size_t mb, bool farm)
{
	size_t stored = farm ? sab_farm_size(size) : size;
	size_t stride = (stored + 63) & ~(size_t)63;
	size_t objects = (mb << 20) / stride;
	uint8_t *store = aligned_alloc(64, objects * stride);
	uint8_t *obj = malloc(size);
	pthread_t tid[64];
	struct job jobs[64];
	uint64_t ops = 0, bad = 0;
	double t0, secs;

	if (!store || !obj) {
		fprintf(stderr, "sab_local: out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < objects; i++) {
		memset(obj, 0, 8);
		obj[0] = 2;
		sab_fill(obj, size, i + 1);
		if (farm)
			sab_farm_encode(store + i * stride, obj, size, 2);
		else
			memcpy(store + i * stride, obj, size);
	}
	t0 = now_s();
	for (unsigned t = 0; t < threads; t++) {
		jobs[t] = (struct job){ .store = store,
					.stride = stride,
					.size = size,
					.objects = objects,
					.farm = farm,
					.duration = duration,
					.seed = t + 1 };
		pthread_create(&tid[t], NULL, worker, &jobs[t]);
	}
	for (unsigned t = 0; t < threads; t++) {
		pthread_join(tid[t], NULL);
		ops += jobs[t].ops;
		bad += jobs[t].bad;
	}
	if (bad) { /* nothing writes: every read must succeed */
		fprintf(stderr, "sab_local: %" PRIu64 " failed reads\n", bad);
		exit(1);
	}
	secs = now_s() - t0;
	printf("%s,%zu,%u,%zu,%.3f,%" PRIu64 ",%.1f\n", farm ? "farm" : "plain",
	       size, threads, objects, secs, ops, ops / secs);
	free(store);
	free(obj);
}

int
main(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "size", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "duration", required_argument, NULL, 'd' },
		{ "mb", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	size_t size = 1024, mb = 64;
	unsigned threads = 1;
	double duration = 2;
	int c;

	while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
		switch (c) {
		case 's':
			size = strtoul(optarg, NULL, 10);
			break;
		case 't':
			threads = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'd':
			duration = strtod(optarg, NULL);
			break;
		case 'm':
			mb = strtoul(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr,
				"usage: sab_local [--size B] "
				"[--threads T] [--duration S] [--mb M]\n");
			return 2;
		}
	}
	if (size < 16 || size % 8 || size > 65536 || threads < 1 ||
	    threads > 64 || duration <= 0 || mb < 1) {
		fprintf(stderr, "sab_local: bad option\n");
		return 2;
	}
	printf("layout,size,threads,objects,seconds,ops,ops_per_s\n");
	run(size, threads, duration, mb, false);
	run(size, threads, duration, mb, true);
	return 0;
}
