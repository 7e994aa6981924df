/* SPDX-License-Identifier: BSD-3-Clause
 *
 * A node's queue holders (docs/QUEUED-LOCKS.md section 5): one
 * `struct na_qholder` per block the node has an event on or holds the
 * queue of, found by tag, and the translation between the wire and
 * na_qholder's inputs and actions. In: the switch's forward-to-holder
 * copies (IN_SWITCH, `aux` low half non-zero), QXFER_ACK, Q_GRANT,
 * Q_GRANT_ACK, the requester's calls (request, granted, cancel, done) and
 * a timer tick. Out: messages (struct na_out: Q_QUEUED, Q_NACK, QXFER,
 * QRELEASE, Q_GRANT, Q_GRANT_ACK) and deliveries to the node's requester
 * threads (struct na_qlocals: the Q_GRANT that answers a request, and an
 * UNLOCK_ACK when a holder's QXFER/QRELEASE was approved, which ends its
 * event as the switch's UNLOCK_ACK ends an unlock). Pure: no sockets,
 * threads or clocks; the node runs it in the agents' section.
 *
 * Limits: NA_QT_SLOTS (block, thread) pairs per node at a time (a request
 * finding no free slot runs in retry mode: -ENOSPC).
 */
#ifndef NA_QTABLE_H
#define NA_QTABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "na_out.h"
#include "na_qholder.h"

#define NA_QT_SLOTS     256
#define NA_QT_LOCAL_MAX 16

/* A message for requester thread `thread` of this node. */
struct na_qlocal {
	uint16_t thread;
	struct lcf_msg m;
};

struct na_qlocals {
	uint32_t n;
	struct na_qlocal l[NA_QT_LOCAL_MAX];
};

#define NA_QT_COUNTERS(X)                                                     \
	X(forwards)          /* forward-to-holder copies received */          \
	X(queued_sent)       /* Q_QUEUED */                                   \
	X(qnack_sent)        /* Q_NACK */                                     \
	X(qxfer_sent)        /* QXFER, retransmissions included */            \
	X(qrelease_sent)     /* QRELEASE, retransmissions included */         \
	X(qxfer_approved)    /* QXFER_ACK approved (or not_holder) */         \
	X(qxfer_denied)      /* QXFER_ACK `count` for a QXFER */              \
	X(qrelease_approved) /* QXFER_ACK approved for a QRELEASE */          \
	X(qrelease_denied)   /* QXFER_ACK `count` for a QRELEASE */           \
	X(qack_ignored)      /* QXFER_ACK for no ENDING event */              \
	X(qgrant_sent)       /* Q_GRANT, retransmissions included */          \
	X(qgrant_recv)       /* Q_GRANT received */                           \
	X(qgrant_taken)      /* ... that granted the waiting event */         \
	X(qgrant_ack_recv)   /* Q_GRANT_ACK that ended a hand-over */         \
	X(qgrant_over)       /* Q_GRANT for an event over: QRELEASE */        \
	X(qgrant_deferred)   /* ... not acknowledged: its tenure held */      \
	X(lost_declared)     /* forward indices declared lost */              \
	X(count_waits)       /* `count` denials waited out */                 \
	X(no_slot)           /* requests run without a holder (table full) */ \
	X(abandoned_waits)   /* a waiting event given up */                   \
	X(abandoned_holds)   /* a granted event given up: passed on */        \
	X(local_nacks)       /* a local thread's forward NACKed (waiting
				tenure of another local thread) */      \
	X(sw_waits)          /* QWAIT: a waiting event became the block's
				waiting writer (once per tenure) */     \
	X(sw_grants)         /* QGRANT taken (the switch's hand-over) */      \
	X(sw_ignored)        /* QWAIT/QGRANT for no waiting event */          \
	X(sw_polls)          /* polls sent for a given-up waiting writer */   \
	X(fault_resets)      /* rows freed by a recovery round or a dead
				home (na_qtable_recovered) */      \
	X(dead_dropped)      /* hand-overs to and queue entries of a dead
				node dropped (na_qtable_node_failed) */

struct na_qt_stats {
#define NA_X_FIELD(name) uint64_t name;
	NA_QT_COUNTERS(NA_X_FIELD)
#undef NA_X_FIELD
};

#define NA_QT_GONE 4 /* given-up seqs remembered per slot */

struct na_qslot {
	bool used;
	bool passing; /* passes a given-up tenure on (not na_qslot_find's) */
	bool kept;    /* its waiting event was given up, kept for the forwards
		       * that came for its tenure */
	uint8_t gone; /* bit i: gone_seq[i] was cancelled while waiting */
	uint8_t gone_next; /* the record overwritten when all are in use */
	uint32_t gone_seq[NA_QT_GONE];
	bool swait;       /* its waiting event is the switch's waiting writer
			 * (QWAIT): its grant is the switch's QGRANT */
	bool poll;        /* ... given up: the table polls for it */
	uint8_t sw_type;  /* the request type the switch made wait */
	uint64_t poll_at; /* poll: the next poll */
	uint32_t passed;  /* the last given-up seq whose grant this thread's
			   * slot, or a passing slot of its, passed on (0:
			   * none; seqs are never 0) */
	uint64_t tag;
	uint64_t last; /* time of the last use (free-slot choice) */
	struct na_qholder h;
};

struct na_qtable {
	uint16_t self;
	uint64_t rtt;
	uint16_t (*home_of)(const void *ctx, uint64_t tag);
	const void *home_ctx;
	struct na_qslot *s; /* NA_QT_SLOTS */
	uint32_t dead;      /* nodes declared dead (bit per id) */
	struct na_qt_stats st;
};

/**
 * Node `self`'s table; `rtt` (ns) sets the holders' delay bound and
 * retransmission; home_of(ctx, tag) is where QXFER/QRELEASE go (the
 * switch intercepts them on a tag hit).
 *
 * @return 0, or -ENOMEM.
 */
int na_qtable_init(struct na_qtable *qt, uint16_t self, uint64_t rtt,
		   uint16_t (*home_of)(const void *ctx, uint64_t tag),
		   const void *ctx);
void na_qtable_fini(struct na_qtable *qt);

/**
 * This node's event (thread, seq) requests block `tag`: its tenure starts
 * (forwards for it are buffered until it holds). One holder per block and
 * requester thread: calling it again for the same event (retried after a
 * NACK, still waiting or granted meanwhile) does nothing; the thread's earlier event on the block, if it still waits or
 * holds, is given up first (na_qtable_abandon).
 *
 * @return 0, -EBUSY when the thread's earlier tenure on the block is still
 *         ending (wait and call again), -ENOSPC when no slot is free.
 */
int na_qtable_request(struct na_qtable *qt, uint64_t tag, uint16_t thread,
		      uint32_t seq, uint64_t now, struct na_out *out,
		      struct na_qlocals *loc);

/**
 * The switch granted the waiting event a write lock: it holds the queue.
 *
 * @return 0, or -ESRCH when (thread, seq) is not waiting on `tag`.
 */
int na_qtable_switch_granted(struct na_qtable *qt, uint64_t tag,
			     uint16_t thread, uint32_t seq);

/** The waiting event (thread, seq) will not hold through the queue. */
void na_qtable_cancel(struct na_qtable *qt, uint64_t tag, uint16_t thread,
		      uint32_t seq);

/**
 * The requester gave event (thread, seq) up (a NACKed seq it will not
 * retry). Waiting: cancelled and remembered (its Q_GRANT may still come),
 * unless forwards came for its tenure: then kept, and its settling unlock
 * (na_qtable_done) or its Q_GRANT ends it. Holding (its Q_GRANT arrived
 * while the requester was backing off): the event ends as a no-op,
 * QXFER/QRELEASE with the metadata the grant carried, so the lock is
 * passed on.
 */
void na_qtable_abandon(struct na_qtable *qt, uint64_t tag, uint16_t thread,
		       uint32_t seq, uint64_t now, struct na_out *out,
		       struct na_qlocals *loc);

/**
 * The holding event (thread, seq) is done with metadata (gs, cs): QRELEASE
 * or QXFER instead of its unlock; an UNLOCK_ACK follows in `loc` when the
 * switch approved it. A waiting event that received forwards holds (a copy
 * of it took the write lock) and ends the same way, in its passing slot
 * when it was given up and the forwards went there.
 *
 * @return 0, or -ESRCH when the event does not hold `tag`'s queue (the
 *         caller sends its unlock).
 */
int na_qtable_done(struct na_qtable *qt, uint64_t tag, uint16_t thread,
		   uint32_t seq, uint8_t gs, uint32_t cs, uint64_t now,
		   struct na_out *out, struct na_qlocals *loc);

/**
 * A received forward-to-holder copy, QXFER_ACK, Q_GRANT (`payload`, m->len
 * bytes) or Q_GRANT_ACK. A Q_GRANT for an event the requester gave up
 * (one of the last NA_QT_GONE cancelled on its slot, or the kept one) is
 * taken and passed on at once (QXFER/QRELEASE with the grant's metadata),
 * by a passing slot of its own while the thread's slot serves its next
 * event, so the lock is not stranded; forwards for that tenure before the
 * Q_GRANT are buffered in the passing slot. A Q_GRANT for an event that
 * is over is taken and ended by QRELEASE (na_qslot_take_over).
 *
 * @return 0, or -EINVAL when `m` is none of them (nothing done).
 */
int na_qtable_handle(struct na_qtable *qt, const struct lcf_msg *m,
		     const void *payload, uint64_t now, struct na_out *out,
		     struct na_qlocals *loc);

/**
 * Does the table end event (thread, seq)'s tenure on `tag` itself, so
 * that the requester has no lock of that seq to settle (na_req_quarantine,
 * docs/QUEUED-LOCKS.md 5 "The waiting writer at the node")? True when the
 * thread's slot or a passing slot of it is the switch's waiting writer for
 * that seq (a QWAIT came: waiting, kept or polled), or was granted it (a
 * Q_GRANT or QGRANT: holding or ending it), or when the slot passed a
 * grant of that given-up seq on (its last such seq, `passed`). A slot that
 * only waits for the seq, forwards or not, does not count: a copy of the
 * event may hold the switch's write lock, which only the ABORT's answer
 * tells. Pure, read only; no error returns.
 */
bool na_qtable_holds(const struct na_qtable *qt, uint64_t tag, uint16_t thread,
		     uint32_t seq);

/**
 * A recovery round rebuilt blocks `tags` (`n`) without locks (docs/FAULTS.md
 * 1): every row of theirs (waiting, kept, holding, ending, giving, passing)
 * is of a tenure that ended with the switch's state, and nobody will serve
 * it. All are freed; an ending row's unlock is acknowledged in `loc`, as
 * an approval would (lib/model/qfault.pml). Call once no requester thread
 * of the node is inside an event on them.
 *
 * @return 0, or 1 when `loc` filled up first: deliver it and call again.
 */
int na_qtable_recovered(struct na_qtable *qt, const uint64_t *tags, uint32_t n,
			struct na_qlocals *loc);

/**
 * Node `node` was declared dead (dsm_node_failed): the rows of blocks it is
 * home of are freed as by na_qtable_recovered; a row handing its tenure to
 * one of its events ends (IDLE); its entries leave every queue and, from
 * now on, every queue they would enter (forwards, a Q_GRANT's queue) and
 * no approval hands a tenure to it.
 *
 * @return 0, 1 as na_qtable_recovered, or -EINVAL (no such node, or this
 *         node).
 */
int na_qtable_node_failed(struct na_qtable *qt, uint16_t node,
			  struct na_qlocals *loc);

/**
 * Node `node`'s new incarnation was re-admitted (dsm_node_rejoined): its
 * events are queued and handed to again. Kept dead, a hand-over the
 * switch approved to its event ended in no Q_GRANT, and every later
 * request on the block went to that event for ever (lib/model/qrejoin.pml).
 */
void na_qtable_node_rejoined(struct na_qtable *qt, uint16_t node);

/** Run the holders' timers due at `now`. */
void na_qtable_tick(struct na_qtable *qt, uint64_t now, struct na_out *out,
		    struct na_qlocals *loc);

/** Is `m` a copy the switch forwarded to a queue holder? */
static inline bool
na_qtable_is_forward(const struct lcf_msg *m)
{
	return m->type >= LCF_T_READ_MISS && m->type <= LCF_T_EVICT_MODIFIED &&
	       (m->flags & LCF_F_IN_SWITCH) && (m->aux & 0xffff) != 0;
}

#endif /* NA_QTABLE_H */
