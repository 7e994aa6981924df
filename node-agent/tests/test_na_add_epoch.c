/* SPDX-License-Identifier: BSD-3-Clause
 *
 * VERSION's migration epoch (issue 28 item 4, lib/model/vohepoch.pml
 * BLOCK): the switch installs VERSION = (the ADD's seq & 0xffff) << 16
 * (PROTOCOL.md 4.10), so the home gives each block its own ADD seqs (the
 * epoch moves only with that block's migrations, not with a new set of
 * copies) and starts a block's migrations more than NA_ADD_GAP_NS apart:
 * its epoch comes round only after longer than a switch stamp is served.
 */
#include <errno.h>

#include <criterion/criterion.h>

#include "na_home.h"
#include "na_voh.h"
#include "test_na_topo.h"
#include "topo.h"

static struct topo t;
static struct na_home h;
static struct na_out out;

static void
setup(void)
{
	test_na_topo4(&t);
	cr_assert_eq(na_home_init(&h, &t, 0, NA_CHUNK_SIZE, 7), 0);
}

static void
teardown(void)
{
	na_home_fini(&h);
}

TestSuite(add_epoch, .init = setup, .fini = teardown);

/* The epoch the switch's VERSION takes from an ADD (PROTOCOL.md 4.10). */
static uint32_t
epoch(uint32_t seq)
{
	return seq & 0xffff;
}

/* Start migrating `idx` at `now`; the ADD's seq, or 0 when refused. */
static uint32_t
start(uint32_t idx, uint64_t now)
{
	na_out_reset(&out);
	if (na_home_migrate_start(&h, idx, now, &out))
		return 0;
	cr_assert_eq(out.n, 1);
	cr_assert_eq(out.m[0].msg.type, LCF_T_ADD_TO_SWITCH);
	return out.m[0].msg.seq;
}

/* The ADD of `idx` installed it, then a REMOVE brought it home. */
static void
installed_and_back(uint32_t idx, uint32_t seq)
{
	struct lcf_msg m = { .version = 1,
			     .type = LCF_T_MIGRATE_ACK,
			     .seq = seq,
			     .tag = na_home_tag(&h, idx),
			     .flags = LCF_F_IN_SWITCH,
			     .aux = (uint32_t)LCF_T_ADD_TO_SWITCH << 24 };

	na_out_reset(&out);
	na_home_handle(&h, &m, NULL, 0, &out);
	cr_assert_eq(h.blk[idx].owner, NA_OWN_SWITCH);
	h.blk[idx].owner = NA_OWN_HOME;
}

/* Other blocks' migrations do not move a block's epoch (the home-wide seq
 * did: 8 seqs per migration of any block, round after 8,192 of them). */
Test(add_epoch, is_the_blocks_own)
{
	uint32_t s1 = start(5, 0), s2;

	installed_and_back(5, s1);
	for (uint32_t i = 6; i < 9; i++)
		installed_and_back(i, start(i, 0));
	s2 = start(5, 10 * NA_ADD_GAP_NS);
	cr_assert_eq(epoch(s2), epoch(s1 + NA_ADD_COPY_SEQS));
	cr_assert_neq(epoch(s2), epoch(s1));
}

/* A new set of copies gets new ids but the same epoch; a late OK of the
 * first set still counts. */
Test(add_epoch, a_new_set_keeps_it)
{
	uint32_t s1 = start(5, 0), s2 = 0;

	for (uint32_t i = 1; i <= NA_ADD_COPY_SEQS; i++) {
		na_out_reset(&out);
		cr_assert_eq(na_home_migrate_resend(&h, 5, i * 1000, &out), 0);
		s2 = out.m[0].msg.seq;
	}
	cr_assert_neq(s2, s1);
	cr_assert_eq(epoch(s2), epoch(s1));
	installed_and_back(5, s1 + 3);
}

/* Never two migrations of a block within NA_ADD_GAP_NS (2^20 ns units:
 * two units apart is more than 2^20 ns). */
Test(add_epoch, migrations_are_spaced)
{
	uint64_t t0 = 5 * NA_ADD_GAP_NS - 1;

	installed_and_back(5, start(5, t0));
	cr_assert_eq(start(5, t0 + NA_ADD_GAP_NS), 0, "a gap of 2^20 ns");
	cr_assert_eq(h.blk[5].owner, NA_OWN_HOME);
	cr_assert_neq(start(5, t0 + NA_ADD_GAP_NS + 1), 0);
	cr_assert_neq(start(6, t0 + 1), 0, "another block's: not held back");
}

/* The bound by construction: migrating a block as often as the home
 * allows, its epoch comes round after 8,192 migrations, later than a
 * switch stamp is served (NA_VOH_LIFE_NS). */
Test(add_epoch, comes_round_later_than_a_stamp_lives)
{
	uint32_t first = 0, n = 0, s;
	uint64_t now = 0, t_first = 0;

	for (;;) {
		s = start(5, now);
		if (!s) {
			now += NA_ADD_GAP_NS / 4;
			continue;
		}
		installed_and_back(5, s);
		if (n++ == 0) {
			first = epoch(s);
			t_first = now;
		} else if (epoch(s) == first) {
			break;
		}
	}
	cr_assert_eq(n - 1, 65536 / NA_ADD_COPY_SEQS);
	cr_assert_gt(now - t_first, NA_VOH_LIFE_NS);
}

/* A recovery rebuilt the block: no migration within NA_ADD_HOLD_NS of the
 * rebuild (a request copy sent before the reports may be in flight,
 * lib/model/qfault.pml RHOLD); the first one after clears the hold. */
Test(add_epoch, a_rebuild_holds_the_next_migration)
{
	uint64_t t0 = 7ull << 20;

	na_add_hold_rebuilt(&h.blk[5], t0);
	cr_assert_eq(start(5, t0), 0);
	cr_assert_eq(start(5, t0 + NA_ADD_HOLD_NS), 0, "rounded down: short");
	cr_assert_eq(start(5, t0 + NA_ADD_HOLD_NS + (1ull << 20)), 0);
	cr_assert_neq(start(5, t0 + NA_ADD_HOLD_NS + (2ull << 20)), 0);
	cr_assert_not(h.blk[5].rec_held);
}
