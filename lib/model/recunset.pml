/*
 * A requester's UNSETTLED records against its retries before a round
 * (na-sim switch-restart sweep 68 runs 116 and 239: lost writes). Thread T
 * may first have events on block X NACKed and aborted (each a new seq);
 * then its event E on X passes the old switch, which forwards it to the
 * Modified owner P: P sends its data (value 1, the last write; home memory
 * 0), invalidates its copy and keeps what it gave (its DIRTY record). T
 * gets the ACK and completes E (writes 2, holds X Modified), or the ACK is
 * lost and the switch restarts: each retry is NACKed by the home (the
 * block is not recovered yet), so T aborts it and sends the next with a new
 * seq, up to RETRY times before the round. Every request sent is recorded
 * (na_rec_sent) in T's K record slots; a grant clears the block's records.
 * In the round T reports its records (UNSETTLED), P its DIRTY record; with
 * no Modified copy the home writes the orphan when a record matches. Then
 * memory (or T's Modified copy) must hold the last write, and the highest
 * seq T sent must be reported (the home NACKs late copies up to it).
 *
 * Today's rule (default): the slots are a ring of the last K requests; the
 * home matches a DIRTY record's seq exactly. K retries push E's record out:
 * memory keeps 0 (run recunset-old). -DFIX: per block a thread keeps its
 * lowest record and moves its highest (a grant clears both); the home
 * matches a DIRTY seq between the lowest and highest UNSETTLED seq of its
 * thread on the block (every seq between is unsettled: a grant would have
 * cleared the block's records, and only a granted event has a DIRTY
 * record). -DFIX -DEXACT: the slots fixed, the match exact: E's record was
 * replaced as the highest when an aborted event preceded it (wrong).
 *
 * Bounds: one block, one thread, K 2 slots, up to NACKED 1 earlier aborted
 * events and RETRY 3 retries. Not explored: records of other blocks in the
 * slots (more blocks than K/2 evict: report_overflow), several threads.
 */
#ifndef K
#define K 2
#endif
#ifndef RETRY
#define RETRY 3
#endif
#ifndef NACKED
#define NACKED 1
#endif

byte mem = 0;  /* home memory */
byte last = 1; /* the last value written */
bit t_mod;     /* T completed E: Modified, value 2 */
byte e_seq;    /* P's DIRTY record: the seq it gave its data to */
byte seq;      /* T's latest seq */
byte useq[K];  /* T's record slots (one block) */
bit uval[K];
byte nxt;

inline sent()
{
	seq++;
#ifdef FIX
	/* two records already: the highest moves */
	cnt = 0;
	hi = 255;
	for (j : 0 .. K - 1) {
		if
		:: uval[j] ->
			cnt++;
			if
			:: hi == 255 || useq[j] > useq[hi] -> hi = j
			:: else
			fi
		:: else
		fi
	}
	if
	:: cnt >= 2 -> useq[hi] = seq
	:: else ->
		j = 0;
		do
		:: j < K && uval[j] -> j++
		:: j < K && !uval[j] -> break
		:: j == K -> j = nxt; nxt = (nxt + 1) % K; break
		od;
		useq[j] = seq;
		uval[j] = 1
	fi
#else
	useq[nxt] = seq;
	uval[nxt] = 1;
	nxt = (nxt + 1) % K
#endif
}

init
{
	byte j, cnt, hi, lo, top;
	bit any, match;

	/* events on X NACKed (lock busy) and aborted before E */
	do
	:: seq < NACKED -> sent()
	:: break
	od;
	sent();
	e_seq = seq;
	if
	:: /* the ACK comes: E completes, T writes 2 */
		t_mod = 1;
		last = 2;
		for (j : 0 .. K - 1) {
			uval[j] = 0
		}
	:: /* the ACK is lost, the switch restarts: retries NACKed */
		do
		:: seq < e_seq + RETRY -> sent()
		:: break
		od
	fi;
	/* the round: T's records, P's DIRTY record (e_seq) */
	any = 0;
	match = 0;
	top = 0;
	for (j : 0 .. K - 1) {
		if
		:: uval[j] ->
			if
			:: !any -> lo = useq[j]; top = useq[j]; any = 1
			:: any && useq[j] < lo -> lo = useq[j]
			:: any && useq[j] > top -> top = useq[j]
			:: else
			fi;
			if
			:: useq[j] == e_seq -> match = 1
			:: else
			fi
		:: else
		fi
	}
#if defined(FIX) && !defined(EXACT)
	match = any && lo <= e_seq && e_seq <= top;
#endif
	if
	:: t_mod -> skip /* the Modified copy is the truth */
	:: else ->
		if
		:: match -> mem = 1
		:: else
		fi;
		assert(mem == last);
		assert(top == seq) /* late copies NACKed up to the last */
	fi
}
