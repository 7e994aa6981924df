/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Requester mailbox: FIFO order, payload copied, a full mailbox drops, and
 * each mail keeps the time it arrived (at_ns), not the time it is taken:
 * the requester's RTT samples of UNLOCK_ACKs, which nobody waits for, end
 * there (na_req_mail.h na_req_unlock_ack).
 */
#include <errno.h>
#include <time.h>

#include <criterion/criterion.h>

#include "na_clock.h"
#include "na_mailbox.h"

static struct na_mailbox mb;

static void
setup(void)
{
	cr_assert_eq(na_mbox_init(&mb), 0);
}

static void
teardown(void)
{
	na_mbox_fini(&mb);
}

TestSuite(mailbox, .init = setup, .fini = teardown);

Test(mailbox, arrival_time_is_the_push_not_the_take)
{
	struct lcf_msg m = { .type = LCF_T_UNLOCK_ACK, .seq = 9, .len = 3 };
	struct timespec nap = { .tv_nsec = 20000000 };
	static struct na_mail x;
	uint64_t before, after;

	before = na_now_ns();
	cr_assert(na_mbox_push(&mb, &m, "abc"));
	after = na_now_ns();
	nanosleep(&nap, NULL);
	cr_assert_eq(na_mbox_wait(&mb, &x, na_now_ns() + 1000000), 0);
	cr_assert_eq(x.m.seq, 9);
	cr_assert_eq(memcmp(x.payload, "abc", 3), 0);
	cr_assert(x.at_ns >= before && x.at_ns <= after);
	cr_assert(na_now_ns() - x.at_ns >= 20000000ull);
	/* empty: times out */
	cr_assert_eq(na_mbox_wait(&mb, &x, na_now_ns() + 1000), -ETIMEDOUT);
}

Test(mailbox, fifo_and_full_drops)
{
	struct lcf_msg m = { .type = NA_MSG_ACK };
	static struct na_mail x;

	for (uint32_t i = 0; i < NA_MBOX_CAP; i++) {
		m.seq = i;
		cr_assert(na_mbox_push(&mb, &m, NULL));
	}
	cr_assert_not(na_mbox_push(&mb, &m, NULL));
	for (uint32_t i = 0; i < NA_MBOX_CAP; i++) {
		cr_assert_eq(na_mbox_wait(&mb, &x, na_now_ns() + 1000000), 0);
		cr_assert_eq(x.m.seq, i);
	}
}
