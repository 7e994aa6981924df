/* SPDX-License-Identifier: BSD-3-Clause
 *
 * LCF pipeline state: allocation of the register arrays, their footprint,
 * and the read-out functions (the BF Runtime equivalent). Nothing here is on
 * the packet path.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "lcf_internal.h"
#include "topo.h"

static const char *const lcf_action_names[] = {
#define LCF_X_STR(name, str) [LCF_A_##name] = str,
	LCF_ACTION_LIST(LCF_X_STR)
#undef LCF_X_STR
};

const char *
lcf_action_name(enum lcf_action a)
{
	if ((unsigned)a >= LCF_A_MAX)
		return "unknown";
	return lcf_action_names[a];
}

void
lcf_pipeline_config_from_topo(const struct topo *t,
			      struct lcf_pipeline_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->ways = t->sw.ways;
	cfg->slots_per_way = t->sw.slots_per_way;
	cfg->threads_per_node = t->threads_per_node;
	cfg->block_shift = t->block_shift;
	cfg->node_mask = t->node_mask;
	memcpy(cfg->port_node, t->port_node, sizeof(cfg->port_node));
	cfg->n_ports = t->n_ports;
	cfg->shadow = t->shadow;
	cfg->seed = 1;
	cfg->queued = t->sw.queued;
}

void
lcf_pipeline_footprint(const struct lcf_pipeline_config *cfg,
		       struct lcf_footprint *fp)
{
	uint64_t slots = (uint64_t)cfg->ways * cfg->slots_per_way;
	uint64_t reqs = (uint64_t)LCF_MAX_NODES * cfg->threads_per_node;

	fp->tag = slots * 8;
	fp->lock = slots * 2;
	fp->gstatus = slots * 1;
	fp->copyset = slots * 4;
	fp->scoreboard = reqs * 2 * sizeof(struct lcf_sb);
	fp->last_unlock = reqs * sizeof(struct lcf_lu);
	fp->version = slots * sizeof(uint32_t);
	fp->qstate = cfg->queued ? slots * sizeof(struct lcf_q) +
					   reqs * sizeof(struct lcf_lu)
				 : 0;
	fp->total = fp->tag + fp->lock + fp->gstatus + fp->copyset +
		    fp->scoreboard + fp->last_unlock + fp->version + fp->qstate;
}

/* 16 MiB: the large profile's 16.8M slots at half that load. */
#define LCF_SUMMARY_MAX (1u << 24)

/*
 * The TAG and LOCK+G-STATUS+COPYSET arrays of every way and the tag summary,
 * in one mapping (zero-filled, as power-on registers are) that the kernel is
 * asked to back with huge pages: a pass probes up to 10 TAG ways, each in a
 * different array, and with 4 KiB pages nearly every probe of the tofino
 * profile's 5.4 MiB would also miss the TLB.
 */
static int
lcf_regs_alloc(struct lcf_pipeline *p)
{
	const size_t tag_b = LCF_ALIGN_64(p->cfg.slots_per_way *
					  sizeof(uint64_t));
	const size_t meta_b = LCF_ALIGN_64(p->cfg.slots_per_way *
					   sizeof(struct lcf_meta));
	uint64_t buckets = 64;
	uint8_t *r;

	/* At most half full when every slot is: few false "maybe"s. */
	while (buckets < 2ull * p->cfg.ways * p->cfg.slots_per_way &&
	       buckets < LCF_SUMMARY_MAX)
		buckets <<= 1;
	p->summary_mask = (uint32_t)(buckets - 1);
	p->regs_bytes = (tag_b + meta_b) * p->cfg.ways + buckets;
	r = mmap(NULL, p->regs_bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED)
		return -ENOMEM;
#ifdef MADV_HUGEPAGE
	/* Advice only: without transparent huge pages it still works. */
	(void)madvise(r, p->regs_bytes, MADV_HUGEPAGE);
#endif
	p->regs = r;
	p->summary = r + (tag_b + meta_b) * p->cfg.ways;
	for (uint32_t w = 0; w < p->cfg.ways; w++) {
		p->tag[w] = (uint64_t *)(r + w * tag_b);
		p->meta[w] = (struct lcf_meta *)(r + p->cfg.ways * tag_b +
						 w * meta_b);
	}
	return 0;
}

struct lcf_pipeline *
lcf_pipeline_create(const struct lcf_pipeline_config *cfg)
{
	struct lcf_pipeline *p;

	if (cfg->ways == 0 || cfg->ways > LCF_MAX_WAYS ||
	    cfg->slots_per_way == 0 || cfg->threads_per_node == 0 ||
	    cfg->seed == 0 || cfg->block_shift < 6 || cfg->block_shift > 47) {
		errno = EINVAL;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return NULL;
	p->cfg = *cfg;
	p->n_requesters = LCF_MAX_NODES * cfg->threads_per_node;
	for (uint32_t w = 0; w < cfg->ways; w++)
		p->way_seed[w] = lcf_way_seed(cfg, w);
	if (lcf_regs_alloc(p) != 0)
		goto nomem;
	p->sb = calloc(p->n_requesters, sizeof(*p->sb));
	p->last_unlock = calloc(p->n_requesters, sizeof(*p->last_unlock));
	if (p->sb == NULL || p->last_unlock == NULL)
		goto nomem;
	for (uint32_t w = 0; w < cfg->ways; w++) {
		p->ver[w] = calloc(cfg->slots_per_way, sizeof(uint32_t));
		if (p->ver[w] == NULL)
			goto nomem;
	}
	if (cfg->queued) {
		p->qregs = calloc((size_t)cfg->ways * cfg->slots_per_way,
				  sizeof(*p->qregs));
		if (p->qregs == NULL)
			goto nomem;
		for (uint32_t w = 0; w < cfg->ways; w++)
			p->q[w] = p->qregs + (size_t)w * cfg->slots_per_way;
		p->q_gate = calloc(p->n_requesters, sizeof(*p->q_gate));
		if (p->q_gate == NULL)
			goto nomem;
	}
	return p;
nomem:
	lcf_pipeline_free(p);
	errno = ENOMEM;
	return NULL;
}

void
lcf_pipeline_free(struct lcf_pipeline *p)
{
	if (p == NULL)
		return;
	if (p->regs != NULL)
		munmap(p->regs, p->regs_bytes);
	for (uint32_t w = 0; w < p->cfg.ways; w++)
		free(p->ver[w]);
	free(p->sb);
	free(p->last_unlock);
	free(p->qregs);
	free(p->q_gate);
	free(p);
}

void
lcf_pipeline_reset(struct lcf_pipeline *p)
{
	for (uint32_t w = 0; w < p->cfg.ways; w++) {
		memset(p->tag[w], 0, p->cfg.slots_per_way * sizeof(uint64_t));
		memset(p->meta[w], 0,
		       p->cfg.slots_per_way * sizeof(struct lcf_meta));
		memset(p->ver[w], 0, p->cfg.slots_per_way * sizeof(uint32_t));
	}
	memset(p->summary, 0, (size_t)p->summary_mask + 1);
	memset(p->sb, 0, p->n_requesters * sizeof(*p->sb));
	memset(p->last_unlock, 0, p->n_requesters * sizeof(*p->last_unlock));
	if (p->qregs != NULL)
		memset(p->qregs, 0,
		       (size_t)p->cfg.ways * p->cfg.slots_per_way *
			       sizeof(*p->qregs));
	if (p->q_gate != NULL)
		memset(p->q_gate, 0, p->n_requesters * sizeof(*p->q_gate));
	memset(&p->ctr, 0, sizeof(p->ctr));
}

const struct lcf_counters *
lcf_pipeline_counters(const struct lcf_pipeline *p)
{
	return &p->ctr;
}

const struct lcf_pipeline_config *
lcf_pipeline_config(const struct lcf_pipeline *p)
{
	return &p->cfg;
}

uint32_t
lcf_pipeline_slot(const struct lcf_pipeline_config *cfg, uint32_t way,
		  uint64_t tag)
{
	uint32_t h = lcf_crc32c_u64(lcf_way_seed(cfg, way), tag);

	return (uint32_t)(((uint64_t)h * cfg->slots_per_way) >> 32);
}

int
lcf_pipeline_read_block(const struct lcf_pipeline *p, uint64_t tag,
			struct lcf_block_view *v)
{
	if (tag & LCF_TAG_VALID)
		return -ENOENT;
	for (uint32_t w = 0; w < p->cfg.ways; w++) {
		uint32_t s = lcf_slot(p, w, tag);

		if (p->tag[w][s] == (tag | LCF_TAG_VALID)) {
			const struct lcf_meta *m = &p->meta[w][s];

			v->way = w;
			v->slot = s;
			v->lock = m->lock;
			v->gstatus = m->gstatus;
			v->copyset = m->copyset;
			v->version = p->ver[w][s];
			v->qholder = p->q[w] ? p->q[w][s].hi : 0;
			v->fwd_cnt = p->q[w] ? p->q[w][s].lo : 0;
			return 0;
		}
	}
	return -ENOENT;
}

int
lcf_pipeline_read_slot(const struct lcf_pipeline *p, uint32_t way,
		       uint32_t slot, uint64_t *tag, struct lcf_block_view *v)
{
	if (way >= p->cfg.ways || slot >= p->cfg.slots_per_way)
		return -EINVAL;
	if (!p->tag[way][slot])
		return -ENOENT;
	*tag = p->tag[way][slot] & ~LCF_TAG_VALID;
	return lcf_pipeline_read_block(p, *tag, v);
}

int
lcf_pipeline_read_requester(const struct lcf_pipeline *p, uint16_t node,
			    uint16_t thread, struct lcf_requester_view *v)
{
	uint32_t r;

	if (node >= LCF_MAX_NODES || thread >= p->cfg.threads_per_node)
		return -EINVAL;
	r = (uint32_t)node * p->cfg.threads_per_node + thread;
	for (int par = 0; par < 2; par++) {
		uint32_t c = p->sb[r][par].c;

		v->sb_seq[par] = p->sb[r][par].seq;
		v->sb_state[par] = lcf_sb_is_count(c)     ? LCF_SB_STATE_COUNT
				   : (c & LCF_SB_CLAIMED) ? LCF_SB_STATE_CLAIMED
							  : LCF_SB_STATE_ENDED;
		v->sb_count[par] = v->sb_state[par] == LCF_SB_STATE_ENDED
					   ? 0
					   : (uint16_t)(c & LCF_SB_COUNT_MAX);
	}
	v->score_even = v->sb_count[0];
	v->score_odd = v->sb_count[1];
	v->last_unlock = p->last_unlock[r].seq;
	v->lu_open = p->last_unlock[r].open != 0;
	return 0;
}

void
lcf_pipeline_way_occupancy(const struct lcf_pipeline *p, uint32_t *occ)
{
	for (uint32_t w = 0; w < p->cfg.ways; w++) {
		occ[w] = 0;
		for (uint32_t s = 0; s < p->cfg.slots_per_way; s++)
			occ[w] += p->tag[w][s] != 0;
	}
}

/* FNV-1a over 64-bit words with a final avalanche: cheap and order-aware. */
static uint64_t
digest_words(uint64_t h, const void *buf, size_t bytes)
{
	const uint8_t *b = buf;

	for (size_t i = 0; i < bytes; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

uint64_t
lcf_pipeline_digest(const struct lcf_pipeline *p)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (uint32_t w = 0; w < p->cfg.ways; w++) {
		h = digest_words(h, p->tag[w],
				 p->cfg.slots_per_way * sizeof(uint64_t));
		h = digest_words(h, p->meta[w],
				 p->cfg.slots_per_way *
					 sizeof(struct lcf_meta));
		h = digest_words(h, p->ver[w],
				 p->cfg.slots_per_way * sizeof(uint32_t));
	}
	h = digest_words(h, p->sb, p->n_requesters * sizeof(*p->sb));
	h = digest_words(h, p->last_unlock,
			 p->n_requesters * sizeof(*p->last_unlock));
	if (p->qregs != NULL) /* queued mode only: retry digests unchanged */
		h = digest_words(h, p->qregs,
				 (size_t)p->cfg.ways * p->cfg.slots_per_way *
					 sizeof(*p->qregs));
	if (p->q_gate != NULL)
		h = digest_words(h, p->q_gate,
				 p->n_requesters * sizeof(*p->q_gate));
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}
