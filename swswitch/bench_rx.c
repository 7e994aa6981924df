/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Benchmark frame source: loading a pcap file into memory (bench_rx.h).
 */
#include <stdlib.h>

#include <pcap/pcap.h>
#include <rte_common.h>
#include <rte_malloc.h>

#include "bench_rx.h"
#include "swswitch.h"

struct bench_rx *
bench_rx_load(const char *path, uint16_t port_id, struct rte_mempool *mp)
{
	const uint32_t room = rte_pktmbuf_data_room_size(mp) -
			      RTE_PKTMBUF_HEADROOM;
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *bytes;
	struct bench_rx *b;
	uint32_t cap = 0, maxlen = 0;
	pcap_t *pc;
	int ret;

	/* Two reads of the file: the first sizes the array. */
	pc = pcap_open_offline(path, err);
	if (pc == NULL) {
		SW_LOG(ERR, "--bench-rx: %s", err);
		return NULL;
	}
	while ((ret = pcap_next_ex(pc, &h, &bytes)) == 1) {
		cap++;
		maxlen = RTE_MAX(maxlen, h->caplen);
	}
	pcap_close(pc);
	/* bench_rx_burst() copies whole 64-byte blocks. */
	if (ret != PCAP_ERROR_BREAK || cap == 0 ||
	    RTE_ALIGN_CEIL(maxlen, 64) > room) {
		SW_LOG(ERR, "--bench-rx: %s: %s", path,
		       ret != PCAP_ERROR_BREAK ? "read error"
		       : cap == 0              ? "no frames"
					       : "a frame exceeds the mbuf");
		return NULL;
	}

	b = rte_zmalloc("bench_rx", sizeof(*b), RTE_CACHE_LINE_SIZE);
	if (b == NULL)
		return NULL;
	b->mp = mp;
	b->port_id = port_id;
	b->stride = RTE_ALIGN_CEIL(maxlen, 64);
	b->len = rte_malloc("bench_rx_len", cap * sizeof(*b->len), 0);
	b->data = rte_malloc("bench_rx_data", (size_t)cap * b->stride,
			     RTE_CACHE_LINE_SIZE);
	pc = pcap_open_offline(path, err);
	if (b->len == NULL || b->data == NULL || pc == NULL) {
		SW_LOG(ERR, "--bench-rx: %s: %s", path,
		       pc == NULL ? err : "no memory");
		if (pc != NULL)
			pcap_close(pc);
		bench_rx_free(b);
		return NULL;
	}
	while (b->n < cap && pcap_next_ex(pc, &h, &bytes) == 1) {
		b->len[b->n] = (uint16_t)h->caplen;
		memcpy(b->data + (size_t)b->n * b->stride, bytes, h->caplen);
		b->n++;
	}
	pcap_close(pc);
	if (b->n == 0) {
		SW_LOG(ERR, "--bench-rx: %s: no frames", path);
		bench_rx_free(b);
		return NULL;
	}
	return b;
}

void
bench_rx_free(struct bench_rx *b)
{
	if (b == NULL)
		return;
	rte_free(b->len);
	rte_free(b->data);
	rte_free(b);
}
