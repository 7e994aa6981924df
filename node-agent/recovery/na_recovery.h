/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Switch restart recovery (paper section 5.4, "Crash safety: Switch";
 * docs/FAULTS.md). A restarted switch is empty: it has forgotten which
 * blocks it owned, their gstatus, copyset and locks.
 *
 *  - Detection (home agent): a pipeline request with IN_SWITCH clear for a
 *    block the home believes switch-owned is a tag miss the switch should
 *    not have had. The home confirms with a REMOVE_FROM_SWITCH probe: a
 *    switch that has the tag answers MIGRATE_ACK (the block simply comes
 *    home with its metadata) or NACKs it (no conclusion); an empty switch
 *    forwards it home as a tag miss, which proves the state is gone. No
 *    switch-generated signal is needed (a rebooted Tofino sends none).
 *  - Recovery rounds (at most NA_REC_TAGS blocks each): the home sends
 *    NA_REC_BEGIN with the tags to every node. Each node stops starting
 *    events on them, aborts its events on them that are not complete, waits
 *    until none of its threads is inside one, then reports: the copies it
 *    holds (Shared/Modified), its unsettled requests on them (sent, not
 *    completed: the old switch may have granted them), and the data its
 *    cache agent gave away from a Modified copy (NA_REC_DATA), which is the
 *    block's only current value when the event it went to was aborted.
 *  - The home rebuilds gstatus and copyset from the copies, writes such
 *    orphaned data to global memory, records the unsettled seqs in
 *    LAST-EXECUTED (late copies are then duplicates: NACK), takes ownership
 *    (no locks: they died with the switch) and sends NA_REC_DONE; the nodes
 *    resume with fresh seqs. The shadow node clears SHADOW-TAG on BEGIN.
 *  - Memory-node failure (dsm_node_failed): the same rounds, without the
 *    dead node, over the home-owned blocks it locked or held a copy of.
 */
#ifndef NA_RECOVERY_H
#define NA_RECOVERY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lcf_wire.h"
#include "na_msg.h"
#include "na_out.h"

struct topo;
struct na_cache;
struct na_cagent;
struct na_home;
struct na_shadow;
struct na_voh_home;
struct na_rec;

/* Node-to-node messages of the recovery (docs/PROTOCOL.md section 5;
 * numbered in na_msg.h): BEGIN home -> node (tags, 8 bytes each), REPORT
 * node -> home (16-byte entries), DATA node -> home (an orphan's segment),
 * DONE home -> node (resume), DONE_ACK node -> home. */

#define NA_REC_TAGS 32 /* blocks per round */

/** Is `type` one of the recovery messages? */
static inline bool
na_rec_is_msg(uint8_t type)
{
	return type >= NA_MSG_REC_BEGIN && type <= NA_MSG_REC_DONE_ACK;
}

/*
 * What the recovery works on: this node's agents (the node runtime owns
 * them and holds their mutex whenever it calls in with an `out` list) and
 * its roles. The recovery reads and rebuilds the agents' state; it never
 * calls the node runtime or the requester: what it sends comes back in
 * `out`, and requester threads ask it (na_rec_blocked, na_rec_resume ...)
 * rather than being called.
 */
struct na_rec_env {
	const struct topo *topo;
	uint16_t self;
	uint16_t threads; /* requester threads of this node */
	bool role_home;   /* detection, rounds, drain */
	bool role_shadow; /* SHADOW-TAG forgets recovered tags */
	struct na_cache *cache;
	struct na_home *home;
	struct na_cagent *cagent;
	struct na_shadow *shadow;
	struct na_voh_home *voh; /* validate-on-hit: queues, rows; or NULL */
	/* Queued locks (NULL: none): called (agent_mu held) once the node is
	 * quiescent on a round's blocks, before its report: their queue
	 * holder rows are of tenures the round ends (na_qtable_recovered). */
	void (*q_recovered)(void *ctx, const uint64_t *tags, uint32_t n);
	void *q_ctx;
};

/** Allocate the recovery state over `env`. @return 0 or -ENOMEM. */
int na_rec_init(struct na_rec **r, const struct na_rec_env *env);
void na_rec_fini(struct na_rec *r);

/**
 * Agents' hook (agent_mu held), before the home agent sees `m`: consumes
 * recovery messages and a REMOVE probe that missed (returns true); watches
 * tag-miss requests and MIGRATE_ACKs of probes (returns false: the normal
 * handlers run too).
 */
bool na_rec_agents(struct na_rec *r, const struct lcf_msg *m,
		   const void *payload, struct na_out *out);

/**
 * Home side (agent_mu held): the switch lost block `tag`'s metadata while
 * the home was taking it back (the MIGRATE_ACK of its REMOVE was lost).
 * The block is recovered by a round, as after a switch restart, but only
 * it, and SHADOW-TAG is kept (the switch still holds the others).
 */
void na_rec_block_lost(struct na_rec *r, uint64_t tag, struct na_out *out);

/** Timers (agent_mu held): retransmissions, reports once quiescent. */
void na_rec_tick(struct na_rec *r, struct na_out *out);

/**
 * Memory node `node` failed (dsm_node_failed): the next tick drains it.
 * @return 0, -EINVAL (unknown node or this node).
 */
int na_rec_node_failed(struct na_rec *r, uint16_t node);

/**
 * Node `node`, declared dead, restarted (dsm_node_rejoined): once it is
 * drained and no round runs, a tick forgets its rows and clears the mark;
 * until then its messages are dropped. @return 0, -EINVAL (unknown node or
 * this node), -EALREADY (not declared dead).
 */
int na_rec_node_rejoined(struct na_rec *r, uint16_t node);

/**
 * Agents' side (agent_mu held), before the cache agent sees a request on
 * `tag` (a forward, a Q_INV): must it be dropped? True from this node's
 * report of a round holding the block until the round's DONE: the report
 * stands for our copy until the rebuilt state takes over, and the
 * request's event is aborted by the round (lib/model/recfreeze.pml).
 * Counted (`frozen_dropped`) when it is.
 */
bool na_rec_cache_frozen(struct na_rec *r, uint64_t tag);

/*
 * Requester side. Before an event on `tag` a requester thread asks, in
 * this order: na_rec_home_dead (fail the access with -EHOSTDOWN), then
 * na_rec_blocked until it is false (backing off meanwhile), then
 * na_rec_resume; na_rec_before asks all three at once, na_rec_begin with
 * na_rec_sent. During the event it reports na_rec_sent, and its end once
 * (na_rec_end).
 */

/**
 * Before an event on `tag`: na_rec_home_dead, na_rec_blocked and, when
 * neither, na_rec_resume in one call. @return -EHOSTDOWN (home dead),
 * -EAGAIN (blocked: wait with na_rec_blocked, then na_rec_resume), or
 * na_rec_resume's answer (1: fresh, 0), `*stale_settled` as there.
 */
int na_rec_before(struct na_rec *r, uint64_t tag, uint16_t thread, bool stale,
		  uint64_t stale_tag, bool *stale_settled);

/**
 * na_rec_before, then, when it returns 0 and `seq` is not 0, na_rec_sent
 * of `seq`: one call for a requester that knows its request's seq before
 * the event and sends it with no wait between. `*sent` is true when `seq`
 * was recorded; else call na_rec_sent before sending, as after
 * na_rec_before. @return as na_rec_before.
 */
int na_rec_begin(struct na_rec *r, uint64_t tag, uint16_t thread, bool stale,
		 uint64_t stale_tag, bool *stale_settled, uint32_t seq,
		 bool *sent);

/*
 * The start of struct na_rec, which requester threads read without a call
 * (na_rec_quiet); it changes only as a recovery round begins or ends and
 * as a node is declared dead.
 */
struct na_rec_pub {
	int n_active;    /* active pends */
	uint32_t dead;   /* nodes declared dead (drained) */
	uint32_t rounds; /* rounds begun here (na_rec_rounds) */
};

/** No round active and no node dead: na_rec_blocked is false for every
 * tag (the requester's check per reply, without leaving its file). */
static inline bool
na_rec_quiet(const struct na_rec *r)
{
	const struct na_rec_pub *p = (const struct na_rec_pub *)(const void *)r;

	return !__atomic_load_n(&p->n_active, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&p->dead, __ATOMIC_ACQUIRE);
}

/** Rounds begun at this node so far: one begun since an ABORT was sent may
 * have ended the lock its answer spoke of (lib/model/recpass.pml EARLY). */
static inline uint32_t
na_rec_rounds(const struct na_rec *r)
{
	const struct na_rec_pub *p = (const struct na_rec_pub *)(const void *)r;

	return __atomic_load_n(&p->rounds, __ATOMIC_ACQUIRE);
}

/** Was `tag`'s home node declared dead? (Counted when it was.) */
bool na_rec_home_dead(struct na_rec *r, uint64_t tag);

/** Must the event on `tag` be aborted (a recovery holds it)? */
bool na_rec_blocked(struct na_rec *r, uint64_t tag);

/**
 * A recovery reported this thread's unsettled requests: @return true when
 * the thread must not reuse its retry seq. `*stale_settled` is set when the
 * thread's abandoned request (`stale`, on `stale_tag`) was among them: the
 * home recorded it, a late copy may still take the lock after the block's
 * re-ADD, so its ABORT asks afresh (lib/model/miglate.pml).
 */
bool na_rec_resume(struct na_rec *r, uint16_t thread, bool stale,
		   uint64_t stale_tag, bool *stale_settled);

/**
 * Request `seq` about to be sent (the thread is inside an event on `tag`).
 * @return false, recording nothing, when a recovery round holds `tag` (one
 * may have begun since na_rec_before): do not send, wait as after
 * na_rec_before's -EAGAIN (lib/model/recsend.pml).
 */
bool na_rec_sent(struct na_rec *r, uint16_t thread, uint64_t tag, uint32_t seq);

/* How a thread's event on a tag ended (na_rec_end). */
enum na_rec_end {
	NA_REC_LEFT,    /* not granted; the thread left it */
	NA_REC_ABORTED, /* left, aborted by a recovery round */
	NA_REC_SETTLED, /* granted (its requests settled), still inside:
			 * no unlock was sent */
	NA_REC_DONE,    /* granted and its unlock sent: settled and left */
};

/** The end of the thread's event on `tag`, `how` (once per event). */
void na_rec_end(struct na_rec *r, uint16_t thread, uint64_t tag,
		enum na_rec_end how);

/** Counters as a JSON member `"recovery":{...}` (no leading comma). */
void na_rec_stats_json(struct na_rec *r, FILE *f);

/** The same member with each counter summed over `n` nodes (NULL skipped;
 * na-sim's summary). */
void na_rec_stats_sum_json(struct na_rec *const *r, uint32_t n, FILE *f);

#endif /* NA_RECOVERY_H */
