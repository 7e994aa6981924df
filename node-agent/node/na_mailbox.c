/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Requester mailboxes; see na_mailbox.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "na_clock.h"
#include "na_mailbox.h"

int
na_mbox_init(struct na_mailbox *mb)
{
	pthread_condattr_t ca;

	pthread_mutex_init(&mb->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&mb->cv, &ca);
	pthread_condattr_destroy(&ca);
	mb->head = mb->tail = 0;
	mb->q = malloc(sizeof(*mb->q) * NA_MBOX_CAP);
	return mb->q ? 0 : -ENOMEM;
}

void
na_mbox_fini(struct na_mailbox *mb)
{
	pthread_mutex_destroy(&mb->mu);
	pthread_cond_destroy(&mb->cv);
	free(mb->q);
}

bool
na_mbox_push(struct na_mailbox *mb, const struct lcf_msg *m,
	     const void *payload)
{
	bool ok = true;

	pthread_mutex_lock(&mb->mu);
	if (mb->tail - mb->head >= NA_MBOX_CAP) {
		ok = false;
	} else {
		struct na_mail *x = &mb->q[mb->tail++ % NA_MBOX_CAP];

		x->m = *m;
		x->at_ns = na_now_ns();
		if (m->len)
			memcpy(x->payload, payload, m->len);
		na_cond_signal(&mb->cv);
	}
	pthread_mutex_unlock(&mb->mu);
	return ok;
}
