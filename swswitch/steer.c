/* SPDX-License-Identifier: BSD-3-Clause
 *
 * NIC steering by tag: one exact-match rte_flow rule per steering key
 * (steer.h). Exact UDP ports and a QUEUE action are the part of rte_flow
 * that flow directors commonly implement (ixgbe/i40e/ice FDIR, mlx5, and
 * net_tap through TC flower), which is why the key travels in a UDP port
 * rather than being matched inside the LCF header (a RAW or flex item only
 * some NICs have).
 */
#include <rte_byteorder.h>
#include <rte_flow.h>

#include "shard.h"
#include "steer.h"
#include "swswitch.h"

/* One rule: eth / ipv4 / udp src = sport, dst = lcf_port -> queue. */
static struct rte_flow *
steer_rule(uint16_t port_id, uint16_t sport, uint16_t queue, bool check,
	   struct rte_flow_error *err)
{
	const struct rte_flow_attr attr = { .ingress = 1 };
	const struct rte_flow_item_udp spec = {
		.hdr.src_port = rte_cpu_to_be_16(sport),
		.hdr.dst_port = rte_cpu_to_be_16(sw_app.topo.lcf_port),
	};
	const struct rte_flow_item_udp mask = {
		.hdr.src_port = RTE_BE16(0xffff),
		.hdr.dst_port = RTE_BE16(0xffff),
	};
	const struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP,
		  .spec = &spec,
		  .mask = &mask },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_action_queue q = { .index = queue };
	const struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &q },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};

	if (check &&
	    rte_flow_validate(port_id, &attr, pattern, actions, err) != 0)
		return NULL;
	return rte_flow_create(port_id, &attr, pattern, actions, err);
}

unsigned int
steer_install(uint16_t tport)
{
	struct sw_port *sp = &sw_app.ports[tport];
	const unsigned int n = sw_app.n_workers;
	struct rte_flow_error err = { .message = NULL };
	unsigned int key;

	sp->steer_rules = 0;
	if (n < 2 || sp->n_rxq != n)
		return 0;
	if (!lcf_steer_usable(sw_app.topo.lcf_port)) {
		SW_LOG(NOTICE,
		       "port %u: no NIC steering: lcf_port %u leaves no "
		       "room for %u source ports",
		       tport, sw_app.topo.lcf_port, LCF_STEER_KEYS);
		return 0;
	}
	for (key = 0; key < LCF_STEER_KEYS; key++) {
		if (steer_rule(sp->port_id,
			       lcf_steer_sport(sw_app.topo.lcf_port, key),
			       (uint16_t)sw_shard_of_key(key, n), key == 0,
			       &err) == NULL)
			break;
	}
	if (key < LCF_STEER_KEYS) {
		SW_LOG(NOTICE,
		       "port %u (%s): no NIC steering by tag (rule %u: "
		       "%s): coherence frames of another worker's tags cross "
		       "the software ring",
		       tport, sp->name, key,
		       err.message != NULL ? err.message : "refused");
		rte_flow_flush(sp->port_id, &err);
		return 0;
	}
	sp->steer_rules = LCF_STEER_KEYS;
	SW_LOG(INFO,
	       "port %u (%s): NIC steering by tag: %u rules, UDP source "
	       "ports %u-%u -> the owner's rx queue",
	       tport, sp->name, LCF_STEER_KEYS,
	       lcf_steer_sport(sw_app.topo.lcf_port, 0),
	       lcf_steer_sport(sw_app.topo.lcf_port, LCF_STEER_KEYS - 1));
	return LCF_STEER_KEYS;
}

void
steer_remove(uint16_t tport)
{
	struct sw_port *sp = &sw_app.ports[tport];
	struct rte_flow_error err;

	if (sp->steer_rules == 0)
		return;
	if (rte_flow_flush(sp->port_id, &err) != 0)
		SW_LOG(WARNING, "port %u: flushing the steering rules: %s",
		       tport, err.message != NULL ? err.message : "failed");
	sp->steer_rules = 0;
}

/*
 * The multi-lcore design in full (moved here from docs/ARCHITECTURE.md,
 * which keeps a table of the rules): the reasons, the alternatives not
 * taken and what was tried.
 *
 * - **Shard function** (`swswitch/shard.h`): a tag's 6-bit **steering key** is
 *   the top 6 bits of `(tag * 0x9e3779b97f4a7c15) >> 32` (`lib/wire/lcf_steer.h`),
 *   and worker `key * N / 64` owns it. The owner is therefore a function of the
 *   key for every N, which is what lets a NIC rule per key steer correctly
 *   whatever the worker count. When N divides 64 this equals the fastrange
 *   `hash * N >> 32` of the full 32-bit hash that the shard function was before
 *   (the key's 26 lower hash bits cannot carry across a multiple of 64/N), so no
 *   block moved for 2 or 4 workers; for other N a worker owns floor(64/N) or
 *   ceil(64/N) keys (3 workers: 22/21/21 keys, at most +3% load; 7: +9%). Used
 *   by the dispatcher, the NIC rules and the `/swswitch/block` read-out, pinned
 *   by `swswitch/test_shard.c` (golden values, the equality with fastrange for
 *   N dividing 64, contiguous key ranges, balance). It is deliberately not
 *   CRC32C, the TAG ways' hash, so a shard does not see only a subset of its
 *   slots. Each shard has `ceil(slots_per_way / N)` slots per way: N shards hold
 *   the profile's capacity and footprint, so the `tofino` profile keeps the
 *   paper's limits at any lcore count.
 * - **Rx queues.** Each rx queue is polled by exactly one worker: queue w of a
 *   multi-queue port by worker w, single-queue ports dealt round-robin. One
 *   poller per queue plus FIFO rings means frames of one tag from one source
 *   queue reach the owner in arrival order. (Frames of one tag from *different*
 *   sources have no defined order on a real switch either; the pipeline
 *   serialises them in the order the owner takes them.)
 * - **Re-steering** (frames the NIC did not steer: senders that do not follow
 *   the source-port convention, PMDs without the rules). The receiving worker
 *   classifies; a coherence frame owned by another worker is queued (end of
 *   burst, receive order) on that owner's ring, together with its parse: a
 *   56-byte ring element (mbuf, decoded header, frame offsets, ingress port).
 *   The owner drains its ring before polling its queues, starts the register
 *   loads of the whole drained burst from the tags in the elements, and runs
 *   the pipeline without parsing again. Resubmits are local to the owner,
 *   after the burst they came from, as on the switch.
 * - **Backpressure.** A worker stops polling its rx queues while a peer's ring
 *   holds more than `SW_RING_HIGH` (8192 of 16,384) frames: loss then happens
 *   in the NIC queue, where the port's `imissed` counts it; the other half of
 *   the ring is the margin that keeps a handoff from ever finding it full
 *   (`dispatch.ring_full` counts one that does). The mark is a trade-off: a
 *   saturated owner with thousands of frames waiting reads each one cold
 *   (mbuf, frame, ring element), which argues for a low mark on dedicated
 *   cores; on a shared machine a descheduled owner then stops its peers
 *   sooner, and there a mark of 1024 measured no better (docs/PERFORMANCE.md
 *   "Multi-lcore"). With steering by tag no frame waits in a ring at all.
 * - **Tx.** N tx queues per port, queue w belongs to worker w: no lock on the
 *   hot path. Ports that cannot offer N tx queues are refused.
 * - **Per-requester registers.** SCOREBOARD and LAST-UNLOCK are per shard; as
 *   argued above, all packets of one coherence event carry the same tag, so
 *   they meet the same shard's copy.
 * - **MAC learning.** One table per worker. Simple and lock-free; the cost is
 *   that a worker only learns the sources of frames it receives itself, and
 *   floods unicast to a MAC it has not learned (with single-queue ports, a MAC
 *   behind a port another worker polls is never learned by this worker, so
 *   its L2 frames to that MAC are always flooded). Correct, since flooding is
 *   the L2 answer to an unknown destination, but wasteful for node-to-node data
 *   if L2 carried much of it. Alternatives not taken: a shared table written
 *   by the worker polling the source port (needs a seqlock per bucket, as
 *   entries of different ports share buckets), or re-steering L2 frames by
 *   destination MAC (one more ring hop for all L2 traffic).
 * - **Mapping to NIC RSS.** On a real NIC, `--workers N` configures N rx queues
 *   per port with RSS over the IPv4/UDP hash. RSS hashes the 5-tuple, not the
 *   LCF tag: a requester's flow lands on one queue (so per-source order holds),
 *   but the blocks it touches are spread over all shards, so on average
 *   (N-1)/N of the coherence frames would take the software ring hop, and the
 *   hop costs more than the frame's whole pipeline pass (docs/PERFORMANCE.md
 *   "Multi-lcore": 2 workers fed like this are slower than one).
 *   So the switch steers by tag **at the NIC**, with the part of `rte_flow`
 *   every common flow director implements, exact UDP ports and a QUEUE action
 *   (ixgbe/i40e/ice flow director, mlx5, net_tap through TC flower, by their
 *   DPDK documentation; none of them tried): senders
 *   put the tag's steering key in the UDP source port (docs/PROTOCOL.md 1.1:
 *   `lcf_port + 1 + key`, 64 ports), and at start-up swswitch installs, on
 *   every port with N rx queues, 64 rules `eth / ipv4 / udp src is
 *   lcf_port+1+k dst is lcf_port -> queue owner(k)` (`swswitch/steer.c`). The
 *   NIC then delivers every frame of a conforming sender to the queue its
 *   owner polls: no frame crosses a ring, each worker's pipeline sees only its
 *   own tags, and per-source order holds because a sender's frames of one tag
 *   always carry the same source port. Rules that take precedence over RSS
 *   are what flow directors are for; a NIC with range or masked port matches
 *   could use one rule per worker (each worker's keys are one contiguous
 *   range), exact matches are the portable form. The alternatives were worse:
 *   matching the tag inside the LCF header needs a RAW or flex item (only some
 *   NICs, e.g. mlx5 `RTE_FLOW_ITEM_TYPE_FLEX`), and RSS itself cannot be told
 *   to hash a UDP payload. Rule installation is all or none per port; when
 *   the PMD refuses (no `rte_flow`, no QUEUE action, a full table) a NOTICE
 *   says so, the port stats show `steer_rules: 0`, and the frames take the
 *   software ring, which is always correct: **correctness never depends on the
 *   NIC**, only the cost does. node-agent's UDP transport follows the
 *   convention with one send-only socket per key (64 per node, bound at
 *   start, all or none).
 *   **Tried on this machine**: net_tap accepts the rule in `rte_flow_validate`
 *   but the VM's kernel has no TC flower/multiq/skbedit
 *   (`CONFIG_NET_CLS_FLOWER`, `CONFIG_NET_SCH_MULTIQ`, `CONFIG_NET_ACT_SKBEDIT`
 *   unset), so creating it fails and swswitch logs the fallback (`ip netns
 *   add X; ip netns exec X swswitch -l 0-1 --no-huge --no-pci --vdev
 *   net_tap0,iface=stap0 --vdev net_tap1,iface=stap1 -- --topo T --workers 2`
 *   with a 2-port topology; on a kernel with flower, `tc filter show dev
 *   stap0` would list the 64 rules); net_pcap,
 *   net_null, net_ring and af_packet have no `rte_flow`. No real NIC was
 *   available: the rules are untested on hardware. The benchmark's `sw2_tag`
 *   configuration delivers frames the way the rules would.
 */
