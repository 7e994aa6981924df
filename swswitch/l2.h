/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The L2 learning switch that carries everything the coherence pipeline does
 * not own: ARP, node-to-node messages (LCF types 0x20-0x7f), any other
 * traffic between the nodes.
 */
#ifndef SW_L2_H
#define SW_L2_H

#include <stdint.h>

#include <rte_mbuf.h>

struct sw_lcore;
struct l2_table;

#define L2_WAYS    4    /* entries per bucket */
#define L2_ENTRIES 4096 /* fixed: no allocation after start-up */

struct l2_stats {
	uint64_t learned;   /* new entries */
	uint64_t moved;     /* a known MAC seen on another port */
	uint64_t forwarded; /* known unicast sent to one port */
	uint64_t flooded;   /* broadcast, multicast or unknown unicast */
	uint64_t filtered;  /* known unicast whose port is the ingress port */
	uint64_t aged;      /* entries found older than --mac-age */
	uint64_t evicted; /* live entries replaced because a bucket was full */
	uint64_t runts;   /* frames shorter than an Ethernet header */
};

/**
 * Create an empty table on `socket`.
 *
 * @param age_tsc  entry lifetime in TSC cycles, 0 for no aging.
 * @return the table, or NULL (rte_errno = ENOMEM).
 */
struct l2_table *l2_create(uint64_t age_tsc, int socket);

/** Free a table (NULL is a no-op). */
void l2_free(struct l2_table *t);

/**
 * Learn the source of `m` (arrived on topology port `in_port` at TSC `now`)
 * and forward or flood it through the lcore's tx buffers. Consumes `m`.
 */
void l2_switch(struct sw_lcore *lc, struct rte_mbuf *m, uint16_t in_port,
	       uint64_t now);

/** Entries not yet aged at TSC `now` (a scan: not for the hot path). */
uint32_t l2_live_entries(const struct l2_table *t, uint64_t now);

/** The table's counters. */
const struct l2_stats *l2_stats(const struct l2_table *t);

#endif /* SW_L2_H */
