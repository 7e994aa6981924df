/* SPDX-License-Identifier: BSD-3-Clause
 *
 * TPC-C's consistency conditions on a snapshot; see tpcc_check.h.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

#include "tpcc_check.h"

int
tpcc_check_ytd(uint32_t w_id, int64_t w_ytd,
	       const int64_t d_ytd[TPCC_DISTRICTS], char *msg, size_t len)
{
	int64_t sum = 0;

	for (int i = 0; i < TPCC_DISTRICTS; i++)
		sum += d_ytd[i];
	if (sum == w_ytd)
		return 0;
	snprintf(msg, len,
		 "condition 1 (W_YTD = sum(D_YTD)) violated in warehouse %u: "
		 "W_YTD %" PRId64 " cents, sum(D_YTD) %" PRId64 " cents",
		 w_id, w_ytd, sum);
	return 1;
}

/* Can ring slot i hold O_ID `id` now? (An O_ID >= D_NEXT_O_ID is left
 * to condition 2.) */
static bool
in_slot(const struct tpcc_dview *v, uint32_t i, uint32_t id)
{
	return id != 0 && (id - 1) % v->max_orders == i &&
	       (id >= v->next_o_id || v->next_o_id - id <= v->max_orders);
}

/* Lines of order slot i that are rows (OL_NUMBER set). */
static uint32_t
line_rows(const struct tpcc_dview *v, uint32_t i, int *bad_slot,
	  int *bad_delivery, const struct tpcc_order *o)
{
	uint32_t n = 0;

	for (uint32_t k = 0; k < TPCC_MAX_OL; k++) {
		const struct tpcc_order_line *l = &v->ols[i * TPCC_MAX_OL + k];

		if (l->number == 0)
			continue;
		n++;
		if (l->number != k + 1 ||
		    (o->id != 0 ? l->o_id != o->id : !in_slot(v, i, l->o_id)))
			*bad_slot = 1;
		if (o->id != 0 && (l->delivery_d == 0) != (o->carrier_id == 0))
			*bad_delivery = 1;
	}
	return n;
}

int
tpcc_check_district(const struct tpcc_dview *v, char *msg, size_t len)
{
	uint32_t max_o = 0, max_no = 0, min_no = UINT32_MAX, n_no = 0;
	uint64_t sum_cnt = 0, n_ol = 0;
	uint32_t w = v->w_id, d = v->d_id;

	for (uint32_t i = 0; i < v->slots; i++) {
		const struct tpcc_order *o = &v->orders[i];
		const struct tpcc_new_order *no = &v->nos[i];
		int bad_slot = 0, bad_del = 0;
		uint32_t rows = line_rows(v, i, &bad_slot, &bad_del, o);

		if ((o->id != 0 && !in_slot(v, i, o->id)) ||
		    (no->o_id != 0 && !in_slot(v, i, no->o_id)) ||
		    (no->o_id != 0 && o->id != 0 && no->o_id != o->id) ||
		    bad_slot) {
			snprintf(msg, len,
				 "layout: warehouse %u district %u: ring slot "
				 "%u holds a row of an O_ID it cannot hold",
				 w, d, i);
			return TPCC_COND_LAYOUT;
		}
		n_ol += rows;
		if (no->o_id != 0) {
			n_no++;
			max_no = no->o_id > max_no ? no->o_id : max_no;
			min_no = no->o_id < min_no ? no->o_id : min_no;
		}
		if (o->id == 0)
			continue;
		max_o = o->id > max_o ? o->id : max_o;
		sum_cnt += o->ol_cnt;
		if ((o->carrier_id == 0) != (no->o_id != 0)) {
			snprintf(msg, len,
				 "condition 5 (O_CARRIER_ID null iff a "
				 "NEW-ORDER row) violated: warehouse %u "
				 "district %u order %u",
				 w, d, o->id);
			return 5;
		}
		if (rows != o->ol_cnt) {
			snprintf(msg, len,
				 "condition 6 (O_OL_CNT = its ORDER-LINE rows) "
				 "violated: warehouse %u district %u order %u: "
				 "O_OL_CNT %u, %u rows",
				 w, d, o->id, o->ol_cnt, rows);
			return 6;
		}
		if (bad_del) {
			snprintf(msg, len,
				 "condition 7 (OL_DELIVERY_D null iff "
				 "O_CARRIER_ID null) violated: warehouse %u "
				 "district %u order %u",
				 w, d, o->id);
			return 7;
		}
	}
	if (v->next_o_id - 1 != max_o || (n_no && max_no != max_o)) {
		snprintf(msg, len,
			 "condition 2 (D_NEXT_O_ID - 1 = max(O_ID) = "
			 "max(NO_O_ID)) violated: warehouse %u district %u: "
			 "D_NEXT_O_ID - 1 = %u, max(O_ID) = %u, max(NO_O_ID) "
			 "= %u",
			 w, d, v->next_o_id - 1, max_o, max_no);
		return 2;
	}
	if (n_no && max_no - min_no + 1 != n_no) {
		snprintf(msg, len,
			 "condition 3 (max(NO_O_ID) - min(NO_O_ID) + 1 = "
			 "NEW-ORDER rows) violated: warehouse %u district %u: "
			 "%u - %u + 1 != %u rows",
			 w, d, max_no, min_no, n_no);
		return 3;
	}
	if (sum_cnt != n_ol) {
		snprintf(msg, len,
			 "condition 4 (sum(O_OL_CNT) = ORDER-LINE rows) "
			 "violated: warehouse %u district %u: sum(O_OL_CNT) "
			 "%" PRIu64 ", %" PRIu64 " rows",
			 w, d, sum_cnt, n_ol);
		return 4;
	}
	if ((n_no && v->no_first != min_no) ||
	    (!n_no && v->no_first != v->next_o_id)) {
		snprintf(msg, len,
			 "layout: warehouse %u district %u: new-order head "
			 "%u, min(NO_O_ID) %u (%u rows)",
			 w, d, v->no_first, n_no ? min_no : 0, n_no);
		return TPCC_COND_LAYOUT;
	}
	return 0;
}

int
tpcc_check_owner(uint32_t w_id, int64_t w_ytd, uint64_t orders_added,
		 uint64_t new_orders, int64_t paid, char *msg, size_t len)
{
	if (orders_added != new_orders) {
		snprintf(msg, len,
			 "warehouse %u: %" PRIu64 " orders added to its "
			 "districts, its thread committed %" PRIu64
			 " New-Orders",
			 w_id, orders_added, new_orders);
		return TPCC_COND_OWNER;
	}
	if (w_ytd - TPCC_W_YTD0 != paid) {
		snprintf(msg, len,
			 "warehouse %u: W_YTD grew by %" PRId64 " cents, its "
			 "thread's committed Payments paid %" PRId64 " cents",
			 w_id, w_ytd - TPCC_W_YTD0, paid);
		return TPCC_COND_OWNER;
	}
	return 0;
}
