/* SPDX-License-Identifier: BSD-3-Clause
 *
 * na-sim's command line (docs/SIMULATION.md, "Options").
 */
#ifndef NA_SIM_OPTS_H
#define NA_SIM_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#define NA_SIM_MAX_NODES 16

/** One run: everything that decides its outcome, with the seed. */
struct na_sim_opts {
	uint32_t seed;
	uint64_t events;
	uint16_t nodes, threads;
	uint32_t blocks, switch_blocks, cache_blocks, block_size, pipe_depth;
	double read_ratio; /* micro (default 0.5) */
	double loss, dup, max_rate, duration, stuck_s, update_s, ttl_us;
	unsigned policy; /* --workload poll */
	bool all_updaters;
	uint64_t delay_ns, jitter_ns;
	const char *topo, *history, *workload;
	bool directory, migrate, quiet;
	bool queued; /* --lock-mode queued (docs/QUEUED-LOCKS.md) */
	/* faults (0: none): at a virtual time (s), or after a number of
	 * scheduler events (`...ev`) */
	double sw_restart_at, sw_down_ms;
	uint64_t sw_restart_ev;
	int crash_node; /* -1: none */
	bool restart;   /* --restart-node: a new incarnation rejoins */
	double crash_at, detect_ms;
	uint64_t crash_ev;
	int hold_type; /* -1: none */
	uint64_t hold_nth, hold_ev;
	double hold_s;
	double stall_at, stall_every, stall_for; /* s; stall_for 0: none */
};

/**
 * Parse na-sim's options into `o` (defaults first). Prints the usage on
 * --help.
 * @return 0, 1 after --help (exit 0), or -1 after a message on stderr
 *   (a bad or unknown option, a value out of range: exit 2).
 */
int na_sim_parse(int argc, char **argv, struct na_sim_opts *o);

#endif /* NA_SIM_OPTS_H */
