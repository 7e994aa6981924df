/*
 * Orphan data of a dead requester in a recovery round (na-sim crash sweep
 * 62 run 2: stale reads). Provider P holds the block Modified (value 1,
 * home memory 0). Requester D's READ_MISS is forwarded to P: P sends its
 * data, keeps a Shared copy and its cache agent keeps what it gave (the
 * orphan record). D writes the block home (NA_WB) before its READ_UNLOCK,
 * unless it crashes first. Afterwards writer W may write value 2
 * (invalidating P's copy) and write it home, and P may read the block
 * again. Then D is dead and the block is recovered: each survivor reports
 * its copy (Modified or Shared) and P its orphan record; the home rebuilds
 * and writes an orphan into memory when no copy is Modified and the rule
 * says so. After the rebuild, with no Modified copy, memory must hold the
 * last value written (`last`).
 *
 * Today's rule (default): an orphan is written only for an event some
 * report lists as unsettled; D is dead and lists nothing, so memory keeps
 * 0 after D crashed between the data and its write-back (stale reads, run
 * recorphan-old). -DNOCMP (wrong): an orphan of a dead requester is always
 * written: after D's event completed and W wrote 2, the old orphan 1
 * overwrites it (run recorphan-nocmp). -DFIX: P marks its orphan record
 * current when its own copy is Shared with the same data (a Shared copy is
 * current: a write invalidates it first); the home writes a current
 * orphan.
 *
 * -DREJOIN: D's new incarnation is re-admitted at P (dsm_node_rejoined)
 * before P's report reaches the home (its first copy lost, the BEGIN
 * re-sent; the home's round still runs): today P's rejoin forgets D's
 * cache-agent row, the orphan record with it (directory mode, na-sim
 * --directory --restart-node seed 60: a lost update), run
 * recorphan-rejoin. -DKEEP: the rejoin keeps a row's orphan record aside,
 * reported in rounds on its block until one ends (REC_DONE), and only when
 * current: D's new incarnation numbers its seqs from 1 again and may list
 * the kept record's seq unsettled; -DALIAS: a kept record is reported
 * current or not and that seq matches it (na-sim --restart-node seed 126:
 * an older value written), run recorphan-alias.
 *
 * Bounds: one block, one provider, one dead requester's event, one later
 * write, one rejoin; values 0-2. Not explored: several orphans of one block, a writer
 * whose write is in progress at the round (its Modified copy is reported
 * and wins).
 */
byte mem = 0;      /* home memory */
byte last = 1;     /* the last value written (P's) */
bit p_shared = 1;  /* P's copy after giving its data */
byte p_val = 1;
bit w_mod;         /* W holds the block Modified */
byte orphan = 1;   /* P's orphan record: what it gave D */
bit d_unsettled;   /* D reports its event unsettled (never: D is dead) */
bit cur;           /* P's report: the orphan equals its Shared copy */
bit kept = 1;      /* P still holds the orphan record */
bit rejoined;      /* D re-admitted at P before P's report */
bit alias;         /* D's new incarnation lists the kept record's seq */

init
{
	/* D: crash before its write-back, or write back and unlock */
	if
	:: skip /* crashed before NA_WB */
	:: mem = 1;
	   if
	   :: skip
	   :: /* W writes 2: P's copy invalidated */
	      p_shared = 0; w_mod = 1; last = 2;
	      if
	      :: skip /* W keeps its Modified copy */
	      :: w_mod = 0; mem = 2; /* written home (eviction) */
	         if
	         :: skip
	         :: p_shared = 1; p_val = mem /* P reads it again */
	         fi
	      fi
	   fi
	fi;
#ifdef REJOIN
	/* D's rejoin at P before P's report */
	if
	:: skip
	:: /* D's rows forgotten */
#ifndef KEEP
	   kept = 0
#else
	   rejoined = 1;
	   if
	   :: skip
	   :: alias = 1 /* its new seq equals the kept record's */
	   fi
#endif
	fi;
#endif
	/* P's report */
	cur = kept && p_shared && p_val == orphan;
#ifdef ALIAS
	d_unsettled = alias; /* a kept record reported whatever cur is */
#endif
	/* The rebuild */
	if
	:: w_mod -> skip /* a Modified copy: the truth is there */
	:: else ->
		if
#if defined(FIX)
		:: d_unsettled || cur -> mem = orphan
#elif defined(NOCMP)
		:: 1 -> mem = orphan /* the requester is dead */
#else
		:: d_unsettled -> mem = orphan
#endif
		:: else
		fi;
		assert(mem == last)
	fi
}
