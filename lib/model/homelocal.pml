/*
 * The home-local path (issue 27 item 2; docs/MODEL.md "Several threads per
 * node"). Requester T runs on X's home node. Its request and unlock copies
 * either cross the switch (tag miss: forwarded to the home; tag hit:
 * served there) or go straight to the home agent as a tag miss would
 * arrive (na_node_send's cfg.direct path). On the way, a wire unlock opens
 * LAST-UNLOCK[T] and ends its event in SCOREBOARD, hit or miss
 * (lcf_pipeline.c pass_first, pass_miss); a wire request that misses reads
 * SCOREBOARD (FAIL when over). The home migrates X (drain under its write
 * lock, ADD, MIGRATE_ACK OK or FAIL on a collision: MIGS of them) and
 * removes it again (REMOVE, NACKed while the switch lock is held: REMS).
 * The network loses (LOSS) and duplicates (DUP) T's request copies and
 * reorders messages to the switch (REORD times); T retransmits (RTX times)
 * at any moment and on a timeout.
 *
 * The rule for a copy's path:
 *   -DNAIVE   local whenever the home is local: once X is in the switch
 *             the home NACKs every local copy (owner not HOME) and T never
 *             gets X (run homelocal-naive: a non-progress cycle)
 *   default   local when the home's owner is HOME (no ADD in flight, not
 *             switch-owned, no REMOVE in flight), decided copy by copy: a
 *             copy sent on the wire while X was MIGRATING stays in the
 *             network, the ADD fails, the retry goes local and so does the
 *             unlock (LAST-UNLOCK never learns it), the next ADD succeeds
 *             and the late copy takes the switch lock for an event T has
 *             unlocked: a lost lock (run homelocal-guard)
 *   -DFIX     that, and an event with a copy on the wire keeps the wire
 *             for its later copies and its unlock (run homelocal)
 *
 * Checked: the switch takes T's lock only for T's current event before its
 * unlock; the home grants only while it owns X.
 * Bounds: one block, one requester, EV events (seqs 1..EV, gaps at the
 * switch wherever events go local; no wrap-around: seqjump.pml), one ADD
 * copy per migration, ABORT not modelled.
 */
#ifndef EV
#define EV 2
#endif
#ifndef MIGS
#define MIGS 2
#endif
#ifndef REMS
#define REMS 1
#endif
#ifndef RTX
#define RTX 1
#endif
#ifndef DUP
#define DUP 1
#endif
#ifndef LOSS
#define LOSS 0
#endif
#ifndef REORD
#define REORD 3
#endif

#define HOME 0
#define MIGRATING 1
#define SWITCH 2
#define REMOVING 3
#define ENDED 2

mtype = { REQ, UNL, ADD, REM, ACKOK, ACKFAIL, REMACK, REMNACK, GRANT, NACK, UACK };

chan tosw = [8] of { mtype, byte };      /* to the switch */
chan tohome = [4] of { mtype, byte, bit }; /* forwarded misses, MIGRATE_ACKs */
chan tot = [6] of { mtype, byte };       /* replies to T */

/* home agent */
byte owner = HOME;
bit hw;         /* its write lock (T's or the drain's) */
byte hseq;      /* the seq of T's event holding hw (0: the drain) */
byte le;        /* LAST-EXECUTED of T */
/* switch */
bit inst;
byte lk;        /* 0 free, 255 REMOVE, else T's seq holding it */
byte lu;        /* LAST-UNLOCK[T] */
byte sbseq[2], sbc[2]; /* SCOREBOARD[T][parity]: c 0, 1 counted, ENDED */
/* requester */
byte cur;       /* T's current event */
bit unl;        /* its unlock is sent */
byte dups = DUP, losses = LOSS, reords = REORD;

#define OVER(s) ((sbseq[(s) & 1] == (s) && sbc[(s) & 1] == ENDED || \
		 sbseq[(s) & 1] != 0 && sbseq[(s) & 1] > (s)))

/* The home's pipeline for T's request (IN_SWITCH clear: pipeline_request). */
inline home_req(s, fail)
{
	if
	:: s < le -> skip                     /* stale */
	:: s == le -> tot ! GRANT, s          /* duplicate: the decision */
	:: s > le && (fail || owner != HOME || hw) -> tot ! NACK, s
	:: s > le && !fail && owner == HOME && !hw ->
		hw = 1; hseq = s; le = s; tot ! GRANT, s
	fi
}

inline home_unl(s)
{
	if
	:: hw && hseq == s -> hw = 0; hseq = 0
	:: else
	fi;
	tot ! UACK, s
}

active proctype sw()
{
	mtype k;
	byte s;

end:	do
	:: atomic { tosw ? k, s ->
		if
		:: k == ADD ->
			if
			:: inst = 1; lk = 0; tohome ! ACKOK, 0, 0
			:: tohome ! ACKFAIL, 0, 0   /* a collision */
			fi
		:: k == REM && !inst -> tohome ! REMACK, 0, 0
		:: k == REM && inst && lk == 0 -> inst = 0; tohome ! REMACK, 0, 0
		:: k == REM && inst && lk != 0 -> tohome ! REMNACK, 0, 0
		:: k == UNL ->
			if /* LAST-UNLOCK opens, hit or miss */
			:: s > lu -> lu = s
			:: else
			fi;
			if
			:: !inst -> /* miss: the event ends in SCOREBOARD */
				if
				:: sbseq[s & 1] <= s -> sbseq[s & 1] = s; sbc[s & 1] = ENDED
				:: else
				fi;
				tohome ! UNL, s, 0
			:: inst && lk == s && sbseq[s & 1] == s && sbc[s & 1] == 1 ->
				lk = 0; sbc[s & 1] = 0; tot ! UACK, s
			:: else -> tot ! UACK, s /* holds nothing here */
			fi
		:: k == REQ && !inst -> tohome ! REQ, s, OVER(s)
		:: k == REQ && inst && s <= lu -> tot ! NACK, s /* stale */
		:: k == REQ && inst && s > lu && lk == 0 && OVER(s) -> tot ! NACK, s
		:: k == REQ && inst && s > lu && lk == 0 && !OVER(s) ->
			/* lost lock: a lock no unlock will release */
			assert(s == cur && !unl);
			lk = s; sbseq[s & 1] = s; sbc[s & 1] = 1;
			/* the data from the home, which records the seq in
			 * LAST-EXECUTED (na_home.c, IN_SWITCH set) */
			if
			:: s > le -> le = s
			:: else
			fi;
			tot ! GRANT, s
		:: k == REQ && inst && s > lu && lk != 0 ->
			if
			:: lk == s && sbseq[s & 1] == s && sbc[s & 1] == 1 -> tot ! GRANT, s
			:: else -> tot ! NACK, s
			fi
		fi }
	od
}

active proctype home()
{
	mtype k;
	byte s, migs = MIGS, rems = REMS;
	bit f;

end:	do
	/* The drain takes the write lock; then the ADD. */
	:: atomic { migs > 0 && owner == HOME && !hw ->
		migs--; hw = 1; hseq = 0; owner = MIGRATING; tosw ! ADD, 0 }
	:: atomic { rems > 0 && owner == SWITCH ->
		rems--; owner = REMOVING; tosw ! REM, 0 }
	:: atomic { tohome ? k, s, f ->
		if
		:: k == ACKOK -> owner = SWITCH; hw = 0
		:: k == ACKFAIL -> owner = HOME; hw = 0
		:: k == REMACK -> owner = HOME
		:: k == REMNACK -> tosw ! REM, 0
		:: k == REQ -> home_req(s, f)
		:: k == UNL -> home_unl(s)
		fi; s = 0; f = 0 }
	od
}

active proctype net()
{
	mtype k;
	byte s;

end:	do
	:: atomic { dups > 0 && tosw ? [REQ, _] -> tosw ? REQ, s; tosw ! REQ, s; tosw ! REQ, s; dups--; s = 0 }
	:: atomic { losses > 0 && tosw ? [REQ, _] -> tosw ? REQ, s; losses--; s = 0 }
	:: atomic { reords > 0 && len(tosw) > 1 -> tosw ? k, s; tosw ! k, s; reords--; s = 0 }
	od
}

#ifdef NAIVE
#define LOCAL (1)
#elif defined(FIX)
#define LOCAL (owner == HOME && !wired)
#else
#define LOCAL (owner == HOME)
#endif

active proctype t()
{
	mtype k;
	byte s, rtx;
	bit wired, granted;

	cur = 1;
	do
	:: cur > EV -> break
	:: cur <= EV ->
		wired = 0; granted = 0; unl = 0; rtx = RTX;
send:		atomic {
			if
			:: LOCAL -> home_req(cur, 0)
			:: else -> tosw ! REQ, cur; wired = 1
			fi }
		do
		:: atomic { tot ? k, s ->
			if
			:: s == cur && k == GRANT -> granted = 1
			:: s == cur && k == NACK -> k = 0; s = 0; goto send
			:: else
			fi; k = 0; s = 0 }
			if
			:: granted -> break
			:: else
			fi
		/* A retransmission, early or on a timeout: the rule again. */
		:: atomic { rtx > 0 && wired -> rtx-- }; goto send
		:: timeout -> goto send
		od;
progress:	atomic {
			unl = 1;
			if
			:: LOCAL -> home_unl(cur)
			:: else -> tosw ! UNL, cur
			fi }
		do
		:: atomic { tot ? k, s ->
			if
			:: s == cur && k == UACK -> granted = 0
			:: else
			fi; k = 0; s = 0 }
			if
			:: !granted -> break
			:: else
			fi
		od;
		cur++
	od;
end:	do
	:: tot ? k, s
	od
}
