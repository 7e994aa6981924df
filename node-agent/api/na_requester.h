/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The requester (paper section 5.1.1, "requester-driven coherence control",
 * and 5.3.1): what an application thread does on a cache miss, a write to a
 * clean block, or an eviction. Internal to libdsm.
 */
#ifndef NA_REQUESTER_H
#define NA_REQUESTER_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "dsm.h"
#include "na_collect.h"
#include "na_node.h"
#include "na_proto.h"
#include "na_recovery.h"

/* RTT estimate: EWMA (1/8) of event round trips, with a floor. */
#define NA_RTT_INIT_NS 1000000ull /* before the first sample: 1 ms */
/*
 * 500 us: on a host whose cores are oversubscribed (CI, network namespaces)
 * scheduling delays dwarf the network RTT, and a spurious retransmission is
 * what opens the stale-grant window described at struct na_stale.
 */
#define NA_RTT_FLOOR_NS        500000ull
#define NA_REQ_TIMEOUT_RTTS    6 /* section 5.3.1 */
#define NA_UNLOCK_TIMEOUT_RTTS 3
#define NA_GIVE_UP_NS          2000000000ull /* after dsm_stop(): 2 s */

/* Access modes of one block. */
enum na_mode {
	NA_M_READ,
	NA_M_WRITE,
	NA_M_PIN_R,       /* dsm_rlock */
	NA_M_PIN_W,       /* dsm_wlock */
	NA_M_RMW_THROUGH, /* buf is a struct na_rmw (write-through) */
};

/*
 * A write-through read-modify-write of one block (dsm_write_object):
 * fn runs on the block's bytes inside a coherence event that holds the
 * block's write lock (a WRITE_MISS or WRITE_SHARED; a block cached Modified
 * is evicted first, so there always is one), and when it returns true the
 * block is written home (NA_WB) before the event's unlock. Home memory
 * then equals the writer's copy at the end of every such event.
 */
struct na_rmw {
	bool (*fn)(uint8_t *p, uint32_t len, void *ctx); /* true: changed */
	void *ctx;
	bool wrote;
};

struct na_unlock_pending {
	bool valid;
	bool retx;
	bool queued; /* ended by the queue holder (QXFER/QRELEASE) */
	bool local;  /* sent to the home agent directly (na_req_send_home) */
	bool wired;  /* its first copy crossed the wire: an RTT sample */
	struct lcf_msg m;
	uint64_t sent_ns;
	uint64_t deadline_ns;
	uint32_t tries;
};

/*
 * The last NACKed request, or one a recovery round made the thread give
 * up (lib/model/miglate.pml). Until it is retried (same seq) or ended by an
 * ABORT (PROTOCOL.md 4.9), a copy may still reach the switch (or home)
 * later, find the lock free and take it for a seq we would otherwise
 * abandon. If one did, its replies arrive with that seq; we collect them as
 * for a real event and release the lock with an unlock that leaves the
 * metadata true (see settle_stale()).
 */
enum na_abort_answer {
	NA_AB_NONE,
	NA_AB_ABORTED,
	NA_AB_PASSED
};

struct na_stale {
	bool valid;
	uint8_t answer; /* enum na_abort_answer */
	uint8_t type;
	uint32_t seq;
	uint64_t tag;
	uint32_t copies; /* copies of the request sent with this seq */
	uint32_t nacks;  /* NACKs received for it */
	/* READ_MISS refused by the check (the node in COPYSET) after a copy
	 * was known to hold the lock: a sibling thread's read put the node
	 * there (na_req_quarantine) */
	bool in_cs;
	/* na_req_quarantine is waiting: na_req_wait_mail returns on each of
	 * the request's answers (-EINPROGRESS) instead of sleeping on */
	bool wake;
	/* A recovery round on the tag ended the locks of the copies before
	 * it: what was collected is void, the ABORT asks again (miglate.pml) */
	bool round;
	/* na_rec_rounds when the ABORT was last asked afresh: a round begun
	 * since voids its answer too, even one that began and ended while
	 * the quarantine slept (recpass.pml EARLY) */
	uint32_t rounds;
	struct na_collect c;
	uint8_t *buf;
};

struct dsm_thread {
	struct dsm *d;
	struct na_node *n;
	uint16_t id;
	uint32_t seq; /* last sequence number used */
	uint64_t rtt_ns;
	uint32_t rng;
	struct na_unlock_pending unl;
	uint8_t *buf;  /* incoming block data */
	uint8_t *tbuf; /* PIPE: the twin being written back, scratch */
	uint8_t *dbuf; /* PIPE: the diff stream */
	struct na_mail mail;
	struct na_stale stale;
	uint32_t last_unlock_seq; /* seq of the last unlock sent */
	/* The home-local path (na_req_send_home): the seq of this thread's
	 * latest event while no copy of it has crossed the switch (0: none),
	 * and per seq parity the last seq that crossed it. */
	uint32_t local_seq;
	uint32_t last_wired[2];
	/* Per seq parity, the latest event that may hold a switch lock (seq
	 * 0: none) until its unlock or an answered ABORT (na_req_row_guard) */
	struct {
		uint32_t seq;
		uint8_t type;
		uint64_t tag;
	} row[2];
	bool any_unlock;
	struct lcf_msg qgrant; /* queued mode: the last Q_GRANT received */
	bool qgrant_valid;
	uint32_t sab_seq; /* SABRe ids: a sequence of their own, so events'
			     seq parity is untouched (docs/SABRES.md) */
	bool tr_op;       /* the current access is sampled (lcf_trace.h) */
	uint32_t tr_ops;  /* accesses started, for the op sampling */
};

struct dsm {
	struct na_node node;
	struct topo topo;
	struct dsm_thread *threads;
	volatile int stopping;
	void *alloc; /* struct na_alloc (na_alloc.c) */
	void *voh;   /* struct na_voh (na_voh.c) */
	uint32_t
		pipe_depth; /* PIPE credit window; 0: whole-block write-backs */
};

/**
 * dsm_open() on a loaded topology (copied), with the node's transport and
 * dispatch chosen by the caller: the simulated cluster (node-agent/sim)
 * opens its nodes on its own transport with external_dispatch. NULL
 * tp_ops: cfg->transport by name. @return as dsm_open().
 */
int na_dsm_open(const struct dsm_config *cfg, const struct topo *topo,
		const struct na_transport_ops *tp_ops, bool external_dispatch,
		struct dsm **out, char *err, size_t err_len);

/**
 * Access `len` bytes at `off` of block `tag` in `mode` (copy out for READ,
 * in for WRITE; buf unused for pins). @return 0 or -EINTR.
 */
int na_req_access(struct dsm_thread *t, uint64_t tag, uint32_t off,
		  uint32_t len, void *buf, enum na_mode mode);

/** Release this thread's pin on `tag`. @return 0 or -ENOENT. */
int na_req_unpin(struct dsm_thread *t, uint64_t tag);

/**
 * Evict block `tag` from the local cache if it is there (EVICT_SHARED, or
 * EVICT_MODIFIED and its write-back), waiting for a local thread that has
 * it busy. @return 0, -EBUSY (pinned: left alone) or -EINTR.
 */
int na_req_drop(struct dsm_thread *t, uint64_t tag);

/** Wait until this thread's last unlock is acknowledged. */
void na_req_flush(struct dsm_thread *t);

/** A fresh sequence number (never 0: the switch's LAST-UNLOCK starts at 0). */
uint32_t na_req_next_seq(struct dsm_thread *t);

/**
 * Send `m` to `dst` and wait for the reply of type `reply_type` with the
 * same seq, retransmitting after 6 RTTs (used for chunk allocation).
 * @return 0 or -EINTR.
 */
int na_req_call(struct dsm_thread *t, uint16_t dst, const struct lcf_msg *m,
		uint8_t reply_type, struct na_mail *reply);

/* ---- internal to libdsm: na_requester.c, na_req_mail.c, na_req_stale.c,
 * used by na_access.c ---- */

static inline uint32_t
na_req_rnd(struct dsm_thread *t)
{
	uint32_t x = t->rng;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return t->rng = x;
}

static inline uint64_t
na_req_rtt(const struct dsm_thread *t)
{
	return t->rtt_ns > NA_RTT_FLOOR_NS ? t->rtt_ns : NA_RTT_FLOOR_NS;
}

static inline void
na_req_rtt_sample(struct dsm_thread *t, uint64_t ns)
{
	t->rtt_ns = t->rtt_ns - t->rtt_ns / 8 + ns / 8;
}

/* `rtts` round trips, doubled per retry so a slow peer is not flooded. */
static inline uint64_t
na_req_timeout(const struct dsm_thread *t, unsigned rtts, uint32_t tries)
{
	uint64_t to = na_req_rtt(t) * rtts << (tries < 6 ? tries : 6);

	return to < 200000000ull ? to : 200000000ull;
}

static inline bool
na_req_stopping(const struct dsm_thread *t)
{
	return __atomic_load_n(&t->d->stopping, __ATOMIC_RELAXED);
}

static inline uint16_t
na_req_home_of(const struct dsm_thread *t, uint64_t tag)
{
	return (uint16_t)topo_tag_home(&t->d->topo, tag);
}

/* Tracing (lcf_trace.h): is this thread's event `seq` recorded here? Its
 * own hash sample, or every event of a sampled access. */
static inline bool
na_req_tr(const struct dsm_thread *t, uint32_t seq)
{
	return __builtin_expect(t->n->tr.every != 0, 0) &&
	       (t->tr_op ||
		lcf_trace_sampled(t->n->self, t->id, seq, t->n->tr.every));
}

static inline void
na_req_trace(struct dsm_thread *t, uint8_t point, uint8_t type, uint32_t seq,
	     uint16_t peer, uint64_t aux)
{
	lcf_trace_put(&t->n->tr, na_now_ns(), point, type, t->n->self, t->id,
		      seq, peer, aux);
}

/* Record a wait of the sampled access that began at `t0` (0: not
 * sampled) as `point` with its length. */
static inline void
na_req_trace_wait(struct dsm_thread *t, uint8_t point, uint64_t t0)
{
	if (t0) {
		uint64_t now = na_now_ns();

		lcf_trace_put(&t->n->tr, now, point, 0, t->n->self, t->id,
			      t->seq, LCF_TRACE_NO_PEER, now - t0);
	}
}

/* The start of a wait to record: now when the access is sampled, else 0. */
static inline uint64_t
na_req_trace_t0(const struct dsm_thread *t)
{
	return __builtin_expect(t->tr_op, 0) ? na_now_ns() : 0;
}

/* A message of this requester thread to `dst`: version, type, node, thread,
 * seq and tag set, every other field 0. */
static inline void
na_req_msg(const struct dsm_thread *t, struct lcf_msg *m, uint8_t type,
	   uint32_t seq, uint64_t tag, uint16_t dst)
{
	memset(m, 0, sizeof(*m));
	m->version = LCF_VERSION;
	m->type = type;
	m->node = t->n->self;
	m->thread = t->id;
	m->seq = seq;
	m->tag = tag;
	m->dst_node = dst;
}

/* The unlock a quarantine settles on (na_req_quarantine). */
struct na_settle {
	uint8_t type;
	uint8_t gs;
	uint32_t seq;
	uint32_t cs;
	uint64_t tag;
};

/**
 * End the abandoned request (t->stale) before a new seq: ABORT it.
 * @return true when a copy of it took the lock: `u` is the unlock that
 * releases it, for the caller to send (na_req_end_stale, na_req_give_up).
 */
bool na_req_quarantine(struct dsm_thread *t, struct na_settle *u);

/**
 * End the abandoned request, if any: na_req_quarantine() and its settling
 * unlock, then its queue holder slot's abandon (queued mode). Its seq is
 * spent. No error returns.
 */
void na_req_end_stale(struct dsm_thread *t);

/**
 * Before a new seq: quarantine an earlier event that ended with neither its
 * unlock nor an answered ABORT (seq+2 would move its SCOREBOARD row on, a
 * later unlock make its own a duplicate; lib/model/migrows.pml).
 */
void na_req_row_guard(struct dsm_thread *t);

/** The event of `seq` holds no switch lock any more. */
static inline void
na_req_row_ended(struct dsm_thread *t, uint32_t seq)
{
	if (t->row[seq & 1].seq == seq)
		t->row[seq & 1].seq = 0;
}

/**
 * Give up a NACKed request that is not retried (seq on tag): in queued
 * lock mode the event is ended now with na_req_quarantine(), not at the
 * thread's next miss (a late copy of it may hold the lock while the node's
 * threads keep the block by hits, lib/model/qlock-threads.pml); then its
 * queue holder slot is abandoned (na_node_q_abandon: cancelled, kept and
 * polled as the switch's waiting writer, or, holding, ended through the
 * queue). No error returns.
 */
void na_req_give_up(struct dsm_thread *t, uint64_t tag, uint32_t seq);

enum {
	NA_EV_OK = 0,
	NA_EV_NACK = 1,
	NA_EV_ABORT = -1
};

/*
 * The retry of a NACKed request. The same request (tag and type) is retried
 * with the SAME seq: every copy of it, including a retransmitted one still
 * on its way, is then one event, and whichever copy takes the lock is the
 * one whose replies we collect (a new seq would leave a late copy holding a
 * lock nobody releases, and its scoreboard row counting a phantom lock).
 * A different request (our local state changed) gets a new seq.
 */
struct na_retry {
	uint32_t seq; /* 0: none */
	uint8_t type;
	uint64_t tag;
	uint32_t copies; /* sent with this seq, all attempts */
	uint32_t nacks;  /* NACKs received for it, all attempts */
};

/**
 * Run one coherence event: send request `type` for `tag` (a new seq, or
 * rt's when it is the same request retried), collect replies into `c`.
 * @return NA_EV_OK (granted: the event ends with na_req_send_unlock, which
 * tells recovery), NA_EV_NACK, NA_EV_ABORT (stopping and no answer).
 */
int na_req_event(struct dsm_thread *t, uint8_t type, uint64_t tag,
		 struct na_collect *c, struct na_retry *rt);

/** Write a block home inside event `seq`. @return 0 or -EINTR. */
int na_req_writeback(struct dsm_thread *t, uint32_t seq, uint64_t tag,
		     const uint8_t *data);

/**
 * na_req_writeback with the segments in `have` ACKed already; when
 * `sent_by_owner` (NA_ACK_OWNER_WB), the rest is awaited one timeout
 * before it is re-sent from `data`. @return 0 or -EINTR.
 */
int na_req_writeback_rest(struct dsm_thread *t, uint32_t seq, uint64_t tag,
			  const uint8_t *data, uint64_t have,
			  bool sent_by_owner);

/**
 * PIPE: write a block home inside event `seq` as its diff against `twin`
 * (na_req_diff.c); the whole block when there is no twin, PIPE is off, or
 * the diff is not smaller than the block. @return 0 or -EINTR.
 */
int na_req_writeback_diff(struct dsm_thread *t, uint32_t seq, uint64_t tag,
			  const uint8_t *data, const uint8_t *twin);

/*
 * A thread whose events all stay local leaves its switch rows (SCOREBOARD,
 * LAST-UNLOCK) behind: a seq 2^30 past the last of its parity that crossed
 * the switch takes the wire, long before those rows could read it as old.
 */
#define NA_HOME_LOCAL_WRAP (1u << 30)

/* Do access `mode` on entry `e` (locked, its state sufficient): a hit's
 * (na_access.c) and a miss's once installed (na_req_miss). */
static inline void
na_req_perform(struct na_centry *e, uint16_t id, enum na_mode mode,
	       uint32_t off, uint32_t len, void *buf)
{
	switch (mode) {
	case NA_M_READ:
		memcpy(buf, e->data + off, len);
		break;
	case NA_M_WRITE:
		memcpy(e->data + off, buf, len);
		break;
	case NA_M_PIN_R:
		e->pin_r |= 1ull << id;
		break;
	case NA_M_PIN_W:
		e->pin_w = (int16_t)id;
		break;
	case NA_M_RMW_THROUGH: {
		struct na_rmw *r = buf;

		r->wrote = r->fn(e->data + off, len, r->ctx);
		break;
	}
	}
}

/**
 * A miss (or a write to a clean block) on `e`, which the caller holds busy
 * in bucket `b`: the event, the install, its write-backs and its unlock.
 * @return 0, 1 (NACKed or spent: back off and look again; `e` stays busy
 * after a NACK in queued mode) or -EINTR.
 */
int na_req_miss(struct dsm_thread *t, struct na_cbucket *b, struct na_centry *e,
		uint64_t tag, uint8_t type, enum na_mode mode, uint32_t off,
		uint32_t len, void *buf, struct na_retry *rt);

/** Evict `e`, which the caller holds busy in `b`: the event, the write-back
 * of a Modified copy, the unlock. @return 0 or -EINTR. */
int na_req_evict(struct dsm_thread *t, struct na_cbucket *b,
		 struct na_centry *e);

/** Send the unlock of granted event `seq` (after the previous one's ACK)
 * and report the event's end to recovery, `how` (na_rec_end: NA_REC_DONE,
 * or NA_REC_LEFT for a grant that passes the lock on unused). */
void na_req_send_unlock(struct dsm_thread *t, uint8_t type, uint32_t seq,
			uint64_t tag, uint8_t gs, uint32_t cs,
			enum na_rec_end how);

/** Randomised exponential backoff after a NACK, serving the mailbox. */
void na_req_backoff(struct dsm_thread *t, unsigned attempt);

/** Handle whatever arrived while no event is in progress. */
void na_req_service(struct dsm_thread *t);

#endif /* NA_REQUESTER_H */
