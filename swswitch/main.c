/* SPDX-License-Identifier: BSD-3-Clause
 *
 * swswitch: a DPDK poll-mode software switch that runs Concordia's
 * lock-check-forward coherence pipeline (lib/lcf) on coherence frames and
 * switches everything else at L2.
 *
 * This file: EAL init, options, topology, mbuf pools, port setup, signals,
 * launch, and the exit report. The loop is in sw_loop.c.
 *
 * Why one file of this length: it is the order of start-up and shut-down,
 * as in DPDK's own examples' main.c; each step is a short static function.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_pdump.h>

#include <jansson.h>

#include "bench_rx.h"
#include "egress.h"
#include "fault.h"
#include "l2.h"
#include "options.h"
#include "stats.h"
#include "steer.h"
#include "swswitch.h"
#include "trace.h"

/* Worker lcores, resolved from --workers before the ports are configured
 * (each port gets one tx queue per worker). */
static unsigned int sw_n_workers = 1;

/* Room for Ethernet + IPv4 with options + UDP + LCF in a header mbuf. */
#define SW_HDR_DATAROOM (RTE_PKTMBUF_HEADROOM + 128)

static void
sw_signal_handler(int signum)
{
	if (signum == SIGINT || signum == SIGTERM)
		sw_force_quit = true;
}

static void
sw_usage_hook(const char *prgname)
{
	printf("\n");
	opts_usage(stdout, prgname);
}

/* The topology's ports are the available DPDK ports, in port-id order. */
static void
sw_ports_find(void)
{
	uint16_t avail = rte_eth_dev_count_avail();
	uint16_t pid, i = 0;

	if (avail != sw_app.topo.n_ports)
		rte_exit(EXIT_FAILURE,
			 "topology %s uses %u port(s) (0..%u) but DPDK has %u; "
			 "give one device per port, e.g. --vdev net_null0 "
			 "--vdev net_null1\n",
			 sw_app.opts.topo_path, sw_app.topo.n_ports,
			 sw_app.topo.n_ports - 1, avail);

	RTE_ETH_FOREACH_DEV(pid)
	{
		struct sw_port *sp = &sw_app.ports[i++];

		sp->port_id = pid;
		if (rte_eth_dev_get_name_by_port(pid, sp->name) != 0)
			snprintf(sp->name, sizeof(sp->name), "port%u", pid);
	}
	sw_app.n_ports = i;
}

static struct rte_mempool *
sw_pool(const char *name, unsigned int n, uint16_t dataroom)
{
	struct rte_mempool *mp;

	mp = rte_pktmbuf_pool_create(name, n, SW_MEMPOOL_CACHE, 0, dataroom,
				     rte_socket_id());
	if (mp == NULL)
		rte_exit(EXIT_FAILURE,
			 "cannot create mbuf pool %s of %u mbufs: %s (with "
			 "--no-huge, raise EAL's memory with -m MB, or lower "
			 "--mbufs)\n",
			 name, n, rte_strerror(rte_errno));
	return mp;
}

/*
 * Every rx ring is full of mbufs and every tx ring may be; add a burst and a
 * cache per worker so the pool never starves the rings.
 */
static void
sw_pools_create(void)
{
	const struct sw_opts *o = &sw_app.opts;
	unsigned int need, n;

	/* Rx and tx rings per queue, one tx queue (and up to one rx queue)
	 * per worker and port, plus the workers' dispatch rings. */
	need = sw_app.n_ports * sw_n_workers *
		       (o->nb_rxd + o->nb_txd + SW_MAX_PKT_BURST) +
	       rte_lcore_count() * (SW_MAX_PKT_BURST + SW_MEMPOOL_CACHE) +
	       (sw_n_workers > 1 ? sw_n_workers * SW_RING_SIZE : 0);
	n = RTE_MAX(o->n_mbufs, need);
	if (n != o->n_mbufs)
		SW_LOG(NOTICE, "--mbufs %u raised to %u for %u port(s)",
		       o->n_mbufs, n, sw_app.n_ports);

	sw_app.pkt_pool = sw_pool("sw_pkt", n, RTE_MBUF_DEFAULT_BUF_SIZE);
	sw_app.hdr_pool = sw_pool("sw_hdr", n, SW_HDR_DATAROOM);
	sw_app.clone_pool = sw_pool("sw_clone", n, 0);
	SW_LOG(INFO, "mbuf pools: %u packet, %u header, %u clone", n, n, n);
}

static void
sw_port_init(uint16_t tport)
{
	struct sw_port *sp = &sw_app.ports[tport];
	const uint16_t pid = sp->port_id;
	uint16_t nb_rxd = sw_app.opts.nb_rxd, nb_txd = sw_app.opts.nb_txd;
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	struct rte_eth_txconf txq;
	struct rte_eth_rxconf rxq;
	struct rte_ether_addr mac;
	struct rte_eth_link link;
	char link_str[RTE_ETH_LINK_MAX_STR_LEN];
	int socket = rte_eth_dev_socket_id(pid);
	uint16_t q;
	int ret;

	if (socket < 0)
		socket = (int)rte_socket_id();
	memset(&conf, 0, sizeof(conf));
	ret = rte_eth_dev_info_get(pid, &info);
	if (ret != 0)
		rte_exit(EXIT_FAILURE, "port %u: dev_info: %s\n", pid,
			 strerror(-ret));
	/* Multicast copies are header + shared payload chains when the PMD
	 * takes them; otherwise egress makes flat copies. */
	sp->chain_ok = (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) !=
		       0;
	if (sp->chain_ok)
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;

	/* Each worker sends on its own tx queue: no tx lock. A port with too
	 * few is refused rather than shared behind a lock. */
	if (info.max_tx_queues < sw_n_workers)
		rte_exit(EXIT_FAILURE,
			 "port %u (%s): --workers %u needs %u tx "
			 "queues, the PMD offers %u (net_pcap: give tx_pcap= "
			 "once per worker, or rx_pcap= once per worker for "
			 "its tx_drop queues)\n",
			 pid, sp->name, sw_n_workers, sw_n_workers,
			 info.max_tx_queues);
	/* A multi-queue port gets one rx queue per worker (RSS spreads the
	 * flows; the dispatch ring re-steers by tag). A single-queue port is
	 * polled by one worker (sw_workers_create). */
	sp->n_rxq = 1;
	if (sw_n_workers > 1 && info.max_rx_queues >= sw_n_workers) {
		sp->n_rxq = (uint16_t)sw_n_workers;
		if (info.flow_type_rss_offloads != 0) {
			conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
			conf.rx_adv_conf.rss_conf
				.rss_hf = (RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP) &
					  info.flow_type_rss_offloads;
		}
	}
	sw_app.tport_of[pid] = tport;

	ret = rte_eth_dev_configure(pid, sp->n_rxq, (uint16_t)sw_n_workers,
				    &conf);
	if (ret < 0)
		rte_exit(EXIT_FAILURE, "port %u (%s): configure: %s\n", pid,
			 sp->name, strerror(-ret));
	ret = rte_eth_dev_adjust_nb_rx_tx_desc(pid, &nb_rxd, &nb_txd);
	if (ret < 0)
		rte_exit(EXIT_FAILURE, "port %u: descriptors: %s\n", pid,
			 strerror(-ret));

	rxq = info.default_rxconf;
	rxq.offloads = conf.rxmode.offloads;
	for (q = 0; q < sp->n_rxq; q++) {
		ret = rte_eth_rx_queue_setup(pid, q, nb_rxd,
					     (unsigned int)socket, &rxq,
					     sw_app.pkt_pool);
		if (ret < 0)
			rte_exit(EXIT_FAILURE, "port %u: rx queue %u: %s\n",
				 pid, q, strerror(-ret));
	}
	txq = info.default_txconf;
	txq.offloads = conf.txmode.offloads;
	for (q = 0; q < sw_n_workers; q++) {
		ret = rte_eth_tx_queue_setup(pid, q, nb_txd,
					     (unsigned int)socket, &txq);
		if (ret < 0)
			rte_exit(EXIT_FAILURE, "port %u: tx queue %u: %s\n",
				 pid, q, strerror(-ret));
	}

	ret = rte_eth_dev_start(pid);
	if (ret < 0)
		rte_exit(EXIT_FAILURE, "port %u: start: %s\n", pid,
			 strerror(-ret));
	/* A switch port accepts every destination MAC. Some virtual PMDs
	 * have no such notion; they receive everything anyway. */
	ret = rte_eth_promiscuous_enable(pid);
	if (ret != 0 && ret != -ENOTSUP)
		SW_LOG(WARNING, "port %u: promiscuous mode: %s", pid,
		       strerror(-ret));

	if (rte_eth_macaddr_get(pid, &mac) != 0)
		memset(&mac, 0, sizeof(mac));
	if (rte_eth_link_get_nowait(pid, &link) != 0)
		memset(&link, 0, sizeof(link));
	rte_eth_link_to_str(link_str, sizeof(link_str), &link);
	SW_LOG(INFO,
	       "port %u = %s (port id %u) " RTE_ETHER_ADDR_PRT_FMT
	       ", %u/%u desc, %u rx/%u tx queue(s), %s tx, %s",
	       tport, sp->name, pid, RTE_ETHER_ADDR_BYTES(&mac), nb_rxd, nb_txd,
	       sp->n_rxq, sw_n_workers, sp->chain_ok ? "chained" : "flat",
	       link_str);
}

/*
 * Throw away what the ports received before the switch runs. net_af_packet
 * opens its socket for every protocol on every interface and binds it to its
 * own interface only after setting up the ring, so frames of the machine's
 * other interfaces (the other switch ports, another cluster) can be waiting
 * in the ring, and would enter the pipeline as if they came in on this port.
 */
#define SW_STARTUP_FLUSH_MAX 65536u /* frames per rx queue */

static void
sw_ports_flush(void)
{
	struct rte_mbuf *burst[SW_MAX_PKT_BURST];
	uint16_t p, q, n;

	for (p = 0; p < sw_app.n_ports; p++) {
		struct sw_port *sp = &sw_app.ports[p];
		struct rte_eth_dev_info info;

		/* Only af_packet: a pcap or null port's frames are the input. */
		if (rte_eth_dev_info_get(sp->port_id, &info) != 0 ||
		    strcmp(info.driver_name, "net_af_packet") != 0)
			continue;
		/* Bounded: the ring's worth, not traffic that keeps coming. */
		for (q = 0; q < sp->n_rxq; q++) {
			uint32_t left = SW_STARTUP_FLUSH_MAX;

			while (left >= SW_MAX_PKT_BURST &&
			       (n = rte_eth_rx_burst(sp->port_id, q, burst,
						     SW_MAX_PKT_BURST)) > 0) {
				rte_pktmbuf_free_bulk(burst, n);
				sp->startup_discarded += n;
				left -= n;
			}
		}
		if (sp->startup_discarded)
			SW_LOG(INFO,
			       "port %u: discarded %" PRIu64 " frame(s) "
			       "received before the port was bound",
			       p, sp->startup_discarded);
	}
}

/* --workers 0 means every EAL lcore; more workers than lcores is refused. */
static void
sw_workers_plan(void)
{
	unsigned int n = sw_app.opts.n_workers;

	if (n == 0)
		n = rte_lcore_count();
	if (n > rte_lcore_count())
		rte_exit(EXIT_FAILURE,
			 "--workers %u needs %u lcores, EAL has %u "
			 "(give them with -l, e.g. -l 0-%u)\n",
			 n, n, rte_lcore_count(), n - 1);
	sw_n_workers = n;
}

/*
 * Worker `index` on `lcore`: its own pipeline with 1/n of each way's slots
 * (rounded up), so n shards together hold the profile's capacity and
 * register footprint whatever the lcore count (the tofino profile keeps the
 * paper's limits).
 */
static void
sw_worker_create(unsigned int index, unsigned int lcore)
{
	const int socket = (int)rte_lcore_to_socket_id(lcore);
	const uint64_t age_tsc = rte_get_tsc_hz() * sw_app.opts.mac_age_s;
	struct lcf_pipeline_config cfg;
	struct sw_lcore *lc;

	lc = rte_zmalloc_socket("sw_lcore", sizeof(*lc), RTE_CACHE_LINE_SIZE,
				socket);
	if (lc == NULL)
		rte_exit(EXIT_FAILURE, "cannot allocate lcore state\n");
	lc->lcore_id = lcore;
	lc->index = index;

	lcf_pipeline_config_from_topo(&sw_app.topo, &cfg);
	cfg.seed = sw_app.opts.seed;
	cfg.slots_per_way = (cfg.slots_per_way + sw_n_workers - 1) /
			    sw_n_workers;
	lc->pipe = lcf_pipeline_create(&cfg);
	if (lc->pipe == NULL)
		rte_exit(EXIT_FAILURE,
			 "cannot create the LCF pipeline "
			 "(%u ways x %u slots): %s\n",
			 cfg.ways, cfg.slots_per_way, strerror(errno));
	lc->l2 = l2_create(age_tsc, socket);
	if (lc->l2 == NULL)
		rte_exit(EXIT_FAILURE, "cannot allocate the MAC table\n");
	if (sw_n_workers > 1) {
		char name[RTE_RING_NAMESIZE];

		snprintf(name, sizeof(name), "sw_ring%u", index);
		lc->ring = rte_ring_create_elem(name, sizeof(struct sw_handoff),
						SW_RING_SIZE, socket,
						RING_F_SC_DEQ);
		if (lc->ring == NULL)
			rte_exit(EXIT_FAILURE, "cannot create ring %s: %s\n",
				 name, rte_strerror(rte_errno));
	}
	lc->fault = fault_lcore_create(&sw_app.opts.fault, sw_app.n_workers,
				       sw_app.topo.lcf_port, sw_app.pkt_pool,
				       socket);
	if (sw_app.opts.fault.n_rules != 0 && lc->fault == NULL)
		rte_exit(EXIT_FAILURE,
			 "cannot allocate fault injection state\n");
	if (egress_lcore_init(lc, socket) != 0)
		rte_exit(EXIT_FAILURE, "cannot allocate tx buffers\n");

	sw_app.workers[sw_app.n_workers++] = lc;
}

/*
 * Worker 0 on the main lcore, the others on the next EAL lcores. Rx queues:
 * queue w of a multi-queue port goes to worker w; single-queue ports are
 * dealt round-robin, so each queue has exactly one poller (per-source FIFO).
 */
static void
sw_workers_create(void)
{
	unsigned int lcore = rte_get_main_lcore(), w, rr = 0;
	uint16_t p, q;

	sw_worker_create(0, lcore);
	for (w = 1; w < sw_n_workers; w++) {
		lcore = rte_get_next_lcore(lcore, 1, 0);
		sw_worker_create(w, lcore);
	}
	for (p = 0; p < sw_app.n_ports; p++) {
		for (q = 0; q < sw_app.ports[p].n_rxq; q++) {
			struct sw_lcore *lc;

			w = sw_app.ports[p].n_rxq == sw_n_workers
				    ? q
				    : rr++ % sw_n_workers;
			lc = sw_app.workers[w];
			lc->rxq[lc->n_rxq].tport = p;
			lc->rxq[lc->n_rxq].queue = q;
			lc->n_rxq++;
		}
	}
	for (w = 0; w < sw_n_workers; w++)
		SW_LOG(INFO,
		       "worker %u: lcore %u, %u rx queue(s), %u x %u "
		       "slots",
		       w, sw_app.workers[w]->lcore_id, sw_app.workers[w]->n_rxq,
		       sw_app.topo.sw.ways,
		       lcf_pipeline_config(sw_app.workers[w]->pipe)
			       ->slots_per_way);
}

/* --bench-rx: every rx queue replays its file instead of being polled. */
static void
sw_bench_rx_load(void)
{
	const char *dir = sw_app.opts.bench_rx_dir;
	unsigned int w;
	uint16_t i;

	if (dir == NULL)
		return;
	for (w = 0; w < sw_n_workers; w++) {
		struct sw_lcore *lc = sw_app.workers[w];

		for (i = 0; i < lc->n_rxq; i++) {
			struct sw_rxq *q = &lc->rxq[i];
			char path[4096];

			snprintf(path, sizeof(path), "%s/p%u_q%u.pcap", dir,
				 q->tport, q->queue);
			q->bench = bench_rx_load(path,
						 sw_app.ports[q->tport].port_id,
						 sw_app.pkt_pool);
			if (q->bench == NULL)
				rte_exit(EXIT_FAILURE,
					 "--bench-rx: cannot load "
					 "%s\n",
					 path);
			SW_LOG(INFO,
			       "bench source: port %u queue %u replays "
			       "%u frames of %s",
			       q->tport, q->queue, q->bench->n, path);
		}
	}
}

static void
sw_workers_free(void)
{
	unsigned int w;

	for (w = 0; w < sw_app.n_workers; w++) {
		struct sw_lcore *lc = sw_app.workers[w];
		struct sw_handoff h;
		uint16_t i;

		/* Frames handed over as the workers stopped. */
		while (lc->ring != NULL &&
		       rte_ring_sc_dequeue_elem(lc->ring, &h, sizeof(h)) == 0)
			rte_pktmbuf_free(h.m);
		rte_ring_free(lc->ring);
		for (i = 0; i < lc->n_rxq; i++)
			bench_rx_free(lc->rxq[i].bench);
		fault_lcore_free(lc->fault);
		egress_lcore_free(lc);
		l2_free(lc->l2);
		lcf_pipeline_free(lc->pipe);
		rte_free(lc);
		sw_app.workers[w] = NULL;
	}
	sw_app.n_workers = 0;
}

static int
sw_report(void)
{
	int ret = 0;

	if (stats_print(stdout) != 0) {
		SW_LOG(ERR, "cannot print statistics");
		ret = -1;
	}
	if (sw_app.opts.stats_file != NULL &&
	    stats_write_file(sw_app.opts.stats_file) != 0) {
		SW_LOG(ERR, "cannot write %s: %s", sw_app.opts.stats_file,
		       strerror(errno));
		ret = -1;
	}
	if (sw_trace_write(sw_app.opts.trace_path) != 0) {
		SW_LOG(ERR, "cannot write %s", sw_app.opts.trace_path);
		ret = -1;
	}
	return ret;
}

int
main(int argc, char **argv)
{
	char err[TOPO_ERR_LEN];
	unsigned int lcore;
	uint16_t p;
	int ret, status = EXIT_SUCCESS;

	if (opts_wants_help(argc, argv)) {
		opts_usage(stdout, argv[0]);
		return EXIT_SUCCESS;
	}
	/* stdout carries the statistics JSON and nothing else. */
	rte_openlog_stream(stderr);
	rte_set_application_usage_hook(sw_usage_hook);

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		rte_exit(EXIT_FAILURE, "invalid EAL arguments\n");
	argc -= ret;
	argv += ret;

	sw_force_quit = false;
	signal(SIGINT, sw_signal_handler);
	signal(SIGTERM, sw_signal_handler);

	if (opts_parse(argc, argv, &sw_app.opts) < 0)
		rte_exit(EXIT_FAILURE, "invalid swswitch arguments\n");
	if (sw_trace_init(sw_app.opts.trace_path ? sw_app.opts.trace_every
						 : 0) < 0)
		rte_exit(EXIT_FAILURE, "trace ring: out of memory\n");
	ret = topo_load(sw_app.opts.topo_path, &sw_app.topo, err);
	if (ret < 0)
		rte_exit(EXIT_FAILURE, "%s: %s\n", sw_app.opts.topo_path, err);
	/* Hash seeding before the telemetry thread can build JSON. */
	json_object_seed(0);

	sw_ports_find();
	sw_workers_plan();
	sw_pools_create();
	for (p = 0; p < sw_app.n_ports; p++)
		sw_port_init(p);
	sw_workers_create();
	for (p = 0; p < sw_app.n_ports; p++)
		steer_install(p);
	sw_bench_rx_load();
	sw_ports_flush();

	/* Lets dpdk-dumpcap (a secondary process) capture our ports. */
	ret = rte_pdump_init();
	if (ret < 0)
		SW_LOG(WARNING,
		       "pdump unavailable (%s): dpdk-dumpcap needs "
		       "hugepages and a shared runtime directory",
		       rte_strerror(rte_errno));
	if (stats_telemetry_register() != 0)
		SW_LOG(WARNING, "cannot register telemetry commands");

	SW_LOG(INFO,
	       "topology %s: %u node(s), %u port(s), %s %u ways x %u "
	       "slots, lcf_port %u",
	       sw_app.opts.topo_path, sw_app.topo.n_nodes, sw_app.n_ports,
	       sw_app.topo.sw.profile, sw_app.topo.sw.ways,
	       sw_app.topo.sw.slots_per_way, sw_app.topo.lcf_port);

	sw_app.start_tsc = rte_rdtsc();
	rte_eal_mp_remote_launch(sw_lcore_main, NULL, CALL_MAIN);
	RTE_LCORE_FOREACH_WORKER(lcore)
	{
		if (rte_eal_wait_lcore(lcore) < 0)
			status = EXIT_FAILURE;
	}

	/* The workers flushed their tx buffers; the ports still count. */
	if (sw_report() != 0)
		status = EXIT_FAILURE;

	stats_telemetry_stop();
	for (p = 0; p < sw_app.n_ports; p++) {
		const uint16_t pid = sw_app.ports[p].port_id;

		steer_remove(p);
		ret = rte_eth_dev_stop(pid);
		if (ret != 0)
			SW_LOG(WARNING, "port %u: stop: %s", pid,
			       strerror(-ret));
		rte_eth_dev_close(pid);
	}
	rte_pdump_uninit();
	sw_workers_free();
	rte_mempool_free(sw_app.clone_pool);
	rte_mempool_free(sw_app.hdr_pool);
	rte_mempool_free(sw_app.pkt_pool);
	rte_eal_cleanup();
	return status;
}
