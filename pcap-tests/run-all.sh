#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# pcap-tests: the single entry point (docs/PCAP-TESTS.md).
#
#   pcap-tests/run-all.sh [SWSWITCH]        (or SWSWITCH=... pcap-tests/run-all.sh)
#
# 1. builds the pcaps of every vector (gen_pcaps.py -> $PCAP_TESTS_OUT)
# 2. checks the Lua dissector with tshark on them
# 3. plays every vector through the real swswitch (run_vectors.py; root:
#    veth pairs and raw sockets)
# 4. runs the malformed-frame flood (flood/run_flood.py, $FLOOD_FRAMES frames,
#    default 200000)
# Exits non-zero when any part fails.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
PY=${PYTHON:-/usr/bin/python3}
SW=${1:-${SWSWITCH:-}}
OUT=${PCAP_TESTS_OUT:-$here/out}
FLOOD_FRAMES=${FLOOD_FRAMES:-200000}
LUA="$root/lib/dissector/lcf.lua"
export SWSWITCH_LCORE="${SWSWITCH_LCORE:-0}"

if [ -z "$SW" ] || [ ! -x "$SW" ]; then
	echo "run-all.sh: give the swswitch binary as \$1 or \$SWSWITCH" >&2
	exit 2
fi
SW=$(cd "$(dirname "$SW")" && pwd)/$(basename "$SW")

failed=""
t0=$(date +%s)

echo "== 1/4 generate pcaps"
if ! "$PY" "$here/gen_pcaps.py" --out "$OUT"; then
	failed="$failed generate"
fi

echo "== 2/4 dissector (tshark -X lua_script:lib/dissector/lcf.lua)"
if command -v tshark >/dev/null 2>&1; then
	got=$(tshark -X "lua_script:$LUA" -r "$OUT/060-fig8-retransmitted-read-miss-and-unlock/in.pcap" \
		-T fields -e lcf.type 2>/dev/null | tr '\n' ' ')
	want="ADD_TO_SWITCH READ_MISS READ_MISS READ_UNLOCK READ_UNLOCK WRITE_SHARED "
	got2=$(tshark -X "lua_script:$LUA" -r "$OUT/060-fig8-retransmitted-read-miss-and-unlock/expected_port0.pcap" \
		-T fields -e lcf.type -e lcf.gstatus -e lcf.flags.in_switch 2>/dev/null | head -1 | tr '\t' ' ')
	want2="MIGRATE_ACK Shared 1"
	got3=$(tshark -X "lua_script:$LUA" -r "$OUT/109-drop-reserved-flags/in.pcap" \
		-T fields -e lcf.drop_reason 2>/dev/null | sort -u | tr '\n' ' ')
	if [ "$got" = "$want" ] && [ "$got2" = "$want2" ] && [ "$got3" = "reserved_flags_set " ]; then
		echo "dissector ok: lcf.type = $got"
	else
		echo "dissector FAILED:"
		echo "  lcf.type:        got '$got', want '$want'"
		echo "  ack fields:      got '$got2', want '$want2'"
		echo "  lcf.drop_reason: got '$got3', want 'reserved_flags_set '"
		failed="$failed dissector"
	fi
else
	echo "tshark not installed: dissector check FAILED"
	failed="$failed dissector"
fi

echo "== 3/4 vectors through $SW"
if ! "$PY" "$here/run_vectors.py" --swswitch "$SW" --retries "${VECTOR_RETRIES:-1}"; then
	failed="$failed vectors"
fi

echo "== 4/4 flood ($FLOOD_FRAMES frames)"
if ! "$PY" "$here/flood/run_flood.py" --swswitch "$SW" --frames "$FLOOD_FRAMES"; then
	failed="$failed flood"
fi

echo "== pcap-tests finished in $(( $(date +%s) - t0 ))s"
if [ -n "$failed" ]; then
	echo "pcap-tests FAILED:$failed"
	exit 1
fi
echo "pcap-tests passed"
