/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Verbs transport: send() (RC when the peer is up, else raw; loopback for
 * ourselves) and recv() (completions of both QPs); see na_transport_verbs.c
 * (which file owns what: its top).
 */
#include "na_transport_verbs.h"

int
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
	node_msg = msg->type >= LCF_T_NODE_FIRST &&
		   msg->type <= LCF_T_NODE_LAST;

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
		} else if (vb_parse_frame(tp->topo, f, wc->byte_len, msg,
					  &pl)) {
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
			    LCF_DROP_NONE ||
		    msg->len > cap || msg->node != idx) {
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

int
vb_recv(struct na_transport *tp, struct lcf_msg *msg, void *payload,
	uint16_t cap, int timeout_ms)
{
	struct vb_state *s = vb_of(tp);
	uint64_t deadline;

	if (!s)
		return -EBADF;
	deadline = vb_now_ns() +
		   (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000ull;
	for (;;) {
		struct ibv_wc wc;
		struct pollfd pfd;
		uint64_t now;
		int n, rc;

		if (s->loop_head != s->loop_tail) {
			struct vb_loop_msg
				*l = &s->loop[s->loop_head % VB_LOOP_SLOTS];

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
		rc = poll(&pfd, 1,
			  timeout_ms < 0
				  ? 100
				  : (int)((deadline - now + 999999) / 1000000));
		if (rc > 0) {
			struct ibv_cq *cq;
			void *cq_ctx;

			if (ibv_get_cq_event(s->chan, &cq, &cq_ctx) == 0) {
				if (++s->cq_events >= 64) {
					ibv_ack_cq_events(s->recv_cq,
							  s->cq_events);
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
