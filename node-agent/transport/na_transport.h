/* SPDX-License-Identifier: BSD-3-Clause
 *
 * One interface for the node agent's transports. The protocol logic
 * (requester, cache agent, home agent, segmentation, retransmission) is
 * written once against it; a transport only moves whole LCF messages.
 *
 *  - udp:   kernel UDP sockets bound to the node's IP and the LCF port. The
 *           kernel builds Ethernet/IPv4/UDP; the switch intercepts LCF frames
 *           whatever their destination. Pipeline types leave from the tag's
 *           steering port (docs/PROTOCOL.md 1.1); "udp-nosteer" does not.
 *  - verbs: rdma-core. A raw-packet QP with a flow-steering rule for the LCF
 *           UDP port carries coherence frames (we build Eth/IPv4/UDP with
 *           lcf_frame_build()); an RC QP per peer carries block data with
 *           RDMA WRITE. Refuses clearly when no RDMA device exists.
 */
#ifndef NA_TRANSPORT_H
#define NA_TRANSPORT_H

#include <stdint.h>

#include "lcf_wire.h"
#include "na_msg.h"
#include "topo.h"

struct na_transport;

struct na_transport_ops {
	const char *name;
	/**
	 * Open the transport for node `self` of `topo`.
	 * @return 0, -ENODEV when the hardware it needs is absent (with a
	 *         message in `err`), or another -errno.
	 */
	int (*open)(struct na_transport *tp, const struct topo *topo,
		    uint16_t self, char *err, size_t err_len);
	/**
	 * Send one message to node `dst` (its IP/MAC from the topology).
	 * `payload_len` must equal msg->len and be <= NA_MAX_FRAME_PAYLOAD.
	 * @return 0, -EMSGSIZE, -EAGAIN when the send queue is full, or -errno.
	 */
	int (*send)(struct na_transport *tp, uint16_t dst,
		    const struct lcf_msg *msg, const void *payload,
		    uint16_t payload_len);
	/**
	 * Receive one message, waiting at most `timeout_ms` (0: poll).
	 * Frames that fail lcf_msg_validate() are dropped and counted.
	 * @return payload length (>= 0), -EAGAIN on timeout, or -errno.
	 */
	int (*recv)(struct na_transport *tp, struct lcf_msg *msg, void *payload,
		    uint16_t cap, int timeout_ms);
	/** Close and free everything open() made. */
	void (*close)(struct na_transport *tp);
};

struct na_transport {
	const struct na_transport_ops *ops;
	const struct topo *topo;
	uint16_t self;
	uint64_t rx_bad; /* frames dropped by validation */
	void *priv;      /* the transport's own state */
};

extern const struct na_transport_ops na_transport_udp;
extern const struct na_transport_ops na_transport_udp_nosteer;
extern const struct na_transport_ops na_transport_verbs;

/** The transport called `name` ("udp", "verbs"), or NULL. */
const struct na_transport_ops *na_transport_find(const char *name);

#endif /* NA_TRANSPORT_H */
