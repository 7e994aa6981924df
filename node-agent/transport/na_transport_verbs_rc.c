/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Verbs transport: one RC QP per peer, connected by the VERBS_CONNECT_REQ/REP
 * exchange on the raw QP; block data as RDMA WRITE WITH IMMEDIATE into the
 * peer's ring, credits written back; see na_transport_verbs.c
 * (which file owns what: its top).
 */
#include "na_transport_verbs.h"

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
	if ((rc = ibv_modify_qp(p->qp, &a,
				IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					IBV_QP_ACCESS_FLAGS)))
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
	if ((rc = ibv_modify_qp(p->qp, &a,
				IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
					IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					IBV_QP_MAX_DEST_RD_ATOMIC |
					IBV_QP_MIN_RNR_TIMER)))
		return -rc;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = (uint32_t)(s->epoch & 0xffffff);
	a.max_rd_atomic = 1;
	if ((rc = ibv_modify_qp(p->qp, &a,
				IBV_QP_STATE | IBV_QP_TIMEOUT |
					IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
					IBV_QP_SQ_PSN |
					IBV_QP_MAX_QP_RD_ATOMIC)))
		return -rc;

	p->remote = *r;
	p->tx_head = 0;
	p->rx_consumed = 0;
	p->rx_reported = 0;
	s->credit_in[peer] = 0;
	p->state = VB_RC_CONFIGURED;
	return 0;
}

/* A VERBS_CONNECT_REQ/REP arrived from `peer`. */
void
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
	if (ntohl(w.magic) != VB_CONN_MAGIC || ntohl(w.ring_slots) == 0 ||
	    ntohl(w.slot_size) < VB_RC_SLOT_SIZE)
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
		p->state = VB_RC_UP; /* the peer's QP is at RTS */
	return;
bad:
	tp->rx_bad++;
}

/* Ask `peer` to connect, at most every VB_CONNECT_RETRY_NS. */
void
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

int
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
		return -EAGAIN; /* ring full: wait for credits */
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
void
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
