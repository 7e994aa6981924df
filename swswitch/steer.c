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
