/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Verbs transport: registered memory, send buffers and the raw-packet QP
 * (whole Ethernet/IPv4/UDP/LCF frames); see na_transport_verbs.c
 * (which file owns what: its top).
 */
#include "na_transport_verbs.h"

/* ---- memory and buffers ------------------------------------------------ */

uint8_t *
vb_ring_slot(struct vb_state *s, uint16_t peer, uint32_t slot)
{
	return s->rings + ((size_t)peer * VB_RC_SLOTS + slot) * VB_RC_SLOT_SIZE;
}

int
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
int
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

/* Reap send completions: give staging buffers back, note failures. */
void
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

int
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

int
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
	sge = (struct ibv_sge){ .addr = (uintptr_t)buf,
				.length = (uint32_t)len,
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
 * switch may emit (NACK, UNLOCK_ACK, MIGRATE_ACK, ABORT_ACK) because
 * arriving at a switch they are spoofs. A node receives exactly those, so it
 * validates them with the same rules as any other accepted type.
 */
enum lcf_drop
vb_msg_validate(const struct lcf_msg *m, uint32_t payload_avail)
{
	struct lcf_msg c = *m;

	if (lcf_type_from_switch(c.type))
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
int
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
	if ((((uint32_t)ip[6] << 8 | ip[7]) & 0x3fff) != 0) /* MF or offset */
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
