/*
 * (Over 500 lines would need a reason: this file stays below.)
 *
 * SPIN model of a given-up queued event whose tenure ends on its own while
 * its thread goes on with later events on another block (docs/MODEL.md
 * "Given-up tenures and the unlock order"; PROTOCOL.md "Queued locks").
 *
 *   - node 0, one thread (requester 0): EV0 events with seqs 1..EV0, one
 *     of them (chosen) a write of block Y (queued lock), the others reads of
 *     block X (a plain read lock only it uses). The Y write may be given up
 *     (GIVEUP) at any time before its grant reaches the thread; the ABORT is
 *     one atomic round trip with the switch's answer (4.9 + "a waiting
 *     writer's tenure passed"); the Y slot then ends the tenure on its own
 *     (polls, takes the grant, QXFER / QRELEASE) while the thread goes on.
 *     The thread's unlocks: one in flight, in seq order; a new event only
 *     when no unlock of its parity is unacknowledged (PROTOCOL.md 4.3); a
 *     tenure the thread itself ends is one of its unlocks.
 *   - node 1 (requester 1): one event on Y, a read or a write (a holder that
 *     queues node 0's forwarded write and hands over with QXFER + Q_GRANT).
 *   - the switch: LAST-UNLOCK {seq, open} and SCOREBOARD {s, c} per requester
 *     (and parity), LOCK of X (readers), LOCK of Y {writer, waiting,
 *     readers}, QSTATE {QHOLDER, FWD_CNT | SWITCH | CLOSING}; second passes
 *     in a FIFO, any number of first passes in between.
 *   - network: a bag, LOSS losses, DUP duplications; timers retransmit what
 *     has no copy and no answer in flight.
 *
 * Rules (today's, each kept under a define so that its counterexample
 * stays found):
 *   OLDLU    QXFER ends the event in LAST-UNLOCK, QRELEASE opens it as an
 *            unlock; QRELEASE's second pass executes when LAST-UNLOCK is
 *            {seq, open} (default: QXFER / QRELEASE claim SCOREBOARD as an
 *            unlock's first pass, LAST-UNLOCK untouched; the second pass
 *            executes when QSTATE is {id, CLOSING}, and ends the event)
 *   OLDLUW   only the first half of OLDLU: QXFER / QRELEASE write
 *            LAST-UNLOCK, the second pass has its own gate
 *   OLDPOLL  a stale request is NACKed before the QSTATE stage (default:
 *            row 4, the waiting writer's poll, is answered first)
 *   HOME     the lock point is Y's and X's home agent (queued mode at a
 *            home, QUEUED-LOCKS.md 11): no waiting writer (a write meeting
 *            readers is NACKed), an unlock and a QRELEASE in one step (no
 *            resubmit), a stale unlock ignored (no answer); timers resend
 *            an unlock or a QXFER / QRELEASE at most RESEND times, so an
 *            answer that never comes shows at quiescence. The requests'
 *            LAST-EXECUTED end of the event is SCOREBOARD's end here.
 *   OLDHOME  (HOME) the home's earlier rule: a QXFER / QRELEASE checked
 *            against the sender's LAST-EXECUTED of unlocks (stale: ignored;
 *            equal: approved again, nothing changed) and an approved one
 *            recorded there
 *
 * Properties: SWMR on Y; at quiescence both nodes done, no unlock in flight,
 * every slot idle (or holding a record of an aborted event nobody grants),
 * X and Y unlocked, QSTATE {0, 0}.
 *
 * The counterexamples of the old rules (vectors 124-127,
 * test_pipeline_qorder):
 *   qorder-old-gate (OLDLU): node 1 reads Y; node 0's seq 1 write gets
 *     QWAIT and is given up ("passed"); seq 2 reads X, its unlock's first
 *     pass opens LAST-UNLOCK {2}; the poll gets QGRANT; QRELEASE seq 1 is
 *     approved but its second pass finds LAST-UNLOCK {2}: ignored, QSTATE
 *     cleared, Y keeps WAITING.
 *   qorder-old-luw (OLDLUW): seq 1 reads X, its unlock is in flight; seq
 *     2's Y write is queued at node 1, given up (aborted), handed over and
 *     released: LAST-UNLOCK {2}; seq 1's unlock arrives as a duplicate: X
 *     keeps a reader.
 *   qorder-old-poll (OLDPOLL): node 1 reads Y; seq 1 waits, is given up
 *     ("passed"); seq 2's X unlock executes; every poll of seq 1 is NACKed
 *     stale: Y keeps WAITING and QSTATE {seq 1, SWITCH}.
 */

#ifdef OLDLU
#define OLDLUW
#endif
#ifdef OLDHOME
#define HOME
#endif
#ifndef RESEND
#define RESEND 3
#endif
#ifndef EV0
#define EV0 2
#endif
#ifndef GIVEUP
#define GIVEUP 1
#endif
#ifndef LOSS
#define LOSS 0
#endif
#ifndef DUP
#define DUP 0
#endif
#ifndef RD1
#define RD1 2 /* node 1's event: 0 write, 1 read, 2 either */
#endif
#define NSLOT 7
#define SW 2
#define ENDED 64
#define CLAIMED 128 /* | count */
#define SWITCHF 64
#define CLOSING 128
#define ID(r, s) (((r) + 1) * 16 + (s))
#define IDR(i) ((i) / 16 - 1)
#define IDS(i) ((i) % 16)
#define AFTER(a, b) ((a) > (b)) /* seqs 1..EV0 < 8: no wrap here */

#define REQ 1   /* src, seq, a = block (0 X, 1 Y), b = 1 read */
#define GRANT 2
#define NACK 3
#define QWAIT 4
#define QGR 5   /* the switch's QGRANT */
#define FWD 6   /* a = index, b = tenure */
#define UNL 7   /* a = block */
#define UACK 8
#define QXFER 9 /* a = count, b = next id */
#define QREL 10 /* a = count */
#define QACK 11 /* a = reason, b = FWD_CNT */
#define QG 12   /* Q_GRANT: src = giver, seq = next's seq */
#define QGA 13
#define QNACK 14

#define R_OK 0
#define R_COUNT 1
#define R_NOTHOLDER 2
#define R_CLOSING 3
#define R_WAITING 5

typedef msg_t { byte t; byte dst; byte src; byte seq; byte a; byte b };
msg_t net[NSLOT];
hidden msg_t tmp;
byte loss = 0, dup = 0, gave = 0;
#define SCRATCH byte k, i, j, r, s, a, b, e, f, src

/* switch */
byte xrd = 0;                       /* X's readers */
bit yw = 0, yq = 0;                /* Y's writer, waiting bits */
byte yr = 0;                       /* Y's readers */
byte qhi = 0, qlo = 0;             /* QSTATE */
byte lus[2]; bit luo[2];           /* LAST-UNLOCK */
byte qls[2]; bit qlopen[2];        /* QRELEASE's gate {seq, open} */
byte sbs[4]; byte sbc[4];          /* SCOREBOARD[r][parity] */
#define SBI(r, s) (2 * (r) + ((s) & 1))
chan rs = [2] of { byte, byte, byte, byte, byte }; /* kind, r, s, blk, score|exec */

/* holder slots: 0 node 0's Y slot, 1 node 1's */
#define IDLE 0
#define WAIT 1    /* request out */
#define POLL 2    /* the waiting writer, polling */
#define HOLD 3
#define ENDING 4
#define GIVING 5
#define GONE 6    /* given up, aborted: takes a Q_GRANT if one comes */
byte st[2], cur[2], qe[2], recv[2], fcnt[2], nxt[2];
bit gu[2];        /* the slot's event was given up */
bit qd[2];        /* Q_QUEUED (instantaneous) */
byte polls[2];
byte ends[2], uls = 0; /* HOME: timer resends of an end, of node 0's unlock */

/* node 0's thread */
#define T_IDLE 0
#define T_WX 1    /* X read requested */
#define T_CSX 2   /* X granted, its unlock due */
#define T_WY 3    /* Y write in its slot */
#define T_CSY 4   /* Y granted to the thread, its end due */
#define T_DONE 5
byte tst = 0, tseq = 0, ul = 0; bit ulx = 0; bit ydone = 0;
/* node 1 */
byte n1 = 0; bit n1rd = 0;  /* 0 not started, 1 waiting, 2 holding a read, 3 unlocking, 4 done */

/* ghosts */
byte wh = 0; byte rdh = 0; byte grants[40];

#define SL(i, T, D, S, Q) (net[i].t == T && net[i].dst == D && net[i].src == S && net[i].seq == Q)
#define ANY(T, D, S, Q) (SL(0, T, D, S, Q) || SL(1, T, D, S, Q) || SL(2, T, D, S, Q) || \
	SL(3, T, D, S, Q) || SL(4, T, D, S, Q) || SL(5, T, D, S, Q) || SL(6, T, D, S, Q))
#define FL(i, T) (net[i].t == FWD && net[i].b == T)
#define ANYFWD(T) (FL(0, T) || FL(1, T) || FL(2, T) || FL(3, T) || FL(4, T) || FL(5, T) || FL(6, T))
#define TO(i, D) (net[i].t != 0 && net[i].dst == D)
#define HAS(D) (TO(0, D) || TO(1, D) || TO(2, D) || TO(3, D) || TO(4, D) || TO(5, D) || TO(6, D))
#define NONEMPTY HAS(0) || HAS(1) || HAS(SW)

inline put(T, D, S, Q, A, B)
{
	i = 0;
	do
	:: i < NSLOT && net[i].t != 0 -> i++
	:: i < NSLOT && net[i].t == 0 ->
		net[i].t = T; net[i].dst = D; net[i].src = S; net[i].seq = Q;
		net[i].a = A; net[i].b = B; break
	:: i == NSLOT -> assert(false)
	od
}

#define KEY(m) (m.t * 16777216 + m.dst * 1048576 + m.src * 65536 + m.seq * 4096 + m.a * 256 + m.b)
#define GT(u, v) (net[v].t != 0 && (net[u].t == 0 || KEY(net[u]) > KEY(net[v])))
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
				:: GT(i, i + 1) ->
					tmp.t = net[i].t; tmp.dst = net[i].dst; tmp.src = net[i].src;
					tmp.seq = net[i].seq; tmp.a = net[i].a; tmp.b = net[i].b;
					net[i].t = net[i + 1].t; net[i].dst = net[i + 1].dst;
					net[i].src = net[i + 1].src; net[i].seq = net[i + 1].seq;
					net[i].a = net[i + 1].a; net[i].b = net[i + 1].b;
					net[i + 1].t = tmp.t; net[i + 1].dst = tmp.dst; net[i + 1].src = tmp.src;
					net[i + 1].seq = tmp.seq; net[i + 1].a = tmp.a; net[i + 1].b = tmp.b
				:: else -> skip
				fi;
				i++
			:: else -> break
			od;
			j++
		:: else -> break
		od;
		k = 0; i = 0; j = 0; r = 0; s = 0; a = 0; b = 0; e = 0; f = 0; src = 0
	}
}

proctype network()
{
	SCRATCH;
end:	do
	:: atomic { loss < LOSS && (NONEMPTY) ->
		k = 0;
		do :: k < NSLOT - 1 -> k++ :: break od;
		if :: net[k].t != 0 -> printf("@q LOST kind %d to %d seq%d\n", net[k].t, net[k].dst, net[k].seq);
			net[k].t = 0; loss++
		:: else -> skip fi; norm() }
	:: atomic { dup < DUP && (NONEMPTY) ->
		k = 0;
		do :: k < NSLOT - 1 -> k++ :: break od;
		if :: net[k].t != 0 -> dup++;
			put(net[k].t, net[k].dst, net[k].src, net[k].seq, net[k].a, net[k].b)
		:: else -> skip fi; norm() }
	od
}

/* ---- the switch ---- */

/* SCOREBOARD of a request (count: the lock was taken); e = over, f = held */
inline sb_request(r, s, count)
{
	k = SBI(r, s);
	e = AFTER(sbs[k], s) || (sbs[k] == s && (sbc[k] & (ENDED | CLAIMED)));
	if
	:: sbs[k] == s && !(sbc[k] & (ENDED | CLAIMED)) && count -> sbc[k]++
	:: AFTER(s, sbs[k]) && count -> sbs[k] = s; sbc[k] = 1
	:: else -> skip
	fi;
	f = sbs[k] == s && !(sbc[k] & (ENDED | CLAIMED)) && sbc[k] > 0
}

/* an unlock's first-pass claim: f = score, e = it may execute */
inline sb_claim(r, s)
{
	k = SBI(r, s); f = 0; e = 0;
	if
	:: sbs[k] == s && (sbc[k] & CLAIMED) -> f = sbc[k] & 63; e = 1
	:: sbs[k] == s && !(sbc[k] & (ENDED | CLAIMED)) && sbc[k] > 0 ->
		f = sbc[k]; sbc[k] = CLAIMED | sbc[k]; e = 1
	:: AFTER(s, sbs[k]) -> sbs[k] = s; sbc[k] = ENDED
	:: else -> skip
	fi
}

inline sw_request(r, s, blk, rd)
{
	if
	:: !AFTER(s, lus[r]) ->
#ifndef OLDPOLL
		if
		:: blk && qhi == ID(r, s) && (qlo & SWITCHF) && !(qlo & CLOSING) ->
			if :: yr > 0 -> put(QWAIT, r, SW, s, 0, 0)
			:: else -> put(QGR, r, SW, s, 0, 0) fi
		:: else -> put(NACK, r, SW, s, 0, 0)
		fi
#else
		put(NACK, r, SW, s, 0, 0)
#endif
	:: !blk && AFTER(s, lus[r]) -> /* X: read lock, only node 0 uses X: always taken */
		xrd++; sb_request(r, s, 1);
		if :: e -> xrd--; put(NACK, r, SW, s, 0, 0)
		:: else -> put(GRANT, r, SW, s, 0, 0) fi
	:: blk && rd && AFTER(s, lus[r]) ->
		if
		:: !yw && !yq -> yr++; sb_request(r, s, 1);
			if :: e -> yr--; put(NACK, r, SW, s, 0, 1)
			:: else -> put(GRANT, r, SW, s, 0, 1) fi
		:: else -> put(NACK, r, SW, s, 0, 1)
		fi
	:: blk && !rd && AFTER(s, lus[r]) ->
		b = !yw && !yq && yr == 0;              /* taken */
#ifndef HOME
		j = !b && !yw && !yq && yr > 0;         /* waiter */
#else
		j = 0;                                  /* the home NACKs it */
#endif
		if :: b -> yw = 1 :: j -> yq = 1 :: else -> skip fi;
		sb_request(r, s, b);
		if
		:: b && !e -> qhi = ID(r, s); qlo = 0; put(GRANT, r, SW, s, 1, 0)
		:: j && e -> yq = 0; put(NACK, r, SW, s, 0, 0)      /* row 2 (undo at once) */
		:: j && !e -> qhi = ID(r, s); qlo = SWITCHF; put(QWAIT, r, SW, s, 0, 0)
		:: !b && !j && qhi == ID(r, s) && (qlo & SWITCHF) && !(qlo & CLOSING) ->
			if :: yr > 0 -> put(QWAIT, r, SW, s, 0, 0)
			:: else -> put(QGR, r, SW, s, 0, 0) fi
		:: !b && !j && !(qhi == ID(r, s) && (qlo & SWITCHF) && !(qlo & CLOSING)) &&
		   !f && !e && qhi != 0 && !(qlo & CLOSING) ->
			qlo++;
			put(FWD, IDR(qhi), r, s, qlo & 63, qhi)
		:: else ->
			if
			:: !b && !f -> put(NACK, r, SW, s, 0, 0)
			:: b && e -> yw = 0; put(NACK, r, SW, s, 0, 0)
			:: !b && f && e -> put(NACK, r, SW, s, 0, 0)
			:: !b && f && !e -> put(GRANT, r, SW, s, 1, 0) /* passes on its score */
			fi
		fi
	fi
}

inline sw_unlock2(r, s, blk, x)
{
	if
	:: (x & 1) && lus[r] == s && luo[r] ->
		luo[r] = 0;
		if :: !blk -> xrd = xrd - (x / 2) :: else -> yr = yr - (x / 2) fi;
		k = SBI(r, s);
		if :: sbs[k] == s -> sbc[k] = 0 :: else -> skip fi
	:: else -> skip
	fi;
	put(UACK, r, SW, s, blk, 0)
}

inline sw_unlock1(r, s, blk)
{
	j = 0; e = 0; f = 0;
	if
	:: AFTER(s, lus[r]) -> lus[r] = s; luo[r] = 1; j = 1
	:: s == lus[r] && luo[r] -> j = 1
	:: else -> skip
	fi;
	if
	:: j -> sb_claim(r, s)
	:: else -> skip
	fi;
#ifndef HOME
	rs!UNL, r, s, blk, f * 2 + e
#else
	/* one step; a stale unlock is ignored (na_home.c unlock()) */
	if
	:: j || s == lus[r] -> i = f * 2 + e; sw_unlock2(r, s, blk, i)
	:: else -> printf("@q home: unlock r%d seq%d stale, ignored\n", r, s)
	fi
#endif
}

/* QXFER / QRELEASE's effect on the event: ends it for its later copies */
inline q_end_event(r, s, opn)
{
#ifdef OLDLUW
	if
	:: AFTER(s, lus[r]) -> lus[r] = s; luo[r] = opn
	:: s == lus[r] && !opn -> luo[r] = 0
	:: else -> skip
	fi
#else
	/* SCOREBOARD: the event ends (lcf_stage_sb_qend): a count is claimed,
	 * COUNT 0 or a later seq is ENDED; every later copy is over */
	k = SBI(r, s);
	if
	:: sbs[k] == s && !(sbc[k] & (ENDED | CLAIMED)) && sbc[k] > 0 -> sbc[k] = CLAIMED | sbc[k]
	:: (sbs[k] == s && sbc[k] == 0) || AFTER(s, sbs[k]) -> sbs[k] = s; sbc[k] = ENDED
	:: else -> skip
	fi
#endif
}

inline sw_qxfer(r, s, c, nx)
{
	q_end_event(r, s, 0);
	if
	:: qhi != ID(r, s) -> put(QACK, r, SW, s, R_NOTHOLDER, 0)
	:: qhi == ID(r, s) && (qlo & SWITCHF) && yr > 0 -> put(QACK, r, SW, s, R_WAITING, 0)
	:: qhi == ID(r, s) && !((qlo & SWITCHF) && yr > 0) && (qlo & CLOSING) ->
		put(QACK, r, SW, s, R_CLOSING, 0)
	:: qhi == ID(r, s) && !((qlo & SWITCHF) && yr > 0) && !(qlo & CLOSING) && (qlo & 63) != c ->
		put(QACK, r, SW, s, R_COUNT, qlo & 63)
	:: qhi == ID(r, s) && !((qlo & SWITCHF) && yr > 0) && !(qlo & CLOSING) && (qlo & 63) == c ->
		printf("@q switch: QXFER r%d seq%d -> %d approved\n", r, s, nx);
		qhi = nx; qlo = 0; put(QACK, r, SW, s, R_OK, 0)
	fi
}

inline sw_qrel2(r, s)
{
#ifdef OLDLU
	if
	:: lus[r] == s && luo[r] ->
		luo[r] = 0; yw = 0; yq = 0;
		k = SBI(r, s);
		if :: sbs[k] == s -> sbc[k] = 0 :: else -> skip fi;
		printf("@q switch: QRELEASE r%d seq%d executed\n", r, s)
	:: else -> printf("@q switch: QRELEASE r%d seq%d duplicate ignored\n", r, s)
	fi;
	if :: qhi == ID(r, s) && (qlo & CLOSING) -> qhi = 0; qlo = 0 :: else -> skip fi;
	put(QACK, r, SW, s, R_OK, 0)
#else
	/* the lock stage sees only the gate; QSTATE comes after it */
	if
	:: qls[r] == s && qlopen[r] ->
		qlopen[r] = 0; yw = 0; yq = 0;
		assert(qhi == ID(r, s) && (qlo & CLOSING));
		qhi = 0; qlo = 0;
		k = SBI(r, s);
		if :: sbs[k] == s -> sbc[k] = ENDED :: else -> skip fi;
		printf("@q switch: QRELEASE r%d seq%d executed\n", r, s);
		put(QACK, r, SW, s, R_OK, 0)
	:: !(qls[r] == s && qlopen[r]) && qhi == ID(r, s) && (qlo & CLOSING) ->
		/* another QRELEASE of the requester moved the gate on: again */
		put(QACK, r, SW, s, R_CLOSING, 0)
	:: !(qls[r] == s && qlopen[r]) && !(qhi == ID(r, s) && (qlo & CLOSING)) ->
		printf("@q switch: QRELEASE r%d seq%d duplicate ignored\n", r, s);
		put(QACK, r, SW, s, R_OK, 0)
	fi
#endif
}

inline sw_qrel1(r, s, c)
{
	q_end_event(r, s, 1);
#ifndef OLDLU
	/* QRELEASE's own gate, before the lock stage: a copy of another
	 * QRELEASE moves it on, a copy of this one keeps it open */
	if :: !(qls[r] == s && qlopen[r]) -> qls[r] = s; qlopen[r] = 1 :: else -> skip fi;
#endif
	if
	:: qhi != ID(r, s) -> put(QACK, r, SW, s, R_NOTHOLDER, 0)
	:: qhi == ID(r, s) && !(qlo & CLOSING) && (qlo & SWITCHF) && yr > 0 ->
		put(QACK, r, SW, s, R_WAITING, 0)
	:: qhi == ID(r, s) && !(qlo & CLOSING) && !((qlo & SWITCHF) && yr > 0) && (qlo & 63) != c ->
		put(QACK, r, SW, s, R_COUNT, qlo & 63)
	:: qhi == ID(r, s) && ((qlo & CLOSING) || (!((qlo & SWITCHF) && yr > 0) && (qlo & 63) == c)) ->
		qlo = CLOSING;
#ifndef HOME
		rs!QREL, r, s, 1, 0
#else
		sw_qrel2(r, s) /* the second step at once */
#endif
	fi
}

proctype sw()
{
	SCRATCH;
end:	do
	:: atomic { HAS(SW) ->
		k = 0;
		do :: k < NSLOT - 1 -> k++ :: break od;
		if
		:: net[k].t != 0 && net[k].dst == SW ->
			r = net[k].src; s = net[k].seq; a = net[k].a; b = net[k].b; e = net[k].t;
			net[k].t = 0;
			printf("@q switch receives kind %d r%d seq%d a %d b %d\n", e, r, s, a, b);
			if
			:: e == REQ -> sw_request(r, s, a, b)
			:: e == UNL -> sw_unlock1(r, s, a)
#ifndef OLDHOME
			:: e == QXFER -> sw_qxfer(r, s, a, b)
			:: e == QREL -> sw_qrel1(r, s, a)
#else
			/* the home's earlier rule: LAST-EXECUTED of unlocks first */
			:: (e == QXFER || e == QREL) && s == lus[r] ->
				put(QACK, r, SW, s, R_OK, 0)   /* approved again */
			:: (e == QXFER || e == QREL) && AFTER(lus[r], s) ->
				printf("@q home: QXFER/QRELEASE r%d seq%d stale, ignored\n", r, s)
			:: (e == QXFER || e == QREL) && AFTER(s, lus[r]) ->
				j = qhi == ID(r, s);
				if :: e == QXFER -> sw_qxfer(r, s, a, b) :: else -> sw_qrel1(r, s, a) fi;
				if :: j && qhi != ID(r, s) -> lus[r] = s; luo[r] = 0 :: else -> skip fi
#endif
			fi
		:: else -> skip
		fi; norm() }
	:: atomic { rs?e, r, s, b, a ->
		if :: e == UNL -> sw_unlock2(r, s, b, a) :: else -> sw_qrel2(r, s) fi; norm() }
	od
}

#include "qorder_node.pml"
