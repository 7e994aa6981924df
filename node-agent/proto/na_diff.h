/* SPDX-License-Identifier: BSD-3-Clause
 *
 * PIPE diffs (docs/PIPE.md): the run-length encoding of what changed in a
 * block since its twin (the copy kept when the line became Modified), and
 * its application at the home. Pure functions, no allocation.
 *
 * Encoding: a sequence of runs, each a 4-byte header (offset u16, length
 * u16, big-endian) and `length` new bytes for [offset, offset + length).
 * Runs are in increasing offset order and do not overlap; a gap of fewer
 * than NA_DIFF_GAP unchanged bytes is carried inside a run (cheaper than a
 * header). An empty diff (nothing changed) is 0 bytes. Blocks of at most
 * 65536 bytes (NA_MAX_BLOCK); a run is at most 65535 bytes long.
 */
#ifndef NA_DIFF_H
#define NA_DIFF_H

#include <stdint.h>

#define NA_DIFF_RUN_HDR 4
#define NA_DIFF_GAP     NA_DIFF_RUN_HDR

/**
 * Encode the diff of `cur` against `twin` (both `size` bytes) into `out`.
 * @return the encoded length (0: no change), -E2BIG when it would exceed
 * `cap` (send the whole block instead), -EINVAL when size is 0 or larger
 * than 65536.
 */
int na_diff_encode(const uint8_t *twin, const uint8_t *cur, uint32_t size,
		   uint8_t *out, uint32_t cap);

/**
 * Check a diff for a `size`-byte block: every run whole, non-empty, inside
 * the block, after the previous one.
 * @return 0, or -EINVAL when malformed.
 */
int na_diff_check(const uint8_t *diff, uint32_t len, uint32_t size);

/**
 * Apply a diff to `dst` (`size` bytes). The diff is checked first, so a
 * malformed one changes nothing. Applying a diff twice is the same as once.
 * @return 0, or -EINVAL when malformed.
 */
int na_diff_apply(uint8_t *dst, uint32_t size, const uint8_t *diff,
		  uint32_t len);

#endif /* NA_DIFF_H */
