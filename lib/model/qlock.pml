/*
 * SPIN model of queued locks (docs/QUEUED-LOCKS.md; GCS, paper 002, 4.2):
 * one switch-owned block in `queued` lock mode, write requests only (every
 * conflict is M->M), the switch's QSTATE = {QHOLDER, FWD_CNT} with
 * forward-to-holder, QXFER and the two-pass QRELEASE, LAST-UNLOCK and the
 * scoreboard's "held" pass for retransmissions; every node an agent that is
 * requester and, in turn, queue holder with a FIFO (by forward index),
 * Q_GRANT/Q_GRANT_ACK hand-over with the rest of the queue.
 * The coherence part of an event (Table 3 copies, ACKs, data) is abstracted
 * into the switch's GRANTED reply: the lock is what this model is about.
 *
 * The network is a bag (any order), may drop LOSS and duplicate DUP
 * messages; a resubmitted second pass may be lost (BADRS).
 * Timeouts: a sender retransmits only when no copy of the message and none
 * of its answer is in flight (a retransmission timer longer than the
 * network's delay); a holder declares forward indices lost only when no
 * forward of its tenure is in flight (the forward delay bound of
 * QUEUED-LOCKS.md 5).
 *
 * Bounds (-D overridable):
 *   N     nodes (2..3), one requester thread each
 *   EV    events (write requests) per node (1..2)
 *   RETX  retransmissions of a request that got no answer, per event
 *   LOSS, DUP, BADRS  network budgets
 *   NOCOUNT  wrong rule: QXFER/QRELEASE approved without comparing the count
 *   NOLU     wrong rule: QXFER does not end the holder's event in LAST-UNLOCK
 *   RD    readers (0: none, the model above bit for bit), each RDEV read
 *         events: a read event is an atomic take of the S lock at the
 *         switch (READERS + 1 when WRITER and WAITING are clear) and a later
 *         atomic release (READERS - 1); read events themselves are lcf.pml's.
 *         With RD > 0 a write that meets readers waits at the switch as the
 *         next writer (LOCK's WAITING, QSTATE's SWITCH flag, QWAIT / QGRANT,
 *         the waiter's polls, the `waiting` denial; docs/MODEL.md).
 *   NOPOLL   wrong rule: no row 4, the waiter's poll is forwarded to its own
 *            tenure like any request
 *   NODENY   wrong rule: no `waiting` denial of QXFER/QRELEASE
 *   GIVEUP   node fault: a waiting writer may end its tenure before its
 *            QGRANT (QXFER to its queue's head / QRELEASE, as a given-up
 *            event ends through the queue): the source of the messages the
 *            `waiting` denial refuses (a correct node never sends them)
 *   GIVEUPW  node fault (value: give-ups per run): a requester whose QWAIT
 *            has not arrived gives its event up with an ABORT (lossy, its
 *            answer too). The switch answers `passed` when QSTATE = {id,
 *            SWITCH} (marking the event over or not: P4 marks it) or a copy
 *            holds the counted lock; else `aborted`, marking the event over
 *            (a later copy: row 2 undo / lock taken and released / NACK).
 *            On `passed` the node polls on and passes the tenure on at its
 *            grant (QXFER to the head or QRELEASE, nothing delivered); on
 *            `aborted` it forgets the event (a QWAIT for it makes a polling
 *            slot, a grant of a copy queued before the ABORT is passed on:
 *            the holder table). EV 1 only.
 *   NOABORTW wrong rule: the switch answers `aborted` for a waiting tenure
 *
 * Properties (assertions):
 *   SWMR      at every grant nobody else holds the lock and no reader is
 *             inside; no reader enters while a writer is inside or the
 *             exclusive lock is handed out (ghost `xcl`: from a take or a
 *             QGRANT to the release of the lock);
 *   ONCE      no request is granted twice;
 *   FIFO      hand-over grants follow the order the switch forwarded them;
 *   STRAY     a forward that reaches a node that does not hold (or is not
 *             about to receive) its tenure is a duplicate of one it queued;
 *   QUIET     at quiescence (timeout): every event granted and ended, LOCK
 *             free (WRITER, WAITING, READERS), QSTATE {0, 0}.
 */

#ifndef N
#define N 3
#endif
#ifndef EV
#define EV 1
#endif
#ifndef RETX
#define RETX 1
#endif
#ifndef LOSS
#define LOSS 1
#endif
#ifndef DUP
#define DUP 1
#endif
#ifndef BADRS
#define BADRS 0
#endif
#ifndef RD
#define RD 0
#endif
#ifndef RDEV
#define RDEV 1
#endif
#define PMAX (2 + LOSS) /* polls per event: one while readers hold, then one per loss and the last */
#define NSLOT 6 /* the scans below are unrolled for 6 slots */

#define SW N
#define CLOSING 128
#define ID(n, s) ((n) * 4 + (s))   /* tenure / holder id, seq 1..3: never 0 */
#define IDN(i) ((i) / 4)
#define IDS(i) ((i) % 4)

/* message kinds */
#define REQ 1     /* node -> switch: write request (src, seq) */
#define GRANTED 2 /* switch -> node: the lock, the Table 3 path (seq) */
#define NACK 3    /* switch -> node (seq) */
#define FWD 4     /* switch -> holder: src, seq = the request; a = index; b = tenure */
#define QXFER 5   /* holder -> switch: src, seq; a = count; b = next id */
#define QREL 6    /* holder -> switch: src, seq; a = count */
#define QACK 7    /* switch -> holder: seq; a = reason; b = FWD_CNT */
#define QGRANT 8  /* giver -> next: src = giver, seq = next's seq; q = rest of the queue */
#define QGACK 9   /* next -> giver: seq = next's seq, src = next */
#define QWAIT 10  /* switch -> requester: next writer, readers hold (seq; a = READERS) */
#define QGRSW 11  /* switch -> requester: QGRANT, the readers are gone (seq) */
#define ABORT 12  /* requester -> switch: give the event up (src, seq) */
#define ABACK 13  /* switch -> requester: ABORT's answer (seq; a = 1 passed, 0 aborted) */

#define R_OK 0
#define R_COUNT 1
#define R_NOTHOLDER 2
#define R_CLOSING 3
#define R_WAITING 5

typedef msg_t {
	byte t;   /* 0 = free slot */
	byte dst;
	byte src;
	byte seq;
	byte a;
	byte b;
	byte q;   /* QGRANT: queue entries, id | id << 4 (0 = none) */
};

msg_t net[NSLOT];
hidden msg_t tmp;
/* Scratch of the atomic steps: each process's own locals (SCRATCH), zeroed
 * at the end of every step by norm() so that they never tell states apart. */
#define SCRATCH byte k, i, j, f, e, g, src, s, a, b, q, r, c, x, y
byte loss = 0, dup = 0, badrs = 0;

/* switch registers */
bit lockw = 0;
byte qhi = 0;         /* QHOLDER id, 0 none */
byte qlo = 0;         /* FWD_CNT | CLOSING */
byte sb[N];           /* SCOREBOARD: seq of the counted event, 0 none */
byte lu_seq[N];       /* LAST-UNLOCK */
bit lu_open[N];
chan rs = [2] of { byte, byte }; /* resubmitted QRELEASE second passes: src, seq */
byte stamp = 0;       /* ghost: forwards so far (global order) */
#if RD > 0
bit waiting = 0;      /* LOCK's WAITING */
byte readers = 0;     /* LOCK's READERS */
bit qsw = 0;          /* QSTATE's SWITCH flag: the tenure is a waiting writer's */
bit xcl = 0;          /* ghost: the exclusive lock handed out (a take, a QGRANT), not yet released */
#endif
#ifdef GIVEUPW
#if RD == 0 || EV != 1
#error "GIVEUPW needs RD > 0 and EV 1"
#endif
byte ov[N];           /* SCOREBOARD: the seq an ABORT marked over (0 none) */
chan ru = [2] of { byte, byte, byte }; /* resubmitted undo passes: r, seq, kind (1 write, 2 waiting) */
byte gwn = 0;         /* give-ups so far */
#endif
#if RD > 0 && !defined(NODENY)
#define DENY (qsw && readers > 0)
#else
#define DENY 0
#endif

/* node state */
#define IDLE 0
#define WAIT 1
#define HOLD 2    /* in its critical section */
#define ENDING 3  /* QXFER/QRELEASE sent, waiting for QACK */
#define GIVING 4  /* Q_GRANT sent, waiting for Q_GRANT_ACK */
#define DONE 5
byte st[N];
byte cur[N];          /* current event's seq */
byte retx[N];
byte qid[N * 5];      /* wait queue: ids, in order */
byte qix[N * 5];      /* ... their forward index (0: handed over with the queue) */
byte qlen[N];
byte recv[N];         /* distinct forward indices received this tenure (bitmask) */
byte cnt[N];          /* the count it sends: |recv| plus indices declared lost */
byte fcnt[N];         /* FWD_CNT the switch reported in its last denial */
byte next[N];         /* the id it hands over to (0: QRELEASE) */
byte rest[N];         /* the queue it hands over */
int seen[N];          /* ids it queued or handed over (bitmask over ids) */
#if RD > 0
bit qw[N];            /* got QWAIT: the waiting holder of its tenure */
byte polls[N];        /* polls sent this event */
#ifdef GIVEUP
bit gaveup[N];        /* ended its waiting tenure before the QGRANT */
#endif
#endif
#ifdef GIVEUPW
#define GONE 6        /* gave its event up, answered aborted: forgotten (its slot passes a late grant on) */
byte gw[N];           /* 0, 1 ABORT sent, 2 passed (passes the tenure on), 3 aborted */
#endif

/* ghosts */
byte granted[N * 4];  /* grants per id */
byte fstamp[N * 4];   /* stamp of the forward an id was queued with */
byte lastq = 0;       /* stamp of the last hand-over grant */
byte inside = 255;    /* who holds the lock (SWMR) */

/* unrolled scans of the bag (usable in guards) */
#define SL(i, T, D, S, Q) (net[i].t == T && net[i].dst == D && net[i].src == S && net[i].seq == Q)
#define ANY(T, D, S, Q) (SL(0, T, D, S, Q) || SL(1, T, D, S, Q) || SL(2, T, D, S, Q) || \
			 SL(3, T, D, S, Q) || SL(4, T, D, S, Q) || SL(5, T, D, S, Q))
#define FL(i, T) (net[i].t == FWD && net[i].b == T)
#define ANYFWD(T) (FL(0, T) || FL(1, T) || FL(2, T) || FL(3, T) || FL(4, T) || FL(5, T))
#define TO(i, D) (net[i].t != 0 && net[i].dst == D)
#define HAS(D) (TO(0, D) || TO(1, D) || TO(2, D) || TO(3, D) || TO(4, D) || TO(5, D))
#define NONEMPTY (net[0].t || net[1].t || net[2].t || net[3].t || net[4].t || net[5].t)

#if RD > 0
/* after a QWAIT the requester polls instead of retransmitting */
#define NOTWAITER && !qw[me] && !ANY(QWAIT, me, SW, cur[me]) && !ANY(QGRSW, me, SW, cur[me])
#else
#define NOTWAITER
#endif
#if RD > 0
#define NOTQW && !qw[me] /* a NACK of another copy is ignored once waiting */
#else
#define NOTQW
#endif
#ifdef GIVEUPW
#define ISGONE || st[me] == GONE
#define ISGONEN || st[n] == GONE
#define NOTGW && gw[me] == 0 /* a given-up event is neither retransmitted nor retried */
#define POLLER (qw[me] || gw[me] == 2)
/* a given-up event also polls a lock a copy of it holds: GRANTED */
#define NOANSWER && !ANY(GRANTED, me, SW, cur[me]) && !ANY(NACK, me, SW, cur[me])
#define OVER(r, s) (ov[r] == (s))
#else
#define ISGONE
#define ISGONEN
#define NOTGW
#define POLLER qw[me]
#define NOANSWER
#endif

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
		:: net[k].t != 0 ->
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

/* ---- the switch ---- */

#if RD > 0
/* Rows of QSTATE with readers: 1 take, 3 the waiter, 4 its poll, 5 forward. */
#ifdef NOPOLL
#define ROW4(r, s) 0
#else
#define ROW4(r, s) (qhi == ID(r, s) && qsw && !(qlo & CLOSING))
#endif
inline sw_request(r, s)
{
	if
	:: !(s > lu_seq[r]) ->
		printf("@q switch: NACK stale r%d seq%d\n", r, s);
		put(NACK, r, SW, s, 0, 0, 0)
	:: else ->
		if
#ifdef GIVEUPW
		/* an event an ABORT marked over: a lock its copy takes is released
		 * by a second pass (a write RELEASE); a WAITING it sets is undone
		 * (row 2, a RELEASE of kind `waiting`); never forwarded */
		:: !lockw && !waiting && readers == 0 && OVER(r, s) ->
			lockw = 1;
			printf("@q switch: r%d seq%d is over, takes the lock: undo pass\n", r, s);
			ru!r, s, 1
		:: !lockw && !waiting && readers > 0 && OVER(r, s) ->
			waiting = 1;
			printf("@q switch: r%d seq%d is over, meets readers: row 2 undo pass\n", r, s);
			ru!r, s, 2
		:: !lockw && !waiting && readers == 0 && !OVER(r, s) ->
#else
		:: !lockw && !waiting && readers == 0 ->
#endif
			lockw = 1; sb[r] = s; xcl = 1;
			assert(qhi == 0 && qlo == 0 && !qsw); /* lock free => no queue */
			qhi = ID(r, s); qlo = 0;
			printf("@q switch: r%d seq%d takes the lock, holder\n", r, s);
			put(GRANTED, r, SW, s, 0, 0, 0)
		:: lockw && sb[r] == s ->
			printf("@q switch: r%d seq%d passes on its score\n", r, s);
			put(GRANTED, r, SW, s, 0, 0, 0)
#ifdef GIVEUPW
		:: !lockw && !waiting && readers > 0 && !OVER(r, s) ->
#else
		:: !lockw && !waiting && readers > 0 ->
#endif
			/* row 3: the block's next writer, waiting for the readers */
			assert(qhi == 0 && qlo == 0 && !qsw);
			waiting = 1; qhi = ID(r, s); qlo = 0; qsw = 1;
			printf("@q switch: r%d seq%d meets %d readers: WAITING, QWAIT\n", r, s, readers);
			put(QWAIT, r, SW, s, readers, 0, 0)
		:: ROW4(r, s) ->
			/* row 4: the waiter's poll (or a copy of its request) */
			if
			:: readers > 0 ->
				printf("@q switch: poll r%d seq%d, QWAIT\n", r, s);
				put(QWAIT, r, SW, s, readers, 0, 0)
			:: else ->
				printf("@q switch: poll r%d seq%d, QGRANT\n", r, s);
				xcl = 1;
				put(QGRSW, r, SW, s, 0, 0, 0)
			fi
#ifdef GIVEUPW
		:: (lockw || waiting) && sb[r] != s && qhi != 0 && !(qlo & CLOSING) && !ROW4(r, s) &&
		   !OVER(r, s) ->
#else
		:: (lockw || waiting) && sb[r] != s && qhi != 0 && !(qlo & CLOSING) && !ROW4(r, s) ->
#endif
			qlo++; stamp++;
			printf("@q switch: FORWARDS r%d seq%d to holder %d (tenure %d, index %d)\n",
				r, s, IDN(qhi), qhi, qlo);
			put(FWD, IDN(qhi), r, s, qlo, qhi, stamp)
		:: else ->
			printf("@q switch: NACK busy r%d seq%d\n", r, s);
			put(NACK, r, SW, s, 0, 0, 0)
		fi
	fi
}
#else
inline sw_request(r, s)
{
	if
	:: !(s > lu_seq[r]) ->
		printf("@q switch: NACK stale r%d seq%d\n", r, s);
		put(NACK, r, SW, s, 0, 0, 0)
	:: else ->
		if
		:: !lockw ->
			lockw = 1; sb[r] = s;
			assert(qhi == 0 && qlo == 0); /* lock free => no queue */
			qhi = ID(r, s); qlo = 0;
			printf("@q switch: r%d seq%d takes the lock, holder\n", r, s);
			put(GRANTED, r, SW, s, 0, 0, 0)
		:: lockw && sb[r] == s ->
			printf("@q switch: r%d seq%d passes on its score\n", r, s);
			put(GRANTED, r, SW, s, 0, 0, 0)
		:: lockw && sb[r] != s && qhi != 0 && !(qlo & CLOSING) ->
			qlo++; stamp++;
			printf("@q switch: FORWARDS r%d seq%d to holder %d (tenure %d, index %d)\n",
				r, s, IDN(qhi), qhi, qlo);
			put(FWD, IDN(qhi), r, s, qlo, qhi, stamp)
		:: else ->
			printf("@q switch: NACK busy r%d seq%d\n", r, s);
			put(NACK, r, SW, s, 0, 0, 0)
		fi
	fi
}
#endif

inline sw_qxfer(r, s, c, nx)
{
#ifndef NOLU
	if
	:: s > lu_seq[r] -> lu_seq[r] = s; lu_open[r] = 0
	:: s == lu_seq[r] -> lu_open[r] = 0
	:: else -> skip
	fi;
#endif
	if
	:: qhi != ID(r, s) -> put(QACK, r, SW, s, R_NOTHOLDER, qlo, 0)
	:: qhi == ID(r, s) && DENY ->
		printf("@q switch: QXFER r%d seq%d denied: waiting\n", r, s);
		put(QACK, r, SW, s, R_WAITING, qlo, 0)
	:: qhi == ID(r, s) && (qlo & CLOSING) -> put(QACK, r, SW, s, R_CLOSING, qlo, 0)
#ifdef NOCOUNT
	:: qhi == ID(r, s) && !(qlo & CLOSING) && !DENY ->
#else
	:: qhi == ID(r, s) && qlo == c && !DENY ->
#endif
		printf("@q switch: QXFER r%d seq%d -> %d approved\n", r, s, nx);
		qhi = nx; qlo = 0;
#if RD > 0
		qsw = 0;
#endif
		put(QACK, r, SW, s, R_OK, 0, 0)
	:: qhi == ID(r, s) && !(qlo & CLOSING) && qlo != c && !DENY ->
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
	:: qhi == ID(r, s) && DENY ->
		printf("@q switch: QRELEASE r%d seq%d denied: waiting\n", r, s);
		put(QACK, r, SW, s, R_WAITING, qlo, 0)
#ifdef NOCOUNT
	:: qhi == ID(r, s) && !DENY ->
#else
	:: qhi == ID(r, s) && (qlo == c || (qlo & CLOSING)) && !DENY ->
#endif
		printf("@q switch: QRELEASE r%d seq%d approved (pass 1)\n", r, s);
		qlo = CLOSING;
#if RD > 0
		qsw = 0;
#endif
		rs!r, s
	:: qhi == ID(r, s) && qlo != c && !(qlo & CLOSING) && !DENY ->
		printf("@q switch: QRELEASE r%d seq%d count %d != %d denied\n", r, s, c, qlo);
		put(QACK, r, SW, s, R_COUNT, qlo, 0)
	fi
}

inline sw_qrel2(r, s)
{
	if
	:: lu_seq[r] == s && lu_open[r] ->
		lu_open[r] = 0;
		printf("@q switch: QRELEASE r%d seq%d releases the lock (pass 2)\n", r, s);
		lockw = 0;
#if RD > 0
		waiting = 0; xcl = 0;
#endif
		stamp = 0; lastq = 0; /* a new busy period starts a new order */
		if
		:: sb[r] == s -> sb[r] = 0
		:: else -> skip
		fi
	:: else -> skip
	fi;
	if
	:: qhi == ID(r, s) && (qlo & CLOSING) -> qhi = 0; qlo = 0
	:: else -> skip
	fi;
	put(QACK, r, SW, s, R_OK, 0, 0)
}

#ifdef GIVEUPW
/* ABORT (tag hit, queued mode): one pass. `passed` when the event is the
 * waiting tenure (QSTATE {id, SWITCH}; the SCOREBOARD may be marked over
 * too: either) or a copy of it holds the counted lock; else `aborted`, the
 * event marked over. */
inline sw_abort(r, s)
{
	if
#ifndef NOABORTW
	:: qhi == ID(r, s) && qsw ->
		printf("@q switch: ABORT r%d seq%d: the waiting tenure, passed\n", r, s);
		if
		:: ov[r] = s
		:: skip
		fi;
		put(ABACK, r, SW, s, 1, 0, 0)
#endif
	:: lockw && sb[r] == s ->
		printf("@q switch: ABORT r%d seq%d: a copy holds the lock, passed\n", r, s);
		put(ABACK, r, SW, s, 1, 0, 0)
	:: else ->
		printf("@q switch: ABORT r%d seq%d: aborted, marked over\n", r, s);
		ov[r] = s;
		put(ABACK, r, SW, s, 0, 0, 0)
	fi
}

/* The undo's second pass: a write RELEASE (kind 1) clears WRITER, a
 * RELEASE of kind `waiting` (2) clears WAITING; NACK (aborted request). */
inline sw_undo(r, s, kind)
{
	if
	:: kind == 1 -> assert(lockw && qhi == 0); lockw = 0
	:: else -> assert(waiting && qhi == 0); waiting = 0
	fi;
	printf("@q switch: undo pass r%d seq%d kind %d, NACK\n", r, s, kind);
	put(NACK, r, SW, s, 0, 0, 0)
}
/* between an undo's two passes LOCK is set with no queue holder */
#define UNDOING || len(ru) > 0
#else
#define UNDOING
#endif

#if RD > 0
/* LOCK: WRITER excludes WAITING and READERS; WAITING has a queue holder,
 * the waiter's own (SWITCH) or the one QXFER handed it on to */
#define LOCKINV ; assert(!(lockw && (waiting || readers > 0)) && (!waiting || qhi != 0 UNDOING) && \
		       (!qsw || (waiting && qhi != 0)))
#else
#define LOCKINV
#endif
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
			printf("@q switch receives kind %d r%d seq%d a %d b %d\n", net[k].t, r, s, c, x);
			if
			:: net[k].t == REQ -> net[k].t = 0; sw_request(r, s)
			:: net[k].t == QXFER -> net[k].t = 0; sw_qxfer(r, s, c, x)
			:: net[k].t == QREL -> net[k].t = 0; sw_qrel1(r, s, c)
#ifdef GIVEUPW
			:: net[k].t == ABORT -> net[k].t = 0; sw_abort(r, s)
#endif
			:: else -> printf("@q switch: kind %d?\n", net[k].t); assert(false)
			fi
		:: else -> skip
		fi LOCKINV; norm() }
	:: atomic { rs?r, s ->
		if
		:: badrs < BADRS -> badrs++; printf("@q switch LOSES the second pass of QRELEASE r%d seq%d\n", r, s)
		:: sw_qrel2(r, s)
		fi LOCKINV; norm() }
#ifdef GIVEUPW
	:: atomic { ru?r, s, c -> sw_undo(r, s, c) LOCKINV; norm() }
#endif
	od
}

/* ---- node agents ---- */

/* Insert id `e` with forward index `g` into n's queue, in index order. */
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

/* The event is over at n: forget its queue (canonical state). */
inline idle(n)
{
	st[n] = IDLE;
	j = 0;
	do
	:: j < 5 -> QE(n, j) = 0; QS(n, j) = 0; j++
	:: else -> break
	od;
	qlen[n] = 0; recv[n] = 0; cnt[n] = 0; fcnt[n] = 0; next[n] = 0; rest[n] = 0;
#if RD > 0
	qw[n] = 0; polls[n] = 0;
#ifdef GIVEUP
	gaveup[n] = 0;
#endif
#endif
#ifdef GIVEUPW
	gw[n] = 0;
#endif
}

inline grant(n, how)
{
	printf("@q node %d: seq%d GRANTED (%d)\n", n, cur[n], how);
	assert(inside == 255);  /* SWMR */
#if RD > 0
	assert(readers == 0);   /* SWMR: no reader inside */
#endif
	inside = n;
#ifdef GIVEUPW
	if
	:: gw[n] != 0 -> gw[n] = 2; printf("@q node %d: seq%d given up: passes the tenure on\n", n, cur[n])
	:: else -> skip
	fi;
#endif
	assert(granted[ID(n, cur[n])] == 0); /* ONCE */
	granted[ID(n, cur[n])]++;
	st[n] = HOLD
}

proctype node(byte me)
{
	SCRATCH;
	cur[me] = 0;
	st[me] = IDLE;
end:	do
	/* start the next event */
	:: atomic { st[me] == IDLE && cur[me] < EV ->
		cur[me]++; retx[me] = 0; st[me] = WAIT; recv[me] = 0; cnt[me] = 0; qlen[me] = 0;
#if RD > 0
		qw[me] = 0; polls[me] = 0;
#ifdef GIVEUP
		gaveup[me] = 0;
#endif
#endif
#ifdef GIVEUPW
		gw[me] = 0;
#endif
		printf("@q node %d starts seq%d\n", me, cur[me]);
		put(REQ, SW, me, cur[me], 0, 0, 0); norm() }
	:: atomic { st[me] == IDLE && cur[me] == EV -> st[me] = DONE; norm() }
	/* retransmit a request nobody answered (its timer: only in runs where a
	 * message was lost; a spurious timer is the network's duplicate) */
	:: atomic { st[me] == WAIT && retx[me] < RETX && loss > 0 && !ANY(REQ, SW, me, cur[me]) &&
		    !ANY(GRANTED, me, SW, cur[me]) && !ANY(NACK, me, SW, cur[me]) NOTWAITER NOTGW ->
		retx[me]++; printf("@q node %d retransmits seq%d\n", me, cur[me]);
		put(REQ, SW, me, cur[me], 0, 0, 0); norm() }
#if RD > 0
	/* the waiting writer polls: the same request, same seq, while no poll
	 * and no answer is in flight (the poll interval); one poll while the
	 * readers still hold (answered QWAIT), the rest once they are gone
	 * (a poll in between only fetches another QWAIT) */
	:: atomic { st[me] == WAIT && POLLER && polls[me] < PMAX && (readers == 0 || polls[me] == 0) &&
		    !ANY(REQ, SW, me, cur[me]) && !ANY(QWAIT, me, SW, cur[me]) &&
		    !ANY(QGRSW, me, SW, cur[me]) && !ANY(FWD, me, me, cur[me]) NOANSWER ->
		polls[me]++; printf("@q node %d polls seq%d\n", me, cur[me]);
		put(REQ, SW, me, cur[me], 0, 0, 0); norm() }
#ifdef GIVEUPW
	/* fault: a requester whose QWAIT has not arrived gives its event up */
	:: atomic { st[me] == WAIT && !qw[me] && gw[me] == 0 && gwn < GIVEUPW ->
		gw[me] = 1; gwn++;
		printf("@q node %d: GIVES seq%d UP, ABORT\n", me, cur[me]);
		put(ABORT, SW, me, cur[me], 0, 0, 0); norm() }
	/* retransmit the ABORT (timer) */
	:: atomic { st[me] == WAIT && gw[me] == 1 && retx[me] < RETX && loss > 0 &&
		    !ANY(ABORT, SW, me, cur[me]) && !ANY(ABACK, me, SW, cur[me]) ->
		retx[me]++; printf("@q node %d: ABORT seq%d again\n", me, cur[me]);
		put(ABORT, SW, me, cur[me], 0, 0, 0); norm() }
#endif
#ifdef GIVEUP
	/* fault: the waiting writer ends its tenure before the QGRANT */
	:: atomic { st[me] == WAIT && qw[me] && !gaveup[me] ->
		gaveup[me] = 1;
		popcount(recv[me], cnt[me]);
		if
		:: qlen[me] == 0 -> next[me] = 0;
			printf("@q node %d: GIVES UP, QRELEASE seq%d count %d\n", me, cur[me], cnt[me]);
			put(QREL, SW, me, cur[me], cnt[me], 0, 0)
		:: else -> next[me] = QE(me, 0);
			rest[me] = 0;
			if
			:: qlen[me] > 1 -> rest[me] = QE(me, 1) :: else -> skip
			fi;
			if
			:: qlen[me] > 2 -> rest[me] = rest[me] | (QE(me, 2) << 4) :: else -> skip
			fi;
			printf("@q node %d: GIVES UP, QXFER seq%d count %d next %d\n", me, cur[me], cnt[me], next[me]);
			put(QXFER, SW, me, cur[me], cnt[me], next[me], 0)
		fi;
		st[me] = ENDING; norm() }
#endif
#endif
	/* leave the critical section: hand over or release */
	:: atomic { st[me] == HOLD ->
		inside = 255;
		popcount(recv[me], cnt[me]);
		if
		:: qlen[me] == 0 -> next[me] = 0;
			printf("@q node %d: QRELEASE seq%d count %d\n", me, cur[me], cnt[me]);
			put(QREL, SW, me, cur[me], cnt[me], 0, 0)
		:: else -> next[me] = QE(me, 0);
			rest[me] = 0;
			if
			:: qlen[me] > 1 -> rest[me] = QE(me, 1) :: else -> skip
			fi;
			if
			:: qlen[me] > 2 -> rest[me] = rest[me] | (QE(me, 2) << 4) :: else -> skip
			fi;
			printf("@q node %d: QXFER seq%d count %d next %d\n", me, cur[me], cnt[me], next[me]);
			put(QXFER, SW, me, cur[me], cnt[me], next[me], 0)
		fi;
		st[me] = ENDING; norm() }
	/* retransmit QXFER/QRELEASE (timer): nothing of it in flight, and no
	 * forward of its tenure either (it waits for those) */
	:: atomic { st[me] == ENDING && !ANY(QXFER, SW, me, cur[me]) &&
		    !ANY(QREL, SW, me, cur[me]) && !ANY(QACK, me, SW, cur[me]) &&
		    len(rs) == 0 && !ANYFWD(ID(me, cur[me])) ->
		/* indices still missing with no forward in flight: lost */
		popcount(recv[me], cnt[me]);
		if
		:: fcnt[me] > cnt[me] -> cnt[me] = fcnt[me]
		:: else -> skip
		fi;
		printf("@q node %d: timer, again with count %d\n", me, cnt[me]);
		if
		:: next[me] == 0 && qlen[me] == 0 -> put(QREL, SW, me, cur[me], cnt[me], 0, 0)
		:: else ->
			/* the queue may have grown or been re-sorted */
			next[me] = QE(me, 0); rest[me] = 0;
			if :: qlen[me] > 1 -> rest[me] = QE(me, 1) :: else -> skip fi;
			if :: qlen[me] > 2 -> rest[me] = rest[me] | (QE(me, 2) << 4) :: else -> skip fi;
			put(QXFER, SW, me, cur[me], cnt[me], next[me], 0)
		fi; norm() }
	/* retransmit Q_GRANT */
	:: atomic { st[me] == GIVING && !ANY(QGRANT, IDN(next[me]), me, IDS(next[me])) &&
		    !ANY(QGACK, me, IDN(next[me]), IDS(next[me])) ->
		put(QGRANT, IDN(next[me]), me, IDS(next[me]), 0, 0, rest[me]); norm() }
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
			printf("@q node %d receives kind %d src %d seq%d a %d b %d\n", me, e, src, s, a, b);
			if
			:: e == GRANTED && st[me] == WAIT && s == cur[me] -> grant(me, 0)
			:: e == NACK && st[me] == WAIT && s == cur[me] NOTQW NOTGW ->
				put(REQ, SW, me, cur[me], 0, 0, 0)   /* retry, same seq */
#ifdef GIVEUPW
			:: e == ABACK && st[me] == WAIT && gw[me] == 1 && s == cur[me] ->
				if
				:: a == 1 || qw[me] -> gw[me] = 2  /* passed (or a polling slot): polls on */
				:: else -> gw[me] = 3; st[me] = GONE /* aborted: forgotten */
				fi
			:: (e == QWAIT || e == QGRSW || e == GRANTED) && st[me] == GONE && s == cur[me] ->
#ifndef NOABORTW
				/* `aborted` is final: the switch never answers the event again */
				assert(false);
#endif
				st[me] = WAIT; gw[me] = 2;
				if
				:: e == QWAIT -> qw[me] = 1  /* the holder table's polling slot */
				:: else -> grant(me, 3)      /* passed on at once */
				fi
#endif
#if RD > 0
			:: e == QWAIT && st[me] == WAIT && s == cur[me] ->
				qw[me] = 1  /* the waiting holder of its tenure: buffers its forwards */
			:: e == QGRSW && st[me] == WAIT && s == cur[me] ->
				/* a hand-over with an empty granted queue: the buffered
				 * forwards are the queue; no Q_GRANT_ACK */
				grant(me, 2)
#endif
			:: e == FWD ->
				if
				:: b == ID(me, cur[me]) && (st[me] == WAIT || st[me] == HOLD || st[me] == ENDING ISGONE) ->
					/* a forward of my tenure (or of the one I am about to be granted) */
					recv[me] = recv[me] | (1 << (a - 1));
					if
					:: ID(src, s) != ID(me, cur[me]) ->
						in_queue(me, ID(src, s), f);
						if
						:: !f -> enqueue(me, ID(src, s), a);
							seen[me] = seen[me] | (1 << ID(src, s));
							if
							:: fstamp[ID(src, s)] == 0 -> fstamp[ID(src, s)] = q
							:: else -> skip
							fi
						:: else -> skip
						fi
					:: else -> skip
					fi
				:: else ->
					/* STRAY: only a duplicate of a request it queued may come late */
					assert(src == me || (seen[me] & (1 << ID(src, s))))
				fi
			:: e == QACK && st[me] == ENDING && s == cur[me] ->
				if
				:: a == R_OK || a == R_NOTHOLDER ->
					if
					:: next[me] == 0 -> idle(me)
					:: else -> st[me] = GIVING;
						printf("@q node %d: Q_GRANT to %d (rest %d)\n", me, next[me], rest[me]);
						put(QGRANT, IDN(next[me]), me, IDS(next[me]), 0, 0, rest[me])
					fi
				:: a == R_COUNT -> fcnt[me] = b
#ifdef GIVEUP
				:: a == R_WAITING -> assert(gaveup[me]) /* the timer sends it again */
#endif
				:: else -> assert(false)
				fi
			:: e == QGRANT ->
				if
				:: (st[me] == WAIT ISGONE) && s == cur[me] ->
					/* the rest of the queue goes before the forwards already
					 * buffered; a buffered copy of a request in the rest is
					 * dropped (the earlier place is kept) */
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
					f = j; /* compact: keep buffered entries not in the rest */
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
					/* remember what it was handed */
					if :: (q & 15) != 0 -> seen[me] = seen[me] | (1 << (q & 15)) :: else -> skip fi;
					if :: (q >> 4) != 0 -> seen[me] = seen[me] | (1 << (q >> 4)) :: else -> skip fi;
					/* FIFO: hand-over grants in forward order */
					assert(fstamp[ID(me, s)] > lastq);
					lastq = fstamp[ID(me, s)]; fstamp[ID(me, s)] = 0;
					grant(me, 1)
				:: else -> skip
				fi;
				put(QGACK, src, me, s, 0, 0, 0)
			:: e == QGACK && st[me] == GIVING && ID(src, s) == next[me] -> idle(me)
			:: else -> skip /* a reply to an event it has finished */
			fi
		:: else -> skip
		fi; norm() }
	od
}

#if RD > 0
/* A reader: RDEV read events, each an atomic take of the S lock at the
 * switch (only with WRITER and WAITING clear; else it waits) and a later
 * atomic release. */
proctype reader()
{
	byte k = 0;
	do
	:: atomic { k < RDEV && !lockw && !waiting ->
		assert(inside == 255 && !xcl); /* SWMR: no writer, lock not handed out */
		readers++; k++;
		printf("@q reader takes the S lock (%d readers)\n", readers) }
		atomic { readers--; printf("@q reader releases (%d readers)\n", readers) }
	:: k == RDEV -> break
	od
}
#endif

/* At quiescence every event was granted once and ended, nothing is held. */
proctype quiet()
{
	byte n;
	timeout ->
	atomic {
		n = 0;
		do
		:: n < N -> assert(st[n] == DONE || (st[n] == IDLE && cur[n] == EV) ISGONEN); n++
		:: else -> break
		od;
		assert(lockw == 0 && qhi == 0 && qlo == 0);
#if RD > 0
		assert(waiting == 0 && readers == 0 && qsw == 0);
#endif
		assert(len(rs) == 0)
#ifdef GIVEUPW
		; assert(len(ru) == 0)
#endif
	}
}

init {
	byte n;
	atomic {
		n = 0;
		do
		:: n < N -> run node(n); n++
		:: else -> break
		od;
#if RD > 0
		n = 0;
		do
		:: n < RD -> run reader(); n++
		:: else -> break
		od;
#endif
		run sw();
		run network();
		run quiet()
	}
}

/*
 * Why this model covers the queued locks of home-owned blocks too
 * (docs/QUEUED-LOCKS.md section 11, node-agent/agents/na_home_queue.c).
 * The model's switch is the lock point of one block with atomic
 * per-message decisions; the home is the same for a home-owned block, with
 * these differences, none of which adds a behaviour the model lacks:
 *
 * - QRELEASE in one step: the home runs the second step right after the
 *   first, one of the model's interleavings (the resubmit neither delayed
 *   nor lost, BADRS 0), so every property checked over all of them holds.
 * - LAST-EXECUTED for LAST-UNLOCK: a request's stale check (seq not after
 *   LAST-UNLOCK) is the home's stale/duplicate check once QXFER or QRELEASE
 *   recorded the seq; a late copy of a request that executed there gets its
 *   recorded decision (the model's "passes on its score", GRANTED, ignored
 *   by a node not waiting for that seq). Duplicates of an approved
 *   QXFER/QRELEASE get "approved" where the model's switch answers
 *   not_holder; the model's holder treats both alike.
 * - Forward only while the write lock is held, and a WRITE_UNLOCK clears
 *   QSTATE: the invariant "QHOLDER != 0 only while the write lock is held"
 *   holds unconditionally at the home. The model's holders never send a
 *   WRITE_UNLOCK; at the home it turns forwards into NACKs, the retry path
 *   the model has (no holder).
 * - Migration: a queue exists only while its write lock is held and is
 *   released only by its last holder's QRELEASE (or a WRITE_UNLOCK);
 *   ADD_TO_SWITCH needs the home's lock free, REMOVE_FROM_SWITCH the
 *   switch's, so a block moves only with QSTATE {0, 0} at the side it
 *   leaves: no queue moves between home and switch, and a tenure's
 *   QXFER/QRELEASE always reaches the lock point that granted it. A late
 *   duplicate after a move is answered not_holder (switch) or from
 *   LAST-EXECUTED (home): approved for the holder, which ignores answers for
 *   an event it is not ending.
 * - Node failure empties QSTATE while the dead node's lock is drained; in
 *   between, requests are NACKed (no holder): the retry path.
 */

/*
 * Moved here from docs/MODEL.md (the page keeps a summary, the runs and
 * their results).
 *
 * ---- What qlock.pml models (RD 0) ----
 *
 * - **The switch**, one switch-owned block: the write lock, QSTATE =
 *   {QHOLDER, FWD_CNT | CLOSING}, SCOREBOARD (the seq of the counted event,
 *   for "passes on its score") and LAST-UNLOCK {seq, open} per requester. A
 *   request: stale -> NACK; lock free -> granted (the Table 3 path is one
 *   GRANTED reply), QSTATE = {id, 0}; held by its own event -> GRANTED again;
 *   busy with a holder not closing -> forwarded, FWD_CNT + 1, with the index
 *   and the tenure; else NACK. QXFER (one pass; ends the holder's event in
 *   LAST-UNLOCK) and the two-pass QRELEASE as in QUEUED-LOCKS.md 4; a second
 *   pass may be lost (`BADRS`).
 * - **Nodes** (`N`, one thread each, `EV` write events each): requester and
 *   holder in one agent. A request is retransmitted (`RETX` times, only in runs
 *   with a loss) while nothing of it is in flight; a NACK is retried with the
 *   same seq. A holder counts distinct forward indices of its tenure, queues
 *   the forwarded requests by index (duplicates by requester and seq dropped,
 *   its own request ignored), hands over with QXFER (queue not empty) or
 *   QRELEASE, waits on a denial for the forwards still in flight and, when
 *   none is, declares the missing indices lost (the forward delay bound);
 *   then Q_GRANT with the rest of the queue, retransmitted until Q_GRANT_ACK.
 *   The next holder puts the granted queue before the forwards it buffered
 *   for its tenure (a buffered copy of a granted entry is dropped).
 * - **Network**: one bag (any order), up to `LOSS` losses and `DUP`
 *   duplications of any message; kept sorted so that one multiset is one
 *   state.
 *
 * ---- Counterexamples of qlock-no-count and qlock-no-lu ----
 *
 * The two wrong rules' counterexamples:
 *
 * - **No count check** (`qlock-no-count`): node 1 holds the lock; node 0's
 *   WRITE_MISS is forwarded to it (FWD_CNT 1) but not yet delivered; node 1,
 *   which has seen no forward, sends QRELEASE with count 0 and it is
 *   approved; the lock is free and the forward reaches node 1, which no
 *   longer holds anything: the request is stranded (in the C it would get a
 *   Q_NACK and lose its place).
 * - **QXFER without LAST-UNLOCK** (`qlock-no-lu`): node 2's WRITE_MISS is
 *   duplicated by the network; node 2 holds, hands over to node 1 by QXFER,
 *   node 1 releases; the duplicate then reaches the switch, is not stale, and
 *   takes the free lock for node 2's finished event: the lock leaks and the
 *   next request is forwarded to a node that holds nothing.
 *
 * ---- Readers and the waiting writer (RD > 0) ----
 *
 * - **Readers** (`RD` processes, `RDEV` read events each). A read event is
 *   one atomic take of the S lock at the switch, READERS + 1 only while
 *   WRITER and WAITING are clear (else the reader waits and tries again),
 *   and a later atomic release, READERS - 1. Read events themselves (the
 *   Table 3 path, copies, the home) are checked in `lcf.pml`; a READ_MISS
 *   forwarded to a queue holder is not modelled.
 * - **The switch**: LOCK = {WRITER, WAITING, READERS}, QSTATE's SWITCH flag.
 *   A write request after the stale check: LOCK == 0 -> taken (row 1); held
 *   by its own counted event -> GRANTED again; WRITER and WAITING clear,
 *   READERS > 0 -> WAITING set, QSTATE = {id, SWITCH}, reply QWAIT (row 3);
 *   QHOLDER == id, SWITCH, not CLOSING (the waiter's poll or a copy of its
 *   request) -> QWAIT while READERS > 0, QGRANT once READERS == 0, QSTATE
 *   untouched (row 4); WRITER or WAITING set, a holder, not CLOSING ->
 *   forwarded, FWD_CNT + 1, also to a SWITCH tenure (row 5); else NACK.
 *   QXFER / QRELEASE from QHOLDER == id with SWITCH set while READERS > 0 ->
 *   denied `waiting` (reason 5), QSTATE untouched (LAST-UNLOCK is updated as
 *   for every QXFER / QRELEASE); an approved QXFER -> {next, 0}, an approved
 *   QRELEASE -> {id, CLOSING} (both clear SWITCH); the QRELEASE second pass
 *   clears WRITER and WAITING. Row 2 (a waiter whose event is over: the
 *   undo pass clearing WAITING) needs an ABORT: it is modelled under
 *   `GIVEUPW` (next subsection); without it a copy of an ended event is
 *   NACKed stale before the lock stage.
 * - **Nodes**: a QWAIT makes the requester the waiting holder of its tenure
 *   (forwards for it are counted and buffered, as for a next holder before
 *   its Q_GRANT); it stops its retransmissions, ignores NACKs of other
 *   copies and polls: re-sends the same request (same seq) while no poll,
 *   no answer and no forward of its own request is in flight, one poll while
 *   the readers still hold and the rest once they are gone (a poll in
 *   between only fetches another QWAIT), at most `2 + LOSS` per event. A
 *   QGRANT is taken once, as a Q_GRANT with an empty granted queue (the
 *   buffered forwards are the queue), with no Q_GRANT_ACK; a QGRANT or QWAIT
 *   for an event it no longer waits for is ignored. The tenure ends as any
 *   holder's: QXFER to the head or QRELEASE. A correct holder is never
 *   denied `waiting` (a denial asserts, except under `GIVEUP`).
 * - **`GIVEUP`** (a node fault, the source of what the denial refuses): a
 *   waiting writer may end its tenure before its QGRANT (QXFER to its
 *   queue's head or QRELEASE, as a given-up event ends through the queue);
 *   on the denial it sends it again after its timer.
 * - Polls, QWAIT and QGRANT are lost and duplicated under the network's
 *   `LOSS` / `DUP` budgets like every message.
 *
 * ---- Counterexamples of qlock-readers-nopoll and -nodeny ----
 *
 * The wrong rules' counterexamples:
 *
 * - **No row 4** (`qlock-readers-nopoll`): a reader holds; node 1's write
 *   meets it and gets QWAIT (WAITING, QSTATE {node 1's id, SWITCH}); the
 *   reader leaves; node 1's polls are forwarded to its own tenure (FWD_CNT
 *   1, 2), which it counts and ignores; node 0's write is forwarded to node
 *   1's tenure too and buffered. Nobody grants the tenure: at quiescence both
 *   writers wait, WAITING is set.
 * - **No `waiting` denial** (`qlock-readers-nodeny`, with `GIVEUP`): a reader
 *   holds; node 1 is the waiting writer, node 0's write is forwarded to its
 *   tenure; node 1 gives up and ends the tenure (QRELEASE denied by count,
 *   then QXFER to node 0 with count 1): approved, node 1's Q_GRANT grants
 *   node 0 while the reader is inside.
 *
 * ---- The ABORT of a waiting tenure (GIVEUPW): the rule as modelled ----
 *
 * The rule, as modelled:
 *
 * - **Switch, ABORT** (one pass, the answer `passed` or `aborted`):
 *   QHOLDER == id(event) and SWITCH set -> `passed`; the SCOREBOARD is
 *   marked over or not (both are explored: the P4 marks it, the C need not).
 *   Else a copy holds the counted lock (WRITER, SCOREBOARD's seq) ->
 *   `passed`, nothing marked. Else `aborted`, the event marked over (in
 *   the C the home answers it; the model's switch answers for it).
 * - **Switch, a copy of an event marked over**, after the LAST-UNLOCK stale
 *   check: row 4 (QHOLDER == id, SWITCH, not CLOSING) answers it as every
 *   poll, whatever the mark; LOCK == 0 -> the lock is taken and a second pass
 *   (a write RELEASE) releases it and NACKs (`nack_aborted_request`); WRITER
 *   and WAITING clear, READERS > 0 -> row 2: WAITING set, QSTATE untouched,
 *   a second pass (RELEASE of kind `waiting`) clears WAITING and NACKs;
 *   otherwise NACK, never forwarded. Between the two passes LOCK is set with
 *   QHOLDER 0 (writes are NACKed busy, readers wait): the LOCK invariant
 *   allows it only while an undo pass is pending.
 * - **Node, `passed`**: the requester polls on (the same request, same seq,
 *   while no copy and no answer of it is in flight, at most `2 + LOSS`
 *   polls); a QWAIT makes it the polling waiter; at QGRANT (or GRANTED, when a
 *   copy held the lock) it holds the tenure and passes it on at once: QXFER
 *   to its queue's head or QRELEASE, nothing delivered (SWMR, ONCE and FIFO
 *   still asserted on that grant).
 * - **Node, `aborted`**: the event is forgotten (state GONE, no polls, no
 *   retries). Its holder slot still takes what a copy queued before the
 *   ABORT brings: forwards for its tenure are buffered and a Q_GRANT is
 *   passed on (QXFER to the head or QRELEASE; the C's passing slot,
 *   `na_qslot.c`). A QWAIT, QGRANT or GRANTED for an `aborted` event is
 *   asserted never to come (`aborted` is final at the switch); under
 *   `NOABORTW` a QWAIT makes a polling slot and a grant is passed on, as the
 *   C's holder table does.
 * - An answer for an event that is no longer waiting for it (a late
 *   duplicate, or after a grant arrived first) is ignored.
 *
 * ---- Counterexample of qlock-readers-noabortw ----
 *
 * The wrong rule's counterexample (`qlock-readers-noabortw`): a reader
 * holds; node 1's write meets it and becomes the waiting writer (WAITING,
 * QSTATE {node 1's id, SWITCH}); the QWAIT is lost; the reader leaves; node 1
 * gives the event up and its ABORT is answered `aborted`; node 1 forgets it
 * and nobody polls. Node 0's write (and its retransmission) is forwarded to
 * the tenure (FWD_CNT 1, 2), which nobody grants: at quiescence node 0
 * waits, WAITING and QSTATE {node 1's id, SWITCH} stay.
 */
