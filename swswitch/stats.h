/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Statistics: one JSON document (jansson) printed at exit and served, with
 * the register read-outs, through DPDK telemetry.
 */
#ifndef SW_STATS_H
#define SW_STATS_H

#include <stdio.h>

#include <jansson.h>

/**
 * The statistics document. At most two levels deep (a top-level object
 * whose members are scalars, arrays of integers, or objects of scalars), so
 * telemetry can carry exactly the same document.
 *
 * @return a new reference, or NULL when out of memory.
 */
json_t *stats_json(void);

/**
 * Print the statistics as one JSON object on `f`.
 *
 * @return 0 or -EIO.
 */
int stats_print(FILE *f);

/**
 * Write the statistics to `path`.
 *
 * @return 0, or a negative errno.
 */
int stats_write_file(const char *path);

/**
 * Register the /swswitch/... telemetry commands. Call once the workers'
 * pipelines exist.
 *
 * @return 0 or a negative errno.
 */
int stats_telemetry_register(void);

/**
 * Make the telemetry commands answer "stopping" from now on; returns once
 * no callback is still reading the switch, so its state can be freed.
 */
void stats_telemetry_stop(void);

#endif /* SW_STATS_H */
