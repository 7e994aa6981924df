/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Home agent, its side of ownership migration (paper 5.2.1): ADD_TO_SWITCH
 * under the home-side write lock, the copies' seqs, and the MIGRATE_ACKs of
 * ADDs and REMOVEs. The epoch policy that decides what moves is
 * na_migrate.c. See na_home.h. Part of the home agent (which file owns
 * what: the top of na_home.c).
 */
#include <errno.h>
#include <string.h>

#include "na_home.h"
#include "na_msg.h"

void
na_home_migrate_ack(struct na_home *h, const struct lcf_msg *m,
		    struct na_hblock *b)
{
	if (m->node == h->self && b->owner == NA_OWN_REMOVING &&
	    !b->add_settle && na_home_remove_answer(b, m->seq) &&
	    na_aux_orig_type(m->aux) == LCF_T_REMOVE_FROM_SWITCH &&
	    !(m->flags & LCF_F_FAIL)) {
		/* Section 5.2.1: ownership back, with the switch's metadata. */
		b->owner = NA_OWN_HOME;
		b->gs = m->gstatus;
		b->cs = m->copyset;
		h->st.remove_ok++;
		return;
	}
	uint32_t copy = m->seq - b->add_seq;
	/* Any set's copy: each set's seqs follow the last one's. */
	bool ours = m->seq - b->add_seq0 <
		    b->add_seq + b->add_copies - b->add_seq0;
	bool ok = !(m->flags & LCF_F_FAIL);

	if (m->node != h->self ||
	    na_aux_orig_type(m->aux) != LCF_T_ADD_TO_SWITCH || !ours)
		return; /* not ours: an earlier migration's late copy */
	/* A settled ADD's only copy answered late, also once the recovery
	 * has taken the block (its second pass waited in the switch): its
	 * round trip is a sample (na_migrate.c); nothing else follows. */
	if (b->owner != NA_OWN_MIGRATING && m->seq == b->add_seq0)
		b->add_answered = true;
	/*
	 * A timer's settle whose one copy is answered in the hold, before
	 * its REMOVE: the answer decides as a timely one would
	 * (lib/model/migrestart.pml). OK: the switch that answered holds
	 * it (no copy outlives a restart, so the entry is not an older
	 * switch's), no REMOVE and no round. FAIL: that copy never
	 * installed it, home at the hold's end as a collision; an OK of a
	 * duplicate meanwhile still gives it to the switch.
	 */
	if (b->owner == NA_OWN_REMOVING && b->add_late &&
	    (b->add_settle == 1 || b->add_settle == 3) &&
	    m->seq == b->add_seq0) {
		if (ok) {
			b->owner = NA_OWN_SWITCH;
			b->add_settle = 0;
			b->add_late = false;
			b->add_readd = false;
			h->n_settle--;
			h->st.settle_answered_ok++;
		} else if (b->add_settle == 1) {
			b->add_settle = 3;
			h->st.settle_answered_fail++;
		}
		return;
	}
	/*
	 * A copy of a migration that ended in a collision installed the block
	 * after all: the hold (NA_ADD_HOLD_NS) was shorter than the packet's
	 * life, or its OK was lost in the hold (docs/NODE-AGENT.md). Counted
	 * (twice on the shadow node), not hidden.
	 */
	if (b->owner == NA_OWN_HOME && b->add_collided && ok)
		h->st.migrate_late_ok++;
	/* Each copy once: on the shadow node the ACK and its mirror come. */
	if (b->owner != NA_OWN_MIGRATING || b->add_draining)
		return;
	if (ok) {
		/* A copy of any set installed it: the switch's block now. */
		b->writer = false;
		b->add_hold = 0;
		b->owner = NA_OWN_SWITCH;
		h->st.migrate_ok++;
		return;
	}
	if (copy >= b->add_copies)
		return; /* an earlier set's FAIL */
	/*
	 * Collision: only once every copy of the current set has failed (a
	 * copy in flight, even one overtaken by a later copy, may still find
	 * a slot freed meanwhile; a set whose FAILs do not all come back is
	 * replaced by a new one, emit_add), and then not at once: a network
	 * duplicate of a failed copy may still be in flight. The block stays
	 * MIGRATING (requests NACKed, no copy sent) for the hold, and an OK
	 * meanwhile gives it to the switch (na_home_migrate_resend).
	 */
	b->add_failed |= (uint8_t)(1u << copy);
	if (__builtin_popcount(b->add_failed) >= b->add_copies && !b->add_hold)
		b->add_hold = 1; /* timed from the next resend */
}

static void
emit_add(struct na_home *h, uint32_t idx, struct na_out *out)
{
	struct na_hblock *b = &h->blk[idx];
	uint32_t cs = b->cs & ~__atomic_load_n(&h->dead, __ATOMIC_ACQUIRE);
	struct lcf_msg r;

	/*
	 * Copy i carries seq add_seq + i. Out of ids (8 copies, about 300 ms
	 * at the retransmission intervals): a new set. The old copies'
	 * answers no longer count: one that installed the block gets the next
	 * copy ACKed as a duplicate, a success; one that failed and whose
	 * FAIL was lost would otherwise hold the collision forever. A copy
	 * of the old set delivered after the whole new set failed would
	 * install the block behind the home's back: the maximum packet
	 * lifetime this assumes is that set's duration (docs/NODE-AGENT.md).
	 */
	if (b->add_copies == NA_ADD_COPY_SEQS) {
		b->add_seq = na_add_seq_next(b->add_seq, false);
		b->add_copies = 0;
		b->add_failed = 0;
	}
	memset(&r, 0, sizeof(r));
	r.type = LCF_T_ADD_TO_SWITCH;
	r.node = h->self;
	r.thread = 0;
	r.seq = b->add_seq + b->add_copies++;
	/* A dead node's copy is gone; a copy sent after the switch evicted
	 * what named it would install it, every later write's invalidation
	 * waiting on it for ever (migdead.pml). */
	r.gstatus = cs ? b->gs : LCF_GS_UNSHARED;
	r.copyset = cs;
	r.tag = na_home_tag(h, idx);
	r.dst_node = h->self;
	na_out_push(out, h->self, &r, NULL);
}

int
na_home_migrate_start(struct na_home *h, uint32_t idx, uint64_t now_ns,
		      struct na_out *out)
{
	struct na_hblock *b;

	if (idx >= h->n_blocks)
		return -EINVAL;
	b = &h->blk[idx];
	if (b->owner != NA_OWN_HOME || b->writer || b->readers ||
	    __atomic_load_n(&h->dead_new, __ATOMIC_ACQUIRE) ||
	    !na_add_spaced(b, now_ns))
		return -EBUSY;
	/* Section 5.2.1: hold the write lock until the MIGRATE_ACK. */
	b->writer = true;
	b->owner = NA_OWN_MIGRATING;
	b->add_copies = 0;
	b->add_failed = 0;
	b->add_collided = false;
	b->add_draining = false;
	b->add_hold = 0;
	na_add_begin(b, now_ns);
	emit_add(h, idx, out);
	return 0;
}

void
na_home_add_rtt_sample(struct na_home *h, uint64_t ns)
{
	uint64_t d;

	h->add_backoff = 0; /* an answer: the estimate is trusted again */
	if (!h->add_srtt_ns) {
		h->add_srtt_ns = ns;
		h->add_rttvar_ns = ns / 2;
		return;
	}
	d = ns > h->add_srtt_ns ? ns - h->add_srtt_ns : h->add_srtt_ns - ns;
	h->add_rttvar_ns = h->add_rttvar_ns - h->add_rttvar_ns / 4 + d / 4;
	h->add_srtt_ns = h->add_srtt_ns - h->add_srtt_ns / 8 + ns / 8;
}

uint64_t
na_add_rto_of(uint64_t srtt_ns, uint64_t rttvar_ns, unsigned backoff)
{
	uint64_t rto = srtt_ns + 4 * rttvar_ns;

	if (rto < NA_ADD_RTO_MIN_NS)
		rto = NA_ADD_RTO_MIN_NS;
	if (backoff > NA_ADD_RTO_MAX_BACKOFF)
		backoff = NA_ADD_RTO_MAX_BACKOFF;
	rto <<= backoff;
	return rto < NA_ADD_RTO_MAX_NS ? rto : NA_ADD_RTO_MAX_NS;
}

uint64_t
na_home_add_rto(const struct na_home *h)
{
	return na_add_rto_of(h->add_srtt_ns, h->add_rttvar_ns, h->add_backoff);
}

void
na_home_migrate_settle(struct na_home *h, struct na_hblock *b, uint64_t now_ns)
{
	b->owner = NA_OWN_REMOVING;
	b->writer = false;
	b->add_hold = 0;
	b->add_settle = 1;
	b->add_late = false;
	b->add_answered = false;
	b->add_hold_t = (uint32_t)(now_ns >> 20);
	h->n_settle++;
}

static int
resend(struct na_home *h, uint32_t idx, uint64_t now_ns, struct na_out *out,
       bool settle)
{
	struct na_hblock *b;
	uint32_t t = (uint32_t)(now_ns >> 20);

	if (idx >= h->n_blocks || h->blk[idx].owner != NA_OWN_MIGRATING ||
	    h->blk[idx].add_draining)
		return -EALREADY;
	b = &h->blk[idx];
	if (b->add_hold == 1) {
		b->add_hold = 2;
		b->add_hold_t = t;
	}
	/* A declaration not drained yet: the drain decides (migsettle.pml). */
	if (__atomic_load_n(&h->dead_new, __ATOMIC_ACQUIRE))
		return 1;
	if (b->add_hold) {
		if ((uint64_t)(uint32_t)(t - b->add_hold_t) << 20 <
		    NA_ADD_HOLD_NS + (1ull << 20))
			return 1;
		/* Nothing of it in flight: home again; a later epoch may
		 * retry. */
		b->add_hold = 0;
		b->add_collided = true;
		b->writer = false;
		b->owner = NA_OWN_HOME;
		h->st.migrate_fail++;
		return -EALREADY;
	}
	/*
	 * A copy unanswered: it may have installed the block in a switch
	 * that restarted since, a write there having moved the data on; the
	 * home cannot tell (a rebooted switch says nothing), and a copy sent
	 * now would install its metadata of before that write in the new
	 * switch. Settled instead: no copy more, those in flight waited out,
	 * REMOVE until answered, the block recovered from the caches' reports
	 * and then ADDed again (na_migrate.c settle, na_rec_block_lost;
	 * lib/model/migrestart.pml).
	 */
	if (settle && b->add_copies) {
		na_home_migrate_settle(h, b, now_ns);
		b->add_readd = true;
		b->add_late = b->add_copies == 1 && b->add_seq == b->add_seq0;
		if (h->add_backoff < NA_ADD_RTO_MAX_BACKOFF)
			h->add_backoff++;
		h->st.migrate_unanswered++;
		return -EALREADY;
	}
	emit_add(h, idx, out);
	return 0;
}

int
na_home_migrate_resend(struct na_home *h, uint32_t idx, uint64_t now_ns,
		       struct na_out *out)
{
	return resend(h, idx, now_ns, out, false);
}

int
na_home_migrate_timeout(struct na_home *h, uint32_t idx, uint64_t now_ns,
			struct na_out *out)
{
	return resend(h, idx, now_ns, out, true);
}
