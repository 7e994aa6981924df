/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Requester mailboxes; see na_mailbox.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
		if (m->len)
			memcpy(x->payload, payload, m->len);
		na_cond_signal(&mb->cv);
	}
	pthread_mutex_unlock(&mb->mu);
	return ok;
}

int
na_mbox_wait(struct na_mailbox *mb, struct na_mail *out, uint64_t deadline_ns)
{
	int rc = 0;

	pthread_mutex_lock(&mb->mu);
	while (mb->head == mb->tail && rc == 0)
		rc = na_cond_wait_until(&mb->cv, &mb->mu, deadline_ns);
	if (mb->head != mb->tail) {
		struct na_mail *x = &mb->q[mb->head++ % NA_MBOX_CAP];

		out->m = x->m;
		if (x->m.len)
			memcpy(out->payload, x->payload, x->m.len);
		rc = 0;
	} else {
		rc = -ETIMEDOUT;
	}
	pthread_mutex_unlock(&mb->mu);
	return rc;
}

/* ---- an unlock behind its write-back (struct na_mbox_wbu) ---------------- */

void
na_mbox_wbu_arm(struct na_mailbox *mb, const struct lcf_msg *unl, uint64_t need)
{
	pthread_mutex_lock(&mb->mu);
	memset(&mb->wbu, 0, sizeof(mb->wbu));
	mb->wbu.armed = true;
	mb->wbu.need = need;
	mb->wbu.unl = *unl;
	pthread_mutex_unlock(&mb->mu);
}

bool
na_mbox_wbu_ack(struct na_mailbox *mb, const struct lcf_msg *ack, uint64_t bit,
		uint64_t now, struct lcf_msg *unl)
{
	struct na_mbox_wbu *w = &mb->wbu;
	bool send = false;

	pthread_mutex_lock(&mb->mu);
	if (w->armed && !w->sent && ack->seq == w->unl.seq &&
	    ack->tag == w->unl.tag && ack->node == w->unl.node &&
	    ack->thread == w->unl.thread) {
		w->have |= bit & w->need;
		if (w->have == w->need) {
			w->sent = true;
			w->sent_ns = now;
			*unl = w->unl;
			send = true;
		}
	}
	pthread_mutex_unlock(&mb->mu);
	return send;
}

bool
na_mbox_wbu_sent(struct na_mailbox *mb, uint64_t *sent_ns)
{
	bool sent;

	pthread_mutex_lock(&mb->mu);
	sent = mb->wbu.armed && mb->wbu.sent;
	if (sent) {
		*sent_ns = mb->wbu.sent_ns;
		mb->wbu.armed = false;
	}
	pthread_mutex_unlock(&mb->mu);
	return sent;
}

void
na_mbox_wbu_disarm(struct na_mailbox *mb)
{
	pthread_mutex_lock(&mb->mu);
	mb->wbu.armed = false;
	pthread_mutex_unlock(&mb->mu);
}
