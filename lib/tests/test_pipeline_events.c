/* SPDX-License-Identifier: BSD-3-Clause
 *
 * One event (requester, seq) seen more than once: a late copy of a request
 * whose unlock has executed is NACKed (stale_request), and a retransmission
 * that passes on the scoreboard names the first pass's data provider
 * (provider_per_event). docs/PROTOCOL.md 4.2, Interpretations
 * (stale request) and (data provider per event).
 * Topology pcap3: nodes 0, 1, 2; blocks on home node 2.
 */
#include <criterion/criterion.h>

#include "lcf_internal.h"
#include "lcf_test_util.h"

static void
setup(void)
{
	tu_setup("pcap3.json");
}

TestSuite(stale_request, .init = setup, .fini = tu_teardown);
TestSuite(provider_per_event, .init = setup, .fini = tu_teardown);

static const uint8_t requests[] = {
	LCF_T_READ_MISS,    LCF_T_WRITE_MISS,     LCF_T_WRITE_SHARED,
	LCF_T_EVICT_SHARED, LCF_T_EVICT_MODIFIED,
};

static struct lcf_result
request(uint8_t type, uint16_t node, uint32_t seq, uint64_t tag)
{
	struct lcf_msg m = tu_msg(type, node, 0, seq, tag);
	struct lcf_result r;

	tu_send(&m, &r, NULL);
	return r;
}

/* READ_UNLOCK that leaves the block Unshared with an empty copyset. */
static void
read_unlock(uint16_t node, uint32_t seq, uint64_t tag)
{
	struct lcf_msg m = tu_msg(LCF_T_READ_UNLOCK, node, 0, seq, tag);
	struct lcf_result r;

	m.gstatus = LCF_GS_UNSHARED;
	tu_send(&m, &r, NULL);
	cr_assert_eq(r.out.type, LCF_T_UNLOCK_ACK);
}

/* A granted READ_MISS of an Unshared block goes home; then its unlock. */
static void
event(uint16_t node, uint32_t seq, uint64_t tag)
{
	struct lcf_result r = request(LCF_T_READ_MISS, node, seq, tag);

	cr_assert_eq(r.action, LCF_A_FWD_HOME, "seq %#x not granted", seq);
	read_unlock(node, seq, tag);
	cr_assert_eq(tu_requester(node, 0).last_unlock, seq);
	cr_assert_eq(tu_block(tag).lock, 0, "unlock released the lock");
}

/* Every request type with `seq` is NACKed as stale and changes nothing. */
static void
assert_stale(uint16_t node, uint32_t seq, uint64_t tag)
{
	for (size_t i = 0; i < sizeof(requests); i++) {
		uint64_t before = lcf_pipeline_digest(tu_p);
		uint64_t n = tu_count(LCF_A_NACK_STALE);
		struct lcf_msg m = tu_msg(requests[i], node, 0, seq, tag);
		struct lcf_result r;
		int passes;

		m.gstatus = LCF_GS_SHARED;
		m.copyset = 0x5;
		tu_send(&m, &r, &passes);
		cr_assert_eq(passes, 1);
		cr_assert_eq(r.action, LCF_A_NACK_STALE, "type %#x seq %#x",
			     requests[i], seq);
		cr_assert_eq(r.out.type, LCF_T_NACK);
		cr_assert_eq(r.out.flags, LCF_F_IN_SWITCH | LCF_F_FAIL);
		cr_assert_eq(r.out.aux, (uint32_t)requests[i] << 24);
		cr_assert_eq(r.out.seq, seq);
		/* before the LOCK stage: the packet's own gstatus/copyset */
		cr_assert_eq(r.out.gstatus, LCF_GS_SHARED);
		cr_assert_eq(r.out.copyset, 0x5u);
		cr_assert_eq(r.to_nodes, BIT(node));
		cr_assert(r.from_switch);
		cr_assert_eq(tu_count(LCF_A_NACK_STALE), n + 1);
		cr_assert_eq(lcf_pipeline_digest(tu_p), before,
			     "a stale request changed a register");
	}
}

Test(stale_request, late_copy_after_unlock_is_nacked)
{
	uint64_t tag = tu_tag(2, 1);

	tu_add(tag, LCF_GS_UNSHARED, 0);
	event(0, 5, tag);
	assert_stale(0, 5, tag);               /* the same event */
	assert_stale(0, 4, tag);               /* an older one */
	assert_stale(0, 5 - 0x7fffffffu, tag); /* the oldest still before */
	cr_assert_eq(tu_count(LCF_A_RETRANSMIT_PASS), 0);
	event(0, 6, tag); /* the next event still works */
}

Test(stale_request, other_requesters_are_not_affected)
{
	uint64_t tag = tu_tag(2, 1);

	tu_add(tag, LCF_GS_UNSHARED, 0);
	event(0, 5, tag);
	event(1, 5, tag); /* LAST-UNLOCK is per requester */
	if (tu_topo.threads_per_node > 1) {
		struct lcf_msg m = tu_msg(LCF_T_READ_MISS, 0, 1, 5, tag);
		struct lcf_result r;

		tu_send(&m, &r, NULL);
		cr_assert_eq(r.action, LCF_A_FWD_HOME);
	}
}

Test(stale_request, copy_before_unlock_still_passes_on_score)
{
	uint64_t tag = tu_tag(2, 1);
	struct lcf_result r;

	tu_add(tag, LCF_GS_UNSHARED, 0);
	cr_assert_eq(request(LCF_T_WRITE_MISS, 0, 7, tag).action,
		     LCF_A_FWD_HOME);
	r = request(LCF_T_WRITE_MISS, 0, 7, tag); /* retransmission */
	cr_assert_eq(r.action, LCF_A_FWD_HOME, "the event is not over yet");
	cr_assert_eq(tu_count(LCF_A_RETRANSMIT_PASS), 1);
	cr_assert_eq(tu_count(LCF_A_NACK_STALE), 0);
}

Test(stale_request, tag_miss_goes_home)
{
	uint64_t tag = tu_tag(2, 1), absent = tu_tag(2, 2);
	struct lcf_result r;

	tu_add(tag, LCF_GS_UNSHARED, 0);
	event(0, 5, tag);
	r = request(LCF_T_READ_MISS, 0, 5, absent);
	cr_assert_eq(r.action, LCF_A_TAG_MISS_HOME,
		     "the home agent's LAST-EXECUTED judges blocks it owns");
	cr_assert_eq(r.to_nodes, BIT(2));
}

Test(stale_request, serial_arithmetic_wraps)
{
	uint64_t tag = tu_tag(2, 1);

	tu_add(tag, LCF_GS_UNSHARED, 0);
	/* LAST-UNLOCK 0 -> ... -> 0xfffffffe: each step is "after", also per
	 * seq parity (the SCOREBOARD entries) */
	event(0, 0x40000000u, tag);
	event(0, 0x7fffffffu, tag);
	event(0, 0xbfffffffu, tag);
	event(0, 0xc0000000u, tag);
	event(0, 0xfffffffeu, tag);
	assert_stale(0, 0xfffffffeu, tag);
	assert_stale(0, 0xfffffff0u, tag);
	event(0, 0xffffffffu, tag);
	event(0, 0, tag); /* 0 is after 0xffffffff */
	assert_stale(0, 0xffffffffu, tag);
	assert_stale(0, 0, tag);
	event(0, 1, tag);
}

/* ---- data provider per event ------------------------------------------- */

static uint16_t
write_miss_provider(uint16_t node, uint16_t thread, uint32_t seq, uint64_t tag,
		    bool retransmit)
{
	struct lcf_msg m = tu_msg(LCF_T_WRITE_MISS, node, thread, seq, tag);
	uint64_t passed = tu_count(LCF_A_RETRANSMIT_PASS);
	struct lcf_result r;

	tu_send(&m, &r, NULL);
	cr_assert_eq(r.action, LCF_A_MCAST_INVALIDATE);
	cr_assert_eq(tu_count(LCF_A_RETRANSMIT_PASS) - passed,
		     retransmit ? 1u : 0u, "passed on score: %d", retransmit);
	cr_assert(r.provider == 0 || r.provider == 1, "provider %u",
		  r.provider);
	return r.provider;
}

/*
 * Node 2 writes a block Shared by nodes 0 and 1, for many (thread, seq): the
 * retransmission passes on the scoreboard (the lock is its own) and must
 * name the first pass's provider. With a draw per pass about half of these
 * events would name another one.
 */
Test(provider_per_event, retransmission_names_the_same_provider)
{
	uint64_t tag = tu_tag(2, 1);
	unsigned chosen[2] = { 0, 0 }, events = 0;

	tu_add(tag, LCF_GS_SHARED, BIT(0) | BIT(1));
	for (uint16_t t = 0; t < tu_topo.threads_per_node; t++) {
		for (uint32_t seq = 1; seq <= 128; seq++) {
			struct lcf_msg u = tu_msg(LCF_T_WRITE_UNLOCK, 2, t, seq,
						  tag);
			uint64_t executed = tu_count(LCF_A_UNLOCK_EXEC);
			struct lcf_result r;
			uint16_t first, again;

			first = write_miss_provider(2, t, seq, tag, false);
			again = write_miss_provider(2, t, seq, tag, true);
			cr_assert_eq(again, first,
				     "thread %u seq %u: provider %u then %u", t,
				     seq, first, again);
			chosen[first]++;
			events++;
			/* back to Shared {0, 1} for the next event */
			u.gstatus = LCF_GS_SHARED;
			u.copyset = BIT(0) | BIT(1);
			tu_send(&u, &r, NULL);
			cr_assert_eq(tu_count(LCF_A_UNLOCK_EXEC), executed + 1);
		}
	}
	/* a hash of the event, as uniform as a draw over many events */
	cr_assert_geq(chosen[0], events / 4, "node 0 chosen %u of %u",
		      chosen[0], events);
	cr_assert_geq(chosen[1], events / 4, "node 1 chosen %u of %u",
		      chosen[1], events);
}

/* READ_MISS on Shared (unicast provider) follows the same rule. */
Test(provider_per_event, read_miss_retransmission_same_provider)
{
	uint64_t tag = tu_tag(2, 1);
	unsigned chosen[3] = { 0, 0, 0 };

	tu_add(tag, LCF_GS_SHARED, BIT(1) | BIT(2));
	for (uint32_t seq = 1; seq <= 128; seq++) {
		struct lcf_msg m = tu_msg(LCF_T_READ_MISS, 0, 0, seq, tag);
		struct lcf_result a, b;

		tu_send(&m, &a, NULL);
		tu_send(&m, &b, NULL);
		cr_assert_eq(a.action, LCF_A_FWD_PROVIDER);
		cr_assert_eq(b.action, LCF_A_FWD_PROVIDER);
		cr_assert_eq(b.provider, a.provider, "seq %u", seq);
		cr_assert_eq(a.to_nodes, BIT(a.provider));
		chosen[a.provider]++;
		m.type = LCF_T_READ_UNLOCK;
		m.gstatus = LCF_GS_SHARED;
		m.copyset = 0; /* READ_UNLOCK adds: keep {1, 2} */
		tu_send(&m, &a, NULL);
		cr_assert_eq(tu_block(tag).copyset, BIT(1) | BIT(2));
		cr_assert_eq(tu_block(tag).lock, 0);
	}
	cr_assert_eq(chosen[0], 0);
	cr_assert_geq(chosen[1], 32);
	cr_assert_geq(chosen[2], 32);
}

/*
 * The hash the P4 program reproduces (lib/p4/lcf_ways.p4 LcfLastUnlock,
 * topo_to_bfrt.py prov_k): CRC-32C of r << 32 | seq with init = seed, and
 * its seed term crc32c(1, 8 zero bytes) = 0x493c7d27 (test_bfrt.sh).
 */
Test(provider_per_event, hash_is_crc32c_of_the_event)
{
	uint64_t tag = tu_tag(2, 1);
	uint32_t cs = BIT(0) | BIT(1);

	cr_assert_eq(lcf_crc32c_u64(1, 0), 0x493c7d27u);
	/* linear: crc(seed, D) = crc(0, D) ^ crc(seed, 0) */
	cr_assert_eq(lcf_crc32c_u64(1, 0x123456789abcdefull),
		     lcf_crc32c_u64(0, 0x123456789abcdefull) ^
			     lcf_crc32c_u64(1, 0));
	tu_add(tag, LCF_GS_SHARED, cs);
	for (uint32_t seq = 1; seq <= 16; seq++) {
		uint32_t r = 2u *
			     tu_topo.threads_per_node; /* node 2, thread 0 */
		uint16_t want =
			lcf_random_node(cs,
					lcf_crc32c_u64(1, (uint64_t)r << 32 |
								  seq));
		struct lcf_msg u = tu_msg(LCF_T_WRITE_UNLOCK, 2, 0, seq, tag);
		struct lcf_result res;

		cr_assert_eq(write_miss_provider(2, 0, seq, tag, false), want,
			     "seq %u", seq);
		u.gstatus = LCF_GS_SHARED;
		u.copyset = cs;
		tu_send(&u, &res, NULL);
	}
}
