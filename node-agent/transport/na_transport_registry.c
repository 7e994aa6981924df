/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Transport registry: the transports by name.
 */
#include <string.h>

#include "na_transport.h"

const struct na_transport_ops *
na_transport_find(const char *name)
{
	static const struct na_transport_ops *const all[] = {
		&na_transport_udp,
		&na_transport_udp_nosteer,
		&na_transport_verbs,
	};

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(all[i]->name, name))
			return all[i];
	return NULL;
}
