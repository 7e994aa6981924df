/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Queued locks on the wire (docs/QUEUED-LOCKS.md): the id of a queue-holding
 * event as QHOLDER, QXFER's next holder and Q_GRANT carry it, the `aux` of a
 * copy forwarded to the holder, and QXFER_ACK's reasons. Switch and agents
 * use these helpers; no DPDK.
 */
#ifndef LCF_QLOCK_H
#define LCF_QLOCK_H

#include <stdbool.h>
#include <stdint.h>

#define LCF_Q_CLOSING    0x80000000u /* FWD_CNT bit 31 */
#define LCF_Q_SWITCH     0x40000000u /* FWD_CNT bit 30: switch grants */
#define LCF_Q_COUNT_MASK 0xffffu     /* FWD_CNT bits 0-15 */

/* QXFER_ACK reasons (aux bits 16-23). */
enum lcf_q_reason {
	LCF_Q_OK = 0,         /* approved */
	LCF_Q_COUNT = 1,      /* the count differs from FWD_CNT */
	LCF_Q_NOT_HOLDER = 2, /* QHOLDER is not this event */
	LCF_Q_IS_CLOSING = 3, /* a QXFER while QRELEASE's second pass is due */
	LCF_Q_BAD_NEXT = 4,   /* the next id names no node or thread */
	LCF_Q_WAITING = 5,    /* a waiting writer's tenure, readers hold */
};

/** The id of event (node, thread, seq): (node + 1) << 26 | thread << 16 |
 * seq & 0xffff. Never 0 (node + 1 >= 1); thread must be below 1024. */
static inline uint32_t
lcf_q_id(uint16_t node, uint16_t thread, uint32_t seq)
{
	return (uint32_t)(node + 1) << 26 | (uint32_t)(thread & 0x3ff) << 16 |
	       (seq & 0xffff);
}

/** Node of an id (LCF_MAX_NODES or more when `id` is 0 or malformed). */
static inline uint32_t
lcf_q_id_node(uint32_t id)
{
	return (id >> 26) - 1;
}

/** Thread of an id. */
static inline uint16_t
lcf_q_id_thread(uint32_t id)
{
	return (uint16_t)((id >> 16) & 0x3ff);
}

/** The tenure tag of a holder id: its thread and the low 6 bits of its seq. */
static inline uint16_t
lcf_q_tenure(uint32_t id)
{
	return (uint16_t)(((id >> 16) & 0x3ff) << 6 | (id & 0x3f));
}

/** `aux` of a copy forwarded to holder `id` with forward index `index`
 * (1..0xffff). */
static inline uint32_t
lcf_q_fwd_aux(uint32_t id, uint32_t index)
{
	return (uint32_t)lcf_q_tenure(id) << 16 | (index & LCF_Q_COUNT_MASK);
}

/** `aux` of a QXFER_ACK: the original type, the reason, FWD_CNT. */
static inline uint32_t
lcf_q_ack_aux(uint8_t orig_type, enum lcf_q_reason why, uint32_t fwd_cnt)
{
	return (uint32_t)orig_type << 24 | (uint32_t)why << 16 |
	       (fwd_cnt & LCF_Q_COUNT_MASK);
}

#endif /* LCF_QLOCK_H */
