/*
 * A node declared dead while the home's ADD of a block is unanswered, the
 * ADD having installed it (every reply lost) and a write at the switch
 * having moved its data on (na-sim crash-migrate seed 3). The switch
 * command evicts every locked entry and every one naming D
 * (lcf_pipeline_node_failed); the homes' marks stop their ADD copies until
 * the drain (na_home.h dead_new). Copies and replies are lost, reordered,
 * delivered late; some may be in flight at the declaration.
 *
 * -DHOMESFIRST: the homes are declared first and the switch evicts once
 * no copy is in flight (na_sim_crash.c); without it a copy in flight at
 * the eviction installs the home's old metadata (an ACK may even have
 * come: the home holds it the switch's), whatever the home's rule (runs
 * migsettle-switchfirst, and migsettle-old with it).
 *
 * Today's rule (-DOLD): the home goes on sending copies of its old
 * metadata until one is answered: a copy after the eviction re-installs
 * the block as the home last knew it (Modified at node 0), and a write is
 * forwarded to a node without the data for ever (run migsettle-old).
 * Default: the drain stops the block's copies, waits out those in flight
 * (NA_ADD_HOLD_NS), REMOVEs it until the switch answers (an entry or a tag
 * miss) and recovers it from the caches' reports whatever the answer (run
 * migsettle). That covers a copy sent before the declaration and delivered
 * after the eviction (migdead.pml's -inflight): it installs stale metadata
 * or D, no write completes on it, and the REMOVE takes it out.
 *
 * Bounds: one block, COPIES copies, WRITES writes at the switch, one crash.
 * A write on stale metadata or waiting on D does not hold the entry's lock
 * (its requester is NACKed and retries); the recovery round is atomic
 * (rec.pml checks rounds).
 */
#define D 1 /* the node that dies */
#define S 2 /* a survivor: the writer */
#define O 4 /* node 0: Modified there in the home's old metadata */
#ifndef COPIES
#define COPIES 3
#endif
#ifndef WRITES
#define WRITES 2
#endif

chan net = [COPIES] of { byte, byte }; /* ADD copies: copyset, version */
chan rep = [COPIES] of { bit };        /* the switch's ACKs */

byte hcs = D | O; /* the home's metadata of the MIGRATING block */
byte hver;
bit hswitch; /* an ACK came: the switch's block (later losses: probes) */
bit homed;   /* taken back and recovered */
bit installed, locked;
byte scs, sver;
byte tver = 0; /* the data's version: the last completed write's */
byte tcs = D | O; /* who holds copies in truth */
bit declared;
byte sent, writes;

active proctype home()
{
	byte c, v;

	do
	:: atomic { !hswitch && !declared && sent < COPIES ->
		    net ! (hcs & ~(declared -> D : 0)), hver; sent++ }
#ifdef OLD
	/* The drain only clears D from the copyset (migdead.pml FIX). */
	:: atomic { !hswitch && declared && sent < COPIES ->
		    hcs = hcs & ~D; net ! hcs, hver; sent++ }
#else
	/* Copies out waited for, then REMOVE (re-sent while the entry is
	 * locked) and a recovery round from the caches' reports. */
	:: atomic { !hswitch && declared && len(net) == 0 && !locked ->
		    installed = 0; scs = 0;
		    hver = tver; hcs = tcs & ~D; homed = 1; break }
#endif
	:: atomic { rep ? c -> if
		    :: !declared -> hswitch = 1
		    :: else /* REMOVING: not counted */
		    fi }
#ifdef OLD
	:: atomic { (hswitch || sent >= COPIES) && len(rep) == 0 -> break }
#else
	:: atomic { hswitch && len(rep) == 0 -> break }
#endif
	od
}

active proctype sw()
{
	byte c, v;

end:	do
	:: atomic { net ? c, v ->
		    if
		    :: !installed -> installed = 1; scs = c; sver = v
		    :: else /* a duplicate: ACKed, unchanged */
		    fi;
		    if
		    :: rep ! 1
		    :: true /* the reply lost */
		    fi }
	:: net ? c, v /* lost */
	od
}

active proctype writer()
{
end:	do
	:: atomic { installed && !locked && writes < WRITES && sver == tver &&
		    !(declared && (scs & D)) -> locked = 1 }
	:: atomic { installed && locked ->
		    tver++; sver = tver; scs = S; tcs = S; locked = 0;
		    writes++ }
	od
}

active proctype fail()
{
#ifndef HOMESFIRST
	atomic { /* today: the switch command, the homes' marks with it */
#else
	/* The homes' marks (no copy sent from here on), then the switch
	 * command once none in flight can outlive it (na_sim_crash.c). */
	declared = 1;
	atomic { len(net) == 0 ->
#endif
		if
		:: installed && (locked || (scs & D)) ->
			installed = 0; locked = 0; scs = 0
		:: else
		fi;
		tcs = tcs & ~D;
		declared = 1
	}
}

/* Nothing stuck: when nothing can move, the switch's entry (if any) is the
 * truth and names no dead node, and a block taken back is the truth. */
active proctype monitor()
{
	atomic { timeout ->
		 assert(!(installed && (sver != tver || (scs & D))));
		 assert(!homed || (hver == tver && !(hcs & D)));
#ifndef OLD
		 assert(homed || hswitch) /* the home settled */
#endif
	}
}
