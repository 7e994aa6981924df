/* SPDX-License-Identifier: BSD-3-Clause
 *
 * PIPE diff write-back (docs/PIPE.md), the requester's side: inside an
 * EVICT_MODIFIED event, the diff of the block against its twin goes home
 * as NA_DIFF frames of at most NA_MAX_FRAME_PAYLOAD bytes under a credit
 * window of `pipe_depth` frames (a frame's buffer is reused only after the
 * home's NA_DIFF_ACK), retransmitted like NA_WB segments. When the diff is
 * not smaller than the block, the whole block goes (na_req_writeback).
 * Part of the requester (which file owns what: the top of
 * na_requester.c).
 */
#include <errno.h>
#include <string.h>

#include "na_diff.h"
#include "na_msg.h"
#include "na_pack.h"
#include "na_req_mail.h"
#include "na_requester.h"

/* A block of 64 KB is at most 47 frames. */
#define MAX_FRAMES (NA_MAX_BLOCK / NA_MAX_FRAME_PAYLOAD + 1)

static void
send_frame(struct dsm_thread *t, uint16_t home, struct lcf_msg *m,
	   const struct na_frame *f, uint32_t total)
{
	m->type = NA_MSG_DIFF;
	m->aux = f->off;
	m->len = (uint16_t)f->len;
	m->copyset = total;
	na_node_send(t->n, home, m, t->dbuf + f->off);
}

/* Send the stream t->dbuf[0, total) and wait for every ACK. */
static int
send_stream(struct dsm_thread *t, uint32_t seq, uint64_t tag, uint32_t total)
{
	uint16_t home = na_req_home_of(t, tag);
	struct na_frame fr[MAX_FRAMES];
	uint8_t acked[MAX_FRAMES];
	uint64_t sent = na_now_ns(), deadline;
	uint32_t tries = 0, rec0 = 0;
	struct na_win w;
	struct lcf_msg m;
	int n;

	n = na_pack_plan(&rec0, 1, total, NA_MAX_FRAME_PAYLOAD, true, fr,
			 MAX_FRAMES);
	if (n <= 0)
		return -EINVAL;
	na_win_init(&w, acked, (uint32_t)n, t->d->pipe_depth);
	na_req_msg(t, &m, 0, seq, tag, home);
	deadline = sent + na_req_timeout(t, NA_REQ_TIMEOUT_RTTS, 0);
	while (!na_win_done(&w)) {
		const struct lcf_msg *x = &t->mail.m;
		int64_t i;

		while ((i = na_win_take(&w)) >= 0)
			send_frame(t, home, &m, &fr[i], total);
		if (na_req_wait_mail(t, deadline) == 0) {
			if (x->type == NA_MSG_DIFF_ACK && x->seq == seq &&
			    x->tag == tag) {
				for (int k = 0; k < n; k++)
					if (fr[k].off == x->aux)
						na_win_ack(&w, (uint32_t)k);
			} else {
				NA_STAT_INC(t->n->st.req.stale_replies);
			}
			continue;
		}
		if (na_now_ns() < deadline)
			continue;
		if (na_req_stopping(t) && na_now_ns() - sent > NA_GIVE_UP_NS)
			return -EINTR;
		/* Re-send the window's unacknowledged frames. */
		for (uint32_t k = w.base; k < w.next; k++) {
			if (acked[k])
				continue;
			send_frame(t, home, &m, &fr[k], total);
			NA_STAT_INC(t->n->st.req.retransmit_writeback);
		}
		tries++;
		deadline = na_now_ns() +
			   na_req_timeout(t, NA_REQ_TIMEOUT_RTTS, tries);
	}
	return 0;
}

int
na_req_writeback_diff(struct dsm_thread *t, uint32_t seq, uint64_t tag,
		      const uint8_t *data, const uint8_t *twin)
{
	uint32_t bs = t->d->topo.block_size, total = 0;
	int n, rc;

	if (!twin || !t->d->pipe_depth)
		return na_req_writeback(t, seq, tag, data);
	/* The record (header + diff) must be smaller than the block. */
	n = na_diff_encode(twin, data, bs, t->dbuf + NA_PACK_REC_HDR,
			   bs - NA_PACK_REC_HDR - 1);
	if (n < 0)
		return na_req_writeback(t, seq, tag, data);
	if (n == 0) { /* nothing changed: the home's copy is right */
		NA_STAT_INC(t->n->st.req.diffs_empty);
		return 0;
	}
	/* Header in place (the diff is already behind it). */
	memmove(t->tbuf, t->dbuf + NA_PACK_REC_HDR, (size_t)n);
	na_pack_put(t->dbuf, bs, &total, tag, t->tbuf, (uint16_t)n);
	rc = send_stream(t, seq, tag, total);
	if (rc == 0) {
		NA_STAT_INC(t->n->st.req.diff_writebacks);
		NA_STAT_ADD(t->n->st.req.diff_bytes, total);
	}
	return rc;
}
