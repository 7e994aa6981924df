/* SPDX-License-Identifier: BSD-3-Clause
 *
 * What the node agent's threads ask of the host besides sockets and the
 * clock (na_clock.h): waiting on a condition variable until a deadline,
 * sleeping until a time, and starting and joining threads.
 *
 * Built normally these are pthreads on CLOCK_MONOTONIC (condition variables
 * must be created with that clock). Built with NA_SIM they are the
 * deterministic simulation's coroutines on its virtual clock
 * (node-agent/sched/na_sim_sched.c): one OS thread runs every node's
 * threads, a thread gives the processor up only here, so a mutex is never
 * held across a switch and a run is a function of its seed
 * (docs/SIMULATION.md).
 */
#ifndef NA_WAIT_H
#define NA_WAIT_H

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#ifdef NA_SIM

typedef struct na_sim_co *na_thread_t;

/* node-agent/sched/na_sim_sched.c */
int na_cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu,
		       uint64_t deadline_ns);
void na_cond_signal(pthread_cond_t *cv);
void na_cond_broadcast(pthread_cond_t *cv);
void na_sleep_until(uint64_t deadline_ns);
int na_thread_start(na_thread_t *t, void *(*fn)(void *), void *arg);
void na_thread_join(na_thread_t t);

#else

typedef pthread_t na_thread_t;

/**
 * Wait on `cv` (with `mu` held, as pthread_cond_timedwait) until the
 * na_now_ns() time `deadline_ns`. Wakes may be spurious.
 * @return 0, or ETIMEDOUT at the deadline.
 */
static inline int
na_cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu,
		   uint64_t deadline_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(deadline_ns / 1000000000ull),
		.tv_nsec = (long)(deadline_ns % 1000000000ull),
	};

	return pthread_cond_timedwait(cv, mu, &ts);
}

static inline void
na_cond_signal(pthread_cond_t *cv)
{
	pthread_cond_signal(cv);
}

static inline void
na_cond_broadcast(pthread_cond_t *cv)
{
	pthread_cond_broadcast(cv);
}

/**
 * Sleep until the na_now_ns() time `deadline_ns`. A signal ends it early:
 * callers re-check what they wait for.
 */
static inline void
na_sleep_until(uint64_t deadline_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(deadline_ns / 1000000000ull),
		.tv_nsec = (long)(deadline_ns % 1000000000ull),
	};

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/** Start `fn(arg)` on a new thread. @return 0 or a positive errno. */
static inline int
na_thread_start(na_thread_t *t, void *(*fn)(void *), void *arg)
{
	return pthread_create(t, NULL, fn, arg);
}

static inline void
na_thread_join(na_thread_t t)
{
	pthread_join(t, NULL);
}

#endif /* NA_SIM */

#endif /* NA_WAIT_H */
