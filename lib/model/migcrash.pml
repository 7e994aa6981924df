/*
 * A node failure during a migration drain (na-sim crash sweep 63 run 54).
 * Reader A holds the home's read lock of one home-owned block and may
 * crash holding it; the control plane then declares it dead and the home's
 * failure drain (na_rec_drain) freezes the blocks A locked, a recovery
 * round rebuilds them without A's lock. The dynamic policy's drain
 * (na_migrate.c) marks the block MIGRATING, takes the write lock once the
 * holders are gone and sends its ADD, or gives up after MIG_DRAIN_NS and
 * gives the block back. Writer W must get the block in the end.
 *
 * Today's rule (default): the failure drain skips a block that is not
 * home-owned, so a draining block keeps A's lock; the migration drain gives
 * up and the lock stays for ever: W waits (invalid end state, run
 * migcrash-old). -DFIX: a draining block (no ADD sent yet) is drained as a
 * home-owned one, the migration drain cancelled; a migration drain whose
 * block is no longer its own forgets it without touching the owner.
 *
 * Bounds: one block, one reader that may crash, one drain, one writer; the
 * ADD answered OK (a FAIL gives the block home with no lock, as OK does
 * for the home's lock). Not explored: a failure while the ADD is in flight
 * (the home then holds the write lock itself; the dead node can only be in
 * the copyset: migdead.pml).
 */
#define HOME 0
#define MIGRATING 1
#define SWITCH 2
#define RECOVERING 3

byte owner = HOME;
byte readers;
bit writer;
bit draining;  /* the migration drain has not taken the lock yet */
bit a_alive = 1;
bit a_locked;  /* A's read lock is recorded at the home (held_by) */

active proctype a()
{
	atomic { owner == HOME && !writer -> readers++; a_locked = 1 };
	if
	:: atomic { a_alive -> readers--; a_locked = 0 } /* its unlock */
	:: a_alive = 0                                   /* crash */
	fi
}

#ifdef FIX
#define DRAINABLE (owner == HOME || (owner == MIGRATING && draining))
#ifdef NOMINE
#define MINE      1
#else
#define MINE      (owner == MIGRATING && draining)
#endif
#else
#define DRAINABLE (owner == HOME)
#define MINE      1
#endif

/* The control plane's declaration, the home's failure drain and round. */
active proctype fail()
{
end:	!a_alive;
	atomic {
		if
		:: DRAINABLE && a_locked -> owner = RECOVERING; draining = 0
		:: else -> goto out
		fi
	};
	atomic { readers = 0; writer = 0; a_locked = 0; owner = HOME };
out:	skip
}

/*
 * The dynamic policy's drain (its pending entry), then the ADD: sent only
 * for a MIGRATING block, answered OK. An entry acting on a block the
 * failure drain took (-DFIX -DNOMINE) takes the write lock of a block that
 * is home-owned again and keeps it (na_home_migrate_resend refuses).
 */
active proctype dyn()
{
	bit pend;

	if
	:: atomic { a_locked && owner == HOME ->
		    owner = MIGRATING; draining = 1; pend = 1 }
	:: skip
	fi;
	if
	:: !pend -> skip
	:: atomic { pend && MINE && !writer && readers == 0 ->
		    writer = 1; draining = 0;
		    if
		    :: owner == MIGRATING -> owner = SWITCH; writer = 0
		    :: else /* the lock stays: nobody clears it */
		    fi }
	:: atomic { pend && MINE && (writer || readers > 0) ->
		    draining = 0; owner = HOME } /* MIG_DRAIN_NS: given up */
#ifdef FIX
	:: atomic { pend && !MINE -> skip } /* forgotten */
#endif
	fi
}

active proctype w()
{
	if
	:: atomic { owner == HOME && !writer && readers == 0 -> writer = 1 };
	   writer = 0
	:: atomic { owner == SWITCH -> skip } /* the switch's lock */
	fi
}
