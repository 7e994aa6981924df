/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The per-lcore run-to-completion loop: drain tx on a TSC timer, receive a
 * burst, classify each frame, run coherence frames through the LCF pipeline
 * and everything else through the L2 switch, then give the burst's
 * resubmitted packets their second pass.
 */
#include <rte_branch_prediction.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_prefetch.h>

#include "egress.h"
#include "fault.h"
#include "l2.h"
#include "swswitch.h"

/* One packet pass. Consumes `m` or parks it on the resubmit queue. */
static inline void
sw_ingress(struct sw_lcore *lc, struct rte_mbuf *m, uint16_t port,
	   bool resubmitted, uint64_t meta, uint64_t now)
{
	struct lcf_frame_view view;
	struct lcf_ingress ing;
	struct lcf_result res;
	struct lcf_msg msg;
	enum lcf_drop reason = LCF_DROP_NONE;
	enum lcf_frame_class cls;
	uint32_t len;

	/* The parser reads only the contiguous first segment. A chained
	 * frame (a jumbo block payload) whose first segment holds every
	 * header the parser can read is classified whole: the parser checks
	 * lengths against the frame but never reads the payload. */
	len = rte_pktmbuf_data_len(m);
	if (unlikely(m->nb_segs > 1) && len >= SW_MAX_HDRS)
		len = rte_pktmbuf_pkt_len(m);
	cls = lcf_frame_classify(rte_pktmbuf_mtod(m, const uint8_t *), len,
				 sw_app.topo.lcf_port, &view, &msg, &reason);
	if (cls == LCF_FRAME_OTHER) {
		l2_switch(lc, m, port, now);
		return;
	}
	if (cls == LCF_FRAME_DROP) {
		lcf_pipeline_count_drop(lc->pipe, reason);
		lc->port[port].dropped++;
		rte_pktmbuf_free(m);
		return;
	}

	ing.port = port;
	ing.resubmitted = resubmitted;
	ing.resubmit_meta = meta;
	lcf_pipeline_process(lc->pipe, &msg, &ing, &res);

	switch (res.verdict) {
	case LCF_V_EMIT:
		egress_emit(lc, m, &view, &res);
		return;
	case LCF_V_RESUBMIT:
		if (unlikely(resubmitted)) {
			/* Hardware resubmits once; a second request is a
			 * pipeline bug, so make it visible and drop. */
			lc->resubmit_loops++;
			lc->port[port].dropped++;
			rte_pktmbuf_free(m);
			return;
		}
		lc->resubmits++;
		lc->resubmit[lc->n_resubmit].m = m;
		lc->resubmit[lc->n_resubmit].meta = res.resubmit_meta;
		lc->resubmit[lc->n_resubmit].port = port;
		lc->n_resubmit++;
		return;
	case LCF_V_DROP:
	default:
		lc->port[port].dropped++;
		rte_pktmbuf_free(m);
		return;
	}
}

/*
 * Second passes run after the whole burst, so a resubmitted packet re-enters
 * behind the packets already received, as on the switch. A burst holds at
 * most SW_MAX_PKT_BURST packets and each resubmits at most once, so the
 * queue cannot overflow.
 */
static inline void
sw_resubmit_run(struct sw_lcore *lc, uint64_t now)
{
	uint16_t i, n = lc->n_resubmit;

	for (i = 0; i < n; i++)
		rte_prefetch0(rte_pktmbuf_mtod(lc->resubmit[i].m, void *));
	lc->n_resubmit = 0;
	for (i = 0; i < n; i++)
		sw_ingress(lc, lc->resubmit[i].m, lc->resubmit[i].port, true,
			   lc->resubmit[i].meta, now);
}

static inline void
sw_burst(struct sw_lcore *lc, struct rte_mbuf **pkts, uint16_t nb,
	 uint16_t port, uint64_t now)
{
	uint16_t i;

	for (i = 0; i < SW_PREFETCH_OFFSET && i < nb; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (i = 0; i < nb; i++) {
		if (i + SW_PREFETCH_OFFSET < nb)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + SW_PREFETCH_OFFSET],
						       void *));
		if (unlikely(lc->fault != NULL)) {
			struct rte_mbuf *dup;

			if (fault_apply(lc->fault, FAULT_IN, port, pkts[i], &dup))
				continue;
			if (dup != NULL)
				sw_ingress(lc, dup, port, false, 0, now);
		}
		sw_ingress(lc, pkts[i], port, false, 0, now);
	}
	if (lc->n_resubmit != 0)
		sw_resubmit_run(lc, now);
}

/* Frames held by a "delay" fault whose time has come re-enter now. */
static void
sw_fault_release(struct sw_lcore *lc, uint64_t now)
{
	struct rte_mbuf *m;
	uint16_t port;

	while ((m = fault_pop(lc->fault, FAULT_IN, now, &port)) != NULL)
		sw_ingress(lc, m, port, false, 0, now);
	if (lc->n_resubmit != 0)
		sw_resubmit_run(lc, now);
	while ((m = fault_pop(lc->fault, FAULT_OUT, now, &port)) != NULL)
		egress_tx(lc, port, m);
}

int
sw_lcore_main(__rte_unused void *arg)
{
	const uint64_t hz = rte_get_tsc_hz();
	const uint64_t drain_tsc = (hz + US_PER_S - 1) / US_PER_S *
				   sw_app.opts.drain_us;
	const uint64_t idle_tsc = hz / MS_PER_S * sw_app.opts.idle_exit_ms;
	struct rte_mbuf *pkts[SW_MAX_PKT_BURST];
	struct sw_lcore *lc = NULL;
	uint64_t prev_tsc = 0, last_rx_tsc;
	unsigned int i;

	for (i = 0; i < sw_app.n_workers; i++)
		if (sw_app.workers[i]->lcore_id == rte_lcore_id())
			lc = sw_app.workers[i];
	if (lc == NULL)
		return 0;    /* an lcore with no work yet */

	SW_LOG(INFO, "lcore %u: forwarding on %u port(s)", lc->lcore_id,
	       lc->n_rx_port);
	last_rx_tsc = rte_rdtsc();

	while (!sw_force_quit) {
		const uint64_t cur_tsc = rte_rdtsc();

		if (unlikely(lc->fault != NULL))
			sw_fault_release(lc, cur_tsc);

		if (unlikely(cur_tsc - prev_tsc > drain_tsc)) {
			egress_flush(lc);
			prev_tsc = cur_tsc;
			if (idle_tsc != 0 && cur_tsc - last_rx_tsc > idle_tsc) {
				SW_LOG(INFO, "lcore %u: idle for %u ms, exiting",
				       lc->lcore_id, sw_app.opts.idle_exit_ms);
				sw_force_quit = true;
				break;
			}
		}

		for (i = 0; i < lc->n_rx_port; i++) {
			const uint16_t port = lc->rx_port[i];
			uint16_t nb;

			nb = rte_eth_rx_burst(sw_app.ports[port].port_id, 0,
					      pkts, SW_MAX_PKT_BURST);
			if (nb == 0)
				continue;
			last_rx_tsc = cur_tsc;
			lc->port[port].rx += nb;
			sw_burst(lc, pkts, nb, port, cur_tsc);
		}
	}
	egress_flush(lc);
	return 0;
}
