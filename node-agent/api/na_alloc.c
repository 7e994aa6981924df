/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Global memory allocation, two-level (paper section 5.4, after [60]):
 * a 32 MB chunk from the chosen node's home agent (NA_ALLOC_REQ /
 * NA_ALLOC_REPLY), then fine-grained allocation here: bump allocation in the
 * current chunk of each home node, and a free list of returned pieces
 * (first fit by exact size, which is what workloads that free fixed-size
 * objects need). One mutex: allocation is not on the data path.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "na_home.h"
#include "na_msg.h"
#include "na_requester.h"

struct na_free {
	dsm_addr_t addr;
	size_t size;
	struct na_free *next;
};

struct na_alloc {
	pthread_mutex_t mu;
	struct {
		dsm_addr_t base; /* 0: no chunk yet */
		uint64_t used;
	} cur[LCF_MAX_NODES];
	struct na_free *free;
};

int
na_alloc_init(struct dsm *d)
{
	struct na_alloc *a = calloc(1, sizeof(*a));

	if (!a)
		return -ENOMEM;
	pthread_mutex_init(&a->mu, NULL);
	d->alloc = a;
	return 0;
}

void
na_alloc_fini(struct dsm *d)
{
	struct na_alloc *a = d->alloc;

	if (!a)
		return;
	while (a->free) {
		struct na_free *f = a->free;

		a->free = f->next;
		free(f);
	}
	pthread_mutex_destroy(&a->mu);
	free(a);
	d->alloc = NULL;
}

/* Ask `node`'s home agent for a chunk. @return its address or 0. */
static dsm_addr_t
get_chunk(struct dsm_thread *t, uint16_t node)
{
	struct lcf_msg m;
	struct na_mail r;
	dsm_addr_t addr = 0;

	na_req_msg(t, &m, NA_MSG_ALLOC_REQ, na_req_next_seq(t), 0, node);
	m.aux = 1; /* chunks wanted */
	if (na_req_call(t, node, &m, NA_MSG_ALLOC_REPLY, &r) < 0 ||
	    (r.m.flags & LCF_F_FAIL) || r.m.len != 8)
		return 0;
	for (int i = 0; i < 8; i++)
		addr = addr << 8 | r.payload[i];
	NA_STAT_INC(t->n->st.req.allocs);
	return addr;
}

static size_t
round_size(const struct dsm_thread *t, size_t size)
{
	uint32_t bs = t->d->topo.block_size;

	if (size >= bs)
		return (size + bs - 1) & ~(size_t)(bs - 1);
	return (size + 7) & ~(size_t)7;
}

dsm_addr_t
dsm_malloc(struct dsm_thread *t, size_t size, int node)
{
	struct na_alloc *a = t->d->alloc;
	uint16_t home = node < 0 ? t->n->self : (uint16_t)node;
	uint32_t bs = t->d->topo.block_size;
	dsm_addr_t addr = 0;

	if (!size || size > NA_CHUNK_SIZE ||
	    !topo_node_by_id(&t->d->topo, home))
		return 0;
	size = round_size(t, size);
	pthread_mutex_lock(&a->mu);
	for (struct na_free **pp = &a->free; *pp; pp = &(*pp)->next) {
		if ((*pp)->size == size && (*pp)->addr >> 48 == home) {
			struct na_free *f = *pp;

			*pp = f->next;
			addr = f->addr;
			free(f);
			pthread_mutex_unlock(&a->mu);
			return addr;
		}
	}
	for (int tries = 0; tries < 2 && !addr; tries++) {
		uint64_t used = a->cur[home].used;

		/* Block-sized objects start on a block: no false sharing. */
		if (size >= bs)
			used = (used + bs - 1) & ~(uint64_t)(bs - 1);
		if (a->cur[home].base && used + size <= NA_CHUNK_SIZE) {
			addr = a->cur[home].base + used;
			a->cur[home].used = used + size;
			break;
		}
		/* Chunk exhausted: fetch another without holding the mutex. */
		pthread_mutex_unlock(&a->mu);
		dsm_addr_t c = get_chunk(t, home);
		pthread_mutex_lock(&a->mu);
		if (!c)
			break;
		a->cur[home].base = c;
		a->cur[home].used = 0;
	}
	pthread_mutex_unlock(&a->mu);
	return addr;
}

void
dsm_free(struct dsm_thread *t, dsm_addr_t addr, size_t size)
{
	struct na_alloc *a = t->d->alloc;
	struct na_free *f;

	if (!addr || !size)
		return;
	f = malloc(sizeof(*f));
	if (!f)
		return; /* leaked, not corrupted */
	f->addr = addr;
	f->size = round_size(t, size);
	pthread_mutex_lock(&a->mu);
	f->next = a->free;
	a->free = f;
	pthread_mutex_unlock(&a->mu);
}
