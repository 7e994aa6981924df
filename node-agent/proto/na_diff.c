/* SPDX-License-Identifier: BSD-3-Clause
 *
 * PIPE diffs: run-length encoding against the twin, and application.
 * See na_diff.h.
 */
#include <errno.h>
#include <string.h>

#include "na_diff.h"

static void
put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint32_t
get16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

int
na_diff_encode(const uint8_t *twin, const uint8_t *cur, uint32_t size,
	       uint8_t *out, uint32_t cap)
{
	uint32_t i = 0, n = 0;

	if (size == 0 || size > 65536)
		return -EINVAL;
	while (i < size) {
		uint32_t start, end, same;

		if (twin[i] == cur[i]) {
			i++;
			continue;
		}
		/* A run: extend over gaps shorter than a header. */
		start = i;
		end = i + 1;
		same = 0;
		for (i = end; i < size && i - start < 65535; i++) {
			if (twin[i] != cur[i]) {
				end = i + 1;
				same = 0;
			} else if (++same >= NA_DIFF_GAP) {
				break;
			}
		}
		if (n + NA_DIFF_RUN_HDR + (end - start) > cap)
			return -E2BIG;
		put16(out + n, start);
		put16(out + n + 2, end - start);
		memcpy(out + n + NA_DIFF_RUN_HDR, cur + start, end - start);
		n += NA_DIFF_RUN_HDR + (end - start);
		i = end;
	}
	return (int)n;
}

int
na_diff_check(const uint8_t *diff, uint32_t len, uint32_t size)
{
	uint32_t n = 0, next = 0;

	while (n < len) {
		uint32_t off, rl;

		if (len - n < NA_DIFF_RUN_HDR)
			return -EINVAL;
		off = get16(diff + n);
		rl = get16(diff + n + 2);
		if (rl == 0 || off < next || off + rl > size ||
		    len - n - NA_DIFF_RUN_HDR < rl)
			return -EINVAL;
		next = off + rl;
		n += NA_DIFF_RUN_HDR + rl;
	}
	return 0;
}

int
na_diff_apply(uint8_t *dst, uint32_t size, const uint8_t *diff, uint32_t len)
{
	uint32_t n = 0;

	if (na_diff_check(diff, len, size) < 0)
		return -EINVAL;
	while (n < len) {
		uint32_t off = get16(diff + n), rl = get16(diff + n + 2);

		memcpy(dst + off, diff + n + NA_DIFF_RUN_HDR, rl);
		n += NA_DIFF_RUN_HDR + rl;
	}
	return 0;
}
