/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Topology file: which nodes exist, their addresses, the swswitch port each is
 * attached to, and the switch's own addresses and register-array profile.
 * The schema is in docs/TOPOLOGY.md. A file is either loaded whole or refused
 * with a message naming the field at fault; it is never half-loaded.
 */
#ifndef TOPO_H
#define TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lcf_wire.h"

#define TOPO_ERR_LEN         256
#define TOPO_PROFILE_LEN     16
#define TOPO_DEFAULT_THREADS 16

struct topo_node {
	uint16_t id;
	uint16_t port;        /* swswitch port id (DPDK port order) */
	struct lcf_addr addr; /* mac, ip (network byte order) */
};

/* A named register-array profile and its limits. */
struct topo_profile {
	const char *name;
	uint32_t max_ways;
	uint64_t max_blocks; /* ways * slots_per_way */
	uint32_t default_ways;
	uint32_t default_slots;
};

struct topo {
	uint16_t lcf_port;
	uint32_t block_size;       /* power of two */
	uint8_t block_shift;       /* log2(block_size) */
	uint16_t threads_per_node; /* requesters per node (scoreboard rows) */

	struct {
		struct lcf_addr addr;
		char profile[TOPO_PROFILE_LEN];
		uint32_t ways;
		uint32_t slots_per_way;
		bool queued; /* lock_mode "queued" (docs/QUEUED-LOCKS.md) */
	} sw;

	uint32_t n_nodes;
	struct topo_node nodes[LCF_MAX_NODES]; /* in file order */
	int8_t node_index[LCF_MAX_NODES]; /* node id -> nodes[] index, -1 */
	int8_t port_node[LCF_MAX_NODES];  /* port -> node id, -1 */
	uint16_t n_ports;                 /* max port + 1 */
	uint32_t node_mask;               /* bit n set when node n exists */
	int shadow;                       /* node id, or -1 when absent */
};

/**
 * Load and check a topology file.
 *
 * @param path  JSON file.
 * @param t     filled on success; left zeroed on failure.
 * @param err   on failure, a message naming the field, e.g.
 *              "nodes[1].mac: expected \"xx:xx:xx:xx:xx:xx\", got \"zz\"".
 * @return 0, -ENOENT when the file cannot be read, -EINVAL when it is
 *         malformed or inconsistent.
 */
int topo_load(const char *path, struct topo *t, char err[TOPO_ERR_LEN]);

/** Same as topo_load() for a JSON document held in memory. */
int topo_load_string(const char *json, struct topo *t, char err[TOPO_ERR_LEN]);

/** The profile called `name`, or NULL when there is none. */
const struct topo_profile *topo_profile_find(const char *name);

/** The node with id `id`, or NULL. */
static inline const struct topo_node *
topo_node_by_id(const struct topo *t, uint32_t id)
{
	if (id >= LCF_MAX_NODES || t->node_index[id] < 0)
		return NULL;
	return &t->nodes[t->node_index[id]];
}

/** Home node id of a block tag: the top 16 bits of its global address. */
static inline uint32_t
topo_tag_home(const struct topo *t, uint64_t tag)
{
	return (uint32_t)(tag >> (48 - t->block_shift));
}

/** Parse "xx:xx:xx:xx:xx:xx". @return 0 or -EINVAL. */
int topo_parse_mac(const char *s, uint8_t mac[6]);

/** Parse a dotted-quad IPv4 address into network byte order. @return 0 or -EINVAL. */
int topo_parse_ip(const char *s, uint32_t *ip);

#endif /* TOPO_H */
