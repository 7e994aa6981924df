/* SPDX-License-Identifier: BSD-3-Clause
 *
 * PIPE packing: records, frame plans, reassembly and the credit window.
 * See na_pack.h.
 */
#include <errno.h>
#include <string.h>

#include "na_pack.h"

int
na_pack_put(uint8_t *s, uint32_t cap, uint32_t *at, uint64_t tag,
	    const uint8_t *diff, uint16_t len)
{
	uint8_t *p;

	if (*at > cap || cap - *at < (uint32_t)NA_PACK_REC_HDR + len)
		return -E2BIG;
	p = s + *at;
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(tag >> (56 - 8 * i));
	p[8] = (uint8_t)(len >> 8);
	p[9] = (uint8_t)len;
	memcpy(p + NA_PACK_REC_HDR, diff, len);
	*at += NA_PACK_REC_HDR + len;
	return 0;
}

/* Frames covering [from, to) in pieces of at most mtu. */
static int
cut(uint32_t from, uint32_t to, uint32_t mtu, struct na_frame *out,
    uint32_t cap, uint32_t *n)
{
	while (from < to) {
		uint32_t l = to - from < mtu ? to - from : mtu;

		if (*n >= cap)
			return -E2BIG;
		out[*n].off = from;
		out[*n].len = l;
		(*n)++;
		from += l;
	}
	return 0;
}

int
na_pack_plan(const uint32_t *rec_off, uint32_t nrec, uint32_t total,
	     uint32_t mtu, bool packed, struct na_frame *out, uint32_t cap)
{
	uint32_t n = 0;

	if (mtu == 0)
		return -EINVAL;
	if (packed) {
		if (cut(0, total, mtu, out, cap, &n) < 0)
			return -E2BIG;
		return (int)n;
	}
	for (uint32_t r = 0; r < nrec; r++) {
		uint32_t end = r + 1 < nrec ? rec_off[r + 1] : total;

		if (cut(rec_off[r], end, mtu, out, cap, &n) < 0)
			return -E2BIG;
	}
	return (int)n;
}

void
na_unpack_init(struct na_unpack *u, uint8_t *buf, uint32_t cap, uint32_t total)
{
	memset(u, 0, sizeof(*u));
	u->buf = buf;
	u->cap = cap;
	u->total = total;
}

/* Advance contig over the out-of-order ranges it now reaches. */
static void
merge(struct na_unpack *u)
{
	bool moved = true;

	while (moved) {
		moved = false;
		for (uint32_t i = 0; i < u->n_ooo; i++) {
			struct na_frame *f = &u->ooo[i];

			if (f->off > u->contig)
				continue;
			if (f->off + f->len > u->contig)
				u->contig = f->off + f->len;
			*f = u->ooo[--u->n_ooo];
			moved = true;
			break;
		}
	}
}

int
na_unpack_feed(struct na_unpack *u, uint32_t off, const uint8_t *data,
	       uint32_t len)
{
	if (len == 0 || off > u->total || u->total - off < len ||
	    u->total > u->cap)
		return -EINVAL;
	if (off + len <= u->contig)
		return 0; /* duplicate */
	if (off > u->contig) {
		for (uint32_t i = 0; i < u->n_ooo; i++)
			if (u->ooo[i].off == off && u->ooo[i].len >= len)
				return 0;
		if (u->n_ooo == NA_UNPACK_HOLES)
			return -ENOSPC;
		u->ooo[u->n_ooo].off = off;
		u->ooo[u->n_ooo].len = len;
		u->n_ooo++;
	}
	memcpy(u->buf + off, data, len);
	if (off <= u->contig && off + len > u->contig)
		u->contig = off + len;
	merge(u);
	return 0;
}

int
na_unpack_next(struct na_unpack *u, uint64_t *tag, const uint8_t **diff,
	       uint16_t *len)
{
	const uint8_t *p = u->buf + u->parsed;
	uint32_t have = u->contig - u->parsed, l;

	if (have < NA_PACK_REC_HDR) {
		if (u->contig == u->total && have)
			return -EINVAL;
		return 0;
	}
	l = (uint32_t)p[8] << 8 | p[9];
	if (u->parsed + NA_PACK_REC_HDR + l > u->total)
		return -EINVAL;
	if (have < NA_PACK_REC_HDR + l)
		return 0;
	*tag = 0;
	for (int i = 0; i < 8; i++)
		*tag = *tag << 8 | p[i];
	*diff = p + NA_PACK_REC_HDR;
	*len = (uint16_t)l;
	u->parsed += NA_PACK_REC_HDR + l;
	return 1;
}

void
na_win_init(struct na_win *w, uint8_t *acked, uint32_t n, uint32_t depth)
{
	w->acked = acked;
	w->n = n;
	w->depth = depth ? depth : 1;
	w->base = 0;
	w->next = 0;
	memset(acked, 0, n);
}

int64_t
na_win_take(struct na_win *w)
{
	if (w->next >= w->n || w->next >= w->base + w->depth)
		return -1;
	return w->next++;
}

bool
na_win_ack(struct na_win *w, uint32_t i)
{
	if (i >= w->next || w->acked[i])
		return false;
	w->acked[i] = 1;
	while (w->base < w->n && w->acked[w->base])
		w->base++;
	return true;
}
