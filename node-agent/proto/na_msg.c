/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Message-type names, for statistics and logs (na_msg.h).
 */
#include <stddef.h>

#include "na_msg.h"

const char *
na_type_name(uint8_t type)
{
	const char *s = lcf_type_name(type);

	if (s)
		return s;
	switch (type) {
#define NA_X_CASE(name, val, str) \
	case val:                 \
		return str;
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
