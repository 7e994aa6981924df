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
