/*
 * Validate-on-hit update against the coherence protocol at the home
 * (docs/VALIDATE.md; na-sim sweep 31004 run 755). Updater U's VOH_UPDATE
 * is granted (UpdateQueue) while no coherent copy exists (serves(): no
 * writer, not Modified, COPYSET empty, no reader); its data is written to
 * home memory frame by frame, then UPDATE_DONE commits (version + 1). A
 * VOH update invalidates no coherent copy. Node C reads the block through
 * the coherence protocol (READ_MISS at the home: Shared copy of memory),
 * then reads its cached copy again.
 *
 * Today's rule (default): the home's coherence path looks only at its own
 * lock: C's READ_MISS granted between U's grant and its data takes the old
 * value into a Shared copy that U's commit never invalidates; C's later
 * hit returns it after U's update completed (run vohupd-old).
 * -DFIX (na_home.c, na_voh_home.c): while an update is in the UpdateQueue
 * (from its UPDATE_REQUEST to its commit) the home refuses coherence
 * requests as lock busy (the requester retries after the commit).
 *
 * Bounds: one update (refused when a coherent copy exists: then a
 * coherent write, which invalidates it), C's READ_MISS NACKed at most R
 * times.
 */
#ifndef R
#define R 3
#endif

byte mem, ver;       /* home memory (old 0, new 1), VOH version */
byte readers;        /* coherence: Shared copies (COPYSET) */
bit upd;             /* an update holds UQ (the FIX's flag) */
bit u_done;          /* U's update completed */
bit chave, ccopy;    /* C's coherent copy and its value */

active proctype u()
{
	if
	:: atomic { readers == 0 -> /* serves(update): granted */
#ifdef FIX
		upd = 1
#else
		skip
#endif
	   };
		mem = 1;                              /* WDATA into memory */
		atomic { ver++; upd = 0; u_done = 1 } /* UPDATE_DONE */
	:: atomic { readers > 0 -> /* refused: a coherent write instead,
				      which invalidates C's copy */
		mem = 1; ccopy = 1; u_done = 1 }
	fi
}

active proctype c()
{
	byte tries;
	bit after;
	do
	:: atomic { !upd -> readers++; chave = 1; ccopy = mem; break }
	:: tries < R -> tries++ /* NACKed (lock busy): retried */
	:: tries == R -> goto out
	od;
	/* a later hit in C's coherent cache */
	atomic { after = u_done; assert(!after || ccopy == 1) };
out:
	skip
}
