/* SPDX-License-Identifier: BSD-3-Clause
 *
 * TPC-C's random inputs (clauses 2.1.6, 2.4.1, 2.5.1, 2.6.1, 2.7.1, 2.8.1,
 * 4.3.2): NURand, last names, the strings of the initial population, and
 * the input of each transaction, including the distribution ratio (the
 * chance that an access goes to another thread's warehouse). Pure.
 */
#ifndef TPCC_RAND_H
#define TPCC_RAND_H

#include <stdbool.h>
#include <stdint.h>

#include "tpcc.h"

/** splitmix64 state (the same generator as app_rand). */
uint64_t tpcc_rand(uint64_t *s);

/** Uniform in [lo, hi] (both inclusive, lo <= hi). */
uint32_t tpcc_uniform(uint64_t *s, uint32_t lo, uint32_t hi);

/** NURand(A, x, y) with run-time constant c (clause 2.1.6). */
uint32_t tpcc_nurand(uint64_t *s, uint32_t a, uint32_t c, uint32_t x,
		     uint32_t y);

/** C_LAST of name number n (0..999), at most 15 characters + NUL. */
void tpcc_last_name(uint32_t n, char out[17]);

/** A random alphanumeric string of lo..hi characters, NUL-terminated. */
void tpcc_astring(uint64_t *s, char *out, uint32_t lo, uint32_t hi);

/** A random numeric string of exactly n digits. */
void tpcc_nstring(uint64_t *s, char *out, uint32_t n);

/** S_DATA/I_DATA: lo..hi characters, "ORIGINAL" inside 10% of them. */
void tpcc_data_string(uint64_t *s, char *out, uint32_t lo, uint32_t hi);

/* The run-time constants C of NURand (clause 2.1.6.1), the same on every
 * node: derived from the seed. */
struct tpcc_consts {
	uint32_t c_last_load;
	uint32_t c_last_run;
	uint32_t c_id;
	uint32_t ol_i_id;
};

void tpcc_consts_init(struct tpcc_consts *c, uint32_t seed);

/* What a thread generates inputs with. */
struct tpcc_gen {
	const struct tpcc_scale *s;
	const struct tpcc_consts *c;
	uint32_t w_id;      /* the thread's home warehouse (1-based) */
	double item_remote; /* P(an order line's supply warehouse is remote) */
	double pay_remote;  /* P(a Payment's customer warehouse is remote) */
	uint64_t rng;
};

/** The defaults of TPC-C: 1% remote order lines, 15% remote payments. */
#define TPCC_SPEC_ITEM_REMOTE 0.01
#define TPCC_SPEC_PAY_REMOTE  0.15

struct tpcc_no_in {
	uint32_t w_id, d_id, c_id;
	uint32_t ol_cnt;
	bool rollback; /* the last line has an unused I_ID (1%) */
	bool all_local;
	struct {
		uint32_t i_id, supply_w_id, quantity;
	} ol[TPCC_MAX_OL];
};

struct tpcc_pay_in {
	uint32_t w_id, d_id, c_w_id, c_d_id;
	bool by_name;
	uint32_t c_id;   /* when !by_name */
	uint32_t c_last; /* name number, when by_name */
	int64_t amount;  /* cents: 1.00 .. 5000.00 */
};

struct tpcc_os_in {
	uint32_t w_id, d_id;
	bool by_name;
	uint32_t c_id, c_last;
};

struct tpcc_del_in {
	uint32_t w_id, carrier_id;
};

struct tpcc_sl_in {
	uint32_t w_id, d_id, threshold;
};

/* Customer selection at run time (clause 2.5.1.2): the name numbers of a
 * scaled district are those its first min(1000, customers) customers
 * carry, so every generated name exists. */
uint32_t tpcc_gen_c_id(struct tpcc_gen *g);
uint32_t tpcc_gen_c_last(struct tpcc_gen *g);

/** Another warehouse than w_id, uniformly (w_id when there is one). */
uint32_t tpcc_gen_other_w(struct tpcc_gen *g, uint32_t w_id);

void tpcc_gen_new_order(struct tpcc_gen *g, struct tpcc_no_in *in);
void tpcc_gen_payment(struct tpcc_gen *g, struct tpcc_pay_in *in);
void tpcc_gen_order_status(struct tpcc_gen *g, struct tpcc_os_in *in);
void tpcc_gen_delivery(struct tpcc_gen *g, struct tpcc_del_in *in);
void tpcc_gen_stock_level(struct tpcc_gen *g, struct tpcc_sl_in *in);

/** Transaction types, in the order of --mix. */
enum tpcc_tx {
	TPCC_TX_NEW_ORDER,
	TPCC_TX_PAYMENT,
	TPCC_TX_ORDER_STATUS,
	TPCC_TX_DELIVERY,
	TPCC_TX_STOCK_LEVEL,
	TPCC_TX_N,
};

/** Pick a type with weights `mix` (sum > 0). */
enum tpcc_tx tpcc_gen_tx(uint64_t *s, const uint32_t mix[TPCC_TX_N]);

/**
 * Parse --mix "NO,P,OS,D,SL" (whole-number weights, sum > 0).
 * @return 0, or -1.
 */
int tpcc_parse_mix(const char *arg, uint32_t mix[TPCC_TX_N]);

#endif /* TPCC_RAND_H */
