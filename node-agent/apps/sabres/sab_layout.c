/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Object layouts of the SABRes benchmark; see sab_layout.h.
 */
#include <string.h>

#include "sab_layout.h"

static uint64_t
word_of(uint64_t seed, size_t i)
{
	uint64_t z = seed + 0x9e3779b97f4a7c15ull * (i + 1);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

size_t
sab_farm_size(size_t len)
{
	size_t rest = len > SAB_LINE ? len - SAB_LINE : 0;

	return SAB_LINE * (1 + (rest + SAB_LINE - 3) / (SAB_LINE - 2));
}

void
sab_fill(uint8_t *obj, size_t len, uint64_t seed)
{
	memcpy(obj + 8, &seed, 8);
	for (size_t i = 2; i * 8 < len; i++) {
		uint64_t w = word_of(seed, i);

		memcpy(obj + i * 8, &w, 8);
	}
}

bool
sab_check(const uint8_t *obj, size_t len)
{
	uint64_t seed, w;

	memcpy(&seed, obj + 8, 8);
	for (size_t i = 2; i * 8 < len; i++) {
		memcpy(&w, obj + i * 8, 8);
		if (w != word_of(seed, i))
			return false;
	}
	return true;
}

uint64_t
sab_version(const uint8_t *obj)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | obj[i];
	return v;
}

void
sab_farm_encode(uint8_t *dst, const uint8_t *obj, size_t len, uint64_t version)
{
	size_t at = 8, n = len < SAB_LINE ? len - 8 : SAB_LINE - 8;
	uint8_t *line = dst + SAB_LINE;

	memset(dst, 0, sab_farm_size(len));
	for (int i = 0; i < 8; i++)
		dst[i] = (uint8_t)(version >> (8 * i));
	memcpy(dst + 8, obj + at, n);
	for (at += n; at < len; at += n, line += SAB_LINE) {
		n = len - at < SAB_LINE - 2 ? len - at : SAB_LINE - 2;
		line[0] = (uint8_t)version;
		line[1] = (uint8_t)(version >> 8);
		memcpy(line + 2, obj + at, n);
	}
}

bool
sab_farm_decode(uint8_t *obj, const uint8_t *src, size_t len)
{
	uint64_t v = sab_version(src);
	size_t at = 8, n = len < SAB_LINE ? len - 8 : SAB_LINE - 8;
	const uint8_t *line = src + SAB_LINE;

	if (v & 1)
		return false;
	memcpy(obj, src, 8);
	memcpy(obj + 8, src + 8, n);
	for (at += n; at < len; at += n, line += SAB_LINE) {
		n = len - at < SAB_LINE - 2 ? len - at : SAB_LINE - 2;
		if (line[0] != (uint8_t)v || line[1] != (uint8_t)(v >> 8))
			return false;
		memcpy(obj + at, line + 2, n);
	}
	return true;
}
