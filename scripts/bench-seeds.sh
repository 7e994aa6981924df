#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The other papers' mechanisms, one driver (docs/PERFORMANCE.md): SABRes
# atomic object reads (scripts/bench-sabres.sh, docs/SABRES.md),
# validate-on-hit (scripts/bench-voh.sh, docs/VALIDATE.md) and PIPE diff
# write-back (scripts/bench-pipe.sh). Each writes its CSV and PNG into a
# directory of its own under DIR.
#
#   sudo scripts/bench-seeds.sh [--smoke] [--out DIR] [--only sabres,voh,pipe]
#
#   --smoke   for CI: each benchmark's smoke (correctness counters: torn
#             objects, stale reads, diff round trips; never speed)
#
# A benchmark whose script is not in this tree is reported as missing and
# fails the run. Ends with "N passed, M failed"; exit 1 on a failure.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=/tmp/swswitch-bench-seeds smoke=() only=sabres,voh,pipe
while [ $# -gt 0 ]; do
	case $1 in
	--smoke) smoke=(--smoke); shift ;;
	--out) out=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	-h | --help)
		sed -n '2,/^set -uo/p' "$0" | sed -e '/^set -uo/d' -e 's/^# \{0,1\}//'
		exit 0
		;;
	*) echo "bench-seeds.sh: unknown option $1 (--help)" >&2; exit 2 ;;
	esac
done
passed=0 failed=0
IFS=, read -ra names <<<"$only"
for b in "${names[@]}"; do
	script=$here/bench-$b.sh
	echo "=== bench-$b ==="
	if [ ! -x "$script" ]; then
		echo "FAIL  bench-$b: $script not found"
		failed=$((failed + 1))
		continue
	fi
	if "$script" "${smoke[@]}" --out "$out/$b"; then
		passed=$((passed + 1))
	else
		echo "FAIL  bench-$b"
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
