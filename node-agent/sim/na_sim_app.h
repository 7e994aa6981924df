/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The applications of node-agent/apps inside na-sim (docs/SIMULATION.md
 * "Applications"). Their sources are compiled a second time with this
 * header included first (-include), as libdsm's are with NA_SIM: what an
 * application asks of the host (threads, condition variables, sleeps, the
 * monotonic clock, dsm_open) becomes the simulation's (na_wait.h, the
 * virtual clock, the simulated network), and every DSM access spends
 * the cost model's application time (na_sim_cost.h) and has its latency
 * recorded. Nothing of an application's logic is copied: its main() is
 * renamed (-Dmain=...) and na_sim_app.c runs it once per node, each on a
 * simulated thread.
 */
#ifndef NA_SIM_APP_H
#define NA_SIM_APP_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include <dsm.h>

int na_sim_app_pthread_create(pthread_t *t, const pthread_attr_t *attr,
			      void *(*fn)(void *), void *arg);
int na_sim_app_pthread_join(pthread_t t, void **ret);
int na_sim_app_cond_wait(pthread_cond_t *cv, pthread_mutex_t *mu);
int na_sim_app_cond_broadcast(pthread_cond_t *cv);
int na_sim_app_usleep(useconds_t us);
unsigned int na_sim_app_sleep(unsigned int s);
int na_sim_app_clock_gettime(clockid_t clk, struct timespec *ts);
int na_sim_app_dsm_open(const struct dsm_config *cfg, struct dsm **out,
			char *err, size_t err_len);
void na_sim_app_dsm_close(struct dsm *d);
/** The measured phase starts (dsm_app.c marks it in the trace): the cost
 * model's counters from now on are sim.json's `measured` ones too. */
void na_sim_app_trace_mark(struct dsm *d);

/** Before a DSM access: the application's time (cost model: on a shared
 * CPU booked when the thread next sends or blocks); its start's time. */
uint64_t na_sim_app_begin(void);
/** After it: its latency (its own op_ns included) into the histogram. */
void na_sim_app_end(uint64_t start_ns);

#define pthread_create         na_sim_app_pthread_create
#define pthread_join           na_sim_app_pthread_join
#define pthread_cond_wait      na_sim_app_cond_wait
#define pthread_cond_broadcast na_sim_app_cond_broadcast
#define usleep                 na_sim_app_usleep
#define sleep                  na_sim_app_sleep
#define clock_gettime          na_sim_app_clock_gettime
#define dsm_open               na_sim_app_dsm_open
#define dsm_close              na_sim_app_dsm_close
#define dsm_trace_mark         na_sim_app_trace_mark

/* A timed access: statement expressions, so that the start is taken
 * before the call whatever the order of argument evaluation. */
#define NA_SIM_APP_TIMED(call)                        \
	__extension__({                               \
		uint64_t na_t0_ = na_sim_app_begin(); \
		int na_r_ = (call);                   \
		na_sim_app_end(na_t0_);               \
		na_r_;                                \
	})
#define dsm_read(...)   NA_SIM_APP_TIMED(dsm_read(__VA_ARGS__))
#define dsm_write(...)  NA_SIM_APP_TIMED(dsm_write(__VA_ARGS__))
#define dsm_rlock(...)  NA_SIM_APP_TIMED(dsm_rlock(__VA_ARGS__))
#define dsm_wlock(...)  NA_SIM_APP_TIMED(dsm_wlock(__VA_ARGS__))
#define dsm_unlock(...) NA_SIM_APP_TIMED(dsm_unlock(__VA_ARGS__))

#endif /* NA_SIM_APP_H */
