/*
 * Switch pipeline parts common to both rule sets: the lock stage, replies,
 * ADD/REMOVE. Included by sw_old.pml and sw_new.pml. A pass is one
 * d_step: the message is in m* (first pass) or q* (second pass).
 */

#define SW_NACK(r, s, b_, why) printf("@N %d %d %d %d\n", r, s, b_, why); SEND(inb[r], K_NACK, r, s, b_, 0, 0, 0)

/* Lock stage of a request: take the lock (taken), copy gstatus/copyset. */
inline sw_take_lock() {
	wr = (mk != K_RM);
	taken = (wr -> (!lw[mb] && lr[mb] == 0) : !lw[mb]);
	if
	:: taken && wr -> lw[mb] = 1
	:: taken && !wr -> lr[mb]++
	:: else -> skip
	fi;
	g_ = sgs[mb]; c_ = scs[mb]
}

/* RELEASE second pass: the lock stage releases the kind carried. */
inline sw_release_lock() {
	if
	:: qx -> lw[qb] = 0
	:: else ->
		if
		:: lr[qb] > 0 -> lr[qb]--
		:: else -> skip
		fi
	fi
}

/* Executed unlock: release and install the packet's metadata. */
inline sw_unlock_lock(sc) {
	if
	:: qt == K_RU ->
		lr[qb] = lr[qb] - (sc < lr[qb] -> sc : lr[qb]);
		scs[qb] = scs[qb] | qc
	:: else ->
		lw[qb] = 0; scs[qb] = qc
	fi;
	sgs[qb] = qg;
	hold_end(qr, qs, qb)
}

/* ADD first pass. */
inline sw_add() {
	if
	:: sin[mb] -> SEND(hmig, K_MACK, HOMEID, 0, mb, K_ADD, sgs[mb], scs[mb])
	:: else -> assert(nfull(rsq)); rsq!RS_ADD, mk, mr, ms, mb, 0, 0, mg, mc
	fi
}

/* REMOVE first pass (tag hit): the write lock, or NACK. */
inline sw_remove() {
	assert(sin[mb]);        /* migration messages are reliable: never a miss */
	mk = K_WM;
	sw_take_lock();
	if
	:: taken -> assert(nfull(rsq)); rsq!RS_REM, K_REM, mr, ms, mb, 0, 0, 0, 0
	:: else -> SEND(hmig, K_MNACK, HOMEID, 0, mb, 0, 0, 0)
	fi
}

/* Second passes of ADD and REMOVE. */
inline sw_second_mig() {
	if
	:: qo == RS_ADD ->
		if
		:: sin[qb] -> SEND(hmig, K_MACK, HOMEID, 0, qb, K_ADD, sgs[qb], scs[qb])
		:: else ->
			sin[qb] = 1; lw[qb] = 0; lr[qb] = 0; sgs[qb] = qg; scs[qb] = qc;
			SEND(hmig, K_MACK, HOMEID, 0, qb, K_ADD, qg, qc)
		fi
	:: else ->      /* RS_REM */
		SEND(hmig, K_MACK, HOMEID, 0, qb, K_REM, sgs[qb], scs[qb]);
		sin[qb] = 0; lw[qb] = 0; lr[qb] = 0; sgs[qb] = 0; scs[qb] = 0
	fi
}
