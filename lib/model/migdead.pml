/*
 * A node declared dead while the home's ADD of a block it cached is
 * unanswered (na-sim crash-migrate seeds 3, 6, 17: the switch's COPYSET
 * names the dead node, every later write's invalidation goes to it, the
 * writers are NACKed for ever). The home holds the block MIGRATING with
 * copyset {D, S} and sends ADD copies (a migration's, or a recovery
 * round's re-add) until one is answered; copies are lost, reordered,
 * delivered late. D crashes; the declaration evicts every switch entry
 * naming D (lcf_pipeline_node_failed) and marks D dead at the home
 * (dsm_node_failed). Afterwards no switch entry may name D.
 *
 * Today's rule (default): the failure drain skips a MIGRATING block whose
 * ADD is out and each copy carries the home's copyset as it is: a copy
 * sent after the declaration installs D (run migdead-old). -DFIX: the
 * declaration clears D from the copyset of every block the home is adding
 * and no ADD copy names a node the home holds dead.
 *
 * Bounds: one block, COPIES copies (each may be lost), one crash. -DQUIET:
 * no copy sent before the declaration is still in flight at it (run
 * migdead). Without it a copy sent before the declaration and delivered
 * after the switch's eviction installs D (-DFIX alone), unless the homes
 * are declared first and the switch evicts once no copy is in flight
 * (-DHOMESFIRST, run migdead-inflight; migsettle.pml has the rest).
 */
#define D 1 /* the node that dies */
#define S 2 /* a survivor with a copy */
#ifndef COPIES
#define COPIES 3
#endif

chan net = [COPIES] of { byte }; /* ADD copies: the copyset each carries */
byte hcs = D | S;  /* the home's copyset of the MIGRATING block */
byte hdead;        /* the home's dead mark */
bit installed;     /* the switch holds the block */
byte scs;          /* its COPYSET */
bit declared;
byte sent;

active proctype home()
{
	do
	:: atomic { sent < COPIES ->
#ifdef FIX
		    net ! (hcs & ~hdead);
#else
		    net ! hcs;
#endif
		    sent++ }
	:: atomic { sent >= COPIES -> break }
	od
}

active proctype sw()
{
	byte c;

end:	do
	:: atomic { net ? c ->
		    if
		    :: !installed -> installed = 1; scs = c
		    :: else /* a duplicate: ACKed, unchanged */
		    fi }
	:: net ? c /* lost */
	od
}

active proctype fail()
{
#ifdef HOMESFIRST
	/* The homes' marks, then the switch command once no copy sent
	 * before them can be in flight (migsettle.pml, na_sim_crash.c). */
	atomic { hdead = D;
#ifdef FIX
		 hcs = hcs & ~D
#endif
	};
	atomic { len(net) == 0 ->
#elif defined(QUIET)
	atomic { len(net) == 0 ->
#else
	atomic {
#endif
		if
		:: installed && (scs & D) -> installed = 0; scs = 0
		:: else
		fi;
		declared = 1;
		hdead = D;
#ifdef FIX
		hcs = hcs & ~D /* na_rec_drain: a block being added */
#endif
	}
}

active proctype monitor()
{
end:	atomic { declared && installed && (scs & D) -> assert(false) }
}
