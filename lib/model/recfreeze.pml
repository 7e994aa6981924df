/*
 * A recovery round against an invalidation already in flight (na-sim
 * queued mode, switch restarted: seeds 11, 16, 24, 66, ... of
 * `--lock-mode queued --switch-restart-at 10000ev`, 6% of seeds, all four
 * nodes waiting on one block for ever). S holds the block Shared. W's write
 * event was granted before the round (a queue tenure's Q_GRANT, or a
 * forward of the old switch) and sends its invalidation to S node to node
 * (Q_INV, retransmitted until W sees BEGIN). The home H sends BEGIN; S
 * reports HOLD Shared at once (no thread of S is in an event on it); a
 * copy of W's invalidation then reaches S's cache agent, which invalidates
 * the copy its report declared. H rebuilds copyset {S}: the next write
 * names S as its data provider, S has nothing to give, the writer waits
 * for ever (cache agent `provider_without_data`).
 *
 * Today's rule (default): the cache agent executes every request. -DFIX:
 * from its report until DONE a node's cache agent drops requests on the
 * round's blocks (the report stands for its copies until the rebuilt state
 * takes over; every event on the blocks is aborted by the round, its
 * requester retries after DONE with a new seq).
 *
 * Bounds: one block, one sharer, one writer event, COPIES copies of its
 * invalidation (each may be lost). Copies are delivered before S takes
 * DONE; -DLATE lets one be delivered after it (run recfreeze-late, known:
 * a copy older than the whole round, whose life is the network's,
 * microseconds, against a round's milliseconds; FAULTS.md "Limitations").
 */
#ifndef COPIES
#define COPIES 2
#endif

chan inv = [COPIES] of { bit }; /* W's invalidation copies to S */
bit svalid = 1; /* S's Shared copy */
bit sbegin, sreported, sdone;
bit shold;      /* what S's report declared */
bit wbegin;     /* W took BEGIN: its event aborted, no more copies */
bit wreported;
bit rebuilt;    /* H rebuilt the block: copyset {S} iff S reported HOLD */
bit cs_s;
byte sent;

active proctype writer()
{
	do
	:: atomic { !wbegin && sent < COPIES -> inv ! 1; sent++ }
	:: atomic { wbegin -> wreported = 1; break }
	od
}

active proctype sharer()
{
	bit c;

end:	do
	:: atomic { sbegin && !sreported -> shold = svalid; sreported = 1 }
	:: atomic {
#ifdef LATE
		len(inv) > 0 ->
#else
		len(inv) > 0 && !sdone ->
#endif
		inv ? c;
#ifdef FIX
		if
		:: sreported && !sdone /* dropped: the round holds it */
		:: else -> svalid = 0
		fi
#else
		svalid = 0
#endif
	   }
	:: inv ? c /* lost */
	od
}

active proctype home()
{
	/* BEGIN to both, in either order, copies of W's invalidation
	 * possibly still in flight */
	if
	:: sbegin = 1; wbegin = 1
	:: wbegin = 1; sbegin = 1
	fi;
	atomic { sreported && wreported -> cs_s = shold; rebuilt = 1 };
	sdone = 1
}

active proctype monitor()
{
end:	atomic { rebuilt && cs_s && !svalid -> assert(false) }
}
