/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Control commands (ctl.h): posting a command to the workers and applying
 * it at a burst boundary.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include <rte_cycles.h>
#include <rte_telemetry.h>

#include "ctl.h"
#include "swswitch.h"

#define SW_CTL_TIMEOUT_US 1000000

void
sw_ctl_apply(struct sw_lcore *lc)
{
	struct sw_ctl *c = &lc->ctl;
	uint32_t req = __atomic_load_n(&c->req, __ATOMIC_ACQUIRE);
	uint64_t t0 = rte_get_timer_cycles();

	c->rc = lcf_pipeline_node_failed(lc->pipe, c->node, &c->rep, c->tags,
					 SW_CTL_TAGS);
	c->apply_ns = (rte_get_timer_cycles() - t0) * NS_PER_S /
		      rte_get_timer_hz();
	if (c->rc == 0)
		SW_LOG(NOTICE,
		       "worker %u: node %u failed: evicted %u locked, "
		       "%u listing it (%u Modified at it), %u requester rows "
		       "reset",
		       lc->index, c->node, c->rep.locked, c->rep.copyset,
		       c->rep.modified, c->rep.requesters);
	__atomic_store_n(&c->done, req, __ATOMIC_RELEASE);
}

/* Wait for every worker to report; false after the timeout. */
static bool
sw_ctl_wait(void)
{
	for (unsigned int us = 0; us < SW_CTL_TIMEOUT_US; us += 100) {
		unsigned int w;

		for (w = 0; w < sw_app.n_workers; w++) {
			const struct sw_ctl *c = &sw_app.workers[w]->ctl;

			if (__atomic_load_n(&c->done, __ATOMIC_ACQUIRE) !=
			    c->req)
				break;
		}
		if (w == sw_app.n_workers)
			return true;
		rte_delay_us_sleep(100);
	}
	return false;
}

static int
sw_ctl_reply(uint16_t node, struct rte_tel_data *d)
{
	struct lcf_node_failed_report tot = { 0 };
	struct rte_tel_data *per[RTE_MAX_LCORE] = { NULL };
	struct rte_tel_data *tags = rte_tel_data_alloc();
	char buf[32];
	unsigned int w;

	if (tags == NULL)
		return -ENOMEM;
	rte_tel_data_start_array(tags, RTE_TEL_STRING_VAL);
	for (w = 0; w < sw_app.n_workers; w++) {
		const struct sw_ctl *c = &sw_app.workers[w]->ctl;
		uint32_t n = c->rep.locked + c->rep.copyset;

		if ((per[w] = rte_tel_data_alloc()) == NULL)
			goto nomem;
		tot.locked += c->rep.locked;
		tot.copyset += c->rep.copyset;
		tot.modified += c->rep.modified;
		tot.requesters += c->rep.requesters;
		for (uint32_t i = 0; i < n && i < SW_CTL_TAGS; i++) {
			snprintf(buf, sizeof(buf), "0x%" PRIx64, c->tags[i]);
			rte_tel_data_add_array_string(tags, buf);
		}
		rte_tel_data_start_dict(per[w]);
		rte_tel_data_add_dict_u64(per[w], "evicted_locked",
					  c->rep.locked);
		rte_tel_data_add_dict_u64(per[w], "evicted_copyset",
					  c->rep.copyset);
		rte_tel_data_add_dict_u64(per[w], "evicted_modified",
					  c->rep.modified);
		rte_tel_data_add_dict_u64(per[w], "requester_rows_reset",
					  c->rep.requesters);
		rte_tel_data_add_dict_u64(per[w], "apply_ns", c->apply_ns);
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "node", node);
	rte_tel_data_add_dict_u64(d, "workers", sw_app.n_workers);
	rte_tel_data_add_dict_u64(d, "evicted", tot.locked + tot.copyset);
	rte_tel_data_add_dict_u64(d, "evicted_locked", tot.locked);
	rte_tel_data_add_dict_u64(d, "evicted_copyset", tot.copyset);
	rte_tel_data_add_dict_u64(d, "evicted_modified", tot.modified);
	rte_tel_data_add_dict_u64(d, "requester_rows_reset", tot.requesters);
	rte_tel_data_add_dict_container(d, "tags", tags, 0);
	for (w = 0; w < sw_app.n_workers; w++) {
		snprintf(buf, sizeof(buf), "worker%u", w);
		rte_tel_data_add_dict_container(d, buf, per[w], 0);
	}
	return 0;
nomem:
	rte_tel_data_free(tags);
	for (w = 0; w < sw_app.n_workers; w++)
		rte_tel_data_free(per[w]);
	return -ENOMEM;
}

int
sw_ctl_node_failed(uint16_t node, struct rte_tel_data *d)
{
	int ret;

	if (node >= LCF_MAX_NODES || !topo_node_by_id(&sw_app.topo, node)) {
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_string(d, "error",
					     "node is not in the topology");
		return 0;
	}
	for (unsigned int w = 0; w < sw_app.n_workers; w++) {
		struct sw_ctl *c = &sw_app.workers[w]->ctl;

		c->node = node;
		__atomic_store_n(&c->req, c->req + 1, __ATOMIC_RELEASE);
	}
	if (!sw_ctl_wait()) {
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_string(
			d, "error",
			"a worker did not answer (stopping?); the command "
			"stays posted and is applied if it resumes");
		ret = 0;
	} else {
		ret = sw_ctl_reply(node, d);
	}
	return ret;
}
