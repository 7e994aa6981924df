/*
 * VERSION's migration epoch (PROTOCOL.md 4.4, 4.10; issue 28 item 4): one
 * block X of a home, validated at the switch by a reader's stamp. VERSION
 * is EW epoch bits above CW count bits (the C and P4: 16 and 16). An ADD
 * installs VERSION = (the home's ADD seq mod 2^EW) << CW; every write grant
 * of X in the switch adds 1 (a carry runs into the epoch, as in 32-bit
 * arithmetic); a write while X is at home does not touch VERSION. The
 * home's ADD seq advances with every migration of any of its blocks (here:
 * X's ADDs and another block's, `other`; the real step is 8 seqs, one
 * epoch). The reader stamps X in the switch (VERSION and the value, with
 * no write in between: busy = 0) and later serves its copy when VERSION
 * equals the stamp. Steps are atomic; the network is not modelled
 * (vohsw.pml covers VERSION_READ's loss and reordering).
 *
 *   (default) the rule above: a stamp of one stay validates in a later
 *             stay whose ADD seq agrees in its low EW bits, although X
 *             was written at home in between (run vohepoch-alias)
 *   FIX       a candidate: VERSION is the block's own, carried through
 *             the home (the REMOVE returns it, the home adds its write
 *             grants, the ADD installs it): it repeats only after 2^(EW+CW)
 *             writes of X, a bound on a stamp's lifetime in writes of its
 *             block (run vohepoch-fix, WR below that); needs wire fields
 *             for the REMOVE's and ADD's VERSION (not implemented)
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
#define VM (1 << (EW + CW))

bool sw = true;   /* X in the switch (installed by an ADD of seq 0) */
byte version = 0; /* VERSION of X's slot */
byte addseq = 1;  /* the home's next ADD epoch */
byte homever;     /* FIX: X's version while at home */
byte value, writes, migs;
bool stamped;
byte stamp, copy;

active proctype world()
{
	do
	:: atomic { writes < WR ->
		writes++; value++;
		if
		:: sw -> version = (version + 1) % VM
		:: else -> homever = (homever + 1) % VM
		fi }
	:: atomic { migs < MG && sw -> /* REMOVE of X */
		migs++; sw = false; homever = version }
	:: atomic { migs < MG && !sw -> /* ADD of X */
		migs++; sw = true;
#ifdef FIX
		version = homever;
#else
		version = (addseq % (1 << EW)) << CW;
#endif
		addseq++ }
	:: atomic { migs < MG -> migs++; addseq++ } /* another block's ADD */
	:: atomic { sw && !stamped -> stamped = true; stamp = version;
		copy = value }
	:: atomic { sw && stamped && version == stamp ->
		assert(copy == value) } /* a validated hit */
	:: atomic { stamped -> stamped = false } /* the copy is evicted */
	:: else -> break
	od
}
