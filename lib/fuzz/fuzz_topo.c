/* SPDX-License-Identifier: BSD-3-Clause
 *
 * libFuzzer harness for the topology loader: any input either loads into a
 * consistent topology or is refused with a message and a zeroed struct.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo.h"

#define CHECK(c)                                                       \
	do {                                                           \
		if (!(c)) {                                            \
			fprintf(stderr, "invariant failed: %s\n", #c); \
			abort();                                       \
		}                                                      \
	} while (0)

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct topo zero;
	char *json = malloc(size + 1);
	char err[TOPO_ERR_LEN];
	struct topo t;

	if (json == NULL)
		return 0;
	memcpy(json, data, size);
	json[size] = '\0';
	if (topo_load_string(json, &t, err) == 0) {
		CHECK(t.n_nodes > 0 && t.n_nodes <= LCF_MAX_NODES);
		CHECK(t.sw.ways > 0 && t.sw.slots_per_way > 0);
		CHECK((t.block_size & (t.block_size - 1)) == 0);
		CHECK(t.shadow < 0 || (t.node_mask & (1u << t.shadow)));
		for (uint32_t i = 0; i < t.n_nodes; i++) {
			CHECK(t.nodes[i].id < LCF_MAX_NODES);
			CHECK(t.port_node[t.nodes[i].port] == t.nodes[i].id);
		}
	} else {
		CHECK(err[0] != '\0');
		CHECK(memcmp(&t, &zero, sizeof(t)) == 0);
	}
	free(json);
	return 0;
}
