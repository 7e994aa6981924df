/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The simulated cluster's cost model (docs/SIMULATION.md "Cost model"):
 * what a frame, a switch pass, a message at an agent and an application's
 * DSM call cost in virtual time, and the resources they queue for.
 *
 *   - a link per node and direction: a frame occupies it for its bytes at
 *     the link's rate (data frames serialise), then takes `hop_ns`;
 *   - the switch: one pipeline, busy `sw_service_ns` per pass, a pass's
 *     result leaves `sw_pass_ns` after it starts;
 *   - each node's agent threads: a frame a node receives waits for one of
 *     `agent_threads`, which serves it for `rx_ns` (the node acts on it at
 *     the end of the service), `wake_ns` more when the frame finds every
 *     thread of its node idle (asleep in poll(), woken by the frame);
 *   - a sender spends `tx_ns` of CPU per frame before it leaves;
 *   - an application thread spends `op_ns` of CPU per DSM call; on a
 *     shared CPU it holds the processor until it blocks, as Linux runs a
 *     thread: the calls it makes until it sends a frame or waits are one
 *     turn, booked there (the send's `tx_ns` in the same turn);
 *   - with `cpus` > 0 every one of these CPU costs also needs one of
 *     `cpus` processors shared by the whole cluster (a machine whose nodes
 *     share its CPUs); with 0 every thread has a processor of its own.
 *
 * A resource serves in the order requests reach it (first come, first
 * served), so a run stays a function of its seed. With no profile set
 * (the default) nothing costs time and na-sim behaves as without a model.
 */
#ifndef NA_SIM_COST_H
#define NA_SIM_COST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/** A named set of parameters (na_sim_cost.c lists them with sources). */
struct na_sim_cost_profile {
	const char *name;
	uint64_t hop_ns;        /* one hop's latency, node<->switch */
	double link_gbps;       /* a node's link, per direction */
	uint32_t wire_overhead; /* bytes per frame beyond the LCF frame */
	uint64_t sw_pass_ns;    /* a pass's latency through the switch */
	uint64_t sw_service_ns; /* the pipeline's time per pass (1/rate) */
	uint64_t tx_ns;         /* sender CPU per frame */
	uint64_t rx_ns;         /* agent service per received frame */
	uint64_t wake_ns;       /* more for a frame that wakes its node */
	uint32_t agent_threads; /* per node */
	uint64_t op_ns;         /* application CPU per DSM call */
	uint32_t cpus;          /* processors shared by all nodes; 0: none */
	double instr_per_ns;    /* the CPU's rate, for an app's own op_ns */
	uint32_t sw_ways;       /* the switch's ways; 0: the topology's */
	uint32_t sw_slots;      /* slots per way; 0: the topology's */
};

/**
 * Select profile `name` ("none", "local", "paper") for the whole process.
 * @return 0, or -EINVAL (unknown name).
 */
int na_sim_cost_select(const char *name);

/**
 * Override one time of the selected profile with a measured figure:
 * "NAME=NS", NAME one of hop_ns, tx_ns, rx_ns, wake_ns, op_ns, sw_pass_ns
 * (scripts/bench_validate_local.py passes the figures it measured). Lasts
 * until the next na_sim_cost_select().
 * @return 0, or -EINVAL (no profile selected, unknown NAME, not a number).
 */
int na_sim_cost_set(const char *assign);

/**
 * Take op_ns for application `app` ("kv", "tpcc", "pagerank") from its own
 * requester instructions per DSM call (callgrind, measured by
 * scripts/sim_measure_local.py: a PageRank rank read is a short hit, a kv
 * bucket read longer) at the profile's instr_per_ns; another name keeps the
 * profile's op_ns. Call after na_sim_cost_select(), before
 * na_sim_cost_set(), whose op_ns wins.
 * @return 0, or -EINVAL (no profile selected).
 */
int na_sim_cost_for_app(const char *app);

/** The selected profile, or NULL when none is (nothing costs time). */
const struct na_sim_cost_profile *na_sim_cost_profile(void);

/** The names of the profiles, for a usage line. */
const char *na_sim_cost_names(void);

/**
 * A frame of `len` bytes sent by node `src` at `now`: when it reaches the
 * switch (sender CPU, uplink serialisation, the hop). Without a profile:
 * `now`.
 */
uint64_t na_sim_cost_uplink(uint16_t src, uint32_t len, uint64_t now);

/** A pass started by a frame reaching the switch at `now`: when its
 * result leaves the switch. */
uint64_t na_sim_cost_switch(uint64_t now);

/** A frame of `len` bytes leaving the switch for node `dst` at `now`:
 * when it reaches the node. */
uint64_t na_sim_cost_downlink(uint16_t dst, uint32_t len, uint64_t now);

/** A node's agent threads (the profile's, at least 1); 1 with no profile. */
uint32_t na_sim_cost_agent_threads(void);

/**
 * An agent thread starts at `now` on a frame that reached its node at
 * `arrived` (the caller queues frames for the node's threads): when it
 * has served it. `woke`: the frame found every agent thread of its node
 * idle, and pays `wake_ns` too. The shared CPU, if any, is taken from
 * `now` only.
 */
uint64_t na_sim_cost_agent(uint64_t arrived, uint64_t now, bool woke);

/**
 * The running application thread makes a DSM call at `now`: when the call
 * starts. With a shared CPU (`cpus` > 0) its `op_ns` is booked when the
 * thread next sends a frame (na_sim_cost_uplink) or blocks, and the call
 * starts at once; with a processor of its own, after `op_ns` (holding the
 * processor would change nothing, and the thread's effects, as a request
 * other threads of its node then wait on, must not show before its CPU).
 */
uint64_t na_sim_cost_app(uint64_t now);

/** The op_ns a DSM call's latency has still to count (its time booked
 * later, with a shared CPU); 0 otherwise. */
uint64_t na_sim_cost_app_deferred_ns(void);

/**
 * The running thread blocks at `now` (waits, returns, or reads the clock,
 * which must show its CPU spent): its DSM calls since it last sent or
 * blocked take the CPU as one turn. @return when the thread may run
 * again (`now` when it ran up nothing; always without a profile).
 */
uint64_t na_sim_cost_block(uint64_t now);

/** Time the resources were busy, per kind (ns, summed). */
struct na_sim_cost_busy {
	uint64_t link, sw, agent, tx, app;
	uint64_t agent_wait; /* frames' time queued for an agent thread */
	uint64_t cpu_wait;   /* time queued for a shared processor */
	uint64_t link_wait;  /* frames' time queued for a link */
	uint64_t frames, app_calls;
	uint64_t rx_frames; /* frames served by an agent thread */
	uint64_t wakes;     /* frames that woke their node's agent threads */
};

const struct na_sim_cost_busy *na_sim_cost_busy(void);

/**
 * The measured phase starts at `now` (an application's warm-up is over):
 * the counters so far are left out of the measured ones. Each call moves
 * the start (the last node to start, or PageRank's mark after its warm-up
 * iterations, wins). Nothing without a profile.
 */
void na_sim_cost_mark(uint64_t now);

/** The counters since the last na_sim_cost_mark() (the whole run's when
 * none was made) into `*out`. */
void na_sim_cost_measured(struct na_sim_cost_busy *out);

/** The profile and the busy times as JSON members (no braces); the
 * measured phase's in a member `measured`. */
void na_sim_cost_json(FILE *f);

#endif /* NA_SIM_COST_H */
