/*
 * NEW switch rules (docs/PROTOCOL.md 4): SB[r][p] = {s, c}, c a COUNT n,
 * CLAIMED n or ENDED (SB_ABORTED here: ended holding no switch lock,
 * aborted or unlocked at home); LAST_UNLOCK[r] = {lu, luo}: opened by an
 * unlock's first pass (hit or miss), closed by the second pass that
 * executes; an unlock executes only when its event holds counted locks.
 */
#include "sw_common.pml"

byte luo[NR];                   /* LAST_UNLOCK's open flag */

#define SB_FREE(p) (sbk[p] == SB_ABORTED || (sbk[p] == SB_COUNT && sbn[p] == 0))
#define SB_QUIET assert(SB_FREE(0) && SB_FREE(1) && SB_FREE(2) && SB_FREE(3))

/* over: a later event of the same parity exists, or this one is claimed
 * by its unlock or aborted (read before the update) */
#define SB_OVER(p, s) (sbs[p] > (s) || (sbs[p] == (s) && sbk[p] != SB_COUNT))

inline new_request() {
	if
	:: ms <= lu[mr] -> SW_NACK(mr, ms, mb, 1)
	:: else ->
		sw_take_lock();
		chk = CHECK(mk, mr, g_, c_);
		p_ = mr * 2 + ms % 2;
		over = SB_OVER(p_, ms);
		cnt_ = (taken && chk);
		if
		:: sbs[p_] == ms && sbk[p_] == SB_COUNT -> sbn[p_] = sbn[p_] + cnt_
		:: sbs[p_] < ms && cnt_ -> sbs[p_] = ms; sbk[p_] = SB_COUNT; sbn[p_] = 1
		:: else -> skip
		fi;
		held = (sbs[p_] == ms && sbk[p_] == SB_COUNT && sbn[p_] > 0);
		if
		:: !taken && !held -> SW_NACK(mr, ms, mb, 2)
		:: else ->
			if
			:: over || !chk ->
				if
				:: taken -> printf("@Z %d %d %d %d %d\n", mk, mr, ms, mb, over);
					assert(nfull(rsq)); rsq!RS_REL, mk, mr, ms, mb, wr, 0, 0, 0
				:: else -> SW_NACK(mr, ms, mb, (over -> 3 : 4))
				fi
			:: else -> sw_forward(mr, ms, mk, mb, g_, c_)
			fi
		fi
	fi
}

/* ABORT's SB RMW (hit and miss); passed = "a copy passed". */
inline new_abort_sb() {
	p_ = mr * 2 + ms % 2;
	if
	:: sbs[p_] == ms && ((sbk[p_] == SB_COUNT && sbn[p_] > 0) || sbk[p_] == SB_CLAIMED) ->
		passed = 1
	:: sbs[p_] > ms -> passed = 0
	:: else ->      /* same seq with COUNT 0 or ABORTED, or a later seq */
		sbs[p_] = ms; sbk[p_] = SB_ABORTED; sbn[p_] = 0; passed = 0
	fi
}

inline sw_first() {
	if
	:: mk == K_ADD -> sw_add()
	:: !sin[mb] ->                                          /* tag miss: home */
		mx = 0;
		p_ = mr * 2 + ms % 2;
		if
		:: ISUNL(mk) ->
			if
			:: ms > lu[mr] -> lu[mr] = ms; luo[mr] = 1
			:: else -> skip
			fi;
			if
			:: sbs[p_] <= ms -> sbs[p_] = ms; sbk[p_] = SB_ABORTED; sbn[p_] = 0
			:: else -> skip
			fi
		:: mk == K_ABT -> new_abort_sb()
		:: ISREQ(mk) -> mx = SB_OVER(p_, ms)            /* FAIL */
		:: else -> assert(false)                        /* REMOVE never misses */
		fi;
		printf("@O %d %d %d %d %d\n", mk, mr, ms, mb, mx);
		SEND(hbag, mk, mr, ms, mb, mx, mg, mc)
	:: else ->
		if
		:: ISREQ(mk) -> new_request()
		:: ISUNL(mk) ->
			/* LAST-UNLOCK opens: new, or the same seq still open */
			if
			:: ms > lu[mr] -> lu[mr] = ms; luo[mr] = 1; ux = 1
			:: ms == lu[mr] && luo[mr] -> ux = 1
			:: else -> ux = 0
			fi;
			sc_ = 0;
			p_ = mr * 2 + ms % 2;
			if
			:: ux ->        /* claim: may execute only if counted locks */
				if
				:: sbs[p_] == ms && sbk[p_] == SB_COUNT && sbn[p_] > 0 ->
					sc_ = sbn[p_]; sbk[p_] = SB_CLAIMED
				:: sbs[p_] == ms && sbk[p_] == SB_CLAIMED -> sc_ = sbn[p_]
				:: sbs[p_] < ms ->
					sbs[p_] = ms; sbk[p_] = SB_ABORTED; sbn[p_] = 0; ux = 0
				:: else -> ux = 0
				fi
			:: else -> skip
			fi;
			assert(nfull(rsq));
			rsq!RS_UNL, mk, mr, ms, mb, ux, sc_, mg, mc
		:: mk == K_ABT ->
			/* A copy passed: the requester collects it and unlocks. Else the
			 * ABORT goes on to the home, which alone can refuse a late copy
			 * that missed in the switch before an ADD and reaches the home
			 * after a REMOVE; the requester waits for the home's answer. */
			new_abort_sb();
			if
			:: passed -> SEND(inb[mr], K_AACK, mr, ms, mb, 1, 0, 0)
#ifdef ABORT_AT_SWITCH  /* the earlier rule: the switch answers it itself */
			:: !passed -> SEND(inb[mr], K_AACK, mr, ms, mb, 0, 0, 0)
#else
			:: else ->
				printf("@O %d %d %d %d %d\n", mk, mr, ms, mb, 0);
				SEND(hbag, mk, mr, ms, mb, 0, mg, mc)
#endif
			fi
		:: else -> sw_remove()
		fi
	fi
}

inline sw_second() {
	if
	:: qo == RS_ADD -> sw_second_mig()
	:: else ->
		if
		:: !sin[qb] -> skip                             /* bad_resubmit_metadata */
		:: else ->
			if
			:: qo == RS_REL ->
				sw_release_lock();                      /* SB not touched */
				SW_NACK(qr, qs, qb, 5)
			:: qo == RS_UNL ->
				ux = (qx && qs == lu[qr] && luo[qr]);
				if
				:: ux ->
					luo[qr] = 0;
					sw_unlock_lock(qsc);
					p_ = qr * 2 + qs % 2;
					if
					:: sbs[p_] == qs -> sbk[p_] = SB_COUNT; sbn[p_] = 0
					:: else -> skip
					fi
				:: else -> skip
				fi;
				SEND(inb[qr], K_UACK, qr, qs, qb, 0, 0, 0)
			:: else -> sw_second_mig()
			fi
		fi
	fi
}

/*
 * Why the rules of docs/PROTOCOL.md are what they are: the reasons behind
 * its Interpretation paragraphs, moved here from the page (each names the
 * model run or vector that shows the alternative failing).
 *
 * **Interpretation (stale request).** The paper uses LAST-UNLOCK only for
 * unlocks. But a copy of a request can arrive after its event's unlock has
 * executed: the network reorders or duplicates it and delays it beyond the
 * requester's retransmission timeout (5.2). Such a copy found the lock free
 * and took it for an event that was over. The requester's unlock for that seq
 * had already executed, and any later copy of it is ignored as a duplicate,
 * so nobody released the lock. Every later request for the block was NACKed
 * (`nack_lock_busy`), and the switch-owned end-to-end run livelocked under
 * `swswitch --fault delay`. The NACK is harmless: the requester matches replies by seq, so it discards
 * a reply for an event it has finished.
 *
 * **Interpretation (a score bound to its event).** The paper keeps one lock
 * score per requester and seq parity and lets a request pass a busy lock when
 * the score is > 0, as a retransmission of the request that holds it. Keyed by
 * (requester, parity) alone, a score earned by one event lets another event
 * of that requester through: a late copy of an aborted event takes a read lock
 * on block X and waits for its RELEASE pass after the burst, and in the same
 * burst the requester's next event of that parity, a WRITE_MISS on block Y
 * that another node holds, passes on the copy's score: two writers on Y
 * (vector 070, `test_pipeline_sb.c`, the model's regression run in
 * docs/MODEL.md). So the entry names its event and a request passes on it only
 * when `s == seq`. A copy that will be released by a RELEASE pass (check
 * failed, or its event over) is never counted: `c` counts exactly the locks
 * that only the event's unlock releases, so an unlock never subtracts a lock
 * that a pending RELEASE also releases (vector 071). A requester has at most
 * one live event per parity (5.2: the next event of a parity starts only after
 * the previous one's unlock or ABORT was answered), so when a counted copy of
 * a later event replaces the entry, the old event holds no counted lock.
 *
 * **Interpretation (data provider per event).** The paper selects the
 * provider at random. We choose it per event (requester, seq), not per
 * pass. A retransmission that passes on the scoreboard (step 2) while the
 * first pass's copies are still in flight must name the same provider.
 * Otherwise, under reordering, each holder may first see the copy that
 * does not ask it for the data: it invalidates its copy, and when the other
 * copy arrives the data is gone. Nobody then answers the requester, whose
 * retransmissions pass on the score and repeat the loss: the switch-owned
 * end-to-end run livelocked under `swswitch --fault delay`. Over many
 * events the hash is as uniform over the copyset as a random draw. A
 * Tofino takes 5 bits of the same CRC and chooses by a permutation table
 * (docs/TOFINO.md), so its node for a given event can differ from
 * swswitch's; it is still one node per event.
 *
 * **Interpretation (opened on the first pass, closed on the second).** The
 * paper's LAST-UNLOCK is one seq, written when the unlock executes. Written by
 * the first pass, a lost second pass (a dropped resubmit, or metadata
 * rejected) would make the retransmitted unlock a duplicate and leak the lock
 * for good (a later REMOVE is refused as busy forever); written by the second
 * pass, it could not record the unlocks of home-owned blocks, which have no
 * second pass, and a Tofino's LAST-UNLOCK stage comes before the TAG lookup, so
 * it cannot tell hit from miss. The open flag serves both: the first pass
 * records every unlock (and makes later copies of its request stale), the
 * second pass executes only what is still open and closes it, so of two copies
 * of one unlock exactly one executes and a retransmission after a lost second
 * pass executes. The claim keeps the count for that retransmission, and an
 * unlock executes only when its event holds counted locks here: a late unlock
 * of a home-served event (its block moved to the switch since) finds the entry
 * ENDED and releases nothing.
 *
 * **Interpretation (unlocks of home-owned blocks).** The paper updates
 * LAST-UNLOCK only for unlocks the switch executes. We record every unlock
 * that passes the switch, also those of blocks the home owns (tag miss), for
 * ownership migration (5.2). The home moves a block to the switch
 * (ADD_TO_SWITCH) only under its write lock, i.e. after every event it
 * serialised on the block has unlocked, and that unlock crossed the switch on
 * its way home before the ADD did. So when a copy of such an event's request
 * or unlock arrives late (delayed or duplicated by the network), the block now
 * in the switch, `LAST_UNLOCK[r]` already covers its seq: the request is
 * NACKed as stale (4.2) instead of taking a lock no unlock would release, and
 * the unlock releases nothing instead of releasing the lock of whoever holds
 * the block now and installing stale metadata (the lock stage does not know
 * who holds a lock): LAST-UNLOCK makes it a duplicate or, if it is the
 * requester's latest unlock, the event's ENDED SCOREBOARD entry gives it
 * nothing to execute. This holds for any delay. Requesters need
 * nothing new: their unlocks are already in seq order, one at a time (5.3.2),
 * so an unlock of another block with a later seq never makes an unlock still
 * due look old. Each swswitch worker has its own LAST-UNLOCK, and a tag's
 * packets all reach the same worker, so the argument holds per worker.
 *
 * **Interpretation (the home answers every ABORT that no switch copy
 * passed).** The switch alone cannot end an event: a copy of the request may
 * have missed in the switch before the home ADDed the block and still be on
 * its way home. If the home later takes the block back (REMOVE) and then
 * receives that copy, only the home's record refuses it; were the ABORT
 * answered by the switch alone, the home would grant the copy and hold its
 * lock for good (docs/MODEL.md, run `abort-at-switch-remove-late-copy`;
 * vector 072). No copy can hold a switch lock on a block the switch does not
 * hold, so on a tag miss the mark is always right; if the block moves to the
 * switch, a late copy is refused there.
 */
