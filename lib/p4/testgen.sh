#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Generate tests of the compiled lcf.p4 with p4testgen (p4c's backends/p4tools,
# tofino/tofino2 targets, PTF back end), translate those whose control plane a
# topology installs and whose registers start at power-on into pcap-test
# vectors (testgen_vectors.py), and with --replay play them through swswitch.
#
#   lib/p4/testgen.sh [--out DIR] [--target tofino|tofino2] [--topology NAME]
#                     [--max-tests N] [--seed N] [--replay] [--keep]
#
#   --topology NAME  topo/NAME (default pcap3.json): its ports, entries, LCF
#                    port, ways and slots per way (LCF_WAYS, LCF_SLOT_BITS)
#   --replay         run the vectors with pcap-tests/run_vectors.py (root)
#
#   P4TESTGEN   p4testgen (default: p4testgen on PATH)
#   TESTGEN_ARGS more p4testgen options (--path-selection ...)
#   P4C_INCLUDE include directories, colon-separated (tna.p4: a p4c source
#               tree's backends/tofino/bf-p4c/p4include and p4include)
#   SWSWITCH    for --replay (default: build/swswitch/swswitch)
#
# The value set lcf_port_vs is replaced by the topology's port
# (-DLCF_TESTGEN_PORT): p4testgen drops value-set select cases. The
# topology's tables and power-on registers are testgen_assume()s in a copy of
# the P4; the CRCs are XORs (p4testgen fails on CUSTOM hashes).
# p4testgen does not model resubmit: tests of a second pass are not made.
# Without p4testgen it prints "skipped: p4testgen not found" and exits 0.
# Exit 1 when p4testgen fails or a replayed vector fails, 2 on bad usage.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

usage() {
	sed -n '4,28p' "$0" | sed 's/^# \{0,1\}//'
	exit "${1:-0}"
}

out=""
target=tofino
topology=pcap3.json
max_tests=100
seed=1000
replay=0
keep=0
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=${2:?--out needs a directory}; shift 2 ;;
	--target) target=${2:?--target needs tofino or tofino2}; shift 2 ;;
	--topology) topology=${2:?--topology needs a name}; shift 2 ;;
	--max-tests) max_tests=${2:?--max-tests needs a number}; shift 2 ;;
	--seed) seed=${2:?--seed needs a number}; shift 2 ;;
	--replay) replay=1; shift ;;
	--keep) keep=1; shift ;;
	-h | --help) usage 0 ;;
	*) echo "testgen.sh: unknown option '$1'" >&2; usage 2 ;;
	esac
done
case $target in
tofino) arch=tna gen=1 ;;
tofino2) arch=t2na gen=2 ;;
*) echo "testgen.sh: --target: unknown target '$target' (tofino, tofino2)" >&2; exit 2 ;;
esac
for n in "$max_tests" "$seed"; do
	case $n in '' | *[!0-9]*) echo "testgen.sh: '$n' is not a number" >&2; exit 2 ;; esac
done
topo=$topology
[ -f "$topo" ] || topo=$root/topo/$topology
if [ ! -f "$topo" ]; then
	echo "testgen.sh: no topology '$topology'" >&2
	exit 2
fi

tg=${P4TESTGEN:-$(command -v p4testgen || true)}
if [ -z "$tg" ] || [ ! -x "$tg" ]; then
	echo "testgen.sh: skipped: p4testgen not found (set P4TESTGEN=...;" \
		"docs/TOFINO.md, p4testgen)"
	exit 0
fi

# LCF port, ways and slot bits of the topology (the C switch's sizes)
if ! read -r port ways bits < <(python3 - "$topo" <<'EOF'
import json, sys
t = json.load(open(sys.argv[1]))
sw = t.get("switch", {})
slots = sw.get("slots_per_way", 1 << 15)
if slots & (slots - 1):
    sys.exit("slots_per_way %d is not a power of two" % slots)
print(t.get("lcf_port", 7340), sw.get("ways", 2), slots.bit_length() - 1)
EOF
); then
	echo "testgen.sh: $topo: cannot read the LCF port, ways and slots" >&2
	exit 2
fi

# The topology's switch_cfg default and L2 table as p4testgen assumptions
# (LCF_TESTGEN_CFG, LCF_TESTGEN_L2 in lcf.p4): else p4testgen invents them
# and no test is the topology's
if ! { read -r cfg; read -r l2; read -r tables; } < <(python3 "$here/testgen_vectors.py" \
	--topology "$topo" --assumptions); then
	echo "testgen.sh: $topo: cannot derive the assumptions" >&2
	exit 2
fi

if [ -z "$out" ]; then
	out=$(mktemp -d)
	[ "$keep" -eq 1 ] || trap 'rm -rf "$out"' EXIT
fi
rm -rf "$out/tests" "$out/vectors"
mkdir -p "$out/tests" "$out/vectors" || exit 1

# the assumptions as #defines in a wrapper (p4testgen's preprocessor runs
# through sh, which would split them on the command line)
# the P4 with every register assumed at power-on (one packet a test)
mkdir -p "$out/p4" || exit 1
python3 "$here/testgen_vectors.py" --topology "$topo" --p4-copy "$out/p4" || exit 2
{
	printf '#define LCF_TESTGEN_CFG %s\n#define LCF_TESTGEN_L2 %s\n' "$cfg" "$l2"
	printf '#define LCF_TESTGEN_TABLES %s\n' "$tables"
	python3 "$here/testgen_vectors.py" --topology "$topo" --hashes "$bits" || exit 2
	echo '#include "lcf.p4"'
} >"$out/p4/lcf_testgen.p4"
read -ra tg_args <<<"${TESTGEN_ARGS:-}"
incs=()
IFS=: read -ra dirs <<<"${P4C_INCLUDE:-}"
for i in "${dirs[@]}"; do
	[ -n "$i" ] && incs+=(-I "$i")
done
echo "p4testgen: $tg, $target ($arch), LCF_WAYS=$ways LCF_SLOT_BITS=$bits," \
	"port $port, seed $seed, at most $max_tests tests"
if ! "$tg" --target "$target" --arch "$arch" --std p4-16 "${incs[@]}" -I "$out/p4" \
	-D__TARGET_TOFINO__="$gen" -DLCF_WAYS="$ways" -DLCF_SLOT_BITS="$bits" \
	-DLCF_QUEUE=0 -DLCF_TESTGEN_PORT="$port" \
	"${tg_args[@]}" \
	--test-backend PTF --seed "$seed" --max-tests "$max_tests" \
	--out-dir "$out/tests" "$out/p4/lcf_testgen.p4" >"$out/testgen.log" 2>&1; then
	# an internal error ends the run; the tests written before it stand
	grep -m1 -E "error|Error" "$out/testgen.log"
	echo "p4testgen stopped early ($out/testgen.log)"
fi
shopt -s nullglob
ptf=("$out"/tests/*.py)
if [ ${#ptf[@]} -eq 0 ]; then
	echo "FAIL p4testgen wrote no PTF file ($out/testgen.log)"
	exit 1
fi
python3 "$here/testgen_vectors.py" --topology "$topo" --out "$out/vectors" \
	--summary "$out/summary.json" "${ptf[@]}" || exit 1
echo "vectors: $out/vectors, summary: $out/summary.json"

[ "$replay" -eq 1 ] || exit 0
vecs=("$out"/vectors/*/)
[ ${#vecs[@]} -gt 0 ] || { echo "no vector to replay"; exit 0; }
python3 "$root/pcap-tests/run_vectors.py" \
	--swswitch "${SWSWITCH:-$root/build/swswitch/swswitch}" "${vecs[@]}"
