/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The ReadQueue/UpdateQueue state machine (paper 003, Table 1): every
 * (message, RQ empty?, UQ empty?) combination, the error rows included.
 */
#include <errno.h>

#include <criterion/criterion.h>

#include "na_voh_rq.h"

#define R_IN_RQ 1 /* the reader put in RQ for "RQ not empty" */
#define U_IN_UQ 9 /* the update put in UQ for "UQ not empty" */
#define R_NEW   2 /* a new reader */
#define U_NEW   3 /* a new updater */

struct row {
	enum na_rq_msg msg;
	bool rq_full, uq_full;
	uint32_t who;
	int rc;
	uint32_t n_act;
	uint8_t act_kind; /* of the one action, if any */
	uint32_t act_who;
	uint32_t n_rq, n_uq; /* after */
};

/* clang-format off */
static const struct row table1[16] = {
	/* IPC READ REQUEST: proceed unless an update is queued */
	{ NA_RQ_READ_REQUEST,  false, false, R_NEW, 0, 1, NA_RQ_READ_PROCEED, R_NEW, 1, 0 },
	{ NA_RQ_READ_REQUEST,  true,  false, R_NEW, 0, 1, NA_RQ_READ_PROCEED, R_NEW, 2, 0 },
	{ NA_RQ_READ_REQUEST,  false, true,  R_NEW, 0, 0, 0, 0, 0, 2 },
	{ NA_RQ_READ_REQUEST,  true,  true,  R_NEW, 0, 0, 0, 0, 1, 2 },
	/* IPC READ DONE */
	{ NA_RQ_READ_DONE,     false, false, R_IN_RQ, -EPROTO, 0, 0, 0, 0, 0 },
	{ NA_RQ_READ_DONE,     false, true,  R_IN_RQ, -EPROTO, 0, 0, 0, 0, 1 },
	{ NA_RQ_READ_DONE,     true,  false, R_IN_RQ, 0, 0, 0, 0, 0, 0 },
	{ NA_RQ_READ_DONE,     true,  true,  R_IN_RQ, 0, 1, NA_RQ_UPDATE_PROCEED, U_IN_UQ, 0, 1 },
	/* IPC UPDATE REQUEST */
	{ NA_RQ_UPDATE_REQUEST, false, false, U_NEW, 0, 1, NA_RQ_UPDATE_PROCEED, U_NEW, 0, 1 },
	{ NA_RQ_UPDATE_REQUEST, false, true,  U_NEW, -EPROTO, 0, 0, 0, 0, 1 },
	{ NA_RQ_UPDATE_REQUEST, true,  false, U_NEW, 0, 0, 0, 0, 1, 1 },
	{ NA_RQ_UPDATE_REQUEST, true,  true,  U_NEW, -EPROTO, 0, 0, 0, 1, 1 },
	/* IPC UPDATE DONE */
	{ NA_RQ_UPDATE_DONE,   false, false, U_IN_UQ, -EPROTO, 0, 0, 0, 0, 0 },
	{ NA_RQ_UPDATE_DONE,   false, true,  U_IN_UQ, 0, 0, 0, 0, 0, 0 },
	{ NA_RQ_UPDATE_DONE,   true,  false, U_IN_UQ, -EPROTO, 0, 0, 0, 1, 0 },
	{ NA_RQ_UPDATE_DONE,   true,  true,  U_IN_UQ, -EPROTO, 0, 0, 0, 1, 1 },
};
/* clang-format on */

/* Build the (RQ, UQ) state of a row through the machine itself. */
static void
prepare(struct na_rq *q, bool rq_full, bool uq_full)
{
	struct na_rq_action act[4];
	uint32_t n;

	na_rq_init(q);
	if (rq_full) {
		cr_assert_eq(na_rq_step(q, NA_RQ_READ_REQUEST, R_IN_RQ, act, 4,
					&n),
			     0);
		cr_assert_eq(n, 1);
	}
	if (uq_full) {
		cr_assert_eq(na_rq_step(q, NA_RQ_UPDATE_REQUEST, U_IN_UQ, act,
					4, &n),
			     0);
		cr_assert_eq(n, rq_full ? 0u : 1u); /* proceeds iff RQ empty */
	}
	cr_assert_eq(q->n_rq, rq_full ? 1u : 0u);
	cr_assert_eq(q->n_uq, uq_full ? 1u : 0u);
}

Test(voh_rq, table1_all_16_rows)
{
	for (int i = 0; i < 16; i++) {
		const struct row *r = &table1[i];
		struct na_rq_action act[4];
		struct na_rq q;
		uint32_t n = 99;
		int rc;

		prepare(&q, r->rq_full, r->uq_full);
		rc = na_rq_step(&q, r->msg, r->who, act, 4, &n);
		cr_expect_eq(rc, r->rc, "row %d: rc %d, expected %d", i, rc,
			     r->rc);
		cr_expect_eq(n, r->n_act, "row %d: %u actions", i, n);
		if (r->n_act && n) {
			cr_expect_eq(act[0].kind, r->act_kind, "row %d", i);
			cr_expect_eq(act[0].who, r->act_who, "row %d", i);
		}
		cr_expect_eq(q.n_rq, r->n_rq, "row %d: RQ %u", i, q.n_rq);
		cr_expect_eq(q.n_uq, r->n_uq, "row %d: UQ %u", i, q.n_uq);
		na_rq_fini(&q);
	}
}

/* UPDATE_DONE with reads queued behind the update: all proceed, into RQ
 * (the paper's "for all ReadRequests in UpdateQueue"). */
Test(voh_rq, update_done_releases_queued_reads)
{
	struct na_rq_action act[8];
	struct na_rq q;
	uint32_t n;

	prepare(&q, false, true);
	for (uint32_t w = 20; w < 25; w++) {
		cr_assert_eq(na_rq_step(&q, NA_RQ_READ_REQUEST, w, act, 8, &n),
			     0);
		cr_assert_eq(n, 0); /* writers preferred: they wait */
	}
	cr_assert_eq(q.n_uq, 6);
	cr_assert_eq(na_rq_step(&q, NA_RQ_UPDATE_DONE, U_IN_UQ, act, 8, &n), 0);
	cr_assert_eq(n, 5);
	for (uint32_t i = 0; i < 5; i++) {
		cr_assert_eq(act[i].kind, NA_RQ_READ_PROCEED);
		cr_assert_eq(act[i].who, 20 + i);
		cr_assert(na_rq_reading(&q, 20 + i));
	}
	cr_assert_eq(q.n_rq, 5);
	cr_assert_eq(q.n_uq, 0);
	na_rq_fini(&q);
}

/* The last of several readers lets the update proceed, not the first. */
Test(voh_rq, last_reader_out_lets_update_in)
{
	struct na_rq_action act[4];
	struct na_rq q;
	uint32_t n;

	na_rq_init(&q);
	na_rq_step(&q, NA_RQ_READ_REQUEST, 1, act, 4, &n);
	na_rq_step(&q, NA_RQ_READ_REQUEST, 2, act, 4, &n);
	cr_assert_eq(na_rq_step(&q, NA_RQ_UPDATE_REQUEST, 9, act, 4, &n), 0);
	cr_assert_eq(n, 0);
	cr_assert_eq(na_rq_step(&q, NA_RQ_READ_DONE, 1, act, 4, &n), 0);
	cr_assert_eq(n, 0);
	cr_assert_eq(na_rq_step(&q, NA_RQ_READ_DONE, 2, act, 4, &n), 0);
	cr_assert_eq(n, 1);
	cr_assert_eq(act[0].kind, NA_RQ_UPDATE_PROCEED);
	cr_assert_eq(act[0].who, 9);
	na_rq_fini(&q);
}

/* Duplicates are told apart from error rows; a short action array is
 * refused without changing anything. */
Test(voh_rq, duplicates_and_room)
{
	struct na_rq_action act[4];
	struct na_rq q;
	uint32_t n;

	prepare(&q, true, false);
	cr_assert_eq(na_rq_step(&q, NA_RQ_READ_DONE, 7, act, 4, &n), -ENOENT);
	cr_assert_eq(q.n_rq, 1);
	cr_assert_eq(na_rq_step(&q, NA_RQ_READ_REQUEST, 5, act, 0, &n),
		     -ENOSPC);
	cr_assert_eq(q.n_rq, 1);
	na_rq_fini(&q);
	prepare(&q, false, true);
	cr_assert_eq(na_rq_step(&q, NA_RQ_UPDATE_DONE, 8, act, 4, &n), -ENOENT);
	cr_assert_eq(q.n_uq, 1);
	cr_assert_eq(na_rq_step(&q, NA_RQ_N_MSG, 1, act, 4, &n), -EINVAL);
	na_rq_fini(&q);
}

/* A cancelled update still waiting for RQ lets the reads behind it in;
 * cancelling a requester with no entry changes nothing. */
Test(voh_rq, cancel_waiting_update_releases_its_reads)
{
	struct na_rq q;
	struct na_rq_action act[4];
	uint32_t n;

	prepare(&q, true, true);
	cr_assert_eq(na_rq_step(&q, NA_RQ_READ_REQUEST, 5, act, 4, &n), 0);
	cr_assert_eq(q.n_uq, 2);
	cr_assert_eq(na_rq_cancel(&q, 77, act, 4, &n), 0);
	cr_assert_eq(n, 0);
	cr_assert_eq(na_rq_cancel(&q, U_IN_UQ, act, 4, &n), 0);
	cr_assert_eq(n, 1);
	cr_assert_eq(act[0].kind, NA_RQ_READ_PROCEED);
	cr_assert_eq(act[0].who, 5);
	cr_assert_eq(q.n_uq, 0);
	cr_assert_eq(q.n_rq, 2);
	cr_assert_eq(na_rq_cancel(&q, R_IN_RQ, act, 4, &n), 0);
	cr_assert_eq(q.n_rq, 1);
	na_rq_fini(&q);
}
