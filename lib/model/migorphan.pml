/*
 * A settled ADD that installed the block after all, a writer holding the
 * entry's write lock, and a REMOVE answer of an earlier settle of the same
 * block (namespace-cluster test-migration hang, issue 28). The home
 * settles an unanswered ADD (migrestart.pml): REMOVE, re-sent while
 * unanswered, then a recovery round on the block, then the block ADDed
 * again. A round tells the requesters the block is not in the switch: an
 * event in flight on it is given up with no unlock ("the switch that may
 * hold our lock is gone", na_req_event). Two copies of one REMOVE: the
 * first removes the entry, the second finds a tag miss and comes home late.
 *
 * Today's rule (-DOLD): any REMOVE answer (MIGRATE_ACK or tag miss) of a
 * REMOVING block starts its round (na_migrate_handle, na_rec_home_watch).
 * The late tag miss of the first settle's REMOVE reaches the home while
 * the re-ADD, itself settled, is installed and write-locked by a writer:
 * the round starts, the writer gives its event up, the lock has no holder
 * and every later REMOVE and request is NACKed (run migorphan-old).
 * Default: a REMOVE answer counts only for the settle that sent it (its
 * seq at or after that settle's first REMOVE); an earlier one is ignored,
 * and the round starts only once the switch no longer holds the block
 * (run migorphan).
 *
 * Bounds: one block, INCS settled ADDs (the ADD, then its re-ADD), one
 * ADD copy each (lost or delivered; its ACK late, not modelled: a settling
 * home ignores it), RMCOPIES REMOVE copies out at once per settle, one
 * writer; the round atomic but for the writer's give-up.
 */
#ifndef INCS
#define INCS 2
#endif
#ifndef RMCOPIES
#define RMCOPIES 2
#endif
#define NACK 128

chan add = [1] of { byte };              /* ADD copies: the settle's id */
chan rm = [INCS * RMCOPIES] of { byte }; /* REMOVE copies: the settle's id */
chan ans = [INCS * RMCOPIES] of { byte }; /* answers: id, NACK bit */

byte inc;     /* the home's current settle (1 .. INCS) */
bit removing; /* REMOVING: settled, waiting for a REMOVE answer */
bit round;    /* a recovery round on the block: requesters give up */
bit installed, locked, holding; /* the switch's entry, its write lock,
				 * a writer's event holding it */
byte out;     /* REMOVE copies unanswered */

active proctype home()
{
	byte a;

	do
	:: inc < INCS ->
		atomic { inc++; add ! inc }
		/* Unanswered past the RTO: settled; the hold waits out the
		 * copy in flight. */
		atomic { empty(add) -> removing = 1; out = 0 }
		do
		:: atomic { removing && out < RMCOPIES -> rm ! inc; out++ }
		:: atomic { ans ? a ->
			    if
			    :: a & NACK -> /* lock busy: the timer re-sends */
				    if
				    :: (a & ~NACK) == inc && out > 0 -> out--
				    :: else
				    fi
#ifdef OLD
			    :: !(a & NACK) && removing -> removing = 0
#else
			    :: !(a & NACK) && removing && a == inc ->
				    removing = 0
#endif
			    :: else /* not counted (-DOLD: not REMOVING) */
			    fi }
		:: !removing -> break
		od;
		/* The round: the block is not in the switch, its requesters'
		 * events given up; it ends once none is in flight. */
		round = 1;
		!holding;
		round = 0
	:: else -> break
	od
}

active proctype sw()
{
	byte a;

end:	do
	:: atomic { add ? a -> if
		    :: !installed -> installed = 1
		    :: else /* a duplicate */
		    fi }
	:: add ? a /* lost */
	:: atomic { rm ? a -> if
		    :: !installed -> ans ! a /* tag miss: home */
		    :: installed && locked -> ans ! a | NACK
		    :: installed && !locked -> installed = 0; ans ! a
		    fi }
	od
}

active proctype writer()
{
end:	do
	:: atomic { installed && !locked -> locked = 1; holding = 1 }
	:: atomic { holding && !round -> locked = 0; holding = 0 }
	/* na_req_event: a round on the tag gives the event up, no unlock. */
	:: atomic { holding && round -> holding = 0 }
	od
}

/* Never a switch lock that no event holds: its unlock would never come. */
active proctype orphan()
{
end:	atomic { locked && !holding -> assert(false) }
}
