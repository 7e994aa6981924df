/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The key-value store's DSM side: segments, directory, load, GET and PUT;
 * see kv_store.h.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "kv_store.h"

/* Directory entry of node n's segment k. */
static dsm_addr_t
dir_addr(const struct app *a, uint16_t n, uint32_t k)
{
	return dsm_static_addr(0, app_static_base(a) +
					  ((uint64_t)n * KV_MAX_SEGS + k) * 8);
}

int
kv_store_setup(struct app *a, struct dsm_thread *t, struct kv_store *s)
{
	const struct kv_geom *g = &s->g;
	uint16_t me = (uint16_t)a->o.node;
	int rc;

	if (g->nodes > KV_MAX_NODES || g->segs > KV_MAX_SEGS)
		return -EINVAL;
	memset(s->seg, 0, sizeof(s->seg));
	for (uint32_t k = 1; k < g->segs; k++) {
		s->seg[me][k] = dsm_malloc(t, KV_SEG_SIZE, -1);
		if (s->seg[me][k] == 0)
			return -ENOMEM;
	}
	if (g->segs > 1) {
		rc = dsm_write(t, dir_addr(a, me, 1), &s->seg[me][1],
			       (g->segs - 1) * sizeof(dsm_addr_t));
		if (rc != 0)
			return rc;
	}
	rc = app_barrier(a, t);
	if (rc != 0)
		return rc;
	if (g->segs > 1) {
		rc = dsm_read(t, dir_addr(a, 0, 0), s->seg,
			      g->nodes * sizeof(s->seg[0]));
		if (rc != 0)
			return rc;
	}
	for (uint16_t n = 0; n < g->nodes; n++) {
		s->seg[n][0] = dsm_static_addr(n, 0);
		for (uint32_t k = 1; k < g->segs; k++)
			if (s->seg[n][k] == 0 || s->seg[n][k] >> 48 != n)
				return -EINVAL;
	}
	return 0;
}

dsm_addr_t
kv_bucket_addr(const struct kv_store *s, uint64_t b)
{
	const struct kv_geom *g = &s->g;
	uint64_t i = kv_bucket_index(g, b);

	return s->seg[kv_bucket_node(g, b)][i / g->per_seg] +
	       (g->seg_skip + i % g->per_seg) * g->block;
}

struct loader {
	pthread_t tid;
	struct app *a;
	const struct kv_store *s;
	const uint8_t *img;
	uint16_t id;
	int rc;
};

/* Thread `id` writes the node's buckets id, id + threads, ... */
static void *
load_main(void *p)
{
	struct loader *l = p;
	const struct kv_geom *g = &l->s->g;
	struct dsm_thread *t = dsm_thread(l->a->d, l->id);
	uint64_t me = (uint64_t)l->a->o.node;

	for (uint64_t i = l->id; i < g->per_node && l->rc == 0;
	     i += l->a->o.threads)
		l->rc = dsm_write(t, kv_bucket_addr(l->s, i * g->nodes + me),
				  l->img + i * g->block, kv_bucket_bytes(g));
	dsm_sync(t);
	return NULL;
}

int
kv_store_load(struct app *a, struct kv_store *s)
{
	const struct kv_geom *g = &s->g;
	uint16_t n = a->o.threads, started;
	struct loader *l;
	uint8_t *img;
	int rc = 0;

	img = calloc(g->per_node, g->block);
	l = calloc(n, sizeof(*l));
	if (img == NULL || l == NULL) {
		free(img);
		free(l);
		return -ENOMEM;
	}
	if (kv_load_image(g, (uint16_t)a->o.node, img) < 0) {
		free(img);
		free(l);
		return -ENOSPC;
	}
	for (started = 0; started < n; started++) {
		l[started] = (struct loader){
			.a = a, .s = s, .img = img, .id = started
		};
		if (pthread_create(&l[started].tid, NULL, load_main,
				   &l[started]) != 0) {
			rc = -EAGAIN;
			break;
		}
	}
	for (uint16_t i = 0; i < started; i++) {
		pthread_join(l[i].tid, NULL);
		if (rc == 0)
			rc = l[i].rc;
	}
	free(img);
	free(l);
	return rc;
}

int
kv_get(struct dsm_thread *t, const struct kv_store *s, uint64_t key,
       uint8_t *buf, uint64_t *stamp, dsm_addr_t *vaddr)
{
	const struct kv_geom *g = &s->g;
	uint64_t b = kv_bucket(g, key);
	int slot, rc;

	for (uint64_t probes = 0; probes < g->per_node; probes++) {
		dsm_addr_t addr = kv_bucket_addr(s, b);

		/* One block: the keys and values are one atomic snapshot.
		 * With --rwlock, under the bucket's read lock (per-bucket
		 * rwlocks, docs/QUEUED-LOCKS.md "Benchmark"). */
		if (s->rlock_gets) {
			rc = dsm_rlock(t, addr);
			if (rc != 0)
				return rc;
		}
		rc = dsm_read(t, addr, buf, kv_bucket_bytes(g));
		if (s->rlock_gets) {
			int rc2 = dsm_unlock(t, addr);

			rc = rc != 0 ? rc : rc2;
		}
		if (rc != 0)
			return rc;
		slot = kv_find(g, buf, key);
		if (slot >= 0) {
			*vaddr = addr + kv_value_off(g, (uint32_t)slot);
			return kv_value_check(buf + kv_value_off(g,
								 (uint32_t)
									 slot),
					      key, stamp) == 0
				       ? 0
				       : KV_TORN;
		}
		if (slot == KV_FIND_ABSENT)
			break;
		b = kv_probe_next(g, b);
	}
	return KV_MISSING;
}

int
kv_put(struct dsm_thread *t, const struct kv_store *s, uint64_t key,
       uint64_t stamp, uint8_t *buf, dsm_addr_t *vaddr)
{
	const struct kv_geom *g = &s->g;
	uint8_t v[KV_VALUE_SIZE];
	uint64_t b = kv_bucket(g, key);
	int slot, rc, rc2;

	kv_value_fill(v, stamp, key);
	for (uint64_t probes = 0; probes < g->per_node; probes++) {
		dsm_addr_t addr = kv_bucket_addr(s, b);

		/* The write lock brings the block Modified in one coherence
		 * event and keeps the key's slot where the look-up found it
		 * until the value is in. */
		rc = dsm_wlock(t, addr);
		if (rc != 0)
			return rc;
		rc = dsm_read(t, addr, buf, g->slots * KV_KEY_SIZE);
		slot = rc == 0 ? kv_find(g, buf, key) : KV_FIND_ABSENT;
		if (rc == 0 && slot >= 0) {
			*vaddr = addr + kv_value_off(g, (uint32_t)slot);
			rc = dsm_write(t, *vaddr, v, sizeof(v));
		}
		rc2 = dsm_unlock(t, addr);
		if (rc != 0 || rc2 != 0)
			return rc != 0 ? rc : rc2;
		if (slot >= 0)
			return 0;
		if (slot == KV_FIND_ABSENT)
			break;
		b = kv_probe_next(g, b);
	}
	return KV_MISSING;
}
