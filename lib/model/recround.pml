/*
 * A late copy of a recovery round's BEGIN (na_rec_node.c on_begin). A home
 * runs rounds one after the other, numbered on the wire (the frame's seq:
 * 32 bits; here RW bits, mod M): BEGIN(r) to the node, re-sent until the
 * node's REPORT(r) is in, then DONE(r), re-sent until DONE_ACK(r). The
 * node is inside a round from BEGIN to DONE: its requests on the round's
 * blocks wait (rec_before_event). The network loses copies (LOSS in all)
 * and keeps one copy of one BEGIN back, delivered at any later time (the
 * late copy), or never.
 *
 * Today's rule (default): any BEGIN whose round is not the one the node is
 * in starts that round. The late copy of the last round's BEGIN, after its
 * DONE, starts it again: the home ignores the report of a round it is not
 * running and sends no DONE, and the node waits in the round for ever
 * (assertion in the monitor, run recround-old). -DFIX: the node keeps the
 * number of the last round of each home it ended (DONE) and ignores a
 * BEGIN that is not newer than it or than the round it is in, by serial
 * arithmetic on RW bits (newer: 1 .. M/2-1 ahead).
 *
 * Aliasing: the late copy is dropped by the network once the home is LATE
 * rounds past it; LATE > M/2 lets an old copy look newer (run
 * recround-alias, RW=2, LATE=3: fails). On the wire, 2^31 rounds would
 * have to pass while a copy is in flight.
 *
 * -DRESTART: after its rounds the home restarts (a new incarnation, rounds
 * from 1 again) and the node re-admits it first (dsm_node_rejoined; the old
 * process silent: its copies gone, as in rejoin.pml); the rejoin forgets
 * the home's last round. -DNOFORGET keeps it: the new incarnation's
 * BEGINs look old, are ignored, and the home gives up re-sending (invalid
 * end state, run recround-noforget).
 *
 * Bounds: one home, one node, NR rounds (default 3), one late copy, LOSS
 * (default 2) lost copies in all. Not explored: several homes (a node
 * keeps one record per home: independent), a round's blocks and reports'
 * content (recsend.pml, recslots.pml).
 */
#ifndef RW
#define RW 2
#endif
#define M (1 << RW)
#ifndef NR
#define NR 3
#endif
#ifndef LOSS
#define LOSS 2
#endif
#ifndef LATE
#define LATE 1
#endif
#define NEWER(a, b) ((((a) - (b) + M) % M) >= 1 && (((a) - (b) + M) % M) < M / 2)

mtype = { BEGIN, DONE, REPORT, DONE_ACK };
chan to_node = [2] of { mtype, byte };
chan to_home = [2] of { mtype, byte };

byte lost;          /* copies lost so far */
byte late = 255;    /* the late BEGIN copy's round, 255: none */
byte late_age;      /* rounds the home started since it was taken */
bit home_done;      /* the home finished every round (and restart) */
bit inround;        /* the node is in a round */
byte nround;        /* ... numbered */
bit done_valid;     /* FIX: the node ended a round of this home */
byte done_round;
byte h_round;       /* the home's current round number */

/* send with loss: a copy may be lost while the budget lasts */
inline send(ch, t, r)
{
	if
	:: ch!t, r
	:: lost < LOSS -> lost++
	fi
}

/* Send t (BEGIN or DONE) until the answer `want` to this round is in:
 * again whenever nothing is in flight (a copy or its answer lost, or the
 * copy ignored), LOSS + 1 copies at most; stale answers are read and
 * ignored. BEGIN's copies may leave the late copy behind. */
inline exchange(t, want)
{
	got = 0;
	tries = 0;
	do
	:: got -> break
	:: else ->
		if
		:: to_home?at, ar ->
			if
			:: at == want && ar == h_round -> got = 1
			:: else
			fi
		:: atomic { empty(to_node) && empty(to_home) && tries <= LOSS ->
			tries++;
			send(to_node, t, h_round);
			if
			:: t == BEGIN && late == 255 ->
				late = h_round;
				late_age = 0
			:: else
			fi }
		fi
	od
}

active proctype home()
{
	byte k, inc, tries, ar;
	mtype at;
	bit got;

	for (inc : 0 .. 1) {
		for (k : 1 .. NR) {
			h_round = (h_round + 1) % M;
			if
			:: late != 255 -> late_age++;
				if
				:: late_age > LATE -> late = 255
				:: else
				fi
			:: else
			fi;
			exchange(BEGIN, REPORT);
			exchange(DONE, DONE_ACK)
		}
#ifdef RESTART
		if
		:: inc == 0 ->
			/* a new incarnation; the node re-admits it before
			 * any of its frames, the old one's copies are gone */
			atomic {
				h_round = 0;
				late = 255;
				do
				:: to_node?_, _
				:: empty(to_node) -> break
				od;
				do
				:: to_home?_, _
				:: empty(to_home) -> break
				od;
#ifndef NOFORGET
				done_valid = 0;
#endif
				inround = 0
			}
		:: else -> break
		fi
#else
		break
#endif
	}
	home_done = 1;
	/* stale reports and acks are read and ignored */
end_h:	do
	:: to_home?_, _
	od
}

active proctype node()
{
	mtype t;
	byte r;

end_n:	do
	:: atomic { to_node?t, r -> /* handled as it is taken */
			if
			:: t == BEGIN ->
#ifdef FIX
				if
				:: (done_valid && !NEWER(r, done_round)) ||
				   (inround && r != nround && !NEWER(r, nround)) ->
					skip /* a late copy: ignored */
				:: else ->
#endif
					inround = 1;
					nround = r;
					send(to_home, REPORT, r)
#ifdef FIX
				fi
#endif
			:: t == DONE ->
				if
				:: inround && nround == r ->
					inround = 0;
					done_valid = 1;
					done_round = r
				:: else
				fi;
				send(to_home, DONE_ACK, r)
			fi
		}
	:: atomic { late != 255 && nfull(to_node) ->
		to_node!BEGIN, late; late = 255 }
	od
}

/* Once the home is done and nothing is in flight, the node is in no
 * round. */
active proctype monitor()
{
	atomic { home_done && empty(to_node) && late == 255 ->
		assert(!inround) }
}
