/*
 * A switch restart while the home's ADD of a block is unanswered (na-sim
 * switch-restart sweep 68 run 542). A copy installed the block in the old
 * switch, every reply lost; a write at that switch made node W the
 * Modified holder; the restart emptied the registers. The home cannot tell
 * a lost reply from a restart (a rebooted switch says nothing).
 *
 * The restart drops the copies in flight (a switch is down longer than a
 * packet lives); ACKs already sent by the old switch may still arrive.
 * Copies and replies are lost or duplicated (a copy delivered and kept).
 *
 * Today's rule (-DOLD): an unanswered copy is re-sent until one is
 * answered: a copy after the restart installs the home's metadata of
 * before the write in the new switch (Unshared, memory), the home counts
 * its ACK, no tag miss ever comes, and a read through the switch gets the
 * old memory (run migrestart-old).
 * Default: one copy per migration; unanswered (the retransmission timer),
 * the home settles it as after a node's declaration (migsettle.pml): no
 * copy more, those in flight waited out (NA_ADD_HOLD_NS), REMOVE until
 * answered, the block recovered from the caches' reports whatever the
 * answer (run migrestart). -DNOHOLD: the REMOVE at once; a duplicate of
 * the copy in flight re-installs the block after it (migrestart-nohold).
 *
 * A late answer (default; -DNOLATE: today's rule, ignored): the settled
 * copy's MIGRATE_ACK that comes in the hold decides as a timely one would.
 * OK: the switch holds it (a copy cannot outlive a restart, so the entry
 * is of the switch that answered), switch-owned, no REMOVE. FAIL (a full
 * set: the switch never installed that copy): home at the hold's end with
 * its own metadata, as a collision, no round; an OK in the hold (a
 * duplicate found a freed slot) still makes it the switch's. An answer
 * after the hold changes nothing: the REMOVE is out, the round follows.
 * A duplicate installed after the FAIL whose OK is lost leaves two owners:
 * the collision's known hole (migdup.pml migdup-lostok), excluded here
 * unless -DLOSTOK (run migrestart-lostok, known).
 *
 * Bounds: one block, COPIES copies (the old rule), WRITES writes at the
 * switch (atomic: the lock is not modelled), one restart, one read through
 * the switch, a full set that frees at most once. A switch-owned block lost in the restart is found by a tag
 * miss and recovered (FAULTS.md section 1), atomically; the round is
 * atomic (recround.pml checks rounds).
 */
#define W 2 /* the writer's node bit */
#ifndef COPIES
#define COPIES 3
#endif
#ifndef DUPS
#define DUPS 1
#endif
#ifndef WRITES
#define WRITES 2
#endif

chan net = [COPIES] of { byte, byte }; /* ADD copies: copyset, version */
chan rep = [2 * COPIES] of { bit };       /* the switch's ACKs: OK */

byte hcs;  /* the home's metadata: Unshared, memory current */
byte hver; /* the version the home's metadata names */
bit hswitch; /* an ACK came: the switch's block */
bit settling, homed, restarted;
bit installed, setfull, freed, failed, swfailed;
byte dups;
byte scs, sver; /* the switch's entry: copyset, the version it names */
byte tver; /* the data's version: the last completed write's */
byte tcs;  /* who holds copies in truth */
byte sent, writes;

active proctype home()
{
	bit c;

	atomic { net ! hcs, hver; sent++ }
end_wait: /* -DOLD: every copy lost */
	do
	:: atomic { rep ? c -> if
			     :: c -> hswitch = 1
			     :: else -> failed = 1
			     fi; break }
#ifdef OLD
	:: atomic { !hswitch && sent < COPIES -> net ! hcs, hver; sent++ }
#else
	/* The retransmission timer: no copy more, settle. */
	:: atomic { empty(rep) -> settling = 1; break }
#endif
	od;
	if
	:: settling ->
#ifndef NOHOLD
		/* The hold: the copies in flight are gone (and, taking late
		 * answers, their answers). */
		do
#ifndef NOLATE
		:: atomic { rep ? c -> if
				     :: c -> hswitch = 1; settling = 0
				     :: else -> failed = 1
				     fi }
		:: empty(net) && empty(rep) -> break
#else
		:: empty(net) -> break
#endif
		od;
#endif
		if
		:: hswitch -> goto owned
		:: !hswitch && failed -> homed = 1 /* its own metadata */
		:: !hswitch && !failed ->
			/* REMOVE until answered (an entry or a tag miss),
			 * then a round from the caches' reports. */
			atomic { installed = 0; scs = 0;
				 hver = tver; hcs = tcs; homed = 1 }
		fi
	:: !settling && failed ->
		/* A timely FAIL: the collision's hold, then home (an OK in
		 * the hold: the switch's). */
		do
		:: atomic { rep ? c -> if
				     :: c -> hswitch = 1
				     :: else
				     fi }
		:: empty(net) && empty(rep) -> break
		od;
		if
		:: hswitch -> goto owned
		:: else -> homed = 1
		fi
	:: !settling && !failed ->
owned:
		/* Switch-owned: a restart that lost it shows as a tag miss,
		 * the probe finds none, a round recovers it. */
end_probe:	atomic { restarted && !installed ->
			 hver = tver; hcs = tcs; homed = 1 }
	fi
}

/* A copy's answer, or none (lost). An install after a FAIL whose OK is
 * lost: the collision's known hole, only with -DLOSTOK. */
inline install(c, v)
{
	installed = 1; scs = c; sver = v;
	if
#ifndef LOSTOK
	:: swfailed -> rep ! 1
	:: !swfailed -> rep ! 1
	:: !swfailed -> skip
#else
	:: rep ! 1
	:: skip
#endif
	fi
}

inline answer(c, v)
{
	if
	:: !installed && setfull -> swfailed = 1;
		if
		:: rep ! 0
		:: skip
		fi
	:: !installed && !setfull -> install(c, v)
	:: installed -> /* a duplicate: ACKed, unchanged */
		if
		:: rep ! 1
		:: skip
		fi
	fi
}

active proctype sw()
{
	byte c, v;

	if
	:: setfull = 1 /* the set is full: copies FAIL */
	:: skip
	fi;
end:	do
	:: atomic { net ? c, v -> answer(c, v) }
	:: atomic { dups < DUPS && nempty(net) ->
		    net ? <c, v>; /* delivered, a duplicate still out */
		    dups++; answer(c, v) }
	:: net ? c, v /* lost */
	/* A slot of the set frees (an eviction), once. */
	:: atomic { setfull && !freed -> setfull = 0; freed = 1 }
	od
}

active proctype writer()
{
end:	do
	:: atomic { installed && sver == tver && writes < WRITES ->
		    tver++; sver = tver; scs = W; tcs = W; writes++ }
	od
}

active proctype restart()
{
	byte c, v;

	atomic {
		installed = 0; scs = 0; sver = 0;
		do
		:: net ? c, v
		:: empty(net) -> break
		od;
		restarted = 1
	}
}

/* A read through the switch gets the version its entry names. */
active proctype reader()
{
end:	atomic { installed -> assert(sver == tver) }
}

/* When nothing can move: the entry (if any) and a block taken back are
 * the truth, and the home settled the ADD. */
active proctype monitor()
{
	atomic { timeout ->
		 assert(!installed || sver == tver);
		 assert(!homed || hver == tver);
		 assert(!(homed && installed)) /* one owner */
#ifndef OLD
		 ; assert(homed || hswitch)
#endif
	}
}
