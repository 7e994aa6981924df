/* SPDX-License-Identifier: BSD-3-Clause
 *
 * ReadQueue / UpdateQueue (paper 003, Table 1). See na_voh_rq.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "na_voh_rq.h"

void
na_rq_fini(struct na_rq *q)
{
	free(q->rq);
	free(q->uq);
	na_rq_init(q);
}

/* Room for `more` entries after the *n there are. */
static int
reserve(uint32_t **a, uint32_t n, uint32_t *cap, uint32_t more)
{
	uint32_t c = *cap ? *cap : 4;
	uint32_t *p;

	if (n + more <= *cap)
		return 0;
	while (c < n + more)
		c *= 2;
	p = realloc(*a, c * sizeof(*p));
	if (!p)
		return -ENOMEM;
	*a = p;
	*cap = c;
	return 0;
}

static int
push(uint32_t **a, uint32_t *n, uint32_t *cap, uint32_t who)
{
	if (reserve(a, *n, cap, 1))
		return -ENOMEM;
	(*a)[(*n)++] = who;
	return 0;
}

bool
na_rq_reading(const struct na_rq *q, uint32_t who)
{
	for (uint32_t i = 0; i < q->n_rq; i++)
		if (q->rq[i] == who)
			return true;
	return false;
}

static int
emit(struct na_rq_action *act, uint32_t cap, uint32_t *n, uint8_t kind,
     uint32_t who)
{
	if (*n >= cap)
		return -ENOSPC;
	act[*n].kind = kind;
	act[*n].who = who;
	(*n)++;
	return 0;
}

/* Rows READ_REQUEST (*, empty): proceed and join RQ; (*, not empty): wait
 * behind the update in UQ. */
static int
read_request(struct na_rq *q, uint32_t who, struct na_rq_action *act,
	     uint32_t cap, uint32_t *n)
{
	if (q->n_uq)
		return push(&q->uq, &q->n_uq, &q->cap_uq, who);
	if (*n >= cap)
		return -ENOSPC;
	if (push(&q->rq, &q->n_rq, &q->cap_rq, who))
		return -ENOMEM;
	return emit(act, cap, n, NA_RQ_READ_PROCEED, who);
}

/* Rows READ_DONE (not empty, *): leave RQ; the last reader out lets the
 * queued update proceed. */
static int
read_done(struct na_rq *q, uint32_t who, struct na_rq_action *act, uint32_t cap,
	  uint32_t *n)
{
	uint32_t i;

	if (q->n_rq == 0)
		return -EPROTO; /* rows (empty, *) */
	for (i = 0; i < q->n_rq && q->rq[i] != who; i++)
		;
	if (i == q->n_rq)
		return -ENOENT;
	if (q->n_rq == 1 && q->n_uq && *n >= cap)
		return -ENOSPC;
	q->rq[i] = q->rq[--q->n_rq];
	if (q->n_rq == 0 && q->n_uq)
		return emit(act, cap, n, NA_RQ_UPDATE_PROCEED, q->uq[0]);
	return 0;
}

/* Rows UPDATE_REQUEST (*, empty): head of UQ, proceeding at once when RQ
 * is empty; (*, not empty): error (one update at a time). */
static int
update_request(struct na_rq *q, uint32_t who, struct na_rq_action *act,
	       uint32_t cap, uint32_t *n)
{
	if (q->n_uq)
		return -EPROTO;
	if (q->n_rq == 0 && *n >= cap)
		return -ENOSPC;
	if (push(&q->uq, &q->n_uq, &q->cap_uq, who))
		return -ENOMEM;
	if (q->n_rq == 0)
		return emit(act, cap, n, NA_RQ_UPDATE_PROCEED, who);
	return 0;
}

/* The update at UQ's head leaves: the reads queued behind it join RQ and
 * proceed. */
static int
reads_join(struct na_rq *q, struct na_rq_action *act, uint32_t cap, uint32_t *n)
{
	if (cap - *n < q->n_uq - 1)
		return -ENOSPC;
	if (reserve(&q->rq, q->n_rq, &q->cap_rq, q->n_uq - 1))
		return -ENOMEM;
	for (uint32_t i = 1; i < q->n_uq; i++) {
		q->rq[q->n_rq++] = q->uq[i];
		emit(act, cap, n, NA_RQ_READ_PROCEED, q->uq[i]);
	}
	q->n_uq = 0;
	return 0;
}

/* Row UPDATE_DONE (empty, not empty): the update leaves UQ and every read
 * queued behind it proceeds into RQ; all other rows are errors. */
static int
update_done(struct na_rq *q, uint32_t who, struct na_rq_action *act,
	    uint32_t cap, uint32_t *n)
{
	if (q->n_rq != 0 || q->n_uq == 0)
		return -EPROTO;
	if (q->uq[0] != who)
		return -ENOENT;
	return reads_join(q, act, cap, n);
}

int
na_rq_step(struct na_rq *q, enum na_rq_msg msg, uint32_t who,
	   struct na_rq_action *act, uint32_t cap, uint32_t *n)
{
	*n = 0;
	switch (msg) {
	case NA_RQ_READ_REQUEST:
		return read_request(q, who, act, cap, n);
	case NA_RQ_READ_DONE:
		return read_done(q, who, act, cap, n);
	case NA_RQ_UPDATE_REQUEST:
		return update_request(q, who, act, cap, n);
	case NA_RQ_UPDATE_DONE:
		return update_done(q, who, act, cap, n);
	default:
		return -EINVAL;
	}
}

int
na_rq_cancel(struct na_rq *q, uint32_t who, struct na_rq_action *act,
	     uint32_t cap, uint32_t *n)
{
	int rc;

	*n = 0;
	if (na_rq_reading(q, who) && (rc = read_done(q, who, act, cap, n)))
		return rc;
	for (uint32_t i = 1; i < q->n_uq; i++)
		if (q->uq[i] == who) {
			memmove(q->uq + i, q->uq + i + 1,
				(q->n_uq - i - 1) * sizeof(*q->uq));
			q->n_uq--;
			i--;
		}
	if (!q->n_uq || q->uq[0] != who)
		return 0;
	if (q->n_rq == 0) /* granted: as its UPDATE_DONE */
		return update_done(q, who, act, cap, n);
	/* Waiting for RQ to drain: the reads behind it join RQ at once. */
	return reads_join(q, act, cap, n);
}
