/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Q_GRANT's queue entries on the wire (na_qgrant.h): round trip, the byte
 * layout of docs/QUEUED-LOCKS.md section 6, refusals; the new type names.
 */
#include <errno.h>
#include <string.h>

#include <criterion/criterion.h>

#include "na_msg.h"
#include "na_qgrant.h"

Test(qgrant, round_trip)
{
	struct na_qg_entry in[3] = {
		{ .node = 1,
		  .thread = 2,
		  .seq = 0x01020304,
		  .type = 2,
		  .cls = 0,
		  .index = 1 },
		{ .node = 0xfffe,
		  .thread = 1023,
		  .seq = 0xffffffff,
		  .type = 5,
		  .cls = 7,
		  .index = 0xffff },
		{ .node = 0,
		  .thread = 0,
		  .seq = 0,
		  .type = 1,
		  .cls = 255,
		  .index = 0 },
	};
	struct na_qg_entry out[3];
	uint8_t buf[3 * NA_QG_ENTRY];

	cr_assert_eq(na_qg_encode(in, 3, buf, sizeof(buf)), 48);
	cr_assert_eq(na_qg_decode(buf, 48, out, 3), 3);
	for (int i = 0; i < 3; i++)
		cr_assert(in[i].node == out[i].node &&
				  in[i].thread == out[i].thread &&
				  in[i].seq == out[i].seq &&
				  in[i].type == out[i].type &&
				  in[i].cls == out[i].cls &&
				  in[i].index == out[i].index,
			  "entry %d differs", i);
	cr_assert_eq(na_qg_encode(in, 0, buf, 0), 0);
	cr_assert_eq(na_qg_decode(buf, 0, out, 0), 0);
}

Test(qgrant, layout)
{
	struct na_qg_entry e = { .node = 0x0102,
				 .thread = 0x0304,
				 .seq = 0x05060708,
				 .type = 0x09,
				 .cls = 0x0a,
				 .index = 0x0b0c0d0e };
	const uint8_t want[NA_QG_ENTRY] = { 1, 2,  3, 4, 5,  6,  7,  8,
					    9, 10, 0, 0, 11, 12, 13, 14 };
	uint8_t buf[NA_QG_ENTRY];

	cr_assert_eq(na_qg_encode(&e, 1, buf, sizeof(buf)), NA_QG_ENTRY);
	cr_assert_arr_eq(buf, want, NA_QG_ENTRY);
	cr_assert_eq(na_qg_aux(3, 2), 0x00030002u);
	cr_assert_eq(na_qg_aux_giver(0x00030002u), 3);
	cr_assert_eq(na_qg_aux_entries(0x00030002u), 2);
}

Test(qgrant, refusals)
{
	struct na_qg_entry e[2] = { { .node = 1 }, { .node = 2 } };
	struct na_qg_entry out[1];
	uint8_t buf[2 * NA_QG_ENTRY];

	cr_assert_eq(na_qg_encode(e, 2, buf, NA_QG_ENTRY), -ENOSPC);
	cr_assert_eq(na_qg_encode(e, 2, buf, sizeof(buf)), 32);
	cr_assert_eq(na_qg_decode(buf, 17, out, 1), -EINVAL);
	cr_assert_eq(na_qg_decode(buf, 32, out, 1), -ENOSPC);
	buf[10] = 1; /* pad not 0 */
	cr_assert_eq(na_qg_decode(buf, 16, out, 1), -EINVAL);
}

Test(qgrant, type_names)
{
	cr_assert_str_eq(na_type_name(NA_MSG_Q_GRANT), "Q_GRANT");
	cr_assert_eq(NA_MSG_Q_GRANT, 0x68);
	cr_assert_eq(NA_MSG_Q_GRANT_ACK, 0x69);
	cr_assert_eq(NA_MSG_Q_QUEUED, 0x6a);
	cr_assert_eq(NA_MSG_Q_NACK, 0x6b);
	cr_assert_eq(NA_MSG_Q_INV, 0x6c);
	cr_assert_str_eq(na_type_name(NA_MSG_Q_INV_ACK), "Q_INV_ACK");
}
