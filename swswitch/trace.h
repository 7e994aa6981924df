/* SPDX-License-Identifier: BSD-3-Clause
 *
 * swswitch's side of the sampled latency trace (lib/trace/lcf_trace.h):
 * a pipeline pass of a sampled event is recorded as SW_IN / SW_OUT (two
 * clock reads, only for sampled events). --trace FILE and --trace-every N.
 */
#ifndef SW_TRACE_H
#define SW_TRACE_H

#include "lcf_trace.h"
#include "lcf_wire.h"

extern struct lcf_trace sw_trace;

/** Allocate the ring (--trace-every; 0: off). @return 0 or -errno. */
int sw_trace_init(uint32_t every);

/** Write the ring to `path` (NULL: nothing) and free it. @return 0/-EIO. */
int sw_trace_write(const char *path);

/* Record `point` for `msg` on `port` when its event is sampled. */
static inline void
sw_trace_msg(uint8_t point, const struct lcf_msg *msg, uint16_t port,
	     uint64_t aux)
{
	if (__builtin_expect(sw_trace.every != 0, 0) &&
	    lcf_trace_sampled(msg->node, msg->thread, msg->seq, sw_trace.every))
		lcf_trace_put(&sw_trace, lcf_trace_clock_ns(), point, msg->type,
			      msg->node, msg->thread, msg->seq, port, aux);
}

#endif /* SW_TRACE_H */
