/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Sampled latency tracing: the ring's allocation and its dump. See
 * lcf_trace.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lcf_trace.h"

int
lcf_trace_init(struct lcf_trace *tr, uint16_t at, uint32_t every,
	       uint32_t capacity)
{
	uint32_t cap = 1;

	memset(tr, 0, sizeof(*tr));
	tr->at = at;
	if (every == 0)
		return 0;
	if (capacity == 0)
		return -EINVAL;
	while (cap < capacity && cap < (1u << 30))
		cap <<= 1;
	tr->r = calloc(cap, sizeof(*tr->r));
	if (tr->r == NULL)
		return -ENOMEM;
	tr->mask = cap - 1;
	tr->every = every;
	return 0;
}

void
lcf_trace_fini(struct lcf_trace *tr)
{
	free(tr->r);
	memset(tr, 0, sizeof(*tr));
}

int
lcf_trace_dump(const struct lcf_trace *tr, FILE *f)
{
	uint64_t next = __atomic_load_n(&tr->next, __ATOMIC_ACQUIRE);
	uint64_t cap = tr->every ? (uint64_t)tr->mask + 1 : 0;
	uint64_t n = next < cap ? next : cap, first = next - n;
	uint8_t h[32] = { 0 };
	uint32_t rs = sizeof(struct lcf_trace_rec), n32 = (uint32_t)n;
	uint64_t dropped = first;
	uint16_t at = tr->at;

	memcpy(h, LCF_TRACE_MAGIC, sizeof(LCF_TRACE_MAGIC));
	memcpy(h + 8, &rs, 4);
	memcpy(h + 12, &tr->every, 4);
	memcpy(h + 16, &at, 2);
	memcpy(h + 20, &n32, 4);
	memcpy(h + 24, &dropped, 8);
	if (fwrite(h, sizeof(h), 1, f) != 1)
		return -EIO;
	for (uint64_t i = first; i < next; i++)
		if (fwrite(&tr->r[i & tr->mask], rs, 1, f) != 1)
			return -EIO;
	return fflush(f) == 0 ? 0 : -EIO;
}

const char *
lcf_trace_point_name(unsigned point)
{
	static const char *const names[] = {
#define LCF_TRACE_X_STR(name, str) str,
		LCF_TRACE_POINTS(LCF_TRACE_X_STR)
#undef LCF_TRACE_X_STR
	};

	return point < LCF_TP__COUNT ? names[point] : "?";
}
