/*
 * SPIN model of the tenure tag on forwards (docs/MODEL.md "The tenure tag";
 * issue 28 item 3). The switch forwards a request to the queue holder with
 * `aux = tenure << 16 | index`, tenure = the holder's thread << 6 | seq &
 * 0x3f: a holder matches a forward to its tenure on TW bits of its seq (the
 * C and P4: 6). A forward delayed past the holder's loss bound and past
 * 2^TW of the holder thread's events is queued in a later tenure of the
 * same block, and the tenure is handed to a requester event that is over.
 *
 *   - node 2 (the holder thread): EVH events, seqs 1..EVH, the first and
 *     the last on Y (their tags equal for EVH = 2^TW + 1), the others on
 *     other blocks (not modelled, the seq moves on); on Y it takes the
 *     lock when it is free (its request's messages abstracted) and ends the
 *     tenure with QXFER to its queue's head or QRELEASE, resent on the
 *     timer; denied `count`, it waits for the missing indices and declares
 *     them lost once no forward to it is in flight, or LATE times in a run
 *     while one is (the bound passed: the copy arrives later), and hands
 *     over with Q_GRANT (not lost: its loss and Q_GRANT_ACK are qlock.pml's).
 *   - nodes 0 and 1: one write event each on Y (seq 1), sent while node
 *     2's first (node 0) or last (node 1) tenure holds (ANYSTART: at any
 *     time) and retransmitted while no copy of it and no answer (GRANTED,
 *     Q_GRANT, Q_NACK) is in flight, RETX0 / RETX1 times after the first
 *     send (re-sends after a Q_NACK included; a Q_QUEUED's watchdog is a
 *     retransmission); a forward of it may be in flight meanwhile (LATE,
 *     shared with the holders' bound). Granted (by the switch or a
 *     Q_GRANT) it holds and ends its tenure as node 2 does.
 *   - the switch: LOCK Y (writer), QSTATE {QHOLDER (the whole seq), FWD_CNT}
 *     as PROTOCOL.md "Queued locks" (QRELEASE in one pass: its gate is
 *     qalias.pml's subject); SCOREBOARD as the requester's last event
 *     ended by QXFER/QRELEASE: a later copy of it is NACKed (ignored).
 *   - holders (every node): a forward whose tag is its tenure's is counted
 *     once per index (a second copy of an index dropped) and queued once
 *     per request; its own request counted, not queued; any other forward
 *     answered Q_NACK.
 *   - network: a bag; DUP duplications of forwards and Q_GRANTs, LOSS
 *     losses of forwards.
 *
 * Rules for a Q_GRANT whose event is not waiting for it (over):
 *   default  acknowledged, nothing else (today's na_qtable): the tenure
 *            handed to it is never ended, Y stays locked (run qtag-old)
 *   PHANTOM  the fix: acknowledged and taken once no tenure of that seq is
 *            held or ending here (until then not acknowledged: the giver
 *            sends it again), the tenure ended at once by QRELEASE only
 *            (count = forwards received for it, the grant's metadata);
 *            forwards for it queued meanwhile; once answered
 *            (approved or not_holder) every entry (granted or forwarded)
 *            gets Q_NACK. A duplicate of a Q_GRANT the event took finds
 *            QHOLDER moved on: not_holder, nothing changes.
 *            Never QXFER: its not_holder counts as approved, and a QXFER
 *            taken from a duplicate would send Q_GRANTs; a QRELEASE makes
 *            no holder, whatever the answer (the waiters retry).
 *
 * RESEND n (> 0): an ending sends QXFER/QRELEASE at most n times a tenure,
 * so that a holder resending for ever meets the quiescence check: a late
 * copy whose index is past its later tenure's FWD_CNT makes the count
 * exceed FWD_CNT, denied `count` until more forwards come; with none, Y
 * stays locked under PHANTOM too (run qtag-index, known).
 *
 * STALE n: n times in a run the ending's timer fires while one end or its
 * answer is in flight (the answer late, not lost), so the switch takes
 * two ends in either order and an answer comes after a later send; DUPA
 * n: n duplicates of a QXFER_ACK, the timer not waiting for them (they
 * may come after later sends, or in a later tenure of that seq).
 *
 * Rules for that denial:
 *   TRIM   an index the holder had when it sent the end and past the
 *          denial's FWD_CNT is taken for an older tenure's copy: its entry
 *          gets Q_NACK, the index is dropped, the end resent with the rest
 *          (qtag-index-trim passes). It takes the denial for the answer to
 *          the last send: with STALE 1, FWD_CNT 1 answering an earlier
 *          send drops index 2 of this tenure (REAL: ghost realb, the
 *          indices from forwards of the holder's own tenure, numbered by
 *          the switch; run qtag-stale-trim).
 *   UPTO   the end's count leaves out the indices past the highest
 *          FWD_CNT a `count` denial of the tenure reported that had come
 *          when it came; a denial below the highest answers an earlier
 *          pass (FWD_CNT never falls within a tenure): nothing changes.
 *          Nothing is dropped: such an index is an older tenure's copy
 *          (a forward reaches the holder after the switch counted it),
 *          unless the denial answers an earlier send: a later denial
 *          judges it again; one that comes after the denial is counted.
 *          Approved, the count is FWD_CNT: only an alias in 1..FWD_CNT
 *          stands for a missing index, as without the rule.
 * and for the end itself (an approval does not say which send it answers):
 *   default the end is chosen at each send: with STALE 1 a QRELEASE is
 *          approved, an aliasing copy comes, the end resent as QXFER to
 *          it, and the QRELEASE's approval sends Q_GRANT: two holders
 *          (run qtag-stale-nopin, UPTO).
 *   PIN    the end (QRELEASE, or QXFER and its next) is kept from its
 *          first send until a `count` denial's FWD_CNT passes every count
 *          sent (smax): none of those ends can be approved then. A
 *          QRELEASE approved with entries queued since: Q_NACK to them.
 *          (The queue here keeps arrival order: a QXFER's next never
 *          changes, only QRELEASE -> QXFER is explored.)
 *
 * Properties: SWMR (ghost holder); at quiescence Y free, QSTATE {0, 0},
 * node 2 done, and each requester done or out of sends (declared lost
 * while its forward was late, it may need more than RETX: the model's
 * bound, not a stuck lock).
 */

#ifndef TW
#define TW 1
#endif
#ifndef EVH
#define EVH 3
#endif
#ifndef RETX0
#define RETX0 1
#endif
#ifndef RETX1
#define RETX1 1
#endif
#ifndef DUP
#define DUP 0
#endif
#ifndef LOSS
#define LOSS 0
#endif
#ifndef LATE
#define LATE 2
#endif
#ifndef RESEND
#define RESEND 0
#endif
#ifndef DUPA
#define DUPA 0
#endif
#ifndef STALE
#define STALE 0
#endif
#ifndef NSLOT
#define NSLOT 6
#endif
#if NSLOT == 7
#define S6(x) x /* the bag's seventh slot in the macros below */
#else
#define S6(x)
#endif
/* node 0's request meets node 2's first tenure, node 1's its last */
#ifdef ANYSTART
#define START(n) true
#else
#define START(n) (st[H] == 2 && (n == 0 && seq[H] == 1 || n == 1 && seq[H] == EVH))
#endif
#define SW 3
#define H 2
#define ID(n, s) ((n) * 8 + (s))             /* QHOLDER: the whole seq */
#define IDN(i) ((i) / 8)
#define IDS(i) ((i) % 8)
#define TAG(n, s) ((n) * 8 + (s) % (1 << TW)) /* the forward's tenure */

#define REQ 1     /* node -> switch (src, seq) */
#define GRANTED 2 /* switch -> node (seq) */
#define FWD 3     /* switch -> holder: src, seq = the request; a = index; b = tag */
#define QXFER 4   /* holder -> switch: src, seq; a = count; b = next id */
#define QREL 5    /* holder -> switch: src, seq; a = count */
#define QACK 6    /* switch -> holder: seq; a = reason; b = FWD_CNT */
#define QGRANT 7  /* giver -> next: seq = next's; src = giver; q = rest (an id) */
#define QNACK 9   /* holder -> requester (seq) */

#define R_OK 0
#define R_COUNT 1
#define R_NOTHOLDER 2

typedef msg_t { byte t; byte dst; byte src; byte seq; byte a; byte b; byte q };
msg_t net[NSLOT];
hidden msg_t tmp;
byte dup = 0, loss = 0, late = 0, dupa = 0, stale = 0;

/* switch */
bit yw = 0;
byte qh = 0, fc = 0;
byte over[3];      /* SCOREBOARD: the requester's last event over */

/* nodes: 0 next event, 1 waiting, 2 holding, 3 ending, 5 done */
byte st[3], seq[3];
byte rcv[3];     /* indices received (bit i-1), declared lost included */
byte q0[3], q1[3]; /* the queue: request ids (ID), 0 none */
byte fcw[3];     /* FWD_CNT of the last `count` denial, 0 none */
bit xf[3];       /* ending: QXFER sent (else QRELEASE) */
bit ph[3];       /* ending a tenure handed to an event that was over */
byte retx[3];
byte rs[3];      /* RESEND: the ending's sends this tenure */
#ifdef TRIM
byte qx0[3], qx1[3]; /* the queue entries' indices, 0 none (a Q_GRANT's rest) */
byte sentrcv[3];    /* rcv when the ending's last QXFER/QRELEASE was sent */
#define SNAP(n) sentrcv[n] = rcv[n]
#define QX(n, x, v) x[n] = v
#else
#define SNAP(n) skip
#define QX(n, x, v) skip
#endif
#if RESEND > 0
#define RS(n) (rs[n] < RESEND)
#define RS_INC(n) rs[n]++
#else
#define RS(n) true
#define RS_INC(n) skip
#endif
byte holder = 255; /* ghost: the node whose event holds Y */
#ifdef REAL
/* ghost: the switch's tenures numbered (ser), the one it gave each node
 * last (gser), a forward's number (its q) and the indices a holder
 * counted from forwards of its own tenure (realb): TRIM drops none */
byte ser = 0, gser[3], realb[3];
#define TENURE(n) ser++; gser[n] = ser
#define FWDQ ser
#define REAL(n, a) if :: tmp.q == gser[n] -> realb[n] = realb[n] | 1 << (a - 1) :: else -> skip fi
#define GHOSTCLR(n) realb[n] = 0
#define NOREAL(n, m) assert((realb[n] & (m)) == 0) /* no forward of this tenure */
#else
#define GHOSTCLR(n) skip
#define NOREAL(n, m) skip
#define TENURE(n) skip
#define FWDQ 0
#define REAL(n, a) skip
#endif

#define SL(i, T, D, S, Q) (net[i].t == T && net[i].dst == D && net[i].src == S && net[i].seq == Q)
#define ANY(T, D, S, Q) (SL(0, T, D, S, Q) || SL(1, T, D, S, Q) || SL(2, T, D, S, Q) || \
	SL(3, T, D, S, Q) || SL(4, T, D, S, Q) || SL(5, T, D, S, Q) S6(|| SL(6, T, D, S, Q)))
#define TO(i, D) (net[i].t != 0 && net[i].dst == D)
#define HAS(D) (TO(0, D) || TO(1, D) || TO(2, D) || TO(3, D) || TO(4, D) || TO(5, D) S6(|| TO(6, D)))
#define FT(i, D) (net[i].t == FWD && net[i].dst == D)
#define FWDTO(D) (FT(0, D) || FT(1, D) || FT(2, D) || FT(3, D) || FT(4, D) || FT(5, D) S6(|| FT(6, D)))
#define FO(i, S) (net[i].t == FWD && net[i].src == S)
#define FWDOF(S) (FO(0, S) || FO(1, S) || FO(2, S) || FO(3, S) || FO(4, S) || FO(5, S) S6(|| FO(6, S)))
#define POP(x) ((x & 1) + (x >> 1 & 1) + (x >> 2 & 1) + (x >> 3 & 1) + \
	(x >> 4 & 1) + (x >> 5 & 1) + (x >> 6 & 1) + (x >> 7 & 1))
#ifdef PIN
/* the end sent is kept (pin) until a `count` denial's FWD_CNT is past
 * every count sent (smax): none of those ends can be approved any more */
bit pin[3];
byte smax[3];
#define PINREL(n) (pin[n] && !xf[n])
#define PINQ true
#define PINSET(n) pin[n] = 1; if :: CNT(n) > smax[n] -> smax[n] = CNT(n) :: else -> skip fi
#define PINCLR(n) pin[n] = 0; smax[n] = 0
#define UNPIN(n, f) if :: f > smax[n] -> pin[n] = 0 :: else -> skip fi
#else
#define PINREL(n) false
#define PINQ false
#define PINSET(n) skip
#define PINCLR(n) skip
#define UNPIN(n, f) skip
#endif
#ifdef UPTO
/* the end's count leaves out sus: the indices past the FWD_CNT of the
 * last `count` denial taken (fmx - 1, the highest; fmx 0: none) that
 * had come when it came */
byte fmx[3], sus[3];
#define UPCLR(n) fmx[n] = 0; sus[n] = 0
#define CNT(n) POP((rcv[n] & (255 - sus[n])))
#else
#define UPCLR(n) skip
#define CNT(n) POP(rcv[n])
#endif
#define EA(i, n) ((net[i].t == QACK && net[i].dst == n && net[i].q == 0 || \
	(net[i].t == QXFER || net[i].t == QREL) && net[i].src == n) -> 1 : 0)
#define ENDS(n) (EA(0, n) + EA(1, n) + EA(2, n) + EA(3, n) + EA(4, n) + EA(5, n) S6(+ EA(6, n)))
#if DUPA > 0
#define ENDFREE(n) (ENDS(n) == 0)
#else
#define ENDFREE(n) (!ANY(QXFER, SW, n, seq[n]) && !ANY(QREL, SW, n, seq[n]) && !ANY(QACK, n, SW, seq[n]))
#endif

inline put(T, D, S, Q, A, B, QQ)
{
	i = 0;
	do
	:: i < NSLOT && net[i].t != 0 -> i++
	:: i < NSLOT && net[i].t == 0 ->
		net[i].t = T; net[i].dst = D; net[i].src = S; net[i].seq = Q;
		net[i].a = A; net[i].b = B; net[i].q = QQ; break
	:: i == NSLOT -> assert(false)
	od
}

#define KEY(m) ((((((m.t * 4 + m.dst) * 4 + m.src) * 8 + m.seq) * 8 + m.a) * 32 + m.b) * 32 + m.q)
#define GT(u, v) (net[v].t != 0 && (net[u].t == 0 || KEY(net[u]) > KEY(net[v])))
#define CP(d, s) d.t = s.t; d.dst = s.dst; d.src = s.src; d.seq = s.seq; d.a = s.a; d.b = s.b; d.q = s.q
inline norm()
{
	d_step {
		j = 0;
		do
		:: j < NSLOT - 1 ->
			i = 0;
			do
			:: i < NSLOT - 1 - j ->
				if
				:: GT(i, i + 1) -> CP(tmp, net[i]); CP(net[i], net[i + 1]); CP(net[i + 1], tmp)
				:: else -> skip
				fi;
				i++
			:: else -> break
			od;
			j++
		:: else -> break
		od;
		i = 0; j = 0; k = 0; r = 0; s = 0; e = 0; a = 0; b = 0
	}
}

#define SCRATCH byte i, j, k, r, s, e, a, b

/* choose a message for D; e = its kind (0: the choice was another's),
 * (r, s, a, b) and tmp.q its fields, taken out of the bag */
inline pick(D)
{
	k = 0;
	do :: k < NSLOT - 1 -> k++ :: break od;
	if
	:: net[k].t != 0 && net[k].dst == D ->
		e = net[k].t; r = net[k].src; s = net[k].seq; a = net[k].a; b = net[k].b;
		tmp.q = net[k].q; net[k].t = 0;
		printf("@a %d <- %d: kind %d seq%d a%d b%d q%d\n", D, r, e, s, a, b, tmp.q)
	:: else -> e = 0
	fi
}

proctype network()
{
	SCRATCH;
end:	do
	:: atomic { dup < DUP ->
		k = 0;
		do :: k < NSLOT - 1 -> k++ :: break od;
		if
		:: net[k].t == FWD || net[k].t == QGRANT -> dup++;
			put(net[k].t, net[k].dst, net[k].src, net[k].seq, net[k].a, net[k].b, net[k].q)
		:: else -> skip
		fi; norm() }
	:: atomic { dupa < DUPA ->
		k = 0;
		do :: k < NSLOT - 1 -> k++ :: break od;
		if
		:: net[k].t == QACK && net[k].q == 0 -> dupa++;
			/* q 1: a copy the ending's timer does not wait for */
			put(QACK, net[k].dst, net[k].src, net[k].seq, net[k].a, net[k].b, 1)
		:: else -> skip
		fi; norm() }
	:: atomic { loss < LOSS ->
		k = 0;
		do :: k < NSLOT - 1 -> k++ :: break od;
		if :: net[k].t == FWD -> loss++; net[k].t = 0 :: else -> skip fi; norm() }
	od
}

proctype sw()
{
	SCRATCH;
end:	do
	:: atomic { HAS(SW) -> pick(SW);
		/* QXFER and QRELEASE end their event in SCOREBOARD */
		if
		:: (e == QXFER || e == QREL) && s > over[r] -> over[r] = s
		:: else -> skip
		fi;
		if
		:: e == REQ && s <= over[r] -> skip /* the event is over: NACK, ignored */
		:: e == REQ && s > over[r] && !yw -> yw = 1; qh = ID(r, s); fc = 0; TENURE(r);
			put(GRANTED, r, SW, s, 0, 0, 0)
		:: e == REQ && s > over[r] && yw -> fc++; put(FWD, IDN(qh), r, s, fc, TAG(IDN(qh), IDS(qh)), FWDQ)
		:: e == QXFER && qh == ID(r, s) && fc == a -> qh = b; fc = 0; TENURE(IDN(b));
			put(QACK, r, SW, s, R_OK, 0, 0)
		:: e == QREL && qh == ID(r, s) && fc == a ->
			yw = 0; qh = 0; fc = 0; put(QACK, r, SW, s, R_OK, 0, 0)
		:: (e == QXFER || e == QREL) && qh == ID(r, s) && fc != a -> put(QACK, r, SW, s, R_COUNT, fc, 0)
		:: (e == QXFER || e == QREL) && qh != ID(r, s) -> put(QACK, r, SW, s, R_NOTHOLDER, 0, 0)
		:: else -> skip
		fi; norm() }
	od
}

/* end the tenure: QRELEASE (queue empty, or a phantom's), else QXFER */
inline send_end(n)
{
	SNAP(n);
	if
	:: q0[n] == 0 || ph[n] || PINREL(n) -> xf[n] = 0; put(QREL, SW, n, seq[n], CNT(n), 0, 0)
	:: else -> xf[n] = 1; put(QXFER, SW, n, seq[n], CNT(n), q0[n], 0)
	fi;
	PINSET(n)
}

inline enqueue(n, id, x)
{
	if
	:: q0[n] == id || q1[n] == id -> skip
	:: q0[n] != id && q1[n] != id && q0[n] == 0 -> q0[n] = id; QX(n, qx0, x)
	:: q0[n] != id && q1[n] != id && q0[n] != 0 && q1[n] == 0 -> q1[n] = id; QX(n, qx1, x)
	:: else -> assert(false) /* two requesters: never more than two */
	fi
}

/* the event is over: the next one (node 2), or done */
inline next_event(n)
{
	rcv[n] = 0; q0[n] = 0; q1[n] = 0; fcw[n] = 0; xf[n] = 0; rs[n] = 0;
	QX(n, qx0, 0); QX(n, qx1, 0); SNAP(n); GHOSTCLR(n); UPCLR(n); PINCLR(n);
	if
	:: ph[n] -> ph[n] = 0; st[n] = 5
	:: !ph[n] && n == H && seq[n] < EVH -> seq[n]++; st[n] = 0
	:: else -> st[n] = 5
	fi
}

inline hold(n)
{
	printf("@a node %d: seq%d holds Y\n", n, seq[n]);
	assert(holder == 255); /* SWMR */
	holder = n; st[n] = 2
}

#ifdef TRIM
#define PAST(n, x, f) (x[n] > f && (sentrcv[n] >> (x[n] - 1) & 1))
/* a `count` denial with FWD_CNT f: an index the holder had when it sent
 * the end and past f is no forward of this tenure (the switch assigns an
 * index before it can arrive, and FWD_CNT never falls within a tenure):
 * an older tenure's copy whose tag aliases. Its entry gets Q_NACK (the
 * requester retries), the index is dropped: the end's next count is
 * this tenure's. Indices that came after the send are kept (they may be
 * past f and this tenure's). */
inline trim(n, f)
{
	NOREAL(n, sentrcv[n] >> f << f);
	if
	:: PAST(n, qx1, f) -> put(QNACK, IDN(q1[n]), n, IDS(q1[n]), 0, 0, 0); q1[n] = 0; qx1[n] = 0
	:: else -> skip
	fi;
	if
	:: PAST(n, qx0, f) -> put(QNACK, IDN(q0[n]), n, IDS(q0[n]), 0, 0, 0);
		q0[n] = q1[n]; qx0[n] = qx1[n]; q1[n] = 0; qx1[n] = 0
	:: else -> skip
	fi;
	rcv[n] = rcv[n] & ~(sentrcv[n] >> f << f)
}
#endif

#define HOLDS_TAG(n, g) (st[n] >= 1 && st[n] <= 3 && TAG(n, seq[n]) == g)

inline receive(n)
{
	pick(n);
	if
	:: e == GRANTED && st[n] == 1 && s == seq[n] -> hold(n)
	:: e == QNACK && st[n] == 1 && s == seq[n] && retx[n] > 0 -> retx[n]--; put(REQ, SW, n, s, 0, 0, 0)
	:: e == QNACK && st[n] == 1 && s == seq[n] && retx[n] == 0 -> skip
	:: e == FWD && HOLDS_TAG(n, b) ->
		assert(a >= 1 && a <= 8);
		if
		:: rcv[n] >> (a - 1) & 1 -> skip /* that index came: a duplicate */
		:: else -> rcv[n] = rcv[n] | 1 << (a - 1); REAL(n, a);
			if :: r != n -> enqueue(n, ID(r, s), a) :: else -> skip fi
		fi
	:: e == FWD && !HOLDS_TAG(n, b) && r != n -> put(QNACK, r, n, s, 0, 0, 0)
	:: e == QGRANT && st[n] == 1 && s == seq[n] ->
		/* the granted entry goes before the buffered forwards */
		if
		:: tmp.q != 0 && tmp.q != q0[n] -> q1[n] = q0[n]; q0[n] = tmp.q;
			QX(n, qx1, qx0[n]); QX(n, qx0, 0)
		:: else -> skip
		fi;
		hold(n)
#ifdef PHANTOM
	:: e == QGRANT && (st[n] == 2 || st[n] == 3) && s == seq[n] ->
		/* a tenure of that seq (its own, or one taken) is not over:
		 * not acknowledged, the giver sends it again (back in the bag) */
		put(e, n, r, s, a, b, tmp.q)
	:: e == QGRANT && st[n] == 5 && s == seq[n] ->
		/* a tenure handed to an event that is over: ended at once */
		printf("@a node %d: Q_GRANT for over seq%d taken\n", n, s);
		ph[n] = 1; q0[n] = tmp.q; st[n] = 3; send_end(n)
#endif
	:: e == QACK && st[n] == 3 && s == seq[n] && (a == R_OK || a == R_NOTHOLDER) ->
		if
		:: xf[n] -> put(QGRANT, IDN(q0[n]), n, IDS(q0[n]), 0, 0, q1[n]); next_event(n)
		:: !xf[n] && (ph[n] || PINQ) ->
			/* the phantom's queue (PIN: any QRELEASE's): retry now */
			if :: q0[n] != 0 -> put(QNACK, IDN(q0[n]), n, IDS(q0[n]), 0, 0, 0) :: else -> skip fi;
			if :: q1[n] != 0 -> put(QNACK, IDN(q1[n]), n, IDS(q1[n]), 0, 0, 0) :: else -> skip fi;
			next_event(n)
		:: else -> next_event(n)
		fi
	:: e == QACK && st[n] == 3 && s == seq[n] && a == R_COUNT ->
		UNPIN(n, b);
#ifdef UPTO
		/* FWD_CNT never falls within a tenure: a lower one answers an
		 * earlier pass (stale), nothing to do */
		if
		:: fmx[n] > 0 && b + 1 < fmx[n] -> skip
		:: else -> fmx[n] = b + 1; sus[n] = rcv[n] >> b << b; fcw[n] = b
		fi
#else
#ifdef TRIM
		trim(n, b);
#endif
		fcw[n] = b
#endif
	:: else -> skip
	fi
}

proctype node(byte n)
{
	SCRATCH;
end:	do
	:: atomic { st[n] == 0 && n == 0 && seq[H] > 1 -> st[n] = 5 } /* too late: no event */
	:: atomic { st[n] == 0 && n != H && START(n) -> st[n] = 1; put(REQ, SW, n, seq[n], 0, 0, 0); norm() }
	/* node 2: the event on Y takes the free lock; or it is on another block */
	:: atomic { st[n] == 0 && n == H && (seq[n] == 1 || seq[n] == EVH) && !yw ->
		yw = 1; qh = ID(n, seq[n]); fc = 0; TENURE(n); hold(n) }
	:: atomic { st[n] == 0 && n == H && seq[n] > 1 && seq[n] < EVH -> seq[n]++ }
	/* the requester's retransmission timer */
	:: atomic { st[n] == 1 && retx[n] > 0 && !ANY(REQ, SW, n, seq[n]) && !(HAS(n)) &&
		(late < LATE || !FWDOF(n)) ->
		if :: FWDOF(n) -> late++ :: else -> skip fi;
		retx[n]--; put(REQ, SW, n, seq[n], 0, 0, 0); norm() }
	:: atomic { st[n] == 2 -> holder = 255; st[n] = 3; send_end(n); norm() }
	/* ending: resent on the timer (the head re-read), once the count is met
	 * or the missing indices are declared lost (the bound passed) */
	:: atomic { st[n] == 3 && ENDFREE(n) && (fcw[n] == 0 || CNT(n) >= fcw[n]) && RS(n) ->
		RS_INC(n); fcw[n] = 0; send_end(n); norm() }
	/* STALE times in a run, the timer fires while one end or its answer
	 * is in flight (the answer lost for the timer, but late): the switch
	 * takes two ends in either order, an answer comes after a later send */
	:: atomic { st[n] == 3 && stale < STALE && ENDS(n) == 1 && (fcw[n] == 0 || CNT(n) >= fcw[n]) ->
		stale++; fcw[n] = 0; send_end(n); norm() }
	:: atomic { st[n] == 3 && fcw[n] > CNT(n) && (late < LATE || !FWDTO(n)) ->
		if :: FWDTO(n) -> late++ :: else -> skip fi;
		rcv[n] = rcv[n] | (1 << fcw[n]) - 1 }
	:: atomic { HAS(n) -> receive(n); norm() }
	:: atomic { st[n] == 0 && n == 1 && seq[H] == EVH && st[H] > 2 -> st[n] = 5 } /* too late */
	od
}

proctype quiet()
{
	timeout ->
	atomic {
		printf("@a QUIET: nodes %d %d %d Y %d Q %d/%d\n", st[0], st[1], st[2], yw, qh, fc);
		assert(yw == 0 && qh == 0);
		/* a requester left waiting has used its sends (a bound of the model) */
		assert((st[0] == 5 || retx[0] == 0) && (st[1] == 5 || retx[1] == 0) && st[2] == 5)
	}
}

init {
	atomic {
		seq[0] = 1; seq[1] = 1; seq[2] = 1; UPCLR(0); UPCLR(1); UPCLR(2);
		retx[0] = RETX0; retx[1] = RETX1;
		run sw(); run network(); run node(0); run node(1); run node(2); run quiet()
	}
}
