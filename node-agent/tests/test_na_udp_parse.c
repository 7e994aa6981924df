/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The UDP transport's receive parser (na_udp_parse) on malformed input:
 * every class scripts/lcf_garbage.py sends must be rejected (the transport
 * then counts it in rx_bad), well-formed messages accepted, and random bytes
 * of every length must never be accepted with a payload that runs past the
 * datagram.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "na_msg.h"
#include "na_transport.h"
#include "na_transport_udp.h"

#define CAP NA_MAX_FRAME_PAYLOAD

static struct lcf_msg
good(uint8_t type, uint16_t len)
{
	return (struct lcf_msg){
		.version = LCF_VERSION,
		.type = type,
		.gstatus = LCF_GS_SHARED,
		.node = 1,
		.thread = 1,
		.seq = 7,
		.copyset = 3,
		.tag = 0x1000000000040ull,
		.dst_node = 2,
		.len = len,
	};
}

/* Encode m followed by `extra` payload bytes; return the datagram size. */
static size_t
dgram(uint8_t *buf, const struct lcf_msg *m, size_t extra)
{
	lcf_hdr_encode(m, buf);
	memset(buf + LCF_HDR_LEN, 0xab, extra);
	return LCF_HDR_LEN + extra;
}

static int
parse(const uint8_t *buf, size_t n)
{
	struct lcf_msg m;
	const uint8_t *p = NULL;

	return na_udp_parse(buf, n, CAP, &m, &p);
}

Test(udp_parse, well_formed_accepted)
{
	uint8_t buf[LCF_HDR_LEN + CAP];
	struct lcf_msg in = good(LCF_T_READ_MISS, 0), out;
	const uint8_t *p;

	cr_assert_eq(na_udp_parse(buf, dgram(buf, &in, 0), CAP, &out, &p), 0);
	cr_assert_eq(out.tag, in.tag);
	in = good(NA_MSG_DATA, 64);
	cr_assert_eq(na_udp_parse(buf, dgram(buf, &in, 64), CAP, &out, &p), 64);
	cr_assert_eq(p, buf + LCF_HDR_LEN);
	/* types the switch emits are accepted by a node */
	in = good(LCF_T_NACK, 0);
	cr_assert_eq(parse(buf, dgram(buf, &in, 0)), 0);
	in = good(LCF_T_UNLOCK_ACK, 0);
	cr_assert_eq(parse(buf, dgram(buf, &in, 0)), 0);
	in = good(LCF_T_ABORT_ACK, 0);
	cr_assert_eq(parse(buf, dgram(buf, &in, 0)), 0);
}

Test(udp_parse, short_and_truncated_rejected)
{
	uint8_t buf[LCF_HDR_LEN + 64];
	struct lcf_msg in = good(LCF_T_WRITE_MISS, 0);

	dgram(buf, &in, 0);
	for (size_t n = 0; n < LCF_HDR_LEN; n++)
		cr_assert_eq(parse(buf, n), -1, "truncated header of %zu bytes",
			     n);
	/* header announces a payload the datagram does not carry */
	in = good(NA_MSG_DATA, 64);
	dgram(buf, &in, 64);
	for (size_t n = LCF_HDR_LEN; n < LCF_HDR_LEN + 64; n++)
		cr_assert_eq(parse(buf, n), -1, "payload truncated to %zu", n);
}

Test(udp_parse, invalid_headers_rejected)
{
	uint8_t buf[LCF_HDR_LEN + 16];
	struct lcf_msg m;
	static const uint8_t bad_types[] = { 0,    0x0e, 0x0f, 0x18,
					     0x1f, 0x80, 0xff };

	m = good(LCF_T_READ_MISS, 0);
	m.version = 2;
	cr_assert_eq(parse(buf, dgram(buf, &m, 0)), -1, "bad version");
	for (size_t i = 0; i < sizeof(bad_types); i++) {
		m = good(bad_types[i], 0);
		cr_assert_eq(parse(buf, dgram(buf, &m, 0)), -1, "type 0x%x",
			     bad_types[i]);
	}
	m = good(LCF_T_READ_MISS, 0);
	m.flags = (uint8_t)~LCF_F_MASK;
	cr_assert_eq(parse(buf, dgram(buf, &m, 0)), -1, "reserved flags");
	m = good(LCF_T_READ_MISS, 0);
	m.gstatus = LCF_GS_MODIFIED + 1;
	cr_assert_eq(parse(buf, dgram(buf, &m, 0)), -1, "gstatus");
	m = good(LCF_T_READ_MISS, 0);
	m.node = LCF_MAX_NODES;
	cr_assert_eq(parse(buf, dgram(buf, &m, 0)), -1, "node range");
	m = good(LCF_T_READ_MISS, 0); /* len says 0, 16 bytes follow */
	cr_assert_eq(parse(buf, dgram(buf, &m, 16)), -1, "trailing bytes");
}

Test(udp_parse, payload_over_capacity_rejected)
{
	static uint8_t buf[LCF_HDR_LEN + 65535];
	struct lcf_msg m = good(NA_MSG_DATA, 65535), out;
	const uint8_t *p;
	size_t n = dgram(buf, &m, 65535);

	cr_assert_eq(na_udp_parse(buf, n, CAP, &out, &p), -1);
	cr_assert_eq(na_udp_parse(buf, n, 65535, &out, &p), 65535);
}

Test(udp_parse, random_bytes_never_overrun)
{
	static uint8_t buf[LCF_HDR_LEN + 2048];
	uint32_t x = 12345;

	for (int i = 0; i < 200000; i++) {
		size_t n = (size_t)(i % (int)sizeof(buf));
		struct lcf_msg m;
		const uint8_t *p;
		int rc;

		for (size_t j = 0; j < n; j++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			buf[j] = (uint8_t)x;
		}
		if (i & 1 && n >= 2) {
			buf[0] = LCF_VERSION; /* get past the first check */
			buf[1] = (uint8_t)(x >> 8) & 0x7f;
		}
		rc = na_udp_parse(buf, n, CAP, &m, &p);
		if (rc >= 0)
			cr_assert_eq((size_t)rc + LCF_HDR_LEN, n,
				     "accepted payload must fill the datagram");
	}
}
