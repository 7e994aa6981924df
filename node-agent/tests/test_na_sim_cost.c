/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * na-sim's cost model: an application's op_ns comes from its own
 * instructions per DSM call at the profile's rate, and a measured --cost
 * figure still wins (docs/SIMULATION.md "Applications and the cost model").
 */
#include <errno.h>

#include <criterion/criterion.h>

#include "na_clock.h"
#include "na_sim_cost.h"
#include "na_sim_sched.h"
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
	na_sim_cost_app(0);
	na_sim_cost_uplink(1, 64, 0);
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

/* An application thread holds the CPU until it blocks, as Linux runs it:
 * DSM calls that neither send nor wait take no virtual time of their own,
 * and a frame that reached its node meanwhile waits for the whole burst
 * and the send that ends it (one turn, not one a call). */
Test(sim_cost, calls_until_a_send_are_one_turn)
{
	const struct na_sim_cost_profile *p;
	uint64_t sent, served;

	cr_assert_eq(na_sim_cost_select("local"), 0);
	p = na_sim_cost_profile();
	for (int i = 0; i < 10; i++)
		cr_assert_eq(na_sim_cost_app(0), 0);
	cr_assert_eq(na_sim_cost_busy()->app_calls, 10);
	sent = na_sim_cost_uplink(1, 64, 0);
	cr_assert_eq(sent, 10 * p->op_ns + p->tx_ns + p->hop_ns);
	served = na_sim_cost_agent(100, 100, true);
	cr_assert_eq(served, 10 * p->op_ns + p->tx_ns + p->rx_ns + p->wake_ns);
	/* The send's turn is the thread's: its next blocks wait for it. */
	cr_assert_eq(na_sim_cost_block(0), 10 * p->op_ns + p->tx_ns);
	cr_assert_eq(na_sim_cost_block(5), 5);
}

/* A thread that waits without sending books its calls there, and runs
 * again once they are done; an agent's send afterwards is its own. */
Test(sim_cost, calls_until_a_wait_are_one_turn)
{
	const struct na_sim_cost_profile *p;

	cr_assert_eq(na_sim_cost_select("local"), 0);
	p = na_sim_cost_profile();
	for (int i = 0; i < 5; i++)
		na_sim_cost_app(0);
	cr_assert_eq(na_sim_cost_block(1000), 1000 + 5 * p->op_ns);
	cr_assert_eq(na_sim_cost_uplink(2, 64, 1000),
		     1000 + 5 * p->op_ns + p->tx_ns + p->hop_ns);
	cr_assert_eq(na_sim_cost_busy()->cpu_wait, 5 * p->op_ns);
	cr_assert_eq(na_sim_cost_app_deferred_ns(), p->op_ns);
}

/* On a processor of its own (paper) a thread holds nothing: each call
 * runs its op_ns first, and nothing is left to book when it blocks. */
Test(sim_cost, on_its_own_processor_a_call_runs_first)
{
	const struct na_sim_cost_profile *p;

	cr_assert_eq(na_sim_cost_select("paper"), 0);
	p = na_sim_cost_profile();
	cr_assert_eq(na_sim_cost_app(0), p->op_ns);
	cr_assert_eq(na_sim_cost_app(p->op_ns), 2 * p->op_ns);
	cr_assert_eq(na_sim_cost_block(2 * p->op_ns), 2 * p->op_ns);
	cr_assert_eq(na_sim_cost_app_deferred_ns(), 0);
	cr_assert_eq(na_sim_cost_busy()->app_calls, 2);
}

/* Without a profile nothing costs time: na-sim's seeded runs unchanged. */
Test(sim_cost, without_a_profile_a_block_costs_nothing)
{
	cr_assert_eq(na_sim_cost_select("none"), 0);
	na_sim_cost_app(0);
	cr_assert_eq(na_sim_cost_block(42), 42);
	cr_assert_eq(na_sim_cost_uplink(1, 64, 42), 42);
}

/* In the scheduler: an application thread's burst of calls then a wait
 * (na-sim books at every park), and a frame due at its node meanwhile
 * whose event runs only once the thread gave the processor up. */
static uint64_t burst_woke, burst_served;

static void *
burst_thread(void *arg)
{
	(void)arg;
	for (int i = 0; i < 5; i++)
		na_sim_cost_app(0);
	na_sleep_until(na_now_ns()); /* woken at once, runs after its turn */
	burst_woke = na_now_ns();
	return NULL;
}

static void
burst_frame(void *ctx, void *arg)
{
	(void)ctx;
	(void)arg;
	burst_served = na_sim_cost_agent(100, na_now_ns(), true);
}

Test(sim_cost, a_frame_waits_for_the_threads_whole_burst)
{
	const struct na_sim_cost_profile *p;
	na_thread_t t;

	cr_assert_eq(na_sim_cost_select("local"), 0);
	p = na_sim_cost_profile();
	cr_assert_eq(na_sim_init(), 0);
	na_sim_on_park(na_sim_cost_block);
	cr_assert_eq(na_sim_spawn(&t, burst_thread, NULL), 0);
	na_sim_at(100, burst_frame, NULL, NULL);
	na_sim_run(0, NULL);
	cr_assert_eq(burst_woke, 5 * p->op_ns);
	cr_assert_eq(burst_served, 5 * p->op_ns + p->rx_ns + p->wake_ns);
	na_sim_fini();
}
