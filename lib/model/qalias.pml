/*
 * SPIN model of the queue holder id's seq width (docs/MODEL.md "The queue
 * holder id's width"; issue 28 item 2). QSTATE names its tenure by an id
 * that keeps IDW bits of the holder's seq (the C and P4: 16); a QRELEASE is
 * matched on that id. A delayed copy of an executed QRELEASE of seq s
 * meets the requester's later tenure s + 2^IDW of the same block.
 *
 *   - node 0, one thread: EV write events on Y, seqs 1..EV; each is granted
 *     by the switch (the lock free) or NACKed and retried with the same
 *     seq; the thread holds Y, then ends the tenure with QRELEASE (queue
 *     empty: nobody else queues here), resent on the timer until answered.
 *   - node 1: one write event on Y (seq 1): the second writer that SWMR
 *     watches for.
 *   - the switch: LOCK Y (writer), QSTATE {QHOLDER, CLOSING}, QRELEASE's
 *     gate QGATE[r] {seq, open}, QRELEASE in two passes (the second in a
 *     FIFO, first passes in between), as PROTOCOL.md "Queued locks".
 *   - network: a bag; DUP duplications of QRELEASE copies (a duplicate may
 *     stay in the bag for any number of later events).
 *
 * Rules:
 *   default  QHOLDER keeps IDW bits of the seq (today's C, P4: IDW 16)
 *   FULL     QHOLDER matched on the whole seq (the model's seqs 1..EV)
 *   GATESEQ  a QRELEASE's first pass opens QGATE only for a seq other than
 *            the gate's (default, PROTOCOL.md: unless it is {seq, open}):
 *            {seq, closed} means that seq's QRELEASE executed, and a later
 *            copy must not reopen it for a second pass still pending
 *
 * The fix (run qalias-fix*): TOKEN and WIN together. Per packet each
 * register is read-modify-written once, in pipeline order SCOREBOARD,
 * QGATE, LOCK, QSTATE; the second pass is a resubmit whose metadata the
 * first pass wrote.
 *   WIN      SCOREBOARD[r] (stage 1) keeps the requester's latest seq, the
 *            whole 32 bits (as today: a later seq moves it on; C, P4: the entry
 *            of the seq's parity, the alias distance being even). A QRELEASE
 *            whose seq is 2^(IDW-1) or more before it (serial order; C, P4:
 *            2^15) is stale: metadata `q_stale`; QGATE and QSTATE are left as
 *            they are, the answer is reason 0 (duplicate ignored), no resubmit.
 *            A copy that meets a later tenure with the same id (2^IDW seqs on)
 *            is always stale; a given-up tenure's QRELEASE sent after later
 *            seqs' (fewer than 2^(IDW-1)) still executes.
 *   TOKEN    QGATE[r] (stage 2) = {seq, epoch << 1 | open}; a first pass not
 *            stale: unless QGATE is {seq, open}, seq written, epoch + 1 (EPW
 *            bits; C, P4: 16), open; the resulting epoch goes in the resubmit
 *            metadata (4.8 score, 16 bits). QSTATE stage as today (approved:
 *            {id, CLOSING}, resubmit). Second pass, QGATE stage: executes iff
 *            QGATE == {seq, its epoch, open}, and closes it in the same
 *            register action (rv = executes); LOCK and QSTATE act on that bit
 *            as today. A denied or late copy may reopen the gate, but under a
 *            new epoch, so a second pass approved before the reopening never
 *            executes: one execution per opening, for the tenure that approved
 *            it. Any order of seqs is kept (the gate is not LAST-UNLOCK). EPW 1
 *            fails (FULL, EV 4, DUP 3: the epoch wraps between two openings
 *            while a pass is pending).
 *   GATEFIRST the C and P4 stage order: QGATE (P4 stage 1) before the
 *            SCOREBOARD verdict (stage W+5), so a stale copy still opens
 *            QGATE (a new epoch) and only its QSTATE step and resubmit are
 *            skipped; with WIN and TOKEN it passes as the fix does.
 * Alternative:
 *   STALE    QGATE's seq moves only forward: a QRELEASE before QGATE's
 *            seq, or equal to it with QGATE closed, is stale (as WIN).
 *            Passes (IDW 1-2, EV 5, DUP 3) with the seq as the token, but
 *            a given-up tenure's QRELEASE sent after a later seq's is
 *            stale and its block stays locked (not in this model).
 *
 * Properties: SWMR on Y (ghost holder); at quiescence both nodes done, Y
 * free, QSTATE {0, 0}.
 */

#ifndef EV
#define EV 3
#endif
#ifndef IDW
#define IDW 1
#endif
#ifndef DUP
#define DUP 1
#endif
#ifndef EPW
#define EPW 1
#endif
#define NSLOT 5
#define SW 2
#define CLOSING 1
#ifdef FULL
#define SEQID(s) (s)
#else
#define SEQID(s) ((s) % (1 << IDW))
#endif
#define ID(r, s) (((r) + 1) * 16 + SEQID(s))

#define REQ 1
#define GRANT 2
#define NACK 3
#define QREL 4
#define QACK 5 /* a = reason */
#define R_OK 0
#define R_NOTHOLDER 2
#define R_CLOSING 3

typedef msg_t { byte t; byte dst; byte src; byte seq; byte a };
msg_t net[NSLOT];
hidden msg_t tmp;
byte dup = 0;

/* switch */
bit yw = 0;
byte qhi = 0; bit qcl = 0;
byte gs[2]; bit gopen[2];          /* QGATE[r] {seq, open} */
byte ge[2];                        /* TOKEN: QGATE[r]'s epoch, EPW bits */
byte sb[2];                        /* WIN: SCOREBOARD[r]'s seq (latest seen) */
#ifdef WIN
#define SBSEQ(r, s) if :: s > sb[r] -> sb[r] = s :: else -> skip fi
#else
#define SBSEQ(r, s) skip
#endif
chan rs = [4] of { byte, byte, byte }; /* second passes: r, s, token */

/* nodes: 0 idle, 1 requested, 2 holding, 3 releasing, 4 done */
byte st[2], seq[2];
byte holder = 255;                 /* ghost: the node holding Y's write lock */

#define SL(i, T, D, S, Q) (net[i].t == T && net[i].dst == D && net[i].src == S && net[i].seq == Q)
#define ANY(T, D, S, Q) (SL(0, T, D, S, Q) || SL(1, T, D, S, Q) || SL(2, T, D, S, Q) || \
	SL(3, T, D, S, Q) || SL(4, T, D, S, Q))
#define TO(i, D) (net[i].t != 0 && net[i].dst == D)
#define HAS(D) (TO(0, D) || TO(1, D) || TO(2, D) || TO(3, D) || TO(4, D))

inline put(T, D, S, Q, A)
{
	i = 0;
	do
	:: i < NSLOT && net[i].t != 0 -> i++
	:: i < NSLOT && net[i].t == 0 ->
		net[i].t = T; net[i].dst = D; net[i].src = S; net[i].seq = Q; net[i].a = A; break
	:: i == NSLOT -> assert(false)
	od
}

#define KEY(m) (m.t * 16777216 + m.dst * 65536 + m.src * 4096 + m.seq * 16 + m.a)
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
					tmp.seq = net[i].seq; tmp.a = net[i].a;
					net[i].t = net[i + 1].t; net[i].dst = net[i + 1].dst;
					net[i].src = net[i + 1].src; net[i].seq = net[i + 1].seq;
					net[i].a = net[i + 1].a;
					net[i + 1].t = tmp.t; net[i + 1].dst = tmp.dst; net[i + 1].src = tmp.src;
					net[i + 1].seq = tmp.seq; net[i + 1].a = tmp.a
				:: else -> skip
				fi;
				i++
			:: else -> break
			od;
			j++
		:: else -> break
		od;
		i = 0; j = 0; k = 0; r = 0; s = 0; e = 0
	}
}

#define SCRATCH byte i, j, k, r, s, e

proctype network()
{
	SCRATCH;
end:	do
	:: atomic { dup < DUP && (HAS(SW)) ->
		k = 0;
		do :: k < NSLOT - 1 -> k++ :: break od;
		if
		:: net[k].t == QREL -> dup++; put(net[k].t, net[k].dst, net[k].src, net[k].seq, net[k].a)
		:: else -> skip
		fi; norm() }
	od
}

/* QRELEASE's first pass at QGATE */
inline gate_open(r, s)
{
#if defined(GATESEQ)
	if :: gs[r] != s -> gs[r] = s; gopen[r] = 1 :: else -> skip fi
#else
	if
	:: !(gs[r] == s && gopen[r]) -> gs[r] = s; gopen[r] = 1;
#ifdef TOKEN
		ge[r] = (ge[r] + 1) % (1 << EPW)
#else
		skip
#endif
	:: else -> skip
	fi
#endif
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
			r = net[k].src; s = net[k].seq; e = net[k].t; net[k].t = 0;
			printf("@a switch receives kind %d r%d seq%d\n", e, r, s);
			if
			:: e == REQ && !yw -> SBSEQ(r, s); yw = 1; qhi = ID(r, s); qcl = 0; put(GRANT, r, SW, s, 0)
			:: e == REQ && yw -> SBSEQ(r, s); put(NACK, r, SW, s, 0)
			:: e == QREL ->
#if defined(GATEFIRST)
			gate_open(r, s);
#endif
#if defined(WIN)
			/* SCOREBOARD stage: a seq half the id's seq space or more
			 * before the requester's latest is stale (the gate and
			 * QSTATE stages leave everything as it is) */
			if
			:: sb[r] >= s + (1 << (IDW - 1)) ->
				put(QACK, r, SW, s, R_OK); goto qdone
			:: else -> SBSEQ(r, s)
			fi;
#endif
#if defined(STALE)
			/* QGATE's seq only moves forward: an older seq, or the
			 * gate's own seq once executed (closed), is stale */
			if
			:: s < gs[r] || (s == gs[r] && !gopen[r]) ->
				put(QACK, r, SW, s, R_OK); goto qdone
			:: else -> skip
			fi;
#endif
#if !defined(GATEFIRST)
			gate_open(r, s);
#endif
			if
			:: qhi == ID(r, s) -> qcl = CLOSING; rs!r, s, ge[r]
			:: else -> put(QACK, r, SW, s, R_NOTHOLDER)
			fi;
qdone:			skip
			fi
		:: else -> skip
		fi; norm() }
	:: atomic { rs?r, s, e ->
		if
		:: gs[r] == s && gopen[r] && ge[r] == e ->
			gopen[r] = 0; yw = 0; qhi = 0; qcl = 0;
			printf("@a switch: QRELEASE r%d seq%d executed\n", r, s);
			put(QACK, r, SW, s, R_OK)
		:: !(gs[r] == s && gopen[r] && ge[r] == e) && qhi == ID(r, s) && qcl -> put(QACK, r, SW, s, R_CLOSING)
		:: else -> put(QACK, r, SW, s, R_OK)
		fi; norm() }
	od
}

inline receive(h)
{
	k = 0;
	do :: k < NSLOT - 1 -> k++ :: break od;
	if
	:: net[k].t != 0 && net[k].dst == h ->
		e = net[k].t; s = net[k].seq; r = net[k].a; net[k].t = 0;
		if
		:: e == GRANT && st[h] == 1 && s == seq[h] ->
			printf("@a node %d: seq%d holds Y\n", h, s);
			assert(holder == 255); /* SWMR */
			holder = h; st[h] = 2
		:: e == NACK && st[h] == 1 && s == seq[h] -> put(REQ, SW, h, s, 0)
		:: e == QACK && st[h] == 3 && s == seq[h] && (r == R_OK || r == R_NOTHOLDER) ->
			if
			:: h == 0 && seq[h] < EV -> seq[h]++; st[h] = 1; put(REQ, SW, h, seq[h], 0)
			:: else -> st[h] = 4
			fi
		:: else -> skip
		fi
	:: else -> skip
	fi
}

proctype node(byte h)
{
	SCRATCH;
end:	do
	:: atomic { st[h] == 0 -> seq[h] = 1; st[h] = 1; put(REQ, SW, h, 1, 0); norm() }
	:: atomic { st[h] == 2 -> holder = 255; st[h] = 3; put(QREL, SW, h, seq[h], 0); norm() }
	/* the timer: resend the QRELEASE while neither it nor an answer is in flight */
	:: atomic { st[h] == 3 && !ANY(QREL, SW, h, seq[h]) && !ANY(QACK, h, SW, seq[h]) && len(rs) == 0 ->
		put(QREL, SW, h, seq[h], 0); norm() }
	:: atomic { HAS(h) -> receive(h); norm() }
	od
}

proctype quiet()
{
	timeout ->
	atomic {
		printf("@a QUIET: nodes %d %d Y %d Q %d/%d\n", st[0], st[1], yw, qhi, qcl);
		assert(st[0] == 4 && st[1] == 4 && yw == 0 && qhi == 0 && len(rs) == 0)
	}
}

init {
	atomic {
		st[0] = 0; st[1] = 0;
		run sw(); run network(); run node(0); run node(1); run quiet()
	}
}
