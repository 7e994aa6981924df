/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The key-value store's workloads; see kv_workload.h.
 */
#include <stddef.h>
#include <string.h>

#include "kv_workload.h"

const struct kv_workload kv_workloads[] = {
	{ "ycsb-a", 0.50, "YCSB A, update heavy: 50% GET, 50% PUT" },
	{ "ycsb-b", 0.95, "YCSB B, read mostly: 95% GET, 5% PUT" },
	{ "ycsb-c", 1.00, "YCSB C, read only: 100% GET" },
	{ "get95", 0.95, "the paper's read-intensive mix (Figure 14)" },
	{ "get50", 0.50, "the paper's write-intensive mix (Figure 14)" },
	{ NULL, 0, NULL },
};

const struct kv_workload *
kv_workload_find(const char *name)
{
	for (const struct kv_workload *w = kv_workloads; w->name != NULL; w++)
		if (!strcmp(w->name, name))
			return w;
	return NULL;
}
