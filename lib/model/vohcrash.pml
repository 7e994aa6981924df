/*
 * Validate-on-hit's ReadQueue/UpdateQueue (na_voh_rq.c) under a node
 * failure (na-sim crash sweep 63 runs 36, 81, 119). Node D's requester reads
 * the block (READ, granted into RQ, READ_DONE) and may crash at any point;
 * updater U (another node) updates it once (UPDATE, granted when RQ is
 * empty, its data, UPDATE_DONE, which releases the reads queued behind it
 * in UQ); with UD a second updater waits outside UQ (the home's pend list).
 * After D's crash the control plane declares it dead and the home's
 * failure drain runs (na_rec_drain).
 *
 * Today's rule (default): the drain leaves the VOH queues alone; D granted
 * in RQ holds U's update for ever (invalid end state, run vohcrash-old).
 * -DFIX: the drain ends every entry of the dead node's requesters: a read
 * in RQ leaves it (as on its READ_DONE), a read queued in UQ is dropped,
 * and the dead node's update, granted or queued, leaves UQ (a granted one
 * counted as committed: its data may be in memory) and releases the reads
 * behind it; `bump` counts such commits (the version moves, so no copy
 * from before validates). With -DDUPD, D is also the updater waiting
 * outside (its UPDATE after its read, crash in between or after).
 *
 * Bounds: one block, D's one read (and with DUPD one update), U's one
 * update; messages in order, not lost (the VOH requests' re-sends are
 * vohdup.pml's and vohref.pml's).
 */
bit d_alive = 1;
bit d_reading;   /* D in RQ */
bit d_qread;     /* D's read queued in UQ behind an update */
bit uq;          /* UQ's head: an update (U's or D's) */
byte uq_who;     /* 1: U, 2: D */
bit ug;          /* the head update granted (RQ was empty) */
bit d_pend;      /* D's update waiting outside UQ */
bit u_done, d_done, drained;
byte bump;

inline grant_head()
{
	if
	:: uq && !ug && !d_reading -> ug = 1
	:: else
	fi
}

inline end_update()
{
	/* UPDATE_DONE: the queued reads proceed, the next updater enters */
	uq = 0;
	ug = 0;
	if
	:: d_qread -> d_qread = 0; d_reading = 1
	:: else
	fi;
	if
	:: d_pend -> d_pend = 0; uq = 1; uq_who = 2; grant_head()
	:: else
	fi
}

/* D's read (and update); a crashed D stops where it is (end labels). */
active proctype d()
{
end0:	atomic {
		d_alive ->
		if
		:: uq -> d_qread = 1
		:: else -> d_reading = 1
		fi
	};
end1:	atomic { d_alive && d_reading -> d_reading = 0; grant_head() };
#ifdef DUPD
end2:	atomic {
		d_alive ->
		if
		:: uq -> d_pend = 1
		:: else -> uq = 1; uq_who = 2; grant_head()
		fi
	};
end3:	atomic { d_alive && uq && uq_who == 2 && ug -> end_update() };
#endif
	d_done = 1
}

active proctype crash()
{
	if
	:: atomic { d_alive && !d_done -> d_alive = 0 }
	:: skip
	fi
}

/* U waits outside while UQ holds an update (the home's pend list). */
active proctype u()
{
	atomic { !uq -> uq = 1; uq_who = 1; grant_head() };
	atomic { uq_who == 1 && ug -> end_update(); u_done = 1 }
}

/* The failure drain, once D is dead. */
active proctype drain()
{
end:	!d_alive;
#ifdef FIX
	atomic {
		d_pend = 0;
		d_qread = 0;
		if
		:: uq && uq_who == 2 ->
			if
			:: ug -> bump++
			:: else
			fi;
			end_update()
		:: else
		fi;
		d_reading = 0;
		grant_head()
	};
#endif
	drained = 1
}

/* U's update ends, and once D is done or drained UQ is free. */
active proctype check()
{
	atomic { u_done && (d_done || drained) -> assert(!uq || d_alive) }
}
