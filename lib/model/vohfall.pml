/*
 * Validate-on-hit's fallback to the coherence protocol, home-owned block
 * (docs/VALIDATE.md "Not here"; issue: lost update at 10+ nodes). Writer
 * W's update was refused while the block was moving (an ADD that then
 * collided: the block is home-owned again) and went through the coherence
 * protocol: a WRITE_MISS granted by the home, the line Modified at W, home
 * memory not written. Reader R1 reads with validate-on-hit afterwards
 * (VOH_READ from home memory); reader R2 holds a copy stamped with the
 * home's VOH version from before the write and validates it (VREAD).
 *
 * Today's rule (default): the VOH home serves any home-owned block from
 * its memory and its version, which coherence writes do not change: R1
 * reads the value from before W's completed write, R2's copy validates
 * (run vohfall-old). -DFIX (na_voh_home.c serves()/cur_ver()): the VOH
 * home refuses while the block is write-locked or Modified at a cache
 * (the reader falls back to a READ_MISS, which takes the owner's data and
 * writes it home), and every write the home grants counts in the version.
 *
 * Bounds: one write, two reads, no loss (voh.pml has the VOH messages).
 */
byte mem, cval, ver;    /* home memory, W's cached value, VOH version */
bit modified, wlock;    /* coherence: Modified at W; the home's lock */
bit w_done;             /* W's write completed (value 1) */

active proctype w()
{
	atomic { !wlock -> wlock = 1
#ifdef FIX
		 ; ver++
#endif
	};
	atomic { cval = 1; modified = 1; wlock = 0; w_done = 1 }
}

/* Read through VOH_READ, or the fallback READ_MISS when refused. */
active proctype r1()
{
	byte v;
	bit after;
	atomic {
		after = w_done;
#ifdef FIX
		if
		:: !wlock && !modified -> v = mem
		:: else -> (!wlock);
			if :: modified -> mem = cval; modified = 0 :: else fi;
			v = mem
		fi
#else
		v = mem
#endif
	};
	assert(!after || v == 1)
}

/* A VOH copy stamped before the write (value 0, version 0), validated. */
active proctype r2()
{
	bit after;
	byte v = 255;
	atomic {
		after = w_done;
		if
#ifdef FIX
		:: !wlock && !modified && ver == 0 -> v = 0 /* a hit */
		:: else -> skip /* changed or refused: fetched (r1's path) */
#else
		:: ver == 0 -> v = 0
		:: else -> skip
#endif
		fi
	};
	assert(!after || v != 0)
}
