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

/* Queue `m` for topology port `tport`, past fault injection. */
static inline void
egress_tx(struct sw_lcore *lc, uint16_t tport, struct rte_mbuf *m)
{
	/* Tx queue = worker index: each worker has its own on every port. */
	lc->port[tport].tx += rte_eth_tx_buffer(sw_app.ports[tport].port_id,
						(uint16_t)lc->index,
						lc->tx_buf[tport], m);
}

/* Queue `m` for topology port `tport`; the buffer sends when it is full. */
static inline void
egress_send(struct sw_lcore *lc, uint16_t tport, struct rte_mbuf *m)
{
	struct rte_mbuf *dup;

	if (unlikely(lc->fault != NULL) &&
	    fault_apply(lc->fault, FAULT_OUT, tport, m, &dup))
		return;
	egress_tx(lc, tport, m);
	if (unlikely(lc->fault != NULL) && dup != NULL)
		egress_tx(lc, tport, dup);
}

/** Send whatever the lcore's tx buffers hold. */
void egress_flush(struct sw_lcore *lc);

/**
 * Emit the copies an LCF_V_EMIT result asks for. `m` holds the frame that
 * `view` describes; it is consumed (rewritten and sent, or its payload
 * shared by the copies and the original reference freed). The header in
 * `res->out` is addressed to each copy in turn: its dst_node and flags are
 * the last copy's on return.
 */
void egress_emit(struct sw_lcore *lc, struct rte_mbuf *m,
		 const struct lcf_frame_view *view, struct lcf_result *res);

/**
 * Allocate and attach a tx buffer for every port of `lc`.
 *
 * @return 0 or -ENOMEM.
 */
int egress_lcore_init(struct sw_lcore *lc, int socket);

/** Free the tx buffers of `lc` (flush first). */
void egress_lcore_free(struct sw_lcore *lc);

#endif /* SW_EGRESS_H */
