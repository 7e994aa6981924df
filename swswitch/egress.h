/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Egress: the per-lcore tx buffers, and the emission of pipeline results
 * (header rewrite, unicast in place, multicast as header + shared payload).
 */
#ifndef SW_EGRESS_H
#define SW_EGRESS_H

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <rte_branch_prediction.h>

#include "fault.h"
#include "lcf_pipeline.h"
#include "lcf_wire.h"
#include "swswitch.h"

/*
 * Frames one worker has for one port, sent as one tx burst when
 * SW_MAX_PKT_BURST are there or at the drain timer. What
 * rte_eth_tx_buffer() does, without its per-frame call and with the port
 * id beside the array instead of in sw_app.
 */
struct egress_txq {
	uint16_t port_id;
	uint16_t n;
	struct rte_mbuf *pkts[SW_MAX_PKT_BURST];
};

/** Hand the frames `lc` holds for topology port `tport` to the PMD. */
void egress_txq_flush(struct sw_lcore *lc, uint16_t tport);

/* Queue `m` for topology port `tport`, past fault injection. */
static inline void
egress_tx(struct sw_lcore *lc, uint16_t tport, struct rte_mbuf *m)
{
	struct egress_txq *q = &lc->txq[tport];

	q->pkts[q->n++] = m;
	if (unlikely(q->n == SW_MAX_PKT_BURST))
		egress_txq_flush(lc, tport);
}

/* Queue `m` for topology port `tport`; the buffer sends when it is full. */
static inline void
egress_send(struct sw_lcore *lc, uint16_t tport, struct rte_mbuf *m)
{
	struct rte_mbuf *dup;

	if (likely(lc->fault == NULL)) {
		egress_tx(lc, tport, m);
		return;
	}
	if (fault_apply(lc->fault, FAULT_OUT, tport, m, &dup))
		return;
	egress_tx(lc, tport, m);
	if (dup != NULL)
		egress_tx(lc, tport, dup);
}

/** Send whatever the lcore's tx buffers hold. */
void egress_flush(struct sw_lcore *lc);

/**
 * Emit the copies an LCF_V_EMIT result asks for. `m` holds the frame that
 * `view` describes; it is consumed: rewritten and sent as the only or the
 * last copy, the other copies being made from it before (header mbufs
 * sharing its payload, or flat copies for ports that take no chains).
 */
void egress_emit(struct sw_lcore *lc, struct rte_mbuf *m,
		 const struct lcf_frame_view *view,
		 const struct lcf_result *res);

/**
 * Allocate the tx queues of `lc`, one per port.
 *
 * @return 0 or -ENOMEM.
 */
int egress_lcore_init(struct sw_lcore *lc, int socket);

/** Free the tx queues of `lc` and the frames they still hold (flush first). */
void egress_lcore_free(struct sw_lcore *lc);

#endif /* SW_EGRESS_H */
