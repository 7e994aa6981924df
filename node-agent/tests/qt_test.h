/* SPDX-License-Identifier: BSD-3-Clause
 *
 * What the queue-holder table's tests share (test_na_qtable.c, _qtag.c,
 * _qreset.c, _qwait.c): one block, its home, the table's output and the
 * frames the switch sends a holder. Each test is its own program.
 */
#ifndef QT_TEST_H
#define QT_TEST_H

#include <criterion/criterion.h>

#include "lcf_qlock.h"
#include "na_msg.h"
#include "na_qgrant.h"
#include "na_qtable.h"

#define TAG  0x40ull /* the block */
#define HOME 3       /* its home node */
#define RTT  10      /* the table's first retransmission interval */

static struct na_out out;
static struct na_qlocals loc;

static inline uint16_t
home_of(const void *ctx, uint64_t tag)
{
	(void)ctx;
	(void)tag;
	return HOME;
}

static inline void
clear(void)
{
	na_out_reset(&out);
	loc.n = 0;
}

/* The switch's copy of (node, thread, seq)'s request `type` on `tag`
 * forwarded to holder event `holder` with index `index`. */
static inline struct lcf_msg
qt_forward(uint8_t type, uint64_t tag, uint16_t node, uint16_t thread,
	   uint32_t seq, uint32_t holder, uint32_t index)
{
	return (struct lcf_msg){ .version = LCF_VERSION,
				 .type = type,
				 .flags = LCF_F_IN_SWITCH,
				 .node = node,
				 .thread = thread,
				 .seq = seq,
				 .tag = tag,
				 .aux = lcf_q_fwd_aux(holder, index) };
}

/* The switch's QXFER_ACK of (node, thread, seq)'s `orig` on TAG. */
static inline struct lcf_msg
qt_qack(uint16_t node, uint16_t thread, uint32_t seq, uint8_t orig,
	enum lcf_q_reason why, uint32_t fwd_cnt)
{
	return (struct lcf_msg){ .version = LCF_VERSION,
				 .type = LCF_T_QXFER_ACK,
				 .flags = LCF_F_IN_SWITCH,
				 .node = node,
				 .thread = thread,
				 .seq = seq,
				 .tag = TAG,
				 .aux = lcf_q_ack_aux(orig, why, fwd_cnt) };
}

/* Q_GRANT from node `giver` for (node, thread, seq) with `n` queue
 * entries `e` encoded into `buf`. */
static inline struct lcf_msg
qgrant(uint16_t giver, uint16_t node, uint16_t thread, uint32_t seq,
       const struct na_qg_entry *e, uint32_t n, uint8_t *buf, size_t cap)
{
	int len = na_qg_encode(e, n, buf, cap);

	cr_assert_geq(len, 0);
	return (struct lcf_msg){ .version = LCF_VERSION,
				 .type = NA_MSG_Q_GRANT,
				 .node = node,
				 .thread = thread,
				 .seq = seq,
				 .tag = TAG,
				 .gstatus = LCF_GS_MODIFIED,
				 .copyset = 1,
				 .len = (uint16_t)len,
				 .aux = na_qg_aux(giver, (uint16_t)n) };
}

#endif
