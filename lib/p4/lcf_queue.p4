/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The queued lock mode (docs/QUEUED-LOCKS.md sections 1-4 and 10,
 * docs/PROTOCOL.md "Queued locks"): QSTATE = {QHOLDER, FWD_CNT} per way
 * slot, forward to the queue holder, QXFER and QRELEASE. C:
 * lib/lcf/lcf_queue.c, called from pass_request_queue(), pass_queue() and
 * pass_resubmitted() in lib/lcf/lcf_pipeline.c.
 *
 * Controls (lcf.p4 applies them):
 *   LcfQueue     the QSTATE stage, W+6 (after SCOREBOARD C, W+5): the
 *                lock mode, the id tables, the SALU operands, and per way
 *                one paired register qstate (LcfQWay);
 *   LcfQueueOut  (lcf_queue_out.p4) the outcome of a queue pass, stage
 *                W+7, instead of LcfDispatch: forward to the holder,
 *                QXFER_ACK, resubmit, tag miss, bad resubmit.
 *
 * QSTATE on Tofino-1. A stateful ALU compares at most twice, reads two
 * 32-bit PHV words and outputs one 32-bit word per pass. Its consequences
 * (docs/TOFINO.md "Queued lock mode"):
 *
 *  1. lo keeps a copy of the holder's node, thread and seq in its low 16
 *     bits, FWD_CNT in its high 16 bits. A forward needs the holder (node,
 *     tenure) and the new index in one output word:
 *       hi = QHOLDER (C: the same id, (node + 1) << 26 | thread << 16 | seq)
 *       lo = FWD_CNT << 16 | hb(hi),
 *            hb(id) = (node + 1) << 10 | (thread & 0xf) << 6 | (seq & 0x3f)
 *       lo = Q_MARK (0xffff0000): C's CLOSING (FWD_CNT bit 31), and the
 *            P4-only "QXFER approved, second pass due" (3. below)
 *     {0, 0} is "no queue" as in C. hb(id) >= 0x400 (node + 1 >= 1), so no
 *     open holder's lo equals Q_MARK, and FWD_CNT saturated (0xffff) with
 *     hb is above it: `lo < Q_MARK` is "open and not saturated" in one
 *     compare. The C view: FWD_CNT = lo >> 16, or CLOSING when lo == Q_MARK.
 *     The tenure in hb has 4 thread bits: the queued mode needs
 *     threads_per_node <= 16 (topo_to_bfrt.py refuses more).
 *  2. QXFER/QRELEASE's first pass outputs the old lo only when QHOLDER is
 *     the packet's event (else 0): the reason is exact, but a not_holder
 *     denial reports FWD_CNT 0 (C: the current holder's count).
 *  3. An approved QXFER needs the event id and the count (compares) and the
 *     next id (write): three PHV words. The first pass compares and marks
 *     lo = Q_MARK; a resubmit (LCF_RS_QXFER2, P4 only) writes {next, hb(next)}
 *     and sends the QXFER_ACK. No other pass can approve or forward while
 *     the mark is set, so only that second pass consumes it; a request in
 *     between is NACKed (C forwards it to the new holder).
 *  4. C's SWITCH (FWD_CNT bit 30: a waiting writer's tenure, granted by
 *     the switch) is lo bit 15, Q_SW, of the hb copy: hb's node + 1 keeps
 *     5 bits (queued mode: node ids <= 30, topo_to_bfrt.py). The waiter's
 *     tenure is {id, hb(id) | Q_SW}; q_check compares lo without it.
 *  5. The waiting writer (C lcf_q_request() rows 2-4; docs/QUEUED-LOCKS.md
 *     3): the lock stage (q_lock_op, lock_qacquire) sets WAITING and
 *     LcfCheck md.q_waiter; while LOCK has WAITING, q_fwd answers the
 *     request's own switch tenure (q_a = hb(id) | Q_SW) without writing,
 *     which LcfQueueOut turns into QWAIT (READERS > 0) or QGRANT. The poll
 *     is told by hb and LOCK's WAITING, not by QHOLDER == id. A poll of an
 *     event that is over or holds a score is answered too (q_grant with
 *     the poll's operands: no write, no forward).
 *  6. An ABORT (C lcf_q_abort_waiting()) runs q_check (q_b = Q_NONE: no
 *     write); rv with Q_SW (hi == id) -> LcfQueueOut's ABORT_ACK | FAIL.
 */
#ifndef _LCF_QUEUE_P4_
#define _LCF_QUEUE_P4_

/* Also of the queued mode, declared where their kind is: SB_OP_QEND,
 * SB_OP_QOPEN, SB_OP_QDONE (lcf_validate.p4: QXFER/QRELEASE end their event
 * in SCOREBOARD; QRELEASE's gate QGATE[r], lcf_ways.p4 LcfLastUnlock) and
 * LCF_RS_QXFER2 (lcf_headers.p4: the P4-only resubmit op of 3. above). */

/* QXFER_ACK reasons: C enum lcf_q_reason (lib/wire/lcf_qlock.h). */
const bit<8> LCF_Q_OK         = 0;
const bit<8> LCF_Q_COUNT      = 1;
const bit<8> LCF_Q_NOT_HOLDER = 2;
const bit<8> LCF_Q_IS_CLOSING = 3;
const bit<8> LCF_Q_BAD_NEXT   = 4;
const bit<8> LCF_Q_WAITING    = 5;

/* lo values (1. above). */
const bit<32> Q_MARK = 0xffff0000;  /* CLOSING, or QXFER second pass due */
const bit<32> Q_INC  = 0x00010000;  /* one forward */
const bit<32> Q_NONE = 0xffffffff;  /* a q_cmp no lo equals (bad next) */
const bit<32> Q_SW   = 0x00008000;  /* lo bit 15: C LCF_Q_SWITCH (4. above) */
const bit<32> Q_NSW  = 0xffff7fff;  /* lo without Q_SW (count and holder) */

/* What the QSTATE register does this pass (LcfQWay). */
const bit<8> Q_K_NONE  = 0;
const bit<8> Q_K_REQ   = 1;         /* request, pass 1, queued mode */
const bit<8> Q_K_CHECK = 2;         /* QXFER or QRELEASE, pass 1, queued */
const bit<8> Q_K_PASS2 = 3;         /* QXFER2 / QRELEASE second pass */
const bit<8> Q_K_WAIT  = 4;         /* request that set WAITING (waiter) */
const bit<8> Q_K_ABORT = 5;         /* ABORT, queued mode: QSTATE read only */

struct q_pair_t {
    bit<32> lo;
    bit<32> hi;
}

/* ---------------------------------------------------------------------------
 * QSTATE of way w. C: lcf_q_request(), lcf_q_xfer(), lcf_q_release1(),
 * lcf_q_release2(). Four RegisterActions (the Tofino-1 limit). Operands:
 * phv_hi = md.q_a, phv_lo = md.q_b (the same two words for every action;
 * LcfQueue sets them per pass kind). Big constants in the register file:
 * Q_MARK, Q_INC (2 of 4).
 * ------------------------------------------------------------------------- */
control LcfQWay(inout lcf_headers_t hdr,
                inout lcf_ig_md_t md,
                in slot_t slot)
               (bit<8> way_id)
{
    Register<q_pair_t, slot_t>(LCF_SLOTS, {0, 0}) qstate;

    /* Granted and counted (C lcf_q_request(), grant): {id, hb(id)} from
     * q_a = id, q_b = hb(id). With q_b = Q_MARK (an event over or holding a
     * score, qsel) no write and no forward: C row 4's poll, lo & 0xffff ==
     * q_a (hb(id) | Q_SW; never for a grant, id >= 2^26). Compares: 2.
     * Instructions: 3 (hi, lo, output). Output: lo on a poll, else 0. */
    RegisterAction<q_pair_t, slot_t, bit<32>>(qstate) q_grant = {
        void apply(inout q_pair_t v, out bit<32> rv) {
            rv = 0;
            if ((v.lo & 0xffff) == md.q_a) {
                rv = v.lo;
            }
            if (md.q_b != Q_MARK) {
                v.hi = md.q_a;
                v.lo = md.q_b;
            }
        }
    };
    /* Request that did not take the lock (C lcf_q_request(), rows 4 and
     * 5): the waiting writer's poll, else, when a holder exists, is not
     * CLOSING and FWD_CNT < 0xffff, FWD_CNT += 1.
     * q_a: LOCK without WAITING 0 (lo's low half is 0 <=> no holder:
     * hb(id) >= 0x400; CLOSING's too), with WAITING hb(id) | Q_SW (this
     * event's switch tenure: the poll, QSTATE untouched).
     * Compares: lo & 0xffff == q_a; lo < q_b (= Q_MARK, unsigned). Q_MARK
     * comes from the PHV: an unsigned compare sign-extends a constant
     * operand, and Tofino-1's 32-bit constant file cannot hold -Q_MARK.
     * Instructions: 2 (lo + Q_INC; output). Output: lo (the new lo when
     * forwarded), 0 otherwise. A forward has rv[15:0] != 0 and rv[15:0] !=
     * q_a; the copy goes to node rv[14:10] - 1 with aux = rv[9:0] << 16 |
     * rv[31:16] (tenure, index). A poll (LcfQueueOut) has WAITING and
     * rv[15:0] == q_a. With WAITING and no holder (an aborted waiter's
     * RELEASE pass is due, QSTATE {0, 0}) lo is counted with hi 0: rv[15:0]
     * is 0, the request is NACKed as C does, and every reader of QSTATE
     * takes lo's low half 0 as no holder. */
    RegisterAction<q_pair_t, slot_t, bit<32>>(qstate) q_fwd = {
        void apply(inout q_pair_t v, out bit<32> rv) {
            rv = 0;
            if ((v.lo & 0xffff) == md.q_a) {
                rv = v.lo;
            } else if (v.lo < md.q_b) {
                v.lo = v.lo + Q_INC;
                rv = v.lo;
            }
        }
    };
    /* QXFER or QRELEASE, pass 1 (C lcf_q_xfer(), lcf_q_release1()): when
     * hi is the event (q_a = id) and lo without Q_SW is {its count,
     * hb(id)} (q_b = q_cmp; Q_NONE for a QXFER with a bad next, and while
     * READERS > 0: a switch tenure is then never granted), lo = Q_MARK.
     * Compares: hi == q_a; lo & Q_NSW == q_b (a masked memory operand).
     * Instructions: 2 (lo = Q_MARK; output). Output: the old lo (memory lo)
     * when hi == q_a, else 0. LcfQueueOut: rv == q_cmp approved; rv ==
     * Q_MARK a QRELEASE retransmission (approved) or a late QXFER copy
     * (not_holder); rv == 0 not_holder; Q_SW in rv while READERS > 0
     * waiting; else closing/bad next/count. */
    RegisterAction<q_pair_t, slot_t, bit<32>>(qstate) q_check = {
        void apply(inout q_pair_t v, out bit<32> rv) {
            rv = 0;
            if (v.hi == md.q_a) {
                rv = v.lo;
            }
            if (v.hi == md.q_a && (v.lo & Q_NSW) == md.q_b) {
                v.lo = Q_MARK;
            }
        }
    };
    /* Second pass (C lcf_q_release2(); the P4-only QXFER2): lo == Q_MARK
     * -> {q_a, q_b}: {next, hb(next)} for QXFER2, {0, 0} for a QRELEASE
     * its gate let execute, {id, Q_MARK} (unchanged) for one it stopped.
     * Compares: lo == Q_MARK. Instructions: 3 (hi, lo, output). Output:
     * the old lo: Q_MARK on a stopped QRELEASE is C's "closing" answer.
     * C also requires hi == id for QRELEASE: only a pass 2 whose pass 1
     * set or found the mark gets here, and the mark of another event
     * would need a new grant and its QXFER/QRELEASE within one resubmit. */
    RegisterAction<q_pair_t, slot_t, bit<32>>(qstate) q_pass2 = {
        void apply(inout q_pair_t v, out bit<32> rv) {
            rv = v.lo;
            if (v.lo == Q_MARK) {
                v.hi = md.q_a;
                v.lo = md.q_b;
            }
        }
    };

    action a_grant() { md.q_frv = q_grant.execute(slot); }
    action a_fwd()   { md.q_frv = q_fwd.execute(slot); }
    action a_check() { md.q_crv = q_check.execute(slot); }
    action a_pass2() { md.q_crv = q_pass2.execute(slot); }
    action a_none()  { }
    action a_stale() { md.q_stale = 1; }    /* stale QRELEASE: not QSTATE */

    /* C pass_request_queue(): grant = lock taken && write && check passed
     * && event not over; busy = lock not taken && no counted lock held &&
     * event not over; a stale request only reads (the poll). Keyed on SCOREBOARD C's raw answer (LcfScoreboard:
     * sb_class of seq against SEQ, sb_rv = c as it was), not on the decoded
     * sb_held/sb_over, so QSTATE sits in the stage right after it: over =
     * OLDER, or EQ with c >= SB_ENDED; a copy that did not take the lock
     * holds a counted lock when EQ with c != 0. A stale request (lu_stale)
     * never gets here in C. */
    table qsel {
        key = {
            md.q_kind : exact;
            hdr.lcf.type : range;
            /* ternary, not exact: the QXFER/QRELEASE rows do not care */
            md.lu_stale : ternary;
            md.took : ternary;
            md.check_ok : ternary;
            md.sb_class : ternary;
            /* ternary: a range key wider than 4 nibbles is refused */
            md.sb_rv : ternary;
        }
        actions = { a_grant; a_fwd; a_check; a_pass2; a_none; a_stale; }
        const default_action = a_none();
        const entries = {
            (Q_K_REQ, LCF_T_WRITE_MISS .. LCF_T_EVICT_MODIFIED, 0, 1, 1, SB_CLASS_AFTER, _) : a_grant();
            (Q_K_REQ, LCF_T_WRITE_MISS .. LCF_T_EVICT_MODIFIED, 0, 1, 1, SB_CLASS_EQ, 0 &&& 0xc0000000) : a_grant();
            (Q_K_REQ, LCF_T_READ_MISS .. LCF_T_EVICT_MODIFIED, 0, 0, 0, SB_CLASS_AFTER, _) : a_fwd();
            (Q_K_REQ, LCF_T_READ_MISS .. LCF_T_EVICT_MODIFIED, 0, 0, 1, SB_CLASS_AFTER, _) : a_fwd();
            (Q_K_REQ, LCF_T_READ_MISS .. LCF_T_EVICT_MODIFIED, 0, 0, 0, SB_CLASS_EQ, 0 &&& 0xffffffff) : a_fwd();
            (Q_K_REQ, LCF_T_READ_MISS .. LCF_T_EVICT_MODIFIED, 0, 0, 1, SB_CLASS_EQ, 0 &&& 0xffffffff) : a_fwd();
            /* row 4 whatever SCOREBOARD says: q_grant, q_b = Q_MARK */
            (Q_K_REQ, LCF_T_READ_MISS .. LCF_T_EVICT_MODIFIED, 0, 0, _, SB_CLASS_OLDER, _) : a_grant();
            (Q_K_REQ, LCF_T_READ_MISS .. LCF_T_EVICT_MODIFIED, 0, 0, _, SB_CLASS_EQ, _) : a_grant();
            /* a stale request (C lcf_q_stale_poll(), row 4 before the
             * stale NACK): q_grant with the poll's operands, no write; its
             * rv is the poll only for the block's waiting writer's tenure */
            (Q_K_REQ, LCF_T_READ_MISS .. LCF_T_EVICT_MODIFIED, 1, 0, _, _, _) : a_grant();
            (Q_K_CHECK, LCF_T_QRELEASE .. LCF_T_QRELEASE, _, _, _, SB_CLASS_OLDER, SB_QSTALE) : a_stale();
            (Q_K_CHECK, LCF_T_QXFER .. LCF_T_QRELEASE, _, _, _, _, _) : a_check();
            /* ABORT (lcf_q_abort_waiting()): q_check, q_b = Q_NONE */
            (Q_K_ABORT, LCF_T_ABORT .. LCF_T_ABORT, _, _, _, _, _) : a_check();
            (Q_K_PASS2, LCF_T_QXFER .. LCF_T_QRELEASE, _, _, _, _, _) : a_pass2();
            /* the waiter (C rows 2, 3): {id, hb(id) | Q_SW} unless its
             * event is over; no Table 2 check */
            (Q_K_WAIT, LCF_T_WRITE_MISS .. LCF_T_EVICT_MODIFIED, 0, 0, _, SB_CLASS_AFTER, _) : a_grant();
            (Q_K_WAIT, LCF_T_WRITE_MISS .. LCF_T_EVICT_MODIFIED, 0, 0, _, SB_CLASS_EQ, 0 &&& 0xc0000000) : a_grant();
        }
        size = 16;
    }

    apply {
        /* the first way that has the tag (LcfLcsWay: md.way) */
        if (md.hit == 1 && md.bad_way == 0 && md.way == way_id) {
            qsel.apply();
        }
    }
}

#if LCF_QUEUE
/* LcfQueueOut decides the packet (lcf.p4): QXFER, QRELEASE, the waiter,
 * the undo's RELEASE pass, a forward or a poll (q_fwd's or q_grant's
 * rv[15:0] != 0), an ABORT of a switch tenure (q_check's rv has Q_SW) */
#define LCF_QUEUE_OUT (md.q_out == 1 || md.q_frv[15:0] != 0 || md.q_crv[15:15] == 1)

/* ---------------------------------------------------------------------------
 * The QSTATE stage. C: the queued-mode branches of pass_request(),
 * pass_queue(), pass_resubmitted(); lcf_q_id(), valid_next().
 * ------------------------------------------------------------------------- */
control LcfQueue(inout lcf_headers_t hdr, inout lcf_ig_md_t md)
{
    LcfQWay(0) qw0;
#if LCF_WAYS > 1
    LcfQWay(1) qw1;
#endif
#if LCF_WAYS > 2
    LcfQWay(2) qw2;
#endif
#if LCF_WAYS > 3
    LcfQWay(3) qw3;
#endif
#if LCF_WAYS > 4
    LcfQWay(4) qw4;
#endif
#if LCF_WAYS > 5
    LcfQWay(5) qw5;
#endif
#if LCF_WAYS > 6
    LcfQWay(6) qw6;
#endif
#if LCF_WAYS > 7
    LcfQWay(7) qw7;
#endif
#if LCF_WAYS > 8
    LcfQWay(8) qw8;
#endif
#if LCF_WAYS > 9
    LcfQWay(9) qw9;
#endif

    /* QXFER's next id (its copyset) copied by the hash unit, not by an
     * action: fields an action moves between must be sliced alike, and
     * a move from hdr.lcf.copyset would tie the copyset fields to the
     * sequence number's slices (q_id, q_hb), which PHV allocation cannot
     * satisfy. */
    Hash<bit<32>>(HashAlgorithm_t.IDENTITY) next_ident;
    /* The count of a QXFER or QRELEASE (aux bits 0-15) the same way, as
     * count << 16: an action move from hdr.lcf.aux would tie aux, and with
     * it every reply's aux, to the sequence number's slices. */
    Hash<bit<32>>(HashAlgorithm_t.IDENTITY) count_ident;

    /* switch.lock_mode: prepare.lock_mode_cfg (lcf_validate.p4, stage 0:
     * the lock stage of a queued-mode write differs). */

    /* The packet's event as the two SALU words: q_id = C lcf_q_id() =
     * idhi << 16 | seq & 0xffff with idhi = (node + 1) << 10 | thread, and
     * q_hb = hb(id) = hbhi << 6 | seq & 0x3f with hbhi = (node + 1) << 4 |
     * (thread & 0xf). Written here, from action data and one PHV source
     * each: Tofino cannot add and shift into one field in one step, and an
     * action may read at most one PHV field besides action data. One entry
     * per node and thread. */
    action q_self(bit<16> idhi, bit<10> hbhi) {
        md.q_id = idhi ++ hdr.lcf.seq[15:0];
        md.q_hb = 16w0 ++ hbhi ++ hdr.lcf.seq[5:0];
    }
    table q_self_tbl {
        key = {
            hdr.lcf.node : exact @name("node");
            hdr.lcf.thread : exact @name("thread");
        }
        actions = { q_self; NoAction; }
        default_action = NoAction();
        size = LCF_MAX_REQUESTERS;
    }

    /* QXFER's next holder (copyset): C valid_next() = an entry for its
     * (node + 1, thread), node in the topology, thread < threads_per_node. */
    action q_next(bit<10> hbhi) {
        md.q_next_ok = 1;
        md.q_nhb = 16w0 ++ hbhi ++ md.q_nid[5:0];          /* hb(next) */
    }
    action q_next_bad() { md.q_next_ok = 0; md.q_nhb = 0; }
    table q_next_tbl {
        key = { hdr.lcf.copyset[31:16] : exact @name("next_hi"); }
        actions = { q_next; q_next_bad; }
        default_action = q_next_bad();
        size = LCF_MAX_REQUESTERS;
    }

    /* The SALU operands (phv_hi = q_a, phv_lo = q_b) and the pass kind.
     * A request that took the lock may be granted (q_grant: {id, hb(id)});
     * one that did not may be forwarded (q_fwd: q_b = Q_MARK). */
    action in_req() {
        md.q_kind = Q_K_REQ;
        md.q_a = md.q_id;
        md.q_b = md.q_hb;
    }
    action in_req_fwd() {
        md.q_kind = Q_K_REQ;
        md.q_a = 0;
        md.q_b = Q_MARK;
    }
    /* LOCK has WAITING: the poll of this event's switch tenure, or a
     * forward (q_fwd) */
    action in_req_poll() {
        md.q_kind = Q_K_REQ;
        md.q_a = md.q_hb | Q_SW;
        md.q_b = Q_MARK;
    }
    /* the waiter: {id, hb(id) | Q_SW} (q_grant) */
    action in_req_wait() {
        md.q_kind = Q_K_WAIT;
        md.q_a = md.q_id;
        md.q_b = md.q_hb | Q_SW;
    }
    action in_check() {
        md.q_kind = Q_K_CHECK;
        md.q_a = md.q_id;
        md.q_b = md.q_cnt | md.q_hb;                       /* q_cmp */
    }
    /* a bad next, or READERS > 0 (never approved) */
    action in_check_bad_next() {
        md.q_kind = Q_K_CHECK;
        md.q_a = md.q_id;
        md.q_b = Q_NONE;
    }
    action in_xfer2() {
        md.q_kind = Q_K_PASS2;
        md.q_a = md.q_nid;
        md.q_b = md.q_nhb;
    }
    action in_release2() {
        md.q_kind = Q_K_PASS2;
        md.q_a = 0;
        md.q_b = 0;
    }
    /* QGATE stopped it (lu_exec 0): QSTATE kept, read for "closing" */
    action in_release2_keep() {
        md.q_kind = Q_K_PASS2;
        md.q_a = md.q_id;
        md.q_b = Q_MARK;
    }
    /* ABORT: is QSTATE this event's switch tenure? (q_check, no write) */
    action in_abort() {
        md.q_kind = Q_K_ABORT;
        md.q_a = md.q_id;
        md.q_b = Q_NONE;
    }
    action in_none() { md.q_kind = Q_K_NONE; }
    /* (mode, pass2, type, next_ok, rs_op, took, waiter, LOCK WAITING,
     *  READERS > 0, QGATE closed by this pass) */
    table q_in {
        key = {
            md.q_mode : exact;
            md.pass2 : exact;
            hdr.lcf.type : range;
            md.q_next_ok : ternary;
            md.rs_in.op : exact;
            md.took : ternary;
            md.q_waiter : ternary;
            md.lk_old[14:14] : ternary @name("waiting");
            md.q_rd : ternary;
            md.lu_exec : ternary;
        }
        actions = { in_req; in_req_fwd; in_req_poll; in_req_wait; in_check;
                    in_check_bad_next; in_xfer2; in_release2; in_release2_keep;
                    in_abort; in_none; }
        const default_action = in_none();
        const entries = {
            (1, 0, LCF_T_READ_MISS .. LCF_T_EVICT_MODIFIED, _, 0, 1, _, _, _, _) : in_req();
            (1, 0, LCF_T_READ_MISS .. LCF_T_EVICT_MODIFIED, _, 0, 0, 1, _, _, _) : in_req_wait();
            (1, 0, LCF_T_READ_MISS .. LCF_T_EVICT_MODIFIED, _, 0, 0, 0, 1, _, _) : in_req_poll();
            (1, 0, LCF_T_READ_MISS .. LCF_T_EVICT_MODIFIED, _, 0, 0, 0, 0, _, _) : in_req_fwd();
            (1, 0, LCF_T_QXFER .. LCF_T_QRELEASE, _, 0, _, _, _, 1, _) : in_check_bad_next();
            (1, 0, LCF_T_QXFER .. LCF_T_QXFER, 1, 0, _, _, _, _, _)       : in_check();
            (1, 0, LCF_T_QXFER .. LCF_T_QXFER, 0, 0, _, _, _, _, _)       : in_check_bad_next();
            (1, 0, LCF_T_QRELEASE .. LCF_T_QRELEASE, _, 0, _, _, _, _, _) : in_check();
            (1, 1, LCF_T_QXFER .. LCF_T_QXFER, 1, LCF_RS_QXFER2, _, _, _, _, _) : in_xfer2();
            (1, 1, LCF_T_QRELEASE .. LCF_T_QRELEASE, _, LCF_RS_QRELEASE, _, _, _, _, 1) : in_release2();
            (1, 1, LCF_T_QRELEASE .. LCF_T_QRELEASE, _, LCF_RS_QRELEASE, _, _, _, _, 0) : in_release2_keep();
            (1, 0, LCF_T_ABORT .. LCF_T_ABORT, _, 0, _, _, _, _, _) : in_abort();
        }
        size = 16;
    }

    apply {
        md.q_frv = 0;
        md.q_crv = 0;
        md.q_out = 0;
        md.q_undo = 0;
        if (md.drop == 0 && md.l2 == 0) {
            /* the identity hashes under conditions of their own: each a
             * table whose 32-bit immediate path carries nothing else */
            if (hdr.lcf.type == LCF_T_QXFER) {
                md.q_nid = next_ident.get({ hdr.lcf.copyset });
            }
            if (hdr.lcf.type == LCF_T_QXFER || hdr.lcf.type == LCF_T_QRELEASE) {
                md.q_cnt = count_ident.get({ hdr.lcf.aux[15:0], 16w0 });
            }
            /* q_self_tbl and q_next_tbl do not depend on the ways; q_in
             * follows the LOCK stage (md.took), all before QSTATE's */
            q_self_tbl.apply();
            q_next_tbl.apply();
            q_in.apply();
            /* QXFER and QRELEASE leave through LcfQueueOut, hit or miss,
             * in both modes */
            if (hdr.lcf.type == LCF_T_QXFER || hdr.lcf.type == LCF_T_QRELEASE) {
                md.q_out = 1;
            }
            /* and the waiter (QWAIT, or its WAITING undone) and the undo's
             * RELEASE pass (lock kind 2: nack_aborted_request) */
            if (md.q_waiter == 1) {
                md.q_out = 1;
            }
            if (md.pass2 == 1 && md.rs_in.op == LCF_RS_RELEASE && md.rs_in.lock_kind == 2) {
                md.q_out = 1;
                md.q_undo = 1;
            }
            /* stage W+6 */
            qw0.apply(hdr, md, md.slot0);
#if LCF_WAYS > 1
            qw1.apply(hdr, md, md.slot1);
#endif
#if LCF_WAYS > 2
            qw2.apply(hdr, md, md.slot2);
#endif
#if LCF_WAYS > 3
            qw3.apply(hdr, md, md.slot3);
#endif
#if LCF_WAYS > 4
            qw4.apply(hdr, md, md.slot4);
#endif
#if LCF_WAYS > 5
            qw5.apply(hdr, md, md.slot5);
#endif
#if LCF_WAYS > 6
            qw6.apply(hdr, md, md.slot6);
#endif
#if LCF_WAYS > 7
            qw7.apply(hdr, md, md.slot7);
#endif
#if LCF_WAYS > 8
            qw8.apply(hdr, md, md.slot8);
#endif
#if LCF_WAYS > 9
            qw9.apply(hdr, md, md.slot9);
#endif
        }
    }
}

#else /* LCF_QUEUE */
#define LCF_QUEUE_OUT (md.q_out == 1)

/* ---------------------------------------------------------------------------
 * Compiled without the queued mode (-DLCF_QUEUE=0): no QSTATE, no id
 * tables, retry mode only (topo_to_bfrt.py without --queue refuses a queued
 * topology). QXFER and QRELEASE still leave through LcfQueueOut, denied
 * not_holder as C denies them in retry mode.
 * ------------------------------------------------------------------------- */
control LcfQueue(inout lcf_headers_t hdr, inout lcf_ig_md_t md)
{
    apply {
        md.q_mode = 0;
        md.q_frv = 0;
        md.q_crv = 0;
        md.q_out = 0;
        if (md.drop == 0 && md.l2 == 0) {
            if (hdr.lcf.type == LCF_T_QXFER || hdr.lcf.type == LCF_T_QRELEASE) {
                md.q_out = 1;
            }
        }
    }
}
#endif /* LCF_QUEUE */

#include "lcf_queue_out.p4"

#endif /* _LCF_QUEUE_P4_ */
