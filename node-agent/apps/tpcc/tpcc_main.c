/* SPDX-License-Identifier: BSD-3-Clause
 *
 * dsm_tpcc: TPC-C over libdsm (paper section 7.4, Figure 15): one warehouse
 * per application thread, the five transactions under two-phase locking
 * with the no-wait rule, a distribution ratio sending accesses to other
 * threads' warehouses, and TPC-C's consistency conditions checked after
 * the run. README.md has the design; tpcc_run.c the measured phase.
 *
 *   dsm_tpcc --topo FILE --node N [--nodes K] [--threads T] [--mode M]
 *            [--dist-ratio R] [--mix NO,P,OS,D,SL] [--items N]
 *            [--customers-per-district N] [--max-orders N]
 *            [--placement stripe|local] [common options]
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsm_app.h"
#include "tpcc_run.h"

static void
usage(FILE *f, const char *prg)
{
	fprintf(f,
		"Usage: %s --topo FILE --node N [options]\n"
		"TPC-C on the DSM: one warehouse per thread (warehouses = "
		"nodes x threads),\n"
		"two-phase locking with no-wait; exit 1 when a consistency "
		"condition fails.\n"
		"TPC-C options:\n"
		"  --dist-ratio R    probability in 0..1 that an order line's "
		"supply warehouse,\n"
		"                    or a Payment's customer warehouse, is "
		"another thread's\n"
		"                    (default: TPC-C's 0.01 and 0.15)\n"
		"  --mix A,B,C,D,E   weights of New-Order, Payment, "
		"Order-Status, Delivery,\n"
		"                    Stock-Level (default 45,43,4,4,4)\n"
		"  --items N         ITEM rows and STOCK rows per warehouse "
		"(default 10000;\n"
		"                    TPC-C: 100000)\n"
		"  --customers-per-district N  also the initial orders per "
		"district (default\n"
		"                    300; TPC-C: 3000)\n"
		"  --max-orders N    order slots per district, initial ones "
		"included (default\n"
		"                    3000); the run stops early when one "
		"fills up\n"
		"  --placement P     stripe: warehouse w's rows at node w mod "
		"nodes (default);\n"
		"                    local: at the node of its thread\n"
		"  --inject-bug      test of the check: each thread's first "
		"Payment leaves\n"
		"                    D_YTD unchanged, so the run must fail "
		"(condition 1)\n"
		"  (--mem-mb defaults to what the scale needs)\n",
		prg);
	app_opts_usage(f);
}

static int
parse(int argc, char **argv, struct app_opts *o, struct tpcc_opts *t)
{
	static const struct option opts[] = {
		APP_OPTS_LONG,
		{ "dist-ratio", required_argument, NULL, 'r' },
		{ "mix", required_argument, NULL, 'x' },
		{ "items", required_argument, NULL, 'i' },
		{ "customers-per-district", required_argument, NULL, 'c' },
		{ "max-orders", required_argument, NULL, 'm' },
		{ "placement", required_argument, NULL, 'p' },
		{ "inject-bug", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c, r;

	app_opts_init(o);
	o->mem_mb = 0; /* not given: tpcc_main sizes it for the scale */
	tpcc_opts_init(t);
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		r = app_opts_take(o, c, optarg);
		if (r < 0)
			return 2;
		if (r == 1)
			continue;
		switch (c) {
		case 'r':
			if (app_parse_double(optarg, 0, 1, &t->dist_ratio)) {
				fprintf(stderr,
					"--dist-ratio: a probability in 0..1, "
					"got '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'x':
			if (tpcc_parse_mix(optarg, t->mix) != 0) {
				fprintf(stderr,
					"--mix: five whole-number weights "
					"NO,P,OS,D,SL with a positive sum, got "
					"'%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'i':
		case 'c':
		case 'm':
			if (app_parse_u64(optarg, 10000000, &v) != 0 ||
			    v == 0) {
				fprintf(stderr,
					"--%s: a positive whole number, got "
					"'%s'\n",
					c == 'i'   ? "items"
					: c == 'c' ? "customers-per-district"
						   : "max-orders",
					optarg);
				return 2;
			}
			if (c == 'i')
				t->items = (uint32_t)v;
			else if (c == 'c')
				t->customers = (uint32_t)v;
			else
				t->max_orders = (uint32_t)v;
			break;
		case 'p':
			if (!strcmp(optarg, "stripe")) {
				t->placement = TPCC_PLACE_STRIPE;
			} else if (!strcmp(optarg, "local")) {
				t->placement = TPCC_PLACE_LOCAL;
			} else {
				fprintf(stderr,
					"--placement: stripe or local, got "
					"'%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'b':
			t->inject_bug = true;
			break;
		case 'h':
			usage(stdout, argv[0]);
			return 0;
		default:
			usage(stderr, argv[0]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s' (--help)\n",
			argv[0], argv[optind]);
		return 2;
	}
	return app_opts_check(o, argv[0]) != 0 ? 2 : -1;
}

int
main(int argc, char **argv)
{
	struct app_opts o;
	struct tpcc_opts t;
	int rc = parse(argc, argv, &o, &t);

	if (rc >= 0)
		return rc;
	return tpcc_main(&o, &t);
}
