/*
 * Re-admission of a restarted node X while the others keep running
 * (docs/FAULTS.md section 3): a survivor's home-owned block Y and the
 * home's per-requester rows for X's thread (LAST-EXECUTED of requests,
 * le; of unlocks, lu; the held lock, holder/hseq). The switch's rows are
 * seqjump.pml's (-DRESTART -DRESET -DDRAIN); a survivor's cache-agent
 * LAST-EXECUTED row for X is le's shape. Seqs of SEQW bits in RFC 1982
 * order, 0 = empty row (agents skip seq 0).
 *
 * X's old incarnation runs events (request, grant, unlock) and crashes
 * at any point: between events, with its request copy in flight (late),
 * or holding Y. The declaration (dsm_node_failed) marks X dead and drains
 * (Y rebuilt without locks). The rejoin (dsm_node_rejoined) re-admits X;
 * the new incarnation then runs EV events with seqs from 1. A new event
 * is retransmitted until the home executes it (a drop is not an answer).
 *
 *   (default)  the chosen rule: while X is dead the home drops X's
 *              messages (FILTER); the rejoin clears the dead mark and
 *              resets X's rows (le, lu empty), issued once the old
 *              incarnation can send nothing more (its copy is delivered
 *              or lost before the rejoin)
 *   OLD        the rejoin only clears the dead mark: the new seqs are
 *              stale/duplicate against the old rows ("refused", or an
 *              unlock ignored: "leak")
 *   NOFILTER   a dead X's messages are executed: the late copy takes Y
 *              after the drain, held by nobody ("leak")
 *   NOSILENCE  the rejoin may come while the old copy is in flight (known:
 *              "leak", the bound of section 3's "once X can send nothing
 *              more")
 *
 * Checked: no live event of the new incarnation refused; the old
 * incarnation holds Y at no request of the new one and Y is free at the
 * end. Not covered: more than one old copy (each is the same case), other
 * requesters on Y (the drain's part, FAULTS.md section 2), queued mode.
 */
#ifndef SEQW
#define SEQW 3
#endif
#define M    (1 << SEQW)
#define HALF (M / 2)
#ifndef EV
#define EV 3
#endif
#ifndef EV0
#define EV0 3
#endif

#define DIFF(a, b)  (((a) - (b) + M) % M)
#define AFTER(a, b) (DIFF(a, b) > 0 && DIFF(a, b) < HALF)
#define FRESH(row, s) ((row) == 0 || AFTER(s, row))

#define FREE 0
#define OLDI 1 /* held by the old incarnation */
#define NEWI 2

byte le, lu;   /* home's LAST-EXECUTED rows for X: request, unlock */
byte holder;   /* Y's lock */
byte hseq;     /* the seq holding it */
bool dead;
byte late;     /* the old incarnation's request copy in flight (0: none) */
bool refused;
bool done;

/* A request of X's incarnation `who`, seq s; g: granted. */
inline home_request(s, who, g)
{
	g = false;
	if
#ifndef NOFILTER
	:: dead -> skip /* dropped: neither executed nor recorded */
#endif
	:: else ->
		if
		:: !FRESH(le, s) -> refused = (who == NEWI) /* stale, duplicate */
		:: else ->
			le = s;
			if
			:: holder == FREE -> holder = who; hseq = s; g = true
			:: else -> skip /* NACK busy: given up */
			fi
		fi
	fi
}

inline home_unlock(s, who)
{
	if
#ifndef NOFILTER
	:: dead -> skip
#endif
	:: else ->
		if
		:: FRESH(lu, s) ->
			lu = s;
			if
			:: holder == who && hseq == s -> holder = FREE
			:: else -> skip
			fi
		:: else -> skip /* unlock_duplicate_ignored, ACKed */
		fi
	fi
}

inline next_seq(cur)
{
	cur = (cur + 1) % M;
	if
	:: cur == 0 -> cur = 1
	:: else -> skip
	fi
}

active proctype node()
{
	byte cur = 0, n = 0;
	bool g;

	/* the old incarnation: EV0 events at most, then crashes */
	do
	:: n < EV0 ->
		next_seq(cur);
		atomic { home_request(cur, OLDI, g) };
		if
		:: g -> atomic { home_unlock(cur, OLDI) }
		:: g -> break /* crashes holding Y */
		:: else -> skip
		fi;
		n++
	:: n < EV0 -> next_seq(cur); late = cur; break /* request in flight */
	:: break
	od;
	/* the declaration and the drain: no locks, X dead */
	atomic { dead = true; holder = FREE };
	/* the rejoin */
#ifndef NOSILENCE
	late == 0;
#endif
	atomic {
		assert(holder != OLDI); /* leak */
		dead = false;
#ifndef OLD
		le = 0; lu = 0;
#endif
		cur = 0; n = 0
	};
	/* the new incarnation: seqs from 1 */
	do
	:: n < EV ->
		next_seq(cur);
		atomic {
			assert(holder != OLDI); /* leak */
			home_request(cur, NEWI, g);
			assert(!refused)
		};
		if
		:: g -> atomic { home_unlock(cur, NEWI) }
		:: else -> skip
		fi;
		n++
	:: n == EV -> break
	od;
	done = true
}

/* The network: the old copy is delivered (at any time) or lost. */
active proctype network()
{
	bool g;

	do
	:: late != 0 -> atomic { home_request(late, OLDI, g); late = 0; refused = false }
	:: late != 0 -> late = 0
	:: done && late == 0 -> break
	od;
	assert(holder == FREE) /* leak */
}
