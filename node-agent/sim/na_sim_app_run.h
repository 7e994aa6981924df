/* SPDX-License-Identifier: BSD-3-Clause
 *
 * `na-sim --app NAME ...`: an application of node-agent/apps on every node
 * of a simulated cluster (na_sim_app.c, docs/SIMULATION.md
 * "Applications").
 */
#ifndef NA_SIM_APP_RUN_H
#define NA_SIM_APP_RUN_H

/**
 * Run na-sim's application mode with its command line.
 * @return the exit status: 0; 1 when a node's application failed; 2 on a
 *   usage error; 3 when the run did not finish (a liveness failure).
 */
int na_sim_app_main(int argc, char **argv);

/**
 * Make application `name` runnable by --app: `main_fn` is its main()
 * built for na-sim (node-agent/simapps registers kv, tpcc and pagerank
 * before main runs). At most 8.
 */
void na_sim_app_register(const char *name, int (*main_fn)(int, char **));

#endif /* NA_SIM_APP_RUN_H */
