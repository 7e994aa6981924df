/* SPDX-License-Identifier: BSD-3-Clause
 *
 * A node's queue-holder slots (na_qtable.h, docs/QUEUED-LOCKS.md 5):
 * finding and making them, the wire side of a holder's actions and the
 * passing slots (na_qslot.c); the switch's waiting writer (na_qwait.c).
 * Internal to na_qtable; pure (no sockets, threads or clocks).
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
static inline struct na_qslot *
na_qslot_find(struct na_qtable *qt, uint64_t tag, uint16_t thread)
{
	for (uint32_t i = 0; i < NA_QT_SLOTS; i++)
		if (qt->s[i].used && !qt->s[i].passing && qt->s[i].tag == tag &&
		    qt->s[i].h.thread == thread)
			return &qt->s[i];
	return NULL;
}

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

/* ---- na_qreset.c ---- */

/** Slot `s` acted (`a`, not emitted yet): when nodes were declared dead,
 * its hand-over to one ends (its Q_GRANT dropped from `a`) and their
 * entries leave its queue (na_qtable_node_failed). */
void na_qslot_settle_dead(struct na_qtable *qt, struct na_qslot *s,
			  struct na_qacts *a);

/* ---- given-up seqs and passing slots (na_qslot.c; lookups inline) ---- */

/** The record of seq `seq` given up on slot `s`. @return its index, or -1. */
static inline int
na_qslot_gone_find(const struct na_qslot *s, uint32_t seq)
{
	for (int i = 0; i < NA_QT_GONE; i++)
		if ((s->gone >> i & 1) && s->gone_seq[i] == seq)
			return i;
	return -1;
}

/** Forget the record of seq `seq` on slot `s` (if any). */
static inline void
na_qslot_gone_del(struct na_qslot *s, uint32_t seq)
{
	int i = na_qslot_gone_find(s, seq);

	if (i >= 0)
		s->gone &= (uint8_t) ~(1u << i);
}

/** Slot `s`'s waiting event (thread, seq) is cancelled: IDLE, and the seq
 * recorded as given up (the oldest record overwritten when all are in
 * use); nothing when it is not the waiting event. */
void na_qslot_cancel(struct na_qslot *s, uint16_t thread, uint32_t seq);

/** Thread `thread`'s passing slot on `tag` for event `seq`, not idle.
 * @return the slot, or NULL. */
static inline struct na_qslot *
na_qslot_passing(struct na_qtable *qt, uint64_t tag, uint16_t thread,
		 uint32_t seq)
{
	for (uint32_t i = 0; i < NA_QT_SLOTS; i++) {
		struct na_qslot *p = &qt->s[i];

		if (p->used && p->passing && p->tag == tag &&
		    p->h.thread == thread && p->h.seq == seq &&
		    p->h.st != NA_QH_IDLE)
			return p;
	}
	return NULL;
}

/** A passing slot (WAIT) for the event `seq` given up on slot `s`.
 * @return the slot, or NULL when none is free (counted `no_slot`). */
struct na_qslot *na_qslot_new_passing(struct na_qtable *qt, struct na_qslot *s,
				      uint32_t seq, uint64_t now);

/** A passing slot that went idle is free again. */
static inline void
na_qslot_free_passing(struct na_qslot *p)
{
	if (p->passing && p->h.st == NA_QH_IDLE) {
		p->used = false;
		p->passing = false;
	}
}

/**
 * Grant `m` (a Q_GRANT with `payload`, or a QGRANT) for slot `p`'s
 * waiting event, which was given up: taken for nobody, and the tenure
 * ends at once with the grant's metadata (QXFER to the head or
 * QRELEASE); a Q_GRANT_ACK to the giver only when `ack`. The seq is
 * recorded in the thread's slot (`passed`, na_qtable_holds).
 *
 * @return 0, or -EINVAL when `m` does not grant p's waiting event or its
 *         payload is malformed (nothing done).
 */
int na_qslot_take_end(struct na_qtable *qt, struct na_qslot *p,
		      const struct lcf_msg *m, const void *payload, bool ack,
		      uint64_t now, struct na_out *out, struct na_qlocals *loc);

/** A grant `m` for an event given up on slot `s` (m->seq): its passing
 * slot takes it and ends it at once (na_qslot_take_end). */
void na_qslot_pass_on(struct na_qtable *qt, struct na_qslot *s,
		      const struct lcf_msg *m, const void *payload, bool ack,
		      uint64_t now, struct na_out *out, struct na_qlocals *loc);

/**
 * A Q_GRANT `m` for an event of this node that waits for none (over, or
 * with no slot): the tenure may really be its (a forward that outlived
 * its tenure matched a later one by its 6-bit tag and was handed on), so a
 * passing slot takes it and ends it at once by QRELEASE with the grant's
 * metadata (`release_only`; a duplicate of a grant the event took is
 * denied not_holder and changes nothing). Not acknowledged (`m` is sent
 * again) while a slot of the thread holds, ends or gives that seq's
 * tenure, or when no slot is free.
 */
void na_qslot_take_over(struct na_qtable *qt, const struct lcf_msg *m,
			const void *payload, uint64_t now, struct na_out *out,
			struct na_qlocals *loc);

/** Slot `s`'s QRELEASE answered (a taken-over tenure, release_only, or
 * forwards queued after it was sent): Q_NACK to every other node's entry
 * of its queue (granted or forwarded), which retries at once. */
void na_qslot_nack_queue(struct na_qtable *qt, const struct na_qslot *s,
			 struct na_out *out);

/* ---- na_qwait.c: the switch's waiting writer (QWAIT, QGRANT) ---- */

/**
 * QWAIT or QGRANT `m` (docs/QUEUED-LOCKS.md 5, "The waiting writer").
 * QWAIT for the slot's waiting event: the slot is the switch's waiting
 * writer (`swait`) and the QWAIT goes to the requester thread (it polls);
 * for a seq given up on the slot: a passing slot polls for it. QGRANT for
 * the waiting event: taken as a Q_GRANT with no granted entries, without
 * Q_GRANT_ACK (the local Q_GRANT delivered with flags IN_SWITCH); for a
 * given-up event: passed on at once. Anything else is ignored
 * (`sw_ignored`).
 */
void na_qwait_handle(struct na_qtable *qt, const struct lcf_msg *m,
		     uint64_t now, struct na_out *out, struct na_qlocals *loc);

/** Slot `s`'s poll when due: a given-up waiting writer's request copy to
 * the block's home (the switch intercepts it), every qt->rtt. */
void na_qwait_poll(struct na_qtable *qt, struct na_qslot *s, uint64_t now,
		   struct na_out *out);

#endif /* NA_QSLOT_H */
