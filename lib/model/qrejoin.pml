/*
 * Queued mode across a node's restart (docs/FAULTS.md section 3,
 * docs/QUEUED-LOCKS.md; na_qreset.c): survivor S's queue holder holds a
 * switch-owned block's tenure; node X was declared dead (the holder table
 * marks it: Q_GRANTs to X dropped, X's queue entries removed, a hand-over
 * to X ended, na_qslot_settle_dead) and re-admitted; X's new incarnation
 * runs one write event E on the block.
 *
 * The switch: QSTATE's holder (S, X or none) and FWD_CNT; a request that
 * meets a held tenure is forwarded to its holder and counted; QXFER (next
 * = E) and QRELEASE are approved when their count equals FWD_CNT. E's
 * request is re-sent by its watchdog (WD times while S holds, WD after:
 * a free block grants it); forwarded to X's own holder (QSTATE names E),
 * it is queued there and never granted.
 *
 * Today's rule (default): the rejoin forgets X's rows at the home, not
 * the holder table's dead mark. S queues E's forward, QXFERs to E
 * (approved: QSTATE names E), then drops the Q_GRANT (X "dead"): E waits
 * for ever, every later request is forwarded to it (invalid end state;
 * na-sim --fault restart --seed 70 run 17). -DFIX: the rejoin clears the
 * holder table's mark of X.
 *
 * -DROUND: a home-owned block; its home H holds X dead (bad_next) until
 * it applies the rejoin, once its drain round of the block is over. S's
 * row ends its thread T's last tenure: QXFER naming an entry of X (the
 * old process's, carried by a Q_GRANT retransmitted past S's rejoin),
 * refused while H holds X dead; the rebuild frees the lock (not_holder,
 * taken as approved). The round waits for S's report, the report for T
 * to be outside every event on the block (na_rec_node.c quiescent), and
 * the report resets the row (na_qreset.c). T's next event on the block,
 * begun (na_rec_sent) before BEGIN came, waits for the row. Today's rule:
 * it waits inside the event: invalid end state (na-sim --fault restart
 * harsh sweep 93 run 120). -DFIX: a round that takes the block while the
 * event waits for its row takes the event out (it sent nothing); T
 * begins it again after the round (na_reqq_begin).
 *
 * -DFWD: a home-owned block whose QSTATE names tenure I of X's old process
 * (handed to it before it failed); H holds X dead until its drain round
 * rebuilt the lock. X's new event E has the same queue id I (its seqs
 * start again). Survivor S's request R meets the lock: today's rule
 * forwards it to X, counted in FWD_CNT; X's slot for E queues it. The
 * round resets QSTATE, E's request takes the lock ({I, 0}), E's QXFER
 * counts 1 against 0: denied `count` for ever, R never granted (invalid
 * end state; restart sweep 89 run 966). -DFIX: a request meeting a tenure
 * of a node H holds dead is NACKed (retried), not forwarded.
 */
#if defined(FWD)
#define NONE 0
#define XI   1 /* the tenure with X's id I (old process's, then E's) */
#define SR   2 /* S's request R holds */

byte qh = XI;   /* H's QSTATE holder */
byte fwd;       /* FWD_CNT */
bit h_dead = 1; /* H holds X dead */
bit x_reg;      /* X's slot for I registered (E began) */
byte got;       /* forwards X's slot queued */
bit r_wait;     /* R forwarded, not answered */
bit e_done;
chan to_x = [2] of { bit }; /* NA_QFWDs to X */

#ifdef FIX
#define FWD_OK (!h_dead)
#else
#define FWD_OK 1
#endif

/* H's drain round of the block (the holder's node is dead): the lock
 * rebuilt free; then the rejoin. */
active proctype home()
{
	atomic { qh = NONE; fwd = 0 };
	h_dead = 0
}

/* S's request R, re-sent on a NACK or Q_NACK; once granted, released. */
active proctype r()
{
again:
	atomic {
		if
		:: qh == NONE -> qh = SR
		:: qh == XI && FWD_OK -> fwd++; to_x!1; r_wait = 1
		fi
	}
	if
	:: atomic { qh == SR -> qh = NONE }
	:: atomic { !r_wait && qh != SR } -> goto again
	fi
}

/* X's holder table: a forward for I is queued on E's slot once E began,
 * else Q_NACKed (or lost with the node down: R's watchdog). */
active proctype xtable()
{
end:	do
	:: atomic { to_x?_ ->
		if
		:: x_reg && !e_done -> got++
		:: else -> r_wait = 0
		fi }
	od
}

/* X's new event E: its request takes the free lock; its end is a
 * QRELEASE (nothing queued) or a QXFER to R, approved when the count it
 * sends equals FWD_CNT (a missing forward is waited for). */
active proctype x()
{
	x_reg = 1;
	atomic { qh == NONE -> qh = XI; fwd = 0 };
	atomic { got == fwd ->
		if
		:: got == 0 -> qh = NONE
		:: else -> qh = SR
		fi;
		e_done = 1 }
}
#elif defined(ROUND)
#define ENDING 1
#define IDLE   0

bit h_dead = 1;  /* H holds X dead (its rejoin waits for the round) */
bit h_round = 1; /* H's drain round of the block runs */
byte s_pend;     /* at S: 0 before BEGIN, 1 in the round, 2 after DONE */
bit reported;    /* S's report reached H */
byte row = ENDING; /* S's row of T's last tenure */
bit busy;        /* T inside an event on the block */
bit t_done;

/* H: BEGIN to S; with S's report the rebuild (no lock) and DONE; then the
 * rejoin of X. */
active proctype home()
{
	s_pend = 1;
	atomic { reported -> h_round = 0; s_pend = 2 }
	h_dead = 0
}

/* S's row: the QXFER re-sent on its timer, refused (bad_next) while H
 * holds X dead and the lock is the tenure's; the rebuild's not_holder or
 * an approval ends it. */
active proctype s_row()
{
	if
	:: atomic { row == ENDING && (!h_dead || !h_round) -> row = IDLE }
	:: row == IDLE -> skip /* the report reset it */
	fi
}

/* S's recovery agent: the report once no thread is inside an event on
 * the block; it resets the block's rows (an ending one acknowledged). */
active proctype s_rec()
{
	atomic { s_pend == 1 && !busy -> row = IDLE; reported = 1 }
}

/* T's next event on the block: na_rec_sent (refused in the round), the
 * wait for its row, then its request: given up while the round holds the
 * block, granted after it (the rebuilt lock is free). */
active proctype t()
{
again:
	atomic { s_pend != 1 -> busy = 1 }
	do
	:: row == IDLE -> break
#ifdef FIX
	:: atomic { row != IDLE && s_pend == 1 -> busy = 0 }; goto again
#endif
	od;
	if
	:: atomic { s_pend == 1 -> busy = 0 }; goto again
	:: atomic { s_pend == 2 -> busy = 0; t_done = 1 }
	fi
}
#else
#ifndef WD
#define WD 2
#endif

#define NONE 0
#define S    1
#define X    2

byte qholder = S; /* the switch's QSTATE */
byte fwd;         /* FWD_CNT */
bit x_dead = 1;   /* S's holder table: X marked dead */
byte queued;      /* S's queue: E's entries */
byte got;         /* forwards S received */
bit granted;      /* E's Q_GRANT (or the lock) reached X */
bit s_done;

chan fwd_s = [2] of { bit }; /* forwards of E's request to S */

inline request()
{
	atomic {
		if
		:: qholder == NONE -> qholder = X; granted = 1
		:: qholder == S -> fwd++; fwd_s!1
		:: qholder == X -> skip /* to X's own holder: queued, no grant */
		fi
	}
}

/* S's holder ends its tenure: QRELEASE, denied while a counted forward
 * is on its way (the holder is then ENDING); that forward, arriving, is
 * queued and turns the end into a QXFER to it (na_qholder), before the
 * dead node's entries are settled. */
active proctype holder()
{
	bit ending;

	do
	:: atomic { fwd_s?_ -> got++;
		if
		:: ending && got == fwd -> /* QXFER to E, approved */
			qholder = X;
			if
			:: !x_dead -> granted = 1
			:: else -> skip /* GIVING to a dead node: dropped */
			fi;
			s_done = 1
		:: else ->
			if
			:: x_dead -> skip /* settle_dead: the entry leaves */
			:: else -> queued++
			fi
		fi }
	:: atomic { !s_done && !ending ->
		if
		:: got == fwd && queued == 0 -> qholder = NONE; s_done = 1
		:: got == fwd && queued > 0 -> /* QXFER approved */
			qholder = X;
			if
			:: !x_dead -> granted = 1
			:: else -> skip
			fi;
			s_done = 1
		:: got != fwd -> ending = 1 /* QRELEASE denied */
		fi }
	:: s_done -> break
	od
}

/* The rejoin, then X's new incarnation's event E. */
active proctype x()
{
	byte pre, w;

#ifdef FIX
	x_dead = 0;
#endif
	request();
	do
	:: granted -> break
	:: !granted && !s_done && pre < WD -> pre++; request()
	:: !granted && s_done && w < WD -> w++; request()
	od
}
#endif
