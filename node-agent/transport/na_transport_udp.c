/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The UDP transport: one kernel UDP socket bound to the node's IP and the
 * LCF port. The kernel builds Ethernet/IPv4/UDP; the switch intercepts LCF
 * frames whatever their destination, so a request addressed to a block's
 * home node meets the pipeline on its way.
 *
 * Two details the kernel would otherwise get wrong for us:
 *  - A pipeline-type message to ourselves (a request for a block we are home
 *    of) must still cross the switch, but the kernel would loop a datagram
 *    to our own IP back through `lo`. We address those to the switch's IP
 *    instead; the switch runs its pipeline and, on a tag miss, sends the
 *    frame to the home node, i.e. back to us.
 *    The switch returns such a frame unchanged but for its destination, so
 *    it arrives with our own IP as source, which Linux drops as a martian
 *    unless the interface has accept_local=1: we set it (best effort,
 *    needs CAP_NET_ADMIN in the namespace; a warning says when we cannot).
 *  - So that the switch's IP resolves (a switch need not answer ARP) and no
 *    ARP round trip delays the first packets, we pin permanent neighbour
 *    entries for the switch and every node from the topology (SIOCSARP;
 *    best effort: without CAP_NET_ADMIN ordinary ARP is used).
 *
 * Steering (docs/PROTOCOL.md 1.1): pipeline-type messages leave from UDP
 * source port lcf_port + 1 + the tag's steering key (lib/wire/lcf_steer.h),
 * one send-only socket per key, so a multi-lcore switch's NIC can deliver
 * each frame to the worker that owns its tag. The port of a tag never
 * changes while the transport is open: all sockets or none (then every
 * message leaves from lcf_port, which the switch handles too, through its
 * software ring). "udp-nosteer" is the same transport without them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "na_msg.h"
#include "na_transport.h"
#include "na_transport_udp.h"
#include "lcf_steer.h"

struct udp_priv {
	int fd;
	bool steer;                   /* steer_fd[] are open */
	int steer_fd[LCF_STEER_KEYS]; /* send-only, one per steering key */
	uint8_t buf[LCF_HDR_LEN + 65536];
};

/* Name of the interface that has address `ip` (network order). */
static int
ifname_of(uint32_t ip, char name[IFNAMSIZ])
{
	struct ifaddrs *ifa, *i;
	int rc = -ENOENT;

	if (getifaddrs(&ifa))
		return -errno;
	for (i = ifa; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
			continue;
		if (((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr ==
		    ip) {
			snprintf(name, IFNAMSIZ, "%s", i->ifa_name);
			rc = 0;
			break;
		}
	}
	freeifaddrs(ifa);
	return rc;
}

static void
pin_neighbour(int fd, const char *dev, const struct lcf_addr *a)
{
	struct arpreq r;
	struct sockaddr_in *sin = (struct sockaddr_in *)&r.arp_pa;

	memset(&r, 0, sizeof(r));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = a->ip;
	r.arp_ha.sa_family = ARPHRD_ETHER;
	memcpy(r.arp_ha.sa_data, a->mac, 6);
	r.arp_flags = ATF_PERM | ATF_COM;
	snprintf(r.arp_dev, sizeof(r.arp_dev), "%s", dev);
	(void)ioctl(fd, SIOCSARP, &r); /* best effort, see the file comment */
}

static void
accept_local(const char *dev)
{
	char path[128];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/conf/%s/accept_local",
		 dev);
	f = fopen(path, "w");
	ok = f != NULL && fputs("1\n", f) >= 0;
	/* fclose() flushes the write: it must succeed too, and runs once */
	if (f != NULL && fclose(f) != 0)
		ok = false;
	if (!ok)
		fprintf(stderr,
			"udp: warning: cannot set %s=1 (%s): requests "
			"for blocks homed at this node will not come back "
			"through the switch\n",
			path, strerror(errno));
}

static void
steer_close(struct udp_priv *p, unsigned int n)
{
	while (n > 0)
		close(p->steer_fd[--n]);
	p->steer = false;
}

/*
 * The steering sockets, bound to `ip` and lcf_port + 1 + key. Nothing is
 * addressed to them (replies go to lcf_port), so their receive buffers are
 * as small as the kernel allows. All or none, with a warning.
 */
static void
steer_open(struct udp_priv *p, uint32_t ip, uint16_t lcf_port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = ip };
	int small = 1, sz = 8 << 20;
	unsigned int k;

	if (!lcf_steer_usable(lcf_port)) {
		fprintf(stderr,
			"udp: warning: lcf_port %u leaves no room for "
			"the steering source ports; sending from %u\n",
			lcf_port, lcf_port);
		return;
	}
	for (k = 0; k < LCF_STEER_KEYS; k++) {
		int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

		sa.sin_port = htons(lcf_steer_sport(lcf_port, k));
		if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			fprintf(stderr,
				"udp: warning: steering source port %u: "
				"%s; every message leaves from %u\n",
				lcf_steer_sport(lcf_port, k), strerror(errno),
				lcf_port);
			if (fd >= 0)
				close(fd);
			steer_close(p, k);
			return;
		}
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
		p->steer_fd[k] = fd;
	}
	p->steer = true;
}

static int
udp_open_common(struct na_transport *tp, const struct topo *topo, uint16_t self,
		bool steer, char *err, size_t err_len)
{
	const struct topo_node *me = topo_node_by_id(topo, self);
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct udp_priv *p;
	char dev[IFNAMSIZ];
	int one = 1, sz = 8 << 20;

	tp->topo = topo;
	tp->self = self;
	tp->priv = NULL;
	if (!me) {
		snprintf(err, err_len, "udp: node %u is not in the topology",
			 self);
		return -EINVAL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (p->fd < 0) {
		snprintf(err, err_len, "udp: socket: %s", strerror(errno));
		free(p);
		return -errno;
	}
	setsockopt(p->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(p->fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	setsockopt(p->fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	sa.sin_addr.s_addr = me->addr.ip;
	sa.sin_port = htons(topo->lcf_port);
	if (bind(p->fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int e = errno;
		char ip[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &me->addr.ip, ip, sizeof(ip));
		snprintf(err, err_len,
			 "udp: cannot bind %s:%u (node %u): %s (is this "
			 "process in node %u's network namespace?)",
			 ip, topo->lcf_port, self, strerror(e), self);
		close(p->fd);
		free(p);
		return -e;
	}
	if (ifname_of(me->addr.ip, dev) == 0) {
		accept_local(dev);
		pin_neighbour(p->fd, dev, &topo->sw.addr);
		for (uint32_t i = 0; i < topo->n_nodes; i++)
			if (topo->nodes[i].id != self)
				pin_neighbour(p->fd, dev, &topo->nodes[i].addr);
	}
	if (steer)
		steer_open(p, me->addr.ip, topo->lcf_port);
	tp->priv = p;
	return 0;
}

static int
udp_open(struct na_transport *tp, const struct topo *topo, uint16_t self,
	 char *err, size_t err_len)
{
	return udp_open_common(tp, topo, self, true, err, err_len);
}

static int
udp_open_nosteer(struct na_transport *tp, const struct topo *topo,
		 uint16_t self, char *err, size_t err_len)
{
	return udp_open_common(tp, topo, self, false, err, err_len);
}

static int
udp_send(struct na_transport *tp, uint16_t dst, const struct lcf_msg *msg,
	 const void *payload, uint16_t payload_len)
{
	struct udp_priv *p = tp->priv;
	const struct topo_node *to = topo_node_by_id(tp->topo, dst);
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int fd;
	uint8_t hdr[LCF_HDR_LEN];
	struct iovec iov[2] = {
		{ .iov_base = hdr, .iov_len = LCF_HDR_LEN },
		{ .iov_base = (void *)(uintptr_t)payload,
		  .iov_len = payload_len },
	};
	struct msghdr mh = {
		.msg_name = &sa,
		.msg_namelen = sizeof(sa),
		.msg_iov = iov,
		.msg_iovlen = payload_len ? 2 : 1,
	};

	if (!p)
		return -EBADF;
	if (payload_len != msg->len)
		return -EINVAL;
	if (payload_len > NA_MAX_FRAME_PAYLOAD)
		return -EMSGSIZE;
	if (!to)
		return -EINVAL;
	sa.sin_port = htons(tp->topo->lcf_port);
	sa.sin_addr.s_addr = to->addr.ip;
	if (dst == tp->self && lcf_type_is_pipeline(msg->type))
		sa.sin_addr.s_addr = tp->topo->sw.addr.ip; /* see top */
	fd = p->fd;
	if (p->steer && lcf_type_is_pipeline(msg->type))
		fd = p->steer_fd[lcf_steer_key(msg->tag)];
	lcf_hdr_encode(msg, hdr);
	if (sendmsg(fd, &mh, 0) < 0)
		return errno == EWOULDBLOCK || errno == ENOBUFS ? -EAGAIN
								: -errno;
	return 0;
}

/*
 * The node's own validation: lcf_msg_validate() is the switch's, which
 * rightly calls the types the switch emits (0x10-0x13) spoofs when they
 * arrive at a switch; a node must accept them.
 */
static bool
udp_valid(const struct lcf_msg *m, uint32_t avail)
{
	struct lcf_msg c = *m;

	if (lcf_type_from_switch(c.type))
		c.type = LCF_T_NODE_FIRST;
	return lcf_msg_validate(&c, avail) == LCF_DROP_NONE;
}

int
na_udp_parse(const uint8_t *buf, size_t n, uint16_t cap, struct lcf_msg *msg,
	     const uint8_t **payload)
{
	if (n < LCF_HDR_LEN || n - LCF_HDR_LEN > UINT16_MAX)
		return -1;
	lcf_hdr_decode(buf, msg);
	if (!udp_valid(msg, (uint32_t)(n - LCF_HDR_LEN)) || msg->len > cap)
		return -1;
	*payload = buf + LCF_HDR_LEN;
	return msg->len;
}

static int
udp_recv(struct na_transport *tp, struct lcf_msg *msg, void *payload,
	 uint16_t cap, int timeout_ms)
{
	struct udp_priv *p = tp->priv;

	if (!p)
		return -EBADF;
	for (;;) {
		struct pollfd pfd = { .fd = p->fd, .events = POLLIN };
		const uint8_t *body;
		ssize_t n;
		int rc;

		n = recv(p->fd, p->buf, sizeof(p->buf), MSG_DONTWAIT);
		if (n < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != EINTR)
				return -errno;
			if (timeout_ms == 0)
				return -EAGAIN;
			rc = poll(&pfd, 1, timeout_ms);
			if (rc < 0 && errno != EINTR)
				return -errno;
			if (rc <= 0)
				return -EAGAIN;
			timeout_ms = 0; /* one wait per call */
			continue;
		}
		if (na_udp_parse(p->buf, (size_t)n, cap, msg, &body) < 0) {
			tp->rx_bad++;
			continue;
		}
		memcpy(payload, body, msg->len);
		return msg->len;
	}
}

static void
udp_close(struct na_transport *tp)
{
	struct udp_priv *p = tp->priv;

	if (!p)
		return;
	if (p->steer)
		steer_close(p, LCF_STEER_KEYS);
	close(p->fd);
	free(p);
	tp->priv = NULL;
}

const struct na_transport_ops na_transport_udp = {
	.name = "udp",
	.open = udp_open,
	.send = udp_send,
	.recv = udp_recv,
	.close = udp_close,
};

const struct na_transport_ops na_transport_udp_nosteer = {
	.name = "udp-nosteer",
	.open = udp_open_nosteer,
	.send = udp_send,
	.recv = udp_recv,
	.close = udp_close,
};
