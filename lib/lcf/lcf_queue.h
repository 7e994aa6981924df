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

/**
 * A coherence request's pass, after SCOREBOARD, queued mode only.
 * `grant`: this pass took a write lock and counted it (check passed, event
 * not over): QSTATE = {id, 0}. `busy`: the lock was not taken and the event
 * holds none: when a holder exists (and is not closing, and FWD_CNT is not
 * saturated) FWD_CNT += 1 and the copy goes to the holder.
 *
 * @return true with `*to` (the holder's node) and `*aux` (the forwarded
 *         copy's aux) set when the request is forwarded; false otherwise.
 */
bool lcf_q_request(struct lcf_pipeline *p, uint32_t way, uint32_t slot,
		   uint32_t id, bool grant, bool busy, uint16_t *to,
		   uint32_t *aux);

/**
 * QXFER (one pass): approved when QHOLDER is `id`, not CLOSING, `next` is a
 * valid id and FWD_CNT equals `count`: QSTATE = {next, 0}.
 *
 * @return the reason (LCF_Q_OK when approved); `*fwd_cnt` = FWD_CNT as
 *         found.
 */
enum lcf_q_reason lcf_q_xfer(struct lcf_pipeline *p, uint32_t way,
			     uint32_t slot, uint32_t id, uint32_t count,
			     uint32_t next, uint32_t *fwd_cnt);

/**
 * QRELEASE, first pass: approved when QHOLDER is `id` and FWD_CNT equals
 * `count` or is CLOSING (a retransmission after a lost second pass):
 * QSTATE = {id, CLOSING}.
 *
 * @return the reason; `*fwd_cnt` = FWD_CNT as found.
 */
enum lcf_q_reason lcf_q_release1(struct lcf_pipeline *p, uint32_t way,
				 uint32_t slot, uint32_t id, uint32_t count,
				 uint32_t *fwd_cnt);

/** QRELEASE, second pass: QSTATE = {0, 0} when it is {id, CLOSING}. In
 * retry mode (no QSTATE; only forged metadata gets here) nothing. */
void lcf_q_release2(struct lcf_pipeline *p, uint32_t way, uint32_t slot,
		    uint32_t id);

/**
 * QXFER's LAST-UNLOCK stage: the holder's event ends here (later copies of
 * its request are stale): {seq, closed} when seq is after LAST-UNLOCK[r],
 * or equal to it and open.
 */
void lcf_q_lu_end(struct lcf_pipeline *p, uint32_t req, uint32_t seq);

/**
 * QXFER or QRELEASE (`m`), tag hit, first pass: lcf_q_xfer() or
 * lcf_q_release1() with the id and count the header carries; in retry mode
 * (no QSTATE) every one is denied as not the holder.
 *
 * @return true when QRELEASE was approved (resubmit for its second pass);
 *         otherwise `*why` and `*fwd_cnt` are the QXFER_ACK's.
 */
bool lcf_q_first_pass(struct lcf_pipeline *p, const struct lcf_msg *m,
		      uint32_t way, uint32_t slot, enum lcf_q_reason *why,
		      uint32_t *fwd_cnt);

/** Turn header `m` (a QXFER or QRELEASE) into its QXFER_ACK: type, flags
 * (IN_SWITCH, FAIL unless approved) and aux. */
void lcf_q_ack(struct lcf_msg *m, enum lcf_q_reason why, uint32_t fwd_cnt);

/** Clear QSTATE of one slot (control plane: eviction). */
void lcf_q_clear(struct lcf_pipeline *p, uint32_t way, uint32_t slot);

#endif /* LCF_QUEUE_H */
