/* SPDX-License-Identifier: BSD-3-Clause
 *
 * A node's queue-holder slots (na_qtable.h, docs/QUEUED-LOCKS.md 5):
 * finding and making them, and the wire side of a holder's actions.
 * Internal to na_qtable.c; pure (no sockets, threads or clocks).
 */
#ifndef NA_QSLOT_H
#define NA_QSLOT_H

#include <stdint.h>

#include "na_qtable.h"

/**
 * The slot of (tag, thread): one holder per block and requester thread
 * (passing slots, na_qtable.c, are not found here).
 *
 * @return the slot, or NULL when there is none.
 */
struct na_qslot *na_qslot_find(struct na_qtable *qt, uint64_t tag,
			       uint16_t thread);

/**
 * A fresh slot for (tag, thread), made from an unused or the least
 * recently used idle one (its holder IDLE), never `keep`.
 *
 * @return the slot, or NULL when every other slot is busy.
 */
struct na_qslot *na_qslot_new(struct na_qtable *qt, uint64_t tag,
			      uint16_t thread, uint64_t now,
			      const struct na_qslot *keep);

/**
 * (tag, thread)'s slot (na_qslot_find), or a fresh one (na_qslot_new).
 *
 * @return the slot, or NULL when every slot is busy.
 */
struct na_qslot *na_qslot_for(struct na_qtable *qt, uint64_t tag,
			      uint16_t thread, uint64_t now);

/** Send a message of `type` about request `e` to its node. */
void na_qslot_to_requester(struct na_out *out, uint8_t type, uint64_t tag,
			   const struct na_qentry *e, uint32_t aux);

/**
 * Turn slot `s`'s actions `a` into messages (`out`) and deliveries to the
 * node's threads (`loc`, an UNLOCK_ACK when its QXFER/QRELEASE was
 * approved: the holder was in `before` = ENDING and is no more).
 */
void na_qslot_emit(struct na_qtable *qt, struct na_qslot *s,
		   enum na_qh_state before, const struct na_qacts *a,
		   struct na_out *out, struct na_qlocals *loc);

#endif /* NA_QSLOT_H */
