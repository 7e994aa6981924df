/*
 * A settled ADD whose second pass comes after its REMOVE's first pass
 * (test-migration --faults hang, issue 28). The home settles an unanswered
 * ADD (migrestart.pml): no copy more, the copy in flight waited out
 * (NA_ADD_HOLD_NS), REMOVE until answered, then a recovery round makes the
 * block home-owned. The copy waited out has reached the switch, but an ADD
 * is two passes (PROTOCOL.md 4.4) and a resubmitted pass re-enters behind
 * the packets already received (4.8: swswitch runs the second passes after
 * the burst): a REMOVE received with the ADD finds a tag miss, and the ADD
 * then installs the block. The switch owns a block its home recovers and
 * serves (the home-local path, tag misses): two owners, the switch's
 * metadata no longer the caches' (a WRITE_MISS forwarded to a provider
 * with no copy waits for its data for ever).
 *
 * Today's rule (-DOLD): a REMOVE's tag miss says the switch does not hold
 * the block (na_migrate_handle, na_rec_block_lost): two owners (run
 * migpass-old). Default: a tag miss counts only for a REMOVE sent after
 * the home had an answer of that removal; the first tag miss makes the
 * home send one such REMOVE. A pass resubmitted before that answer left the
 * switch has run before it arrives (run migpass).
 *
 * Bounds: one block, one ADD copy (lost, or delivered; its ACK late, not
 * modelled: a settling home ignores it), RMCOPIES REMOVE copies out at
 * once, no lock holder (migorphan.pml has the writer); a "burst" is the
 * REMOVE copies the switch had received when the ADD's first pass ran.
 */
#ifndef RMCOPIES
#define RMCOPIES 2
#endif
#define MISS  1 /* an answer: tag miss (else MIGRATE_ACK, removed) */
#define AFTER 2 /* a REMOVE copy sent after an answer (confirming) */
#define ADD   4

/* home -> switch, FIFO (one link, one rx queue): ADD, then REMOVE copies */
chan q = [RMCOPIES + 2] of { byte };
chan ans = [RMCOPIES + 1] of { byte }; /* answers: MISS | the copy's AFTER */

bit removing;   /* settled, waiting for the REMOVE that decides */
bit answered;   /* an answer of this removal came */
bit home_owned; /* the round ran: the home serves the block */
bit installed;  /* the switch's entry */
bit pending;    /* the ADD's second pass is waiting (resubmitted) */
byte burst;     /* frames received with the ADD: they may pass before it */
byte out;       /* REMOVE copies unanswered */

active proctype home()
{
	byte a;

	/* The ADD, unanswered past the RTO and the hold: settled. Under
	 * load the hold is no bound on the copy's time in the switch's
	 * queue: the REMOVEs may join it there. */
	atomic { q ! ADD; removing = 1 }
	do
	:: atomic { removing && out < RMCOPIES ->
		    q ! (answered -> AFTER : 0); out++ }
	:: atomic { ans ? a -> out--;
		    if
		    :: !removing /* decided already */
		    :: removing && !(a & MISS) -> removing = 0
#ifdef OLD
		    :: removing && (a & MISS) -> removing = 0
#else
		    :: removing && (a & MISS) && (a & AFTER) -> removing = 0
		    :: removing && (a & MISS) && !(a & AFTER) ->
			    answered = 1 /* the next copies confirm */
#endif
		    fi }
	:: !removing && empty(ans) -> break
	od;
	/* The round: the block is home-owned (recovered from the caches). */
	home_owned = 1
}

active proctype sw()
{
	byte a;

end:	do
	:: atomic { nempty(q) && (!pending || burst > 0) -> q ? a;
		    if
		    :: pending -> burst--
		    :: else
		    fi;
		    if
		    :: a == ADD && !installed && !pending ->
			    /* first pass: resubmitted behind the frames
			     * received with it */
			    pending = 1; burst = len(q)
		    :: a == ADD && (installed || pending) /* a duplicate */
		    :: a != ADD && !installed -> ans ! MISS | (a & AFTER)
		    :: a != ADD && installed ->
			    installed = 0; ans ! (a & AFTER)
		    fi }
	:: atomic { q ? [ADD] -> q ? a } /* the ADD lost */
	:: atomic { pending -> pending = 0; burst = 0; installed = 1 }
	od
}

/* One owner: a block the home recovered is not in the switch. */
active proctype owners()
{
end:	atomic { home_owned && (installed || pending) -> assert(false) }
}
