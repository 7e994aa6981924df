/*
 * Retry mode, two threads of one node sharing its one cache entry of a
 * home-owned block X (docs/MODEL.md "Small models"; na-sim seed
 * 3325740582 of the harsh sweep). T1 writes X, held Shared: a
 * WRITE_SHARED whose copies (DUP network duplicates, re-sends) race a
 * writer W on another node; the home grants a copy only while its lock is
 * free, re-grants a copy of the seq that holds it (LAST-EXECUTED) and
 * refuses every copy once the seq is over (unlocked or aborted). Sibling T2
 * picks the entry to evict (a miss on another tag of the one-block cache):
 * it marks the entry busy and sends EVICT_SHARED, refused while the lock
 * is held.
 *
 * The C (na_access.c): a NACK ends T1's event refused (miss() frees the
 * entry's busy mark, the seq is kept as abandoned, struct na_stale); a
 * copy still in flight may take the lock. T1 loops: the entry free and
 * valid, it retries the same seq (a copy holding the lock is re-granted);
 * the entry gone (evicted), a new event (WRITE_MISS), which ends the
 * abandoned seq first (na_req_quarantine: ABORT; "passed": collect the
 * replies, then unlock; "aborted": nothing held); the entry busy, it waits
 * locally. HIT: T1 may instead leave X (a hit after the NACK: a sibling
 * brought the block) and miss on Y, whose only entry is X's: busy, it
 * waits; free, T1's own eviction of X is a new event (abstracted: the
 * quarantine, then granted once the lock is free).
 * evict() keeps the busy mark through its refused retries; a refused retry
 * is abstracted as waiting for the lock to be free (it is refused for as
 * long as the lock is held).
 *
 * Today's rule (default): a local wait does not end the abandoned seq: T1
 * waits for T2's entry, T2 for the lock, the lock for T1 (invalid end
 * state). -DFIX (na_access.c local_wait): a thread holding an abandoned
 * request ends it (the quarantine) before it waits locally, and never
 * reuses that seq. -DEVFREE (not the C): evict() frees the entry between
 * refused retries (as miss() does) and claims it again; passes too.
 *
 * Bounds: DUP duplicates of T1's request, LOSS losses of its replies and
 * ABORT answers, R re-sends per phase (timer), one access per thread.
 */
#ifndef DUP
#define DUP 1
#endif
#ifndef LOSS
#define LOSS 0
#endif
#ifndef R
#define R 2
#endif
#define NB 0 /* nobody / free */
#define T1 1
#define T2 2
#define WN 3

/* the home's lock of X: NB, T1 (its one seq), T2 (its eviction), WN */
byte lk;
bit over;           /* T1's seq unlocked or aborted: its copies refused */
/* T1's channels: counts of identical copies in flight (a bag) */
byte req, rep, nack, abrt, ans_passed, ans_aborted, unl;
byte ev, ev_ok, ev_nack, ev_unl; /* T2's eviction */
byte dupb = DUP, lossb = LOSS;
/* the node's one cache entry: X's, Shared */
byte busy = NB;
bit valid = 1;
bit stale;          /* T1's abandoned seq */
bit spent;          /* T1's seq ended: a miss takes a new one */
bit t1_done, t2_done, w_done;
byte writes;        /* T1's write done (at most once) */

active proctype home()
{
end:	do
	:: atomic { req > 0 -> req--;
		if
		:: lk == T1 -> rep++ /* a copy of the holder: LAST-EXECUTED */
		:: lk == NB && !over -> lk = T1; rep++
		:: else -> nack++
		fi }
	:: atomic { abrt > 0 -> abrt--;
		if
		:: lk == T1 -> ans_passed++
		:: else -> over = 1; ans_aborted++
		fi }
	:: atomic { unl > 0 -> unl--;
		if :: lk == T1 -> lk = NB; over = 1 :: else fi }
	:: atomic { ev > 0 -> ev--;
		if
		:: lk == NB -> lk = T2; ev_ok++
		:: else -> ev_nack++
		fi }
	:: atomic { ev_unl > 0 -> ev_unl--; lk = NB }
	:: atomic { req > 0 && dupb > 0 -> dupb--; req++ }
	:: atomic { rep > 0 && lossb > 0 -> lossb--; rep-- }
	:: atomic { ans_passed + ans_aborted > 0 && lossb > 0 -> lossb--;
		if :: ans_passed > 0 -> ans_passed-- :: ans_aborted > 0 -> ans_aborted-- fi }
	od
}

/* A writer on another node (its own protocol is lcf.pml's). */
active proctype w()
{
	atomic { lk == NB -> lk = WN };
	atomic { lk = NB };
	w_done = 1
}

/* T2: X's entry is its victim; EVICT_SHARED, retried with the entry busy. */
active proctype t2()
{
claim:
	if
	:: atomic { busy == NB && valid -> busy = T2 }
	:: !valid -> goto out /* T1 evicted X: nothing to evict */
	fi;
	ev++;
	do
	:: ev_ok > 0 -> ev_ok--; break
	:: ev_nack > 0 -> ev_nack--;
#ifdef EVFREE
		busy = NB; (lk == NB); goto claim
#else
		(lk == NB); ev++
#endif
	od;
	atomic { valid = 0; busy = NB };
	ev_unl++;
out:
	t2_done = 1
}

active proctype t1()
{
	byte tries;
	bit onx = 1, q_ret_wait;
top:
	if
	:: atomic { onx && busy == NB && valid && !spent -> busy = T1; stale = 0 };
	   goto event /* the same seq (reused while abandoned) */
	:: atomic { onx && busy == NB && (!valid || spent) -> busy = T1 };
	   q_ret_wait = 0; goto newev /* a new event: the quarantine first */
	:: atomic { !onx && busy == NB -> busy = T1 };
	   q_ret_wait = 0; goto newev /* its eviction of X: a new event */
	:: busy != NB && busy != T1 -> /* a local wait */
#ifdef FIX
	   if
	   :: stale -> q_ret_wait = 1; goto quarantine
	   :: else
	   fi;
waited:
#endif
	   (busy == NB); goto top
#ifdef HIT
	:: onx && stale -> onx = 0; goto top /* a hit; then a miss on Y */
#endif
	fi;
event:
	tries = 0;
	req++;
	do
	:: rep > 0 -> rep--; goto granted
	:: nack > 0 -> nack--; stale = 1; busy = NB; goto top
	:: timeout && tries < R -> tries++; req++
	od;
granted:
	writes++;
	busy = NB;
	unl++;
	goto done;
quarantine:
	tries = 0;
	abrt++;
	do
	:: ans_aborted > 0 -> ans_aborted--; goto settled
	:: ans_passed > 0 -> ans_passed--; break
	:: timeout && tries < R -> tries++; abrt++
	od;
	tries = 0;
	req++;
	do
	:: rep > 0 -> rep--; unl++; goto settled
	:: timeout && tries < R -> tries++; req++
	od;
settled:
	stale = 0;
	spent = 1;
#ifdef FIX
	if :: q_ret_wait -> goto waited :: else fi;
#endif
	goto fresh;
newev:
	if :: stale -> goto quarantine :: else fi;
fresh:
	/* A new seq's event (its copies: lcf.pml): granted once the lock is
	 * free, the write done, the lock released. */
	atomic { lk == NB -> if :: onx -> writes++ :: else -> valid = 0 fi };
	busy = NB;
done:
	t1_done = 1
}

/* Once every thread is done and nothing is in flight to the home, the
 * lock is free and T1 wrote once. A thread that never finishes is SPIN's
 * invalid end state. */
active proctype quiet()
{
	t1_done && t2_done && w_done && req == 0 && unl == 0 && abrt == 0 &&
	ev == 0 && ev_unl == 0 ->
	assert(lk == NB && writes <= 1)
}
