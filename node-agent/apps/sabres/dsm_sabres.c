/* SPDX-License-Identifier: BSD-3-Clause
 *
 * dsm_sabres: the SABRes conflict microbenchmark (paper 001, section 7.2,
 * Figure 8) on libdsm. Node 0 homes `--objects` objects of `--size` bytes
 * in its static region and runs `--writers` writer threads, each rewriting
 * its own subset of the objects (concurrent reads, exclusive writes) with
 * self-checking contents; every other node runs `--threads` reader threads
 * that read random objects atomically and check them:
 *   --method sabres  dsm_read_object (LightSABRes at the home, zero-copy)
 *   --method farm    dsm_read_remote of the FaRM per-cache-line-version
 *                    layout into a staging buffer, then check and strip
 * A reader counts an operation per checked object, an abort per failed
 * attempt, and a torn object when a read that claimed success fails the
 * self-check (must stay 0). docs/SABRES.md.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dsm_app.h"
#include "sab_layout.h"

struct sab_opts {
	uint32_t size; /* logical object bytes */
	uint32_t objects;
	uint16_t writers; /* writer threads on node 0 */
	bool farm;
	uint64_t
		reads; /* --reads: stop each reader after this many (0: time) */
};

struct sab_run {
	struct sab_opts s;
	uint32_t stride; /* bytes between objects */
	uint32_t stored; /* bytes an object occupies */
	_Atomic uint64_t torn;
	_Atomic uint64_t writes;
};

static dsm_addr_t
obj_addr(const struct app *a, const struct sab_run *r, uint32_t i)
{
	return dsm_static_addr(0, app_static_base(a) + (uint64_t)i * r->stride);
}

/* Random back-off of the baseline's retries, like libdsm's (125 us base). */
static void
backoff(uint64_t *rng, unsigned attempt)
{
	uint64_t span = 125000ull << (attempt < 4 ? attempt : 4);
	uint64_t ns = app_rand(rng) % (span + 1);
	struct timespec ts = { 0, (long)ns };

	nanosleep(&ts, NULL);
}

static int
write_one(struct dsm_thread *t, const struct sab_run *r, dsm_addr_t addr,
	  uint8_t *obj, uint8_t *img, uint64_t seed)
{
	uint64_t v;
	int rc;

	sab_fill(obj, r->s.size, seed);
	if (!r->s.farm)
		return dsm_write_object(t, addr, r->s.size, obj);
	rc = dsm_object_lock(t, addr, &v);
	if (rc < 0)
		return rc;
	sab_farm_encode(img, obj, r->s.size, v + 2);
	rc = dsm_write_through(t, addr + 8, img + 8, r->stored - 8);
	return rc < 0 ? rc : dsm_object_unlock(t, addr, v + 2);
}

static int
writer(struct app *a, uint16_t th, void *arg)
{
	struct sab_run *r = arg;
	struct dsm_thread *t = dsm_thread(a->d, th);
	uint8_t *obj = malloc(r->s.size), *img = malloc(r->stored);
	uint64_t rng = app_rand_seed(a, th);
	uint32_t i = th;
	int rc = 0;

	if (th >= r->s.writers || !obj || !img) {
		free(obj);
		free(img);
		return th >= r->s.writers ? 0 : -ENOMEM;
	}
	while (!app_time_up(a) && rc == 0) {
		rc = write_one(t, r, obj_addr(a, r, i), obj, img,
			       app_rand(&rng));
		atomic_fetch_add(&a->cnt[th].retries, 1); /* writes */
		atomic_fetch_add(&r->writes, 1);
		i += r->s.writers;
		if (i >= r->s.objects)
			i = th;
	}
	free(obj);
	free(img);
	return rc;
}

static int
reader(struct app *a, uint16_t th, void *arg)
{
	struct sab_run *r = arg;
	struct dsm_thread *t = dsm_thread(a->d, th);
	uint8_t *obj = malloc(r->s.size), *stage = malloc(r->stored);
	uint64_t rng = app_rand_seed(a, th);
	int rc = 0;

	if (!obj || !stage)
		rc = -ENOMEM;
	for (uint64_t n = 0;
	     rc == 0 && !app_time_up(a) && (!r->s.reads || n < r->s.reads);
	     n++) {
		dsm_addr_t addr = obj_addr(a, r,
					   (uint32_t)(app_rand(&rng) %
						      r->s.objects));

		if (!r->s.farm) {
			rc = dsm_read_object(t, addr, r->s.size, obj);
		} else {
			for (unsigned k = 0; rc == 0; k++) {
				rc = dsm_read_remote(t, addr, r->stored, stage);
				if (rc == 0 &&
				    sab_farm_decode(obj, stage, r->s.size))
					break;
				atomic_fetch_add(&a->cnt[th].aborts, 1);
				backoff(&rng, k);
			}
		}
		if (rc < 0)
			break;
		if ((sab_version(obj) & 1) || !sab_check(obj, r->s.size))
			atomic_fetch_add(&r->torn, 1);
		atomic_fetch_add(&a->cnt[th].ops, 1);
	}
	free(obj);
	free(stage);
	return rc;
}

static int
run_node(struct app *a, struct sab_run *r)
{
	struct dsm_thread *t0 = dsm_thread(a->d, 0);
	uint8_t *obj = malloc(r->s.size), *img = malloc(r->stored);
	int rc = obj && img ? 0 : -ENOMEM;

	/* Node 0 writes every object once: version 2, a valid payload. */
	for (uint32_t i = 0; rc == 0 && a->o.node == 0 && i < r->s.objects; i++)
		rc = write_one(t0, r, obj_addr(a, r, i), obj, img, i + 1);
	free(obj);
	free(img);
	if (rc == 0)
		rc = app_barrier(a, t0);
	if (rc == 0)
		rc = app_run_threads(a, a->o.node == 0 ? writer : reader, r);
	if (rc == 0)
		rc = app_leave(a, t0);
	return rc;
}

static void
usage(const char *prg)
{
	fprintf(stderr,
		"usage: %s --topo F --node N [common options] [--size B] "
		"[--objects K] [--writers W] [--method sabres|farm] "
		"[--reads N]\n",
		prg);
	app_opts_usage(stderr);
}

static int
parse(int argc, char **argv, struct app_opts *o, struct sab_opts *s)
{
	static const struct option longs[] = {
		APP_OPTS_LONG,
		{ "size", required_argument, NULL, 's' },
		{ "objects", required_argument, NULL, 'k' },
		{ "writers", required_argument, NULL, 'w' },
		{ "method", required_argument, NULL, 'm' },
		{ "reads", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c;

	app_opts_init(o);
	*s = (struct sab_opts){ .size = 1024, .objects = 100 };
	while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
		int took = app_opts_take(o, c, optarg);

		if (took < 0)
			return -1;
		if (took)
			continue;
		switch (c) {
		case 's':
			if (app_parse_u64(optarg, 65536, &v) || v < 16 || v % 8)
				return -1;
			s->size = (uint32_t)v;
			break;
		case 'k':
			if (app_parse_u64(optarg, 100000, &v) || v == 0)
				return -1;
			s->objects = (uint32_t)v;
			break;
		case 'w':
			if (app_parse_u64(optarg, 64, &v))
				return -1;
			s->writers = (uint16_t)v;
			break;
		case 'r':
			if (app_parse_u64(optarg, UINT32_MAX, &s->reads))
				return -1;
			break;
		case 'm':
			if (strcmp(optarg, "sabres") && strcmp(optarg, "farm"))
				return -1;
			s->farm = !strcmp(optarg, "farm");
			break;
		default:
			return -1;
		}
	}
	return app_opts_check(o, argv[0]);
}

int
main(int argc, char **argv)
{
	struct app_opts o;
	struct sab_run r = { 0 };
	struct app a;
	char cols[256], vals[256];
	int rc;

	if (parse(argc, argv, &o, &r.s) < 0) {
		usage(argv[0]);
		return 2;
	}
	r.stored = r.s.farm ? (uint32_t)sab_farm_size(r.s.size) : r.s.size;
	if (r.stored > 65536) {
		fprintf(stderr, "--size: the FaRM layout exceeds 64 KB\n");
		return 2;
	}
	/* Objects start on 1 KB (SABRe chunk) boundaries. */
	r.stride = (r.stored + 1023) & ~1023u;
	if (o.node == 0 && o.threads < (r.s.writers ? r.s.writers : 1))
		o.threads = r.s.writers ? r.s.writers : 1;
	rc = app_open(&a, &o);
	if (rc == 0)
		rc = run_node(&a, &r);
	if (rc != 0)
		fprintf(stderr, "dsm_sabres: %s\n", strerror(-rc));
	snprintf(cols, sizeof(cols), "method,size,objects,writers,torn,writes");
	snprintf(vals, sizeof(vals), "%s,%u,%u,%u,%" PRIu64 ",%" PRIu64,
		 r.s.farm ? "farm" : "sabres", r.s.size, r.s.objects,
		 r.s.writers, atomic_load(&r.torn), atomic_load(&r.writes));
	if (a.d &&
	    app_report(&a, "sabres", r.s.farm ? "farm" : "sabres", cols, vals))
		rc = rc ? rc : -EIO;
	app_close(&a);
	if (atomic_load(&r.torn)) {
		fprintf(stderr, "dsm_sabres: %" PRIu64 " torn objects\n",
			atomic_load(&r.torn));
		return 1;
	}
	return rc ? 1 : 0;
}
