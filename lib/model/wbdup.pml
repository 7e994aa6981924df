/*
 * Write-back of a switch-owned block (NA_WB, docs/PROTOCOL-NODES.md 5.2)
 * against copies the network duplicates and delays (issue 28 item 6).
 * NN nodes, one thread each; node n runs EVn write events on one
 * switch-owned block Y. The switch's write lock is abstract (taken and
 * released atomically, one event at a time); an unlock goes to the
 * switch, so the home never sees it. An event writes a fresh value, sends
 * SEGS NA_WB segments home, re-sends a segment once none of its copies and
 * none of its ACKs is in flight (the 6-RTT timer; an early re-send is a
 * duplicate), and unlocks once every segment is ACKed. The network is a
 * bag per direction: any copy delivered at any time, up to DUP copies
 * duplicated and LOSS lost (segments and ACKs alike).
 *
 * The home's acceptance of a segment of event seq from requester r:
 *   (default) not older than r's last write-back (na_home_wb_allowed as
 *             it was): a late copy of r's last event is applied again
 *   FIX       exactly once per (r, seq, segment): r's last write-back seq
 *             and the bitmap of its segments already applied; a later copy
 *             is ACKed and changes nothing, an older seq is refused
 *
 * Seqs are SEQW bits (0 skipped, as the agents do) in RFC 1982 order.
 * Checked: whenever the lock is taken and at the end (every copy
 * delivered or lost), every segment of the home's copy holds the last
 * value written (the next holder reads the block from home memory).
 * Counterexamples: wbdup-old (node 0's segment copy delayed past node 1's
 * write-back); wbdup-alias (FIX with 3-bit seqs: a copy delayed over 7
 * events of its thread is taken for the current event's). The agents'
 * 32-bit seqs alias only after 2^31 events of one thread within one
 * copy's lifetime.
 */
#ifndef NN
#define NN 2
#endif
#ifndef EV0
#define EV0 1
#endif
#ifndef EV1
#define EV1 1
#endif
#ifndef SEGS
#define SEGS 2
#endif
#ifndef DUP
#define DUP 1
#endif
#ifndef LOSS
#define LOSS 0
#endif
#ifndef SEQW
#define SEQW 3
#endif
#define M    (1 << SEQW)
#define HALF (M / 2)
#define EVMAX 8 /* events per node that have a copy slot */
#define NSLOT (NN * EVMAX * SEGS)
#define SLOT(n, e, g) (((n) * EVMAX + (e)) * SEGS + (g))
#define SEQ(e)  ((e) % (M - 1) + 1)
#define VAL(n, e) ((n) * EVMAX + (e) + 1)
#define DIFF(a, b)  (((a) - (b) + M) % M)
#define AFTER(a, b) (DIFF(a, b) > 0 && DIFF(a, b) < HALF)

byte wb[NSLOT];  /* NA_WB copies in flight, per (node, event, segment) */
byte ack[NSLOT]; /* NA_WB_ACK copies in flight */
byte dups = DUP, losses = LOSS;
byte infl;       /* copies in flight, both directions */
byte mem[SEGS];  /* the home's copy of Y */
byte last;       /* the last value written back (0: none) */
bool lock;
byte cur[NN];    /* node n's current event (EVMAX: none) */
byte acked[NN];  /* its segments ACKed (bitmap) */
byte ndone;

/* The home's per-requester write-back record. */
bool wvalid[NN];
byte wseq[NN];
byte wsegs[NN]; /* FIX: segments of wseq applied */

inline check_mem()
{
	g = 0;
	do
	:: g < SEGS -> assert(mem[g] == last); g++
	:: else -> break
	od
}

/* The home receives a copy of segment g of node n's event e. */
inline home_rx(n, e, g)
{
	s = SEQ(e);
	if
	:: wvalid[n] && !AFTER(s, wseq[n]) && s != wseq[n] ->
		skip /* stale: writebacks_refused, no ACK */
	:: else ->
#ifdef FIX
		if
		:: !wvalid[n] || s != wseq[n] -> wsegs[n] = 0
		:: else -> skip
		fi;
		wvalid[n] = true; wseq[n] = s;
		if
		:: wsegs[n] & (1 << g) -> skip /* a later copy: ACK only */
		:: else -> wsegs[n] = wsegs[n] | (1 << g); mem[g] = VAL(n, e)
		fi;
#else
		wvalid[n] = true; wseq[n] = s; mem[g] = VAL(n, e);
#endif
		ack[SLOT(n, e, g)]++; infl++
	fi
}

inline writer(n, EVN)
{
	byte e = 0, g, k;
	do
	:: e < EVN ->
		atomic {
			!lock -> lock = true; check_mem();
			cur[n] = e; acked[n] = 0;
			k = 0;
			do
			:: k < SEGS -> wb[SLOT(n, e, k)]++; infl++; k++
			:: else -> break
			od;
			k = 0
		};
		do
		:: atomic {
			acked[n] == (1 << SEGS) - 1 -> last = VAL(n, e);
			lock = false; cur[n] = EVMAX; break
		   }
		:: atomic { /* the re-send timer of segment k */
			select(k : 0 .. SEGS - 1);
			if
			:: !(acked[n] & (1 << k)) && wb[SLOT(n, e, k)] == 0 &&
			   ack[SLOT(n, e, k)] == 0 -> wb[SLOT(n, e, k)]++;
				infl++
			:: else -> skip
			fi;
			k = 0
		   }
		od;
		e++
	:: else -> break
	od;
	atomic { ndone++; e = 0; g = 0 }
}

active proctype node0()
{
	writer(0, EV0)
}

#if NN > 1
active proctype node1()
{
	writer(1, EV1)
}
#endif

/* The network: deliver, duplicate or lose any copy in flight. */
active proctype net()
{
	byte i, n, e, g, s;

	do
	:: atomic {
		select(i : 0 .. NSLOT - 1);
		n = i / (EVMAX * SEGS); e = (i / SEGS) % EVMAX; g = i % SEGS;
		if
		:: wb[i] > 0 -> wb[i]--; infl--; home_rx(n, e, g)
		:: wb[i] > 0 && dups > 0 -> wb[i]++; infl++; dups--
		:: wb[i] > 0 && losses > 0 -> wb[i]--; infl--; losses--
		:: ack[i] > 0 -> ack[i]--; infl--;
			if
			:: cur[n] == e -> acked[n] = acked[n] | (1 << g)
			:: else -> skip
			fi
		:: ack[i] > 0 && dups > 0 -> ack[i]++; infl++; dups--
		:: ack[i] > 0 && losses > 0 -> ack[i]--; infl--; losses--
		:: else -> skip
		fi;
		i = 0; n = 0; e = 0; g = 0; s = 0
	   }
	:: atomic {
		ndone == NN && infl == 0 -> check_mem();
		break
	   }
	od
}
