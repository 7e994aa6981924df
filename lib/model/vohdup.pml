/*
 * Validate-on-hit, home-owned block: a repeated VOH_READ of a read already
 * granted (docs/VALIDATE.md "Loss and duplication"; na-sim sweep 31004 run
 * 824). Reader R fetches the block (two segments: A holds the value read,
 * B the rest) through the home's ReadQueue; a segment may be lost and R
 * re-sends its VOH_READ with the same seq. Meanwhile writer W writes
 * through the coherence protocol: a WRITE_MISS granted by the home (it
 * counts in the VOH version), the line Modified at W, home memory not
 * written until a later reader's READ_MISS writes W's data home.
 *
 * Today's rule (default): the home answers a repeated READ of a granted
 * read with PROCEED segments of its memory and version at that moment,
 * whatever happened since the grant; R keeps every segment it gets and
 * the last one's stamp. R's copy then pairs segment A from before W's
 * write (or memory under W's Modified line) with the version that counts
 * W's grant, and validates after W's data came home: a stale hit (run
 * vohdup-old).
 * -DFIX (na_voh_home.c request()): the repeat is answered with the block
 * only while the home still serves it (no writer, not Modified) at the
 * version and epoch of the grant; otherwise PROCEED FAIL, and the read
 * leaves the ReadQueue (R falls back to a coherent READ_MISS).
 *
 * A refused read is over at the home: every later copy of its READ is
 * answered FAIL again (a lost FAIL would leave R re-sending for good: R
 * never gives up, so an unanswered R is an invalid end state).
 *
 * The model has no clock: R re-sends at any time, so a requester's timers
 * (the ABORT quarantine sleeping out its timeout, or woken by its answer)
 * only pick interleavings inside this set. na-sim seed 30006
 * (regress-voh-fallback-30006) with the quarantine woken and without FIX
 * is run vohdup-old's trail: READ granted at version 1, one PROCEED lost;
 * home-node WRITE_SHARED, then WRITE_MISSes granted (version 10), one
 * writer's unlock lost (locked, Modified, memory stale); the repeat READ
 * served memory with version 10; R's copy validated, 2 stale reads.
 *
 * Bounds: one fetch and one validated hit by R, W writes by one writer
 * (each granted, then its data home before the next: values 1..W, a read
 * must see at least the last write completed before it began), LOSS
 * segments or FAILs lost, R re-sends (or network copies) of the READ at
 * any time; segments in order (a FIFO), so a mix needs a lost segment.
 * Not explored: two readers, writers on two nodes (one writer's grants
 * stand for all: the version and Modified are the home's), a move to the
 * switch (the epoch: vohsw.pml), version wrap (32 bits).
 */
#ifndef LOSS
#define LOSS 1
#endif
#ifndef R
#define R 2
#endif
#ifndef W
#define W 1
#endif

byte mem, cval, ver;  /* home memory, W's cached value, VOH version */
bit modified;         /* W's line Modified (the home's gstatus) */
byte w_done;          /* the last write completed (value 1..W) */
bit granted, ended;   /* the home's record of R's read */
byte gver;            /* the version its first PROCEED carried */
byte lost;

/* PROCEED segments to R: seg (0 = A, 1 = B), value, stamp; FAIL = seg 2 */
/* Room for every copy's answers: a full toR would split the home's atomic
 * step (the C emits a copy's PROCEEDs in one output list), a false trail. */
chan toR = [2 * R + 4] of { byte, byte, byte };
chan toH = [R + 2] of { bit };

active proctype w()
{
	do
	:: cval < W ->
		atomic { ver++; cval++; modified = 1; w_done = cval };
		/* another node's READ_MISS: the owner's data goes home */
		atomic { mem = cval; modified = 0 }
	:: else -> break
	od
}

inline send_block()
{
	if
	:: lost < LOSS -> lost++
	:: toR ! 0, mem, ver
	fi;
	if
	:: lost < LOSS -> lost++
	:: toR ! 1, mem, ver
	fi
}

inline send_fail()
{
	if
	:: lost < LOSS -> lost++
	:: toR ! 2, 0, 0
	fi
}

active proctype home()
{
	bit x;
end:
	do
	:: toH ? x ->
		atomic {
			if
#ifdef NOREFAIL
			:: ended -> skip /* the C's first try: a lost FAIL stalls R */
#else
			:: ended -> send_fail() /* its FAIL may be lost */
#endif
			:: !granted && !ended ->
				if
				:: !modified -> granted = 1; gver = ver;
					send_block()
				:: else -> send_fail()
				fi
			:: granted ->
#ifdef FIX
				if
				:: !modified && ver == gver -> send_block()
				:: else -> granted = 0; ended = 1; send_fail()
				fi
#else
				send_block()
#endif
			fi
		}
	od
}

active proctype r()
{
	byte seg, val, st, a, stamp, tries, v, after;
	bit have_a, have_b, ok;

	after = w_done;
	toH ! 1;
	do
	:: have_a && have_b -> ok = 1; break
	:: toR ? seg, val, st ->
		if
		:: seg == 2 -> break /* refused: the fallback below */
		:: else ->
			if
			:: seg == 0 -> a = val; have_a = 1
			:: else -> have_b = 1
			fi;
			stamp = st
		fi
	:: tries < R -> tries++; toH ! 1 /* timer, or a network copy */
	od;
	if
	:: ok -> v = a
	:: else ->
		/* a coherent READ_MISS: the owner's data, written home */
		atomic { if :: modified -> mem = cval; modified = 0
			 :: else fi; v = mem }
	fi;
	assert(v >= after);
	/* a validated hit later: the version and the home still serving */
	if
	:: ok ->
		atomic {
			after = w_done;
			if
			:: !modified && ver == stamp -> assert(a >= after)
			:: else -> skip
			fi
		}
	:: else
	fi
}
