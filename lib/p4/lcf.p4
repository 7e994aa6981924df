/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The lock-check-forward (LCF) pipeline for Tofino (TNA, T2NA): the same pipeline
 * and wire format as swswitch's C library (lib/lcf/lcf_pipeline.c,
 * lib/wire/lcf_wire.h). Normative behaviour: docs/PROTOCOL.md. Tofino notes,
 * stage budget and what differs: docs/TOFINO.md.
 *
 *   p4c --target tofino --arch tna -I lib/p4 lib/p4/lcf.p4
 *   p4c --target tofino2 --arch t2na -I lib/p4 lib/p4/lcf.p4
 * (lib/p4/compile.sh runs both; the compiler driver defines
 * __TARGET_TOFINO__ as 1 or 2 and the program picks tna.p4 or t2na.p4).
 *
 * Compile-time sizes (-D on the compiler command line):
 *   LCF_WAYS           TAG ways, 1..7 on Tofino-1, 1..10 on Tofino-2;
 *                      the default is the most that compiles: 2 on
 *                      Tofino-1 (12 stages), 8 on Tofino-2 (20 stages)
 *   LCF_SLOT_BITS      log2(slots per way), 0..16 (default 15: 32768 slots)
 *   LCF_MAX_REQUESTERS 32 * threads_per_node (default 512: 16 threads)
 *   LCF_QUEUE          0 (default): retry mode only, no QSTATE (QXFER and
 *                      QRELEASE are denied not_holder, as C does in retry
 *                      mode); 1: the queued lock mode (lcf_queue.p4), the
 *                      topology's lock_mode chooses at run time (does not
 *                      compile yet: PHV allocation, docs/TOFINO.md)
 *
 * Ingress stages as the compiler places them (Tofino-1, 2 ways; the
 * resource report docs/TOFINO-RESOURCES.md has every configuration; C stage
 * function in brackets):
 *   0       LcfPrepare: topology tables, op select, field arithmetic
 *           [lcf_frame_classify, lcf_stage_parse]
 *   1       LcfValidate (drop rules) [lcf_msg_validate], LAST-UNLOCK
 *           [lcf_stage_last_unlock*], provider hash, slot hashes
 *   w+2     TAG way w [lcf_stage_tag_lookup / _insert], LOCK, COPYSET,
 *           VERSION of way w-1 [lcf_stage_lock*], G-STATUS of way w-2 (4
 *           stateful ALUs a stage, 5 a way)
 *   W+3     took, provider/owner pick [pick_provider, ctz]
 *   W+4     check table [lcf_table_check], forward table [lcf_table_forward]
 *   W+5, +6 SCOREBOARD SEQ, then C [lcf_stage_sb_*]
 *   W+7     the SCOREBOARD decode, L2, the queue outcome (QXFER/QRELEASE)
 *   W+8     dispatch [res_* helpers of pass_first / pass_resubmitted]
 *   W+9     counters of the dispatch's outcome
 */
#include <core.p4>
#if __TARGET_TOFINO__ == 2
#include <t2na.p4>
#define LCF_MAX_WAYS 10
#else
#include <tna.p4>
#define LCF_MAX_WAYS 7
#endif

/* The default is the largest number of ways that compiles for the target
 * (docs/TOFINO.md, Stages; docs/TOFINO-RESOURCES.md). */
#ifndef LCF_WAYS
#if __TARGET_TOFINO__ == 2
#define LCF_WAYS 8
#else
#define LCF_WAYS 2
#endif
#endif
#ifndef LCF_SLOT_BITS
#define LCF_SLOT_BITS 15
#endif
#ifndef LCF_MAX_REQUESTERS
#define LCF_MAX_REQUESTERS 512
#endif
#ifndef LCF_QUEUE
#define LCF_QUEUE 0
#endif

#if LCF_WAYS < 1 || LCF_WAYS > LCF_MAX_WAYS
#error "LCF_WAYS must be 1..7 on Tofino-1, 1..10 on Tofino-2 (docs/TOFINO.md, Stages)"
#endif
#if LCF_SLOT_BITS > 16
#error "LCF_SLOT_BITS must be 0..16"
#endif

#define LCF_SLOTS (32w1 << LCF_SLOT_BITS)

#include "lcf_headers.p4"
#include "lcf_parser.p4"
#include "lcf_validate.p4"
#include "lcf_ways.p4"
#include "lcf_version.p4"
#include "lcf_decide.p4"
#include "lcf_queue.p4"
#include "lcf_dispatch.p4"
#include "lcf_egress.p4"

/* One way = its TAG stage and its LOCK+G-STATUS+COPYSET stage. */
#define LCF_WAY(w, prev_rv) \
    tag##w.apply(hdr, md, prev_rv, md.rv##w, md.slot##w)
#define LCF_LCS(w) \
    ver##w.apply(hdr, md, md.rv##w, md.slot##w); \
    lcs##w.apply(hdr, md, md.rv##w, md.slot##w)

/* Every metadata field starts at 0 (the stages rely on hit, placed,
 * ins_done, bad_way, rv_init, ... being 0 when nothing wrote them).
 * bf-p4c collects this pragma from any annotation in the program: it sits
 * on the ingress control, which the compiler never removes (on a constant
 * it could vanish with the constant). */
@pa_auto_init_metadata
control LcfIngress(inout lcf_headers_t hdr,
                   inout lcf_ig_md_t md,
                   in ingress_intrinsic_metadata_t ig_intr_md,
                   in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                   inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                   inout ingress_intrinsic_metadata_for_tm_t ig_tm_md)
{
    LcfPrepare() prepare;
    LcfValidate() validate;
    LcfLastUnlock() last_unlock;
    LcfTagWay(0, LCF_WAY_SEED_0) tag0;
    LcfLcsWay(0) lcs0;
#if LCF_WAYS > 1
    LcfTagWay(1, LCF_WAY_SEED_1) tag1;
    LcfLcsWay(1) lcs1;
#endif
#if LCF_WAYS > 2
    LcfTagWay(2, LCF_WAY_SEED_2) tag2;
    LcfLcsWay(2) lcs2;
#endif
#if LCF_WAYS > 3
    LcfTagWay(3, LCF_WAY_SEED_3) tag3;
    LcfLcsWay(3) lcs3;
#endif
#if LCF_WAYS > 4
    LcfTagWay(4, LCF_WAY_SEED_4) tag4;
    LcfLcsWay(4) lcs4;
#endif
#if LCF_WAYS > 5
    LcfTagWay(5, LCF_WAY_SEED_5) tag5;
    LcfLcsWay(5) lcs5;
#endif
#if LCF_WAYS > 6
    LcfTagWay(6, LCF_WAY_SEED_6) tag6;
    LcfLcsWay(6) lcs6;
#endif
#if LCF_WAYS > 7
    LcfTagWay(7, LCF_WAY_SEED_7) tag7;
    LcfLcsWay(7) lcs7;
#endif
#if LCF_WAYS > 8
    LcfTagWay(8, LCF_WAY_SEED_8) tag8;
    LcfLcsWay(8) lcs8;
#endif
#if LCF_WAYS > 9
    LcfTagWay(9, LCF_WAY_SEED_9) tag9;
    LcfLcsWay(9) lcs9;
#endif
    LCF_VER_DECLS
    LcfPick() pick;
    LcfCheck() check;
    LcfScoreboard() scoreboard;
    LcfForward() forward;
    LcfQueue() queue;
    LcfDispatch() dispatch;
    LcfQueueOut() queue_out;
    LcfL2() l2;
    LcfDropCount() drop_count;

    apply {
        /* stage 0 */
        prepare.apply(hdr, md, ig_intr_md);
        /* stage 1: the verdict. The TAG lookups and LAST-UNLOCK below do
         * not wait for it: the lookups and a request's LAST-UNLOCK read are
         * read-only (a dropped packet's answer is never used); the TAG
         * writes (ADD and REMOVE second passes) belong to resubmitted
         * packets, whose first pass was validated, and check rs_ok (stage
         * 0); an unlock's LAST-UNLOCK write checks the stage-0 verdicts
         * (lcf_ways.p4, LcfLastUnlock). */
        validate.apply(hdr, md, ig_prsr_md, ig_dprsr_md);

        if (md.to_lcf == 1 && hdr.lcf.isValid()) {
            last_unlock.apply(hdr, md);
            /* Program order interleaves TAG w+1 and LCS w: they share a
             * stage and do not depend on each other. */
            LCF_WAY(0, md.rv_init);
#if LCF_WAYS > 1
            LCF_WAY(1, md.rv0);
#endif
            LCF_LCS(0);
#if LCF_WAYS > 2
            LCF_WAY(2, md.rv1);
#endif
#if LCF_WAYS > 1
            LCF_LCS(1);
#endif
#if LCF_WAYS > 3
            LCF_WAY(3, md.rv2);
#endif
#if LCF_WAYS > 2
            LCF_LCS(2);
#endif
#if LCF_WAYS > 4
            LCF_WAY(4, md.rv3);
#endif
#if LCF_WAYS > 3
            LCF_LCS(3);
#endif
#if LCF_WAYS > 5
            LCF_WAY(5, md.rv4);
#endif
#if LCF_WAYS > 4
            LCF_LCS(4);
#endif
#if LCF_WAYS > 6
            LCF_WAY(6, md.rv5);
#endif
#if LCF_WAYS > 5
            LCF_LCS(5);
#endif
#if LCF_WAYS > 7
            LCF_WAY(7, md.rv6);
#endif
#if LCF_WAYS > 6
            LCF_LCS(6);
#endif
#if LCF_WAYS > 8
            LCF_WAY(8, md.rv7);
#endif
#if LCF_WAYS > 7
            LCF_LCS(7);
#endif
#if LCF_WAYS > 9
            LCF_WAY(9, md.rv8);
#endif
#if LCF_WAYS > 8
            LCF_LCS(8);
#endif
#if LCF_WAYS > 9
            LCF_LCS(9);
#endif
            /* stage W+2: provider, owner, copyset membership */
            pick.apply(hdr, md);
            /* stage W+3: Table 2 (a copy is counted only if it passes) */
            check.apply(hdr, md);
            /* stage W+4 */
            scoreboard.apply(hdr, md);
            forward.apply(hdr, md);
            /* after SCOREBOARD C: QSTATE (queued lock mode, lcf_queue.p4) */
            queue.apply(hdr, md);
        }

        /* stage W+5. Dispatch and L2 both write the bridge header and the
         * egress port: as two branches of one if/else they are exclusive,
         * so the compiler puts them in one stage instead of ordering them
         * (a write-after-write dependency, one more stage). */
        if (LCF_QUEUE_OUT) {
            queue_out.apply(hdr, md, ig_intr_md, ig_dprsr_md, ig_tm_md);
        } else if (md.to_lcf == 1 && hdr.lcf.isValid() && md.drop == 0 &&
            md.l2 == 0) {
            dispatch.apply(hdr, md, ig_intr_md, ig_dprsr_md, ig_tm_md);
        } else if (md.l2 == 1) {
            l2.apply(hdr, md, ig_intr_md, ig_tm_md);
        }
        drop_count.apply(md);
    }
}

Pipeline(LcfIngressParser(),
         LcfIngress(),
         LcfIngressDeparser(),
         LcfEgressParser(),
         LcfEgress(),
         LcfEgressDeparser()) pipe;

Switch(pipe) main;
