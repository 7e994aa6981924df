/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The key-value store's workloads (--workload, --get-ratio): the YCSB core
 * workloads without inserts or scans, and the paper's two mixes (section
 * 7.3, Figure 14). Pure.
 */
#ifndef KV_WORKLOAD_H
#define KV_WORKLOAD_H

struct kv_workload {
	const char *name;
	double get_ratio; /* fraction of GETs; the rest are PUTs */
	const char *what;
};

/** The named workloads, NULL-terminated by name. */
extern const struct kv_workload kv_workloads[];

/** The workload called `name`, or NULL. */
const struct kv_workload *kv_workload_find(const char *name);

#endif /* KV_WORKLOAD_H */
