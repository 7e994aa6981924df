/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Internal to na_rec_node.c (node side: quiesce, report, resume; requester
 * hooks), na_rec_home.c (home side: detection, rounds, rebuild) and
 * na_rec_drain.c (the dead-node drain).
 * Requester threads only touch the per-thread records, under rec->mu; the
 * agents take rec->mu inside agent_mu.
 */
#ifndef NA_REC_INT_H
#define NA_REC_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <pthread.h>

#include "na_cache.h"
#include "na_cagent.h"
#include "na_clock.h"
#include "na_home.h"
#include "na_proto.h"
#include "na_recovery.h"
#include "na_shadow.h"
#include "na_voh_home.h"
#include "topo.h"

#define REC_UNSETTLED 8   /* unsettled requests remembered per thread */
#define REC_DIRTY     8   /* orphan-data records per report / round */
#define REC_KEPT      8   /* orphan records kept aside at rejoins */
#define REC_ULIST     256 /* unsettled requests per round at a home */
#define REC_RETX_NS   50000000ull
#define REC_PROBE_NS  200000000ull
#define REC_TICK_NS   2000000ull
#define REC_ENTRY     16
#define REC_DIRTY_CUR \
	1 /* DIRTY entry byte 11: the data equals the
			   reporter's Shared copy (recorphan.pml) */

enum {
	ENT_HOLD = 1,
	ENT_UNSETTLED = 2,
	ENT_DIRTY = 3
};
enum {
	PH_IDLE,
	PH_PROBE,
	PH_COLLECT,
	PH_DONE,
	PH_READD
};
#define REC_READD     256 /* recovered blocks given back to the switch */
#define READD_STARTED 0x80000000u

struct rec_thread {
	bool busy; /* inside an event: sent .. unlock */
	uint64_t busy_tag;
	struct {
		bool valid;
		uint64_t tag;
		uint32_t seq;
	} u[REC_UNSETTLED];
	uint32_t u_next;
	bool fresh; /* reported: never reuse those seqs */
	uint64_t fresh_tag[REC_UNSETTLED];
	uint32_t n_fresh;
};

struct rec_dirty {
	uint64_t tag;
	uint16_t rnode, rthread;
	uint32_t seq;
};

/* Node side: one recovery round of home `h`. */
struct rec_pend {
	bool active, reported;
	uint32_t round;
	bool ended;         /* a round of this home ended here (DONE) ... */
	uint32_t last_done; /* ... this one: older BEGINs are late copies */
	uint32_t n_tags;
	uint64_t tags[NA_REC_TAGS];
	uint16_t rlen;
	uint8_t report[NA_MAX_FRAME_PAYLOAD];
	uint32_t n_dirty;
	struct rec_dirty dirty[REC_DIRTY];
	uint8_t *data; /* REC_DIRTY blocks */
};

struct rec_unset {
	uint32_t slot;
	uint16_t node, thread;
	uint32_t seq;
};

/* A DIRTY record of a report: which event a provider gave data to. */
struct rec_dhdr {
	uint32_t slot; /* index into the round's blocks */
	uint16_t src, rnode, rthread;
	uint32_t seq;
	bool cur; /* equal to the provider's Shared copy (REC_DIRTY_CUR) */
};

/* The data of one DIRTY record (REC_DIRTY slots: lib/model/recslots.pml). */
struct rec_cand {
	bool used;
	struct rec_dhdr k; /* (k.cur unused) */
	uint64_t have;
	uint8_t *data;
};

/* Home side. */
struct rec_home {
	int phase;
	uint32_t probe_idx, probe_seq;
	uint64_t probe_ns;
	uint32_t round;
	uint32_t n;
	uint32_t idx[NA_REC_TAGS];
	uint32_t cs[NA_REC_TAGS];  /* holders */
	uint32_t mod[NA_REC_TAGS]; /* Modified holders */
	uint32_t expect, reported, acked;
	uint32_t n_unset;
	struct rec_unset unset[REC_ULIST];
	uint32_t n_dh; /* every DIRTY record reported, up to REC_ULIST */
	struct rec_dhdr dh[REC_ULIST];
	struct rec_cand cand[REC_DIRTY];
	uint64_t last_ns, detect_ns;
	uint8_t begin[NA_REC_TAGS * 8];
	uint32_t n_readd;
	uint32_t readd[REC_READD];
	bool pending; /* a drain waits for PH_IDLE */
};

#define REC_COUNTERS(X)        \
	X(probes)              \
	X(probe_switch_had_it) \
	X(detections)          \
	X(rounds)              \
	X(blocks_recovered)    \
	X(orphans_written)     \
	X(inconsistent)        \
	X(unsettled_recorded)  \
	X(reports_sent)        \
	X(report_overflow)     \
	X(aborted_events)      \
	X(deferred_purged)     \
	X(shadow_cleared)      \
	X(last_recovery_us)    \
	X(readded)             \
	X(dead_nodes)          \
	X(drained_blocks)      \
	X(dead_dirty_lost)     \
	X(dead_home_refused)   \
	X(dead_dropped)        \
	X(rejoined)            \
	X(rejoin_uncached)     \
	X(rejoin_pinned)       \
	X(rejoin_kept)         \
	X(rejoin_kept_lost)    \
	X(remove_ack_lost)     \
	X(probe_raced_remove)  \
	X(late_begins)         \
	X(adding_cleared)      \
	X(adding_settled)      \
	X(settle_recovered)    \
	X(settle_miss_refuted) \
	X(frozen_dropped)      \
	X(held_nacked)

struct na_rec {
	struct na_rec_pub pub; /* first: na_rec_quiet reads it */
	struct na_rec_env env;
	pthread_mutex_t mu;
	uint32_t dead_req;   /* declared, drain not started yet */
	uint32_t rejoin_req; /* re-admitted, rows not reset yet */
	/* Cache-agent rows of re-admitted nodes' old incarnations that hold
	 * an orphan (data given from a Modified copy): reported in rounds on
	 * their blocks until one ends here (lib/model/recorphan.pml KEEP). */
	struct na_creq kept[REC_KEPT];
	struct rec_thread *th;
	struct rec_pend *pend; /* LCF_MAX_NODES */
	struct rec_home h;
	uint64_t next_tick;
#define X_FIELD(name) uint64_t name;
	struct {
		REC_COUNTERS(X_FIELD)
	} st;
#undef X_FIELD
};

/* ---- helpers -------------------------------------------------------------- */

static inline void
put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (56 - 8 * i));
}

static inline uint64_t
get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static inline void
put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (24 - 8 * i));
}

static inline uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline void
hdr(struct lcf_msg *m, uint8_t type, uint16_t node, uint16_t dst, uint32_t seq)
{
	memset(m, 0, sizeof(*m));
	m->version = LCF_VERSION;
	m->type = type;
	m->node = node;
	m->seq = seq;
	m->dst_node = dst;
}

static inline bool
tag_in(const uint64_t *tags, uint32_t n, uint64_t tag)
{
	for (uint32_t i = 0; i < n; i++)
		if (tags[i] == tag)
			return true;
	return false;
}

/* A round's reporters: every node neither dead nor declared. A node
 * declared but not drained yet (dead_req, until the next tick) is out
 * too: its new incarnation, up before the drain, would take the BEGIN,
 * report (dropped: na_rec_dead_drop) and never get DONE once the drain
 * takes it out of the round (lib/model/recjoin.pml). */
static inline uint32_t
all_nodes(const struct na_rec *r)
{
	uint32_t m = 0;

	for (uint32_t i = 0; i < r->env.topo->n_nodes; i++)
		m |= na_bit(r->env.topo->nodes[i].id);
	return m & ~(__atomic_load_n(&r->pub.dead, __ATOMIC_ACQUIRE) |
		     __atomic_load_n(&r->dead_req, __ATOMIC_ACQUIRE));
}

/* Freeze a home-owned block for a round without the `dead` nodes. */
static inline void
drain_block(struct na_rec *r, struct na_hblock *b, uint32_t dead)
{
	if (b->gs == LCF_GS_MODIFIED && (b->cs & dead))
		r->st.dead_dirty_lost++; /* its only copy died */
	b->owner = NA_OWN_RECOVERING;
	r->st.drained_blocks++;
}

/* The message types na_rec_home_watch looks at (any other: false), asked
 * first so that the agents' hook does not enter na_rec_home.c for the
 * rest. */
static inline bool
na_rec_home_watched(uint8_t type)
{
	switch (type) {
	case LCF_T_READ_MISS:
	case LCF_T_WRITE_MISS:
	case LCF_T_WRITE_SHARED:
	case LCF_T_EVICT_SHARED:
	case LCF_T_EVICT_MODIFIED:
	case LCF_T_REMOVE_FROM_SWITCH:
	case LCF_T_MIGRATE_ACK:
		return true;
	default:
		return false;
	}
}

/* na_rec_home.c, called by na_rec_node.c and na_rec_drain.c, agent_mu held. */
void na_rec_start_round(struct na_rec *r, struct na_out *out);
bool na_rec_home_watch(struct na_rec *r, const struct lcf_msg *m,
		       struct na_out *out);
void na_rec_home_report(struct na_rec *r, const struct lcf_msg *m,
			const uint8_t *p);
void na_rec_home_data(struct na_rec *r, const struct lcf_msg *m,
		      const uint8_t *p);
void na_rec_home_done_ack(struct na_rec *r, const struct lcf_msg *m);
void na_rec_home_tick(struct na_rec *r, uint64_t now, struct na_out *out);

/* na_rec_drain.c, called by na_rec_node.c (the tick) with agent_mu held. */
void na_rec_drain(struct na_rec *r, uint16_t dead, struct na_out *out);

/* A dead node's message to drop (the agents' hook, for every message:
 * inline). */
static inline bool
na_rec_dead_drop(struct na_rec *r, const struct lcf_msg *m)
{
	/* From the declaration on, not from the drain: a new process may
	 * start before the next tick drains the old one. */
	uint32_t dead = __atomic_load_n(&r->pub.dead, __ATOMIC_ACQUIRE) |
			__atomic_load_n(&r->dead_req, __ATOMIC_ACQUIRE);

	if (m->node == r->env.self || !na_cs_has(dead, m->node))
		return false;
	r->st.dead_dropped++;
	return true;
}

/* na_rec_rejoin.c: rejoins due (the tick, agent_mu held). */
void na_rec_rejoin_tick(struct na_rec *r);

#endif /* NA_REC_INT_H */
