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
#include <rte_ring.h>

#include "ctl.h"
#include "lcf_pipeline.h"
#include "lcf_wire.h"
#include "options.h"
#include "topo.h"

/* Registered in main.c; --log-level=swswitch,debug selects it. */
extern int sw_logtype;
#define RTE_LOGTYPE_SWSWITCH sw_logtype
#define SW_LOG(level, fmt, ...) \
	RTE_LOG(level, SWSWITCH, fmt "\n", ##__VA_ARGS__)

#define SW_VERSION         "0.1.0"
#define SW_MAX_PKT_BURST   32
#define SW_PREFETCH_OFFSET 3
#define SW_MAX_PORTS       LCF_MAX_NODES /* a topology has at most 32 ports */
#define SW_MEMPOOL_CACHE   256
/* Each worker's inbound ring (frames of its tags received by another
 * worker, with their parse: struct sw_handoff). A power of two. */
#define SW_RING_SIZE 16384
/* Entries in use above which the other workers stop polling their rx
 * queues (backpressure); the rest of the ring is the margin that keeps a
 * handoff from ever finding it full. A trade-off (docs/PERFORMANCE.md
 * "Multi-lcore"): a frame that waits behind thousands of others is cold
 * when its owner takes it, which argues for a low mark on dedicated cores;
 * on a shared machine a descheduled owner then stops its peers sooner, and
 * there 1024 measured no better than 8192. Override with
 * -Dc_args=-DSW_RING_HIGH=N to compare. */
#ifndef SW_RING_HIGH
#define SW_RING_HIGH 8192
#endif
/* Receive queues one worker polls: at most one per port (docs/SWSWITCH.md). */
#define SW_MAX_RXQ SW_MAX_PORTS
/* Longest header span the LCF parser reads: IPv4 with 40 bytes of options. */
#define SW_MAX_HDRS (LCF_ETH_LEN + 60 + LCF_UDP_LEN + LCF_HDR_LEN)

struct l2_table;
struct fault_lcore;
struct bench_rx;
struct egress_txq;

/* Per topology port, per lcore. Written by the owning lcore only. */
struct sw_port_stats {
	uint64_t rx;
	uint64_t tx;
	uint64_t tx_dropped; /* the PMD's tx queue did not take them */
	uint64_t dropped;    /* ingress frames the switch dropped */
};

struct egress_stats {
	uint64_t copies;         /* frames emitted by the pipeline path */
	uint64_t multicast;      /* pipeline results with several copies */
	uint64_t chained;        /* copies built as header mbuf + clone */
	uint64_t flat_copies;    /* copies for ports that refuse chains */
	uint64_t nombuf;         /* copies lost to an empty pool */
	uint64_t no_destination; /* EMIT with no node, or a node off-topology */
};

/*
 * A packet waiting for its second pass. The mbuf is kept unmodified; of the
 * pipeline's state only the 8-byte metadata and the ingress port travel with
 * it, as on the hardware. The parse of the unmodified frame is kept too: a
 * second parse would find the same, at the cost of a parse.
 */
struct sw_resubmit {
	struct rte_mbuf *m;
	uint64_t meta;
	uint16_t port;
	struct lcf_frame_view view;
	struct lcf_msg msg;
};

/*
 * A coherence frame handed to the worker that owns its tag, as one element
 * of that worker's ring: the receiver's parse travels with the frame, so
 * the owner neither parses it again nor has to read the frame before it can
 * start the loads of its registers.
 */
struct sw_handoff {
	struct rte_mbuf *m;
	struct lcf_msg msg;
	struct lcf_frame_view view;
	uint16_t port; /* topology port it arrived on */
};

/* One receive queue a worker polls. */
struct sw_rxq {
	uint16_t tport;         /* topology port */
	uint16_t queue;         /* DPDK rx queue id */
	struct bench_rx *bench; /* --bench-rx: polled instead of the queue */
};

/* Per-worker dispatch counters (docs/SWSWITCH.md "Multi-lcore"). */
struct sw_dispatch_stats {
	uint64_t sent;        /* pipeline frames handed to their owner's ring */
	uint64_t received;    /* frames taken from this worker's ring */
	uint64_t ring_full;   /* frames dropped: the owner's ring was full */
	uint64_t loops;       /* loop iterations, busy or idle */
	uint64_t idle_loops;  /* iterations that found no frame anywhere */
	uint64_t idle_sleeps; /* --idle-sleep-us sleeps taken */
	uint64_t
		backpressure; /* iterations that skipped rx: a peer's ring full */
	uint64_t
		backpressure_tsc; /* TSC cycles our rx stayed stopped for that */
};

/*
 * Everything one worker lcore owns: one per worker, each with its own
 * pipeline (its shard of the tag space: shard.h), MAC table, resubmit queue,
 * tx buffers and tx queue (queue id = worker index on every port). The only
 * thing another worker touches is `ring` (multi-producer, single consumer),
 * so the hot path needs no locks.
 */
struct sw_lcore {
	unsigned int lcore_id;
	unsigned int index; /* worker index = shard = tx queue id */
	struct lcf_pipeline *pipe;
	struct l2_table *l2;
	struct rte_ring *ring; /* inbound: frames of our tags from others */

	uint16_t n_rxq;
	struct sw_rxq rxq[SW_MAX_RXQ];
	struct egress_txq *txq; /* [n_ports]: frames waiting for tx */

	/* The first passes of one burst resubmit at most once each, and a
	 * burst under fault injection is up to SW_MAX_PKT_BURST frames each
	 * with one duplicate (sw_burst_faults): room for all of them. */
	uint16_t n_resubmit;
	struct sw_resubmit resubmit[2 * SW_MAX_PKT_BURST];

	struct sw_port_stats port[SW_MAX_PORTS];
	struct egress_stats egress;
	struct fault_lcore *fault; /* NULL unless --fault rules were given */
	uint64_t resubmits;
	uint64_t resubmit_loops; /* second pass asked to resubmit: a bug */
	struct sw_dispatch_stats dispatch;
	/* TSC of this worker's last frame; read by the others for --idle-exit
	 * (the process is idle only when every worker is). */
	volatile uint64_t last_active_tsc;
	/* Control commands (ctl.h); the worker polls `ctl.req`. */
	struct sw_ctl ctl __rte_cache_aligned;
} __rte_cache_aligned;

struct sw_port {
	uint16_t port_id;
	bool chain_ok;              /* PMD takes multi-segment mbufs */
	uint16_t n_rxq;             /* 1, or one per worker (multi-queue NIC) */
	uint64_t startup_discarded; /* frames sw_ports_flush() threw away */
	unsigned int
		steer_rules; /* NIC rules steering tags to owners (steer.c) */
	char name[RTE_ETH_NAME_MAX_LEN];
};

/* The process: set up by main.c, read-only once the workers run. */
struct sw_app {
	struct sw_opts opts;
	struct topo topo;
	uint16_t n_ports;
	struct sw_port ports[SW_MAX_PORTS];
	struct rte_mempool *pkt_pool; /* rx and flat copies */
	struct rte_mempool
		*hdr_pool; /* rewritten headers of multicast copies */
	struct rte_mempool *clone_pool; /* indirect mbufs sharing the payload */
	unsigned int n_workers;
	struct sw_lcore *workers[RTE_MAX_LCORE];
	uint16_t tport_of[RTE_MAX_ETHPORTS]; /* DPDK port id -> topology port */
	uint64_t start_tsc;
};

extern struct sw_app sw_app;
extern volatile bool sw_force_quit;

/* sw_loop.c */
int sw_lcore_main(void *arg);

#endif /* SWSWITCH_H */
