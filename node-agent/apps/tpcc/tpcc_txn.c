/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Two-phase locking with the no-wait rule on lock words in global memory;
 * see tpcc_txn.h. A lock word is changed only while its block is pinned by
 * dsm_wlock, and the pin is held for that read-modify-write alone: a thread
 * never holds two DSM locks, nor waits for anything while it holds one, so
 * the DSM's blocking locks cannot deadlock; waiting for a row lock is what
 * the no-wait rule forbids.
 */
#include <errno.h>
#include <string.h>

#include "tpcc_txn.h"

void
tpcc_txn_init(struct tpcc_txn *tx, const struct tpcc_ctx *x,
	      struct dsm_thread *t, uint16_t node, uint16_t thread)
{
	memset(tx, 0, sizeof(*tx));
	tx->x = x;
	tx->t = t;
	tx->owner = tpcc_lw_owner(node, thread);
}

void
tpcc_txn_begin(struct tpcc_txn *tx)
{
	tx->n = 0;
}

static struct tpcc_row *
find(struct tpcc_txn *tx, dsm_addr_t addr)
{
	for (uint32_t i = 0; i < tx->n; i++)
		if (tx->rows[i].addr == addr)
			return &tx->rows[i];
	return NULL;
}

/* Pin the block, read the row, apply the decision, write the word back. */
static int
lock_word(struct tpcc_txn *tx, struct tpcc_row *r, bool upgrade)
{
	struct dsm_thread *t = tx->t;
	uint64_t w;
	bool ok;
	int rc, rc2;

	rc = dsm_wlock(t, r->addr);
	if (rc != 0)
		return rc;
	rc = dsm_read(t, r->addr, r->img, r->size);
	if (rc == 0) {
		memcpy(&w, r->img, sizeof(w));
		ok = upgrade ? tpcc_lw_upgrade(&w, tx->owner)
			     : tpcc_lw_acquire(&w, (enum tpcc_lmode)r->mode,
					       tx->owner);
		if (!ok)
			rc = -EBUSY;
		else
			rc = dsm_write(t, r->addr, &w, sizeof(w));
		if (rc == 0)
			memcpy(r->img, &w, sizeof(w));
	}
	rc2 = dsm_unlock(t, r->addr);
	return rc != 0 ? rc : rc2;
}

int
tpcc_txn_lock(struct tpcc_txn *tx, dsm_addr_t addr, uint32_t size,
	      enum tpcc_lmode mode, struct tpcc_row **row)
{
	struct tpcc_row *r = find(tx, addr);
	int rc;

	if (r != NULL) {
		if (r->mode == TPCC_LOCK_S && mode == TPCC_LOCK_X) {
			rc = lock_word(tx, r, true);
			if (rc != 0) {
				if (rc == -EBUSY)
					tx->conflicts++;
				return rc;
			}
			r->mode = TPCC_LOCK_X;
			tx->locks++;
		}
		*row = r;
		return 0;
	}
	if (tx->n == TPCC_TXN_ROWS)
		return -ENOSPC;
	r = &tx->rows[tx->n];
	r->addr = addr;
	r->size = size;
	r->mode = (uint8_t)mode;
	r->dirty = false;
	rc = lock_word(tx, r, false);
	if (rc == -EBUSY)
		tx->conflicts++;
	if (rc != 0)
		return rc;
	tx->locks++;
	tx->n++;
	*row = r;
	return 0;
}

/* Release one row: written back (exclusive and changed), or the word. */
static int
release(struct tpcc_txn *tx, struct tpcc_row *r, bool write)
{
	struct dsm_thread *t = tx->t;
	uint64_t w;
	int rc, rc2;

	if (r->mode == TPCC_LOCK_X) {
		/* Nobody else writes the word while we hold it exclusively:
		 * no pin needed; read it to catch a bug, not a race. */
		rc = dsm_read(t, r->addr, &w, sizeof(w));
		if (rc != 0)
			return rc;
		if (!tpcc_lw_release(&w, TPCC_LOCK_X, tx->owner))
			return -EPROTO;
		if (write && r->dirty) {
			memcpy(r->img, &w, sizeof(w));
			return dsm_write(t, r->addr, r->img, r->size);
		}
		return dsm_write(t, r->addr, &w, sizeof(w));
	}
	rc = dsm_wlock(t, r->addr);
	if (rc != 0)
		return rc;
	rc = dsm_read(t, r->addr, &w, sizeof(w));
	if (rc == 0 && !tpcc_lw_release(&w, TPCC_LOCK_S, tx->owner))
		rc = -EPROTO;
	if (rc == 0)
		rc = dsm_write(t, r->addr, &w, sizeof(w));
	rc2 = dsm_unlock(t, r->addr);
	return rc != 0 ? rc : rc2;
}

static int
finish(struct tpcc_txn *tx, bool write)
{
	int rc = 0;

	/* Every lock is held until here and none is taken after (the two
	 * phases), and a row is released by the write that installs it:
	 * the order of the releases does not matter. */
	for (uint32_t i = 0; i < tx->n; i++) {
		int r = release(tx, &tx->rows[i], write);

		if (r != 0 && rc == 0)
			rc = r;
	}
	tx->n = 0;
	return rc;
}

int
tpcc_txn_commit(struct tpcc_txn *tx)
{
	return finish(tx, true);
}

int
tpcc_txn_abort(struct tpcc_txn *tx)
{
	return finish(tx, false);
}
