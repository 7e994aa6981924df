/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Transport registry, and message-type names for statistics.
 */
#include <string.h>

#include "na_msg.h"
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

const char *
na_type_name(uint8_t type)
{
	const char *s = lcf_type_name(type);

	if (s)
		return s;
	switch (type) {
#define NA_X_CASE(name, val, str) case val: return str;
	NA_MSG_LIST(NA_X_CASE)
#undef NA_X_CASE
	case NA_MSG_VERBS_CONNECT_REQ:
		return "VERBS_CONNECT_REQ";
	case NA_MSG_VERBS_CONNECT_REP:
		return "VERBS_CONNECT_REP";
	default:
		return "?";
	}
}
