/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The verbs (rdma-core) transport of the node agent. Design: docs/VERBS.md.
 *
 *  - Coherence frames (every LCF message) travel on one raw-packet QP
 *    (IBV_QPT_RAW_PACKET). We build the whole Ethernet/IPv4/UDP/LCF frame
 *    with lcf_frame_build(), addressed to node `dst` from the topology, and a
 *    flow-steering rule (ibv_create_flow) delivers to this QP exactly the
 *    frames whose dst MAC is ours and whose UDP dst port is the topology's
 *    lcf_port. That is the same traffic the UDP transport's socket sees, so
 *    the switch (swswitch or a Tofino) cannot tell the two apart.
 *  - Block data (node-to-node messages, types 0x20-0x7f, with a payload)
 *    travels on one RC QP per peer, as an RDMA WRITE WITH IMMEDIATE of the
 *    LCF header + payload into a ring of slots that the receiver registered
 *    for that peer; the receiver returns credits by RDMA-writing its consumed
 *    count into a word of the sender's memory. Until a peer's RC QP is
 *    connected, and for everything else, the raw QP is used.
 *  - The RC connection exchange (QPN, PSN, GID, ring and credit addresses
 *    and keys) is two node-to-node messages on the raw QP, VERBS_CONNECT_REQ
 *    and VERBS_CONNECT_REP, consumed inside this file (never returned by
 *    recv()). A side marks a peer "up" only when it receives a REP, and a REP
 *    is sent only after its sender has moved its QP to RTS, so nobody writes
 *    into a QP that is not ready.
 *
 * Everything above the transport (requester, agents, retransmission,
 * segmentation) is shared with the UDP transport; this file only moves
 * whole LCF messages.
 *
 * There is no RDMA device on the development machine: open() finds none and
 * refuses with -ENODEV and a message that points at --transport udp. What has
 * been verified is the build (gcc and clang, -Wall -Wextra -Werror) and that
 * refusal (node-agent/test_verbs.c, scripts/test-e2e.sh).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "lcf_wire.h"
#include "na_msg.h"
#include "na_transport.h"
#include "topo.h"

/*
 * Node-to-node types for the RC connection exchange, reserved for this
 * transport in na_msg.h (the fallbacks only matter if that ever changes).
 */
#ifndef NA_MSG_VERBS_CONNECT_REQ
#define NA_MSG_VERBS_CONNECT_REQ 0x7e
#endif
#ifndef NA_MSG_VERBS_CONNECT_REP
#define NA_MSG_VERBS_CONNECT_REP 0x7f
#endif

#define VB_BUF_SIZE 2048u          /* one raw frame buffer (>= MTU frame) */
#define VB_RAW_RQ 512u             /* raw receive buffers */
#define VB_SEND_BUFS 256u          /* send staging buffers (raw + RC) */
#define VB_RC_SLOTS 64u            /* ring slots per peer (receive side) */
#define VB_RC_SLOT_SIZE 1536u      /* LCF header + NA_MAX_FRAME_PAYLOAD */
#define VB_RC_SQ 64u
#define VB_LOOP_SLOTS 64u          /* node-to-node messages to ourselves */
#define VB_CONNECT_RETRY_NS 100000000ull  /* re-send a REQ after 100 ms */
#define VB_CONN_MAGIC 0x56424331u  /* "VBC1" */

_Static_assert(VB_RC_SLOT_SIZE >= LCF_HDR_LEN + NA_MAX_FRAME_PAYLOAD,
	       "RC slot too small");
_Static_assert(VB_BUF_SIZE >= LCF_FRAME_HDRS + NA_MAX_FRAME_PAYLOAD + 64,
	       "frame buffer too small");

/* wr_id = kind << 32 | index */
enum vb_wr_kind { VB_WR_RAW_RECV = 1, VB_WR_SEND = 2, VB_WR_RC_RECV = 3,
		  VB_WR_CREDIT = 4 };
#define VB_WRID(kind, idx) (((uint64_t)(kind) << 32) | (uint32_t)(idx))
#define VB_WR_KIND(id) ((uint32_t)((id) >> 32))
#define VB_WR_IDX(id) ((uint32_t)(id))

/* Payload of VERBS_CONNECT_REQ/REP, big-endian on the wire. */
struct vb_conn_wire {
	uint32_t magic;
	uint32_t qpn;
	uint32_t psn;
	uint32_t ring_slots;
	uint32_t slot_size;
	uint32_t ring_rkey;
	uint32_t credit_rkey;
	uint16_t lid;
	uint16_t pad;
	uint64_t ring_addr;        /* the sender's ring for data FROM the receiver */
	uint64_t credit_addr;      /* where the receiver writes its consumed count */
	uint64_t epoch;            /* random per open(): detects a restarted peer */
	uint8_t gid[16];
} __attribute__((packed));

enum vb_rc_state { VB_RC_DOWN = 0, VB_RC_CONFIGURED, VB_RC_UP };

struct vb_peer {
	bool exists;
	struct ibv_qp *qp;
	enum vb_rc_state state;
	uint64_t last_req_ns;
	struct vb_conn_wire remote;      /* host order except gid */
	uint64_t tx_head;                /* slots written into the peer's ring */
	uint64_t rx_consumed;            /* slots of our ring for it consumed */
	uint64_t rx_reported;            /* last consumed count written back */
};

struct vb_loop_msg {
	struct lcf_msg msg;
	uint16_t len;
	uint8_t payload[NA_MAX_FRAME_PAYLOAD];
};

struct vb_state {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *chan;
	struct ibv_cq *send_cq;
	struct ibv_cq *recv_cq;
	struct ibv_qp *raw_qp;
	struct ibv_flow *flow;
	uint8_t port_num;
	enum ibv_mtu mtu;
	bool ib_link;                    /* InfiniBand link layer (no raw QP) */
	int gid_index;
	union ibv_gid gid;
	uint16_t lid;
	uint64_t epoch;
	unsigned cq_events;              /* un-acked completion events */

	/* local memory (LOCAL_WRITE): raw receive + send staging + credit src */
	uint8_t *lmem;
	size_t lmem_len;
	struct ibv_mr *lmr;
	uint8_t *raw_rx;                 /* VB_RAW_RQ * VB_BUF_SIZE */
	uint8_t *tx;                     /* VB_SEND_BUFS * VB_BUF_SIZE */
	uint64_t *credit_src;            /* [LCF_MAX_NODES] */

	/* remote-writable memory: rings (one per peer) + credit words */
	uint8_t *rmem;
	size_t rmem_len;
	struct ibv_mr *rmr;
	uint8_t *rings;                  /* [LCF_MAX_NODES][VB_RC_SLOTS][SLOT] */
	volatile uint64_t *credit_in;    /* [LCF_MAX_NODES], written by peers */

	uint32_t free_tx[VB_SEND_BUFS];  /* stack of free send buffers */
	uint32_t n_free_tx;

	struct vb_peer peers[LCF_MAX_NODES];

	struct vb_loop_msg *loop;        /* [VB_LOOP_SLOTS] */
	uint32_t loop_head, loop_tail;

	uint64_t tx_errors, rc_errors;
};

static uint64_t
vb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t
vb_htonll(uint64_t v)
{
	return ((uint64_t)htonl((uint32_t)v) << 32) | htonl((uint32_t)(v >> 32));
}

#define vb_ntohll vb_htonll

static struct vb_state *
vb_of(struct na_transport *tp)
{
	return (struct vb_state *)tp->priv;
}

/* ---- memory and buffers ------------------------------------------------ */

static uint8_t *
vb_ring_slot(struct vb_state *s, uint16_t peer, uint32_t slot)
{
	return s->rings + ((size_t)peer * VB_RC_SLOTS + slot) * VB_RC_SLOT_SIZE;
}

static int
vb_post_raw_recv(struct vb_state *s, uint32_t idx)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(s->raw_rx + (size_t)idx * VB_BUF_SIZE),
		.length = VB_BUF_SIZE,
		.lkey = s->lmr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = VB_WRID(VB_WR_RAW_RECV, idx),
		.sg_list = &sge,
		.num_sge = 1,
	};
	struct ibv_recv_wr *bad;

	return -ibv_post_recv(s->raw_qp, &wr, &bad);
}

/* RDMA WRITE WITH IMMEDIATE consumes a receive WR with no buffer. */
static int
vb_post_rc_recv(struct vb_state *s, uint16_t peer)
{
	struct ibv_recv_wr wr = {
		.wr_id = VB_WRID(VB_WR_RC_RECV, peer),
		.sg_list = NULL,
		.num_sge = 0,
	};
	struct ibv_recv_wr *bad;

	return -ibv_post_recv(s->peers[peer].qp, &wr, &bad);
}

static void vb_rc_fail(struct vb_state *s, uint16_t peer);

/* Reap send completions: give staging buffers back, note failures. */
static void
vb_reap_send(struct vb_state *s)
{
	struct ibv_wc wc[16];
	int n, i;

	while ((n = ibv_poll_cq(s->send_cq, 16, wc)) > 0) {
		for (i = 0; i < n; i++) {
			uint32_t kind = VB_WR_KIND(wc[i].wr_id);
			uint32_t idx = VB_WR_IDX(wc[i].wr_id);

			if (kind == VB_WR_SEND && idx < VB_SEND_BUFS)
				s->free_tx[s->n_free_tx++] = idx;
			if (wc[i].status == IBV_WC_SUCCESS)
				continue;
			s->tx_errors++;
			/* An RC failure: find the peer by QP and reconnect later. */
			for (uint16_t p = 0; p < LCF_MAX_NODES; p++)
				if (s->peers[p].qp &&
				    s->peers[p].qp->qp_num == wc[i].qp_num)
					vb_rc_fail(s, p);
		}
	}
}

static int
vb_get_tx(struct vb_state *s, uint32_t *idx)
{
	if (s->n_free_tx == 0)
		vb_reap_send(s);
	if (s->n_free_tx == 0)
		return -EAGAIN;
	*idx = s->free_tx[--s->n_free_tx];
	return 0;
}

/* ---- raw QP: frames ---------------------------------------------------- */

static int
vb_send_frame(struct na_transport *tp, uint16_t dst, const struct lcf_msg *msg,
	      const void *payload, uint16_t payload_len)
{
	struct vb_state *s = vb_of(tp);
	const struct topo_node *me = topo_node_by_id(tp->topo, tp->self);
	const struct topo_node *to = topo_node_by_id(tp->topo, dst);
	const struct lcf_addr *dst_addr;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	uint32_t idx;
	uint8_t *buf;
	int len, rc;

	if (!me || !to)
		return -EINVAL;
	/*
	 * A pipeline request to our own home node is addressed to the switch
	 * (as the UDP transport does): the switch processes it whatever its
	 * destination and sends the result back to us, while a frame to our
	 * own MAC could be looped back inside the NIC without reaching it.
	 */
	dst_addr = &to->addr;
	if (dst == tp->self && lcf_type_is_pipeline(msg->type))
		dst_addr = &tp->topo->sw.addr;
	rc = vb_get_tx(s, &idx);
	if (rc)
		return rc;
	buf = s->tx + (size_t)idx * VB_BUF_SIZE;
	len = lcf_frame_build(buf, VB_BUF_SIZE, &me->addr, dst_addr,
			      tp->topo->lcf_port, msg, payload, payload_len);
	if (len < 0) {
		s->free_tx[s->n_free_tx++] = idx;
		return len;
	}
	sge = (struct ibv_sge){ .addr = (uintptr_t)buf, .length = (uint32_t)len,
				.lkey = s->lmr->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = VB_WRID(VB_WR_SEND, idx);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	rc = ibv_post_send(s->raw_qp, &wr, &bad);
	if (rc) {
		s->free_tx[s->n_free_tx++] = idx;
		return rc == ENOMEM ? -EAGAIN : -rc;
	}
	return 0;
}

/*
 * lcf_msg_validate() is the switch-side check: it refuses the types only the
 * switch may emit (NACK, UNLOCK_ACK, MIGRATE_ACK) because arriving at a switch
 * they are spoofs. A node receives exactly those, so it validates them with
 * the same rules as any other accepted type.
 */
static enum lcf_drop
vb_msg_validate(const struct lcf_msg *m, uint32_t payload_avail)
{
	struct lcf_msg c = *m;

	if (c.type >= LCF_T_NACK && c.type <= LCF_T_MIGRATE_ACK)
		c.type = LCF_T_NODE_FIRST;
	return lcf_msg_validate(&c, payload_avail);
}

/*
 * Parse a received frame. The flow rule already selected dst MAC + UDP dst
 * port; we still check everything, then validate the LCF header with
 * lcf_msg_validate() (via vb_msg_validate()). lcf_frame_classify() is the
 * switch's classifier: it treats the types the switch emits (NACK,
 * UNLOCK_ACK, MIGRATE_ACK) arriving at a switch as spoofs, so a node cannot
 * use it on what it receives.
 */
static int
vb_parse_frame(const struct topo *t, const uint8_t *f, uint32_t len,
	       struct lcf_msg *msg, const uint8_t **payload)
{
	uint32_t ihl, tot, ulen;
	const uint8_t *ip, *udp;

	if (len < LCF_FRAME_HDRS)
		return -1;
	if (f[12] != 0x08 || f[13] != 0x00)
		return -1;
	ip = f + LCF_ETH_LEN;
	ihl = (uint32_t)(ip[0] & 0x0f) * 4;
	tot = ((uint32_t)ip[2] << 8) | ip[3];
	if ((ip[0] >> 4) != 4 || ihl < LCF_IPV4_LEN || ip[9] != 17)
		return -1;
	if (tot < ihl || LCF_ETH_LEN + tot > len)
		return -1;
	if ((((uint32_t)ip[6] << 8 | ip[7]) & 0x3fff) != 0)  /* MF or offset */
		return -1;
	udp = ip + ihl;
	if (tot < ihl + LCF_UDP_LEN)
		return -1;
	if ((((uint32_t)udp[2] << 8) | udp[3]) != t->lcf_port)
		return -1;
	ulen = ((uint32_t)udp[4] << 8) | udp[5];
	if (ulen < LCF_UDP_LEN + LCF_HDR_LEN || ulen > tot - ihl)
		return -1;
	lcf_hdr_decode(udp + LCF_UDP_LEN, msg);
	if (vb_msg_validate(msg, ulen - LCF_UDP_LEN - LCF_HDR_LEN) !=
	    LCF_DROP_NONE)
		return -1;
	*payload = udp + LCF_UDP_LEN + LCF_HDR_LEN;
	return 0;
}

/* ---- RC QPs: connection ------------------------------------------------ */

static void
vb_local_conn(struct na_transport *tp, uint16_t peer, struct vb_conn_wire *w)
{
	struct vb_state *s = vb_of(tp);

	memset(w, 0, sizeof(*w));
	w->magic = htonl(VB_CONN_MAGIC);
	w->qpn = htonl(s->peers[peer].qp->qp_num);
	w->psn = htonl((uint32_t)(s->epoch & 0xffffff));
	w->ring_slots = htonl(VB_RC_SLOTS);
	w->slot_size = htonl(VB_RC_SLOT_SIZE);
	w->ring_rkey = htonl(s->rmr->rkey);
	w->credit_rkey = htonl(s->rmr->rkey);
	w->lid = htons(s->lid);
	w->ring_addr = vb_htonll((uintptr_t)vb_ring_slot(s, peer, 0));
	w->credit_addr = vb_htonll((uintptr_t)&s->credit_in[peer]);
	w->epoch = vb_htonll(s->epoch);
	memcpy(w->gid, s->gid.raw, 16);
}

static int
vb_send_conn(struct na_transport *tp, uint16_t peer, uint8_t type)
{
	struct vb_conn_wire w;
	struct lcf_msg m;

	vb_local_conn(tp, peer, &w);
	memset(&m, 0, sizeof(m));
	m.version = LCF_VERSION;
	m.type = type;
	m.node = tp->self;
	m.dst_node = peer;
	m.len = sizeof(w);
	return vb_send_frame(tp, peer, &m, &w, sizeof(w));
}

/* RESET -> INIT -> RTR -> RTS toward the peer described by `r` (host order). */
static int
vb_rc_connect(struct vb_state *s, uint16_t peer, const struct vb_conn_wire *r)
{
	struct vb_peer *p = &s->peers[peer];
	struct ibv_qp_attr a;
	int rc;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RESET;
	if ((rc = ibv_modify_qp(p->qp, &a, IBV_QP_STATE)))
		return -rc;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = s->port_num;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE;
	if ((rc = ibv_modify_qp(p->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)))
		return -rc;
	for (uint32_t i = 0; i < VB_RC_SLOTS; i++)
		if ((rc = vb_post_rc_recv(s, peer)))
			return rc;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = s->mtu;
	a.dest_qp_num = r->qpn;
	a.rq_psn = r->psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.port_num = s->port_num;
	if (s->ib_link) {
		a.ah_attr.dlid = r->lid;
	} else {
		a.ah_attr.is_global = 1;
		memcpy(a.ah_attr.grh.dgid.raw, r->gid, 16);
		a.ah_attr.grh.sgid_index = (uint8_t)s->gid_index;
		a.ah_attr.grh.hop_limit = 64;
	}
	if ((rc = ibv_modify_qp(p->qp, &a, IBV_QP_STATE | IBV_QP_AV |
				IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				IBV_QP_MIN_RNR_TIMER)))
		return -rc;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = (uint32_t)(s->epoch & 0xffffff);
	a.max_rd_atomic = 1;
	if ((rc = ibv_modify_qp(p->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
				IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)))
		return -rc;

	p->remote = *r;
	p->tx_head = 0;
	p->rx_consumed = 0;
	p->rx_reported = 0;
	s->credit_in[peer] = 0;
	p->state = VB_RC_CONFIGURED;
	return 0;
}

static void
vb_rc_fail(struct vb_state *s, uint16_t peer)
{
	s->rc_errors++;
	s->peers[peer].state = VB_RC_DOWN;
	s->peers[peer].remote.epoch = 0;
}

/* A VERBS_CONNECT_REQ/REP arrived from `peer`. */
static void
vb_handle_conn(struct na_transport *tp, const struct lcf_msg *m,
	       const uint8_t *payload)
{
	struct vb_state *s = vb_of(tp);
	struct vb_conn_wire w, r;
	struct vb_peer *p;
	uint16_t peer = m->node;

	if (peer >= LCF_MAX_NODES || peer == tp->self ||
	    !s->peers[peer].exists || m->len != sizeof(w))
		goto bad;
	memcpy(&w, payload, sizeof(w));
	if (ntohl(w.magic) != VB_CONN_MAGIC ||
	    ntohl(w.ring_slots) == 0 || ntohl(w.slot_size) < VB_RC_SLOT_SIZE)
		goto bad;
	r = w;
	r.magic = VB_CONN_MAGIC;
	r.qpn = ntohl(w.qpn) & 0xffffff;
	r.psn = ntohl(w.psn) & 0xffffff;
	r.ring_slots = ntohl(w.ring_slots);
	r.slot_size = ntohl(w.slot_size);
	r.ring_rkey = ntohl(w.ring_rkey);
	r.credit_rkey = ntohl(w.credit_rkey);
	r.lid = ntohs(w.lid);
	r.ring_addr = vb_ntohll(w.ring_addr);
	r.credit_addr = vb_ntohll(w.credit_addr);
	r.epoch = vb_ntohll(w.epoch);

	p = &s->peers[peer];
	/* New peer, restarted peer (new epoch) or our QP failed: (re)connect. */
	if (p->state == VB_RC_DOWN || p->remote.epoch != r.epoch ||
	    p->remote.qpn != r.qpn) {
		if (vb_rc_connect(s, peer, &r) != 0) {
			vb_rc_fail(s, peer);
			return;
		}
	}
	if (m->type == NA_MSG_VERBS_CONNECT_REQ)
		(void)vb_send_conn(tp, peer, NA_MSG_VERBS_CONNECT_REP);
	else
		p->state = VB_RC_UP;   /* the peer's QP is at RTS */
	return;
bad:
	tp->rx_bad++;
}

/* Ask `peer` to connect, at most every VB_CONNECT_RETRY_NS. */
static void
vb_maybe_connect(struct na_transport *tp, uint16_t peer)
{
	struct vb_state *s = vb_of(tp);
	struct vb_peer *p = &s->peers[peer];
	uint64_t now = vb_now_ns();

	if (p->state == VB_RC_UP || now - p->last_req_ns < VB_CONNECT_RETRY_NS)
		return;
	p->last_req_ns = now;
	(void)vb_send_conn(tp, peer, NA_MSG_VERBS_CONNECT_REQ);
}

/* ---- RC QPs: data ------------------------------------------------------ */

static int
vb_rc_write(struct na_transport *tp, uint16_t dst, const struct lcf_msg *msg,
	    const void *payload, uint16_t payload_len)
{
	struct vb_state *s = vb_of(tp);
	struct vb_peer *p = &s->peers[dst];
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	uint64_t credit = s->credit_in[dst];
	uint32_t idx, slot;
	uint8_t *buf;
	int rc;

	if (p->tx_head - credit >= p->remote.ring_slots)
		return -EAGAIN;            /* ring full: wait for credits */
	rc = vb_get_tx(s, &idx);
	if (rc)
		return rc;
	buf = s->tx + (size_t)idx * VB_BUF_SIZE;
	lcf_hdr_encode(msg, buf);
	memcpy(buf + LCF_HDR_LEN, payload, payload_len);
	slot = (uint32_t)(p->tx_head % p->remote.ring_slots);

	sge = (struct ibv_sge){ .addr = (uintptr_t)buf,
				.length = LCF_HDR_LEN + payload_len,
				.lkey = s->lmr->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = VB_WRID(VB_WR_SEND, idx);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.imm_data = htonl(slot);
	wr.wr.rdma.remote_addr = p->remote.ring_addr +
				 (uint64_t)slot * p->remote.slot_size;
	wr.wr.rdma.rkey = p->remote.ring_rkey;
	rc = ibv_post_send(p->qp, &wr, &bad);
	if (rc) {
		s->free_tx[s->n_free_tx++] = idx;
		return rc == ENOMEM ? -EAGAIN : -rc;
	}
	p->tx_head++;
	return 0;
}

/* Tell `peer` how many of its slots we consumed (every half ring). */
static void
vb_return_credit(struct vb_state *s, uint16_t peer)
{
	struct vb_peer *p = &s->peers[peer];
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;

	if (p->rx_consumed - p->rx_reported < VB_RC_SLOTS / 2)
		return;
	s->credit_src[peer] = p->rx_consumed;
	sge = (struct ibv_sge){ .addr = (uintptr_t)&s->credit_src[peer],
				.length = sizeof(uint64_t),
				.lkey = s->lmr->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = VB_WRID(VB_WR_CREDIT, peer);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	wr.wr.rdma.remote_addr = p->remote.credit_addr;
	wr.wr.rdma.rkey = p->remote.credit_rkey;
	if (ibv_post_send(p->qp, &wr, &bad) == 0)
		p->rx_reported = p->rx_consumed;
}

/* ---- transport ops ----------------------------------------------------- */

static void vb_close(struct na_transport *tp);

/* Find the GID index of `ip` (IPv4-mapped, RoCE v2 preferred) on a port. */
static int
vb_find_gid(struct ibv_context *ctx, uint8_t port, int tbl_len, uint32_t ip,
	    union ibv_gid *gid)
{
	int best = -1;

	for (int i = 0; i < tbl_len; i++) {
		struct ibv_gid_entry e;
		union ibv_gid g;

		if (ibv_query_gid(ctx, port, i, &g))
			continue;
		if (memcmp(g.raw, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12) != 0 ||
		    memcmp(g.raw + 12, &ip, 4) != 0)
			continue;
		if (best < 0)
			best = i;
		if (ibv_query_gid_ex(ctx, port, (uint32_t)i, &e, 0) == 0 &&
		    e.gid_type == IBV_GID_TYPE_ROCE_V2) {
			best = i;
			break;
		}
	}
	if (best >= 0)
		(void)ibv_query_gid(ctx, port, best, gid);
	return best;
}

/*
 * Pick the device: $NA_VERBS_DEVICE when set, else the first device with a
 * port whose GID table holds the node's IP, else the first device.
 */
static struct ibv_device *
vb_pick_device(struct ibv_device **list, int n, uint32_t ip, uint8_t *port)
{
	const char *want = getenv("NA_VERBS_DEVICE");
	const char *want_port = getenv("NA_VERBS_PORT");

	*port = want_port ? (uint8_t)atoi(want_port) : 1;
	if (want) {
		for (int i = 0; i < n; i++)
			if (strcmp(ibv_get_device_name(list[i]), want) == 0)
				return list[i];
		return NULL;
	}
	for (int i = 0; i < n; i++) {
		struct ibv_context *c = ibv_open_device(list[i]);
		struct ibv_device_attr da;
		union ibv_gid g;
		bool hit = false;

		if (!c)
			continue;
		if (ibv_query_device(c, &da) == 0) {
			for (uint8_t p = 1; p <= da.phys_port_cnt && !hit; p++) {
				struct ibv_port_attr pa;

				if (ibv_query_port(c, p, &pa) == 0 &&
				    vb_find_gid(c, p, pa.gid_tbl_len, ip, &g) >= 0) {
					*port = p;
					hit = true;
				}
			}
		}
		ibv_close_device(c);
		if (hit)
			return list[i];
	}
	return list[0];
}

static int
vb_open(struct na_transport *tp, const struct topo *topo, uint16_t self,
	char *err, size_t err_len)
{
	const struct topo_node *me = topo_node_by_id(topo, self);
	struct ibv_device **list;
	struct ibv_device *dev;
	struct ibv_port_attr pa;
	struct vb_state *s;
	int n = 0, rc;
	uint8_t port;

	tp->topo = topo;
	tp->self = self;
	tp->priv = NULL;
	if (!me) {
		snprintf(err, err_len, "verbs: node %u is not in the topology",
			 self);
		return -EINVAL;
	}

	errno = 0;
	list = ibv_get_device_list(&n);
	if (!list || n <= 0) {
		int e = errno;

		if (list)
			snprintf(err, err_len,
				 "verbs: no RDMA device found (ibv_get_device_list "
				 "returned 0 devices); use --transport udp");
		else
			snprintf(err, err_len,
				 "verbs: no RDMA device found (ibv_get_device_list: "
				 "%s); use --transport udp",
				 strerror(e ? e : ENOSYS));
		if (list)
			ibv_free_device_list(list);
		return -ENODEV;
	}
	dev = vb_pick_device(list, n, me->addr.ip, &port);
	if (!dev) {
		snprintf(err, err_len,
			 "verbs: RDMA device \"%s\" (NA_VERBS_DEVICE) not found; "
			 "use --transport udp", getenv("NA_VERBS_DEVICE"));
		ibv_free_device_list(list);
		return -ENODEV;
	}

	s = calloc(1, sizeof(*s));
	if (!s) {
		ibv_free_device_list(list);
		snprintf(err, err_len, "verbs: out of memory");
		return -ENOMEM;
	}
	tp->priv = s;
	s->port_num = port;
	s->gid_index = -1;
	{
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		s->epoch = ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)ts.tv_nsec ^
			   ((uint64_t)getpid() << 16) ^ self;
		if (s->epoch == 0)
			s->epoch = 1;
	}

#define VB_FAIL(code, ...)                                         \
	do {                                                       \
		snprintf(err, err_len, __VA_ARGS__);               \
		rc = (code);                                       \
		goto fail;                                         \
	} while (0)

	s->ctx = ibv_open_device(dev);
	if (!s->ctx)
		VB_FAIL(-ENODEV, "verbs: cannot open %s: %s; use --transport udp",
			ibv_get_device_name(dev), strerror(errno));
	if (ibv_query_port(s->ctx, port, &pa))
		VB_FAIL(-ENODEV, "verbs: %s has no port %u; use --transport udp",
			ibv_get_device_name(dev), port);
	if (pa.link_layer != IBV_LINK_LAYER_ETHERNET)
		VB_FAIL(-ENODEV, "verbs: %s port %u is not Ethernet (a raw packet "
			"QP needs an Ethernet link); use --transport udp",
			ibv_get_device_name(dev), port);
	if (pa.state != IBV_PORT_ACTIVE)
		VB_FAIL(-ENETDOWN, "verbs: %s port %u is not active",
			ibv_get_device_name(dev), port);
	s->ib_link = false;
	s->lid = pa.lid;
	s->mtu = pa.active_mtu;
	s->gid_index = vb_find_gid(s->ctx, port, pa.gid_tbl_len, me->addr.ip,
				   &s->gid);
	if (s->gid_index < 0)
		VB_FAIL(-EADDRNOTAVAIL, "verbs: %s port %u has no GID for the "
			"node's IP (is the topology IP configured on its netdev?)",
			ibv_get_device_name(dev), port);

	s->pd = ibv_alloc_pd(s->ctx);
	s->chan = ibv_create_comp_channel(s->ctx);
	if (!s->pd || !s->chan)
		VB_FAIL(-ENOMEM, "verbs: cannot allocate PD/completion channel: %s",
			strerror(errno));
	s->send_cq = ibv_create_cq(s->ctx,
				   VB_SEND_BUFS + LCF_MAX_NODES * VB_RC_SQ,
				   NULL, NULL, 0);
	s->recv_cq = ibv_create_cq(s->ctx,
				   VB_RAW_RQ + LCF_MAX_NODES * VB_RC_SLOTS,
				   NULL, s->chan, 0);
	if (!s->send_cq || !s->recv_cq)
		VB_FAIL(-ENOMEM, "verbs: cannot create CQs: %s", strerror(errno));

	/* Memory. */
	s->lmem_len = (size_t)(VB_RAW_RQ + VB_SEND_BUFS) * VB_BUF_SIZE +
		      LCF_MAX_NODES * sizeof(uint64_t);
	s->rmem_len = (size_t)LCF_MAX_NODES * VB_RC_SLOTS * VB_RC_SLOT_SIZE +
		      LCF_MAX_NODES * sizeof(uint64_t);
	if (posix_memalign((void **)&s->lmem, 4096, s->lmem_len) ||
	    posix_memalign((void **)&s->rmem, 4096, s->rmem_len))
		VB_FAIL(-ENOMEM, "verbs: out of memory");
	memset(s->lmem, 0, s->lmem_len);
	memset(s->rmem, 0, s->rmem_len);
	s->raw_rx = s->lmem;
	s->tx = s->raw_rx + (size_t)VB_RAW_RQ * VB_BUF_SIZE;
	s->credit_src = (uint64_t *)(void *)(s->tx + (size_t)VB_SEND_BUFS *
					     VB_BUF_SIZE);
	s->rings = s->rmem;
	s->credit_in = (volatile uint64_t *)(void *)(s->rings +
		(size_t)LCF_MAX_NODES * VB_RC_SLOTS * VB_RC_SLOT_SIZE);
	s->lmr = ibv_reg_mr(s->pd, s->lmem, s->lmem_len, IBV_ACCESS_LOCAL_WRITE);
	s->rmr = ibv_reg_mr(s->pd, s->rmem, s->rmem_len,
			    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!s->lmr || !s->rmr)
		VB_FAIL(-ENOMEM, "verbs: cannot register memory: %s",
			strerror(errno));
	for (uint32_t i = 0; i < VB_SEND_BUFS; i++)
		s->free_tx[s->n_free_tx++] = VB_SEND_BUFS - 1 - i;
	s->loop = calloc(VB_LOOP_SLOTS, sizeof(*s->loop));
	if (!s->loop)
		VB_FAIL(-ENOMEM, "verbs: out of memory");

	/* The raw packet QP: INIT -> RTR -> RTS, receive buffers, flow rule. */
	{
		struct ibv_qp_init_attr qa = {
			.send_cq = s->send_cq,
			.recv_cq = s->recv_cq,
			.cap = { .max_send_wr = VB_SEND_BUFS,
				 .max_recv_wr = VB_RAW_RQ,
				 .max_send_sge = 1, .max_recv_sge = 1 },
			.qp_type = IBV_QPT_RAW_PACKET,
		};
		struct ibv_qp_attr a;

		s->raw_qp = ibv_create_qp(s->pd, &qa);
		if (!s->raw_qp) {
			int e = errno;

			VB_FAIL(e == EPERM ? -EPERM : -ENODEV,
				"verbs: cannot create a raw packet QP on %s: %s%s",
				ibv_get_device_name(dev), strerror(e),
				e == EPERM ? " (needs CAP_NET_RAW)" : "");
		}
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_INIT;
		a.port_num = port;
		if ((rc = ibv_modify_qp(s->raw_qp, &a, IBV_QP_STATE | IBV_QP_PORT)))
			VB_FAIL(-rc, "verbs: raw QP to INIT: %s", strerror(rc));
		for (uint32_t i = 0; i < VB_RAW_RQ; i++)
			if ((rc = vb_post_raw_recv(s, i)))
				VB_FAIL(rc, "verbs: posting receives: %s",
					strerror(-rc));
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTR;
		if ((rc = ibv_modify_qp(s->raw_qp, &a, IBV_QP_STATE)))
			VB_FAIL(-rc, "verbs: raw QP to RTR: %s", strerror(rc));
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTS;
		if ((rc = ibv_modify_qp(s->raw_qp, &a, IBV_QP_STATE)))
			VB_FAIL(-rc, "verbs: raw QP to RTS: %s", strerror(rc));
	}
	{
		/*
		 * ibv_create_flow() takes the attribute followed by its specs,
		 * back to back: eth (dst MAC, IPv4), ipv4 (dst IP), udp (dst
		 * port). Built in an aligned buffer spec by spec.
		 */
		union {
			struct ibv_flow_attr attr;
			uint64_t align;
			uint8_t raw[sizeof(struct ibv_flow_attr) +
				    sizeof(struct ibv_flow_spec_eth) +
				    sizeof(struct ibv_flow_spec_ipv4) +
				    sizeof(struct ibv_flow_spec_tcp_udp)];
		} fr;
		struct ibv_flow_spec_eth eth;
		struct ibv_flow_spec_ipv4 ip4;
		struct ibv_flow_spec_tcp_udp udp;
		size_t off = sizeof(struct ibv_flow_attr);

		memset(&fr, 0, sizeof(fr));
		memset(&eth, 0, sizeof(eth));
		memset(&ip4, 0, sizeof(ip4));
		memset(&udp, 0, sizeof(udp));
		fr.attr.type = IBV_FLOW_ATTR_NORMAL;
		fr.attr.size = sizeof(fr.raw);
		fr.attr.num_of_specs = 3;
		fr.attr.port = port;
		eth.type = IBV_FLOW_SPEC_ETH;
		eth.size = sizeof(eth);
		memcpy(eth.val.dst_mac, me->addr.mac, 6);
		memset(eth.mask.dst_mac, 0xff, 6);
		eth.val.ether_type = htons(0x0800);
		eth.mask.ether_type = 0xffff;
		ip4.type = IBV_FLOW_SPEC_IPV4;
		ip4.size = sizeof(ip4);
		ip4.val.dst_ip = me->addr.ip;
		ip4.mask.dst_ip = 0xffffffff;
		udp.type = IBV_FLOW_SPEC_UDP;
		udp.size = sizeof(udp);
		udp.val.dst_port = htons(topo->lcf_port);
		udp.mask.dst_port = 0xffff;
		memcpy(fr.raw + off, &eth, sizeof(eth));
		off += sizeof(eth);
		memcpy(fr.raw + off, &ip4, sizeof(ip4));
		off += sizeof(ip4);
		memcpy(fr.raw + off, &udp, sizeof(udp));
		s->flow = ibv_create_flow(s->raw_qp, &fr.attr);
		if (!s->flow) {
			int e = errno ? errno : EINVAL;

			VB_FAIL(-e,
				"verbs: cannot install the flow rule (dst MAC %02x:"
				"%02x:%02x:%02x:%02x:%02x, UDP dst port %u): %s",
				me->addr.mac[0], me->addr.mac[1], me->addr.mac[2],
				me->addr.mac[3], me->addr.mac[4], me->addr.mac[5],
				topo->lcf_port, strerror(e));
		}
	}

	/* One RC QP per peer, left in RESET until the connection exchange. */
	for (uint32_t i = 0; i < topo->n_nodes; i++) {
		uint16_t id = topo->nodes[i].id;
		struct ibv_qp_init_attr qa = {
			.send_cq = s->send_cq,
			.recv_cq = s->recv_cq,
			.cap = { .max_send_wr = VB_RC_SQ,
				 .max_recv_wr = VB_RC_SLOTS,
				 .max_send_sge = 1, .max_recv_sge = 1,
				 .max_inline_data = sizeof(uint64_t) },
			.qp_type = IBV_QPT_RC,
		};

		if (id == self)
			continue;
		s->peers[id].exists = true;
		s->peers[id].qp = ibv_create_qp(s->pd, &qa);
		if (!s->peers[id].qp)
			VB_FAIL(-ENOMEM, "verbs: cannot create the RC QP for "
				"node %u: %s", id, strerror(errno));
	}

	if (ibv_req_notify_cq(s->recv_cq, 0))
		VB_FAIL(-EIO, "verbs: cannot arm the receive CQ");
	ibv_free_device_list(list);
	return 0;
#undef VB_FAIL
fail:
	ibv_free_device_list(list);
	vb_close(tp);
	return rc < 0 ? rc : -EIO;
}

static int
vb_send(struct na_transport *tp, uint16_t dst, const struct lcf_msg *msg,
	const void *payload, uint16_t payload_len)
{
	struct vb_state *s = vb_of(tp);
	bool node_msg;

	if (!s)
		return -EBADF;
	if (payload_len != msg->len)
		return -EINVAL;
	if (payload_len > NA_MAX_FRAME_PAYLOAD)
		return -EMSGSIZE;
	if (!topo_node_by_id(tp->topo, dst))
		return -EINVAL;
	vb_reap_send(s);
	node_msg = msg->type >= LCF_T_NODE_FIRST && msg->type <= LCF_T_NODE_LAST;

	/*
	 * To ourselves. Pipeline requests must cross the switch even when we
	 * are the home node, so they go on the wire (to the switch's address,
	 * see vb_send_frame); any other message to ourselves would not come
	 * back from an L2 switch (no hairpin), so it is looped back here, as
	 * the kernel does for the UDP transport.
	 */
	if (dst == tp->self && !lcf_type_is_pipeline(msg->type)) {
		struct vb_loop_msg *l;

		if (s->loop_tail - s->loop_head >= VB_LOOP_SLOTS)
			return -EAGAIN;
		l = &s->loop[s->loop_tail % VB_LOOP_SLOTS];
		l->msg = *msg;
		l->len = payload_len;
		if (payload_len)
			memcpy(l->payload, payload, payload_len);
		s->loop_tail++;
		return 0;
	}

	/* Block data to a peer goes by RDMA WRITE once its RC QP is up. */
	if (node_msg && payload_len > 0 && dst != tp->self) {
		if (s->peers[dst].state == VB_RC_UP)
			return vb_rc_write(tp, dst, msg, payload, payload_len);
		vb_maybe_connect(tp, dst);
	}
	return vb_send_frame(tp, dst, msg, payload, payload_len);
}

/*
 * Handle one receive completion. @return payload length when it produced a
 * message for the caller, -EAGAIN when it did not (internal or bad frame).
 */
static int
vb_handle_recv(struct na_transport *tp, const struct ibv_wc *wc,
	       struct lcf_msg *msg, void *payload, uint16_t cap)
{
	struct vb_state *s = vb_of(tp);
	uint32_t kind = VB_WR_KIND(wc->wr_id);
	uint32_t idx = VB_WR_IDX(wc->wr_id);
	const uint8_t *pl;
	int ret = -EAGAIN;

	if (kind == VB_WR_RAW_RECV && idx < VB_RAW_RQ) {
		const uint8_t *f = s->raw_rx + (size_t)idx * VB_BUF_SIZE;

		if (wc->status != IBV_WC_SUCCESS) {
			s->rc_errors++;
		} else if (vb_parse_frame(tp->topo, f, wc->byte_len, msg, &pl)) {
			tp->rx_bad++;
		} else if (msg->type == NA_MSG_VERBS_CONNECT_REQ ||
			   msg->type == NA_MSG_VERBS_CONNECT_REP) {
			vb_handle_conn(tp, msg, pl);
		} else if (msg->len > cap) {
			tp->rx_bad++;
		} else {
			memcpy(payload, pl, msg->len);
			ret = msg->len;
		}
		(void)vb_post_raw_recv(s, idx);
		return ret;
	}
	if (kind == VB_WR_RC_RECV && idx < LCF_MAX_NODES) {
		struct vb_peer *p = &s->peers[idx];
		uint32_t slot;
		const uint8_t *sl;

		if (wc->status != IBV_WC_SUCCESS) {
			/* Flushed by an error or a reset: reconnect lazily. */
			if (wc->status != IBV_WC_WR_FLUSH_ERR)
				vb_rc_fail(s, (uint16_t)idx);
			return -EAGAIN;
		}
		slot = ntohl(wc->imm_data);
		if (slot >= VB_RC_SLOTS ||
		    slot != (uint32_t)(p->rx_consumed % VB_RC_SLOTS)) {
			tp->rx_bad++;
			vb_rc_fail(s, (uint16_t)idx);
			return -EAGAIN;
		}
		sl = vb_ring_slot(s, (uint16_t)idx, slot);
		lcf_hdr_decode(sl, msg);
		if (wc->byte_len < LCF_HDR_LEN ||
		    vb_msg_validate(msg, wc->byte_len - LCF_HDR_LEN) !=
		    LCF_DROP_NONE || msg->len > cap || msg->node != idx) {
			tp->rx_bad++;
		} else {
			memcpy(payload, sl + LCF_HDR_LEN, msg->len);
			ret = msg->len;
		}
		p->rx_consumed++;
		(void)vb_post_rc_recv(s, (uint16_t)idx);
		vb_return_credit(s, (uint16_t)idx);
		/* A write from the peer proves its QP is up. */
		if (p->state == VB_RC_CONFIGURED)
			p->state = VB_RC_UP;
		return ret;
	}
	return -EAGAIN;
}

static int
vb_recv(struct na_transport *tp, struct lcf_msg *msg, void *payload,
	uint16_t cap, int timeout_ms)
{
	struct vb_state *s = vb_of(tp);
	uint64_t deadline;

	if (!s)
		return -EBADF;
	deadline = vb_now_ns() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) *
		   1000000ull;
	for (;;) {
		struct ibv_wc wc;
		struct pollfd pfd;
		uint64_t now;
		int n, rc;

		if (s->loop_head != s->loop_tail) {
			struct vb_loop_msg *l = &s->loop[s->loop_head % VB_LOOP_SLOTS];

			s->loop_head++;
			if (l->len > cap) {
				tp->rx_bad++;
				continue;
			}
			*msg = l->msg;
			memcpy(payload, l->payload, l->len);
			return l->len;
		}
		vb_reap_send(s);
		n = ibv_poll_cq(s->recv_cq, 1, &wc);
		if (n < 0)
			return -EIO;
		if (n == 1) {
			rc = vb_handle_recv(tp, &wc, msg, payload, cap);
			if (rc >= 0)
				return rc;
			continue;
		}
		now = vb_now_ns();
		if (timeout_ms == 0 || (timeout_ms > 0 && now >= deadline))
			return -EAGAIN;
		/* Sleep on the completion channel (armed; re-armed below). */
		pfd.fd = s->chan->fd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		rc = poll(&pfd, 1, timeout_ms < 0 ? 100 :
			  (int)((deadline - now + 999999) / 1000000));
		if (rc > 0) {
			struct ibv_cq *cq;
			void *cq_ctx;

			if (ibv_get_cq_event(s->chan, &cq, &cq_ctx) == 0) {
				if (++s->cq_events >= 64) {
					ibv_ack_cq_events(s->recv_cq, s->cq_events);
					s->cq_events = 0;
				}
				(void)ibv_req_notify_cq(s->recv_cq, 0);
			}
		} else {
			/* Re-arm in case the event raced with our poll. */
			(void)ibv_req_notify_cq(s->recv_cq, 0);
		}
	}
}

static void
vb_close(struct na_transport *tp)
{
	struct vb_state *s = vb_of(tp);

	if (!s)
		return;
	if (s->flow)
		ibv_destroy_flow(s->flow);
	for (int i = 0; i < LCF_MAX_NODES; i++)
		if (s->peers[i].qp)
			ibv_destroy_qp(s->peers[i].qp);
	if (s->raw_qp)
		ibv_destroy_qp(s->raw_qp);
	if (s->cq_events)
		ibv_ack_cq_events(s->recv_cq, s->cq_events);
	if (s->recv_cq)
		ibv_destroy_cq(s->recv_cq);
	if (s->send_cq)
		ibv_destroy_cq(s->send_cq);
	if (s->chan)
		ibv_destroy_comp_channel(s->chan);
	if (s->lmr)
		ibv_dereg_mr(s->lmr);
	if (s->rmr)
		ibv_dereg_mr(s->rmr);
	if (s->pd)
		ibv_dealloc_pd(s->pd);
	if (s->ctx)
		ibv_close_device(s->ctx);
	free(s->lmem);
	free(s->rmem);
	free(s->loop);
	free(s);
	tp->priv = NULL;
}

const struct na_transport_ops na_transport_verbs = {
	.name = "verbs",
	.open = vb_open,
	.send = vb_send,
	.recv = vb_recv,
	.close = vb_close,
};
