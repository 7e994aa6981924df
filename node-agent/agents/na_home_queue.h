/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Queued locks at the home agent (docs/QUEUED-LOCKS.md section 11): the
 * switch's QSTATE = {QHOLDER, FWD_CNT | CLOSING} kept per home-owned block
 * by its home, with the switch's rules (sections 2-4; lib/lcf/lcf_queue.c,
 * lib/model/qlock.pml). The first part is pure per-block state
 * transitions; the second turns them into the home's messages (NA_QFWD,
 * NA_QXFER_ACK) and is called by na_home.c. No sockets, threads, clocks.
 */
#ifndef NA_HOME_QUEUE_H
#define NA_HOME_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include "lcf_qlock.h"
#include "lcf_wire.h"

struct topo;
struct na_home;
struct na_hblock;
struct na_hreq;
struct na_out;

/*
 * QSTATE of one block: {QHOLDER, FWD_CNT | CLOSING}, initially {0, 0}, and
 * the holding event's full seq. The id keeps 16 bits of the seq; QXFER and
 * QRELEASE are matched on the full seq too, so a delayed copy from a tenure
 * 65,536 seqs older is not its requester's current tenure (issue 28 item 2
 * at the home).
 */
struct na_hqs {
	uint32_t holder; /* lcf_q_id() of the holding event, 0: no queue */
	uint32_t fwd;    /* bits 0-15 forwards, bit 31 LCF_Q_CLOSING */
	uint32_t seq;    /* the holding event's seq (all 32 bits) */
};

/* What the topology says (na_hq_cfg_init()). */
struct na_hq_cfg {
	bool queued;        /* switch.lock_mode "queued" */
	uint32_t node_mask; /* bit n: node n exists */
	uint16_t tpn;       /* threads per node */
};

/** The queued-lock configuration of topology `t`. */
void na_hq_cfg_init(struct na_hq_cfg *c, const struct topo *t);

/**
 * A write lock was taken and counted (the check passed): a new tenure,
 * QSTATE = {id, 0}. Nothing in retry mode.
 */
void na_hq_granted(const struct na_hq_cfg *c, struct na_hqs *q, uint32_t id,
		   uint32_t seq);

/**
 * A request met a busy lock (`writer`: the write lock is held). Forwarded
 * when queued, the write lock is held, there is a holder, not CLOSING and
 * FWD_CNT below 0xffff: FWD_CNT += 1.
 *
 * @return true with `*to` (the holder's node) and `*aux` (tenure << 16 |
 *         index) set when forwarded; false: NACK as in retry mode.
 */
bool na_hq_busy(const struct na_hq_cfg *c, struct na_hqs *q, bool writer,
		uint16_t *to, uint32_t *aux);

/**
 * QXFER of event `id` (seq `seq`) with `count` forwards received and `next`
 * holder (whose event's full seq is `next_seq`). Approved when queued, the
 * event holds (na_hq_holds()), not CLOSING, `next` names a node and thread
 * of the topology and FWD_CNT == count: QSTATE = {next, 0}.
 *
 * @return the reason (LCF_Q_OK when approved: LCF_Q_NOT_HOLDER in retry
 *         mode or when id does not hold, LCF_Q_IS_CLOSING, LCF_Q_BAD_NEXT,
 *         LCF_Q_COUNT); `*fwd_cnt` = FWD_CNT as found.
 */
enum lcf_q_reason na_hq_xfer(const struct na_hq_cfg *c, struct na_hqs *q,
			     uint32_t id, uint32_t seq, uint32_t count,
			     uint32_t next, uint32_t next_seq,
			     uint32_t *fwd_cnt);

/**
 * QRELEASE, first step: approved when queued, the event (id, seq) holds and
 * FWD_CNT == count or CLOSING: QSTATE = {id, CLOSING}.
 *
 * @return the reason (LCF_Q_OK, LCF_Q_NOT_HOLDER, LCF_Q_COUNT);
 *         `*fwd_cnt` = FWD_CNT as found.
 */
enum lcf_q_reason na_hq_release1(const struct na_hq_cfg *c, struct na_hqs *q,
				 uint32_t id, uint32_t seq, uint32_t count,
				 uint32_t *fwd_cnt);

/**
 * QRELEASE, second step: QSTATE = {0, 0} when it is {id, CLOSING} and the
 * event (id, seq) holds.
 *
 * @return true when it was (the release executes), false otherwise.
 */
bool na_hq_release2(struct na_hqs *q, uint32_t id, uint32_t seq);

/** The write lock was released otherwise (WRITE_UNLOCK, a recovery):
 * QSTATE = {0, 0}. */
static inline void
na_hq_clear(struct na_hqs *q)
{
	q->holder = 0;
	q->fwd = 0;
	q->seq = 0;
}

/** Does event `id` with seq `seq` hold the queue (and so the write lock)? */
static inline bool
na_hq_holds(const struct na_hqs *q, uint32_t id, uint32_t seq)
{
	return q->holder != 0 && q->holder == id && q->seq == seq;
}

/**
 * The full seq of the event named by id `id` (16 bits of seq) whose
 * requester's last request forwarded here had seq `last`: the latest seq
 * not after `last` with id's 16 bits. Exact while that event is among its
 * requester's 65,536 seqs up to `last` (a queued request is not older than
 * its requester's later forwards by that much: one request at a time per
 * thread, a given-up one in a passing slot for the delay bound).
 */
static inline uint32_t
na_hq_seq_of(uint32_t id, uint32_t last)
{
	return last - ((last - id) & 0xffffu);
}

/** Is the queue held by an event of node `node`? */
static inline bool
na_hq_held_by(const struct na_hqs *q, uint16_t node)
{
	return q->holder != 0 && lcf_q_id_node(q->holder) == node;
}

/* ---- the home's messages (na_home.c) ------------------------------------ */

/**
 * A request (m, IN_SWITCH clear) met block `b`'s busy lock: when
 * na_hq_busy() forwards it, push NA_QFWD to the holder and count it.
 *
 * @return true when forwarded (nothing else to answer), false: NACK it.
 */
bool na_home_q_busy(struct na_home *h, const struct lcf_msg *m,
		    struct na_hreq *rq, struct na_hblock *b,
		    struct na_out *out);

/** Block `b`'s write lock was taken and counted by request `m`. */
void na_home_q_granted(struct na_home *h, const struct lcf_msg *m,
		       struct na_hblock *b);

/**
 * QXFER or QRELEASE `m` of requester `rq` for block `b` (IN_SWITCH clear:
 * sent home on a tag miss): the section 11 rules, always answered with
 * NA_QXFER_ACK. Matched on QSTATE only, never on the requester's
 * LAST-EXECUTED of unlocks: a given-up event's tenure ends out of its
 * thread's unlock order (docs/MODEL.md qorder-home-old).
 */
void na_home_q_end(struct na_home *h, const struct lcf_msg *m,
		   struct na_hreq *rq, struct na_hblock *b, struct na_out *out);

#endif /* NA_HOME_QUEUE_H */
