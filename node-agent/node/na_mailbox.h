/* SPDX-License-Identifier: BSD-3-Clause
 *
 * A requester thread's mailbox: a bounded FIFO of received messages with a
 * mutex and a condition variable on CLOCK_MONOTONIC. The dispatch thread
 * pushes (na_node.c routes by the message's thread field), the requester
 * thread waits. A full mailbox drops: the requester's timers recover.
 */
#ifndef NA_MAILBOX_H
#define NA_MAILBOX_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "lcf_wire.h"
#include "na_msg.h"
#include "na_wait.h"

#define NA_MBOX_CAP 512

struct na_mail {
	struct lcf_msg m;
	uint8_t payload[NA_MAX_FRAME_PAYLOAD];
};

/*
 * An unlock that waits for its write-back's NA_WB_ACKs (the reader of a
 * Modified block, lib/model/lcf.pml): armed by the requester thread, sent
 * by whoever sees the last ACK first -- the dispatch thread, so that a
 * requester busy elsewhere (or asleep) does not keep the block locked.
 */
struct na_mbox_wbu {
	bool armed;
	bool sent;
	uint64_t need, have; /* segments */
	uint64_t sent_ns;
	struct lcf_msg unl;
};

struct na_mailbox {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint32_t head, tail;
	struct na_mail *q; /* NA_MBOX_CAP */
	struct na_mbox_wbu wbu;
};

/** @return 0 or -ENOMEM. */
int na_mbox_init(struct na_mailbox *mb);
void na_mbox_fini(struct na_mailbox *mb);

/** Queue a copy of `m` and its payload. @return false when full. */
bool na_mbox_push(struct na_mailbox *mb, const struct lcf_msg *m,
		  const void *payload);

/**
 * Wait for the next message until the CLOCK_MONOTONIC time `deadline_ns`.
 * @return 0 with `out` set, or -ETIMEDOUT.
 */
int na_mbox_wait(struct na_mailbox *mb, struct na_mail *out,
		 uint64_t deadline_ns);

/** Arm the write-back's unlock `unl` (seq, tag: the write-back's) with
 * `need` the bitmap of its segments (na_seg_all). */
void na_mbox_wbu_arm(struct na_mailbox *mb, const struct lcf_msg *unl,
		     uint64_t need);

/**
 * An NA_WB_ACK `ack` (its segment's bit `bit`) arrived at `now`: the
 * armed unlock's? @return true when it was the last one: send `*unl` now
 * (it is marked sent; only one caller gets true).
 */
bool na_mbox_wbu_ack(struct na_mailbox *mb, const struct lcf_msg *ack,
		     uint64_t bit, uint64_t now, struct lcf_msg *unl);

/**
 * Has the armed unlock been sent? Then disarm it and set *sent_ns.
 * @return true (sent, disarmed) or false (still waiting, or not armed).
 */
bool na_mbox_wbu_sent(struct na_mailbox *mb, uint64_t *sent_ns);

/** Forget the armed unlock (the requester gives it up). */
void na_mbox_wbu_disarm(struct na_mailbox *mb);

#endif /* NA_MAILBOX_H */
