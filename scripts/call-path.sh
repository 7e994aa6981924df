#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The files one dsm_write / dsm_read goes through, measured: na-sim built
# with -finstrument-functions (in $BUILD, default build-callpath), the
# calls under each dsm_write / dsm_read recorded by scripts/call_path_hook.c
# on a short loss-free run, mapped to files by addr2line and counted by
# scripts/call_path.py (files entered, re-entries; docs/ARCHITECTURE.md).
#
#   scripts/call-path.sh                 # every case below
#   scripts/call-path.sh write-queued    # one case
#
# Cases: write-retry, read-retry (switch, retry lock mode), write-voh
# (dsm_write to a validate-on-hit region: the poll workload), write-queued
# (queued lock mode), write-directory (the directory baseline).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build-callpath}
EVENTS=${EVENTS:-20000}

if [ ! -f "$BUILD/build.ninja" ]; then
	meson setup "$BUILD" -Dbuildtype=debug -Dtests=disabled \
		-Dswswitch=disabled \
		"-Dc_args=-finstrument-functions -finstrument-functions-exclude-file-list=node-agent/sched/" >/dev/null
fi
ninja -C "$BUILD" node-agent/na-sim >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O1 -shared -fPIC -o "$tmp/hook.so" scripts/call_path_hook.c -ldl
sim=$BUILD/node-agent/na-sim

run() { # case root na-sim-options...
	local label=$1 root=$2 off
	shift 2
	off=$(nm "$sim" | awk -v f="$root" '$3 == f { print $1 }')
	CALLPATH_ROOT=$off CALLPATH_OUT="$tmp/$label" CALLPATH_MAX=200 \
		LD_PRELOAD="$tmp/hook.so" "$sim" --seed 1 --events "$EVENTS" \
		--loss 0 --dup 0 --quiet "$@" >/dev/null
	python3 scripts/call_path.py "$sim" "$tmp/$label" --label "$label"
}

cases=("$@")
[ ${#cases[@]} -gt 0 ] ||
	cases=(write-retry read-retry write-voh write-queued write-directory)
for c in "${cases[@]}"; do
	case $c in
	write-retry) run "$c" dsm_write ;;
	read-retry) run "$c" dsm_read ;;
	write-voh) run "$c" dsm_write --workload poll --policy validate ;;
	write-queued) run "$c" dsm_write --lock-mode queued ;;
	write-directory) run "$c" dsm_write --directory ;;
	*) echo "call-path.sh: unknown case $c" >&2; exit 2 ;;
	esac
done
