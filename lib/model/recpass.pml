/*
 * An event the home executed whose lock a recovery round dropped, asked
 * about by its requester's ABORT after the round (na-sim crash + migrate
 * runs: a survivor's quarantine that never ends, exit 3).
 *
 * The home executes the requester's READ_MISS: read lock, recorded
 * decision "forward, node P provides" (LAST-EXECUTED), the forward lost.
 * A round (another node's failure) rebuilds the block from the caches'
 * reports: readers 0, every holder forgotten (na_rec_home.c
 * forget_holders). The requester's reply never came: it gives the event
 * up and quarantines it, ABORT until answered (na_req_stale.c).
 *
 * Old rule (-DOLD): the round records only unsettled seqs the home has not
 * executed; an executed one keeps its decision, so the ABORT is a
 * duplicate answered "a copy passed" though no lock is held. The requester
 * collects again: every copy of its request replays the forward to P,
 * which a writer, free to take the block once the round dropped the read
 * lock, has invalidated meanwhile: P answers without data for ever (run
 * recpass-old: the requester blocked, an invalid end state).
 * Default: a holder the round forgets whose seq is the recorded one gets a
 * NACK decision, as an unexecuted unsettled seq does: its ABORT is
 * answered "aborted", a late copy NACKed (run recpass).
 *
 * -DSWITCH: the block is switch-owned. The requester's read lock is the
 * switch's; the switch forwards the READ_MISS to the home, which executes
 * it as the data's provider (decision "reply with data", no holder at the
 * home), and its data segments are lost. The round removes the block from
 * the switch (the lock dies with it); the requester reports seq 1
 * unsettled. Its ABORT crosses the switch (SCOREBOARD: seq 1 ended) and
 * reaches the home. The home re-ADDs the block once no lock holds it.
 * Today's rule (-DSWOLD): an unsettled seq the home executed keeps its
 * decision (no holder to forget): the ABORT is answered "a copy passed",
 * the requester re-sends its request to collect, and once the block is
 * back in the switch every copy is over there: NACKed for ever (crash
 * sweep 71 run 73; run recpass-switch-old: invalid end state). Default: a
 * reported unsettled seq LAST-EXECUTED records gets a NACK decision
 * whatever its lock was (na_rec_home.c rebuild): answered "aborted"
 * (run recpass-switch).
 *
 * -DEARLY: the request is duplicated; a copy refused (the lock busy a
 * moment: NACK, not recorded) reaches the requester first, so it
 * quarantines the event before the round, while the other copy executed:
 * its ABORT is answered "a copy passed" then, and it collects. The round
 * (a node failure's drain) drops the lock and NACKs the seq afterwards.
 * Old rule (-DNOGEN, na-sim restart sweep 83 run 659): the quarantine asks
 * afresh only when it finds the tag blocked, so a round that begins and ends
 * while it waits out a re-send's timeout leaves the answer standing: every
 * copy NACKed, ignored (a copy passed) for ever (invalid end state).
 * Default: a round begun since the answer was asked for (the node's round
 * count) voids it: asked afresh, "aborted" (run recpass-early).
 *
 * Bounds: one block, the requester's one event (seq 1), one provider, one
 * writer (an atomic write that invalidates P's copy, the lock free), one
 * round at any time, LOSS forwards lost, RS retransmissions by the
 * requester after its channels went quiet (`timeout`: with no loss left
 * one copy answers; RS 2 covers a lost forward and one more).
 */
#ifndef LOSS
#define LOSS 1
#endif
#ifndef RS
#define RS 2
#endif

mtype = { REQ, ABORT, UNLOCK, FWD, DATA, NODATA, NACK, PASSED, ABORTED };
#define D_NONE 0
#define D_FWD 1
#define D_REPLY 2
#define D_NACK 3

chan toh = [6] of { mtype }; /* requester -> home */
chan top = [4] of { mtype }; /* home -> P */
chan tor = [8] of { mtype }; /* home, P -> requester */

byte readers;    /* the block's read locks at home */
bit exec1;       /* LAST-EXECUTED: seq 1 executed or recorded */
byte dec;        /* its recorded decision */
bit held1;       /* the home's holder entry of seq 1 */
bit pdata = 1;   /* P's Shared copy */
bit rin, rdone;  /* the requester in its event; all replies collected */
bit roundp;      /* the round happened */
byte loss = LOSS;
#ifdef SWITCH
bit atsw = 1;    /* the block in the switch */
bit readd;       /* ADDed again after the round */
bit ended1;      /* SCOREBOARD: seq 1 over (its ABORT crossed) */
#endif

inline decide()
{
	if
	:: pdata -> dec = D_FWD
	:: else -> dec = D_REPLY
	fi
}

inline replay()
{
	if
	:: dec == D_NACK -> tor!NACK
#ifdef SWITCH
	:: dec == D_REPLY ->
		if
		:: loss > 0 -> loss-- /* a data segment lost */
		:: true -> tor!DATA
		fi
#else
	:: dec == D_REPLY -> tor!DATA
#endif
	:: dec == D_FWD ->
		if
		:: loss > 0 -> loss-- /* the forward lost */
		:: true -> top!FWD
		fi
	fi
}

active proctype home()
{
end:	do
#ifdef SWITCH
	/* Through the switch: before the round the copy passes on the
	 * score and the home provides (no lock here); once the block is
	 * back, seq 1 is over; in between a tag miss reaches the home. */
	:: atomic { toh?REQ ->
		if
		:: atsw && (readd || ended1) -> tor!NACK
		:: atsw && !readd && !ended1 ->
			if
			:: !exec1 -> exec1 = 1; dec = D_REPLY
			:: else -> skip
			fi;
			replay()
		:: !atsw ->
			if
			:: !exec1 -> exec1 = 1; readers++; held1 = 1;
				dec = D_REPLY
			:: else -> skip
			fi;
			replay()
		fi }
#else
	:: atomic { toh?REQ ->
		if
		:: !exec1 -> exec1 = 1; readers++; held1 = 1; decide()
#ifdef EARLY
		:: !exec1 -> tor!NACK; goto refused /* the lock busy */
#endif
		:: else -> skip /* a duplicate: the recorded decision */
		fi;
		replay();
refused:	skip }
#endif
	:: atomic { toh?ABORT ->
#ifdef SWITCH
		ended1 = 1;
#endif
		if
		:: !exec1 -> exec1 = 1; dec = D_NACK; tor!ABORTED
		:: else ->
			if
			:: dec == D_NACK -> tor!ABORTED
			:: else -> tor!PASSED
			fi
		fi }
	:: atomic { toh?UNLOCK ->
		if
		:: held1 -> held1 = 0; readers--
		:: else -> skip
		fi }
	od
}

/* The provider: its copy if it still has one (provider_without_data). */
active proctype provider()
{
end:	do
	:: atomic { top?FWD ->
		if
		:: pdata -> tor!DATA
		:: else -> tor!NODATA
		fi }
	od
}

#ifdef SWITCH
/* The home ADDs the block again once no lock holds it at home. */
active proctype readder()
{
end:	atomic { roundp && !atsw && readers == 0 -> atsw = 1; readd = 1 }
}
#else
/* Another node's write, once no read lock holds: P invalidated. */
active proctype writer()
{
end:	atomic { readers == 0 && pdata -> pdata = 0 }
}
#endif

/* The round: locks rebuilt (none), holders forgotten, unsettled recorded. */
active proctype round()
{
end:	atomic { rin && !roundp ->
		roundp = 1;
		readers = 0;
#ifdef SWITCH
		atsw = 0; /* removed: the switch's lock dies with it */
#endif
#ifndef OLD
		if
		:: held1 && dec != D_NACK -> dec = D_NACK
		:: else -> skip
		fi;
#endif
		held1 = 0;
		if
#if defined(SWOLD) || defined(OLD)
		:: !rdone && !exec1 -> exec1 = 1; dec = D_NACK
#else
		:: !rdone -> exec1 = 1; dec = D_NACK
#endif
		:: else -> skip
		fi }
}

active proctype requester()
{
	byte rs = RS;
	bit passed, rseen;

#ifdef EARLY
	atomic { rin = 1; toh!REQ; toh!REQ }; /* a network duplicate */
#else
	atomic { rin = 1; toh!REQ };
#endif
	do
	:: tor?DATA -> rdone = 1; break
	:: tor?NODATA -> skip
#ifdef EARLY
	:: tor?NACK -> goto quar /* the event NACKed: ABORT */
#else
	:: tor?NACK -> goto over /* recorded by the round: ended */
#endif
	:: roundp && !rdone -> goto quar
	:: timeout && rs > 0 -> rs--; toh!REQ
	od;
	goto unlock;
quar:	/* replies collected before the round are forgotten (ask_afresh) */
	atomic { rseen = roundp; toh!ABORT };
	do
	:: tor?ABORTED -> goto over
#ifndef NOGEN
	:: roundp && !rseen -> /* a round since the ABORT: ask afresh */
		rseen = 1; passed = 0; toh!ABORT
#endif
	:: tor?PASSED -> passed = 1; toh!REQ
	:: tor?DATA -> rdone = 1; break
	:: tor?NODATA -> skip
	:: tor?NACK -> skip /* the ABORT decides */
	:: timeout && rs > 0 ->
		rs--;
		if
		:: passed -> toh!REQ
		:: else -> toh!ABORT
		fi
	od;
unlock:	toh!UNLOCK;
over:	skip
}
