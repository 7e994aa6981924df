/* SPDX-License-Identifier: BSD-3-Clause
 *
 * TPC-C's random inputs; see tpcc_rand.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tpcc_rand.h"

uint64_t
tpcc_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint32_t
tpcc_uniform(uint64_t *s, uint32_t lo, uint32_t hi)
{
	return lo + (uint32_t)(tpcc_rand(s) % ((uint64_t)hi - lo + 1));
}

static double
unit(uint64_t *s)
{
	return (double)(tpcc_rand(s) >> 11) * 0x1.0p-53;
}

uint32_t
tpcc_nurand(uint64_t *s, uint32_t a, uint32_t c, uint32_t x, uint32_t y)
{
	uint32_t r = tpcc_uniform(s, 0, a) | tpcc_uniform(s, x, y);

	return (uint32_t)(((uint64_t)r + c) % ((uint64_t)y - x + 1)) + x;
}

void
tpcc_last_name(uint32_t n, char out[17])
{
	static const char *const syl[10] = { "BAR",   "OUGHT", "ABLE", "PRI",
					     "PRES",  "ESE",   "ANTI", "CALLY",
					     "ATION", "EING" };

	out[0] = '\0';
	strcat(out, syl[n / 100 % 10]);
	strcat(out, syl[n / 10 % 10]);
	strcat(out, syl[n % 10]);
}

void
tpcc_astring(uint64_t *s, char *out, uint32_t lo, uint32_t hi)
{
	static const char cs[] = "abcdefghijklmnopqrstuvwxyz"
				 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	uint32_t n = tpcc_uniform(s, lo, hi);

	for (uint32_t i = 0; i < n; i++)
		out[i] = cs[tpcc_uniform(s, 0, sizeof(cs) - 2)];
	out[n] = '\0';
}

void
tpcc_nstring(uint64_t *s, char *out, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		out[i] = (char)('0' + tpcc_uniform(s, 0, 9));
	out[n] = '\0';
}

void
tpcc_data_string(uint64_t *s, char *out, uint32_t lo, uint32_t hi)
{
	tpcc_astring(s, out, lo, hi);
	if (tpcc_uniform(s, 1, 10) == 1) {
		size_t n = strlen(out);
		uint32_t at = tpcc_uniform(s, 0, (uint32_t)n - 8);

		memcpy(out + at, "ORIGINAL", 8);
	}
}

void
tpcc_consts_init(struct tpcc_consts *c, uint32_t seed)
{
	uint64_t s = (uint64_t)seed * 0x51ed27ull + 0x7c;
	uint32_t delta;

	c->c_last_load = tpcc_uniform(&s, 0, 255);
	/* Clause 2.1.6.1: 65 <= |C_run - C_load| <= 119, not 96 or 112. */
	do {
		c->c_last_run = tpcc_uniform(&s, 0, 255);
		delta = c->c_last_run > c->c_last_load
				? c->c_last_run - c->c_last_load
				: c->c_last_load - c->c_last_run;
	} while (delta < 65 || delta > 119 || delta == 96 || delta == 112);
	c->c_id = tpcc_uniform(&s, 0, 1023);
	c->ol_i_id = tpcc_uniform(&s, 0, 8191);
}

uint32_t
tpcc_gen_c_id(struct tpcc_gen *g)
{
	return tpcc_nurand(&g->rng, 1023, g->c->c_id, 1, g->s->customers);
}

uint32_t
tpcc_gen_c_last(struct tpcc_gen *g)
{
	uint32_t hi = g->s->customers < TPCC_NAMES ? g->s->customers - 1
						   : TPCC_NAMES - 1;

	return tpcc_nurand(&g->rng, 255, g->c->c_last_run, 0, hi);
}

uint32_t
tpcc_gen_other_w(struct tpcc_gen *g, uint32_t w_id)
{
	uint32_t n = tpcc_warehouses(g->s), o;

	if (n < 2)
		return w_id;
	o = tpcc_uniform(&g->rng, 1, n - 1); /* skip w_id */
	return o >= w_id ? o + 1 : o;
}

void
tpcc_gen_new_order(struct tpcc_gen *g, struct tpcc_no_in *in)
{
	memset(in, 0, sizeof(*in));
	in->w_id = g->w_id;
	in->d_id = tpcc_uniform(&g->rng, 1, TPCC_DISTRICTS);
	in->c_id = tpcc_gen_c_id(g);
	in->ol_cnt = tpcc_uniform(&g->rng, TPCC_MIN_OL, TPCC_MAX_OL);
	in->rollback = tpcc_uniform(&g->rng, 1, 100) == 1;
	in->all_local = true;
	for (uint32_t i = 0; i < in->ol_cnt; i++) {
		in->ol[i].i_id = tpcc_nurand(&g->rng, 8191, g->c->ol_i_id, 1,
					     g->s->items);
		in->ol[i].supply_w_id = g->w_id;
		if (unit(&g->rng) < g->item_remote)
			in->ol[i].supply_w_id = tpcc_gen_other_w(g, g->w_id);
		if (in->ol[i].supply_w_id != g->w_id)
			in->all_local = false;
		in->ol[i].quantity = tpcc_uniform(&g->rng, 1, 10);
	}
	if (in->rollback)
		in->ol[in->ol_cnt - 1].i_id = g->s->items + 1; /* unused */
}

void
tpcc_gen_payment(struct tpcc_gen *g, struct tpcc_pay_in *in)
{
	memset(in, 0, sizeof(*in));
	in->w_id = g->w_id;
	in->d_id = tpcc_uniform(&g->rng, 1, TPCC_DISTRICTS);
	in->c_w_id = g->w_id;
	in->c_d_id = in->d_id;
	if (unit(&g->rng) < g->pay_remote) {
		in->c_w_id = tpcc_gen_other_w(g, g->w_id);
		in->c_d_id = tpcc_uniform(&g->rng, 1, TPCC_DISTRICTS);
	}
	in->by_name = tpcc_uniform(&g->rng, 1, 100) <= 60;
	if (in->by_name)
		in->c_last = tpcc_gen_c_last(g);
	else
		in->c_id = tpcc_gen_c_id(g);
	in->amount = tpcc_uniform(&g->rng, 100, 500000);
}

void
tpcc_gen_order_status(struct tpcc_gen *g, struct tpcc_os_in *in)
{
	memset(in, 0, sizeof(*in));
	in->w_id = g->w_id;
	in->d_id = tpcc_uniform(&g->rng, 1, TPCC_DISTRICTS);
	in->by_name = tpcc_uniform(&g->rng, 1, 100) <= 60;
	if (in->by_name)
		in->c_last = tpcc_gen_c_last(g);
	else
		in->c_id = tpcc_gen_c_id(g);
}

void
tpcc_gen_delivery(struct tpcc_gen *g, struct tpcc_del_in *in)
{
	in->w_id = g->w_id;
	in->carrier_id = tpcc_uniform(&g->rng, 1, 10);
}

void
tpcc_gen_stock_level(struct tpcc_gen *g, struct tpcc_sl_in *in)
{
	in->w_id = g->w_id;
	in->d_id = tpcc_uniform(&g->rng, 1, TPCC_DISTRICTS);
	in->threshold = tpcc_uniform(&g->rng, 10, 20);
}

enum tpcc_tx
tpcc_gen_tx(uint64_t *s, const uint32_t mix[TPCC_TX_N])
{
	uint64_t sum = 0, r;

	for (int i = 0; i < TPCC_TX_N; i++)
		sum += mix[i];
	r = tpcc_rand(s) % sum;
	for (int i = 0; i < TPCC_TX_N; i++) {
		if (r < mix[i])
			return (enum tpcc_tx)i;
		r -= mix[i];
	}
	return TPCC_TX_NEW_ORDER; /* not reached */
}

int
tpcc_parse_mix(const char *arg, uint32_t mix[TPCC_TX_N])
{
	const char *p = arg;
	uint64_t sum = 0;

	for (int i = 0; i < TPCC_TX_N; i++) {
		char *end;
		unsigned long v;

		if (*p < '0' || *p > '9')
			return -1;
		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno != 0 || v > 1000000)
			return -1;
		mix[i] = (uint32_t)v;
		sum += v;
		if (i < TPCC_TX_N - 1 && *end != ',')
			return -1;
		if (i == TPCC_TX_N - 1 && *end != '\0')
			return -1;
		p = end + 1;
	}
	return sum > 0 ? 0 : -1;
}
