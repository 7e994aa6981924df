/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The home agent's side of PIPE diff write-backs (docs/PIPE.md): NA_DIFF
 * frames carry a stream of records (na_pack.h), here one record, the
 * block's diff against its twin (na_diff.h). The frames of one event are
 * rebuilt per requester; the diff is applied once, when the stream is
 * whole, before the ACK of the frame that completed it, so a requester
 * holding every ACK knows the home's copy is written. Later copies of the
 * event's frames are ACKed again and change nothing. Part of the home
 * agent (which file owns what: the top of na_home.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "na_diff.h"
#include "na_home.h"
#include "na_pack.h"

struct na_hdiff {
	uint32_t seq;
	uint64_t tag;
	bool active;
	bool applied;
	struct na_unpack u;
	uint8_t buf[]; /* block_size: a diff record is never larger */
};

static void
ack(const struct lcf_msg *m, struct na_out *out)
{
	struct lcf_msg r;

	memset(&r, 0, sizeof(r));
	r.type = NA_MSG_DIFF_ACK;
	r.node = m->node;
	r.thread = m->thread;
	r.seq = m->seq;
	r.tag = m->tag;
	r.dst_node = m->node;
	r.aux = m->aux;
	na_out_push(out, m->node, &r, NULL);
}

/* Apply every whole record; @return 0, or -EINVAL (malformed). */
static int
apply(struct na_home *h, struct na_hdiff *d, const struct lcf_msg *m,
      uint8_t *blk)
{
	uint64_t tag;
	const uint8_t *diff;
	uint16_t len;
	int rc;

	while ((rc = na_unpack_next(&d->u, &tag, &diff, &len)) == 1) {
		if (tag != m->tag ||
		    na_diff_apply(blk, h->block_size, diff, len) < 0)
			return -EINVAL;
		h->st.diffs_applied++;
		h->st.diff_bytes += len;
	}
	return rc;
}

void
na_home_diff(struct na_home *h, const struct lcf_msg *m, const void *payload,
	     uint16_t len, struct na_hreq *rq, struct na_hblock *b,
	     uint8_t *blk, struct na_out *out)
{
	struct na_hdiff *d = rq->diff;
	uint32_t total = m->copyset;

	h->st.diff_frames++;
	if (len == 0 || total > h->block_size || m->aux >= total) {
		h->st.bad++;
		return;
	}
	if (!na_home_wb_allowed(rq, b, m)) {
		h->st.diffs_refused++;
		return;
	}
	if (!d) {
		d = calloc(1, sizeof(*d) + h->block_size);
		if (!d)
			return; /* retransmitted later */
		rq->diff = d;
	}
	if (!d->active || d->seq != m->seq || d->tag != m->tag ||
	    d->u.total != total) {
		d->active = true;
		d->applied = false;
		d->seq = m->seq;
		d->tag = m->tag;
		na_unpack_init(&d->u, d->buf, h->block_size, total);
	}
	if (!d->applied) {
		if (na_unpack_feed(&d->u, m->aux, payload, len) < 0)
			return; /* out of range, or too far out of order */
		if (apply(h, d, m, blk) < 0) {
			h->st.bad++;
			d->active = false;
			return;
		}
		d->applied = na_unpack_done(&d->u);
	}
	if (b->owner != NA_OWN_HOME)
		na_home_wb_commit(rq, m->seq);
	h->st.writebacks++;
	ack(m, out);
}
