/* SPDX-License-Identifier: BSD-3-Clause
 *
 * na-sim's end-of-run quiescence check (docs/SIMULATION.md). Once every
 * workload has returned and its last unlock settled, nothing may stay
 * locked or queued: every block in the switch's TAG ways has LOCK 0 (no
 * writer, no WAITING bit, no reader) and QSTATE free (no queue holder, no
 * forward count), no requester's SCOREBOARD entry counts a lock (LAST-UNLOCK
 * stays open after an unlock that went home, PROTOCOL.md 4.1; a CLAIMED
 * entry is over, and a QXFER or QRELEASE leaves one for good: counted, not
 * failed), and on every node no thread has
 * an unlock pending and no queue holder slot is busy. Final values are the
 * history checker's part (na_workload_final_reads records them as reads).
 * Everything is read through lib/lcf's public API and the nodes' state.
 */
#ifndef NA_SIM_QUIESCE_H
#define NA_SIM_QUIESCE_H

#include <stdint.h>
#include <stdio.h>

#include "lcf_pipeline.h"

struct dsm;

/**
 * Check the switch `p` and the `n` nodes `d` (NULL entries skipped: nodes
 * that are gone). Each violation is printed on `err` (NULL: counted only),
 * naming the block or requester and the register; CLAIMED SCOREBOARD
 * entries are counted in *claimed.
 * @return the number of violations (0: quiescent).
 */
uint32_t na_sim_quiesce_check(const struct lcf_pipeline *p,
			      struct dsm *const *d, uint32_t n, FILE *err,
			      uint32_t *claimed);

/**
 * Run the scheduler until na_sim_quiesce_check() finds nothing (unlocks
 * and releases in flight settle) or `limit_ns` virtual ns have passed;
 * then print what is left on `err`.
 * @return the number of violations left (0: quiescent).
 */
uint32_t na_sim_quiesce_wait(const struct lcf_pipeline *p, struct dsm *const *d,
			     uint32_t n, uint64_t limit_ns, FILE *err,
			     uint32_t *claimed);

#endif /* NA_SIM_QUIESCE_H */
