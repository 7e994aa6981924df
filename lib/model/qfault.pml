/*
 * Over 500 lines: one model of every fault flag, sharing the switch and
 * node code (the flags below).
 *
 * Queued locks under faults (docs/QUEUED-LOCKS.md 5, docs/FAULTS.md): a
 * switch restart and a node crash against the nodes' queue-holder rows
 * (node-agent/agents/na_qtable.c, na_qholder.c). One block, N nodes of one
 * thread, each thread EV write events; one row per node (IDLE, WAIT,
 * HOLD, ENDING, GIVING), a queue of two, the forward count.
 *
 * The switch: LOCK, QSTATE {holder, seq} and the tenure's forward count;
 * a write request takes a free lock (grant) or is forwarded to the
 * holder's tenure; QXFER / QRELEASE approved when they name the holder,
 * denied `count` below the forward count, else `not_holder` (which the
 * holder takes as approved). A message to a block not in the switch is a
 * tag miss: the home starts a recovery round (dropped: the requester and
 * the ending holder send again). The round: each live node gets BEGIN,
 * aborts its thread's unfinished event (retried after DONE with a new
 * seq); once all have, the home re-adds the block (power-on registers).
 *
 * Faults (one per run): RS=1 the switch restarts at any moment (LOCK,
 * QSTATE to power-on, the block gone); CR=1 node N-1 crashes at any
 * moment (messages to it dropped), the control plane evicts the block when
 * locked (lcf_pipeline_node_failed), the survivors are told (TOLD step).
 *
 * HOME: the block is home-owned (na_home_queue.c): no eviction; the home
 * drains (a round at once) a block whose tenure is the dead node's; the
 * rule adds a tenure it handed over (-DOLDHOME: not; its next holder
 * waits for ever for the Q_GRANT that died with it, na-sim crash sweep 63
 * run 125).
 *
 * Today's rule (-DOLD): the recovery and the node failure leave the rows
 * alone. A row of a tenure the fault ended is served by nobody: a WAIT
 * row given up with forwards (kept) waits for ever for its Q_GRANT and
 * its thread's next event finds the row busy (RS, na-sim --seed 24); a
 * GIVING row re-sends its Q_GRANT to the dead node for ever (CR).
 * The rule (default): at BEGIN a node resets every row of the round's
 * blocks (an ENDING row's unlock acknowledged: the lock died with the
 * switch); told a node failed, a survivor drops a GIVING row handing to
 * it and the node's entries in its queues.
 *
 * Properties: at most one writer (assert); at the end (timeout) every
 * live thread did its EV events, every live row is IDLE, no round runs;
 * -DFMAX=12: a tenure takes fewer than FMAX forwards (a request bounced
 * for ever by Q_NACK from a tenure nobody holds loops, and the end check
 * never runs). RS fails it (qfault-restart-fmax-old): node 0's REQ s1
 * waits in the network through the round; re-added, the block's lock is
 * free and power-on LAST-UNLOCK/SCOREBOARD do not know s1 (the home's
 * LAST-EXECUTED does, but the block is the switch's now): it takes the
 * lock, QSTATE {0, s1}; node 0 drops the GRANT (its thread is at s2) and
 * Q_NACKs every forward to s1.
 * Late copies across RS (the C's defences, each a flag):
 * -DQUAR: the requester's quarantine (na_req_event's give-up in a round,
 * na_req_quarantine): ABORT before the thread's next seq; a copy that took
 * the lock (SCOREBOARD claimed) is "passed", the thread unlocks with its
 * seq; else the seq ends in SCOREBOARD. A forward claims no score
 * (lcf_pipeline.c, count = lock taken).
 * -DLATE=k: the network holds up to k REQ copies, each let go at any later
 * moment (the sw channel is FIFO otherwise): node 1's s1 copy reaches the
 * re-added block while node 0's s2 holds it, is forwarded and queued at
 * node 0; node 1's ABORT finds no score: ended; node 0's QXFER to (1, s1)
 * is approved and its Q_GRANT, carrying node 1's s2 behind, finds node 1's
 * row at s2 (the round reset the slot and its gone records,
 * na_qreset.c): acknowledged, ignored; the block stays locked for a seq
 * nobody runs (qfault-restart-late: the recovery's re-add came REC_RETX_NS
 * after DONE, but a dynamic migration could ADD the rebuilt block at the
 * next epoch's end).
 * -DRHOLD (the rule): the re-ADD waits until no copy sent before the
 * reports can arrive (a packet lifetime, NA_ADD_HOLD_NS, as migdup.pml's
 * hold; na_add_hold_rebuilt, na_add_spaced): passes with or without QUAR.
 * -DLIVE: BEGIN and the quarantine are processes of their own (the node's
 * recovery agent, the requester thread), for a non-progress search under
 * weak fairness (-l -f), where FMAX would count a quarantine's transient
 * bounces.
 * As the C: a holder never queues its own request (na_qfifo_forward
 * DUP_REQ; N=3 failed the end check on a watchdog copy so queued); under
 * CR a REQ whose seq is over (LAST-UNLOCK, a round's LAST-EXECUTED) is
 * NACKed (PROTOCOL 4.2), or a late copy locks the re-added block for a
 * seq nobody runs (an FMAX failure at N=2).
 * HOME N=3 (-DOLDNEXT fails the end check): node 1's QXFER naming node 2
 * approved after node 2 was declared dead (the drain ran when the tenure
 * was node 1's); node 1 drops the GIVING row, node 0 waits for ever on a
 * dead node's tenure. The rule: refused (bad_next, na_home_q_end); the
 * holder resends, its queue rid of node 2 once told. -DCRQ: the crash only
 * while node N-1 heads a queue (the CI pair; the free crash is --deep).
 *
 * Bounds not explored: loss and duplication (no retransmission of a lost
 * Q_GRANT: a GIVING row to a dead node blocks instead of looping), one
 * thread per node, one block, a queue of two (N <= 3), seqs mod SQ=8 (no
 * wrap within the run), the home on no node (a dead home's rows:
 * na_qtable_node_failed resets them, not modelled), one fault per run,
 * the round's BEGIN processed atomically with the abort (the C resets at
 * the report, once the node is quiescent); QUAR: the passed copy's
 * replies are not modelled (the thread unlocks at ABORT_ACK), the ABORT
 * is never lost; LATE: requests only (no late QXFER/QRELEASE/forward).
 */
#ifndef N
#define N 2
#endif
#ifndef EV
#define EV 2
#endif
#ifndef RS
#define RS 0
#endif
#ifndef CR
#define CR 0
#endif
#define SQ   8
#define NONE 255
#define ALL  ((1 << N) - 1)

mtype = { REQ, XFER, REL, GRANT, FWD, QNACK, QGRANT, QGACK, XOK, XCNT, XBAD,
	  ABT, UNL, APASS, ADONE };

/* switch */
bool lock, present = 1, inround, faulted;
byte qh = NONE, qs, fc;
byte from = NONE; /* HOME: the node that handed the tenure over */
byte begun;
byte dead = NONE;
byte ovr[N]; /* per requester: its last seq over (LAST-UNLOCK, LAST-EXECUTED) */
/* A switch restart loses LAST-UNLOCK and SCOREBOARD: a late copy may lock
 * the re-added block (RS-old's counterexample); CR keeps them. */
#define OVER(a, b) (!RS && (b) <= ovr[a])
/* QUAR: the new switch's SCOREBOARD and LAST-UNLOCK per requester: the seq
 * whose copy took the write lock (claimed), the last seq ended (ABORT,
 * unlock, approved QXFER/QRELEASE); the thread's quarantine of the event
 * a round aborted (na_req_quarantine): ABORT sent, seq. */
byte sbc[N], sbe[N], qas[N];
bool quar[N], qsent[N];
bool lheld; /* LATE: a request copy held by the network */
/* RHOLD: the re-ADD waits until no copy sent before the reports can
 * arrive (a packet lifetime, NA_ADD_HOLD_NS, as migdup.pml's hold). */
#ifdef RHOLD
#define READD_OK (empty(sw) && !lheld)
#else
#define READD_OK 1
#endif
#ifdef QUAR
#define STALE(a, b) (OVER(a, b) || (b) <= sbe[a])
#define SBEND(a, b) if :: (b) > sbe[a] -> sbe[a] = b :: else -> skip fi
#else
#define STALE(a, b) OVER(a, b)
#define SBEND(a, b) skip
#endif
/* rows */
byte st[N], rs[N], cnt[N], qn[N], qsq[N], nx[N], nxs[N], dfc[N];
/* the queue's second place (N=3: one per other node, as the C's 64
 * never fill; a single place drops the third node's forward) */
byte q2[N], q2s[N];
bool kept[N], denied[N];
#define IDLE   0
#define WAIT   1
#define HOLD   2
#define ENDING 3
#define GIVING 4
/* threads */
byte ev[N], tseq[N], out[N], ackin[N];
bool inev[N], granted[N], writing[N], unl[N], wd[N], told[N];
byte nw;

chan sw = [12] of { mtype, byte, byte, byte, byte, byte };
chan nd[N] = [8] of { mtype, byte, byte, byte };

inline to_node(kk, tt, aa, bb, cc) {
	if
	:: kk != dead -> nd[kk] ! tt, aa, bb, cc
	:: else -> skip /* a crashed node receives nothing */
	fi
}

/* QXFER to the head or QRELEASE, with the count (na_qholder send_end). */
inline send_end(me) {
	st[me] = ENDING;
	denied[me] = 0;
	if
	:: qn[me] != NONE -> nx[me] = qn[me]; nxs[me] = qsq[me];
		sw ! XFER, me, rs[me], cnt[me], nx[me], nxs[me]
	:: else -> nx[me] = NONE; sw ! REL, me, rs[me], cnt[me], 0, 0
	fi;
	out[me]++
}

/* The rule: a row never queues nor hands to a node it was told failed. */
#ifdef OLD
#define GONE(k) 0
#else
#define GONE(k) (told[me] && (k) == dead)
#endif
/* HOME: a QXFER naming a node declared dead is refused (bad_next), as
 * the drain at the declaration did not take the holder's tenure
 * (-DOLDNEXT: approved, the tenure is a dead node's; N=3). */
#if defined(HOME) && !defined(OLDNEXT)
#define BADNEXT(k) ((k) == dead)
#else
#define BADNEXT(k) 0
#endif
#ifdef CRQ
#define CRQOK (qn[0] == N - 1 || qn[1] == N - 1)
#else
#define CRQOK 1
#endif
#ifdef OLDHOME
#define DRAINFROM 0
#else
#define DRAINFROM (from == dead)
#endif

inline reset_row(me) {
	st[me] = IDLE; qn[me] = NONE; q2[me] = NONE; nx[me] = NONE; cnt[me] = 0;
	kept[me] = 0; denied[me] = 0
}

/* The queue: the request (a, b) queued already (DUP_REQ); append. */
#define QHAS(me, a, b) (qn[me] == (a) && qsq[me] == (b) || \
			q2[me] == (a) && q2s[me] == (b))
inline q_add(me, a, b) {
	if
	:: qn[me] == NONE -> qn[me] = a; qsq[me] = b
	:: qn[me] != NONE && q2[me] == NONE -> q2[me] = a; q2s[me] = b
	:: else -> skip /* not reached at N <= 3 */
	fi
}

/* Q_GRANT's payload: the queue after its head, (node * SQ + seq + 1), 0
 * none; it goes before the receiver's buffered forwards (na_qholder_qgrant). */
#define REST(me) (q2[me] == NONE -> 0 : q2[me] * SQ + q2s[me] + 1)
inline q_import(me, c) {
	if
	:: c != 0 && !GONE((c - 1) / SQ) && !QHAS(me, (c - 1) / SQ, (c - 1) % SQ) ->
		q2[me] = qn[me]; q2s[me] = qsq[me];
		qn[me] = (c - 1) / SQ; qsq[me] = (c - 1) % SQ
	:: else -> skip
	fi
}

proctype sw_proc() {
	byte t, a, b, c, d, e;
end:	do
	:: sw ? t, a, b, c, d, e ->
		atomic {
		if
		:: t != REQ && t != ABT && t != UNL -> out[a]--
		:: else -> skip
		fi;
		if
		:: a == dead -> skip /* declared after the packet lifetime */
		/* ABORT (4.9): a copy of the event took the lock: "a copy
		 * passed" (the requester collects its replies and unlocks with
		 * the seq); else SCOREBOARD ends the seq, later copies over. A
		 * forward claims no score (lcf_pipeline.c pass_request_queue). */
		:: a != dead && t == ABT && sbc[a] == b && b > sbe[a] ->
			to_node(a, APASS, a, b, 0)
		:: a != dead && t == ABT && !(sbc[a] == b && b > sbe[a]) ->
			SBEND(a, b); to_node(a, ADONE, a, b, 0)
		/* its WRITE_UNLOCK, sent once the passed copy's reply came:
		 * that copy's tenure holds the lock (nobody else ends it) */
		:: a != dead && t == UNL ->
			assert(lock && qh == a && qs == b);
			lock = 0; qh = NONE; SBEND(a, b)
		:: a != dead && !present &&
		   (t == XFER || t == REL || t == REQ && !STALE(a, b)) ->
			/* tag miss: the home detects it, a round begins */
			if
			:: !inround -> inround = 1; begun = 0
			:: else -> skip
			fi
		:: a != dead && t == REQ && STALE(a, b) -> skip /* stale: NACK */
		:: a != dead && present && t == REQ && !STALE(a, b) && !lock ->
			lock = 1; qh = a; qs = b; fc = 0; from = NONE;
#ifdef QUAR
			sbc[a] = b;
#endif
			to_node(a, GRANT, a, b, 0)
		:: a != dead && present && t == REQ && !STALE(a, b) && lock ->
			if
			:: qh != NONE -> fc++;
#ifdef FMAX
				assert(fc < FMAX);
#endif
				to_node(qh, FWD, a, b, qs)
			:: else -> skip
			fi
		:: a != dead && present && t == XFER && qh == a && qs == b &&
		   BADNEXT(d) -> ackin[a]++; to_node(a, XBAD, b, 0, 0)
		:: a != dead && present && (t == XFER || t == REL) && qh == a && qs == b &&
		   !(t == XFER && BADNEXT(d)) && c < fc ->
			ackin[a]++; to_node(a, XCNT, b, fc, 0)
		:: a != dead && present && t == XFER && qh == a && qs == b &&
		   !BADNEXT(d) && c >= fc ->
			qh = d; qs = e; fc = 0; from = a; ackin[a]++; ovr[a] = b;
			SBEND(a, b);
			to_node(a, XOK, b, 0, 0)
		:: a != dead && present && t == REL && qh == a && qs == b && c >= fc ->
			lock = 0; qh = NONE; ackin[a]++; ovr[a] = b;
			SBEND(a, b);
			to_node(a, XOK, b, 0, 0)
		:: a != dead && present && (t == XFER || t == REL) && !(qh == a && qs == b) ->
			/* not_holder: taken as approved */
			ackin[a]++; to_node(a, XOK, b, 0, 0)
		fi
		}
	:: atomic { RS && !faulted -> faulted = 1;
		lock = 0; qh = NONE; present = 0;
		/* power-on SCOREBOARD and LAST-UNLOCK */
		for (t : 0 .. N - 1) { sbc[t] = 0; sbe[t] = 0 }; t = 0 }
	:: atomic { CR && !faulted && CRQOK -> faulted = 1; dead = N - 1;
		if
		:: writing[dead] -> writing[dead] = 0; nw-- /* it writes no more */
		:: else -> skip
		fi;
		if
#ifndef HOME
		:: lock -> lock = 0; qh = NONE; present = 0 /* evicted */
#else
		/* A home-owned block: the home drains it by a round when the
		 * tenure is the dead node's (today) or, the rule, was handed
		 * over by it (its Q_GRANT may never have left). */
		:: lock && (qh == dead || DRAINFROM) ->
			lock = 0; qh = NONE; present = 0; inround = 1; begun = 0
#endif
		:: else -> skip
		fi }
	:: atomic { inround && (begun | (dead != NONE -> (1 << dead) : 0)) == ALL &&
		    READD_OK ->
		inround = 0; present = 1 /* DONE; the block re-added empty */ }
	od
}

/* The round's BEGIN at a node (na_rec_node.c): the thread's event
 * aborted, the rows of the block reset (the rule). */
inline begin_step(me) {
	atomic { dead != me && inround && !(begun >> me & 1) ->
		begun = begun | (1 << me);
		if
		:: inev[me] ->
			if
			:: writing[me] -> writing[me] = 0; nw--
			:: else -> skip
			fi;
			inev[me] = 0; granted[me] = 0;
#ifdef QUAR
			/* given up: ABORT before the next seq (na_req_event) */
			quar[me] = 1; qsent[me] = 0; qas[me] = tseq[me]
#endif
		:: else -> skip
		fi;
		/* its seqs so far are over: the aborted event's, and an ENDING
		 * row's whose unlock died with the block (LAST-EXECUTED) */
		ovr[me] = tseq[me];
#ifndef OLD
		if
		:: st[me] == ENDING -> unl[me] = 0
		:: else -> skip
		fi;
		reset_row(me)
#endif
		}
}

proctype node(byte me) {
	byte t, a, b, c;
end:	do
	/* na_qtable_request: the thread's earlier event is given up first;
	 * an ENDING or GIVING row, or a kept one, is -EBUSY: it waits */
	:: atomic { dead != me && !inev[me] && ev[me] < EV && !inround &&
		    (st[me] == WAIT && !kept[me] || st[me] == HOLD) ->
		if
		:: st[me] == WAIT && cnt[me] == 0 -> reset_row(me)
		:: st[me] == WAIT && cnt[me] > 0 -> kept[me] = 1
		:: st[me] == HOLD -> send_end(me)
		fi }
	:: atomic { dead != me && !inev[me] && ev[me] < EV && !inround &&
		    !unl[me] && st[me] == IDLE && !quar[me] ->
		tseq[me] = (tseq[me] + 1) % SQ;
		inev[me] = 1; granted[me] = 0; wd[me] = 0;
		st[me] = WAIT; rs[me] = tseq[me]; cnt[me] = 0; qn[me] = NONE;
		q2[me] = NONE;
		kept[me] = 0; sw ! REQ, me, tseq[me], 0, 0, 0 }
	:: atomic { dead != me && inev[me] && granted[me] && !writing[me] ->
		writing[me] = 1; nw++; assert(nw == 1) }
	:: atomic { dead != me && writing[me] ->
		writing[me] = 0; nw--;
		inev[me] = 0; ev[me]++; unl[me] = 1; send_end(me) }
	/* the ending holder's retransmission (its copy was dropped) */
	:: atomic { dead != me && st[me] == ENDING && out[me] == 0 &&
		    ackin[me] == 0 && (!denied[me] || cnt[me] >= dfc[me]) ->
		send_end(me) }
	/* the requester's watchdog (a holder that may be dead) */
	:: atomic { dead != me && dead != NONE && inev[me] && !granted[me] &&
		    !wd[me] -> wd[me] = 1; sw ! REQ, me, tseq[me], 0, 0, 0 }
#ifndef LIVE
	:: begin_step(me)
#endif
	:: atomic { dead != NONE && dead != me && !told[me] -> told[me] = 1;
#ifndef OLD
		if
		:: st[me] == GIVING && nx[me] == dead -> reset_row(me)
		:: else -> skip
		fi;
		if
		:: q2[me] == dead -> q2[me] = NONE
		:: else -> skip
		fi;
		if
		:: qn[me] == dead -> qn[me] = q2[me]; qsq[me] = q2s[me];
			q2[me] = NONE
		:: else -> skip
		fi
#endif
		}
	:: nd[me] ? t, a, b, c ->
		atomic {
		if
		:: dead == me -> skip
		:: t == GRANT ->
			if
			:: inev[me] && tseq[me] == b && st[me] == WAIT &&
			   rs[me] == b -> st[me] = HOLD; granted[me] = 1
			:: else -> skip /* a stale reply */
			fi
		:: t == FWD ->
			if
			:: (st[me] == WAIT || st[me] == HOLD || st[me] == ENDING) &&
			   rs[me] == c ->
				cnt[me]++;
				if
				:: QHAS(me, a, b) || GONE(a) ||
				   a == me && b == rs[me] -> skip
				:: else -> q_add(me, a, b)
				fi
			:: else -> to_node(a, QNACK, a, b, 0)
			fi
		:: t == QNACK ->
			if
			:: inev[me] && tseq[me] == b && !granted[me] ->
				sw ! REQ, me, b, 0, 0, 0
			:: else -> skip
			fi
		:: t == QGRANT ->
			if
			:: st[me] == WAIT && rs[me] == b -> q_import(me, c)
			:: else -> skip
			fi;
			if
			:: st[me] == WAIT && rs[me] == b && !kept[me] ->
				/* GRANTED: the thread takes it if still in the
				 * event, else the row holds until its next */
				st[me] = HOLD;
				granted[me] = inev[me] && tseq[me] == b
			:: st[me] == WAIT && rs[me] == b && kept[me] ->
				kept[me] = 0; send_end(me) /* passed on */
			:: else -> skip
			fi;
			to_node(a, QGACK, me, b, 0)
		:: t == QGACK ->
			if
			:: st[me] == GIVING && nx[me] == a && nxs[me] == b ->
				reset_row(me)
			:: else -> skip
			fi
		:: t == XOK ->
			ackin[me]--;
			if
			:: st[me] == ENDING && rs[me] == a ->
				unl[me] = 0;
				if
				:: nx[me] == NONE -> reset_row(me)
				:: nx[me] != NONE && GONE(nx[me]) ->
					reset_row(me) /* never to a dead node */
				:: else -> st[me] = GIVING;
					to_node(nx[me], QGRANT, me, nxs[me], REST(me))
				fi
			:: else -> skip
			fi
		:: t == XBAD -> ackin[me]-- /* kept; the timer re-reads the head */
		:: t == APASS && quar[me] && qas[me] == b ->
			quar[me] = 0; sw ! UNL, me, b, 0, 0, 0
		:: t == ADONE && quar[me] && qas[me] == b -> quar[me] = 0
		:: (t == APASS || t == ADONE) && !(quar[me] && qas[me] == b) -> skip
		:: t == XCNT ->
			ackin[me]--;
			if
			:: st[me] == ENDING && rs[me] == a -> denied[me] = 1;
				dfc[me] = b
			:: else -> skip
			fi
		fi
		}
	od
}

#ifdef QUAR
/* The requester thread's quarantine (na_req_quarantine): once the round
 * is over, ABORT (no loss: sent once). Its own process, so that weak
 * fairness (-f) takes it while the node's agent bounces forwards. */
proctype qproc(byte me) {
end:	do
	:: atomic { quar[me] && !qsent[me] && !inround && dead != me ->
		qsent[me] = 1; sw ! ABT, me, qas[me], 0, 0, 0 }
	od
}
#endif

#ifdef LATE
/* -DLATE=k: the network holds up to k request copies (one at a time) and
 * lets each go at any later moment: a late copy overtakes what was sent
 * after it (the sw channel is FIFO otherwise). */
proctype late() {
	byte la, lb, n = LATE;
end:	do
	:: atomic { n > 0 && !lheld && sw?[REQ, _, _, _, _, _] ->
		sw ? REQ, la, lb, _, _, _; lheld = 1; n-- }
	:: atomic { lheld -> sw ! REQ, la, lb, 0, 0, 0; lheld = 0; la = 0; lb = 0 }
	od
}
#endif

#ifdef LIVE
/* -DLIVE (the non-progress runs, -l -f): BEGIN handled by its own process
 * (the node's recovery agent, not the thread retransmitting an unlock), so
 * that weak fairness takes it. */
proctype bproc(byte me) {
end:	do
	:: begin_step(me)
	od
}
#endif

/* End of run: the na-sim quiescence check. */
active proctype quiet() {
	byte i;
	timeout ->
	for (i : 0 .. N - 1) {
		assert(i == dead || (ev[i] == EV && st[i] == IDLE && !unl[i] &&
				     !quar[i]))
	}
	assert(!inround)
}

init {
	byte i;
	atomic {
		for (i : 0 .. N - 1) { qn[i] = NONE; q2[i] = NONE; nx[i] = NONE }
		run sw_proc();
		for (i : 0 .. N - 1) { run node(i) }
#ifdef QUAR
		for (i : 0 .. N - 1) { run qproc(i) }
#endif
#ifdef LIVE
		for (i : 0 .. N - 1) { run bproc(i) }
#endif
#ifdef LATE
		run late();
#endif
	}
}
