/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The home agent (paper sections 5.1.1, 5.2, 5.3.1, 6): it holds this node's
 * part of global memory, and for the blocks the switch does not own it is
 * the server-side LCF pipeline: a reader-writer lock and global metadata per
 * block, the same check (Table 2) and forward (Table 3) rules, one unicast
 * NA_FWD per cache agent where the switch would multicast, and LAST-EXECUTED
 * per requester. For switch-owned blocks it is the data source of Unshared
 * blocks. It also serves write-backs, chunk allocation, and migrates blocks
 * to the switch (ADD_TO_SWITCH).
 *
 * All entry points are pure state transitions: no sockets, no locks; the
 * caller serialises calls and transmits `out`.
 */
#ifndef NA_HOME_H
#define NA_HOME_H

#include <stdbool.h>
#include <stdint.h>

#include "na_home_queue.h"
#include "na_out.h"
#include "na_proto.h"
#include "na_sabres.h"

struct topo;
struct na_dir;

#define NA_CHUNK_SIZE    (32ull << 20) /* allocation unit (section 5.4) */
#define NA_ADD_COPY_SEQS 8             /* seqs per migration (copy ids) */
/*
 * After every copy of an ADD's set FAILed, the block stays MIGRATING this
 * long before the home takes it back: the maximum packet lifetime of a
 * copy and of its MIGRATE_ACK (a network duplicate still in flight may
 * find a freed slot; lib/model/migdup.pml).
 */
#define NA_ADD_HOLD_NS 10000000ull
/*
 * A block's migrations start more than NA_ADD_GAP_NS apart (2^20 ns units,
 * two of them): with the block's own ADD seqs (na_add_seq_next) VERSION's
 * epoch repeats only after 65,536 / NA_ADD_COPY_SEQS of its migrations, so
 * after 8,191 gaps (8.59 s), longer than a validate-on-hit copy stamped at
 * the switch is served (NA_VOH_LIFE_NS; lib/model/vohepoch.pml BLOCK).
 */
#define NA_ADD_GAP_UNITS 2u
#define NA_ADD_GAP_NS    (1ull << 20)
/*
 * An ADD copy unanswered for na_home_add_rto() is settled
 * (na_home_migrate_timeout): the ADDs' measured round trip (srtt + 4
 * rttvar, RFC 6298), at least NA_ADD_RTO_MIN_NS, at most NA_ADD_RTO_MAX_NS.
 * A constant 5 ms settled most ADDs where the round trip through the
 * switch is 3-8 ms (a loaded 2-vCPU VM): each a REMOVE and a recovery
 * round on a hot block, instead of its migration. A settled ADD's late
 * answer is a sample too (its only copy: no ambiguity), or the estimate
 * would only see the round trips shorter than itself; and each settle
 * doubles the timeout until the next sample (add_backoff, RFC 6298 5.5).
 */
#define NA_ADD_RTO_MIN_NS      5000000ull
#define NA_ADD_RTO_MAX_NS      200000000ull
#define NA_ADD_RTO_MAX_BACKOFF 5

/* Where a block's ownership is. */
enum na_owner {
	NA_OWN_HOME = 0,   /* this home agent runs its pipeline */
	NA_OWN_MIGRATING,  /* ADD_TO_SWITCH sent, write lock held */
	NA_OWN_SWITCH,     /* the switch owns it */
	NA_OWN_RECOVERING, /* metadata being rebuilt (na_recovery.h) */
	NA_OWN_REMOVING,   /* REMOVE_FROM_SWITCH sent (na_migrate.c) */
};

struct na_hblock {
	uint16_t readers;
	bool writer;
	uint8_t gs;
	uint8_t owner;      /* enum na_owner */
	uint8_t add_copies; /* MIGRATING: ADD_TO_SWITCH copies sent (<= 8) */
	uint8_t add_failed; /* MIGRATING: copies answered FAIL (bit i) */
	bool add_collided;  /* the last migration ended in a collision */
	bool add_draining;  /* MIGRATING by a drain that has not taken the
			       write lock yet: no ADD may go (na_migrate.c,
			       lib/model/migmix.pml) */
	bool add_readd;     /* settled by na_home_migrate_timeout: ADDed
			       again after its round (na_rec_block_lost) */
	bool add_late;      /* settled by the timer, no declaration since:
			       its one copy's answer in the hold decides
			       (migrestart.pml) */
	bool add_answered;  /* its ADD's first copy answered after the
			       block left MIGRATING (cleared when settled):
			       timing only, na_migrate.c samples the late
			       round trip */
	uint8_t add_hold;   /* MIGRATING, every copy of the set FAILed: none
			       sent, kept until NA_ADD_HOLD_NS (migdup.pml) */
	uint8_t add_settle; /* REMOVING after a node's declaration or an
			       unanswered copy caught its ADD out
			       (na_home_migrate_settle): 1 waiting out the
			       copies (from add_hold_t), 2 REMOVE sent,
			       recovered either way (migsettle.pml); 3 its
			       ADD answered FAIL in the hold: home at the
			       hold's end (migrestart.pml) */
	uint32_t cs;
	uint32_t hot;        /* forwarded copies this epoch (section 5.2.2) */
	uint32_t wgrants;    /* write locks granted here (validate-on-hit's
			     version counts them, na_voh_home.c) */
	bool voh_upd;        /* a validate-on-hit update is in the UpdateQueue:
			     it writes memory under no coherent copy, so the
			     pipeline refuses as lock busy (vohupd.pml) */
	uint32_t add_seq;    /* copy i of this migration's ADD has seq
				   add_seq + i (NA_ADD_COPY_SEQS of them, then
				   a new set): the block's own (na_add_seq_next),
				   0 before its first migration */
	uint32_t add_seq0;   /* the first set's add_seq: an OK of any set's
				copy means the block is installed */
	uint32_t add_hold_t; /* the hold's start, in 2^20 ns units */
	uint32_t rm_seq0;    /* REMOVING: its first REMOVE copy's seq; an
				answer to an earlier REMOVE (a late copy's
				tag miss or ACK) is not its own
				(na_home_remove_answer, migorphan.pml) */
	uint32_t rm_conf;    /* REMOVING: the seq of its first REMOVE sent
				after a tag miss of its own (0: none yet);
				only such a copy's tag miss says the switch
				does not hold it (migpass.pml) */
	uint32_t add_t;      /* the last migration's start, 2^20 ns units */
	uint32_t rec_t;      /* the last recovery rebuild, 2^20 ns units */
	bool rec_held;       /* rec_t set: no ADD for NA_ADD_HOLD_NS after */
	struct na_hqs q;     /* queued mode (na_home_queue.h) */
	uint16_t q_from;     /* 1 + the node whose QXFER handed q's tenure
				over (0: granted here); a drain of that
				node takes the block (qfault.pml HOME) */
};

/* What the home agent did with a request; re-sent for duplicates. */
enum na_hdec_kind {
	NA_HDEC_NONE = 0,
	NA_HDEC_NACK,
	NA_HDEC_REPLY, /* ACK, with data when fwd.kind == REPLY_DATA */
	NA_HDEC_FORWARD,
};

struct na_hdec {
	uint8_t kind;  /* enum na_hdec_kind */
	uint8_t type;  /* the request's type */
	uint8_t flags; /* IN_SWITCH as the request had it */
	uint8_t gs;
	uint32_t cs;
	uint64_t tag;
	struct na_fwd fwd;
};

struct na_hheld {
	bool valid;
	bool write;
	uint32_t seq;
	uint64_t tag;
};

/* Per requester (node * threads_per_node + thread). */
struct na_hdiff;

struct na_hreq {
	struct na_last_exec req; /* coherence requests */
	struct na_hdec dec;
	struct na_hheld held[2]; /* by seq parity, like the scoreboard */
	struct na_last_exec unlock;
	struct na_last_exec wb; /* write-backs to switch-owned blocks */
	uint64_t wb_segs;       /* NA_WB segments of event wb.seq applied */
	struct na_last_exec alloc;
	struct na_hdiff *diff; /* PIPE write-back being rebuilt, or NULL */
	uint32_t qfwd_seq;     /* its last request forwarded to a queue holder
				* (NA_QFWD): the full seq behind a QXFER's
				* next id (na_home_queue.c) */
	uint64_t alloc_addr;   /* 0: failed */
	uint8_t alloc_be[8];   /* the reply's payload (big-endian) */
};

#define NA_HOME_COUNTERS(X)       \
	X(requests)               \
	X(switch_data_replies)    \
	X(pipeline_nack_lock)     \
	X(pipeline_nack_check)    \
	X(pipeline_nack_not_home) \
	X(pipeline_reply_data)    \
	X(pipeline_reply_ack)     \
	X(pipeline_forwards)      \
	X(duplicates)             \
	X(switch_late_served)     \
	X(stale)                  \
	X(unlocks)                \
	X(unlock_duplicates)      \
	X(aborts)                 \
	X(aborted_refused)        \
	X(writebacks)             \
	X(writebacks_refused)     \
	X(writebacks_duplicate)   \
	X(diff_frames)            \
	X(diffs_applied)          \
	X(diff_bytes)             \
	X(diffs_refused)          \
	X(allocs)                 \
	X(migrate_ok)             \
	X(migrate_fail)           \
	X(migrate_late_ok)        \
	X(migrate_unanswered)     \
	X(settle_answered_ok)     \
	X(settle_answered_fail)   \
	X(remove_ok)              \
	X(q_forwards)             \
	X(qxfer_approved)         \
	X(qxfer_denied)           \
	X(qxfer_duplicate)        \
	X(qrelease_executed)      \
	X(qrelease_duplicate)     \
	X(bad)

struct na_home_stats {
#define NA_X_FIELD(name) uint64_t name;
	NA_HOME_COUNTERS(NA_X_FIELD)
#undef NA_X_FIELD
};

struct na_home;

/*
 * An extension of the home agent, offered every message before the home
 * agent's own handler; true when it consumed the message. The directory
 * baseline (na_directory.h) registers itself here and calls back into
 * na_home_handle() for what it leaves to the home agent, so the home agent
 * does not depend on it.
 */
typedef bool (*na_home_ext_fn)(struct na_home *h, const struct lcf_msg *m,
			       const void *payload, uint16_t len,
			       struct na_out *out);

struct na_home {
	uint16_t self;
	uint8_t block_shift;
	uint32_t block_size;
	uint16_t tpn; /* threads per node */
	uint64_t mem_size;
	uint8_t *mem; /* global memory: offset 0 .. mem_size */
	uint32_t n_blocks;
	struct na_hblock *blk;
	/* A bit per block whose `hot` was counted this epoch: the epoch's
	 * end (na_migrate.c) visits these, not all n_blocks (a 64-byte
	 * block size gives a million blocks: na-sim spent 90% of its CPU
	 * scanning them every epoch). */
	uint64_t *hot_map;
	struct na_hreq *req; /* LCF_MAX_NODES * tpn */
	uint32_t n_chunks;
	uint32_t next_chunk; /* chunk 0 is the static region */
	uint32_t rng;
	/* Nodes declared dead (na_rec_node_failed, atomic; cleared at their
	 * rejoin): no ADD copy names one in its copyset, the switch's control
	 * plane having evicted what named them (lib/model/migdead.pml). */
	uint32_t dead;
	/* Declared, not drained yet (atomic): no ADD copy goes, a copy sent
	 * now could reach the switch after its eviction (migsettle.pml). */
	uint32_t dead_new;
	uint32_t n_settle; /* blocks with add_settle 1 or 3 */
	/* The ADDs' round trip (na_home_add_rtt_sample; 0: no sample). */
	uint64_t add_srtt_ns, add_rttvar_ns;
	uint8_t add_backoff; /* settles since the last sample (doublings) */
	struct na_home_stats st;
	struct na_dir *dir;   /* directory mode (na_directory.h) */
	struct na_sabres sab; /* SABRes' ATT (na_sabres.h); snoops memory
				 writes, takes no coherence state */
	na_home_ext_fn ext;   /* its handler, or NULL */
	/* The lock mode (na_home_queue.h). */
	struct na_hq_cfg qcfg;
};

/**
 * @param mem_size bytes of global memory (a multiple of NA_CHUNK_SIZE).
 * @return 0, -EINVAL, -ENOMEM.
 */
int na_home_init(struct na_home *h, const struct topo *t, uint16_t self,
		 uint64_t mem_size, uint32_t seed);
void na_home_fini(struct na_home *h);

/**
 * May a write-back (NA_WB or NA_DIFF) of event m->seq change block b now?
 * Home-owned: only the event holding its lock; switch-owned: not older
 * than the requester's last, and no unlock of that event reached us.
 */
static inline bool
na_home_wb_allowed(const struct na_hreq *rq, const struct na_hblock *b,
		   const struct lcf_msg *m)
{
	const struct na_hheld *hl = &rq->held[m->seq & 1];
	bool ok;

	/*
	 * A write-back is only valid inside the event that holds the block's
	 * lock. For home-owned blocks we know the holder; for switch-owned
	 * ones the best we have is "not older than this requester's last".
	 */
	if (b->owner == NA_OWN_HOME) /* or its tenure, granted by Q_GRANT */
		ok = (hl->valid && hl->seq == m->seq && hl->tag == m->tag) ||
		     na_hq_holds(&b->q, lcf_q_id(m->node, m->thread, m->seq),
				 m->seq);
	else /* nor an event whose unlock reached us: served here, since
		 * moved to the switch (a late copy: docs/NODE-AGENT.md) */
		ok = na_le_check(&rq->wb, m->seq) != NA_LE_STALE &&
		     na_le_check(&rq->unlock, m->seq) == NA_LE_EXECUTE;
	return ok;
}

/**
 * Record a write-back of event m->seq to a switch-owned block accepted
 * (na_home_wb_allowed): a newer event starts with no segment applied.
 */
static inline void
na_home_wb_commit(struct na_hreq *rq, uint32_t seq)
{
	if (na_le_check(&rq->wb, seq) == NA_LE_EXECUTE)
		rq->wb_segs = 0;
	na_le_commit(&rq->wb, seq);
}

/**
 * PIPE: a frame of a diff write-back (NA_DIFF; na_home_diff.c): rebuilt
 * per requester, the diff applied to `blk` (the block's memory) when
 * whole, every frame ACKed (NA_DIFF_ACK) once taken, the last one after
 * the diff is applied. Refused (counted) under the write-back rule.
 */
void na_home_diff(struct na_home *h, const struct lcf_msg *m,
		  const void *payload, uint16_t len, struct na_hreq *rq,
		  struct na_hblock *b, uint8_t *blk, struct na_out *out);

/**
 * The write-back of `req`'s event (a READ_MISS served by this node's
 * Modified copy: na_cagent.h), done in the node: the whole block `data`
 * into memory under the NA_WB rule (na_home_wb_allowed). @return true when
 * written; false when the block is not this home's, the home is a
 * directory's, or the rule refuses it (counted as NA_WB's refusals).
 */
bool na_home_write_local(struct na_home *h, const struct lcf_msg *req,
			 const uint8_t *data);

/** Handle one message routed to the home agent. */
void na_home_handle(struct na_home *h, const struct lcf_msg *m,
		    const void *payload, uint16_t len, struct na_out *out);

/** The tag of block `idx` of this node. */
static inline uint64_t
na_home_tag(const struct na_home *h, uint32_t idx)
{
	return ((uint64_t)h->self << (48 - h->block_shift)) | idx;
}

/**
 * Start moving block `idx` to the switch at `now_ns`: take its write lock
 * and emit an ADD_TO_SWITCH (to be sent via the switch).
 * @return 0, -EBUSY when it is locked, not home or its last migration
 * began NA_ADD_GAP_NS ago or less, -EINVAL.
 */
int na_home_migrate_start(struct na_home *h, uint32_t idx, uint64_t now_ns,
			  struct na_out *out);

/*
 * A block's next ADD seq, its own, not the home's (lib/model/vohepoch.pml
 * BLOCK): bits 0-15 are the epoch the switch's VERSION takes (PROTOCOL.md
 * 4.10), NA_ADD_COPY_SEQS more per migration (copy i adds i) and the same
 * for every set of one migration; bits 16-31 count the block's sets, so a
 * late ACK of an earlier set or migration is told apart (`migration`: a
 * new migration, else a new set of this one).
 */
static inline uint32_t
na_add_seq_next(uint32_t s, bool migration)
{
	uint32_t lo = (s + (migration ? NA_ADD_COPY_SEQS : 0)) & 0xffff;

	return ((s >> 16) + 1) << 16 | lo;
}

/*
 * A recovery round rebuilt `b` at `now_ns`, after every node's report: a
 * request copy sent before a report (its event aborted by the round) may
 * still be in flight. Re-ADDed while it is, it can take the switch's lock
 * for a seq nobody runs, or be queued into another node's tenure that is
 * then handed to it (the round freed the slot that would pass it on): the
 * block stays locked. No ADD until the packet lifetime has passed
 * (lib/model/qfault.pml RHOLD; the recovery's own re-add waits
 * REC_RETX_NS, but a dynamic migration may come at the next epoch).
 */
static inline void
na_add_hold_rebuilt(struct na_hblock *b, uint64_t now_ns)
{
	b->rec_t = (uint32_t)(now_ns >> 20);
	b->rec_held = true;
}

/* May block `b` start a migration at `now_ns` (NA_ADD_GAP_NS, and
 * NA_ADD_HOLD_NS after a rebuild; one grain more for the rounding down)? */
static inline bool
na_add_spaced(const struct na_hblock *b, uint64_t now_ns)
{
	uint32_t t = (uint32_t)(now_ns >> 20);

	if (b->rec_held && (uint64_t)(uint32_t)(t - b->rec_t) << 20 <
				   NA_ADD_HOLD_NS + (1ull << 20))
		return false;
	return b->add_seq == 0 || (uint32_t)(t - b->add_t) >= NA_ADD_GAP_UNITS;
}

/* Time since block `b`'s migration began (na_add_begin), 2^20 ns grain. */
static inline uint64_t
na_add_age_ns(const struct na_hblock *b, uint64_t now_ns)
{
	return (uint64_t)(uint32_t)((uint32_t)(now_ns >> 20) - b->add_t) << 20;
}

/* Start a migration of `b` at `now_ns` (na_add_spaced): its seqs, its time. */
static inline void
na_add_begin(struct na_hblock *b, uint64_t now_ns)
{
	b->add_seq0 = b->add_seq = na_add_seq_next(b->add_seq, true);
	b->add_t = (uint32_t)(now_ns >> 20);
	b->rec_held = false; /* past the hold: rec_t may wrap now */
}

/**
 * Re-emit the ADD of a block still migrating; in the hold after a set's
 * FAILs, send nothing and take the block back once NA_ADD_HOLD_NS from the
 * first call of the hold (`now_ns`) have passed.
 * @return 0 (a copy sent), 1 (holding), -EALREADY (not migrating, or a
 * drain has not taken the lock).
 */
int na_home_migrate_resend(struct na_home *h, uint32_t idx, uint64_t now_ns,
			   struct na_out *out);

/**
 * The retransmission timer of block `idx`'s ADD (dynamic migration, a
 * recovery's re-add): the hold as na_home_migrate_resend; a copy sent and
 * unanswered is not re-sent, the block is settled (na_home_migrate_settle,
 * `migrate_unanswered`; lib/model/migrestart.pml); that copy's answer in
 * the hold still decides (na_home_migrate_ack).
 * @return 0 (the first copy sent), 1 (holding), -EALREADY (not migrating,
 * settled, or a drain has not taken the lock).
 */
int na_home_migrate_timeout(struct na_home *h, uint32_t idx, uint64_t now_ns,
			    struct na_out *out);

/** An ADD's only copy answered (OK or FAIL) `ns` after it was sent. */
void na_home_add_rtt_sample(struct na_home *h, uint64_t ns);

/** How long an ADD copy may go unanswered before it is settled. */
uint64_t na_home_add_rto(const struct na_home *h);

/** The same from its parts (pure): srtt + 4 rttvar (NA_ADD_RTO_MIN_NS with
 * no sample yet), doubled `backoff` times, within [MIN, MAX]. */
uint64_t na_add_rto_of(uint64_t srtt_ns, uint64_t rttvar_ns, unsigned backoff);

/**
 * A REMOVE answer (MIGRATE_ACK or tag miss) with `seq` answers block `b`'s
 * current REMOVE, not one sent before it began: taken for it, an earlier
 * copy's late tag miss starts a round while a re-ADD holds the block in the
 * switch, and a writer holding its lock gives its event up with no unlock
 * (lib/model/migorphan.pml).
 */
static inline bool
na_home_remove_answer(const struct na_hblock *b, uint32_t seq)
{
	return !lcf_seq_after(b->rm_seq0, seq);
}

/**
 * Block `b`'s ADD is out and may have installed it unanswered: REMOVING
 * with add_settle = 1 from `now_ns`; na_migrate.c REMOVEs it once no copy
 * can be in flight, the recovery takes either answer (migsettle.pml).
 */
void na_home_migrate_settle(struct na_home *h, struct na_hblock *b,
			    uint64_t now_ns);

/**
 * Internal to the home agent (na_home.c, na_home_migrate.c): a MIGRATE_ACK
 * for block `b` (of an ADD, or of a REMOVE this home sent).
 */
void na_home_migrate_ack(struct na_home *h, const struct lcf_msg *m,
			 struct na_hblock *b);

/**
 * The block record of `m->tag` (homed here) and the requester record of
 * m->node/m->thread, for the directory protocol (na_directory.c).
 * @return NULL when either does not exist.
 */
struct na_hblock *na_home_lookup(struct na_home *h, const struct lcf_msg *m,
				 struct na_hreq **rq);

/* Count n forwarded copies of block b toward this epoch's migration. */
static inline void
na_home_count_hot(struct na_home *h, struct na_hblock *b, uint32_t n)
{
	size_t i = (size_t)(b - h->blk);

	b->hot += n;
	h->hot_map[i / 64] |= 1ull << (i % 64);
}

#endif /* NA_HOME_H */
