/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The applications na-sim runs (`--app`, docs/SIMULATION.md
 * "Applications"): node-agent/apps' kv, tpcc and pagerank, their main()s
 * renamed when built for na-sim (node-agent/meson.build). Registered before
 * main() so that node-agent/sim depends on no application.
 */
#include "na_sim_app_run.h"

int na_sim_main_kv(int argc, char **argv);
int na_sim_main_tpcc(int argc, char **argv);
int na_sim_main_pagerank(int argc, char **argv);

__attribute__((constructor)) static void
register_apps(void)
{
	na_sim_app_register("kv", na_sim_main_kv);
	na_sim_app_register("tpcc", na_sim_main_tpcc);
	na_sim_app_register("pagerank", na_sim_main_pagerank);
}
