/* SPDX-License-Identifier: BSD-3-Clause
 *
 * swswitch's trace ring: allocation and the file written at exit. See
 * trace.h.
 */
#include <errno.h>
#include <stdio.h>

#include "trace.h"

struct lcf_trace sw_trace;

int
sw_trace_init(uint32_t every)
{
	return lcf_trace_init(&sw_trace, LCF_TRACE_SWITCH, every, 1u << 20);
}

int
sw_trace_write(const char *path)
{
	FILE *f;
	int rc = 0;

	if (path != NULL && sw_trace.every) {
		f = fopen(path, "wb");
		rc = f != NULL ? lcf_trace_dump(&sw_trace, f) : -EIO;
		if (f != NULL && fclose(f) != 0)
			rc = -EIO;
	}
	lcf_trace_fini(&sw_trace);
	return rc;
}
