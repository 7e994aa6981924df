/* SPDX-License-Identifier: BSD-3-Clause
 *
 * A node crash and the control plane's answer; see na_sim_crash.h.
 */
#include <inttypes.h>

#include "na_history.h"
#include "na_requester.h"
#include "na_sim_crash.h"
#include "na_sim_net.h"
#include "na_sim_sched.h"

static void
restart(void *ctx, void *arg)
{
	struct na_sim_crash *c = ctx;

	(void)arg;
	if (*c->closing)
		return;
	c->restart(c);    /* sets c->restarted */
	if (c->restarted) /* else too late: the run was stopping */
		c->restart_ns = na_now_ns();
}

static void
evict(void *ctx, void *arg)
{
	struct na_sim_crash *c = ctx;

	(void)arg;
	if (*c->closing)
		return;
	/* Between two passes, as swswitch's workers apply it. */
	na_sim_net_node_failed(c->net, c->d[c->idx]->node.self, &c->rep);
	if (c->restart)
		na_sim_at(na_now_ns() + 1000000ull, restart, c, NULL);
}

/*
 * The homes first: from their marks no ADD copy goes (na_home.h dead_new),
 * and the switch evicts once none sent before can still be in flight; an
 * ADD copy delivered after the eviction would install the home's stale
 * metadata (lib/model/migsettle.pml HOMESFIRST).
 */
static void
declare(void *ctx, void *arg)
{
	struct na_sim_crash *c = ctx;
	uint16_t id = c->d[c->idx]->node.self;

	(void)arg;
	if (*c->closing)
		return;
	for (uint32_t i = 0; i < c->n; i++)
		if (i != c->idx)
			dsm_node_failed(c->d[i], id);
	c->declared = true;
	c->declare_ns = na_now_ns();
	/* (+10 us: a copy sent in the same instant, behind the marks) */
	na_sim_at(na_now_ns() + na_sim_net_life_ns(c->net) + 10000, evict, c,
		  NULL);
}

void
na_sim_crash_now(struct na_sim_crash *c)
{
	struct dsm *d = c->d[c->idx];

	if (c->crashed)
		return;
	c->crashed = true;
	c->crash_ns = na_now_ns();
	na_sim_net_crash(c->net, d->node.self);
	*c->stop = 1;
	dsm_stop(d); /* its threads give up instead of retransmitting */
	na_history_close(c->h, 0);
	na_sim_at(na_now_ns() + c->detect_ns, declare, c, NULL);
}

void
na_sim_crash_json(const struct na_sim_crash *c, FILE *f)
{
	fprintf(f,
		"\"crash\":{\"node\":%u,\"crashed\":%s,\"at_s\":%.6f,"
		"\"declared_s\":%.6f,\"evicted_locked\":%u,"
		"\"evicted_copyset\":%u,\"evicted_modified\":%u,"
		"\"requester_rows\":%u,\"restarted\":%s,\"restart_s\":%.6f}",
		c->d[c->idx]->node.self, c->crashed ? "true" : "false",
		c->crash_ns / 1e9, c->declare_ns / 1e9, c->rep.locked,
		c->rep.copyset, c->rep.modified, c->rep.requesters,
		c->restarted ? "true" : "false", c->restart_ns / 1e9);
}
