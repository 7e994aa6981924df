/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Emission of pipeline results.
 *
 * One copy: the received mbuf is rewritten in place and sent. Several copies
 * (invalidation multicast, the shadow mirror): like DPDK's ipv4_multicast,
 * each copy but the last is a small header mbuf holding its own rewritten
 * Ethernet/IPv4/UDP/LCF headers, chained to an indirect clone of the
 * original whose data starts after the headers, so the payload (a 4 KB
 * block, say) is shared and never copied; the last copy is the received
 * mbuf, rewritten in place. Ports whose PMD does not take multi-segment
 * mbufs get a flat copy instead of a chain.
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
 * Address copy `bit` of a frame whose LCF header already holds
 * the result's header: its node, its flags (the data provider's copy gets
 * LCF_F_DATA_PROVIDER) and its Ethernet/IPv4 destination. Returns the
 * topology port to send it on.
 */
static inline uint16_t
egress_address(uint8_t *frame, const struct lcf_frame_view *view,
	       const struct lcf_result *res, unsigned int bit,
	       const struct lcf_addr *src)
{
	const uint16_t n = (uint16_t)(bit % EGRESS_MIRROR_SHIFT);
	const struct topo_node *node = topo_node_by_id(&sw_app.topo, n);
	uint8_t flags = res->out.flags;

	if (n == res->provider && bit < EGRESS_MIRROR_SHIFT)
		flags |= LCF_F_DATA_PROVIDER;
	lcf_hdr_address(frame + view->lcf_off, n, flags);
	lcf_frame_readdress(frame, view, &node->addr, src);
	return node->port;
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

/*
 * A flat copy for a port that takes no chains. A one-segment frame is
 * copied here, which for a coherence frame of a few dozen bytes is a small
 * fraction of what the general rte_pktmbuf_copy() costs; the rest goes to
 * it.
 */
static struct rte_mbuf *
egress_flat_copy(struct rte_mbuf *m)
{
	const uint16_t len = rte_pktmbuf_data_len(m);
	struct rte_mbuf *c;

	if (m->nb_segs != 1)
		return rte_pktmbuf_copy(m, sw_app.pkt_pool, 0, UINT32_MAX);
	c = rte_pktmbuf_alloc(sw_app.pkt_pool);
	if (unlikely(c == NULL))
		return NULL;
	if (unlikely(rte_pktmbuf_tailroom(c) < len)) {
		rte_pktmbuf_free(c);
		return rte_pktmbuf_copy(m, sw_app.pkt_pool, 0, UINT32_MAX);
	}
	/* What rte_pktmbuf_copy() keeps of the original's metadata. */
	__rte_pktmbuf_copy_hdr(c, m);
	c->ol_flags = m->ol_flags &
		      ~(RTE_MBUF_F_INDIRECT | RTE_MBUF_F_EXTERNAL);
	rte_memcpy(rte_pktmbuf_mtod(c, void *), rte_pktmbuf_mtod(m, void *),
		   len);
	c->data_len = len;
	c->pkt_len = len;
	return c;
}

/*
 * Several copies of `m`, whose LCF header holds the result's: every copy
 * but the last is made from `m`, the last is `m` itself. Out of line, so
 * that the unicast path of egress_emit() saves no registers for it.
 */
static __rte_noinline void
egress_multicast(struct sw_lcore *lc, struct rte_mbuf *m,
		 const struct lcf_frame_view *view,
		 const struct lcf_result *res, uint64_t dests,
		 const struct lcf_addr *src)
{
	const uint16_t hdr_len = view->lcf_off + LCF_HDR_LEN;

	lc->egress.multicast++;
	while (dests != 0) {
		const unsigned int bit = rte_bsf64(dests);
		const uint16_t n = (uint16_t)(bit % EGRESS_MIRROR_SHIFT);
		const uint16_t tport = topo_node_by_id(&sw_app.topo, n)->port;
		struct rte_mbuf *c;

		dests &= dests - 1;
		if (dests == 0) {
			/* The last copy is the received frame itself: the
			 * others were made from it and hold their own
			 * references to its payload. */
			c = m;
		} else if (likely(sw_app.ports[tport].chain_ok)) {
			c = egress_chain(m, hdr_len);
			lc->egress.chained += c != NULL;
		} else {
			c = egress_flat_copy(m);
			lc->egress.flat_copies += c != NULL;
		}
		if (unlikely(c == NULL)) {
			lc->egress.nombuf++;
			continue;
		}
		egress_address(rte_pktmbuf_mtod(c, uint8_t *), view, res, bit,
			       src);
		lc->egress.copies++;
		egress_send(lc, tport, c);
	}
}

void
egress_emit(struct sw_lcore *lc, struct rte_mbuf *m,
	    const struct lcf_frame_view *view, const struct lcf_result *res)
{
	const struct topo *t = &sw_app.topo;
	const struct lcf_addr *src = res->from_switch ? &t->sw.addr : NULL;
	uint64_t dests = res->to_nodes;
	uint32_t mirror;
	const uint64_t nodes = t->node_mask | (uint64_t)t->node_mask
						      << EGRESS_MIRROR_SHIFT;
	uint16_t tport;

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

	/* The header every copy shares, once; each copy then gets its own
	 * node, flags and addresses. */
	lcf_hdr_encode(&res->out,
		       rte_pktmbuf_mtod(m, uint8_t *) + view->lcf_off);
	if (unlikely(dests & (dests - 1))) {
		egress_multicast(lc, m, view, res, dests, src);
		return;
	}
	tport = egress_address(rte_pktmbuf_mtod(m, uint8_t *), view, res,
			       rte_bsf64(dests), src);
	lc->egress.copies++;
	egress_send(lc, tport, m);
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
