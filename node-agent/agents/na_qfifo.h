/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The queue holder's wait queue of one block (docs/QUEUED-LOCKS.md section
 * 5; GCS, paper 002, 4.2): the requests the switch forwarded to this
 * node's tenure, the count of distinct forward indices received (what
 * QXFER/QRELEASE carry), the order in which they are granted, and the
 * queue's wire form in Q_GRANT. Pure: entries in, decisions out; no
 * sockets, no clock. The order is pluggable: FIFO (by forward index) or
 * priority (a class per request, lower first, FIFO within a class).
 *
 * Entries handed over with a Q_GRANT come before every entry forwarded
 * to this tenure (they were all forwarded before the transfer was
 * approved); a request is queued once (requester, seq), wherever its
 * copies came from.
 */
#ifndef NA_QFIFO_H
#define NA_QFIFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define NA_QFIFO_MAX     64   /* entries; one per waiting requester thread */
#define NA_QFIFO_INDICES 1024 /* forward indices tracked per tenure */
#define NA_QENTRY_WIRE   16   /* bytes of one entry in Q_GRANT (NA_QG_ENTRY) */

enum na_qorder {
	NA_QORDER_FIFO = 0,
	NA_QORDER_PRIORITY,
};

/* One waiting request. */
struct na_qentry {
	uint16_t node;
	uint16_t thread;
	uint32_t seq;
	uint8_t type;   /* its request type (0x01-0x05) */
	uint8_t cls;    /* priority class, lower first (NA_QORDER_PRIORITY) */
	uint8_t phase;  /* 0 handed over with the queue, 1 forwarded here */
	uint32_t index; /* its place: position in the granted queue, or the
			 * forward index of the copy that queued it */
};

/* What na_qfifo_forward() did with a forwarded copy. */
enum na_qfwd {
	NA_QFWD_QUEUED = 0, /* a new entry; its index counted */
	NA_QFWD_DUP_REQ,    /* its index counted, the request already queued
			     * (or it is the holder's own): nothing added */
	NA_QFWD_DUP_INDEX,  /* that index was received already: ignored */
	NA_QFWD_FULL,       /* no room: its index counted, not queued (the
			     * requester retransmits) */
};

struct na_qfifo {
	enum na_qorder order;
	uint16_t self_node, self_thread; /* the tenure: the holder event */
	uint32_t self_seq;
	uint32_t n;
	struct na_qentry e[NA_QFIFO_MAX]; /* in grant order */
	uint32_t received; /* distinct indices received, plus declared lost */
	uint64_t seen[NA_QFIFO_INDICES / 64]; /* index i+1 -> bit i */
};

/** An empty queue for the tenure of event (node, thread, seq). */
static inline void
na_qfifo_init(struct na_qfifo *q, enum na_qorder order, uint16_t node,
	      uint16_t thread, uint32_t seq)
{
	memset(q, 0, sizeof(*q));
	q->order = order;
	q->self_node = node;
	q->self_thread = thread;
	q->self_seq = seq;
}

/**
 * A copy the switch forwarded to this tenure, with forward index `index`
 * (the aux low half, >= 1).
 *
 * @return what was done (enum na_qfwd); -EINVAL when `index` is 0.
 */
int na_qfifo_forward(struct na_qfifo *q, const struct na_qentry *e,
		     uint32_t index);

/** The count for QXFER / QRELEASE. */
static inline uint32_t
na_qfifo_count(const struct na_qfifo *q)
{
	return q->received;
}

/**
 * The indices 1..`upto` received (declared lost included). `upto` past
 * the bitmap: na_qfifo_count().
 */
uint32_t na_qfifo_count_upto(const struct na_qfifo *q, uint32_t upto);

/** The indices past `after` received (in the bitmap; 0 past it). */
uint32_t na_qfifo_count_past(const struct na_qfifo *q, uint32_t after);

/**
 * The switch reported FWD_CNT = `fwd_cnt` and no forward of this tenure
 * is in flight any more (the forward delay bound): the missing indices are
 * lost (their requesters retransmit). The count becomes `fwd_cnt` when it
 * was lower, and indices 1..fwd_cnt count as received (a copy arriving
 * after all is NA_QFWD_DUP_INDEX).
 */
void na_qfifo_declare_lost(struct na_qfifo *q, uint32_t fwd_cnt);

/** The entry to grant next, or NULL when the queue is empty. */
static inline const struct na_qentry *
na_qfifo_head(const struct na_qfifo *q)
{
	return q->n ? &q->e[0] : NULL;
}

/**
 * Take request (node, thread, seq) out of the queue; its index stays
 * counted (the holder answered it otherwise).
 *
 * @return 0, or -ENOENT when it is not queued.
 */
int na_qfifo_remove(struct na_qfifo *q, uint16_t node, uint16_t thread,
		    uint32_t seq);

/**
 * The queue without `next` (the request handed the lock; the head, unless
 * an entry came before it since it was chosen), in Q_GRANT's wire form
 * (NA_QENTRY_WIRE bytes per entry, big-endian: node u16, thread u16, seq
 * u32, type u8, class u8, 0 u16, index u32; encoded by na_qgrant.h).
 *
 * @return bytes written, or -ENOSPC when `cap` is too small.
 */
int na_qfifo_export_rest(const struct na_qfifo *q, const struct na_qentry *next,
			 uint8_t *buf, size_t cap);

/**
 * The granted queue (Q_GRANT's payload, `len` bytes) becomes this queue's
 * front, in its order; an entry already queued here (a retransmission
 * forwarded to this tenure) keeps the granted place only.
 *
 * @return entries taken, or -EINVAL when `len` is not a multiple of
 *         NA_QENTRY_WIRE or a pad field is not 0, -ENOSPC when they do not
 *         fit (nothing changed).
 */
int na_qfifo_import_granted(struct na_qfifo *q, const uint8_t *buf, size_t len);

#endif /* NA_QFIFO_H */
