/* SPDX-License-Identifier: BSD-3-Clause
 *
 * na-sim's node crash (docs/SIMULATION.md "Faults", docs/FAULTS.md section
 * 2). At the crash the node stops sending and receiving (the network drops
 * its frames both ways), its timers stop, its workload is told to stop and
 * its history ends: what it completed before is recorded, what was in
 * flight is not, as for a SIGKILLed node-agent. After the detection delay
 * the control plane runs what an operator runs for a dead node: the
 * switch's eviction (lcf_pipeline_node_failed, as `swswitch-ctl
 * node-failed`) and the declaration on every survivor (dsm_node_failed, as
 * node-agent's --dead-file); the survivors drain and recover with their
 * own code. With `restart` set (--restart-node), a new incarnation of
 * the node starts 1 virtual ms after the declaration: `restart` opens it
 * (fresh state, seqs from 1) and the survivors re-admit it
 * (dsm_node_rejoined), and sets `restarted` (not when the run stops).
 */
#ifndef NA_SIM_CRASH_H
#define NA_SIM_CRASH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lcf_pipeline.h"

struct dsm;
struct na_history;
struct na_sim_net;

struct na_sim_crash {
	/* set by the caller */
	struct na_sim_net *net;
	struct dsm *const *d; /* every node, by index */
	uint32_t n;
	uint32_t idx;       /* the index of the node that crashes */
	uint64_t detect_ns; /* crash to control plane */
	volatile int *stop; /* its workload's stop flag */
	/* set: the nodes are being closed (a declaration due later never
	 * runs) */
	const volatile int *closing;
	struct na_history *h; /* its history, closed at the crash */
	void (*restart)(struct na_sim_crash *c); /* NULL: no restart */
	/* results */
	bool crashed, declared, restarted;
	uint64_t crash_ns, declare_ns, restart_ns;
	struct lcf_node_failed_report rep;
};

/** Crash the node now and schedule the control plane's actions. */
void na_sim_crash_now(struct na_sim_crash *c);

/** The summary's member `"crash":{...}` (no leading comma). */
void na_sim_crash_json(const struct na_sim_crash *c, FILE *f);

#endif /* NA_SIM_CRASH_H */
