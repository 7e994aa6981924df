/* SPDX-License-Identifier: BSD-3-Clause
 *
 * LCF wire format v1: header codec, frame classification and the egress
 * rewrite. Pure C: the same code runs in swswitch, node-agent and the tests.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <arpa/inet.h>
#if defined(__SSSE3__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#include <tmmintrin.h>
#define LCF_WIRE_SHUFFLE 1
#endif

#include "lcf_wire.h"

/* The normative layout (docs/PROTOCOL.md section 1). */
_Static_assert(sizeof(struct lcf_hdr) == LCF_HDR_LEN, "LCF header is 32 bytes");
_Static_assert(offsetof(struct lcf_hdr, version) == 0, "version at 0");
_Static_assert(offsetof(struct lcf_hdr, type) == 1, "type at 1");
_Static_assert(offsetof(struct lcf_hdr, flags) == 2, "flags at 2");
_Static_assert(offsetof(struct lcf_hdr, gstatus) == 3, "gstatus at 3");
_Static_assert(offsetof(struct lcf_hdr, node) == 4, "node at 4");
_Static_assert(offsetof(struct lcf_hdr, thread) == 6, "thread at 6");
_Static_assert(offsetof(struct lcf_hdr, seq) == 8, "seq at 8");
_Static_assert(offsetof(struct lcf_hdr, copyset) == 12, "copyset at 12");
_Static_assert(offsetof(struct lcf_hdr, tag) == 16, "tag at 16");
_Static_assert(offsetof(struct lcf_hdr, dst_node) == 24, "dst_node at 24");
_Static_assert(offsetof(struct lcf_hdr, len) == 26, "len at 26");
_Static_assert(offsetof(struct lcf_hdr, aux) == 28, "aux at 28");
/* The host-order header has the same layout, which lets hdr_swap() convert
 * the whole header with two byte shuffles. */
_Static_assert(sizeof(struct lcf_msg) == LCF_HDR_LEN, "lcf_msg is 32 bytes");
_Static_assert(offsetof(struct lcf_msg, node) == 4 &&
		       offsetof(struct lcf_msg, seq) == 8 &&
		       offsetof(struct lcf_msg, tag) == 16 &&
		       offsetof(struct lcf_msg, dst_node) == 24 &&
		       offsetof(struct lcf_msg, aux) == 28,
	       "lcf_msg has the wire layout");

#define ETHERTYPE_IPV4 0x0800
#define IPPROTO_UDP_   17
#define IP_FRAG_MASK   0x3fff /* MF flag and fragment offset */

static const char *const lcf_drop_names[] = {
#define LCF_X_STR(name, str) [LCF_DROP_##name] = str,
	LCF_DROP_LIST(LCF_X_STR)
#undef LCF_X_STR
};

const char *
lcf_type_name(uint8_t type)
{
	switch (type) {
#define LCF_X_CASE(name, val, str) \
	case val:                  \
		return str;
		LCF_TYPE_LIST(LCF_X_CASE)
#undef LCF_X_CASE
	default:
		return NULL;
	}
}

const char *
lcf_drop_name(enum lcf_drop reason)
{
	if ((unsigned)reason >= LCF_DROP_MAX)
		return "unknown";
	return lcf_drop_names[reason];
}

const char *
lcf_gstatus_name(uint8_t gs)
{
	static const char *const names[] = { "Unshared", "Shared", "Modified" };

	return gs < 3 ? names[gs] : "?";
}

/* Big-endian loads and stores as one access and a byte swap (the byte
 * loops they replace were not always merged by the compiler). */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define BE16(x) __builtin_bswap16(x)
#define BE32(x) __builtin_bswap32(x)
#else
#define BE16(x) (x)
#define BE32(x) (x)
#endif

/* be<bits>_load() and be<bits>_store(). */
#define BE_ACCESSORS(bits)                                                \
	static inline uint##bits##_t be##bits##_load(const uint8_t *p)    \
	{                                                                 \
		uint##bits##_t v;                                         \
                                                                          \
		memcpy(&v, p, sizeof(v));                                 \
		return BE##bits(v);                                       \
	}                                                                 \
	static inline void be##bits##_store(uint8_t *p, uint##bits##_t v) \
	{                                                                 \
		v = BE##bits(v);                                          \
		memcpy(p, &v, sizeof(v));                                 \
	}

BE_ACCESSORS(16)

#ifdef LCF_WIRE_SHUFFLE
/*
 * Wire header <-> host-order struct lcf_msg, either way: every field is in
 * the same place in both (asserted above), so converting is reversing the
 * bytes of each multi-byte field, one shuffle per 16 bytes instead of a
 * load, swap and store per field.
 */
static inline void
hdr_swap(const void *src, void *dst)
{
	const __m128i lo = _mm_setr_epi8(0, 1, 2, 3, 5, 4, 7, 6, 11, 10, 9, 8,
					 15, 14, 13, 12);
	const __m128i hi = _mm_setr_epi8(7, 6, 5, 4, 3, 2, 1, 0, 9, 8, 11, 10,
					 15, 14, 13, 12);
	const uint8_t *s = src;
	uint8_t *d = dst;
	__m128i a = _mm_loadu_si128((const __m128i *)s);
	__m128i b = _mm_loadu_si128((const __m128i *)(s + 16));

	_mm_storeu_si128((__m128i *)d, _mm_shuffle_epi8(a, lo));
	_mm_storeu_si128((__m128i *)(d + 16), _mm_shuffle_epi8(b, hi));
}

static inline void
hdr_decode(const void *buf, struct lcf_msg *m)
{
	hdr_swap(buf, m);
}

static inline void
hdr_encode(const struct lcf_msg *m, void *buf)
{
	hdr_swap(m, buf);
}
#else
BE_ACCESSORS(32)

static inline uint64_t
be64_load(const uint8_t *p)
{
	return (uint64_t)be32_load(p) << 32 | be32_load(p + 4);
}

static inline void
be64_store(uint8_t *p, uint64_t v)
{
	be32_store(p, (uint32_t)(v >> 32));
	be32_store(p + 4, (uint32_t)v);
}

static inline void
hdr_decode(const void *buf, struct lcf_msg *m)
{
	const uint8_t *p = buf;

	m->version = p[0];
	m->type = p[1];
	m->flags = p[2];
	m->gstatus = p[3];
	m->node = be16_load(p + 4);
	m->thread = be16_load(p + 6);
	m->seq = be32_load(p + 8);
	m->copyset = be32_load(p + 12);
	m->tag = be64_load(p + 16);
	m->dst_node = be16_load(p + 24);
	m->len = be16_load(p + 26);
	m->aux = be32_load(p + 28);
}

static inline void
hdr_encode(const struct lcf_msg *m, void *buf)
{
	uint8_t *p = buf;

	p[0] = m->version;
	p[1] = m->type;
	p[2] = m->flags;
	p[3] = m->gstatus;
	be16_store(p + 4, m->node);
	be16_store(p + 6, m->thread);
	be32_store(p + 8, m->seq);
	be32_store(p + 12, m->copyset);
	be64_store(p + 16, m->tag);
	be16_store(p + 24, m->dst_node);
	be16_store(p + 26, m->len);
	be32_store(p + 28, m->aux);
}
#endif

void
lcf_hdr_decode(const void *buf, struct lcf_msg *m)
{
	hdr_decode(buf, m);
}

void
lcf_hdr_encode(const struct lcf_msg *m, void *buf)
{
	hdr_encode(m, buf);
}

enum lcf_drop
lcf_msg_validate(const struct lcf_msg *m, uint32_t payload_avail)
{
	if (m->version != LCF_VERSION)
		return LCF_DROP_BAD_VERSION;
	if (!lcf_type_is_pipeline(m->type) &&
	    !(m->type >= LCF_T_NODE_FIRST && m->type <= LCF_T_NODE_LAST))
		return LCF_DROP_UNKNOWN_TYPE;
	if (m->len != payload_avail)
		return LCF_DROP_BAD_LEN;
	if (m->flags & ~LCF_F_MASK)
		return LCF_DROP_BAD_FLAGS;
	if (m->gstatus > LCF_GS_MODIFIED)
		return LCF_DROP_BAD_GSTATUS;
	if (m->node >= LCF_MAX_NODES)
		return LCF_DROP_NODE_RANGE;
	return LCF_DROP_NONE;
}

uint16_t
lcf_ipv4_cksum(const void *iphdr, uint32_t len)
{
	const uint8_t *p = iphdr;
	uint8_t last[2] = { 0, 0 };
	uint32_t sum = 0, i;
	uint16_t h;

	/* Ones' complement sums are byte-order independent (RFC 1071): add
	 * native 16-bit words and swap the folded result once. 16 bits, not
	 * wider: the rewrite has just stored the checksum field as 16 bits,
	 * and a wider load over a narrower store stalls store forwarding. */
	for (i = 0; i + 2 <= len; i += 2) {
		memcpy(&h, p + i, 2);
		sum += h;
	}
	if (i < len) {
		last[0] = p[i];
		memcpy(&h, last, 2);
		sum += h;
	}
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~ntohs((uint16_t)sum);
}

/*
 * The fixed-value fields of the common frame (at least LCF_FRAME_HDRS
 * bytes): EtherType IPv4, IPv4 with a 20-byte header, not a fragment, UDP,
 * destination port `lcf_port`, LCF version 1, no reserved flag, node below
 * LCF_MAX_NODES.
 */
#ifdef LCF_WIRE_SHUFFLE
/* As two masked 16-byte compares, frame bytes 12-27 and 32-47. */
static inline bool
fixed_fields_ok(const uint8_t *f, uint16_t lcf_port)
{
	const __m128i mask_a = _mm_setr_epi8(-1, -1, -1, 0, 0, 0, 0, 0, 0x3f,
					     -1, 0, -1, 0, 0, 0, 0);
	const __m128i want_a = _mm_setr_epi8(0x08, 0x00, 0x45, 0, 0, 0, 0, 0, 0,
					     0, 0, IPPROTO_UDP_, 0, 0, 0, 0);
	const __m128i mask_b = _mm_setr_epi8(0, 0, 0, 0, -1, -1, 0, 0, 0, 0, -1,
					     0, (char)0xf8, 0, -1, (char)0xe0);
	const __m128i want_b = _mm_insert_epi16(_mm_setr_epi8(0, 0, 0, 0, 0, 0,
							      0, 0, 0, 0,
							      LCF_VERSION, 0, 0,
							      0, 0, 0),
						BE16(lcf_port), 2);
	__m128i a = _mm_loadu_si128((const __m128i *)(f + 12));
	__m128i b = _mm_loadu_si128((const __m128i *)(f + 32));
	__m128i eq = _mm_and_si128(_mm_cmpeq_epi8(_mm_and_si128(a, mask_a),
						  want_a),
				   _mm_cmpeq_epi8(_mm_and_si128(b, mask_b),
						  want_b));

	return _mm_movemask_epi8(eq) == 0xffff;
}
#else
static inline bool
fixed_fields_ok(const uint8_t *f, uint16_t lcf_port)
{
	const uint8_t *ip = f + LCF_ETH_LEN, *udp = ip + LCF_IPV4_LEN;
	const uint8_t *lcf = udp + LCF_UDP_LEN;

	return be16_load(f + 12) == ETHERTYPE_IPV4 && ip[0] == 0x45 &&
	       (be16_load(ip + 6) & IP_FRAG_MASK) == 0 &&
	       ip[9] == IPPROTO_UDP_ && be16_load(udp + 2) == lcf_port &&
	       lcf[0] == LCF_VERSION && (lcf[2] & ~LCF_F_MASK) == 0 &&
	       be16_load(lcf + 4) < LCF_MAX_NODES;
}
#endif

/*
 * Whether `f` is the common pipeline frame: a 20-byte IPv4 header, every
 * check of lcf_frame_classify() and lcf_msg_validate() passed, a pipeline
 * type. On true, `msg` holds the decoded header.
 */
static inline bool
classify_fast(const uint8_t *f, uint32_t len, uint16_t lcf_port,
	      struct lcf_msg *msg)
{
	const uint8_t *ip = f + LCF_ETH_LEN, *udp = ip + LCF_IPV4_LEN;
	uint32_t ip_len, udp_len;

	if (len < LCF_FRAME_HDRS || !fixed_fields_ok(f, lcf_port))
		return false;
	hdr_decode(udp + LCF_UDP_LEN, msg);
	ip_len = be16_load(ip + 2);
	udp_len = be16_load(udp + 4);
	return LCF_ETH_LEN + ip_len <= len &&
	       udp_len >= LCF_UDP_LEN + LCF_HDR_LEN &&
	       udp_len + LCF_IPV4_LEN <= ip_len &&
	       msg->len == udp_len - LCF_UDP_LEN - LCF_HDR_LEN &&
	       lcf_type_is_pipeline(msg->type) &&
	       msg->gstatus <= LCF_GS_MODIFIED;
}

enum lcf_frame_class
lcf_frame_classify(const uint8_t *f, uint32_t len, uint16_t lcf_port,
		   struct lcf_frame_view *view, struct lcf_msg *msg,
		   enum lcf_drop *reason)
{
	const uint8_t *ip, *udp;
	uint32_t ihl, ip_len, udp_len;

	/* Only IPv4/UDP to the LCF port is ours; anything else is L2 traffic. */
	if (len < LCF_ETH_LEN + LCF_IPV4_LEN + LCF_UDP_LEN ||
	    be16_load(f + 12) != ETHERTYPE_IPV4)
		return LCF_FRAME_OTHER;
	ip = f + LCF_ETH_LEN;
	ihl = (uint32_t)(ip[0] & 0x0f) * 4;
	if ((ip[0] >> 4) != 4 || ihl < LCF_IPV4_LEN ||
	    LCF_ETH_LEN + ihl + LCF_UDP_LEN > len || ip[9] != IPPROTO_UDP_)
		return LCF_FRAME_OTHER;
	udp = ip + ihl;
	if (be16_load(udp + 2) != lcf_port)
		return LCF_FRAME_OTHER;

	*reason = LCF_DROP_NONE;
	ip_len = be16_load(ip + 2);
	if (ip_len < ihl + LCF_UDP_LEN || LCF_ETH_LEN + ip_len > len ||
	    (be16_load(ip + 6) & IP_FRAG_MASK))
		*reason = LCF_DROP_BAD_IP;
	else if ((udp_len = be16_load(udp + 4)) < LCF_UDP_LEN ||
		 udp_len > ip_len - ihl)
		*reason = LCF_DROP_BAD_UDP;
	else if (udp_len < LCF_UDP_LEN + LCF_HDR_LEN)
		*reason = LCF_DROP_SHORT;
	if (*reason != LCF_DROP_NONE)
		return LCF_FRAME_DROP;

	hdr_decode(udp + LCF_UDP_LEN, msg);
	*reason = lcf_msg_validate(msg, udp_len - LCF_UDP_LEN - LCF_HDR_LEN);
	if (*reason != LCF_DROP_NONE)
		return LCF_FRAME_DROP;
	if (!lcf_type_is_pipeline(msg->type))
		return LCF_FRAME_OTHER;

	view->l3_off = LCF_ETH_LEN;
	view->l4_off = (uint16_t)(LCF_ETH_LEN + ihl);
	view->lcf_off = (uint16_t)(view->l4_off + LCF_UDP_LEN);
	view->payload_len = msg->len;
	return LCF_FRAME_PIPELINE;
}

enum lcf_frame_class
lcf_frame_classify_fast(const uint8_t *f, uint32_t len, uint16_t lcf_port,
			struct lcf_frame_view *view, struct lcf_msg *msg,
			enum lcf_drop *reason)
{
	if (!classify_fast(f, len, lcf_port, msg))
		return lcf_frame_classify(f, len, lcf_port, view, msg, reason);
	*reason = LCF_DROP_NONE;
	view->l3_off = LCF_ETH_LEN;
	view->l4_off = LCF_ETH_LEN + LCF_IPV4_LEN;
	view->lcf_off = LCF_ETH_LEN + LCF_IPV4_LEN + LCF_UDP_LEN;
	view->payload_len = msg->len;
	return LCF_FRAME_PIPELINE;
}

static void
ipv4_fill_cksum(uint8_t *ip, uint32_t ihl)
{
	const uint16_t zero = 0;

	memcpy(ip + 10, &zero, 2);
	be16_store(ip + 10, lcf_ipv4_cksum(ip, ihl));
}

int
lcf_frame_build(uint8_t *buf, uint32_t cap, const struct lcf_addr *src,
		const struct lcf_addr *dst, uint16_t lcf_port,
		const struct lcf_msg *msg, const void *payload,
		uint16_t payload_len)
{
	uint32_t total = LCF_FRAME_HDRS + payload_len;
	uint8_t *ip = buf + LCF_ETH_LEN, *udp = ip + LCF_IPV4_LEN;

	if (payload_len != msg->len)
		return -EINVAL;
	if (cap < total)
		return -ENOSPC;

	memcpy(buf, dst->mac, 6);
	memcpy(buf + 6, src->mac, 6);
	be16_store(buf + 12, ETHERTYPE_IPV4);

	ip[0] = 0x45;
	ip[1] = 0;
	be16_store(ip + 2, (uint16_t)(total - LCF_ETH_LEN));
	be16_store(ip + 4, 0);
	be16_store(ip + 6, 0x4000); /* DF */
	ip[8] = 64;
	ip[9] = IPPROTO_UDP_;
	memcpy(ip + 12, &src->ip, 4);
	memcpy(ip + 16, &dst->ip, 4);
	ipv4_fill_cksum(ip, LCF_IPV4_LEN);

	be16_store(udp, lcf_port);
	be16_store(udp + 2, lcf_port);
	be16_store(udp + 4,
		   (uint16_t)(LCF_UDP_LEN + LCF_HDR_LEN + payload_len));
	be16_store(udp + 6, 0);

	lcf_hdr_encode(msg, udp + LCF_UDP_LEN);
	if (payload_len)
		memcpy(udp + LCF_UDP_LEN + LCF_HDR_LEN, payload, payload_len);
	return (int)total;
}

void
lcf_frame_rewrite(uint8_t *f, const struct lcf_frame_view *v,
		  const struct lcf_msg *msg, const struct lcf_addr *dst,
		  const struct lcf_addr *src)
{
	lcf_frame_readdress(f, v, dst, src);
	hdr_encode(msg, f + v->lcf_off);
}
