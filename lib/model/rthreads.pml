/*
 * Retry mode, two threads of one node on one switch-owned block
 * (docs/MODEL.md "Several threads per node"). The node's copyset bit is
 * shared by its threads; LOCK and SCOREBOARD are per thread. Thread T0 runs
 * one READ_MISS whose copies race (a duplicate, retransmissions) a writer on
 * another node and a sibling thread T1's READ_MISS + READ_UNLOCK; a refused
 * T0 event is ended by the quarantine (ABORT, then collect and unlock).
 *
 * Switch pass of a copy of T0's request, in the C's stage order
 * (lcf_pipeline.c pass_request): lock, check (Table 2: READ_MISS needs the
 * node outside COPYSET), SCOREBOARD. A copy refused by the check while an
 * earlier copy holds the counted lock is NACKed "check failed" (the NACK
 * carries COPYSET).
 *
 * Today's quarantine (default): a PASSED answer is settled only once the
 * passing copy's replies are collected; re-sent copies fail the check as
 * soon as T1's READ_UNLOCK put the node in COPYSET, so the replies never
 * come and the read lock leaks (run rthreads-old).
 * -DFIX (na_req_stale.c): a NACK of a re-sent READ_MISS showing the node in
 * COPYSET while a copy holds the lock settles at once: READ_UNLOCK with
 * Shared and the node's bit (OR-ed into COPYSET; the sibling's event
 * brought the data and wrote a Modified owner's data home).
 *
 * Bounds: DUP duplications of T0's request, LOSS losses of its replies (a
 * data segment that came before the NACK and was dropped with the event is
 * a lost reply), R re-sends (timer) per phase,
 * one event per thread; the data itself is not modelled (voh/lcf.pml).
 */
#ifndef DUP
#define DUP 1
#endif
#ifndef LOSS
#define LOSS 1
#endif
#ifndef R
#define R 2
#endif
#define N0 1 /* node 0's COPYSET bit */
#define N1 2

/* switch registers of the block */
byte rd;     /* LOCK readers */
bit wl;      /* LOCK writer */
byte cs = N1;
/* SCOREBOARD row of T0's event */
byte cnt;
bit over;
/* T0's channels: counts of identical copies in flight (a bag) */
byte req, rep, nack, nack_in, abrt, ans_passed, ans_aborted, unl;
byte dupb = DUP, lossb = LOSS;
bit t0_done, t1_done, w_done;

/* The switch: any copy in flight, in any order. */
active proctype sw()
{
	bit taken, chk, held;
end:	do
	:: atomic { req > 0 -> req--;
		taken = (wl == 0 && rd < 3);
		if :: taken -> rd++ :: else fi;
		chk = ((cs & N0) == 0);
		if :: !over && taken && chk -> cnt++ :: else fi;
		held = (!over && cnt > 0);
		if
		:: !taken && !held -> nack++
		:: else ->
			if
			:: over || !chk ->
				if :: taken -> rd-- :: else fi;
				if :: (cs & N0) -> nack_in++ :: else -> nack++ fi
			:: else -> rep++ /* forwarded; the home's reply */
			fi
		fi }
	:: atomic { abrt > 0 -> abrt--;
		if
		:: !over && cnt > 0 -> ans_passed++
		:: else -> over = 1; ans_aborted++
		fi }
	:: atomic { unl > 0 -> unl--;
		if
		:: !over -> rd = rd - cnt; cnt = 0; over = 1; cs = cs | N0
		:: else
		fi }
	:: atomic { req > 0 && dupb > 0 -> dupb--; req++ }
	:: atomic { rep > 0 && lossb > 0 -> lossb--; rep-- }
	od
}

/* A writer on node 1 (its own protocol is lcf.pml's). */
active proctype w()
{
	atomic { wl == 0 && rd == 0 -> wl = 1 };
	atomic { wl = 0; cs = N1 };
	w_done = 1
}

/* T0's sibling: a READ_MISS while the node is outside COPYSET, else a hit. */
active proctype t1()
{
	if
	:: atomic { wl == 0 && (cs & N0) == 0 -> rd++ };
	   atomic { rd--; cs = cs | N0 }
	:: (cs & N0) -> skip /* a hit on the node's copy */
	fi;
	t1_done = 1
}

active proctype t0()
{
	byte tries = 0;
	req++;
	do
	:: rep > 0 -> rep--; goto held
	:: nack > 0 -> nack--; goto quarantine
	:: nack_in > 0 -> nack_in--; goto quarantine
	:: timeout && tries < R -> tries++; req++
	od;
held:
	unl++;
	goto done;
quarantine:
	tries = 0;
	abrt++;
	do
	:: ans_aborted > 0 -> ans_aborted--; goto done
	:: ans_passed > 0 -> ans_passed--; break
	:: timeout && tries < R -> tries++; abrt++
	od;
	tries = 0;
	do
	:: rep > 0 -> rep--; goto held
#ifdef FIX
	:: nack_in > 0 -> nack_in--; goto held
#endif
	:: timeout && tries < R -> tries++; req++
	od;
done:
	t0_done = 1
}

/* Nothing left held once every thread is done and nothing is in flight
 * toward the switch. A thread that never finishes (its re-sends refused for
 * ever: R bounds them) is SPIN's invalid end state. */
active proctype quiet()
{
	t0_done && t1_done && w_done && req == 0 && unl == 0 && abrt == 0 ->
	assert(rd == 0 && wl == 0)
}
