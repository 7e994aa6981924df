/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The simulated cluster's transport; see na_transport_sim.h.
 */
#include <errno.h>
#include <stdio.h>

#include "na_transport_sim.h"

/* One simulated cluster per process: open() has no other way to find it. */
static struct na_sim_net *bound;

void
na_transport_sim_bind(struct na_sim_net *net)
{
	bound = net;
}

static int
sim_open(struct na_transport *tp, const struct topo *topo, uint16_t self,
	 char *err, size_t err_len)
{
	if (!bound) {
		snprintf(err, err_len,
			 "transport \"sim\": no simulated network (it exists "
			 "only inside na-sim)");
		return -ENODEV;
	}
	tp->topo = topo;
	tp->self = self;
	tp->priv = bound;
	return 0;
}

static int
sim_send(struct na_transport *tp, uint16_t dst, const struct lcf_msg *msg,
	 const void *payload, uint16_t payload_len)
{
	if (!tp->priv)
		return -EBADF;
	if (payload_len != msg->len)
		return -EINVAL;
	return na_sim_net_send(tp->priv, tp->self, dst, msg, payload);
}

/* The network delivers to na_node_receive(): nothing waits here. */
static int
sim_recv(struct na_transport *tp, struct lcf_msg *msg, void *payload,
	 uint16_t cap, int timeout_ms)
{
	(void)tp;
	(void)msg;
	(void)payload;
	(void)cap;
	(void)timeout_ms;
	return -EAGAIN;
}

static void
sim_close(struct na_transport *tp)
{
	tp->priv = NULL;
}

const struct na_transport_ops na_transport_sim = {
	.name = "sim",
	.open = sim_open,
	.send = sim_send,
	.recv = sim_recv,
	.close = sim_close,
};
