/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The simulated cluster's network and switch (docs/SIMULATION.md). Every
 * frame crosses two hops, node to switch and switch to node, and each hop
 * loses it, duplicates it and delays it (a base delay plus a uniform
 * jitter, which reorders) with the configured probabilities, drawn from
 * one seeded generator. At the switch a coherence frame runs through
 * lib/lcf's pipeline as swswitch runs it: a resubmitted frame re-enters
 * after what is already queued, and emitted copies go to every node of the
 * result (the data provider's copy flagged, mirror copies to the shadow);
 * node-to-node frames are forwarded as L2. Frames travel as wire bytes and
 * a node accepts them with the UDP transport's own parser.
 *
 * Events run on the simulation scheduler (na_sim_sched.h).
 */
#ifndef NA_SIM_NET_H
#define NA_SIM_NET_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lcf_pipeline.h"
#include "lcf_trace.h"
#include "lcf_wire.h"
#include "topo.h"

struct na_node;
struct na_sim_net;

struct na_sim_net_config {
	const struct topo *topo;
	uint32_t seed;      /* not 0 */
	double loss;        /* probability a hop loses a frame */
	double dup;         /* probability a hop duplicates a frame */
	uint64_t delay_ns;  /* one hop's base delay */
	uint64_t jitter_ns; /* one hop's extra delay, uniform in [0, jitter] */
};

struct na_sim_net_stats {
	uint64_t sent;       /* frames handed to the network by nodes */
	uint64_t lost;       /* hops that lost a frame */
	uint64_t duplicated; /* hops that duplicated one */
	uint64_t delivered;  /* frames a node accepted */
	uint64_t rejected;   /* frames a node's parser refused */
	uint64_t detached;   /* frames to a node no longer attached */
	uint64_t passes;     /* pipeline passes, resubmits included */
	uint64_t resubmits;
	uint64_t
		sw_drops; /* frames the switch dropped (pipeline, validation) */
	uint64_t forwarded;    /* node-to-node frames forwarded as L2 */
	uint64_t restarts;     /* switch restarts (na_sim_net_restart_at) */
	uint64_t down_drops;   /* frames that reached the switch while down */
	uint64_t crash_drops;  /* frames a crashed node sent */
	uint64_t held;         /* copies held back (na_sim_net_hold) */
	uint64_t released;     /* ... and delivered late */
	uint64_t stalls;       /* switch stalls begun (na_sim_net_stall) */
	uint64_t stall_queued; /* frames that reached it stalled */
};

/**
 * Build the network and the switch's pipeline for `cfg->topo`.
 * @return 0, -EINVAL (seed 0, probabilities outside [0, 1)) or -ENOMEM.
 */
int na_sim_net_create(const struct na_sim_net_config *cfg,
		      struct na_sim_net **out);

/**
 * Free the network. Frames in flight point to it: run the scheduler until
 * it has no event left first (with every node detached).
 */
void na_sim_net_free(struct na_sim_net *net);

/**
 * Deliver frames for node `id` to `n` (na_node_receive), or, with NULL,
 * drop them from now on.
 */
void na_sim_net_attach(struct na_sim_net *net, uint16_t id, struct na_node *n);

/**
 * Node `src` sends `m` (payload m->len bytes) to node `dst`: pipeline
 * types go through the switch, the rest are forwarded to `dst`.
 * @return 0, -EINVAL (dst not in the topology) or -EMSGSIZE.
 */
int na_sim_net_send(struct na_sim_net *net, uint16_t src, uint16_t dst,
		    const struct lcf_msg *m, const void *payload);

/**
 * Restart the switch at virtual time `at_ns`, as a SIGKILLed and restarted
 * swswitch (docs/FAULTS.md section 1): every register array to power-on
 * (lcf_pipeline_reset; the action counters carry on), frames reaching the
 * switch in [at_ns, at_ns + down_ns) dropped, and a resubmitted frame of
 * the old registers dropped. Nothing tells the nodes: their homes find the
 * lost blocks by tag misses and recover them.
 */
void na_sim_net_restart_at(struct na_sim_net *net, uint64_t at_ns,
			   uint64_t down_ns);

/**
 * Node `id` crashes: from now on every frame it sends is dropped and
 * none reaches it (na_sim_net_attach(.., NULL)).
 */
void na_sim_net_crash(struct na_sim_net *net, uint16_t id);

/** A new incarnation `n` of crashed node `id` joins the network (a held
 * copy of the old one is dropped). */
void na_sim_net_rejoin(struct na_sim_net *net, uint16_t id, struct na_node *n);

/**
 * The control plane's eviction for dead node `id` (lcf_pipeline_node_failed,
 * as `swswitch-ctl node-failed`), between two passes.
 * @return lcf_pipeline_node_failed's: 0 or -EINVAL.
 */
int na_sim_net_node_failed(struct na_sim_net *net, uint16_t id,
			   struct lcf_node_failed_report *rep);

/**
 * Adversarial delay: of the frames of `type` nodes send, the `nth` (from
 * 1) goes on as usual and a copy of it is held back, to reach the switch
 * `hold_ns` virtual ns later (0: only when na_sim_net_release() is
 * called): a late duplicate, as a network that keeps a copy for long.
 */
void na_sim_net_hold(struct na_sim_net *net, uint8_t type, uint64_t nth,
		     uint64_t hold_ns);

/**
 * A lagging switch, as a starved swswitch lcore: from virtual time `at_ns`
 * for `for_ns`, and again every `every_ns` (0: once), frames reaching the
 * switch queue; at the stall's end they run as swswitch runs a full rx
 * ring, in bursts of 32, each burst's first passes in arrival order, then
 * its resubmitted second passes (swswitch/sw_loop.c).
 */
void na_sim_net_stall(struct na_sim_net *net, uint64_t at_ns, uint64_t every_ns,
		      uint64_t for_ns);

/** Send the held copy on now. @return true when one was held. */
bool na_sim_net_release(struct na_sim_net *net);

const struct na_sim_net_stats *na_sim_net_stats(const struct na_sim_net *net);

/** The switch's pipeline (its counters and registers). */
const struct lcf_pipeline *na_sim_net_pipeline(const struct na_sim_net *net);

/** The longest a frame sent now can still be in flight (no cost profile). */
uint64_t na_sim_net_life_ns(const struct na_sim_net *net);

/**
 * Record the switch's passes of 1 in `every` events (lcf_trace.h, as
 * swswitch --trace; the virtual clock) into a ring of `capacity` records.
 * @return 0, -EINVAL or -ENOMEM (lcf_trace_init).
 */
int na_sim_net_trace(struct na_sim_net *net, uint32_t every, uint32_t capacity);

/** Write the switch's trace to `f`. @return 0 or -EIO. */
int na_sim_net_trace_dump(const struct na_sim_net *net, FILE *f);

/**
 * Print the switch's non-zero action counters to `f` as JSON members
 * ("name":count, comma-separated, no braces): the summaries' switch_actions.
 */
void na_sim_net_actions_json(const struct na_sim_net *net, FILE *f);

#endif /* NA_SIM_NET_H */
