/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Unit tests of dsm_tpcc's pure parts: the layout, TPC-C's input
 * generation with the distribution ratio and the lock word decisions (the
 * checker: test_tpcc_check.c).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "tpcc.h"
#include "tpcc_lock.h"
#include "tpcc_rand.h"

static struct tpcc_scale
scale(uint32_t nodes, uint32_t threads)
{
	struct tpcc_scale s = {
		.nodes = nodes,
		.threads = threads,
		.items = 1000,
		.customers = 100,
		.max_orders = 500,
		.history = 500,
		.block = 4096,
		.placement = TPCC_PLACE_STRIPE,
	};

	return s;
}

/* ---- layout ------------------------------------------------------------- */

static void
no_straddle(dsm_addr_t base, uint64_t n, uint32_t size, uint32_t block)
{
	for (uint64_t i = 0; i < n; i++) {
		dsm_addr_t a = tpcc_row_addr(base, i, size, block);

		cr_assert_eq(a / block, (a + size - 1) / block,
			     "row %llu of size %u crosses a block",
			     (unsigned long long)i, size);
		if (i > 0)
			cr_assert_gt(a,
				     tpcc_row_addr(base, i - 1, size, block));
	}
	cr_assert_leq(tpcc_row_addr(base, n - 1, size, block) + size,
		      base + tpcc_array_bytes(n, size, block));
}

Test(tpcc_layout, rows_stay_in_their_block)
{
	no_straddle(1ull << 48, 1000, TPCC_S_SZ, 4096);
	no_straddle(0, 777, TPCC_MAX_OL * TPCC_OL_SZ, 4096);
	no_straddle(0, 3001, TPCC_C_SZ, 4096);
	no_straddle(0, 100, TPCC_O_SZ, 1024);
}

Test(tpcc_layout, district_region_parts_do_not_overlap)
{
	struct tpcc_scale s = scale(2, 2);
	dsm_addr_t r = 1ull << 20, end = r + tpcc_dreg_bytes(&s);
	dsm_addr_t o_end = tpcc_order_addr(&s, r, s.max_orders) + TPCC_O_SZ;
	dsm_addr_t no_end = tpcc_new_order_addr(&s, r, s.max_orders) +
			    TPCC_NO_SZ;
	dsm_addr_t ol_end = tpcc_lines_addr(&s, r, s.max_orders) +
			    TPCC_MAX_OL * TPCC_OL_SZ;

	cr_assert_eq(tpcc_order_addr(&s, r, 1), r);
	cr_assert_leq(o_end, tpcc_new_order_addr(&s, r, 1));
	cr_assert_leq(no_end, tpcc_lines_addr(&s, r, 1));
	cr_assert_leq(ol_end, tpcc_history_addr(&s, r, 0));
	cr_assert_leq(tpcc_history_addr(&s, r, s.history - 1) + TPCC_H_SZ, end);
}

Test(tpcc_layout, items_and_homes)
{
	struct tpcc_scale s = scale(3, 2);
	dsm_addr_t parts[3] = { 1ull << 48, 2ull << 48, 3ull << 48 };
	uint32_t per = tpcc_items_per_part(&s);

	cr_assert_eq(per, 334);
	cr_assert_eq(tpcc_item_addr(&s, parts, 1), parts[0]);
	cr_assert_eq(tpcc_item_addr(&s, parts, per + 1), parts[1]);
	cr_assert_eq(tpcc_item_addr(&s, parts, s.items) >> 48, 3);
	/* stripe: w mod nodes; local: the node of the thread */
	cr_assert_eq(tpcc_wh_home(&s, 4), 1);
	s.placement = TPCC_PLACE_LOCAL;
	cr_assert_eq(tpcc_wh_home(&s, 4), 2);
	cr_assert_eq(tpcc_wh_home(&s, 1), 0);
}

Test(tpcc_layout, scale_check)
{
	struct tpcc_scale s = scale(2, 2);
	char err[256];

	cr_assert_eq(tpcc_scale_check(&s, err, sizeof(err)), 0);
	s.max_orders = s.customers;
	cr_assert_eq(tpcc_scale_check(&s, err, sizeof(err)), -1);
	cr_assert(strstr(err, "--max-orders") != NULL);
	s = scale(2, 2);
	s.max_orders = 100000; /* 100 MB of order lines per district */
	cr_assert_eq(tpcc_scale_check(&s, err, sizeof(err)), -1);
	s = scale(2, 2);
	s.block = 512;
	cr_assert_eq(tpcc_scale_check(&s, err, sizeof(err)), -1);
}

/* ---- random inputs ------------------------------------------------------- */

Test(tpcc_rand, nurand_and_names)
{
	uint64_t r = 7;
	char name[17];

	for (int i = 0; i < 100000; i++) {
		uint32_t v = tpcc_nurand(&r, 1023, 259, 1, 300);

		cr_assert(v >= 1 && v <= 300);
	}
	tpcc_last_name(371, name);
	cr_assert_str_eq(name, "PRICALLYOUGHT"); /* clause 4.3.2.3 */
	tpcc_last_name(0, name);
	cr_assert_str_eq(name, "BARBARBAR");
	tpcc_last_name(999, name);
	cr_assert_str_eq(name, "EINGEINGEING");
}

Test(tpcc_rand, run_constant_rule)
{
	for (uint32_t seed = 0; seed < 200; seed++) {
		struct tpcc_consts c;
		uint32_t d;

		tpcc_consts_init(&c, seed);
		d = c.c_last_run > c.c_last_load ? c.c_last_run - c.c_last_load
						 : c.c_last_load - c.c_last_run;
		cr_assert(d >= 65 && d <= 119 && d != 96 && d != 112);
		cr_assert_leq(c.c_id, 1023);
		cr_assert_leq(c.ol_i_id, 8191);
	}
}

static struct tpcc_consts consts;

static struct tpcc_gen
gen(const struct tpcc_scale *s, uint32_t w_id, double item, double pay)
{
	struct tpcc_gen g = { .s = s,
			      .c = &consts,
			      .w_id = w_id,
			      .item_remote = item,
			      .pay_remote = pay,
			      .rng = 42 };

	tpcc_consts_init(&consts, 1);
	return g;
}

Test(tpcc_rand, new_order_input)
{
	struct tpcc_scale s = scale(2, 2);
	struct tpcc_gen g = gen(&s, 3, TPCC_SPEC_ITEM_REMOTE, 0);
	uint64_t lines = 0, remote = 0, rollbacks = 0, n = 20000;

	for (uint64_t i = 0; i < n; i++) {
		struct tpcc_no_in in;

		tpcc_gen_new_order(&g, &in);
		cr_assert_eq(in.w_id, 3);
		cr_assert(in.d_id >= 1 && in.d_id <= TPCC_DISTRICTS);
		cr_assert(in.c_id >= 1 && in.c_id <= s.customers);
		cr_assert(in.ol_cnt >= TPCC_MIN_OL && in.ol_cnt <= TPCC_MAX_OL);
		rollbacks += in.rollback;
		for (uint32_t k = 0; k < in.ol_cnt; k++) {
			bool last_bad = in.rollback && k == in.ol_cnt - 1;

			cr_assert(last_bad ? in.ol[k].i_id == s.items + 1
					   : in.ol[k].i_id >= 1 &&
						     in.ol[k].i_id <= s.items);
			cr_assert(in.ol[k].supply_w_id >= 1 &&
				  in.ol[k].supply_w_id <= 4);
			cr_assert(in.ol[k].quantity >= 1 &&
				  in.ol[k].quantity <= 10);
			lines++;
			remote += in.ol[k].supply_w_id != 3;
		}
	}
	/* 1% of order lines remote, 1% rollbacks: loose bounds */
	cr_assert(remote > lines / 200 && remote < lines / 50,
		  "remote %llu of %llu", (unsigned long long)remote,
		  (unsigned long long)lines);
	cr_assert(rollbacks > n / 200 && rollbacks < n / 50);
}

Test(tpcc_rand, distribution_ratio_extremes)
{
	struct tpcc_scale s = scale(2, 2);
	struct tpcc_gen g0 = gen(&s, 2, 0, 0), g1 = gen(&s, 2, 1, 1);

	for (int i = 0; i < 2000; i++) {
		struct tpcc_no_in a, b;
		struct tpcc_pay_in p, q;

		tpcc_gen_new_order(&g0, &a);
		tpcc_gen_new_order(&g1, &b);
		cr_assert(a.all_local);
		cr_assert(!b.all_local);
		for (uint32_t k = 0; k < a.ol_cnt; k++)
			cr_assert_eq(a.ol[k].supply_w_id, 2);
		for (uint32_t k = 0; k < b.ol_cnt; k++)
			cr_assert_neq(b.ol[k].supply_w_id, 2);
		tpcc_gen_payment(&g0, &p);
		tpcc_gen_payment(&g1, &q);
		cr_assert(p.c_w_id == 2 && p.c_d_id == p.d_id);
		cr_assert(q.c_w_id != 2 && q.c_w_id >= 1 && q.c_w_id <= 4);
		cr_assert(p.amount >= 100 && p.amount <= 500000);
	}
}

Test(tpcc_rand, payment_spec_mix)
{
	struct tpcc_scale s = scale(2, 2);
	struct tpcc_gen g = gen(&s, 1, 0, TPCC_SPEC_PAY_REMOTE);
	uint32_t remote = 0, by_name = 0, n = 20000;

	for (uint32_t i = 0; i < n; i++) {
		struct tpcc_pay_in p;

		tpcc_gen_payment(&g, &p);
		remote += p.c_w_id != 1;
		by_name += p.by_name;
		if (p.by_name)
			cr_assert_lt(p.c_last, s.customers);
		else
			cr_assert(p.c_id >= 1 && p.c_id <= s.customers);
	}
	cr_assert(remote > n * 12 / 100 && remote < n * 18 / 100);
	cr_assert(by_name > n * 55 / 100 && by_name < n * 65 / 100);
}

Test(tpcc_rand, one_warehouse_stays_home)
{
	struct tpcc_scale s = scale(1, 1);
	struct tpcc_gen g = gen(&s, 1, 1, 1);
	struct tpcc_no_in in;

	tpcc_gen_new_order(&g, &in);
	for (uint32_t k = 0; k < in.ol_cnt; k++)
		cr_assert_eq(in.ol[k].supply_w_id, 1);
}

Test(tpcc_rand, mix)
{
	uint32_t mix[TPCC_TX_N], seen[TPCC_TX_N] = { 0 };
	uint64_t r = 3;

	cr_assert_eq(tpcc_parse_mix("45,43,4,4,4", mix), 0);
	cr_assert_eq(mix[1], 43);
	cr_assert_eq(tpcc_parse_mix("50,50,0,0,0", mix), 0);
	for (int i = 0; i < 10000; i++)
		seen[tpcc_gen_tx(&r, mix)]++;
	cr_assert(seen[2] == 0 && seen[3] == 0 && seen[4] == 0);
	cr_assert(seen[0] > 4500 && seen[1] > 4500);
	cr_assert_eq(tpcc_parse_mix("0,0,0,0,0", mix), -1);
	cr_assert_eq(tpcc_parse_mix("1,2,3", mix), -1);
	cr_assert_eq(tpcc_parse_mix("1,2,3,4,5,6", mix), -1);
	cr_assert_eq(tpcc_parse_mix("1,-2,3,4,5", mix), -1);
}

/* ---- lock words ---------------------------------------------------------- */

Test(tpcc_lock, no_wait_decisions)
{
	uint64_t a = tpcc_lw_owner(0, 1), b = tpcc_lw_owner(1, 0), w = 0;

	cr_assert_neq(a, b);
	cr_assert(tpcc_lw_acquire(&w, TPCC_LOCK_S, a));
	cr_assert(tpcc_lw_acquire(&w, TPCC_LOCK_S, b));
	cr_assert_eq(w, 2);
	cr_assert(!tpcc_lw_acquire(&w, TPCC_LOCK_X, a));
	cr_assert(!tpcc_lw_upgrade(&w, a)); /* b reads it too */
	cr_assert(tpcc_lw_release(&w, TPCC_LOCK_S, b));
	cr_assert(tpcc_lw_upgrade(&w, a));
	cr_assert_eq(w, TPCC_LW_X | a);
	cr_assert(!tpcc_lw_acquire(&w, TPCC_LOCK_S, b));
	cr_assert(!tpcc_lw_acquire(&w, TPCC_LOCK_X, b));
	cr_assert_eq(w, TPCC_LW_X | a, "a refused acquire leaves the word");
	cr_assert(!tpcc_lw_release(&w, TPCC_LOCK_X, b));
	cr_assert(!tpcc_lw_release(&w, TPCC_LOCK_S, a));
	cr_assert(tpcc_lw_release(&w, TPCC_LOCK_X, a));
	cr_assert_eq(w, 0);
	cr_assert(!tpcc_lw_release(&w, TPCC_LOCK_S, a));
}

Test(tpcc_layout, memory_estimate)
{
	struct tpcc_scale s = scale(2, 2);
	uint32_t mb;

	s.items = 10000;
	s.customers = 300;
	s.max_orders = 3000;
	mb = tpcc_mem_mb(&s);
	/* two warehouses of ~37 MB at each home, from two allocating nodes */
	cr_assert(mb >= 32 + 2 * 32 && mb % 32 == 0, "%u MB", mb);
	cr_assert(mb <= 32 * 8, "%u MB", mb);
	s.threads = 4;
	cr_assert_gt(tpcc_mem_mb(&s), mb);
}
