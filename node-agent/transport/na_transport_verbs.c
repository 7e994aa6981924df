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
 * The transport is one module in four files around na_transport_verbs.h;
 * each file owns:
 *   na_transport_verbs.c      device and GID choice, open and close;
 *   na_transport_verbs_raw.c  registered memory, send buffers, the raw QP,
 *                             frame build, parse and validation;
 *   na_transport_verbs_rc.c   the RC QPs: the CONNECT_REQ/REP exchange,
 *                             RDMA WRITE WITH IMMEDIATE, credits;
 *   na_transport_verbs_io.c   send() and recv() over both QPs.
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
#include "na_transport_verbs.h"

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
			for (uint8_t p = 1; p <= da.phys_port_cnt && !hit;
			     p++) {
				struct ibv_port_attr pa;

				if (ibv_query_port(c, p, &pa) == 0 &&
				    vb_find_gid(c, p, pa.gid_tbl_len, ip, &g) >=
					    0) {
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
			snprintf(
				err, err_len,
				"verbs: no RDMA device found (ibv_get_device_list "
				"returned 0 devices); use --transport udp");
		else
			snprintf(
				err, err_len,
				"verbs: no RDMA device found (ibv_get_device_list: "
				"%s); use --transport udp",
				strerror(e ? e : ENOSYS));
		if (list)
			ibv_free_device_list(list);
		return -ENODEV;
	}
	dev = vb_pick_device(list, n, me->addr.ip, &port);
	if (!dev) {
		snprintf(
			err, err_len,
			"verbs: RDMA device \"%s\" (NA_VERBS_DEVICE) not found; "
			"use --transport udp",
			getenv("NA_VERBS_DEVICE"));
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

#define VB_FAIL(code, ...)                           \
	do {                                         \
		snprintf(err, err_len, __VA_ARGS__); \
		rc = (code);                         \
		goto fail;                           \
	} while (0)

	s->ctx = ibv_open_device(dev);
	if (!s->ctx)
		VB_FAIL(-ENODEV,
			"verbs: cannot open %s: %s; use --transport udp",
			ibv_get_device_name(dev), strerror(errno));
	if (ibv_query_port(s->ctx, port, &pa))
		VB_FAIL(-ENODEV,
			"verbs: %s has no port %u; use --transport udp",
			ibv_get_device_name(dev), port);
	if (pa.link_layer != IBV_LINK_LAYER_ETHERNET)
		VB_FAIL(-ENODEV,
			"verbs: %s port %u is not Ethernet (a raw packet "
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
		VB_FAIL(-EADDRNOTAVAIL,
			"verbs: %s port %u has no GID for the "
			"node's IP (is the topology IP configured on its netdev?)",
			ibv_get_device_name(dev), port);

	s->pd = ibv_alloc_pd(s->ctx);
	s->chan = ibv_create_comp_channel(s->ctx);
	if (!s->pd || !s->chan)
		VB_FAIL(-ENOMEM,
			"verbs: cannot allocate PD/completion channel: %s",
			strerror(errno));
	s->send_cq = ibv_create_cq(s->ctx,
				   VB_SEND_BUFS + LCF_MAX_NODES * VB_RC_SQ,
				   NULL, NULL, 0);
	s->recv_cq = ibv_create_cq(s->ctx,
				   VB_RAW_RQ + LCF_MAX_NODES * VB_RC_SLOTS,
				   NULL, s->chan, 0);
	if (!s->send_cq || !s->recv_cq)
		VB_FAIL(-ENOMEM, "verbs: cannot create CQs: %s",
			strerror(errno));

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
						     (size_t)LCF_MAX_NODES *
							     VB_RC_SLOTS *
							     VB_RC_SLOT_SIZE);
	s->lmr = ibv_reg_mr(s->pd, s->lmem, s->lmem_len,
			    IBV_ACCESS_LOCAL_WRITE);
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
				 .max_send_sge = 1,
				 .max_recv_sge = 1 },
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
		if ((rc = ibv_modify_qp(s->raw_qp, &a,
					IBV_QP_STATE | IBV_QP_PORT)))
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
				me->addr.mac[0], me->addr.mac[1],
				me->addr.mac[2], me->addr.mac[3],
				me->addr.mac[4], me->addr.mac[5],
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
				 .max_send_sge = 1,
				 .max_recv_sge = 1,
				 .max_inline_data = sizeof(uint64_t) },
			.qp_type = IBV_QPT_RC,
		};

		if (id == self)
			continue;
		s->peers[id].exists = true;
		s->peers[id].qp = ibv_create_qp(s->pd, &qa);
		if (!s->peers[id].qp)
			VB_FAIL(-ENOMEM,
				"verbs: cannot create the RC QP for "
				"node %u: %s",
				id, strerror(errno));
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
