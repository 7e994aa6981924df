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

#include "dsm.h"
#include "na_node.h"
#include "na_proto.h"

/* RTT estimate: EWMA (1/8) of event round trips, with a floor. */
#define NA_RTT_INIT_NS 1000000ull       /* before the first sample: 1 ms */
/*
 * 500 us: on a host whose cores are oversubscribed (CI, network namespaces)
 * scheduling delays dwarf the network RTT, and a spurious retransmission is
 * what opens the stale-grant window described at struct na_stale.
 */
#define NA_RTT_FLOOR_NS 500000ull
#define NA_REQ_TIMEOUT_RTTS 6           /* section 5.3.1 */
#define NA_UNLOCK_TIMEOUT_RTTS 3
#define NA_GIVE_UP_NS 2000000000ull     /* after dsm_stop(): 2 s */

/* Access modes of one block. */
enum na_mode {
	NA_M_READ,
	NA_M_WRITE,
	NA_M_PIN_R,     /* dsm_rlock */
	NA_M_PIN_W,     /* dsm_wlock */
};

struct na_unlock_pending {
	bool valid;
	bool retx;
	struct lcf_msg m;
	uint64_t sent_ns;
	uint64_t deadline_ns;
	uint32_t tries;
};

/*
 * A request we gave up on after a NACK although we had retransmitted it: a
 * retransmitted copy may still reach the switch (or home) later, find the
 * lock free and take it for a seq we abandoned. Its replies then arrive
 * with that seq; we collect them as for a real event and release the lock
 * with an unlock that leaves the metadata true (see settle_stale()).
 */
struct na_stale {
	bool valid;
	uint8_t type;
	uint32_t seq;
	uint64_t tag;
	struct na_collect c;
	uint8_t *buf;
};

struct dsm_thread {
	struct dsm *d;
	struct na_node *n;
	uint16_t id;
	uint32_t seq;           /* last sequence number used */
	uint64_t rtt_ns;
	uint32_t rng;
	struct na_unlock_pending unl;
	uint8_t *buf;           /* incoming block data */
	struct na_mail mail;
	struct na_stale stale;
	uint32_t last_unlock_seq;       /* seq of the last unlock sent */
	bool any_unlock;
};

struct dsm {
	struct na_node node;
	struct topo topo;
	struct dsm_thread *threads;
	volatile int stopping;
	void *alloc;            /* struct na_alloc (na_alloc.c) */
};

int na_req_init(struct dsm_thread *t, struct dsm *d, uint16_t id);
void na_req_fini(struct dsm_thread *t);

/**
 * Access `len` bytes at `off` of block `tag` in `mode` (copy out for READ,
 * in for WRITE; buf unused for pins). @return 0 or -EINTR.
 */
int na_req_access(struct dsm_thread *t, uint64_t tag, uint32_t off,
		  uint32_t len, void *buf, enum na_mode mode);

/** Release this thread's pin on `tag`. @return 0 or -ENOENT. */
int na_req_unpin(struct dsm_thread *t, uint64_t tag);

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

#endif /* NA_REQUESTER_H */
