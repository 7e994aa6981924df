/* SPDX-License-Identifier: BSD-3-Clause
 *
 * VERSION, one 32-bit register per slot of every way (docs/PROTOCOL.md
 * 4.10, docs/VALIDATE.md "Switch-owned blocks"). C: lib/lcf/lcf_version.c.
 *
 * Way w's VERSION lives in the stage of way w's LOCK+G-STATUS+COPYSET
 * (LcfLcsWay): it is applied just before it, on the same condition (the
 * first way whose TAG answered the packet's key), so it needs no stage of
 * its own and depends on nothing that stage computes. One RegisterAction
 * per pass:
 *
 *   ver_set   ADD, second pass, installed (LCS_OP_INSTALL):
 *             VERSION = (seq & 0xffff) << 16 (the migration epoch)
 *   ver_bump  WRITE_MISS / WRITE_SHARED, first pass, not stale
 *             (LCS_OP_ACQUIRE): VERSION + 1, granted or not (the verdict
 *             comes stages later; every write grant is among them), unless
 *             the count (bits 15-0) is LCF_VER_COUNT_MAX: it saturates,
 *             never carrying into the epoch (lib/model/vohepoch.pml SAT)
 *   ver_read  VERSION_READ (LCS_OP_READ): read; md.ver_rv for the reply
 *
 * An empty slot's VERSION is never read (VERSION_READ needs a TAG hit) and
 * ADD overwrites it, so REMOVE leaves it; topo_to_bfrt.py --reset clears it
 * with the other registers.
 */
#ifndef _LCF_VERSION_P4_
#define _LCF_VERSION_P4_

const bit<32> LCF_VER_AUX_BUSY    = 0x10000;   /* aux bit: LOCK writer set */
const bit<8>  LCF_VER_EPOCH_SHIFT = 16;
const bit<32> LCF_VER_COUNT_MAX   = 0xffff;    /* the count's top */

control LcfVerWay(inout lcf_headers_t hdr,
                  inout lcf_ig_md_t md,
                  in bit<32> tag_rv,
                  in slot_t slot)
                 (bit<8> way_id)
{
    /* not "version": bfas resolves a stateful ALU's action-bus output by
     * its last name component, and an exact-match table's entry format
     * has a 4-bit field "version" */
    Register<bit<32>, slot_t>(LCF_SLOTS, 0) blk_version;

    RegisterAction<bit<32>, slot_t, bit<32>>(blk_version) ver_set = {
        void apply(inout bit<32> v, out bit<32> r) {
            v = md.ver_epoch;           /* seq[15:0] ++ 16w0, stage 0 */
            r = v;
        }
    };
    /* Compares: 1 (a masked memory operand, as q_grant's). Instructions:
     * 2 (v + 1 under the compare; output). */
    RegisterAction<bit<32>, slot_t, bit<32>>(blk_version) ver_bump = {
        void apply(inout bit<32> v, out bit<32> r) {
            if ((v & LCF_VER_COUNT_MAX) != LCF_VER_COUNT_MAX) {
                v = v + 1;
            }
            r = v;
        }
    };
    RegisterAction<bit<32>, slot_t, bit<32>>(blk_version) ver_read = {
        void apply(inout bit<32> v, out bit<32> r) { r = v; }
    };

    action v_set()  { md.ver_rv = ver_set.execute(slot); }
    action v_bump() { md.ver_rv = ver_bump.execute(slot); }
    action v_read() { md.ver_rv = ver_read.execute(slot); }
    action v_none() { }

    table ver {
        key = {
            md.lcs_op : exact;
            hdr.lcf.type : exact;
            md.lu_stale : exact;
            md.pass2 : exact;
        }
        actions = { v_set; v_bump; v_read; v_none; }
        const default_action = v_none();
        const entries = {
            (LCS_OP_INSTALL, LCF_T_ADD_TO_SWITCH, 0, 1) : v_set();
            (LCS_OP_ACQUIRE, LCF_T_WRITE_MISS, 0, 0)    : v_bump();
            (LCS_OP_ACQUIRE, LCF_T_WRITE_SHARED, 0, 0)  : v_bump();
#if LCF_QUEUE
            /* queued mode: a write's lock stage is lock_qacquire */
            (LCS_OP_QACQUIRE, LCF_T_WRITE_MISS, 0, 0)   : v_bump();
            (LCS_OP_QACQUIRE, LCF_T_WRITE_SHARED, 0, 0) : v_bump();
#endif
            (LCS_OP_READ, LCF_T_VERSION_READ, 0, 0)     : v_read();
        }
        size = 8;
    }

    apply {
        /* LcfLcsWay's condition, read before it sets md.hit */
        if (md.drop == 0 && md.l2 == 0 && md.hit == 0 && tag_rv == md.key_hi) {
            ver.apply();
        }
    }
}

/* The instances, one per way (lcf.p4 declares LCF_VER_DECLS in LcfIngress
 * and LCF_LCS(w) applies ver##w before lcs##w). */
#define LCF_VER_0 LcfVerWay(0) ver0;
#if LCF_WAYS > 1
#define LCF_VER_1 LcfVerWay(1) ver1;
#else
#define LCF_VER_1
#endif
#if LCF_WAYS > 2
#define LCF_VER_2 LcfVerWay(2) ver2;
#else
#define LCF_VER_2
#endif
#if LCF_WAYS > 3
#define LCF_VER_3 LcfVerWay(3) ver3;
#else
#define LCF_VER_3
#endif
#if LCF_WAYS > 4
#define LCF_VER_4 LcfVerWay(4) ver4;
#else
#define LCF_VER_4
#endif
#if LCF_WAYS > 5
#define LCF_VER_5 LcfVerWay(5) ver5;
#else
#define LCF_VER_5
#endif
#if LCF_WAYS > 6
#define LCF_VER_6 LcfVerWay(6) ver6;
#else
#define LCF_VER_6
#endif
#if LCF_WAYS > 7
#define LCF_VER_7 LcfVerWay(7) ver7;
#else
#define LCF_VER_7
#endif
#if LCF_WAYS > 8
#define LCF_VER_8 LcfVerWay(8) ver8;
#else
#define LCF_VER_8
#endif
#if LCF_WAYS > 9
#define LCF_VER_9 LcfVerWay(9) ver9;
#else
#define LCF_VER_9
#endif
#define LCF_VER_DECLS \
    LCF_VER_0 LCF_VER_1 LCF_VER_2 LCF_VER_3 LCF_VER_4 LCF_VER_5 LCF_VER_6 \
    LCF_VER_7 LCF_VER_8 LCF_VER_9

#endif /* _LCF_VERSION_P4_ */
