/*
 * SCOREBOARD rows reused (issue 28, the test-migration hang: a switch block
 * with four reader locks and no holder, every requester's row for it
 * overwritten by a later seq of the same parity, every writer NACKed for
 * ever). SCOREBOARD keeps one row per requester thread and seq parity
 * (PROTOCOL.md 4.2); a request of seq s+2 that passes moves the row on
 * (lcf_stage_sb_request), and from then on the unlock and the ABORT of s
 * find it over: if s's copy still held a lock, nothing can free it.
 *
 * One node, two reader threads, each running events seq 1..NSEQ (so seq 3
 * reuses seq 1's row). Copies of a thread's requests, unlocks and ABORTs
 * cross the switch in order (one swswitch worker, one path), any of them
 * may be lost, and so may any answer. A recovery round (the settle's, one)
 * makes a thread whose event has no grant give it up, its copy possibly
 * holding a switch lock (its GRANT lost).
 *
 * Today's rule (-DOLD): some path ends such an event with neither an
 * unlock nor an answered ABORT, and the thread goes on to its next seqs:
 * the quarantine's exits through a round (the tag's home declared dead,
 * or the thread stopping: na_req_quarantine breaks, settle_stale finds the
 * replies incomplete and returns), na_req_event's give-up when stopping.
 * Default (the rule): an event dropped for any reason stays quarantined,
 * ABORT until answered ("a copy passed": re-ask, collect, unlock with its
 * seq), and a thread never starts seq s+2 while s may hold a switch lock.
 *
 * Checked: a row is never moved on while it counts a lock (the switch's
 * pipeline.sb_held_overwritten), and at the end no reader lock is left.
 */
#ifndef NSEQ
#define NSEQ 3
#endif
#ifndef COPIES
#define COPIES 2 /* request copies per event */
#endif
#define NT 2

mtype = { REQ, UNL, ABT, GRANT, NACK, UACK, PASSED, ABORTED };

chan net = [2] of { mtype, byte, byte };   /* node -> switch, in order */
chan rep[NT] = [2] of { mtype, byte };     /* switch -> thread */

byte readers;            /* the block's LOCK (readers) */
byte rseq[2 * NT];       /* SCOREBOARD row: its seq */
byte rcnt[2 * NT];       /* locks it counts; 255 = ENDED */
byte lu[NT];             /* LAST-UNLOCK */
bit round_used;          /* the one round */
byte finished;

#define ROW(t, s) ((t) * 2 + ((s) % 2))
#define ENDED 255

/* Lossy answer. */
inline answer(t, k, s)
{
	if
	:: rep[t] ! k, s
	:: skip /* lost */
	fi
}

active proctype sw()
{
	mtype k;
	byte t, s, r;

end:	do
	:: atomic {
		net ? k, t, s -> r = ROW(t, s);
		if
		:: k == REQ ->
			if
			:: s <= lu[t] || (rseq[r] == s && rcnt[r] == ENDED) ||
			   rseq[r] > s -> answer(t, NACK, s)
			:: else ->
				if
				:: rseq[r] == s && rcnt[r] > 0 ->
					skip /* passes on its score */
				:: else ->
					if
					:: rseq[r] != s ->
						/* the row moves on */
						assert(rcnt[r] == 0 ||
						       rcnt[r] == ENDED);
						rseq[r] = s
					:: else
					fi;
					rcnt[r] = 1;
					readers++
				fi;
				answer(t, GRANT, s)
			fi
		:: k == UNL ->
			if
			:: s > lu[t] && rseq[r] == s && rcnt[r] != ENDED ->
				readers = readers - rcnt[r];
				rcnt[r] = ENDED
			:: else
			fi;
			if
			:: s > lu[t] -> lu[t] = s
			:: else
			fi;
			answer(t, UACK, s)
		:: k == ABT ->
			if
			:: rseq[r] == s && rcnt[r] > 0 && rcnt[r] != ENDED ->
				answer(t, PASSED, s)
			:: else ->
				if
				:: rseq[r] == s || rseq[r] < s ->
					rseq[r] = s; rcnt[r] = ENDED
				:: else
				fi;
				answer(t, ABORTED, s)
			fi
		fi }
	od
}

proctype thread(byte t)
{
	byte s = 1, k, a, c;
	bit granted, sent;

	do
	:: s > NSEQ -> break
	:: s <= NSEQ ->
		granted = 0;
		c = 0;
		/* The event: request copies until granted or given up. */
		do
		:: atomic { !granted && c < COPIES && nfull(net) ->
			net ! REQ, t, s; c++ }
		:: atomic { rep[t] ? k, a ->
			if
			:: k == GRANT && a == s -> granted = 1
			:: else /* a late answer of an earlier seq */
			fi }
		:: granted -> break
		:: atomic { !granted && !round_used ->
			/* a round on the tag: the event is given up, a copy
			 * may hold the lock (its GRANT lost) */
			round_used = 1 };
#ifdef OLD
			goto next; /* no unlock, no ABORT */
#else
			goto quarantine;
#endif
		:: atomic { !granted && c > 0 && empty(net) && empty(rep[t]) ->
			/* NACKed or lost for good: quarantined */
			skip };
			goto quarantine
		od;
		goto unlock;
quarantine:
		/* ABORT until answered; a copy passed: re-ask, then unlock. */
		sent = 0;
		do
		:: atomic { nfull(net) && !sent -> net ! ABT, t, s; sent = 1 }
		:: atomic { rep[t] ? k, a ->
			if
			:: k == ABORTED && a == s -> goto next
			:: k == PASSED && a == s -> granted = 1
			:: k == GRANT && a == s -> granted = 1
			:: else
			fi }
		:: atomic { sent && empty(net) && empty(rep[t]) -> sent = 0 }
		:: granted -> break
		od;
unlock:
		/* Unlock until acknowledged (one in flight, in seq order). */
		sent = 0;
		do
		:: atomic { nfull(net) && !sent -> net ! UNL, t, s; sent = 1 }
		:: atomic { rep[t] ? k, a ->
			if
			:: k == UACK && a == s -> goto next
			:: else
			fi }
		:: atomic { sent && empty(net) && empty(rep[t]) -> sent = 0 }
		od;
next:
		s++
	od;
	atomic { finished++ }
}

init
{
	atomic { run thread(0); run thread(1) }
	finished == NT;
	/* Both threads done: drain what is still in flight. */
	empty(net);
	assert(readers == 0)
}
