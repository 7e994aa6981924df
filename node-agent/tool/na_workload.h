/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Workloads node-agent can run on its application threads:
 *  - micro:   the paper's micro benchmark (section 7.2): op_size-byte reads
 *             and writes; `sharing` = fraction of operations on a shared
 *             region of `shared_blocks` blocks spread over all home nodes
 *             (the rest on thread-private blocks homed here); `locality` =
 *             probability of re-touching the block used last; `read_ratio`.
 *  - counter: the correctness workload: on a small hot shared set (each
 *             block: slot 0 a counter, slots 1..7 data), each operation is
 *             a read of a data slot, a blind write of a unique value
 *             (node<<48 | thread<<40 | n) to a data slot, or an increment
 *             of the block's counter under dsm_wlock. Everything is
 *             recorded to the history.
 *  - poll:    validate-on-hit's test (paper 003, section 4.2): the shared
 *             blocks get `policy` (dsm_set_policy) on every node; thread 0
 *             of the lowest node writes a unique value to every data slot
 *             of every shared block each `update_period_s` (or thread 0
 *             of every node: concurrent updaters), every other
 *             thread reads random data slots (paced by max_rate). Recorded
 *             to the history: the checker counts stale reads.
 *  - rwlock:  the lock benchmark's key-value shape (dsm_kv --rwlock,
 *             docs/QUEUED-LOCKS.md "Benchmark"): on a shared block (Zipf
 *             with `zipf` > 0), a read of its counter (slot 0) under
 *             dsm_rlock with probability `read_ratio`, else an increment
 *             under dsm_wlock; recorded to the history (read, incr).
 * Shared block i lives at dsm_static_addr(nodes[i % N], (i / N) * block).
 */
#ifndef NA_WORKLOAD_H
#define NA_WORKLOAD_H

#include <stdint.h>

#include "dsm.h"
#include "na_history.h"

enum na_wl_kind {
	NA_WL_NONE = 0,
	NA_WL_MICRO,
	NA_WL_COUNTER,
	NA_WL_POLL,
	NA_WL_RWLOCK,
};

#define NA_WL_ALL_NODES 0xffff

struct na_wl_config {
	enum na_wl_kind kind;
	uint16_t threads;
	double duration_s; /* 0: until stopped */
	double read_ratio;
	double sharing_ratio;
	double locality;
	uint32_t shared_blocks;
	uint32_t private_blocks; /* per thread (micro) */
	uint32_t op_size;        /* micro: bytes per op (<= block) */
	double zipf;             /* micro, rwlock: > 0: shared block of rank i
					   (shared block i) drawn with
					   probability ~ 1/(i+1)^zipf; 0:
					   uniform */
	uint32_t seed;
	double max_rate;        /* ops/s per thread, 0: unpaced */
	unsigned policy;        /* poll: DSM_POLICY_* of the shared blocks */
	uint32_t ttl_us;        /* poll: for DSM_POLICY_TTL */
	double update_period_s; /* poll: between two updates (0: 1 s) */
	uint16_t updater_node;  /* poll: the node whose thread 0 updates;
				   NA_WL_ALL_NODES: every node's */
	bool read_only;         /* only reads (na-sim's node that will crash, as
			   test-drain.sh's dead node: no data of its own) */
};

struct na_wl_result {
	uint64_t ops, reads, writes, incrs, errors;
	double seconds;
};

/**
 * Run the workload on cfg->threads threads until the duration elapses or
 * `*stop` becomes non-zero. With cfg->max_rate, a thread that is ahead of
 * max_rate ops/s sleeps until it is not: a node that keeps a hot block
 * Modified otherwise does millions of local hits per second, which bounds
 * nothing but the size of its history (scripts/test-e2e.sh uses it so that
 * the checker's input stays small; remote operations are never delayed
 * below the rate). @return 0 or -errno.
 */
int na_workload_run(struct dsm *d, const struct na_wl_config *cfg,
		    struct na_history *h, volatile int *stop,
		    struct na_wl_result *res);

/**
 * Once every workload of the cluster has returned: read the words the
 * workload writes in each shared block on thread `tid` and record them in
 * `h` as reads, so the history checker compares every address's final
 * value with the history's last write (nothing for micro unless op_size is
 * 8, nor for poll under DSM_POLICY_TTL, stale by design).
 * @return 0, -ENOMEM or the first dsm_read error.
 */
int na_workload_final_reads(struct dsm *d, const struct na_wl_config *cfg,
			    struct na_history *h, uint16_t tid);

/** "none", "micro", "counter", "poll", "rwlock" -> kind; -1 when unknown. */
int na_workload_parse(const char *s);

#endif /* NA_WORKLOAD_H */
