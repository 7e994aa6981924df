/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The simulated cluster's transport: na_transport.h over the simulated
 * network (na_sim_net.h). Sends become frames on the network; nothing is
 * received through it, the network delivers to na_node_receive itself
 * (the nodes run with external_dispatch).
 */
#ifndef NA_TRANSPORT_SIM_H
#define NA_TRANSPORT_SIM_H

#include "na_sim_net.h"
#include "na_transport.h"

extern const struct na_transport_ops na_transport_sim;

/** The network that transports opened from now on send into. */
void na_transport_sim_bind(struct na_sim_net *net);

#endif /* NA_TRANSPORT_SIM_H */
