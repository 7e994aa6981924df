/* SPDX-License-Identifier: BSD-3-Clause
 *
 * PIPE packing (docs/PIPE.md): diffs of many blocks travel as one stream of
 * records cut into frames of at most `mtu` bytes, sent under a credit
 * window. Pure functions, no allocation, no I/O.
 *
 * Record: tag u64, length u16 (big-endian), then `length` bytes of diff
 * (na_diff.h). The stream is the records back to back.
 *
 * Frames (na_pack_plan): PIPE cuts the stream every `mtu` bytes, so a
 * record that does not fit in what is left of a frame continues in the next
 * one, and a record larger than a frame spans several: ceil(total / mtu)
 * frames. ORIG (the baseline, one diff per buffer) starts every record in
 * a new frame. A frame is (stream offset, length); the receiver puts it
 * back at its offset (na_unpack), so loss, duplication and reordering are
 * harmless. The paper's pseudocode (section 4.3) sends the buffer when the
 * next diff does not fit and then moves on to the page after it: that
 * diff is never sent, and a diff larger than a buffer never is.
 *
 * Window (na_win): frame i may be sent once frame i - depth is acknowledged
 * (its buffer is reused only then): at most `depth` frames unacknowledged.
 */
#ifndef NA_PACK_H
#define NA_PACK_H

#include <stdbool.h>
#include <stdint.h>

#define NA_PACK_REC_HDR 10

struct na_frame {
	uint32_t off; /* in the stream */
	uint32_t len;
};

/**
 * Append a record to the stream `s` (capacity `cap`, `*at` bytes used).
 * @return 0, or -E2BIG when it does not fit (nothing written).
 */
int na_pack_put(uint8_t *s, uint32_t cap, uint32_t *at, uint64_t tag,
		const uint8_t *diff, uint16_t len);

/**
 * Cut a stream of `total` bytes whose records start at rec_off[0..nrec)
 * into frames of at most `mtu` bytes: packed (PIPE) or one record per
 * frame (ORIG). Writes at most `cap` frames to `out`.
 * @return the number of frames, or -EINVAL (mtu 0), -E2BIG (cap too small).
 */
int na_pack_plan(const uint32_t *rec_off, uint32_t nrec, uint32_t total,
		 uint32_t mtu, bool packed, struct na_frame *out, uint32_t cap);

/* ---- receiver ------------------------------------------------------------ */

#define NA_UNPACK_HOLES 64

struct na_unpack {
	uint8_t *buf; /* the stream being rebuilt (caller's, `cap` bytes) */
	uint32_t cap;
	uint32_t total;  /* stream length (from the frames' header) */
	uint32_t contig; /* bytes [0, contig) all received */
	uint32_t parsed; /* records before this offset were delivered */
	uint32_t n_ooo;  /* ranges received beyond contig */
	struct na_frame ooo[NA_UNPACK_HOLES];
};

/** Start rebuilding a stream of `total` bytes into buf. */
void na_unpack_init(struct na_unpack *u, uint8_t *buf, uint32_t cap,
		    uint32_t total);

/**
 * Put a received frame back. Duplicates are harmless.
 * @return 0, -EINVAL (outside the stream), -ENOSPC (too many ranges out of
 * order: drop it, it will be retransmitted).
 */
int na_unpack_feed(struct na_unpack *u, uint32_t off, const uint8_t *data,
		   uint32_t len);

/**
 * The next whole record of the received prefix, in stream order.
 * @return 1 with tag/diff/len set, 0 when none is complete yet, -EINVAL
 * when the stream is malformed.
 */
int na_unpack_next(struct na_unpack *u, uint64_t *tag, const uint8_t **diff,
		   uint16_t *len);

/** Every byte of the stream received and every record delivered? */
static inline bool
na_unpack_done(const struct na_unpack *u)
{
	return u->contig == u->total && u->parsed == u->total;
}

/* ---- sender's credit window ------------------------------------------------ */

struct na_win {
	uint8_t *acked; /* caller's, n bytes */
	uint32_t n;     /* frames */
	uint32_t depth; /* buffers */
	uint32_t base;  /* lowest unacknowledged frame */
	uint32_t next;  /* next frame never sent */
};

/** A window over n frames with `depth` (>= 1) buffers. */
void na_win_init(struct na_win *w, uint8_t *acked, uint32_t n, uint32_t depth);

/**
 * The next frame to send for the first time, if its buffer is free.
 * @return its index, or -1 (all sent, or wait for an ACK).
 */
int64_t na_win_take(struct na_win *w);

/** Frame i acknowledged. @return true if that is news. */
bool na_win_ack(struct na_win *w, uint32_t i);

static inline bool
na_win_done(const struct na_win *w)
{
	return w->base == w->n;
}

#endif /* NA_PACK_H */
