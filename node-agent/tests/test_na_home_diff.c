/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The home agent's side of PIPE (na_home_diff.c): NA_DIFF frames refused
 * outside the event holding the lock, rebuilt in any order, applied once
 * (byte-identical home copy), every frame ACKed, duplicates harmless.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "na_diff.h"
#include "na_home.h"
#include "na_msg.h"
#include "na_pack.h"
#include "test_na_topo.h"
#include "topo.h"

static struct topo t;
static struct na_home h;
static struct na_out out;
static uint8_t cur[4096], stream[4096];

static void
setup(void)
{
	test_na_topo4(&t);
	cr_assert_eq(na_home_init(&h, &t, 0, NA_CHUNK_SIZE * 2, 7), 0);
}

static void
teardown(void)
{
	na_home_fini(&h);
}

static struct lcf_msg
msg(uint8_t type, uint32_t seq)
{
	return (struct lcf_msg){ .version = 1,
				 .type = type,
				 .node = 1,
				 .thread = 1,
				 .seq = seq,
				 .tag = na_home_tag(&h, 7) };
}

/* The stream of block 7's diff: the home's copy (zeros) is the twin. */
static uint32_t
make_stream(uint32_t changed)
{
	static const uint8_t twin[4096];
	uint8_t enc[4096];
	uint32_t at = 0;
	int n;

	memset(cur, 0, sizeof(cur));
	for (uint32_t i = 0; i < changed; i++)
		cur[(i * 523) % 4096] = (uint8_t)(i + 1);
	n = na_diff_encode(twin, cur, 4096, enc, 4000);
	cr_assert_gt(n, 0);
	cr_assert_eq(na_pack_put(stream, sizeof(stream), &at,
				 na_home_tag(&h, 7), enc, (uint16_t)n),
		     0);
	return at;
}

static void
frame(uint32_t seq, uint32_t off, uint32_t total)
{
	struct lcf_msg m = msg(NA_MSG_DIFF, seq);
	uint32_t len = total - off < 1400 ? total - off : 1400;

	m.aux = off;
	m.copyset = total;
	m.len = (uint16_t)len;
	na_out_reset(&out);
	na_home_handle(&h, &m, stream + off, (uint16_t)len, &out);
}

static void
lock_evict(uint32_t seq)
{
	struct lcf_msg m = msg(LCF_T_EVICT_MODIFIED, seq);

	h.blk[7].gs = LCF_GS_MODIFIED;
	h.blk[7].cs = 0x2;
	na_out_reset(&out);
	na_home_handle(&h, &m, NULL, 0, &out);
	cr_assert_eq(out.n, 1);
}

TestSuite(home_diff, .init = setup, .fini = teardown);

Test(home_diff, eight_bytes_refused_without_lock_then_applied_identical)
{
	uint32_t total = make_stream(8);

	cr_assert_lt(total, 64u);
	frame(3, 0, total);
	cr_assert_eq(out.n, 0);
	cr_assert_eq(h.st.diffs_refused, 1);
	lock_evict(3);
	frame(3, 0, total);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_DIFF_ACK);
	cr_assert_eq(out.m[0].msg.aux, 0);
	cr_assert_eq(memcmp(h.mem + 7 * 4096, cur, 4096), 0);
	cr_assert_eq(h.st.diffs_applied, 1);
	/* a duplicate: ACKed again, applied once */
	frame(3, 0, total);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(h.st.diffs_applied, 1);
	cr_assert_eq(memcmp(h.mem + 7 * 4096, cur, 4096), 0);
}

Test(home_diff, frames_out_of_order_applied_when_whole)
{
	uint32_t total = make_stream(700); /* about 3.5 KB: 3 frames */

	cr_assert_gt(total, 2800u);
	lock_evict(5);
	frame(5, 2800, total);
	cr_assert_eq(out.n, 1);
	frame(5, 0, total);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(h.st.diffs_applied, 0);
	frame(5, 1400, total);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.aux, 1400);
	cr_assert_eq(h.st.diffs_applied, 1);
	cr_assert_eq(memcmp(h.mem + 7 * 4096, cur, 4096), 0);
}
