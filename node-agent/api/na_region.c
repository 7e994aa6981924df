/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Region locks (dsm.h, docs/QUEUED-LOCKS.md "Region locks"): a lock on a
 * run of blocks, taken block by block in address order with the per-block
 * pins of dsm_rlock/dsm_wlock (na_access.c), so that each block's lock and
 * data come in one coherence event and a block still cached is re-locked
 * without a packet; and the eviction of a region (no-locality benchmarks).
 */
#include <errno.h>

#include "dsm.h"
#include "na_requester.h"

/*
 * The blocks of [addr, addr + size): first tag and count.
 * @return 0, -EINVAL or -E2BIG (dsm_wlock_region's rules).
 */
static int
region_blocks(const struct dsm_thread *t, dsm_addr_t addr, size_t size,
	      bool aligned, uint64_t *first, uint32_t *count)
{
	const struct topo *tp = &t->d->topo;
	uint64_t off = addr & ((1ull << 48) - 1);
	uint64_t bs = tp->block_size, last;

	if (size == 0 || !topo_node_by_id(tp, (uint32_t)(addr >> 48)))
		return -EINVAL;
	if (size > (1ull << 48) || off + size > (1ull << 48))
		return -EINVAL; /* wraps, or leaves the home's space */
	if (aligned && ((off | size) & (bs - 1)))
		return -EINVAL;
	*first = addr >> tp->block_shift;
	last = (addr + size - 1) >> tp->block_shift;
	if (last - *first >= DSM_REGION_MAX_BLOCKS && aligned)
		return -E2BIG;
	*count = (uint32_t)(last - *first + 1 < UINT32_MAX ? last - *first + 1
							   : UINT32_MAX);
	return 0;
}

static int
lock_region(struct dsm_thread *t, dsm_addr_t addr, size_t size,
	    enum na_mode mode)
{
	uint64_t first;
	uint32_t n, i;
	int rc;

	rc = region_blocks(t, addr, size, true, &first, &n);
	if (rc < 0)
		return rc;
	for (i = 0; i < n; i++) {
		rc = na_req_access(t, first + i, 0, 0, NULL, mode);
		if (rc < 0)
			break;
	}
	if (rc == 0)
		return 0;
	while (i-- > 0) /* failed part-way: give back what we took */
		na_req_unpin(t, first + i);
	return rc;
}

int
dsm_wlock_region(struct dsm_thread *t, dsm_addr_t addr, size_t size)
{
	return lock_region(t, addr, size, NA_M_PIN_W);
}

int
dsm_rlock_region(struct dsm_thread *t, dsm_addr_t addr, size_t size)
{
	return lock_region(t, addr, size, NA_M_PIN_R);
}

int
dsm_unlock_region(struct dsm_thread *t, dsm_addr_t addr, size_t size)
{
	uint64_t first;
	uint32_t n;
	int rc, ret = 0;

	rc = region_blocks(t, addr, size, true, &first, &n);
	if (rc < 0)
		return rc;
	for (uint32_t i = n; i-- > 0;)
		if (na_req_unpin(t, first + i) < 0)
			ret = -ENOENT;
	return ret;
}

int
dsm_evict_region(struct dsm_thread *t, dsm_addr_t addr, size_t size)
{
	uint64_t first;
	uint32_t n;
	int rc, ret = 0;

	rc = region_blocks(t, addr, size, false, &first, &n);
	if (rc < 0)
		return rc;
	for (uint32_t i = 0; i < n; i++) {
		rc = na_req_drop(t, first + i);
		if (rc == -EINTR)
			return rc;
		if (rc < 0)
			ret = rc;
	}
	return ret;
}
