/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The checker's containers: allocation that exits on failure, a hash table
 * of 128-bit keys, a stable sort and binary search (ch.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch.h"

void *
ch_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (q == NULL) {
		fputs("check_history: out of memory\n", stderr);
		exit(2);
	}
	return q;
}

void
ch_hmap_init(struct ch_hmap *m, size_t n)
{
	size_t cap = 16;

	while (cap < 2 * n)
		cap *= 2;
	m->keys = ch_xrealloc(NULL, cap * sizeof(*m->keys));
	m->ids = ch_xrealloc(NULL, cap * sizeof(*m->ids));
	memset(m->ids, 0xff, cap * sizeof(*m->ids));
	m->mask = cap - 1;
	m->n = 0;
}

void
ch_hmap_free(struct ch_hmap *m)
{
	free(m->keys);
	free(m->ids);
	m->keys = NULL;
	m->ids = NULL;
}

static size_t
hash(ch_int k)
{
	uint64_t x = (uint64_t)k ^ ((uint64_t)(k >> 64) * 0x9e3779b97f4a7c15u);

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdu;
	x ^= x >> 33;
	return (size_t)x;
}

uint32_t
ch_hmap_id(struct ch_hmap *m, ch_int k, int add)
{
	size_t s = hash(k) & m->mask;

	while (m->ids[s] != UINT32_MAX) {
		if (m->keys[s] == k)
			return m->ids[s];
		s = (s + 1) & m->mask;
	}
	if (!add)
		return UINT32_MAX;
	m->keys[s] = k;
	m->ids[s] = (uint32_t)m->n++;
	return m->ids[s];
}

void
ch_sort_keyed(struct ch_keyed *a, size_t n, struct ch_keyed *tmp)
{
	struct ch_keyed *src = a, *dst = tmp, *t;

	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n;
			size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, o = lo;

			if (mid == hi || src[mid - 1].k <= src[mid].k) {
				memcpy(dst + lo, src + lo,
				       (hi - lo) * sizeof(*src));
				continue;
			}
			while (i < mid && j < hi)
				dst[o++] = src[j].k < src[i].k ? src[j++]
							       : src[i++];
			while (i < mid)
				dst[o++] = src[i++];
			while (j < hi)
				dst[o++] = src[j++];
		}
		t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
}

size_t
ch_bisect(const ch_int *a, size_t n, ch_int x, int after)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (after ? a[mid] <= x : a[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
