/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Runtime layout of the LCF pipeline's register arrays, shared by the state
 * management (lcf_state.c) and the stages (lcf_pipeline.c). Not installed.
 */
#ifndef LCF_INTERNAL_H
#define LCF_INTERNAL_H

#include "lcf_pipeline.h"

/* Arrays start on their own cache line. */
#define LCF_ALIGN_64(x) (((x) + 63) & ~(size_t)63)

/* Bit 63 marks a valid TAG entry (docs/PROTOCOL.md section 4). */
#define LCF_TAG_VALID (1ull << 63)

/*
 * LOCK, G-STATUS and COPYSET of one slot. They live in one stage and change
 * together, so they are one word here: one read-modify-write per pass.
 */
struct lcf_meta {
	uint32_t copyset;
	uint16_t lock;
	uint8_t gstatus;
	uint8_t pad; /* always 0, so the digest sees only register values */
};

/*
 * SCOREBOARD entry: a paired register (two 32-bit halves, one
 * read-modify-write per pass). `seq` names the event the entry belongs to;
 * `c` is LCF_SB_COUNT_MAX or less (COUNT: locks held by forwarded copies of
 * that event), LCF_SB_CLAIMED | n (the event's unlock had its first pass,
 * carrying n) or LCF_SB_ENDED (the event ended holding no switch lock:
 * aborted, or its unlock went home) (docs/PROTOCOL.md 4.2, 4.3, 4.9).
 */
struct lcf_sb {
	uint32_t seq;
	uint32_t c;
};

#define LCF_SB_COUNT_MAX 0x7fffu
#define LCF_SB_CLAIMED   0x80000000u
#define LCF_SB_ENDED     0x40000000u

/*
 * LAST-UNLOCK entry, paired: the requester's latest unlock to reach the
 * switch (`seq`) and whether it still has to execute (`open`: its first
 * pass ran, its releasing second pass has not).
 */
struct lcf_lu {
	uint32_t seq;
	uint32_t open;
};

/*
 * VERSION of one slot (docs/PROTOCOL.md 4.10), a 32-bit register beside the
 * slot's LOCK: the ADD's second pass writes (seq & 0xffff) << 16 (the
 * migration epoch), every first pass of a WRITE_MISS or WRITE_SHARED that
 * hits and is not stale adds 1 up to LCF_VER_COUNT_MAX in the low half,
 * VERSION_READ reads it; one read-modify-write per pass, in the stage of
 * the hit way's LOCK.
 */
#define LCF_VER_EPOCH_SHIFT 16

/*
 * QGATE entry, queued lock mode (PROTOCOL.md "Queued locks"): a paired
 * register, `seq` = the QRELEASE it was last opened for, `eo` = epoch << 16
 * | open. Each opening adds one to the 16-bit epoch (it wraps with the
 * word); a second pass executes only with the epoch its first pass saw, so
 * one opening executes once. The P4's qgate holds the same words.
 */
struct lcf_qgate {
	uint32_t seq;
	uint32_t eo;
};

#define LCF_QG_EPOCH_ONE 0x10000u

/*
 * QSTATE of one slot, queued lock mode (docs/QUEUED-LOCKS.md 2): a paired
 * register, `hi` = QHOLDER (0: no queue), `lo` = FWD_CNT (bit 31 CLOSING).
 */
struct lcf_q {
	uint32_t hi;
	uint32_t lo;
};

static inline bool
lcf_sb_is_count(uint32_t c)
{
	return c <= LCF_SB_COUNT_MAX;
}

struct lcf_pipeline {
	struct lcf_pipeline_config cfg;
	uint32_t n_requesters;
	uint32_t way_seed[LCF_MAX_WAYS];

	void *regs; /* TAG, meta, summary: one mapping */
	size_t regs_bytes;
	uint8_t *summary; /* see lcf_summary_maybe() */
	uint32_t summary_mask;
	uint64_t *tag[LCF_MAX_WAYS];         /* TAG way w */
	struct lcf_meta *meta[LCF_MAX_WAYS]; /* LOCK+G-STATUS+COPYSET way w */
	uint32_t *ver[LCF_MAX_WAYS];         /* VERSION way w */
	struct lcf_sb (*sb)[2];     /* SCOREBOARD [requester][parity] */
	struct lcf_lu *last_unlock; /* [requester] */
	/* [requester], queued mode: QRELEASE's gate, apart from LAST-UNLOCK
	 * so that a given-up tenure's end, sent out of the unlock order,
	 * neither skips nor hides an unlock (PROTOCOL.md Queued locks) */
	struct lcf_qgate *q_gate;
	struct lcf_q *q[LCF_MAX_WAYS]; /* QSTATE way w; NULL in retry mode */
	struct lcf_q *qregs;           /* the one allocation behind q[] */

	struct lcf_counters ctr;
};

/*
 * CRC32C of a 64-bit value with initial value `init`. Inline: every pass
 * hashes the tag once per way, and a call per way cost more than the hash.
 */
static inline uint32_t
lcf_crc32c_u64(uint32_t init, uint64_t v)
{
#ifdef __SSE4_2__
	return (uint32_t)__builtin_ia32_crc32di(init, v);
#else
	/* Reflected Castagnoli polynomial, as the SSE4.2 instruction uses. */
	uint32_t crc = init;

	for (int i = 0; i < 64; i++) {
		crc ^= (uint32_t)(v >> i) & 1;
		crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1)));
	}
	return crc;
#endif
}

/** Slot of `tag` in way `way` for a built pipeline. */
static inline uint32_t
lcf_slot(const struct lcf_pipeline *p, uint32_t way, uint64_t tag)
{
	uint32_t h = lcf_crc32c_u64(p->way_seed[way], tag);

	return (uint32_t)(((uint64_t)h * p->cfg.slots_per_way) >> 32);
}

/*
 * The tag summary: a counting filter over the tags held in the TAG ways, so
 * that a tag in none of them (a block the switch does not own: a third of
 * the passes in docs/PERFORMANCE.md) costs one probe instead of one per way.
 * It is an index of the TAG registers kept by swswitch, not a register of
 * the modelled switch: it never changes what a pass does, only how fast a
 * miss is found, and it is left out of the footprint and the digest.
 * Counters stick at 255 (that bucket then always answers "maybe"), so an
 * overflow costs speed, never a wrong miss.
 */
#define LCF_SUMMARY_SEED  0x85ebca6bu
#define LCF_SUMMARY_STUCK 255

static inline uint8_t *
lcf_summary_at(const struct lcf_pipeline *p, uint64_t tag)
{
	return &p->summary[lcf_crc32c_u64(LCF_SUMMARY_SEED, tag) &
			   p->summary_mask];
}

/** False when `tag` is certainly in no TAG way. */
static inline bool
lcf_summary_maybe(const struct lcf_pipeline *p, uint64_t tag)
{
	return *lcf_summary_at(p, tag) != 0;
}

static inline void
lcf_summary_add(struct lcf_pipeline *p, uint64_t tag)
{
	uint8_t *c = lcf_summary_at(p, tag);

	if (*c != LCF_SUMMARY_STUCK)
		(*c)++;
}

static inline void
lcf_summary_del(struct lcf_pipeline *p, uint64_t tag)
{
	uint8_t *c = lcf_summary_at(p, tag);

	if (*c != LCF_SUMMARY_STUCK)
		(*c)--;
}

/** Seed of way `way` (docs/PROTOCOL.md: 0x9e3779b9 * (w + 1) + salt). */
static inline uint32_t
lcf_way_seed(const struct lcf_pipeline_config *cfg, uint32_t way)
{
	return 0x9e3779b9u * (way + 1) + cfg->hash_salt;
}

/* ---- the VERSION stage (lcf_version.c) ---- */

/** ADD's second pass installed the block in (way, slot): epoch, version 0. */
void lcf_version_add(struct lcf_pipeline *p, uint32_t way, uint32_t slot,
		     uint32_t seq);

/** A WRITE_MISS / WRITE_SHARED first pass hit (way, slot), not stale.
 * Inline: it is on every write request's pass. The count saturates: a
 * carry would make the epoch of a later stay (vohepoch.pml SAT). */
static inline void
lcf_version_bump(struct lcf_pipeline *p, uint32_t way, uint32_t slot)
{
	if ((p->ver[way][slot] & LCF_VER_COUNT_MAX) != LCF_VER_COUNT_MAX)
		p->ver[way][slot]++;
}

/**
 * VERSION_READ: turn `m` into its VERSION reply. `way` is the TAG hit or
 * -1; on a hit `lock`/`gstatus` are the slot's (read, not changed).
 * @return the action to count (LCF_A_VERSION_HIT or LCF_A_VERSION_MISS).
 */
enum lcf_action lcf_version_read(const struct lcf_pipeline *p, int way,
				 uint32_t slot, uint16_t lock, uint8_t gstatus,
				 struct lcf_msg *m);

#endif /* LCF_INTERNAL_H */
