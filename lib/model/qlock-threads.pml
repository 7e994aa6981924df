/*
 * (One file over 500 lines, as lcf.pml and qlock.pml: a Promela model is
 * one set of processes over shared globals, and the switch's and the
 * nodes' rules interleave in every step.)
 *
 * SPIN model of queued locks with several requester threads per node
 * (docs/QUEUED-LOCKS.md 5 "In the node agent", 9; docs/MODEL.md "Queued
 * locks, several threads per node"). The switch's rules are qlock.pml's;
 * what is new is the node agent as the C builds it:
 *
 *   - requesters p = 0..P-1, node 0 has NT of them (threads), every other
 *     node one; a queue holder per (block, requester thread) (na_qtable);
 *   - one event per block and node (the cache entry's busy claim), a node
 *     that ended an event keeps the block Modified until another node's
 *     event is granted, and its threads then hit it without an event;
 *   - a NACK ends the event (na_access.c miss) and the thread backs off,
 *     keeping the node's busy claim on the block (RELBUSY: releasing it,
 *     as the C did); it then retries with the same seq (a Q_GRANT kept
 *     meanwhile answers it at once), or finds a hit and gives the seq up
 *     (na_req_give_up: na_node_q_abandon, then the given-up event is ended
 *     at once by na_req_quarantine: ABORT; "a copy passed" -> the unlock,
 *     through the queue when the slot holds or counted forwards,
 *     na_qtable_done; LATEQ: only at the thread's next miss, as the C did);
 *   - NACKX: NACKs of any request copy for causes outside the model (the
 *     home's "not home" while the block moves to the switch, migration);
 *   - rule 1: a forward of another thread of the holder's own node to a
 *     tenure still WAITING is counted and NACKed (local_wait_forward);
 *   - rule 2: a Q_GRANT for an event cancelled on the slot (given up; the
 *     slot remembers them, s->gone) is taken and passed on at once
 *     (pass_on), whatever the slot serves meanwhile (the thread's next
 *     event may wait there): by a passing slot of its own (PH, one per
 *     given-up seq), which holds the given-up tenure until its
 *     QXFER/QRELEASE is approved and its Q_GRANT acknowledged, and buffers
 *     the forwards for that tenure that arrive before the Q_GRANT; a
 *     settling unlock of the given-up event (rule 3) ends the record;
 *   - rule 3: a given-up event whose copy took the lock ends through the
 *     queue (QXFER / QRELEASE) or, slot cancelled, with a plain unlock; a
 *     given-up event whose slot is kept for the forwards that came for its
 *     tenure (kept) passes its Q_GRANT on at once in place (pass_on);
 *   - a forward for a tenure the slot does not hold: from the holder's own
 *     node, ignored; a duplicate of one it queued or handed over, ignored;
 *     else Q_NACK (the requester re-sends at once, same seq).
 * Rule 4 (data with Q_INV) is below the abstraction (the grant is the
 * lock). Q_QUEUED is instantaneous unless QQMSG (a flag at the requester:
 * a NACK of another copy while queued is ignored); the ABORT is one atomic
 * round trip.
 *
 * QQMSG: Q_QUEUED is a message (may be delayed, duplicated, lost).
 * TYPECHG: a thread backing off after a NACK may also retry as another
 * request (na_req_event: its type changed), giving the seq up for a new one.
 *
 * Bounds: N nodes, NT threads on node 0, OPS accesses per thread of node 0
 * (each a hit or a write event), OPS1 per thread of the other nodes, RETX,
 * LOSS, DUP as in qlock.pml; DUPK: only messages of this kind are
 * duplicated (REQ = 1: a late copy of a request).
 * Properties: SWMR, ONCE (no event granted twice), FIFO of hand-overs,
 * QUIET: at quiescence every thread finished its OPS (or, idle, used up
 * the model's MAXSEQ seqs), the lock is free and no holder slot is busy.
 */

#ifndef N
#define N 2
#endif
#ifndef NT
#define NT 2
#endif
#ifndef OPS
#define OPS 2
#endif
#ifndef OPS1
#define OPS1 OPS                  /* accesses of the other nodes' threads */
#endif
#define MYOPS(p) ((p) < NT -> OPS : OPS1)
#ifndef RETX
#define RETX 1
#endif
#ifndef LOSS
#define LOSS 0
#endif
#ifndef DUP
#define DUP 0
#endif
#ifndef NACKX
#define NACKX 0                   /* NACKs of any request copy (other causes) */
#endif
#ifndef DUPK
#define DUPK 0                    /* duplicate only this kind (0: any) */
#endif
#define P (NT + N - 1)            /* requester threads */
#define NODE(p) ((p) < NT -> 0 : (p) - NT + 1)
#define SW 15                     /* the switch's address */
#define MAXSEQ 3
#define NSLOT 6 /* the scans below are unrolled for 6 slots */
#define CLOSING 128
#define ID(n, s) ((n) * 4 + (s))   /* tenure / holder id, seq 1..3: never 0 */
#define IDN(i) ((i) / 4)
#define IDS(i) ((i) % 4)

#define REQ 1     /* thread -> switch: write request (src, seq) */
#define GRANTED 2 /* switch -> thread (seq) */
#define NACK 3    /* switch, or rule 1 -> thread (seq) */
#define FWD 4     /* switch -> holder slot: src, seq = the request; a = index; b = tenure */
#define QXFER 5   /* slot -> switch: src, seq; a = count; b = next id */
#define QREL 6    /* slot -> switch: src, seq; a = count */
#define QACK 7    /* switch -> slot: seq; a = reason; b = FWD_CNT */
#define QGRANT 8  /* giver -> next: src = giver, seq = next's seq; q = rest */
#define QGACK 9   /* next -> giver: seq = next's seq, src = next */
#define QNACK 10  /* a slot not holding the tenure -> requester (seq) */
#define QQUEUED 11 /* holder slot -> requester (seq): queued, stop retrying */

#define R_OK 0
#define R_COUNT 1
#define R_NOTHOLDER 2
#define R_CLOSING 3

typedef msg_t {
	byte t;   /* 0 = free slot */
	byte dst;
	byte src;
	byte seq;
	byte a;
	byte b;
	byte q;
};

msg_t net[NSLOT];
hidden msg_t tmp;
/* Scratch of the atomic steps: each process's own locals (SCRATCH), zeroed
 * at the end of every step by norm() so that they never tell states apart. */
#define SCRATCH byte k, i, j, f, e, g, src, s, a, b, q, r, c, x, y
byte loss = 0, dup = 0, badrs = 0;


/* switch registers */
bit lockw = 0;
byte qhi = 0;
byte qlo = 0;
byte sb[P];
byte nackx = 0;
/* SCOREBOARD, one row per thread and seq parity (lcf_sb): ROW the row's
 * seq (an ABORT, or a copy that took the lock, moves it on), AB a seq the
 * row marks ENDED by an ABORT. A copy is over when its row is ENDED for its
 * seq or has moved past it (sb_over): NACKed. */
byte ab[2 * P];
byte row[2 * P];
#define AB(r, s) ab[2 * (r) + ((s) & 1)]
#define ROW(r, s) row[2 * (r) + ((s) & 1)]
byte lu_seq[P];
bit lu_open[P];
chan rs = [2] of { byte, byte };
byte stamp = 0;

/* node: one event per block and node, Modified copy */
byte busy[N];         /* thread holding the cache entry busy, 255 none */
bit mod[N];           /* the node holds the block Modified: its threads hit */

/* requester threads */
#define T_IDLE 0
#define T_WAIT 1      /* its event's request is out */
#define T_CS 2        /* granted: in the critical section */
#define T_BACK 3      /* NACKed: backing off (busy released), seq kept */
#define T_REG 4       /* new seq, its slot not idle yet (na_reqq_begin EBUSY) */
#define T_DONE 5
byte rst[P];
byte rseq[P];         /* the event's seq */
byte nseq[P];         /* last seq taken */
byte stale[P];        /* NACKed seq not retried (t->stale), 0 none */
byte ops[P];
bit qd[P];            /* Q_QUEUED received for the current request */
byte gq[P];           /* seq of a Q_GRANT delivered, not yet taken (t->qgrant) */
byte retx[P];

/* holder slots, one per (block, thread): h = the thread; h = PH(thread, s):
 * the passing slot of the thread's given-up seq s (rule 2) */
#define NH (P + P * MAXSEQ)
#define PH(n, s) (P + (n) * MAXSEQ + (s) - 1)
#define TH(h) (((h) < P) * (h) + ((h) >= P) * (((h) - P) / MAXSEQ))
#define IDLE 0
#define WAIT 1
#define HOLD 2
#define ENDING 3
#define GIVING 4
byte st[NH];
byte cur[NH];      /* the slot's seq */
byte gone[P];         /* seqs cancelled (s->gone), a bit per seq */
bit kept[P];          /* its WAIT seq was given up, kept for its forwards */
byte qid[NH * 5];
byte qix[NH * 5];
byte qlen[NH];
byte recv[NH];
byte cnt[NH];
byte fcnt[NH];
byte next[NH];
byte rest[NH];
int seen[P];          /* the thread's slot: ids queued or handed over */

/* ghosts */
byte granted[P * 4];
byte fstamp[P * 4];
byte lastq = 0;
byte inside = 255;
/* unrolled scans of the bag (usable in guards) */
#define SL(i, T, D, S, Q) (net[i].t == T && net[i].dst == D && net[i].src == S && net[i].seq == Q)
#define ANY(T, D, S, Q) (SL(0, T, D, S, Q) || SL(1, T, D, S, Q) || SL(2, T, D, S, Q) || \
			 SL(3, T, D, S, Q) || SL(4, T, D, S, Q) || SL(5, T, D, S, Q))
#define FL(i, T) (net[i].t == FWD && net[i].b == T)
#define ANYFWD(T) (FL(0, T) || FL(1, T) || FL(2, T) || FL(3, T) || FL(4, T) || FL(5, T))
#define TO(i, D) (net[i].t != 0 && net[i].dst == D)
#define HAS(D) (TO(0, D) || TO(1, D) || TO(2, D) || TO(3, D) || TO(4, D) || TO(5, D))
#define NONEMPTY (net[0].t || net[1].t || net[2].t || net[3].t || net[4].t || net[5].t)

#define QE(n, i) qid[(n) * 5 + (i)]
#define QS(n, i) qix[(n) * 5 + (i)]

inline put(T, D, S, Q, A, B, QQ)
{
	i = 0;
	do
	:: i < NSLOT && net[i].t != 0 -> i++
	:: i < NSLOT && net[i].t == 0 ->
		net[i].t = T; net[i].dst = D; net[i].src = S; net[i].seq = Q;
		net[i].a = A; net[i].b = B; net[i].q = QQ; break
	:: i == NSLOT -> printf("@q BAG FULL\n"); assert(false)
	od
}

/* Keep the bag sorted (empty slots last) so that one multiset of messages
 * in flight is one state. */
#define KEY(m) (m.t * 1048576 + m.dst * 65536 + m.src * 4096 + m.seq * 1024 + m.a * 32 + m.b)
#define GT(u, v) (net[v].t != 0 && (net[u].t == 0 || KEY(net[u]) > KEY(net[v]) || \
		  (KEY(net[u]) == KEY(net[v]) && net[u].q > net[v].q)))
inline norm()
{
	d_step {
		y = 0;
		do
		:: y < NSLOT - 1 ->
			i = 0;
			do
			:: i < NSLOT - 1 - y ->
				if
				:: GT(i, i + 1) ->
					tmp.t = net[i].t; tmp.dst = net[i].dst; tmp.src = net[i].src;
					tmp.seq = net[i].seq; tmp.a = net[i].a; tmp.b = net[i].b; tmp.q = net[i].q;
					net[i].t = net[i + 1].t; net[i].dst = net[i + 1].dst; net[i].src = net[i + 1].src;
					net[i].seq = net[i + 1].seq; net[i].a = net[i + 1].a; net[i].b = net[i + 1].b;
					net[i].q = net[i + 1].q;
					net[i + 1].t = tmp.t; net[i + 1].dst = tmp.dst; net[i + 1].src = tmp.src;
					net[i + 1].seq = tmp.seq; net[i + 1].a = tmp.a; net[i + 1].b = tmp.b;
					net[i + 1].q = tmp.q
				:: else -> skip
				fi;
				i++
			:: else -> break
			od;
			y++
		:: else -> break
		od;
		k = 0; i = 0; j = 0; f = 0; e = 0; g = 0; src = 0; s = 0; a = 0; b = 0; q = 0;
		r = 0; c = 0; x = 0; y = 0
	}
}

inline popcount(x, c)
{
	c = 0; j = x;
	do
	:: j != 0 -> c = c + (j & 1); j = j >> 1
	:: else -> break
	od
}

proctype network()
{
	SCRATCH;
end:	do
	:: atomic { loss < LOSS && NONEMPTY ->
		k = 0;
		do
		:: k < NSLOT - 1 -> k++
		:: break
		od;
		if
		:: net[k].t != 0 -> printf("@q network LOSES kind %d to %d (src %d seq %d a %d b %d)\n",
				net[k].t, net[k].dst, net[k].src, net[k].seq, net[k].a, net[k].b);
			net[k].t = 0; loss++
		:: else -> skip
		fi; norm() }
	:: atomic { dup < DUP && NONEMPTY ->
		k = 0;
		do
		:: k < NSLOT - 1 -> k++
		:: break
		od;
		if
		:: net[k].t != 0 && (DUPK == 0 || net[k].t == DUPK) ->
			i = 0;
			do
			:: i < NSLOT && net[i].t != 0 -> i++
			:: i < NSLOT && net[i].t == 0 ->
				net[i].t = net[k].t; net[i].dst = net[k].dst; net[i].src = net[k].src;
				net[i].seq = net[k].seq; net[i].a = net[k].a; net[i].b = net[k].b;
				net[i].q = net[k].q; dup++;
				printf("@q network DUPLICATES kind %d to %d\n", net[k].t, net[k].dst);
				break
			:: i == NSLOT -> break
			od
		:: else -> skip
		fi; norm() }
	od
}


/* ---- the switch (qlock.pml's rules) ---- */

inline sw_request(r, s)
{
	if
	:: !(s > lu_seq[r]) || s == AB(r, s) || s < ROW(r, s) ->
		printf("@q switch: NACK stale r%d seq%d\n", r, s);
		put(NACK, r, SW, s, 0, 0, 0)
	:: else ->
		if
		:: !lockw ->
			/* a plain unlock (rule 3, slot cancelled) leaves QSTATE:
			 * the grant overwrites it (lcf_q_request) */
			lockw = 1; sb[r] = s; ROW(r, s) = s;
			qhi = ID(r, s); qlo = 0;
			printf("@q switch: r%d seq%d takes the lock, holder\n", r, s);
			put(GRANTED, r, SW, s, 0, 0, 0)
		:: lockw && sb[r] == s ->
			printf("@q switch: r%d seq%d passes on its score\n", r, s);
			put(GRANTED, r, SW, s, 0, 0, 0)
		:: lockw && sb[r] != s && qhi != 0 && !(qlo & CLOSING) ->
			qlo++; stamp++;
			printf("@q switch: FORWARDS r%d seq%d to holder r%d (tenure %d, index %d)\n",
				r, s, IDN(qhi), qhi, qlo);
			put(FWD, IDN(qhi), r, s, qlo, qhi, stamp)
		:: else ->
			printf("@q switch: NACK busy r%d seq%d\n", r, s);
			put(NACK, r, SW, s, 0, 0, 0)
		fi
	fi
}

inline sw_qxfer(r, s, c, nx)
{
	if
	:: s > lu_seq[r] -> lu_seq[r] = s; lu_open[r] = 0
	:: s == lu_seq[r] -> lu_open[r] = 0
	:: else -> skip
	fi;
	if
	:: qhi != ID(r, s) -> put(QACK, r, SW, s, R_NOTHOLDER, qlo, 0)
	:: qhi == ID(r, s) && (qlo & CLOSING) -> put(QACK, r, SW, s, R_CLOSING, qlo, 0)
	:: qhi == ID(r, s) && qlo == c ->
		printf("@q switch: QXFER r%d seq%d -> %d approved\n", r, s, nx);
		qhi = nx; qlo = 0;
		put(QACK, r, SW, s, R_OK, 0, 0)
	:: qhi == ID(r, s) && !(qlo & CLOSING) && qlo != c ->
		printf("@q switch: QXFER r%d seq%d count %d != %d denied\n", r, s, c, qlo);
		put(QACK, r, SW, s, R_COUNT, qlo, 0)
	fi
}

inline sw_qrel1(r, s, c)
{
	if
	:: s > lu_seq[r] -> lu_seq[r] = s; lu_open[r] = 1
	:: else -> skip
	fi;
	if
	:: qhi != ID(r, s) -> put(QACK, r, SW, s, R_NOTHOLDER, qlo, 0)
	:: qhi == ID(r, s) && (qlo == c || (qlo & CLOSING)) ->
		printf("@q switch: QRELEASE r%d seq%d approved (pass 1)\n", r, s);
		qlo = CLOSING;
		rs!r, s
	:: qhi == ID(r, s) && qlo != c && !(qlo & CLOSING) ->
		printf("@q switch: QRELEASE r%d seq%d count %d != %d denied\n", r, s, c, qlo);
		put(QACK, r, SW, s, R_COUNT, qlo, 0)
	fi
}

/* The lock is released (QRELEASE's second pass, a plain unlock). */
inline sw_free(r, s)
{
	lockw = 0;
	stamp = 0; lastq = 0;
	if
	:: sb[r] == s -> sb[r] = 0
	:: else -> skip
	fi
}

inline sw_qrel2(r, s)
{
	if
	:: lu_seq[r] == s && lu_open[r] ->
		lu_open[r] = 0;
		printf("@q switch: QRELEASE r%d seq%d releases the lock (pass 2)\n", r, s);
		sw_free(r, s)
	:: else -> skip
	fi;
	if
	:: qhi == ID(r, s) && (qlo & CLOSING) -> qhi = 0; qlo = 0
	:: else -> skip
	fi;
	put(QACK, r, SW, s, R_OK, 0, 0)
}

proctype sw()
{
	SCRATCH;
end:	do
	:: atomic { HAS(SW) ->
		k = 0;
		do
		:: k < NSLOT - 1 -> k++
		:: break
		od;
		if
		:: net[k].t != 0 && net[k].dst == SW ->
			r = net[k].src; s = net[k].seq; c = net[k].a; x = net[k].b;
			if
			:: net[k].t == REQ && nackx < NACKX ->
				/* a NACK from elsewhere: the home's "not home" while the
				 * block moves to the switch, a migration window */
				net[k].t = 0; nackx++;
				printf("@q switch: NACK (other cause) r%d seq%d\n", r, s);
				put(NACK, r, SW, s, 0, 0, 0)
			:: net[k].t == REQ -> net[k].t = 0; sw_request(r, s)
			:: net[k].t == QXFER -> net[k].t = 0; sw_qxfer(r, s, c, x)
			:: net[k].t == QREL -> net[k].t = 0; sw_qrel1(r, s, c)
			:: else -> printf("@q switch: kind %d?\n", net[k].t); assert(false)
			fi
		:: else -> skip
		fi; norm() }
	:: atomic { rs?r, s -> sw_qrel2(r, s); norm() }
	od
}

/* ---- holder slots (na_qholder.c, na_qtable.c) ---- */

inline enqueue(n, e, g)
{
	if
	:: qlen[n] < 3 ->
		j = qlen[n];
		do
		:: j > 0 && QS(n, j - 1) > g -> QE(n, j) = QE(n, j - 1); QS(n, j) = QS(n, j - 1); j--
		:: else -> break
		od;
		QE(n, j) = e; QS(n, j) = g; qlen[n]++
	:: else -> assert(false)
	fi
}

inline in_queue(n, e, f)
{
	f = 0; j = 0;
	do
	:: j < qlen[n] -> f = f || QE(n, j) == e; j++
	:: else -> break
	od
}

/* Rule 1 (local_wait_forward): a forward of another thread of this node
 * to a tenure still WAITING is counted and NACKed. */
#define RULE1(n) (st[n] == WAIT)

/* The node's busy claim on the block after a NACK: kept until the event
 * is retried or given up (na_access.c miss, queued mode), so that no other
 * thread of the node can queue behind a grant this thread is about to
 * take; RELBUSY: released for the backoff (the C before this model: two
 * threads of one node deadlock, the na-sim seed 129 stall). */
#ifndef RELBUSY
#define RELEASE_ON_NACK(n) skip
#define FREE(n) (busy[NODE(n)] == 255 || busy[NODE(n)] == n)
#else
#define RELEASE_ON_NACK(n) busy[NODE(n)] = 255
#define FREE(n) (busy[NODE(n)] == 255)
#endif

#ifdef QQMSG
#define QUEUED_TO(r, s) put(QQUEUED, r, me, s, 0, 0, 0)
#else
/* Q_QUEUED as an instantaneous flag */
#define QUEUED_TO(r, s) if :: rst[r] == T_WAIT && rseq[r] == s -> qd[r] = 1 :: else -> skip fi
#endif

inline idle(n)
{
	st[n] = IDLE;
	j = 0;
	do
	:: j < 5 -> QE(n, j) = 0; QS(n, j) = 0; j++
	:: else -> break
	od;
	qlen[n] = 0; recv[n] = 0; cnt[n] = 0; fcnt[n] = 0; next[n] = 0; rest[n] = 0
}

/* send_end: QRELEASE (queue empty) or QXFER to the head, with the count */
inline holder_end(n)
{
	popcount(recv[n], cnt[n]);
	if
	:: qlen[n] == 0 -> next[n] = 0;
		printf("@q slot %d: QRELEASE seq%d count %d\n", n, cur[n], cnt[n]);
		put(QREL, SW, TH(n), cur[n], cnt[n], 0, 0)
	:: else -> next[n] = QE(n, 0);
		rest[n] = 0;
		if :: qlen[n] > 1 -> rest[n] = QE(n, 1) :: else -> skip fi;
		if :: qlen[n] > 2 -> rest[n] = rest[n] | (QE(n, 2) << 4) :: else -> skip fi;
		printf("@q slot %d: QXFER seq%d count %d next %d\n", n, cur[n], cnt[n], next[n]);
		put(QXFER, SW, TH(n), cur[n], cnt[n], next[n], 0)
	fi;
	st[n] = ENDING
}

/* na_qtable_abandon: the thread gives seq s up */
inline abandon(n, s)
{
	if
	:: cur[n] == s && st[n] == WAIT && recv[n] == 0 ->
		printf("@q slot r%d: seq%d cancelled (given up)\n", n, s);
		idle(n); gone[n] = gone[n] | (1 << s)
	:: cur[n] == s && st[n] == HOLD ->
		printf("@q slot r%d: seq%d given up while holding: ends it\n", n, s);
		holder_end(n)
	:: cur[n] == s && st[n] == WAIT && recv[n] != 0 ->
		/* kept for the forwards that came for it (its tenure) */
		kept[n] = 1
	:: else -> skip
	fi;
	if :: gq[n] == s -> gq[n] = 0 :: else -> skip fi
}

/* Import the granted queue q before the buffered forwards (qlock.pml). */
inline take_queue(me, q)
{
	j = 0;
	if :: (q & 15) != 0 -> j++ :: else -> skip fi;
	if :: (q >> 4) != 0 -> j++ :: else -> skip fi;
	f = qlen[me];
	do
	:: f > 0 -> f--; QE(me, f + j) = QE(me, f); QS(me, f + j) = QS(me, f)
	:: else -> break
	od;
	if :: j > 0 -> QE(me, 0) = q & 15; QS(me, 0) = 0 :: else -> skip fi;
	if :: j > 1 -> QE(me, 1) = q >> 4; QS(me, 1) = 0 :: else -> skip fi;
	qlen[me] = qlen[me] + j;
	f = j;
	i = j;
	do
	:: i < qlen[me] ->
		if
		:: QE(me, i) != (q & 15) && QE(me, i) != (q >> 4) ->
			QE(me, f) = QE(me, i); QS(me, f) = QS(me, i); f++
		:: else -> skip
		fi;
		i++
	:: else -> break
	od;
	i = f;
	do
	:: i < qlen[me] -> QE(me, i) = 0; QS(me, i) = 0; i++
	:: else -> break
	od;
	qlen[me] = f;
	if
	:: me < P ->
		if :: (q & 15) != 0 -> seen[me] = seen[me] | (1 << (q & 15)) :: else -> skip fi;
		if :: (q >> 4) != 0 -> seen[me] = seen[me] | (1 << (q >> 4)) :: else -> skip fi
	:: else -> skip /* a passing slot is freed when idle: no record */
	fi
}

/* The slots' timers: QXFER/QRELEASE nobody answered (re-reading the head),
 * Q_GRANT nobody acknowledged. */
#define ENDING_DUE(h) (st[h] == ENDING && !ANY(QXFER, SW, TH(h), cur[h]) && \
		       !ANY(QREL, SW, TH(h), cur[h]) && !ANY(QACK, TH(h), SW, cur[h]) && \
		       len(rs) == 0 && !ANYFWD(ID(TH(h), cur[h])))
#define GIVING_DUE(h) (st[h] == GIVING && !ANY(QGRANT, IDN(next[h]), TH(h), IDS(next[h])) && \
		       !ANY(QGACK, TH(h), IDN(next[h]), IDS(next[h])))

inline end_again(h)
{
	popcount(recv[h], cnt[h]);
	if
	:: fcnt[h] > cnt[h] -> cnt[h] = fcnt[h]
	:: else -> skip
	fi;
	if
	:: next[h] == 0 && qlen[h] == 0 -> put(QREL, SW, TH(h), cur[h], cnt[h], 0, 0)
	:: else ->
		next[h] = QE(h, 0); rest[h] = 0;
		if :: qlen[h] > 1 -> rest[h] = QE(h, 1) :: else -> skip fi;
		if :: qlen[h] > 2 -> rest[h] = rest[h] | (QE(h, 2) << 4) :: else -> skip fi;
		put(QXFER, SW, TH(h), cur[h], cnt[h], next[h], 0)
	fi
}

inline grant_again(h)
{
	put(QGRANT, IDN(next[h]), TH(h), IDS(next[h]), 0, 0, rest[h])
}

/* A forward for tenure b goes to thread n's passing slot: the tenure it
 * passes on, or (idle) the tenure of the seq given up last on the thread's
 * slot, which does not hold it: a Q_GRANT for it is coming. */
#define PASSES(n, b) ((st[PH(n, IDS(b))] != IDLE && st[PH(n, IDS(b))] != GIVING) || \
		      (st[PH(n, IDS(b))] == IDLE && (gone[n] & (1 << IDS(b))) && \
		       !(st[n] != IDLE && (b) == ID(n, cur[n]))))

/* Q_GRANT_ACK from (src, s) for the Q_GRANT thread n's passing slot of
 * seq k gives */
#define GAVE(n, k, src, s) (st[PH(n, k)] == GIVING && ID(src, s) == next[PH(n, k)])

/* QXFER_ACK for slot h's ENDING event */
inline qack(h, a, b)
{
	if
	:: a == R_OK || a == R_NOTHOLDER ->
		if
		:: next[h] == 0 -> idle(h)
		:: else -> st[h] = GIVING;
			printf("@q slot %d: Q_GRANT to %d (rest %d)\n", h, next[h], rest[h]);
			put(QGRANT, IDN(next[h]), TH(h), IDS(next[h]), 0, 0, rest[h])
		fi
	:: a == R_COUNT -> fcnt[h] = b
	:: else -> assert(false)
	fi
}

/* ---- requester threads ---- */

/* The granted event's Q_INVs: other nodes' copies are gone. */
inline invalidate(n)
{
	j = 0;
	do
	:: j < N -> if :: j != NODE(n) -> mod[j] = 0 :: else -> skip fi; j++
	:: else -> break
	od
}

inline enter(n)
{
	printf("@q r%d: seq%d GRANTED, critical section\n", n, rseq[n]);
	assert(inside == 255);  /* SWMR */
	inside = n;
	rst[n] = T_CS;
	invalidate(n); mod[NODE(n)] = 1
}

inline once(n, s)
{
	assert(granted[ID(n, s)] == 0); /* ONCE */
	granted[ID(n, s)]++
}

/* na_req_quarantine: end a given-up (NACKed, not retried) event. The
 * ABORT (one atomic round trip): a copy that holds the counted lock
 * "passed": the event ends, through the queue when its slot holds or
 * counted forwards (na_qtable_done), else with a plain unlock; otherwise
 * the event is marked over (later copies NACKed). */
inline quarantine(n)
{
	if
	:: stale[n] != 0 ->
		s = stale[n]; stale[n] = 0;
		abandon(n, s);
		if
		:: lockw && sb[n] == s && s > lu_seq[n] ->
			printf("@q r%d: ABORT seq%d: a copy passed\n", n, s);
			once(n, s); invalidate(n);
			if
			:: cur[n] == s && st[n] == WAIT && recv[n] != 0 ->
				kept[n] = 0; st[n] = HOLD; holder_end(n) /* na_qtable_done */
			:: cur[n] == s && (st[n] == ENDING || st[n] == GIVING) -> skip
			:: st[PH(n, s)] == WAIT ->
				/* forwards came to its passing slot: it holds */
				gone[n] = gone[n] & ~(1 << s); st[PH(n, s)] = HOLD; holder_end(PH(n, s))
			:: !(cur[n] == s && st[n] != IDLE) && st[PH(n, s)] != WAIT ->
				gone[n] = gone[n] & ~(1 << s);
				printf("@q r%d: plain unlock seq%d\n", n, s);
				lu_seq[n] = s; lu_open[n] = 0;
				sw_free(n, s)
			fi
		:: else ->
			printf("@q r%d: ABORT seq%d: aborted\n", n, s);
			/* SCOREBOARD: the event ENDED (lcf_stage_sb_abort) */
			AB(n, s) = s;
			if :: s > ROW(n, s) -> ROW(n, s) = s :: else -> skip fi
		fi
	:: else -> skip
	fi
}

proctype thread(byte me)
{
	SCRATCH;
end:	do
	/* a hit: the node holds the block Modified, no event; a NACKed seq
	 * is given up (na_access.c, na_node_q_abandon) */
	:: atomic { (rst[me] == T_IDLE || rst[me] == T_BACK) && ops[me] < MYOPS(me) &&
		    mod[NODE(me)] && FREE(me) ->
		ops[me]++; busy[NODE(me)] = 255;
		printf("@q r%d: hit (op %d)\n", me, ops[me]);
		if
		:: rst[me] == T_BACK -> abandon(me, stale[me]); rst[me] = T_IDLE;
#ifndef LATEQ
			/* the given-up event ends now, not at the next miss */
			quarantine(me)
#else
			skip /* as the C: at the thread's next miss */
#endif
		:: else -> skip
		fi; norm() }
	/* a miss after a NACK: the same seq again (na_req_event reuses it) */
	:: atomic { rst[me] == T_BACK && ops[me] < MYOPS(me) && !mod[NODE(me)] &&
		    FREE(me) ->
		busy[NODE(me)] = me; stale[me] = 0; qd[me] = 0; retx[me] = 0;
		rst[me] = T_WAIT;
		printf("@q r%d: retries seq%d\n", me, rseq[me]);
		if
		:: gq[me] == rseq[me] -> gq[me] = 0; enter(me) /* na_reqq_pending_grant */
		:: else -> put(REQ, SW, me, rseq[me], 0, 0, 0)
		fi; norm() }
#ifdef TYPECHG
	/* a miss after a NACK as another request (na_req_event: its type
	 * changed, e.g. the Shared copy a WRITE_SHARED was for was invalidated
	 * in the backoff, so it is a WRITE_MISS now): the NACKed seq is given
	 * up (na_node_q_abandon, na_req_quarantine), the request a new seq */
	:: atomic { rst[me] == T_BACK && ops[me] < MYOPS(me) && !mod[NODE(me)] &&
		    FREE(me) && nseq[me] < MAXSEQ ->
		busy[NODE(me)] = me; rst[me] = T_IDLE;
		quarantine(me);
		nseq[me]++; rseq[me] = nseq[me]; qd[me] = 0; retx[me] = 0;
		printf("@q r%d: type changed: new event seq%d\n", me, rseq[me]);
		if
		:: cur[me] != 0 && cur[me] != rseq[me] -> abandon(me, cur[me])
		:: else -> skip
		fi;
		if
		:: st[me] == IDLE -> cur[me] = rseq[me]; st[me] = WAIT; rst[me] = T_WAIT;
			put(REQ, SW, me, rseq[me], 0, 0, 0)
		:: else -> rst[me] = T_REG
		fi; norm() }
#endif
	/* a miss: end the given-up event first (na_req_quarantine), new seq */
	:: atomic { rst[me] == T_IDLE && ops[me] < MYOPS(me) && !mod[NODE(me)] &&
		    busy[NODE(me)] == 255 && nseq[me] < MAXSEQ ->
		busy[NODE(me)] = me;
		quarantine(me);
		nseq[me]++; rseq[me] = nseq[me]; qd[me] = 0; retx[me] = 0;
		printf("@q r%d: new event seq%d\n", me, rseq[me]);
		if
		:: cur[me] != 0 && cur[me] != rseq[me] -> abandon(me, cur[me])
		:: else -> skip
		fi;
		if
		:: st[me] == IDLE -> cur[me] = rseq[me]; st[me] = WAIT; rst[me] = T_WAIT;
			put(REQ, SW, me, rseq[me], 0, 0, 0)
		:: else -> rst[me] = T_REG
		fi; norm() }
	:: atomic { rst[me] == T_REG && st[me] == IDLE ->
		cur[me] = rseq[me]; st[me] = WAIT; rst[me] = T_WAIT;
		put(REQ, SW, me, rseq[me], 0, 0, 0); norm() }
	:: atomic { rst[me] == T_IDLE && ops[me] == MYOPS(me) -> rst[me] = T_DONE; norm() }
	/* retransmit a request nobody answered (only in runs with a loss) */
	:: atomic { rst[me] == T_WAIT && retx[me] < RETX && loss > 0 && !ANY(REQ, SW, me, rseq[me]) &&
		    !ANY(GRANTED, me, SW, rseq[me]) && !ANY(NACK, me, SW, rseq[me]) ->
		retx[me]++; qd[me] = 0;
		put(REQ, SW, me, rseq[me], 0, 0, 0); norm() }
	/* leave the critical section: na_req_send_unlock -> na_qtable_done */
	:: atomic { rst[me] == T_CS ->
		inside = 255; ops[me]++; busy[NODE(me)] = 255; rst[me] = T_IDLE;
		assert(st[me] == HOLD && cur[me] == rseq[me]);
		holder_end(me); norm() }
	/* the slots' timers (the thread's slot, its passing slot) */
	:: atomic { ENDING_DUE(me) -> end_again(me); norm() }
	:: atomic { ENDING_DUE(PH(me, 1)) -> end_again(PH(me, 1)); norm() }
	:: atomic { ENDING_DUE(PH(me, 2)) -> end_again(PH(me, 2)); norm() }
	:: atomic { ENDING_DUE(PH(me, 3)) -> end_again(PH(me, 3)); norm() }
	:: atomic { GIVING_DUE(me) -> grant_again(me); norm() }
	:: atomic { GIVING_DUE(PH(me, 1)) -> grant_again(PH(me, 1)); norm() }
	:: atomic { GIVING_DUE(PH(me, 2)) -> grant_again(PH(me, 2)); norm() }
	:: atomic { GIVING_DUE(PH(me, 3)) -> grant_again(PH(me, 3)); norm() }
	/* receive */
	:: atomic { HAS(me) ->
		k = 0;
		do
		:: k < NSLOT - 1 -> k++
		:: break
		od;
		if
		:: net[k].t != 0 && net[k].dst == me ->
			src = net[k].src; s = net[k].seq; a = net[k].a; b = net[k].b; q = net[k].q;
			e = net[k].t; net[k].t = 0;
			printf("@q r%d receives kind %d src %d seq%d a %d b %d\n", me, e, src, s, a, b);
			if
			:: e == GRANTED && rst[me] == T_WAIT && s == rseq[me] ->
				assert(st[me] == WAIT && cur[me] == s);
				st[me] = HOLD; once(me, s); enter(me)
			:: e == NACK && rst[me] == T_WAIT && s == rseq[me] && !qd[me] ->
				printf("@q r%d: NACKed seq%d, backs off\n", me, s);
				RELEASE_ON_NACK(me); stale[me] = s; rst[me] = T_BACK
			:: e == QQUEUED && rst[me] == T_WAIT && s == rseq[me] -> qd[me] = 1
			:: e == QNACK && rst[me] == T_WAIT && s == rseq[me] ->
				qd[me] = 0; put(REQ, SW, me, s, 0, 0, 0)
			:: e == FWD && PASSES(me, b) ->
				/* the given-up tenure: its passing slot buffers
				 * (WAIT until the Q_GRANT) or holds the queue */
				if
				:: st[PH(me, IDS(b))] == IDLE -> cur[PH(me, IDS(b))] = IDS(b); st[PH(me, IDS(b))] = WAIT
				:: else -> skip
				fi;
				x = PH(me, IDS(b));
				recv[x] = recv[x] | (1 << (a - 1));
				in_queue(x, ID(src, s), f);
				if
				:: !f && ID(src, s) != b ->
					enqueue(x, ID(src, s), a);
					QUEUED_TO(src, s);
					if
					:: fstamp[ID(src, s)] == 0 -> fstamp[ID(src, s)] = q
					:: else -> skip
					fi
				:: else -> skip
				fi
			:: e == FWD && !PASSES(me, b) ->
				if
				:: b == ID(me, cur[me]) && (st[me] == WAIT || st[me] == HOLD || st[me] == ENDING) ->
					recv[me] = recv[me] | (1 << (a - 1));
					if
					:: ID(src, s) != ID(me, cur[me]) ->
						in_queue(me, ID(src, s), f);
						if
						:: !f && NODE(src) == NODE(me) && RULE1(me) ->
#ifndef NORULE1
							/* rule 1: local_wait_forward */
							printf("@q slot r%d: rule 1, NACKs r%d seq%d\n", me, src, s);
							put(NACK, src, me, s, 0, 0, 0)
#else
							enqueue(me, ID(src, s), a);
							seen[me] = seen[me] | (1 << ID(src, s));
							QUEUED_TO(src, s);
							if :: fstamp[ID(src, s)] == 0 -> fstamp[ID(src, s)] = q :: else -> skip fi
#endif
						:: !f && !(NODE(src) == NODE(me) && RULE1(me)) ->
							enqueue(me, ID(src, s), a);
							seen[me] = seen[me] | (1 << ID(src, s));
							/* Q_QUEUED (instantaneous) */
							QUEUED_TO(src, s);
							if
							:: fstamp[ID(src, s)] == 0 -> fstamp[ID(src, s)] = q
							:: else -> skip
							fi
						:: else -> skip
						fi
					:: else -> skip
					fi
				:: else ->
					if
					:: NODE(src) == NODE(me) -> printf("@q slot r%d: ignores own node's r%d seq%d\n", me, src, s)
					:: NODE(src) != NODE(me) && (seen[me] & (1 << ID(src, s))) -> skip
					:: else -> printf("@q slot r%d: Q_NACK r%d seq%d\n", me, src, s);
						put(QNACK, src, me, s, 0, 0, 0)
					fi
				fi
			:: e == QACK && st[me] == ENDING && s == cur[me] -> qack(me, a, b)
			:: e == QACK && !(st[me] == ENDING && s == cur[me]) && st[PH(me, s)] == ENDING ->
				qack(PH(me, s), a, b);
				if :: st[PH(me, s)] == IDLE -> cur[PH(me, s)] = 0 :: else -> skip fi
			:: e == QGRANT ->
				if
				:: st[me] == WAIT && s == cur[me] ->
					take_queue(me, q);
					assert(fstamp[ID(me, s)] > lastq); /* FIFO */
					lastq = fstamp[ID(me, s)]; fstamp[ID(me, s)] = 0;
					st[me] = HOLD; once(me, s);
					if
					:: kept[me] ->
						/* given up, kept for its forwards: passed on
						 * at once in place (pass_on) */
						printf("@q slot r%d: Q_GRANT for kept given-up seq%d: passed on\n", me, s);
						kept[me] = 0; holder_end(me)
					:: !kept[me] && rst[me] == T_WAIT && rseq[me] == s -> enter(me)
					:: !kept[me] && !(rst[me] == T_WAIT && rseq[me] == s) ->
						gq[me] = s; printf("@q r%d: Q_GRANT seq%d kept for the thread\n", me, s)
					fi
				:: !(st[me] == WAIT && s == cur[me]) && (gone[me] & (1 << s)) ->
					/* rule 2 (pass_on): the given-up tenure's passing
					 * slot takes it and ends it at once */
					printf("@q slot r%d: Q_GRANT for given-up seq%d: passed on\n", me, s);
					assert(st[PH(me, s)] == IDLE || st[PH(me, s)] == WAIT);
					gone[me] = gone[me] & ~(1 << s); cur[PH(me, s)] = s;
					take_queue(PH(me, s), q);
					assert(fstamp[ID(me, s)] > lastq);
					lastq = fstamp[ID(me, s)]; fstamp[ID(me, s)] = 0;
					once(me, s);
					st[PH(me, s)] = HOLD; holder_end(PH(me, s))
				:: else -> skip
				fi;
				put(QGACK, src, me, s, 0, 0, 0)
			:: e == QGACK && st[me] == GIVING && ID(src, s) == next[me] -> idle(me)
			:: e == QGACK && GAVE(me, 1, src, s) -> idle(PH(me, 1)); cur[PH(me, 1)] = 0
			:: e == QGACK && GAVE(me, 2, src, s) -> idle(PH(me, 2)); cur[PH(me, 2)] = 0
			:: e == QGACK && GAVE(me, 3, src, s) -> idle(PH(me, 3)); cur[PH(me, 3)] = 0
			:: else -> skip
			fi
		:: else -> skip
		fi; norm() }
	od
}

proctype quiet()
{
	byte n;
	timeout ->
	atomic {
		n = 0;
		do
		:: n < P -> assert((rst[n] == T_DONE || (rst[n] == T_IDLE && nseq[n] == MAXSEQ)) &&
				   st[n] == IDLE && st[PH(n, 1)] == IDLE &&
				   st[PH(n, 2)] == IDLE && st[PH(n, 3)] == IDLE); n++
		:: else -> break
		od;
		assert(lockw == 0);
		assert(len(rs) == 0)
	}
}

init {
	byte n;
	atomic {
		n = 0;
		do
		:: n < N -> busy[n] = 255; n++
		:: else -> break
		od;
		n = 0;
		do
		:: n < P -> run thread(n); n++
		:: else -> break
		od;
		run sw();
		run network();
		run quiet()
	}
}

/*
 * Moved here from docs/MODEL.md (the page keeps a summary, the runs and
 * their results).
 *
 * ---- What qlock-threads.pml models ----
 *
 * - **Threads** (`N` nodes, `NT` threads on node 0, one on every other):
 *   one queue holder slot per (block, thread) (na_qtable), the switch's
 *   LAST-UNLOCK per thread and SCOREBOARD per thread and seq parity (as
 *   lcf_sb: a copy is over when its row marks its seq ENDED by an ABORT or
 *   has moved on to a later seq, by an ABORT or a copy that took the lock). Each thread makes `OPS` accesses
 *   (`OPS1` for the other nodes' threads): a hit when its node holds the
 *   block Modified (set by a grant to one of its threads, cleared by a grant
 *   to another node), else a write event; one event per block and node at a
 *   time (the cache entry's busy claim).
 * - **NACKs**: the event ends, the thread backs off keeping the busy claim
 *   (`RELBUSY`: releasing it), then retries with the same seq (a Q_GRANT
 *   kept meanwhile, `t->qgrant`, answers at once) or, if the block became a
 *   hit, gives the seq up: na_node_q_abandon (a WAIT slot with no forward is
 *   cancelled, a HOLD slot ends through the queue) and the ABORT of
 *   na_req_quarantine, as one atomic round trip: a copy that holds the counted
 *   lock "passed" and the event ends through the queue (slot holding or with
 *   counted forwards, na_qtable_done) or with a plain unlock (QSTATE left to
 *   the next grant, as lcf_q_request); else SCOREBOARD marks it ENDED and its
 *   later copies are NACKed (`LATEQ`: the ABORT only at the thread's next
 *   miss). `TYPECHG`: a thread backing off may also retry as another request
 *   (na_req_event: its type changed, a WRITE_SHARED whose Shared copy was
 *   invalidated in the backoff is a WRITE_MISS): the NACKed seq is given up
 *   as above and the request takes a new seq. `NACKX` NACKs of any request copy stand for causes outside the
 *   model (the home's "not home" while the block moves to the switch,
 *   migration windows).
 * - **The C's node rules**: a forward of another thread of the holder's node
 *   to a tenure still WAITING is counted and NACKed (local_wait_forward); a
 *   Q_GRANT for a seq cancelled on a slot (given up while waiting; the slot
 *   keeps a record of them, a bit per seq, as the C's `gone` records) is
 *   taken and passed on at once (pass_on) by a **passing slot** of its own
 *   (`PH`, one per thread and given-up seq, as the C's passing slots),
 *   whatever the thread's slot serves meanwhile: it buffers the forwards for
 *   that tenure that arrive before the Q_GRANT (no rule 1 there), takes the
 *   Q_GRANT (FIFO and ONCE checked as for any grant), ends the tenure at once
 *   (QXFER to the head or QRELEASE, with the holder's timers) and is idle
 *   again after the approval or the Q_GRANT_ACK; the given-up event's
 *   settling unlock (rule 3) ends the record, through the passing slot's
 *   queue when forwards came to it; a slot whose waiting seq is given up
 *   after forwards came for its tenure is kept (`kept`), and its Q_GRANT is
 *   taken and passed on at once in place; a forward for a tenure the slot does not hold is ignored
 *   when it comes from its own node or is a duplicate of one it queued or
 *   handed over, else Q_NACK (the requester re-sends at once). Q_QUEUED is a
 *   flag set at once (`QQMSG`: a message). Data with Q_INV (rule 4) is below
 *   the abstraction. Network: a bag, `DUP` duplications (`DUPK`: of this
 *   kind only; 1 = requests).
 *
 * ---- The counterexamples behind the C's rules ----
 *
 * The counterexamples behind the C's rules (the first two are kept as violation runs; the last two are what the passing and kept slots prevent):
 *
 * - **Busy released for the backoff** (`qlock-threads-relbusy`; na-sim seed
 *   129 stalled the same way: `--seed 129 --events 60000 --workload micro
 *   --read-ratio 0 --blocks 1 --switch-blocks 1 --nodes 4 --threads 3 --loss
 *   0.05 --dup 0.2 --lock-mode queued`). Thread 1 of node 0 requests; the
 *   network duplicates the request; one copy is NACKed (outside cause), the
 *   other forwarded to node 1's holder and queued. Thread 1 backs off and
 *   releases the block. Node 1 hands over (QXFER, Q_GRANT): thread 1's slot
 *   holds, the grant is kept for the thread. Thread 0 of node 0 claims the
 *   block and requests; its copy is queued at node 1 behind thread 1 (or
 *   forwarded to thread 1's tenure, which holds: local_wait_forward only
 *   NACKs a WAITING one) and it waits with the block busy; thread 1 cannot
 *   retry to take its grant: deadlock. Fix: a NACKed request keeps the busy
 *   claim through its backoff (na_access.c miss, queued mode).
 * - **Given-up event ended late** (`qlock-threads-lateq`): thread 1's request
 *   is NACKed twice (a duplicate) and backs off; its third copy takes the
 *   lock after thread 0's event; thread 1 finds the block Modified (thread
 *   0's write) and gives the seq up: the slot is cancelled, but the ABORT
 *   waits for its next miss, which never comes while its node keeps the
 *   block: the lock stays held and other nodes' requests are forwarded to a
 *   slot that holds nothing. Fix: na_req_give_up ends the given-up event at
 *   once (with busy kept, a thread no longer finds a hit after a NACK in
 *   this model; the rule stays for a request whose type changed).
 * - **A given-up seq's copy granted while the slot serves the next seq**
 *   (`qlock-threads-typechg` without the passing slot, i.e. the Q_GRANT for
 *   a given-up seq passed on only by an idle slot: the queued KV
 *   benchmark's stall, docs/QUEUED-LOCKS.md 9; na-sim `--workload rwlock
 *   --seed 61` stalled the same way). Thread r1's request seq1 is
 *   duplicated; one copy is NACKed and r1 backs off. r0 takes the lock; the
 *   other copy of seq1 is forwarded to r0's tenure and queued. r1 retries as
 *   another request: seq1 is given up (its slot, WAITING with no forward, is
 *   cancelled; the ABORT finds no copy holding and marks it ENDED) and seq2
 *   is forwarded to r0 too, queued behind seq1. r0 hands over to seq1
 *   (QXFER, Q_GRANT with seq2 in the queue): the Q_GRANT finds r1's slot
 *   WAITING for seq2, is acknowledged and dropped; QHOLDER stays seq1's,
 *   nobody ends that tenure, and seq2 waits in the queue dropped with the
 *   grant. With one record per slot (the seq cancelled last),
 *   `qlock-threads-typechg-twice` finds the same stall when r1 gives seq2 up
 *   as well before seq1's Q_GRANT comes. Fix: the passing slot, with a
 *   record of every given-up seq (above). The forwards for the given-up
 *   tenure that reach r1 before the Q_GRANT (its own seq2's copy among them)
 *   are buffered by the passing slot: dropped, they would leave seq2's
 *   request without an answer until a retransmission.
 * - **A given-up seq's kept slot granted** (`qlock-threads-typechg-kept`
 *   without the kept rule: the Q_GRANT taken for the thread, which no longer
 *   waits for it). r1's seq1 is sent in three copies (two duplicates): one
 *   is NACKed and r1 backs off, one is queued at r0 and r0 hands over to it
 *   (QXFER), the third reaches the switch after that and is forwarded to
 *   seq1's own tenure at r1, whose slot, still WAITING for seq1, counts it.
 *   r1 retries as another request: seq1 is given up, but its slot is not
 *   cancelled (a forward came: a copy may hold), the ABORT finds no copy
 *   holding at the switch, and seq2 waits for the slot. The Q_GRANT for
 *   seq1 is taken and kept for a thread that will never take it: the slot
 *   never idles and seq2 never registers. Fix: the slot is marked kept when
 *   its seq is given up, and the Q_GRANT passes it on at once.
 */
