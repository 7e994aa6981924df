/* SPDX-License-Identifier: BSD-3-Clause
 *
 * PIPE diffs and packing (docs/PIPE.md): RLE round trips, the 8-byte case,
 * malformed diffs, packing 466 diffs of 317 B into ceil(total / MTU)
 * frames, reassembly under loss/duplication/reordering, the credit window.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "na_diff.h"
#include "na_msg.h"
#include "na_pack.h"

#define BS 4096

static uint8_t twin[BS], cur[BS], home[BS], enc[2 * BS];

static void
fill(uint8_t *p, uint32_t n, unsigned seed)
{
	srand(seed);
	for (uint32_t i = 0; i < n; i++)
		p[i] = (uint8_t)rand();
}

Test(na_diff, eight_changed_bytes_of_4k_under_64_bytes_and_identical)
{
	static const uint32_t at[8] = { 3,    500,  1024, 1999,
					2048, 3000, 4000, 4095 };
	uint8_t stream[128];
	uint32_t used = 0;
	int n;

	fill(twin, BS, 1);
	memcpy(cur, twin, BS);
	memcpy(home, twin, BS);
	for (int i = 0; i < 8; i++)
		cur[at[i]] ^= 0x5a;
	n = na_diff_encode(twin, cur, BS, enc, sizeof(enc));
	cr_assert_eq(n, 8 * (NA_DIFF_RUN_HDR + 1));
	/* The payload on the wire: the record (tag, length, diff). */
	cr_assert_eq(na_pack_put(stream, sizeof(stream), &used, 7, enc,
				 (uint16_t)n),
		     0);
	cr_assert_lt(used, 64u);
	cr_assert_eq(na_diff_apply(home, BS, enc, (uint32_t)n), 0);
	cr_assert_eq(memcmp(home, cur, BS), 0);
}

Test(na_diff, random_round_trips_are_byte_identical)
{
	for (unsigned s = 0; s < 200; s++) {
		int n, k = rand() % 64;

		fill(twin, BS, s);
		memcpy(cur, twin, BS);
		memcpy(home, twin, BS);
		for (int i = 0; i < k; i++) {
			uint32_t o = (uint32_t)rand() % BS,
				 l = 1 + (uint32_t)rand() % 300;
			for (uint32_t j = o; j < o + l && j < BS; j++)
				cur[j] = (uint8_t)rand();
		}
		n = na_diff_encode(twin, cur, BS, enc, sizeof(enc));
		cr_assert_geq(n, 0);
		cr_assert_eq(na_diff_apply(home, BS, enc, (uint32_t)n), 0);
		cr_assert_eq(memcmp(home, cur, BS), 0, "seed %u", s);
		/* twice is once */
		cr_assert_eq(na_diff_apply(home, BS, enc, (uint32_t)n), 0);
		cr_assert_eq(memcmp(home, cur, BS), 0);
	}
}

Test(na_diff, unchanged_is_empty_and_everything_is_too_big)
{
	fill(twin, BS, 3);
	memcpy(cur, twin, BS);
	cr_assert_eq(na_diff_encode(twin, cur, BS, enc, sizeof(enc)), 0);
	for (uint32_t i = 0; i < BS; i++)
		cur[i] = (uint8_t)~twin[i];
	cr_assert_eq(na_diff_encode(twin, cur, BS, enc, BS), -E2BIG);
	cr_assert_eq(na_diff_encode(twin, cur, BS, enc, sizeof(enc)),
		     BS + NA_DIFF_RUN_HDR);
	cr_assert_eq(na_diff_encode(twin, cur, 0, enc, 8), -EINVAL);
}

Test(na_diff, malformed_diffs_change_nothing)
{
	/* second run overlaps the first; run past the end; truncated */
	static const uint8_t overlap[] = { 0, 10, 0, 2, 1, 1, 0, 11, 0, 1, 9 };
	static const uint8_t past[] = { 0x0f, 0xff, 0, 2, 1, 1 };
	static const uint8_t trunc[] = { 0, 0, 0, 5, 1 };

	memset(home, 0, BS);
	cr_assert_eq(na_diff_apply(home, BS, overlap, sizeof(overlap)),
		     -EINVAL);
	cr_assert_eq(na_diff_apply(home, BS, past, sizeof(past)), -EINVAL);
	cr_assert_eq(na_diff_apply(home, BS, trunc, sizeof(trunc)), -EINVAL);
	for (uint32_t i = 0; i < BS; i++)
		cr_assert_eq(home[i], 0);
}

#define NREC  466
#define RECSZ 317

static uint8_t stream[NREC * RECSZ], back[NREC * RECSZ];
static uint32_t offs[NREC];
static struct na_frame fr[2 * NREC];

static uint32_t
make_stream(void)
{
	uint8_t body[RECSZ];
	uint32_t at = 0;

	for (uint32_t r = 0; r < NREC; r++) {
		fill(body, sizeof(body), r);
		offs[r] = at;
		cr_assert_eq(na_pack_put(stream, sizeof(stream), &at, r, body,
					 RECSZ - NA_PACK_REC_HDR),
			     0);
	}
	return at;
}

Test(na_pack, diffs_466_of_317_bytes_in_ceil_total_over_mtu_frames)
{
	uint32_t total = make_stream(), mtu = NA_MAX_FRAME_PAYLOAD, sum = 0;
	int n = na_pack_plan(offs, NREC, total, mtu, true, fr, 2 * NREC);
	int orig = na_pack_plan(offs, NREC, total, mtu, false, fr + 0, 0);

	cr_assert_eq(total, NREC * RECSZ);
	cr_assert_leq(n, (int)((total + mtu - 1) / mtu));
	for (int i = 0; i < n; i++) {
		cr_assert_leq(fr[i].len, mtu);
		cr_assert_eq(fr[i].off, sum); /* nothing skipped */
		sum += fr[i].len;
	}
	cr_assert_eq(sum, total);
	cr_assert_eq(orig, -E2BIG);
	cr_assert_eq(na_pack_plan(offs, NREC, total, mtu, false, fr, 2 * NREC),
		     NREC); /* ORIG: one diff per frame */
}

Test(na_pack, large_diff_is_split_and_no_diff_is_lost)
{
	static uint8_t s[3 * BS];
	uint8_t body[BS];
	uint32_t at = 0, o[3], sum = 0;
	int n;

	fill(body, BS, 9);
	o[0] = at;
	na_pack_put(s, sizeof(s), &at, 1, body, 1000);
	o[1] = at;
	na_pack_put(s, sizeof(s), &at, 2, body,
		    1000); /* does not fit: carried */
	o[2] = at;
	na_pack_put(s, sizeof(s), &at, 3, body, 3000); /* larger than a frame */
	n = na_pack_plan(o, 3, at, NA_MAX_FRAME_PAYLOAD, true, fr, 16);
	cr_assert_eq(n, (int)((at + NA_MAX_FRAME_PAYLOAD - 1) /
			      NA_MAX_FRAME_PAYLOAD));
	for (int i = 0; i < n; i++)
		sum += fr[i].len;
	cr_assert_eq(sum, at);
}

Test(na_pack, reassembly_under_loss_duplication_reordering_window)
{
	uint32_t total = make_stream();
	int n = na_pack_plan(offs, NREC, total, NA_MAX_FRAME_PAYLOAD, true, fr,
			     2 * NREC);
	uint8_t acked[2 * NREC];
	struct na_unpack u;
	struct na_win w;
	uint32_t got = 0;

	srand(42);
	na_unpack_init(&u, back, sizeof(back), total);
	na_win_init(&w, acked, (uint32_t)n, 3);
	while (!na_win_done(&w)) {
		int64_t i;

		/* send what the window allows, then "retransmit" the rest */
		while ((i = na_win_take(&w)) >= 0)
			cr_assert_lt((uint64_t)i, w.base + 3);
		for (uint32_t k = w.base; k < w.next; k++) {
			if (acked[k] || rand() % 10 == 0) /* 10% loss */
				continue;
			cr_assert_eq(na_unpack_feed(&u, fr[k].off,
						    stream + fr[k].off,
						    fr[k].len),
				     0);
			if (rand() % 5 == 0) /* duplicate */
				na_unpack_feed(&u, fr[k].off,
					       stream + fr[k].off, fr[k].len);
			if (rand() % 10) /* ACK lost otherwise */
				na_win_ack(&w, k);
		}
		for (;;) {
			uint64_t tag;
			const uint8_t *d;
			uint16_t l;
			int rc = na_unpack_next(&u, &tag, &d, &l);

			cr_assert_geq(rc, 0);
			if (rc == 0)
				break;
			cr_assert_eq(tag, got);
			cr_assert_eq(l, RECSZ - NA_PACK_REC_HDR);
			got++;
		}
	}
	cr_assert_eq(got, NREC);
	cr_assert(na_unpack_done(&u));
	cr_assert_eq(memcmp(back, stream, total), 0);
}
