/*
 * SPIN model of validate-on-hit (docs/VALIDATE.md, docs/PROTOCOL.md
 * "Validate-on-hit messages"): readers keep a cached copy with its
 * version and serve it only after a one-sided version read (VREAD) returns the same version; a miss or a
 * changed version fetches the block through the home's ReadQueue /
 * UpdateQueue state machine (paper 003, Table 1, writers preferred); an
 * updater takes the UpdateQueue, writes the data, and its DONE makes the
 * home bump the version and release the reads queued behind it.
 * Home-owned blocks only (the switch path is refused: docs/VALIDATE.md).
 *
 * Bounds (-D overridable):
 *   NRD   readers (1..2), each one node with one thread and a cached copy
 *   ROPS  reads per reader
 *   UPS   updates by the updater
 *   LOSS  messages the network may drop in a run
 *   DUP   messages the network may duplicate in a run
 *   TTL   1: readers serve their copy without the version read (the TTL
 *         baseline with an unexpired TTL): a stale read must be found.
 *
 * Properties:
 *   - linearizable reads: a read returns the value committed with version v,
 *     and v is at least the home's version when the read started (the home
 *     answered with v while the read was running; versions only grow);
 *   - UpdateQueue exclusion: no read is granted (in RQ) while the update
 *     holds the data (the home writes memory only with RQ empty);
 *   - the Table 1 error rows are never reached (asserted in the home);
 *   - at quiescence: RQ and UQ empty, every operation done.
 */

#ifndef NRD
#define NRD 2
#endif
#ifndef ROPS
#define ROPS 2
#endif
#ifndef UPS
#define UPS 2
#endif
#ifndef LOSS
#define LOSS 1
#endif
#ifndef DUP
#define DUP 1
#endif
#ifndef TTL
#define TTL 0
#endif

#define UPD NRD /* the updater's requester id */
#define NQ (NRD + 1)
#define QN 6

/* message kinds (docs/PROTOCOL-NODES.md "Validate-on-hit messages") */
mtype = { VREAD, VERSION, READ, UPDATE, PROCEED, WDATA, DONE, DONEACK };

/* to the home: kind, requester, seq, value (WDATA) */
chan tohome = [QN] of { mtype, byte, byte, byte };
/* to requester q: kind, seq, value, version, fail */
chan toreq[NQ] = [QN] of { mtype, byte, byte, byte, bit };

byte loss = 0, dup = 0;

/* home state */
byte mem = 0;          /* the block's memory */
byte ver = 0;          /* its version (bumped by every committed update) */
byte valof[UPS + 1];   /* ghost: value committed with version v */
byte rq = 0;           /* ReadQueue: bit q = requester q holds a read */
bit uq_upd = 0;        /* UpdateQueue head: the update */
byte uq_reads = 0;     /* reads queued in UpdateQueue behind the update */
bit granted = 0;       /* the update was sent UPDATE_PROCEED */
bit wdata = 0;         /* its data arrived */
byte lseq[NQ];         /* LAST-EXECUTED: the requester's last seq seen */
byte lstate[NQ];       /* 0 none, 1 queued, 2 granted, 3 done */
byte done_cnt = 0;

#define ST_QUEUED  1
#define ST_GRANTED 2
#define ST_DONE    3

/* Send with the network's budgets: duplicate or drop. */
inline send_home(k, q, s, v)
{
	if
	:: tohome ! k, q, s, v
	:: dup < DUP -> dup++; tohome ! k, q, s, v; tohome ! k, q, s, v
	:: loss < LOSS -> loss++
	fi
}

inline send_req(q, k, s, v, w, f)
{
	if
	:: toreq[q] ! k, s, v, w, f
	:: dup < DUP -> dup++; toreq[q] ! k, s, v, w, f; toreq[q] ! k, s, v, w, f
	:: loss < LOSS -> loss++
	fi
}

/* Table 1 READ_PROCEED: to RQ, with the data and its version. */
inline read_proceed(q)
{
	rq = rq | (1 << q);
	lstate[q] = ST_GRANTED;
	send_req(q, PROCEED, lseq[q], mem, ver, 0)
}

proctype home()
{
	mtype k;
	byte q, s, v, i;

end:	do
	:: tohome ? VREAD, q, s, v ->
		/* the receive path: no queue, no lock */
		send_req(q, VERSION, s, 0, ver, 0)
	:: tohome ? READ, q, s, v ->
		if
		:: s == lseq[q] && lstate[q] == ST_GRANTED ->
			send_req(q, PROCEED, s, mem, ver, 0)
		:: s == lseq[q] -> skip /* queued or done */
		:: s != lseq[q] ->
			lseq[q] = s;
			if
			:: !uq_upd -> atomic { read_proceed(q) } /* rows 1-2 */
			:: else -> uq_reads = uq_reads | (1 << q);   /* rows 3-4 */
				lstate[q] = ST_QUEUED
			fi
		fi
	:: tohome ? UPDATE, q, s, v ->
		if
		:: s == lseq[q] && lstate[q] == ST_GRANTED ->
			send_req(q, PROCEED, s, 0, 0, 0)
		:: s == lseq[q] -> skip
		:: s != lseq[q] ->
			lseq[q] = s;
			assert(!uq_upd); /* rows UPDATE (-, not empty): errors */
			uq_upd = 1;
			wdata = 0;
			if
			:: rq == 0 -> granted = 1; lstate[q] = ST_GRANTED;
				send_req(q, PROCEED, s, 0, 0, 0)
			:: else -> granted = 0; lstate[q] = ST_QUEUED
			fi
		fi
	:: tohome ? WDATA, q, s, v ->
		if
		:: s == lseq[q] && lstate[q] == ST_GRANTED && uq_upd ->
			assert(rq == 0);
			mem = v;
			wdata = 1
		:: else -> skip /* late copy */
		fi
	:: tohome ? DONE, q, s, v ->
		if
		:: s == lseq[q] && lstate[q] == ST_DONE ->
			send_req(q, DONEACK, s, 0, ver, 0)
		:: s == lseq[q] && lstate[q] == ST_GRANTED && q != UPD ->
			/* READ_DONE: rows (RQ not empty, *) */
			assert(rq & (1 << q));
			rq = rq & ~(1 << q);
			lstate[q] = ST_DONE;
			if
			:: rq == 0 && uq_upd && !granted ->
				granted = 1; lstate[UPD] = ST_GRANTED;
				send_req(UPD, PROCEED, lseq[UPD], 0, 0, 0)
			:: else -> skip
			fi;
			send_req(q, DONEACK, s, 0, ver, 0)
		:: s == lseq[q] && lstate[q] == ST_GRANTED && q == UPD && !wdata ->
			send_req(q, DONEACK, s, 0, 0, 1) /* data missing */
		:: s == lseq[q] && lstate[q] == ST_GRANTED && q == UPD && wdata ->
			/* UPDATE_DONE: row (RQ empty, UQ not empty) */
			assert(rq == 0 && uq_upd);
			atomic {
				ver++;
				valof[ver] = mem;
				uq_upd = 0;
				granted = 0;
				lstate[q] = ST_DONE;
				i = 0;
				do
				:: i < NRD && (uq_reads & (1 << i)) ->
					uq_reads = uq_reads & ~(1 << i);
					read_proceed(i); i++
				:: i < NRD && !(uq_reads & (1 << i)) -> i++
				:: i >= NRD -> break
				od
			}
			send_req(q, DONEACK, s, 0, ver, 0)
		:: else -> skip
		fi
	od
}

/* Wait for the reply of kind `want` with seq `s`, resending on timeout. */
inline call(me, k, s, v, want)
{
	send_home(k, me, s, v);
	do
	:: toreq[me] ? rk, rs, rv, rw, rf ->
		if
		:: rk == want && rs == s -> break
		:: else -> skip /* a stale copy of an earlier operation */
		fi
	:: timeout -> send_home(k, me, s, v)
	od
}

proctype reader(byte me)
{
	byte seq = 0, n = 0, cval, cver, startver;
	bit cached = 0;
	mtype rk;
	byte rs, rv, rw;
	bit rf;

	do
	:: n < ROPS ->
		startver = ver;
		seq++;
		if
		:: cached && TTL ->
			/* TTL baseline: served without asking */
			assert(cver >= startver && cval == valof[cver])
		:: cached && !TTL ->
			call(me, VREAD, seq, 0, VERSION);
			if
			:: rw == cver ->
				assert(cver >= startver && cval == valof[cver]);
				goto next
			:: else -> cached = 0
			fi
		:: else -> skip
		fi;
		if
		:: !cached ->
			seq++;
			call(me, READ, seq, 0, PROCEED);
			cval = rv; cver = rw; cached = 1;
			assert(cver >= startver && cval == valof[cver]);
			call(me, DONE, seq, 0, DONEACK)
		:: else -> skip
		fi;
next:		n++
	:: else -> break
	od;
	atomic { done_cnt++ }
}

proctype updater()
{
	byte seq = 0, n = 0;
	mtype rk;
	byte rs, rv, rw;
	bit rf;

	do
	:: n < UPS ->
		seq++;
		call(UPD, UPDATE, seq, 0, PROCEED);
		send_home(WDATA, UPD, seq, 10 + n);
		do
		:: call(UPD, DONE, seq, 0, DONEACK);
			if
			:: rf -> send_home(WDATA, UPD, seq, 10 + n)
			:: else -> break
			fi
		od;
		n++
	:: else -> break
	od;
	atomic { done_cnt++ }
}

/* At quiescence everything is released. */
proctype quiescent()
{
	atomic {
		done_cnt == NRD + 1 && len(tohome) == 0 ->
		assert(rq == 0 && uq_upd == 0 && uq_reads == 0)
	}
}

init
{
	byte i;

	atomic {
		valof[0] = 0;
		i = 0;
		do
		:: i < NRD -> run reader(i); i++
		:: else -> break
		od;
		run updater();
		run home();
		run quiescent()
	}
}

/*
 * Moved here from docs/MODEL.md (the page keeps a summary, the runs and
 * their results).
 *
 * ---- What voh.pml models ----
 *
 * - **Home**: the block's memory and version, ReadQueue (a bit per reader),
 *   UpdateQueue (the update and the reads queued behind it), LAST-EXECUTED
 *   per requester (seq and state: queued, granted, done) with the answers to
 *   repeats; the one-sided version read answered in one step with no queue.
 * - **Readers** (`NRD`, `ROPS` reads each), one copy each: a hit sends VREAD
 *   and serves the copy when the version matches, else fetches (READ,
 *   PROCEED with data and version, DONE); retransmission on `timeout`.
 * - **Updater** (`UPS` updates): UPDATE, PROCEED, WDATA, DONE; a DONE
 *   answered FAIL (data not there) sends the data again.
 * - **Network**: one bag per destination, up to `LOSS` losses and `DUP`
 *   duplications.
 */
