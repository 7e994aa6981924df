/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The UDP transport's receive parser, exposed for its unit test
 * (test_na_udp_parse.c); the transport itself is na_transport_udp.
 */
#ifndef NA_TRANSPORT_UDP_H
#define NA_TRANSPORT_UDP_H

#include <stdint.h>

#include "lcf_wire.h"

/**
 * Parse one received datagram `buf` of `n` bytes into `msg` (header) and
 * `*payload` (points into buf). A datagram that is shorter than the LCF
 * header, fails validation (version, type, flags, gstatus, node range, len
 * equal to the bytes after the header) or carries more than `cap` payload
 * bytes is rejected: the caller drops it and counts it in rx_bad.
 * @return the payload length, or -1 when the datagram is malformed.
 */
int na_udp_parse(const uint8_t *buf, size_t n, uint16_t cap,
		 struct lcf_msg *msg, const uint8_t **payload);

#endif /* NA_TRANSPORT_UDP_H */
