/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The node agent's clock: CLOCK_MONOTONIC in ns. Every network namespace of
 * a host shares it, so histories of several nodes on one machine compare
 * (docs/NODE-AGENT.md "History format"). The agents never read it: their
 * timers get the time as an argument.
 *
 * Built with NA_SIM (the simulated cluster, docs/SIMULATION.md) it is the
 * simulation's virtual clock instead, which only moves between events.
 */
#ifndef NA_CLOCK_H
#define NA_CLOCK_H

#include <stdint.h>
#include <time.h>

#ifdef NA_SIM
/* node-agent/sched/na_sim_sched.c */
uint64_t na_sim_now_ns(void);

static inline uint64_t
na_now_ns(void)
{
	return na_sim_now_ns();
}
#else
/** CLOCK_MONOTONIC in ns. */
static inline uint64_t
na_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
#endif

#endif /* NA_CLOCK_H */
