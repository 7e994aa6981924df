/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The next queue holder's event (docs/QUEUED-LOCKS.md section 5): on a
 * Q_GRANT the lock is its event's, and it runs its request against the
 * grant's metadata as the switch would: Table 2 (a WRITE_SHARED whose copy
 * was invalidated meanwhile becomes a WRITE_MISS; any other failed check
 * makes the event a no-op, ended with the metadata unchanged, and the
 * requester retries with a new seq), then Table 3 as node-to-node Q_INV
 * messages (to the copyset nodes, one of them the data provider, or to the
 * home for an Unshared block), each answered like a switch copy (NA_ACK,
 * NA_DATA). Pure.
 */
#ifndef NA_QPLAN_H
#define NA_QPLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "lcf_wire.h"

struct na_qplan {
	bool noop;         /* the check failed: end with the metadata as is */
	uint8_t type;      /* the request run (maybe WRITE_SHARED -> MISS) */
	uint32_t to;       /* Q_INV to these nodes */
	uint16_t provider; /* ... this one with DATA_PROVIDER, or NONE */
	bool home;         /* Q_INV to the block's home (Unshared: the data) */
};

/**
 * The plan for request `type` of node `self`, granted with (gs, cs); `rnd`
 * picks the data provider (as na_forward_rule).
 */
void na_qplan_make(uint8_t type, uint16_t self, uint8_t gs, uint32_t cs,
		   uint32_t rnd, struct na_qplan *p);

/**
 * Q_INV `m` (a received one) as the switch copy the receiver's agents
 * answer: the original request type (aux bits 24-31), IN_SWITCH, the
 * DATA_PROVIDER flag kept, aux 0.
 */
void na_qplan_inv_as_copy(const struct lcf_msg *m, struct lcf_msg *copy);

/**
 * A home's queued-lock message (QUEUED-LOCKS.md 11) as the switch's: NA_QFWD
 * becomes the forwarded copy of the request type in its payload's first
 * byte, NA_QXFER_ACK becomes QXFER_ACK (0x15); IN_SWITCH set, the rest
 * kept.
 *
 * @return 0, or -EINVAL for an NA_QFWD without a request type (0x01-0x05)
 *         in its payload or without a forward index in aux, or any other
 *         message type.
 */
int na_qplan_home_as_switch(const struct lcf_msg *m, const void *payload,
			    struct lcf_msg *copy);

#endif /* NA_QPLAN_H */
