/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Fault injection (see fault.h). Off the hot path unless rules are given:
 * the loop only calls in here when the lcore has fault state.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_malloc.h>

#include "fault.h"
#include "lcf_wire.h"

#define FAULT_QUEUE 4096 /* delayed frames per direction */

struct fault_held {
	struct rte_mbuf *m;
	uint64_t release_tsc;
	uint16_t port;
};

struct fault_queue {
	uint32_t head, tail; /* free-running; tail - head frames held */
	struct fault_held slot[FAULT_QUEUE];
};

struct fault_lcore {
	struct fault_config cfg;
	uint64_t rng;
	uint64_t delay_tsc;
	uint16_t lcf_port;
	struct rte_mempool *copy_pool;
	uint64_t count[FAULT_N_DIR][FAULT_N_ACTION];
	uint64_t overflow; /* delays refused because the queue was full */
	struct fault_queue q[FAULT_N_DIR];
};

static const char *const fault_action_names[] = { "drop", "dup", "delay" };

static void
types_set_range(uint64_t *types, unsigned int lo, unsigned int hi)
{
	for (unsigned int t = lo; t <= hi; t++)
		types[t / 64] |= 1ull << (t % 64);
}

static int
parse_type_word(const char *w, uint64_t *types)
{
	static const struct {
		const char *name;
		uint8_t lo, hi;
	} classes[] = {
		{ "all", 0x00, 0xff },
		{ "requests", LCF_T_READ_MISS, LCF_T_EVICT_MODIFIED },
		{ "unlocks", LCF_T_READ_UNLOCK, LCF_T_WRITE_UNLOCK },
		{ "migrate", LCF_T_ADD_TO_SWITCH, LCF_T_REMOVE_FROM_SWITCH },
		{ "replies", LCF_T_NACK, LCF_T_VERSION },
		{ "node", LCF_T_NODE_FIRST, LCF_T_NODE_LAST },
	};
	char *end;
	unsigned long v;

	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (strcasecmp(w, classes[i].name) == 0) {
			types_set_range(types, classes[i].lo, classes[i].hi);
			return 0;
		}
	for (unsigned int t = 0; t < 256; t++) {
		const char *n = lcf_type_name((uint8_t)t);

		if (n != NULL && strcasecmp(w, n) == 0) {
			types_set_range(types, t, t);
			return 0;
		}
	}
	v = strtoul(w, &end, 0);
	if (*w == '\0' || *end != '\0' || v > 0xff)
		return -EINVAL;
	types_set_range(types, (unsigned int)v, (unsigned int)v);
	return 0;
}

int
fault_parse_rule(const char *spec, struct fault_rule *r, char *err,
		 size_t err_len)
{
	char buf[256], *field[4], *save = NULL, *tok, *end;
	double prob;
	int n = 0;

	memset(r, 0, sizeof(*r));
	if (strlen(spec) >= sizeof(buf)) {
		snprintf(err, err_len, "fault spec too long");
		return -EINVAL;
	}
	strcpy(buf, spec);
	for (tok = strtok_r(buf, ":", &save); tok != NULL && n < 4;
	     tok = strtok_r(NULL, ":", &save))
		field[n++] = tok;
	if (n != 4 || tok != NULL) {
		snprintf(err, err_len,
			 "fault \"%s\": expected ACTION:TYPES:DIR:PROB", spec);
		return -EINVAL;
	}
	for (r->action = 0; r->action < FAULT_N_ACTION; r->action++)
		if (strcmp(field[0], fault_action_names[r->action]) == 0)
			break;
	if (r->action == FAULT_N_ACTION) {
		snprintf(
			err, err_len,
			"fault \"%s\": action \"%s\" is not drop, dup or delay",
			spec, field[0]);
		return -EINVAL;
	}
	for (tok = strtok_r(field[1], "+", &save); tok != NULL;
	     tok = strtok_r(NULL, "+", &save))
		if (parse_type_word(tok, r->types) != 0) {
			snprintf(err, err_len,
				 "fault \"%s\": unknown type \"%s\"", spec,
				 tok);
			return -EINVAL;
		}
	if (strcmp(field[2], "in") == 0)
		r->dirs = 1u << FAULT_IN;
	else if (strcmp(field[2], "out") == 0)
		r->dirs = 1u << FAULT_OUT;
	else if (strcmp(field[2], "both") == 0)
		r->dirs = 1u << FAULT_IN | 1u << FAULT_OUT;
	else {
		snprintf(
			err, err_len,
			"fault \"%s\": direction \"%s\" is not in, out or both",
			spec, field[2]);
		return -EINVAL;
	}
	prob = strtod(field[3], &end);
	if (*end != '\0' || !(prob >= 0.0 && prob <= 1.0)) {
		snprintf(err, err_len,
			 "fault \"%s\": probability \"%s\" not in [0, 1]", spec,
			 field[3]);
		return -EINVAL;
	}
	r->threshold = prob >= 1.0 ? UINT32_MAX
				   : (uint32_t)(prob * 4294967296.0);
	return 0;
}

struct fault_lcore *
fault_lcore_create(const struct fault_config *cfg, unsigned int worker,
		   uint16_t lcf_port, struct rte_mempool *copy_pool, int socket)
{
	struct fault_lcore *f;

	if (cfg->n_rules == 0)
		return NULL;
	f = rte_zmalloc_socket("fault", sizeof(*f), RTE_CACHE_LINE_SIZE,
			       socket);
	if (f == NULL)
		return NULL;
	f->cfg = *cfg;
	/* A distinct, reproducible stream per worker. */
	f->rng = (cfg->seed + 1) * 0x9e3779b97f4a7c15ull + worker;
	f->delay_tsc = rte_get_tsc_hz() / 1000000 * cfg->delay_us;
	f->lcf_port = lcf_port;
	f->copy_pool = copy_pool;
	return f;
}

void
fault_lcore_free(struct fault_lcore *f)
{
	if (f == NULL)
		return;
	for (int d = 0; d < FAULT_N_DIR; d++)
		for (uint32_t i = f->q[d].head; i != f->q[d].tail; i++)
			rte_pktmbuf_free(f->q[d].slot[i % FAULT_QUEUE].m);
	rte_free(f);
}

static uint32_t
fault_rand(struct fault_lcore *f)
{
	/* xorshift64*: plenty for coin flips, and reproducible from the seed */
	f->rng ^= f->rng >> 12;
	f->rng ^= f->rng << 25;
	f->rng ^= f->rng >> 27;
	return (uint32_t)((f->rng * 0x2545f4914f6cdd1dull) >> 32);
}

/* LCF type of a frame to the LCF port, or -1 (never faulted). */
static int
fault_frame_type(const struct fault_lcore *f, const struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m), ihl;

	if (len < LCF_ETH_LEN + LCF_IPV4_LEN || p[12] != 0x08 || p[13] != 0x00)
		return -1;
	ihl = (uint32_t)(p[LCF_ETH_LEN] & 0x0f) * 4;
	if (p[LCF_ETH_LEN + 9] != 17 ||
	    len < LCF_ETH_LEN + ihl + LCF_UDP_LEN + 2)
		return -1;
	p += LCF_ETH_LEN + ihl;
	if (((uint16_t)p[2] << 8 | p[3]) != f->lcf_port)
		return -1;
	return p[LCF_UDP_LEN + 1];
}

bool
fault_apply(struct fault_lcore *f, enum fault_dir dir, uint16_t port,
	    struct rte_mbuf *m, struct rte_mbuf **dup)
{
	int type = fault_frame_type(f, m);

	*dup = NULL;
	if (type < 0)
		return false;
	for (unsigned int i = 0; i < f->cfg.n_rules; i++) {
		const struct fault_rule *r = &f->cfg.rules[i];
		struct fault_queue *q = &f->q[dir];

		if (!(r->dirs & (1u << dir)) ||
		    !(r->types[type / 64] & (1ull << (type % 64))) ||
		    fault_rand(f) >= r->threshold)
			continue;
		switch (r->action) {
		case FAULT_DROP:
			f->count[dir][FAULT_DROP]++;
			rte_pktmbuf_free(m);
			return true;
		case FAULT_DUP:
			*dup = rte_pktmbuf_copy(m, f->copy_pool, 0, UINT32_MAX);
			f->count[dir][FAULT_DUP] += *dup != NULL;
			return false;
		default:
			if (q->tail - q->head == FAULT_QUEUE) {
				f->overflow++;
				return false;
			}
			q->slot[q->tail % FAULT_QUEUE] = (struct fault_held){
				m, rte_rdtsc() + f->delay_tsc, port
			};
			q->tail++;
			f->count[dir][FAULT_DELAY]++;
			return true;
		}
	}
	return false;
}

struct rte_mbuf *
fault_pop(struct fault_lcore *f, enum fault_dir dir, uint64_t now_tsc,
	  uint16_t *port)
{
	struct fault_queue *q = &f->q[dir];
	struct fault_held *h;

	if (q->head == q->tail)
		return NULL;
	h = &q->slot[q->head % FAULT_QUEUE];
	if ((int64_t)(now_tsc - h->release_tsc) < 0)
		return NULL;
	q->head++;
	*port = h->port;
	return h->m;
}

void
fault_counters(const struct fault_lcore *f,
	       uint64_t count[FAULT_N_DIR][FAULT_N_ACTION], uint64_t *overflow)
{
	if (f == NULL)
		return;
	for (int d = 0; d < FAULT_N_DIR; d++)
		for (int a = 0; a < FAULT_N_ACTION; a++)
			count[d][a] += f->count[d][a];
	*overflow += f->overflow;
}
