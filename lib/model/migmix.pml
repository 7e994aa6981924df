/*
 * Static and dynamic migration of one home-owned block together
 * (docs/MODEL.md "Several threads per node"). Requester A holds the home's
 * write lock. The dynamic policy's drain marks the block MIGRATING without
 * taking the lock (new requests are refused) and takes it once A has
 * unlocked, then sends its ADD (na_migrate.c). The static migration's
 * re-send loop (na_node_start.c), still running for an earlier migration
 * of blocks of this home, re-sends an ADD for every block it finds
 * MIGRATING. The switch answers an ADD OK or, on a collision, FAIL; the
 * home ends a migration whose copies all failed by clearing its write lock
 * and taking the block back (na_home_migrate.c), an OK by clearing it and
 * giving the block to the switch.
 *
 * Today's rule (default): the static loop's ADD goes during the drain and
 * its FAIL clears A's lock; requester B is then granted a write beside A
 * (run migmix-old). -DFIX: a draining block is not re-sent by the static
 * loop, and a migration's ACKs only count once the drain took the lock
 * (the set is started then).
 *
 * Bounds: one block, one drain, C copies of the static loop's ADD.
 */
#ifndef C
#define C 2
#endif
#define HOME 0
#define MIGRATING 1
#define SWITCH 2

byte owner = HOME;
bit writer;       /* the home's write lock */
bit draining;     /* the drain has not taken the lock yet (FIX: known) */
bit set_live;     /* a set of ADD copies is counted */
byte adds, oks, fails;
bit a_holds, b_holds;
byte copies = C;

active proctype a()
{
	atomic { owner == HOME && !writer -> writer = 1; a_holds = 1 };
	atomic { assert(writer); writer = 0; a_holds = 0 }
}

active proctype b()
{
	if
	:: atomic { a_holds && owner == HOME && !writer ->
		    writer = 1; b_holds = 1 };
	   assert(!(a_holds && b_holds)); /* SWMR */
	   atomic { writer = 0; b_holds = 0 }
	:: skip
	fi
}

/* The dynamic policy: drain, then the write lock and its ADD. */
active proctype dyn()
{
	if
	:: atomic { a_holds && owner == HOME -> owner = MIGRATING; draining = 1 };
	   if
	   :: atomic { !writer && owner == MIGRATING && draining ->
		       writer = 1; draining = 0; set_live = 1; adds++ }
	   :: owner != MIGRATING -> skip /* taken back meanwhile */
	   fi
	:: skip
	fi
}

#ifdef FIX
#define RESEND_OK    !draining
#define OLD_COUNTERS skip
#else
#define RESEND_OK    1
#define OLD_COUNTERS set_live = 1 /* the old counters count */
#endif

/* The static loop's re-sends. */
active proctype stat()
{
	do
	:: atomic { copies > 0 && owner == MIGRATING && RESEND_OK ->
		    copies--; adds++; OLD_COUNTERS }
	:: copies == 0 -> break
	:: owner != MIGRATING -> break
	od
}

active proctype sw()
{
end:	do
	:: atomic { adds > 0 -> adds--; if :: oks++ :: fails++ fi }
	od
}

/* The home's MIGRATE_ACK handling. */
active proctype home()
{
end:	do
	:: atomic { fails > 0 -> fails--;
		if
		:: owner == MIGRATING && set_live ->
			writer = 0; owner = HOME; set_live = 0
		:: else
		fi }
	:: atomic { oks > 0 -> oks--;
		if
		:: owner == MIGRATING && set_live ->
			writer = 0; owner = SWITCH; set_live = 0
		:: else
		fi }
	od
}
