/* SPDX-License-Identifier: BSD-3-Clause
 *
 * A requester thread's SABRe landing zone (docs/SABRES.md): while a
 * thread's object read is in flight, the dispatch thread copies each
 * SABRE_DATA chunk straight into the caller's buffer (zero-copy: no
 * mailbox, no intermediate buffer) and records the SABRE_VALID; the
 * requester thread waits here for the outcome. Messages of another seq
 * (an abandoned attempt) are dropped.
 */
#ifndef NA_SABRE_RX_H
#define NA_SABRE_RX_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "lcf_wire.h"

struct na_sabre_rx {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool armed;
	bool plain; /* RREAD: no SABRE_VALID expected */
	uint32_t seq;
	uint8_t *buf;
	uint32_t len;
	uint32_t nchunks;
	uint64_t got;    /* chunks landed */
	uint8_t reason;  /* first failure (enum na_sab_reason), 0: none */
	bool valid;      /* SABRE_VALID received */
	uint32_t vcount; /* chunks the home served under its watch */
	uint64_t version;
	uint64_t stray; /* messages for no armed read */
};

/** @return 0 (never fails: condition variable on CLOCK_MONOTONIC). */
int na_sabre_rx_init(struct na_sabre_rx *r);
void na_sabre_rx_fini(struct na_sabre_rx *r);

/** Expect the replies of read `seq` of `len` bytes into `buf`. */
void na_sabre_rx_arm(struct na_sabre_rx *r, uint32_t seq, void *buf,
		     uint32_t len, bool plain);

/** Stop accepting replies (after the outcome, before `buf` is reused). */
void na_sabre_rx_disarm(struct na_sabre_rx *r);

/** A SABRE_DATA or SABRE_VALID for this thread (dispatch thread). */
void na_sabre_rx_deliver(struct na_sabre_rx *r, const struct lcf_msg *m,
			 const void *payload);

/**
 * Wait until the armed read is complete (every chunk, and the validation
 * unless plain) or has failed, or until the na_now_ns() time `deadline`.
 * @return 0 success; a positive enum na_sab_reason on failure (NA_SAB_BAD
 * also when the validation counts fewer chunks than the object has); or
 * -ETIMEDOUT.
 */
int na_sabre_rx_wait(struct na_sabre_rx *r, uint64_t deadline);

#endif /* NA_SABRE_RX_H */
