/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The simulation's scheduler: a virtual clock, a queue of timed events and
 * cooperative threads (coroutines), all on one OS thread. It implements
 * na_clock.h and na_wait.h for code built with NA_SIM, so the node agent's
 * requester, node and agents run unchanged inside the simulated cluster
 * (node-agent/sim, docs/SIMULATION.md).
 *
 * Determinism: the clock moves only when the next event is taken; events
 * due at the same time run in the order they were scheduled; a coroutine
 * runs until it waits (na_cond_wait_until, na_sleep_until, na_thread_join)
 * or returns. Nothing here reads the host's clock or draws a random number,
 * so a run is a function of what its users schedule.
 */
#ifndef NA_SIM_SCHED_H
#define NA_SIM_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "na_wait.h"

/** An event: fn(ctx, arg) at its time, in the scheduler's context. */
typedef void (*na_sim_fn)(void *ctx, void *arg);

/** Reset the clock to 0 and forget every event. @return 0 or -ENOMEM. */
int na_sim_init(void);

/**
 * Free what is left: events not run (their `arg`s are the caller's) and
 * the stacks of finished coroutines. Coroutines still waiting are an error
 * of the caller: they are reported by na_sim_run's return.
 */
void na_sim_fini(void);

/** Run `fn(ctx, arg)` at virtual time `at_ns` (not before now). */
void na_sim_at(uint64_t at_ns, na_sim_fn fn, void *ctx, void *arg);

/**
 * Start a coroutine running `fn(arg)` at the current time.
 * @return 0 or -ENOMEM.
 */
int na_sim_spawn(na_thread_t *t, void *(*fn)(void *), void *arg);

/**
 * Take events in time order until none is left, or `*stop` is set (checked
 * between events), or `max_events` were taken (0: no limit).
 * @return the number of events taken.
 */
uint64_t na_sim_run(uint64_t max_events, volatile int *stop);

/**
 * Call `fn(now)` whenever a coroutine gives the processor up (a wait, or
 * its return): the earliest time it may run again, a wake-up before then
 * waiting for it (na-sim's cost model books there the CPU time a thread
 * ran up since it last blocked, na_sim_cost_block). NULL: none; until
 * na_sim_fini().
 */
void na_sim_on_park(uint64_t (*fn)(uint64_t now));

/** Coroutines started and not yet returned. */
uint32_t na_sim_live(void);

/** Events taken since na_sim_init. */
uint64_t na_sim_events(void);

#endif /* NA_SIM_SCHED_H */
