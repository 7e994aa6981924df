/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The node runtime: one per node-agent process (or per application linking
 * libdsm). It owns the transport, the local cache, the agents and one
 * mailbox per requester thread, and runs the dispatch thread that
 * demultiplexes received messages (docs/NODE-AGENT.md "Dispatch"):
 *  - to a requester thread's mailbox (by the thread field), or
 *  - to the agents (home, cache, shadow), which run under one mutex: the
 *    dispatch thread runs them for received messages, and any thread that
 *    sends a message to its own node's agents runs them too (local
 *    delivery: there is no point in a round trip through the kernel).
 */
#ifndef NA_NODE_H
#define NA_NODE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "na_cache.h"
#include "na_clock.h"
#include "na_cagent.h"
#include "na_directory.h"
#include "na_home.h"
#include "na_mailbox.h"
#include "na_migrate.h"
#include "na_qtable.h"
#include "na_sabre_rx.h"
#include "na_shadow.h"
#include "na_stats.h"
#include "na_transport.h"
#include "na_voh_home.h"
#include "lcf_trace.h"
#include "topo.h"

#define NA_ROLE_HOME   1u
#define NA_ROLE_CACHE  2u
#define NA_ROLE_SHADOW 4u

#define NA_FIFO_CAP 1024

struct na_node_config {
	const struct topo *topo;
	uint16_t self;
	const char *transport; /* "udp" (default) or "verbs" */
	unsigned roles;        /* NA_ROLE_* */
	uint16_t threads;      /* requester threads (< threads_per_node) */
	uint32_t cache_entries;
	uint64_t mem_size; /* global memory of this home node */
	bool direct;       /* no switch on the path (tests) */
	uint32_t seed;
	uint32_t epoch_ms;  /* migration epoch and hotness report
					   period (default 10 ms) */
	bool migrate;       /* dynamic migration (na_migrate.h) */
	uint32_t migrate_k; /* top-k per epoch (default 1000) */
	bool directory;     /* classic directory protocol
					   (na_directory.h), all nodes alike */
	/* The simulated cluster (node-agent/sim): its transport, and no
	 * dispatch thread: it calls na_node_receive and na_node_timers. */
	const struct na_transport_ops *transport_ops; /* overrides transport */
	bool external_dispatch;
	/* Sampled latency tracing (lcf_trace.h): 1 in trace_every events
	 * (0: off) into a ring of trace_cap records, written to trace_path
	 * by na_node_stop (NULL: kept for the stats JSON only). */
	uint32_t trace_every;
	uint32_t trace_cap;
	const char *trace_path;
};

/* A local delivery queued while the agents run, with its route (na_classify
 * once per message). */
struct na_fifo_mail {
	struct na_mail x;
	enum na_route route;
};

struct na_node {
	struct na_node_config cfg;
	const struct topo *topo;
	uint16_t self;
	struct na_transport tp;
	bool tp_open;
	bool serialize_tp; /* transport not thread-safe */
	pthread_mutex_t tp_mu;

	struct na_cache cache;

	pthread_mutex_t agent_mu;
	struct na_home home;
	struct na_cagent cagent;
	struct na_shadow shadow;
	struct na_migrate migrate; /* home role */
	struct na_voh_home voh;    /* home role: validate-on-hit */
	struct na_mailbox vq;      /* VOH_VRPC for the version thread */
	na_thread_t vthread;       /* the RPC check's version thread */
	bool vthread_running;
	uint64_t next_mig_tick_ns;
	uint64_t next_rec_ns, next_epoch_ns; /* na_node_timers */
	struct na_fifo_mail *fifo; /* local deliveries to the agents */
	uint32_t fifo_head, fifo_tail;

	struct na_mailbox *mbox;   /* cfg.threads */
	struct na_sabre_rx *sabrx; /* cfg.threads: SABRe landing zones */

	struct na_rec *rec;   /* switch restart recovery */
	struct na_qtable *qt; /* queued locks (topology lock_mode "queued") */
	uint64_t next_q_tick_ns;

	pthread_t disp;
	bool disp_running;
	volatile int stop;
	struct na_stats st;
	struct lcf_trace tr;
};

/** Is message `m`'s event sampled for tracing? */
static inline bool
na_node_traced(const struct na_node *n, const struct lcf_msg *m)
{
	return __builtin_expect(n->tr.every != 0, 0) &&
	       lcf_trace_sampled(m->node, m->thread, m->seq, n->tr.every);
}

/** Record `point` for message `m` (to or from `peer`) when sampled. */
static inline void
na_node_trace_msg(struct na_node *n, uint8_t point, const struct lcf_msg *m,
		  uint16_t peer)
{
	if (na_node_traced(n, m))
		lcf_trace_put(&n->tr, na_now_ns(), point, m->type, m->node,
			      m->thread, m->seq, peer, 0);
}

/**
 * Open the transport, build the cache and agents and start the dispatch
 * thread. On failure `err` says why (e.g. the verbs transport's refusal).
 * @return 0 or -errno.
 */
int na_node_start(struct na_node *n, const struct na_node_config *cfg,
		  char *err, size_t err_len);

/**
 * The home-local path (lib/model/homelocal.pml): pipeline message `m` of a
 * requester of this node, for a block homed here, straight to the home
 * agent as a tag miss would arrive (na_node_send's cfg.direct path), when
 * the home owns the block (NA_OWN_HOME) or `any_owner` (the unlock or
 * ABORT of an event that never crossed the switch: the home holds its
 * lock, a migration's drain waits for it). The owner check and the
 * delivery are one agents' section: no migration starts between them.
 * @return true when delivered; false: send it on the wire.
 */
bool na_node_send_home_local(struct na_node *n, const struct lcf_msg *m,
			     bool any_owner);

/**
 * `m` to its home: by na_node_send_home_local when `try_local`, else (or
 * when that declines) on the wire (na_node_send). @return true when
 * delivered locally.
 */
bool na_node_send_home(struct na_node *n, const struct lcf_msg *m,
		       bool try_local, bool any_owner);

/** Stop the dispatch thread and free everything. */
void na_node_stop(struct na_node *n);

/**
 * Send a message: to the transport, or (to this node's agents or
 * requesters) delivered locally. Pipeline types to this node still cross
 * the switch. @return 0 or -errno (the protocol retransmits on failure).
 */
int na_node_send(struct na_node *n, uint16_t dst, const struct lcf_msg *m,
		 const void *payload);

/**
 * Whether na_node_send() hands a message of `type` to `dst` to the
 * transport (a round trip on the wire) rather than delivering it in this
 * process. @return true or false; no error.
 */
static inline bool
na_node_wired(const struct na_node *n, uint16_t dst, uint8_t type)
{
	return dst != n->self || (lcf_type_is_pipeline(type) && !n->cfg.direct);
}

/**
 * Wait for the next message of requester thread `thread` until the
 * CLOCK_MONOTONIC time `deadline_ns`. @return 0 or -ETIMEDOUT.
 */
static inline int
na_node_mbox_wait(struct na_node *n, uint16_t thread, struct na_mail *out,
		  uint64_t deadline_ns)
{
	return na_mbox_wait(&n->mbox[thread], out, deadline_ns);
}

/**
 * A message received from the transport: to a requester's mailbox or to
 * the agents. Called by the dispatch thread (or the simulated cluster).
 */
void na_node_receive(struct na_node *n, const struct lcf_msg *m,
		     const void *payload);

/**
 * The same, for a message that reached the node at `rx_ns` (its trace's RX
 * time): the simulated cluster, whose cost model serves a frame at the
 * agents before the node acts on it.
 */
void na_node_receive_at(struct na_node *n, const struct lcf_msg *m,
			const void *payload, uint64_t rx_ns);

/**
 * Run the node's timers that are due at na_now_ns(): the recovery's (every
 * 2 ms), the hotness epoch and the migration tick. Called by the dispatch
 * thread between receives (or by the simulated cluster).
 */
void na_node_timers(struct na_node *n);

/** Run the cache agent's deferred requests (a pin was released). */
void na_node_run_deferred(struct na_node *n);

/*
 * Queued locks (docs/QUEUED-LOCKS.md 5; na_node_queue.c), for the
 * requester. All are no-ops (-ENOTSUP / -ESRCH) unless the topology's
 * lock_mode is "queued".
 */

/**
 * Event (thread, req->seq) requests req->tag: it may become the queue
 * holder. Registered, it sends `req` on the wire when `send` (false: a
 * Q_GRANT for the event is here already), in the same call: no copy of a
 * request leaves before the slot that takes its grant.
 * @return 0, -EBUSY (another local event still has the block's holder:
 *         wait and call again), -ENOSPC / -ENOTSUP (run without; nothing
 *         sent).
 */
int na_node_q_request(struct na_node *n, uint16_t thread,
		      const struct lcf_msg *req, bool send);

/** The event's answer: `holds` when the switch granted it a write lock
 * (it holds the queue now), else it will not hold through the queue. */
void na_node_q_result(struct na_node *n, uint64_t tag, uint16_t thread,
		      uint32_t seq, bool holds);

/**
 * The event is done: QXFER/QRELEASE with (gs, cs) instead of its unlock;
 * an UNLOCK_ACK reaches the thread's mailbox when the switch approved.
 * @return 0, or -ESRCH when the event does not hold the queue (send the
 *         unlock).
 */
int na_node_q_done(struct na_node *n, uint64_t tag, uint16_t thread,
		   uint32_t seq, uint8_t gs, uint32_t cs);

/** The requester gave event (thread, seq) up (na_qtable_abandon). */
void na_node_q_abandon(struct na_node *n, uint64_t tag, uint16_t thread,
		       uint32_t seq);

/**
 * Does the node's queue-holder table end event (thread, seq)'s tenure on
 * `tag` itself (na_qtable_holds: the switch's waiting writer for it, a
 * grant of it held or passed on)? Then the requester has no lock of that
 * seq to settle. No error returns: false unless the lock mode is queued.
 */
bool na_node_q_holds(struct na_node *n, uint64_t tag, uint16_t thread,
		     uint32_t seq);

/**
 * Node `node` was declared dead: the queue holders drop what names it
 * (na_qtable_node_failed). @return 0, or -EINVAL (no such node, or this).
 */
int na_node_q_node_failed(struct na_node *n, uint16_t node);

/** Node `node` was re-admitted: the queue holders hand to it again
 * (na_qtable_node_rejoined). */
void na_node_q_node_rejoined(struct na_node *n, uint16_t node);

/** Start ADD_TO_SWITCH of the first `count` blocks, wait for the ACKs. */
uint32_t na_node_migrate_static(struct na_node *n, uint32_t count);

/**
 * Print the node's statistics as the members of a JSON object (no braces,
 * no leading comma): the caller wraps them.
 */
void na_node_stats_json(struct na_node *n, FILE *f);

/**
 * The trace ring summarised per type (the node's own records: requester
 * events and operations, agents' queueing and service) as a JSON member
 * `"trace":{...}` with a leading comma; nothing when tracing is off.
 */
void na_node_trace_json(const struct na_node *n, FILE *f);

/** In directory mode, send request/unlock `m` as DIR_* (na_directory.h). */
static inline void
na_dir_wrap(const struct na_node *n, struct lcf_msg *m)
{
	if (n->cfg.directory)
		na_dir_wrap_msg(m);
}

#endif /* NA_NODE_H */
