/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Register stages of the LCF pipeline: LAST-UNLOCK, the TAG ways and, per
 * way, LOCK + G-STATUS + COPYSET (docs/PROTOCOL.md section 4).
 *
 * Layout on Tofino-1 (docs/TOFINO.md, "Stages"): TAG way w in MAU stage w+1,
 * the LOCK, G-STATUS and COPYSET arrays of way w together in stage w+2, so a
 * stage holds TAG[w] and LCS[w-1]: 1 + 3 = 4 stateful ALUs, Tofino-1's limit.
 * The three arrays of a way change in the same stage by the same packet, so no
 * other packet sees a half-done update (paper Figure 5; C struct lcf_meta).
 */
#ifndef _LCF_WAYS_P4_
#define _LCF_WAYS_P4_

/* TAG slot: bit<64> as two 32-bit halves (a Tofino-1 stateful ALU handles
 * at most a pair of 32-bit words). hi carries bit 63, the valid marker. */
struct tag_pair_t {
    bit<32> lo;
    bit<32> hi;
}

/* ---------------------------------------------------------------------------
 * LAST-UNLOCK, stage 1. C: lcf_stage_last_unlock_stale(), _open(), _close().
 *
 * LAST_UNLOCK[r] is C's pair {seq, open} (PROTOCOL.md 4.3), stored as
 * {seq, open_seq} with open_seq = seq while open and seq + 1 once closed
 * (power-on {0, 1}: seq 0, closed). "The same seq, still open" is then the
 * one comparison open_seq == hdr.lcf.seq, so no RegisterAction needs more
 * than the two comparison units of a Tofino-1 stateful ALU (C's test
 * seq == v.seq && open == 1 plus the seq_after of the opening branch would
 * be three). It is exact: a closed entry's open_seq = seq + 1 is after seq,
 * so it equals no seq that reaches the "not after" branch. Used by three
 * kinds of pass, one RegisterAction each:
 *   - a request's first pass only reads it: a seq that is not after it
 *     belongs to an event whose unlock has reached the switch, so this copy
 *     is late or duplicated and is NACKed (lu_stale_read -> lu_stale;
 *     dispatch row nack_stale_request);
 *   - an unlock's first pass, tag hit or miss (this stage precedes the TAG
 *     lookup, so it cannot tell them apart, and need not): a seq after it
 *     opens it ({seq, 1}); the same seq still open is a retransmission whose
 *     second pass has not run; both answer lu_exec = 1 ("not a duplicate").
 *     An unlock of a block the home owns thus records its seq on its way
 *     home (PROTOCOL.md 4.3, Interpretation (unlocks of home-owned blocks));
 *   - an unlock's second pass that may execute (the first pass's claim,
 *     rs.lock_kind) closes it if it is still {seq, 1}: lu_exec = 1 means it
 *     executes. Of two copies exactly one closes it, and a lost second pass
 *     leaves it open for the retransmission.
 * The three conditions are disjoint (sb_op and pass2), so every pass
 * executes at most one of the actions.
 *
 * The writes happen in stage 1, beside the validate table, so they cannot
 * wait for its verdict: they are guarded by the stage-0 checks C's
 * lcf_stage_parse() makes (node, port, thread, home), not by the field
 * checks (version, flags, gstatus, lengths) of the validate table, see
 * TOFINO.md ("Not expressible exactly"). lu_stale of a tag miss is computed
 * but unused: the dispatch row tests hit == 1 (a tag miss goes home, where
 * LAST-EXECUTED does the same check).
 *
 * Also here, as it needs the requester index r of stage 0: the data
 * provider's hash, C pick_provider(), see below.
 * ------------------------------------------------------------------------- */
struct lu_pair_t {
    bit<32> seq;
    bit<32> open_seq;   /* seq while open, seq + 1 once closed */
}

struct qg_pair_t {
    bit<32> seq;
    bit<32> eo;         /* epoch << 16 | open (QGATE, below) */
}

control LcfLastUnlock(inout lcf_headers_t hdr, inout lcf_ig_md_t md)
{
    Register<lu_pair_t, bit<16>>(LCF_MAX_REQUESTERS, {0, 1}) last_unlock;

    /* Unlock, pass 1: (int32)(seq - v.seq) > 0 opens; seq == v.seq while
     * open answers 1 too; else 0. Compares: seq after v.seq, v.open_seq ==
     * seq. Output: the constant 1. */
    RegisterAction<lu_pair_t, bit<16>, bit<1>>(last_unlock) lu_open = {
        void apply(inout lu_pair_t v, out bit<1> rv) {
            if ((int<32>)(hdr.lcf.seq - v.seq) > 0) {
                v.seq = hdr.lcf.seq;
                v.open_seq = hdr.lcf.seq;
                rv = 1;
            } else if (v.open_seq == hdr.lcf.seq) {
                rv = 1;
            } else {
                rv = 0;
            }
        }
    };
    /* Unlock, pass 2: closes {seq, open}. Compares: v.seq == seq,
     * v.open_seq == seq. Output: the constant 1. */
    RegisterAction<lu_pair_t, bit<16>, bit<1>>(last_unlock) lu_close = {
        void apply(inout lu_pair_t v, out bit<1> rv) {
            if (v.seq == hdr.lcf.seq && v.open_seq == hdr.lcf.seq) {
                v.open_seq = hdr.lcf.seq + 1;
                rv = 1;
            } else {
                rv = 0;
            }
        }
    };
    /* Request, pass 1, read only: 1 <=> !((int32)(seq - v.seq) > 0). */
    RegisterAction<lu_pair_t, bit<16>, bit<1>>(last_unlock) lu_stale_read = {
        void apply(inout lu_pair_t v, out bit<1> rv) {
            if ((int<32>)(hdr.lcf.seq - v.seq) > 0) {
                rv = 0;
            } else {
                rv = 1;
            }
        }
    };

#if LCF_QUEUE
    /* QGATE[r], queued mode (C lcf_q_gate_open()/_close(), struct
     * lcf_qgate; PROTOCOL.md "Queued locks"): QRELEASE's own gate, apart
     * from LAST-UNLOCK (a given-up tenure ends out of its thread's unlock
     * order): {seq, eo}, eo = epoch << 16 | open (power-on {0, 0}: closed).
     * Pass 1: unless open for this seq, open it for seq under the next
     * epoch (it wraps at 16 bits with the word). Compares: eo's open bit,
     * v.seq != seq. Instructions: 3 (eo twice, seq; seq is written
     * always: unchanged when nothing opens). Output: eo after (the
     * resubmit carries its epoch, LcfQueueOut q_resubmit). */
    Register<qg_pair_t, bit<16>>(LCF_MAX_REQUESTERS, {0, 0}) qgate;
    RegisterAction<qg_pair_t, bit<16>, bit<32>>(qgate) qg_open = {
        void apply(inout qg_pair_t v, out bit<32> rv) {
            if (v.eo[0:0] == 0) {
                v.eo = v.eo + 0x10001;
            } else if (v.seq != hdr.lcf.seq) {
                v.eo = v.eo + 0x10000;
            }
            v.seq = hdr.lcf.seq;
            rv = v.eo;
        }
    };
    /* Pass 2: closes it when open for seq under the epoch of this
     * packet's pass 1 (qg_tok = score << 16 | 1, stage 0): one execution
     * per opening. 1 <=> this pass executes. Compares: v.seq == seq,
     * v.eo == qg_tok. */
    RegisterAction<qg_pair_t, bit<16>, bit<1>>(qgate) qg_close = {
        void apply(inout qg_pair_t v, out bit<1> rv) {
            rv = 0;
            if (v.seq == hdr.lcf.seq && v.eo == md.qg_tok) {
                v.eo = v.eo - 1;
                rv = 1;
            }
        }
    };
#endif

    /*
     * Data provider per event, C pick_provider(): crc32c(seed, r << 32 | seq)
     * over the 8 bytes little-endian, as lcf_crc32c_u64(). The seed is a
     * run-time value (swswitch --seed) but a CRCPolynomial's init is a
     * compile-time one; a CRC without final xor is linear, so
     * crc32c(seed, D) = crc32c(0, D) ^ crc32c(seed, 8 zero bytes), and the
     * control plane loads the second term (prov_k, topo_to_bfrt.py --seed).
     * Only 5 bits are used (pick_provider's permutation), so the hash
     * has 5 (its result reaches the action through the table's 32-bit
     * immediate path) and goes into prov_sel in the same action. A retransmission that passes on the scoreboard thus names the
     * same provider as the first pass, as in C; the mapping from the hash
     * to a copyset node differs (LcfPick).
     */
    CRCPolynomial<bit<32>>(32w0x1EDC6F41, true, false, false, 32w0, 32w0) crc32c;
    Hash<bit<5>>(HashAlgorithm_t.CUSTOM, crc32c) prov_hash;

    apply {
        /* lu_exec and lu_stale start at 0 (@pa_auto_init_metadata, and a
         * resubmitted pass is parsed again): an unconditional "= 0" here
         * would be a write the register tables below must follow, one
         * stage more. */
        /* sb_op: SB_OP_CLAIM only for an unlock's first pass, SB_OP_ACQ
         * only for a request's, SB_OP_CLEAR only for a resubmitted unlock. */
        if (md.pass2 == 0 && md.sb_op == SB_OP_CLAIM && md.node_known == 1 &&
            md.port_ok == 1 && md.req_ok == 1 && md.home_ok == 1) {
            md.lu_exec = lu_open.execute(md.req);
        } else if (md.pass2 == 0 && md.sb_op == SB_OP_ACQ) {
            md.lu_stale = lu_stale_read.execute(md.req);
#if LCF_QUEUE
        } else if (md.pass2 == 0 && md.sb_op == SB_OP_QOPEN && md.q_mode == 1 &&
                   md.node_known == 1 && md.port_ok == 1 && md.req_ok == 1 &&
                   md.home_ok == 1) {
            md.qg_eo = qg_open.execute(md.req);     /* QRELEASE: its gate */
        } else if (md.pass2 == 1 && md.rs_ok == 1 && md.sb_op == SB_OP_QDONE &&
                   md.rs_in.op == LCF_RS_QRELEASE && md.q_mode == 1) {
            md.lu_exec = qg_close.execute(md.req);  /* QRELEASE executes? */
#endif
        } else if (md.pass2 == 1 && md.rs_ok == 1 && md.sb_op == SB_OP_CLEAR &&
                   md.rs_in.lock_kind == 1) {
            md.lu_exec = lu_close.execute(md.req);  /* it may: does it? */
        }
        /* first passes only (a provider is chosen for a request's
         * forward): under its own condition this is a table of its own, not
         * one with the TAG ways' slot hashes, whose results would share its
         * 32-bit immediate path */
        if (md.pass2 == 0) {
#ifdef LCF_TESTGEN_PROV
            /* p4testgen crashes on a CUSTOM hash: the same CRC as XORs */
            md.prov_sel = LCF_TESTGEN_PROV ^ md.prov_k;
#else
            md.prov_sel = prov_hash.get({
                hdr.lcf.seq[7:0], hdr.lcf.seq[15:8], hdr.lcf.seq[23:16],
                hdr.lcf.seq[31:24], md.req[7:0], md.req[15:8], 16w0 }) ^ md.prov_k;
#endif
        }
    }
}

/* ---------------------------------------------------------------------------
 * TAG way. C: lcf_stage_tag_lookup() (one way of its loop) and
 * lcf_stage_tag_insert(); the clear of pass_resubmitted()'s REMOVE case.
 *
 * Every RegisterAction answers `rv` = the slot's hi word when the slot holds
 * (or now holds) this tag's lo word, else 0. Since hi always has bit 31 set
 * for a valid entry, "this way has the tag" is rv == key_hi for all three,
 * tested by the next stage (LOCK stage, next way) with an equality gateway.
 *
 * Slot index: C uses crc32c(init = way seed, the tag's 8 bytes little-endian)
 * reduced by multiply-shift (crc * S) >> 32. Tofino has no multiplier, so S is
 * a power of two (2^LCF_SLOT_BITS) and the reduction is the top
 * LCF_SLOT_BITS bits of the same CRC, which IS (crc * S) >> 32 for such S.
 * ------------------------------------------------------------------------- */
control LcfTagWay(inout lcf_headers_t hdr,
                  inout lcf_ig_md_t md,
                  in bit<32> prev_rv,
                  inout bit<32> rv,     /* md.rv<w>: 0 until written */
                  out slot_t slot)
                 (bit<8> way_id, bit<32> seed)
{
    /* CRC-32C (Castagnoli 0x1EDC6F41), reflected as the SSE4.2 crc32
     * instruction that C uses, init = way seed, no final xor. */
    CRCPolynomial<bit<32>>(32w0x1EDC6F41, true, false, false, seed, 32w0) crc32c;
    Hash<bit<32>>(HashAlgorithm_t.CUSTOM, crc32c) slot_hash;

    Register<tag_pair_t, slot_t>(LCF_SLOTS, {0, 0}) tag;

    /* Read-only lookup (first pass, and RELEASE/UNLOCK second passes). */
    RegisterAction<tag_pair_t, slot_t, bit<32>>(tag) tag_lookup = {
        void apply(inout tag_pair_t v, out bit<32> r) {
            r = 0;
            if (v.lo == md.key_lo) {
                r = v.hi;
            }
        }
    };

    /* Always 0 (never written by the control plane): OR-ed into hi by
     * tag_insert's second branch so that both branches answer the hi ALU's
     * result, not memory in one and the ALU in the other (a paired
     * register's RegisterAction has one output operand). */
    RegisterParam<bit<32>>(0) hi_same;

    /* ADD, second pass: take the slot when empty (hi == 0); a slot that
     * already holds the tag is also "placed here" (C: raced with a
     * duplicate). Compares: hi == 0, lo == key_lo. Output: hi after the
     * ALU (key_hi, or hi unchanged). */
    RegisterAction<tag_pair_t, slot_t, bit<32>>(tag) tag_insert = {
        void apply(inout tag_pair_t v, out bit<32> r) {
            r = 0;
            if (v.hi == 0) {
                v.hi = md.key_hi;
                v.lo = md.key_lo;
                r = v.hi;
            } else if (v.lo == md.key_lo) {
                v.hi = v.hi | hi_same.read();
                r = v.hi;
            }
        }
    };

    /* REMOVE, second pass, in the way of the metadata: clear when equal. */
    RegisterAction<tag_pair_t, slot_t, bit<32>>(tag) tag_remove = {
        void apply(inout tag_pair_t v, out bit<32> r) {
            r = 0;
            if (v.hi == md.key_hi && v.lo == md.key_lo) {
                r = v.hi;
                v.hi = 0;
                v.lo = 0;
            }
        }
    };

    apply {
        /* only the slot's bits of the hash go to the PHV: a table's hash
         * results share its 32-bit immediate path (the compiler puts this
         * stage's hashes in one table) */
#if LCF_SLOT_BITS == 0
        slot = 0;
#elif defined(LCF_TESTGEN_SLOT)
        slot = LCF_TESTGEN_SLOT;    /* p4testgen: as prov_sel above */
#else
        slot = slot_hash.get({
            hdr.lcf.tag[7:0],   hdr.lcf.tag[15:8],  hdr.lcf.tag[23:16],
            hdr.lcf.tag[31:24], hdr.lcf.tag[39:32], hdr.lcf.tag[47:40],
            hdr.lcf.tag[55:48], hdr.lcf.tag[63:56] })[31:(32 - LCF_SLOT_BITS)];
#endif
        /* rv is md.rv<w>, 0 from the parser (@pa_auto_init_metadata): no
         * "rv = 0" first, which the register tables would have to follow
         * (a stage) */
        if (md.tag_op == TAG_OP_INSERT) {
            if (md.pass2 == 1 && md.rs_ok == 1 && md.ins_done == 0) {
                /* C lcf_stage_tag_insert(): first way in stage order. */
                if (prev_rv == md.key_hi) {
                    md.ins_done = 1;        /* the previous way took it */
                } else {
                    rv = tag_insert.execute(slot);
                }
            }
        } else if (md.tag_op == TAG_OP_REMOVE && md.rs_in.way == way_id) {
            if (md.pass2 == 1 && md.rs_ok == 1) {
                rv = tag_remove.execute(slot);
            }
        } else {
            rv = tag_lookup.execute(slot);
        }
    }
}

/* ---------------------------------------------------------------------------
 * LOCK + G-STATUS + COPYSET of one way, one stage. C: lcf_stage_lock(),
 * lcf_stage_lock_release(), lcf_stage_lock_unlock(), lcf_stage_lock_clear()
 * and the meta write of an inserted ADD.
 *
 * Three arrays, three stateful ALUs, each with at most 4 RegisterActions
 * (the Tofino-1 limit) of at most 2 conditions. LOCK is 16 bits: bit 15
 * writer (LCF_LOCK_WRITER), bit 14 a writer waits for the readers
 * (LCF_LOCK_WAITING, queued mode only), bits 0-13 readers
 * (LCF_LOCK_READERS).
 * ------------------------------------------------------------------------- */
control LcfLcsWay(inout lcf_headers_t hdr,
                  inout lcf_ig_md_t md,
                  in bit<32> tag_rv,
                  in slot_t slot)
                 (bit<8> way_id)
{
    Register<bit<16>, slot_t>(LCF_SLOTS, 0) lock;
    Register<bit<8>,  slot_t>(LCF_SLOTS, 0) gstatus;
    Register<bit<32>, slot_t>(LCF_SLOTS, 0) copyset;

    /* Acquire: read lock lk_a = 0x3fff, lk_b = 1 (writer and waiting clear
     * and readers < 0x3fff <=> LOCK < 0x3fff); write lock lk_a = 1, lk_b = 0x8000
     * (LOCK == 0 <=> LOCK < 1). Returns the old LOCK: the scoreboard stage
     * tells "taken" from it with a range match. */
    RegisterAction<bit<16>, slot_t, bit<16>>(lock) lock_acquire = {
        void apply(inout bit<16> v, out bit<16> r) {
            r = v;
            if (v < md.lk_a) {
                v = v + md.lk_b;
            }
        }
    };
    /* Release / unlock: subtract lk_a when LOCK >= lk_a. Read kind (lk_b = 0):
     * lk_a = 1 (release) or the score (unlock), never below 0. Write kind
     * (lk_b = 1): lk_a = 0x8000 clears the writer bit, else unchanged. */
    RegisterAction<bit<16>, slot_t, bit<16>>(lock) lock_release = {
        void apply(inout bit<16> v, out bit<16> r) {
            r = v;
            if (v >= md.lk_a) {
                v = v - md.lk_a;
            } else if (md.lk_b == 0) {
                v = 0;
            }
        }
    };
    RegisterAction<bit<16>, slot_t, bit<16>>(lock) lock_read = {
        void apply(inout bit<16> v, out bit<16> r) { r = v; }
    };
#if LCF_QUEUE
    /* Queued mode, a write request (C lcf_stage_lock(write, wait)): taken
     * when LOCK < lk_a (= 1: free) -> + lk_b (= WRITER); else, readers
     * only (WRITER and WAITING clear, READERS > 0 <=> LOCK < WAITING),
     * WAITING set: the pass is the block's waiter (LcfCheck: q_waiter).
     * Returns the old LOCK. Compares: v < lk_a, v < WAITING. Takes
     * lock_zero's place (four RegisterActions per register): REMOVE's
     * clear is lock_release with lk_a = 0xffff, lk_b = 0 (q_lock_op). */
    RegisterAction<bit<16>, slot_t, bit<16>>(lock) lock_qacquire = {
        void apply(inout bit<16> v, out bit<16> r) {
            r = v;
            if (v < md.lk_a) {
                v = v + md.lk_b;
            } else if (v < LCF_LOCK_WAITING) {
                v = v | LCF_LOCK_WAITING;
            }
        }
    };
#else
    RegisterAction<bit<16>, slot_t, bit<16>>(lock) lock_zero = {
        void apply(inout bit<16> v, out bit<16> r) { r = v; v = 0; }
    };
#endif

    RegisterAction<bit<8>, slot_t, bit<8>>(gstatus) gs_read = {
        void apply(inout bit<8> v, out bit<8> r) { r = v; }
    };
    RegisterAction<bit<8>, slot_t, bit<8>>(gstatus) gs_write = {
        void apply(inout bit<8> v, out bit<8> r) { v = hdr.lcf.gstatus; r = v; }
    };
    RegisterAction<bit<8>, slot_t, bit<8>>(gstatus) gs_clear = {
        void apply(inout bit<8> v, out bit<8> r) { r = v; v = 0; }
    };

    /* pkt_cs is the packet's copyset masked with the topology's nodes
     * (PROTOCOL.md 4.3, Interpretation). */
    RegisterAction<bit<32>, slot_t, bit<32>>(copyset) cs_read = {
        void apply(inout bit<32> v, out bit<32> r) { r = v; }
    };
    RegisterAction<bit<32>, slot_t, bit<32>>(copyset) cs_or = {
        void apply(inout bit<32> v, out bit<32> r) { v = v | md.pkt_cs; r = v; }
    };
    RegisterAction<bit<32>, slot_t, bit<32>>(copyset) cs_write = {
        void apply(inout bit<32> v, out bit<32> r) { v = md.pkt_cs; r = v; }
    };
    RegisterAction<bit<32>, slot_t, bit<32>>(copyset) cs_clear = {
        void apply(inout bit<32> v, out bit<32> r) { r = v; v = 0; }
    };

    /* One table per register: a table's actions address one stateful ALU
     * (its meter address bus), so LOCK, G-STATUS and COPYSET are three
     * tables of one stage with the same key and entries. The LOCK table's
     * actions also record the hit way (C phv->hit_way). */
    action here() {
        md.hit = 1;
        md.way = way_id;
        md.aux_way = (bit<32>)way_id << 16;
    }
    /* C lcf_stage_lock() */
    action a_acquire() {
        here();
        md.lk_old = lock_acquire.execute(slot);
    }
    action a_read() {
        here();
        md.lk_old = lock_read.execute(slot);
    }
    /* C lcf_stage_lock_release(), and lcf_stage_lock_unlock() of an
     * executed READ_UNLOCK or WRITE_UNLOCK */
    action a_release() {
        here();
        md.lk_old = lock_release.execute(slot);
    }
    /* C pass_resubmitted(), ADD: meta = { packet copyset, gstatus, LOCK 0 }.
     * LOCK is already 0 in an empty slot (REMOVE and power-on clear it). */
    action a_install() {
        here();
        md.placed = 1;
    }
    /* C lcf_stage_lock_clear() */
    action a_clear() {
        here();
#if LCF_QUEUE
        md.lk_old = lock_release.execute(slot);     /* lk_a 0xffff, lk_b 0 */
#else
        md.lk_old = lock_zero.execute(slot);
#endif
    }
#if LCF_QUEUE
    /* C lcf_stage_lock(write, wait), queued mode */
    action a_qacquire() {
        here();
        md.lk_old = lock_qacquire.execute(slot);
    }
#endif
    action a_none() { here(); }

    action g_read()  { md.blk_gs = gs_read.execute(slot); }
    action g_write() { md.blk_gs = gs_write.execute(slot); }
    action g_clear() { md.blk_gs = gs_clear.execute(slot); }
    action g_none()  { }

    action c_read()  { md.blk_cs = cs_read.execute(slot); }
    action c_or()    { md.blk_cs = cs_or.execute(slot); }
    action c_write() { md.blk_cs = cs_write.execute(slot); }
    action c_clear() { md.blk_cs = cs_clear.execute(slot); }
    action c_none()  { }

    /* (lcs_op, lu_exec, lu_stale) of the three tables:
     *   ACQUIRE           acquire   read   read
     *   QACQUIRE          qacquire  read   read  (queued build: a write)
     *   ACQUIRE, stale    read      -      -     (C pass_request(): a stale
     *                     request leaves LOCK alone, read for row 4's
     *                     poll; its NACK carries the packet's
     *                     gstatus/copyset, d_nack_stale)
     *   READ              read      read   read
     *   RELEASE           release   read   read
     *   UNLOCK_R executed release   write  or
     *   UNLOCK_W executed release   write  write
     *   UNLOCK_x duplicate read     read   read
     *   INSTALL           -         write  write
     *   CLEAR             zero      clear  clear */
    table lcs {
        key = {
            md.lcs_op : exact;
            md.lu_exec : exact;
            md.lu_stale : exact;
        }
        actions = { a_acquire; a_read; a_release; a_install; a_clear; a_none;
#if LCF_QUEUE
                    a_qacquire;
#endif
        }
        const default_action = a_none();
        const entries = {
            (LCS_OP_ACQUIRE, 0, 0)  : a_acquire();
            (LCS_OP_ACQUIRE, 0, 1)  : a_read();
#if LCF_QUEUE
            (LCS_OP_QACQUIRE, 0, 0) : a_qacquire();
            (LCS_OP_QACQUIRE, 0, 1) : a_read();
#endif
            (LCS_OP_READ, 0, 0)     : a_read();
            (LCS_OP_RELEASE, 0, 0)  : a_release();
            (LCS_OP_UNLOCK_R, 1, 0) : a_release();
            (LCS_OP_UNLOCK_R, 0, 0) : a_read();        /* duplicate unlock */
            (LCS_OP_UNLOCK_W, 1, 0) : a_release();
            (LCS_OP_UNLOCK_W, 0, 0) : a_read();        /* duplicate unlock */
            (LCS_OP_INSTALL, 0, 0)  : a_install();
            (LCS_OP_CLEAR, 0, 0)    : a_clear();
        }
        size = 16;
    }
    table lcs_gs {
        key = {
            md.lcs_op : exact;
            md.lu_exec : exact;
            md.lu_stale : exact;
        }
        actions = { g_read; g_write; g_clear; g_none; }
        const default_action = g_none();
        const entries = {
            (LCS_OP_ACQUIRE, 0, 0)  : g_read();
#if LCF_QUEUE
            (LCS_OP_QACQUIRE, 0, 0) : g_read();
            /* a stale request: read for row 4's poll (QWAIT/QGRANT) */
            (LCS_OP_ACQUIRE, 0, 1)  : g_read();
            (LCS_OP_QACQUIRE, 0, 1) : g_read();
#endif
            (LCS_OP_READ, 0, 0)     : g_read();
            (LCS_OP_RELEASE, 0, 0)  : g_read();
            (LCS_OP_UNLOCK_R, 1, 0) : g_write();
            (LCS_OP_UNLOCK_R, 0, 0) : g_read();
            (LCS_OP_UNLOCK_W, 1, 0) : g_write();
            (LCS_OP_UNLOCK_W, 0, 0) : g_read();
            (LCS_OP_INSTALL, 0, 0)  : g_write();
            (LCS_OP_CLEAR, 0, 0)    : g_clear();
        }
        size = 16;
    }
    table lcs_cs {
        key = {
            md.lcs_op : exact;
            md.lu_exec : exact;
            md.lu_stale : exact;
        }
        actions = { c_read; c_or; c_write; c_clear; c_none; }
        const default_action = c_none();
        const entries = {
            (LCS_OP_ACQUIRE, 0, 0)  : c_read();
#if LCF_QUEUE
            (LCS_OP_QACQUIRE, 0, 0) : c_read();
            /* a stale request: read for row 4's poll (QWAIT/QGRANT) */
            (LCS_OP_ACQUIRE, 0, 1)  : c_read();
            (LCS_OP_QACQUIRE, 0, 1) : c_read();
#endif
            (LCS_OP_READ, 0, 0)     : c_read();
            (LCS_OP_RELEASE, 0, 0)  : c_read();
            (LCS_OP_UNLOCK_R, 1, 0) : c_or();
            (LCS_OP_UNLOCK_R, 0, 0) : c_read();
            (LCS_OP_UNLOCK_W, 1, 0) : c_write();
            (LCS_OP_UNLOCK_W, 0, 0) : c_read();
            (LCS_OP_INSTALL, 0, 0)  : c_write();
            (LCS_OP_CLEAR, 0, 0)    : c_clear();
        }
        size = 16;
    }

    apply {
        /* The first way that has the tag (C: hit_way = first hit). */
        if (md.drop == 0 && md.l2 == 0 && md.hit == 0 && tag_rv == md.key_hi) {
            if (md.pass2 == 1 && md.tag_op != TAG_OP_INSERT &&
                md.rs_in.way != way_id) {
                /* C: hit_way != way -> bad_resubmit_metadata */
                md.hit = 1;
                md.bad_way = 1;
            } else {
                lcs.apply();
                lcs_gs.apply();
                lcs_cs.apply();
            }
        }
    }
}

#endif /* _LCF_WAYS_P4_ */
