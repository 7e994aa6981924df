/*
 * The nodes of qorder.pml: node 0's thread and Y slot, node 1 (a reader or
 * a queue holder of Y). Included by qorder.pml.
 */

inline popc(x, c)
{
	c = 0; j = x;
	do :: j != 0 -> c = c + (j & 1); j = j >> 1 :: else -> break od
}

inline grant_w(h)
{
	printf("@q slot %d: seq%d holds Y\n", h, cur[h]);
	assert(wh == 0 && rdh == 0); /* SWMR */
	wh = ID(h, cur[h]);
	assert(grants[ID(h, cur[h])] == 0); /* ONCE */
	grants[ID(h, cur[h])] = 1;
	st[h] = HOLD
}

/* QXFER to the queued request or QRELEASE, with the count of forwards */
inline holder_end(h)
{
	popc(recv[h], f);
	if :: fcnt[h] > f -> f = fcnt[h] :: else -> skip fi;
	if :: wh == ID(h, cur[h]) -> wh = 0 :: else -> skip fi;
	nxt[h] = qe[h];
	if
	:: qe[h] == 0 -> printf("@q slot %d: QRELEASE seq%d count %d\n", h, cur[h], f);
		put(QREL, SW, h, cur[h], f, 0)
	:: else -> printf("@q slot %d: QXFER seq%d count %d next %d\n", h, cur[h], f, qe[h]);
		put(QXFER, SW, h, cur[h], f, qe[h])
	fi;
	st[h] = ENDING
}

/* a grant reached slot h: the thread's (node 0, not given up) or at once
 * passed on (given up; node 1 holds only for a moment) */
inline took(h)
{
	grant_w(h);
	if
	:: h == 1 -> n1 = 4; holder_end(h)
	:: h == 0 && gu[0] -> holder_end(h)
	:: else -> tst = T_CSY
	fi
}

#ifdef HOME
#define RESEND_OK(c) ((c) < RESEND)
#define BUMP(c) c = c + 1
#else
#define RESEND_OK(c) true
#define BUMP(c) skip
#endif
#define ENDING_DUE(h) (st[h] == ENDING && RESEND_OK(ends[h]) && !ANY(QXFER, SW, h, cur[h]) && !ANY(QREL, SW, h, cur[h]) && \
	!ANY(QACK, h, SW, cur[h]) && len(rs) == 0 && !ANYFWD(ID(h, cur[h])))
#define GIVING_DUE(h) (st[h] == GIVING && !ANY(QG, IDR(nxt[h]), h, IDS(nxt[h])) && \
	!ANY(QGA, h, IDR(nxt[h]), IDS(nxt[h])))
#define QUIET_REQ(h, s) (!ANY(REQ, SW, h, s) && !ANY(GRANT, h, SW, s) && !ANY(NACK, h, SW, s) && \
	!ANY(QWAIT, h, SW, s) && !ANY(QGR, h, SW, s))
/* polls: one while the readers hold, the rest once they are gone */
#define POLL_DUE(h) (st[h] == POLL && QUIET_REQ(h, cur[h]) && polls[h] < 2 + LOSS && \
	(polls[h] == 0 || yr == 0))

/* everything addressed to node h (its thread and its Y slot) */
inline receive(h)
{
	k = 0;
	do :: k < NSLOT - 1 -> k++ :: break od;
	if
	:: net[k].t != 0 && net[k].dst == h ->
		e = net[k].t; src = net[k].src; s = net[k].seq; a = net[k].a; b = net[k].b;
		net[k].t = 0;
		printf("@q node %d receives kind %d src %d seq%d a %d b %d\n", h, e, src, s, a, b);
		if
		/* node 0's X events */
		:: h == 0 && e == GRANT && tst == T_WX && s == tseq && a == 0 -> tst = T_CSX
		:: h == 0 && e == NACK && tst == T_WX && s == tseq -> put(REQ, SW, 0, s, 0, 0)
		:: h == 0 && e == UACK && ul == s -> ul = 0
		/* node 1's read */
		:: h == 1 && e == GRANT && n1 == 1 && n1rd && s == 1 && b == 1 ->
			assert(wh == 0); rdh++; n1 = 2
		:: h == 1 && e == NACK && n1 == 1 && n1rd && s == 1 -> put(REQ, SW, 1, 1, 1, 1)
		:: h == 1 && e == UACK && n1 == 3 -> n1 = 4
		/* the Y slot */
		:: e == GRANT && a == 1 && s == cur[h] && (st[h] == WAIT || st[h] == POLL) -> took(h)
		:: e == GRANT && a == 1 && s == cur[h] && st[h] == GONE -> assert(false) /* aborted is final */
		:: e == QWAIT && s == cur[h] && st[h] == WAIT -> st[h] = POLL
		:: e == QGR && s == cur[h] && (st[h] == WAIT || st[h] == POLL) -> took(h)
		:: e == QGR && s == cur[h] && st[h] == GONE -> assert(false)
		:: e == NACK && !(h == 0 && tst == T_WX && s == tseq) && !(h == 1 && n1rd) &&
		   s == cur[h] && st[h] == WAIT && !qd[h] && !gu[h] -> put(REQ, SW, h, s, 1, 0) /* retry */
		:: e == QNACK && s == cur[h] && st[h] == WAIT -> qd[h] = 0; put(REQ, SW, h, s, 1, 0)
		:: e == FWD && b == ID(h, cur[h]) && st[h] != IDLE && st[h] != GIVING ->
			recv[h] = recv[h] | (1 << (a - 1));
			if
			:: ID(src, s) != b && qe[h] != ID(src, s) ->
				assert(qe[h] == 0); qe[h] = ID(src, s);
				if :: st[src] == WAIT && cur[src] == s -> qd[src] = 1 :: else -> skip fi
			:: else -> skip
			fi
		:: e == FWD && !(b == ID(h, cur[h]) && st[h] != IDLE && st[h] != GIVING) ->
			put(QNACK, src, h, s, 0, 0)
		:: e == QACK && st[h] == ENDING && s == cur[h] ->
			if
			:: a == R_OK || a == R_NOTHOLDER ->
				if :: h == 0 && ul == s && !ulx -> ul = 0 :: else -> skip fi;
				if
				:: nxt[h] == 0 -> st[h] = IDLE
				:: else -> st[h] = GIVING; put(QG, IDR(nxt[h]), h, IDS(nxt[h]), 0, 0)
				fi
			:: a == R_COUNT -> fcnt[h] = b
			:: else -> skip /* closing, waiting: again on the timer */
			fi
		:: e == QG ->
			if
			:: s == cur[h] && (st[h] == WAIT || st[h] == POLL || st[h] == GONE) -> took(h)
			:: else -> skip
			fi;
			put(QGA, src, h, s, 0, 0)
		:: e == QGA && st[h] == GIVING && ID(src, s) == nxt[h] -> st[h] = IDLE
		:: else -> skip
		fi
	:: else -> skip
	fi
}

/* node 0 gives its Y write up: the ABORT as one round trip (4.9, and the
 * waiting writer's tenure "passed"); the slot goes on alone */
inline give_up()
{
	s = cur[0]; k = SBI(0, s);
	e = sbs[k] == s && ((sbc[k] & CLAIMED) || (!(sbc[k] & ENDED) && sbc[k] > 0));
	if
	:: !e && sbs[k] == s -> sbc[k] = ENDED
	:: !e && AFTER(s, sbs[k]) -> sbs[k] = s; sbc[k] = ENDED
	:: else -> skip
	fi;
	gu[0] = 1; gave++; tst = T_IDLE;
	if
	:: e -> printf("@q node 0: ABORT seq%d: a copy holds the lock\n", s); took(0)
	:: !e && qhi == ID(0, s) && (qlo & SWITCHF) ->
		printf("@q node 0: ABORT seq%d: the waiting tenure passed\n", s); st[0] = POLL
	:: else -> printf("@q node 0: ABORT seq%d: aborted\n", s); st[0] = GONE
	fi
}

proctype node0()
{
	SCRATCH;
	byte ev = 0;
end:	do
	/* a new event: one unlock in flight, none of its parity */
	:: atomic { tst == T_IDLE && ev < EV0 && (ul == 0 || (ul & 1) != ((ev + 1) & 1)) ->
		ev++; tseq = ev;
		if
		:: !ydone && st[0] == IDLE -> ydone = 1; tst = T_WY;
			cur[0] = tseq; st[0] = WAIT; gu[0] = 0; qd[0] = 0;
			recv[0] = 0; fcnt[0] = 0; qe[0] = 0; nxt[0] = 0;
			printf("@q node 0: seq%d writes Y\n", tseq);
			put(REQ, SW, 0, tseq, 1, 0)
		:: true -> tst = T_WX;
			printf("@q node 0: seq%d reads X\n", tseq);
			put(REQ, SW, 0, tseq, 0, 0)
		fi; norm() }
	:: atomic { tst == T_IDLE && ev == EV0 -> tst = T_DONE }
	:: atomic { tst == T_CSX && ul == 0 -> ul = tseq; ulx = 1; tst = T_IDLE;
		if :: uls != 0 -> uls = 0 :: else -> skip fi;
		put(UNL, SW, 0, tseq, 0, 0); norm() }
	:: atomic { tst == T_CSY && ul == 0 -> ul = tseq; ulx = 0; tst = T_IDLE;
		holder_end(0); norm() }
	:: atomic { tst == T_WY && !gu[0] && gave < GIVEUP && (st[0] == WAIT || st[0] == POLL) ->
		give_up(); norm() }
	/* timers */
	:: atomic { ul != 0 && ulx && !ANY(UNL, SW, 0, ul) && !ANY(UACK, 0, SW, ul) && len(rs) == 0 &&
		RESEND_OK(uls) -> BUMP(uls); put(UNL, SW, 0, ul, 0, 0); norm() }
	:: atomic { tst == T_WX && loss > 0 && QUIET_REQ(0, tseq) -> put(REQ, SW, 0, tseq, 0, 0); norm() }
	:: atomic { st[0] == WAIT && !gu[0] && !qd[0] && loss > 0 && QUIET_REQ(0, cur[0]) ->
		put(REQ, SW, 0, cur[0], 1, 0); norm() }
	:: atomic { POLL_DUE(0) -> polls[0]++; put(REQ, SW, 0, cur[0], 1, 0); norm() }
	:: atomic { ENDING_DUE(0) -> BUMP(ends[0]); holder_end(0); norm() }
	:: atomic { GIVING_DUE(0) -> put(QG, IDR(nxt[0]), 0, IDS(nxt[0]), 0, 0); norm() }
	:: atomic { HAS(0) -> receive(0); norm() }
	od
}

proctype node1()
{
	SCRATCH;
end:	do
	:: atomic { n1 == 0 && (RD1 == 1 || RD1 == 2) -> n1 = 1; n1rd = 1;
		put(REQ, SW, 1, 1, 1, 1); norm() }
	:: atomic { n1 == 0 && (RD1 == 0 || RD1 == 2) -> n1 = 1; cur[1] = 1; st[1] = WAIT;
		put(REQ, SW, 1, 1, 1, 0); norm() }
	:: atomic { n1 == 2 -> rdh--; n1 = 3; put(UNL, SW, 1, 1, 1, 0); norm() }
	/* timers */
	:: atomic { n1 == 3 && !ANY(UNL, SW, 1, 1) && !ANY(UACK, 1, SW, 1) && len(rs) == 0 ->
		put(UNL, SW, 1, 1, 1, 0); norm() }
	:: atomic { n1 == 1 && n1rd && loss > 0 && QUIET_REQ(1, 1) -> put(REQ, SW, 1, 1, 1, 1); norm() }
	:: atomic { st[1] == WAIT && !qd[1] && loss > 0 && QUIET_REQ(1, 1) ->
		put(REQ, SW, 1, 1, 1, 0); norm() }
	:: atomic { POLL_DUE(1) -> polls[1]++; put(REQ, SW, 1, 1, 1, 0); norm() }
	:: atomic { ENDING_DUE(1) -> BUMP(ends[1]); holder_end(1); norm() }
	:: atomic { GIVING_DUE(1) -> put(QG, IDR(nxt[1]), 1, IDS(nxt[1]), 0, 0); norm() }
	:: atomic { HAS(1) -> receive(1); norm() }
	od
}

proctype quiet()
{
	timeout ->
	atomic {
		printf("@q QUIET: t %d ul %d n1 %d slots %d %d X %d Y %d/%d/%d Q %d/%d\n",
			tst, ul, n1, st[0], st[1], xrd, yw, yq, yr, qhi, qlo);
		assert(tst == T_DONE && ul == 0 && n1 == 4 &&
		       (st[0] == IDLE || st[0] == GONE) && st[1] == IDLE && len(rs) == 0);
		assert(xrd == 0);
		assert(yw == 0 && yq == 0 && yr == 0);
		assert(qhi == 0 && qlo == 0)
	}
}

init {
	atomic {
		run sw(); run network(); run node0(); run node1(); run quiet()
	}
}
