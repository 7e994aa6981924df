/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Dynamic ownership migration, home side; see na_migrate.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "na_migrate.h"
#include "na_msg.h"

/* A REMOVE's retransmission: 5 ms, doubling, at most 80 ms between
 * copies. An ADD has one copy, settled after na_home_add_rto(). */
#define MIG_RTO_NS        5000000ull
#define MIG_RTO_MAX_SHIFT 4
/* An ADD unanswered this long is counted (add_slow); it is never dropped. */
#define MIG_ADD_SLOW_NS 2000000000ull
/* A lock that does not drain in 50 ms: give up until a later epoch. */
#define MIG_DRAIN_NS 50000000ull

int
na_migrate_init(struct na_migrate *mg, bool dynamic, uint32_t k,
		uint32_t epoch_ms, int shadow, uint64_t now_ns)
{
	memset(mg, 0, sizeof(*mg));
	if (dynamic && (k == 0 || epoch_ms == 0))
		return -EINVAL;
	mg->dynamic = dynamic;
	mg->k = k;
	mg->epoch_ns = (uint64_t)epoch_ms * 1000000ull;
	mg->next_epoch_ns = now_ns + mg->epoch_ns;
	mg->shadow = shadow;
	/* Room for one epoch's ADDs and as many REMOVEs in flight. */
	mg->cap = k + 1024;
	mg->pend = calloc(mg->cap, sizeof(*mg->pend));
	mg->heap = calloc(k ? k : 1, sizeof(*mg->heap));
	if (!mg->pend || !mg->heap) {
		na_migrate_fini(mg);
		return -ENOMEM;
	}
	return 0;
}

void
na_migrate_fini(struct na_migrate *mg)
{
	free(mg->pend);
	free(mg->heap);
	memset(mg, 0, sizeof(*mg));
}

static void
push(struct na_mig_io *io, uint16_t dst, const struct lcf_msg *m)
{
	if (io->out->n >= NA_OUT_MAX)
		io->flush(io->ctx, io->out);
	na_out_push(io->out, dst, m, NULL);
}

/* Block index of a tag homed at `h`, or -1. */
static int64_t
block_of(const struct na_home *h, uint64_t tag)
{
	uint64_t idx = tag & ((1ull << (48 - h->block_shift)) - 1);

	if ((tag >> (48 - h->block_shift)) != h->self || idx >= h->n_blocks)
		return -1;
	return (int64_t)idx;
}

static void
emit_remove(struct na_migrate *mg, struct na_home *h, uint32_t idx,
	    struct na_mig_io *io)
{
	struct lcf_msg r;

	memset(&r, 0, sizeof(r));
	r.type = LCF_T_REMOVE_FROM_SWITCH;
	r.node = h->self;
	r.seq = ++mg->seq;
	r.tag = na_home_tag(h, idx);
	r.dst_node = h->self;
	push(io, h->self, &r); /* to itself, across the switch */
}

/* NA_COLLISION: the shadow decides whether a colder block makes room. */
static void
report_collision(struct na_migrate *mg, struct na_home *h,
		 const struct na_mig_pending *p, struct na_mig_io *io)
{
	struct lcf_msg r;

	mg->st.add_collisions++;
	if (mg->shadow < 0)
		return;
	memset(&r, 0, sizeof(r));
	r.type = NA_MSG_COLLISION;
	r.node = h->self;
	r.seq = ++mg->seq;
	r.tag = na_home_tag(h, p->idx);
	r.dst_node = (uint16_t)mg->shadow;
	r.aux = p->hot;
	push(io, (uint16_t)mg->shadow, &r);
	mg->st.collision_reports++;
}

static bool
add_pending(struct na_migrate *mg, uint32_t idx, uint32_t hot, uint8_t type,
	    uint64_t now_ns)
{
	if (mg->n_pend >= mg->cap) {
		mg->st.pending_full++;
		return false;
	}
	mg->pend[mg->n_pend++] = (struct na_mig_pending){
		.idx = idx,
		.hot = hot,
		.type = type,
		.sent_ns = now_ns,
		.first_ns = now_ns,
	};
	return true;
}

/*
 * One pending migration. @return true when it is settled (the ACK came:
 * the owner is no longer MIGRATING/REMOVING) and can be forgotten.
 */
static bool
pending_step(struct na_migrate *mg, struct na_home *h, struct na_mig_pending *p,
	     uint64_t now_ns, struct na_mig_io *io)
{
	struct na_hblock *b = &h->blk[p->idx];
	uint32_t shift = p->tries < MIG_RTO_MAX_SHIFT ? p->tries
						      : MIG_RTO_MAX_SHIFT;

	if (p->draining) {
		/* A node failure's drain took the block (na_rec_drain,
		 * migcrash.pml): not ours any more, the owner untouched. */
		if (b->owner != NA_OWN_MIGRATING || !b->add_draining) {
			mg->n_draining--;
			return true;
		}
		/* Section 5.2.1: the write lock, once the holders are gone. */
		if (b->writer || b->readers) {
			if (now_ns - p->first_ns <= MIG_DRAIN_NS)
				return false;
			b->owner = NA_OWN_HOME;
			b->add_draining = false;
			mg->n_draining--;
			mg->st.busy_skipped++;
			return true;
		}
		/*
		 * No quiet period: every event this home serialised on the
		 * block has unlocked, and each unlock recorded its seq in the
		 * switch's LAST-UNLOCK on its way here. Late copies of those
		 * events that reach the switch after the ADD are NACKed as
		 * stale or ignored as duplicate unlocks (PROTOCOL.md 4.3,
		 * Interpretation (unlocks of home-owned blocks)).
		 */
		p->draining = false;
		mg->n_draining--;
		p->sent_ns = now_ns;
		p->first_ns = now_ns;
		b->writer = true;
		b->add_copies = 0;
		b->add_failed = 0;
		b->add_collided = false;
		b->add_draining = false;
		b->add_hold = 0;
		na_home_migrate_resend(h, p->idx, now_ns, io->out);
		if (io->out->n >= NA_OUT_MAX - 1)
			io->flush(io->ctx, io->out);
		mg->st.adds++;
		return false;
	}
	if (p->late) {
		/* Settled: its only copy's answer, whenever it comes, is the
		 * round trip the timeout missed (na_home.h). Not answered
		 * before the block's next migration or the longest timeout:
		 * no sample (the backoff stands). */
		if (b->add_answered && b->add_seq0 == p->seq0) {
			b->add_answered = false;
			mg->st.add_late_samples++;
			na_home_add_rtt_sample(h, now_ns - p->first_ns);
			return true;
		}
		return b->add_seq0 != p->seq0 ||
		       now_ns - p->first_ns > MIG_ADD_SLOW_NS;
	}
	if (p->type == LCF_T_ADD_TO_SWITCH) {
		if (b->owner != NA_OWN_MIGRATING) {
			if (b->owner == NA_OWN_SWITCH) {
				mg->st.add_ok++;
				if (!p->tries) /* its only copy: answered */
					na_home_add_rtt_sample(
						h, now_ns - p->sent_ns);
			} else if (!b->add_settle) { /* (settling: none) */
				report_collision(mg, h, p, io);
			}
			return true;
		}
		/*
		 * Never given up: an unanswered copy may still be delivered,
		 * and a block the home took back would then have two owners.
		 * At the retransmission timer it is settled (REMOVE and a
		 * recovery round, na_home_migrate_timeout), not re-sent.
		 */
		if (now_ns - p->first_ns > MIG_ADD_SLOW_NS && !p->slow) {
			p->slow = true;
			mg->st.add_slow++;
		}
		/* Every copy FAILed: the hold is timed at each tick. */
		if (b->add_hold) {
			if (b->add_hold == 1 && !p->tries) /* the FAIL came */
				na_home_add_rtt_sample(h, now_ns - p->sent_ns);
			(void)na_home_migrate_resend(h, p->idx, now_ns,
						     io->out);
			return false;
		}
		/* Unanswered after the ADDs' own round trip: settled. */
		if (now_ns - p->sent_ns < na_home_add_rto(h))
			return false;
	} else if (b->owner != NA_OWN_REMOVING) {
		/* (RECOVERING: the ACK was lost, the recovery settles it) */
		if (b->owner != NA_OWN_RECOVERING)
			mg->st.remove_ok++;
		return true;
	} else if (now_ns - p->sent_ns < MIG_RTO_NS << shift) {
		return false;
	}
	p->tries++;
	p->sent_ns = now_ns;
	if (p->type == LCF_T_ADD_TO_SWITCH) {
		mg->st.add_retransmits++;
		na_home_migrate_timeout(h, p->idx, now_ns, io->out);
		/* Settled with one copy sent (Karn: an answer names its copy):
		 * kept for the late sample. */
		if (b->add_settle == 1 && b->add_copies == 1 &&
		    b->add_seq == b->add_seq0) {
			p->late = true;
			p->seq0 = b->add_seq0;
		}
		if (io->out->n >= NA_OUT_MAX - 1)
			io->flush(io->ctx, io->out);
	} else {
		mg->st.remove_retransmits++;
		emit_remove(mg, h, p->idx, io);
	}
	return false;
}

/* Min-heap on hot of the k hottest candidates seen so far. */
static void
heap_sift_down(struct na_mig_pending *a, uint32_t n, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;
		struct na_mig_pending t;

		if (l < n && a[l].hot < a[m].hot)
			m = l;
		if (r < n && a[r].hot < a[m].hot)
			m = r;
		if (m == i)
			return;
		t = a[i];
		a[i] = a[m];
		a[m] = t;
		i = m;
	}
}

static void
heap_sift_up(struct na_mig_pending *a, uint32_t i)
{
	while (i) {
		uint32_t parent = (i - 1) / 2;
		struct na_mig_pending t;

		if (a[parent].hot <= a[i].hot)
			return;
		t = a[i];
		a[i] = a[parent];
		a[parent] = t;
		i = parent;
	}
}

/* Block i's count this epoch: reset, and a candidate of the n in the
 * heap when it is home-owned and its last migration began NA_ADD_GAP_NS
 * before `now_ns` (na_add_spaced). */
static void
epoch_candidate(struct na_migrate *mg, struct na_home *h, uint32_t i,
		uint32_t *n, uint64_t now_ns)
{
	struct na_hblock *b = &h->blk[i];
	uint32_t hot = b->hot;

	if (!hot)
		return;
	b->hot = 0;
	if (b->owner != NA_OWN_HOME || !na_add_spaced(b, now_ns))
		return;
	mg->st.candidates++;
	if (*n < mg->k) {
		mg->heap[*n] = (struct na_mig_pending){ .idx = i, .hot = hot };
		heap_sift_up(mg->heap, (*n)++);
	} else if (hot > mg->heap[0].hot) {
		mg->heap[0] = (struct na_mig_pending){ .idx = i, .hot = hot };
		heap_sift_down(mg->heap, *n, 0);
	}
}

/* End of an epoch: ADD the top-k home-owned blocks, reset the counts. */
static void
epoch_end(struct na_migrate *mg, struct na_home *h, uint64_t now_ns)
{
	uint32_t n = 0;

	mg->st.epochs++;
	/* The blocks counted this epoch (hot_map), in index order as a scan
	 * of all of them would visit them: the same top-k, ties included. */
	for (uint32_t w = 0; w < (h->n_blocks + 63) / 64; w++) {
		uint64_t bits = h->hot_map[w];

		h->hot_map[w] = 0;
		while (bits) {
			uint32_t i = w * 64 + (uint32_t)__builtin_ctzll(bits);

			bits &= bits - 1;
			epoch_candidate(mg, h, i, &n, now_ns);
		}
	}
	for (uint32_t j = 0; j < n; j++) {
		const struct na_mig_pending *c = &mg->heap[j];
		struct na_hblock *b;

		if (mg->n_pend >= mg->cap) {
			mg->st.pending_full++;
			break;
		}
		/*
		 * Stop granting its lock (not home-owned: requests are NACKed
		 * and retried); the ADD goes once the holders have unlocked
		 * (a hot block is nearly always locked; pending_step).
		 */
		b = &h->blk[c->idx];
		b->owner = NA_OWN_MIGRATING;
		/* Another ADD loop (static migration's) must not send for
		 * it, nor any ACK count, before the drain has the lock: a
		 * FAIL would clear the holder's lock. Late acks of an
		 * earlier migration: not ours. */
		b->add_draining = true;
		b->add_copies = 0;
		b->add_failed = 0;
		b->add_hold = 0;
		na_add_begin(b, now_ns);
		add_pending(mg, c->idx, c->hot, LCF_T_ADD_TO_SWITCH, now_ns);
		mg->pend[mg->n_pend - 1].draining = true;
		mg->n_draining++;
		mg->st.drains++;
	}
}

static void
step_all(struct na_migrate *mg, struct na_home *h, uint64_t now_ns,
	 struct na_mig_io *io)
{
	uint32_t i = 0;

	while (i < mg->n_pend) {
		if (pending_step(mg, h, &mg->pend[i], now_ns, io))
			mg->pend[i] = mg->pend[--mg->n_pend];
		else
			i++;
	}
}

/*
 * Blocks whose ADD a node's declaration caught out (na_rec_drain): once no
 * copy can still be in flight (NA_ADD_HOLD_NS after the drain), REMOVE,
 * re-sent until the switch answers; the recovery takes either answer
 * (na_rec_home_watch, na_rec_block_lost; lib/model/migsettle.pml).
 */
static void
settle(struct na_migrate *mg, struct na_home *h, uint64_t now_ns,
       struct na_mig_io *io)
{
	uint32_t t = (uint32_t)(now_ns >> 20);

	for (uint32_t i = 0; i < h->n_blocks && h->n_settle; i++) {
		struct na_hblock *b = &h->blk[i];

		if ((b->add_settle != 1 && b->add_settle != 3) ||
		    (uint64_t)(uint32_t)(t - b->add_hold_t) << 20 <
			    NA_ADD_HOLD_NS + (1ull << 20))
			continue;
		/* Its one copy FAILed (na_home_migrate_ack): the switch
		 * never held it, home with its own metadata, no round. */
		if (b->add_settle == 3) {
			b->add_settle = 0;
			b->add_late = false;
			b->add_readd = false;
			b->add_collided = true;
			b->owner = NA_OWN_HOME;
			h->n_settle--;
			h->st.migrate_fail++;
			continue;
		}
		if (!add_pending(mg, i, 0, LCF_T_REMOVE_FROM_SWITCH, now_ns))
			continue;
		b->add_settle = 2;
		b->rm_seq0 = mg->seq + 1;
		b->rm_conf = 0;
		h->n_settle--;
		mg->st.settle_removes++;
		emit_remove(mg, h, i, io);
	}
}

void
na_migrate_tick(struct na_migrate *mg, struct na_home *h, uint64_t now_ns,
		struct na_mig_io *io)
{
	if (h->n_settle)
		settle(mg, h, now_ns, io);
	step_all(mg, h, now_ns, io);
	if (!mg->dynamic || now_ns < mg->next_epoch_ns)
		return;
	/* A late tick does one epoch, not a burst of catch-up epochs. */
	mg->next_epoch_ns = now_ns + mg->epoch_ns;
	epoch_end(mg, h, now_ns);
	/*
	 * A block nobody holds takes its lock and sends its ADD now: waiting
	 * for the next tick NACKed its requests for a whole timer period
	 * (na-sim, kv: the cluster stalled 1 ms at every epoch). The ADDs
	 * are sent before the new drains' steps, as at the next tick.
	 */
	step_all(mg, h, now_ns, io);
}

void
na_migrate_released(struct na_migrate *mg, struct na_home *h, uint64_t tag,
		    uint64_t now_ns, struct na_mig_io *io)
{
	int64_t idx;
	const struct na_hblock *b;

	if (!mg->n_draining || (idx = block_of(h, tag)) < 0)
		return;
	b = &h->blk[idx];
	if (!b->add_draining || b->writer || b->readers)
		return;
	for (uint32_t i = 0; i < mg->n_pend; i++) {
		struct na_mig_pending *p = &mg->pend[i];

		if (p->draining && p->idx == (uint32_t)idx) {
			/* Not settled: an ADD now waits for its ACK. */
			(void)pending_step(mg, h, p, now_ns, io);
			return;
		}
	}
}

static void
remove_request(struct na_migrate *mg, struct na_home *h,
	       const struct lcf_msg *m, uint64_t now_ns, struct na_mig_io *io)
{
	int64_t idx = block_of(h, m->tag);
	struct na_hblock *b;

	mg->st.remove_requests++;
	if (idx < 0 || h->blk[idx].owner != NA_OWN_SWITCH) {
		/* Not ours, already home, or already on its way. */
		mg->st.remove_requests_ignored++;
		return;
	}
	b = &h->blk[idx];
	if (!add_pending(mg, (uint32_t)idx, 0, LCF_T_REMOVE_FROM_SWITCH,
			 now_ns))
		return;
	/*
	 * No home-side lock: the switch's write lock (first pass) keeps the
	 * block's requests out, and until the MIGRATE_ACK a request that
	 * misses in the switch finds the block not home-owned (NACK, retry).
	 */
	b->owner = NA_OWN_REMOVING;
	b->rm_seq0 = mg->seq + 1;
	b->rm_conf = 0;
	mg->st.removes++;
	emit_remove(mg, h, (uint32_t)idx, io);
}

bool
na_migrate_handle(struct na_migrate *mg, struct na_home *h,
		  const struct lcf_msg *m, uint64_t now_ns,
		  struct na_mig_io *io)
{
	int64_t idx;

	switch (m->type) {
	case NA_MSG_REMOVE_REQ:
		remove_request(mg, h, m, now_ns, io);
		return false;
	case LCF_T_NACK:
		mg->st.remove_nacks++; /* lock busy: the timer retries */
		return false;
	case LCF_T_REMOVE_FROM_SWITCH:
		/*
		 * Tag miss: the switch does not hold the block. A block still
		 * REMOVING was removed by an earlier copy whose MIGRATE_ACK
		 * was lost (or is late: it no longer counts), or the switch
		 * restarted. Either way the switch's metadata is gone; the
		 * caches still know their copies: the caller recovers it.
		 */
		idx = block_of(h, m->tag);
		if (idx < 0 || h->blk[idx].owner != NA_OWN_REMOVING)
			return false;
		/* A copy of an earlier REMOVE of the block (migorphan.pml),
		 * also while a settle's hold has sent none of its own. */
		if (m->thread || h->blk[idx].add_settle == 1 ||
		    h->blk[idx].add_settle == 3 ||
		    !na_home_remove_answer(&h->blk[idx], m->seq)) {
			mg->st.remove_stale++;
			return false;
		}
		/*
		 * An ADD is two passes and its second re-enters behind the
		 * frames received with it (PROTOCOL.md 4.8): a REMOVE that
		 * came with a settled ADD misses, then the ADD installs the
		 * block. A REMOVE sent after this miss arrived comes after
		 * that second pass: only its miss proves the block is not
		 * in the switch (lib/model/migpass.pml).
		 */
		if (!h->blk[idx].rm_conf ||
		    lcf_seq_after(h->blk[idx].rm_conf, m->seq)) {
			if (!h->blk[idx].rm_conf) {
				h->blk[idx].rm_conf = mg->seq + 1;
				mg->st.remove_confirms++;
				emit_remove(mg, h, (uint32_t)idx, io);
			}
			return false;
		}
		mg->st.remove_missed++;
		return true;
	default:
		return false;
	}
}

uint32_t
na_migrate_switch_owned(const struct na_home *h)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < h->n_blocks; i++)
		n += h->blk[i].owner == NA_OWN_SWITCH ||
		     h->blk[i].owner == NA_OWN_REMOVING;
	return n;
}
