/* SPDX-License-Identifier: BSD-3-Clause
 *
 * SABRe landing zones; see na_sabre_rx.h.
 */
#include <errno.h>
#include <string.h>

#include "na_clock.h"
#include "na_msg.h"
#include "na_sabre_rx.h"
#include "na_sabres.h"
#include "na_wait.h"

int
na_sabre_rx_init(struct na_sabre_rx *r)
{
	pthread_condattr_t ca;

	memset(r, 0, sizeof(*r));
	pthread_mutex_init(&r->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&r->cv, &ca);
	pthread_condattr_destroy(&ca);
	return 0;
}

void
na_sabre_rx_fini(struct na_sabre_rx *r)
{
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->cv);
}

void
na_sabre_rx_arm(struct na_sabre_rx *r, uint32_t seq, void *buf, uint32_t len,
		bool plain)
{
	pthread_mutex_lock(&r->mu);
	r->armed = true;
	r->plain = plain;
	r->seq = seq;
	r->buf = buf;
	r->len = len;
	r->nchunks = na_sab_chunks(len);
	r->got = 0;
	r->reason = 0;
	r->valid = false;
	r->vcount = 0;
	r->version = 0;
	pthread_mutex_unlock(&r->mu);
}

void
na_sabre_rx_disarm(struct na_sabre_rx *r)
{
	pthread_mutex_lock(&r->mu);
	r->armed = false;
	r->buf = NULL;
	pthread_mutex_unlock(&r->mu);
}

static uint64_t
all_chunks(uint32_t n)
{
	return n >= 64 ? ~0ull : (1ull << n) - 1;
}

static bool
complete(const struct na_sabre_rx *r)
{
	return r->reason ||
	       (r->got == all_chunks(r->nchunks) && (r->plain || r->valid));
}

void
na_sabre_rx_deliver(struct na_sabre_rx *r, const struct lcf_msg *m,
		    const void *payload)
{
	pthread_mutex_lock(&r->mu);
	if (!r->armed || m->seq != r->seq) {
		r->stray++;
		pthread_mutex_unlock(&r->mu);
		return;
	}
	if (m->type == NA_MSG_SABRE_DATA) {
		uint32_t c = m->aux & 0xffff, at = c * NA_SAB_CHUNK;
		uint32_t want = r->len - at < NA_SAB_CHUNK ? r->len - at
							   : NA_SAB_CHUNK;

		if (m->flags & LCF_F_FAIL) {
			if (!r->reason)
				r->reason = (uint8_t)(m->aux >> 24);
			if (!r->reason)
				r->reason = NA_SAB_BAD;
		} else if (c < r->nchunks && m->len == want &&
			   !(r->got & (1ull << c))) {
			memcpy(r->buf + at, payload, want); /* zero-copy */
			r->got |= 1ull << c;
		} else {
			r->stray++;
		}
	} else if (m->type == NA_MSG_SABRE_VALID && !r->plain && !r->valid) {
		const uint8_t *p = payload;

		r->valid = true;
		r->vcount = m->aux & 0xffff;
		if (m->len == 8 && p)
			for (int i = 0; i < 8; i++)
				r->version = r->version << 8 | p[i];
		if (m->flags & LCF_F_FAIL)
			r->reason = (uint8_t)(m->aux >> 24);
		if ((m->flags & LCF_F_FAIL) && !r->reason)
			r->reason = NA_SAB_BAD;
		/* Chunks served by an entry the home lost are unvalidated. */
		if (!r->reason && r->vcount != r->nchunks)
			r->reason = NA_SAB_BAD;
	}
	if (complete(r))
		na_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
}

int
na_sabre_rx_wait(struct na_sabre_rx *r, uint64_t deadline)
{
	int rc;

	pthread_mutex_lock(&r->mu);
	while (!complete(r) && na_now_ns() < deadline)
		na_cond_wait_until(&r->cv, &r->mu, deadline);
	if (r->reason)
		rc = r->reason;
	else if (complete(r))
		rc = 0;
	else
		rc = -ETIMEDOUT;
	pthread_mutex_unlock(&r->mu);
	return rc;
}
