/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The record lock word of two-phase locking with the no-wait rule
 * (README.md "Concurrency control"). Every lockable row starts with one
 * 64-bit word in global memory: 0 free; TPCC_LW_X | owner held exclusively
 * by transaction thread `owner`; 1 .. TPCC_LW_MAX_S the number of shared
 * holders. The word is only changed by a read-modify-write while its block
 * is pinned with dsm_wlock (tpcc_txn.c); these are the decisions. Pure.
 */
#ifndef TPCC_LOCK_H
#define TPCC_LOCK_H

#include <stdbool.h>
#include <stdint.h>

#define TPCC_LW_X     (1ull << 63)
#define TPCC_LW_MAX_S 0xffffffffull

enum tpcc_lmode {
	TPCC_LOCK_S = 1,
	TPCC_LOCK_X = 2,
};

/** The owner tag of (node, thread): never 0. */
static inline uint64_t
tpcc_lw_owner(uint16_t node, uint16_t thread)
{
	return ((uint64_t)node << 16 | thread) + 1;
}

/**
 * Take the lock in `mode` for `owner` if it is compatible with *w (no-wait:
 * never wait). @return true and *w updated, or false (*w unchanged): the
 * transaction must abort.
 */
static inline bool
tpcc_lw_acquire(uint64_t *w, enum tpcc_lmode mode, uint64_t owner)
{
	if (mode == TPCC_LOCK_X) {
		if (*w != 0)
			return false;
		*w = TPCC_LW_X | owner;
		return true;
	}
	if ((*w & TPCC_LW_X) || *w >= TPCC_LW_MAX_S)
		return false;
	(*w)++;
	return true;
}

/**
 * Upgrade owner's shared lock to exclusive: only when it is the only
 * holder. @return true and *w updated, or false.
 */
static inline bool
tpcc_lw_upgrade(uint64_t *w, uint64_t owner)
{
	if (*w != 1)
		return false;
	*w = TPCC_LW_X | owner;
	return true;
}

/**
 * Release owner's lock in `mode`. @return true, or false when *w shows that
 * owner does not hold it (a bug: the caller reports it).
 */
static inline bool
tpcc_lw_release(uint64_t *w, enum tpcc_lmode mode, uint64_t owner)
{
	if (mode == TPCC_LOCK_X) {
		if (*w != (TPCC_LW_X | owner))
			return false;
		*w = 0;
		return true;
	}
	if ((*w & TPCC_LW_X) || *w == 0)
		return false;
	(*w)--;
	return true;
}

#endif /* TPCC_LOCK_H */
