/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Sampled latency tracing (docs/APPS.md "Where the time goes").
 *
 * Every process that sees a coherence event (the requester, swswitch, the
 * home and cache agents) decides on its own whether the event is sampled:
 * lcf_trace_sampled(node, thread, seq, every) is the same pure function
 * everywhere, so the records of one event are found in every process's
 * trace without a wire field. A sampled point costs one clock read and a
 * 32-byte store into a preallocated ring (one relaxed atomic add); an
 * unsampled one a multiply and a remainder. Nothing is allocated or written
 * to a file on the hot path: lcf_trace_dump() writes the ring at exit.
 *
 * Record format (also the file format: a 32-byte header, then records, all
 * little-endian, host order of this x86-64 machine). Reusable by any
 * producer with a shared clock, e.g. a simulator on its virtual clock:
 *
 *   header: magic "LCFTRC1\0", u32 record size (32), u32 every (sampling),
 *           u16 node (the recording process's node; 0xffff: the switch),
 *           u16 pad, u32 records, u64 dropped (overwritten by the ring)
 *   record: u64 t_ns    CLOCK_MONOTONIC (shared by every network namespace
 *                       of a host)
 *           u32 seq     the event's requester seq
 *           u16 node    the event's requester node
 *           u16 thread  the event's requester thread
 *           u16 at      the node that recorded it (0xffff: the switch)
 *           u16 peer    the other end: destination of a send, source node
 *                       of a receive (0xffff: unknown)
 *           u8  point   enum lcf_trace_point
 *           u8  type    the message type (LCF/NA), or the request type
 *           u16 pad
 *           u64 aux     point-specific (see enum lcf_trace_point)
 */
#ifndef LCF_TRACE_H
#define LCF_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define LCF_TRACE_MAGIC   "LCFTRC1"
#define LCF_TRACE_SWITCH  0xffffu /* `at` of swswitch's records */
#define LCF_TRACE_NO_PEER 0xffffu

/* clang-format off */
/* X(name, string): where a record is taken. Requester records carry the
 * request type in `type`; the others the message type. */
#define LCF_TRACE_POINTS(X)                                                  \
	X(OP_BEGIN, "op_begin") /* requester: one block access starts; seq: \
				   the thread's last seq; type: the mode; \
				   aux: the tag */                          \
	X(OP_END,   "op_end")   /* aux: 1 when no event ran (a hit) */        \
	X(EV_BEGIN, "ev_begin") /* requester: a coherence event; peer: the \
				   home; aux: 1 when hash-sampled (records \
				   in the other processes too) */           \
	X(EV_SEND,  "ev_send")  /* a copy of the request to peer; aux: the  \
				   copy's number */                         \
	X(EV_DONE,  "ev_done")  /* every reply collected; aux: 1 NACKed,   \
				   2 serialised by the switch */            \
	X(WAKE,     "wake")     /* requester thread took `type` from its   \
				   mailbox */                               \
	X(RX,       "rx")       /* dispatch thread received `type` */       \
	X(AG_IN,    "ag_in")    /* the agents start on `type` (their     \
				   section held) */                          \
	X(AG_OUT,   "ag_out")   /* an agent sends `type` to peer */         \
	X(UNL_SEND, "unl_send") /* requester sends the unlock to peer */    \
	X(FLUSH,    "flush")    /* requester waited aux ns for its previous \
				   unlock's ACK */                          \
	X(BACKOFF,  "backoff")  /* requester backed off aux ns (NACK) */    \
	X(LWAIT,    "lwait")    /* requester waited aux ns for another local \
				   thread's use of the block */             \
	X(WB,       "wb")       /* requester wrote the block home: aux ns */ \
	X(SW_IN,    "sw_in")    /* swswitch: a pipeline pass starts (`type`, \
				   ingress port peer) */                    \
	X(SW_OUT,   "sw_out")   /* swswitch: the pass is done; aux: the    \
				   verdict */                               \
	X(MARK,     "mark")     /* the measured phase starts (application) */
/* clang-format on */

enum lcf_trace_point {
#define LCF_TRACE_X_ENUM(name, str) LCF_TP_##name,
	LCF_TRACE_POINTS(LCF_TRACE_X_ENUM)
#undef LCF_TRACE_X_ENUM
	LCF_TP__COUNT
};

struct lcf_trace_rec {
	uint64_t t_ns;
	uint32_t seq;
	uint16_t node;
	uint16_t thread;
	uint16_t at;
	uint16_t peer;
	uint8_t point;
	uint8_t type;
	uint16_t pad;
	uint64_t aux;
};

_Static_assert(sizeof(struct lcf_trace_rec) == 32, "the file format record");

/* A ring of records. every == 0: tracing off (every call returns at once). */
struct lcf_trace {
	uint32_t every;
	uint16_t at;
	uint32_t mask; /* capacity - 1 */
	uint64_t next; /* records written, all time (atomic) */
	struct lcf_trace_rec *r;
};

/**
 * Is event (node, thread, seq) sampled at 1 in `every`? The same answer in
 * every process (a fixed hash). every 0: never; 1: always.
 */
static inline bool
lcf_trace_sampled(uint16_t node, uint16_t thread, uint32_t seq, uint32_t every)
{
	uint64_t h;

	if (every <= 1)
		return every == 1;
	h = ((uint64_t)node << 48 | (uint64_t)thread << 32 | seq) *
	    0x9e3779b97f4a7c15ull;
	return (uint32_t)(h >> 32) % every == 0;
}

/** CLOCK_MONOTONIC in ns, for producers without a clock of their own. */
static inline uint64_t
lcf_trace_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/**
 * Allocate a ring of `capacity` records (rounded up to a power of two) for
 * node `at`, sampling 1 in `every`. every 0 leaves tracing off.
 * @return 0, -EINVAL (capacity 0 with every > 0) or -ENOMEM.
 */
int lcf_trace_init(struct lcf_trace *tr, uint16_t at, uint32_t every,
		   uint32_t capacity);

void lcf_trace_fini(struct lcf_trace *tr);

/** Store one record at time `t_ns` (the caller's clock read). */
static inline void
lcf_trace_put(struct lcf_trace *tr, uint64_t t_ns, uint8_t point, uint8_t type,
	      uint16_t node, uint16_t thread, uint32_t seq, uint16_t peer,
	      uint64_t aux)
{
	uint64_t i = __atomic_fetch_add(&tr->next, 1, __ATOMIC_RELAXED);
	struct lcf_trace_rec *x = &tr->r[i & tr->mask];

	x->t_ns = t_ns;
	x->seq = seq;
	x->node = node;
	x->thread = thread;
	x->at = tr->at;
	x->peer = peer;
	x->point = point;
	x->type = type;
	x->pad = 0;
	x->aux = aux;
}

/**
 * Write the header and the ring's records, oldest first, to `f` (call
 * when no thread records any more). @return 0 or -EIO.
 */
int lcf_trace_dump(const struct lcf_trace *tr, FILE *f);

/** The point's name ("op_begin", ...), "?" when out of range. */
const char *lcf_trace_point_name(unsigned point);

#endif /* LCF_TRACE_H */
