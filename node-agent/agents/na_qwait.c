/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The switch's waiting writer, the node's side (docs/QUEUED-LOCKS.md 3
 * and 5, "The waiting writer at the node"; GCS case iii): a write request
 * that met readers is answered QWAIT and is the block's next writer, its
 * tenure {id, SWITCH} at the switch; the switch grants it with QGRANT once
 * the readers are gone. Its slot waits as any next holder's (forwards for the
 * tenure buffered and answered Q_QUEUED); QGRANT is taken as a Q_GRANT
 * with no granted entries and no Q_GRANT_ACK. Also na_qtable_holds, the
 * requester's question whether the table ends a given-up seq's tenure.
 * Internal to na_qtable; pure.
 */
#include "lcf_qlock.h"
#include "na_msg.h"
#include "na_qslot.h"

static bool
waiting_for(const struct na_qslot *s, uint32_t seq)
{
	return s->h.st == NA_QH_WAIT && s->h.seq == seq;
}

static void
to_thread(struct na_qlocals *loc, const struct lcf_msg *m)
{
	struct na_qlocal *l;

	if (loc->n == NA_QT_LOCAL_MAX)
		return; /* not reached: one per input */
	l = &loc->l[loc->n++];
	l->thread = m->thread;
	l->m = *m;
	l->m.len = 0;
}

/* Slot `s` is the switch's waiting writer for its event (request type
 * `type`); `poll`: the table polls for it (given up). */
static void
mark(struct na_qtable *qt, struct na_qslot *s, uint8_t type, bool poll,
     uint64_t now)
{
	if (!s->swait)
		qt->st.sw_waits++;
	s->swait = true;
	s->sw_type = type;
	if (poll && !s->poll) {
		s->poll = true;
		s->poll_at = now + qt->rtt;
	}
}

static void
qwait(struct na_qtable *qt, const struct lcf_msg *m, uint64_t now,
      struct na_qlocals *loc)
{
	struct na_qslot *s = na_qslot_find(qt, m->tag, m->thread), *p;
	uint8_t type = na_aux_orig_type(m->aux);

	if (type < LCF_T_WRITE_MISS || type > LCF_T_EVICT_MODIFIED) {
		qt->st.sw_ignored++; /* not a write kind: malformed */
		return;
	}
	if (s && waiting_for(s, m->seq)) {
		mark(qt, s, type, s->kept, now);
		if (!s->poll)
			to_thread(loc, m); /* the requester polls */
		return;
	}
	/* A seq given up before its QWAIT came (it was NACKed meanwhile):
	 * a passing slot polls for its QGRANT and passes the lock on. */
	p = na_qslot_passing(qt, m->tag, m->thread, m->seq);
	if (!p && s && na_qslot_gone_find(s, m->seq) >= 0)
		p = na_qslot_new_passing(qt, s, m->seq, now);
	if (p && waiting_for(p, m->seq)) {
		mark(qt, p, type, true, now);
		return;
	}
	qt->st.sw_ignored++;
}

static void
qgrant(struct na_qtable *qt, const struct lcf_msg *m, uint64_t now,
       struct na_out *out, struct na_qlocals *loc)
{
	struct na_qslot *s = na_qslot_find(qt, m->tag, m->thread), *p;
	struct lcf_msg g = *m;
	struct na_qacts a = { 0 }, b = { 0 };

	g.len = 0; /* no granted entries */
	g.aux = 0;
	if (s && waiting_for(s, m->seq) && !s->poll && !s->kept) {
		na_qholder_qgrant(&s->h, 0, m->thread, m->seq, m->gstatus,
				  m->copyset, NULL, 0, now, &a);
		for (uint32_t i = 0; i < a.n; i++)
			if (a.a[i].kind != NA_QA_QGRANT_ACK)
				b.a[b.n++] = a.a[i];
		s->swait = false;
		s->last = now;
		na_qslot_emit(qt, s, NA_QH_WAIT, &b, out, loc);
		if (loc->n > 0 && loc->l[loc->n - 1].m.type == NA_MSG_Q_GRANT)
			loc->l[loc->n - 1].m.flags |= LCF_F_IN_SWITCH;
		qt->st.sw_grants++;
		return;
	}
	if (s && waiting_for(s, m->seq)) {
		/* Given up (kept, polled): passed on in place. */
		if (na_qslot_take_end(qt, s, &g, NULL, false, now, out, loc) ==
		    0) {
			s->kept = false;
			qt->st.sw_grants++;
		}
		return;
	}
	if (s && na_qslot_gone_find(s, m->seq) >= 0) {
		na_qslot_pass_on(qt, s, &g, NULL, false, now, out, loc);
		qt->st.sw_grants++;
		return;
	}
	p = na_qslot_passing(qt, m->tag, m->thread, m->seq);
	if (p && waiting_for(p, m->seq)) {
		if (na_qslot_take_end(qt, p, &g, NULL, false, now, out, loc) ==
		    0)
			qt->st.sw_grants++;
		return;
	}
	qt->st.sw_ignored++; /* a duplicate, or not waited for */
}

void
na_qwait_handle(struct na_qtable *qt, const struct lcf_msg *m, uint64_t now,
		struct na_out *out, struct na_qlocals *loc)
{
	if (m->node != qt->self) {
		qt->st.sw_ignored++;
		return;
	}
	if (m->type == LCF_T_QWAIT)
		qwait(qt, m, now, loc);
	else
		qgrant(qt, m, now, out, loc);
}

void
na_qwait_poll(struct na_qtable *qt, struct na_qslot *s, uint64_t now,
	      struct na_out *out)
{
	struct lcf_msg m = { .version = LCF_VERSION };

	if (!s->poll || !s->swait || s->h.st != NA_QH_WAIT || now < s->poll_at)
		return;
	m.type = s->sw_type;
	m.node = qt->self;
	m.thread = s->h.thread;
	m.seq = s->h.seq;
	m.tag = s->tag;
	m.dst_node = qt->home_of(qt->home_ctx, s->tag);
	na_out_push(out, m.dst_node, &m, NULL);
	s->poll_at = now + qt->rtt;
	qt->st.sw_polls++;
}

/* Does slot `s` wait for seq as the switch's waiting writer, or hold or
 * end a grant of it? */
static bool
ends(const struct na_qslot *s, uint32_t seq)
{
	if (s->h.seq != seq)
		return false;
	switch (s->h.st) {
	case NA_QH_WAIT:
		return s->swait;
	case NA_QH_HOLD:
	case NA_QH_ENDING:
	case NA_QH_GIVING:
		return true;
	default:
		return false;
	}
}

bool
na_qtable_holds(const struct na_qtable *qt, uint64_t tag, uint16_t thread,
		uint32_t seq)
{
	for (uint32_t i = 0; i < NA_QT_SLOTS; i++) {
		const struct na_qslot *s = &qt->s[i];

		if (!s->used || s->tag != tag || s->h.thread != thread)
			continue;
		if (ends(s, seq) || (!s->passing && s->passed == seq))
			return true;
	}
	return false;
}
