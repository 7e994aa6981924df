/* SPDX-License-Identifier: BSD-3-Clause
 *
 * NIC steering by tag (docs/ARCHITECTURE.md "Multi-lcore"): rte_flow
 * rules that deliver each coherence frame whose UDP source port carries a
 * steering key (lib/wire/lcf_steer.h) to the rx queue of the worker that
 * owns the key, so it never crosses a re-steering ring.
 */
#ifndef SW_STEER_H
#define SW_STEER_H

#include <stdint.h>

/**
 * On topology port `tport`, when it has one rx queue per worker and more
 * than one worker: one rule per steering key, UDP source port
 * lcf_port + 1 + key and destination lcf_port -> rx queue
 * sw_shard_of_key(key, workers). All or none: when the PMD refuses a rule
 * (no rte_flow, no UDP item, no QUEUE action, table full), the rules made so
 * far are flushed and a NOTICE says that frames of other workers' tags will
 * take the software ring, which is always correct, only dearer. Sets
 * sw_app.ports[tport].steer_rules.
 * @return the number of rules installed (0 when none).
 */
unsigned int steer_install(uint16_t tport);

/** Remove the rules of topology port `tport` (before the port stops). */
void steer_remove(uint16_t tport);

#endif /* SW_STEER_H */
