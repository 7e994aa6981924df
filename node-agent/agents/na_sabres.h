/* SPDX-License-Identifier: BSD-3-Clause
 *
 * SABRes at the home (paper 001, "LightSABRes"; docs/SABRES.md): atomic
 * reads of multi-block objects served from the home's memory like a
 * one-sided read, with the home's Active Transfers Table (ATT) watching the
 * memory writes that land while a read is in flight.
 *
 * An object is `len` bytes of one home's memory whose first 8 bytes are a
 * version (little-endian uint64): odd while a writer is in the middle of
 * an update, bumped once before and once after (dsm_write_object).
 *
 * The requester sends a SABRE_REG and one SABRE_READ per chunk of
 * NA_SAB_CHUNK bytes, all at once. Each SABRE_READ is answered by exactly
 * one SABRE_DATA (the chunk, or FAIL without payload once the read has
 * aborted) and the SABRE_REG by exactly one SABRE_VALID (success or
 * failure), sent once every chunk has been served or the read has aborted:
 * replies never outnumber requests. The abort rules are the paper's:
 *  - a write to a chunk already read, while chunk 0 (the version) has not
 *    been read yet (the window of vulnerability), aborts;
 *  - an odd version aborts;
 *  - a write to chunk 0 after it was read marks the base invalidated, and
 *    the version is read again at the end: a different version aborts
 *    (an identical one was a write-back of unchanged data).
 * RREAD is the plain one-sided read (no ATT entry, no validation): the
 * baseline's transport.
 *
 * Pure: no sockets, no locks, no clocks; the home agent calls it under the
 * agents' mutex. It takes no coherence lock and changes no coherence state.
 */
#ifndef NA_SABRES_H
#define NA_SABRES_H

#include <stdbool.h>
#include <stdint.h>

#include "na_out.h"

#define NA_SAB_CHUNK      1024u /* bytes per SABRE_READ / SABRE_DATA */
#define NA_SAB_MAX_CHUNKS 64u   /* a bitmap in a uint64_t */
#define NA_SAB_MAX_LEN    (NA_SAB_CHUNK * NA_SAB_MAX_CHUNKS)
#define NA_SAB_HDR        8u     /* the version word at offset 0 */
#define NA_SAB_ATT        64u    /* concurrent SABRes per home */
#define NA_SAB_REQ_LEN    12u    /* request payload: addr (8), len (4), BE */
#define NA_SAB_IDLE_AGE   65536u /* messages before an idle entry is reused */

/* Why a SABRe failed (top byte of aux in SABRE_DATA/SABRE_VALID). */
enum na_sab_reason {
	NA_SAB_OK = 0,
	NA_SAB_WRITTEN = 1, /* a read chunk was written in the window */
	NA_SAB_ODD = 2,     /* the version was odd: a writer is active */
	NA_SAB_CHANGED = 3, /* the version changed before the end */
	NA_SAB_FULL = 4,    /* no free ATT entry */
	NA_SAB_BAD = 5,     /* malformed request */
};

struct na_sab_entry {
	bool used;
	bool done; /* SABRE_VALID sent: the entry may be reused */
	bool reg;  /* SABRE_REG received */
	bool base_inval;
	uint8_t reason; /* enum na_sab_reason */
	uint8_t nchunks;
	uint16_t node, thread;
	uint32_t seq;
	uint32_t len;
	uint64_t off;     /* the object's offset in this home's memory */
	uint64_t asked;   /* chunks requested (bit i = chunk i) */
	uint64_t read;    /* chunks read from memory and sent */
	uint64_t version; /* read with chunk 0 */
	uint64_t touched; /* na_sabres.clock at its last message */
	uint8_t vbuf[8];  /* SABRE_VALID's payload (big-endian version) */
};

#define NA_SAB_HOME_COUNTERS(X) \
	X(registrations)        \
	X(chunk_requests)       \
	X(data_sent)            \
	X(data_refused)         \
	X(validations_ok)       \
	X(validations_fail)     \
	X(abort_written)        \
	X(abort_odd)            \
	X(abort_changed)        \
	X(base_invalidations)   \
	X(att_full)             \
	X(plain_reads)          \
	X(duplicates)           \
	X(stale)                \
	X(bad)

struct na_sab_home_stats {
#define NA_X_FIELD(name) uint64_t name;
	NA_SAB_HOME_COUNTERS(NA_X_FIELD)
#undef NA_X_FIELD
};

struct na_sabres {
	struct na_sab_entry att[NA_SAB_ATT];
	uint64_t clock; /* messages handled */
	struct na_sab_home_stats st;
};

/** An empty ATT. */
void na_sabres_init(struct na_sabres *s);

/**
 * Handle a SABRE_REG, SABRE_READ or RREAD addressed to home `self`, whose
 * memory is `mem` (`mem_size` bytes); replies go into `out` (their
 * payloads point into `mem` or the ATT, valid until the caller's next
 * call). Malformed requests are counted and answered with FAIL.
 */
void na_sabres_handle(struct na_sabres *s, const uint8_t *mem,
		      uint64_t mem_size, uint16_t self, const struct lcf_msg *m,
		      const void *payload, uint16_t len, struct na_out *out);

/**
 * `len` bytes of memory at `off` are about to be (or were just) written:
 * the snoop of every memory write of the home (write-backs, recovery).
 */
void na_sabres_note_write(struct na_sabres *s, uint64_t off, uint64_t len);

/** The version word at `p` (little-endian). */
static inline uint64_t
na_sab_version(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/** Chunks of an object of `len` bytes. */
static inline uint32_t
na_sab_chunks(uint32_t len)
{
	return (len + NA_SAB_CHUNK - 1) / NA_SAB_CHUNK;
}

#endif /* NA_SABRES_H */
