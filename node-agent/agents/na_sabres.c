/* SPDX-License-Identifier: BSD-3-Clause
 *
 * SABRes at the home: the Active Transfers Table (na_sabres.h,
 * docs/SABRES.md, docs/PROTOCOL-NODES.md "SABRes").
 */
#include <string.h>

#include "na_msg.h"
#include "na_sabres.h"

void
na_sabres_init(struct na_sabres *s)
{
	memset(s, 0, sizeof(*s));
}

static uint64_t
all_chunks(uint32_t n)
{
	return n >= 64 ? ~0ull : (1ull << n) - 1;
}

/* The one SABRE_DATA a chunk request gets: the chunk, or FAIL. */
static void
send_chunk(const struct lcf_msg *m, uint32_t chunk, const uint8_t *data,
	   uint32_t len, uint8_t reason, struct na_out *out)
{
	struct lcf_msg r;

	na_reply_hdr(m, &r, NA_MSG_SABRE_DATA);
	r.aux = (uint32_t)reason << 24 | chunk;
	if (reason) {
		r.flags = LCF_F_FAIL;
	} else {
		r.len = (uint16_t)len;
	}
	na_out_push(out, m->node, &r, reason ? NULL : data);
}

/* Decode a request; @return false if it does not fit this home. */
static bool
decode(const struct lcf_msg *m, const void *payload, uint16_t len,
       uint16_t self, uint64_t mem_size, uint64_t *off, uint32_t *olen)
{
	const uint8_t *p = payload;
	uint64_t addr = 0;
	uint32_t l = 0;

	if (len != NA_SAB_REQ_LEN || !p)
		return false;
	for (int i = 0; i < 8; i++)
		addr = addr << 8 | p[i];
	for (int i = 8; i < 12; i++)
		l = l << 8 | p[i];
	*off = addr & ((1ull << 48) - 1);
	*olen = l;
	if ((addr >> 48) != self || l == 0 || l > NA_SAB_MAX_LEN ||
	    *off + l > mem_size)
		return false;
	if (m->type != NA_MSG_RREAD && l < NA_SAB_HDR)
		return false;
	return m->type == NA_MSG_SABRE_REG || m->aux < na_sab_chunks(l);
}

static void
set_reason(struct na_sabres *s, struct na_sab_entry *e, uint8_t reason)
{
	if (e->reason)
		return;
	e->reason = reason;
	if (reason == NA_SAB_WRITTEN)
		s->st.abort_written++;
	else if (reason == NA_SAB_ODD)
		s->st.abort_odd++;
	else if (reason == NA_SAB_CHANGED)
		s->st.abort_changed++;
}

/* Send the SABRE_VALID once the outcome is known (REG seen). */
static void
maybe_finish(struct na_sabres *s, struct na_sab_entry *e, const uint8_t *mem,
	     const struct lcf_msg *m, struct na_out *out)
{
	struct lcf_msg r;

	if (e->done || !e->reg ||
	    (!e->reason && e->read != all_chunks(e->nchunks)))
		return;
	/* The Validate stage: only when the base block was written. */
	if (!e->reason && e->base_inval &&
	    na_sab_version(mem + e->off) != e->version)
		set_reason(s, e, NA_SAB_CHANGED);
	na_reply_hdr(m, &r, NA_MSG_SABRE_VALID);
	r.aux = (uint32_t)e->reason << 24 |
		(uint32_t)__builtin_popcountll(e->read);
	if (e->reason)
		r.flags = LCF_F_FAIL;
	for (int i = 0; i < 8; i++)
		e->vbuf[i] = (uint8_t)(e->version >> (56 - 8 * i));
	r.len = 8;
	na_out_push(out, m->node, &r, e->vbuf);
	e->done = true;
	if (e->reason)
		s->st.validations_fail++;
	else
		s->st.validations_ok++;
}

/*
 * The entry of requester m->node/m->thread for SABRe m->seq: its own (a
 * newer seq restarts it), a free one, or one idle for NA_SAB_IDLE_AGE
 * messages. NULL: stale (older seq) or table full (*full set).
 */
static struct na_sab_entry *
lookup(struct na_sabres *s, const struct lcf_msg *m, uint64_t off, uint32_t len,
       bool *full)
{
	struct na_sab_entry *e = NULL, *free_e = NULL, *old = NULL;

	*full = false;
	for (uint32_t i = 0; i < NA_SAB_ATT; i++) {
		struct na_sab_entry *x = &s->att[i];

		if (x->used && x->node == m->node && x->thread == m->thread) {
			e = x;
			break;
		}
		if (!free_e && (!x->used || x->done))
			free_e = x;
		if (x->used && (!old || x->touched < old->touched))
			old = x;
	}
	if (e) {
		int32_t d = (int32_t)(m->seq - e->seq);

		if (d < 0) {
			s->st.stale++;
			return NULL;
		}
		if (d == 0)
			return e;
	} else if (free_e) {
		e = free_e;
	} else if (old && s->clock - old->touched >= NA_SAB_IDLE_AGE) {
		e = old;
	} else {
		*full = true;
		s->st.att_full++;
		return NULL;
	}
	memset(e, 0, sizeof(*e));
	e->used = true;
	e->node = m->node;
	e->thread = m->thread;
	e->seq = m->seq;
	e->off = off;
	e->len = len;
	e->nchunks = (uint8_t)na_sab_chunks(len);
	return e;
}

/* Serve chunk `c` of `e` from memory (the window closes with chunk 0). */
static void
serve(struct na_sabres *s, struct na_sab_entry *e, const uint8_t *mem,
      const struct lcf_msg *m, uint32_t c, struct na_out *out)
{
	uint32_t at = c * NA_SAB_CHUNK;
	uint32_t n = e->len - at < NA_SAB_CHUNK ? e->len - at : NA_SAB_CHUNK;

	if (!e->reason && c == 0) {
		e->version = na_sab_version(mem + e->off);
		if (e->version & 1)
			set_reason(s, e, NA_SAB_ODD);
	}
	if (e->reason) {
		s->st.data_refused++;
		send_chunk(m, c, NULL, 0, e->reason, out);
		return;
	}
	e->read |= 1ull << c;
	s->st.data_sent++;
	send_chunk(m, c, mem + e->off + at, n, 0, out);
}

void
na_sabres_handle(struct na_sabres *s, const uint8_t *mem, uint64_t mem_size,
		 uint16_t self, const struct lcf_msg *m, const void *payload,
		 uint16_t len, struct na_out *out)
{
	struct na_sab_entry *e;
	uint64_t off;
	uint32_t olen;
	bool full;

	s->clock++;
	if (!decode(m, payload, len, self, mem_size, &off, &olen)) {
		struct lcf_msg r;

		s->st.bad++;
		if (m->type != NA_MSG_SABRE_REG) {
			send_chunk(m, m->aux & 0xffff, NULL, 0, NA_SAB_BAD,
				   out);
			return;
		}
		na_reply_hdr(m, &r, NA_MSG_SABRE_VALID);
		r.flags = LCF_F_FAIL;
		r.aux = (uint32_t)NA_SAB_BAD << 24;
		na_out_push(out, m->node, &r, NULL);
		return;
	}
	if (m->type == NA_MSG_RREAD) {
		uint32_t at = m->aux * NA_SAB_CHUNK;

		s->st.plain_reads++;
		send_chunk(m, m->aux, mem + off + at,
			   olen - at < NA_SAB_CHUNK ? olen - at : NA_SAB_CHUNK,
			   0, out);
		return;
	}
	e = lookup(s, m, off, olen, &full);
	if (!e) {
		if (!full)
			return; /* stale: its SABRe was given up */
		if (m->type == NA_MSG_SABRE_READ) {
			send_chunk(m, m->aux, NULL, 0, NA_SAB_FULL, out);
		} else {
			struct lcf_msg r;

			na_reply_hdr(m, &r, NA_MSG_SABRE_VALID);
			r.flags = LCF_F_FAIL;
			r.aux = (uint32_t)NA_SAB_FULL << 24;
			na_out_push(out, m->node, &r, NULL);
		}
		return;
	}
	if (e->off != off || e->len != olen) {
		s->st.bad++; /* the same SABRe id for another object */
		return;
	}
	e->touched = s->clock;
	if (m->type == NA_MSG_SABRE_REG) {
		if (e->reg) {
			s->st.duplicates++;
			return;
		}
		e->reg = true;
		s->st.registrations++;
	} else {
		if (e->asked & (1ull << m->aux)) {
			s->st.duplicates++;
			return;
		}
		e->asked |= 1ull << m->aux;
		s->st.chunk_requests++;
		serve(s, e, mem, m, m->aux, out);
	}
	maybe_finish(s, e, mem, m, out);
}

void
na_sabres_note_write(struct na_sabres *s, uint64_t off, uint64_t len)
{
	for (uint32_t i = 0; i < NA_SAB_ATT; i++) {
		struct na_sab_entry *e = &s->att[i];
		uint64_t lo, hi, mask, hit;
		uint32_t c0, c1;

		if (!e->used || e->done || e->reason || !e->read)
			continue;
		lo = off > e->off ? off : e->off;
		hi = off + len < e->off + e->len ? off + len : e->off + e->len;
		if (lo >= hi)
			continue;
		c0 = (uint32_t)((lo - e->off) / NA_SAB_CHUNK);
		c1 = (uint32_t)((hi - 1 - e->off) / NA_SAB_CHUNK);
		mask = all_chunks(c1 + 1) & ~all_chunks(c0);
		hit = mask & e->read;
		if (!hit)
			continue;
		if (hit & 1) {
			/* Maybe only a write-back of the unchanged version. */
			e->base_inval = true;
			s->st.base_invalidations++;
		}
		if ((hit & ~1ull) && !(e->read & 1))
			set_reason(s, e, NA_SAB_WRITTEN);
	}
}
