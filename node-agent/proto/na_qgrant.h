/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Q_GRANT's payload (docs/QUEUED-LOCKS.md section 6): the wait queue a
 * queue holder hands over with the lock, `entries` x NA_QG_ENTRY bytes,
 * big-endian: requester node u16, thread u16, seq u32, type u8, class u8,
 * pad u16 (0), index u32. Q_GRANT's aux = giver node << 16 | entries.
 * Pure encode/decode; no sockets.
 */
#ifndef NA_QGRANT_H
#define NA_QGRANT_H

#include <stddef.h>
#include <stdint.h>

#define NA_QG_ENTRY 16 /* bytes of one entry */

/* One queue entry on the wire. */
struct na_qg_entry {
	uint16_t node;
	uint16_t thread;
	uint32_t seq;
	uint8_t type;   /* its request type (0x01-0x05) */
	uint8_t cls;    /* priority class */
	uint32_t index; /* its received index at the giver */
};

/**
 * Encode `n` entries into `buf` (`cap` bytes).
 *
 * @return bytes written (n * NA_QG_ENTRY), or -ENOSPC when `cap` is too
 *         small (nothing written).
 */
int na_qg_encode(const struct na_qg_entry *e, uint32_t n, uint8_t *buf,
		 size_t cap);

/**
 * Decode Q_GRANT's payload (`len` bytes) into at most `cap` entries.
 *
 * @return entries decoded, or -EINVAL when `len` is not a multiple of
 *         NA_QG_ENTRY or a pad field is not 0, -ENOSPC when there are more
 *         than `cap` entries (nothing decoded).
 */
int na_qg_decode(const uint8_t *buf, size_t len, struct na_qg_entry *e,
		 uint32_t cap);

/** Q_GRANT's aux: the giver's node and the number of queue entries. */
static inline uint32_t
na_qg_aux(uint16_t giver, uint16_t entries)
{
	return (uint32_t)giver << 16 | entries;
}

static inline uint16_t
na_qg_aux_giver(uint32_t aux)
{
	return (uint16_t)(aux >> 16);
}

static inline uint16_t
na_qg_aux_entries(uint32_t aux)
{
	return (uint16_t)(aux & 0xffff);
}

#endif /* NA_QGRANT_H */
