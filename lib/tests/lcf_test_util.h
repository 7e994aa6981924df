/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Helpers for the pipeline tests: a pipeline built from a topology file and
 * a driver that plays the caller's part (re-injecting resubmits).
 */
#ifndef LCF_TEST_UTIL_H
#define LCF_TEST_UTIL_H

#include <errno.h>

#include "lcf_pipeline.h"
#include "lcf_wire.h"
#include "topo.h"

extern struct topo tu_topo;
extern struct lcf_pipeline *tu_p;

/** Load topo/<name> and build a pipeline (seed 1); aborts the test on error. */
void tu_setup(const char *topo_name);

/** Free the pipeline. */
void tu_teardown(void);

/** Block `idx` of home node `home` as a tag. */
uint64_t tu_tag(uint32_t home, uint64_t idx);

/** A message of `type` from node/thread with seq for tag. */
struct lcf_msg tu_msg(uint8_t type, uint16_t node, uint16_t thread,
		      uint32_t seq, uint64_t tag);

/** One pass, entering on the port of msg->node. */
void tu_pass(const struct lcf_msg *m, bool resubmitted, uint64_t md,
	     struct lcf_result *res);

/**
 * Send a message the way swswitch does: one pass, and when it asks for a
 * resubmit, the second pass at once. `passes` (may be NULL) gets 1 or 2.
 */
void tu_send(const struct lcf_msg *m, struct lcf_result *res, int *passes);

/** tu_send() of a message from thread 0 carrying gstatus and copyset. */
struct lcf_result tu_send_meta(uint8_t type, uint16_t node, uint32_t seq,
			       uint64_t tag, uint8_t gstatus, uint32_t copyset,
			       int *passes);

/** ADD_TO_SWITCH from the tag's home node; asserts success. */
void tu_add(uint64_t tag, uint8_t gstatus, uint32_t copyset);

/** Read a block's registers; asserts it is present. */
struct lcf_block_view tu_block(uint64_t tag);

/** Read a requester's registers. */
struct lcf_requester_view tu_requester(uint16_t node, uint16_t thread);

/** The counter of action `a`. */
uint64_t tu_count(enum lcf_action a);

#define BIT(n) (1u << (n))

#endif
