/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The node's statistics as JSON (printed by node-agent at exit).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "na_directory.h"
#include "na_msg.h"
#include "na_node.h"
#include "na_recovery.h"

static uint64_t
ld(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static void
per_type(FILE *f, const char *name, const uint64_t *v)
{
	bool first = true;

	fprintf(f, "\"%s\":{", name);
	for (int i = 0; i < 256; i++) {
		uint64_t x = ld(&v[i]);

		if (!x)
			continue;
		fprintf(f, "%s\"%s\":%" PRIu64, first ? "" : ",",
			na_type_name((uint8_t)i), x);
		first = false;
	}
	fprintf(f, "}");
}

/*
 * The home's migration counters and the blocks it has in the switch now
 * (their indices, at most 1024 listed: the test compares them with the
 * hottest blocks). agent_mu held.
 */
static void
migration_json(struct na_node *n, FILE *f)
{
	const struct na_home *h = &n->home;
	uint32_t listed = 0;

	fprintf(f, ",\"migration\":{\"dynamic\":%s,\"k\":%u,\"epoch_ms\":%u,",
		n->migrate.dynamic ? "true" : "false", n->migrate.k,
		n->cfg.epoch_ms);
#define NA_X_PRINT(name) \
	fprintf(f, "\"" #name "\":%" PRIu64 ",", n->migrate.st.name);
	NA_MIGRATE_COUNTERS(NA_X_PRINT)
#undef NA_X_PRINT
	fprintf(f, "\"add_srtt_us\":%" PRIu64 ",\"add_rto_us\":%" PRIu64 ",",
		h->add_srtt_ns / 1000, na_home_add_rto(h) / 1000);
	fprintf(f, "\"switch_owned\":%u,\"switch_owned_blocks\":[",
		na_migrate_switch_owned(h));
	for (uint32_t i = 0; i < h->n_blocks && listed < 1024; i++) {
		if (h->blk[i].owner != NA_OWN_SWITCH)
			continue;
		fprintf(f, "%s%u", listed ? "," : "", i);
		listed++;
	}
	fprintf(f, "]}");
}

/* SABRes: this node's reads and writes, and its home's ATT. agent_mu held. */
static void
sabres_json(struct na_node *n, FILE *f)
{
	static const char *const reason[] = { "none",    "written",  "odd",
					      "changed", "att_full", "bad" };
	const struct na_sab_req_stats *s = &n->st.sab;

	fprintf(f, ",\"sabres\":{");
#define NA_X_PRINT(name) fprintf(f, "\"" #name "\":%" PRIu64 ",", ld(&s->name));
	NA_SAB_REQ_COUNTERS(NA_X_PRINT)
#undef NA_X_PRINT
	fprintf(f, "\"abort_reasons\":{");
	for (int i = 1; i < 6; i++)
		fprintf(f, "%s\"%s\":%" PRIu64, i > 1 ? "," : "", reason[i],
			ld(&s->abort_reason[i]));
	fprintf(f, "}");
	if (n->cfg.roles & NA_ROLE_HOME) {
		const struct na_sab_home_stats *h = &n->home.sab.st;

		fprintf(f, ",\"home\":{");
#define NA_X_PRINT(name) fprintf(f, "\"" #name "\":%" PRIu64 ",", h->name);
		NA_SAB_HOME_COUNTERS(NA_X_PRINT)
#undef NA_X_PRINT
		fprintf(f, "\"att_size\":%u}", NA_SAB_ATT);
	}
	fprintf(f, "}");
}

void
na_node_stats_json(struct na_node *n, FILE *f)
{
	const struct na_req_stats *r = &n->st.req;
	uint64_t sent = 0, recv = 0;

	for (int i = 0; i < 256; i++) {
		sent += ld(&n->st.sent[i]);
		recv += ld(&n->st.recv[i]);
	}
	fprintf(f,
		"\"packets_sent\":%" PRIu64 ",\"packets_received\":%" PRIu64
		",",
		sent, recv);
	per_type(f, "sent_by_type", n->st.sent);
	fprintf(f, ",");
	per_type(f, "received_by_type", n->st.recv);
	fprintf(f,
		",\"send_errors\":%" PRIu64 ",\"mailbox_overflow\":%" PRIu64
		",\"dropped\":%" PRIu64 ",\"rx_bad\":%" PRIu64,
		ld(&n->st.send_errors), ld(&n->st.mbox_overflow),
		ld(&n->st.dropped), n->tp.rx_bad);

	fprintf(f, ",\"requester\":{");
#define NA_X_PRINT(name) fprintf(f, "\"" #name "\":%" PRIu64 ",", ld(&r->name));
	NA_REQ_COUNTERS(NA_X_PRINT)
#undef NA_X_PRINT
	fprintf(f, "\"events_by_type\":{");
	for (int i = 1, first = 1; i < 16; i++) {
		if (!ld(&r->ev_type[i]))
			continue;
		fprintf(f, "%s\"%s\":%" PRIu64, first ? "" : ",",
			na_type_name((uint8_t)i), ld(&r->ev_type[i]));
		first = 0;
	}
	fprintf(f, "}}");

	pthread_mutex_lock(&n->agent_mu);
	if (n->cfg.roles & NA_ROLE_HOME) {
		fprintf(f, ",\"home_agent\":{");
#define NA_X_PRINT(name) \
	fprintf(f, "\"" #name "\":%" PRIu64 ",", n->home.st.name);
		NA_HOME_COUNTERS(NA_X_PRINT)
#undef NA_X_PRINT
		fprintf(f,
			"\"chunks_allocated\":%u,\"messages_received\":%" PRIu64
			",\"messages_sent\":%" PRIu64 "}",
			n->home.next_chunk - 1, ld(&n->st.home_rx),
			ld(&n->st.home_tx));
		if (n->home.dir)
			na_dir_stats_json(n->home.dir, f);
		/* validate-on-hit (docs/VALIDATE.md); vreads counted lock-free */
		fprintf(f, ",\"voh_home\":{");
#define NA_X_PRINT(name)                                               \
	fprintf(f, "\"" #name "\":%" PRIu64 "%s", ld(&n->voh.st.name), \
		strcmp(#name, "bad") ? "," : "");
		NA_VOH_COUNTERS(NA_X_PRINT)
#undef NA_X_PRINT
		fprintf(f, "}");
	}
	if (n->cfg.roles & NA_ROLE_CACHE) {
		fprintf(f, ",\"cache_agent\":{");
#define NA_X_PRINT(name) \
	fprintf(f, "\"" #name "\":%" PRIu64 ",", n->cagent.st.name);
		NA_CAGENT_COUNTERS(NA_X_PRINT)
#undef NA_X_PRINT
		fprintf(f, "\"deferred_now\":%u}", n->cagent.n_def);
	}
	if (n->qt) {
		fprintf(f, ",\"queue_holders\":{");
#define NA_X_PRINT(name) \
	fprintf(f, "\"" #name "\":%" PRIu64 ",", n->qt->st.name);
		NA_QT_COUNTERS(NA_X_PRINT)
#undef NA_X_PRINT
		fprintf(f, "\"slots\":%d}", NA_QT_SLOTS);
	}
	sabres_json(n, f);
	fprintf(f, ",");
	na_rec_stats_json(n->rec, f);
	if (n->cfg.roles & NA_ROLE_HOME)
		migration_json(n, f);
	if (n->cfg.roles & NA_ROLE_SHADOW) {
		const struct na_shadow *sh = &n->shadow;

		fprintf(f, ",\"shadow\":{");
#define NA_X_PRINT(name) fprintf(f, "\"" #name "\":%" PRIu64 ",", sh->st.name);
		NA_SHADOW_COUNTERS(NA_X_PRINT)
#undef NA_X_PRINT
		fprintf(f,
			"\"tags\":%u,\"peak_tags\":%u,\"capacity\":%" PRIu64
			",\"epochs\":%u}",
			sh->n_tags, sh->peak_tags, sh->capacity, sh->epoch - 1);
	}
	pthread_mutex_unlock(&n->agent_mu);
	na_node_trace_json(n, f);
}
