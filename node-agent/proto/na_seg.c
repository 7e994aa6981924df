/* SPDX-License-Identifier: BSD-3-Clause */
#include "na_seg.h"

int
na_seg_index(uint32_t size, uint32_t offset, uint32_t len)
{
	uint32_t off;
	uint16_t l;
	uint32_t i;

	if (size == 0 || size > NA_MAX_BLOCK || offset >= size ||
	    offset % NA_MAX_FRAME_PAYLOAD)
		return -1;
	i = offset / NA_MAX_FRAME_PAYLOAD;
	na_seg_span(size, i, &off, &l);
	return len == l ? (int)i : -1;
}
