/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Unit tests of dsm_tpcc's consistency checker (tpcc_check.c): consistent
 * hand-made districts pass, and each condition, broken on its own, is
 * reported with its number.
 */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <string.h>

#include "tpcc.h"
#include "tpcc_check.h"

#define SLOTS 40

struct dist {
	struct tpcc_order o[SLOTS];
	struct tpcc_new_order no[SLOTS];
	struct tpcc_order_line ol[SLOTS * TPCC_MAX_OL];
	struct tpcc_dview v;
};

/* A consistent district: orders 1..n, those from first_new on undelivered,
 * and SLOTS - n free slots after them. */
static void
district(struct dist *d, uint32_t n, uint32_t first_new)
{
	memset(d, 0, sizeof(*d));
	for (uint32_t id = 1; id <= n; id++) {
		struct tpcc_order *o = &d->o[id - 1];
		bool delivered = id < first_new;

		o->id = id;
		o->c_id = id;
		o->ol_cnt = (uint8_t)(5 + id % 11);
		o->carrier_id = delivered ? 3 : 0;
		if (!delivered)
			d->no[id - 1] = (struct tpcc_new_order){ .o_id = id,
								 .d_id = 1,
								 .w_id = 1 };
		for (uint32_t k = 0; k < o->ol_cnt; k++) {
			struct tpcc_order_line
				*l = &d->ol[(id - 1) * TPCC_MAX_OL + k];

			l->o_id = id;
			l->number = (uint8_t)(k + 1);
			l->delivery_d = delivered ? 1000 : 0;
		}
	}
	d->v = (struct tpcc_dview){ .w_id = 1,
				    .d_id = 1,
				    .next_o_id = n + 1,
				    .no_first = first_new,
				    .max_orders = SLOTS,
				    .slots = SLOTS,
				    .orders = d->o,
				    .nos = d->no,
				    .ols = d->ol };
}

static int
check(struct dist *d)
{
	char msg[512] = "";
	int rc = tpcc_check_district(&d->v, msg, sizeof(msg));

	cr_assert((rc == 0) == (msg[0] == '\0'), "message iff violation");
	return rc;
}

Test(tpcc_check, consistent_states_pass)
{
	static struct dist d;

	district(&d, 30, 21);
	cr_assert_eq(check(&d), 0);
	district(&d, 30, 31); /* all delivered */
	cr_assert_eq(check(&d), 0);
	district(&d, 30, 1); /* none delivered */
	cr_assert_eq(check(&d), 0);
}

Test(tpcc_check, condition_1)
{
	int64_t d_ytd[TPCC_DISTRICTS];
	char msg[512];

	for (int i = 0; i < TPCC_DISTRICTS; i++)
		d_ytd[i] = TPCC_D_YTD0 + i;
	cr_assert_eq(tpcc_check_ytd(1, TPCC_W_YTD0 + 45, d_ytd, msg,
				    sizeof(msg)),
		     0);
	cr_assert_eq(tpcc_check_ytd(1, TPCC_W_YTD0 + 46, d_ytd, msg,
				    sizeof(msg)),
		     1);
	cr_assert(strstr(msg, "condition 1") != NULL);
}

Test(tpcc_check, condition_2_next_o_id)
{
	static struct dist d;

	district(&d, 30, 21);
	d.v.next_o_id = 30; /* an order the district does not count */
	cr_assert_eq(check(&d), 2);
	district(&d, 30, 21);
	d.v.next_o_id = 32; /* an order missing */
	cr_assert_eq(check(&d), 2);
}

Test(tpcc_check, condition_3_new_order_gap)
{
	static struct dist d;

	district(&d, 30, 21);
	/* delivered out of order: order 25 has no NEW-ORDER row any more */
	d.no[24].o_id = 0;
	d.o[24].carrier_id = 4;
	for (uint32_t k = 0; k < d.o[24].ol_cnt; k++)
		d.ol[24 * TPCC_MAX_OL + k].delivery_d = 5;
	cr_assert_eq(check(&d), 3);
}

Test(tpcc_check, condition_4_stray_order_lines)
{
	static struct dist d;

	district(&d, 30, 21);
	/* an order line inserted without its order (slot 33 is free) */
	d.ol[32 * TPCC_MAX_OL] = (struct tpcc_order_line){ .o_id = 33,
							   .number = 1 };
	cr_assert_eq(check(&d), 4);
}

Test(tpcc_check, conditions_5_6_7)
{
	static struct dist d;

	district(&d, 30, 21);
	d.o[9].carrier_id = 0; /* undelivered but no NEW-ORDER row */
	cr_assert_eq(check(&d), 5);
	district(&d, 30, 21);
	d.o[9].ol_cnt++;
	cr_assert_eq(check(&d), 6);
	district(&d, 30, 21);
	d.ol[9 * TPCC_MAX_OL + 2].delivery_d = 0;
	cr_assert_eq(check(&d), 7);
}

Test(tpcc_check, layout_and_owner)
{
	static struct dist d;
	char msg[512];

	district(&d, 30, 21);
	d.o[5].id = 7; /* order 7 in slot 6 */
	cr_assert_eq(check(&d), TPCC_COND_LAYOUT);
	district(&d, 30, 21);
	d.v.no_first = 22; /* head past the oldest new order */
	cr_assert_eq(check(&d), TPCC_COND_LAYOUT);
	cr_assert_eq(tpcc_check_owner(1, TPCC_W_YTD0 + 500, 7, 7, 500, msg,
				      sizeof(msg)),
		     0);
	cr_assert_eq(tpcc_check_owner(1, TPCC_W_YTD0 + 500, 7, 6, 500, msg,
				      sizeof(msg)),
		     TPCC_COND_OWNER);
	cr_assert_eq(tpcc_check_owner(1, TPCC_W_YTD0 + 500, 7, 7, 499, msg,
				      sizeof(msg)),
		     TPCC_COND_OWNER);
}

/* A ring that wrapped: orders 16 .. 55 in 40 slots, 46 .. 55 undelivered. */
static void
wrapped(struct dist *d)
{
	memset(d, 0, sizeof(*d));
	for (uint32_t id = 16; id <= 55; id++) {
		uint32_t i = (id - 1) % SLOTS;
		struct tpcc_order *o = &d->o[i];
		bool delivered = id < 46;

		*o = (struct tpcc_order){ .id = id,
					  .c_id = id,
					  .ol_cnt = (uint8_t)(5 + id % 11),
					  .carrier_id = delivered ? 3 : 0 };
		d->no[i] = (struct tpcc_new_order){ .o_id = delivered ? 0
								      : id };
		for (uint32_t k = 0; k < o->ol_cnt; k++)
			d->ol[i * TPCC_MAX_OL + k] = (struct tpcc_order_line){
				.o_id = id,
				.number = (uint8_t)(k + 1),
				.delivery_d = delivered ? 1000 : 0
			};
	}
	d->v = (struct tpcc_dview){ .w_id = 1,
				    .d_id = 1,
				    .next_o_id = 56,
				    .no_first = 46,
				    .max_orders = SLOTS,
				    .slots = SLOTS,
				    .orders = d->o,
				    .nos = d->no,
				    .ols = d->ol };
}

Test(tpcc_check, wrapped_ring)
{
	static struct dist d;

	wrapped(&d);
	cr_assert_eq(check(&d), 0);
	/* a reused slot that kept a line of the order it replaced */
	wrapped(&d);
	d.ol[(50 - 1) % SLOTS * TPCC_MAX_OL + 14] = (struct tpcc_order_line){
		.o_id = 10, .number = 15
	};
	cr_assert_eq(check(&d), TPCC_COND_LAYOUT);
	/* D_NEXT_O_ID one ahead: order 16 would be 41 back, out of the
	 * ring, and the newest order is missing */
	wrapped(&d);
	d.v.next_o_id = 57;
	cr_assert_neq(check(&d), 0);
}
