/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The queue holder's and the next holder's decisions for one block
 * (docs/QUEUED-LOCKS.md section 5; the rules as checked in
 * lib/model/qlock.pml, proctype node). One `struct na_qholder` per block
 * and node: the node's current event on the block (its tenure, QHOLDER
 * encoding), the received-index bitmap and count and the wait queue
 * (na_qfifo), forwards buffered before the Q_GRANT, what the event hands
 * over, and the retransmission timers. Pure: each function takes one input
 * (a message, the event's end, a timer tick at a time passed in) and fills
 * `struct na_qacts` with what to send; no sockets, threads or clocks.
 *
 * States (the model's st[]): IDLE, WAIT (requested; forwards of this
 * tenure are buffered), HOLD (the lock is this event's), ENDING
 * (QXFER/QRELEASE sent), GIVING (Q_GRANT sent, until Q_GRANT_ACK).
 *
 * Limits: one event per node and block at a time (the node's other
 * threads wait locally); the ids handed over are remembered for the
 * forward delay bound (NA_QH_BOUND_RTTS) in NA_QH_SEEN slots.
 */
#ifndef NA_QHOLDER_H
#define NA_QHOLDER_H

#include <stdbool.h>
#include <stdint.h>

#include "na_qfifo.h"

#define NA_QH_BOUND_RTTS 6 /* forward delay bound, retransmission timer */
/* Retransmission back-off cap (the requester's, na_req_timeout), unless the
 * bound itself is longer */
#define NA_QH_RTO_MAX_NS 200000000ull
#define NA_QH_SEEN       (2 * NA_QFIFO_MAX)
#define NA_QH_MAX_ACTS   8

enum na_qh_state {
	NA_QH_IDLE = 0,
	NA_QH_WAIT,
	NA_QH_HOLD,
	NA_QH_ENDING,
	NA_QH_GIVING,
};

enum na_qact_kind {
	NA_QA_QUEUED = 1, /* Q_QUEUED to `req`; aux = its queue position
			   * (before a Q_GRANT: among the buffered ones) */
	NA_QA_QXFER,      /* QXFER: count, next (id) */
	NA_QA_QRELEASE,   /* QRELEASE: count, gstatus, copyset */
	NA_QA_QGRANT,     /* Q_GRANT to `req` (the next holder's event):
			   * gstatus, copyset, payload (rest, rest_len bytes),
			   * aux = na_qg_aux(node, entries) */
	NA_QA_QGRANT_ACK, /* Q_GRANT_ACK to node `dst` for event `req` */
	NA_QA_QNACK,      /* Q_NACK to `req` (a forward after its tenure) */
	NA_QA_WAIT,       /* wait for missing indices until `deadline` */
	NA_QA_LOST,       /* indices first .. first + n - 1 declared lost
			   * (runs; the last run may span received ones
			   * when they outnumber the actions) */
	NA_QA_GRANTED,    /* Q_GRANT taken: the lock is the event's, run its
			   * request against gstatus, copyset */
	NA_QA_OVER,       /* the tenure ended (approved); state IDLE */
};

struct na_qact {
	enum na_qact_kind kind;
	struct na_qentry req; /* the requester / the event it is about */
	uint16_t dst;         /* QGRANT_ACK: the giver */
	uint32_t count;       /* QXFER, QRELEASE */
	uint32_t next;        /* QXFER: the next holder's id */
	uint32_t aux;         /* QUEUED: position; QGRANT: na_qg_aux() */
	uint8_t gstatus;      /* QRELEASE, QGRANT, GRANTED */
	uint32_t copyset;
	uint64_t deadline;      /* WAIT */
	uint32_t first, n;      /* LOST */
	const uint8_t *payload; /* QGRANT: valid until the next call */
	uint32_t payload_len;
};

struct na_qacts {
	uint32_t n;
	struct na_qact a[NA_QH_MAX_ACTS];
};

struct na_qh_seen {
	uint16_t node, thread;
	uint32_t seq;
	uint64_t until; /* 0: free */
};

struct na_qholder {
	enum na_qh_state st;
	enum na_qorder order;
	uint16_t node; /* this node */
	uint16_t thread;
	uint32_t seq; /* the current event */
	uint32_t id;  /* its id (lcf_q_id), the tenure */
	uint64_t rtt; /* time units of now */
	struct na_qfifo q;
	uint8_t gstatus; /* what the unlock carries / the grant carried */
	uint32_t copyset;
	uint32_t count; /* the count last sent */
	uint32_t next;  /* the id handed over to, 0 for QRELEASE */
	struct na_qentry next_e;
	uint8_t rest[NA_QFIFO_MAX * NA_QENTRY_WIRE]; /* the queue handed over */
	uint32_t rest_len;
	bool count_wait;  /* denied `count`: waiting for fwd_cnt */
	uint32_t fwd_cnt; /* FWD_CNT of the last denial */
	/* A `count` denial came (capped): the count leaves out `suspects`,
	 * the indices past fwd_max (the highest FWD_CNT one reported) that
	 * had come when that denial came. The end sent (next, next_e) is
	 * kept (pinned) until a denial's FWD_CNT passes sent_max, the
	 * highest count sent: till then an earlier end may be approved. */
	bool capped;
	uint32_t fwd_max;
	uint32_t suspects;
	bool pinned;
	uint32_t sent_max;
	uint64_t deadline; /* count_wait: declare the missing lost */
	uint64_t retx_at;  /* ENDING/GIVING: retransmit */
	uint64_t rto;      /* current retransmission interval (doubling) */
	bool release_only; /* a tenure handed to an event that was over:
			    * ended by QRELEASE whatever its queue */
	struct na_qh_seen seen[NA_QH_SEEN]; /* ids queued or handed over */
};

/** Per block and node: no event, order `order`, `rtt` in units of now. */
void na_qholder_init(struct na_qholder *h, enum na_qorder order, uint16_t node,
		     uint64_t rtt);

/**
 * This node's event (thread, seq) requests the block (WAIT): its tenure
 * starts; forwards for it are buffered until the lock is granted.
 *
 * @return 0, or -EBUSY when another event of the node is not IDLE.
 */
int na_qholder_request(struct na_qholder *h, uint16_t thread, uint32_t seq);

/**
 * The waiting event (thread, seq) will not hold the lock through this
 * holder (the home answered it, the switch granted a read lock, or the
 * requester gave the seq up): IDLE, its buffered forwards dropped.
 *
 * @return 0, or -EINVAL when (thread, seq) is not the waiting event.
 */
int na_qholder_cancel(struct na_qholder *h, uint16_t thread, uint32_t seq);

/**
 * The switch granted the event's request itself (it took the lock and
 * is QHOLDER with FWD_CNT 0): HOLD.
 *
 * @return 0, or -EINVAL when (thread, seq) is not the waiting event.
 */
int na_qholder_switch_granted(struct na_qholder *h, uint16_t thread,
			      uint32_t seq);

/**
 * A copy the switch forwarded to this node (`aux` = tenure << 16 | index):
 * counted once per index and queued once per request when it is for the
 * current tenure (Q_QUEUED once per request); else ignored when it is a
 * request it queued or handed over (or its own), Q_NACK otherwise.
 *
 * @return 0, or -EINVAL when the index is 0 (not a forward to a holder).
 */
int na_qholder_forward(struct na_qholder *h, const struct na_qentry *req,
		       uint32_t aux, uint64_t now, struct na_qacts *out);

/**
 * The event is done (where it would unlock) with metadata (gstatus,
 * copyset): QRELEASE with the count when the queue is empty, else QXFER
 * with the count and the head's id.
 *
 * @return 0, or -EINVAL when the state is not HOLD.
 */
int na_qholder_done(struct na_qholder *h, uint8_t gstatus, uint32_t copyset,
		    uint64_t now, struct na_qacts *out);

/**
 * QXFER_ACK for event seq: reason (enum lcf_q_reason) and the switch's
 * FWD_CNT. Approved or `not_holder`: Q_GRANT to the next holder the
 * end named (GIVING) or the tenure is over; the end (QRELEASE, or QXFER
 * and its next) is kept from its first send until a `count` denial's
 * FWD_CNT passes every count sent (no earlier end can be approved then);
 * `count`: from then on the count leaves out the indices past FWD_CNT that
 * had come (an older tenure's copies); resend when it reaches FWD_CNT,
 * else wait (NA_QA_WAIT) until the bound; a denial whose FWD_CNT is below
 * an earlier one's (a late or duplicated answer to an earlier send) is
 * ignored.
 * `waiting` (a switch tenure whose readers hold; not sent by a correct
 * holder): as a `count` denial with nothing missing, resent at the bound.
 *
 * @return 0, -ESRCH when it is not for the ENDING event (ignored),
 *         -EPROTO on `closing`/`bad_next` (a wrong holder: state kept).
 */
int na_qholder_qack(struct na_qholder *h, uint32_t seq, uint8_t reason,
		    uint32_t fwd_cnt, uint64_t now, struct na_qacts *out);

/**
 * Q_GRANT from node `giver` for this node's event (thread, seq): the
 * granted queue (`buf`, `len` bytes) goes before the buffered forwards
 * (buffered copies of granted entries dropped); GRANTED and Q_GRANT_ACK.
 * Not for the waiting event (a duplicate): Q_GRANT_ACK only.
 *
 * @return 0, or -EINVAL / -ENOSPC from the payload (nothing changed,
 *         not acknowledged).
 */
int na_qholder_qgrant(struct na_qholder *h, uint16_t giver, uint16_t thread,
		      uint32_t seq, uint8_t gstatus, uint32_t copyset,
		      const uint8_t *buf, uint32_t len, uint64_t now,
		      struct na_qacts *out);

/**
 * Q_GRANT_ACK from the next holder's event (node, thread, seq): the
 * tenure is over (IDLE).
 *
 * @return 0, or -ESRCH when it is not for the Q_GRANT being given.
 */
int na_qholder_qgrant_ack(struct na_qholder *h, uint16_t node, uint16_t thread,
			  uint32_t seq, uint64_t now, struct na_qacts *out);

/**
 * Time is `now`: declare missing indices lost and resend at the bound;
 * retransmit QXFER/QRELEASE or Q_GRANT when their timer expired.
 *
 * @return 0.
 */
int na_qholder_tick(struct na_qholder *h, uint64_t now, struct na_qacts *out);

/**
 * When na_qholder_tick() next has something to do: the count wait's
 * deadline, or the QXFER/QRELEASE or Q_GRANT retransmission.
 *
 * @return that time, or UINT64_MAX when no timer runs.
 */
uint64_t na_qholder_next_timer(const struct na_qholder *h);

#endif /* NA_QHOLDER_H */
