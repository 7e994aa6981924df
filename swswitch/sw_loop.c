/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The per-lcore run-to-completion loop: drain tx on a TSC timer, take the
 * frames other workers handed us, receive a burst from each of our rx
 * queues, classify each frame, run coherence frames of our tags through our
 * LCF pipeline, hand coherence frames of other workers' tags to their owner's
 * ring, switch everything else at L2, then give the burst's resubmitted
 * packets their second pass; send tx at once when the poll found less
 * than a full burst (nothing more waiting).
 *
 * Over 500 lines: the loop and the inline pass functions it needs stay in
 * one translation unit (always-inline, see sw_pipeline).
 *
 * Per-block serialisation (docs/ARCHITECTURE.md "Multi-lcore"): a tag has
 * one owner (shard.h); every frame of it reaches the owner's pipeline either
 * directly (the owner received it: with NIC steering by tag, steer.c, every
 * frame of a conforming sender) or through the owner's FIFO ring, and a
 * given rx queue is polled by one worker only, so frames of one tag from one
 * source keep their arrival order.
 */
#include <assert.h>

#include <rte_branch_prediction.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>
#include <rte_ring.h>

#include "bench_rx.h"
#include "egress.h"
#include "fault.h"
#include "l2.h"
#include "shard.h"
#include "swswitch.h"
#include "trace.h"

/* Frames of other workers' tags found in one burst, per owner (one row per
 * worker); handed over in receive order at the end of the burst. A burst is
 * at most SW_MAX_PKT_BURST frames, each with at most one fault duplicate. */
struct sw_outbox {
	uint16_t n[RTE_MAX_LCORE];
	struct sw_handoff h[][2 * SW_MAX_PKT_BURST];
};

/* Queue a coherence frame and its parse for `owner`. */
static inline void
sw_outbox_put(struct sw_outbox *ob, unsigned int owner, struct rte_mbuf *m,
	      uint16_t port, const struct lcf_frame_view *view,
	      const struct lcf_msg *msg)
{
	struct sw_handoff *h = &ob->h[owner][ob->n[owner]++];

	h->m = m;
	h->msg = *msg;
	h->view = *view;
	h->port = port;
}

/* The parser reads only the contiguous first segment. A chained frame (a
 * jumbo block payload) whose first segment holds every header the parser
 * can read is classified whole: the parser checks lengths against the frame
 * but never reads the payload. Always inline, as sw_pipeline(). */
static __rte_always_inline enum lcf_frame_class
sw_parse(const struct rte_mbuf *m, struct lcf_frame_view *view,
	 struct lcf_msg *msg, enum lcf_drop *reason)
{
	uint32_t len = rte_pktmbuf_data_len(m);

	*reason = LCF_DROP_NONE;
	if (unlikely(m->nb_segs > 1) && len >= SW_MAX_HDRS)
		len = rte_pktmbuf_pkt_len(m);
	return lcf_frame_classify_fast(rte_pktmbuf_mtod(m, const uint8_t *),
				       len, sw_app.topo.lcf_port, view, msg,
				       reason);
}

/* A frame that is not for the pipeline: L2 switched, or counted and dropped
 * when it is a malformed coherence frame. */
static inline void
sw_not_pipeline(struct sw_lcore *lc, struct rte_mbuf *m, uint16_t port,
		uint64_t now, enum lcf_frame_class cls, enum lcf_drop reason)
{
	if (cls == LCF_FRAME_OTHER) {
		l2_switch(lc, m, port, now);
	} else {
		lcf_pipeline_count_drop(lc->pipe, reason);
		lc->port[port].dropped++;
		rte_pktmbuf_free(m);
	}
}

/*
 * Classify `m`. Frames that are not for the pipeline are consumed here;
 * LCF_FRAME_PIPELINE leaves `m` to the caller with `view` and `msg` filled
 * in.
 */
static inline enum lcf_frame_class
sw_classify(struct sw_lcore *lc, struct rte_mbuf *m, uint16_t port,
	    uint64_t now, struct lcf_frame_view *view, struct lcf_msg *msg)
{
	enum lcf_drop reason;
	enum lcf_frame_class cls;

	cls = sw_parse(m, view, msg, &reason);
	if (cls != LCF_FRAME_PIPELINE)
		sw_not_pipeline(lc, m, port, now, cls, reason);
	return cls;
}

/* One pipeline pass. Consumes `m` or parks it on the resubmit queue.
 * Always inline: a call per pass cost more in register saves than the
 * code it calls once per site. */
static __rte_always_inline void
sw_pipeline(struct sw_lcore *lc, struct rte_mbuf *m, uint16_t port,
	    bool resubmitted, uint64_t meta, const struct lcf_frame_view *view,
	    const struct lcf_msg *msg)
{
	struct lcf_ingress ing;
	struct lcf_result res;
	struct sw_resubmit *rs;

	ing.port = port;
	ing.resubmitted = resubmitted;
	ing.resubmit_meta = meta;
	sw_trace_msg(LCF_TP_SW_IN, msg, port, resubmitted);
	lcf_pipeline_process(lc->pipe, msg, &ing, &res);
	sw_trace_msg(LCF_TP_SW_OUT, msg, port, res.verdict);

	switch (res.verdict) {
	case LCF_V_EMIT:
		egress_emit(lc, m, view, &res);
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
		rs = &lc->resubmit[lc->n_resubmit++];
		rs->m = m;
		rs->meta = res.resubmit_meta;
		rs->port = port;
		rs->view = *view;
		rs->msg = *msg;
		return;
	case LCF_V_DROP:
	default:
		lc->port[port].dropped++;
		rte_pktmbuf_free(m);
		return;
	}
}

/*
 * A frame received on one of our rx queues (first pass). Coherence frames of
 * another worker's tag go to that owner's outbox with their parse.
 */
static inline void
sw_rx_one(struct sw_lcore *lc, struct rte_mbuf *m, uint16_t port, uint64_t now,
	  struct sw_outbox *ob)
{
	struct lcf_frame_view view;
	struct lcf_msg msg;
	unsigned int owner;

	if (sw_classify(lc, m, port, now, &view, &msg) != LCF_FRAME_PIPELINE)
		return;
	owner = sw_shard_of(msg.tag, sw_app.n_workers);
	if (likely(owner == lc->index))
		sw_pipeline(lc, m, port, false, 0, &view, &msg);
	else
		sw_outbox_put(ob, owner, m, port, &view, &msg);
}

/*
 * Hand each owner the frames of its tags, in receive order. A full ring
 * drops (counted): blocking could deadlock two workers that feed each
 * other, and a switch drops on a full queue anyway.
 */
static void
sw_outbox_flush(struct sw_lcore *lc, struct sw_outbox *ob)
{
	unsigned int w;

	for (w = 0; w < sw_app.n_workers; w++) {
		unsigned int n = ob->n[w], sent;

		if (n == 0)
			continue;
		ob->n[w] = 0;
		sent = rte_ring_mp_enqueue_burst_elem(sw_app.workers[w]->ring,
						      ob->h[w],
						      sizeof(ob->h[w][0]), n,
						      NULL);
		lc->dispatch.sent += sent;
		if (unlikely(sent < n)) {
			lc->dispatch.ring_full += n - sent;
			for (; sent < n; sent++)
				rte_pktmbuf_free(ob->h[w][sent].m);
		}
	}
}

/*
 * Second passes run after the whole burst, so a resubmitted packet re-enters
 * behind the packets already received, as on the switch. A burst holds at
 * most SW_MAX_PKT_BURST packets, twice that with fault duplicates, and each
 * resubmits at most once: the queue (swswitch.h) holds them all. A lost
 * second pass would strand its first pass's lock (a REMOVE's, a RELEASE's:
 * PROTOCOL.md 4.8).
 */
static inline void
sw_resubmit_run(struct sw_lcore *lc)
{
	uint16_t i, n = lc->n_resubmit;

	for (i = 0; i < n; i++)
		rte_prefetch0(rte_pktmbuf_mtod(lc->resubmit[i].m, void *));
	lc->n_resubmit = 0;
	for (i = 0; i < n; i++) {
		struct sw_resubmit *rs = &lc->resubmit[i];

		sw_pipeline(lc, rs->m, rs->port, true, rs->meta, &rs->view,
			    &rs->msg);
	}
}

/* A burst with fault injection: each frame may be dropped, held or
 * duplicated before it is classified, so frames are taken one at a time. */
static void
sw_burst_faults(struct sw_lcore *lc, struct rte_mbuf **pkts, uint16_t nb,
		uint16_t port, uint64_t now, struct sw_outbox *ob)
{
	uint16_t i;

	for (i = 0; i < nb; i++) {
		struct rte_mbuf *dup;

		if (fault_apply(lc->fault, FAULT_IN, port, pkts[i], &dup))
			continue;
		if (dup != NULL)
			sw_rx_one(lc, dup, port, now, ob);
		sw_rx_one(lc, pkts[i], port, now, ob);
	}
}

/* What the parse of one frame of a burst found. */
struct sw_parsed {
	struct lcf_frame_view view;
	struct lcf_msg msg;
	enum lcf_frame_class cls;
	enum lcf_drop reason;
	unsigned int owner;
};

/*
 * A burst in two passes: parse every frame and start the loads of the
 * register slots each coherence frame will touch, then handle the frames in
 * receive order. The TAG lookups of a burst are independent cache misses
 * into megabytes of registers; issued together they overlap each other and
 * the parsing instead of stalling one pass each. The parse has no side
 * effect, so the frames are still handled (switched, dropped, run through
 * the pipeline) in the order they arrived.
 */
static inline void
sw_burst_prefetched(struct sw_lcore *lc, struct rte_mbuf **pkts, uint16_t nb,
		    uint16_t port, uint64_t now, struct sw_outbox *ob)
{
	struct sw_parsed f[SW_MAX_PKT_BURST];
	uint16_t i;

	for (i = 0; i < SW_PREFETCH_OFFSET && i < nb; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (i = 0; i < nb; i++) {
		if (i + SW_PREFETCH_OFFSET < nb)
			rte_prefetch0(
				rte_pktmbuf_mtod(pkts[i + SW_PREFETCH_OFFSET],
						 void *));
		f[i].cls = sw_parse(pkts[i], &f[i].view, &f[i].msg,
				    &f[i].reason);
		if (f[i].cls != LCF_FRAME_PIPELINE)
			continue;
		f[i].owner = sw_shard_of(f[i].msg.tag, sw_app.n_workers);
		if (likely(f[i].owner == lc->index))
			lcf_pipeline_prefetch(lc->pipe, f[i].msg.tag);
	}
	for (i = 0; i < nb; i++) {
		if (f[i].cls != LCF_FRAME_PIPELINE)
			sw_not_pipeline(lc, pkts[i], port, now, f[i].cls,
					f[i].reason);
		else if (likely(f[i].owner == lc->index))
			sw_pipeline(lc, pkts[i], port, false, 0, &f[i].view,
				    &f[i].msg);
		else
			sw_outbox_put(ob, f[i].owner, pkts[i], port, &f[i].view,
				      &f[i].msg);
	}
}

static inline void
sw_burst(struct sw_lcore *lc, struct rte_mbuf **pkts, uint16_t nb,
	 uint16_t port, uint64_t now, struct sw_outbox *ob)
{
	if (unlikely(lc->fault != NULL))
		sw_burst_faults(lc, pkts, nb, port, now, ob);
	else
		sw_burst_prefetched(lc, pkts, nb, port, now, ob);
	if (lc->n_resubmit != 0)
		sw_resubmit_run(lc);
	if (sw_app.n_workers > 1)
		sw_outbox_flush(lc, ob);
}

/*
 * Frames of our tags that other workers received, with their parse. Each
 * producer enqueued them in its receive order and the ring is FIFO, so per
 * source queue the order is the arrival order. As for a received burst, the
 * register loads of the whole burst start first (the tags are in the ring
 * elements), and the mbuf and frame lines are prefetched a few frames ahead
 * of the pipeline, which reads the frame only at egress.
 */
static inline unsigned int
sw_ring_drain(struct sw_lcore *lc)
{
	struct sw_handoff h[SW_MAX_PKT_BURST];
	unsigned int i, nb;

	nb = rte_ring_sc_dequeue_burst_elem(lc->ring, h, sizeof(h[0]),
					    SW_MAX_PKT_BURST, NULL);
	if (nb == 0)
		return 0;
	lc->dispatch.received += nb;
	for (i = 0; i < nb; i++) {
		rte_prefetch0(h[i].m);
		lcf_pipeline_prefetch(lc->pipe, h[i].msg.tag);
	}
	for (i = 0; i < SW_PREFETCH_OFFSET && i < nb; i++)
		rte_prefetch0(rte_pktmbuf_mtod(h[i].m, void *));
	for (i = 0; i < nb; i++) {
		if (i + SW_PREFETCH_OFFSET < nb)
			rte_prefetch0(
				rte_pktmbuf_mtod(h[i + SW_PREFETCH_OFFSET].m,
						 void *));
		sw_pipeline(lc, h[i].m, h[i].port, false, 0, &h[i].view,
			    &h[i].msg);
	}
	if (lc->n_resubmit != 0)
		sw_resubmit_run(lc);
	return nb;
}

/*
 * Backpressure: whether some other worker's ring holds more than
 * SW_RING_HIGH frames (swswitch.h). Then we skip our rx for this iteration,
 * so an overloaded owner makes frames wait in the NIC's rx queue (and, past
 * that, drop there, counted as imissed) instead of being received and
 * dropped at a full ring after the work of receiving them, and the frames
 * in a ring stay few enough to be warm when their owner takes them. The
 * ring has room for far more than the round of bursts we may add after
 * this check.
 */
/* After the check, each producer may still add one round of bursts (every
 * rx queue, each frame with a fault duplicate): room for four at once. */
static_assert(SW_RING_HIGH + 4 * SW_MAX_RXQ * 2 * SW_MAX_PKT_BURST <=
		      SW_RING_SIZE,
	      "SW_RING_HIGH leaves too little room in the ring");

static inline bool
sw_peers_congested(const struct sw_lcore *lc)
{
	unsigned int w;

	for (w = 0; w < sw_app.n_workers; w++)
		if (w != lc->index &&
		    rte_ring_count(sw_app.workers[w]->ring) > SW_RING_HIGH)
			return true;
	return false;
}

/* Whether every worker has been idle for more than `idle_tsc` at `now`. */
static bool
sw_all_idle(uint64_t now, uint64_t idle_tsc)
{
	unsigned int w;

	for (w = 0; w < sw_app.n_workers; w++)
		if (now - sw_app.workers[w]->last_active_tsc <= idle_tsc)
			return false;
	return true;
}

/* Frames held by a "delay" fault whose time has come re-enter now. */
static void
sw_fault_release(struct sw_lcore *lc, uint64_t now, struct sw_outbox *ob)
{
	struct rte_mbuf *m;
	uint16_t port;
	unsigned int n = 0;

	/* At most one outbox's worth before handing over. */
	while ((m = fault_pop(lc->fault, FAULT_IN, now, &port)) != NULL) {
		sw_rx_one(lc, m, port, now, ob);
		if (++n == SW_MAX_PKT_BURST) {
			if (lc->n_resubmit != 0)
				sw_resubmit_run(lc);
			sw_outbox_flush(lc, ob);
			n = 0;
		}
	}
	if (lc->n_resubmit != 0)
		sw_resubmit_run(lc);
	sw_outbox_flush(lc, ob);
	while ((m = fault_pop(lc->fault, FAULT_OUT, now, &port)) != NULL)
		egress_tx(lc, port, m);
}

/*
 * --idle-sleep-us: after SW_IDLE_POLLS empty polls in a row, sleep. A
 * poll-mode lcore on a CPU it shares with the node agents (the namespace
 * cluster) otherwise uses its whole time slice and, once the scheduler
 * has charged it for that, waits behind every runnable agent while frames
 * queue on its ports; a sleeper is woken ahead of them. Frames that come
 * while it sleeps wait up to the sleep (plus timer slack).
 */
#define SW_IDLE_POLLS 64

static void
sw_idle_sleep(struct sw_lcore *lc, uint32_t us)
{
	egress_flush(lc);
	rte_delay_us_sleep(us);
	lc->dispatch.idle_sleeps++;
}

int
sw_lcore_main(__rte_unused void *arg)
{
	const uint64_t hz = rte_get_tsc_hz();
	const uint64_t drain_tsc = (hz + US_PER_S - 1) / US_PER_S *
				   sw_app.opts.drain_us;
	const uint64_t idle_tsc = hz / MS_PER_S * sw_app.opts.idle_exit_ms;
	struct rte_mbuf *pkts[SW_MAX_PKT_BURST];
	struct sw_outbox *ob;
	struct sw_lcore *lc = NULL;
	uint64_t prev_tsc = 0;
	uint64_t bp_since = 0; /* TSC our rx stopped for a peer's ring, or 0 */
	const uint32_t sleep_us = sw_app.opts.idle_sleep_us;
	unsigned int i, work, idle = 0;

	for (i = 0; i < sw_app.n_workers; i++)
		if (sw_app.workers[i]->lcore_id == rte_lcore_id())
			lc = sw_app.workers[i];
	if (lc == NULL)
		return 0; /* an lcore with no work yet */

	/* Allocated once, before the loop: the hot path never allocates. */
	ob = rte_zmalloc_socket("sw_outbox",
				sizeof(*ob) +
					sw_app.n_workers * sizeof(ob->h[0]),
				RTE_CACHE_LINE_SIZE, (int)rte_socket_id());
	if (ob == NULL) {
		SW_LOG(ERR, "lcore %u: cannot allocate the outbox",
		       lc->lcore_id);
		sw_force_quit = true;
		return -1;
	}
	/* "forwarding on" is what pcap-tests/run_vectors.py waits for. */
	SW_LOG(INFO, "worker %u on lcore %u: forwarding on %u rx queue(s)",
	       lc->index, lc->lcore_id, lc->n_rxq);
	lc->last_active_tsc = rte_rdtsc();

	while (!sw_force_quit) {
		const uint64_t cur_tsc = rte_rdtsc();

		if (unlikely(lc->fault != NULL))
			sw_fault_release(lc, cur_tsc, ob);

		if (unlikely(cur_tsc - prev_tsc > drain_tsc)) {
			egress_flush(lc);
			prev_tsc = cur_tsc;
			if (idle_tsc != 0 && sw_all_idle(cur_tsc, idle_tsc)) {
				SW_LOG(INFO,
				       "worker %u: all workers idle for "
				       "%u ms, exiting",
				       lc->index, sw_app.opts.idle_exit_ms);
				sw_force_quit = true;
				break;
			}
		}

		/* A control command (ctl.h), between two bursts. */
		if (unlikely(__atomic_load_n(&lc->ctl.req, __ATOMIC_ACQUIRE) !=
			     lc->ctl.done))
			sw_ctl_apply(lc);

		lc->dispatch.loops++;
		work = 0;
		/* Our ring first: those frames were received before this
		 * iteration's bursts. As many bursts as our peers may have
		 * sent in one of their iterations, so the ring drains at the
		 * rate it fills. */
		if (sw_app.n_workers > 1) {
			unsigned int n, k = 0;

			do {
				n = sw_ring_drain(lc);
				work += n;
			} while (n == SW_MAX_PKT_BURST && ++k < SW_MAX_RXQ);
			if (unlikely(sw_peers_congested(lc))) {
				lc->dispatch.backpressure++;
				if (bp_since == 0)
					bp_since = cur_tsc;
				if (work != 0)
					lc->last_active_tsc = cur_tsc;
				continue;
			}
			if (unlikely(bp_since != 0)) {
				lc->dispatch.backpressure_tsc += cur_tsc -
								 bp_since;
				bp_since = 0;
			}
		}
		for (i = 0; i < lc->n_rxq; i++) {
			const uint16_t port = lc->rxq[i].tport;
			uint16_t nb;

			if (lc->rxq[i].bench != NULL)
				nb = bench_rx_burst(lc->rxq[i].bench, pkts,
						    SW_MAX_PKT_BURST);
			else
				nb = rte_eth_rx_burst(sw_app.ports[port]
							      .port_id,
						      lc->rxq[i].queue, pkts,
						      SW_MAX_PKT_BURST);
			if (nb == 0)
				continue;
			work += nb;
			lc->port[port].rx += nb;
			sw_burst(lc, pkts, nb, port, cur_tsc, ob);
		}
		if (work != 0) {
			lc->last_active_tsc = cur_tsc;
			idle = 0;
		} else {
			lc->dispatch.idle_loops++;
			if (sleep_us && ++idle >= SW_IDLE_POLLS)
				sw_idle_sleep(lc, sleep_us);
		}
		/* Nothing more waiting (a short burst): send now rather than
		 * after --drain-us. On a lightly loaded switch a frame would
		 * otherwise wait up to drain-us at every pass (the latency
		 * breakdown's net_from_sw); under load bursts are full and
		 * stay batched. --batch-tx: the timer only. */
		if (work != 0 && work < SW_MAX_PKT_BURST &&
		    !sw_app.opts.batch_tx) {
			egress_flush(lc);
			prev_tsc = cur_tsc;
		}
	}
	egress_flush(lc);
	rte_free(ob);
	return 0;
}
