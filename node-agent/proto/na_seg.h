/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Segmentation of block data into frames. A transport moves at most
 * NA_MAX_FRAME_PAYLOAD bytes per message; a block (4 KB by default, at most
 * NA_MAX_BLOCK) travels as NA_DATA / NA_WB segments, segment i carrying bytes
 * [i * NA_MAX_FRAME_PAYLOAD, ...) with its byte offset in aux. Reassembly is
 * a bitmap of received segments, so duplicates and reordering are harmless.
 */
#ifndef NA_SEG_H
#define NA_SEG_H

#include <stdbool.h>
#include <stdint.h>

#include "na_msg.h"

/* 64 segments of 1400 bytes: blocks up to 64 KB (a bitmap in a uint64_t). */
#define NA_MAX_BLOCK 65536u

static inline uint32_t
na_seg_count(uint32_t size)
{
	return (size + NA_MAX_FRAME_PAYLOAD - 1) / NA_MAX_FRAME_PAYLOAD;
}

/** Bitmap with one bit per segment of a `size`-byte block. */
static inline uint64_t
na_seg_all(uint32_t size)
{
	uint32_t n = na_seg_count(size);

	return n >= 64 ? ~0ull : (1ull << n) - 1;
}

/** Offset and length of segment `i` of a `size`-byte block. */
static inline void
na_seg_span(uint32_t size, uint32_t i, uint32_t *off, uint16_t *len)
{
	uint32_t o = i * NA_MAX_FRAME_PAYLOAD;
	uint32_t l = size - o;

	*off = o;
	*len = (uint16_t)(l > NA_MAX_FRAME_PAYLOAD ? NA_MAX_FRAME_PAYLOAD : l);
}

/**
 * Check a received segment of a `size`-byte block and return its index.
 * It must start on a segment boundary and have exactly that segment's length.
 * @return the index, or -1 when the segment is malformed.
 */
static inline int
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

#endif /* NA_SEG_H */
