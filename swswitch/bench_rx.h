/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Benchmark frame source (--bench-rx DIR, docs/PERFORMANCE.md): stands in
 * for a port's rx burst with the work net_null,copy=1 does per frame (bulk
 * mbuf allocation and a copy of the frame bytes), but from recorded
 * coherence frames, so the benchmark measures swswitch's hot path against
 * testpmd on net_null with the same per-frame source cost, and not a PMD's.
 */
#ifndef SW_BENCH_RX_H
#define SW_BENCH_RX_H

#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>
#include <rte_mempool.h>

struct bench_rx {
	struct rte_mempool *mp;
	uint16_t port_id; /* DPDK port id written to mbuf->port */
	uint32_t n;       /* frames, replayed in a loop */
	uint32_t next;
	uint32_t stride; /* bytes between frames in `data` */
	uint16_t *len;
	uint8_t *data;
};

/**
 * Load every frame of the pcap file `path` for rx queue replay as port
 * `port_id` from pool `mp`.
 *
 * @return the source, or NULL after logging why (unreadable file, no frames,
 *   a frame larger than the pool's data room, no memory).
 */
struct bench_rx *bench_rx_load(const char *path, uint16_t port_id,
			       struct rte_mempool *mp);

/** Free a source (NULL is a no-op). */
void bench_rx_free(struct bench_rx *b);

/**
 * The next `n` frames, as an rx burst would return them: fresh mbufs holding
 * a copy of each frame. All or nothing, like net_null: 0 when the pool is
 * short.
 */
static inline uint16_t
bench_rx_burst(struct bench_rx *b, struct rte_mbuf **pkts, uint16_t n)
{
	uint32_t next = b->next;
	uint16_t i;

	if (unlikely(rte_pktmbuf_alloc_bulk(b->mp, pkts, n) != 0))
		return 0;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const uint16_t len = b->len[next];
		const uint8_t *src = b->data + (size_t)next * b->stride;
		uint8_t *dst = rte_pktmbuf_mtod(m, uint8_t *);
		uint16_t off;

		/* Whole 64-byte blocks: the frame's stride holds them, and a
		 * fixed-size copy has none of the size dispatch of a
		 * variable-length rte_memcpy (net_null copies a constant
		 * size too). */
		for (off = 0; off < len; off += 64)
			rte_mov64(dst + off, src + off);
		m->data_len = len;
		m->pkt_len = len;
		m->port = b->port_id;
		if (++next == b->n)
			next = 0;
	}
	b->next = next;
	return n;
}

#endif /* SW_BENCH_RX_H */
