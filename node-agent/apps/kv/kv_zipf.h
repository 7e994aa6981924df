/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Key popularity generators of YCSB (Cooper et al., SoCC '10), as its
 * ZipfianGenerator, ScrambledZipfianGenerator and uniform choice do it, with
 * the random number taken as an argument: pure functions, no state besides
 * the constants computed once per run, so any number of threads share one
 * generator and each brings its own uniform draws.
 */
#ifndef KV_ZIPF_H
#define KV_ZIPF_H

#include <stdint.h>

/** YCSB's default Zipf constant (ZipfianGenerator.ZIPFIAN_CONSTANT). */
#define KV_ZIPF_THETA 0.99

/**
 * Gray et al.'s Zipf generator ("Quickly generating billion-record synthetic
 * databases", SIGMOD '94), as YCSB's ZipfianGenerator: rank 0 is the most
 * popular, P(rank i) ~ 1 / (i + 1)^theta.
 */
struct kv_zipf {
	uint64_t items; /* ranks 0 .. items-1 */
	double theta;
	double zetan; /* sum_{i=1..items} i^-theta */
	double alpha; /* 1 / (1 - theta) */
	double eta;
	double second; /* 1 + 0.5^theta: the cut for rank 1 */
};

/**
 * zeta(n, theta) = sum_{i=1..n} i^-theta: exact up to 2M terms, beyond that
 * the first 100,000 terms plus the Euler-Maclaurin estimate of the tail
 * (relative error below 1e-12), so that YCSB's 10^10-item scrambled space
 * costs milliseconds, not minutes.
 */
double kv_zeta(uint64_t n, double theta);

/**
 * Set up a generator over `items` ranks. zetan <= 0: computed (kv_zeta).
 * @return 0, or -EINVAL (items < 2, or theta outside [0, 1): the
 * algorithm needs theta < 1).
 */
int kv_zipf_init(struct kv_zipf *z, uint64_t items, double theta, double zetan);

/** The rank drawn by the uniform number u in [0, 1). */
uint64_t kv_zipf_rank(const struct kv_zipf *z, double u);

/**
 * YCSB's Utils.fnvhash64: FNV-1a 64 over the 8 bytes of v, low byte first,
 * made non-negative as Java's Math.abs does.
 */
uint64_t kv_fnv64(uint64_t v);

/** Key popularity distributions (--dist). */
enum kv_dist {
	KV_DIST_ZIPF,      /* item = Zipf rank: item 0 the hottest */
	KV_DIST_SCRAMBLED, /* YCSB's ScrambledZipfianGenerator */
	KV_DIST_UNIFORM,
};

/** --dist names: "zipf", "scrambled-zipf", "uniform". */
const char *kv_dist_name(enum kv_dist d);
/** @return 0 and *d, or -EINVAL for an unknown name. */
int kv_dist_parse(const char *s, enum kv_dist *d);

/** Items 0 .. items-1 drawn with a popularity distribution. */
struct kv_keygen {
	enum kv_dist dist;
	uint64_t items;
	struct kv_zipf z; /* over items (zipf) or YCSB's 10^10 (scrambled) */
};

/**
 * Set up a generator over `items` items. @return 0, or -EINVAL (items
 * < 2, theta outside [0, 1)).
 */
int kv_keygen_init(struct kv_keygen *g, enum kv_dist dist, uint64_t items,
		   double theta);

/** The item drawn by the uniform number u in [0, 1). */
uint64_t kv_keygen_next(const struct kv_keygen *g, double u);

#endif /* KV_ZIPF_H */
