/*
 * SPIN model of validate-on-hit for a block the switch owns
 * (docs/VALIDATE.md "Switch-owned blocks", docs/PROTOCOL.md "VERSION_READ"):
 * the switch keeps a VERSION register beside the block's LOCK, bumped by
 * every WRITE_MISS and WRITE_SHARED that reaches the LOCK stage, granted or
 * not (so by every pass that grants write permission); a
 * VERSION_READ (0x0b) reads it with the LOCK's writer bit, takes no lock and
 * changes nothing, and the switch answers VERSION (0x14). A reader serves its
 * validated copy when the version equals the copy's stamp; a copy is
 * fetched through the coherence protocol (the node's coherent cache, or a
 * READ_MISS granted by the switch) and stamped with the version a
 * VERSION_READ returned BEFORE the fetch, and only when
 *   (1) that VERSION_READ found the writer bit clear (no write grant is
 *       between its pass and its WRITE_UNLOCK: its invalidations are done),
 *   (2) no write of the reader's own node began or ended since that
 *       VERSION_READ, nor is one in progress (a node in M writes without
 *       the switch: a write of its own drops the node's validated copy
 *       and bumps a node-local generation before and after it, and the
 *       install compares the generation).
 *
 * Nodes: node 0 has the writer thread (writes in M without the switch,
 * gets M by WRITE_MISS from I or WRITE_SHARED from S) and, with SELF, a
 * reader thread; node 1 has a reader thread. Coherence: MSI under the
 * switch's lock (the LCF protocol, lcf.pml, abstracted: one FIFO to the
 * switch, acknowledgements and data in any order, no loss); the owner's
 * downgrade writes the block home. VERSION_READ and VERSION are lost,
 * duplicated and reordered within LOSS/DUP, and retransmitted on timeout.
 *
 * Bounds and rules (-D):
 *   WOPS    writes by the writer thread
 *   ROPS    reads by node 1's reader thread
 *   ROPS0   reads by node 0's reader thread (SELF; default ROPS)
 *   SELF    1: node 0 also reads (the own-node write rule matters)
 *   LOSS, DUP   VERSION_READ / VERSION messages lost / duplicated
 *   NOBUMP_WS   wrong: WRITE_SHARED does not bump the version
 *   NOBUSY      wrong: a copy is stamped although the writer bit was set
 *   NOGEN       wrong: the node's own writes do not drop its copy
 *
 * Property: a validated read returns the value of the last committed write
 * at the moment the switch read the version for it (the ghost `cur`,
 * carried in the reply). Also: a copy held in S or M by the coherent cache
 * is current when read (the abstraction is coherent).
 */

#ifndef WOPS
#define WOPS 2
#endif
#ifndef ROPS
#define ROPS 2
#endif
#ifndef SELF
#define SELF 0
#endif
#ifndef ROPS0
#define ROPS0 ROPS
#endif
#ifndef LOSS
#define LOSS 1
#endif
#ifndef DUP
#define DUP 1
#endif
#ifndef NOBUMP_WS
#define NOBUMP_WS 0
#endif
#ifndef NOBUSY
#define NOBUSY 0
#endif
#ifndef NOGEN
#define NOGEN 0
#endif

#define QN 6
#define NT 3 /* threads: 0 writer (node 0), 1 reader (node 0), 2 reader (node 1) */
#define TW 0
#define NODE(t) ((t) == 2 -> 1 : 0)

#define I 0
#define S 1
#define M 2

mtype = { RMISS, WMISS, WSH, RUNL, WUNL, VREAD, VER, INV, FWD, DATA, GRANT,
	  ACK, NACK };

/* to the switch: kind, thread, seq */
chan tosw = [QN] of { mtype, byte, byte };
/* to a node's cache agent: kind, requesting thread */
chan tocache[2] = [QN] of { mtype, byte };
/* to a thread: kind, seq, a (version / data), b (ghost), f (busy / needack) */
chan toreq[NT] = [QN] of { mtype, byte, byte, byte, bit };

byte loss = 0, dup = 0;

/* coherent caches, home memory, the ghost */
byte st[2];   /* I, S, M */
byte cdat[2]; /* their data */
byte mem = 0; /* the home's copy */
byte cur = 0; /* ghost: the value of the last committed write */

/* the switch: LOCK (writer bit, readers), G-STATUS, COPYSET, VERSION */
bit lockw = 0;
byte lockr = 0;
byte gs = I; /* I stands for Unshared */
byte cs = 0;
byte ver = 0;

/* validated caches per node, and the node-local write generation */
bit cvalid[2];
byte cst[2];
byte cval[2];
byte gen[2];
bit wip = 0; /* node 0: a write of its own is in progress */
byte done_cnt = 0;

inline lossy(t, k, s, a, b, f)
{
	if
	:: toreq[t] ! k, s, a, b, f
	:: dup < DUP -> dup++; toreq[t] ! k, s, a, b, f; toreq[t] ! k, s, a, b, f
	:: loss < LOSS -> loss++
	fi
}

proctype switch()
{
	mtype k;
	byte t, s, n;

end:	do
	:: tosw ? k, t, s ->
		n = NODE(t);
		if
		:: k == VREAD ->
			/* no lock taken, nothing changed */
			lossy(t, VER, s, ver, cur, lockw)
		:: k == RMISS ->
			if
			:: lockw -> toreq[t] ! NACK, 0, 0, 0, 0
			:: else ->
				lockr++;
				if
				:: gs == M -> tocache[0] ! FWD, t
				:: else -> toreq[t] ! DATA, 0, mem, 0, 0
				fi
			fi
		:: k == WMISS || k == WSH ->
			/* the VERSION beside the LOCK counts every write
			 * request, granted or not (the verdict comes later) */
			if
			:: k == WSH && NOBUMP_WS -> skip
			:: else -> ver++
			fi;
			if
			:: lockw || lockr > 0 -> toreq[t] ! NACK, 0, 0, 0, 0
			:: else ->
				lockw = 1;
				if
				:: cs & 2 -> tocache[1] ! INV, t;
					toreq[t] ! GRANT, 0, mem, 0, 1
				:: else -> toreq[t] ! GRANT, 0, mem, 0, 0
				fi
			fi
		:: k == RUNL ->
			lockr--;
			if
			:: gs == M -> cs = 1 | (1 << n)
			:: else -> cs = cs | (1 << n)
			fi;
			gs = S
		:: k == WUNL ->
			lockw = 0;
			gs = M;
			cs = 1
		fi
	od
}

/* A node's cache agent: invalidations (node 1) and owner downgrades (node 0). */
proctype cache(byte n)
{
	mtype k;
	byte t;

end:	do
	:: tocache[n] ? k, t ->
		if
		:: k == INV -> st[n] = I; toreq[t] ! ACK, 0, 0, 0, 0
		:: k == FWD ->
			/* the owner downgrades (a second reader sharing the
			 * read lock finds it in S already) and provides */
			atomic {
				assert(st[n] != I);
				st[n] = S;
				mem = cdat[n];
				toreq[t] ! DATA, 0, cdat[n], 0, 0
			}
		fi
	od
}

/* VERSION_READ, retransmitted until its VERSION arrives. */
inline vread(t)
{
	seq++;
	tosw ! VREAD, t, seq;
	do
	:: toreq[t] ? rk, rs, ra, rb, rf ->
		if
		:: rk == VER && rs == seq -> break
		:: else -> skip /* an earlier read's copy */
		fi
	:: timeout -> tosw ! VREAD, t, seq
	od
}

proctype reader(byte t)
{
	byte seq = 0, n = 0, g0, val, prever;
	bit prebusy;
	byte nd = NODE(t);
	mtype rk;
	byte rs, ra, rb;
	bit rf;

	do
	:: n < (t == 1 -> ROPS0 : ROPS) ->
		g0 = gen[nd];
		vread(t);
		if
		:: cvalid[nd] && ra == cst[nd] ->
			/* validated hit */
			assert(cval[nd] == rb);
			goto next
		:: else -> skip
		fi;
		/* changed or no copy: this VERSION is the pre-fetch read */
		prever = ra;
		prebusy = rf;
		atomic {
			if
			:: st[nd] != I -> val = cdat[nd]; assert(val == cur);
				goto install
			:: else -> skip
			fi
		}
		do
		:: tosw ! RMISS, t, 0;
			do
			:: toreq[t] ? rk, rs, ra, rb, rf ->
				if
				:: rk == DATA -> break
				:: rk == NACK -> break
				:: else -> skip
				fi
			od;
			if
			:: rk == DATA ->
				atomic {
					val = ra;
					assert(val == cur);
					st[nd] = S;
					cdat[nd] = val
				};
				tosw ! RUNL, t, 0;
				break
			:: else -> skip /* NACK: the writer holds the lock */
			fi
		od;
install:
		atomic {
			if
			:: (!prebusy || NOBUSY) && (gen[nd] == g0 && (nd == 1 || !wip) || NOGEN) ->
				cvalid[nd] = 1;
				cst[nd] = prever;
				cval[nd] = val
			:: else -> cvalid[nd] = 0
			fi
		};
next:		atomic { n++; rk = DATA; rs = 0; ra = 0; rb = 0; rf = 0; val = 0;
			prever = 0; prebusy = 0; g0 = 0 }
	:: else -> break
	od;
	atomic { done_cnt++ }
}

proctype writer()
{
	byte n = 0, acks, grants;
	bit wsh;
	mtype rk;
	byte rs, ra, rb;
	bit rf;

	do
	:: n < WOPS ->
		if
		:: atomic { st[0] == M ->
			/* the node's own write: drops the node's validated
			 * copy and refuses installs until it is over */
			if
			:: !NOGEN -> gen[0]++; cvalid[0] = 0; wip = 1
			:: else -> skip
			fi };
			atomic {
				if
				:: st[0] == M -> cur++; cdat[0] = cur; n++
				:: else -> skip /* downgraded meanwhile: again */
				fi
			};
			atomic {
				if
				:: !NOGEN -> gen[0]++; wip = 0
				:: else -> skip
				fi
			}
		:: else ->
			/* get M: WRITE_MISS from I, WRITE_SHARED from S */
			/* retried after a backoff that outlasts the reader's
			 * lock (each NACK bumps the version: unbounded
			 * retries would make it unbounded) */
			atomic {
				lockr == 0 ->
				wsh = st[0] == S;
				tosw ! (wsh -> WSH : WMISS), TW, 0
			};
			acks = 0;
			grants = 0;
			do
			:: toreq[TW] ? rk, rs, ra, rb, rf ->
				if
				:: rk == NACK -> break
				:: rk == GRANT && !rf -> grants = 2
				:: rk == GRANT && rf -> grants = 1
				:: rk == ACK -> acks++
				fi;
				if
				:: grants == 2 || (grants == 1 && acks == 1) ->
					atomic {
						if
						:: !wsh -> cdat[0] = ra
						:: else -> skip
						fi;
						st[0] = M
					};
					tosw ! WUNL, TW, 0;
					break
				:: else -> skip
				fi
			od
		fi
	:: else -> break
	od;
	atomic { done_cnt++ }
}

init
{
	atomic {
		st[0] = I;
		st[1] = I;
		run switch();
		run cache(0);
		run cache(1);
		run writer();
		if
		:: SELF -> run reader(1)
		:: else -> done_cnt++
		fi;
		run reader(2)
	}
}

/*
 * Moved here from docs/MODEL.md (the page keeps a summary, the runs and
 * their results).
 *
 * ---- What vohsw.pml models ----
 *
 * - **Switch**: the block's LOCK (writer bit, readers), G-STATUS, COPYSET and
 *   VERSION, one message at a time. WRITE_MISS / WRITE_SHARED add 1 to
 *   VERSION whether granted or NACKed, take the write lock when it is free
 *   and invalidate node 1's copy; READ_MISS takes a read lock and goes to the
 *   owner (which downgrades to Shared and writes home) or to the home;
 *   unlocks install Shared or Modified; VERSION_READ answers (VERSION, writer
 *   bit) and changes nothing.
 * - **Node 0**: a writer thread (WRITE_MISS from Invalid, WRITE_SHARED from
 *   Shared, then any number of writes in Modified without the switch; each
 *   write drops the node's validated copy and bumps its write generation
 *   before and after), with `SELF` a reader thread.
 * - **Node 1**: a reader thread; both readers: VERSION_READ, serve the copy
 *   when the answer equals its stamp, else read through the coherence
 *   protocol (own Shared/Modified copy, or READ_MISS, retried on NACK) and
 *   keep the copy stamped with that answer only when it was not busy and the
 *   node's write generation did not change and no own write is under way.
 * - **Network**: the coherence messages are not lost (lcf.pml checks that
 *   protocol); VERSION_READ and VERSION are lost (`LOSS`), duplicated
 *   (`DUP`) and reordered, and retransmitted on timeout. The writer retries a
 *   NACKed request after the reader's lock is gone (a backoff; every NACKed
 *   request adds 1 to VERSION, so unbounded retries would unbound it).
 */
