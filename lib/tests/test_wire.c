/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Wire format v1: header codec, frame classification, validator reasons and
 * the egress rewrite.
 */
#include <errno.h>
#include <string.h>

#include <arpa/inet.h>
#include <criterion/criterion.h>

#include "lcf_pipeline.h"
#include "lcf_wire.h"

static const struct lcf_addr src = {
	.mac = { 2, 0, 0, 0, 0, 1 }, .ip = 0x0100000a, /* 10.0.0.1 */
};
static const struct lcf_addr dst = {
	.mac = { 2, 0, 0, 0, 0, 2 },
	.ip = 0x0200000a,
};

static struct lcf_msg
sample(void)
{
	return (struct lcf_msg){
		.version = 1,
		.type = LCF_T_WRITE_SHARED,
		.flags = LCF_F_IN_SWITCH,
		.gstatus = LCF_GS_SHARED,
		.node = 0x0102,
		.thread = 0x0304,
		.seq = 0x05060708,
		.copyset = 0x090a0b0c,
		.tag = 0x0d0e0f1011121314ull,
		.dst_node = 0x1516,
		.len = 0,
		.aux = 0x191a1b1c,
	};
}

Test(wire, header_is_big_endian_at_normative_offsets)
{
	struct lcf_msg m = sample(), back;
	uint8_t b[LCF_HDR_LEN];
	static const uint8_t want[LCF_HDR_LEN] = {
		1,    3,    1,    1,    0x01, 0x02, 0x03, 0x04,
		0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c,
		0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14,
		0x15, 0x16, 0x00, 0x00, 0x19, 0x1a, 0x1b, 0x1c,
	};

	lcf_hdr_encode(&m, b);
	cr_assert_arr_eq(b, want, sizeof(want));
	lcf_hdr_decode(b, &back);
	cr_assert_eq(memcmp(&m, &back, sizeof(m)), 0);
}

static int
build(uint8_t *f, const struct lcf_msg *m, const char *payload)
{
	uint16_t n = (uint16_t)(payload ? strlen(payload) : 0);
	struct lcf_msg mm = *m;

	mm.len = n;
	return lcf_frame_build(f, 256, &src, &dst, LCF_DEFAULT_PORT, &mm,
			       payload, n);
}

Test(wire, build_then_classify_round_trips)
{
	struct lcf_msg m = sample(), got;
	struct lcf_frame_view v;
	enum lcf_drop why;
	uint8_t f[256];
	int n;

	m.node = 3;
	n = build(f, &m, "payload!");
	cr_assert_eq(n, LCF_FRAME_HDRS + 8);
	cr_assert_eq(lcf_ipv4_cksum(f + LCF_ETH_LEN, LCF_IPV4_LEN), 0,
		     "valid IPv4 checksum");
	cr_assert_eq(lcf_frame_classify(f, (uint32_t)n, LCF_DEFAULT_PORT, &v,
					&got, &why),
		     LCF_FRAME_PIPELINE);
	cr_assert_eq(got.len, 8);
	cr_assert_eq(got.tag, m.tag);
	cr_assert_eq(v.lcf_off, LCF_ETH_LEN + LCF_IPV4_LEN + LCF_UDP_LEN);
	cr_assert_eq(v.payload_len, 8);
	/* Ethernet padding after the IP datagram is ignored */
	cr_assert_eq(lcf_frame_classify(f, (uint32_t)n + 10, LCF_DEFAULT_PORT,
					&v, &got, &why),
		     LCF_FRAME_PIPELINE);
}

Test(wire, build_refuses_small_buffer_and_bad_len)
{
	struct lcf_msg m = sample();
	uint8_t f[256];

	cr_assert_eq(lcf_frame_build(f, 50, &src, &dst, 7340, &m, NULL, 0),
		     -ENOSPC);
	m.len = 3;
	cr_assert_eq(lcf_frame_build(f, 256, &src, &dst, 7340, &m, NULL, 0),
		     -EINVAL);
}

Test(wire, other_traffic_is_not_for_the_pipeline)
{
	struct lcf_msg m = sample(), got;
	struct lcf_frame_view v;
	enum lcf_drop why;
	uint8_t f[256];
	int n;

	m.node = 1;
	n = build(f, &m, NULL);
	cr_assert_eq(lcf_frame_classify(f, (uint32_t)n, 9999, &v, &got, &why),
		     LCF_FRAME_OTHER, "another UDP port");
	m.type = 0x20;
	n = build(f, &m, NULL);
	cr_assert_eq(lcf_frame_classify(f, (uint32_t)n, 7340, &v, &got, &why),
		     LCF_FRAME_OTHER, "node-to-node types go at L2");
	f[12] = 0x08;
	f[13] = 0x06; /* ARP */
	cr_assert_eq(lcf_frame_classify(f, (uint32_t)n, 7340, &v, &got, &why),
		     LCF_FRAME_OTHER);
}

/* Build a valid frame, break it with `mutate`, expect `why`. */
static void
expect(void (*mutate)(uint8_t *f, int *n), enum lcf_drop want)
{
	struct lcf_msg m = sample(), got;
	struct lcf_frame_view v;
	enum lcf_drop why;
	uint8_t f[256];
	int n;

	m.node = 1;
	n = build(f, &m, "abcd");
	mutate(f, &n);
	cr_assert_eq(lcf_frame_classify(f, (uint32_t)n, 7340, &v, &got, &why),
		     LCF_FRAME_DROP);
	cr_assert_eq(why, want, "got %s want %s", lcf_drop_name(why),
		     lcf_drop_name(want));
}

#define LCF_OFF (LCF_ETH_LEN + LCF_IPV4_LEN + LCF_UDP_LEN)
static void
set_udp_len(uint8_t *f, uint16_t l)
{
	f[LCF_ETH_LEN + LCF_IPV4_LEN + 4] = (uint8_t)(l >> 8);
	f[LCF_ETH_LEN + LCF_IPV4_LEN + 5] = (uint8_t)l;
}
static void
m_truncated(uint8_t *f, int *n)
{
	(void)f;
	*n -= 10;
}
static void
m_fragment(uint8_t *f, int *n)
{
	(void)n;
	f[LCF_ETH_LEN + 6] = 0x20;
}
static void
m_udp_long(uint8_t *f, int *n)
{
	(void)n;
	set_udp_len(f, 200);
}
static void
m_short(uint8_t *f, int *n)
{
	(void)n;
	set_udp_len(f, LCF_UDP_LEN + 20);
}
static void
m_version(uint8_t *f, int *n)
{
	(void)n;
	f[LCF_OFF] = 2;
}
static void
m_type(uint8_t *f, int *n)
{
	(void)n;
	f[LCF_OFF + 1] = 0x11;
}
static void
m_type_high(uint8_t *f, int *n)
{
	(void)n;
	f[LCF_OFF + 1] = 0x80;
}
static void
m_flags(uint8_t *f, int *n)
{
	(void)n;
	f[LCF_OFF + 2] = 0x08;
}
static void
m_gstatus(uint8_t *f, int *n)
{
	(void)n;
	f[LCF_OFF + 3] = 3;
}
static void
m_node(uint8_t *f, int *n)
{
	(void)n;
	f[LCF_OFF + 5] = 32;
}
static void
m_len(uint8_t *f, int *n)
{
	(void)n;
	f[LCF_OFF + 27] = 3;
}

Test(wire, every_validator_reason)
{
	expect(m_truncated, LCF_DROP_BAD_IP);
	expect(m_fragment, LCF_DROP_BAD_IP);
	expect(m_udp_long, LCF_DROP_BAD_UDP);
	expect(m_short, LCF_DROP_SHORT);
	expect(m_version, LCF_DROP_BAD_VERSION);
	expect(m_type, LCF_DROP_UNKNOWN_TYPE);
	expect(m_type_high, LCF_DROP_UNKNOWN_TYPE);
	expect(m_flags, LCF_DROP_BAD_FLAGS);
	expect(m_gstatus, LCF_DROP_BAD_GSTATUS);
	expect(m_node, LCF_DROP_NODE_RANGE);
	expect(m_len, LCF_DROP_BAD_LEN);
}

Test(wire, rewrite_sets_addresses_checksums_and_header)
{
	struct lcf_msg m = sample(), got;
	struct lcf_addr sw = { .mac = { 2, 0, 0, 0, 0, 0xfe },
			       .ip = 0xfe00000a };
	struct lcf_frame_view v;
	enum lcf_drop why;
	uint8_t f[256];
	int n;

	m.node = 1;
	n = build(f, &m, NULL);
	f[LCF_ETH_LEN + LCF_IPV4_LEN + 6] = 0xab; /* some UDP checksum */
	lcf_frame_classify(f, (uint32_t)n, 7340, &v, &got, &why);
	got.dst_node = 7;
	got.type = LCF_T_NACK;
	lcf_frame_rewrite(f, &v, &got, &src, &sw);
	cr_assert_arr_eq(f, src.mac, 6);
	cr_assert_arr_eq(f + 6, sw.mac, 6);
	cr_assert_arr_eq(f + LCF_ETH_LEN + 16, &src.ip, 4);
	cr_assert_arr_eq(f + LCF_ETH_LEN + 12, &sw.ip, 4);
	cr_assert_eq(lcf_ipv4_cksum(f + LCF_ETH_LEN, LCF_IPV4_LEN), 0);
	cr_assert_eq(f[LCF_ETH_LEN + LCF_IPV4_LEN + 6], 0, "UDP checksum 0");
	cr_assert_eq(f[LCF_OFF + 1], LCF_T_NACK);
	cr_assert_eq(f[LCF_OFF + 25], 7, "dst_node");
}

/* swswitch's parser: the same answer as lcf_frame_classify() for `f`. */
static void
expect_fast_agrees(const uint8_t *f, uint32_t len, uint16_t port)
{
	struct lcf_frame_view v, v2;
	struct lcf_msg m, m2;
	enum lcf_drop why = LCF_DROP_NONE, why2 = LCF_DROP_NONE;
	enum lcf_frame_class c, c2;

	c = lcf_frame_classify(f, len, port, &v, &m, &why);
	c2 = lcf_frame_classify_fast(f, len, port, &v2, &m2, &why2);
	cr_assert_eq(c2, c, "class, len %u", len);
	if (c == LCF_FRAME_DROP)
		cr_assert_eq(why2, why, "reason, len %u", len);
	if (c == LCF_FRAME_PIPELINE) {
		cr_assert_eq(memcmp(&v2, &v, sizeof(v)), 0);
		cr_assert_eq(memcmp(&m2, &m, sizeof(m)), 0);
	}
}

Test(wire, fast_classify_agrees_on_every_byte_and_length)
{
	static const uint8_t values[] = { 0x00, 0x01, 0x02, 0x03, 0x08, 0x09,
					  0x0a, 0x11, 0x1c, 0x20, 0x3f, 0x40,
					  0x45, 0x46, 0x7f, 0x80, 0xf8, 0xff };
	struct lcf_msg m = sample();
	uint8_t f[256], g[256];
	int n;

	m.node = 3;
	n = build(f, &m, "12345678");
	for (int i = 0; i <= n; i++)
		expect_fast_agrees(f, (uint32_t)i, LCF_DEFAULT_PORT);
	expect_fast_agrees(f, (uint32_t)n, LCF_DEFAULT_PORT + 1);
	for (int i = 0; i < n; i++)
		for (size_t k = 0; k < sizeof(values); k++) {
			memcpy(g, f, (size_t)n);
			g[i] = values[k];
			expect_fast_agrees(g, (uint32_t)n, LCF_DEFAULT_PORT);
			g[i] = (uint8_t)(f[i] + values[k]);
			expect_fast_agrees(g, (uint32_t)n, LCF_DEFAULT_PORT);
		}
}

Test(wire, rewrite_checksum_with_ip_options)
{
	struct lcf_msg m = sample(), got;
	struct lcf_frame_view v;
	enum lcf_drop why;
	uint8_t f[256], g[256];
	int n;

	m.node = 1;
	n = build(f, &m, NULL);
	/* Move the UDP datagram back by 8 bytes of IPv4 options (NOPs). */
	memcpy(g, f, LCF_ETH_LEN + LCF_IPV4_LEN);
	memset(g + LCF_ETH_LEN + LCF_IPV4_LEN, 1, 8);
	memcpy(g + LCF_ETH_LEN + LCF_IPV4_LEN + 8,
	       f + LCF_ETH_LEN + LCF_IPV4_LEN,
	       (size_t)n - LCF_ETH_LEN - LCF_IPV4_LEN);
	g[LCF_ETH_LEN] = 0x47;
	g[LCF_ETH_LEN + 3] += 8; /* total length, low byte */
	cr_assert_eq(lcf_frame_classify_fast(g, (uint32_t)n + 8, 7340, &v, &got,
					     &why),
		     LCF_FRAME_PIPELINE);
	cr_assert_eq(v.lcf_off, LCF_ETH_LEN + 28 + LCF_UDP_LEN);
	lcf_frame_readdress(g, &v, &dst, &src);
	cr_assert_eq(lcf_ipv4_cksum(g + LCF_ETH_LEN, 28), 0);
	cr_assert_arr_eq(g + LCF_ETH_LEN + 16, &dst.ip, 4);
}

/* The readdressed header's checksum is exactly RFC 1071's over the new
 * header (checksum field zeroed), for many headers, with and without a
 * new source, also where the sum is a multiple of 0xffff. */
Test(wire, readdress_checksum_matches_rfc1071)
{
	struct lcf_frame_view v = { .l3_off = LCF_ETH_LEN,
				    .l4_off = LCF_ETH_LEN + LCF_IPV4_LEN,
				    .lcf_off = LCF_ETH_LEN + LCF_IPV4_LEN +
					       LCF_UDP_LEN };
	uint32_t x = 2463534242u, multiples = 0;
	uint8_t f[LCF_FRAME_HDRS], *ip = f + LCF_ETH_LEN;

	for (int i = 0; i < 400000; i++) {
		struct lcf_addr a = dst, b = src;
		uint16_t want, got;

		for (size_t k = 0; k < sizeof(f); k++)
			f[k] = (uint8_t)lcf_xorshift32(&x);
		a.ip = lcf_xorshift32(&x);
		b.ip = lcf_xorshift32(&x);
		if (i % 3 == 0) { /* all ones: sum a multiple of 0xffff */
			memset(ip, 0xff, LCF_IPV4_LEN);
			a.ip = b.ip = 0xffffffff;
		}
		if (i == 2) { /* 32-bit halves that carry when added */
			memset(ip, 0xff, 10);
			memset(ip + 12, 0, 4);
			a.ip = 0xffff0002;
		}
		lcf_frame_readdress(f, &v, &a, i & 1 ? &b : NULL);
		memcpy(&got, ip + 10, 2);
		memset(ip + 10, 0, 2);
		want = htons(lcf_ipv4_cksum(ip, LCF_IPV4_LEN));
		cr_assert_eq(got, want, "header %d", i);
		multiples += want == 0; /* the fold was 0xffff */
	}
	cr_assert_gt(multiples, 0);
}

Test(wire, names_come_from_the_x_macros)
{
	cr_assert_str_eq(lcf_type_name(LCF_T_READ_MISS), "READ_MISS");
	cr_assert_str_eq(lcf_type_name(LCF_T_MIGRATE_ACK), "MIGRATE_ACK");
	cr_assert_null(lcf_type_name(0x42));
	cr_assert_str_eq(lcf_drop_name(LCF_DROP_NODE_PORT_MISMATCH),
			 "node_id_does_not_match_ingress_port");
	cr_assert_str_eq(lcf_drop_name(LCF_DROP_MAX), "unknown");
}

Test(wire, serial_number_comparison)
{
	cr_assert(lcf_seq_after(2, 1));
	cr_assert_not(lcf_seq_after(1, 1));
	cr_assert_not(lcf_seq_after(1, 2));
	cr_assert(lcf_seq_after(0, 0xffffffffu));
	cr_assert(lcf_seq_after(5, 0xfffffff0u));
}

Test(wire, queued_lock_types)
{
	/* docs/QUEUED-LOCKS.md 4: 0x0c, 0x0d are pipeline types, 0x15 the
	 * switch's reply (0x0b and 0x14: validate-on-hit, PROTOCOL.md 4.10). */
	cr_assert(lcf_type_is_pipeline(LCF_T_QXFER));
	cr_assert(lcf_type_is_pipeline(LCF_T_QRELEASE));
	cr_assert(lcf_type_is_pipeline(LCF_T_VERSION_READ));
	cr_assert_not(lcf_type_is_pipeline(0x0e));
	cr_assert(lcf_type_from_switch(LCF_T_QXFER_ACK));
	cr_assert(lcf_type_from_switch(LCF_T_VERSION));
	cr_assert(lcf_type_from_switch(LCF_T_QWAIT));
	cr_assert(lcf_type_from_switch(LCF_T_QGRANT));
	cr_assert_not(lcf_type_from_switch(0x18));
	cr_assert_not(lcf_type_is_pipeline(LCF_T_QXFER_ACK));
	cr_assert_str_eq(lcf_type_name(LCF_T_QXFER), "QXFER");
	cr_assert_str_eq(lcf_type_name(LCF_T_QXFER_ACK), "QXFER_ACK");
	cr_assert_null(lcf_type_name(0x0e));

	struct lcf_msg m = { .version = 1, .type = LCF_T_QRELEASE };

	cr_assert_eq(lcf_msg_validate(&m, 0), LCF_DROP_NONE);
	m.type = LCF_T_QXFER_ACK; /* arriving at the switch: a spoof */
	cr_assert_eq(lcf_msg_validate(&m, 0), LCF_DROP_UNKNOWN_TYPE);
}
