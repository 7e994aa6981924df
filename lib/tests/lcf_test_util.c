/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>

#include <criterion/criterion.h>

#include "lcf_test_util.h"

struct topo tu_topo;
struct lcf_pipeline *tu_p;

void
tu_setup(const char *topo_name)
{
	const char *src = getenv("SWSWITCH_SRC");
	struct lcf_pipeline_config cfg;
	char path[512], err[TOPO_ERR_LEN];

	snprintf(path, sizeof(path), "%s/topo/%s", src ? src : ".", topo_name);
	cr_assert_eq(topo_load(path, &tu_topo, err), 0, "%s", err);
	lcf_pipeline_config_from_topo(&tu_topo, &cfg);
	tu_p = lcf_pipeline_create(&cfg);
	cr_assert_not_null(tu_p);
}

void
tu_teardown(void)
{
	lcf_pipeline_free(tu_p);
	tu_p = NULL;
}

uint64_t
tu_tag(uint32_t home, uint64_t idx)
{
	return (uint64_t)home << (48 - tu_topo.block_shift) | idx;
}

struct lcf_msg
tu_msg(uint8_t type, uint16_t node, uint16_t thread, uint32_t seq, uint64_t tag)
{
	return (struct lcf_msg){
		.version = LCF_VERSION,
		.type = type,
		.node = node,
		.thread = thread,
		.seq = seq,
		.tag = tag,
	};
}

void
tu_pass(const struct lcf_msg *m, bool resubmitted, uint64_t md,
	struct lcf_result *res)
{
	const struct topo_node *n = topo_node_by_id(&tu_topo, m->node);
	struct lcf_ingress ing = {
		.port = n ? n->port : 0,
		.resubmitted = resubmitted,
		.resubmit_meta = md,
	};

	lcf_pipeline_process(tu_p, m, &ing, res);
}

void
tu_send(const struct lcf_msg *m, struct lcf_result *res, int *passes)
{
	tu_pass(m, false, 0, res);
	if (passes)
		*passes = 1;
	if (res->verdict != LCF_V_RESUBMIT)
		return;
	tu_pass(m, true, res->resubmit_meta, res);
	if (passes)
		*passes = 2;
	cr_assert_neq(res->verdict, LCF_V_RESUBMIT, "resubmitted twice");
}

struct lcf_result
tu_send_meta(uint8_t type, uint16_t node, uint32_t seq, uint64_t tag,
	     uint8_t gstatus, uint32_t copyset, int *passes)
{
	struct lcf_msg m = tu_msg(type, node, 0, seq, tag);
	struct lcf_result r;

	m.gstatus = gstatus;
	m.copyset = copyset;
	tu_send(&m, &r, passes);
	return r;
}

void
tu_add(uint64_t tag, uint8_t gstatus, uint32_t copyset)
{
	struct lcf_msg m = tu_msg(LCF_T_ADD_TO_SWITCH,
				  (uint16_t)topo_tag_home(&tu_topo, tag), 0, 1,
				  tag);
	struct lcf_result r;

	m.gstatus = gstatus;
	m.copyset = copyset;
	tu_send(&m, &r, NULL);
	cr_assert_eq(r.verdict, LCF_V_EMIT);
	cr_assert_eq(r.out.type, LCF_T_MIGRATE_ACK);
	cr_assert_eq(r.out.flags & LCF_F_FAIL, 0, "ADD collided");
}

struct lcf_block_view
tu_block(uint64_t tag)
{
	struct lcf_block_view v;

	cr_assert_eq(lcf_pipeline_read_block(tu_p, tag, &v), 0,
		     "tag %#llx not in switch", (unsigned long long)tag);
	return v;
}

struct lcf_requester_view
tu_requester(uint16_t node, uint16_t thread)
{
	struct lcf_requester_view v;

	cr_assert_eq(lcf_pipeline_read_requester(tu_p, node, thread, &v), 0);
	return v;
}

uint64_t
tu_count(enum lcf_action a)
{
	return lcf_pipeline_counters(tu_p)->action[a];
}
