/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The LCF pipeline, stage by stage, in the order of the P4 program
 * (lib/p4/lcf.p4). Each stage function touches only the register array its
 * stage owns, at most once per pass; what one stage tells a later one travels
 * in struct lcf_phv, as packet header vector fields do on a Tofino.
 *
 * Behaviour: docs/PROTOCOL.md section 4.
 *
 * Why one file of this length: the stages share struct lcf_phv and are
 * inlined into one pass (the hot path), and the file reads top to bottom
 * in the P4 program's stage order, so a reviewer checks both side by side.
 * The control-plane operations live apart, in lcf_control.c.
 */
#include <string.h>

#include "lcf_queue.h"

/* The per-pass packet header vector: the header plus pipeline metadata. */
struct lcf_phv {
	/* The header as it will leave the switch. It is the result's `out`,
	 * not a copy of it: stages change single fields, and copying the
	 * whole header out after such narrow stores would stall on store
	 * forwarding. */
	struct lcf_msg *m;
	uint32_t req;  /* requester index */
	uint32_t home; /* home node of the tag */
	uint32_t slot[LCF_MAX_WAYS];
	int hit_way; /* -1 on a tag miss */
	bool lock_taken;
	bool waiter; /* queued mode: this write set WAITING (readers hold) */
	bool unlock_exec;
	bool sb_held; /* the event holds a counted lock */
	bool sb_over; /* the event is over (SB says so) */
	uint16_t score;
};

/* Resubmit metadata, 8 bytes (docs/PROTOCOL.md 4.8). Byte 2 is the lock kind
 * of a RELEASE (0 read, 1 write, 2 an aborted waiter's WAITING, queued mode
 * only) and, for an UNLOCK, 1 when the first pass found it not a
 * duplicate (LAST-UNLOCK) and claimed its score. */
#define LCF_RS_KIND_WAITING 2u

static inline uint64_t
rs_pack(enum lcf_resubmit_op op, uint32_t way, uint32_t lock_kind,
	uint16_t score)
{
	return (uint64_t)op | (uint64_t)(way & 0xff) << 8 |
	       (uint64_t)(lock_kind & 0xff) << 16 | (uint64_t)score << 32;
}

static inline uint32_t
rs_op(uint64_t md)
{
	return md & 0xff;
}
static inline uint32_t
rs_way(uint64_t md)
{
	return (md >> 8) & 0xff;
}
static inline uint32_t
rs_lock_kind(uint64_t md)
{
	return (md >> 16) & 0xff;
}
static inline uint16_t
rs_score(uint64_t md)
{
	return (uint16_t)(md >> 32);
}
static inline bool
rs_reserved_clear(uint64_t md)
{
	return (md & 0xffff0000ff000000ull) == 0;
}

static inline bool
is_request(uint8_t type)
{
	return type >= LCF_T_READ_MISS && type <= LCF_T_EVICT_MODIFIED;
}

static inline bool
is_unlock(uint8_t type)
{
	return type == LCF_T_READ_UNLOCK || type == LCF_T_WRITE_UNLOCK;
}

static inline bool
is_abort(uint8_t type)
{
	return type == LCF_T_ABORT;
}

static inline uint32_t
node_bit(uint32_t node)
{
	return 1u << node;
}

/* ---- result helpers ---------------------------------------------------- */

static void
res_drop(struct lcf_pipeline *p, struct lcf_result *res, enum lcf_drop why)
{
	res->verdict = LCF_V_DROP;
	res->action = LCF_A_DROP;
	res->drop_reason = why;
	p->ctr.drop[why]++;
	p->ctr.action[LCF_A_DROP]++;
}

static void
res_emit(struct lcf_pipeline *p, struct lcf_result *res, enum lcf_action a,
	 uint32_t to_nodes, bool from_switch)
{
	res->verdict = LCF_V_EMIT;
	res->action = a;
	res->to_nodes = to_nodes;
	res->from_switch = from_switch;
	p->ctr.action[a]++;
}

static void
res_resubmit(struct lcf_pipeline *p, struct lcf_result *res, uint64_t md)
{
	res->verdict = LCF_V_RESUBMIT;
	res->action = LCF_A_RESUBMIT;
	res->resubmit_meta = md;
	p->ctr.action[LCF_A_RESUBMIT]++;
}

/* A reply the switch originates toward the requester (NACK, UNLOCK_ACK). */
static void
res_reply(struct lcf_pipeline *p, struct lcf_result *res, struct lcf_phv *phv,
	  uint8_t type, uint8_t flags, enum lcf_action a)
{
	uint8_t orig = phv->m->type;

	phv->m->type = type;
	phv->m->flags = flags;
	phv->m->aux = (uint32_t)orig << 24;
	res_emit(p, res, a, node_bit(phv->m->node), true);
}

/* MIGRATE_ACK to the home agent, mirrored to the shadow node. */
static void
res_migrate_ack(struct lcf_pipeline *p, struct lcf_result *res,
		struct lcf_phv *phv, int way, bool fail, enum lcf_action a)
{
	uint8_t orig = phv->m->type;

	phv->m->type = LCF_T_MIGRATE_ACK;
	phv->m->flags = LCF_F_IN_SWITCH | (fail ? LCF_F_FAIL : 0);
	phv->m->aux = (uint32_t)orig << 24 | (uint32_t)(way & 0xff) << 16;
	res_emit(p, res, a, node_bit(phv->m->node), true);
	if (p->cfg.shadow >= 0) {
		res->mirror_nodes = node_bit((uint32_t)p->cfg.shadow);
		p->ctr.action[LCF_A_MIRROR_SHADOW]++;
	}
}

/* ---- stage 0: parser checks that need the topology --------------------- */

static enum lcf_drop
lcf_stage_parse(const struct lcf_pipeline *p, const struct lcf_ingress *ing,
		struct lcf_phv *phv)
{
	const struct lcf_msg *m = phv->m;

	if (!(p->cfg.node_mask & node_bit(m->node)))
		return LCF_DROP_NODE_UNKNOWN;
	if (ing->port >= p->cfg.n_ports || ing->port >= LCF_MAX_NODES ||
	    p->cfg.port_node[ing->port] != (int8_t)m->node)
		return LCF_DROP_NODE_PORT_MISMATCH;
	if (m->thread >= p->cfg.threads_per_node)
		return LCF_DROP_THREAD_RANGE;
	phv->home = (uint32_t)(m->tag >> (48 - p->cfg.block_shift));
	if (phv->home >= LCF_MAX_NODES ||
	    !(p->cfg.node_mask & node_bit(phv->home)))
		return LCF_DROP_TAG_RANGE;
	phv->req = (uint32_t)m->node * p->cfg.threads_per_node + m->thread;
	return LCF_DROP_NONE;
}

/* ---- stage 2: LAST-UNLOCK ---------------------------------------------- */

/*
 * Is the packet's seq not after LAST-UNLOCK[r], i.e. has an unlock of this
 * event (or a later one) reached the switch? Read only, a request's first
 * pass. A request copy that arrives after its event's unlock (delayed past
 * the retransmission timeout, or duplicated) must not take the lock again,
 * since no unlock would release it. The home agent's LAST-EXECUTED does the
 * same for the blocks it owns.
 */
static bool
lcf_stage_last_unlock_stale(const struct lcf_pipeline *p,
			    const struct lcf_phv *phv)
{
	return !lcf_seq_after(phv->m->seq, p->last_unlock[phv->req].seq);
}

enum lu_answer {
	LU_DUP,
	LU_NEW,
	LU_OPEN
};

/*
 * An unlock's first pass, tag hit or miss: a seq after LAST-UNLOCK opens
 * it (LU_NEW); the same seq still open is a retransmission whose releasing
 * pass has not run (lost, or still queued: LU_OPEN); anything else is a
 * duplicate. Recording on the first pass covers the unlocks of blocks the
 * home owns too, which cross the switch once (PROTOCOL.md 4.3,
 * Interpretation (unlocks of home-owned blocks)); this stage comes before
 * the TAG lookup on a Tofino, so it cannot depend on hit or miss.
 */
static enum lu_answer
lcf_stage_last_unlock_open(struct lcf_pipeline *p, const struct lcf_phv *phv)
{
	struct lcf_lu *lu = &p->last_unlock[phv->req];

	if (lcf_seq_after(phv->m->seq, lu->seq)) {
		*lu = (struct lcf_lu){ phv->m->seq, 1 };
		return LU_NEW;
	}
	return lu->seq == phv->m->seq && lu->open ? LU_OPEN : LU_DUP;
}

/*
 * An unlock's second pass: it executes when its seq is still open, and
 * closes it, so of two copies whose first passes both ran exactly one
 * releases the lock, and a lost second pass leaves the unlock to its
 * retransmission.
 */
static bool
lcf_stage_last_unlock_close(struct lcf_pipeline *p, const struct lcf_phv *phv)
{
	struct lcf_lu *lu = &p->last_unlock[phv->req];

	if (lu->seq != phv->m->seq || !lu->open)
		return false;
	lu->open = 0;
	return true;
}

/* ---- stage 1: TAG ways ------------------------------------------------- */

/* Always inline: two call sites per pass kind, and a call cost more than
 * the probe on the (most common) summary miss. */
static inline __attribute__((always_inline)) void
lcf_stage_tag_lookup(const struct lcf_pipeline *p, struct lcf_phv *phv)
{
	uint64_t key = phv->m->tag | LCF_TAG_VALID;

	phv->hit_way = -1;
	/* A tag in no way is found without probing them: what a miss does
	 * next needs no slot (lcf_stage_tag_insert hashes its own). */
	if (!lcf_summary_maybe(p, phv->m->tag))
		return;
	for (uint32_t w = 0; w < p->cfg.ways; w++) {
		phv->slot[w] = lcf_slot(p, w, phv->m->tag);
		if (p->tag[w][phv->slot[w]] == key) {
			phv->hit_way = (int)w;
			return;
		}
	}
}

/* Resubmitted ADD: write the tag into the first empty way, in stage order. */
static int
lcf_stage_tag_insert(struct lcf_pipeline *p, struct lcf_phv *phv)
{
	uint64_t key = phv->m->tag | LCF_TAG_VALID;

	for (uint32_t w = 0; w < p->cfg.ways; w++) {
		uint64_t *t;

		phv->slot[w] = lcf_slot(p, w, phv->m->tag);
		t = &p->tag[w][phv->slot[w]];
		if (*t == key)
			return -(int)w -
			       1; /* raced with a duplicate: in place */
		if (*t == 0) {
			*t = key;
			lcf_summary_add(p, phv->m->tag);
			return (int)w;
		}
	}
	return LCF_MAX_WAYS;
}

/* ---- stage 3: LOCK + G-STATUS + COPYSET of the hit way ----------------- */

static inline struct lcf_meta *
hit_meta(struct lcf_pipeline *p, const struct lcf_phv *phv)
{
	return &p->meta[phv->hit_way][phv->slot[phv->hit_way]];
}

/*
 * Take the read or write lock and fill in the block's global metadata. A
 * read waits for a writer and for a waiting writer (WAITING is never set in
 * retry mode). `wait` (queued mode, a write request): a write that meets
 * readers only sets WAITING and is the block's waiter.
 */
static void
lcf_stage_lock(struct lcf_pipeline *p, struct lcf_phv *phv, bool write,
	       bool wait)
{
	struct lcf_meta *md = hit_meta(p, phv);

	if (write)
		phv->lock_taken = md->lock == 0;
	else
		phv->lock_taken = !(md->lock &
				    (LCF_LOCK_WRITER | LCF_LOCK_WAITING)) &&
				  (md->lock & LCF_LOCK_READERS) !=
					  LCF_LOCK_READERS;
	if (phv->lock_taken)
		md->lock = write ? LCF_LOCK_WRITER : (uint16_t)(md->lock + 1);
	else if (wait && !(md->lock & (LCF_LOCK_WRITER | LCF_LOCK_WAITING))) {
		phv->waiter = true; /* READERS > 0: the lock was not free */
		md->lock |= LCF_LOCK_WAITING;
	}
	phv->m->gstatus = md->gstatus;
	phv->m->copyset = md->copyset;
}

/* Undo a lock taken by the first pass whose check failed (`kind` 0 read,
 * 1 write), or the WAITING of an aborted waiter (kind 2). */
static void
lcf_stage_lock_release(struct lcf_pipeline *p, struct lcf_phv *phv,
		       uint32_t kind)
{
	struct lcf_meta *md = hit_meta(p, phv);

	if (kind == LCF_RS_KIND_WAITING)
		md->lock &= (uint16_t)~LCF_LOCK_WAITING;
	else if (kind)
		md->lock &= (uint16_t)~LCF_LOCK_WRITER;
	else if (md->lock & LCF_LOCK_READERS)
		md->lock--;
	phv->m->gstatus = md->gstatus;
	phv->m->copyset = md->copyset;
}

/* Executed unlock: release and install the requester's new metadata. */
static void
lcf_stage_lock_unlock(struct lcf_pipeline *p, struct lcf_phv *phv)
{
	struct lcf_meta *md = hit_meta(p, phv);

	if (phv->unlock_exec) {
		if (phv->m->type == LCF_T_READ_UNLOCK) {
			uint16_t readers = md->lock & LCF_LOCK_READERS;
			uint16_t sub = phv->score < readers ? phv->score
							    : readers;

			md->lock = (uint16_t)((md->lock & (LCF_LOCK_WRITER |
							   LCF_LOCK_WAITING)) |
					      (readers - sub));
			md->copyset |= phv->m->copyset & p->cfg.node_mask;
		} else {
			md->lock &= (uint16_t) ~(LCF_LOCK_WRITER |
						 LCF_LOCK_WAITING);
			md->copyset = phv->m->copyset & p->cfg.node_mask;
		}
		md->gstatus = phv->m->gstatus;
	}
	phv->m->gstatus = md->gstatus;
	phv->m->copyset = md->copyset;
}

/* Resubmitted REMOVE: read the metadata out and clear the slot. */
static void
lcf_stage_lock_clear(struct lcf_pipeline *p, struct lcf_phv *phv)
{
	struct lcf_meta *md = hit_meta(p, phv);

	phv->m->gstatus = md->gstatus;
	phv->m->copyset = md->copyset;
	memset(md, 0, sizeof(*md));
}

/* ---- stage W+3: SCOREBOARD ---------------------------------------------- */

/*
 * SCOREBOARD[r][seq & 1] is bound to one event, its `seq` (PROTOCOL.md 4.2):
 * a request passes a busy lock on its score only when copies of the same
 * event hold counted locks, and a copy of an earlier event (a late
 * duplicate, an aborted event's copy) can never let a later one through.
 * Each function is the one read-modify-write of its pass kind.
 */
static inline struct lcf_sb *
sb_entry(struct lcf_pipeline *p, const struct lcf_phv *phv)
{
	return &p->sb[phv->req][phv->m->seq & 1];
}

/*
 * Is the entry's event older than seq? Seq 0 is no requester's (agents
 * skip it), so an entry at 0 is empty (power-on, or reset by
 * lcf_pipeline_node_failed) and older than every seq: in RFC 1982 order 0
 * is after every seq of the upper half, and a requester whose seqs jump
 * there would find its unused parity "later" (model seqjump.pml).
 */
static inline bool
sb_older(const struct lcf_sb *e, uint32_t seq)
{
	return e->seq == 0 || lcf_seq_after(seq, e->seq);
}

/* Count an entry about to move on to a later seq while it still counts
 * locks (lcf_counters.sb_held_overwritten). */
static inline void
sb_note_overwrite(struct lcf_pipeline *p, const struct lcf_sb *e)
{
	if (e->c != LCF_SB_ENDED && (e->c & LCF_SB_COUNT_MAX) != 0)
		p->ctr.sb_held_overwritten++;
}

/* Is the event of seq over, by an entry `e` (read only)? */
static inline bool
sb_over(const struct lcf_sb *e, uint32_t seq)
{
	if (e->seq == seq)
		return !lcf_sb_is_count(e->c);
	return e->seq != 0 && lcf_seq_after(e->seq, seq);
}

/*
 * Request, tag hit. `count`: this copy took the lock and passed the check,
 * so only the event's unlock will release its lock. A copy that will be
 * released by a RELEASE pass is never counted, so an unlock never
 * subtracts a lock that a RELEASE also releases.
 */
static void
lcf_stage_sb_request(struct lcf_pipeline *p, struct lcf_phv *phv, bool count)
{
	struct lcf_sb *e = sb_entry(p, phv);
	uint32_t seq = phv->m->seq;

	phv->sb_over = sb_over(e, seq);
	if (phv->sb_over) {
		phv->sb_held = false;
		return;
	}
	if (e->seq == seq) {
		/* At most LCF_LOCK_READERS locks exist: no overflow. */
		e->c += count;
	} else if (count) {
		/* A later event: the entry's old event has ended (its unlock
		 * was acknowledged, or it was aborted) or holds only locks a
		 * pending RELEASE frees. */
		sb_note_overwrite(p, e);
		e->seq = seq;
		e->c = 1;
	}
	phv->sb_held = e->seq == seq && e->c > 0;
}

/* Request or tag-miss read: is the event over? */
static bool
lcf_stage_sb_read_over(const struct lcf_pipeline *p, const struct lcf_phv *phv)
{
	return sb_over(&p->sb[phv->req][phv->m->seq & 1], phv->m->seq);
}

/*
 * Unlock, first pass on a tag hit, not a duplicate: claim the event's count.
 * Returns whether the unlock may execute: only an event that holds counted
 * locks here has anything to release. An unlock whose event went home (its
 * block moved to the switch since) finds the entry ENDED and executes
 * nothing: it must not release whoever holds the block now, nor install
 * its metadata. A retransmission whose second pass was lost finds its own
 * claim and carries the same count.
 */
static bool
lcf_stage_sb_claim(struct lcf_pipeline *p, const struct lcf_phv *phv,
		   uint16_t *score)
{
	struct lcf_sb *e = sb_entry(p, phv);
	uint32_t seq = phv->m->seq;

	*score = 0;
	if (e->seq == seq) {
		if (lcf_sb_is_count(e->c) && e->c > 0)
			e->c |= LCF_SB_CLAIMED;
		if (!(e->c & LCF_SB_CLAIMED))
			return false; /* COUNT 0, ENDED: nothing held */
		*score = (uint16_t)(e->c & LCF_SB_COUNT_MAX);
		return true;
	}
	if (sb_older(e, seq)) {
		/* No copy was counted: the event is over, hold nothing. */
		sb_note_overwrite(p, e);
		e->seq = seq;
		e->c = LCF_SB_ENDED;
	}
	return false;
}

/*
 * Unlock, tag miss: the event (served by the home) ended holding no switch
 * lock (a copy holding one would pin its block in the switch). The entry
 * moves on to it, ENDED: a late copy of the event is over if its block
 * moves to the switch, and the entry ages with the requester's seqs even
 * when its events never hit (RFC 1982 order needs it within 2^31 of every
 * seq it is compared with). The entry's older event holds no counted lock:
 * its unlock was acknowledged before this event began.
 */
static void
lcf_stage_sb_unlock_miss(struct lcf_pipeline *p, const struct lcf_phv *phv)
{
	struct lcf_sb *e = sb_entry(p, phv);

	if (e->seq == phv->m->seq || sb_older(e, phv->m->seq)) {
		if (e->seq != phv->m->seq)
			sb_note_overwrite(p, e);
		e->seq = phv->m->seq;
		e->c = LCF_SB_ENDED;
	}
}

/*
 * QXFER or QRELEASE, tag hit, first pass: the tenure's event ends for its
 * later copies, here and not in LAST-UNLOCK (a given-up tenure ends out of
 * its thread's unlock order, docs/MODEL.md qorder.pml). A count is claimed
 * (an ABORT still finds "a copy passed"), COUNT 0 or a later seq is ENDED:
 * either way every later copy is over. Returns whether the seq is 2^15 or
 * more before the entry's (lcf_q_release_stale(); a QRELEASE is then
 * stale).
 */
static bool
lcf_stage_sb_qend(struct lcf_pipeline *p, const struct lcf_phv *phv)
{
	struct lcf_sb *e = sb_entry(p, phv);
	uint32_t seq = phv->m->seq;

	if (lcf_q_release_stale(e->seq, seq))
		return true; /* not after e->seq: nothing to write */
	if (e->seq == seq && lcf_sb_is_count(e->c) && e->c > 0)
		e->c |= LCF_SB_CLAIMED;
	else if ((e->seq == seq && e->c == 0) || sb_older(e, seq))
		*e = (struct lcf_sb){ seq, LCF_SB_ENDED };
	return false;
}

/* QRELEASE, second pass, executed: the event ended, holding nothing. */
static void
lcf_stage_sb_qdone(struct lcf_pipeline *p, const struct lcf_phv *phv)
{
	struct lcf_sb *e = sb_entry(p, phv);

	if (e->seq == phv->m->seq)
		e->c = LCF_SB_ENDED;
}

/* Unlock, second pass, executed: the event holds nothing any more. */
static void
lcf_stage_sb_unlocked(struct lcf_pipeline *p, const struct lcf_phv *phv)
{
	struct lcf_sb *e = sb_entry(p, phv);

	if (e->seq == phv->m->seq)
		e->c = 0;
}

/*
 * ABORT, hit or miss (PROTOCOL.md 4.9): one pass, so it is atomic against
 * every copy of the event. Returns true when a copy holds a counted lock
 * (or the unlock is under way): nothing is recorded, the requester finishes
 * the event and unlocks it. Otherwise the event is marked ABORTED and every
 * later copy of it is over.
 */
static bool
lcf_stage_sb_abort(struct lcf_pipeline *p, const struct lcf_phv *phv)
{
	struct lcf_sb *e = sb_entry(p, phv);
	uint32_t seq = phv->m->seq;

	if (e->seq == seq) {
		if ((lcf_sb_is_count(e->c) && e->c > 0) ||
		    (e->c & LCF_SB_CLAIMED))
			return true;
		e->c = LCF_SB_ENDED;
	} else if (sb_older(e, seq)) {
		sb_note_overwrite(p, e);
		e->seq = seq;
		e->c = LCF_SB_ENDED;
	}
	return false;
}

/* ---- stage 5: check table (Table 2) ------------------------------------ */

enum {
	CS_IN,
	CS_NOT_IN
};
#define GS_ANY      0xff
#define GS_UNSHARED LCF_GS_UNSHARED
#define GS_SHARED   LCF_GS_SHARED
#define GS_MODIFIED LCF_GS_MODIFIED

struct check_row {
	uint8_t cs_test;
	uint8_t gstatus;
};

static const struct check_row lcf_check_table[LCF_T_PIPELINE_LAST + 1] = {
#define LCF_X_ROW(type, cs, gs) [LCF_T_##type] = { CS_##cs, GS_##gs },
	LCF_CHECK_TABLE(LCF_X_ROW)
#undef LCF_X_ROW
};

static bool
lcf_table_check(const struct lcf_phv *phv)
{
	const struct check_row *row = &lcf_check_table[phv->m->type];
	bool in = phv->m->copyset & node_bit(phv->m->node);

	if (in != (row->cs_test == CS_IN))
		return false;
	return row->gstatus == GS_ANY || row->gstatus == phv->m->gstatus;
}

/* ---- stage 6: forward table (Table 3) ---------------------------------- */

static const uint8_t lcf_forward_table[LCF_T_PIPELINE_LAST + 1][3] = {
#define LCF_X_ROW(type, gs, fwd) [LCF_T_##type][GS_##gs] = LCF_FWD_##fwd,
	LCF_FORWARD_TABLE(LCF_X_ROW)
#undef LCF_X_ROW
};

/*
 * The data provider is a hash of the event (requester, seq), not a draw per
 * pass: a retransmission that passes on the scoreboard while copies of the
 * first pass are still on their way must name the same provider. Otherwise
 * each cache may see first the copy that does not ask it for the data,
 * invalidate, and the data is gone. Over many events the choice is as
 * uniform over the copyset as a random draw.
 */
static uint32_t
pick_provider(const struct lcf_pipeline *p, const struct lcf_phv *phv,
	      uint32_t set)
{
	uint64_t event = (uint64_t)phv->req << 32 | phv->m->seq;

	return lcf_random_node(set, lcf_crc32c_u64(p->cfg.seed, event));
}

static void
lcf_table_forward(struct lcf_pipeline *p, struct lcf_phv *phv,
		  struct lcf_result *res)
{
	uint32_t cs = phv->m->copyset, self = node_bit(phv->m->node);
	uint8_t fwd = lcf_forward_table[phv->m->type][phv->m->gstatus];

	phv->m->flags = LCF_F_IN_SWITCH;
	/* Metadata no correct unlock produces: the home node owns the data. */
	if (cs == 0 && fwd != LCF_FWD_HOME && fwd != LCF_FWD_RETURN)
		fwd = LCF_FWD_HOME;

	switch (fwd) {
	case LCF_FWD_HOME:
		res_emit(p, res, LCF_A_FWD_HOME, node_bit(phv->home), false);
		break;
	case LCF_FWD_OWNER:
		res->provider = (uint16_t)__builtin_ctz(cs);
		res_emit(p, res, LCF_A_FWD_OWNER, node_bit(res->provider),
			 false);
		break;
	case LCF_FWD_PROVIDER:
		res->provider = (uint16_t)pick_provider(p, phv, cs);
		res_emit(p, res, LCF_A_FWD_PROVIDER, node_bit(res->provider),
			 false);
		break;
	case LCF_FWD_MCAST_PROV:
		res->provider = (uint16_t)pick_provider(p, phv, cs);
		res_emit(p, res, LCF_A_MCAST_INVALIDATE, cs, false);
		break;
	case LCF_FWD_MCAST_OTHERS:
		if ((cs & ~self) == 0)
			res_emit(p, res, LCF_A_ACK_SOLE_HOLDER, self, true);
		else
			res_emit(p, res, LCF_A_MCAST_INVALIDATE, cs & ~self,
				 false);
		break;
	case LCF_FWD_RETURN:
	default: /* no row: the check table lets nothing else through */
		res_emit(p, res, LCF_A_RETURN_EVICT, self, true);
		break;
	}
}

/* ---- passes -------------------------------------------------------------- */

/*
 * Queued lock mode, a request after SCOREBOARD (docs/QUEUED-LOCKS.md 3,
 * lcf_q_request()): a write lock taken and counted makes the event the
 * queue holder; a write that met readers is the waiting writer (QWAIT), its
 * polls are answered QWAIT or QGRANT, or its WAITING undone when its event
 * is over; a request that would be NACKed as lock busy goes to the holder
 * instead, when there is one, unless its event is over (an aborted event's
 * late copy: nobody would take its grant). Returns true when the pass is
 * decided here.
 */
static bool
pass_request_queue(struct lcf_pipeline *p, struct lcf_phv *phv,
		   struct lcf_result *res, bool write_ok)
{
	const struct lcf_msg *m = phv->m;
	uint32_t w = (uint32_t)phv->hit_way, aux = 0;
	uint16_t to = 0;
	const struct lcf_q_in in = {
		.id = lcf_q_id(m->node, m->thread, m->seq),
		.grant = phv->lock_taken && write_ok && !phv->sb_over,
		.waiter = phv->waiter,
		.taken = phv->lock_taken,
		.over = phv->sb_over,
		.busy = !phv->lock_taken && !phv->sb_held && !phv->sb_over,
		.readers = hit_meta(p, phv)->lock & LCF_LOCK_READERS,
	};

	switch (lcf_q_request(p, w, phv->slot[w], &in, &to, &aux)) {
	case LCF_QV_FORWARD:
		phv->m->flags = LCF_F_IN_SWITCH;
		phv->m->aux = aux;
		res_emit(p, res, LCF_A_FWD_HOLDER, node_bit(to), false);
		return true;
	case LCF_QV_WAIT:
	case LCF_QV_GRANT: {
		bool grant = !in.readers;

		lcf_q_wait_reply(phv->m, grant, in.readers);
		res_emit(p, res, grant ? LCF_A_QGRANT : LCF_A_QWAIT,
			 node_bit(m->node), true);
		return true;
	}
	case LCF_QV_UNDO:
		res_resubmit(p, res,
			     rs_pack(LCF_RS_RELEASE, w, LCF_RS_KIND_WAITING,
				     0));
		return true;
	default:
		return false;
	}
}

/* QXFER_ACK to the holder (lcf_q_ack() turns the header into it). */
static void
res_qxfer_ack(struct lcf_pipeline *p, struct lcf_result *res,
	      struct lcf_phv *phv, enum lcf_q_reason why, uint32_t fwd_cnt,
	      enum lcf_action a)
{
	lcf_q_ack(phv->m, why, fwd_cnt);
	res_emit(p, res, a, node_bit(phv->m->node), true);
}

/* QXFER and QRELEASE, tag hit, first pass (lcf_q_first_pass()). The lock
 * stage is read only: the reply's metadata. A QRELEASE 2^15 seqs or more
 * before its requester's SCOREBOARD seq is stale: it may carry the id of a
 * later tenure (16 bits of the seq), so QSTATE is not looked at and it is
 * answered approved, one pass. An approved QRELEASE's resubmit carries
 * the epoch QGATE is open under (in `score`, PROTOCOL.md 4.8). */
static void
pass_queue(struct lcf_pipeline *p, struct lcf_phv *phv, struct lcf_result *res)
{
	const struct lcf_meta *md = hit_meta(p, phv);
	uint32_t w = (uint32_t)phv->hit_way, fwd_cnt = 0;
	enum lcf_q_reason why;
	bool stale = false;

	if (p->cfg.queued)
		stale = lcf_stage_sb_qend(p, phv) &&
			phv->m->type == LCF_T_QRELEASE;
	if (stale) {
		why = LCF_Q_OK;
	} else if (lcf_q_first_pass(p, phv->m, w, phv->slot[w], md->lock, &why,
				    &fwd_cnt)) {
		res_resubmit(p, res,
			     rs_pack(LCF_RS_QRELEASE, w, 0, phv->score));
		return;
	}
	phv->m->gstatus = md->gstatus;
	phv->m->copyset = md->copyset;
	res_qxfer_ack(p, res, phv, why, fwd_cnt,
		      stale             ? LCF_A_QRELEASE_DUP
		      : why == LCF_Q_OK ? LCF_A_QXFER_OK
					: LCF_A_QXFER_DENIED);
}

/*
 * A stale request that is its block's waiting writer's poll (row 4, read
 * only): answered QWAIT or QGRANT whatever LAST-UNLOCK says. A given-up
 * waiting writer's tenure passed (its ABORT said so); its node polls it on
 * while its thread unlocks later seqs (docs/MODEL.md qorder.pml, OLDPOLL).
 */
static bool
pass_stale_poll(struct lcf_pipeline *p, struct lcf_phv *phv,
		struct lcf_result *res)
{
	const struct lcf_meta *md = hit_meta(p, phv);
	uint32_t w = (uint32_t)phv->hit_way;
	uint16_t readers = md->lock & LCF_LOCK_READERS;

	if (!lcf_q_stale_poll(p, w, phv->slot[w],
			      lcf_q_id(phv->m->node, phv->m->thread,
				       phv->m->seq)))
		return false;
	phv->m->gstatus = md->gstatus;
	phv->m->copyset = md->copyset;
	lcf_q_wait_reply(phv->m, !readers, readers);
	res_emit(p, res, readers ? LCF_A_QWAIT : LCF_A_QGRANT,
		 node_bit(phv->m->node), true);
	return true;
}

static void
pass_request(struct lcf_pipeline *p, struct lcf_phv *phv,
	     struct lcf_result *res)
{
	bool write = phv->m->type != LCF_T_READ_MISS, chk;

	if (lcf_stage_last_unlock_stale(p, phv)) {
		if (p->cfg.queued && pass_stale_poll(p, phv, res))
			return;
		res_reply(p, res, phv, LCF_T_NACK, LCF_F_IN_SWITCH | LCF_F_FAIL,
			  LCF_A_NACK_STALE);
		return;
	}
	lcf_stage_lock(p, phv, write, write && p->cfg.queued);
	/* The VERSION beside the LOCK: every write request that could be
	 * granted counts (the verdict comes later on a Tofino). */
	if (phv->m->type == LCF_T_WRITE_MISS ||
	    phv->m->type == LCF_T_WRITE_SHARED)
		lcf_version_bump(p, (uint32_t)phv->hit_way,
				 phv->slot[phv->hit_way]);
	chk = lcf_table_check(phv);
	lcf_stage_sb_request(p, phv, phv->lock_taken && chk);
	if (p->cfg.queued && pass_request_queue(p, phv, res, write && chk))
		return;
	if (!phv->lock_taken && !phv->sb_held) {
		res_reply(p, res, phv, LCF_T_NACK, LCF_F_IN_SWITCH | LCF_F_FAIL,
			  LCF_A_NACK_LOCK_BUSY);
		return;
	}
	/* A copy of an event that is over (aborted, unlocked or unlocking,
	 * or superseded) or that fails Table 2 is refused; a lock this pass
	 * took is released by the second pass (counted as nack_check_failed). */
	if (phv->sb_over || !chk) {
		if (phv->lock_taken)
			res_resubmit(p, res,
				     rs_pack(LCF_RS_RELEASE,
					     (uint32_t)phv->hit_way, write, 0));
		else
			res_reply(p, res, phv, LCF_T_NACK,
				  LCF_F_IN_SWITCH | LCF_F_FAIL,
				  phv->sb_over ? LCF_A_NACK_ABORTED
					       : LCF_A_NACK_CHECK_FAIL);
		return;
	}
	if (!phv->lock_taken)
		p->ctr.action[LCF_A_RETRANSMIT_PASS]++;
	lcf_table_forward(p, phv, res);
}

/* VERSION_READ (PROTOCOL.md 4.10), hit or miss: one pass, no lock taken,
 * no register written; the VERSION reply goes to the requester. */
static void
pass_version_read(struct lcf_pipeline *p, struct lcf_phv *phv,
		  struct lcf_result *res)
{
	enum lcf_action a;

	if (phv->hit_way < 0) {
		a = lcf_version_read(p, -1, 0, 0, 0, phv->m);
	} else {
		const struct lcf_meta *md = hit_meta(p, phv);

		a = lcf_version_read(p, phv->hit_way, phv->slot[phv->hit_way],
				     md->lock, md->gstatus, phv->m);
	}
	res_emit(p, res, a, node_bit(phv->m->node), true);
}

/*
 * Tag miss: home. An unlock records LAST-UNLOCK; an ABORT marks its event
 * in SCOREBOARD (the home answers it; if the block moves to the switch, a
 * late copy of the event is refused there: no copy can hold a switch lock
 * for a block the switch does not hold, so the mark is always right); a
 * request whose event the switch knows is over goes home with FAIL set: the
 * home must not execute it (the block may have left the switch since).
 */
static void
pass_miss(struct lcf_pipeline *p, struct lcf_phv *phv, struct lcf_result *res)
{
	uint8_t type = phv->m->type;

	phv->m->flags &= (uint8_t) ~(LCF_F_IN_SWITCH | LCF_F_DATA_PROVIDER);
	if (is_unlock(type) || (lcf_type_is_queue(type) && p->cfg.queued))
		lcf_stage_sb_unlock_miss(p, phv);
	else if (is_abort(type))
		(void)lcf_stage_sb_abort(p, phv);
	else if (is_request(type) && lcf_stage_sb_read_over(p, phv))
		phv->m->flags |= LCF_F_FAIL;
	res_emit(p, res, LCF_A_TAG_MISS_HOME, node_bit(phv->home), false);
}

/*
 * ABORT, tag hit (PROTOCOL.md 4.9): a copy that was counted before it makes
 * the answer FAIL ("a copy passed": the requester releases that lock with
 * its unlock), and so does, in queued mode, a copy that made the event its
 * block's waiting writer (lcf_q_abort_waiting(): the requester polls on and
 * ends the tenure); a copy after it finds the event ENDED. When no copy passed
 * here, the ABORT goes on to the home, which answers it: a copy that missed
 * in the switch before the block was ADDed may still be on its way there,
 * and only the home's record refuses it if the block is REMOVEd back.
 */
static void
pass_abort(struct lcf_pipeline *p, struct lcf_phv *phv, struct lcf_result *res)
{
	if (lcf_stage_sb_abort(p, phv)) {
		res_reply(p, res, phv, LCF_T_ABORT_ACK,
			  LCF_F_IN_SWITCH | LCF_F_FAIL, LCF_A_ABORT_PASSED);
		return;
	}
	/* The block's waiting writer (QSTATE {id, SWITCH}): its tenure is a
	 * copy that passed, whatever the SCOREBOARD mark just made. */
	if (lcf_q_abort_waiting(p, (uint32_t)phv->hit_way,
				phv->slot[phv->hit_way],
				lcf_q_id(phv->m->node, phv->m->thread,
					 phv->m->seq))) {
		res_reply(p, res, phv, LCF_T_ABORT_ACK,
			  LCF_F_IN_SWITCH | LCF_F_FAIL, LCF_A_ABORT_PASSED);
		return;
	}
	phv->m->flags |= LCF_F_IN_SWITCH;
	res_emit(p, res, LCF_A_ABORT_HOME, node_bit(phv->home), false);
}

static void
pass_first(struct lcf_pipeline *p, struct lcf_phv *phv, struct lcf_result *res)
{
	uint8_t type = phv->m->type;
	enum lu_answer lu = LU_DUP;
	struct lcf_meta *md;

	lcf_stage_tag_lookup(p, phv);
	if (type == LCF_T_ADD_TO_SWITCH) {
		if (phv->hit_way < 0) {
			res_resubmit(p, res, rs_pack(LCF_RS_ADD, 0, 0, 0));
			return;
		}
		md = hit_meta(p, phv);
		phv->m->gstatus = md->gstatus;
		phv->m->copyset = md->copyset;
		res_migrate_ack(p, res, phv, phv->hit_way, false,
				LCF_A_ADD_DUP);
		return;
	}
	if (type == LCF_T_VERSION_READ) {
		pass_version_read(p, phv, res);
		return;
	}
	if (is_unlock(type))
		lu = lcf_stage_last_unlock_open(p, phv);
	else if (type == LCF_T_QRELEASE && p->cfg.queued)
		phv->score = lcf_q_gate_open(p, phv->req, phv->m->seq);
	if (phv->hit_way < 0) {
		pass_miss(p, phv, res);
		return;
	}
	if (lcf_type_is_queue(type)) {
		pass_queue(p, phv, res);
	} else if (is_request(type)) {
		pass_request(p, phv, res);
	} else if (is_unlock(type)) {
		/* Executes in the second pass, which closes LAST-UNLOCK; here
		 * an unlock that is not a duplicate claims its score. */
		phv->unlock_exec = lu != LU_DUP &&
				   lcf_stage_sb_claim(p, phv, &phv->score);
		res_resubmit(p, res,
			     rs_pack(LCF_RS_UNLOCK, (uint32_t)phv->hit_way,
				     phv->unlock_exec, phv->score));
	} else if (is_abort(type)) {
		pass_abort(p, phv, res);
	} else { /* REMOVE_FROM_SWITCH */
		lcf_stage_lock(p, phv, true, false);
		if (phv->lock_taken)
			res_resubmit(p, res,
				     rs_pack(LCF_RS_REMOVE,
					     (uint32_t)phv->hit_way, 0, 0));
		else
			res_reply(p, res, phv, LCF_T_NACK,
				  LCF_F_IN_SWITCH | LCF_F_FAIL,
				  LCF_A_NACK_LOCK_BUSY);
	}
}

/* Which resubmit op each type's first pass can produce. */
static uint32_t
expected_rs_op(uint8_t type)
{
	if (is_request(type))
		return LCF_RS_RELEASE;
	if (is_unlock(type))
		return LCF_RS_UNLOCK;
	if (is_abort(type) || type == LCF_T_VERSION_READ || type == LCF_T_QXFER)
		return 0xff; /* one pass: no metadata is valid */
	if (type == LCF_T_QRELEASE)
		return LCF_RS_QRELEASE;
	return type == LCF_T_ADD_TO_SWITCH ? LCF_RS_ADD : LCF_RS_REMOVE;
}

static void
pass_resubmitted(struct lcf_pipeline *p, struct lcf_phv *phv, uint64_t md,
		 struct lcf_result *res)
{
	uint32_t op = rs_op(md), way = rs_way(md);
	int w;

	if (op != expected_rs_op(phv->m->type) || !rs_reserved_clear(md) ||
	    way >= p->cfg.ways ||
	    (rs_lock_kind(md) > 1 &&
	     !(rs_lock_kind(md) == LCF_RS_KIND_WAITING &&
	       op == LCF_RS_RELEASE && p->cfg.queued))) {
		res_drop(p, res, LCF_DROP_BAD_RESUBMIT);
		return;
	}
	lcf_stage_tag_lookup(p, phv);

	if (op == LCF_RS_ADD) {
		w = lcf_stage_tag_insert(p, phv);
		if (w == LCF_MAX_WAYS) {
			res_migrate_ack(p, res, phv, 0xff, true,
					LCF_A_ADD_COLLISION);
			return;
		}
		if (w < 0) {
			phv->hit_way = -w - 1;
			res_migrate_ack(p, res, phv, phv->hit_way, false,
					LCF_A_ADD_DUP);
			return;
		}
		/* Only existing nodes may be multicast to (as a Tofino's
		 * multicast group holds only their ports). */
		phv->m->copyset &= p->cfg.node_mask;
		p->meta[w][phv->slot[w]] = (struct lcf_meta){
			.copyset = phv->m->copyset,
			.gstatus = phv->m->gstatus,
		};
		lcf_version_add(p, (uint32_t)w, phv->slot[w], phv->m->seq);
		res_migrate_ack(p, res, phv, w, false, LCF_A_ADD_OK);
		return;
	}

	/* The first pass's lock pins the tag to its way until this pass. */
	if (phv->hit_way != (int)way) {
		res_drop(p, res, LCF_DROP_BAD_RESUBMIT);
		return;
	}
	switch (op) {
	case LCF_RS_RELEASE:
		/* The copy was never counted: SCOREBOARD is not touched. */
		lcf_stage_lock_release(p, phv, rs_lock_kind(md));
		res_reply(p, res, phv, LCF_T_NACK, LCF_F_IN_SWITCH | LCF_F_FAIL,
			  rs_lock_kind(md) == LCF_RS_KIND_WAITING
				  ? LCF_A_NACK_ABORTED
				  : LCF_A_NACK_CHECK_FAIL);
		break;
	case LCF_RS_UNLOCK:
		phv->unlock_exec = rs_lock_kind(md) &&
				   lcf_stage_last_unlock_close(p, phv);
		phv->score = rs_score(md);
		lcf_stage_lock_unlock(p, phv);
		if (phv->unlock_exec)
			lcf_stage_sb_unlocked(p, phv);
		res_reply(p, res, phv, LCF_T_UNLOCK_ACK, LCF_F_IN_SWITCH,
			  phv->unlock_exec ? LCF_A_UNLOCK_EXEC
					   : LCF_A_UNLOCK_DUP);
		break;
	case LCF_RS_QRELEASE: {
		/* The write lock is released and the metadata installed as by
		 * a WRITE_UNLOCK, when QRELEASE's gate is still open for it
		 * under the epoch of its first pass (not LAST-UNLOCK: a
		 * given-up tenure ends out of the unlock order). A pass the gate stopped while QSTATE is still its
		 * {id, CLOSING} answers "closing": the holder sends it again. */
		bool again;

		phv->unlock_exec = p->q_gate != NULL &&
				   lcf_q_gate_close(p, phv->req, phv->m->seq,
						    rs_score(md));
		lcf_stage_lock_unlock(p, phv);
		if (phv->unlock_exec)
			lcf_stage_sb_qdone(p, phv);
		again = lcf_q_release2(p, way, phv->slot[way],
				       lcf_q_id(phv->m->node, phv->m->thread,
						phv->m->seq),
				       phv->unlock_exec);
		if (again)
			res_qxfer_ack(p, res, phv, LCF_Q_IS_CLOSING,
				      LCF_Q_CLOSING, LCF_A_QXFER_DENIED);
		else
			res_qxfer_ack(p, res, phv, LCF_Q_OK, 0,
				      phv->unlock_exec ? LCF_A_QRELEASE_EXEC
						       : LCF_A_QRELEASE_DUP);
		break;
	}
	default: /* LCF_RS_REMOVE */
		p->tag[way][phv->slot[way]] = 0;
		lcf_summary_del(p, phv->m->tag);
		lcf_stage_lock_clear(p, phv);
		res_migrate_ack(p, res, phv, (int)way, false, LCF_A_REMOVE_OK);
		break;
	}
}

void
lcf_pipeline_prefetch(const struct lcf_pipeline *p, uint64_t tag)
{
	uint32_t s0 = lcf_slot(p, 0, tag);

	__builtin_prefetch(lcf_summary_at(p, tag));
	__builtin_prefetch(&p->tag[0][s0]);
	__builtin_prefetch(&p->meta[0][s0]);
}

void
lcf_pipeline_count_drop(struct lcf_pipeline *p, enum lcf_drop reason)
{
	p->ctr.packets++;
	if ((unsigned)reason >= LCF_DROP_MAX || reason == LCF_DROP_NONE)
		reason = LCF_DROP_UNKNOWN_TYPE;
	p->ctr.drop[reason]++;
	p->ctr.action[LCF_A_DROP]++;
}

void
lcf_pipeline_process(struct lcf_pipeline *p, const struct lcf_msg *msg,
		     const struct lcf_ingress *ing, struct lcf_result *res)
{
	struct lcf_phv phv;
	enum lcf_drop why;

	p->ctr.packets++;
	res->provider = LCF_NODE_NONE;
	res->to_nodes = 0;
	res->mirror_nodes = 0;
	res->from_switch = false;
	res->drop_reason = LCF_DROP_NONE;
	res->out = *msg;
	phv.m = &res->out;
	phv.lock_taken = false;
	phv.waiter = false;
	phv.unlock_exec = false;
	phv.sb_held = false;
	phv.sb_over = false;
	phv.score = 0;

	why = lcf_stage_parse(p, ing, &phv);
	if (why == LCF_DROP_NONE && !lcf_type_is_pipeline(msg->type))
		why = LCF_DROP_UNKNOWN_TYPE;
	if (why != LCF_DROP_NONE) {
		res_drop(p, res, why);
		return;
	}
	if (ing->resubmitted)
		pass_resubmitted(p, &phv, ing->resubmit_meta, res);
	else
		pass_first(p, &phv, res);
}
