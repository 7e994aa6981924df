/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Node statistics. Requester threads and the dispatch thread bump them
 * concurrently, so they are relaxed atomics (exact totals, no ordering).
 * Agent counters live in the agents (they are single-threaded under the
 * agents' mutex) and are printed from there.
 */
#ifndef NA_STATS_H
#define NA_STATS_H

#include <stdint.h>
#include <stdio.h>

#define NA_STAT_ADD(field, v) \
	__atomic_fetch_add(&(field), (v), __ATOMIC_RELAXED)
#define NA_STAT_INC(field) NA_STAT_ADD(field, 1)

#define NA_REQ_COUNTERS(X)           \
	X(ops)                       \
	X(reads)                     \
	X(writes)                    \
	X(incrs)                     \
	X(hits)                      \
	X(misses)                    \
	X(events)                    \
	X(nacks)                     \
	X(retransmit_request)        \
	X(retransmit_unlock)         \
	X(retransmit_writeback)      \
	X(evictions)                 \
	X(writebacks)                \
	X(diff_writebacks)           \
	X(diffs_empty)               \
	X(diff_bytes)                \
	X(stale_replies)             \
	X(aborted)                   \
	X(stale_grants_released)     \
	X(stale_grants_unreleasable) \
	X(aborts_sent)               \
	X(aborts_done)               \
	X(aborts_passed)             \
	X(aborts_waiting)            \
	X(aborts_before_wait)        \
	X(aborts_after_round)        \
	X(quarantine_unsettled)      \
	X(quarantine_round_exit)     \
	X(stale_replaced)            \
	X(row_guard)                 \
	X(allocs)                    \
	X(events_in_switch)          \
	X(events_at_home)            \
	X(home_local)                \
	X(q_queued)                  \
	X(q_nacks)                   \
	X(q_nack_ignored)            \
	X(q_watchdog)                \
	X(q_grants)                  \
	X(q_converted)               \
	X(q_noop)                    \
	X(q_inv_sent)                \
	X(q_ends)                    \
	X(q_busy_waits)              \
	X(q_unregistered)            \
	X(q_slot_waits)              \
	X(q_waits)                   \
	X(q_polls)                   \
	X(q_sw_grants)

struct na_req_stats {
#define NA_X_FIELD(name) uint64_t name;
	NA_REQ_COUNTERS(NA_X_FIELD)
#undef NA_X_FIELD
	uint64_t ev_type[16]; /* events started, by request type */
};

/* The SABRe requester side (docs/SABRES.md). */
#define NA_SAB_REQ_COUNTERS(X) \
	X(reads)               \
	X(ok)                  \
	X(aborts)              \
	X(retries)             \
	X(timeouts)            \
	X(gave_up)             \
	X(plain_reads)         \
	X(object_writes)       \
	X(write_busy)

struct na_sab_req_stats {
#define NA_X_FIELD(name) uint64_t name;
	NA_SAB_REQ_COUNTERS(NA_X_FIELD)
#undef NA_X_FIELD
	uint64_t abort_reason[8]; /* by enum na_sab_reason */
};

struct na_stats {
	uint64_t sent[256]; /* by message type */
	uint64_t recv[256];
	uint64_t send_errors;
	uint64_t mbox_overflow;
	uint64_t dropped; /* received, no route */
	struct na_req_stats req;
	struct na_sab_req_stats sab;
	uint64_t shadow_adds; /* MIGRATE_ACK mirrors recorded */
	uint64_t shadow_reports;
	uint64_t home_rx; /* messages the home agent handled */
	uint64_t home_tx; /* messages it emitted */
};

#endif /* NA_STATS_H */
