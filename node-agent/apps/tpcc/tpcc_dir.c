/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The directory of the tables in node 0's static region; see tpcc_load.h.
 * Each node writes its own slot and its warehouses' entries before the
 * load barrier; every node reads them all after it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tpcc_load.h"

#define TPCC_DIR_MAGIC 0x54504343444952ull /* "TPCCDIR" */

struct tpcc_dir_node {
	uint64_t magic;
	struct tpcc_scale s;
	dsm_addr_t items; /* this node's ITEM part */
	uint8_t pad_[16];
};

_Static_assert(sizeof(struct tpcc_dir_node) == 64, "directory slot");

static uint64_t
nodes_bytes(const struct tpcc_scale *s)
{
	uint64_t b = (uint64_t)s->nodes * sizeof(struct tpcc_dir_node);

	return (b + s->block - 1) / s->block * s->block;
}

uint64_t
tpcc_dir_bytes(const struct tpcc_scale *s)
{
	return nodes_bytes(s) +
	       (uint64_t)tpcc_warehouses(s) * sizeof(struct tpcc_wh_addr);
}

int
tpcc_dir_put_node(struct dsm_thread *t, const struct tpcc_ctx *x,
		  dsm_addr_t dir, dsm_addr_t items)
{
	struct tpcc_dir_node n;

	memset(&n, 0, sizeof(n));
	n.magic = TPCC_DIR_MAGIC;
	n.s = x->s;
	n.items = items;
	return dsm_write(t, dir + (dsm_addr_t)x->node * sizeof(n), &n,
			 sizeof(n));
}

int
tpcc_dir_put_wh(struct dsm_thread *t, const struct tpcc_ctx *x, dsm_addr_t dir,
		uint32_t w, const struct tpcc_wh_addr *a)
{
	return dsm_write(t,
			 dir + nodes_bytes(&x->s) + (dsm_addr_t)w * sizeof(*a),
			 a, sizeof(*a));
}

int
tpcc_dir_read(struct dsm_thread *t, struct tpcc_ctx *x, dsm_addr_t dir,
	      char *err, size_t len)
{
	uint32_t nw = tpcc_warehouses(&x->s);
	int rc;

	for (uint32_t p = 0; p < x->s.nodes; p++) {
		struct tpcc_dir_node n;

		rc = dsm_read(t, dir + (dsm_addr_t)p * sizeof(n), &n,
			      sizeof(n));
		if (rc != 0) {
			snprintf(err, len, "reading the directory: %s",
				 strerror(-rc));
			return rc;
		}
		if (n.magic != TPCC_DIR_MAGIC ||
		    memcmp(&n.s, &x->s, sizeof(n.s)) != 0) {
			snprintf(err, len,
				 "node %u runs with another scale (every node "
				 "needs the same --nodes, --threads, --items, "
				 "--customers-per-district, --max-orders, "
				 "--placement)",
				 p);
			return -EINVAL;
		}
		x->items[p] = n.items;
	}
	for (uint32_t w = 0; w < nw; w++) {
		rc = dsm_read(t,
			      dir + nodes_bytes(&x->s) +
				      (dsm_addr_t)w * sizeof(x->wh[w]),
			      &x->wh[w], sizeof(x->wh[w]));
		if (rc != 0) {
			snprintf(err, len, "reading the directory: %s",
				 strerror(-rc));
			return rc;
		}
		if (x->wh[w].wd == 0) {
			snprintf(err, len, "warehouse %u was not published",
				 w + 1);
			return -EINVAL;
		}
	}
	return 0;
}
