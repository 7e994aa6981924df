/* SPDX-License-Identifier: BSD-3-Clause
 *
 * A requester thread's mailbox: a bounded FIFO of received messages with a
 * mutex and a condition variable on CLOCK_MONOTONIC. The dispatch thread
 * pushes (na_node.c routes by the message's thread field), the requester
 * thread waits. A full mailbox drops: the requester's timers recover.
 */
#ifndef NA_MAILBOX_H
#define NA_MAILBOX_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "lcf_wire.h"
#include "na_msg.h"
#include "na_wait.h"

#define NA_MBOX_CAP 512

struct na_mail {
	struct lcf_msg m;
	uint64_t at_ns; /* when it reached the mailbox (RTT samples) */
	uint8_t payload[NA_MAX_FRAME_PAYLOAD];
};

struct na_mailbox {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint32_t head, tail;
	struct na_mail *q; /* NA_MBOX_CAP */
};

/** @return 0 or -ENOMEM. */
int na_mbox_init(struct na_mailbox *mb);
void na_mbox_fini(struct na_mailbox *mb);

/** Queue a copy of `m` and its payload. @return false when full. */
bool na_mbox_push(struct na_mailbox *mb, const struct lcf_msg *m,
		  const void *payload);

/**
 * Wait for the next message until the CLOCK_MONOTONIC time `deadline_ns`
 * (inline: the requester's wait for each reply frame, in its own file).
 * @return 0 with `out` set, or -ETIMEDOUT.
 */
static inline int
na_mbox_wait(struct na_mailbox *mb, struct na_mail *out, uint64_t deadline_ns)
{
	int rc = 0;

	pthread_mutex_lock(&mb->mu);
	while (mb->head == mb->tail && rc == 0)
		rc = na_cond_wait_until(&mb->cv, &mb->mu, deadline_ns);
	if (mb->head != mb->tail) {
		struct na_mail *x = &mb->q[mb->head++ % NA_MBOX_CAP];

		out->m = x->m;
		out->at_ns = x->at_ns;
		if (x->m.len)
			memcpy(out->payload, x->payload, x->m.len);
		rc = 0;
	} else {
		rc = -ETIMEDOUT;
	}
	pthread_mutex_unlock(&mb->mu);
	return rc;
}

#endif /* NA_MAILBOX_H */
