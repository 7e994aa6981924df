# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Sourced by the scripts that check histories (test-sim.sh, sim-sweep.sh,
# cluster_test_lib.sh).
#
#   history_checker BUILD_DIR   prints the checker to run: $CHECK_HISTORY
#                               when set, else BUILD_DIR's check-history
#                               (the C build), else check_history.py (the
#                               reference, ~10x slower; a note on stderr).
#                               Same arguments, output and exit codes.
history_checker() {
	local c=${CHECK_HISTORY:-$1/node-agent/checker/check-history}
	if [ ! -x "$c" ]; then
		echo "note: $c not built: histories checked by check_history.py (the reference, ~10x slower)" >&2
		c=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/node-agent/checker/check_history.py
	fi
	echo "$c"
}
