/*
 * VERSION's migration epoch (PROTOCOL.md 4.4, 4.10; issue 28 item 4): one
 * block X of a home, validated at the switch by a reader's stamp. VERSION
 * is EW epoch bits above CW count bits (the C and P4: 16 and 16). An ADD
 * installs VERSION = (its seq mod 2^EW) << CW; every write grant of X in
 * the switch adds 1 (a carry runs into the epoch, as in 32-bit
 * arithmetic); a write while X is at home does not touch VERSION. The
 * reader stamps X in the switch (VERSION and the value, with no write in
 * between: busy = 0) and later serves its copy when VERSION equals the
 * stamp. Steps are atomic; the network is not modelled (vohsw.pml covers
 * VERSION_READ's loss and reordering).
 *
 *   (default) the ADD seq is the home's, advanced by every migration of
 *             any of its blocks (X's and another's, `other`; the real
 *             step 8 seqs, one epoch): a stamp of one stay validates in a
 *             later stay whose ADD seq agrees in its low EW bits,
 *             although X was written at home in between (run
 *             vohepoch-alias)
 *   BLOCK     the rule (node-agent): X's own ADD seq, STEP seqs per
 *             migration of X (the real 8: the copy that installed adds
 *             0..STEP-1), another block's migration leaves it alone; X's
 *             migrations are DELTA ticks apart (the real over 2^20 ns), a
 *             stamp is served only while younger than LIFE ticks (the
 *             real 8 s). Passes when LIFE <= (2^EW / STEP - 1) *
 *             DELTA and X's stays see fewer than 2^CW writes (vohepoch-
 *             block); fails one tick looser (-life), without the lifetime
 *             (-nolife), and when a stay's 2^CW writes carry into the
 *             next stays' epochs (-carry)
 *   SAT       the rule (lib/lcf, lib/p4, node-agent): the count stops at
 *             2^CW - 1 (a saturating add: no carry), and a stamp whose
 *             count is 2^CW - 1 is no stamp (the requester keeps no copy):
 *             within a stay the count only grows, so a stamp of a count
 *             below the top fails once a write moved it, and no copy
 *             validates on a saturated VERSION until the next ADD resets
 *             it. Passes with -carry's writes (vohepoch-block-sat); taking
 *             saturated stamps too (SATSTAMP) fails (-satstamp)
 *   FIX       a candidate: VERSION is the block's own, carried through
 *             the home (the REMOVE returns it, the home adds its write
 *             grants, the ADD installs it): it repeats only after 2^(EW+CW)
 *             writes of X, a bound on a stamp's lifetime in writes of its
 *             block (run vohepoch-fix, WR below that); needs wire fields
 *             for the REMOVE's and ADD's VERSION (not implemented)
 *   HSTAMP    with BLOCK: the reader may also stamp X while it is at home
 *             (VOH_VERSION: the home's stamp, X's ADD set count mod 2^EW
 *             above its home version of HW bits, bumped by each write at
 *             home, not by writes in the switch) and serve its copy while
 *             X is at home with an equal stamp. Today's rule, no lifetime
 *             for a home stamp: X's 2^EW migrations with a write in the
 *             switch bring the stamp round (vohepoch-home-nolife). The
 *             rule (na_voh_fresh): a home stamp is served only while
 *             younger than HLIFE ticks, as a switch stamp; passes with
 *             HLIFE <= (2^EW - 1) * DELTA (vohepoch-home), fails one tick
 *             looser (-home-life). The home version's own wrap (2^HW
 *             writes inside a lifetime) is not explored: HW is chosen
 *             above WR (real: 2^32 updates, over 28 s at one update per
 *             frame of a 100 Gbps link, against HLIFE 8 s)
 *
 * Checked: a validated copy holds X's current value.
 */
#ifndef EW
#define EW 2
#endif
#ifndef CW
#define CW 2
#endif
#ifndef WR
#define WR 3 /* writes of X */
#endif
#ifndef MG
#define MG 6 /* migrations (ADD or REMOVE of X, or another block's) */
#endif
#ifndef STEP
#define STEP 2 /* BLOCK: seqs per migration of X */
#endif
#ifndef DELTA
#define DELTA 1 /* BLOCK: ticks between two ADDs of X */
#endif
#ifndef TK
#define TK 4 /* BLOCK: ticks */
#endif
#ifndef HW
#define HW 3 /* HSTAMP: the home version's bits (above WR: no wrap) */
#endif
#define VM (1 << (EW + CW))
#define CMAX ((1 << CW) - 1) /* the count's top */
#if defined(SAT) && !defined(SATSTAMP)
#define STAMPOK && version % (1 << CW) != CMAX
#else
#define STAMPOK
#endif
#ifdef BLOCK
#define ADDOK && clock - added >= DELTA /* the first: at tick 0 */
#else
#define ADDOK
#endif
#if defined(BLOCK) && defined(LIFE)
#define FRESH && clock - st < LIFE /* the stamp's lifetime */
#else
#define FRESH
#endif
#ifdef HLIFE
#define HFRESH && clock - st < HLIFE /* a home stamp's lifetime */
#else
#define HFRESH
#endif
/* HSTAMP: the home's stamp of X, its set count above its home version */
#define HOMESTAMP ((addseq % (1 << EW)) << HW | homever)

bool sw = true;   /* X in the switch (installed by an ADD of seq 0) */
byte version = 0; /* VERSION of X's slot */
byte addseq = 1;  /* the home's next ADD epoch */
byte homever;     /* FIX: X's version while at home */
byte value, writes, migs;
bool stamped, hs; /* a copy; stamped at the home (HSTAMP) */
byte stamp, copy;
byte clock, added, st; /* BLOCK: ticks; X's last ADD; the stamp's tick */
byte ci;               /* BLOCK: the installing copy */

active proctype world()
{
	do
	:: atomic { writes < WR ->
		writes++; value++;
		if
#ifdef SAT
		:: sw && version % (1 << CW) == CMAX -> skip /* saturated */
		:: sw && version % (1 << CW) != CMAX -> version++
#else
		:: sw -> version = (version + 1) % VM
#endif
#ifdef HSTAMP
		:: else -> homever = (homever + 1) % (1 << HW)
#else
		:: else -> homever = (homever + 1) % VM
#endif
		fi }
	:: atomic { migs < MG && sw -> /* REMOVE of X */
		migs++; sw = false;
#ifndef HSTAMP
		homever = version
#endif
	}
	:: atomic { migs < MG && !sw ADDOK -> /* ADD of X */
		migs++; sw = true;
#ifdef FIX
		version = homever;
#elif defined(BLOCK)
		added = clock; /* X's own seq: addseq counts X's ADDs */
		select(ci : 0 .. STEP - 1);
		version = ((addseq * STEP + ci) % (1 << EW)) << CW;
#else
		version = (addseq % (1 << EW)) << CW;
#endif
		addseq++ }
#ifndef BLOCK
	:: atomic { migs < MG -> migs++; addseq++ } /* another block's ADD */
#else
	:: atomic { clock < TK -> clock++ } /* time passes */
#endif
	:: atomic { sw && !stamped STAMPOK -> stamped = true; stamp = version;
		copy = value; st = clock; hs = false }
	:: atomic { sw && stamped && !hs && version == stamp FRESH ->
		assert(copy == value) } /* a validated hit */
#ifdef HSTAMP
	:: atomic { !sw && !stamped -> stamped = true; hs = true;
		stamp = HOMESTAMP; copy = value; st = clock }
	:: atomic { !sw && stamped && hs && stamp == HOMESTAMP HFRESH ->
		assert(copy == value) } /* validated at the home */
#endif
	:: atomic { stamped -> stamped = false } /* the copy is evicted */
	:: else -> break
	od
}
