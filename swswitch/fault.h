/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Fault injection: drop, duplicate or delay (and so reorder) LCF frames,
 * chosen by type and direction, with a probability and a seed. It lets the
 * node agents' loss handling (paper 5.3) be tested against a real switch.
 *
 * Direction "in" is a frame as it enters the switch (before the pipeline),
 * "out" a frame the switch sends (pipeline copies and L2-switched node
 * messages alike). Only frames to the LCF UDP port are eligible.
 */
#ifndef SW_FAULT_H
#define SW_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

#define FAULT_MAX_RULES 8

enum fault_dir {
	FAULT_IN,
	FAULT_OUT,
	FAULT_N_DIR
};
enum fault_action {
	FAULT_DROP,
	FAULT_DUP,
	FAULT_DELAY,
	FAULT_N_ACTION
};

struct fault_rule {
	uint8_t action;     /* enum fault_action */
	uint8_t dirs;       /* bit per enum fault_dir */
	uint32_t threshold; /* fires when a 32-bit random < threshold */
	uint64_t types[4];  /* bitmap of the 256 LCF types */
};

struct fault_config {
	unsigned int n_rules;
	struct fault_rule rules[FAULT_MAX_RULES];
	uint64_t seed;
	uint32_t delay_us; /* how long a delayed frame is held */
};

struct fault_lcore;

/**
 * Parse "ACTION:TYPES:DIR:PROB", e.g. "drop:requests+unlocks:out:0.01".
 * ACTION drop|dup|delay; TYPES all|requests|unlocks|migrate|replies|node or
 * a type name (READ_MISS) or number (0x21), joined with '+'; DIR in|out|both;
 * PROB a probability in [0, 1].
 *
 * @return 0, or -EINVAL with a message in `err`.
 */
int fault_parse_rule(const char *spec, struct fault_rule *r, char *err,
		     size_t err_len);

/**
 * Per-lcore fault state (own PRNG stream and delay queues).
 *
 * @return the state, or NULL when cfg has no rule or memory is short.
 */
struct fault_lcore *fault_lcore_create(const struct fault_config *cfg,
				       unsigned int worker, uint16_t lcf_port,
				       struct rte_mempool *copy_pool,
				       int socket);

/** Free the state and every frame it still holds. */
void fault_lcore_free(struct fault_lcore *f);

/**
 * Apply the rules to frame `m` travelling in `dir` on topology port `port`.
 *
 * @return true when the frame was consumed (dropped, or held for a delay);
 *         false when the caller goes on with it, and with *dup too when a
 *         duplicate was made (otherwise *dup is NULL).
 */
bool fault_apply(struct fault_lcore *f, enum fault_dir dir, uint16_t port,
		 struct rte_mbuf *m, struct rte_mbuf **dup);

/**
 * The next delayed frame of `dir` whose time has come, or NULL.
 * *port is its topology port.
 */
struct rte_mbuf *fault_pop(struct fault_lcore *f, enum fault_dir dir,
			   uint64_t now_tsc, uint16_t *port);

/** Add this lcore's counters into count[dir][action]; *overflow too. */
void fault_counters(const struct fault_lcore *f,
		    uint64_t count[FAULT_N_DIR][FAULT_N_ACTION],
		    uint64_t *overflow);

#endif /* SW_FAULT_H */
