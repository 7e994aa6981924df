/*
 * A migration's ADD copies under duplication, loss and a set slot that
 * frees at any moment (docs/MODEL.md "Several threads per node"). The home
 * holds the block MIGRATING (its write lock) and sends copies of one ADD
 * (seq add_seq + i, up to C of a set, then a new set: na_home_migrate.c),
 * retransmitting at any moment. The switch installs a copy that finds a
 * free slot, ACKs a copy of an installed block as a duplicate, and FAILs
 * a copy while the set is full. The network duplicates copies (DUP),
 * loses copies (LOSS) and MIGRATE_ACKs (LOSSACK), and reorders all.
 *
 * Today's rule (default): once every copy sent has FAILed, the home takes
 * the block back; a duplicate still in flight installs it later and the
 * block is both home- and switch-owned (run migdup-old, na-sim sweep 31300
 * run 566). -DFIX: the home keeps it MIGRATING (NACKing, no copy sent) for
 * a hold, then takes it back; an OK of any of its sets' copies
 * meanwhile gives it to the switch (today only this set's count). The
 * hold ends only with no copy or ACK in flight: the maximum packet
 * lifetime it assumes (NA_ADD_HOLD_NS). A late copy's OK lost in the hold
 * still leaves two owners (run migdup-lostok, known).
 *
 * Bounds: one block, C copies a set, SETS sets, DUP duplicates, LOSS lost
 * copies, LOSSACK lost ACKs, FREE slots freed.
 */
#ifndef C
#define C 2
#endif
#ifndef SETS
#define SETS 2
#endif
#ifndef DUP
#define DUP 1
#endif
#ifndef LOSS
#define LOSS 0
#endif
#ifndef LOSSACK
#define LOSSACK 0
#endif
#ifndef FREE
#define FREE 1
#endif
#define HOME 0
#define MIGRATING 1
#define SWITCH 2

chan tosw = [8] of { byte };       /* copy id: set * C + i */
chan tohome = [8] of { byte, bit }; /* copy id, OK */
byte owner = MIGRATING;
bit installed, slot, hold;
byte base, sent, failed, sets = 1;
byte dups = DUP, losses = LOSS, acklosses = LOSSACK, frees = FREE;

/* Two owners: the home serves a block the switch serves too. */
active proctype mon()
{
end:	atomic { installed && owner == HOME -> assert(false) }
}

active proctype net()
{
	byte id;
	bit ok;

end:	do
	:: atomic { dups > 0 && nempty(tosw) -> tosw ? id; tosw ! id; tosw ! id; dups-- }
	:: atomic { losses > 0 && nempty(tosw) -> tosw ? id; losses-- }
	:: atomic { acklosses > 0 && nempty(tohome) -> tohome ? id, ok; acklosses-- }
	:: atomic { frees > 0 && !slot -> slot = 1; frees-- } /* another block removed */
	:: atomic { slot -> slot = 0 }                        /* ... or added */
	:: atomic { len(tosw) > 1 -> tosw ? id; tosw ! id }   /* reordering */
	:: atomic { len(tohome) > 1 -> tohome ? id, ok; tohome ! id, ok }
	od
}

active proctype sw()
{
	byte id;

end:	do
	:: atomic { tosw ? id ->
		if
		:: installed -> tohome ! id, 1 /* duplicate: ACKed */
		:: !installed && slot -> installed = 1; slot = 0; tohome ! id, 1
		:: !installed && !slot -> tohome ! id, 0
		fi }
	od
}

inline popcnt(v, n)
{
	n = (v & 1) + ((v >> 1) & 1) + ((v >> 2) & 1) + ((v >> 3) & 1)
}

active proctype home()
{
	byte id, n;
	bit ok;

	atomic { tosw ! 0; sent = 1 };
end:	do
	/* Retransmission (emit_add): the next copy, or a new set. */
	:: atomic { owner == MIGRATING && !hold && sent < C -> tosw ! base + sent; sent++ }
	:: atomic { owner == MIGRATING && !hold && sent == C && sets < SETS ->
		    base = base + C; sent = 1; failed = 0; sets++; tosw ! base }
	/* MIGRATE_ACK (na_home_migrate_ack): this set's copies only. */
	:: atomic { tohome ? id, ok ->
		if
#ifdef FIX
		:: owner == MIGRATING && ok -> owner = SWITCH; hold = 0
		:: owner == MIGRATING && !ok && id >= base && id < base + sent ->
#else
		:: owner == MIGRATING && id >= base && id < base + sent ->
#endif
			if
			:: ok -> owner = SWITCH
			:: else ->
				failed = failed | (1 << (id - base));
				popcnt(failed, n);
				if
				:: n == sent ->
#ifdef FIX
					hold = 1
#else
					owner = HOME
#endif
				:: else
				fi
			fi
		:: else
		fi; id = 0; ok = 0; n = 0 }
#ifdef FIX
	/* The hold over: nothing of this migration in flight. */
	:: atomic { hold && owner == MIGRATING && empty(tosw) && empty(tohome) ->
		    hold = 0; owner = HOME }
#endif
	od
}
