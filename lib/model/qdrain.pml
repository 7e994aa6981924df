/*
 * Queued mode, a node failure and the home's drain (docs/QUEUED-LOCKS.md,
 * FAULTS.md; na-sim crash sweep 71 run 680): which home-owned blocks the
 * drain of a dead node must recover. One block X homed at node 0, three
 * nodes with EV0/EV1/EV2 events each (read or write, chosen as served);
 * node 1 may crash once and is later declared dead.
 *
 * A tenure is granted by the home (its copyset HCS travels in the Q_GRANT)
 * or handed over by its holder (QXFER, approved at the home, which records
 * Q_FROM, the node that handed it); the tenure's copyset TCS travels with
 * every hand-over, a read adds its reader, a write waits for the ACK of
 * every other node in TCS (Q_INV). The home learns TCS only at the
 * tenure's QRELEASE. Steps are atomic; the network is not modelled
 * (qfault.pml has loss and a queue of one).
 *
 * The drain (na_rec_drain.c, at the declaration) recovers X when its rule
 * holds: the survivors' events on X are aborted and retried, the tenure
 * returns to the home, the dead node leaves every copyset.
 *
 *   (default) the rule: HCS names the dead node, or it holds the tenure,
 *             or the tenure was handed over since the home granted it
 *             (Q_FROM set): passes (run qdrain)
 *   OLD       ... or the dead node handed the tenure over (Q_FROM = it):
 *             a tenure that went 1 -> 0 -> 2 carries node 1's read copy
 *             in TCS to node 2, whose write waits for node 1's ACK for
 *             ever (run qdrain-old)
 *
 * Checked: at the end every live node has run all its events (a write
 * waiting for a dead node's ACK is an end state with events left).
 */
#ifndef EV0
#define EV0 2
#endif
#ifndef EV1
#define EV1 1
#endif
#ifndef EV2
#define EV2 2
#endif
#define D 1      /* the node that may crash */
#define NONE 3   /* no holder: the tenure is at the home */
#define B(n) (1 << (n))

byte ev[3];
bool alive[3];
byte holder = NONE;
byte qfrom;      /* 0: granted by the home; else the handing node + 1 */
byte hcs, tcs;   /* the home's copyset; the tenure's */
byte ph;         /* the holder's event: 0 not served, 1 write waiting, 2 done */
bool crashed, declared;

#ifdef OLD
#define RULE (hcs & B(D) || holder == D || qfrom == D + 1)
#else
#define RULE (hcs & B(D) || holder == D || (holder != NONE && qfrom != 0))
#endif

/* The holder may hand its tenure to node n (a queued request of n). */
#define XFER(n) ph == 2 && holder != n && holder != NONE && alive[holder] && \
	alive[n] && ev[n] > 0 -> qfrom = holder + 1; holder = n; ph = 0
/* Node m answers the holder's Q_INV. */
#define ACK(m) ph == 1 && m != holder && tcs & B(m) && alive[m] -> \
	tcs = tcs & ~B(m)
/* The home grants the tenure to node n. */
#define GRANT(n) holder == NONE && alive[n] && ev[n] > 0 -> holder = n; \
	qfrom = 0; tcs = hcs; ph = 0

active proctype world()
{
	ev[0] = EV0; ev[1] = EV1; ev[2] = EV2;
	alive[0] = true; alive[1] = true; alive[2] = true;
	do
	:: atomic { GRANT(0) }
	:: atomic { GRANT(1) }
	:: atomic { GRANT(2) }
	:: atomic { holder != NONE && alive[holder] && ph == 0 -> /* a read */
		tcs = tcs | B(holder); ev[holder]--; ph = 2 }
	:: atomic { holder != NONE && alive[holder] && ph == 0 -> ph = 1 }
	:: atomic { ACK(0) }
	:: atomic { ACK(1) }
	:: atomic { ACK(2) }
	:: atomic { ph == 1 && alive[holder] && (tcs & ~B(holder)) == 0 ->
		tcs = B(holder); ev[holder]--; ph = 2 } /* the write */
	:: atomic { XFER(0) }
	:: atomic { XFER(1) }
	:: atomic { XFER(2) }
	:: atomic { holder != NONE && ph == 2 && alive[holder] -> /* QRELEASE */
		hcs = tcs; holder = NONE; qfrom = 0 }
	:: atomic { !crashed -> crashed = true; alive[D] = false }
	:: atomic { crashed && !declared -> declared = true;
		if
		:: RULE -> /* a recovery round over X */
			hcs = (hcs | tcs) & ~B(D); tcs = 0;
			holder = NONE; qfrom = 0; ph = 0
		:: else -> skip
		fi }
	:: else -> break
	od;
	assert(!alive[0] || ev[0] == 0);
	assert(!alive[1] || ev[1] == 0);
	assert(!alive[2] || ev[2] == 0)
}
