/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The policy decision of an access (na_voh_decide, na_voh_int.h):
 * invalidate, validate-on-hit, TTL; docs/VALIDATE.md.
 */
#include <criterion/criterion.h>

#include "na_voh_int.h"

#define V DSM_POLICY_VALIDATE
#define T DSM_POLICY_TTL

Test(voh_policy, no_region_is_the_invalidation_protocol)
{
	cr_assert_eq(na_voh_decide(false, V, 0, false, true, 0),
		     NA_VOH_COHERENT);
	cr_assert_eq(na_voh_decide(false, T, 10, true, false, 0),
		     NA_VOH_COHERENT);
}

Test(voh_policy, writes_update)
{
	cr_assert_eq(na_voh_decide(true, V, 0, true, false, 0), NA_VOH_UPDATE);
	cr_assert_eq(na_voh_decide(true, T, 10, true, true, 1), NA_VOH_UPDATE);
}

Test(voh_policy, ttl)
{
	cr_assert_eq(na_voh_decide(true, T, 10, false, true, 9),
		     NA_VOH_TTL_HIT);
	cr_assert_eq(na_voh_decide(true, T, 10, false, true, 10),
		     NA_VOH_FETCH); /* expired */
	cr_assert_eq(na_voh_decide(true, T, 10, false, false, 0), NA_VOH_FETCH);
}

Test(voh_policy, validate)
{
	cr_assert_eq(na_voh_decide(true, V, 0, false, true, 0), NA_VOH_CHECK);
	cr_assert_eq(na_voh_decide(true, V | DSM_POLICY_RPC_CHECK, 0, false,
				   true, 5),
		     NA_VOH_CHECK);
	cr_assert_eq(na_voh_decide(true, V, 0, false, false, 0), NA_VOH_FETCH);
}

/* A copy is served only while younger than NA_VOH_LIFE_NS, stamped at
 * the switch or at its home: a home stamp (ADD set count, version) comes
 * round too, after 65,536 stays in the switch whose writes the home's
 * version does not count (lib/model/vohepoch.pml HSTAMP). */
Test(voh_policy, every_stamp_has_a_lifetime)
{
	uint64_t t0 = 1000;

	cr_assert(na_voh_fresh(t0, t0 + NA_VOH_LIFE_NS - 1));
	cr_assert_not(na_voh_fresh(t0, t0 + NA_VOH_LIFE_NS));
	cr_assert_not(na_voh_fresh(t0, t0 + 10 * NA_VOH_LIFE_NS));
}

/* A switch stamp is kept only if taken with the write lock free and below
 * the count's top: at 0xffff the switch's count no longer moves, so a copy
 * stamped there would validate after any number of writes. */
Test(voh_policy, a_saturated_switch_stamp_is_not_kept)
{
	cr_assert(na_voh_sw_keep(NA_VOH_SW | 0x1f400000, false));
	cr_assert(na_voh_sw_keep(NA_VOH_SW | 0x1f40fffe, false));
	cr_assert_not(na_voh_sw_keep(NA_VOH_SW | 0x1f40fffe, true));
	cr_assert_not(na_voh_sw_keep(NA_VOH_SW | 0x1f40ffff, false));
	cr_assert_not(na_voh_sw_keep(NA_VOH_SW | 0xffffffff, false));
}
