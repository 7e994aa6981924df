/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * na-sim's cost model: an application's op_ns comes from its own
 * instructions per DSM call at the profile's rate, and a measured --cost
 * figure still wins (docs/SIMULATION.md "Applications and the cost model").
 */
#include <errno.h>

#include <criterion/criterion.h>

#include "na_sim_cost.h"
#include "topo.h"

Test(sim_cost, an_app_takes_its_own_op_ns_at_the_profiles_rate)
{
	cr_assert_eq(na_sim_cost_select("paper"), 0);
	cr_assert_eq(na_sim_cost_for_app("pagerank"), 0);
	cr_assert_eq(na_sim_cost_profile()->op_ns, 94); /* 207 / 2.2 */
	cr_assert_eq(na_sim_cost_select("paper"), 0);
	cr_assert_eq(na_sim_cost_for_app("kv"), 0);
	cr_assert_eq(na_sim_cost_profile()->op_ns, 426); /* 939 / 2.2 */
	cr_assert_eq(na_sim_cost_select("local"), 0);
	cr_assert_eq(na_sim_cost_for_app("tpcc"), 0);
	cr_assert_eq(na_sim_cost_profile()->op_ns, 834); /* 579 / 0.694 */
}

Test(sim_cost, another_workload_keeps_the_profiles_op_ns)
{
	cr_assert_eq(na_sim_cost_select("paper"), 0);
	cr_assert_eq(na_sim_cost_for_app("counter"), 0);
	cr_assert_eq(na_sim_cost_profile()->op_ns, 514);
	cr_assert_eq(na_sim_cost_for_app(NULL), 0);
	cr_assert_eq(na_sim_cost_profile()->op_ns, 514);
}

Test(sim_cost, a_measured_op_ns_wins_over_the_apps)
{
	cr_assert_eq(na_sim_cost_select("local"), 0);
	cr_assert_eq(na_sim_cost_for_app("pagerank"), 0);
	cr_assert_eq(na_sim_cost_set("op_ns=700"), 0);
	cr_assert_eq(na_sim_cost_profile()->op_ns, 700);
}

Test(sim_cost, without_a_profile_an_app_is_refused)
{
	cr_assert_eq(na_sim_cost_select("none"), 0);
	cr_assert_eq(na_sim_cost_for_app("kv"), -EINVAL);
	cr_assert_null(na_sim_cost_profile());
}

/* `paper` runs the paper's switch (375K blocks over 10 ways), within what
 * the "tofino" topology profile admits; `local` keeps the clusters'. */
Test(sim_cost, the_paper_profile_has_the_papers_switch)
{
	const struct topo_profile *t = topo_profile_find("tofino");
	const struct na_sim_cost_profile *p;

	cr_assert_eq(na_sim_cost_select("paper"), 0);
	p = na_sim_cost_profile();
	cr_assert_eq((uint64_t)p->sw_ways * p->sw_slots, 375000);
	cr_assert_leq(p->sw_ways, t->max_ways);
	cr_assert_leq((uint64_t)p->sw_ways * p->sw_slots, t->max_blocks);
	cr_assert_eq(na_sim_cost_select("local"), 0);
	cr_assert_eq(na_sim_cost_profile()->sw_ways, 0);
}

/* A frame's agent service takes the shared CPU from when a thread starts
 * on it (na_sim_net queues the frames): its wait counts from its arrival,
 * and the CPU is free again at the service's end. */
Test(sim_cost, an_agent_takes_the_cpu_when_it_starts)
{
	const struct na_sim_cost_profile *p;
	uint64_t end;

	cr_assert_eq(na_sim_cost_select("local"), 0);
	p = na_sim_cost_profile();
	cr_assert_eq(na_sim_cost_agent_threads(), p->agent_threads);
	end = na_sim_cost_agent(1000, 50000, false);
	cr_assert_eq(end, 50000 + p->rx_ns);
	cr_assert_eq(na_sim_cost_busy()->agent_wait, 49000);
	cr_assert_eq(na_sim_cost_uplink(1, 64, end),
		     end + p->tx_ns + p->hop_ns);
	cr_assert_eq(na_sim_cost_busy()->cpu_wait, 0);
}

/* A frame that wakes its node's sleeping agent thread pays the wake-up on
 * top of its service, on the shared CPU; one that found the thread busy
 * does not. */
Test(sim_cost, a_frame_that_wakes_its_node_pays_the_wake_up)
{
	const struct na_sim_cost_profile *p;
	uint64_t end;

	cr_assert_eq(na_sim_cost_select("local"), 0);
	p = na_sim_cost_profile();
	cr_assert_gt(p->wake_ns, 0);
	end = na_sim_cost_agent(0, 0, true);
	cr_assert_eq(end, p->rx_ns + p->wake_ns);
	cr_assert_eq(na_sim_cost_agent(0, 0, false), end + p->rx_ns);
	cr_assert_eq(na_sim_cost_busy()->wakes, 1);
	cr_assert_eq(na_sim_cost_busy()->agent, 2 * p->rx_ns + p->wake_ns);
	cr_assert_eq(na_sim_cost_set("wake_ns=7"), 0);
	cr_assert_eq(na_sim_cost_profile()->wake_ns, 7);
	cr_assert_eq(na_sim_cost_select("paper"), 0);
	cr_assert_eq(na_sim_cost_profile()->wake_ns, 0);
}

/* The measured phase's counters leave out what came before the mark (an
 * application's loading and warm-up): sim.json's `measured` member. */
Test(sim_cost, the_measured_counters_start_at_the_mark)
{
	struct na_sim_cost_busy m;

	cr_assert_eq(na_sim_cost_select("local"), 0);
	na_sim_cost_agent(0, 0, true); /* warm-up: a wake-up, two frames */
	na_sim_cost_agent(0, 0, false);
	na_sim_cost_uplink(1, 64, 0);
	na_sim_cost_app(0);
	na_sim_cost_mark(1000000);
	na_sim_cost_measured(&m);
	cr_assert_eq(m.wakes + m.rx_frames + m.frames + m.app_calls, 0);
	cr_assert_eq(m.agent + m.tx + m.app + m.agent_wait, 0);
	na_sim_cost_agent(2000000, 2000000, true);
	na_sim_cost_agent(2000000, 2000000, false);
	na_sim_cost_agent(2000000, 2000000, false);
	na_sim_cost_uplink(1, 64, 2000000);
	na_sim_cost_measured(&m);
	cr_assert_eq(m.wakes, 1);
	cr_assert_eq(m.rx_frames, 3);
	cr_assert_eq(m.frames, 1);
	cr_assert_eq(m.app_calls, 0);
	cr_assert_eq(na_sim_cost_busy()->wakes, 2);
	cr_assert_eq(na_sim_cost_busy()->rx_frames, 5);
	/* A later mark (the last node to start) moves the start. */
	na_sim_cost_mark(3000000);
	na_sim_cost_measured(&m);
	cr_assert_eq(m.wakes + m.rx_frames + m.frames, 0);
}

/* Without a mark the measured counters are the whole run's. */
Test(sim_cost, without_a_mark_the_whole_run_is_measured)
{
	struct na_sim_cost_busy m;

	cr_assert_eq(na_sim_cost_select("paper"), 0);
	na_sim_cost_agent(0, 0, true);
	na_sim_cost_measured(&m);
	cr_assert_eq(m.wakes, 1);
	cr_assert_eq(m.rx_frames, 1);
}
