/*
 * A request sent while a recovery round holds its block (na-sim
 * switch-restart sweep 61 run 42). The home recovers the block (a switch
 * restart lost it): BEGIN to the nodes, each reports once none of its
 * threads is inside an event on the block, listing the requests it sent
 * that may have been granted (unsettled: the home records them as NACKed),
 * the home rebuilds (no lock) and sends DONE. Requester R checks that no
 * round holds the block (rec_before_event), may then wait (the ABORT
 * quarantine of its previous seq, the flush of an older unlock), records
 * the request (na_rec_sent) and sends it; a reply while the round still
 * holds the block ends the event as aborted (the switch that may hold the
 * lock is gone). Writer W must get the lock in the end.
 *
 * Today's rule (default): the check is made before the wait; BEGIN comes
 * in it, the node reports without R's request, the home rebuilds, R's
 * request is granted before DONE and R aborts on the grant: the lock is
 * nobody's for ever (invalid end state, run recsend-old). -DFIX: the
 * check is made again with the record, atomically (na_rec_sent refuses
 * while a round holds the tag, under the lock the report is built under);
 * refused, R waits for DONE and starts over.
 *
 * Bounds: one block, one round, one event of R (its copies lossless, one
 * in flight), one writer W. Not explored: several rounds, loss of BEGIN,
 * reports or DONE (each is re-sent until answered).
 */
mtype = { GRANT, NACK };

bit round;     /* the node's record of the round: BEGIN seen, DONE not */
bit begun;     /* the home started the round (sent BEGIN) */
bit reported;  /* the node reported */
bit rebuilt;   /* the home rebuilt the block */
bit recovering = 0;
bit rec_u;     /* R's request recorded as unsettled (na_rec_sent) */
bit rep_u;     /* ... and in the node's report */
bit le_nack;   /* the home's LAST-EXECUTED: R's seq NACKed */
bit busy;      /* R inside the event */
bit lock;      /* the home's write lock */
chan req = [1] of { bit };
chan rep = [1] of { mtype };

active proctype home()
{
	atomic { !begun -> begun = 1; recovering = 1 };
	atomic { reported -> lock = 0; le_nack = rep_u; recovering = 0;
		 rebuilt = 1 };
end:	do
	:: atomic { req?_ ->
		if
		:: recovering || le_nack || lock -> rep!NACK
		:: else -> lock = 1; rep!GRANT
		fi }
	od
}

/* The node's recovery agent: BEGIN, the report, DONE. */
active proctype node()
{
	atomic { begun -> round = 1 };
	atomic { !busy -> rep_u = rec_u; rec_u = 0; reported = 1 };
	atomic { rebuilt -> round = 0 } /* DONE */
}

#ifdef FIX
#define SEND_OK !round
#else
#define SEND_OK 1
#endif

active proctype r()
{
again:	!round; /* rec_before_event */
	/* the quarantine or flush: anything may happen here */
	atomic {
		if
		:: SEND_OK -> rec_u = 1; busy = 1; req!1
		:: else -> goto again
		fi
	};
	do
	:: atomic { rep?GRANT ->
		if
		:: round -> busy = 0 /* aborted: the grant is dropped */
		:: else -> lock = 0; busy = 0 /* its unlock */
		fi };
	   break
	:: atomic { rep?NACK -> busy = 0 }; break
	:: atomic { round && busy && rep?[NACK] == 0 && rep?[GRANT] == 0 ->
		    busy = 0 } /* aborted while waiting; a reply is dropped */
	   if
	   :: rep?_
	   :: empty(req) && empty(rep) -> skip
	   fi;
	   break
	od
}

active proctype w()
{
	atomic { rebuilt && !lock && !recovering -> lock = 1 };
	lock = 0
}
