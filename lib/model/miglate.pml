/*
 * A late copy of an event that a settle's recovery round gave up, reaching
 * the switch after the block's re-ADD (issue 28, the second candidate for
 * the test-migration hang). The home settles an unanswered ADD that
 * installed the block after all (migrestart.pml): REMOVE until answered,
 * then, the switch no longer holding the block (migorphan.pml), a round:
 * the requester gives its event up with no unlock ("the switch that may
 * hold our lock is gone", na_req_event) and reports it UNSETTLED; the home
 * records the seq in its LAST-EXECUTED with a NACK (na_rec_home.c), ends
 * the round and ADDs the block again. The switch is not told: its
 * LAST-UNLOCK and SCOREBOARD rows of the requester only move with the
 * requester's next unlock or ABORT crossing it.
 *
 * Today's rule (-DOLD): the given-up event is not quarantined (no ABORT;
 * a quarantined event whose round recorded it drops its ABORT too,
 * na_rec_before's `settled`). A copy of it delayed in the network (a
 * frame held, the --delay fault, na-sim's adversarial delay) reaches the
 * switch after the re-ADD and before the requester's next unlock: not
 * stale, not over, the lock free: taken, forwarded, its reply discarded
 * by the requester; nobody unlocks it and every later request and REMOVE
 * of the block is NACKed (run miglate-old).
 * Default: the given-up event is quarantined as a NACKed one is: before
 * its next event the requester sends ABORT (seq 1) until answered
 * (PROTOCOL.md 4.9). A copy that took the lock first: ABORT_ACK
 * `abort_copy_passed`, the requester unlocks with that seq; otherwise the
 * ABORT ends the seq in SCOREBOARD and a later copy is over (run miglate).
 * The ABORT goes after the round's DONE, as here: in the C a quarantine
 * that meets a round on its block waits it out and asks afresh, what it
 * collected before being of locks the round ended (na_req_stale.c).
 *
 * With -DFIFO (no copy overtakes the requester's later report, one path
 * through the switch in order) today's rule passes: the late copy needs a
 * delay longer than the round (run miglate-old-fifo).
 *
 * Bounds: one block, one requester thread, its events seq 1 (given up)
 * and seq 2 (after the round), COPIES copies of seq 1 delivered in any
 * order and at any time (unbounded delay), one settle, the round atomic
 * but for the requester's give-up and report.
 */
#ifndef COPIES
#define COPIES 2
#endif

chan net = [COPIES] of { byte }; /* copies of event 1's request */

bit installed = 1;  /* the settled ADD installed the block after all */
bit locked;         /* the entry's write lock */
byte holder;        /* the seq whose copy holds it */
byte lu;            /* LAST-UNLOCK of the requester */
bit ended1;         /* SCOREBOARD: seq 1 ended (ABORT) */
bit round, done;    /* the round; its DONE */
bit busy1;          /* the requester is in event 1, no copy granted */
bit held1;          /* event 1 holds the switch lock (granted) */
bit gave1;          /* event 1 given up in the round */
bit quar;           /* event 1 quarantined: its ABORT not yet answered */
bit reported;       /* the requester's report reached the home */

active proctype home()
{
	/* REMOVE until answered: executes once the lock is free. */
	atomic { !locked -> installed = 0 }
	round = 1;
#ifdef FIFO
	/* The report follows the copies through the switch. */
	reported && empty(net);
#else
	reported;
#endif
	/* Rebuild: LAST-EXECUTED takes seq 1 (home-side copies NACKed). */
	atomic { round = 0; done = 1 }
	installed = 1 /* the re-ADD */
}

active proctype sw()
{
	byte s;

end:	do
	:: atomic { net ? s ->
		    if
		    :: !installed /* tag miss: the home NACKs it */
		    :: installed && s <= lu /* stale: NACK */
		    :: installed && s > lu && ended1 /* over: NACK */
		    :: installed && s > lu && !ended1 && locked /* busy */
		    :: installed && s > lu && !ended1 && !locked ->
			    locked = 1; holder = s;
			    if
			    :: busy1 -> busy1 = 0; held1 = 1 /* granted */
			    :: else /* given up: the reply is discarded */
			    fi
		    fi }
	od
}

active proctype req()
{
	byte k;

	busy1 = 1;
	do
	:: atomic { busy1 && !round && k < COPIES -> net ! 1; k++ }
	:: atomic { held1 && !round -> /* unlock 1 */
		    locked = 0; holder = 0; lu = 1; held1 = 0 }; break
	:: atomic { busy1 && round -> /* the round: given up, no unlock */
		    busy1 = 0; gave1 = 1;
#ifndef OLD
		    quar = 1;
#endif
		  }; break
	od;
	/* Quiet on the round's tag: the report (HOLD / UNSETTLED). */
	atomic { round -> reported = 1 };
	done;
	/* Event 2: first the quarantine's ABORT of seq 1, until answered. */
	do
	:: atomic { quar && installed && locked && holder == 1 ->
		    /* abort_copy_passed: collect, unlock with seq 1 */
		    locked = 0; holder = 0; lu = 1; quar = 0 }
	:: atomic { quar && !(installed && locked && holder == 1) ->
		    ended1 = 1; quar = 0 }
	:: !quar -> break
	od;
	/* Event 2's request: retried while the lock is busy. */
	do
	:: atomic { installed && !locked && lu < 2 ->
		    locked = 1; holder = 2 }; break
	:: atomic { !installed } /* at home: not modelled further */
	od;
	atomic { locked = 0; holder = 0; lu = 2 }
}

/* Never a switch lock held by a given-up event that nothing will release. */
active proctype orphan()
{
end:	atomic { locked && holder == 1 && gave1 && !quar -> assert(false) }
}
