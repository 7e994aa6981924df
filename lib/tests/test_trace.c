/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The sampled latency trace (lib/trace/lcf_trace.h): the sampling rule is
 * a function of the event alone, the ring keeps the newest records, and the
 * dump is the documented header followed by the records, oldest first.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lcf_trace.h"

Test(trace, sampling_is_per_event_and_near_one_in_n)
{
	unsigned hits = 0;

	cr_assert(lcf_trace_sampled(1, 2, 3, 1));
	cr_assert(!lcf_trace_sampled(1, 2, 3, 0));
	for (uint32_t seq = 1; seq <= 64000; seq++) {
		bool s = lcf_trace_sampled(3, 1, seq, 64);

		cr_assert_eq(s, lcf_trace_sampled(3, 1, seq, 64));
		hits += s;
	}
	/* 1 in 64 of 64000: 1000 expected. */
	cr_assert(hits > 800 && hits < 1200, "%u sampled", hits);
}

Test(trace, off_allocates_nothing_and_bad_capacity_is_refused)
{
	struct lcf_trace tr;

	cr_assert_eq(lcf_trace_init(&tr, 1, 0, 0), 0);
	cr_assert_null(tr.r);
	cr_assert_eq(lcf_trace_init(&tr, 1, 8, 0), -EINVAL);
	lcf_trace_fini(&tr);
}

Test(trace, ring_keeps_the_newest_and_dumps_oldest_first)
{
	struct lcf_trace tr;
	struct lcf_trace_rec r;
	uint8_t h[32];
	uint32_t rs, every, n;
	uint64_t dropped;
	uint16_t at;
	char *buf;
	size_t len;
	FILE *f;

	cr_assert_eq(lcf_trace_init(&tr, 7, 4, 5), 0); /* rounded to 8 */
	for (uint32_t i = 0; i < 11; i++)
		lcf_trace_put(&tr, 100 + i, LCF_TP_RX, 0x21, 1, 2, i, 3, i);
	f = open_memstream(&buf, &len);
	cr_assert_eq(lcf_trace_dump(&tr, f), 0);
	fclose(f);
	cr_assert_eq(len, 32 + 8 * sizeof(r));
	memcpy(h, buf, 32);
	cr_assert_str_eq((char *)h, LCF_TRACE_MAGIC);
	memcpy(&rs, h + 8, 4);
	memcpy(&every, h + 12, 4);
	memcpy(&at, h + 16, 2);
	memcpy(&n, h + 20, 4);
	memcpy(&dropped, h + 24, 8);
	cr_assert_eq(rs, 32);
	cr_assert_eq(every, 4);
	cr_assert_eq(at, 7);
	cr_assert_eq(n, 8);
	cr_assert_eq(dropped, 3);
	for (uint32_t i = 0; i < 8; i++) {
		memcpy(&r, buf + 32 + i * sizeof(r), sizeof(r));
		cr_assert_eq(r.seq, i + 3);
		cr_assert_eq(r.t_ns, 103 + i);
		cr_assert_eq(r.at, 7);
		cr_assert_eq(r.point, LCF_TP_RX);
	}
	free(buf);
	lcf_trace_fini(&tr);
	cr_assert_str_eq(lcf_trace_point_name(LCF_TP_SW_OUT), "sw_out");
	cr_assert_str_eq(lcf_trace_point_name(200), "?");
}
