/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Setting up global memory: the directory (node 0's static region from
 * app_static_base(): one slot per node with its scale and ITEM part, then
 * one struct tpcc_wh_addr per warehouse), and the initial population of
 * clause 4.3.3.1, one warehouse per thread, in parallel. README.md "Data
 * layout".
 */
#ifndef TPCC_LOAD_H
#define TPCC_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include <dsm.h>

#include "tpcc.h"
#include "tpcc_txn.h"

/**
 * Allocate warehouse index w's tables at its home node (tpcc_wh_home),
 * publish their addresses in the directory at `dir`, and load them. Run by
 * the warehouse's own thread. @return 0, -ENOMEM (out of global memory:
 * raise --mem-mb), or a DSM error; `err` says what failed.
 */
int tpcc_load_warehouse(struct dsm_thread *t, const struct tpcc_ctx *x,
			dsm_addr_t dir, uint32_t w, uint32_t seed, char *err,
			size_t len);

/**
 * Allocate and load this node's ITEM part, and publish this node's slot
 * (its scale and the part's address). @return as tpcc_load_warehouse.
 */
int tpcc_load_items(struct dsm_thread *t, const struct tpcc_ctx *x,
		    dsm_addr_t dir, uint32_t seed, char *err, size_t len);

/**
 * After the load barrier: read every node's slot and warehouse entry into
 * x->items and x->wh (allocated by the caller). @return 0, or -EINVAL when
 * a node runs with another scale (message in `err`), or a DSM error.
 */
int tpcc_dir_read(struct dsm_thread *t, struct tpcc_ctx *x, dsm_addr_t dir,
		  char *err, size_t len);

/* The directory's writers (tpcc_dir.c, for tpcc_load.c). @return 0 or a
 * DSM error. */
int tpcc_dir_put_node(struct dsm_thread *t, const struct tpcc_ctx *x,
		      dsm_addr_t dir, dsm_addr_t items);
int tpcc_dir_put_wh(struct dsm_thread *t, const struct tpcc_ctx *x,
		    dsm_addr_t dir, uint32_t w, const struct tpcc_wh_addr *a);

/** Bytes of the directory (it must fit node 0's 32 MB static region). */
uint64_t tpcc_dir_bytes(const struct tpcc_scale *s);

#endif /* TPCC_LOAD_H */
