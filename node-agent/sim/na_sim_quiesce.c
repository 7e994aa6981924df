/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The end-of-run quiescence check; see na_sim_quiesce.h.
 */
#include <inttypes.h>

#include "na_qholder.h"
#include "na_qtable.h"
#include "na_requester.h"
#include "na_sim_quiesce.h"
#include "na_sim_sched.h"

static uint32_t
check_blocks(const struct lcf_pipeline *p, FILE *err)
{
	const struct lcf_pipeline_config *c = lcf_pipeline_config(p);
	struct lcf_block_view v;
	uint32_t bad = 0;
	uint64_t tag;

	for (uint32_t w = 0; w < c->ways; w++)
		for (uint32_t s = 0; s < c->slots_per_way; s++) {
			if (lcf_pipeline_read_slot(p, w, s, &tag, &v) < 0)
				continue;
			if (v.lock) {
				bad++;
				if (err)
					fprintf(err,
						"na-sim: not quiescent: block "
						"%#" PRIx64 " (way %u slot %u) "
						"LOCK %#x%s%s%s\n",
						tag, w, s, v.lock,
						v.lock & LCF_LOCK_WRITER
							? " WRITER"
							: "",
						v.lock & LCF_LOCK_WAITING
							? " WAITING"
							: "",
						v.lock & LCF_LOCK_READERS
							? " READERS"
							: "");
			}
			if (v.qholder || v.fwd_cnt) {
				bad++;
				if (err)
					fprintf(err,
						"na-sim: not quiescent: block "
						"%#" PRIx64 " (way %u slot %u) "
						"QSTATE holder %#x fwd_cnt "
						"%#x\n",
						tag, w, s, v.qholder,
						v.fwd_cnt);
			}
		}
	return bad;
}

/* A SCOREBOARD entry counting locks (COUNT n > 0) is an event still
 * holding them: a violation. A CLAIMED one is over (PROTOCOL.md 4.2; a
 * QXFER or QRELEASE leaves its event CLAIMED for good, "queued mode"):
 * counted in *claimed only. */
static uint32_t
check_requester(const struct lcf_pipeline *p, uint16_t node, uint16_t thread,
		FILE *err, uint32_t *claimed)
{
	struct lcf_requester_view v;
	uint32_t bad = 0;

	if (lcf_pipeline_read_requester(p, node, thread, &v) < 0)
		return 0;
	for (int par = 0; par < 2; par++) {
		if (v.sb_state[par] == LCF_SB_STATE_CLAIMED) {
			(*claimed)++;
			continue;
		}
		if (!v.sb_count[par])
			continue;
		bad++;
		if (err)
			fprintf(err,
				"na-sim: not quiescent: requester node %u "
				"thread %u SCOREBOARD[%d] seq %u count %u\n",
				node, thread, par, v.sb_seq[par],
				v.sb_count[par]);
	}
	return bad;
}

static uint32_t
check_node(const struct dsm *d, FILE *err)
{
	const struct na_node *n = &d->node;
	uint32_t bad = 0;

	for (uint16_t k = 0; k < n->cfg.threads; k++)
		if (d->threads[k].unl.valid) {
			bad++;
			if (err)
				fprintf(err,
					"na-sim: not quiescent: node %u thread "
					"%u unlock seq %u pending\n",
					n->self, k, d->threads[k].unl.m.seq);
		}
	for (uint32_t i = 0; n->qt && i < NA_QT_SLOTS; i++) {
		const struct na_qslot *s = &n->qt->s[i];

		if (!s->used || s->h.st == NA_QH_IDLE)
			continue;
		bad++;
		if (err)
			fprintf(err,
				"na-sim: not quiescent: node %u queue holder "
				"of block %#" PRIx64 " (thread %u seq %u) in "
				"state %d, %u queued\n",
				n->self, s->tag, s->h.thread, s->h.seq,
				(int)s->h.st, s->h.q.n);
	}
	return bad;
}

uint32_t
na_sim_quiesce_check(const struct lcf_pipeline *p, struct dsm *const *d,
		     uint32_t n, FILE *err, uint32_t *claimed)
{
	uint16_t threads = lcf_pipeline_config(p)->threads_per_node;
	uint32_t bad = check_blocks(p, err);

	*claimed = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (!d[i])
			continue;
		bad += check_node(d[i], err);
		for (uint16_t k = 0; k < threads; k++)
			bad += check_requester(p, d[i]->node.self, k, err,
					       claimed);
	}
	return bad;
}

static void
set_flag(void *ctx, void *arg)
{
	(void)arg;
	*(volatile int *)ctx = 1;
}

uint32_t
na_sim_quiesce_wait(const struct lcf_pipeline *p, struct dsm *const *d,
		    uint32_t n, uint64_t limit_ns, FILE *err, uint32_t *claimed)
{
	uint64_t deadline = na_now_ns() + limit_ns;
	volatile int tick;

	while (na_sim_quiesce_check(p, d, n, NULL, claimed)) {
		if (na_now_ns() >= deadline)
			return na_sim_quiesce_check(p, d, n, err, claimed);
		tick = 0;
		na_sim_at(na_now_ns() + 1000000ull, set_flag, (void *)&tick,
			  NULL);
		na_sim_run(0, &tick);
	}
	return 0;
}
