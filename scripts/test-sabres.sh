#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# SABRes on a 2-node namespace cluster (docs/SABRES.md):
#   1. capture: one reader, no writer, 3 reads of an 8 KB object while
#      dumpcap records node 1's interface; the capture (decoded with
#      lib/dissector/lcf.lua) must show per attempt exactly one
#      SABRE_REG, 8 SABRE_READ, 8 SABRE_DATA and one SABRE_VALID, and node
#      1's counters by type the same: 3 attempts, or more when a read timed
#      out and was retried (a loaded machine), never an abort (no writer);
#   2. torn objects: 2 writers rewriting self-checking 8 KB objects on
#      node 0, 2 readers on node 1, 4 s: 0 torn objects and a non-zero
#      abort count (the node's "sabres" statistics).
#
#   sudo scripts/test-sabres.sh [--keep DIR]
#
# Env: BUILD (default build), SWCL_ID (cluster id, default s). Ends with
# "N passed, M failed".
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
build=${BUILD:-build}
[[ $build = /* ]] || build=$repo/$build
export SWCL_ID=${SWCL_ID:-s}
[ "$(id -u)" = 0 ] || { echo "test-sabres.sh: must run as root" >&2; exit 2; }
out=$(mktemp -d /tmp/test-sabres.XXXXXX)
[ "${1:-}" = --keep ] && out=$2 && mkdir -p "$out"
topo=$repo/topo/demo2.json
bin=$build/node-agent/apps/dsm_sabres
cl=$here/cluster.sh
passed=0
failed=0
check() { # NAME CONDITION-STATUS
	if [ "$2" = 0 ]; then
		echo "ok   $1"
		passed=$((passed + 1))
	else
		echo "FAIL $1"
		failed=$((failed + 1))
	fi
}
cleanup() {
	if [ -n "${dc:-}" ]; then kill "$dc" 2> /dev/null || true; fi
	"$cl" down > /dev/null 2>&1 || true
}
trap cleanup EXIT
"$cl" up "$topo" --swswitch "$build/swswitch/swswitch" --force > "$out/up.log" 2>&1

# pair TAG NODE0-ARGS -- NODE1-ARGS: node 0 in the background, node 1 here.
pair() {
	local tag=$1 a0=() a1=()
	shift
	while [ "$1" != -- ]; do a0+=("$1"); shift; done
	shift
	a1=("$@")
	"$cl" restart-switch > "$out/$tag-switch.log" 2>&1
	"$cl" exec 0 "$bin" --topo "$topo" --node 0 --nodes 2 --mode home \
		--stats "$out/$tag-n0.json" "${a0[@]}" > "$out/$tag-n0.out" 2>&1 &
	local p0=$!
	local rc1=0
	timeout 120 "$cl" exec 1 "$bin" --topo "$topo" --node 1 --nodes 2 \
		--mode home --stats "$out/$tag-n1.json" "${a1[@]}" \
		> "$out/$tag-n1.out" 2>&1 || rc1=$?
	local rc0=0
	wait "$p0" || rc0=$?
	return $((rc0 | rc1))
}

# 1. capture
# In node 1's namespace: swswitch's own transmissions do not show on the
# switch-side veth (af_packet bypasses the qdisc taps).
"$cl" exec 1 dumpcap -q -i eth0 -f "udp port 7340" -w "$out/sabres.pcap" \
	> "$out/dumpcap.log" 2>&1 &
dc=$!
sleep 2
rc=0
pair capture --threads 1 --writers 0 --size 8192 --objects 4 --duration 30 \
	-- --threads 1 --size 8192 --objects 4 --reads 3 --duration 30 || rc=$?
sleep 1
kill -INT "$dc" || true
wait "$dc" || true
dc=
check "capture run exits 0" "$rc"
tshark -X lua_script:"$repo/lib/dissector/lcf.lua" -r "$out/sabres.pcap" \
	-T fields -e lcf.type -e lcf.node -Y "lcf.node == 1" 2> /dev/null |
	awk '{print $1}' | sort | uniq -c > "$out/capture-types.txt" || true
cat "$out/capture-types.txt"
n() { awk -v t="$1" '$2 == t {print $1}' "$out/capture-types.txt"; }
reg=$(n SABRE_REG) rd=$(n SABRE_READ) data=$(n SABRE_DATA) val=$(n SABRE_VALID)
echo "capture: REG ${reg:-0} READ ${rd:-0} DATA ${data:-0} VALID ${val:-0}"
# attempts: the 3 reads and their retries after a timeout (node 1's counters)
att=$(python3 - "$out/capture-n1.json" << 'PY'
import json, sys
s = json.load(open(sys.argv[1]))
tx, rx, sab = s["sent_by_type"], s["received_by_type"], s["sabres"]
print("counters: sent", {k: v for k, v in tx.items() if "SABRE" in k},
      "received", {k: v for k, v in rx.items() if "SABRE" in k},
      {k: sab[k] for k in ("reads", "ok", "retries", "timeouts", "aborts")},
      file=sys.stderr)
att = sab["reads"] + sab["retries"]
ok = (sab["reads"], sab["ok"], sab["aborts"], sab["retries"]) == \
    (3, 3, 0, sab["timeouts"]) and (tx.get("SABRE_REG"), tx.get("SABRE_READ"),
    rx.get("SABRE_DATA"), rx.get("SABRE_VALID")) == (att, 8 * att, 8 * att, att)
print(att if ok else 0)
PY
) || att=0
check "node 1 counters: 3 reads, 0 aborts, per attempt 1 REG, 8 READ, 8 DATA, 1 VALID" $((att == 0))
[ "$att" -gt 0 ] && [ "${reg:-0}" = "$att" ] && [ "${rd:-0}" = $((8 * att)) ] &&
	[ "${data:-0}" = $((8 * att)) ] && [ "${val:-0}" = "$att" ]
check "capture: per attempt ($att) 1 registration, 8 reads, 8 data, 1 validation" $?

# 2. torn objects under writers
rc=0
pair torn --threads 2 --writers 2 --size 8192 --objects 16 --duration 4 \
	-- --threads 2 --size 8192 --objects 16 --duration 4 || rc=$?
cat "$out/torn-n1.out"
check "torn run exits 0 (dsm_sabres exits 1 on a torn object)" "$rc"
python3 - "$out/torn-n1.json" "$out/torn-n0.json" << 'PY'
import json, sys
r = json.load(open(sys.argv[1]))["sabres"]
h = json.load(open(sys.argv[2]))["sabres"]["home"]
print("reader:", {k: r[k] for k in ("reads", "ok", "aborts", "retries",
                                     "timeouts", "abort_reasons")})
print("home:", {k: h[k] for k in ("validations_ok", "validations_fail",
                                   "abort_written", "abort_odd",
                                   "abort_changed", "base_invalidations")})
sys.exit(0 if r["aborts"] > 0 and r["ok"] == r["reads"] else 1)
PY
check "aborts > 0, every read completed" $?
if grep -q "torn objects" "$out/torn-n1.out"; then rc=1; else rc=0; fi
check "0 torn objects" "$rc"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
