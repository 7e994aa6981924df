/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The lock-check-forward (LCF) pipeline: Concordia's switch data plane
 * (paper 000, section 5.1 with 5.3.2 and the migration requests of 5.2.1) as a
 * pure C library. No DPDK, no allocation or locks on the processing path.
 *
 * One struct lcf_pipeline is one copy of the switch's register arrays and is
 * driven by one thread. Several pipelines shard the tag space between lcores
 * (all packets of a tag go to one pipeline, so P1/P2 hold per block).
 *
 * The caller hands the pipeline one packet at a time with its ingress
 * metadata and gets back a result: drop, emit copies, or resubmit. A
 * resubmit is never a recursive call: the caller re-injects the same packet
 * (unmodified) with the returned 8-byte metadata after the packets it already
 * holds, exactly once.
 *
 * Stage order, as in the P4 program (lib/p4/) and docs/ARCHITECTURE.md:
 *   0  parser + validation (node/port/thread/home checks)
 *   1  TAG way 0..W-1         (set-associative lookup; insert/clear)
 *   2  LAST-UNLOCK            (stale requests and duplicate unlocks)
 *   3  LOCK+G-STATUS+COPYSET way 0..W-1 (hit way only, one atomic update)
 *   4  check table            (Table 2)
 *   5  SCOREBOARD             (per requester and seq parity: {seq, count})
 *   6  forward table          (Table 3) + data-provider selection
 *   3' VERSION way 0..W-1     (beside LOCK, hit way only: VERSION_READ,
 *                              write requests, ADD; lcf_version.c)
 *   7  QSTATE way 0..W-1      (queued lock mode: QHOLDER, FWD_CNT;
 *                             lcf_queue.c, docs/QUEUED-LOCKS.md)
 */
#ifndef LCF_PIPELINE_H
#define LCF_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lcf_wire.h"

struct topo;

#define LCF_MAX_WAYS     32
#define LCF_LOCK_WRITER  0x8000u
#define LCF_LOCK_WAITING 0x4000u /* queued mode: a writer waits for readers */
#define LCF_LOCK_READERS 0x3fffu

/* Everything the pipeline needs from the topology. */
struct lcf_pipeline_config {
	uint32_t ways;
	uint32_t slots_per_way;
	uint16_t threads_per_node;
	uint8_t block_shift;
	uint32_t node_mask;              /* nodes that exist */
	int8_t port_node[LCF_MAX_NODES]; /* ingress port -> node id, -1 */
	uint16_t n_ports;
	int shadow;         /* node id or -1 */
	uint32_t seed;      /* data-provider hash seed, != 0 */
	uint32_t hash_salt; /* added to way seeds (sharding) */
	bool queued;        /* lock mode "queued" (docs/QUEUED-LOCKS.md) */
};

/*
 * Actions the pipeline takes; each has a counter. X(name, string).
 */
/* clang-format off */
#define LCF_ACTION_LIST(X)                                        \
	X(TAG_MISS_HOME,     "tag_miss_to_home")                  \
	X(FWD_HOME,          "forward_home_unshared")             \
	X(FWD_OWNER,         "forward_owner_modified")            \
	X(FWD_PROVIDER,      "forward_data_provider_shared")      \
	X(MCAST_INVALIDATE,  "multicast_invalidate")              \
	X(ACK_SOLE_HOLDER,   "ack_sole_holder")                   \
	X(RETURN_EVICT,      "return_eviction")                   \
	X(NACK_LOCK_BUSY,    "nack_lock_busy")                    \
	X(NACK_CHECK_FAIL,   "nack_check_failed")                 \
	X(NACK_STALE,        "nack_stale_request")                \
	X(RETRANSMIT_PASS,   "retransmit_passed_on_score")        \
	X(RESUBMIT,          "resubmit")                          \
	X(UNLOCK_EXEC,       "unlock_executed")                   \
	X(UNLOCK_DUP,        "unlock_duplicate_ignored")          \
	X(ADD_OK,            "add_to_switch_ok")                  \
	X(ADD_DUP,           "add_to_switch_duplicate")           \
	X(ADD_COLLISION,     "add_to_switch_collision")           \
	X(REMOVE_OK,         "remove_from_switch_ok")             \
	X(MIRROR_SHADOW,     "mirror_to_shadow")                  \
	X(DROP,              "drop")                              \
	X(ABORT_HOME,        "abort_to_home")                     \
	X(ABORT_PASSED,      "abort_copy_passed")                 \
	X(NACK_ABORTED,      "nack_aborted_request")              \
	X(VERSION_HIT,       "version_read_hit")                  \
	X(VERSION_MISS,      "version_read_miss")                 \
	X(FWD_HOLDER,        "forward_to_holder")                 \
	X(QXFER_OK,          "qxfer_approved")                    \
	X(QXFER_DENIED,      "qxfer_denied")                      \
	X(QRELEASE_EXEC,     "qrelease_executed")                 \
	X(QRELEASE_DUP,      "qrelease_duplicate_ignored")        \
	X(QWAIT,             "q_wait")                            \
	X(QGRANT,            "q_grant")
/* clang-format on */

enum lcf_action {
#define LCF_X_ENUM(name, str) LCF_A_##name,
	LCF_ACTION_LIST(LCF_X_ENUM)
#undef LCF_X_ENUM
	LCF_A_MAX
};

/*
 * Check table (paper Table 2): X(type, copyset test, required gstatus).
 * IN = requester in copyset, NOT_IN = not in it; ANY = any gstatus.
 * The pipeline is driven by this table, and lib/p4/check_parity.py compares
 * it with the P4 program's const entries.
 */
/* clang-format off */
#define LCF_CHECK_TABLE(X)                        \
	X(READ_MISS,      NOT_IN, ANY)            \
	X(WRITE_MISS,     NOT_IN, ANY)            \
	X(WRITE_SHARED,   IN,     SHARED)         \
	X(EVICT_SHARED,   IN,     SHARED)         \
	X(EVICT_MODIFIED, IN,     MODIFIED)
/* clang-format on */

/*
 * Forward table (paper Table 3): X(type, gstatus, forward action).
 *  HOME         to the home node
 *  OWNER        to the copyset's single node, as data provider
 *  PROVIDER     to one copyset node, as data provider (hashed per event)
 *  MCAST_PROV   multicast to the copyset, one node (hashed per event) is data provider
 *  MCAST_OTHERS multicast to copyset minus requester (or return to it when
 *               it is the only holder: the direct ACK)
 *  RETURN       return to the requester
 */
/* clang-format off */
#define LCF_FORWARD_TABLE(X)                          \
	X(READ_MISS,      UNSHARED, HOME)             \
	X(WRITE_MISS,     UNSHARED, HOME)             \
	X(READ_MISS,      MODIFIED, OWNER)            \
	X(WRITE_MISS,     MODIFIED, OWNER)            \
	X(READ_MISS,      SHARED,   PROVIDER)         \
	X(WRITE_MISS,     SHARED,   MCAST_PROV)       \
	X(WRITE_SHARED,   SHARED,   MCAST_OTHERS)     \
	X(EVICT_SHARED,   SHARED,   RETURN)           \
	X(EVICT_MODIFIED, MODIFIED, RETURN)
/* clang-format on */

enum lcf_fwd {
	LCF_FWD_NONE = 0, /* no row: cannot happen after a passed check */
	LCF_FWD_HOME,
	LCF_FWD_OWNER,
	LCF_FWD_PROVIDER,
	LCF_FWD_MCAST_PROV,
	LCF_FWD_MCAST_OTHERS,
	LCF_FWD_RETURN,
};

/* Resubmit metadata ops (docs/PROTOCOL.md 4.8). */
enum lcf_resubmit_op {
	LCF_RS_RELEASE = 1,
	LCF_RS_UNLOCK = 2,
	LCF_RS_ADD = 3,
	LCF_RS_REMOVE = 4,
	LCF_RS_QRELEASE = 5, /* docs/QUEUED-LOCKS.md 4 */
};

/* Ingress metadata of one packet pass. */
struct lcf_ingress {
	uint16_t port;          /* ingress port id */
	bool resubmitted;       /* second pass of a resubmitted packet */
	uint64_t resubmit_meta; /* the metadata returned by the first pass */
};

enum lcf_verdict {
	LCF_V_DROP = 0, /* drop the packet; drop_reason says why */
	LCF_V_EMIT,     /* emit copies of `out` as described */
	LCF_V_RESUBMIT, /* re-inject the unmodified packet with resubmit_meta */
};

/*
 * What to do with one packet. For LCF_V_EMIT, every copy carries header
 * `out` with dst_node set to the copy's destination; the copy to `provider`
 * also gets LCF_F_DATA_PROVIDER. Copies go to every node in `to_nodes`, and
 * (mirror session) to every node in `mirror_nodes`. When `from_switch` is
 * set, the copies are replies the switch originates: their source MAC/IP is
 * the switch's own.
 */
struct lcf_result {
	enum lcf_verdict verdict;
	enum lcf_action action;    /* the counted action of this pass */
	enum lcf_drop drop_reason; /* for LCF_V_DROP */
	bool from_switch;
	uint16_t provider;      /* node id or LCF_NODE_NONE */
	uint32_t to_nodes;      /* bitmap of destination node ids */
	uint32_t mirror_nodes;  /* bitmap: mirror copies (shadow node) */
	uint64_t resubmit_meta; /* for LCF_V_RESUBMIT */
	struct lcf_msg out;     /* header for every emitted copy */
};

struct lcf_counters {
	uint64_t packets; /* passes processed, resubmits included */
	uint64_t action[LCF_A_MAX];
	uint64_t drop[LCF_DROP_MAX];
	/* A SCOREBOARD entry moved on to a later seq of its parity while it
	 * still counted locks (COUNT > 0, or CLAIMED): that event's unlock
	 * and ABORT find it over, so nothing frees its locks. Never expected
	 * (PROTOCOL.md 4.2); a lock leak's witness. */
	uint64_t sb_held_overwritten;
};

/* Register contents of one block, as BF Runtime would read them. */
struct lcf_block_view {
	uint32_t way;
	uint32_t slot;
	uint16_t lock;
	uint8_t gstatus;
	uint32_t copyset;
	uint32_t version; /* VERSION: ADD seq << 16 + write requests since */
	uint32_t qholder; /* QSTATE: QHOLDER id, 0 = no queue */
	uint32_t fwd_cnt; /* QSTATE: FWD_CNT, bit 31 CLOSING */
};

/* What a SCOREBOARD entry says of its event (docs/PROTOCOL.md 4.2). */
enum lcf_sb_state {
	LCF_SB_STATE_COUNT = 0, /* copies of the event hold `count` locks */
	LCF_SB_STATE_CLAIMED,   /* its unlock is between its two passes */
	LCF_SB_STATE_ENDED,     /* ended holding no lock: aborted, or its
				 * unlock went home */
};

/* Register contents of one requester. Index [seq & 1]. */
struct lcf_requester_view {
	uint32_t sb_seq[2]; /* the event each entry is bound to */
	enum lcf_sb_state sb_state[2];
	uint16_t sb_count[2]; /* locks counted (0 when ABORTED) */
	uint16_t score_even;  /* sb_count[0] */
	uint16_t score_odd;   /* sb_count[1] */
	uint32_t last_unlock; /* LAST-UNLOCK seq */
	bool lu_open;         /* that unlock has yet to execute */
};

/* Bytes of each register array (the on-chip footprint). */
struct lcf_footprint {
	uint64_t tag;
	uint64_t lock;
	uint64_t gstatus;
	uint64_t copyset;
	uint64_t scoreboard;
	uint64_t last_unlock;
	uint64_t version; /* 32-bit VERSION per slot */
	uint64_t qstate;  /* QHOLDER + FWD_CNT per slot, QRELEASE's gate per
			   * requester (queued mode) */
	uint64_t total;
};

struct lcf_pipeline;

/** One xorshift32 step of `*state` (never 0); the home agent's provider draw. */
static inline uint32_t
lcf_xorshift32(uint32_t *state)
{
	uint32_t x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

/**
 * The data provider chosen among the non-empty node set `set` with random or
 * hashed value `r`: its k-th set bit, k = r mod popcount(set). The switch and the
 * home agents choose by this same rule.
 */
static inline uint16_t
lcf_random_node(uint32_t set, uint32_t r)
{
	uint32_t k = r % (uint32_t)__builtin_popcount(set);

	while (k--)
		set &= set - 1;
	return (uint16_t)__builtin_ctz(set);
}

/**
 * Fill a pipeline config from a loaded topology (seed 1, no salt).
 */
void lcf_pipeline_config_from_topo(const struct topo *t,
				   struct lcf_pipeline_config *cfg);

/**
 * Register-array footprint of a configuration, in bytes, counting each array
 * at its hardware width (TAG 64, LOCK 16, G-STATUS 8, COPYSET 32 bits per
 * slot; VERSION 32 bits per slot; SCOREBOARD 2 x 64 bits (paired 32-bit
 * seq and count) and LAST-UNLOCK 64 bits (paired 32-bit seq and open flag)
 * per requester; QSTATE 64 bits per slot, counted only in the queued lock
 * mode).
 */
void lcf_pipeline_footprint(const struct lcf_pipeline_config *cfg,
			    struct lcf_footprint *fp);

/**
 * Allocate a pipeline with empty register arrays.
 *
 * @return the pipeline, or NULL with errno = EINVAL (ways 0 or above
 *         LCF_MAX_WAYS, slots 0, threads 0, seed 0) or ENOMEM.
 */
struct lcf_pipeline *lcf_pipeline_create(const struct lcf_pipeline_config *cfg);

/** Free a pipeline (NULL is a no-op). */
void lcf_pipeline_free(struct lcf_pipeline *p);

/** Reset every register array and counter to its power-on value. */
void lcf_pipeline_reset(struct lcf_pipeline *p);

/**
 * Run one packet pass. `msg` is the decoded header of a frame that passed
 * lcf_msg_validate(); the pipeline adds the topology checks (node exists,
 * node matches the ingress port, thread in range, home node exists) and
 * drops what fails them, leaving every register unchanged.
 */
void lcf_pipeline_process(struct lcf_pipeline *p, const struct lcf_msg *msg,
			  const struct lcf_ingress *ing,
			  struct lcf_result *res);

/**
 * Hint that a pass for `tag` follows soon: starts the loads of what the
 * pass will most likely read, the tag's entry in the tag summary (which
 * answers a miss without probing the ways) and its slot in way 0 of TAG
 * and LOCK+G-STATUS+COPYSET (most blocks live in way 0, as ways fill in
 * stage order). A caller holding a burst
 * calls it a few packets ahead, so the cache misses of later packets overlap
 * the processing of earlier ones. Reads and writes no register or counter.
 */
void lcf_pipeline_prefetch(const struct lcf_pipeline *p, uint64_t tag);

/** Count a drop found before the pipeline (wire validation). */
void lcf_pipeline_count_drop(struct lcf_pipeline *p, enum lcf_drop reason);

/** The pipeline's counters (valid until the pipeline is freed). */
const struct lcf_counters *lcf_pipeline_counters(const struct lcf_pipeline *p);

/**
 * Read a block's registers.
 *
 * @return 0, or -ENOENT when the tag is not in any way.
 */
int lcf_pipeline_read_block(const struct lcf_pipeline *p, uint64_t tag,
			    struct lcf_block_view *v);

/**
 * Read the block in slot `slot` of way `way` (enumerates the TAG ways).
 *
 * @return 0 with its tag in *tag, -ENOENT when the slot is empty, or
 *         -EINVAL when way or slot is out of range.
 */
int lcf_pipeline_read_slot(const struct lcf_pipeline *p, uint32_t way,
			   uint32_t slot, uint64_t *tag,
			   struct lcf_block_view *v);

/**
 * Read a requester's SCOREBOARD and LAST-UNLOCK registers.
 *
 * @return 0, or -EINVAL when node/thread is out of range.
 */
int lcf_pipeline_read_requester(const struct lcf_pipeline *p, uint16_t node,
				uint16_t thread, struct lcf_requester_view *v);

/** Number of occupied slots in each way; `occ` has room for cfg.ways. */
void lcf_pipeline_way_occupancy(const struct lcf_pipeline *p, uint32_t *occ);

/**
 * A 64-bit digest of every register array (not the counters).
 * Equal digests before and after a packet mean it changed no state.
 */
uint64_t lcf_pipeline_digest(const struct lcf_pipeline *p);

/** The configuration the pipeline was created with. */
const struct lcf_pipeline_config *
lcf_pipeline_config(const struct lcf_pipeline *p);

/** Slot index of `tag` in way `way` (the per-way hash; see docs). */
uint32_t lcf_pipeline_slot(const struct lcf_pipeline_config *cfg, uint32_t way,
			   uint64_t tag);

/* What lcf_pipeline_node_failed() changed. */
struct lcf_node_failed_report {
	uint32_t locked;     /* entries evicted because their lock was held */
	uint32_t copyset;    /* unlocked entries evicted: node in COPYSET,
			      * or the block's home */
	uint32_t modified;   /* of all evicted: Modified at the node */
	uint32_t requesters; /* requester rows changed (SCOREBOARD of any
				 * node, LAST-UNLOCK of the dead one) */
};

/**
 * The control-plane action for a memory node declared dead (docs/FAULTS.md
 * section 2): evict from the TAG ways every block whose LOCK is held (its
 * holders are not recorded, so the dead node may be one), whose COPYSET
 * lists `node` or whose home is `node`, zero every SCOREBOARD count (no lock is held any more, so
 * no score may remain; the entries' seqs and ABORTED marks stay) and reset
 * the node's own SCOREBOARD and LAST-UNLOCK rows. An
 * evicted block looks exactly like one lost in a switch restart; its home
 * agent recovers it. Idempotent. Run it between two passes, on the thread
 * that drives the pipeline.
 *
 * @param tags  receives the evicted tags, at most `max_tags` of them (the
 *              report counts all); may be NULL when `max_tags` is 0.
 * @return 0, or -EINVAL when `node` is not a node of the topology (nothing
 *         is changed).
 */
int lcf_pipeline_node_failed(struct lcf_pipeline *p, uint16_t node,
			     struct lcf_node_failed_report *rep, uint64_t *tags,
			     uint32_t max_tags);

/** Name of an action ("unknown" when out of range). */
const char *lcf_action_name(enum lcf_action a);

#endif /* LCF_PIPELINE_H */
