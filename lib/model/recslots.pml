/*
 * The home's orphan-data slots in a recovery round (na-sim seed 503091392,
 * crash of node 4 at 2800ev: 2,416 stale reads). Requester D holds the
 * lock of a block at the crash: its event got the block's Modified data
 * (value 2, the last write) from provider R and is aborted by the round.
 * NP providers report a DIRTY record each (what their cache agent last
 * gave away with Modified data), all but R's of events that completed long
 * ago (values older: 1); D reports its event UNSETTLED. Each provider sends
 * its data (REC_DATA) and its report; the home holds K data slots (K < NP).
 * Messages arrive in any order, a data message may be lost (LOSS in all);
 * a BEGIN re-sent to a provider makes it send data and report again. With
 * no Modified copy left, the home writes the orphan (the record matching
 * an UNSETTLED one) into memory (old value 0); memory must then hold 2.
 *
 * Today's rule (default): a record (header or data) takes a free slot or
 * is dropped; the rebuild writes a slot's record that matches. R's record
 * comes after K others: dropped, header too, memory keeps an old value
 * (recslots-old). -DFIX: every record header is kept (16 bytes each);
 * data takes a free slot, or, matching a known UNSETTLED entry, the slot
 * of a record that does not; once every report is in, the slots not
 * holding the orphan are freed and the orphan's provider is asked again
 * until its data is in. The home finishing is checked too (no invalid end
 * state).
 *
 * Bounds: one block, NP providers (3; --deep 4), K slots (2), LOSS lost
 * data copies (1; --deep 2), one orphan. Not explored: several blocks per
 * round, a provider's record flagged current (recorphan.pml), lost reports
 * (re-sent by the same BEGIN), a provider with more records than one
 * report carries (its own limit, report_overflow).
 */
#ifndef NP
#define NP 3
#endif
#ifndef K
#define K 2
#endif
#ifndef LOSS
#define LOSS 1
#endif
#define NONE 255

byte R;               /* the orphan's provider */
byte mem = 0;         /* home memory */
bit data_fly[NP];     /* a provider's REC_DATA in flight */
bit rep_fly[NP];      /* its REC_REPORT in flight */
bit d_fly = 1;        /* D's report (UNSETTLED) in flight */
bit reported[NP];
bit d_reported;
byte nrep;            /* providers reported */
bit hdr[NP];          /* the home knows provider i's record */
byte slot[K];         /* provider whose record the slot holds, or NONE */
bit have[K];          /* ... with its data */
byte lost;
bit done;

/* The slot of provider i's record, or a free one taken for it (NONE). */
inline take(i, s)
{
	s = NONE;
	j = 0;
	do
	:: j < K && slot[j] == i -> s = j; break
	:: j < K && slot[j] != i -> j++
	:: j == K -> break
	od;
	if
	:: s == NONE ->
		j = 0;
		do
		:: j < K && slot[j] == NONE -> slot[j] = i; have[j] = 0; s = j; break
		:: j < K && slot[j] != NONE -> j++
		:: j == K -> break
		od
	:: else
	fi
}

#define PICK(x, fly, label) :: fly[x] -> i = x; goto label

init
{
	byte i, j, s;

	for (i : 0 .. K - 1) {
		slot[i] = NONE
	}
	/* the orphan's provider first or last (arrival order is free anyway) */
	if
	:: R = 0
	:: R = NP - 1
	fi;
	for (i : 0 .. NP - 1) {
		data_fly[i] = 1;
		rep_fly[i] = 1
	}
top:
	if
	:: done -> goto fin
	PICK(0, data_fly, data_in)
	PICK(1, data_fly, data_in)
	PICK(2, data_fly, data_in)
#if NP > 3
	PICK(3, data_fly, data_in)
#endif
	PICK(0, rep_fly, rep_in)
	PICK(1, rep_fly, rep_in)
	PICK(2, rep_fly, rep_in)
#if NP > 3
	PICK(3, rep_fly, rep_in)
#endif
	:: d_fly -> d_fly = 0; d_reported = 1; goto top
	/* every report in and R's copies not in flight: collect or ask again */
	:: !done && d_reported && nrep == NP && !data_fly[R] && !rep_fly[R] ->
		/* the orphan: R's record, known (D's event is UNSETTLED) */
		s = NONE;
		for (j : 0 .. K - 1) {
			if
			:: slot[j] == R && hdr[R] -> s = j
			:: else
			fi
		}
		if
		:: s != NONE && have[s] -> mem = 2; done = 1
		:: s != NONE && !have[s] ->
			data_fly[R] = 1; rep_fly[R] = 1 /* BEGIN again */
#ifdef FIX
		:: s == NONE && hdr[R] ->
			/* free what is not the orphan, ask again */
			for (j : 0 .. K - 1) {
				slot[j] = NONE;
				have[j] = 0
			}
			data_fly[R] = 1; rep_fly[R] = 1
#endif
		:: else -> done = 1 /* no orphan: memory kept */
		fi;
		goto top
	fi;
data_in:
	/* a provider's data arrives, or is lost */
	data_fly[i] = 0;
	if
	:: lost < LOSS -> lost++; goto top
	:: true
	fi;
	take(i, s);
#ifdef FIX
	if
	:: s == NONE && i == R && d_reported ->
		/* matching: replace a record that does not */
		j = 0;
		do
		:: slot[j] != R -> slot[j] = i; s = j; break
		:: else -> j++
		od
	:: else
	fi;
#endif
	if
	:: s != NONE -> have[s] = 1
	:: else
	fi;
	goto top;
rep_in:
	/* a provider's report (its DIRTY header) arrives */
	rep_fly[i] = 0;
	if
	:: !reported[i] -> reported[i] = 1; nrep++
	:: else
	fi;
#ifdef FIX
	hdr[i] = 1;
#else
	take(i, s);
	hdr[i] = (s != NONE);
#endif
	goto top;
fin:
	assert(mem == 2)
}
