/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Q_GRANT's queue entries on the wire (na_qgrant.h).
 */
#include <errno.h>

#include "na_qgrant.h"

static void
put_be(uint8_t *p, uint32_t v, int bytes)
{
	for (int i = bytes - 1; i >= 0; i--) {
		p[i] = (uint8_t)v;
		v >>= 8;
	}
}

static uint32_t
get_be(const uint8_t *p, int bytes)
{
	uint32_t v = 0;

	for (int i = 0; i < bytes; i++)
		v = v << 8 | p[i];
	return v;
}

int
na_qg_encode(const struct na_qg_entry *e, uint32_t n, uint8_t *buf, size_t cap)
{
	if ((size_t)n * NA_QG_ENTRY > cap)
		return -ENOSPC;
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *p = buf + (size_t)i * NA_QG_ENTRY;

		put_be(p, e[i].node, 2);
		put_be(p + 2, e[i].thread, 2);
		put_be(p + 4, e[i].seq, 4);
		p[8] = e[i].type;
		p[9] = e[i].cls;
		put_be(p + 10, 0, 2);
		put_be(p + 12, e[i].index, 4);
	}
	return (int)(n * NA_QG_ENTRY);
}

int
na_qg_decode(const uint8_t *buf, size_t len, struct na_qg_entry *e,
	     uint32_t cap)
{
	size_t n = len / NA_QG_ENTRY;

	if (len % NA_QG_ENTRY)
		return -EINVAL;
	if (n > cap)
		return -ENOSPC;
	for (size_t i = 0; i < n; i++)
		if (get_be(buf + i * NA_QG_ENTRY + 10, 2) != 0)
			return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		const uint8_t *p = buf + i * NA_QG_ENTRY;

		e[i] = (struct na_qg_entry){
			.node = (uint16_t)get_be(p, 2),
			.thread = (uint16_t)get_be(p + 2, 2),
			.seq = get_be(p + 4, 4),
			.type = p[8],
			.cls = p[9],
			.index = get_be(p + 12, 4),
		};
	}
	return (int)n;
}
