/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Emission of pipeline results.
 *
 * One copy: the received mbuf is rewritten in place and sent. Several copies
 * (invalidation multicast, the shadow mirror): like DPDK's ipv4_multicast,
 * each copy is a small header mbuf holding its own rewritten Ethernet/IPv4/
 * UDP/LCF headers, chained to an indirect clone of the original whose data
 * starts after the headers, so the payload (a 4 KB block, say) is shared and
 * never copied. Ports whose PMD does not take multi-segment mbufs get a flat
 * copy instead.
 */
#include <rte_atomic.h>
#include <rte_branch_prediction.h>
#include <rte_malloc.h>
#include <rte_memcpy.h>

#include "egress.h"
#include "swswitch.h"

void
egress_txq_flush(struct sw_lcore *lc, uint16_t tport)
{
	struct egress_txq *q = &lc->txq[tport];
	uint16_t sent;

	if (q->n == 0)
		return;
	/* Tx queue = worker index: each worker has its own on every port. */
	sent = rte_eth_tx_burst(q->port_id, (uint16_t)lc->index, q->pkts, q->n);
	lc->port[tport].tx += sent;
	if (unlikely(sent < q->n)) {
		lc->port[tport].tx_dropped += q->n - sent;
		rte_pktmbuf_free_bulk(&q->pkts[sent], q->n - sent);
	}
	q->n = 0;
}

void
egress_flush(struct sw_lcore *lc)
{
	uint16_t p;

	for (p = 0; p < sw_app.n_ports; p++)
		egress_txq_flush(lc, p);
}

/*
 * Copies to make: bit n is a copy to node n, bit 32 + n a mirror copy to node
 * n. A node can get both (a home agent that is also the shadow node gets its
 * MIGRATE_ACK and the mirror), as from a Tofino's mirror session.
 */
#define EGRESS_MIRROR_SHIFT 32

/*
 * Address the result's header to copy `bit`'s node: set in place, field by
 * field (a copy of the whole header just after the pipeline's narrow
 * stores to it would stall on store forwarding). `flags` are the result's
 * own.
 */
static inline uint16_t
egress_copy_msg(struct lcf_result *res, unsigned int bit, uint8_t flags)
{
	uint16_t n = (uint16_t)(bit % EGRESS_MIRROR_SHIFT);

	res->out.dst_node = n;
	res->out.flags = flags;
	if (n == res->provider && bit < EGRESS_MIRROR_SHIFT)
		res->out.flags |= LCF_F_DATA_PROVIDER;
	return n;
}

static struct rte_mbuf *
egress_chain(struct rte_mbuf *m, uint16_t hdr_len)
{
	struct rte_mbuf *hdr, *payload = NULL;

	hdr = rte_pktmbuf_alloc(sw_app.hdr_pool);
	if (unlikely(hdr == NULL))
		return NULL;
	if (rte_pktmbuf_pkt_len(m) > hdr_len) {
		payload = rte_pktmbuf_clone(m, sw_app.clone_pool);
		if (unlikely(payload == NULL)) {
			rte_pktmbuf_free(hdr);
			return NULL;
		}
		/* Only the clone's view moves; the shared data is untouched. */
		rte_pktmbuf_adj(payload, hdr_len);
	}
	rte_memcpy(rte_pktmbuf_mtod(hdr, void *), rte_pktmbuf_mtod(m, void *),
		   hdr_len);
	hdr->data_len = hdr_len;
	hdr->pkt_len = hdr_len;
	if (payload != NULL) {
		hdr->next = payload;
		hdr->pkt_len += payload->pkt_len;
		hdr->nb_segs = payload->nb_segs + 1;
	}
	hdr->port = m->port;
	__rte_mbuf_sanity_check(hdr, 1);
	return hdr;
}

void
egress_emit(struct sw_lcore *lc, struct rte_mbuf *m,
	    const struct lcf_frame_view *view, struct lcf_result *res)
{
	const struct topo *t = &sw_app.topo;
	const struct lcf_addr *src = res->from_switch ? &t->sw.addr : NULL;
	uint64_t dests = res->to_nodes;
	uint32_t mirror;
	const uint64_t nodes = t->node_mask |
			       (uint64_t)t->node_mask << EGRESS_MIRROR_SHIFT;
	const uint16_t hdr_len = view->lcf_off + LCF_HDR_LEN;
	const uint8_t flags = res->out.flags;
	const struct topo_node *node;

	/* Two 4-byte loads, kept apart: compilers otherwise make one 8-byte
	 * load of the two fields the pipeline has just stored separately,
	 * and such a load waits for both stores to reach the cache (no store
	 * forwarding); that wait was most of egress's time. */
	rte_compiler_barrier();
	mirror = res->mirror_nodes;
	dests |= (uint64_t)mirror << EGRESS_MIRROR_SHIFT;
	if (unlikely(dests & ~nodes)) {
		/* The pipeline validated the topology; this would be its bug. */
		lc->egress.no_destination++;
		dests &= nodes;
	}
	if (unlikely(dests == 0)) {
		lc->egress.no_destination++;
		rte_pktmbuf_free(m);
		return;
	}

	if ((dests & (dests - 1)) == 0) {
		uint16_t n = egress_copy_msg(res, rte_bsf64(dests), flags);

		node = topo_node_by_id(t, n);
		lcf_frame_rewrite(rte_pktmbuf_mtod(m, uint8_t *), view, &res->out,
				  &node->addr, src);
		lc->egress.copies++;
		egress_send(lc, node->port, m);
		return;
	}

	lc->egress.multicast++;
	while (dests != 0) {
		uint16_t n = egress_copy_msg(res, rte_bsf64(dests), flags);
		struct rte_mbuf *c;

		dests &= dests - 1;
		node = topo_node_by_id(t, n);
		if (likely(sw_app.ports[node->port].chain_ok)) {
			c = egress_chain(m, hdr_len);
			lc->egress.chained += c != NULL;
		} else {
			c = rte_pktmbuf_copy(m, sw_app.pkt_pool, 0, UINT32_MAX);
			lc->egress.flat_copies += c != NULL;
		}
		if (unlikely(c == NULL)) {
			lc->egress.nombuf++;
			continue;
		}
		lcf_frame_rewrite(rte_pktmbuf_mtod(c, uint8_t *), view, &res->out,
				  &node->addr, src);
		lc->egress.copies++;
		egress_send(lc, node->port, c);
	}
	/* The copies hold their own references to the payload. */
	rte_pktmbuf_free(m);
}

int
egress_lcore_init(struct sw_lcore *lc, int socket)
{
	uint16_t p;

	lc->txq = rte_zmalloc_socket("egress_txq",
				     sw_app.n_ports * sizeof(*lc->txq),
				     RTE_CACHE_LINE_SIZE, socket);
	if (lc->txq == NULL)
		return -ENOMEM;
	for (p = 0; p < sw_app.n_ports; p++)
		lc->txq[p].port_id = sw_app.ports[p].port_id;
	return 0;
}

void
egress_lcore_free(struct sw_lcore *lc)
{
	uint16_t p;

	if (lc->txq == NULL)
		return;
	for (p = 0; p < sw_app.n_ports; p++)
		rte_pktmbuf_free_bulk(lc->txq[p].pkts, lc->txq[p].n);
	rte_free(lc->txq);
	lc->txq = NULL;
}
