/*
 * Validate-on-hit home, its one record per requester thread (na_voh_home.c
 * request(): seq, state): a refused VOH_READ and a late copy of it. na-sim
 * seed 3954815210 (regress-voh-refused-3954815210): node 7's VOH_READ s6
 * reached home 0 while the block was queued away (not served): PROCEED
 * FAIL, no record kept; node 7 fell back to the coherence protocol. A
 * network copy of s6 arrived after the block was served again and was
 * granted: the record stayed GRANTED for s6, which nobody ends (no
 * VOH_DONE follows a FAIL), and every later request of that thread was
 * dropped as "one operation at a time": s10 re-sent for 300 s.
 *
 * Today's rule (default): a request refused because the home does not
 * serve the block leaves the record as it was; a request whose seq is not
 * the record's starts a new record unless the record is QUEUED/GRANTED.
 * -DFIX: the refusal is recorded (state REFUSED: every later copy of that
 * request is answered FAIL again), and a request older than the record's
 * seq (a late copy of an operation the thread has finished; a thread runs
 * one operation at a time, its seqs grow) is dropped.
 *
 * R runs OPS reads with seqs 1..OPS; each READ is re-sent up to RS times
 * (its timer, or network copies) and copies overtake each other (the home
 * takes any message in its channel); a grant is ended by VOH_DONE, re-sent
 * until its VOH_VERSION; LOSS requests or answers lost in all. The block
 * stops and starts being served (a move, a queued writer) MOVES times.
 * R never gives up: R blocked with every copy answered by nothing is an
 * invalid end state. Not explored: the same_block rule for a repeated
 * granted READ (vohdup.pml), updates (vohupd.pml), seq wrap (32 bits,
 * RFC 1982: a copy 2^31 events late), a node restart (seqs from 1 again:
 * issue 28 item 5, as the home's LAST-EXECUTED rows).
 */
#ifndef OPS
#define OPS 3
#endif
#ifndef RS
#define RS 2
#endif
#ifndef LOSS
#define LOSS 1
#endif
#ifndef MOVES
#define MOVES 2
#endif

#define RD 0 /* VOH_READ */
#define DN 1 /* VOH_DONE */
#define OK 0 /* PROCEED */
#define FL 1 /* PROCEED FAIL */
#define VR 2 /* VOH_VERSION */

#define NONE 0
#define GRANTED 1
#define DONE 2
#define REFUSED 3

#define QN (2 * OPS * (RS + 1))
chan toH = [QN] of { byte, byte };
chan toR = [QN] of { byte, byte };

bit serves = 1;
byte lost, rseq, rstate;
byte opsdone;

inline send(c, k, s)
{
	atomic {
		if
		:: lost < LOSS -> lost++
		:: c ! k, s
		fi
	}
}

active proctype mover()
{
	byte n;
	do
	:: n < MOVES -> atomic { serves = 1 - serves; n++ }
	:: else -> break
	od;
	serves = 1
}

#define RECV(K, S) :: toH ?? eval(K), eval(S) -> k = K; s = S
active proctype home()
{
	byte k, s;
end:
	do
	:: atomic {
		if
		RECV(RD, 1) RECV(RD, 2) RECV(RD, 3)
		RECV(DN, 1) RECV(DN, 2) RECV(DN, 3)
		fi;
		if
		:: k == DN ->
			if
			:: rstate == GRANTED && s == rseq -> rstate = DONE;
				send(toR, VR, s)
			:: rstate == DONE && s == rseq -> send(toR, VR, s)
			:: else -> skip
			fi
		:: k == RD && rstate != NONE && s == rseq ->
			if
			:: rstate == GRANTED -> send(toR, OK, s)
			:: else -> send(toR, FL, s) /* refused or done */
			fi
		:: k == RD && rstate == GRANTED && s != rseq ->
			skip /* one operation at a time per requester */
#ifdef FIX
		:: k == RD && rstate != NONE && s < rseq -> skip /* late */
#endif
		:: else ->
			if
			:: serves -> rseq = s; rstate = GRANTED;
				send(toR, OK, s)
			:: else ->
#ifdef FIX
				rseq = s; rstate = REFUSED;
#endif
				send(toR, FL, s)
			fi
		fi
	}
	od
}

active proctype r()
{
	byte seq, k, tries;
	bit got;

	for (seq : 1 .. OPS) {
		got = 0;
		tries = 0;
		send(toH, RD, seq);
		do
		:: toR ?? k, eval(seq) ->
			if
			:: k == OK -> got = 1; break
			:: k == FL -> break /* the fallback: a coherent READ */
			:: else -> skip
			fi
		:: tries < RS -> tries++; send(toH, RD, seq)
		od;
		if
		:: got ->
			tries = 0;
			send(toH, DN, seq);
			do
			:: toR ?? VR, eval(seq) -> break
			:: toR ?? OK, eval(seq) -> skip
			:: tries < RS -> tries++; send(toH, DN, seq)
			od
		:: else
		fi;
		opsdone++
	}
}
