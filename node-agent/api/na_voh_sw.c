/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Validate-on-hit for switch-owned blocks, the requester's message: a
 * VERSION_READ (pipeline type 0x0b) answered by the switch's VERSION
 * register with VERSION (0x14). docs/VALIDATE.md "Switch-owned blocks",
 * docs/PROTOCOL.md 4.10.
 */
#include <errno.h>
#include <string.h>

#include "na_voh_int.h"

int
na_voh_sw_version(struct dsm_thread *t, uint64_t tag, uint32_t seq,
		  uint64_t *stamp, bool *busy)
{
	struct lcf_msg m;
	struct na_mail r;
	int rc;

	if (t->n->cfg.direct)
		return -ENOTSUP; /* no switch on the path */
	na_req_msg(t, &m, LCF_T_VERSION_READ, seq, tag, na_req_home_of(t, tag));
	/* Retransmitted until a VERSION with this seq arrives: a read
	 * changes nothing at the switch, so a repeat is harmless. */
	rc = na_req_call(t, m.dst_node, &m, LCF_T_VERSION, &r);
	if (rc)
		return rc;
	if ((r.m.flags & LCF_F_FAIL) || !(r.m.flags & LCF_F_IN_SWITCH))
		return -ENOTSUP;
	*stamp = NA_VOH_SW | r.m.copyset;
	*busy = r.m.aux & LCF_VER_AUX_BUSY;
	return 0;
}

/*
 * A switch-owned block: read it through the coherence protocol and keep
 * it with `pre`, the VERSION read before the read began, unless the block's
 * write lock was held then (`busy`: a write grant's invalidations may not
 * be done), `pre`'s count is saturated (writes no longer move it), or a
 * write of this node began or ended since `g0` or is under way; aged from
 * `pre_ns`, when that VERSION_READ was sent. @return 0, -EINTR.
 */
int
na_voh_sw_fetch(struct dsm_thread *t, struct na_voh *v, uint64_t tag,
		uint32_t off, uint32_t len, void *buf, uint64_t pre, bool busy,
		uint64_t g0, uint64_t pre_ns)
{
	uint8_t *b = v->sbuf + (size_t)t->id * v->bs;
	int rc = na_req_access(t, tag, 0, v->bs, b, NA_M_READ);

	if (rc)
		return rc;
	memcpy(buf, b + off, len);
	pthread_mutex_lock(&v->mu);
	v->st.sw_fetches++;
	if (na_voh_sw_keep(pre, busy) && v->wgen == g0 && v->writing == 0) {
		na_voh_install(v, tag, b, pre);
		na_voh_entry(v, tag, false)->fetched_ns = pre_ns;
	} else {
		na_voh_drop(v, tag);
		v->st.sw_uncached++;
	}
	pthread_mutex_unlock(&v->mu);
	return 0;
}

/* Read a block the home refused: VERSION_READ, then sw_fetch.
 * @return 0, 1 (not in the switch either: migrating), -EINTR. */
int
na_voh_sw_read(struct dsm_thread *t, struct na_voh *v, uint64_t tag,
	       uint32_t off, uint32_t len, void *buf)
{
	uint64_t g0, pre = 0, pre_ns;
	bool busy = false;
	int rc;

	pthread_mutex_lock(&v->mu);
	g0 = v->wgen;
	pthread_mutex_unlock(&v->mu);
	pre_ns = na_now_ns();
	rc = na_voh_sw_version(t, tag, na_voh_next_seq(t), &pre, &busy);
	if (rc == -ENOTSUP)
		return 1;
	if (rc)
		return rc;
	return na_voh_sw_fetch(t, v, tag, off, len, buf, pre, busy, g0, pre_ns);
}

/* Write a block the home refused, through the coherence protocol: this
 * node's copy is dropped and none is kept while it runs. @return 0, -EINTR */
int
na_voh_sw_write(struct dsm_thread *t, struct na_voh *v, uint64_t tag,
		uint32_t off, uint32_t len, void *buf)
{
	int rc;

	pthread_mutex_lock(&v->mu);
	v->wgen++;
	v->writing++;
	na_voh_drop(v, tag);
	v->st.sw_writes++;
	pthread_mutex_unlock(&v->mu);
	rc = na_req_access(t, tag, off, len, buf, NA_M_WRITE);
	pthread_mutex_lock(&v->mu);
	v->wgen++;
	v->writing--;
	pthread_mutex_unlock(&v->mu);
	return rc;
}
