/*
 * SPIN model of the LCF protocol: the switch pipeline (OLD: the rules with
 * a SCOREBOARD keyed by requester and parity only, an ABORTED register and
 * LAST-UNLOCK written by an unlock's first pass; NEW: docs/PROTOCOL.md 4),
 * two requesters on two cache nodes, the home agent of both blocks (a third node), ownership
 * migration (ADD/REMOVE), and a network that loses, duplicates and reorders
 * messages within budgets. Reference: docs/MODEL.md. One file of about
 * 1,000 lines: SPIN verifies one specification, and its processes share
 * the channels and the register state declared here.
 *
 * Select the rules with -DNEW (default OLD). Bounds (all -D overridable):
 *   EV     new events (seqs) per requester
 *   LOSS   messages the network may drop in a run
 *   DUP    messages the network may duplicate in a run
 *   REO    (FIFO_NET only) messages the network may move to the back
 *   BADRS  resubmitted passes the switch may lose
 *   MIG    ADD/REMOVE operations the home agent may start
 *   SKIP   1: a new event may skip one seq (seqs used by allocations)
 *   INSW   bit b set: block b starts in the switch (ADDed), else at home
 *   EVMASK bit t set: the requester may start events of type t (1..5)
 *   FIFO_NET  per-destination FIFO delivery (reordering only by REO): the
 *          network used for liveness, where an unordered bag would let the
 *          scheduler starve one message forever.
 *   LIVE   add the LTL property <> all requesters done.
 *   PIPE   write-back of a Modified block as a diff against its twin (PIPE,
 *          docs/PIPE.md), taken only when the home's
 *          copy is known to equal the twin; PIPE_ALWAYS: always (wrong).
 */

#ifndef EV
#define EV 2
#endif
#ifndef EV0
#define EV0 EV
#endif
#ifndef EV1
#define EV1 EV
#endif
#ifndef LOSS
#define LOSS 1
#endif
#ifndef DUP
#define DUP 1
#endif
#ifndef REO
#define REO 0
#endif
#ifndef BADRS
#define BADRS 0
#endif
#ifndef MIG
#define MIG 0
#endif
#ifndef SKIP
#define SKIP 0
#endif
#ifndef INSW
#define INSW 3
#endif
#ifndef DUPCH
#define DUPCH 15        /* channels that may duplicate: 1 to switch, 2 to home, 4/8 to req0/req1 */
#endif
#ifndef LOSSCH
#define LOSSCH 15       /* channels that may lose, same bits */
#endif
#ifndef REMOVES
#define REMOVES 1       /* 0: the home migrates blocks to the switch only */
#endif
#ifndef BADRSOP
#define BADRSOP 2       /* second passes that may be lost: 1 RELEASE, 2 UNLOCK */
#endif
#ifndef EVMASK
#define EVMASK 62
#endif

#define NR 2            /* requesters = cache nodes 0 and 1; the home is node 2 */
#define NB 2            /* blocks X = 0, Y = 1, both homed at node 2 */
#define HOMEID 2
#ifndef QN
#define QN (4 + DUP)    /* capacity of each network bag: 2 per requester + copies */
#endif
#define QR 5            /* resubmit FIFO capacity */
#define BAD 200         /* data from a provider without a valid copy */

/* message kinds (wire types where they exist) */
#define K_RM 1
#define K_WM 2
#define K_WS 3
#define K_ES 4
#define K_EM 5
#define K_RU 6
#define K_WU 7
#define K_ADD 8
#define K_REM 9
#define K_ABT 10
#define K_NACK 16       /* NACK or NA_NACK */
#define K_UACK 17       /* UNLOCK_ACK or NA_UNLOCK_ACK */
#define K_MACK 18       /* MIGRATE_ACK; x = original type */
#define K_AACK 19       /* ABORT_ACK or NA_ABORT_ACK; x = 1: "a copy passed" */
#define K_MNACK 20      /* NACK of a REMOVE (to the home) */
#define K_GRANT 32      /* every reply that completes an event (abstracted) */

/* gstatus and cache line states share the encoding */
#define GU 0
#define GS 1
#define GM 2

/* requester phases */
#define P_IDLE 0
#define P_WAIT 1        /* request sent, waiting for the grant or a NACK */
#define P_DECIDE 2      /* NACKed: retry with the same seq, or abandon */
#define P_ABORTING 3    /* ABORT sent */
#define P_PASSED 4      /* ABORT answered "a copy passed": collect, unlock */
#define P_PREREQ 5      /* request waits for the unlock of the same parity */
#define P_PREUNL 6      /* unlock waits for the previous unlock's ACK */
#define P_FINAL 7       /* all events done, last unlock in flight */
#define P_END 8

/* holds (ghost) */
#define HR 1
#define HW 2

/* home ownership */
#define O_HOME 0
#define O_MIGRATING 1
#define O_SWITCH 2
#define O_REMOVING 3

/* home decisions */
#define D_NONE 0
#define D_NACK 1
#define D_GRANT 2       /* reply (data from memory, or the ACK) */
#define D_FWD 3         /* forwarded to cache agents */

/* resubmit ops */
#define RS_REL 1
#define RS_UNL 2
#define RS_ADD 3
#define RS_REM 4

#define BIT(n) (1 << (n))
#define INCS(n, c) ((((c) >> (n)) & 1) == 1)
#define ISREQ(k) ((k) >= K_RM && (k) <= K_EM)
#define ISUNL(k) ((k) == K_RU || (k) == K_WU)
/* Table 2 */
#define CHECK(t, n, g, c) \
	(((t) == K_RM || (t) == K_WM) -> !INCS(n, c) : \
	 (((t) == K_WS || (t) == K_ES) -> (INCS(n, c) && (g) == GS) : \
	  (INCS(n, c) && (g) == GM)))
/* Is a request of type t still the right one for the local line state? */
#define VALIDFOR(t, st) \
	(((t) == K_RM || (t) == K_WM) -> (st) == GU : \
	 (((t) == K_WS || (t) == K_ES) -> (st) == GS : (st) == GM))

/* ---- network --------------------------------------------------------- */

#ifdef FIFO_NET
#define PUT(ch) ch!
#else
#define PUT(ch) ch!!    /* sorted: a bag has one canonical order */
#endif

/* {kind, requester, seq, block, x, gstatus, copyset} */
chan sbag = [QN] of { byte, byte, byte, byte, byte, byte, byte };  /* to the switch */
chan hbag = [QN] of { byte, byte, byte, byte, byte, byte, byte };  /* switch -> home */
chan inb[NR] = [QN] of { byte, byte, byte, byte, byte, byte, byte }; /* to requesters */
chan smig = [NB] of { byte, byte, byte, byte, byte, byte, byte };  /* home -> switch: ADD, REMOVE */
chan hmig = [NB] of { byte, byte, byte, byte, byte, byte, byte };  /* switch -> home: MIGRATE_ACK, NACK */
/* the switch's resubmit FIFO: {op, kind, r, seq, block, x, score, gs, cs} */
chan rsq = [QR] of { byte, byte, byte, byte, byte, byte, byte, byte, byte };
chan tmpq = [QN] of { byte, byte, byte, byte, byte, byte, byte };  /* scratch, empty between steps */

byte lossl = LOSS, dupl = DUP, reol = REO, badrs = BADRS, migl = MIG;

/* scratch: never carries a value from one step to the next */
hidden byte mk, mr, ms, mb, mx, mg, mc;
hidden byte tk, tr, ts, tb, tx, tg, tc;
hidden byte qo, qt, qr, qs, qb, qx, qsc, qg, qc;
hidden byte bb, i_, n_, j_, p_, v_, o_, g_, c_, sc_, wr, taken, chk, over,
	held, cnt_, ux, passed, rt_;

/* ---- ghost and agent state -------------------------------------------- */

byte lastw[NB];                 /* last value written to the block (ghost) */
byte mem[NB];                   /* the home's global memory */
/*
 * -DWT: a write event may also write the block home before its unlock
 * (dsm_write_through / dsm_write_object, docs/SABRES.md: an NA_WB inside a
 * WRITE_MISS or WRITE_SHARED that holds the lock). Each write event is
 * started both ways (wt[me], chosen with the event), and like every
 * write-back here the write is atomic inside the event.
 */
bit wt[NR];                     /* the live event writes through */
#ifdef WT
#define WRITE_THROUGH(b) if :: wt[me] -> mem[b] = lastw[b] :: else -> skip fi
#else
#define WRITE_THROUGH(b) skip
#endif
byte cst[NR * NB];              /* cache line state of node n, block b */
byte cv[NR * NB];               /* its value */
#ifdef PIPE
byte tw[NR * NB];               /* the twin: the value when it became Modified */
bit tok[NR * NB];               /* the home's copy was the twin then: diff */
#endif
/* Ghost: requester r holds block b per a grant of event hseq, from the
 * moment it receives the grant until its unlock executes (the switch's
 * second pass that releases, or the home's release). */
byte hold[NR * NB];
byte hseq[NR * NB];

/* cache agents' LAST-EXECUTED, merged per requester: an event's replies
 * are computed once and repeated for every later copy of it */
byte srv_s[NR], srv_b[NR], srv_v[NR], srv_g[NR], srv_c[NR];

/* The unlock of (r, s) on block b executed: the grant's hold ends. */
inline hold_end(r, s, b_) {
	if
	:: hseq[r * NB + b_] == s -> hold[r * NB + b_] = 0; hseq[r * NB + b_] = 0
	:: else -> skip
	fi
}

/* ---- switch registers --------------------------------------------------- */

bit sin[NB];                    /* TAG: the block is in the switch */
bit lw[NB];                     /* LOCK writer bit */
byte lr[NB];                    /* LOCK readers */
byte sgs[NB], scs[NB];          /* G-STATUS, COPYSET */
byte lu[NR];                    /* LAST_UNLOCK */
#ifdef NEW
#define SB_COUNT 0
#define SB_CLAIMED 1
#define SB_ABORTED 2
byte sbs[NR * 2];               /* SB[r][p].s */
byte sbk[NR * 2];               /* SB[r][p].c: COUNT, CLAIMED or ABORTED */
byte sbn[NR * 2];               /* ... and its n */
#else
byte score[NR * 2];             /* SCOREBOARD (16 bit in C: 0 - 1 wraps) */
byte abd[NR];                   /* ABORTED */
#endif

/* ---- home agent (node 2) ---------------------------------------------- */

byte hown[NB];
bit hw[NB];
byte hr[NB];
byte hgs[NB], hcs[NB];
byte hle[NR];                   /* LAST-EXECUTED of requests */
byte hdk[NR], hdt[NR], hdb[NR], hdv[NR], hdg[NR], hdc[NR]; /* its decision */
byte hule[NR];                  /* LAST-EXECUTED of unlocks */
bit hh_v[NR * 2], hh_w[NR * 2]; /* held[r][parity] */
byte hh_s[NR * 2], hh_b[NR * 2];

/* ---- requesters ---------------------------------------------------------- */

byte ph[NR];
byte seqv[NR];                  /* the current event's seq */
byte evt[NR], evb[NR];          /* its type and block */
byte done[NR];                  /* events started */
bit unl_v[NR];                  /* an unlock is in flight */
byte unl_s[NR], unl_t[NR], unl_b[NR], unl_g[NR], unl_c[NR];
byte nu_t[NR], nu_g[NR], nu_c[NR]; /* P_PREUNL: the unlock waiting */

/* ---- bag access --------------------------------------------------------- */

#ifdef FIFO_NET
/* Remove the k-th message into m*, keeping the others' order. */
inline take(ch, k) {
	n_ = len(ch);
	i_ = 0;
	do
	:: i_ < n_ ->
		ch?tk, tr, ts, tb, tx, tg, tc;
		if
		:: i_ == k -> mk = tk; mr = tr; ms = ts; mb = tb; mx = tx; mg = tg; mc = tc
		:: else -> ch!tk, tr, ts, tb, tx, tg, tc
		fi;
		i_++
	:: else -> break
	od
}
/* Copy the k-th message into m*, leaving the channel as it was. */
inline peek(ch, k) {
	n_ = len(ch);
	i_ = 0;
	do
	:: i_ < n_ ->
		ch?tk, tr, ts, tb, tx, tg, tc;
		if
		:: i_ == k -> mk = tk; mr = tr; ms = ts; mb = tb; mx = tx; mg = tg; mc = tc
		:: else -> skip
		fi;
		ch!tk, tr, ts, tb, tx, tg, tc;
		i_++
	:: else -> break
	od
}
#else
inline take(ch, k) {
	i_ = 0;
	do
	:: i_ < k -> ch?tk, tr, ts, tb, tx, tg, tc; tmpq!tk, tr, ts, tb, tx, tg, tc; i_++
	:: else -> break
	od;
	ch?mk, mr, ms, mb, mx, mg, mc;
	do
	:: nempty(tmpq) -> tmpq?tk, tr, ts, tb, tx, tg, tc; ch!!tk, tr, ts, tb, tx, tg, tc
	:: empty(tmpq) -> break
	od
}
inline peek(ch, k) {
	take(ch, k);
	ch!!mk, mr, ms, mb, mx, mg, mc
}
#endif

#define SEND(ch, a, b_, c__, d, e, f, g) assert(nfull(ch)); PUT(ch) a, b_, c__, d, e, f, g

/*
 * Receive alternatives. Faults happen when a message is picked: for an
 * unordered bag that is no loss of generality (a message that has not been
 * picked yet has had no effect), and it keeps the fault choices out of
 * every other state. A pick may deliver it, lose it (budget LOSS), or
 * deliver it and leave a copy in the bag for later (budget DUP).
 */
#define LOGM(ev, id) printf("@%c %d %d %d %d %d %d %d %d\n", ev, id, mk, mr, ms, mb, mx, mg, mc)
#define RECVN(ch, id, k, guard, handler) \
	:: d_step { len(ch) > k && (guard) -> take(ch, k); LOGM('D', id); handler }
#ifdef FIFO_NET
/* FIFO: only the head is delivered; a duplicate goes to the back, and a
 * reordering moves the head to the back (budget REO). */
#define RECVF(ch, id, guard, handler) \
	RECVN(ch, id, 0, guard, handler) \
	:: d_step { lossl > 0 && ((LOSSCH >> ((id) - 1)) & 1) && len(ch) > 0 && (guard) -> \
		take(ch, 0); LOGM('L', id); lossl-- } \
	:: d_step { dupl > 0 && ((DUPCH >> ((id) - 1)) & 1) && len(ch) > 0 && nfull(ch) && (guard) -> \
		take(ch, 0); ch!mk, mr, ms, mb, mx, mg, mc; LOGM('C', id); dupl--; handler } \
	:: d_step { reol > 0 && len(ch) > 1 && (guard) -> \
		take(ch, 0); ch!mk, mr, ms, mb, mx, mg, mc; LOGM('R', id); reol-- }
#define RECV(ch, id, guard, handler) RECVN(ch, id, 0, guard, handler)
#else
#define RECVK(ch, id, k, guard, handler) \
	RECVN(ch, id, k, guard, handler) \
	:: d_step { lossl > 0 && ((LOSSCH >> ((id) - 1)) & 1) && len(ch) > k && (guard) -> \
		take(ch, k); LOGM('L', id); lossl-- } \
	:: d_step { dupl > 0 && ((DUPCH >> ((id) - 1)) & 1) && len(ch) > k && nfull(ch) && (guard) -> \
		peek(ch, k); LOGM('C', id); dupl--; handler }
#define RECVF(ch, id, guard, handler) \
	RECVK(ch, id, 0, guard, handler) RECVK(ch, id, 1, guard, handler) \
	RECVK(ch, id, 2, guard, handler) RECVK(ch, id, 3, guard, handler) \
	RECVK(ch, id, 4, guard, handler) RECVK(ch, id, 5, guard, handler)
#define RECV(ch, id, guard, handler) \
	RECVN(ch, id, 0, guard, handler) RECVN(ch, id, 1, guard, handler)
#endif

/* ---- cache agents and the home's data (abstracted, atomic) -------------- */

/* Lowest node of copyset c (c != 0) into o_. */
inline lowest(c) {
	o_ = 0;
	do
	:: o_ < NR - 1 && !INCS(o_, c) -> o_++
	:: else -> break
	od
}

/* Invalidate every node of c except n. */
inline invalidate(c, n, blk) {
	j_ = 0;
	do
	:: j_ < NR ->
		if
		:: INCS(j_, c) && j_ != n -> cst[j_ * NB + blk] = GU
		:: else -> skip
		fi;
		j_++
	:: else -> break
	od
}

/*
 * A request forwarded to cache agents (owner, data provider, invalidation
 * multicast): their effects and replies at once, answered from the
 * agents' record for every later copy of the same event (LAST-EXECUTED).
 */
inline cache_serve(r, s, t, b_, g, c) {
	if
	:: s < srv_s[r] -> skip
	:: s == srv_s[r] ->
		SEND(inb[r], K_GRANT, r, s, srv_b[r], srv_v[r], srv_g[r], srv_c[r])
	:: s > srv_s[r] ->
		v_ = 0;
		if
		:: t == K_RM || t == K_WM ->
			lowest(c);
			v_ = (cst[o_ * NB + b_] != GU -> cv[o_ * NB + b_] : BAD);
			if
			:: t == K_RM && g == GM ->
				/* the owner downgrades and memory gets its
				 * value: the home's cache agent writes it in
				 * the same step when the owner is the home
				 * (NA_ACK_HOME_WRITTEN), else the reader's NA_WB
				 * does, inside its read lock (abstracted here) */
				if
				:: cst[o_ * NB + b_] == GM -> cst[o_ * NB + b_] = GS
				:: else -> skip
				fi;
				mem[b_] = v_
			:: t == K_WM -> invalidate(c, r, b_)
			:: else -> skip
			fi
		:: t == K_WS -> invalidate(c, r, b_)
		:: else -> skip
		fi;
		srv_s[r] = s; srv_b[r] = b_; srv_v[r] = v_; srv_g[r] = g; srv_c[r] = c;
		SEND(inb[r], K_GRANT, r, s, b_, v_, g, c)
	fi
}

/* The home agent re-sends its recorded decision for requester r. */
inline home_emit(r) {
	if
	:: hdk[r] == D_NACK -> SEND(inb[r], K_NACK, r, hle[r], hdb[r], 0, 0, 0)
	:: hdk[r] == D_GRANT -> SEND(inb[r], K_GRANT, r, hle[r], hdb[r], hdv[r], hdg[r], hdc[r])
	:: hdk[r] == D_FWD -> cache_serve(r, hle[r], hdt[r], hdb[r], hdg[r], hdc[r])
	:: else -> skip
	fi
}

/* Table 3 route: 0 home (data from memory), 1 cache agents, 2 returned. */
#define ROUTE(t, n, g, c) \
	(((t) == K_ES || (t) == K_EM) -> 2 : \
	 ((t) == K_WS -> (((c) & ~BIT(n)) == 0 -> 2 : 1) : \
	  (((g) == GU || (c) == 0) -> 0 : 1)))

/* Switch forward with IN_SWITCH to the home (Unshared): switch_request. */
inline sw_fwd_home(r, s, t, b_, g, c) {
	if
	:: s < hle[r] -> skip
	:: s == hle[r] -> home_emit(r)
	:: s > hle[r] ->
		hle[r] = s; hdk[r] = D_GRANT; hdt[r] = t; hdb[r] = b_;
		hdv[r] = mem[b_]; hdg[r] = g; hdc[r] = c;
		home_emit(r)
	fi
}

/* The switch's forward table (Table 3) and what the receivers do. */
inline sw_forward(r, s, t, b_, g, c) {
	rt_ = ROUTE(t, r, g, c);
	printf("@F %d %d %d %d %d %d %d\n", r, s, t, b_, taken, g, c);
	if
	:: rt_ == 2 -> SEND(inb[r], K_GRANT, r, s, b_, 0, g, c)
	:: rt_ == 0 -> sw_fwd_home(r, s, t, b_, g, c)
	:: else -> cache_serve(r, s, t, b_, g, c)
	fi
}

#ifdef NEW
#include "sw_new.pml"
#else
#include "sw_old.pml"
#endif

/* ---- switch ---------------------------------------------------------- */

/* Safety (bag network): new packets may overtake a pending resubmit at any
 * time. Liveness (FIFO_NET): weak fairness is per process, so a switch
 * that may always pick a new packet could starve its resubmit FIFO; there
 * the resubmit FIFO is served first. */
#ifdef FIFO_NET
#define SW_NEWOK empty(rsq)
#else
#define SW_NEWOK true
#endif

proctype sw()
{
end:
	do
	RECVF(sbag, 1, SW_NEWOK, sw_first())
	RECV(smig, 5, SW_NEWOK, sw_first())
	:: d_step { nempty(rsq) -> rsq?qo, qt, qr, qs, qb, qx, qsc, qg, qc;
		printf("@P %d %d %d %d %d %d %d\n", qo, qt, qr, qs, qb, qx, qsc); sw_second() }
	/* a resubmitted pass lost (dropped, or bad metadata) */
#if (BADRSOP & 2)
	:: d_step { badrs > 0 && rsq?[RS_UNL, qt, qr, qs, qb, qx, qsc, qg, qc] ->
		rsq?qo, qt, qr, qs, qb, qx, qsc, qg, qc;
		printf("@Q %d %d %d %d %d %d %d\n", qo, qt, qr, qs, qb, qx, qsc); badrs-- }
#endif
#if (BADRSOP & 1)
	:: d_step { badrs > 0 && rsq?[RS_REL, qt, qr, qs, qb, qx, qsc, qg, qc] ->
		rsq?qo, qt, qr, qs, qb, qx, qsc, qg, qc;
		printf("@Q %d %d %d %d %d %d %d\n", qo, qt, qr, qs, qb, qx, qsc); badrs-- }
#endif
	od
}

/* ---- home agent -------------------------------------------------------- */

inline home_nack(r, s, b_) { SEND(inb[r], K_NACK, r, s, b_, 0, 0, 0) }

/* pipeline_request: a request that missed in the switch (IN_SWITCH clear) */
inline home_request() {
	if
	:: ms < hle[mr] -> skip
	:: ms == hle[mr] -> home_emit(mr)
	:: else ->
		wr = (mk != K_RM);
		if
		:: mx -> home_nack(mr, ms, mb)        /* the switch saw it aborted */
		:: else ->
			if
			:: hown[mb] != O_HOME -> home_nack(mr, ms, mb)
			:: else ->
				if
				:: hw[mb] || (wr && hr[mb] > 0) -> home_nack(mr, ms, mb)
				:: else ->
					if
					:: !CHECK(mk, mr, hgs[mb], hcs[mb]) -> home_nack(mr, ms, mb)
					:: else ->
						hle[mr] = ms;
						if
						:: wr -> hw[mb] = 1
						:: else -> hr[mb]++
						fi;
						p_ = mr * 2 + ms % 2;
						hh_v[p_] = 1; hh_w[p_] = wr; hh_s[p_] = ms; hh_b[p_] = mb;
						hdt[mr] = mk; hdb[mr] = mb; hdg[mr] = hgs[mb]; hdc[mr] = hcs[mb];
						rt_ = ROUTE(mk, mr, hgs[mb], hcs[mb]);
						if
						:: rt_ == 0 -> hdk[mr] = D_GRANT; hdv[mr] = mem[mb]
						:: rt_ == 2 -> hdk[mr] = D_GRANT; hdv[mr] = 0
						:: else -> hdk[mr] = D_FWD; hdv[mr] = 0
						fi;
						home_emit(mr)
					fi
				fi
			fi
		fi
	fi
}

inline home_unlock() {
	p_ = mr * 2 + ms % 2;
	if
	:: ms < hule[mr] -> skip
	:: ms == hule[mr] -> SEND(inb[mr], K_UACK, mr, ms, mb, 0, 0, 0)
	:: else ->
		hule[mr] = ms;
		if
		:: hh_v[p_] && hh_s[p_] == ms && hh_b[p_] == mb ->
			if
			:: hh_w[p_] -> hw[mb] = 0; hcs[mb] = mc
			:: else ->
				if
				:: hr[mb] > 0 -> hr[mb]--
				:: else -> skip
				fi;
				hcs[mb] = hcs[mb] | mc
			fi;
			hgs[mb] = mg;
			hold_end(mr, ms, mb);
			hh_v[p_] = 0; hh_w[p_] = 0; hh_s[p_] = 0; hh_b[p_] = 0
		:: else -> skip
		fi;
		SEND(inb[mr], K_UACK, mr, ms, mb, 0, 0, 0)
	fi
}

inline home_abort() {
	p_ = mr * 2 + ms % 2;
	if
	:: ms > hle[mr] ->
		hle[mr] = ms; hdk[mr] = D_NACK; hdt[mr] = 0; hdb[mr] = mb;
		hdv[mr] = 0; hdg[mr] = 0; hdc[mr] = 0;
		passed = 0
	:: ms == hle[mr] -> passed = (hdk[mr] != D_NACK)
	:: else -> passed = (hh_v[p_] && hh_s[p_] == ms && hh_b[p_] == mb)
	fi;
	SEND(inb[mr], K_AACK, mr, ms, mb, passed, 0, 0)
}

inline home_msg() {
	if
	:: ISREQ(mk) -> home_request()
	:: ISUNL(mk) -> home_unlock()
	:: mk == K_ABT -> home_abort()
	:: else -> assert(false)
	fi
}

inline home_mig() {
	if
	:: mk == K_MACK && mx == K_ADD && hown[mb] == O_MIGRATING ->
		hown[mb] = O_SWITCH; hw[mb] = 0
	:: mk == K_MACK && mx == K_REM && hown[mb] == O_REMOVING ->
		hown[mb] = O_HOME; hgs[mb] = mg; hcs[mb] = mc
	:: mk == K_MNACK && hown[mb] == O_REMOVING ->
		SEND(smig, K_REM, HOMEID, 0, mb, 0, 0, 0)
	:: else -> skip
	fi
}

proctype home()
{
end:
	do
	RECVF(hbag, 2, true, home_msg())
	RECV(hmig, 6, true, home_mig())
	/* migrate a block to the switch: under the home's write lock */
	:: d_step { migl > 0 && hown[0] == O_HOME && !hw[0] && hr[0] == 0 ->
		migl--; hown[0] = O_MIGRATING; hw[0] = 1; printf("@M add 0\n");
		SEND(smig, K_ADD, HOMEID, 0, 0, 0, hgs[0], hcs[0]) }
	:: d_step { migl > 0 && hown[1] == O_HOME && !hw[1] && hr[1] == 0 ->
		migl--; hown[1] = O_MIGRATING; hw[1] = 1; printf("@M add 1\n");
		SEND(smig, K_ADD, HOMEID, 0, 1, 0, hgs[1], hcs[1]) }
	/* the shadow asks for a block back (NA_REMOVE_REQ) */
	:: d_step { REMOVES && migl > 0 && hown[0] == O_SWITCH ->
		migl--; hown[0] = O_REMOVING; printf("@M remove 0\n"); SEND(smig, K_REM, HOMEID, 0, 0, 0, 0, 0) }
	:: d_step { REMOVES && migl > 0 && hown[1] == O_SWITCH ->
		migl--; hown[1] = O_REMOVING; printf("@M remove 1\n"); SEND(smig, K_REM, HOMEID, 0, 1, 0, 0, 0) }
	od
}

/* ---- requesters --------------------------------------------------------- */

#define LINE(n, b) cst[(n) * NB + (b)]

/* SWMR, asserted whenever a requester starts holding a block. */
inline swmr_take(me, b_, h) {
	j_ = 0;
	do
	:: j_ < NR ->
		if
		:: j_ != me ->
			if
			:: !(hold[j_ * NB + b_] == 0 || (h == HR && hold[j_ * NB + b_] == HR)) ->
				printf("@V SWMR %d %d %d %d %d\n", me, h, b_, j_, hold[j_ * NB + b_])
			:: else -> skip
			fi;
			assert(hold[j_ * NB + b_] == 0 || (h == HR && hold[j_ * NB + b_] == HR))
		:: else -> skip
		fi;
		j_++
	:: else -> break
	od;
	hold[me * NB + b_] = h; hseq[me * NB + b_] = seqv[me]
}


/*
 * Drop the replies in the requester's inbox that it would ignore whenever
 * they came: NACK/GRANT/ABORT_ACK of an earlier seq (seqs only grow) and
 * UNLOCK_ACKs of no unlock in flight (unlocks go in seq order, and an
 * unlock's seq is never after the current event's). Consuming them later
 * changes nothing, so dropping them now only merges equivalent states.
 */
#define DEAD(me) (((tk == K_NACK || tk == K_GRANT || tk == K_AACK) && ts < seqv[me]) || \
		  (tk == K_UACK && !(unl_v[me] && ts == unl_s[me] && tb == unl_b[me]) && \
		   ts <= seqv[me]))
inline purge(me) {
	do
	:: nempty(inb[me]) -> inb[me]?tk, tr, ts, tb, tx, tg, tc; tmpq!tk, tr, ts, tb, tx, tg, tc
	:: empty(inb[me]) -> break
	od;
	do
	:: nempty(tmpq) ->
		tmpq?tk, tr, ts, tb, tx, tg, tc;
		if
		:: DEAD(me) -> skip
		:: else -> PUT(inb[me]) tk, tr, ts, tb, tx, tg, tc
		fi
	:: empty(tmpq) -> break
	od;
	skip
}

inline send_req(me) { SEND(sbag, evt[me], me, seqv[me], evb[me], 0, 0, 0) }

inline send_unl(me) {
	SEND(sbag, unl_t[me], me, unl_s[me], unl_b[me], 0, unl_g[me], unl_c[me])
}

/* Release the hold with the unlock nu_* of the current event, or queue it
 * behind the unlock in flight (at most one unlock in flight). */
inline unlock_now(me) {
	if
	:: unl_v[me] -> ph[me] = P_PREUNL
	:: else ->
		printf("@U %d %d %d %d %d %d\n", me, seqv[me], nu_t[me], evb[me], nu_g[me], nu_c[me]);
		unl_v[me] = 1; unl_s[me] = seqv[me]; unl_t[me] = nu_t[me];
		unl_b[me] = evb[me]; unl_g[me] = nu_g[me]; unl_c[me] = nu_c[me];
		nu_t[me] = 0; nu_g[me] = 0; nu_c[me] = 0;
		send_unl(me);
		ph[me] = P_IDLE; evt[me] = 0; evb[me] = 0     /* dead until the next event */
	fi
}

/*
 * PIPE. A line that becomes Modified keeps a twin; its write-back sends the
 * diff against the twin, which the home applies to its copy: the new value
 * when that copy is the twin, garbage (BAD) otherwise (a value abstracts
 * the block's bytes: a diff is right exactly when the bytes it leaves alone
 * are the home's). Write-backs in node-agent: the EVICT_MODIFIED's NA_WB
 * (here: at its grant, inside the event), the reader's NA_WB after a
 * READ_MISS served by a Modified owner, or the owner's own when it is the
 * home (cache_serve: no twin, always the whole block) and a stale
 * WRITE_MISS's dirty data
 * (settle: whole block). Only the first may be a diff, and only when the
 * data the line became Modified with was the home's: a WRITE_MISS granted
 * while the block was Unshared or Shared (from memory or from a sharer,
 * whose copy equals memory), or a WRITE_SHARED. From a Modified owner the
 * home's copy is older: whole block. PIPE_ALWAYS: a diff always (wrong;
 * the run pipe-always must find it). The write-back's result is asserted:
 * the home holds the last write.
 */
#ifdef PIPE
#ifdef PIPE_ALWAYS
#define TWIN(n, b, v, ok) tw[(n) * NB + (b)] = (v); tok[(n) * NB + (b)] = 1
#else
#define TWIN(n, b, v, ok) tw[(n) * NB + (b)] = (v); tok[(n) * NB + (b)] = (ok)
#endif
#define WB_VALUE(n, b) \
	(tok[(n) * NB + (b)] -> \
	 (mem[b] == tw[(n) * NB + (b)] -> cv[(n) * NB + (b)] : BAD) : \
	 cv[(n) * NB + (b)])
#define WB_CHECK(b) \
	if \
	:: mem[b] != lastw[b] -> printf("@V DATA %d %d %d\n", b, mem[b], lastw[b]) \
	:: else -> skip \
	fi; \
	assert(mem[b] == lastw[b])
#else
#define TWIN(n, b, v, ok) skip
#define WB_VALUE(n, b) cv[(n) * NB + (b)]
#define WB_CHECK(b) skip
#endif

/* The grant of the live event: install, operate (the data invariant),
 * compute the new metadata (Figure 6). */
inline install(me) {
	bb = evb[me];
	printf("@G %d %d %d %d %d\n", me, seqv[me], evt[me], bb, mx);
	if
	:: evt[me] == K_RM ->
		swmr_take(me, bb, HR);
		assert(mx == lastw[bb]);               /* a read returns the last write */
		LINE(me, bb) = GS; cv[me * NB + bb] = mx;
		nu_t[me] = K_RU; nu_g[me] = GS; nu_c[me] = mc | BIT(me)
	:: evt[me] == K_WM ->
		swmr_take(me, bb, HW);
		assert(mx == lastw[bb]);
		TWIN(me, bb, mx, mg != GM);
		lastw[bb]++; cv[me * NB + bb] = lastw[bb]; LINE(me, bb) = GM;
		WRITE_THROUGH(bb);
		nu_t[me] = K_WU; nu_g[me] = GM; nu_c[me] = BIT(me)
	:: evt[me] == K_WS ->
		swmr_take(me, bb, HW);
		assert(LINE(me, bb) == GS && cv[me * NB + bb] == lastw[bb]);
		TWIN(me, bb, lastw[bb], 1);
		lastw[bb]++; cv[me * NB + bb] = lastw[bb]; LINE(me, bb) = GM;
		WRITE_THROUGH(bb);
		nu_t[me] = K_WU; nu_g[me] = GM; nu_c[me] = BIT(me)
	:: evt[me] == K_ES ->
		swmr_take(me, bb, HW);
		LINE(me, bb) = GU; cv[me * NB + bb] = 0;
		nu_t[me] = K_WU; nu_c[me] = mc & ~BIT(me);
		nu_g[me] = (nu_c[me] != 0 -> GS : GU)
	:: evt[me] == K_EM ->
		swmr_take(me, bb, HW);
		assert(LINE(me, bb) == GM && cv[me * NB + bb] == lastw[bb]);
		mem[bb] = WB_VALUE(me, bb); WB_CHECK(bb);
		LINE(me, bb) = GU; cv[me * NB + bb] = 0;
		nu_t[me] = K_WU; nu_g[me] = GU; nu_c[me] = 0
	fi;
	unlock_now(me)
}

/* settle_stale(): a copy of the abandoned event took the lock; release it
 * with metadata that is true after what its delivery did. */
inline settle(me) {
	bb = evb[me];
	printf("@H %d %d %d %d\n", me, seqv[me], evt[me], bb);
	if
	:: evt[me] == K_RM ->
		swmr_take(me, bb, HR);
		nu_t[me] = K_RU; nu_g[me] = GS; nu_c[me] = mc
	:: evt[me] == K_WM ->
		swmr_take(me, bb, HW);
		if
		:: mg == GM -> mem[bb] = mx            /* the dirty data goes home */
		:: else -> skip
		fi;
		nu_t[me] = K_WU; nu_g[me] = GU; nu_c[me] = 0
	:: evt[me] == K_WS ->
		swmr_take(me, bb, HW);
		nu_t[me] = K_WU;
		nu_c[me] = (LINE(me, bb) != GU -> BIT(me) : 0);
		nu_g[me] = (nu_c[me] != 0 -> GS : GU)
	:: else ->                                  /* evictions: unchanged */
		swmr_take(me, bb, HW);
		nu_t[me] = K_WU; nu_g[me] = mg; nu_c[me] = mc
	fi;
	unlock_now(me)
}

inline req_msg(me) {
	if
	:: mk == K_UACK && unl_v[me] && unl_s[me] == ms && unl_b[me] == mb ->
		unl_v[me] = 0; unl_s[me] = 0; unl_t[me] = 0; unl_b[me] = 0;
		unl_g[me] = 0; unl_c[me] = 0;
		if
		:: ph[me] == P_PREREQ -> send_req(me); ph[me] = P_WAIT
		:: ph[me] == P_PREUNL -> unlock_now(me)
		:: ph[me] == P_FINAL -> ph[me] = P_END
		:: else -> skip
		fi
	:: mk == K_GRANT && ms == seqv[me] && mb == evb[me] && ph[me] == P_WAIT ->
		install(me)
	:: mk == K_GRANT && ms == seqv[me] && mb == evb[me] &&
	   (ph[me] == P_ABORTING || ph[me] == P_PASSED) ->
		settle(me)
	:: mk == K_NACK && ms == seqv[me] && mb == evb[me] && ph[me] == P_WAIT ->
		ph[me] = P_DECIDE
	:: mk == K_AACK && ms == seqv[me] && mb == evb[me] && ph[me] == P_ABORTING ->
		if
		:: mx -> ph[me] = P_PASSED
		:: else -> ph[me] = P_IDLE; evt[me] = 0; evb[me] = 0
		fi
	:: else -> skip                             /* stale or duplicate */
	fi
}

inline new_event(me, t, b_, inc) {
	seqv[me] = seqv[me] + inc; evt[me] = t; evb[me] = b_; done[me]++;
	purge(me);
	printf("@E %d %d %d %d\n", me, seqv[me], t, b_);
	if
	:: unl_v[me] && unl_s[me] % 2 == seqv[me] % 2 -> ph[me] = P_PREREQ
	:: else -> send_req(me); ph[me] = P_WAIT
	fi
}

#define EVOK(t) ((EVMASK >> (t)) & 1)
/*
 * When a retransmission timer fires. Safety runs: on SPIN's timeout (no
 * other step possible), which with duplication still covers every order.
 * Liveness runs: a timer fires once no copy of what it retransmits, and no
 * answer to it, is in flight (lost or answered: a timer longer than a round
 * trip), and the unlock's timer is a process of its own (utimer), so weak
 * fairness makes it fire even while its requester keeps retrying a NACKed
 * request, as a real timer does. With timeout alone, one requester's
 * retries keep the system from ever being quiet and a lost unlock is never
 * retransmitted: a livelock of the model's clock, not of the protocol.
 */
#ifdef LIVE
#define IN2(k, r) (sbag??[k, eval(r), _, _, _, _, _] || hbag??[k, eval(r), _, _, _, _, _])
#define UNL_IN_FLIGHT(r) (IN2(K_RU, r) || IN2(K_WU, r) || \
			  inb[r]??[K_UACK, _, _, _, _, _, _] || \
			  rsq??[RS_UNL, _, eval(r), _, _, _, _, _, _])
#define REQ_IN_FLIGHT(r) (IN2(K_RM, r) || IN2(K_WM, r) || IN2(K_WS, r) || \
			  IN2(K_ES, r) || IN2(K_EM, r) || IN2(K_ABT, r) || \
			  inb[r]??[K_NACK, _, _, _, _, _, _] || \
			  inb[r]??[K_GRANT, _, _, _, _, _, _] || \
			  inb[r]??[K_AACK, _, _, _, _, _, _] || \
			  rsq??[RS_REL, _, eval(r), _, _, _, _, _, _])
#define TIMER(r) (!REQ_IN_FLIGHT(r))
#define UNL_TIMER(r) false      /* utimer(r) retransmits unlocks */
#else
#define TIMER(r) timeout
#define UNL_TIMER(r) unl_v[r]
#endif

#define NEV(me) ((me) == 0 -> EV0 : EV1)
#ifdef SCRIPT
/* SCRIPT, the two-writer sequence: req0 (node 0) READ_MISS X then WRITE_MISS Y; req1
 * (node 2 of PROTOCOL.md's example) WRITE_MISS Y. */
#ifdef WRITES3
/* Every event a WRITE_MISS of Y: three writers in turn, so a late copy's
 * requester is out of the copyset again when it reaches the home. */
#define SCRIPTED(me, t, b_) ((t) == K_WM && (b_) == 1)
#else
#define SCRIPTED(me, t, b_) \
	((me) == 0 -> ((done[me] == 0 && (t) == K_RM && (b_) == 0) || \
		       (done[me] == 1 && (t) == K_WM && (b_) == 1)) : \
		      (done[me] == 0 && (t) == K_WM && (b_) == 1))
#endif
#else
#define SCRIPTED(me, t, b_) true
#endif
#define STARTW(t, b_, inc, w) \
	:: d_step { ph[me] == P_IDLE && done[me] < NEV(me) && EVOK(t) && \
		    SCRIPTED(me, t, b_) && \
		    (w == 0 || t == K_WM || t == K_WS) && \
		    VALIDFOR(t, LINE(me, b_)) -> wt[me] = w; \
		    new_event(me, t, b_, inc) }
#ifdef WT
#define START(t, b_, inc) STARTW(t, b_, inc, 0) STARTW(t, b_, inc, 1)
#else
#define START(t, b_, inc) STARTW(t, b_, inc, 0)
#endif
#if SKIP
#define STARTS(t, b_) START(t, b_, 1) START(t, b_, 2)
#else
#define STARTS(t, b_) START(t, b_, 1)
#endif

proctype req(byte me)
{
end:
	do
	RECVF(inb[me], 3 + me, ph[me] != P_DECIDE, req_msg(me); purge(me))
	STARTS(K_RM, 0) STARTS(K_WM, 0) STARTS(K_WS, 0) STARTS(K_ES, 0) STARTS(K_EM, 0)
	STARTS(K_RM, 1) STARTS(K_WM, 1) STARTS(K_WS, 1) STARTS(K_ES, 1) STARTS(K_EM, 1)
	:: d_step { ph[me] == P_IDLE && done[me] == NEV(me) ->
		ph[me] = (unl_v[me] -> P_FINAL : P_END) }
	/* NACKed: the same request again, with the same seq ... */
	:: d_step { ph[me] == P_DECIDE && VALIDFOR(evt[me], LINE(me, evb[me])) ->
		printf("@Y %d %d\n", me, seqv[me]); send_req(me); ph[me] = P_WAIT }
	/* ... or abandon it: ABORT, nothing else until it is answered */
	:: d_step { ph[me] == P_DECIDE ->
		printf("@B %d %d\n", me, seqv[me]);
		SEND(sbag, K_ABT, me, seqv[me], evb[me], 0, 0, 0); ph[me] = P_ABORTING }
	/* retransmission timers (see docs/MODEL.md: only when all is quiet) */
	:: atomic { TIMER(me) && (UNL_TIMER(me) || ph[me] == P_WAIT || ph[me] == P_PASSED ||
				ph[me] == P_ABORTING) ->
		printf("@T %d\n", me);
		if
		:: UNL_TIMER(me) -> send_unl(me)
		:: else -> skip
		fi;
		if
		:: ph[me] == P_WAIT || ph[me] == P_PASSED -> send_req(me)
		:: ph[me] == P_ABORTING -> SEND(sbag, K_ABT, me, seqv[me], evb[me], 0, 0, 0)
		:: else -> skip
		fi }
	od
}

#ifdef LIVE
/* The unlock retransmission timer of requester me (liveness runs). */
proctype utimer(byte me)
{
end:
	do
	:: atomic { unl_v[me] && !UNL_IN_FLIGHT(me) -> printf("@T %d\n", me); send_unl(me) }
	od
}
#endif

/* ---- monitors -------------------------------------------------------------- */

/* Every valid cached copy holds the last written value (at every step). */
#define COPY_OK(n, b) (cst[(n) * NB + (b)] == GU || cv[(n) * NB + (b)] == lastw[b])
#define DATA_OK (COPY_OK(0, 0) && COPY_OK(0, 1) && COPY_OK(1, 0) && COPY_OK(1, 1))

proctype data_inv()
{
end:
	atomic { !DATA_OK -> assert(DATA_OK) }
}

#define ALLDONE (ph[0] == P_END && ph[1] == P_END)
#define QUIET (ALLDONE && empty(sbag) && empty(hbag) && empty(inb[0]) && \
	       empty(inb[1]) && empty(rsq) && empty(smig) && empty(hmig))

/* When the requesters are done and nothing is in flight: no lock, no
 * count left anywhere. */
proctype quiescent()
{
end:
	atomic {
		QUIET ->
		assert(lw[0] == 0 && lr[0] == 0 && lw[1] == 0 && lr[1] == 0);
		assert(hw[0] == 0 && hr[0] == 0 && hw[1] == 0 && hr[1] == 0);
		assert(!hh_v[0] && !hh_v[1] && !hh_v[2] && !hh_v[3]);
		assert(hold[0] == 0 && hold[1] == 0 && hold[2] == 0 && hold[3] == 0);
		SB_QUIET
	}
}

init {
	atomic {
		sin[0] = (INSW & 1); sin[1] = ((INSW >> 1) & 1);
		hown[0] = (sin[0] -> O_SWITCH : O_HOME);
		hown[1] = (sin[1] -> O_SWITCH : O_HOME);
		run sw();
		run home();
		run data_inv();
		run quiescent();
		run req(0);
		run req(1);
#ifdef LIVE
		run utimer(0);
		run utimer(1)
#else
		skip
#endif
	}
}

#ifdef LIVE
ltl live { <> (ph[0] == P_END && ph[1] == P_END) }
#endif
