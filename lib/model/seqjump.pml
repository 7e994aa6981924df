/*
 * Requester incarnations and seq jumps against the switch's per-requester
 * rows (LAST-UNLOCK, SCOREBOARD[parity]), docs/FAULTS.md section 3.
 * One requester thread, one switch-owned block Y, seqs of SEQW bits in
 * RFC 1982 order (the C and P4 keep 32; SEQW=3 puts the wrap-around and
 * the half-ring aliasing within EV events). Each event is a WRITE_MISS
 * then, when granted, its WRITE_UNLOCK; the block is free whenever the
 * requester's newest event asks for it, so a refusal ("refused") is the
 * switch answering a live event of the newest incarnation as over or
 * stale (a late copy's refusal is right and not counted).
 *
 *   STEP=k      the next seq is 1..k after the last (agents: 1, and 0 is
 *               skipped); k up to HALF-1 is item 8's "each step under 2^31"
 *   EVEN=k      the first k events step by 2 from 0 (even seqs only), the
 *               rest by 1: item 8's sequence, a parity not yet used
 *   RESTART     the requester dies once, after any event; a request copy
 *               of its current event may still be in the network and is
 *               delivered (or lost) at any later time; the new incarnation
 *               starts at seq 1
 *   RESET       the control plane resets the requester's rows and evicts
 *               the block's lock (swswitch-ctl node-failed) between the two
 *               incarnations
 *   DRAIN       the old incarnation's copies are gone before the reset
 *               ("once X can send nothing more")
 *   EMPTY0      the fix: a SCOREBOARD row whose seq is 0 is empty (power-on
 *               or reset: no requester uses seq 0), older than every seq
 *
 * Checked: no refusal of a live event; at the end Y is unlocked.
 * Not covered (known, -DSTEP=3 -DEMPTY0): a row written once and then not
 * for HALF seqs of the requester is stale; RFC 1982 order needs every row
 * within 2^31 of the requester's seqs, which consecutive seqs (STEP=1, each
 * event's request or ABORT and unlock reach the switch) keep.
 */
#ifndef SEQW
#define SEQW 3
#endif
#define M    (1 << SEQW)
#define HALF (M / 2)
#ifndef EV
#define EV 4
#endif
#ifndef STEP
#define STEP 1
#endif

#define DIFF(a, b)  (((a) - (b) + M) % M)
#define AFTER(a, b) (DIFF(a, b) > 0 && DIFF(a, b) < HALF)
#ifdef EMPTY0
#define SB_OLDER(row, s) ((row) == 0 || AFTER(s, row))
#define SB_LATER(row, s) ((row) != 0 && AFTER(row, s))
#else
#define SB_OLDER(row, s) (AFTER(s, row))
#define SB_LATER(row, s) (AFTER(row, s))
#endif

#define C_FREE    0 /* the event holds no counted lock */
#define C_COUNTED 1
#define C_ENDED   2

byte lu;          /* LAST-UNLOCK seq */
byte sbseq[2];    /* SCOREBOARD [parity] seq */
byte sbc[2];      /* ... and its count / ENDED */
bool lock;        /* Y's write lock */
bool refused;
byte late;        /* the old incarnation's request copy in flight (0: none) */
bool done;

/* A WRITE_MISS's pass; g: forwarded holding the lock. */
inline sw_request(s, g)
{
	g = false;
	if
	:: !AFTER(s, lu) -> refused = true /* nack_stale_request */
	:: else ->
		if
		:: sbseq[s % 2] == s && sbc[s % 2] == C_ENDED -> refused = true
		:: sbseq[s % 2] != s && SB_LATER(sbseq[s % 2], s) ->
			refused = true /* nack_aborted_request */
		:: else ->
			if
			:: !lock -> lock = true; sbseq[s % 2] = s;
				sbc[s % 2] = C_COUNTED; g = true
			:: else -> skip /* nack_lock_busy */
			fi
		fi
	fi
}

/* A WRITE_UNLOCK's two passes (never lost here). */
inline sw_unlock(s)
{
	if
	:: AFTER(s, lu) ->
		lu = s;
		if
		:: sbseq[s % 2] == s && sbc[s % 2] == C_COUNTED ->
			lock = false; sbc[s % 2] = C_FREE
		:: else -> skip
		fi
	:: else -> skip /* unlock_duplicate_ignored */
	fi
}

inline next_seq(cur)
{
	if
#ifdef EVEN
	:: n < EVEN -> cur = (cur + 2) % M
	:: n >= EVEN -> cur = (cur + 1) % M
#else
	:: cur = (cur + 1) % M
#if STEP >= 2
	:: cur = (cur + 2) % M
#endif
#if STEP >= 3
	:: cur = (cur + 3) % M
#endif
#endif
	fi;
	if
	:: cur == 0 -> cur = 1
	:: else -> skip
	fi
}

inline event(cur)
{
	next_seq(cur);
	atomic {
		refused = false;
		sw_request(cur, g)
	};
	assert(!refused);
	/* NACKed busy (a late copy holds Y): the event is given up */
	if
	:: g -> atomic { sw_unlock(cur) }
	:: else -> skip
	fi
}

active proctype requester()
{
	byte cur = 0, n = 0;
	bool g;

#ifdef RESTART
	bool restarted = false;
#endif
	do
	:: n < EV -> event(cur); n++
#ifdef RESTART
	:: n < EV && !restarted ->
		/* dies in its next event, after sending the request */
		next_seq(cur);
		atomic {
			restarted = true;
			if
			:: late = cur
			:: skip
			fi;
#ifdef DRAIN
			late = 0;
#endif
#ifdef RESET
			lu = 0; sbseq[0] = 0; sbseq[1] = 0;
			sbc[0] = C_FREE; sbc[1] = C_FREE; lock = false;
#endif
			cur = 0
		}
#endif
	:: n == EV -> break
	od;
	done = true
}

/* The network: the old incarnation's copy is delivered or lost. */
active proctype network()
{
	bool g;

	do
	:: late != 0 -> atomic { sw_request(late, g); late = 0; refused = false }
	:: late != 0 -> late = 0
	:: done && late == 0 -> break
	od;
	/* a lock taken by a copy nobody unlocks */
	assert(!lock)
}
