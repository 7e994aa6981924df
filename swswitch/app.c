/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The process-wide state every swswitch file shares (swswitch.h): the log
 * type, the application, the quit flag. Defined apart from main.c, which
 * calls into the other files, so that no file both calls and is called by
 * main.c (scripts/check-cycles.py).
 */
#include <rte_log.h>

#include "swswitch.h"

RTE_LOG_REGISTER(sw_logtype, swswitch, INFO);

struct sw_app sw_app;
volatile bool sw_force_quit;
