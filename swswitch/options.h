/* SPDX-License-Identifier: BSD-3-Clause
 *
 * swswitch application options (the part of argv after EAL's "--").
 */
#ifndef SW_OPTIONS_H
#define SW_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fault.h"

#define OPTS_DEFAULT_MAC_AGE_S 300u
#define OPTS_DEFAULT_MBUFS     8191u
#define OPTS_DEFAULT_DRAIN_US  100u
#define OPTS_DEFAULT_RXD       512u
#define OPTS_DEFAULT_TXD       512u

struct sw_opts {
	const char *topo_path;
	const char *stats_file;
	uint32_t idle_exit_ms; /* 0: run until a signal */
	uint32_t mac_age_s;    /* 0: L2 entries never expire */
	uint32_t n_mbufs;
	uint32_t drain_us;
	uint16_t nb_rxd;
	uint16_t nb_txd;
	uint32_t seed;             /* data-provider PRNG seed */
	uint32_t n_workers;        /* --workers; 0 = one per EAL lcore */
	struct fault_config fault; /* --fault rules; none by default */
	const char *bench_rx_dir;  /* --bench-rx: frames for every rx queue */
	const char *trace_path;    /* --trace FILE: sampled latency trace */
	uint32_t trace_every;      /* --trace-every N (64 with --trace) */
	bool batch_tx; /* --batch-tx: tx waits for a full burst or drain-us */
	uint32_t idle_sleep_us; /* --idle-sleep-us: sleep when idle (0: poll) */
};

/**
 * Parse the application options.
 *
 * @return 0, or -EINVAL after printing what is wrong to stderr.
 */
int opts_parse(int argc, char **argv, struct sw_opts *o);

/** Print the application usage. */
void opts_usage(FILE *f, const char *prgname);

/**
 * True when --help or -h follows "--": lets `swswitch -- --help` answer
 * before EAL init, which could fail for lack of hugepages.
 */
bool opts_wants_help(int argc, char **argv);

#endif /* SW_OPTIONS_H */
