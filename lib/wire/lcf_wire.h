/* SPDX-License-Identifier: BSD-3-Clause
 *
 * LCF wire format, version 1 (normative: docs/PROTOCOL.md).
 *
 * A coherence frame is Ethernet II / IPv4 / UDP (dst port = lcf_port) / a
 * 32-byte LCF header / `len` bytes of payload. Every multi-byte field is
 * big-endian on the wire. This header has no DPDK in it: swswitch, node-agent,
 * the pcap tools and the tests all use it.
 */
#ifndef LCF_WIRE_H
#define LCF_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define LCF_VERSION      1
#define LCF_HDR_LEN      32
#define LCF_DEFAULT_PORT 7340
#define LCF_MAX_NODES    32 /* copyset is a 32-bit bitmap */
#define LCF_NODE_NONE    0xffff

#define LCF_ETH_LEN    14
#define LCF_IPV4_LEN   20 /* we emit no IP options */
#define LCF_UDP_LEN    8
#define LCF_FRAME_HDRS (LCF_ETH_LEN + LCF_IPV4_LEN + LCF_UDP_LEN + LCF_HDR_LEN)

/*
 * Message types. X(name, value, string). Pipeline types are 0x01-0x0b and the
 * queued-lock types 0x0c-0x0d (docs/QUEUED-LOCKS.md), types the switch emits
 * are 0x10-0x17, 0x20-0x7f are node-to-node (node-agent
 * defines them in lcf_node_msg.h; the switch forwards them as L2 traffic).
 */
/* clang-format off */
#define LCF_TYPE_LIST(X)                                   \
	X(READ_MISS,          0x01, "READ_MISS")           \
	X(WRITE_MISS,         0x02, "WRITE_MISS")          \
	X(WRITE_SHARED,       0x03, "WRITE_SHARED")        \
	X(EVICT_SHARED,       0x04, "EVICT_SHARED")        \
	X(EVICT_MODIFIED,     0x05, "EVICT_MODIFIED")      \
	X(READ_UNLOCK,        0x06, "READ_UNLOCK")         \
	X(WRITE_UNLOCK,       0x07, "WRITE_UNLOCK")        \
	X(ADD_TO_SWITCH,      0x08, "ADD_TO_SWITCH")       \
	X(REMOVE_FROM_SWITCH, 0x09, "REMOVE_FROM_SWITCH")  \
	X(ABORT,              0x0a, "ABORT")               \
	X(VERSION_READ,       0x0b, "VERSION_READ")        \
	X(QXFER,              0x0c, "QXFER")               \
	X(QRELEASE,           0x0d, "QRELEASE")            \
	X(NACK,               0x10, "NACK")                \
	X(UNLOCK_ACK,         0x11, "UNLOCK_ACK")          \
	X(MIGRATE_ACK,        0x12, "MIGRATE_ACK")         \
	X(ABORT_ACK,          0x13, "ABORT_ACK")           \
	X(VERSION,            0x14, "VERSION")             \
	X(QXFER_ACK,          0x15, "QXFER_ACK")           \
	X(QWAIT,              0x16, "QWAIT")               \
	X(QGRANT,             0x17, "QGRANT")
/* clang-format on */

enum lcf_type {
#define LCF_X_ENUM(name, val, str) LCF_T_##name = val,
	LCF_TYPE_LIST(LCF_X_ENUM)
#undef LCF_X_ENUM
};

#define LCF_T_PIPELINE_FIRST LCF_T_READ_MISS
#define LCF_T_PIPELINE_LAST  LCF_T_VERSION_READ
#define LCF_T_NODE_FIRST     0x20
#define LCF_T_NODE_LAST      0x7f

/* flags */
#define LCF_F_IN_SWITCH     0x01
#define LCF_F_DATA_PROVIDER 0x02
#define LCF_F_FAIL          0x04
#define LCF_F_MASK          0x07

/* global status */
enum lcf_gstatus {
	LCF_GS_UNSHARED = 0,
	LCF_GS_SHARED = 1,
	LCF_GS_MODIFIED = 2,
};

/*
 * The header as laid out on the wire (big-endian fields). Natural alignment
 * already gives the normative offsets; `packed` keeps it so on every ABI.
 */
struct lcf_hdr {
	uint8_t version;
	uint8_t type;
	uint8_t flags;
	uint8_t gstatus;
	uint16_t node;
	uint16_t thread;
	uint32_t seq;
	uint32_t copyset;
	uint64_t tag;
	uint16_t dst_node;
	uint16_t len;
	uint32_t aux;
} __attribute__((packed));

/* The same header in host byte order, as code works with it. */
struct lcf_msg {
	uint8_t version;
	uint8_t type;
	uint8_t flags;
	uint8_t gstatus;
	uint16_t node;
	uint16_t thread;
	uint32_t seq;
	uint32_t copyset;
	uint64_t tag;
	uint16_t dst_node;
	uint16_t len;
	uint32_t aux;
};

/*
 * Reasons a coherence frame is dropped. X(name, string). The wire validator
 * returns the first group; the pipeline adds the ones that need the topology.
 * Counters, telemetry and the dissector all use these names.
 */
/* clang-format off */
#define LCF_DROP_LIST(X)                                              \
	X(NONE,               "none")                                 \
	X(SHORT,              "short_frame")                          \
	X(BAD_IP,             "bad_ipv4_header")                      \
	X(BAD_UDP,            "bad_udp_length")                       \
	X(BAD_VERSION,        "bad_version")                          \
	X(UNKNOWN_TYPE,       "unknown_type")                         \
	X(BAD_LEN,            "bad_payload_length")                   \
	X(BAD_FLAGS,          "reserved_flags_set")                   \
	X(BAD_GSTATUS,        "bad_gstatus")                          \
	X(NODE_RANGE,         "node_id_out_of_range")                 \
	X(NODE_UNKNOWN,       "node_id_not_in_topology")              \
	X(NODE_PORT_MISMATCH, "node_id_does_not_match_ingress_port")  \
	X(THREAD_RANGE,       "thread_id_out_of_range")               \
	X(TAG_RANGE,          "tag_home_node_not_in_topology")        \
	X(BAD_RESUBMIT,       "bad_resubmit_metadata")
/* clang-format on */

enum lcf_drop {
#define LCF_X_ENUM(name, str) LCF_DROP_##name,
	LCF_DROP_LIST(LCF_X_ENUM)
#undef LCF_X_ENUM
	LCF_DROP_MAX
};

/* Where the parts of a validated frame are. Offsets are from frame start. */
struct lcf_frame_view {
	uint16_t l3_off;
	uint16_t l4_off;
	uint16_t lcf_off;
	uint16_t payload_len;
};

/* What lcf_frame_classify() found. */
enum lcf_frame_class {
	LCF_FRAME_OTHER = 0, /* not for the pipeline: switch it at L2 */
	LCF_FRAME_PIPELINE,  /* a valid frame of types 0x01-0x0b */
	LCF_FRAME_DROP,      /* for the LCF port but malformed: *reason set */
};

/** Name of a message type, or NULL when `type` is not defined. */
const char *lcf_type_name(uint8_t type);

/** Name of a drop reason ("unknown" when out of range). */
const char *lcf_drop_name(enum lcf_drop reason);

/** Name of a global status ("?" when out of range). */
const char *lcf_gstatus_name(uint8_t gs);

/** True for the queued-lock types the pipeline processes (0x0c, 0x0d). */
static inline bool
lcf_type_is_queue(uint8_t type)
{
	return type == LCF_T_QXFER || type == LCF_T_QRELEASE;
}

/** True for the types the switch pipeline processes (0x01-0x0d). */
static inline bool
lcf_type_is_pipeline(uint8_t type)
{
	return (type >= LCF_T_PIPELINE_FIRST && type <= LCF_T_PIPELINE_LAST) ||
	       lcf_type_is_queue(type);
}

/** True for the types only the switch emits (0x10-0x17): spoofs when they
 * arrive at a switch, ordinary messages at a node. */
static inline bool
lcf_type_from_switch(uint8_t type)
{
	return type >= LCF_T_NACK && type <= LCF_T_QGRANT;
}

/*
 * VERSION (0x14), the answer to a VERSION_READ (docs/PROTOCOL.md 4.10):
 * `copyset` carries the block's 32-bit VERSION register, `aux` = 0x0b << 24
 * | LCF_VER_AUX_BUSY when the block's write lock was held. FAIL set and
 * IN_SWITCH clear: the switch does not hold the block.
 */
#define LCF_VER_AUX_BUSY 0x10000u
/* VERSION's low 16 bits count write requests and stop at this value (no
 * carry into the epoch above them); a VERSION whose count is here is no
 * stamp: copies stamped with it are not kept (lib/model/vohepoch.pml SAT). */
#define LCF_VER_COUNT_MAX 0xffffu

/** Decode a wire header at `buf` (at least LCF_HDR_LEN bytes). */
void lcf_hdr_decode(const void *buf, struct lcf_msg *msg);

/** Encode `msg` into LCF_HDR_LEN bytes at `buf`. */
void lcf_hdr_encode(const struct lcf_msg *msg, void *buf);

/**
 * Check the LCF header fields that need no topology: version, type, flags,
 * gstatus, node range. `payload_avail` is the UDP payload length after the
 * LCF header; `len` must equal it.
 *
 * @return LCF_DROP_NONE when valid, else the reason.
 */
enum lcf_drop lcf_msg_validate(const struct lcf_msg *msg,
			       uint32_t payload_avail);

/**
 * Classify an Ethernet frame. Frames that are not IPv4/UDP to `lcf_port`, and
 * node-to-node types 0x20-0x7f, are LCF_FRAME_OTHER. Frames to `lcf_port`
 * that fail validation are LCF_FRAME_DROP with `*reason` set. Valid pipeline
 * frames are LCF_FRAME_PIPELINE with `*view` and `*msg` filled.
 * It reads no byte beyond the LCF header (lcf_off + 32): the payload may sit
 * in another buffer segment; `len` is the whole frame's length.
 *
 * @return the class; never fails.
 */
enum lcf_frame_class lcf_frame_classify(const uint8_t *frame, uint32_t len,
					uint16_t lcf_port,
					struct lcf_frame_view *view,
					struct lcf_msg *msg,
					enum lcf_drop *reason);

/**
 * lcf_frame_classify() with a shortcut for the common frame (20-byte IPv4
 * header, valid pipeline message), checked without a branch per field;
 * every other frame takes lcf_frame_classify() itself. Same class, view,
 * message and drop reason for every input (the fuzzer compares the two).
 *
 * @return the class; never fails.
 */
enum lcf_frame_class lcf_frame_classify_fast(const uint8_t *frame, uint32_t len,
					     uint16_t lcf_port,
					     struct lcf_frame_view *view,
					     struct lcf_msg *msg,
					     enum lcf_drop *reason);

/** Addresses of one end of a frame. `ip` is in network byte order. */
struct lcf_addr {
	uint8_t mac[6];
	uint32_t ip;
};

/**
 * Build a complete coherence frame: Ethernet/IPv4/UDP/LCF + payload.
 * UDP source and destination ports are both `lcf_port`; UDP checksum 0.
 *
 * @return the frame length, or -ENOSPC when `cap` is too small, -EINVAL when
 *         payload_len does not equal msg->len.
 */
int lcf_frame_build(uint8_t *buf, uint32_t cap, const struct lcf_addr *src,
		    const struct lcf_addr *dst, uint16_t lcf_port,
		    const struct lcf_msg *msg, const void *payload,
		    uint16_t payload_len);

/**
 * Egress rewrite of a validated frame in place (the brief's rule): LCF header
 * replaced by `msg`, dst MAC/IP set to `dst`, src MAC/IP set to `src` when it
 * is not NULL (replies the switch originates), a fresh IPv4 checksum, UDP
 * checksum 0.
 */
void lcf_frame_rewrite(uint8_t *frame, const struct lcf_frame_view *view,
		       const struct lcf_msg *msg, const struct lcf_addr *dst,
		       const struct lcf_addr *src);

/**
 * The addressing part of lcf_frame_rewrite() alone: dst MAC/IP, src MAC/IP
 * when `src` is not NULL, a fresh IPv4 checksum, UDP checksum 0. The LCF
 * header is left as it is. Inline: swswitch runs it once per copy sent.
 */
static inline void
lcf_frame_readdress(uint8_t *f, const struct lcf_frame_view *v,
		    const struct lcf_addr *dst, const struct lcf_addr *src)
{
	uint8_t *ip = f + v->l3_off;
	const uint32_t ihl = (uint32_t)(v->l4_off - v->l3_off);
	const uint16_t zero = 0;
	uint32_t sip, s32;
	uint64_t sum, w8;
	uint16_t h, ck;

	if (src)
		sip = src->ip;
	else
		memcpy(&sip, ip + 12, 4);
	memcpy(f, dst->mac, 6);
	memcpy(ip + 16, &dst->ip, 4);
	if (src) {
		memcpy(f + 6, src->mac, 6);
		memcpy(ip + 12, &sip, 4);
	}
	/* A fresh header checksum, summed from the addresses as values
	 * rather than read back after storing them (and the checksum field
	 * skipped rather than zeroed): fewer instructions, and no load that
	 * waits on the stores just made. The first 10 bytes and the
	 * addresses are added as 32-bit words into 64 bits, options as
	 * 16-bit words: folded, that is the ones' complement sum of 16-bit
	 * words (2^16 = 1 mod 2^16 - 1) in either byte order (RFC 1071). */
	memcpy(&w8, ip, 8);
	memcpy(&h, ip + 8, 2);
	sum = (w8 & 0xffffffff) + (w8 >> 32) + h + sip + dst->ip;
	for (uint32_t i = LCF_IPV4_LEN; i < ihl; i += 2) {
		memcpy(&h, ip + i, 2);
		sum += h;
	}
	/* Fold with end-around carries: 64 -> 32 bits, then 32 -> 16 as the
	 * upper half of s + (s rotated by 16) (Linux's csum_fold). */
	s32 = (uint32_t)sum + (uint32_t)(sum >> 32);
	s32 += s32 < (uint32_t)(sum >> 32);
	ck = (uint16_t)((~s32 - (s32 << 16 | s32 >> 16)) >> 16);
	memcpy(ip + 10, &ck, 2);
	memcpy(f + v->l4_off + 6, &zero, 2);
}

/**
 * Set the two per-copy fields of an encoded LCF header at `hdr`: the
 * destination node and the flags.
 */
static inline void
lcf_hdr_address(uint8_t *hdr, uint16_t dst_node, uint8_t flags)
{
	hdr[offsetof(struct lcf_hdr, flags)] = flags;
	hdr[offsetof(struct lcf_hdr, dst_node)] = (uint8_t)(dst_node >> 8);
	hdr[offsetof(struct lcf_hdr, dst_node) + 1] = (uint8_t)dst_node;
}

/** RFC 1071 checksum of an IPv4 header of `len` bytes (checksum field as is). */
uint16_t lcf_ipv4_cksum(const void *iphdr, uint32_t len);

/** RFC 1982 serial-number comparison: true when a is after b. */
static inline bool
lcf_seq_after(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

#endif /* LCF_WIRE_H */
