/*
 * OLD switch rules: docs/PROTOCOL.md section 4 and lib/lcf/lcf_pipeline.c
 * before rules version 2. SCOREBOARD[r][parity] counts locks taken by any
 * copy of any event of that parity; ABORTED[r] is read after it;
 * LAST_UNLOCK advances on the unlock's first pass; RELEASE decrements the
 * score; a read unlock subtracts the first pass's score (clamped at 0).
 */
#include "sw_common.pml"

#define SB_QUIET assert(score[0] == 0 && score[1] == 0 && score[2] == 0 && score[3] == 0)

inline old_abd_record() {
	if
	:: ms > abd[mr] -> abd[mr] = ms
	:: else -> skip
	fi
}

inline old_request() {
	if
	:: ms <= lu[mr] -> SW_NACK(mr, ms, mb, 1)
	:: else ->
		sw_take_lock();
		p_ = mr * 2 + ms % 2;
		if
		:: taken -> score[p_] = (score[p_] + 1) % 256
		:: else -> skip
		fi;
		if
		:: score[p_] == 0 -> SW_NACK(mr, ms, mb, 2)
		:: else ->
			over = (ms <= abd[mr]);
			chk = CHECK(mk, mr, g_, c_);
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

inline old_abort_hit() {
	p_ = mr * 2 + ms % 2;
	if
	:: score[p_] == 0 -> old_abd_record()
	:: else -> skip
	fi;
	passed = !(ms <= abd[mr]);
	SEND(inb[mr], K_AACK, mr, ms, mb, passed, 0, 0)
}

inline sw_first() {
	if
	:: mk == K_ADD -> sw_add()
	:: else ->
		if
		:: ISUNL(mk) ->
			ux = (ms > lu[mr]);
			if
			:: ux -> lu[mr] = ms
			:: else -> skip
			fi;
			old_abd_record()
		:: else -> skip
		fi;
		if
		:: !sin[mb] ->                                  /* tag miss: home */
			mx = 0;
			if
			:: mk == K_ABT -> old_abd_record()
			:: ISREQ(mk) && ms <= abd[mr] -> mx = 1  /* FAIL */
			:: else -> skip
			fi;
			assert(mk != K_REM);
			printf("@O %d %d %d %d %d\n", mk, mr, ms, mb, mx);
		SEND(hbag, mk, mr, ms, mb, mx, mg, mc)
		:: else ->
			if
			:: ISREQ(mk) -> old_request()
			:: ISUNL(mk) ->
				p_ = mr * 2 + ms % 2;
				assert(nfull(rsq));
				rsq!RS_UNL, mk, mr, ms, mb, ux, score[p_], mg, mc
			:: mk == K_ABT -> old_abort_hit()
			:: else -> sw_remove()
			fi
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
				sw_release_lock();
				p_ = qr * 2 + qs % 2;
				score[p_] = (score[p_] + 255) % 256;    /* 16 bit in C: wraps */
				SW_NACK(qr, qs, qb, 5)
			:: qo == RS_UNL ->
				if
				:: qx ->
					sw_unlock_lock(qsc);
					score[qr * 2 + qs % 2] = 0
				:: else -> skip
				fi;
				SEND(inb[qr], K_UACK, qr, qs, qb, 0, 0, 0)
			:: else -> sw_second_mig()
			fi
		fi
	fi
}
