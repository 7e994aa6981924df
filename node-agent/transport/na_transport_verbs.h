/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Internal to the verbs transport (na_transport_verbs*.c; design in
 * na_transport_verbs.c and docs/VERBS.md): its state, constants and the
 * functions its files share. Nothing outside the transport includes this.
 */
#ifndef NA_TRANSPORT_VERBS_H
#define NA_TRANSPORT_VERBS_H

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

#define VB_BUF_SIZE         2048u /* one raw frame buffer (>= MTU frame) */
#define VB_RAW_RQ           512u  /* raw receive buffers */
#define VB_SEND_BUFS        256u  /* send staging buffers (raw + RC) */
#define VB_RC_SLOTS         64u   /* ring slots per peer (receive side) */
#define VB_RC_SLOT_SIZE     1536u /* LCF header + NA_MAX_FRAME_PAYLOAD */
#define VB_RC_SQ            64u
#define VB_LOOP_SLOTS       64u /* node-to-node messages to ourselves */
#define VB_CONNECT_RETRY_NS 100000000ull /* re-send a REQ after 100 ms */
#define VB_CONN_MAGIC       0x56424331u  /* "VBC1" */

_Static_assert(VB_RC_SLOT_SIZE >= LCF_HDR_LEN + NA_MAX_FRAME_PAYLOAD,
	       "RC slot too small");
_Static_assert(VB_BUF_SIZE >= LCF_FRAME_HDRS + NA_MAX_FRAME_PAYLOAD + 64,
	       "frame buffer too small");

/* wr_id = kind << 32 | index */
enum vb_wr_kind {
	VB_WR_RAW_RECV = 1,
	VB_WR_SEND = 2,
	VB_WR_RC_RECV = 3,
	VB_WR_CREDIT = 4
};
#define VB_WRID(kind, idx) (((uint64_t)(kind) << 32) | (uint32_t)(idx))
#define VB_WR_KIND(id)     ((uint32_t)((id) >> 32))
#define VB_WR_IDX(id)      ((uint32_t)(id))

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
	uint64_t ring_addr;   /* the sender's ring for data FROM the receiver */
	uint64_t credit_addr; /* where the receiver writes its consumed count */
	uint64_t epoch;       /* random per open(): detects a restarted peer */
	uint8_t gid[16];
} __attribute__((packed));

enum vb_rc_state {
	VB_RC_DOWN = 0,
	VB_RC_CONFIGURED,
	VB_RC_UP
};

struct vb_peer {
	bool exists;
	struct ibv_qp *qp;
	enum vb_rc_state state;
	uint64_t last_req_ns;
	struct vb_conn_wire remote; /* host order except gid */
	uint64_t tx_head;           /* slots written into the peer's ring */
	uint64_t rx_consumed;       /* slots of our ring for it consumed */
	uint64_t rx_reported;       /* last consumed count written back */
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
	bool ib_link; /* InfiniBand link layer (no raw QP) */
	int gid_index;
	union ibv_gid gid;
	uint16_t lid;
	uint64_t epoch;
	unsigned cq_events; /* un-acked completion events */

	/* local memory (LOCAL_WRITE): raw receive + send staging + credit src */
	uint8_t *lmem;
	size_t lmem_len;
	struct ibv_mr *lmr;
	uint8_t *raw_rx;      /* VB_RAW_RQ * VB_BUF_SIZE */
	uint8_t *tx;          /* VB_SEND_BUFS * VB_BUF_SIZE */
	uint64_t *credit_src; /* [LCF_MAX_NODES] */

	/* remote-writable memory: rings (one per peer) + credit words */
	uint8_t *rmem;
	size_t rmem_len;
	struct ibv_mr *rmr;
	uint8_t *rings;               /* [LCF_MAX_NODES][VB_RC_SLOTS][SLOT] */
	volatile uint64_t *credit_in; /* [LCF_MAX_NODES], written by peers */

	uint32_t free_tx[VB_SEND_BUFS]; /* stack of free send buffers */
	uint32_t n_free_tx;

	struct vb_peer peers[LCF_MAX_NODES];

	struct vb_loop_msg *loop; /* [VB_LOOP_SLOTS] */
	uint32_t loop_head, loop_tail;

	uint64_t tx_errors, rc_errors;
};

static inline uint64_t
vb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t
vb_htonll(uint64_t v)
{
	return ((uint64_t)htonl((uint32_t)v) << 32) |
	       htonl((uint32_t)(v >> 32));
}

#define vb_ntohll vb_htonll

static inline struct vb_state *
vb_of(struct na_transport *tp)
{
	return (struct vb_state *)tp->priv;
}

/*
 * An RC connection failed (a send completion with an error, a broken
 * exchange): reconnect later. Inline, as the raw QP's completion reaper
 * (na_transport_verbs_raw.c) notes failures too: the RC file builds on the
 * raw one, not the other way round.
 */
static inline void
vb_rc_fail(struct vb_state *s, uint16_t peer)
{
	s->rc_errors++;
	s->peers[peer].state = VB_RC_DOWN;
	s->peers[peer].remote.epoch = 0;
}

/* na_transport_verbs_raw.c: memory, buffers, the raw-packet QP */
int vb_get_tx(struct vb_state *s, uint32_t *idx);
enum lcf_drop vb_msg_validate(const struct lcf_msg *m, uint32_t payload_avail);
int vb_parse_frame(const struct topo *t, const uint8_t *f, uint32_t len,
		   struct lcf_msg *msg, const uint8_t **payload);
int vb_post_raw_recv(struct vb_state *s, uint32_t idx);
int vb_post_rc_recv(struct vb_state *s, uint16_t peer);
void vb_reap_send(struct vb_state *s);
uint8_t *vb_ring_slot(struct vb_state *s, uint16_t peer, uint32_t slot);
int vb_send_frame(struct na_transport *tp, uint16_t dst,
		  const struct lcf_msg *msg, const void *payload,
		  uint16_t payload_len);

/* na_transport_verbs_rc.c: RC QPs (connection exchange, RDMA WRITE data path, credits) */
void vb_handle_conn(struct na_transport *tp, const struct lcf_msg *m,
		    const uint8_t *payload);
void vb_maybe_connect(struct na_transport *tp, uint16_t peer);
int vb_rc_write(struct na_transport *tp, uint16_t dst,
		const struct lcf_msg *msg, const void *payload,
		uint16_t payload_len);
void vb_return_credit(struct vb_state *s, uint16_t peer);

/* na_transport_verbs_io.c: send() and recv() */
int vb_recv(struct na_transport *tp, struct lcf_msg *msg, void *payload,
	    uint16_t cap, int timeout_ms);
int vb_send(struct na_transport *tp, uint16_t dst, const struct lcf_msg *msg,
	    const void *payload, uint16_t payload_len);

#endif /* NA_TRANSPORT_VERBS_H */
