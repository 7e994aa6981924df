/* SPDX-License-Identifier: BSD-3-Clause
 *
 * YCSB's key popularity generators; see kv_zipf.h.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "kv_zipf.h"

/* ScrambledZipfianGenerator draws a Zipf rank over this many items and
 * hashes it onto the key space; ZETAN is its zeta for theta 0.99 (YCSB's
 * ITEM_COUNT, ZETAN and USED_ZIPFIAN_CONSTANT). */
#define YCSB_ITEM_COUNT 10000000000ull
#define YCSB_ZETAN      26.46902820178302

#define ZETA_EXACT (2ull << 20) /* exact sums up to this many terms */
#define ZETA_HEAD  100000ull    /* exact head before the estimated tail */

static const char *const dist_names[] = {
	[KV_DIST_ZIPF] = "zipf",
	[KV_DIST_SCRAMBLED] = "scrambled-zipf",
	[KV_DIST_UNIFORM] = "uniform",
};

double
kv_zeta(uint64_t n, double theta)
{
	uint64_t head = n <= ZETA_EXACT ? n : ZETA_HEAD - 1;
	double sum = 0, m, x;

	for (uint64_t i = 1; i <= head; i++)
		sum += 1 / pow((double)i, theta);
	if (head == n)
		return sum;
	/* Euler-Maclaurin from m = ZETA_HEAD to n: the integral, half the end
	 * terms and the first derivative correction; the next term is of the
	 * order of m^(-theta-3), far below a double's precision here. */
	m = (double)ZETA_HEAD;
	x = (double)n;
	sum += fabs(theta - 1) < 1e-12
		       ? log(x / m)
		       : (pow(x, 1 - theta) - pow(m, 1 - theta)) / (1 - theta);
	sum += (pow(m, -theta) + pow(x, -theta)) / 2;
	sum += theta * (pow(m, -theta - 1) - pow(x, -theta - 1)) / 12;
	return sum;
}

int
kv_zipf_init(struct kv_zipf *z, uint64_t items, double theta, double zetan)
{
	double zeta2;

	if (items < 2 || !(theta >= 0) || !(theta < 1))
		return -EINVAL;
	memset(z, 0, sizeof(*z));
	z->items = items;
	z->theta = theta;
	z->zetan = zetan > 0 ? zetan : kv_zeta(items, theta);
	zeta2 = 1 + pow(0.5, theta);
	z->alpha = 1 / (1 - theta);
	z->eta = (1 - pow(2.0 / (double)items, 1 - theta)) /
		 (1 - zeta2 / z->zetan);
	z->second = zeta2;
	return 0;
}

uint64_t
kv_zipf_rank(const struct kv_zipf *z, double u)
{
	double uz = u * z->zetan, r;

	if (uz < 1)
		return 0;
	if (uz < z->second)
		return 1;
	r = (double)z->items * pow(z->eta * u - z->eta + 1, z->alpha);
	/* u < 1 keeps r below items; rounding at the edge must not. */
	return r >= (double)z->items ? z->items - 1 : (uint64_t)r;
}

uint64_t
kv_fnv64(uint64_t v)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (int i = 0; i < 8; i++) {
		h ^= v & 0xff;
		v >>= 8;
		h *= 1099511628211ull;
	}
	/* Math.abs of a Java long (2^63 stays 2^63, as its bit pattern). */
	return (int64_t)h < 0 ? (uint64_t)0 - h : h;
}

const char *
kv_dist_name(enum kv_dist d)
{
	return dist_names[d];
}

int
kv_dist_parse(const char *s, enum kv_dist *d)
{
	for (unsigned i = 0; i < sizeof(dist_names) / sizeof(dist_names[0]);
	     i++)
		if (!strcmp(s, dist_names[i])) {
			*d = (enum kv_dist)i;
			return 0;
		}
	return -EINVAL;
}

int
kv_keygen_init(struct kv_keygen *g, enum kv_dist dist, uint64_t items,
	       double theta)
{
	memset(g, 0, sizeof(*g));
	g->dist = dist;
	g->items = items;
	if (items < 2 || !(theta >= 0) || !(theta < 1))
		return -EINVAL;
	switch (dist) {
	case KV_DIST_ZIPF:
		return kv_zipf_init(&g->z, items, theta, 0);
	case KV_DIST_SCRAMBLED:
		/* YCSB: ZipfianGenerator(0, ITEM_COUNT) has ITEM_COUNT + 1
		 * items, and uses the precomputed ZETAN for 0.99 only. */
		return kv_zipf_init(&g->z, YCSB_ITEM_COUNT + 1, theta,
				    theta == KV_ZIPF_THETA ? YCSB_ZETAN : 0);
	case KV_DIST_UNIFORM:
		return 0;
	}
	return -EINVAL;
}

uint64_t
kv_keygen_next(const struct kv_keygen *g, double u)
{
	uint64_t i;

	switch (g->dist) {
	case KV_DIST_ZIPF:
		return kv_zipf_rank(&g->z, u);
	case KV_DIST_SCRAMBLED:
		return kv_fnv64(kv_zipf_rank(&g->z, u)) % g->items;
	case KV_DIST_UNIFORM:
		break;
	}
	i = (uint64_t)(u * (double)g->items);
	return i < g->items ? i : g->items - 1;
}
