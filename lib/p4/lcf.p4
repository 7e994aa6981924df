/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The lock-check-forward (LCF) pipeline for Tofino (TNA, T2NA): the same pipeline
 * and wire format as swswitch's C library (lib/lcf/lcf_pipeline.c,
 * lib/wire/lcf_wire.h). Normative behaviour: docs/PROTOCOL.md. Tofino notes,
 * stage budget and what differs: docs/TOFINO.md. Over 500 lines because
 * of the notes at the end: the reasons and derivations behind TOFINO.md
 * (what the compiler required, stage and register choices).
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

/* p4testgen only (lib/p4/testgen.sh): the topology's control plane as
 * assumptions, so its tests run on entries swswitch installs too */
#ifdef LCF_TESTGEN_PORT
#include <testgen.p4>
#define LCF_TESTGEN_ASSUME(cond) testgen_assume(cond)
#else
#define LCF_TESTGEN_ASSUME(cond)
#endif
#ifndef LCF_TESTGEN_CFG
#define LCF_TESTGEN_CFG true
#endif
#ifndef LCF_TESTGEN_L2
#define LCF_TESTGEN_L2 true
#endif

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

/*
 * Notes moved here from docs/TOFINO.md (the page keeps what the program
 * does and how to run it; these are the reasons and the derivations).
 *
 * ---- How the open compiler was built ----
 *
 * **The compiler used here** is built from p4lang/p4c commit `34b86e9b`
 * (`backends/tofino`, p4c-barefoot version 9.13.4), configured with
 * `-DENABLE_TOFINO=ON -DP4C_DRIVER_NAME=bf-p4c`, every other back end and the
 * tests off, on Debian 12 with GCC 12: Abseil 20240722.1, protobuf v25.3 and
 * p4runtime `ec4eb5ef` through FetchContent from local sources
 * (`FETCHCONTENT_SOURCE_DIR_*`), spdlog v1.8.3 in
 * `backends/tofino/third_party/spdlog`, Debian's Boehm GC and Z3 4.8.12 (the
 * declared minimum lowered from 4.8.14), the Python module `jsl` 0.2.4 on
 * `PYTHONPATH` for the logging-schema generator, `const` lambdas for GCC 12 in
 * `ir/visitor.cpp`'s `erase_if`, and the Tofino back end built at `-O1`.
 * Build only `p4c-barefoot` and `bfas`; it takes hours on 2 cores.
 *
 * **With Intel's SDE**, the driver does the same in one command (the SDE's
 * `p4_build.sh` wraps it):
 *
 * ```sh
 * bf-p4c --std p4-16 --target tofino --arch tna -g -I lib/p4 -DLCF_WAYS=W \
 *        -o build/lcf.tofino --bf-rt-schema build/lcf.tofino/bf-rt.json lib/p4/lcf.p4
 * ```
 *
 * and writes `lcf.conf` for `bf_switchd`. The program name seen by BF Runtime
 * is `lcf` (from the file name).
 *
 * ---- What the compiler taught about stages; ways to get more (none done) ----
 *
 * What the compiler taught about stages, each kept in the source with its
 * reason:
 *
 * - a write the register tables must follow costs a stage: no unconditional
 *   `= 0` before a RegisterAction's output (`@pa_auto_init_metadata` zeroes
 *   metadata, a resubmitted pass is parsed again), and `validate`'s `l2` and
 *   the parser-error read come before the verdict in program order;
 * - a table after `validate` in program order (the drop counter) holds back
 *   the gateway the ways sit under: `LcfDropCount` counts at the end of
 *   ingress;
 * - SCOREBOARD's count (`sb_count`) is written by `took_tbl`'s actions and
 *   cleared by `check_fail`, not by a gateway on `took && check_ok`, which
 *   would be a stage of its own;
 * - Tofino-1 has 16 logical tables a stage, and stage 1 uses all of them
 *   (each `execute` under its own condition is a table).
 *
 * Ways to get more, none done: G-STATUS (8 bits) and VERSION as one paired
 * register (their actions never conflict in a pass: G-STATUS is written by
 * unlocks, ADD and REMOVE, VERSION by ADD and write requests): 4 ALUs a way;
 * the check folded into a TCAM match on (type, node, copyset) so it shares the
 * took stage; the retransmit counter and the drop counters counted in the
 * dispatch stage.
 *
 * ---- LAST-UNLOCK and SCOREBOARD: why one RegisterAction per pass, why two arrays ----
 *
 * LAST-UNLOCK is accessed by three kinds of pass, and Tofino allows one
 * access to a register per packet per pass (one RegisterAction executed). An
 * unlock opens it on its first pass, tag hit or miss (`lu_open`; the stage
 * precedes the TAG lookup, and the rule needs no hit/miss, PROTOCOL.md 4.3
 * "Interpretation (opened on the first pass, closed on the second)"); its
 * second pass, when the first pass's claim says it may execute
 * (`rs.lock_kind`), closes it (`lu_close`), and only the pass that closes it
 * executes. A coherence request only reads it, on its first pass
 * (`lu_stale_read`, PROTOCOL.md 4.2 "Interpretation (stale request)"). The
 * three are on disjoint conditions (`sb_op` SB_OP_CLAIM, SB_OP_CLEAR,
 * SB_OP_ACQ, and `pass2`). The answer `lu_stale` is a key of the lock table
 * (a stale request runs `a_none`, so LOCK is untouched), of the `took` and
 * scoreboard tables (nothing counted) and of the dispatch table, whose row
 * `d_nack_stale` sends the NACK with the packet's gstatus/copyset and counts
 * `nack_stale_request`.
 *
 * SCOREBOARD (PROTOCOL.md 4.2, 4.9) is C's array of {seq, c} pairs held as
 * two arrays in consecutive stages, after the check table: `sb_count` (the
 * lock was taken and Table 2 passed) is computed in stage W+3 and is the
 * increment of `c_add` and chooses `sq_advance_req`, so a copy headed for the
 * RELEASE second pass is never counted and that pass does not touch the
 * array. The SEQ stage answers d = seq - SEQ, which the C table classifies
 * with ternary entries; the C RegisterAction answers c as it was, and the
 * apply block turns the class, c and `sb_count` into `sb_held` and `sb_over`
 * (requests), `may_exec` and `score` (unlock claims) or `sb_held` = "a copy
 * passed" (ABORT), which are dispatch keys. As one pair the six operations
 * need 3 to 5 comparisons and 6 RegisterActions, beyond a Tofino-1 stateful
 * ALU (2 comparisons, 4 RegisterActions per register); split, SEQ has 3
 * RegisterActions of at most 1 comparison and C 4 of at most 2, for one more
 * stage.
 *
 * ---- Data provider: the derivation ----
 *
 * - **Data provider per event.** C: `crc32c(init = seed, r << 32 | seq)`
 *   over the 8 bytes little-endian, then the k-th set bit of the copyset with
 *   k = crc mod popcount (PROTOCOL.md 4.2, "Interpretation (data provider per
 *   event)"). A retransmission that passes on the scoreboard must name the
 *   same node as the first pass, so there is no `Random` extern. The
 *   program's `prov_hash` (stage 1, in `LcfLastUnlock`, because it needs
 *   the requester index `r` that stage 0 computes) is a `CRCPolynomial` with
 *   the same polynomial (0x1EDC6F41, reflected, no final xor) over the same
 *   bytes in the same order (`seq` bytes 0..3, `r` bytes 0..1, two zero
 *   bytes, as `r` < 2^16). The seed is a run-time value (`swswitch --seed`)
 *   but a `CRCPolynomial`'s init is fixed at compile time. A CRC without final
 *   xor is linear, so `crc32c(seed, D) = crc32c(0, D) ^ crc32c(seed, 0^8)`:
 *   the program hashes with init 0, and `topo_to_bfrt.py --seed` loads the
 *   second term, cut to the 5 bits in use, as `switch_cfg`'s `prov_k`
 *   (`prov_sel = prov_hash.get(...) ^ prov_k`, a 5-bit hash: the low 5 bits
 *   of the CRC). `check_parity.py` compares the
 *   byte order with C. Tofino has neither popcount nor variable shifts, so
 *   `prov_sel` selects one of 32 permutations of the topology's nodes (made
 *   by `topo_to_bfrt.py` from `--seed`); `pick_provider` is a TCAM table
 *   whose entries, in permutation order, match "node n in the copyset and no
 *   earlier node of the permutation is". The chosen node is always in the
 *   copyset and the same for every pass of one event. It is uniform for
 *   copysets of two nodes and close to uniform for larger ones, but for a
 *   given event it is not C's node. The owner (Modified) is the lowest set
 *   bit, exactly as C's `ctz`, through `pick_owner`.
 *
 * ---- QSTATE placement: alternatives ----
 *
 * **Registers.** One paired register `queue.qwW.qstate` per way, 2^15 slots,
 * **8 bytes per slot** (256 KiB per way with the default sizes). It must sit
 * **after SCOREBOARD**: which action a request runs depends on the lock
 * stage's `took`, Table 2's `check_ok` and SCOREBOARD C's raw answer
 * (`sb_class`, `sb_rv`), keys of the per-way table `qsel` (keyed on the raw
 * answer, not on the decoded `sb_held`/`sb_over`, to need no stage for the
 * decode); `LcfQueueOut` replaces the dispatch a stage later. The mode is
 * compiled in with `-DLCF_QUEUE=1`, which does not compile yet ("What was
 * verified"); with the layout of "Stages" it would need two stages more than
 * the retry mode. A stage holds 4 stateful ALUs, so W QSTATE registers need
 * ceil(W / 4) stages. Fits, none done: one QSTATE register indexed by (way,
 * slot) (one ALU), or a way's QSTATE in the stage of another way's TAG that
 * has an ALU free.
 *
 * ---- Where the queued P4 differs from C: the reasons in full ----
 *
 * 1. An approved QXFER takes two passes: its first pass compares the event
 *    and the count and marks lo = 0xffff0000, a resubmit (`LCF_RS_QXFER2` =
 *    6, P4 only) installs {next, hb(next)} and sends the QXFER_ACK. A Tofino-1
 *    stateful ALU has two 32-bit PHV operands, and one pass would need three
 *    (the event, its count, the next id). While the mark is set nothing else
 *    can approve or forward, so only that second pass consumes it; a request
 *    arriving between the two passes is NACKed (`nack_lock_busy`) where C
 *    forwards it to the new holder. Each approved QXFER also counts one
 *    `resubmit`.
 * 2. A `not_holder` denial reports FWD_CNT 0 (C: the current holder's
 *    count): `q_check` outputs lo only when hi is the event, which is what
 *    tells `not_holder` from the other reasons.
 * 3. A QXFER that finds CLOSING for its own event is denied `not_holder`
 *    (C: `closing`): the mark is shared with point 1, whose late copies must
 *    read `not_holder` (C: the holder moved on). Only an event that sends
 *    both a QXFER and a QRELEASE sees this; the holder agent never does.
 * 4. QRELEASE's second pass clears QSTATE when lo is the mark without
 *    comparing hi with its event (C does): only a pass whose first pass set
 *    or found the mark gets there, and another event's mark would need a new
 *    grant and its QXFER/QRELEASE within one resubmit latency.
 * 5. The waiter's poll is told by hb (node, thread & 0xf, seq & 0x3f) and
 *    only while LOCK has WAITING (C: QHOLDER == id and SWITCH): a switch
 *    tenure left after WAITING was cleared (its holder sent WRITE_UNLOCK)
 *    takes forwards. A poll of an event that is over or holds a score is
 *    answered as in C: `qsel` runs `q_grant` for it, whose poll operands
 *    (q_b = Q_MARK) write nothing and never forward.
 * 6. QXFER/QRELEASE of a tenure without SWITCH while READERS > 0 is never
 *    approved (denied `count`; C approves): such a tenure is one whose holder
 *    ended it with WRITE_UNLOCK, which then sent no QXFER/QRELEASE.
 * 7. A request that meets WAITING while QSTATE is {0, 0} (between the
 *    aborted waiter's two passes) counts FWD_CNT in lo with hi 0; it is
 *    NACKed as in C, and lo's low half 0 reads as no holder everywhere.
 * 8. An executed WRITE_UNLOCK or QRELEASE second pass that finds LOCK below
 *    WRITER clears it to 0 (C clears WRITER and WAITING and keeps READERS):
 *    READERS is 0 whenever an executed write unlock's event holds the lock.
 *
 * ---- The parity test: the full list of deliberate drifts ----
 *
 * `lib/p4/check_parity.py` (standard library Python) reads the P4 sources, the
 * C headers and sources and PROTOCOL.md, and fails with a per-field diff when:
 *
 * - `header lcf_h` and `struct lcf_hdr` differ in any field's name, width or
 *   offset (also checked against the `_Static_assert`s in `lcf_wire.c`);
 * - any constant differs: message types (`LCF_TYPE_LIST`), type ranges,
 *   version, header length, default LCF port, node limits, flags, gstatus
 *   values, LOCK bits, drop reasons (`LCF_DROP_LIST`, value and counter name),
 *   action counters (`LCF_ACTION_LIST`, value and name), resubmit ops, the 10
 *   way seeds;
 * - the resubmit metadata layout differs between `lcf_resubmit_h`, C's
 *   `rs_pack()`/`rs_reserved_clear()` and PROTOCOL.md 4.8;
 * - the check table's const entries, evaluated on every (type, membership,
 *   gstatus), differ from `LCF_CHECK_TABLE(X)` or from PROTOCOL.md's Table 2;
 * - the forward table's const entries, evaluated on every (type, gstatus,
 *   copyset shape: empty, {requester}, {other}, both), differ from
 *   `LCF_FORWARD_TABLE(X)` plus `lcf_table_forward()`'s two rules (empty
 *   copyset goes home; copyset == {requester} is the direct ACK), or the
 *   counters the P4 dispatch uses differ from PROTOCOL.md's Table 3;
 * - the order of the drop rules in the validate table differs from the order of
 *   C's checks (`lcf_frame_classify()`, `lcf_msg_validate()`,
 *   `lcf_stage_parse()`, `pass_resubmitted()`), or a C drop reason or action
 *   has no P4 counter.
 *
 * - the queued lock mode (`parity_qlock.py`, `parity_qreq.py`,
 *   `parity_qevents.py`, `parity_queue.py`, `parity_queue_static.py`; `parity_p4interp.py`
 *   interprets the P4 statements): LOCK (C `lcf_stage_lock*()` read from the
 *   source vs the P4 RegisterActions with `op_select` and `q_lock_op`
 *   operands, `took_tbl`, `q_waiter`) for every request type and LOCK class
 *   in both modes, the RELEASE kinds and the unlocks; the request decisions
 *   (C `lcf_stage_lock()` + `pass_request_queue()` + `lcf_q_request()`'s rows
 *   vs P4 `q_in`, `qsel`, `q_fwd`/`q_grant` and `LcfQueueOut`, on every type,
 *   LOCK class, scoreboard state in each P4 encoding, check and stale flag,
 *   against the request's own switch tenure and another holder's tenure); a
 *   seeded random sequence of 1,800 steps (writes, reads, reader unlocks, the
 *   waiter, polls, aborted waiters, forwards, QXFERs, QRELEASEs with both
 *   passes, WRITE_UNLOCK, saturation) through both: every decision, reply
 *   type and aux, counter, reason, FWD_CNT, destination, the LOCK and the
 *   QSTATE view must agree, save the differences listed under "Queued lock
 *   mode"; QXFER's and QRELEASE's LAST-UNLOCK, their op_select rows, the
 *   validate table accepting 0x0c/0x0d, the resubmit ops; and the stateful
 *   ALU budget of every QSTATE action, `lu_end` and `lock_qacquire`, and
 *   four RegisterActions per register in each build.
 *
 * `lib/p4/test_parity.sh` runs it on the tree, then on copies with 85
 * deliberate drifts (among them a field width, a field order, a C field name,
 * a padding byte, a type value, a flag, a gstatus, the LCF port, a
 * drop-reason name, an inserted action, a check row, a forward row, a
 * PROTOCOL.md counter, the resubmit layout on each side, a way seed, the order
 * of two drop rules, and 16 of the queued mode: P4 forwarding while CLOSING,
 * approving without the count, installing the next holder without its copy,
 * granting when Table 2 failed or on a READ_MISS, forwarding a copy of a held
 * or over event, a bad next denied as count,
 * the forward's aux, a third compare, a fifth RegisterAction, `lu_end`
 * leaving the event open, 0x0c/0x0d dropped, QRELEASE not opening
 * LAST-UNLOCK; C denying a QRELEASE retransmission, ignoring the next id,
 * granting without the check; and 20 of the waiting writer: a read taken or
 * counted while WAITING, WAITING set beside a writer, a queued write acquiring
 * as in retry mode, WRITE_UNLOCK keeping WAITING, the undo clearing WRITER,
 * the poll forwarded, QGRANT while readers hold, QXFER approved while readers
 * hold, the waiting denial dropped, the waiter's tenure without SWITCH, an
 * aborted waiter answered QWAIT, the undo's NACK counter, QWAIT's aux without
 * READERS, VERSION busy without WAITING, a fifth LOCK RegisterAction; C
 * without the waiter, with the poll row on CLOSING, without the waiting
 * denial, READ_UNLOCK dropping WAITING) and requires each to fail; it also runs every `LCF_WAYS` x `LCF_SLOT_BITS`
 * configuration through the C preprocessor.
 *
 * ---- What the compiler required ----
 *
 * What the compiler required, each change kept in the parity checks (with a
 * drift case where it changes a decision):
 *
 * - LOCK, G-STATUS and COPYSET of a way are three tables (`lcs`, `lcs_gs`,
 *   `lcs_cs`) with the same key and entries: one table's actions address one
 *   stateful ALU, so an action executing two registers is refused;
 * - the counters a table's actions use are addressed with one expression (a
 *   table has one address per extern kind): the drop reason and the
 *   bad-resubmit drop are counted after their tables (`LcfDropCount`,
 *   `md.bad_rs`);
 * - an action reads at most two PHV fields, or one and action data: the
 *   queue's event ids are written from action data and the packet's seq;
 * - an action's sources sit in containers of the destination's size: the
 *   VERSION reply's busy bit is a constant set under a gateway;
 * - a gateway cannot AND two PHV fields: egress computes `keep = dest_mask &
 *   1 << n` in `eg_node`'s action with the node's bit as action data;
 * - a table's hash results share its 32-bit immediate path: the provider
 *   hash has 5 bits and goes into `prov_sel` under its own condition, the
 *   slot hash only its slot bits;
 * - fields an action moves between are sliced alike in PHV: QXFER's next id
 *   and count reach the PHV through identity hashes;
 * - a range key is at most 4 nibbles, and `_` is refused on exact keys:
 *   `qsel` matches SCOREBOARD C ternary;
 * - the mirror field list is a PHV field (`md.mirror_kind`); each IP option
 *   word is parsed by its own state; the bridge header keeps its narrow
 *   fields in its first 8 bytes, every pad written;
 * - the VERSION register is `blk_version` (named `version`, bfas resolved its
 *   ALU output to the exact-match entry format's 4-bit `version` field);
 * - `sb_count`, the drop counter, `l2` and the parser-error read ("Stages").
 */
