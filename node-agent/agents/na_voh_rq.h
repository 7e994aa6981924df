/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The ReadQueue / UpdateQueue state machine of one block (paper 003,
 * section 3.1 and Table 1): multiple readers or one updater, writers
 * preferred. A pure transition function: a message and the requester it
 * comes from in, the PROCEED messages to send out; no sockets, no locks,
 * no clock. docs/VALIDATE.md "Home".
 *
 * RQ holds the requesters currently reading (READ_PROCEED sent). UQ, when
 * not empty, holds the update at its head and the reads that arrived after
 * it; the update proceeds once RQ is empty, and its UPDATE_DONE releases
 * the reads queued behind it into RQ. The paper's home has one update
 * thread, so an UPDATE_REQUEST with UQ not empty is an error row of
 * Table 1: the caller (na_voh_home.c) keeps further updaters waiting
 * outside and offers the next one when UQ empties.
 */
#ifndef NA_VOH_RQ_H
#define NA_VOH_RQ_H

#include <stdbool.h>
#include <stdint.h>

enum na_rq_msg {
	NA_RQ_READ_REQUEST = 0,
	NA_RQ_READ_DONE,
	NA_RQ_UPDATE_REQUEST,
	NA_RQ_UPDATE_DONE,
	NA_RQ_N_MSG
};

enum na_rq_act_kind {
	NA_RQ_READ_PROCEED = 1,
	NA_RQ_UPDATE_PROCEED,
};

struct na_rq_action {
	uint8_t kind; /* enum na_rq_act_kind */
	uint32_t who; /* requester id */
};

struct na_rq {
	uint32_t *rq; /* ReadQueue (order irrelevant) */
	uint32_t n_rq, cap_rq;
	uint32_t *uq; /* UpdateQueue: uq[0] the update, then reads */
	uint32_t n_uq, cap_uq;
};

/** An empty pair of queues (no allocation until the first entry). */
static inline void
na_rq_init(struct na_rq *q)
{
	q->rq = q->uq = 0;
	q->n_rq = q->cap_rq = q->n_uq = q->cap_uq = 0;
}

void na_rq_fini(struct na_rq *q);

static inline bool
na_rq_idle(const struct na_rq *q)
{
	return q->n_rq == 0 && q->n_uq == 0;
}

/** True when requester `who` is in the ReadQueue. */
bool na_rq_reading(const struct na_rq *q, uint32_t who);

/**
 * Apply Table 1's row for (msg, RQ empty?, UQ empty?) to a message from
 * requester `who`. The PROCEED messages to send are written to `act`
 * (room for `cap`; at most q->n_uq + 1 are ever needed) and counted in *n.
 * An error row changes nothing.
 * @return 0; -EPROTO for an error row of Table 1 ("erroneous state, not
 * possible"); -ENOENT when a READ_DONE's requester is not in RQ or an
 * UPDATE_DONE's is not the head of UQ (a duplicate); -ENOSPC when `act`
 * is too small; -ENOMEM.
 */
int na_rq_step(struct na_rq *q, enum na_rq_msg msg, uint32_t who,
	       struct na_rq_action *act, uint32_t cap, uint32_t *n);

/**
 * Requester `who` is gone (its node failed): it leaves RQ as on its
 * READ_DONE, a read of it queued in UQ is dropped, and its update at UQ's
 * head, granted or not, leaves as on its UPDATE_DONE (the reads behind it
 * proceed). The PROCEEDs this releases are written to `act` as by
 * na_rq_step. @return 0 (also when `who` had no entry), -ENOSPC, -ENOMEM
 * (lib/model/vohcrash.pml).
 */
int na_rq_cancel(struct na_rq *q, uint32_t who, struct na_rq_action *act,
		 uint32_t cap, uint32_t *n);

#endif /* NA_VOH_RQ_H */
