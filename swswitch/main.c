/* SPDX-License-Identifier: BSD-3-Clause
 *
 * swswitch: a DPDK poll-mode software switch that runs Concordia's
 * lock-check-forward coherence pipeline (lib/lcf) on coherence frames and
 * switches everything else at L2.
 *
 * This file: EAL init, options, topology, mbuf pools, port setup, signals,
 * launch, and the exit report. The loop is in sw_loop.c.
 */
#include <errno.h>
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

#include "egress.h"
#include "fault.h"
#include "l2.h"
#include "options.h"
#include "stats.h"
#include "swswitch.h"

/* Room for Ethernet + IPv4 with options + UDP + LCF in a header mbuf. */
#define SW_HDR_DATAROOM (RTE_PKTMBUF_HEADROOM + 128)

RTE_LOG_REGISTER(sw_logtype, swswitch, INFO);

struct sw_app sw_app;
volatile bool sw_force_quit;

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

	RTE_ETH_FOREACH_DEV(pid) {
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
			 "--mbufs)\n", name, n, rte_strerror(rte_errno));
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

	need = sw_app.n_ports * (o->nb_rxd + o->nb_txd + SW_MAX_PKT_BURST) +
	       rte_lcore_count() * (SW_MAX_PKT_BURST + SW_MEMPOOL_CACHE);
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
	sp->chain_ok = (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) != 0;
	if (sp->chain_ok)
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;

	ret = rte_eth_dev_configure(pid, 1, 1, &conf);
	if (ret < 0)
		rte_exit(EXIT_FAILURE, "port %u (%s): configure: %s\n", pid,
			 sp->name, strerror(-ret));
	ret = rte_eth_dev_adjust_nb_rx_tx_desc(pid, &nb_rxd, &nb_txd);
	if (ret < 0)
		rte_exit(EXIT_FAILURE, "port %u: descriptors: %s\n", pid,
			 strerror(-ret));

	rxq = info.default_rxconf;
	rxq.offloads = conf.rxmode.offloads;
	ret = rte_eth_rx_queue_setup(pid, 0, nb_rxd, (unsigned int)socket, &rxq,
				     sw_app.pkt_pool);
	if (ret < 0)
		rte_exit(EXIT_FAILURE, "port %u: rx queue: %s\n", pid,
			 strerror(-ret));
	txq = info.default_txconf;
	txq.offloads = conf.txmode.offloads;
	ret = rte_eth_tx_queue_setup(pid, 0, nb_txd, (unsigned int)socket, &txq);
	if (ret < 0)
		rte_exit(EXIT_FAILURE, "port %u: tx queue: %s\n", pid,
			 strerror(-ret));

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
	SW_LOG(INFO, "port %u = %s (port id %u) " RTE_ETHER_ADDR_PRT_FMT
	       ", %u/%u desc, %s tx, %s", tport, sp->name, pid,
	       RTE_ETHER_ADDR_BYTES(&mac), nb_rxd, nb_txd,
	       sp->chain_ok ? "chained" : "flat", link_str);
}

/* One worker, on the main lcore. Sharding tags across lcores adds more. */
static void
sw_workers_create(void)
{
	const unsigned int lcore = rte_get_main_lcore();
	const int socket = (int)rte_lcore_to_socket_id(lcore);
	const uint64_t age_tsc = rte_get_tsc_hz() * sw_app.opts.mac_age_s;
	struct lcf_pipeline_config cfg;
	struct sw_lcore *lc;
	uint16_t p;

	lc = rte_zmalloc_socket("sw_lcore", sizeof(*lc), RTE_CACHE_LINE_SIZE,
				socket);
	if (lc == NULL)
		rte_exit(EXIT_FAILURE, "cannot allocate lcore state\n");
	lc->lcore_id = lcore;

	lcf_pipeline_config_from_topo(&sw_app.topo, &cfg);
	cfg.seed = sw_app.opts.seed;
	lc->pipe = lcf_pipeline_create(&cfg);
	if (lc->pipe == NULL)
		rte_exit(EXIT_FAILURE, "cannot create the LCF pipeline "
			 "(%u ways x %u slots): %s\n", cfg.ways,
			 cfg.slots_per_way, strerror(errno));
	lc->l2 = l2_create(age_tsc, socket);
	if (lc->l2 == NULL)
		rte_exit(EXIT_FAILURE, "cannot allocate the MAC table\n");
	for (p = 0; p < sw_app.n_ports; p++)
		lc->rx_port[lc->n_rx_port++] = p;
	lc->fault = fault_lcore_create(&sw_app.opts.fault, sw_app.n_workers,
				       sw_app.topo.lcf_port, sw_app.pkt_pool,
				       socket);
	if (sw_app.opts.fault.n_rules != 0 && lc->fault == NULL)
		rte_exit(EXIT_FAILURE, "cannot allocate fault injection state\n");
	if (egress_lcore_init(lc, socket) != 0)
		rte_exit(EXIT_FAILURE, "cannot allocate tx buffers\n");

	sw_app.workers[sw_app.n_workers++] = lc;
}

static void
sw_workers_free(void)
{
	unsigned int w;

	for (w = 0; w < sw_app.n_workers; w++) {
		struct sw_lcore *lc = sw_app.workers[w];

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
	ret = topo_load(sw_app.opts.topo_path, &sw_app.topo, err);
	if (ret < 0)
		rte_exit(EXIT_FAILURE, "%s: %s\n", sw_app.opts.topo_path, err);
	/* Hash seeding before the telemetry thread can build JSON. */
	json_object_seed(0);

	sw_ports_find();
	sw_pools_create();
	for (p = 0; p < sw_app.n_ports; p++)
		sw_port_init(p);
	sw_workers_create();

	/* Lets dpdk-dumpcap (a secondary process) capture our ports. */
	ret = rte_pdump_init();
	if (ret < 0)
		SW_LOG(WARNING, "pdump unavailable (%s): dpdk-dumpcap needs "
		       "hugepages and a shared runtime directory",
		       rte_strerror(rte_errno));
	if (stats_telemetry_register() != 0)
		SW_LOG(WARNING, "cannot register telemetry commands");

	SW_LOG(INFO, "topology %s: %u node(s), %u port(s), %s %u ways x %u "
	       "slots, lcf_port %u", sw_app.opts.topo_path, sw_app.topo.n_nodes,
	       sw_app.n_ports, sw_app.topo.sw.profile, sw_app.topo.sw.ways,
	       sw_app.topo.sw.slots_per_way, sw_app.topo.lcf_port);

	sw_app.start_tsc = rte_rdtsc();
	rte_eal_mp_remote_launch(sw_lcore_main, NULL, CALL_MAIN);
	RTE_LCORE_FOREACH_WORKER(lcore) {
		if (rte_eal_wait_lcore(lcore) < 0)
			status = EXIT_FAILURE;
	}

	/* The workers flushed their tx buffers; the ports still count. */
	if (sw_report() != 0)
		status = EXIT_FAILURE;

	stats_telemetry_stop();
	for (p = 0; p < sw_app.n_ports; p++) {
		const uint16_t pid = sw_app.ports[p].port_id;

		ret = rte_eth_dev_stop(pid);
		if (ret != 0)
			SW_LOG(WARNING, "port %u: stop: %s", pid, strerror(-ret));
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
