/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The topology the node-agent unit tests share: four nodes on ports 0-3,
 * tofino profile, node 3 the shadow (as topo/demo4.json).
 */
#ifndef TEST_NA_TOPO_H
#define TEST_NA_TOPO_H

#include <criterion/criterion.h>

#include "topo.h"

static inline void
test_na_topo4(struct topo *t)
{
	static const char *json =
		"{ \"lcf_port\": 7340, \"block_size\": 4096,"
		"  \"switch\": { \"mac\": \"02:00:00:00:00:fe\", \"ip\": \"10.0.0.254\","
		"              \"profile\": \"tofino\" },"
		"  \"nodes\": ["
		"    { \"id\": 0, \"mac\": \"02:00:00:00:00:01\", \"ip\": \"10.0.0.1\", \"port\": 0 },"
		"    { \"id\": 1, \"mac\": \"02:00:00:00:00:02\", \"ip\": \"10.0.0.2\", \"port\": 1 },"
		"    { \"id\": 2, \"mac\": \"02:00:00:00:00:03\", \"ip\": \"10.0.0.3\", \"port\": 2 },"
		"    { \"id\": 3, \"mac\": \"02:00:00:00:00:04\", \"ip\": \"10.0.0.4\", \"port\": 3 } ],"
		"  \"shadow\": 3 }";
	char err[TOPO_ERR_LEN];

	cr_assert_eq(topo_load_string(json, t, err), 0, "%s", err);
}

#endif /* TEST_NA_TOPO_H */
