/* SPDX-License-Identifier: BSD-3-Clause
 *
 * MAC learning table and L2 forwarding.
 *
 * The table is set-associative like the pipeline's TAG ways: a MAC hashes to
 * one bucket of L2_WAYS entries. Learning takes a free entry, else an aged
 * one, else the least recently seen. Aging is lazy (an entry older than the
 * lifetime is ignored and cleared when met), so the hot path never sweeps.
 */
#include <assert.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_hash_crc.h>
#include <rte_malloc.h>

#include "egress.h"
#include "l2.h"
#include "swswitch.h"

#define L2_BUCKETS (L2_ENTRIES / L2_WAYS)
#define L2_VALID   (UINT64_C(1) << 48) /* above the 48 MAC bits */

struct l2_entry {
	uint64_t key;  /* MAC | L2_VALID; 0 when free */
	uint64_t seen; /* TSC of the last frame from this MAC */
	uint16_t port;
};

struct l2_bucket {
	struct l2_entry e[L2_WAYS];
};

struct l2_table {
	uint64_t age_tsc;
	struct l2_stats st;
	struct l2_bucket b[L2_BUCKETS];
};

static_assert((L2_BUCKETS & (L2_BUCKETS - 1)) == 0,
	      "bucket count must be a power of two");

struct l2_table *
l2_create(uint64_t age_tsc, int socket)
{
	struct l2_table *t;

	t = rte_zmalloc_socket("l2_table", sizeof(*t), RTE_CACHE_LINE_SIZE,
			       socket);
	if (t == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	t->age_tsc = age_tsc;
	return t;
}

void
l2_free(struct l2_table *t)
{
	rte_free(t);
}

const struct l2_stats *
l2_stats(const struct l2_table *t)
{
	return &t->st;
}

static inline uint64_t
l2_key(const struct rte_ether_addr *a)
{
	uint64_t k = 0;

	memcpy(&k, a->addr_bytes, RTE_ETHER_ADDR_LEN);
	return k | L2_VALID;
}

static inline struct l2_bucket *
l2_bucket_of(struct l2_table *t, uint64_t key)
{
	return &t->b[rte_hash_crc_8byte(key, 0) & (L2_BUCKETS - 1)];
}

static inline bool
l2_expired(const struct l2_table *t, const struct l2_entry *e, uint64_t now)
{
	return t->age_tsc != 0 && now - e->seen > t->age_tsc;
}

static void
l2_learn(struct l2_table *t, const struct rte_ether_addr *src, uint16_t port,
	 uint64_t now)
{
	uint64_t key = l2_key(src);
	struct l2_bucket *b = l2_bucket_of(t, key);
	struct l2_entry *victim = NULL;
	unsigned int i;

	for (i = 0; i < L2_WAYS; i++) {
		struct l2_entry *e = &b->e[i];

		if (e->key == key) {
			if (e->port != port)
				t->st.moved++;
			e->port = port;
			e->seen = now;
			return;
		}
	}
	for (i = 0; i < L2_WAYS && victim == NULL; i++)
		if (b->e[i].key == 0)
			victim = &b->e[i];
	for (i = 0; i < L2_WAYS && victim == NULL; i++)
		if (l2_expired(t, &b->e[i], now)) {
			victim = &b->e[i];
			t->st.aged++;
		}
	if (victim == NULL) {
		victim = &b->e[0];
		for (i = 1; i < L2_WAYS; i++)
			if (b->e[i].seen < victim->seen)
				victim = &b->e[i];
		t->st.evicted++;
	}
	victim->key = key;
	victim->port = port;
	victim->seen = now;
	t->st.learned++;
}

/* The learned port of `dst`, or -1 when unknown or aged. */
static int
l2_lookup(struct l2_table *t, const struct rte_ether_addr *dst, uint64_t now)
{
	uint64_t key = l2_key(dst);
	struct l2_bucket *b = l2_bucket_of(t, key);
	unsigned int i;

	for (i = 0; i < L2_WAYS; i++) {
		struct l2_entry *e = &b->e[i];

		if (e->key != key)
			continue;
		if (l2_expired(t, e, now)) {
			e->key = 0;
			t->st.aged++;
			return -1;
		}
		return e->port;
	}
	return -1;
}

/*
 * Every port but the ingress gets the same mbuf: one reference per copy
 * instead of a clone, since L2 copies are never modified. The reference
 * count is per segment, so every segment takes the extra references.
 */
static void
l2_flood(struct sw_lcore *lc, struct rte_mbuf *m, uint16_t in_port)
{
	uint16_t n_out = sw_app.n_ports - 1;
	struct rte_mbuf *seg;
	uint16_t p;

	lc->l2->st.flooded++;
	if (n_out == 0) {
		lc->port[in_port].dropped++;
		rte_pktmbuf_free(m);
		return;
	}
	if (n_out > 1)
		for (seg = m; seg != NULL; seg = seg->next)
			rte_mbuf_refcnt_update(seg, (int16_t)(n_out - 1));
	for (p = 0; p < sw_app.n_ports; p++)
		if (p != in_port)
			egress_send(lc, p, m);
}

void
l2_switch(struct sw_lcore *lc, struct rte_mbuf *m, uint16_t in_port,
	  uint64_t now)
{
	struct l2_table *t = lc->l2;
	const struct rte_ether_hdr *eth;
	int out;

	if (unlikely(rte_pktmbuf_data_len(m) < sizeof(*eth))) {
		t->st.runts++;
		lc->port[in_port].dropped++;
		rte_pktmbuf_free(m);
		return;
	}
	eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

	if (!rte_is_multicast_ether_addr(&eth->src_addr))
		l2_learn(t, &eth->src_addr, in_port, now);

	if (rte_is_multicast_ether_addr(&eth->dst_addr)) {
		l2_flood(lc, m, in_port);
		return;
	}
	out = l2_lookup(t, &eth->dst_addr, now);
	if (out < 0) {
		l2_flood(lc, m, in_port);
		return;
	}
	if (out == in_port) {
		t->st.filtered++;
		lc->port[in_port].dropped++;
		rte_pktmbuf_free(m);
		return;
	}
	t->st.forwarded++;
	egress_send(lc, (uint16_t)out, m);
}

uint32_t
l2_live_entries(const struct l2_table *t, uint64_t now)
{
	uint32_t n = 0;
	unsigned int b, i;

	for (b = 0; b < L2_BUCKETS; b++)
		for (i = 0; i < L2_WAYS; i++)
			if (t->b[b].e[i].key != 0 &&
			    !l2_expired(t, &t->b[b].e[i], now))
				n++;
	return n;
}
