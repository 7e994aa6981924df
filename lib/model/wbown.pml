/*
 * The write-back of a READ_MISS served by a Modified owner that is not the
 * block's home (docs/PROTOCOL-NODES.md 5.2): the owner sends the data to
 * the reader and the NA_WB segments home itself, under the reader's
 * identity (node, seq), in parallel; the home ACKs them (NA_WB_ACK) to
 * the reader, which re-sends a missing segment from the data it received.
 * Two nodes, one thread each, one switch-owned block Y of SEGS segments;
 * the switch lock is abstract (one event at a time). Node n runs EVn
 * events, each of an enabled kind: a write (atomic: invalidates the other
 * copy, takes Modified with a fresh value), a read miss (data from the
 * Modified owner with the owner's write-back, from a Shared copy, or from
 * home memory), the eviction of a Modified line (its own NA_WB inside its
 * event, as EVICT_MODIFIED) or of a Shared one (silent, any time, even
 * inside the other node's event). The network is a bag: data, NA_WB and
 * NA_WB_ACK copies delivered at any time, DUP duplicated, LOSS lost.
 * The home applies a segment exactly once per (node, seq, segment)
 * (wbdup.pml's FIX).
 *
 * The reader unlocks once it has the data and
 *   (default) every segment's NA_WB_ACK
 *   EARLY     the data only (wrong: the write-back races the unlock)
 * Checked: whenever the lock is taken and no node holds Y Modified, and
 * at the end, home memory holds the last value written; every read
 * returns the last value written.
 */
#ifndef EV0
#define EV0 3
#endif
#ifndef EV1
#define EV1 2
#endif
#ifndef SEGS
#define SEGS 1
#endif
#ifndef DUP
#define DUP 1
#endif
#ifndef LOSS
#define LOSS 1
#endif
#define NN 2
#define EVMAX 4
#define NSLOT (NN * EVMAX * SEGS)
#define SLOT(n, e, g) (((n) * EVMAX + (e)) * SEGS + (g))
#define VAL(n, e) ((n) * EVMAX + (e) + 1)
#define ALL ((1 << SEGS) - 1)
#define LU 0
#define LS 1
#define LM 2

byte wb[NSLOT];  /* NA_WB copies in flight, per (identity, event, segment) */
byte wv[NSLOT];  /* the value they carry */
byte ack[NSLOT]; /* NA_WB_ACK copies in flight to the identity's node */
byte dat[NN * EVMAX]; /* data copies in flight to node n for its event e */
byte dups = DUP, losses = LOSS;
byte infl;
byte mem[SEGS];
byte last;       /* the last value written (0: the initial value) */
bool lock;
byte st[NN], cv[NN];
byte cur[NN] = EVMAX; /* node n's current event (EVMAX: none) */
byte acked[NN];
bool hasdat[NN];
byte ndone;
/* The home's write-back record per node (exactly once per segment). */
bool wvalid[NN];
byte wseq[NN];
byte wsegs[NN];

inline check_mem()
{
	g = 0;
	do
	:: g < SEGS -> assert(mem[g] == last); g++
	:: else -> break
	od;
	g = 0
}

inline home_rx(n, e, g)
{
	if
	:: wvalid[n] && e < wseq[n] -> skip /* stale: refused, no ACK */
	:: else ->
		if
		:: !wvalid[n] || e != wseq[n] -> wsegs[n] = 0
		:: else -> skip
		fi;
		wvalid[n] = true; wseq[n] = e;
		if
		:: wsegs[n] & (1 << g) -> skip /* a later copy: ACK only */
		:: else -> wsegs[n] = wsegs[n] | (1 << g); mem[g] = wv[SLOT(n, e, g)]
		fi;
		ack[SLOT(n, e, g)]++; infl++
	fi
}

inline send_wb(n, e, v)
{
	k = 0;
	do
	:: k < SEGS -> wb[SLOT(n, e, k)]++; wv[SLOT(n, e, k)] = v; infl++; k++
	:: else -> break
	od;
	k = 0
}

/* The re-send timer of segment k: no copy of it and no ACK in flight. */
inline resend(n, e)
{
	select(k : 0 .. SEGS - 1);
	if
	:: !(acked[n] & (1 << k)) && wb[SLOT(n, e, k)] == 0 &&
	   ack[SLOT(n, e, k)] == 0 -> wb[SLOT(n, e, k)]++; infl++
	:: else -> skip
	fi;
	k = 0
}

inline node(n, o, EVN)
{
	byte e = 0, g, k;
	bool needwb;
	do
	:: e < EVN -> /* write */
		atomic {
			!lock -> lock = true;
			if
			:: st[o] != LM && st[n] != LM -> check_mem()
			:: else -> skip
			fi;
			st[o] = LU; st[n] = LM; cv[n] = VAL(n, e); last = cv[n];
			lock = false; e++
		}
	:: e < EVN && st[n] == LS -> atomic { st[n] = LU; e++ } /* silent */
	:: atomic { /* EVICT_MODIFIED with its NA_WB */
			e < EVN && st[n] == LM && !lock -> lock = true;
			cur[n] = e; acked[n] = 0;
			send_wb(n, e, cv[n])
		};
		do
		:: atomic { acked[n] == ALL -> st[n] = LU; lock = false;
			cur[n] = EVMAX; break }
		:: atomic { resend(n, e) }
		od;
		e++
	:: atomic { /* read miss */
			e < EVN && st[n] == LU && !lock -> lock = true;
			cur[n] = e; acked[n] = 0;
			hasdat[n] = false; needwb = false;
			if
			:: st[o] == LM ->
				st[o] = LS; needwb = true;
				send_wb(n, e, cv[o])
			:: else -> check_mem()
			fi;
			cv[n] = (st[o] == LU -> mem[0] : cv[o]);
			dat[n * EVMAX + e]++; infl++
		};
		do
		:: atomic { hasdat[n] &&
#ifndef EARLY
			(!needwb || acked[n] == ALL) &&
#endif
			true -> assert(cv[n] == last); st[n] = LS; lock = false;
			cur[n] = EVMAX; break }
		:: atomic { hasdat[n] && needwb -> resend(n, e) }
		/* the request re-sent: LAST-EXECUTED answers with the data */
		:: atomic { !hasdat[n] && dat[n * EVMAX + e] == 0 -> dat[n * EVMAX + e]++; infl++ }
		od;
		e++
	:: else -> break
	od;
	atomic { ndone++; e = 0; needwb = false }
}

active proctype node0()
{
	node(0, 1, EV0)
}

active proctype node1()
{
	node(1, 0, EV1)
}

active proctype net()
{
	byte i, n, e, g;

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
		i = 0; n = 0; e = 0; g = 0
	   }
	:: atomic { /* data: delivered, duplicated or lost */
		select(i : 0 .. NN * EVMAX - 1);
		n = i / EVMAX; e = i % EVMAX;
		if
		:: dat[i] > 0 -> dat[i]--; infl--;
			if
			:: cur[n] == e -> hasdat[n] = true
			:: else -> skip /* an older event's: discarded */
			fi
		:: dat[i] > 0 && dups > 0 -> dat[i]++; infl++; dups--
		:: dat[i] > 0 && losses > 0 -> dat[i]--; infl--; losses--
		:: else -> skip
		fi;
		i = 0; n = 0; e = 0
	   }
	:: atomic {
		ndone == NN && infl == 0 -> assert(!lock);
		if
		:: st[0] != LM && st[1] != LM -> check_mem()
		:: else -> skip
		fi;
		break
	   }
	od
}
