/*
 * Two readers under one read lock of a block Modified at its home
 * (docs/PROTOCOL-NODES.md 5.2, NA_ACK_HOME_WRITTEN): the home's cache agent
 * serves both from its copy, Modified for the first (downgraded to Shared)
 * and Shared for the second while the G-STATUS stamped on both requests is
 * still Modified. The home writes memory from its copy as it answers, or
 * refuses (a stale identity: wbdup.pml); a reader whose answer lacks
 * HOME_WRITTEN writes the data it received home inside its lock. A reader
 * may give its event up after the serve (ABORT: the metadata unchanged).
 * Node 0 is the home and the writer; readers 1 and 2 run EVR events each,
 * the home EVW writes (exclusive lock; invalidates the readers' copies).
 *
 * The home answers HOME_WRITTEN for the second reader
 *   (default) when it wrote memory from its Shared copy
 *   OLD       never (the reader sends the same block home)
 *   WRONG     without writing, relying on the first reader's write-back
 * Checked: whenever memory is read (G-STATUS not Modified) it holds the
 * last value written; every read returns it.
 */
#ifndef EVR
#define EVR 2
#endif
#ifndef EVW
#define EVW 2
#endif
#define LU 0
#define LS 1
#define LM 2
#define GU 0
#define GS 1
#define GM 2

byte mem, last, gs = GU;
byte st[3], cv[3];
byte readers;
bool wlock;

inline mem_read(r)
{
	assert(mem == last);
	cv[r] = mem
}

proctype reader(byte r)
{
	byte e = 0, g;
	bool hw, down;
	do
	:: e < EVR && st[r] == LS -> atomic { st[r] = LU; e++ } /* silent */
	:: atomic { /* read miss: lock, serve */
		e < EVR && st[r] == LU && !wlock -> readers++;
		g = gs; hw = false; down = false;
		if
		:: g == GM ->
			if
			:: st[0] == LM -> st[0] = LS; down = true
			:: else -> assert(st[0] == LS)
			fi;
			if
#ifdef OLD
			:: down -> mem = cv[0]; hw = true
#elif defined(WRONG)
			:: down -> mem = cv[0]; hw = true
			:: !down -> hw = true
#else
			:: true -> mem = cv[0]; hw = true
#endif
			:: true -> skip /* refused */
			fi;
			cv[r] = cv[0]
		:: else -> mem_read(r)
		fi
	   };
		if
		:: atomic { readers--; e++ } /* ABORT: metadata unchanged */
		:: true ->
			if
			:: g == GM && !hw -> mem = cv[r] /* the reader's NA_WB */
			:: else -> skip
			fi;
			atomic {
				assert(cv[r] == last);
				st[r] = LS;
				if
				:: g == GM -> gs = GS
				:: else -> gs = (gs == GU -> GS : gs)
				fi;
				readers--; e++
			}
		fi
	:: else -> break
	od
}

active proctype home()
{
	byte w = 0;
	do
	:: atomic {
		w < EVW && readers == 0 && !wlock ->
		if
		:: gs != GM -> assert(mem == last)
		:: else -> skip
		fi;
		st[1] = LU; st[2] = LU; st[0] = LM;
		w++; last = w; cv[0] = w; gs = GM
	   }
	:: else -> break
	od
}

init
{
	atomic { run reader(1); run reader(2) }
}
