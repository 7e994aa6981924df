/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Validate-on-hit and TTL, the requester side (docs/VALIDATE.md): the
 * region policy table, the node's validated cache (blocks with the version
 * they were fetched at, apart from the coherent cache), and the accesses
 * to blocks under those policies. Internal to libdsm.
 */
#ifndef NA_VOH_H
#define NA_VOH_H

#include <stdbool.h>
#include <stdint.h>

#include "na_requester.h"

/** @return 0 or -ENOMEM. */
int na_voh_init(struct dsm *d);
void na_voh_fini(struct dsm *d);

/**
 * Access `len` bytes at `off` of block `tag` if its region has the
 * VALIDATE or TTL policy (write: `buf` in; read: out).
 * @return 0 when done; 1 when the invalidation protocol must do it (no
 * such policy, or the home refused: a switch-owned block); -EINTR.
 */
int na_voh_access(struct dsm_thread *t, uint64_t tag, uint32_t off,
		  uint32_t len, void *buf, bool write);

/* A stamp read from the switch's VERSION register (never equal to one the
 * home sent: those have 16-bit epochs). */
#define NA_VOH_SW (1ull << 63)
/* A copy is served for this long after the check that stamped it was
 * sent, then fetched again (lib/model/vohepoch.pml BLOCK, HSTAMP). A
 * switch stamp's epoch repeats only after 8,191 of its block's
 * migrations, each more than NA_ADD_GAP_NS after the last (na_home.h); a
 * home stamp's after 65,536 of its ADD sets, each a migration or 8
 * retransmissions of one; its 32-bit version after 2^32 updates, over 28 s
 * at one update per frame of a 100 Gbps link. */
#define NA_VOH_LIFE_NS 8000000000ull

/**
 * VERSION_READ of block `tag` at the switch (docs/VALIDATE.md "Switch-owned
 * blocks"), retransmitted until answered; `seq` is a fresh validate-on-hit
 * seq of the thread.
 * @return 0 with *stamp = NA_VOH_SW | the 32-bit VERSION and *busy (the
 * block's write lock was held); -ENOTSUP when the switch does not hold the
 * block (or there is no switch: `direct`); -EINTR after dsm_stop.
 */
int na_voh_sw_version(struct dsm_thread *t, uint64_t tag, uint32_t seq,
		      uint64_t *stamp, bool *busy);

#endif /* NA_VOH_H */
