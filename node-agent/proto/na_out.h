/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The agents' output list. An agent handler is a pure function of its state
 * and one input message; what it wants sent comes back as a list, which the
 * node runtime transmits (and the unit tests inspect). Payload pointers stay
 * valid until the caller releases the agents' mutex.
 */
#ifndef NA_OUT_H
#define NA_OUT_H

#include <stdint.h>
#include <string.h>

#include "lcf_wire.h"
#include "na_seg.h"

/* 31 forwards, or the segments of the largest block plus its ACK. */
#define NA_OUT_MAX 96

struct na_out_msg {
	uint16_t dst;
	struct lcf_msg msg;
	const void *payload;
};

struct na_out {
	uint32_t n;
	uint32_t overflow; /* messages that did not fit (a bug if > 0) */
	struct na_out_msg m[NA_OUT_MAX];
};

/** The header of a reply to `m`: same requester, event and block, sent
 * back to the requester's node, of type `type`; the rest zero. */
static inline void
na_reply_hdr(const struct lcf_msg *m, struct lcf_msg *r, uint8_t type)
{
	memset(r, 0, sizeof(*r));
	r->version = LCF_VERSION;
	r->type = type;
	r->node = m->node;
	r->thread = m->thread;
	r->seq = m->seq;
	r->tag = m->tag;
	r->dst_node = m->node;
}

static inline void
na_out_reset(struct na_out *o)
{
	o->n = 0;
	o->overflow = 0;
}

static inline void
na_out_push(struct na_out *o, uint16_t dst, const struct lcf_msg *msg,
	    const void *payload)
{
	if (o->n >= NA_OUT_MAX) {
		o->overflow++;
		return;
	}
	o->m[o->n].dst = dst;
	o->m[o->n].msg = *msg;
	o->m[o->n].msg.version = LCF_VERSION;
	o->m[o->n].payload = payload;
	o->n++;
}

/**
 * Push a block as segments of type `type` (NA_DATA or NA_WB): each copy of
 * `tmpl` gets its segment's offset in aux and length in len.
 */
static inline void
na_out_segments(struct na_out *o, uint16_t dst, const struct lcf_msg *tmpl,
		uint8_t type, const uint8_t *data, uint32_t size)
{
	struct lcf_msg m = *tmpl;

	m.type = type;
	m.flags = 0;
	for (uint32_t i = 0; i < na_seg_count(size); i++) {
		uint32_t off;
		uint16_t len;

		na_seg_span(size, i, &off, &len);
		m.aux = off;
		m.len = len;
		na_out_push(o, dst, &m, data + off);
	}
}

#endif /* NA_OUT_H */
