/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The trace ring summarised per type for the stats JSON (na_node.h
 * na_node_trace_json): what one process can tell from its own records.
 * The cross-process breakdown (network hops, the switch, the critical path
 * of each event) is scripts/latency_breakdown.py's, from the trace files.
 * Runs at exit or on a stats request, never on the hot path.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "na_msg.h"
#include "na_node.h"

#define SLOTS 8192u /* open addressing: keys of the records still open */

struct key {
	uint64_t k; /* node | thread | seq | type, 0: empty */
	uint64_t t_ns;
};

struct sum {
	uint64_t n, ns, n2, ns2; /* two measures per type */
};

static uint64_t
key_of(const struct lcf_trace_rec *r, uint8_t type)
{
	return ((uint64_t)r->node << 48 | (uint64_t)r->thread << 40 |
		(uint64_t)r->seq << 8 | type) +
	       1;
}

static struct key *
slot(struct key *tab, uint64_t k)
{
	uint32_t i = (uint32_t)((k * 0x9e3779b97f4a7c15ull) >> 51) % SLOTS;

	for (uint32_t p = 0; p < SLOTS; p++, i = (i + 1) % SLOTS)
		if (tab[i].k == k || tab[i].k == 0)
			return &tab[i];
	return NULL;
}

static void
put_time(struct key *tab, uint64_t k, uint64_t t)
{
	struct key *s = slot(tab, k);

	if (s == NULL) { /* full: start over, losing the open ones */
		memset(tab, 0, SLOTS * sizeof(*tab));
		s = slot(tab, k);
	}
	s->k = k;
	s->t_ns = t;
}

static bool
take_time(struct key *tab, uint64_t k, uint64_t *t)
{
	struct key *s = slot(tab, k);

	if (s == NULL || s->k != k)
		return false;
	*t = s->t_ns;
	return true;
}

/* Per type: {"n", m1: ns/n in us, then n2 as `c2` and, with `m2`, ns2/n2}. */
static void
print_sums(FILE *f, const char *name, const struct sum *s, const char *m1,
	   const char *c2, const char *m2)
{
	bool first = true;

	fprintf(f, ",\"%s\":{", name);
	for (unsigned i = 0; i < 256; i++) {
		if (!s[i].n && !s[i].n2)
			continue;
		fprintf(f,
			"%s\"%s\":{\"n\":%" PRIu64
			",\"%s\":%.1f,\"%s\":%" PRIu64,
			first ? "" : ",", na_type_name((uint8_t)i), s[i].n, m1,
			s[i].n ? (double)s[i].ns / 1e3 / (double)s[i].n : 0.0,
			c2, s[i].n2);
		if (m2)
			fprintf(f, ",\"%s\":%.1f", m2,
				s[i].n2 ? (double)s[i].ns2 / 1e3 /
						  (double)s[i].n2
					: 0.0);
		fprintf(f, "}");
		first = false;
	}
	fprintf(f, "}");
}

void
na_node_trace_json(const struct na_node *n, FILE *f)
{
	const struct lcf_trace *tr = &n->tr;
	uint64_t next = __atomic_load_n(&tr->next, __ATOMIC_ACQUIRE);
	uint64_t cap = tr->every ? (uint64_t)tr->mask + 1 : 0;
	uint64_t first = next > cap ? next - cap : 0, in_t = 0, in_k = 0;
	struct sum *ev, *ag;
	struct key *tab;
	uint64_t ops = 0, ops_ns = 0, hits = 0;

	if (!tr->every)
		return;
	ev = calloc(256, sizeof(*ev));
	ag = calloc(256, sizeof(*ag));
	tab = calloc(SLOTS, sizeof(*tab));
	if (!ev || !ag || !tab)
		goto out;
	for (uint64_t i = first; i < next; i++) {
		const struct lcf_trace_rec *r = &tr->r[i & tr->mask];
		uint64_t t0;

		switch (r->point) {
		case LCF_TP_OP_BEGIN:
			put_time(tab, key_of(r, 0xfe), r->t_ns);
			break;
		case LCF_TP_OP_END:
			if (take_time(tab, key_of(r, 0xfe), &t0)) {
				ops++;
				ops_ns += r->t_ns - t0;
				hits += r->aux == 1;
			}
			break;
		case LCF_TP_EV_BEGIN:
			put_time(tab, key_of(r, 0xff), r->t_ns);
			break;
		case LCF_TP_EV_DONE:
			if (take_time(tab, key_of(r, 0xff), &t0)) {
				ev[r->type].n++;
				ev[r->type].ns += r->t_ns - t0;
				if (r->aux & 1)
					ev[r->type].n2++;
			}
			break;
		case LCF_TP_RX:
			put_time(tab, key_of(r, r->type), r->t_ns);
			break;
		case LCF_TP_AG_IN:
			if (take_time(tab, key_of(r, r->type), &t0) &&
			    t0 <= r->t_ns) {
				ag[r->type].n++;
				ag[r->type].ns += r->t_ns - t0;
			}
			in_t = r->t_ns;
			in_k = key_of(r, r->type);
			ag[r->type].n2++;
			break;
		case LCF_TP_AG_OUT:
			/* Service: from the message in to this send. */
			if (in_k >> 8 == key_of(r, 0) >> 8)
				ag[in_k & 0xff].ns2 += r->t_ns - in_t;
			in_t = r->t_ns;
			break;
		default:
			break;
		}
	}
	fprintf(f,
		",\"trace\":{\"every\":%u,\"records\":%" PRIu64
		",\"overwritten\":%" PRIu64 ",\"ops\":{\"n\":%" PRIu64
		",\"mean_us\":%.1f,\"hits\":%" PRIu64 "}",
		tr->every, next - first, first, ops,
		ops ? (double)ops_ns / 1e3 / (double)ops : 0.0, hits);
	/* Events: mean from the start to the last reply; NACKed ones.
	 * Agents: queueing from the receive to the agents' section (n: the
	 * received ones), service from there to the last message sent. */
	print_sums(f, "events", ev, "mean_us", "nacked", NULL);
	print_sums(f, "agents", ag, "queue_us", "handled", "service_us");
	fprintf(f, "}");
out:
	free(ev);
	free(ag);
	free(tab);
}
