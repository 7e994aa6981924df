/*
 * The directory baseline's refused event (docs/MODEL.md "Several threads
 * per node"): requester R's DIR_REQ copies (one duplicated by the network)
 * race writer W at the directory home; the home grants a copy when the
 * block is free, refuses it (NACK, not recorded) when W holds it, and
 * answers a copy of a granted seq from LAST-EXECUTED (the grant again).
 *
 * Today's rule (default): R counts NACKs against the copies it sent; when
 * every copy it sent is refused, the event is over and a grant that comes
 * later is dropped. The duplicate is a copy R never counted: it is granted
 * after the original's NACK and the home's lock leaks (run dircount-old).
 * -DFIX: R ends a refused event with the home's ABORT, as in switch mode
 * (na_home.c abort_event): the home records the seq as refused (later
 * copies are stale) or answers "a copy passed", and R collects the grant
 * and unlocks.
 *
 * Bounds: DUP duplications of R's request, one event each.
 */
#ifndef DUP
#define DUP 1
#endif

bit wl;           /* the home's write lock */
byte holder;      /* 1: R's seq holds it, 2: W */
bit le_done;      /* LAST-EXECUTED of R's seq: 1 granted/aborted */
bit le_aborted;
byte req, grant, nack, abrt, ans_passed, ans_aborted, unl;
byte dupb = DUP;
bit r_done, w_done;

active proctype home()
{
end:	do
	:: atomic { req > 0 -> req--;
		if
		:: le_done && !le_aborted -> grant++ /* duplicate: the grant */
		:: le_done && le_aborted -> skip     /* stale */
		:: !le_done && wl -> nack++
		:: !le_done && !wl -> wl = 1; holder = 1; le_done = 1; grant++
		fi }
	:: atomic { abrt > 0 -> abrt--;
		if
		:: !le_done -> le_done = 1; le_aborted = 1; ans_aborted++
		:: le_done && le_aborted -> ans_aborted++
		:: le_done && !le_aborted -> ans_passed++
		fi }
	:: atomic { unl > 0 -> unl--;
		if :: holder == 1 -> wl = 0; holder = 0 :: else fi }
	:: atomic { req > 0 && dupb > 0 -> dupb--; req++ }
	od
}

active proctype w()
{
	atomic { wl == 0 -> wl = 1; holder = 2 };
	atomic { wl = 0; holder = 0 };
	w_done = 1
}

active proctype r()
{
	req++;
	do
	:: grant > 0 -> grant--; goto held
	:: nack > 0 -> nack--; break
	od;
#ifdef FIX
	abrt++;
	do
	:: ans_aborted > 0 -> ans_aborted--; goto done
	:: ans_passed > 0 -> ans_passed--; break
	od;
	grant > 0 -> grant--;
held:
	unl++;
#else
	goto done; /* one NACK per copy sent: over */
held:
	unl++;
#endif
done:
	r_done = 1
}

/* Nothing left held once both are done and nothing is in flight. */
active proctype quiet()
{
	r_done && w_done && req == 0 && unl == 0 && abrt == 0 ->
	assert(wl == 0)
}
