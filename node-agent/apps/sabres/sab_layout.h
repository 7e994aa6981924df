/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Object layouts of the SABRes benchmark (docs/SABRES.md):
 *  - plain (what dsm_read_object reads): an 8-byte little-endian version,
 *    then the payload, unmodified;
 *  - FaRM-style per-cache-line versions (the baseline, paper 001 section
 *    2.1): 64-byte lines; line 0 holds the 8-byte version and 56 payload
 *    bytes, every later line a 2-byte copy of the version's low bits and
 *    62 payload bytes. A reader checks every line's copy against the
 *    version and strips the copies into the caller's buffer.
 * The payload is self-checking: its first word is a seed, every later
 * word a function of the seed and its index, so a torn object shows.
 */
#ifndef SAB_LAYOUT_H
#define SAB_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SAB_LINE 64u

/** Bytes a FaRM-layout object of `len` logical bytes occupies. */
size_t sab_farm_size(size_t len);

/** Fill a logical object's payload (bytes 8..len-1) from `seed`. */
void sab_fill(uint8_t *obj, size_t len, uint64_t seed);

/** Is the payload one fill's? (len a multiple of 8) */
bool sab_check(const uint8_t *obj, size_t len);

/** The logical object's version word. */
uint64_t sab_version(const uint8_t *obj);

/** Lay `obj` (len logical bytes) out as FaRM lines tagged `version`. */
void sab_farm_encode(uint8_t *dst, const uint8_t *obj, size_t len,
		     uint64_t version);

/**
 * Check a FaRM-layout object and strip it into `obj` (len logical bytes).
 * @return true when the version is even and every line agrees with it.
 */
bool sab_farm_decode(uint8_t *obj, const uint8_t *src, size_t len);

#endif /* SAB_LAYOUT_H */
