/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Text as Python sees it (ch.h): str.strip()'s whitespace, int(s, 0), and
 * the UTF-8 its decoder accepts (no overlong forms, no surrogates, nothing
 * beyond U+10FFFF).
 */
#include <stddef.h>
#include <string.h>

#include "ch.h"

/* The length of the whitespace character at s (Python's str.isspace), or 0. */
static size_t
space_at(const unsigned char *s, const unsigned char *e)
{
	size_t n = (size_t)(e - s);

	if ((*s >= 0x09 && *s <= 0x0d) || (*s >= 0x1c && *s <= 0x20))
		return 1;
	if (n >= 2 && s[0] == 0xc2 && (s[1] == 0x85 || s[1] == 0xa0))
		return 2;
	if (n < 3)
		return 0;
	if (s[0] == 0xe1 && s[1] == 0x9a && s[2] == 0x80)
		return 3; /* U+1680 */
	if (s[0] == 0xe2 && s[1] == 0x80 &&
	    (s[2] <= 0x8a || s[2] == 0xa8 || s[2] == 0xa9 || s[2] == 0xaf))
		return 3; /* U+2000..200A, 2028, 2029, 202F */
	if (s[0] == 0xe2 && s[1] == 0x81 && s[2] == 0x9f)
		return 3; /* U+205F */
	if (s[0] == 0xe3 && s[1] == 0x80 && s[2] == 0x80)
		return 3; /* U+3000 */
	return 0;
}

void
ch_strip(const char **b, const char **e)
{
	const unsigned char *s = (const unsigned char *)*b;
	const unsigned char *t = (const unsigned char *)*e;
	size_t k;

	while (s < t && (k = space_at(s, t)) > 0)
		s += k;
	while (s < t) {
		/* the last character starts at the last non-continuation byte */
		const unsigned char *c = t - 1;

		while (c > s && (*c & 0xc0) == 0x80)
			c--;
		if (space_at(c, t) != (size_t)(t - c))
			break;
		t = c;
	}
	*b = (const char *)s;
	*e = (const char *)t;
}

static int
digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 10;
	return 99;
}

int
ch_pyint(const char *s, size_t len, ch_int *out)
{
	const char *p = s, *e = s + len;
	int neg = 0, base = 10, big = 0, ndig = 0, allzero = 1;
	ch_int x = 0;

	/* the common case, "0x" and up to 16 hex digits: no strip, no checks */
	if (len > 2 && len <= 18 && s[0] == '0' && s[1] == 'x') {
		uint64_t u = 0;
		size_t k = 2;

		for (; k < len; k++) {
			int d = digit_value(s[k]);

			if (d >= 16)
				break;
			u = u << 4 | (uint64_t)d;
		}
		if (k == len) {
			*out = (ch_int)u;
			return 0;
		}
	}
	ch_strip(&p, &e);
	if (p < e && (*p == '+' || *p == '-'))
		neg = *p++ == '-';
	if (e - p >= 2 && p[0] == '0') {
		char c = p[1];

		base = (c == 'x' || c == 'X')   ? 16
		       : (c == 'o' || c == 'O') ? 8
		       : (c == 'b' || c == 'B') ? 2
						: 10;
		if (base != 10) {
			p += 2;
			if (p < e &&
			    *p == '_') /* one allowed after the prefix */
				p++;
		}
	}
	if (p >= e || *p == '_')
		return -1;
	for (; p < e; p++) {
		int d;

		if (*p == '_') {
			if (p + 1 >= e || p[1] == '_')
				return -1;
			continue;
		}
		d = digit_value(*p);
		if (d >= base)
			return -1;
		if (d)
			allzero = 0;
		/* decimal: no leading zero unless the number is zero */
		if (base == 10 && ndig > 0 && !allzero && x == 0)
			return -1;
		ndig++;
		if (!big) {
			x = x * base + d;
			if (x >= CH_INT_MAX)
				big = 1;
		}
	}
	if (big)
		return -2;
	*out = neg ? -x : x;
	return 0;
}

int
ch_utf8_valid(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str, *e = s + len;

	while (s < e) {
		unsigned c = *s;
		size_t n;
		uint64_t w;

		/* ASCII, 8 bytes at a time */
		if (e - s >= 8) {
			memcpy(&w, s, 8);
			if ((w & 0x8080808080808080u) == 0) {
				s += 8;
				continue;
			}
		}
		unsigned lo = 0x80, hi = 0xbf;

		if (c < 0x80) {
			s++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			n = 1;
		} else if (c >= 0xe0 && c <= 0xef) {
			n = 2;
			if (c == 0xe0)
				lo = 0xa0; /* overlong */
			if (c == 0xed)
				hi = 0x9f; /* surrogates */
		} else if (c >= 0xf0 && c <= 0xf4) {
			n = 3;
			if (c == 0xf0)
				lo = 0x90;
			if (c == 0xf4)
				hi = 0x8f; /* beyond U+10FFFF */
		} else {
			return 0;
		}
		if ((size_t)(e - s) <= n || s[1] < lo || s[1] > hi)
			return 0;
		for (size_t k = 2; k <= n; k++)
			if ((s[k] & 0xc0) != 0x80)
				return 0;
		s += n + 1;
	}
	return 1;
}
