/*
 * A survivor home's recovery rounds across a node X's declaration, drain
 * and re-admission (docs/FAULTS.md sections 2-3; na_rec_home.c,
 * na_rec_drain.c, na_rec_rejoin.c). The old process of X is dead from the
 * start; the home H learns it in three steps:
 *
 *   declaration  dsm_node_failed (another thread): X is "declared"; from
 *                then on H drops X's messages (na_rec_dead_drop)
 *   drain        H's next tick: X is "dead", taken out of the running
 *                round's expected reporters (na_rec_drain)
 *   rejoin       requested when X's new incarnation starts (at any time
 *                after the declaration, here: na-sim starts it 1 ms after
 *                the switch command, a tick is 2 ms), applied by a tick
 *                once X is dead and H runs no round (rejoin_ready)
 *
 * Between the declaration and the drain a tag miss may make H start a
 * round (a detection: na_rec_start_round outside the tick). Today's rule
 * (default): its expected reporters are every node not dead, X included.
 * X's new incarnation takes the BEGIN, waits in the round (its requests on
 * the round's blocks wait, rec_before_event) and reports; H drops the
 * report (X declared); the drain takes X out of the round, which ends
 * without it: no DONE for X, which waits for ever (monitor's assertion;
 * na-sim --fault restart, sweep 70). -DFIX: a round's expected reporters
 * exclude the declared nodes as well as the dead.
 *
 * The tick is atomic and drains first (na_rec_tick: the drain before the
 * home's tick), so its re-sends never go to a node declared before it.
 * Frames to X are dropped while X is down; a copy sent before the
 * declaration is gone by the restart (the restart's bound: the switch
 * command waits a frame's life after the declaration). The other
 * survivors report and acknowledge at once (not modelled). Bounds: NR
 * rounds started by detections, one drain round, LOSS lost copies.
 *
 * -DHOLD: the rounds rebuild one block Y of which X's old process held a
 * copy; its report (HOLD) may be in the running round before it died. A
 * drain takes Y for its own round only if Y is the home's (RECOVERING in
 * the running round, the drain passes it by). Today's rule: the running round keeps X's HOLD and rebuilds Y
 * with X in its copyset, a copy X's new incarnation does not have: every
 * read forwarded to it gets no data (na-sim --fault restart sweep 70 run
 * 385, recjoin-hold). -DFIX2: the drain also takes X out of the running
 * round's collected holders.
 */
#ifndef NR
#define NR 2
#endif
#ifndef LOSS
#define LOSS 1
#endif
#define M 8 /* round numbers mod M: NR + 1 rounds never wrap */

#define IDLE    0
#define COLLECT 1
#define DONE    2

mtype = { BEGIN, END, REPORT, DONE_ACK };
/* frames to X: type, round, sent after the declaration */
chan to_x = [2] of { mtype, byte, bit };
chan to_h = [2] of { mtype, byte };

bit declared, dead, rejoin_req, x_up;
byte phase = IDLE;
byte h_round;
bit expect, reported, acked; /* X's bits of the round's sets */
bit drain_due;               /* the drain's own round, after the current */
byte started;                /* detections' rounds */
bit home_done;
byte lost;
bit inround;                 /* X's new incarnation is in a round */
byte nround;
bit hold_in;  /* the running round collected X's old HOLD of Y */
bit covers;   /* the running round rebuilds Y */
bit cs_x = 1; /* Y's copyset names X (its old process held a copy) */
bit y_home = 1; /* Y is the home's (not RECOVERING in a round) */
bit y_drain;    /* the drain took Y for its round */

inline send_x(t, r)
{
	if
	:: to_x!t, r, declared
	:: lost < LOSS -> lost++
	fi
}

inline start_round(y)
{
	h_round = (h_round + 1) % M;
	phase = COLLECT;
	covers = y;
	hold_in = 0;
	if
	:: y -> y_home = 0
	:: else
	fi;
#ifdef FIX
	expect = !dead && !declared;
#else
	expect = !dead;
#endif
	reported = 0;
	acked = 0;
	if
	:: expect -> send_x(BEGIN, h_round)
	:: else
	fi
}

active proctype home()
{
	mtype t;
	byte r;

	do
	/* a detection (a tag miss of a block the switch lost) */
	:: atomic { phase == IDLE && started < NR -> started++;
		    if
		    :: start_round(y_home) /* Y's tag miss, or another's */
		    :: start_round(0)
		    fi }
#ifdef HOLD
	/* X's old process reported its copy of Y before it died */
	:: atomic { phase == COLLECT && covers && !declared && !hold_in ->
		    hold_in = 1 }
#endif
	/* the tick: the drain first */
	:: atomic { declared && !dead ->
		dead = 1;
		expect = 0;
#ifdef FIX2
		hold_in = 0;
#endif
		/* Y taken if the home's and naming X (RECOVERING now) */
		y_drain = y_home && cs_x;
		if
		:: y_drain -> y_home = 0
		:: else
		fi;
		if
		:: phase == IDLE -> start_round(y_drain)
		:: else -> drain_due = 1
		fi }
	:: atomic { !(declared && !dead) && rejoin_req && dead &&
		    phase == IDLE && !drain_due ->
		dead = 0; declared = 0; rejoin_req = 0 }
	:: atomic { !(declared && !dead) && phase == IDLE && drain_due ->
		drain_due = 0; start_round(y_drain) }
	:: atomic { !(declared && !dead) && phase == COLLECT &&
		    (!expect || reported) ->
		phase = DONE;
		if
		:: covers -> cs_x = hold_in; y_home = 1
		:: else
		fi;
		if
		:: expect -> send_x(END, h_round)
		:: else
		fi }
	:: atomic { !(declared && !dead) && phase == COLLECT && expect &&
		    !reported && empty(to_x) && empty(to_h) ->
		send_x(BEGIN, h_round) }
	:: atomic { !(declared && !dead) && phase == DONE &&
		    (!expect || acked) -> phase = IDLE }
	:: atomic { !(declared && !dead) && phase == DONE && expect &&
		    !acked && empty(to_x) && empty(to_h) ->
		send_x(END, h_round) }
	/* X's frames: dropped while X is declared or dead */
	:: atomic { to_h?t, r ->
		if
		:: declared || dead -> skip
		:: else ->
			if
			:: t == REPORT && phase == COLLECT && r == h_round &&
			   expect -> reported = 1
			:: t == DONE_ACK && phase == DONE && r == h_round ->
				acked = 1
			:: else
			fi
		fi }
	:: atomic { phase == IDLE && started == NR && !drain_due &&
		    !declared && !dead && !rejoin_req && x_up ->
		break }
	od;
	home_done = 1
}

/* The declaration, then X's new incarnation and its rejoin request. */
active proctype control()
{
	declared = 1;
	atomic { x_up = 1; rejoin_req = 1 }
}

active proctype x()
{
	mtype t;
	byte r;
	bit after;

end_x:	do
	:: atomic { to_x?t, r, after ->
		if
		:: !x_up || !after -> skip /* X down, or a copy gone by now */
		:: else ->
			if
			:: t == BEGIN ->
				if
				:: inround && nround == r -> skip
				:: else -> inround = 1; nround = r
				fi;
				to_h!REPORT, r
			:: else ->
				if
				:: inround && nround == r -> inround = 0
				:: else
				fi;
				to_h!DONE_ACK, r
			fi
		fi }
	od
}

/* Once the home is done and nothing is in flight, X is in no round. */
active proctype monitor()
{
	atomic { home_done && empty(to_x) && empty(to_h) -> assert(!inround)
#ifdef HOLD
		 ; assert(!cs_x) /* X's old copy is gone */
#endif
	}
}
