/* SPDX-License-Identifier: BSD-3-Clause
 *
 * swswitch: shared state of the switch process. The pipeline itself lives in
 * lib/lcf (no DPDK there); this process is the I/O shell around it.
 *
 * Ports are named two ways: a "topology port" is the index the topology file
 * and the pipeline use (0..n_ports-1, the n-th available DPDK port), a
 * "port id" is DPDK's. Only rx/tx calls use port ids.
 */
#ifndef SWSWITCH_H
#define SWSWITCH_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "lcf_pipeline.h"
#include "lcf_wire.h"
#include "options.h"
#include "topo.h"

/* Registered in main.c; --log-level=swswitch,debug selects it. */
extern int sw_logtype;
#define RTE_LOGTYPE_SWSWITCH sw_logtype
#define SW_LOG(level, fmt, ...) \
	RTE_LOG(level, SWSWITCH, fmt "\n", ##__VA_ARGS__)

#define SW_VERSION "0.1.0"
#define SW_MAX_PKT_BURST 32
#define SW_PREFETCH_OFFSET 3
#define SW_MAX_PORTS LCF_MAX_NODES    /* a topology has at most 32 ports */
#define SW_MEMPOOL_CACHE 256
/* Longest header span the LCF parser reads: IPv4 with 40 bytes of options. */
#define SW_MAX_HDRS (LCF_ETH_LEN + 60 + LCF_UDP_LEN + LCF_HDR_LEN)

struct l2_table;
struct fault_lcore;

/* Per topology port, per lcore. Written by the owning lcore only. */
struct sw_port_stats {
	uint64_t rx;
	uint64_t tx;
	uint64_t tx_dropped;  /* tx buffer could not hand them to the PMD */
	uint64_t dropped;     /* ingress frames the switch dropped */
};

struct egress_stats {
	uint64_t copies;          /* frames emitted by the pipeline path */
	uint64_t multicast;       /* pipeline results with several copies */
	uint64_t chained;         /* copies built as header mbuf + clone */
	uint64_t flat_copies;     /* copies for ports that refuse chains */
	uint64_t nombuf;          /* copies lost to an empty pool */
	uint64_t no_destination;  /* EMIT with no node, or a node off-topology */
};

/*
 * A packet waiting for its second pass. The mbuf is kept unmodified; like the
 * hardware, the second pass re-parses it and only the 8-byte metadata and
 * the ingress port travel with it.
 */
struct sw_resubmit {
	struct rte_mbuf *m;
	uint64_t meta;
	uint16_t port;
};

/*
 * Everything one worker lcore owns. Multi-lcore sharding adds one of these
 * per worker, each with its own pipeline (its share of the tag space, see
 * lcf_pipeline_config.hash_salt) and its own tx buffers; nothing here is
 * shared between workers, so the hot path needs no locks.
 */
struct sw_lcore {
	unsigned int lcore_id;
	struct lcf_pipeline *pipe;
	struct l2_table *l2;

	uint16_t n_rx_port;
	uint16_t rx_port[SW_MAX_PORTS];                   /* topology ports */
	struct rte_eth_dev_tx_buffer *tx_buf[SW_MAX_PORTS];

	/* At most one burst of resubmits: every packet resubmits at most once. */
	uint16_t n_resubmit;
	struct sw_resubmit resubmit[SW_MAX_PKT_BURST];

	struct sw_port_stats port[SW_MAX_PORTS];
	struct egress_stats egress;
	struct fault_lcore *fault;   /* NULL unless --fault rules were given */
	uint64_t resubmits;
	uint64_t resubmit_loops;  /* second pass asked to resubmit: a bug */
} __rte_cache_aligned;

struct sw_port {
	uint16_t port_id;
	bool chain_ok;            /* PMD takes multi-segment mbufs */
	char name[RTE_ETH_NAME_MAX_LEN];
};

/* The process: set up by main.c, read-only once the workers run. */
struct sw_app {
	struct sw_opts opts;
	struct topo topo;
	uint16_t n_ports;
	struct sw_port ports[SW_MAX_PORTS];
	struct rte_mempool *pkt_pool;    /* rx and flat copies */
	struct rte_mempool *hdr_pool;    /* rewritten headers of multicast copies */
	struct rte_mempool *clone_pool;  /* indirect mbufs sharing the payload */
	unsigned int n_workers;
	struct sw_lcore *workers[RTE_MAX_LCORE];
	uint64_t start_tsc;
};

extern struct sw_app sw_app;
extern volatile bool sw_force_quit;

/* sw_loop.c */
int sw_lcore_main(void *arg);

#endif /* SWSWITCH_H */
