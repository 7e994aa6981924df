/* SPDX-License-Identifier: BSD-3-Clause
 *
 * SABRes at the home (na_sabres.h): the ATT's abort rules, validation,
 * reordering, duplicates, a full table, and the request/reply balance,
 * driven message by message; and the home agent's write-back snoop.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "na_home.h"
#include "na_msg.h"
#include "na_sabres.h"
#include "test_na_topo.h"
#include "topo.h"

#define MEM  (64u * 1024u)
#define OBJ  4096u /* object offset in MEM */
#define SIZE 8192u /* 8 chunks */

static struct na_sabres s;
static uint8_t mem[MEM];
static struct na_out out;

static void
setup(void)
{
	na_sabres_init(&s);
	memset(mem, 0xab, sizeof(mem));
	memset(mem + OBJ, 0, 8); /* version 0 */
}

static void
set_version(uint64_t v)
{
	for (int i = 0; i < 8; i++)
		mem[OBJ + i] = (uint8_t)(v >> (8 * i));
}

static void
send(uint8_t type, uint16_t node, uint32_t seq, uint32_t aux, uint64_t off,
     uint32_t len)
{
	uint64_t addr = off; /* home 0 */
	struct lcf_msg m = { .version = 1,
			     .type = type,
			     .node = node,
			     .thread = 2,
			     .seq = seq,
			     .aux = aux,
			     .len = NA_SAB_REQ_LEN };
	uint8_t p[NA_SAB_REQ_LEN];

	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(addr >> (56 - 8 * i));
	for (int i = 0; i < 4; i++)
		p[8 + i] = (uint8_t)(len >> (24 - 8 * i));
	na_out_reset(&out);
	na_sabres_handle(&s, mem, MEM, 0, &m, p, sizeof(p), &out);
	cr_assert_eq(out.overflow, 0);
}

static void
reg(uint32_t seq)
{
	send(NA_MSG_SABRE_REG, 1, seq, SIZE / NA_SAB_CHUNK, OBJ, SIZE);
}

static void
rd(uint32_t seq, uint32_t c)
{
	send(NA_MSG_SABRE_READ, 1, seq, c, OBJ, SIZE);
}

/* One reply: SABRE_DATA of chunk c, ok or failed. */
static void
expect_data(uint32_t c, bool ok)
{
	cr_assert_eq(out.n >= 1, true);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_SABRE_DATA);
	cr_assert_eq(out.m[0].msg.aux & 0xffff, c);
	cr_assert_eq(!(out.m[0].msg.flags & LCF_F_FAIL), ok);
	if (ok) {
		cr_assert_eq(out.m[0].msg.len, NA_SAB_CHUNK);
		cr_assert_eq(out.m[0].payload, mem + OBJ + c * NA_SAB_CHUNK);
	}
}

static void
expect_valid(const struct na_out_msg *x, uint8_t reason)
{
	cr_assert_eq(x->msg.type, NA_MSG_SABRE_VALID);
	cr_assert_eq(x->msg.aux >> 24, reason);
	cr_assert_eq(!!(x->msg.flags & LCF_F_FAIL), reason != 0);
}

TestSuite(na_sabres, .init = setup);

Test(na_sabres, clean_read_one_reply_per_request)
{
	reg(1);
	cr_assert_eq(out.n, 0, "no validation before the data");
	for (uint32_t c = 0; c < 8; c++) {
		rd(1, c);
		expect_data(c, true);
		cr_assert_eq(out.n, c == 7 ? 2u : 1u);
	}
	expect_valid(&out.m[1], NA_SAB_OK);
	cr_assert_eq(out.m[1].msg.aux & 0xffff, 8, "chunks under watch");
	cr_assert_eq(s.st.validations_ok, 1);
}

Test(na_sabres, write_to_read_chunk_in_window_aborts)
{
	reg(1);
	rd(1, 5);
	rd(1, 3);
	na_sabres_note_write(&s, OBJ + 5 * NA_SAB_CHUNK + 10, 100);
	rd(1, 0); /* the version: the window closes too late */
	expect_data(0, false);
	cr_assert_eq(out.n, 2, "data FAIL and the validation at once");
	expect_valid(&out.m[1], NA_SAB_WRITTEN);
	for (uint32_t c = 1; c < 8; c++) {
		if (c == 3 || c == 5)
			continue;
		rd(1, c);
		expect_data(c, false);
		cr_assert_eq(out.n, 1, "one reply per request, no more");
	}
	cr_assert_eq(s.st.abort_written, 1);
}

Test(na_sabres, write_to_unread_chunk_is_harmless)
{
	reg(1);
	rd(1, 5);
	na_sabres_note_write(&s, OBJ + 6 * NA_SAB_CHUNK, NA_SAB_CHUNK);
	for (uint32_t c = 0; c < 8; c++)
		if (c != 5)
			rd(1, c);
	expect_valid(&out.m[1], NA_SAB_OK);
}

Test(na_sabres, write_after_version_read_is_left_to_the_validation)
{
	reg(1);
	rd(1, 0);
	rd(1, 4);
	/* A writer must make the version odd first: that write is seen. */
	na_sabres_note_write(&s, OBJ + 4 * NA_SAB_CHUNK, 8);
	for (uint32_t c = 1; c < 8; c++)
		if (c != 4)
			rd(1, c);
	expect_valid(&out.m[1], NA_SAB_OK);
}

Test(na_sabres, odd_version_aborts)
{
	set_version(3);
	reg(1);
	rd(1, 2);
	expect_data(2, true);
	rd(1, 0);
	expect_data(0, false);
	expect_valid(&out.m[1], NA_SAB_ODD);
}

Test(na_sabres, base_write_same_version_passes)
{
	set_version(4);
	reg(1);
	rd(1, 0);
	na_sabres_note_write(&s, OBJ, 1400); /* a write-back, unchanged */
	for (uint32_t c = 1; c < 8; c++)
		rd(1, c);
	expect_valid(&out.m[1], NA_SAB_OK);
	cr_assert_eq(s.st.base_invalidations, 1);
}

Test(na_sabres, base_write_new_version_aborts_at_validation)
{
	set_version(4);
	reg(1);
	rd(1, 0);
	na_sabres_note_write(&s, OBJ, 8);
	set_version(5);
	for (uint32_t c = 1; c < 8; c++)
		rd(1, c);
	expect_valid(&out.m[1], NA_SAB_CHANGED);
	cr_assert_eq(s.st.abort_changed, 1);
}

Test(na_sabres, registration_after_the_data)
{
	for (uint32_t c = 0; c < 8; c++)
		rd(1, c);
	cr_assert_eq(out.n, 1, "no validation without the registration");
	reg(1);
	cr_assert_eq(out.n, 1);
	expect_valid(&out.m[0], NA_SAB_OK);
}

Test(na_sabres, duplicates_and_stale_get_no_reply)
{
	reg(2);
	rd(2, 1);
	rd(2, 1);
	cr_assert_eq(out.n, 0);
	reg(2);
	cr_assert_eq(out.n, 0);
	rd(1, 3); /* an older SABRe of the same thread */
	cr_assert_eq(out.n, 0);
	cr_assert_eq(s.st.duplicates, 2);
	cr_assert_eq(s.st.stale, 1);
	reg(3); /* a new one restarts the entry */
	rd(3, 1);
	expect_data(1, true);
}

Test(na_sabres, full_table_refuses)
{
	for (uint16_t n = 0; n < NA_SAB_ATT; n++)
		send(NA_MSG_SABRE_REG, (uint16_t)(n % 32), 1, 8, OBJ, SIZE),
			s.att[n].thread = (uint16_t)(100 + n);
	send(NA_MSG_SABRE_READ, 5, 1, 0, OBJ, SIZE);
	expect_data(0, false);
	cr_assert_eq(out.m[0].msg.aux >> 24, NA_SAB_FULL);
	send(NA_MSG_SABRE_REG, 5, 1, 8, OBJ, SIZE);
	expect_valid(&out.m[0], NA_SAB_FULL);
	cr_assert_eq(s.st.att_full, 2);
}

Test(na_sabres, bad_requests)
{
	send(NA_MSG_SABRE_READ, 1, 1, 8, OBJ, SIZE); /* chunk out of range */
	expect_data(8, false);
	send(NA_MSG_SABRE_REG, 1, 1, 0, MEM - 8, SIZE); /* past the end */
	expect_valid(&out.m[0], NA_SAB_BAD);
	send(NA_MSG_SABRE_REG, 1, 1, 0, OBJ, 4); /* no room for a version */
	expect_valid(&out.m[0], NA_SAB_BAD);
	cr_assert_eq(s.st.bad, 3);
}

Test(na_sabres, plain_reads_are_stateless)
{
	send(NA_MSG_RREAD, 1, 9, 1, OBJ, 1500);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_SABRE_DATA);
	cr_assert_eq(out.m[0].msg.len, 1500 - NA_SAB_CHUNK);
	for (uint32_t i = 0; i < NA_SAB_ATT; i++)
		cr_assert_eq(s.att[i].used, false);
}

/* Random interleavings: replies never outnumber requests, and a read
 * validated OK got chunks that equal one state of memory. */
Test(na_sabres, random_balance_and_no_torn_validation)
{
	uint32_t rng = 12345, valid_ok = 0;

	for (uint32_t c = 0; c < 8; c++) /* version 0's contents */
		memset(mem + OBJ + c * NA_SAB_CHUNK + 8, 0, NA_SAB_CHUNK - 8);

	for (uint32_t seq = 1; seq <= 2000; seq++) {
		uint8_t got[SIZE];
		uint32_t order[8], req = 0, rep = 0;
		bool v_ok = false;

		for (uint32_t i = 0; i < 8; i++)
			order[i] = i;
		for (uint32_t i = 7; i > 0; i--) {
			uint32_t j, x;

			rng = rng * 1103515245u + 12345u;
			j = (rng >> 16) % (i + 1);
			x = order[i];
			order[i] = order[j];
			order[j] = x;
		}
		for (uint32_t k = 0; k <= 8; k++) {
			rng = rng * 1103515245u + 12345u;
			if ((rng >> 16) % 4 == 0) {
				/* A writer: odd, every chunk, even. */
				uint64_t v = na_sab_version(mem + OBJ);

				na_sabres_note_write(&s, OBJ, 8);
				set_version(v + 1);
				for (uint32_t c = 0; c < 8; c++) {
					na_sabres_note_write(
						&s, OBJ + c * NA_SAB_CHUNK + 8,
						NA_SAB_CHUNK - 8);
					memset(mem + OBJ + c * NA_SAB_CHUNK + 8,
					       (int)(v + 2), NA_SAB_CHUNK - 8);
				}
				na_sabres_note_write(&s, OBJ, 8);
				set_version(v + 2);
			}
			if (k == 8)
				send(NA_MSG_SABRE_REG, 1, seq, 8, OBJ, SIZE);
			else
				rd(seq, order[k]);
			req++;
			for (uint32_t i = 0; i < out.n; i++) {
				const struct na_out_msg *x = &out.m[i];

				rep++;
				if (x->msg.type == NA_MSG_SABRE_DATA &&
				    !(x->msg.flags & LCF_F_FAIL))
					memcpy(got + (x->msg.aux & 0xffff) *
							       NA_SAB_CHUNK,
					       x->payload, x->msg.len);
				if (x->msg.type == NA_MSG_SABRE_VALID)
					v_ok = !(x->msg.flags & LCF_F_FAIL);
			}
			cr_assert_leq(rep, req);
		}
		cr_assert_eq(rep, req, "every request answered once");
		if (!v_ok)
			continue;
		valid_ok++;
		for (uint32_t c = 0; c < 8; c++)
			cr_assert_eq(got[c * NA_SAB_CHUNK + 8],
				     (uint8_t)(na_sab_version(got) & 0xff),
				     "seq %u chunk %u torn", seq, c);
	}
	cr_assert_gt(valid_ok, 100);
	cr_assert_gt(s.st.abort_written + s.st.abort_odd + s.st.abort_changed,
		     10);
}

/* Through the home agent: a write-back inside a write event is snooped. */
Test(na_sabres, home_writeback_snooped)
{
	struct topo t;
	struct na_home h;
	struct lcf_msg m;
	uint8_t p[NA_SAB_REQ_LEN] = { 0 }, data[1400] = { 0 };

	test_na_topo4(&t);
	cr_assert_eq(na_home_init(&h, &t, 0, NA_CHUNK_SIZE, 7), 0);
	p[10] = 0x20; /* len 8192, addr 0 */
	m = (struct lcf_msg){ .version = 1,
			      .type = NA_MSG_SABRE_READ,
			      .node = 1,
			      .thread = 1,
			      .seq = 1,
			      .aux = 1,
			      .tag = na_home_tag(&h, 0),
			      .len = 12 };
	na_out_reset(&out);
	na_home_handle(&h, &m, p, 12, &out);
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, NA_MSG_SABRE_DATA);
	/* node 2 takes block 0 for writing, then writes segment 0 home. */
	m = (struct lcf_msg){ .version = 1,
			      .type = LCF_T_WRITE_MISS,
			      .node = 2,
			      .thread = 1,
			      .seq = 1,
			      .tag = na_home_tag(&h, 0) };
	na_out_reset(&out);
	na_home_handle(&h, &m, NULL, 0, &out);
	m.type = NA_MSG_WB;
	m.aux = 0;
	m.len = 1400;
	na_out_reset(&out);
	na_home_handle(&h, &m, data, 1400, &out);
	cr_assert_eq(h.st.writebacks, 1);
	cr_assert_eq(h.sab.st.abort_written, 1, "chunk 1 was read");
	na_home_fini(&h);
}
