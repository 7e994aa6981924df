/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The queued lock mode's stages (docs/QUEUED-LOCKS.md): the QSTATE register
 * of each way ({QHOLDER, FWD_CNT}, one read-modify-write per pass) and the
 * LAST-UNLOCK update of QXFER. Called by lcf_pipeline.c. Not installed.
 */
#ifndef LCF_QUEUE_H
#define LCF_QUEUE_H

#include "lcf_internal.h"
#include "lcf_qlock.h"

/* A QRELEASE this many seqs (serial order) or more before its requester's
 * SCOREBOARD seq is stale: half the seq space of the queue holder id, which
 * keeps 16 bits of the seq (PROTOCOL.md "Queued locks"). */
#define LCF_Q_STALE_DIST 0x8000u

/* What a coherence request's pass does at QSTATE (lcf_q_request()). */
enum lcf_q_verdict {
	LCF_QV_NONE = 0, /* nothing queued: the pass goes on as in retry mode */
	LCF_QV_FORWARD,  /* forwarded to the holder (`*to`, `*aux`) */
	LCF_QV_WAIT,     /* reply QWAIT: the waiting writer, readers hold */
	LCF_QV_GRANT,    /* reply QGRANT: the waiting writer, readers gone */
	LCF_QV_UNDO,     /* an aborted waiter: RELEASE pass of lock kind 2 */
};

/* A coherence request's pass as the stages before QSTATE saw it. */
struct lcf_q_in {
	uint32_t id;      /* lcf_q_id() of the request's event */
	bool grant;       /* took a write lock, check passed, not over */
	bool waiter;      /* the lock stage set WAITING for this pass */
	bool taken;       /* the lock stage took a lock (read or write) */
	bool over;        /* SCOREBOARD: the event is over */
	bool busy;        /* not taken, holds no score, not over */
	uint16_t readers; /* LOCK's READERS as the lock stage left them */
};

/**
 * A coherence request's pass at QSTATE, queued mode only: the first
 * matching row of docs/QUEUED-LOCKS.md 3.
 *  1 `grant`: QSTATE = {id, 0}; LCF_QV_NONE.
 *  2 `waiter` and `over`: QSTATE untouched; LCF_QV_UNDO.
 *  3 `waiter`: QSTATE = {id, SWITCH}; LCF_QV_WAIT.
 *  4 not `taken`, QHOLDER = id, SWITCH set, not CLOSING (the waiter's
 *    poll): QSTATE untouched; LCF_QV_WAIT while `readers`, else
 *    LCF_QV_GRANT.
 *  5 `busy`, a holder, not CLOSING, count not saturated: FWD_CNT += 1;
 *    LCF_QV_FORWARD with `*to` (the holder's node) and `*aux` (the
 *    forwarded copy's aux).
 *  6 otherwise LCF_QV_NONE.
 *
 * @return the verdict; never fails.
 */
enum lcf_q_verdict lcf_q_request(struct lcf_pipeline *p, uint32_t way,
				 uint32_t slot, const struct lcf_q_in *in,
				 uint16_t *to, uint32_t *aux);

/**
 * QXFER (one pass): approved when QHOLDER is `id`, not a SWITCH tenure
 * while LOCK (`lock`) has readers, not CLOSING, `next` is a valid id and
 * FWD_CNT's count equals `count`: QSTATE = {next, 0} (SWITCH cleared).
 *
 * @return the reason (LCF_Q_OK when approved; LCF_Q_WAITING for a waiting
 *         writer's tenure not yet granted); `*fwd_cnt` = FWD_CNT as found.
 */
enum lcf_q_reason lcf_q_xfer(struct lcf_pipeline *p, uint32_t way,
			     uint32_t slot, uint32_t id, uint32_t count,
			     uint32_t next, uint16_t lock, uint32_t *fwd_cnt);

/**
 * QRELEASE, first pass: approved when QHOLDER is `id`, not a SWITCH tenure
 * while LOCK (`lock`) has readers, and FWD_CNT's count equals `count` or
 * FWD_CNT is CLOSING (a retransmission after a lost second pass):
 * QSTATE = {id, CLOSING}.
 *
 * @return the reason (LCF_Q_OK, LCF_Q_NOT_HOLDER, LCF_Q_WAITING,
 *         LCF_Q_COUNT); `*fwd_cnt` = FWD_CNT as found.
 */
enum lcf_q_reason lcf_q_release1(struct lcf_pipeline *p, uint32_t way,
				 uint32_t slot, uint32_t id, uint32_t count,
				 uint16_t lock, uint32_t *fwd_cnt);

/**
 * QRELEASE, second pass, QSTATE stage: QSTATE = {0, 0} when it is {id,
 * CLOSING} and the gate let the pass execute (`exec`). In retry mode (no
 * QSTATE; only forged metadata gets here) nothing.
 *
 * @return true when QSTATE is left {id, CLOSING} without executing (another
 *         QRELEASE of the requester moved the gate on): the holder must
 *         send it again (reason LCF_Q_IS_CLOSING).
 */
bool lcf_q_release2(struct lcf_pipeline *p, uint32_t way, uint32_t slot,
		    uint32_t id, bool exec);

/**
 * QRELEASE's gate QGATE = {seq, epoch << 16 | open} (per requester, before
 * the lock stage). First pass: a QRELEASE of another seq (or of this one,
 * closed) opens it for its own seq under a new epoch (16 bits); a copy of
 * the same one finds it open. Any order of seqs: the gate is not
 * LAST-UNLOCK, so a given-up tenure's end, sent out of the unlock order,
 * neither skips an unlock nor is skipped.
 *
 * @return the epoch the gate is open under (the resubmit carries it).
 */
uint16_t lcf_q_gate_open(struct lcf_pipeline *p, uint32_t req, uint32_t seq);

/** QRELEASE's gate, second pass: true (and closed) when still open for
 * `seq` under `epoch`, the one its first pass saw: one execution per
 * opening, so a copy that reopens the gate after an execution (its first
 * pass denied) never lets a pending second pass of the same seq execute. */
bool lcf_q_gate_close(struct lcf_pipeline *p, uint32_t req, uint32_t seq,
		      uint16_t epoch);

/**
 * QRELEASE, tag hit, SCOREBOARD stage (read only): true when `seq` is 2^15
 * or more seqs (serial order) before the seq of the requester's SCOREBOARD
 * entry `sb_seq` of its parity. Such a copy may carry the queue holder id
 * (16 bits of the seq) of a later tenure: it is answered approved (reason
 * 0, nothing changed), without a second pass.
 */
static inline bool
lcf_q_release_stale(uint32_t sb_seq, uint32_t seq)
{
	return (int32_t)(sb_seq - seq) >= (int32_t)LCF_Q_STALE_DIST;
}

/**
 * A request the LAST-UNLOCK stage found stale (read only): true when it is
 * its block's waiting writer's poll (QHOLDER == `id`, SWITCH, not CLOSING):
 * answered QWAIT / QGRANT as row 4, whatever LAST-UNLOCK says, since a
 * given-up waiting writer's thread unlocks later seqs while it polls.
 */
bool lcf_q_stale_poll(const struct lcf_pipeline *p, uint32_t way, uint32_t slot,
		      uint32_t id);

/**
 * ABORT, tag hit, queued mode (docs/QUEUED-LOCKS.md 3): QSTATE read only.
 * True when QHOLDER is `id` (the ABORT's event) and SWITCH is set: the
 * event is its block's waiting writer (granted or not), so a copy passed
 * and the requester polls on and ends the tenure; the ABORT is answered
 * ABORT_ACK|FAIL whatever SCOREBOARD says. False in retry mode.
 */
bool lcf_q_abort_waiting(const struct lcf_pipeline *p, uint32_t way,
			 uint32_t slot, uint32_t id);

/**
 * QXFER or QRELEASE (`m`), tag hit, first pass: lcf_q_xfer() or
 * lcf_q_release1() with the id and count the header carries and the
 * block's LOCK (`lock`, read only); in retry mode
 * (no QSTATE) every one is denied as not the holder.
 *
 * @return true when QRELEASE was approved (resubmit for its second pass);
 *         otherwise `*why` and `*fwd_cnt` are the QXFER_ACK's.
 */
bool lcf_q_first_pass(struct lcf_pipeline *p, const struct lcf_msg *m,
		      uint32_t way, uint32_t slot, uint16_t lock,
		      enum lcf_q_reason *why, uint32_t *fwd_cnt);

/** Turn header `m` (a QXFER or QRELEASE) into its QXFER_ACK: type, flags
 * (IN_SWITCH, FAIL unless approved) and aux. */
void lcf_q_ack(struct lcf_msg *m, enum lcf_q_reason why, uint32_t fwd_cnt);

/**
 * Turn request header `m` into the waiting writer's reply: QWAIT (`grant`
 * false; aux carries `readers`) or QGRANT. Type, flags (IN_SWITCH) and aux
 * = original type << 24 | readers; gstatus and copyset stay as the lock
 * stage set them.
 */
void lcf_q_wait_reply(struct lcf_msg *m, bool grant, uint16_t readers);

/** Clear QSTATE of one slot (control plane: eviction). */
void lcf_q_clear(struct lcf_pipeline *p, uint32_t way, uint32_t slot);

#endif /* LCF_QUEUE_H */
