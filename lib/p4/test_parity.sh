#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Parity test between the C pipeline and the Tofino P4 program.
#
#  1. check_parity.py must pass on the tree as it is;
#  2. it must FAIL (exit 1) on each deliberate drift below, made on a copy of
#     the sources in a temporary directory (the tree is never touched);
#  3. the P4 sources must survive the C preprocessor for every supported
#     target and LCF_WAYS / LCF_SLOT_BITS / LCF_QUEUE (balanced braces, one TAG, LOCK and
#     VERSION stage per way, no #error). This is not a P4
#     compile: there is no Tofino compiler here (docs/TOFINO.md).
#
# Exit 0 when every expectation holds. Prints "N passed, N failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
checker="$here/check_parity.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

pass=0
fail=0
ok()  { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

files="lib/p4/lcf.p4 lib/p4/lcf_headers.p4 lib/p4/lcf_parser.p4
       lib/p4/lcf_validate.p4 lib/p4/lcf_ways.p4 lib/p4/lcf_decide.p4
       lib/p4/lcf_dispatch.p4 lib/p4/lcf_egress.p4 lib/p4/lcf_version.p4
       lib/p4/lcf_queue.p4 lib/p4/lcf_queue_out.p4 lib/lcf/lcf_queue.c
       lib/lcf/lcf_queue.h
       lib/wire/lcf_qlock.h
       lib/wire/lcf_wire.h lib/wire/lcf_wire.c
       lib/lcf/lcf_pipeline.h lib/lcf/lcf_pipeline.c lib/lcf/lcf_internal.h
       lib/lcf/lcf_version.c
       docs/PROTOCOL.md"

# ---- 1. the real tree -------------------------------------------------------
if python3 "$checker" --root "$root"; then
    ok "check_parity.py passes on the tree"
else
    bad "check_parity.py fails on the tree (see above)"
fi

# ---- 2. deliberate drifts ---------------------------------------------------
# Each drift is a copy of the sources with one edit; they are all checked in
# one checker process (--batch) after the list, then reported in order.
n=0
drift_name=()
drift_file=()
drift_bad=()
# drift NAME FILE SED-EXPRESSION: copy the sources, apply the edit, expect 1.
drift() {
    local name=$1 file=$2 expr=$3 dir
    n=$((n + 1))
    dir="$tmp/case$n"
    cp -r "$tmp/src" "$dir"
    sed -i -e "$expr" "$dir/$file"
    drift_name[n]=$name
    drift_file[n]=$file
    if cmp -s "$root/$file" "$dir/$file"; then
        drift_bad[n]=1
    else
        echo "$dir" >>"$tmp/drifts"
    fi
}
# drift_report: check the drifts (one process), report each in order.
drift_report() {
    local i dir out rc name file
    [ -s "$tmp/drifts" ] &&
        python3 "$checker" --batch -q --first-failure <"$tmp/drifts"
    for i in "${!drift_name[@]}"; do
        name=${drift_name[i]}
        file=${drift_file[i]}
        dir="$tmp/case$i"
        if [ -n "${drift_bad[i]:-}" ]; then
            bad "drift '$name': the edit did not apply to $file (test out of date)"
            continue
        fi
        out=$(cat "$dir.out" 2>/dev/null)
        rc=$(cat "$dir.rc" 2>/dev/null || echo "none")
        if [ "$rc" = 1 ]; then
            ok "drift '$name' ($file) is caught:"
            echo "$out" | grep -E "FAIL|^ {9}" | head -4 | sed 's/^/       /'
        else
            bad "drift '$name' ($file): checker exit $rc, expected 1"
            printf '%s\n' "$out" | sed 's/^/       /'
        fi
    done
}

# the sources once (cp --parents keeps their paths); each case copies this
# tree in one process (a cp per file per case was half the test's CPU time)
mkdir -p "$tmp/src"
# shellcheck disable=SC2086 # $files is a list of paths without spaces
(cd "$root" && cp --parents $files "$tmp/src/")
# a positive control: an identical copy passes
n=$((n + 1))
cp -r "$tmp/src" "$tmp/case$n"
if python3 "$checker" --root "$tmp/case$n" -q >/dev/null; then
    ok "an unmodified copy passes"
else
    bad "an unmodified copy fails"
fi

drift "P4 field width: node 16 -> 8 bits" lib/p4/lcf_headers.p4 \
    's/^    bit<16> node;/    bit<8>  node;/'
drift "P4 field offset: seq and copyset swapped" lib/p4/lcf_headers.p4 \
    '/^    bit<32> seq;/{N;s/\(bit<32> seq;\)\n\(.*bit<32> copyset;\)/    bit<32> copyset;\n    bit<32> seq;/}'
drift "C field width: seq 32 -> 64 bits" lib/wire/lcf_wire.h \
    '0,/uint32_t seq;/s//uint64_t seq;/'
drift "C field name: seq -> sequence" lib/wire/lcf_wire.h \
    '0,/uint32_t seq;/s//uint32_t sequence;/'
drift "C field offset: padding byte before node" lib/wire/lcf_wire.h \
    '0,/uint16_t node;/s//uint8_t pad;\n\tuint16_t node;/'
drift "P4 constant: WRITE_SHARED 0x03 -> 0x13" lib/p4/lcf_headers.p4 \
    's/LCF_T_WRITE_SHARED       = 0x03;/LCF_T_WRITE_SHARED       = 0x13;/'
drift "C constant: flag FAIL 0x04 -> 0x08" lib/wire/lcf_wire.h \
    's/#define LCF_F_FAIL\( *\)0x04/#define LCF_F_FAIL\10x08/'
drift "C constant: gstatus MODIFIED 2 -> 3" lib/wire/lcf_wire.h \
    's/LCF_GS_MODIFIED = 2,/LCF_GS_MODIFIED = 3,/'
drift "P4 constant: default LCF port 7340 -> 7341" lib/p4/lcf_headers.p4 \
    's/LCF_DEFAULT_PORT = 7340;/LCF_DEFAULT_PORT = 7341;/'
drift "C drop reason renamed" lib/wire/lcf_wire.h \
    's/"bad_gstatus"/"bad_global_status"/'
drift "C action counter inserted" lib/lcf/lcf_pipeline.h \
    's/X(DROP,              "drop")/X(NEW_THING, "new_thing") X(DROP, "drop")/'
drift "C check table: EVICT_SHARED needs MODIFIED" lib/lcf/lcf_pipeline.h \
    's/X(EVICT_SHARED,   IN,     SHARED)/X(EVICT_SHARED,   IN,     MODIFIED)/'
drift "P4 forward table: READ_MISS/Shared to the owner" lib/p4/lcf_decide.p4 \
    's/LCF_GS_SHARED, _, _) : fwd_provider();/LCF_GS_SHARED, _, _) : fwd_owner();/'
# shellcheck disable=SC2016 # the backquotes are markdown, not a command
drift "PROTOCOL.md Table 3 counter" docs/PROTOCOL.md \
    's/| `forward_data_provider_shared` |/| `forward_owner_modified` |/'
drift "P4 resubmit layout: way and lock_kind swapped" lib/p4/lcf_headers.p4 \
    '/^    bit<8>  way;/{N;s/\(.*way;\)\n\(.*lock_kind;\)/\2\n\1/}'
drift "C resubmit layout: score at byte 5" lib/lcf/lcf_pipeline.c \
    's/(uint64_t)score << 32/(uint64_t)score << 40/'
drift "P4 way seed 3" lib/p4/lcf_headers.p4 \
    's/LCF_WAY_SEED_3 = 0x78dde6e4;/LCF_WAY_SEED_3 = 0x78dde6e5;/'
drift "P4 drop rule order: gstatus before flags" lib/p4/lcf_validate.p4 \
    's/v_drop(LCF_DROP_BAD_FLAGS)/v_drop(LCF_DROP_TMP)/; s/v_drop(LCF_DROP_BAD_GSTATUS)/v_drop(LCF_DROP_BAD_FLAGS)/; s/v_drop(LCF_DROP_TMP)/v_drop(LCF_DROP_BAD_GSTATUS)/'

# stale-request NACK (PROTOCOL.md 4.2, Interpretation (stale request))
drift "P4 dispatch: stale request NACKed as lock busy" lib/p4/lcf_dispatch.p4 \
    's/: d_nack_stale();/: d_nack(LCF_A_NACK_LOCK_BUSY);/'
drift "P4 dispatch: stale-request row removed" lib/p4/lcf_dispatch.p4 \
    '/, 1, _) : d_nack_stale();/d'
drift "P4 constant: NACK_STALE 9 -> 10" lib/p4/lcf_headers.p4 \
    's/LCF_A_NACK_STALE       = 9;/LCF_A_NACK_STALE       = 10;/'
drift "P4 LOCK: a stale request takes the lock" lib/p4/lcf_ways.p4 \
    's/(LCS_OP_ACQUIRE, 0, 1)  : a_read();/(LCS_OP_ACQUIRE, 0, 1)  : a_acquire();/'
drift "P4 LAST-UNLOCK: the request's read writes the register" lib/p4/lcf_ways.p4 \
    's/^                rv = 0;/                v = hdr.lcf.seq;\n                rv = 0;/'
drift "C: stale request counted as lock busy" lib/lcf/lcf_pipeline.c \
    's/LCF_A_NACK_STALE);/LCF_A_NACK_LOCK_BUSY);/'
# LAST-UNLOCK {seq, open}: opened by every unlock's first pass, hit or miss;
# an unlock executes only by closing it (PROTOCOL.md 4.3)
drift "C: LAST-UNLOCK not opened by the first pass" lib/lcf/lcf_pipeline.c \
    '/^\t\tlu = lcf_stage_last_unlock_open(p, phv);$/d'
drift "C: second pass executes without closing LAST-UNLOCK" lib/lcf/lcf_pipeline.c \
    's/^\t\t\t\t   lcf_stage_last_unlock_close(p, phv);/\t\t\t\t   true;/'
drift "P4: unlock opens LAST-UNLOCK only on the resubmitted pass" lib/p4/lcf_ways.p4 \
    's/if (md.pass2 == 0 \&\& md.sb_op == SB_OP_CLAIM \&\& md.node_known == 1 \&\&/if (md.pass2 == 1 \&\& md.sb_op == SB_OP_CLAIM \&\& md.node_known == 1 \&\&/'
drift "P4 SCOREBOARD: a copy counted whatever its check" lib/p4/lcf_decide.p4 \
    's/                v = v + md.sb_count;/                v = v + 1;/'
drift "P4 SCOREBOARD: a failed check leaves the copy counted" lib/p4/lcf_decide.p4 \
    's/    action check_fail() { md.check_ok = 0; md.sb_count = 0; }/    action check_fail() { md.check_ok = 0; }/'
drift "P4 SCOREBOARD: a stale request moves SEQ" lib/p4/lcf_decide.p4 \
    's/            (SB_OP_ACQ, 0, 1, 0, 0)   : s_look(0);/            (SB_OP_ACQ, 1, 1, 0, 1)   : s_advance_req(1);/'
drift "P4 SCOREBOARD: SEQ and C in one array" lib/p4/lcf_decide.p4 \
    's/(LCF_MAX_REQUESTERS \* 2, 0) sb_c;/(LCF_MAX_REQUESTERS, 0) sb_c;/'
drift "P4 LAST-UNLOCK: power-on open at seq 0" lib/p4/lcf_ways.p4 \
    's/(LCF_MAX_REQUESTERS, {0, 1}) last_unlock;/(LCF_MAX_REQUESTERS, {0, 0}) last_unlock;/'
drift "P4 LAST-UNLOCK: closing leaves it open" lib/p4/lcf_ways.p4 \
    's/v.open_seq = hdr.lcf.seq + 1;/v.open_seq = hdr.lcf.seq;/'
drift "P4: may-execute not carried to the second pass" lib/p4/lcf_dispatch.p4 \
    's/resubmit_with(LCF_RS_UNLOCK, md.way, (bit<8>)md.may_exec, md.score)/resubmit_with(LCF_RS_UNLOCK, md.way, 0, md.score)/'
# SCOREBOARD bound to its event (PROTOCOL.md 4.2)
drift "C: a copy headed for RELEASE is counted" lib/lcf/lcf_pipeline.c \
    's/lcf_stage_sb_request(p, phv, phv->lock_taken \&\& chk);/lcf_stage_sb_request(p, phv, phv->lock_taken);/'
drift "P4: RELEASE touches SCOREBOARD again" lib/p4/lcf_validate.p4 \
    's/LCS_OP_RELEASE, SB_OP_NONE, 1, 0)/LCS_OP_RELEASE, SB_OP_ACQ, 1, 0)/'
drift "P4: Table 2 after the scoreboard" lib/p4/lcf.p4 \
    's/check.apply(hdr, md);/XX_CHECK;/; s/scoreboard.apply(hdr, md);/check.apply(hdr, md);/; s/XX_CHECK;/scoreboard.apply(hdr, md);/'
drift "P4: an ABORTED register again" lib/p4/lcf_decide.p4 \
    's/^control LcfScoreboard(inout lcf_headers_t hdr, inout lcf_ig_md_t md)$/control LcfAborted(inout lcf_headers_t hdr, inout lcf_ig_md_t md) { Register<bit<32>, bit<16>>(1, 0) aborted; apply { } }\ncontrol LcfScoreboard(inout lcf_headers_t hdr, inout lcf_ig_md_t md)/'

# ABORT that hits: answered by the home unless a copy passed (PROTOCOL.md 4.9)
drift "C: a hit ABORT answered by the switch alone" lib/lcf/lcf_pipeline.c \
    's/res_emit(p, res, LCF_A_ABORT_HOME, node_bit(phv->home), false);/res_reply(p, res, phv, LCF_T_ABORT_ACK, LCF_F_IN_SWITCH, LCF_A_ABORT_HOME);/'
drift "P4: a hit ABORT answered by the switch alone" lib/p4/lcf_dispatch.p4 \
    's/1, _, _, 0, _, _, _, _, _, _) : d_abort_home();/1, _, _, 0, _, _, _, _, _, _) : d_abort_ack();/'

# data provider per event (PROTOCOL.md 4.2, Interpretation (data provider per event))
drift "P4 provider hash: requester bytes swapped" lib/p4/lcf_ways.p4 \
    's/md.req\[7:0\], md.req\[15:8\]/md.req[15:8], md.req[7:0]/'
drift "P4 provider: seed term not folded in" lib/p4/lcf_ways.p4 \
    's/16w0 }) ^ md.prov_k;/16w0 });/'
drift "C provider: a draw per pass again" lib/lcf/lcf_pipeline.c \
    's/lcf_crc32c_u64(p->cfg.seed, event)/lcf_xorshift32(\&p->rng)/'

# the VERSION stage (parity_version.py)
drift "P4 VERSION: EVICT_MODIFIED bumps too" lib/p4/lcf_version.p4 \
    's/(LCS_OP_READ, LCF_T_VERSION_READ, 0, 0)     : v_read();/&\n            (LCS_OP_ACQUIRE, LCF_T_EVICT_MODIFIED, 0, 0) : v_bump();/'
drift "P4 VERSION: WRITE_SHARED does not bump" lib/p4/lcf_version.p4 \
    '/(LCS_OP_ACQUIRE, LCF_T_WRITE_SHARED, 0, 0)  : v_bump();/d'
drift "P4 VERSION: the count carries into the epoch" lib/p4/lcf_version.p4 \
    's/if ((v \& LCF_VER_COUNT_MAX) != LCF_VER_COUNT_MAX) {/if (v != 0xffffffff) {/'
drift "C VERSION: the count carries into the epoch" lib/lcf/lcf_internal.h \
    's/if ((p->ver\[way\]\[slot\] \& LCF_VER_COUNT_MAX) != LCF_VER_COUNT_MAX)//'
drift "C VERSION: count top moved" lib/wire/lcf_wire.h \
    's/#define LCF_VER_COUNT_MAX 0xffffu/#define LCF_VER_COUNT_MAX 0x7fffu/'
drift "C VERSION: busy bit moved" lib/wire/lcf_wire.h \
    's/#define LCF_VER_AUX_BUSY 0x10000u/#define LCF_VER_AUX_BUSY 0x20000u/'
drift "P4 VERSION reply: no busy bit" lib/p4/lcf_dispatch.p4 \
    's/hdr.lcf.aux = md.aux_type | md.aux_busy;/hdr.lcf.aux = md.aux_type;/'

# the queued lock mode (parity_queue.py)
drift "P4 QSTATE: a forward while CLOSING" lib/p4/lcf_queue.p4 \
    's/} else if (v.lo < md.q_b) {/} else if (v.lo <= md.q_b) {/'
drift "P4 QSTATE: QXFER/QRELEASE approved without the count" lib/p4/lcf_queue.p4 \
    's/if (v.hi == md.q_a \&\& (v.lo \& Q_NSW) == md.q_b) {/if (v.hi == md.q_a) {/'
drift "P4 QXFER2: the next holder installed without its lo copy" lib/p4/lcf_queue.p4 \
    's/md.q_b = md.q_nhb;/md.q_b = 0;/'
drift "P4 qsel: a write granted when Table 2 failed" lib/p4/lcf_queue.p4 \
    's/0, 1, 1, SB_CLASS_AFTER, _) : a_grant();/0, 1, 0, SB_CLASS_AFTER, _) : a_grant();/'
drift "P4 qsel: a READ_MISS makes a holder" lib/p4/lcf_queue.p4 \
    's/(Q_K_REQ, LCF_T_WRITE_MISS .. LCF_T_EVICT_MODIFIED, 0, 1, 1, SB_CLASS_AFTER, _) : a_grant();/(Q_K_REQ, LCF_T_READ_MISS .. LCF_T_EVICT_MODIFIED, 0, 1, 1, SB_CLASS_AFTER, _) : a_grant();/'
drift "P4 qsel: a copy of a held or over event forwarded" lib/p4/lcf_queue.p4 \
    's/SB_CLASS_EQ, 0 &&& 0xffffffff) : a_fwd();/SB_CLASS_EQ, 0 \&\&\& 0) : a_fwd();/'
drift "P4 qout: a bad next denied as count" lib/p4/lcf_queue_out.p4 \
    's/q_deny(0x0c04)/q_deny(0x0c01)/'
drift "P4 forward: index and tenure swapped in aux (egress finish)" lib/p4/lcf_egress.p4 \
    's/hdr.lcf.aux = 6w0 ++ hdr.lcf.aux\[9:0\] ++ hdr.lcf.aux\[31:16\];/hdr.lcf.aux = hdr.lcf.aux[31:16] ++ 6w0 ++ hdr.lcf.aux[9:0];/'
drift "P4 denial: FWD_CNT not rotated into aux (egress finish)" lib/p4/lcf_egress.p4 \
    's/hdr.lcf.aux = hdr.bridge.ackhi ++ hdr.lcf.aux\[31:16\];/hdr.lcf.aux = hdr.bridge.ackhi ++ hdr.lcf.aux[15:0];/'
drift "P4 forward: egress finish not selected" lib/p4/lcf_queue_out.p4 \
    's/hdr.bridge.aux_fix = LCF_AUX_FIX_FWD;/hdr.bridge.aux_fix = LCF_AUX_FIX_NONE;/'
drift "P4 QSTATE: three compares in q_fwd" lib/p4/lcf_queue.p4 \
    's/} else if (v.lo < md.q_b) {/} else if (v.lo < md.q_b \&\& v.hi != 0) {/'
drift "P4 QSTATE: a fifth RegisterAction" lib/p4/lcf_queue.p4 \
    '/^    action a_grant()/i\    RegisterAction<q_pair_t, slot_t, bit<32>>(qstate) q_extra = {\n        void apply(inout q_pair_t v, out bit<32> rv) {\n            rv = v.hi;\n        }\n    };'
# QXFER/QRELEASE end their event in SCOREBOARD; QRELEASE's gate QGATE[r];
# the closing answer; a stale waiting writer's poll answered (row 4)
drift "P4 QGATE: closing leaves it open" lib/p4/lcf_ways.p4 \
    '/qg_close = {/,/};/s/v.eo = v.eo - 1;/v.eo = v.eo;/'
# TOKEN and WIN (lib/model/qalias.pml): one execution per opening of QGATE,
# a QRELEASE 2^15 seqs before SCOREBOARD stale
drift "P4 QGATE: the second pass ignores the epoch" lib/p4/lcf_ways.p4 \
    's/v.eo == md.qg_tok/v.eo[0:0] == 1/'
drift "P4 QGATE: a reopening keeps the epoch" lib/p4/lcf_ways.p4 \
    's/v.eo = v.eo + 0x10001;/v.eo = v.eo + 1;/'
drift "P4 the resubmit carries no epoch" lib/p4/lcf_queue_out.p4 \
    's/md.rs_out.score = md.qg_eo\[31:16\];/md.rs_out.score = 0;/'
drift "C: the second pass ignores the epoch" lib/lcf/lcf_queue.c \
    's/g->eo != ((uint32_t)epoch << 16 | 1)/!(g->eo \& 1)/'
drift "P4 SCOREBOARD: no stale QRELEASE" lib/p4/lcf_decide.p4 \
    '/(SB_OP_QOPEN, 1, 0, 0, 0, _)  *: c_qstale();/d'
drift "P4 a stale QRELEASE reaches QSTATE" lib/p4/lcf_queue.p4 \
    '/SB_CLASS_OLDER, SB_QSTALE) : a_stale();/d'
drift "C: a stale window of 2^16" lib/lcf/lcf_queue.h \
    's/#define LCF_Q_STALE_DIST 0x8000u/#define LCF_Q_STALE_DIST 0x10000u/'
drift "P4 QGATE: QRELEASE's second pass closes LAST-UNLOCK again" lib/p4/lcf_ways.p4 \
    's/md.lu_exec = qg_close.execute(md.req);/md.lu_exec = lu_close.execute(md.req);/'
drift "P4 SCOREBOARD: a queued QXFER/QRELEASE does not claim the count" lib/p4/lcf_decide.p4 \
    's/md.sb_newc = SB_ENDED; md.sb_or = SB_CLAIMED;/md.sb_newc = SB_ENDED; md.sb_or = 0;/'
drift "P4 SCOREBOARD: a queued QRELEASE's executed pass 2 leaves count 0" lib/p4/lcf_decide.p4 \
    's/(SB_OP_QDONE, 1, 0, 1, 0) : s_look(SB_ENDED);/(SB_OP_QDONE, 1, 0, 1, 0) : s_look(0);/'
drift "P4 the closing answer dropped (QRELEASE_DUP)" lib/p4/lcf_queue_out.p4 \
    '/: q_deny0(0x0d03);/d'
drift "P4 a stopped QRELEASE clears QSTATE" lib/p4/lcf_queue.p4 \
    '/action in_release2_keep()/,/}/s/md.q_b = Q_MARK;/md.q_b = 0;/'
drift "P4 a stale waiting writer's poll NACKed" lib/p4/lcf_queue.p4 \
    '/(Q_K_REQ, LCF_T_READ_MISS .. LCF_T_EVICT_MODIFIED, 1, 0, _, _, _) : a_grant();/d'
drift "C: QRELEASE opens LAST-UNLOCK again" lib/lcf/lcf_pipeline.c \
    's/phv->score = lcf_q_gate_open(p, phv->req, phv->m->seq);/(void)lcf_stage_last_unlock_open(p, phv);/'
drift "C: a gated QRELEASE answers dup, not closing" lib/lcf/lcf_queue.c \
    's/^\tif (!exec)$/\tif (false)/'
drift "P4 validate: 0x0c/0x0d unknown types again" lib/p4/lcf_validate.p4 \
    's/0x0e .. 0x1f/0x0c .. 0x1f/'
drift "P4 op_select: QRELEASE does not open its gate" lib/p4/lcf_validate.p4 \
    's/LCS_OP_READ, SB_OP_QOPEN, 0, 0)/LCS_OP_READ, SB_OP_NONE, 0, 0)/'
drift "C: a QRELEASE retransmission after CLOSING denied" lib/lcf/lcf_queue.c \
    's/^\tif (!(q->lo \& LCF_Q_CLOSING) \&\&$/\tif (/'
drift "C: QXFER approved whatever the next id" lib/lcf/lcf_queue.c \
    '/if (!valid_next(p, next))/,+1d'
drift "C: a grant without a passed check" lib/lcf/lcf_pipeline.c \
    's/pass_request_queue(p, phv, res, write \&\& chk))/pass_request_queue(p, phv, res, write))/'

# a write that meets readers waits at the switch (parity_qlock.py,
# parity_qreq.py, parity_queue.py): LOCK WAITING, QWAIT/QGRANT, the waiting denial
drift "P4 LOCK: a read taken while WAITING" lib/p4/lcf_validate.p4 \
    's/SB_OP_ACQ, 0x3fff, 1);/SB_OP_ACQ, 0x7fff, 1);/'
drift "P4 took_tbl: a read counted taken while WAITING" lib/p4/lcf_decide.p4 \
    's/0 .. 0x3ffe, 0) : took_yes();/0 .. 0x7ffe, 0) : took_yes();/'
drift "P4 lock_qacquire: WAITING set beside a writer" lib/p4/lcf_ways.p4 \
    's/} else if (v < LCF_LOCK_WAITING) {/} else if (v != 0) {/'
drift "P4 q_lock_op: a queued write acquires as in retry mode (NACK, no waiter)" lib/p4/lcf_validate.p4 \
    '/: q_op_acquire();/d'
drift "P4 WRITE_UNLOCK keeps WAITING" lib/p4/lcf_validate.p4 \
    '/(1, 1, LCF_T_WRITE_UNLOCK .. LCF_T_WRITE_UNLOCK, _) : q_op_unlock_w();/d'
drift "P4 RELEASE kind 2 clears WRITER, not WAITING" lib/p4/lcf_validate.p4 \
    's/md.lk_a = LCF_LOCK_WAITING;/md.lk_a = LCF_LOCK_WRITER;/'
drift "P4 the poll forwarded instead of QGRANT" lib/p4/lcf_queue_out.p4 \
    's/if (md.lk_old\[14:14\] == 1 \&\& md.q_frv\[15:0\] == md.q_a\[15:0\]) {/if (md.lk_old[14:14] == 0 \&\& md.q_frv[15:0] == md.q_a[15:0]) {/'
drift "P4 QGRANT while readers hold" lib/p4/lcf_queue_out.p4 \
    's/if (md.q_rd == 1) {/if (md.q_rd == 0) {/'
drift "P4 QXFER approved while readers hold" lib/p4/lcf_queue.p4 \
    '/(1, 0, LCF_T_QXFER .. LCF_T_QRELEASE, _, 0, _, _, _, 1, _) : in_check_bad_next();/d'
drift "P4 the waiting denial dropped (denied count)" lib/p4/lcf_queue_out.p4 \
    's/md.q_crv\[15:15\] == 1) {/md.q_crv[15:15] == 2) {/'
drift "P4 the waiter's tenure without SWITCH" lib/p4/lcf_queue.p4 \
    '/action in_req_wait()/,/}/s/md.q_b = md.q_hb | Q_SW;/md.q_b = md.q_hb;/'
drift "P4 an aborted waiter's copy gets QWAIT (WAITING never undone)" lib/p4/lcf_queue_out.p4 \
    's/if (md.sb_over == 1) {/if (md.sb_over == 2) {/'
drift "P4 the undo's NACK counted as a check failure" lib/p4/lcf_queue_out.p4 \
    's/lcf_q_action_ctr.count(LCF_A_NACK_ABORTED);/lcf_q_action_ctr.count(LCF_A_NACK_CHECK_FAIL);/'
drift "P4 QWAIT's aux without READERS" lib/p4/lcf_queue_out.p4 \
    's/hdr.lcf.aux = md.aux_type\[31:16\] ++ md.q_readers;/hdr.lcf.aux = md.aux_type;/'
drift "P4 VERSION busy ignores WAITING" lib/p4/lcf_dispatch.p4 \
    's/if (md.lk_old\[15:14\] != 0) {/if (md.lk_old[15:15] == 1) {/'
drift "P4 LOCK: a fifth RegisterAction in the queued build" lib/p4/lcf_ways.p4 \
    '/lock_qacquire = {/,/^#else$/s/^#else$/    RegisterAction<bit<16>, slot_t, bit<16>>(lock) lock_extra = {\n        void apply(inout bit<16> v, out bit<16> r) { r = v; v = 1; }\n    };\n#else/'
drift "C: a write meeting readers NACKed again (no waiter)" lib/lcf/lcf_pipeline.c \
    's/lcf_stage_lock(p, phv, write, write \&\& p->cfg.queued);/lcf_stage_lock(p, phv, write, false);/'
drift "C: the poll forwarded (row 4 on CLOSING)" lib/lcf/lcf_queue.c \
    's/if (!in->taken \&\& q->hi == in->id \&\& (q->lo \& LCF_Q_SWITCH) \&\&/if (!in->taken \&\& q->hi == in->id \&\& (q->lo \& LCF_Q_CLOSING) \&\&/'
drift "C: the waiting denial dropped" lib/lcf/lcf_queue.c \
    's/return (q->lo \& LCF_Q_SWITCH) \&\& (lock \& LCF_LOCK_READERS) != 0;/return false;/'
drift "C: READ_UNLOCK drops WAITING" lib/lcf/lcf_pipeline.c \
    's/md->lock = (uint16_t)((md->lock \& (LCF_LOCK_WRITER |/md->lock = (uint16_t)((md->lock \& (LCF_LOCK_WRITER \& /'
drift "ABORT of a waiting tenure answered aborted (P4: no QSTATE read)" lib/p4/lcf_queue.p4 \
    '/(1, 0, LCF_T_ABORT .. LCF_T_ABORT, _, 0, _, _, _, _, _) : in_abort();/d'
drift "ABORT of a waiting tenure answered aborted (P4: LcfQueueOut)" lib/p4/lcf_queue_out.p4 \
    's/^            q_abort_ack();/            q_bad_resubmit();/'
drift "ABORT of a waiting tenure answered aborted (C)" lib/lcf/lcf_queue.c \
    's/return q->hi == id \&\& (q->lo \& LCF_Q_SWITCH);/return false;/'
drift "a poll of an aborted waiter NACKed (P4)" lib/p4/lcf_queue.p4 \
    '/SB_CLASS_OLDER, _) : a_grant();/d'
drift "a poll of a waiter holding a score NACKed (P4)" lib/p4/lcf_queue.p4 \
    '/(Q_K_REQ, LCF_T_READ_MISS .. LCF_T_EVICT_MODIFIED, 0, 0, _, SB_CLASS_EQ, _) : a_grant();/d'
drift "P4 q_grant writes on a poll of an aborted waiter" lib/p4/lcf_queue.p4 \
    's/if (md.q_b != Q_MARK) {/if (md.q_b != 0) {/'

drift_report

# ---- 3. preprocessor sanity of every configuration --------------------------
if command -v cpp >/dev/null 2>&1; then
    stub="$tmp/stub"
    mkdir -p "$stub"
    : > "$stub/core.p4"
    : > "$stub/tna.p4"
    : > "$stub/t2na.p4"
    cfg_ok=1
    # target generation (the driver's __TARGET_TOFINO__), its largest LCF_WAYS
    for gen_max in 1:7 2:10; do
        gen=${gen_max%%:*}
        max=${gen_max##*:}
        for ways in $(seq 1 "$max"); do
            for bq in 0:1 3:1 15:1 15:0; do
                bits=${bq%%:*}
                q=${bq##*:}
                out=$(cpp -P -nostdinc -I "$stub" -I "$here" \
                      -D__TARGET_TOFINO__="$gen" -DLCF_WAYS="$ways" \
                      -DLCF_SLOT_BITS="$bits" -DLCF_QUEUE="$q" "$here/lcf.p4" 2>&1) || {
                    bad "cpp Tofino-$gen LCF_WAYS=$ways LCF_SLOT_BITS=$bits LCF_QUEUE=$q: $out"
                    cfg_ok=0
                    continue
                }
                # braces, parentheses; lines applying each stage's table
                # (one awk, not a pipeline per count: 68 configurations)
                read -r opens closes popen pclose nlcs ntag nver nqw nmode < <(
                    awk '{ o += gsub(/\{/, "{"); c += gsub(/\}/, "}")
                           po += gsub(/\(/, "("); pc += gsub(/\)/, ")") }
                         /lcs[0-9]+\.apply/ { l++ } /tag[0-9]+\.apply/ { t++ }
                         /ver[0-9]+\.apply/ { v++ } /qw[0-9]+\.apply/ { w++ }
                         /lock_mode_cfg\.apply/ { m++ }
                         END { print o + 0, c + 0, po + 0, pc + 0, l + 0, t + 0, v + 0, w + 0, m + 0 }' <<<"$out")
                if [ "$opens" != "$closes" ] || [ "$popen" != "$pclose" ] ||
                   [ "$nlcs" != "$ways" ] || [ "$ntag" != "$ways" ] ||
                   [ "$nver" != "$ways" ] || [ "$nqw" != $((q * ways)) ] ||
                   [ "$nmode" != "$q" ]; then
                    bad "cpp Tofino-$gen LCF_WAYS=$ways LCF_SLOT_BITS=$bits LCF_QUEUE=$q: braces $opens/$closes, parens $popen/$pclose, $ntag TAG, $nlcs LOCK, $nver VERSION, $nqw QSTATE stages, $nmode lock mode tables"
                    cfg_ok=0
                fi
            done
        done
        if out=$(cpp -P -nostdinc -I "$stub" -I "$here" -D__TARGET_TOFINO__="$gen" \
                 -DLCF_WAYS=$((max + 1)) "$here/lcf.p4" 2>&1); then
            bad "cpp accepts Tofino-$gen LCF_WAYS=$((max + 1)) (more than its stages hold)"
            cfg_ok=0
        fi
    done
    [ "$cfg_ok" = 1 ] && ok "P4 sources preprocess for Tofino-1 LCF_WAYS 1..7 and Tofino-2 1..10 x LCF_SLOT_BITS 0,3,15 (and LCF_QUEUE=0: no QSTATE); 8 and 11 refused"
else
    echo "skip preprocessor sanity: no cpp"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
